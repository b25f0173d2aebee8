"""The syntax tree of a rules spec, as the parser builds it: names not yet looked up, types
not yet checked.

Every node is a frozen dataclass carrying the `Span` of the text it came from; spans are left
out of equality so two specs that say the same thing compare equal wherever they were written.
The parser (`checker.frontend.parser`, with its Transformer in `checker.frontend.to_syntax`) is
the only producer; the resolve pass (`checker.frontend.resolve`) turns it into the typed IR
(`checker.frontend.typed`) that the engines read. Lints and coverage read it directly.
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
    index: Expr  # an Indices for a variable of several indices (`cmd[p, q]`)
    span: Span = _span()


@dataclass(frozen=True)
class Indices:
    """`p, q` in `cmd[p, q]`: the indices of a variable declared with several, in order. Only
    ever the index of an Index, an Assign or a let place."""
    items: tuple[Expr, ...]
    span: Span = _span()


def indices(items, span) -> Expr:
    """One index expression as itself, several as an Indices."""
    items = tuple(items)
    return items[0] if len(items) == 1 else Indices(items, span)


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
    # `score(p) := e`: the target is a let of these arguments that names a variable (a place)
    args: tuple[Expr, ...] | None = None


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


@dataclass(frozen=True)
class SignalStmt:
    """`signal takes_marker(q);`: the step raises declared event `event` (for `subject`)."""
    event: str
    subject: Expr | None
    tags: tuple[str, ...] = ()
    span: Span = _span()


Stmt = Union[Assign, MultiAssign, If, ForallStmt, OutcomeStmt, LocalLet, RunStmt, SignalStmt]


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
    abstracts: Expr | None = None  # `abstracts 11`: the document's number these values stand for
    budget: bool = False  # `budget`: the values bound "any number" of repetitions (compared by the checker)


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
    size: Expr | None  # `size S`: every team's (None with `sizes`)
    tags: tuple[str, ...]
    span: Span = _span()
    sizes: tuple[Expr, ...] = ()  # `sizes 1, 3`: each team's, in the order the teams are named


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
    step: Expr | None = None  # `in steps of K`: only the multiples of K are checked (an abstraction)
    rounding: str = ""  # `... rounding down|up|nearest`: amounts not multiples of K are rounded to one
    # `var cmd(p: player, q: player)`: the indices after the first, (binder, domain) each
    more_indices: tuple[tuple[str, object], ...] = ()


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
    match_action: bool = False  # `action NAME match ...`: a match's action, it may run between games
    by: str | None = None  # `by p`: the parameter naming who acts, the cause of the step's events


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
class TriggerDecl:
    """`trigger NAME [tags] on lose player p when COND do ... end`: statements run, once per
    subject and step, after the outcomes of a step are settled (docs/language.md, "Events and
    triggers")."""
    name: str
    event: str  # lose | win | draw | leave | finish (draw: of the game without a subject, of some with one) | signal
    subject_kind: str | None  # player | team | None (draw, finish); for "signal", set by the resolver
    var: str | None
    cond: Expr
    body: tuple[Stmt, ...]
    tags: tuple[str, ...]
    span: Span = _span()
    once: bool = False  # `once`: at most once per step, whichever subject it runs for
    signal: str = ""  # event "signal": the declared event heard (its subject kind is the declaration's)
    by: str | None = None  # `by q`: q is bound to who acts in the step; without one the trigger does not run


@dataclass(frozen=True)
class EventDecl:
    """`event takes_marker(q: player) [tags]`: an event that is not an outcome, raised by a
    `signal` statement and heard by triggers (docs/language.md, "Declared events")."""
    name: str
    subject_kind: str | None  # player | team | None (an event of the whole game)
    var: str | None  # the parameter's name, for the reader: triggers name their own
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class StateBasedDecl:
    """`state_based NAME [tags] when COND do ... end`: statements run in every step where COND
    holds once the action's statements ran, before its phases end (docs/language.md,
    "State-based rules"); lowered into the end of every action's body."""
    name: str
    cond: Expr
    body: tuple[Stmt, ...]
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class PrecedenceDecl:
    winner: str
    loser: str
    tags: tuple[str, ...]
    span: Span = _span()
    same_step: bool = False  # `... same_step`: only this step's facts compete (docs/language.md)
    who: str | None = None  # `... for players` / `for teams`: only those subjects' facts compete


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
class OpponentsDecl:
    """`opponents p q when cond`: q is an opponent of p where cond holds."""
    var: str
    other: str
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
class PossibleDecl:
    """`possible NAME(params) [tags]: cond`: for every binding of the parameters, some setup
    allowed by every constraint satisfies cond."""
    name: str
    cond: Expr
    tags: tuple[str, ...]
    span: Span = _span()
    params: tuple[Param, ...] = ()


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


# ---- phases (docs/language.md, "Phases")

@dataclass(frozen=True)
class PhaseEntry:
    """One phase of a `phases` cycle: `main [505.1] ends when passed`; `cond` None: it never ends."""
    name: str
    cond: Expr | None
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class PhasesDecl:
    """`phases NAME [tags] { ... }`: a cycle of phases (after the last comes the first); NAME is
    read as the current phase (`NAME == main`), and only the phases' end conditions change it."""
    name: str
    phases: tuple[PhaseEntry, ...]
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class WhenPhaseDecl:
    """`when PHASE, ... ends [tags] do ... end` (or `starts`): statements run in the step in which
    one of the phases ends (or starts)."""
    phases: tuple[str, ...]
    edge: str  # ends | starts
    body: tuple[Stmt, ...]
    tags: tuple[str, ...]
    span: Span = _span()


# ---- a match of games (docs/language.md, "A match of games")

@dataclass(frozen=True)
class GameResultDecl:
    """`game won by player p [tags] when C do ... end` / `game drawn [tags] when C do ... end`:
    when the game ends with this result, and what that does to the match variables."""
    kind: str  # won | drawn
    subject_kind: str | None  # player | team for `won`
    var: str | None
    cond: Expr
    body: tuple[Stmt, ...]
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class GameStartDecl:
    """`game starts [tags] when C do ... end`: when the next game may start, and what that does
    to the match variables (the game's own variables start again from their initial values)."""
    cond: Expr | None
    body: tuple[Stmt, ...]
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class MatchDecl:
    """`match [tags] { ... }`: the model is a match of games of the rest of the model."""
    vars: tuple[VarDecl, ...]  # the match's variables: they persist from game to game
    actions: tuple[ActionDecl, ...]  # the match's actions: they may run between games too
    results: tuple[GameResultDecl, ...]
    starts: tuple[GameStartDecl, ...]
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class ReadingDecl:
    name: str
    title: str
    decls: tuple[Decl, ...]
    tags: tuple[str, ...]
    span: Span = _span()
    formats: tuple[str, ...] = ()  # `reading x for f, g`: the formats it applies to (all if empty)


Decl = Union[ParamDecl, LetDecl, PlayersDecl, TeamsDecl, SeatingDecl, VarDecl, InitDecl,
             ConstraintDecl, ActionDecl, RoutineDecl, OutcomeDecl, PrecedenceDecl, WinnersDecl, ActiveDecl,
             ProcedureDecl, EndsDecl, LastSideDecl, InvariantDecl, ReachableDecl, ExpectDecl,
             OutOfScopeDecl, ChangesDecl, ReadingDecl, TriggerDecl, StateBasedDecl, PossibleDecl, AfterWinDecl, LoopDrawsDecl,
             OpponentsDecl, EventDecl]


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
    base: str = ""  # `extends F`: the format whose model this one changes ("": the file's top level)


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


# ---------------------------------------------------------------- composition
# Declarations that say how the others combine; `checker.frontend.compose` applies them, and
# nothing after it (the resolve pass, the engines) ever sees one.

@dataclass(frozen=True)
class Labelled:
    """`label: stmt`: a statement a reading or format can replace by name."""
    label: str
    stmt: Stmt
    tags: tuple[str, ...] = ()  # tags written before the label belong to the statement
    span: Span = _span()


@dataclass(frozen=True)
class AmbiguityDecl:
    """`ambiguity q { reading a {...} reading b {...} }`: one question the text leaves open, and
    its readings; the readings of different ambiguities combine into one model each."""
    name: str
    title: str
    readings: tuple[ReadingDecl, ...]
    tags: tuple[str, ...]
    span: Span = _span()
    formats: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReplaceDecl:
    """`replace owner.label do ... end`: the labelled statement's replacement (owner may be "")."""
    owner: str
    label: str
    body: tuple[Stmt, ...]
    span: Span = _span()


@dataclass(frozen=True)
class RemoveDecl:
    """`remove action x`: the inherited declaration is not part of this format or reading."""
    kind: str  # the declaration's keyword: action, outcome, var, ...
    name: str  # "" for the declarations that have no name (players, winners, ...)
    span: Span = _span()


Decl = Union[Decl, AmbiguityDecl, ReplaceDecl, RemoveDecl]  # noqa: F811 (the composition declarations)


def decl_name(d: Decl) -> str | None:
    """The name by which a reading's declaration replaces a base declaration, if any."""
    if isinstance(d, (VarDecl, LetDecl, ParamDecl, InitDecl, ConstraintDecl, ActionDecl, RoutineDecl,
                      OutcomeDecl, ProcedureDecl, EndsDecl, InvariantDecl, ReachableDecl, TriggerDecl, PossibleDecl, PhasesDecl,
                      StateBasedDecl, EventDecl)):
        return f"{type(d).__name__}:{d.name}"
    if isinstance(d, (PlayersDecl, TeamsDecl, SeatingDecl, WinnersDecl, ActiveDecl, LastSideDecl, MatchDecl, AfterWinDecl,
                      LoopDrawsDecl, OpponentsDecl)):
        return type(d).__name__
    if isinstance(d, PrecedenceDecl):  # `for players` and `for teams` settle different clashes: two declarations
        return f"PrecedenceDecl:{d.winner}:{d.loser}" + (f":{d.who}" if d.who else "")
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
