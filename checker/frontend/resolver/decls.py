"""Declarations, one at a time: variables and their types, actions, outcome rules, triggers,
`expect` records, and the conditions of the others.

An action's body ends with what the lowerings add to every step (`checker.frontend.lower`):
the phase chain, then in a match the game's results.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import replace

from .. import syntax as sx
from .. import typed as T
from ..lower import match as lower_match
from ..steps import const_text
from ..types import BOOL, INT, OPT_PLAYER, PLAYER, PLAYERS, TEAM, Step, Ty, enum
from .context import ERROR, Ctx
from ..diagnostics import Code


class DeclsMixin:
    """One declaration typed at a time (`ModelMixin.run` says in which order)."""

    def const(self, e, what="sizes"):
        """A number fixed before play: parameters ("params"), or also the table's sizes ("sizes")."""
        return self.want(self.ex(e, {}, Ctx(const=what), 0), INT)

    def cond(self, e, scope=None, ctx=Ctx()):
        """A condition: a boolean that counts positively (the polarity outcome rules check)."""
        return self.want(self.ex(e, scope or {}, ctx, 1), BOOL)

    def check_expect(self, d: sx.ExpectDecl) -> None:
        """The sizes an `expect` records must be in its kind's unit (or instances), each once;
        a fingerprint is what `rulewright check` prints (12 hex digits, maybe `-2`...)."""
        units = ["instances"] + ([self.measures[d.kind]] if d.kind in self.measures else [])
        seen = set()
        for unit, _ in d.measures:
            if unit not in units:
                self.error(Code.IMPOSSIBLE_EXPECT, f"a {d.kind} finding is not measured in `{unit}`", d.span,
                           "it may record: " + ", ".join(f"`N {u}`" for u in units))
            elif unit in seen:
                self.error(Code.IMPOSSIBLE_EXPECT, f"`{unit}` is recorded twice", d.span, "record each size once")
            seen.add(unit)
        if d.fingerprint and not re.fullmatch(r"[0-9a-f]{12}(-[0-9]+)?", d.fingerprint):
            self.error(Code.IMPOSSIBLE_EXPECT, f"`{d.fingerprint}` is not a fingerprint", d.span,
                       "copy it from the report: 12 hexadecimal digits, as `fingerprint \"3f2a9c0d1b7e\"`")

    def type_of(self, d: sx.VarDecl) -> Ty:
        t = d.type
        if d.step is not None:
            if not isinstance(t, sx.TRange):
                self.error(Code.TYPE_MISMATCH, f"{d.name} is not a number range, so it cannot be counted in steps", d.step.span,
                           "`in steps of K` follows a range: `var life(p: player): 0..8000 in steps of 1000 = 8000`")
            else:
                step = Step(self.const(d.step), const_text(d.step), d.rounding)
                if isinstance(step.value, T.Const) and step.value.type == INT and step.value.value < 1:
                    self.error(Code.TYPE_MISMATCH, f"the step of {d.name} is {step.value.value}; a step must be at least 1",
                               d.step.span, "count in steps of 1 or more: `in steps of 1000`")
                    return ERROR
                return Ty("int", step=step)
        if isinstance(t, sx.TBool):
            return BOOL
        if isinstance(t, sx.TRange):
            return INT
        if isinstance(t, sx.TPlayer):
            return OPT_PLAYER if t.optional else PLAYER
        if isinstance(t, sx.TTeam):
            if not self.has_teams:
                self.error(Code.TYPE_MISMATCH, f"{d.name} has type team but the format has no teams", t.span, "declare `teams ... size ...`")
                return ERROR
            return Ty("team", optional=True) if t.optional else TEAM
        if isinstance(t, sx.TSet):
            return PLAYERS
        if isinstance(t, sx.TEnum):
            return enum(t.members)
        raise AssertionError(t)

    def var_info(self, d: sx.VarDecl) -> T.VarInfo:
        ty = self.var_types[d.name]
        low = high = None
        if isinstance(d.type, sx.TRange):
            low, high = self.const(d.type.low), self.const(d.type.high)
            if ty.kind == "int" and ty.step is not None:  # the checked range: the bounds counted in steps
                low = self.to_step(low, ty, f"the low end of {d.name}'s range")
                high = self.to_step(high, ty, f"the high end of {d.name}'s range")
        index = None
        scope = {}
        if d.more_indices:
            index, scope = self.several_indices(d)
        elif d.index is not None:
            bname, k = d.index
            ity = self.index_type(d)
            if k == "team" and not self.has_teams:
                self.error(Code.TYPE_MISMATCH, f"{d.name} is indexed by team but the format has no teams", d.span,
                           "declare `teams ... size ...` or index by player")
                ity = ERROR
            b = self.binder(bname, ity, d.span, {})
            scope = {bname: ("binder", b)}
            if isinstance(k, sx.TRange):
                index = T.Index("int", b, self.const(k.low), self.const(k.high))
            elif isinstance(k, sx.TEnum):
                index = T.Index("enum", b, members=k.members)
            else:
                index = T.Index(k, b)
        init = None
        if d.init is not None:
            value = self.ex(d.init, scope, Ctx(init_of=self.var_order[d.name], play=False), 0)
            init = self.coerce(value, ty, f"the initial value of {d.name}")
        static = d.is_choice and d.name not in self.dynamic
        return T.VarInfo(d.name, ty, low, high, index, init, d.tags, d.is_choice, static, d.span,
                         step=ty.step.value if ty.kind == "int" and ty.step is not None else None)

    def params_of(self, params, scope):
        out = []
        scope = dict(scope)
        for prm in params:
            dom, et = self.domain(prm.domain, scope, Ctx())
            b = self.binder(prm.name, et, prm.span, scope)
            out.append((b, dom))
            scope[prm.name] = ("binder", b)
        return tuple(out), scope

    def action(self, d: sx.ActionDecl) -> T.Action:
        ps, scope = self.params_of(d.params, {})
        guard = self.cond(d.guard, scope)
        rid = self.rule("action", d.name, d.tags, d.span)
        # phases end after the step's statements; then, in a match, the game's result is judged
        guard, body = lower_match.end_of_step(self, d, guard, self.stmts(d.body, scope, Ctx()))
        return T.Action(d.name, ps, guard, body, d.progress, d.leave, rid, d.span, self.actor(d, ps))

    def actor(self, d: sx.ActionDecl, ps) -> T.Binder | None:
        """The binder of `by p`: a parameter of the action, a player; none on a concession."""
        if d.by is None:
            return None
        found = [b for b, _ in ps if b.name == d.by]
        if not found:
            self.error(Code.UNDEFINED, f"action {d.name} is taken `by {d.by}`, which is none of its parameters", d.span,
                       f"name the parameter who acts: `action {d.name}(p: player) by p`")
            return None
        if found[0].type != PLAYER:
            self.error(Code.TYPE_MISMATCH, f"action {d.name} is taken `by {d.by}`, which is no player", d.span,
                       "who acts is a player: a parameter over `player`, `remaining` or a set of players")
            return None
        if d.leave:
            self.error(Code.TYPE_MISMATCH, f"action {d.name} only removes players (`leave`) and is taken `by {d.by}`", d.span,
                       "a concession causes nothing: drop `by`, or the `leave` flag if the action is a game action")
            return None
        return found[0]

    def outcome(self, d: sx.OutcomeDecl):
        scope = {}
        binder = None
        if d.subject_kind:
            if d.subject_kind == "team" and not self.has_teams:
                self.error(Code.TYPE_MISMATCH, "a team outcome needs teams, and this format has none", d.span, "declare `teams ... size ...`")
                return None
            binder = self.binder(d.var, PLAYER if d.subject_kind == "player" else TEAM, d.span, {})
            scope = {d.var: ("binder", binder)}
        self.reads_won = False
        # a draw of some players and leaving share the losses' stratum, and their polarity rules
        departs = d.kind in ("lose", "leave") or d.kind == "draw" and d.subject_kind is not None
        cond = self.cond(d.cond, scope, Ctx(phase="lose" if departs else d.kind, step=True))
        rid = self.rule("outcome", d.name, d.tags, d.span)
        return T.OutcomeRule(d.name, d.kind, d.subject_kind, binder, cond, departs and self.reads_won,
                             rid, d.tags, d.span)


    # ------------------------------------------------------------ triggers
    def triggers(self, decls) -> tuple:
        """Each `trigger` typed; its condition and body read the state and the step's outcomes
        as they stand when it runs (lost_now() allowed, game_over not: the end is not settled)."""
        out, seen = [], {}
        for d in decls:
            if self._unique(seen, d, "trigger"):
                t = self.trigger(d)
                if t is not None:
                    out.append(t)
        return tuple(out)

    def events_of(self, decls) -> dict:
        """The declared events by name (a duplicate is E011, from the names pass)."""
        out = {}
        for d in decls:
            if d.subject_kind == "team" and not self.has_teams:
                self.error(Code.TYPE_MISMATCH, f"event `{d.name}` is about a team, and this format has no teams", d.span,
                           "declare `teams ... size ...`, or make it an event of a player: `(q: player)`")
            out.setdefault(d.name, T.Event(d.name, d.subject_kind, d.tags, d.span))
        return out

    def trigger(self, d: sx.TriggerDecl):
        scope, binder = {}, None
        if d.event == "signal":  # a declared event: its subject is its declaration's
            e = self.events.get(d.signal)
            if e is None:
                close = difflib.get_close_matches(d.signal, list(self.events), n=1)
                self.error(Code.UNDEFINED, f"there is no event `{d.signal}` for trigger {d.name} to hear", d.span,
                           f"did you mean `{close[0]}`?" if close else
                           f"declare it with `event {d.signal}(q: player)`, or hear an outcome: `on lose player p`")
                return None
            if (d.var is None) != (e.subject is None):
                self.error(Code.ARGUMENTS, f"event `{e.name}` has {'a ' + e.subject if e.subject else 'no subject'}: "
                           f"trigger {d.name} hears it as `on {e.name}{'(q)' if e.subject else ''}`", d.span,
                           f"as it is declared at {e.span}")
                return None
            d = replace(d, subject_kind=e.subject)
        if d.subject_kind:
            if d.subject_kind == "team" and not self.has_teams:
                self.error(Code.TYPE_MISMATCH, "a trigger on a team's outcome needs teams, and this format has none", d.span,
                           "declare `teams ... size ...`, or trigger on `lose player p`")
                return None
            binder = self.binder(d.var, PLAYER if d.subject_kind == "player" else TEAM, d.span, {})
            scope = {d.var: ("binder", binder)}
        cause = None
        if d.by is not None:
            if d.by == d.var:
                self.error(Code.DEFINED_TWICE, f"trigger {d.name} names its subject and who acts `{d.by}` alike", d.span,
                           "give who acts a name of its own: `by q`")
                return None
            cause = self.binder(d.by, PLAYER, d.span, {})
            scope = {**scope, d.by: ("binder", cause)}
        ctx = Ctx(phase="trigger", step=True)
        cond = self.cond(d.cond, scope, ctx)
        rid = self.rule("trigger", d.name, d.tags, d.span)
        body = self.stmts(d.body, scope, ctx)
        return T.Trigger(d.name, d.event, d.subject_kind, binder, cond, body, rid, d.tags, d.span, d.once, d.signal,
                         cause)
