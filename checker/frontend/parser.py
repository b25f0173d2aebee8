"""Text -> syntax tree. The grammar lives in grammar/rulewright.lark; one Transformer builds
`checker.frontend.syntax` nodes.

Nothing downstream of this module sees a lark tree. Syntax errors become `Diagnostic`s with the
line, a caret and a hint (`syntax_errors`).
"""
from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

from lark import Token, Transformer, v_args
from lark.exceptions import UnexpectedInput, VisitError

from . import syntax as ir
from .diagnostics import Diagnostic, SpecError, remember_source
from .grammar import check_tree, lark_parser
from .includes import SpecTree
from .syntax_errors import syntax_error


def _span(file: str, meta) -> ir.Span:
    if getattr(meta, "empty", False) or not hasattr(meta, "line"):
        return ir.Span(file, 0, 0, 0, 0)
    return ir.Span(file, meta.line, meta.column, meta.end_line, meta.end_column)


def _tok_span(file: str, tok: Token) -> ir.Span:
    return ir.Span(file, tok.line, tok.column, tok.end_line or tok.line, tok.end_column or tok.column + len(tok))


def _unquote(tok: Token) -> str:
    """A quoted string's text: `\\"` and `\\\\` stand for a quote and a backslash."""
    return re.sub(r'\\(["\\])', r"\1", str(tok)[1:-1])


class _Tags(list):
    """Marker type so the transformer can tell a tag list from other children."""


# the statement nodes a body is made of (a trigger tells its `when` condition from them)
_STMTS = (ir.Assign, ir.MultiAssign, ir.If, ir.ForallStmt, ir.OutcomeStmt, ir.LocalLet, ir.RunStmt, ir.Labelled)


def _is_stmt(x) -> bool:
    return isinstance(x, _STMTS)


class _Edge(str):
    """`ends` or `starts` in `when PHASE, ... ends do`: marks where the phase names stop."""


@v_args(meta=True)
class ToIR(Transformer):
    def __init__(self, file: str):
        super().__init__()
        self.file = file

    def sp(self, meta) -> ir.Span:
        return _span(self.file, meta)

    # --- helpers to pick children apart
    @staticmethod
    def _split(children):
        tags = ()
        rest = []
        for c in children:
            if isinstance(c, _Tags):
                tags = tuple(c)
            elif c is not None:
                rest.append(c)
        return tags, rest

    def tags(self, meta, children):
        return _Tags(str(c) for c in children)

    # --- file structure
    def start(self, meta, children):
        return list(children)

    def spec_header(self, meta, children):
        return ("header", _unquote(children[0]), _unquote(children[1]), self.sp(meta))

    def document(self, meta, children):
        return ("document", tuple(children))

    def id_entry(self, meta, children):
        quote = _unquote(children[1]) if len(children) > 1 and children[1] is not None else ""
        return ir.DocId(str(children[0]), quote, _tok_span(self.file, children[0]))

    def include(self, meta, children):
        return ("include", _unquote(children[0]), self.sp(meta))

    def format_block(self, meta, children):
        name = str(children[0])
        tags, rest = self._split(children[1:])
        title = ""
        if rest and isinstance(rest[0], Token) and rest[0].type == "STRING":
            title = _unquote(rest.pop(0))
        return ir.FormatBlock(name, title, tuple(rest), tags, self.sp(meta))

    def reading(self, meta, children):
        name = str(children[0])
        tags, rest = self._split(children[1:])
        title = ""
        if rest and isinstance(rest[0], Token) and rest[0].type == "STRING":
            title = _unquote(rest.pop(0))
        formats = rest.pop(0)[1] if rest and isinstance(rest[0], tuple) and rest[0][0] == "for" else ()
        return ir.ReadingDecl(name, title, tuple(rest), tags, self.sp(meta), formats)

    # --- composition
    def reading_for(self, meta, children):
        return ("for", tuple(str(c) for c in children))

    def ambiguity(self, meta, children):
        name = str(children[0])
        tags, rest = self._split(children[1:])
        title = ""
        if rest and isinstance(rest[0], Token) and rest[0].type == "STRING":
            title = _unquote(rest.pop(0))
        formats = rest.pop(0)[1] if rest and isinstance(rest[0], tuple) and rest[0][0] == "for" else ()
        return ir.AmbiguityDecl(name, title, tuple(rest), tags, self.sp(meta), formats)

    def replace_decl(self, meta, children):
        owner, label = children[0]
        return ir.ReplaceDecl(owner, label, tuple(c for c in children[1:] if c is not None), self.sp(meta))

    def replace_target(self, meta, children):
        names = [str(c) for c in children if c is not None]
        return ("", names[0]) if len(names) == 1 else (names[0], names[1])

    def remove_decl(self, meta, children):
        name = children[1] if len(children) > 1 and children[1] is not None else ""
        return ir.RemoveDecl(str(children[0]), str(name), self.sp(meta))

    def labelled_stmt(self, meta, children):
        return ir.Labelled(str(children[0]), children[1], (), self.sp(meta))

    def tagged_labelled_stmt(self, meta, children):
        return ir.Labelled(str(children[1]), children[2], tuple(children[0]), self.sp(meta))

    # --- parameters, players
    def param_decl(self, meta, children):
        tags, rest = self._split(children[1:])
        abstracts = next((c[1] for c in rest[1:] if isinstance(c, tuple) and c[:1] == ("abstracts",)), None)
        return ir.ParamDecl(str(children[0]), rest[0], tags, self.sp(meta), abstracts=abstracts)

    def param_abstracts(self, meta, children):
        return ("abstracts", children[0])

    def in_steps(self, meta, children):
        return ("step", children[0])

    def range_lit(self, meta, children):
        return ir.RangeDomain(children[0], children[1], self.sp(meta))

    def set_lit(self, meta, children):
        return ir.SetDomain(ir.SetLit(tuple(children), self.sp(meta)), self.sp(meta))

    def let_decl(self, meta, children):
        name = str(children[0])
        params = ()
        tags, rest = self._split(children[1:])
        if len(rest) == 2:
            params, body = rest
        else:
            body = rest[0]
        return ir.LetDecl(name, tuple(params), body, tags, self.sp(meta))

    def players_decl(self, meta, children):
        tags, rest = self._split(children)
        return ir.PlayersDecl(rest[0], tags, self.sp(meta))

    def teams_decl(self, meta, children):
        tags, rest = self._split(children)
        names, count = rest[0]
        return ir.TeamsDecl(names, count, rest[1], tags, self.sp(meta))

    def named_teams(self, meta, children):
        return (tuple(str(c) for c in children), None)

    def counted_teams(self, meta, children):
        return (None, children[0])

    def seating_decl(self, meta, children):
        tags, rest = self._split(children)
        kind, order = rest[0]
        return ir.SeatingDecl(kind, order, tags, self.sp(meta))

    def seat_alternate(self, meta, children):
        return ("alternate", ())

    def seat_blocks(self, meta, children):
        return ("blocks", ())

    def seat_list(self, meta, children):
        return ("list", tuple(str(c) for c in children))

    # --- state
    def _var(self, meta, children, is_choice):
        name = str(children[0])
        index = None
        tags = ()
        typ = None
        init: object = ir.Num(0)
        has_init = False
        step = None
        for c in children[1:]:
            if isinstance(c, _Tags):
                tags = tuple(c)
            elif isinstance(c, tuple) and len(c) == 2 and c[0] == "index":
                index = c[1]
            elif isinstance(c, tuple) and len(c) == 2 and c[0] == "step":
                step = c[1]
            elif typ is None and isinstance(c, (ir.TBool, ir.TRange, ir.TPlayer, ir.TTeam, ir.TSet, ir.TEnum)):
                typ = c
            elif c is not None:
                init = c
                has_init = True
        if is_choice:
            init_expr = None
        elif not has_init:
            init_expr = _default_init(typ, self.sp(meta))
        else:
            init_expr = None if init == "any" else init
        return ir.VarDecl(name, index, typ, init_expr, tags, is_choice, self.sp(meta), step=step)

    def var_decl(self, meta, children):
        return self._var(meta, children, False)

    def choice_decl(self, meta, children):
        return self._var(meta, children, True)

    def index(self, meta, children):
        return ("index", (str(children[0]), children[1]))

    def idx_player(self, meta, children):
        return "player"

    def idx_team(self, meta, children):
        return "team"

    def idx_range(self, meta, c):
        return ir.TRange(c[0], c[1], self.sp(meta))

    def idx_enum(self, meta, c):
        return ir.TEnum(tuple(str(x) for x in c), self.sp(meta))

    def init_value(self, meta, children):
        return children[0]

    def any_value(self, meta, children):
        return "any"

    def t_bool(self, meta, c):
        return ir.TBool(self.sp(meta))

    def t_range(self, meta, c):
        return ir.TRange(c[0], c[1], self.sp(meta))

    def t_player(self, meta, c):
        return ir.TPlayer(False, self.sp(meta))

    def t_opt_player(self, meta, c):
        return ir.TPlayer(True, self.sp(meta))

    def t_team(self, meta, c):
        return ir.TTeam(False, self.sp(meta))

    def t_opt_team(self, meta, c):
        return ir.TTeam(True, self.sp(meta))

    def t_set(self, meta, c):
        return ir.TSet(self.sp(meta))

    def t_enum(self, meta, c):
        return ir.TEnum(tuple(str(x) for x in c), self.sp(meta))

    def _named_cond(self, cls, meta, children):
        tags, rest = self._split(children[1:])
        return cls(str(children[0]), rest[0], tags, self.sp(meta))

    def init_decl(self, meta, c):
        return self._named_cond(ir.InitDecl, meta, c)

    def constraint_decl(self, meta, c):
        return self._named_cond(ir.ConstraintDecl, meta, c)

    def procedure_decl(self, meta, c):
        return self._named_cond(ir.ProcedureDecl, meta, c)

    def ends_decl(self, meta, c):
        return self._named_cond(ir.EndsDecl, meta, c)

    def invariant_decl(self, meta, c):
        return self._named_cond(ir.InvariantDecl, meta, c)

    def possible_decl(self, meta, c):
        params = next((tuple(x) for x in c[1:] if isinstance(x, list) and not isinstance(x, _Tags)), ())
        tags, rest = self._split([x for x in c[1:] if not (isinstance(x, list) and not isinstance(x, _Tags))])
        return ir.PossibleDecl(str(c[0]), rest[0], tags, self.sp(meta), params=params)

    def active_decl(self, meta, children):
        tags, rest = self._split(children[1:])
        return ir.ActiveDecl(str(children[0]), rest[0], tags, self.sp(meta))

    # --- actions
    def action_decl(self, meta, children):
        name = str(children[0])
        params: tuple = ()
        tags: tuple = ()
        progress = leave = match_action = False
        guard: ir.Expr = ir.Bool(True, self.sp(meta))
        body: list = []
        seen_guard = False
        for c in children[1:]:
            if isinstance(c, _Tags):
                tags = tuple(c)
            elif isinstance(c, list) and c and isinstance(c[0], ir.Param):
                params = tuple(c)
            elif c == "progress":
                progress = True
            elif c == "leave":
                leave = True
            elif isinstance(c, _Edge) and c == "match":
                match_action = True
            elif isinstance(c, (ir.Assign, ir.MultiAssign, ir.If, ir.ForallStmt, ir.OutcomeStmt, ir.LocalLet, ir.RunStmt,
                                ir.Labelled)):
                body.append(c)
            elif c is not None and not seen_guard:
                guard = c
                seen_guard = True
        return ir.ActionDecl(name, params, guard, tuple(body), progress, leave, tags, self.sp(meta), match_action=match_action)

    def routine_decl(self, meta, children):
        name = str(children[0])
        params: tuple = ()
        tags: tuple = ()
        body: list = []
        for c in children[1:]:
            if isinstance(c, _Tags):
                tags = tuple(c)
            elif isinstance(c, list) and c and isinstance(c[0], ir.Param):
                params = tuple(c)
            elif c is not None:
                body.append(c)
        return ir.RoutineDecl(name, params, tuple(body), tags, self.sp(meta))

    def run_stmt(self, meta, c):
        return ir.RunStmt(str(c[0]), tuple(x for x in c[1:] if x is not None), (), self.sp(meta))

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

    def tagged_stmt(self, meta, children):
        tags, stmt = tuple(children[0]), children[1]
        return _with_tags(stmt, tags)

    def assign(self, meta, children):
        places = [c for c in children if isinstance(c, tuple) and c and c[0] == "place"]
        values = tuple(c for c in children if not (isinstance(c, tuple) and c and c[0] == "place"))
        if len(places) == 1 and len(values) == 1:
            _, name, index, _ = places[0]
            if isinstance(index, list):  # a let place `score(p)`
                return ir.Assign(name, None, values[0], (), self.sp(meta), args=tuple(index))
            return ir.Assign(name, index, values[0], (), self.sp(meta))
        targets = tuple(ir.Call(name, tuple(index), span) if isinstance(index, list)
                        else ir.Name(name, span) if index is None else ir.Index(name, index, span)
                        for _, name, index, span in places)
        return ir.MultiAssign(targets, values, (), self.sp(meta))

    def place(self, meta, children):
        return ("place", str(children[0]), children[1] if len(children) > 1 else None, self.sp(meta))

    def let_place(self, meta, children):
        # the arguments travel as a list, which tells a let place from `x[i]` (one expression)
        return ("place", str(children[0]), list(children[1:]), self.sp(meta))

    def if_stmt(self, meta, children):
        cond = children[0]
        body, branches, otherwise = [], [], ()
        for c in children[1:]:
            if isinstance(c, tuple) and c and c[0] == "elif":
                branches.append((c[1], c[2]))
            elif isinstance(c, tuple) and c and c[0] == "else":
                otherwise = c[1]
            elif c is not None:
                body.append(c)
        return ir.If(((cond, tuple(body)),) + tuple(branches), otherwise, (), self.sp(meta))

    def elif_part(self, meta, children):
        return ("elif", children[0], tuple(c for c in children[1:] if c is not None))

    def else_part(self, meta, children):
        return ("else", tuple(c for c in children if c is not None))

    def forall_stmt(self, meta, children):
        return ir.ForallStmt(str(children[0]), children[1], tuple(c for c in children[2:] if c is not None), (), self.sp(meta))

    def local_let(self, meta, c):
        return ir.LocalLet(str(c[0]), c[1], (), self.sp(meta))

    def lose_stmt(self, meta, c):
        return ir.OutcomeStmt("lose", c[0], (), self.sp(meta))

    def win_stmt(self, meta, c):
        return ir.OutcomeStmt("win", c[0], (), self.sp(meta))

    def draw_stmt(self, meta, c):
        return ir.OutcomeStmt("draw", None, (), self.sp(meta))

    def finish_stmt(self, meta, c):
        return ir.OutcomeStmt("finish", None, (), self.sp(meta))

    # outcomes for some players while the game goes on
    def draw_some_stmt(self, meta, c):
        return ir.OutcomeStmt("draw", c[0], (), self.sp(meta))

    def leave_stmt(self, meta, c):
        return ir.OutcomeStmt("leave", c[0], (), self.sp(meta))

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
        cond: ir.Expr = ir.Bool(True, self.sp(meta))
        if rest and not isinstance(rest[0], _STMTS):
            cond, rest = rest[0], rest[1:]
        return ir.TriggerDecl(str(children[0]), event, subject_kind, var, cond, tuple(rest), tags, self.sp(meta))

    def event_lose(self, meta, c):
        return ("lose",) + c[0]

    def event_win(self, meta, c):
        return ("win",) + c[0]

    def event_draw(self, meta, c):
        return ("draw", None, None)

    def event_finish(self, meta, c):
        return ("finish", None, None)

    def precedence_decl(self, meta, children):
        tags, rest = self._split(children)
        return ir.PrecedenceDecl(str(rest[0]), str(rest[1]), tags, self.sp(meta), same_step=len(rest) > 2)

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
                note = _unquote(c)
        return ir.ExpectDecl(kind, note, tags, self.sp(meta), subject, tuple(measures), fingerprint)

    def expect_on(self, meta, children):
        return ("on", tuple(str(c) for c in children))

    def expect_measure(self, meta, children):
        unit = str(children[1])  # `1 instance` and `2 instances` alike
        return ("measure", unit if unit.endswith("s") else unit + "s", int(str(children[0])))

    def expect_fingerprint(self, meta, children):
        return ("fingerprint", _unquote(children[0]))

    def out_of_scope_decl(self, meta, children):
        return ir.OutOfScopeDecl(_unquote(children[1]), tuple(children[0]), self.sp(meta))

    def changes_decl(self, meta, children):
        return ir.ChangesDecl(_unquote(children[1]), tuple(children[0]), self.sp(meta))

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

    # --- expressions
    def dom_range(self, meta, c):
        return ir.RangeDomain(c[0], c[1], self.sp(meta))

    def dom_set(self, meta, c):
        return ir.SetDomain(c[0], self.sp(meta))

    def quant(self, meta, c):
        return str(c[0])

    agg = quant
    outcome_kind = quant
    winners_kind = quant
    last_side_kind = quant
    prec_scope = quant
    comp_op = quant

    def quantified(self, meta, c):
        return ir.Quant(str(c[0]), str(c[1]), c[2], c[3], self.sp(meta))

    def aggregate(self, meta, c):
        return ir.Aggregate(str(c[0]), str(c[1]), c[2], c[3], self.sp(meta))

    def implication(self, meta, c):
        return ir.Binary("implies", c[0], c[1], self.sp(meta))

    def disjunction(self, meta, c):
        return _fold("or", c, self.sp(meta))

    def conjunction(self, meta, c):
        return _fold("and", c, self.sp(meta))

    def not_(self, meta, c):
        return ir.Unary("not", c[0], self.sp(meta))

    def comparison(self, meta, c):
        return ir.Binary(str(c[1]), c[0], c[2], self.sp(meta))

    def not_in(self, meta, c):
        return ir.Binary("notin", c[0], c[1], self.sp(meta))

    def _arith(self, meta, c):
        out = c[0]
        for i in range(1, len(c), 2):
            out = ir.Binary(str(c[i]), out, c[i + 1], self.sp(meta))
        return out

    sum = _arith
    product = _arith

    def neg(self, meta, c):
        return ir.Unary("-", c[0], self.sp(meta))

    def number(self, meta, c):
        return ir.Num(int(c[0]), self.sp(meta))

    def true(self, meta, c):
        return ir.Bool(True, self.sp(meta))

    def false(self, meta, c):
        return ir.Bool(False, self.sp(meta))

    def none(self, meta, c):
        return ir.NoneLit(self.sp(meta))

    def name(self, meta, c):
        return ir.Name(str(c[0]), self.sp(meta))

    def index_expr(self, meta, c):
        return ir.Index(str(c[0]), c[1], self.sp(meta))

    def call(self, meta, c):
        args = tuple(x for x in c[1:] if x is not None)
        return ir.Call(str(c[0]), args, self.sp(meta))

    def agg_values(self, meta, c):
        # `min(a, b)`: the aggregate keywords also name functions of two or more values
        return ir.Call(str(c[0]), tuple(c[1:]), self.sp(meta))

    def set_comp(self, meta, c):
        return ir.SetComp(c[0], str(c[1]), c[2], c[3] if len(c) > 3 else None, self.sp(meta))

    def set_expr(self, meta, c):
        return ir.SetLit(tuple(x for x in c if x is not None), self.sp(meta))

    def ite(self, meta, c):
        # `if a then x elif b then y else z end` is `if a then x else (if b then y else z end) end`
        out = c[-1]
        for i in range(len(c) - 2, 0, -2):
            out = ir.Ite(c[i - 1], c[i], out, self.sp(meta))
        return out


def _fold(op, items, span):
    out = items[0]
    for x in items[1:]:
        out = ir.Binary(op, out, x, span)
    return out


def _default_init(typ, span):
    if isinstance(typ, ir.TBool):
        return ir.Bool(False, span)
    if isinstance(typ, ir.TRange):
        return typ.low
    if isinstance(typ, ir.TSet):
        return ir.SetLit((), span)
    if isinstance(typ, (ir.TPlayer, ir.TTeam)) and typ.optional:
        return ir.NoneLit(span)
    if isinstance(typ, ir.TEnum):
        return ir.Name(typ.members[0], span)
    return None  # players and teams have no natural default: any


def _with_tags(stmt, tags):
    from dataclasses import replace
    return replace(stmt, tags=tuple(stmt.tags) + tuple(tags))


def parse_text(text: str, file: str) -> list:
    """Parse one file's text into a list of top-level items (IR nodes and markers)."""
    remember_source(file, text)
    try:
        tree = lark_parser().parse(text)
    except UnexpectedInput as exc:
        raise SpecError(syntax_error(exc, text, file))
    check_tree(tree, file)  # the Transformer below recurses once per level, and int() has a digit limit
    try:
        return ToIR(file).transform(tree)
    except VisitError as exc:  # a transformer bug must still not become a traceback for the user
        raise SpecError(Diagnostic("E001", f"could not build the IR: {exc.orig_exc}", ir.Span(file, 1, 1, 1, 2),
                                   "this is a rulewright bug; please report it with the spec")) from exc


def parse_file(path: str | Path, root: str | Path | None = None,
               buffers: dict[str, str] | None = None) -> ir.SpecFile:
    """Parse a spec file, splicing in its includes (resolved relative to the including file).

    The file and its includes must lie in the folder tree `root` (default: the file's folder);
    see `includes` for what is refused and why. `buffers` (real path -> text) replaces the
    content of files on disk, as an editor's unsaved include file does.
    """
    p = Path(path)
    files = SpecTree(p.parent if root is None else root, buffers)
    text, real = files.read(p, str(path))
    return _parse_spec(p, str(path), text, (real,), files)


def parse_source(text: str, path: str | Path, root: str | Path | None = None) -> ir.SpecFile:
    """Parse `text` as the content of the spec file `path` (an editor's buffer, saved or not).

    Its includes are read from disk as `parse_file` reads them: relative to `path`, inside the
    folder tree `root` (default: the file's folder), within the same size limits.
    """
    p = Path(path)
    files = SpecTree(p.parent if root is None else root)
    files.charge(len(text.encode("utf-8", "surrogatepass")), str(path), ir.Span(str(path), 0, 0, 0, 0))
    return _parse_spec(p, str(path), text, (os.path.realpath(p),), files)


def _parse_spec(p: Path, shown: str, text: str, stack: tuple[str, ...], files: SpecTree) -> ir.SpecFile:
    items = parse_text(text, shown)
    title, document = p.stem, ""
    ids: list[ir.DocId] = []
    decls: list = []
    formats: list[ir.FormatBlock] = []
    includes: list[str] = []
    header_span = ir.Span(shown, 1, 1, 1, 1)
    for item in items:
        if isinstance(item, tuple) and item[0] == "header":
            title, document, header_span = item[1], item[2], item[3]
        elif isinstance(item, tuple) and item[0] == "document":
            ids.extend(item[1])
        elif isinstance(item, tuple) and item[0] == "include":
            _, rel, span = item
            target = files.include_path(p, rel, span)
            sub_text, real = files.read(target, str(target), (rel, span), stack)
            sub = _parse_spec(target, str(target), sub_text, stack + (real,), files)
            includes.append(sub.path)
            includes.extend(sub.includes)
            ids.extend(sub.ids)
            decls.extend(sub.decls)
            formats.extend(sub.formats)
            if not document:
                document = sub.document
        elif isinstance(item, ir.FormatBlock):
            formats.append(replace(item, decls=_splice(item.decls, p, stack, files, ids, includes, "format")))
        else:
            decls.append(_splice((item,), p, stack, files, ids, includes, "")[0] if _holds_decls(item) else item)
    return ir.SpecFile(shown, title, document, tuple(ids), tuple(decls), tuple(formats), tuple(includes), header_span)


def _holds_decls(item) -> bool:
    return isinstance(item, (ir.ReadingDecl, ir.AmbiguityDecl))


def _splice(decls: tuple, p: Path, stack: tuple[str, ...], files: SpecTree, ids: list, includes: list,
            where: str) -> tuple:
    """`decls` of a format or reading block with every `include` in it replaced by the included
    file's declarations (its document ids join the file's). An included file there holds
    declarations only: a format inside a format, or a reading inside a reading, means nothing."""
    out: list = []
    for d in decls:
        if isinstance(d, tuple) and d and d[0] == "include":
            _, rel, span = d
            target = files.include_path(p, rel, span)
            sub_text, real = files.read(target, str(target), (rel, span), stack)
            sub = _parse_spec(target, str(target), sub_text, stack + (real,), files)
            includes.append(sub.path)
            includes.extend(sub.includes)
            ids.extend(sub.ids)
            if sub.formats:
                raise SpecError(Diagnostic("E042", f"include {rel!r} declares a format, inside a {where or 'block'}",
                                           span, "a file included in a format or reading holds declarations only"))
            if where == "reading" and any(_holds_decls(x) for x in sub.decls):
                raise SpecError(Diagnostic("E042", f"include {rel!r} declares a reading or ambiguity, inside a reading",
                                           span, "a file included in a reading holds declarations only"))
            out.extend(sub.decls)
        elif isinstance(d, ir.ReadingDecl):
            out.append(replace(d, decls=_splice(d.decls, p, stack, files, ids, includes, "reading")))
        elif isinstance(d, ir.AmbiguityDecl):
            out.append(replace(d, readings=tuple(_splice(d.readings, p, stack, files, ids, includes, where))))
        else:
            out.append(d)
    return tuple(out)
