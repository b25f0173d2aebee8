"""Calls: built-in functions fitted to their arguments, lets expanded where they are used, and
the polarity of `lost`/`won` in outcome rules checked against the strata of outcome resolution.

Lets are expanded (inlined) rather than typed once, so that every engine sees plain
expressions; the limits in `checker.frontend.resolver.context` keep the expansion from
growing without bound.
"""
from __future__ import annotations

import difflib
from dataclasses import replace

from .. import builtins as bi
from .. import typed as T
from ..types import BOOL, OPT_PLAYER, Ty, accepts, join
from ..builtins import STEP_ONLY
from .context import ERROR, MAX_LET_NESTING, MAX_LET_USES, Ctx
from ..diagnostics import Code
from .. import syntax as sx

# An `opponents p q when cond` declaration is kept as a let of two players under a name no spec
# can write; `opponents(x)` then expands to `{q | q in players: <that let>(x, q)}`, so every
# engine sees a plain set comprehension.
OPPONENTS_LET = "opponents declaration"
_OPPONENT = "opponent q"  # the comprehension's binder: a name no argument can capture


class CallsMixin:
    """Calls of built-ins and lets, and the polarity of outcome reads."""

    def x_Call(self, e, scope, ctx, pol):
        name = e.func
        if name == "opponents" and OPPONENTS_LET in self.lets and len(e.args) == 1:
            q = sx.Name(_OPPONENT, e.span)
            return self.ex(sx.SetComp(q, _OPPONENT, sx.SetDomain(sx.Name("players", e.span), e.span),
                                      sx.Call(OPPONENTS_LET, (e.args[0], q), e.span), e.span), scope, ctx, pol)
        if name in self.lets:
            let = self.lets[name]
            if len(let.params) != len(e.args):
                self.error(Code.ARGUMENTS, f"{name} takes {len(let.params)} argument(s), given {len(e.args)}", e.span)
                return T.Const(0, ERROR, e.span)
            return self.inline(let, e.args, scope, ctx, pol, e.span)
        if name in ("count", "sum", "argmin", "argmax"):  # `count(a, b)`: the keywords parse as calls
            self.error(Code.ARGUMENTS, f"{name} is an aggregate over a domain, not a function of values", e.span,
                       f"write `{name}(x in DOMAIN: ...)`; of a list of numbers only `min(a, b, ...)` and "
                       "`max(a, b, ...)` are written as functions")
            return T.Const(0, ERROR, e.span)
        if name not in bi.FUNCTIONS:
            if name in bi.NAMES:
                self.error(Code.ARGUMENTS, f"{name} is a built-in name, not a function", e.span, f"write `{name}` without (...)")
                return T.Const(0, ERROR, e.span)
            close = difflib.get_close_matches(name, sorted(bi.FUNCTIONS) + list(self.lets), n=1)
            self.error(Code.UNDEFINED, f"there is no function `{name}`", e.span,
                       f"did you mean `{close[0]}`?" if close else "see the table of built-in functions in docs/language.md")
            return T.Const(0, ERROR, e.span)
        entries = bi.FUNCTIONS[name]
        args = [self.ex(a, scope, ctx, 0) for a in e.args]
        if any(a.type == ERROR for a in args):
            return T.Const(0, ERROR, e.span)
        if name in ("min", "max", "abs") and any(self.step_of(a) is not None for a in args):
            return self.stepped_call(name, args, e.span)
        entry = _pick(entries, args)
        if entry is None:
            arity = {len(b.params) for b in entries}
            if not any(len(b.params) == len(args) or "*" in b.params and len(args) >= len(b.params) - 1 for b in entries):
                want = "at least 2" if any("*" in b.params for b in entries) else " or ".join(str(n) for n in sorted(arity))
                self.error(Code.ARGUMENTS, f"{name}() takes {want} argument(s), given {len(args)}", e.span)
            else:
                shown = " or ".join(f"a {p}" for b in entries for p in b.params[:1] if isinstance(p, Ty))
                bad = next((a for a in args if a.type.kind == "none"), args[0])
                self.error(Code.TYPE_MISMATCH, f"argument of {name}() must be {shown or 'a value of the listed type'}, not a {bad.type}"
                           if len(entries) > 1 or len(args) == 1 else f"the arguments of {name}() do not fit: "
                           + ", ".join(str(a.type) for a in args), bad.span,
                           "see the table of built-in functions in docs/language.md")
            return T.Const(0, ERROR, e.span)
        return self.call(entry, args, e.span, ctx, pol)

    def call(self, entry: bi.Builtin, args, span, ctx, pol=1):
        if entry.needs_teams and not self.has_teams:
            self.error(Code.TYPE_MISMATCH, f"{entry.name}() needs teams, and this format has none" if entry.params
                       else f"`{entry.name}` needs teams, and this format has none", span, "declare `teams ... size ...`")
            return T.Const(0, ERROR, span)
        if entry.key == "team_size" and self.teams_decl is not None and self.teams_decl.sizes:
            self.error(Code.TYPE_MISMATCH, "`team_size` is not one number: the teams are declared with `sizes`", span,
                       "count a team's players with `size(teammates(p)) + 1`, or name the size")
            return T.Const(0, ERROR, span)
        if ctx.const and not (entry.key in ("abs", "min", "max") or ctx.const == "sizes" and entry.key in ("nplayers", "nteams", "team_size")):
            return self.not_const(entry.name + ("()" if entry.params else ""), span)
        if entry.reads == "outcome":
            self.check_polarity(entry, span, ctx, pol)
        if entry.key in STEP_ONLY and not ctx.step:
            self.error(Code.OUTCOME_NEGATED, f"{entry.name}() means \"lost in the step being settled\", and only outcome rules "
                       "and triggers see a step", span,
                       "use lost(x) (lost now or earlier) here, or state the rule as an outcome rule or a trigger")
            return T.Const(False, BOOL, span)
        if entry.reads == "end" and ctx.phase:
            self.error(Code.OUTCOME_NEGATED, f"`{entry.name}` reads the end of the game, which the outcome rules decide", span,
                       "use lost(), won() and the state in outcome rules")
            return T.Const(False, BOOL, span)
        if entry.key == "across":
            self.across_used.append(span)
        params = entry.params
        fitted = []
        for i, a in enumerate(args):
            p = params[min(i, len(params) - 1)] if params[-1] != "*" else (params[i] if i < len(params) - 1 else params[-2])
            if isinstance(p, Ty):
                a = self.coerce(a, p, f"argument {i + 1} of {entry.name}()")
            fitted.append(a)
        if entry.result == "first":
            if fitted[0].type.kind == "set":
                self.error(Code.TYPE_MISMATCH, f"{entry.name}() steps through a list of single values, not sets", span,
                           "list players, teams, numbers or members")
                return T.Const(0, ERROR, span)
            ty = fitted[0].type
            for a in fitted[1:]:
                ty = join(ty, a.type) or ty
            if ty.kind == "none":
                ty = OPT_PLAYER
            fitted = [self.coerce(a, ty, "") if ty.kind == "player" else a for a in fitted]
            if entry.key == "after":
                self.after_listed(fitted)
        else:
            ty = entry.result
        return T.Call(entry.key, tuple(fitted), ty, span)

    def after_listed(self, args) -> None:
        """`after(x, a, b, ...)` of literals where x is none of a, b, ...: it would fail in every
        state (an evaluation error, docs/language.md), so say so before anything is explored."""
        def literal(a):
            if isinstance(a, T.Const):
                return ("const", a.value)
            if isinstance(a, (T.PlayerName, T.TeamName)):
                return ("name", a.name)
            return None
        keys = [literal(a) for a in args]
        if None in keys or keys[0] in keys[1:]:
            return
        x = args[0]
        if not isinstance(x, T.Const):
            shown = x.name
        elif x.type.kind in ("player", "team"):  # the only constant of these types is none
            shown = "none"
        else:
            shown = x.type.members[x.value] if x.type.kind == "enum" else str(x.value).lower()
        self.error(Code.TYPE_MISMATCH, f"after({shown}, ...): {shown} is not one of the values listed, so it has no value after it",
                   args[0].span, "after(x, a, b, ...) is the value that follows x in the list a, b, ...; list x, "
                   "or test first where x may be another value (`x != none and ...`)")

    def check_polarity(self, entry, span, ctx, pol):
        if not ctx.phase or ctx.phase == "trigger":  # a trigger runs once: no fixpoint to depend on
            return
        reads_lost = entry.key.startswith("lost")
        if ctx.phase.startswith("cannot"):
            self.error(Code.OUTCOME_NEGATED, f"a \"cannot\" rule may not read {entry.name}(): it says who cannot win or lose "
                       "before this step's outcomes are derived", span,
                       "state it on the game's state; in_game(x) says whether x was in the game when the step began")
            return
        if entry.key.startswith("drew") and not ctx.phase.startswith("cannot"):
            # draws of some players are derived with the losses: read like lost()
            reads_lost = True
        if ctx.phase in ("draw", "finish") or (ctx.phase == "win" and reads_lost):
            return
        if pol == 1:
            if ctx.phase == "lose" and not reads_lost:
                self.reads_won = True
            return
        rule = "a loss rule" if ctx.phase == "lose" else "a win rule"
        hint = ("in a loss rule, in_game(x) says that x was in the game when this step began; "
                "state the rule positively otherwise" if reads_lost else
                "state the rule positively; a rule that needs `not won(...)` belongs in a draw or loss rule")
        self.error(Code.OUTCOME_NEGATED, f"{entry.name}() may only be used positively in {rule} (not under `not`, not left of "
                   "`implies`, not in a comparison or a count): the rule would depend on its own conclusion", span, hint)

    def inline(self, let, args, scope, ctx, pol, span):
        if let.name in self.inlining:
            self.error(Code.ARGUMENTS, f"{let.name} calls itself; lets may not be recursive", span)
            return T.Const(0, ERROR, span)
        # a let is expanded where it is used: a chain of lets each using the one before nests
        # as deep as the chain, and lets that use the one before twice double at each link
        if len(self.inlining) >= MAX_LET_NESTING:
            self.error(Code.TOO_DEEP, f"{let.name} is used inside {MAX_LET_NESTING} other lets", span,
                       f"rulewright expands lets where they are used, at most {MAX_LET_NESTING} deep; "
                       "use a variable or a local `let` in an action for intermediate values")
            return T.Const(0, ERROR, span)
        self.inlined += 1
        if self.inlined > MAX_LET_USES:
            if self.inlined == MAX_LET_USES + 1:
                self.error(Code.EXPANDS_TOO_FAR, f"the lets expand to more than {MAX_LET_USES:,} uses", span,
                           "a let that uses another let several times doubles the expression at each step; "
                           "use a variable or a local `let` in an action for intermediate values")
            return T.Const(0, ERROR, span)
        inner = {}
        for prm, a in zip(let.params, args):
            value = self.peek(a, scope, ctx)  # the argument's type, checked once where it is written
            _, et = self.domain(prm.domain, {}, Ctx())
            if ERROR not in (et, value.type) and accepts(et, value.type) == "no":
                self.error(Code.TYPE_MISMATCH, f"argument {prm.name} of {let.name} must be a {et}, not a {value.type}", a.span)
            inner[prm.name] = ("arg", a, scope)
        self.inlining.append(let.name)
        try:
            return self.ex(let.body, inner, ctx, pol)
        finally:
            self.inlining.pop()

    def peek(self, e, scope, ctx):
        """Resolve `e` for its type and errors only: the nodes and binders it makes are dropped
        (a let's argument is resolved again, with fresh binders, wherever the let reads it)."""
        uid, names, across = self.uid, len(self.names_used), len(self.across_used)
        value = self.ex(e, scope, replace(ctx, phase=""), 0)
        self.uid = uid
        del self.names_used[names:], self.across_used[across:]
        return value


def _pick(entries, args):
    """The built-in entry whose parameters the argument types fit (a `player?` fits a player)."""
    for b in entries:
        ps = b.params
        if "*" in ps:
            if len(args) < len(ps) - 1:
                continue
        elif len(ps) != len(args):
            continue
        ok = True
        first = args[0].type if args else None
        for i, a in enumerate(args):
            p = ps[i] if i < len(ps) and ps[i] != "*" else ps[-2]
            if p == "set":
                ok = a.type.kind == "set"
            elif p == "any":
                ok = join(first, a.type) is not None
            else:
                # `none` picks a player entry, so the error says that none is not a player
                ok = accepts(p, a.type) in ("", "narrow") or a.type.kind == "none" and p.kind in ("player", "team")
            if not ok:
                break
        if ok:
            return b
    return None
