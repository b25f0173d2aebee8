"""The syntax tree of a rules spec, as the parser builds it: names not yet looked up, types
not yet checked.

Every node is a frozen dataclass carrying the `Span` of the text it came from; spans are left
out of equality so two specs that say the same thing compare equal wherever they were written.
The parser (`checker.frontend.parser`) is the only producer; the resolve pass
(`checker.frontend.resolve`) turns it into the typed IR (`checker.frontend.typed`) that the
engines read. Lints and coverage read it directly.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Union


@dataclass(frozen=True, order=True)
class Span:
    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NOSPAN = Span("<builtin>", 0, 0, 0, 0)


def _span() -> Span:
    return field(default=NOSPAN, compare=False, repr=False)


# ---------------------------------------------------------------- expressions

@dataclass(frozen=True)
class Num:
    value: int
    span: Span = _span()


@dataclass(frozen=True)
class Bool:
    value: bool
    span: Span = _span()


@dataclass(frozen=True)
class NoneLit:
    span: Span = _span()


@dataclass(frozen=True)
class Name:
    name: str
    span: Span = _span()


@dataclass(frozen=True)
class Index:
    name: str
    index: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Unary:
    op: str  # "not" | "-"
    operand: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Binary:
    op: str  # + - * / % == != < <= > >= in notin and or implies
    left: Expr
    right: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Ite:
    cond: Expr
    then: Expr
    other: Expr
    span: Span = _span()


@dataclass(frozen=True)
class SetLit:
    items: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True)
class SetComp:
    """`{elem | var in domain: cond}`: the set of the values of elem for the elements that pass."""
    elem: Expr
    var: str
    domain: Domain
    cond: Expr | None
    span: Span = _span()


@dataclass(frozen=True)
class RangeDomain:
    low: Expr
    high: Expr
    span: Span = _span()


@dataclass(frozen=True)
class SetDomain:
    expr: Expr
    span: Span = _span()


Domain = Union[RangeDomain, SetDomain]


@dataclass(frozen=True)
class Quant:
    kind: str  # forall | exists
    var: str
    domain: Domain
    body: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Aggregate:
    kind: str  # count | sum | min | max
    var: str
    domain: Domain
    body: Expr
    span: Span = _span()


Expr = Union[Num, Bool, NoneLit, Name, Index, Call, Unary, Binary, Ite, SetLit, SetComp, Quant, Aggregate]


# ---------------------------------------------------------------- types

@dataclass(frozen=True)
class TBool:
    span: Span = _span()


@dataclass(frozen=True)
class TRange:
    low: Expr
    high: Expr
    span: Span = _span()


@dataclass(frozen=True)
class TPlayer:
    optional: bool = False
    span: Span = _span()


@dataclass(frozen=True)
class TTeam:
    optional: bool = False
    span: Span = _span()


@dataclass(frozen=True)
class TSet:
    span: Span = _span()


@dataclass(frozen=True)
class TEnum:
    members: tuple[str, ...]
    span: Span = _span()


Type = Union[TBool, TRange, TPlayer, TTeam, TSet, TEnum]


# ---------------------------------------------------------------- statements

@dataclass(frozen=True)
class Assign:
    target: str
    index: Expr | None
    value: Expr
    tags: tuple[str, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class If:
    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    otherwise: tuple[Stmt, ...]
    tags: tuple[str, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class ForallStmt:
    var: str
    domain: Domain
    body: tuple[Stmt, ...]
    tags: tuple[str, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class OutcomeStmt:
    kind: str  # lose | win | draw | finish (the game ends without a winner) | leave; a draw with a subject: that player or team draws
    subject: Expr | None
    tags: tuple[str, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class MultiAssign:
    """`a, b[i] := x, y;`: every value and index is computed before any place is written."""
    places: tuple[Expr, ...]  # Name or Index
    values: tuple[Expr, ...]
    tags: tuple[str, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class LocalLet:
    """`let x = e;` in an action body: e is evaluated once, where the statement stands."""
    name: str
    value: Expr
    tags: tuple[str, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class RunStmt:
    """`name(args);`: run a routine's statements here."""
    name: str
    args: tuple[Expr, ...]
    tags: tuple[str, ...] = ()
    span: Span = _span()


Stmt = Union[Assign, MultiAssign, If, ForallStmt, OutcomeStmt, LocalLet, RunStmt]


# ---------------------------------------------------------------- declarations

@dataclass(frozen=True)
class Param:
    """A binder: `p: player` in an action, a let or a reachable property."""
    name: str
    domain: Domain | str  # "player" / "team" are written as SetDomain(Name(...))
    span: Span = _span()


@dataclass(frozen=True)
class ParamDecl:
    name: str
    values: Domain  # RangeDomain or SetDomain(SetLit)
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class LetDecl:
    name: str
    params: tuple[Param, ...]
    body: Expr
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class PlayersDecl:
    count: Expr
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class TeamsDecl:
    names: tuple[str, ...] | None  # None: generated A, B, C, ...
    count: Expr | None
    size: Expr
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class SeatingDecl:
    kind: str  # alternate | blocks | list
    order: tuple[str, ...]
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class VarDecl:
    name: str
    index: tuple[str, object] | None  # (binder, "player" | "team" | TRange | TEnum)
    type: Type
    init: Expr | None  # None means `any`: every value of the type is an initial value
    tags: tuple[str, ...]
    is_choice: bool = False  # a static choice (setup, deck contents): never changes
    span: Span = _span()


@dataclass(frozen=True)
class InitDecl:
    name: str
    cond: Expr
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class ConstraintDecl:
    name: str
    cond: Expr
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class ActionDecl:
    name: str
    params: tuple[Param, ...]
    guard: Expr
    body: tuple[Stmt, ...]
    progress: bool
    leave: bool
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class RoutineDecl:
    """`routine name(params) [tags] do ... end`: statements several actions share."""
    name: str
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class OutcomeDecl:
    name: str
    kind: str  # lose | win | draw | finish (the game ends without a winner) | leave
    subject_kind: str | None  # player | team | None (a draw of the whole game, finish)
    var: str | None
    cond: Expr
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class PrecedenceDecl:
    winner: str
    loser: str
    tags: tuple[str, ...]
    span: Span = _span()
    same_step: bool = False  # `... same_step`: only this step's facts compete (docs/language.md)


@dataclass(frozen=True)
class WinnersDecl:
    many: bool
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class ActiveDecl:
    var: str
    cond: Expr
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class ProcedureDecl:
    name: str
    cond: Expr
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class EndsDecl:
    name: str
    cond: Expr
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class LastSideDecl:
    """`last_side plays_on`: the game goes on when one side is left (by default it must be over)."""
    plays_on: bool
    tags: tuple[str, ...]
    span: Span = _span()


# ---- outcome shapes for some players while the game goes on (issue 10, item 9)

@dataclass(frozen=True)
class AfterWinDecl:
    """`after_win plays_on`: a winner leaves the game as a winner and the others play on (by
    default a win ends the game)."""
    plays_on: bool
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class LoopDrawsDecl:
    """`loop_draws`: a loop that no game action can leave is a draw by rule, not a finding."""
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class InvariantDecl:
    name: str
    cond: Expr
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class ReachableDecl:
    name: str
    params: tuple[Param, ...]
    cond: Expr
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class ExpectDecl:
    """A reviewed finding: its kind and, each optional, the exact set of rules it cites (`tags`),
    the declarations it is about (`subject`), its largest accepted size per unit (`measures`:
    ("states", 335), ("instances", 2)...) and its fingerprint."""
    kind: str
    note: str
    tags: tuple[str, ...]
    span: Span = _span()
    subject: tuple[str, ...] = ()
    measures: tuple[tuple[str, int], ...] = ()
    fingerprint: str = ""


@dataclass(frozen=True)
class OutOfScopeDecl:
    reason: str
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class ChangesDecl:
    """`changes [ids] "why"`: this version changes the behaviour of these rules on purpose
    (read by `rulewright diff`, ignored by `check`)."""
    reason: str
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class ReadingDecl:
    name: str
    title: str
    decls: tuple[Decl, ...]
    tags: tuple[str, ...]
    span: Span = _span()


Decl = Union[ParamDecl, LetDecl, PlayersDecl, TeamsDecl, SeatingDecl, VarDecl, InitDecl,
             ConstraintDecl, ActionDecl, RoutineDecl, OutcomeDecl, PrecedenceDecl, WinnersDecl, ActiveDecl,
             ProcedureDecl, EndsDecl, LastSideDecl, InvariantDecl, ReachableDecl, ExpectDecl,
             OutOfScopeDecl, ChangesDecl, ReadingDecl, AfterWinDecl, LoopDrawsDecl]


@dataclass(frozen=True)
class DocId:
    id: str
    quote: str
    span: Span = _span()


@dataclass(frozen=True)
class FormatBlock:
    name: str
    title: str
    decls: tuple[Decl, ...]
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class SpecFile:
    """One parsed file, includes already spliced in."""
    path: str
    title: str
    document: str  # the source document's file name ("" for fixtures without one)
    ids: tuple[DocId, ...]
    decls: tuple[Decl, ...]
    formats: tuple[FormatBlock, ...]
    includes: tuple[str, ...]
    span: Span = _span()


def decl_name(d: Decl) -> str | None:
    """The name by which a reading's declaration replaces a base declaration, if any."""
    if isinstance(d, (VarDecl, LetDecl, ParamDecl, InitDecl, ConstraintDecl, ActionDecl, RoutineDecl,
                      OutcomeDecl, ProcedureDecl, EndsDecl, InvariantDecl, ReachableDecl)):
        return f"{type(d).__name__}:{d.name}"
    if isinstance(d, (PlayersDecl, TeamsDecl, SeatingDecl, WinnersDecl, ActiveDecl, LastSideDecl, AfterWinDecl,
                      LoopDrawsDecl)):
        return type(d).__name__
    if isinstance(d, PrecedenceDecl):
        return f"PrecedenceDecl:{d.winner}:{d.loser}"
    return None


def walk(node):
    """Every IR node below `node` (a node, or a list or tuple of them), depth first."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (list, tuple)):
            stack.extend(reversed(n))
        elif is_dataclass(n) and not isinstance(n, Span):
            yield n
            stack.extend(reversed([getattr(n, f.name) for f in fields(n) if f.name != "span"]))


def mentions(node, names) -> bool:
    """Whether `node` reads any of `names` (as a name or an indexed variable)."""
    return any(isinstance(n, (Name, Index)) and n.name in names for n in walk(node))
