"""The whole model: every declaration typed, in a fixed order, into one `T.Model`.

The order is part of the meaning. It numbers the binders (the engines key bound values by
their numbers) and the citable rules (reports and `expect` cite them), and it is the order in
which errors are reported: parameters and the table's sizes, variables, routines, the lowered
phases and match results, actions, outcome rules, the properties, triggers, then the named
conditions. A part may only read what an earlier part typed (the phase chain, for instance,
ends the actions' bodies, so it is typed before them).
"""
from __future__ import annotations

import difflib

from .. import builtins as bi
from .. import syntax as sx
from .. import typed as T
from ..lower import match as lower_match
from ..lower import phases as lower_phases
from ..lower import state_based as lower_state_based
from ..types import PLAYER
from .context import Ctx
from ..diagnostics import Code

OUTCOME_KINDS = ("lose", "win", "draw")


class ModelMixin:
    """The whole model, typed in the order that numbers its binders and rules."""

    def run(self) -> T.Model:
        decls = self.decls
        of = lambda cls: [d for d in decls if isinstance(d, cls)]  # noqa: E731
        params = tuple(self.param_info(d) for d in of(sx.ParamDecl))
        players, team_count, team_size, team_sizes = self.table_sizes(of(sx.PlayersDecl))
        # variable types before anything reads a variable
        for d in self.var_decls.values():
            self.var_types[d.name] = self.type_of(d)
        vars_ = tuple(self.var_info(d) for d in self.var_decls.values())
        self.events = self.events_of(of(sx.EventDecl))  # before any statement raises one
        for r in self.routines.values():  # a routine no action runs is still a rule, and dead
            self.rule("routine", r.name, r.tags, r.span)
        self.phase_chain, cycles = lower_phases.lower(self, decls)
        self.phase_chain = lower_state_based.lower(self, of(sx.StateBasedDecl)) + self.phase_chain
        self.game_end, match = lower_match.game_results(self, vars_)
        actions = tuple(self.action(d) for d in of(sx.ActionDecl)) + lower_match.actions(self, vars_)
        outcomes = tuple(o for o in (self.outcome(d) for d in of(sx.OutcomeDecl)) if o is not None)
        active = None
        for d in of(sx.ActiveDecl):
            b = self.binder(d.var, PLAYER, d.span, {})
            active = T.Active(b, self.cond(d.cond, {d.var: ("binder", b)}), d.tags, d.span)
        opponents = None
        for d in of(sx.OpponentsDecl):
            bp, bq = self.binder(d.var, PLAYER, d.span, {}), self.binder(d.other, PLAYER, d.span, {})
            opponents = T.Opponents(bp, bq, self.cond(d.cond, {d.var: ("binder", bp), d.other: ("binder", bq)}), d.tags, d.span)
        setup = Ctx(play=False)
        conds = lambda cls, ctx=Ctx(): tuple(T.Condition(d.name, self.cond(d.cond, None, ctx), d.tags, d.span)  # noqa: E731
                                             for d in of(cls))
        reachables = tuple(self.reachable(d, Ctx()) for d in of(sx.ReachableDecl))
        self.check_expects(of(sx.ExpectDecl))
        exempt = self.precedence(of(sx.PrecedenceDecl), outcomes)
        possibles = self.possibles(of(sx.PossibleDecl), setup)  # before nbinders is read: its binders count
        winners, last_side, after_win = of(sx.WinnersDecl), of(sx.LastSideDecl), of(sx.AfterWinDecl)
        td, seating = self.teams_decl, self.seating
        triggers = self.triggers(of(sx.TriggerDecl))  # before the model takes the rules: triggers are rules
        # the named conditions are typed last, as the model takes them (the order of their errors)
        return T.Model(
            path=self.spec.path, format=self.fmt, reading=self.reading, spec=self.spec, decls=decls,
            params=params, players=players,
            team_names=td.names if td is not None else None, team_count=team_count, team_size=team_size,
            team_sizes=team_sizes,
            seating=seating.kind if seating else "alternate", seating_order=seating.order if seating else (),
            vars=vars_, actions=actions, outcomes=outcomes,
            precedence=tuple((d.winner, d.loser, d.who) for d in of(sx.PrecedenceDecl)
                             if d.winner in OUTCOME_KINDS and d.loser in OUTCOME_KINDS),
            exempt=exempt,
            winners_many=bool(winners and winners[-1].many),
            last_side_ends=not (last_side and last_side[-1].plays_on),
            after_win_ends=not (after_win and after_win[-1].plays_on),
            past_losers_win=any(d.same_step and (d.winner, d.loser) == ("lose", "win") for d in of(sx.PrecedenceDecl)),
            loop_draws=bool(of(sx.LoopDrawsDecl)),
            active=active, opponents=opponents,
            inits=conds(sx.InitDecl, setup), constraints=conds(sx.ConstraintDecl, setup),
            procedures=conds(sx.ProcedureDecl), ends=conds(sx.EndsDecl), invariants=conds(sx.InvariantDecl),
            reachables=reachables, expects=tuple(of(sx.ExpectDecl)), rules=tuple(self.rules),
            changes=tuple(of(sx.ChangesDecl)), phases=cycles, match=match,
            triggers=triggers, events=tuple(self.events.values()),
            after_triggers=lower_match.after_triggers(self) if triggers else (),
            names_used=tuple(self.names_used), across_used=tuple(self.across_used), nbinders=self.uid,
            possibles=possibles, step_checks=tuple(self.step_checks), roundings=tuple(self.roundings))

    def param_info(self, d: sx.ParamDecl) -> T.ParamInfo:
        if isinstance(d.values, sx.RangeDomain):
            vals, is_range = (self.const(d.values.low, "params"), self.const(d.values.high, "params")), True
        else:
            vals, is_range = tuple(self.const(x, "params") for x in d.values.expr.items), False
        abstracts = self.const(d.abstracts, "params") if d.abstracts is not None else None
        return T.ParamInfo(d.name, vals, is_range, d.tags, d.span, abstracts=abstracts, budget=d.budget)

    def table_sizes(self, players_d) -> tuple:
        """(the number of players, of teams, the size of a team, each None if not declared; the
        sizes of the teams with `sizes`, else ())."""
        if not players_d and self.teams_decl is None:
            self.error(Code.MISSING_DECLARATION, "the model declares no players", self.spec.span, "add `players N` or `teams A, B size S`")
        players = self.const(players_d[-1].count, "params") if players_d else None
        td = self.teams_decl
        team_count = self.const(td.count, "params") if td is not None and td.count is not None else None
        team_size = self.const(td.size, "params") if td is not None and td.size is not None else None
        team_sizes = tuple(self.const(x, "params") for x in td.sizes) if td is not None else ()
        if td is not None and td.sizes and td.names is not None and len(td.sizes) != len(td.names):
            self.error(Code.OUT_OF_RANGE, f"{len(td.names)} teams are named but {len(td.sizes)} size{'s are' if len(td.sizes) > 1 else ' is'} given", td.span,
                       "give one size per team, in the order the teams are named (`teams A, B sizes 1, 3`)")
        return players, team_count, team_size, team_sizes

    def reachable(self, d, ctx: Ctx) -> T.Reachable:
        """A `reachable` (or `possible`) property: its parameters bound, its condition typed."""
        ps, scope = self.params_of(d.params, {})
        return T.Reachable(d.name, ps, self.cond(d.cond, scope, ctx), d.tags, d.span)

    def check_expects(self, expects) -> None:
        for d in expects:
            if d.kind not in self.kinds:
                close = difflib.get_close_matches(d.kind, self.kinds, n=1)
                self.error(Code.UNKNOWN_KIND, f"`{d.kind}` is not a finding kind", d.span,
                           f"did you mean `{close[0]}`?" if close else "one of: " + ", ".join(self.kinds))
            else:
                self.check_expect(d)

    def precedence(self, decls, outcomes) -> tuple:
        """Check `precedence` declarations; the (outcome rule, "cannot" rule) pairs they exempt."""
        for d in decls:
            if d.same_step and (d.winner, d.loser) != ("lose", "win"):
                self.error(Code.TYPE_MISMATCH, f"`precedence {d.winner} over {d.loser} same_step`: only `lose over win` has a "
                           "scope", d.span, "a loss in an earlier step is the only fact that can outlast a step; "
                           "drop `same_step`")
        for d in decls:
            if d.who is None:
                continue
            if {d.winner, d.loser} != {"lose", "win"}:
                self.error(Code.TYPE_MISMATCH, f"`precedence {d.winner} over {d.loser} for {d.who}`: only `lose over win` "
                           "and `win over lose` may be restricted to players or teams", d.span,
                           "a draw of the game concerns everyone: drop `for ...`")
            elif d.same_step:
                self.error(Code.TYPE_MISMATCH, "`same_step` and `for ...` cannot be combined", d.span,
                           "`same_step` already lets an earlier loser win with their team: drop `for ...`")
            elif d.who == "teams" and not self.has_teams:
                self.error(Code.TYPE_MISMATCH, f"`precedence {d.winner} over {d.loser} for teams` needs teams, and this "
                           "format has none", d.span, "declare `teams ... size ...`, or drop `for teams`")
        exempt = []
        by_name = {o.name: o for o in outcomes}
        for d in decls:
            if d.winner in OUTCOME_KINDS and d.loser in OUTCOME_KINDS:
                if d.winner == d.loser:
                    self.error(Code.TYPE_MISMATCH, f"`precedence {d.winner} over {d.loser}` says nothing", d.span)
                continue
            # a rule over a "cannot" rule: the rule's facts stand where the "cannot" rule holds
            rule, cannot = by_name.get(d.winner), by_name.get(d.loser)
            if (rule is None or cannot is None or not cannot.kind.startswith("cannot_")
                    or cannot.kind != "cannot_" + rule.kind or cannot.subject != rule.subject):
                self.error(Code.TYPE_MISMATCH, f"`precedence {d.winner} over {d.loser}` names neither two outcome kinds nor "
                           "an outcome rule and a \"cannot\" rule about the same outcome", d.span,
                           "write `precedence lose over win`, or `precedence RULE over CANNOT_RULE` where RULE is "
                           "a `lose player` rule and CANNOT_RULE a `cannot lose player` rule (or win, or team)")
                continue
            exempt.append((rule.name, cannot.name))
        return tuple(exempt)

    def possibles(self, decls, setup: Ctx) -> tuple:
        """`possible` properties, which read the setup only: what constraints read."""
        possibles = tuple(self.reachable(d, setup) for d in decls)
        for d in possibles:  # a setup has no statuses yet: who is in the game is play, not setup
            for b, dom in d.params:  # the bindings are fixed before any setup: players, teams, ranges, members
                if any(isinstance(n, (T.VarRef, T.BinderRef)) or isinstance(n, T.Call) and bi.BY_KEY[n.func].reads
                       for n in T.walk(dom)):
                    self.error(Code.TYPE_MISMATCH, f"the parameter {b.name} of `possible {d.name}` ranges over a domain that "
                               "depends on the game", b.span, "use players, teams, a range or a set of members")
            for n in T.walk(d.cond):
                if isinstance(n, T.Call) and bi.BY_KEY[n.func].reads:
                    self.error(Code.TYPE_MISMATCH, f"`possible {d.name}` reads {bi.BY_KEY[n.func].name}, which play decides, "
                               "not the setup", n.span, "a `possible` property reads what constraints read: "
                               "choices, parameters and the initial values of variables")
                    break
        return possibles
