"""The typed IR: what the resolve pass makes of a model, and all that the engines read.

Every name is resolved (a variable, a binder with a unique id, a parameter, a player, a team, an
enumeration member or a built-in from `checker.frontend.builtins`), lets are inlined, every node
carries its type, and operators are specific (`SetOp` is not `Arith`). The engines therefore
never look a name up or infer a type; `KINDS` lists the node kinds each engine must handle.
Spans are kept for diagnostics and findings and are left out of equality.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from .syntax import NOSPAN, Span
from .types import Ty


def _span() -> Span:
    return field(default=NOSPAN, compare=False, repr=False)


# ---------------------------------------------------------------- expressions

@dataclass(frozen=True)
class Const:
    value: object  # int, bool, -1 for none, the member's index for an enum
    type: Ty
    span: Span = _span()


@dataclass(frozen=True)
class PlayerName:
    name: str  # its seat depends on the instance
    type: Ty
    span: Span = _span()


@dataclass(frozen=True)
class TeamName:
    name: str
    type: Ty
    span: Span = _span()


@dataclass(frozen=True)
class Param:
    name: str
    type: Ty
    span: Span = _span()


@dataclass(frozen=True)
class VarRef:
    name: str
    index: Expr | None  # for variables with one value per player, team, number or member
    type: Ty
    static: bool = False  # a choice made before play that nothing during play reads
    span: Span = _span()
    # a variable of several indices: the writer's index expressions, of which `index` is the slot
    # number (the engines read `index`; symmetry reads these: checker/explicit/symmetry.py)
    indices: tuple = ()


@dataclass(frozen=True)
class Binder:
    uid: int  # unique in the model: the engines key bound values by it
    name: str
    type: Ty
    span: Span = _span()


@dataclass(frozen=True)
class BinderRef:
    uid: int
    name: str
    type: Ty
    span: Span = _span()


@dataclass(frozen=True)
class Not:
    operand: Expr
    type: Ty
    span: Span = _span()


@dataclass(frozen=True)
class Neg:
    operand: Expr
    type: Ty
    span: Span = _span()


@dataclass(frozen=True)
class Logic:
    op: str  # and | or | implies
    left: Expr
    right: Expr
    type: Ty
    span: Span = _span()


@dataclass(frozen=True)
class Compare:
    op: str  # == != < <= > >=  (order only on numbers; equality on any two values of one type)
    left: Expr
    right: Expr
    type: Ty
    span: Span = _span()


@dataclass(frozen=True)
class Arith:
    op: str  # + - * / %  (/ and % round down, as in Python; by zero is an evaluation error)
    left: Expr
    right: Expr
    type: Ty
    span: Span = _span()


@dataclass(frozen=True)
class SetOp:
    op: str  # union | diff
    left: Expr
    right: Expr
    type: Ty
    span: Span = _span()


@dataclass(frozen=True)
class Member:
    elem: Expr
    set: Expr
    negated: bool
    type: Ty
    span: Span = _span()


@dataclass(frozen=True)
class Ite:
    cond: Expr
    then: Expr
    other: Expr
    type: Ty
    span: Span = _span()


@dataclass(frozen=True)
class SetLit:
    items: tuple[Expr, ...]  # `none` items add nothing
    type: Ty
    span: Span = _span()


@dataclass(frozen=True)
class SetComp:
    """`{elem | binder in domain: cond}`: elem of every element of the domain that passes cond
    (cond is evaluated first, elem only where it holds; a `none` elem adds nothing)."""
    elem: Expr
    binder: Binder
    domain: Domain
    cond: Expr
    type: Ty
    span: Span = _span()


@dataclass(frozen=True)
class RangeDom:
    low: Expr
    high: Expr
    span: Span = _span()


@dataclass(frozen=True)
class SetDom:
    set: Expr
    span: Span = _span()


Domain = Union[RangeDom, SetDom]


@dataclass(frozen=True)
class Quant:
    kind: str  # forall | exists
    binder: Binder
    domain: Domain
    body: Expr
    type: Ty
    span: Span = _span()


@dataclass(frozen=True)
class Aggregate:
    kind: str  # count | sum | min | max (of nothing: 0) | argmin | argmax (the first best element)
    binder: Binder
    domain: Domain
    body: Expr
    type: Ty
    span: Span = _span()


@dataclass(frozen=True)
class Call:
    func: str  # a key of checker.frontend.builtins.BY_KEY
    args: tuple[Expr, ...]
    type: Ty
    span: Span = _span()


@dataclass(frozen=True)
class Narrow:
    """A `player?` used where a player is needed: none there is an evaluation error."""
    operand: Expr
    type: Ty
    span: Span = _span()


Expr = Union[Const, PlayerName, TeamName, Param, VarRef, BinderRef, Not, Neg, Logic, Compare, Arith, SetOp,
             Member, Ite, SetLit, SetComp, Quant, Aggregate, Call, Narrow]

EXPR_KINDS = (Const, PlayerName, TeamName, Param, VarRef, BinderRef, Not, Neg, Logic, Compare, Arith, SetOp,
              Member, Ite, SetLit, SetComp, Quant, Aggregate, Call, Narrow)


# ---------------------------------------------------------------- statements

@dataclass(frozen=True)
class Assign:
    var: str
    index: Expr | None
    value: Expr
    rule: int | None  # the model's rule id when the statement is tagged
    span: Span = _span()
    indices: tuple = ()  # a variable of several indices: the writer's index expressions (as VarRef's)


@dataclass(frozen=True)
class If:
    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    otherwise: tuple[Stmt, ...]
    rule: int | None
    span: Span = _span()


@dataclass(frozen=True)
class Forall:
    binder: Binder
    domain: Domain
    body: tuple[Stmt, ...]
    rule: int | None
    span: Span = _span()


@dataclass(frozen=True)
class OutcomeStmt:
    kind: str  # lose | win | draw | finish (the game ends without a winner) | leave
    subject: Expr | None  # a player or a team; None for a draw of the whole game and finish
    rule: int | None
    span: Span = _span()


@dataclass(frozen=True)
class LetStmt:
    """A local name: `value` is evaluated once, here; later statements read it as `binder`."""
    binder: Binder
    value: Expr
    rule: int | None
    span: Span = _span()


@dataclass(frozen=True)
class Block:
    """Statements run in order as one (a routine run where it is called); local names bound
    inside end with it."""
    body: tuple[Stmt, ...]
    rule: int | None
    span: Span = _span()


@dataclass(frozen=True)
class SignalStmt:
    """`signal takes_marker(q);`: the step raises declared event `event` (`Model.events`) for
    `subject` (None: an event without a subject); its triggers run when the step settles."""
    event: str
    subject: Expr | None
    rule: int | None
    span: Span = _span()


Stmt = Union[Assign, If, Forall, OutcomeStmt, LetStmt, Block, SignalStmt]

STMT_KINDS = (Assign, If, Forall, OutcomeStmt, LetStmt, Block, SignalStmt)
KINDS = EXPR_KINDS + STMT_KINDS


def children(node) -> tuple:
    """The typed nodes directly below `node`, for walks that need no per-kind code."""
    match node:
        case Const() | PlayerName() | TeamName() | Param() | BinderRef():
            return ()
        case VarRef(index=i):
            return (i,) if i is not None else ()
        case Not(operand=x) | Neg(operand=x) | Narrow(operand=x):
            return (x,)
        case Logic() | Compare() | Arith() | SetOp():
            return (node.left, node.right)
        case Member():
            return (node.elem, node.set)
        case Ite():
            return (node.cond, node.then, node.other)
        case SetLit() | Call():
            return tuple(getattr(node, "items", None) or getattr(node, "args", ()))
        case Quant() | Aggregate():
            return _domain_children(node.domain) + (node.body,)
        case SetComp():
            return _domain_children(node.domain) + (node.cond, node.elem)
        case Assign():
            return ((node.index,) if node.index is not None else ()) + (node.value,)
        case If():
            return tuple(x for c, body in node.branches for x in (c,) + body) + node.otherwise
        case Forall():
            return _domain_children(node.domain) + node.body
        case OutcomeStmt() | SignalStmt():
            return (node.subject,) if node.subject is not None else ()
        case LetStmt():
            return (node.value,)
        case Block():
            return node.body
        case RangeDom() | SetDom():
            return _domain_children(node)
    raise AssertionError(f"not a typed IR node: {node!r}")


def _domain_children(d) -> tuple:
    return (d.low, d.high) if isinstance(d, RangeDom) else (d.set,)


def walk(node, below=None):
    """`node` and every typed node below it, depth first, without recursion. `below(n)`, when
    given, says which nodes are below n instead of `children` (a walk that sees some nodes
    otherwise: checker/explicit/symmetry.py)."""
    below = below or children
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (list, tuple)):
            stack.extend(reversed(n))
            continue
        yield n
        stack.extend(reversed(below(n)))


# ---------------------------------------------------------------- a resolved model

@dataclass(frozen=True)
class Rule:
    """A declaration or tagged statement that traces cite and dead-rule judges."""
    kind: str  # action | outcome | statement | routine | trigger | phase | state (a state-based rule) | game
    name: str
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Index:
    kind: str  # player | team | int | enum
    binder: Binder  # names the index inside the variable's initial value
    low: Expr | None = None  # int ranges: constant bounds
    high: Expr | None = None
    members: tuple[str, ...] = ()
    # `var cmd(p: player, q: player)`: the indices of a variable of several, first to last; the
    # Index itself is then the slot number 0..N-1 (checker/frontend/resolver/indices.py)
    parts: tuple["Index", ...] = ()


@dataclass(frozen=True)
class VarInfo:
    name: str
    type: Ty
    low: Expr | None  # int variables: constant bounds
    high: Expr | None
    index: Index | None
    init: Expr | None  # None: every value of the type (`any`, or a choice)
    tags: tuple[str, ...]
    is_choice: bool
    static: bool  # a choice only constraints read: Z3 decides it, the explorer never enumerates it
    span: Span = _span()
    # `in steps of K`: the typed constant K; low, high and every value are then counted in steps
    step: Expr | None = None


@dataclass(frozen=True)
class Action:
    name: str
    params: tuple[tuple[Binder, Domain], ...]
    guard: Expr
    body: tuple[Stmt, ...]
    progress: bool
    leave: bool
    rule: int
    span: Span = _span()
    # `by p`: the parameter naming who acts, the cause of the outcomes and events its steps
    # settle (`on lose player q by c`); None: nobody (docs/language.md, "Who caused it")
    actor: Binder | None = None


@dataclass(frozen=True)
class OutcomeRule:
    name: str
    kind: str  # lose | win | draw | finish (the game ends without a winner) | cannot_lose | cannot_win | leave
    subject: str | None  # player | team | None for a draw of the whole game or a finish
    binder: Binder | None
    cond: Expr
    reads_won: bool  # a loss rule that reads won(): applied again after the wins of the step
    rule: int
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Trigger:
    """`trigger NAME on lose player p when COND do ... end`: run once per subject and step, after
    the round of outcome resolution that settled the event (docs/language.md, "Events and
    triggers"); its statements may change the state and derive outcomes for the next round."""
    name: str
    event: str  # lose | win | draw | leave | finish (draw: of the game without a subject, of some with one)
    subject: str | None  # player | team | None for a draw or a finish
    binder: Binder | None
    cond: Expr
    body: tuple[Stmt, ...]
    rule: int
    tags: tuple[str, ...]
    span: Span = _span()
    once: bool = False  # `once`: at most once per step, whichever subject it runs for
    signal: str = ""  # event "signal": the declared event it hears (`Model.events`)
    cause: Binder | None = None  # `by q`: bound to who acts in the step; a step without one runs it not

    @property
    def key(self) -> str:
        """The event as the engines file triggers: `lose_player`, `draw`, `signal:takes_marker_player`."""
        return event_key(self.event, self.subject, self.signal)


def event_key(event: str, subject: str | None, signal: str = "") -> str:
    """The name of an event kind: an outcome event with its subject kind (`lose_player`), or a
    declared event (`signal:NAME`, with its subject kind). No declared event's key is an outcome's."""
    return (f"signal:{signal}" if signal else event) + (f"_{subject}" if subject else "")


@dataclass(frozen=True)
class Event:
    """`event takes_marker(q: player)`: a declared event, raised by `signal` statements and heard
    by triggers after the outcome events of each round (docs/language.md, "Declared events")."""
    name: str
    subject: str | None  # player | team | None
    tags: tuple[str, ...]
    span: Span = _span()

    @property
    def key(self) -> str:
        return event_key("signal", self.subject, self.name)


def signal_slots(events, nplayers: int, nteams: int) -> dict[str, tuple[int, int]]:
    """Where each declared event's raised subjects are kept in a step's one mask of signals:
    name -> (first bit, how many: the players, the teams, or one for an event without a subject)."""
    out, at = {}, 0
    for e in events:
        size = nplayers if e.subject == "player" else nteams if e.subject == "team" else 1
        out[e.name] = (at, size)
        at += size
    return out


@dataclass(frozen=True)
class Condition:
    """A named condition: init, constraint, invariant, procedure, ends."""
    name: str
    cond: Expr
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Reachable:
    name: str
    params: tuple[tuple[Binder, Domain], ...]
    cond: Expr
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Active:
    binder: Binder
    cond: Expr
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Opponents:
    """`opponents p q when cond`: q is an opponent of p where cond holds (`opponents(x)` has
    already been expanded through it; the checks read it for the free-for-all convention)."""
    player: Binder
    other: Binder
    cond: Expr
    tags: tuple[str, ...]
    span: Span = _span()


# ---- phases (docs/language.md, "Phases"). The engines never read these: the resolve pass
# lowers a cycle into statements at the end of every action's body (`checker.frontend.lower.
# phases`), so the closures, the compiled successors and Z3 run one definition. The checks read
# them to cite the phase a stuck game is in.

@dataclass(frozen=True)
class Phase:
    name: str
    index: int  # its member index in the cycle's enumeration
    cond: Expr | None  # when it ends; None: it never ends on its own
    rule: int | None  # the rule cited in the step that ends it (None when it never ends)
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class PhaseCycle:
    name: str  # also the variable holding the current phase (an enumeration of the phases)
    phases: tuple[Phase, ...]
    tags: tuple[str, ...]
    span: Span = _span()


# ---- a match of games (docs/language.md, "A match of games"). Lowered by the resolve pass like
# phases (`checker.frontend.lower.match`): game actions are guarded by `not between_games`, every
# step ends by judging the game's results, and a generated action `next_game` starts the next
# game; the engines run plain actions.

@dataclass(frozen=True)
class MatchInfo:
    match_vars: tuple[str, ...]  # persist from game to game (`between_games` among them)
    game_vars: tuple[str, ...]  # start again from their initial values in every game
    results: tuple[tuple[str, int], ...]  # (won | drawn, rule id) in the order they are judged
    tags: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class ParamInfo:
    name: str
    values: tuple[Expr, ...] | tuple[Expr, Expr]  # a set of constants, or (low, high)
    is_range: bool
    tags: tuple[str, ...]
    span: Span = _span()
    abstracts: Expr | None = None  # `abstracts 11`: the document's number the values stand for
    budget: bool = False  # `budget`: the values bound "any number" of repetitions (merging.compare_budgets)


@dataclass(frozen=True)
class Model:
    """One format and reading of a file, resolved and typed; parameters still open."""
    path: str
    format: str
    reading: str
    spec: object  # the checker.frontend.syntax.SpecFile it came from
    decls: tuple  # the syntax declarations after formats and readings replaced what they replace
    params: tuple[ParamInfo, ...]
    players: Expr | None  # the number of players, if declared
    team_names: tuple[str, ...] | None  # named teams
    team_count: Expr | None  # counted teams (A, B, ...)
    team_size: Expr | None  # `size S` (None with `sizes`)
    seating: str  # alternate | blocks | list
    seating_order: tuple[str, ...]
    vars: tuple[VarInfo, ...]
    actions: tuple[Action, ...]
    outcomes: tuple[OutcomeRule, ...]
    # (winner kind, loser kind, "players" | "teams" | None: whose facts compete; None: everyone's)
    precedence: tuple[tuple[str, str, str | None], ...]
    winners_many: bool
    last_side_ends: bool  # a game with one side left must be over
    active: Active | None
    inits: tuple[Condition, ...]
    constraints: tuple[Condition, ...]
    procedures: tuple[Condition, ...]
    ends: tuple[Condition, ...]
    invariants: tuple[Condition, ...]
    reachables: tuple[Reachable, ...]
    expects: tuple  # checker.frontend.syntax.ExpectDecl
    rules: tuple[Rule, ...]
    names_used: tuple[tuple[str, str, Span], ...]  # ("player" | "team", name, where): checked per instance
    across_used: tuple[Span, ...]  # across() needs an even number of players: checked per instance
    nbinders: int
    changes: tuple = ()  # checker.frontend.syntax.ChangesDecl: behaviour changed on purpose (for diff)
    # (outcome rule, "cannot" rule): `precedence RULE over CANNOT_RULE`, the rule's facts stand
    exempt: tuple[tuple[str, str], ...] = ()
    triggers: tuple[Trigger, ...] = ()  # in the order written: the order they run for one event
    # `possible` properties: for every binding of its parameters (static domains), some setup
    # allowed by the constraints satisfies each (Z3 decides)
    possibles: tuple[Reachable, ...] = ()
    # (constant, step, where, what): a constant counted in steps must be a multiple of the step
    # in every instance (checked before anything is explored; the step may read parameters)
    step_checks: tuple[tuple[Expr, Expr, Span, str], ...] = ()
    # (amount, step, mode, where, what): amounts no multiple of their step, rounded as declared
    # (`in steps of 5 rounding down`): the writer's abstraction, reported under every finding
    roundings: tuple[tuple[Expr, Expr, str, Span, str], ...] = ()
    phases: tuple[PhaseCycle, ...] = ()  # declared cycles of phases, lowered into the actions' bodies
    match: MatchInfo | None = None  # the model is a match of games
    # outcome shapes for some players while the game goes on (docs/language.md, "Outcomes")
    after_win_ends: bool = True  # `after_win plays_on` makes it False: winners leave, the others play on
    past_losers_win: bool = False  # `precedence lose over win same_step`: who lost earlier may still win
    loop_draws: bool = False  # `loop_draws`: a loop no game action can leave is a draw, not a forced-loop
    opponents: Opponents | None = None  # who is an opponent of whom, if declared (else: other teams, or others)
    team_sizes: tuple[Expr, ...] = ()  # `sizes 1, 3`: each team's size, in the order named (teams of different sizes)
    events: tuple[Event, ...] = ()  # declared events, in the order written: the order their triggers run in a round
    # the statements run again after each round of triggers that ran, before the outcomes are
    # resolved again: the state-based rules and the phase chain, as they end a step's statements
    after_triggers: tuple[Stmt, ...] = ()

    @property
    def has_teams(self) -> bool:
        return self.team_names is not None or self.team_count is not None

    @property
    def name(self) -> str:
        return model_name(self.path, self.format, self.reading)


def model_name(path: str, fmt: str = "", reading: str = "") -> str:
    """How reports name a model: its file, then its format and reading if it has them."""
    return path + (f" | {fmt}" if fmt else "") + (f" | reading {reading}" if reading else "")


def precedence_key(winner: str, loser: str, who: str | None = None) -> tuple:
    """The key under which the engines note that `precedence WINNER over LOSER [for WHO]`
    decided a step (`Machine.decided`, the symbolic state's `noted`) and the dead-declaration
    check looks for it: one per declaration, `for players` and `for teams` apart."""
    return ("precedence", winner, loser) + ((who,) if who else ())
