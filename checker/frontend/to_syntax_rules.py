"""The `ToIR` methods for the rules of a game: actions and routines, outcome rules and
triggers, precedence, winners and the other format switches, reachability properties,
expectations, phases and matches of games.

One of the mixins `checker.frontend.to_syntax.ToIR` is made of: lark finds a method by the name
of its grammar rule, whichever mixin defines it.
"""
from __future__ import annotations

from dataclasses import dataclass

from lark import v_args

from . import syntax as ir
from .to_syntax_base import SyntaxBuilder, Tags, unquote
from .to_syntax_exprs import PrecWho


# the statement nodes a body is made of (an action, a trigger or a game start tells its
# condition from them)
_STMTS = (ir.Assign, ir.MultiAssign, ir.If, ir.ForallStmt, ir.OutcomeStmt, ir.LocalLet, ir.RunStmt, ir.SignalStmt,
          ir.Labelled)


def _is_stmt(x) -> bool:
    return isinstance(x, _STMTS)


class _Edge(str):
    """`ends` or `starts` in `when PHASE, ... ends do`: marks where the phase names stop."""


@dataclass(frozen=True)
class _By:
    """`by NAME` after an action's parameters or a trigger's event: told apart from a guard."""
    name: str


ONCE = object()  # `once` after a trigger's event: told apart from its condition and statements


@v_args(meta=True)
class Rules(SyntaxBuilder):
    # --- actions
    def action_decl(self, meta, children):
        name = str(children[0])
        params: tuple = ()
        tags: tuple = ()
        progress = leave = match_action = False
        by = None
        guard: ir.Expr = ir.Bool(True, self.sp(meta))
        body: list = []
        seen_guard = False
        for c in children[1:]:
            if isinstance(c, Tags):
                tags = tuple(c)
            elif isinstance(c, list) and c and isinstance(c[0], ir.Param):
                params = tuple(c)
            elif c == "progress":
                progress = True
            elif c == "leave":
                leave = True
            elif isinstance(c, _Edge) and c == "match":
                match_action = True
            elif isinstance(c, _By):
                by = c.name
            elif isinstance(c, _STMTS):
                body.append(c)
            elif c is not None and not seen_guard:
                guard = c
                seen_guard = True
        return ir.ActionDecl(name, params, guard, tuple(body), progress, leave, tags, self.sp(meta), match_action=match_action,
                             by=by)

    def routine_decl(self, meta, children):
        name = str(children[0])
        params: tuple = ()
        tags: tuple = ()
        body: list = []
        for c in children[1:]:
            if isinstance(c, Tags):
                tags = tuple(c)
            elif isinstance(c, list) and c and isinstance(c[0], ir.Param):
                params = tuple(c)
            elif c is not None:
                body.append(c)
        return ir.RoutineDecl(name, params, tuple(body), tags, self.sp(meta))

    def params(self, meta, children):
        return list(children)

    def param(self, meta, children):
        return ir.Param(str(children[0]), children[1], self.sp(meta))

    def flag_progress(self, meta, c):
        return "progress"

    def flag_leave(self, meta, c):
        return "leave"

    def flag_match(self, meta, c):
        return _Edge("match")  # a marker type: a guard is never this string

    def flag_by(self, meta, c):
        return _By(str(c[0]))

    def trigger_by(self, meta, c):
        return _By(str(c[0]))

    def head_draw_some(self, meta, c):
        return ("draw",) + c[0]

    def head_leave(self, meta, c):
        return ("leave",) + c[0]

    def after_win_decl(self, meta, children):
        tags, rest = self._split(children)
        return ir.AfterWinDecl(str(rest[0]) == "plays_on", tags, self.sp(meta))

    def loop_draws_decl(self, meta, children):
        tags, _ = self._split(children)
        return ir.LoopDrawsDecl(tags, self.sp(meta))

    # --- outcomes
    def outcome_decl(self, meta, children):
        tags, rest = self._split(children[1:])
        (kind, subject_kind, var), cond = rest
        return ir.OutcomeDecl(str(children[0]), kind, subject_kind, var, cond, tags, self.sp(meta))

    def head_lose(self, meta, c):
        return ("lose",) + c[0]

    def head_win(self, meta, c):
        return ("win",) + c[0]

    def head_draw(self, meta, c):
        return ("draw", None, None)

    def head_finish(self, meta, c):
        return ("finish", None, None)

    def head_cannot_lose(self, meta, c):
        return ("cannot_lose",) + c[0]

    def head_cannot_win(self, meta, c):
        return ("cannot_win",) + c[0]

    def subj_player(self, meta, c):
        return ("player", str(c[0]))

    def subj_team(self, meta, c):
        return ("team", str(c[0]))

    # --- triggers (docs/language.md, "Events and triggers")
    def trigger_decl(self, meta, children):
        tags, rest = self._split(children[1:])
        (event, subject_kind, var), rest = rest[0], rest[1:]
        by = None
        if rest and isinstance(rest[0], _By):
            by, rest = rest[0].name, rest[1:]
        once = bool(rest) and rest[0] is ONCE
        rest = rest[1:] if once else rest
        cond: ir.Expr = ir.Bool(True, self.sp(meta))
        if rest and not isinstance(rest[0], _STMTS):
            cond, rest = rest[0], rest[1:]
        signal = ""
        if event.startswith("signal:"):  # a declared event: its subject kind is its declaration's
            event, signal = "signal", event[len("signal:"):]
        return ir.TriggerDecl(str(children[0]), event, subject_kind, var, cond, tuple(rest), tags, self.sp(meta),
                              once, signal, by)

    def event_decl(self, meta, children):
        tags, rest = self._split(children[1:])
        kind, var = rest[0] if rest else (None, None)
        return ir.EventDecl(str(children[0]), kind, var, tags, self.sp(meta))

    def event_param(self, meta, c):
        return (str(c[1]), str(c[0]))

    def event_subject(self, meta, c):
        return str(c[0])

    def state_based_decl(self, meta, children):
        tags, rest = self._split(children[1:])
        cond: ir.Expr = ir.Bool(True, self.sp(meta))
        if rest and not isinstance(rest[0], _STMTS):
            cond, rest = rest[0], rest[1:]
        return ir.StateBasedDecl(str(children[0]), cond, tuple(rest), tags, self.sp(meta))

    def once(self, meta, c):
        return ONCE

    def event_lose(self, meta, c):
        return ("lose",) + c[0]

    def event_win(self, meta, c):
        return ("win",) + c[0]

    def event_draw_some(self, meta, c):
        return ("draw",) + c[0]

    def event_leave(self, meta, c):
        return ("leave",) + c[0]

    def event_draw(self, meta, c):
        return ("draw", None, None)

    def event_finish(self, meta, c):
        return ("finish", None, None)

    def event_declared(self, meta, c):
        return ("signal:" + str(c[0]), None, str(c[1]) if len(c) > 1 and c[1] is not None else None)

    def precedence_decl(self, meta, children):
        tags, rest = self._split(children)
        who = next((str(x) for x in rest[2:] if isinstance(x, PrecWho)), None)
        return ir.PrecedenceDecl(str(rest[0]), str(rest[1]), tags, self.sp(meta), same_step="same_step" in rest[2:],
                                 who=who)

    def winners_decl(self, meta, children):
        tags, rest = self._split(children)
        return ir.WinnersDecl(str(rest[0]) == "many", tags, self.sp(meta))

    def last_side_decl(self, meta, children):
        tags, rest = self._split(children)
        return ir.LastSideDecl(str(rest[0]) == "plays_on", tags, self.sp(meta))

    def reachable_decl(self, meta, children):
        name = str(children[0])
        params: tuple = ()
        tags, rest = self._split(children[1:])
        if len(rest) == 2:
            params = tuple(rest[0])
        return ir.ReachableDecl(name, params, rest[-1], tags, self.sp(meta))

    def expect_decl(self, meta, children):
        kind = str(children[0])
        tags, rest = self._split(children[1:])
        subject, measures, fingerprint, note = (), [], "", ""
        for c in rest:
            if isinstance(c, tuple) and c[0] == "on":
                subject = c[1]
            elif isinstance(c, tuple) and c[0] == "measure":
                measures.append(c[1:])
            elif isinstance(c, tuple) and c[0] == "fingerprint":
                fingerprint = c[1]
            else:
                note = unquote(c)
        return ir.ExpectDecl(kind, note, tags, self.sp(meta), subject, tuple(measures), fingerprint)

    def expect_on(self, meta, children):
        return ("on", tuple(str(c) for c in children))

    def expect_measure(self, meta, children):
        unit = str(children[1])  # `1 instance` and `2 instances` alike
        return ("measure", unit if unit.endswith("s") else unit + "s", int(str(children[0])))

    def expect_fingerprint(self, meta, children):
        return ("fingerprint", unquote(children[0]))

    def out_of_scope_decl(self, meta, children):
        return ir.OutOfScopeDecl(unquote(children[1]), tuple(children[0]), self.sp(meta))

    def changes_decl(self, meta, children):
        return ir.ChangesDecl(unquote(children[1]), tuple(children[0]), self.sp(meta))

    # --- phases
    def phases_decl(self, meta, children):
        tags, rest = self._split(children[1:])
        return ir.PhasesDecl(str(children[0]), tuple(rest), tags, self.sp(meta))

    def phase_entry(self, meta, children):
        tags, rest = self._split(children[1:])
        return ir.PhaseEntry(str(children[0]), rest[0] if rest else None, tags, self.sp(meta))

    def when_phase_decl(self, meta, children):
        k = next(i for i, c in enumerate(children) if isinstance(c, _Edge))
        tags, rest = self._split(children[k + 1:])
        return ir.WhenPhaseDecl(tuple(str(c) for c in children[:k]), str(children[k]), tuple(rest), tags, self.sp(meta))

    def phase_edge(self, meta, children):
        return _Edge(children[0])

    # --- a match of games
    def match_decl(self, meta, children):
        tags, rest = self._split(children)
        return ir.MatchDecl(tuple(x for x in rest if isinstance(x, ir.VarDecl)),
                            tuple(x for x in rest if isinstance(x, ir.ActionDecl)),
                            tuple(x for x in rest if isinstance(x, ir.GameResultDecl)),
                            tuple(x for x in rest if isinstance(x, ir.GameStartDecl)), tags, self.sp(meta))

    def game_won(self, meta, children):
        (subject_kind, var), rest = children[0], children[1:]
        tags, rest = self._split(rest)
        return ir.GameResultDecl("won", subject_kind, var, rest[0], tuple(rest[1:]), tags, self.sp(meta))

    def game_drawn(self, meta, children):
        tags, rest = self._split(children)
        return ir.GameResultDecl("drawn", None, None, rest[0], tuple(rest[1:]), tags, self.sp(meta))

    def game_start_decl(self, meta, children):
        tags, rest = self._split(children)
        # `when C` is optional: its expression comes first, statements follow
        cond = rest[0] if rest and not _is_stmt(rest[0]) else None
        body = rest[1:] if cond is not None else rest
        return ir.GameStartDecl(cond, tuple(body), tags, self.sp(meta))
