"""The values the symbolic engine computes with, the first thing every other pass of
`checker.symbolic` reads: Z3 terms and sets of them, the symbolic state of one step, the
if-then-else that merges two of them, and a concrete state of the explorer as terms.

Values: booleans are Bool, numbers/players/teams/members Int (-1 for none); sets are `SymSet`s:
one Bool per possible element (for sets of numbers, a condition per candidate value).

Folded values: where every input is concrete (the replay of a trace, `Encoder(fold=True)`), a
value is a Python bool or int instead of a Z3 literal, and the connectives below (`and_`,
`or_`, `not_`, `ite`, `sum_`...) compute on them directly. Building and freeing a Z3 term costs
a dozen calls through z3's Python API, each checked for errors; a replay built about 7,000 of
them per step of a 31-seat ring to compute values it knew. Without a Python literal among
their operands the connectives build exactly the terms z3's own functions build, so bounded
model checking and the setup questions see the formulas they always saw.
"""
from __future__ import annotations

import math
import time
from contextlib import contextmanager
from dataclasses import dataclass

import z3
from z3 import z3core

from ..frontend.instances import Instance, Var
from ..limits import Budget, LimitHit

TRUE, FALSE = z3.BoolVal(True), z3.BoolVal(False)  # of the current context (`fresh_context`)


def fresh_context() -> None:
    """Start a new Z3 context for what follows (one instance's checks): Z3 numbers its terms in
    the order a context creates them, and Spacer's invariants and the ranking search's choices
    among equals follow that order, so an instance checked after others in the same process
    read otherwise than one checked alone, and a report depended on how instances were spread
    over the workers. Terms of the previous context stay valid while referenced (each holds
    its context), but must not be mixed with new ones: no term outlives an instance.
    TRUE and FALSE are this module's, rebound here: read them as `terms.TRUE`."""
    global TRUE, FALSE, _TRUE_ID, _FALSE_ID
    z3.z3._main_ctx = z3.Context()  # what z3.main_ctx() hands every term made without a context
    TRUE, FALSE = z3.BoolVal(True), z3.BoolVal(False)
    _TRUE_ID, _FALSE_ID = TRUE.get_id(), FALSE.get_id()
    _INTS.clear()  # (`int_val`'s terms are the old context's)


def solve(s: z3.Solver, *assumptions):
    """`s.check(*assumptions)`, with Ctrl-C kept. While a check runs, Z3 catches SIGINT itself
    and answers unknown ("interrupted from keyboard"), so Python never sees the interrupt and
    an interrupted run went on checking; here it stops the run as Ctrl-C does anywhere else.
    An unknown a clock cut short raises LimitHit (`cut_short_check`)."""
    began = time.monotonic()
    r = s.check(*assumptions)
    if r == z3.unknown:
        if s.reason_unknown() == "interrupted from keyboard":
            raise KeyboardInterrupt
        cut_short_check(s, time.monotonic() - began)
    return r


# The wall-clock moment (time.monotonic) the symbolic engine's time ends, and the budget it is
# of. Z3 cannot be interrupted in a call, so each call gets this moment as its timeout beside
# its work (horn.limit), which alone decides the answer on every machine. A call the clock cut
# short answers unknown for the clock, not for its work, and that answer is no verdict: it
# would otherwise send the engine on to another question or another engine (bounded model
# checking where Spacer was cut), and a report would say what the time left allowed rather
# than what the work found (a run with slower successors reported other traces). So such an
# unknown raises LimitHit: the instance is incomplete (and tried again with more time).
_clock: list = [math.inf, None]
CLOCK_SLACK = 0.05  # seconds: Z3's timer may stop a call a little before the moment asked


@contextmanager
def clock(budget: Budget):
    """Every Z3 call inside stops by the wall-clock moment `budget`'s time left allows
    (`Budget.remaining`, from now)."""
    saved = list(_clock)
    _clock[:] = [min(_clock[0], time.monotonic() + max(0.0, budget.remaining())), budget]
    try:
        yield
    finally:
        _clock[:] = saved


def clock_deadline() -> float:
    """The moment (time.monotonic) Z3's calls stop by (math.inf outside a `clock`)."""
    return _clock[0]


# What a Z3 call of the symbolic engine is given of wall-clock time beside its work (horn.limit
# writes it on the solver): a safety net on a machine so loaded that the answer would come too
# late anyway. A call it stopped is the machine's doing, not the work's: LimitHit as well
# (`cut_short_check`).
WALL_BOUND = "rulewright_wall"
WALL_STOP = ("the wall-clock bound stopped it, not its share of work (a loaded machine, or the instance's "
             "time ran out): another run may decide it")


def cut_short_check(solver, elapsed: float) -> None:
    """After `solver` answered unknown in a call of `elapsed` seconds: raise LimitHit if the
    `clock` had run out or the call reached its own wall-clock bound, as then the unknown is
    the clock's, not the work's."""
    clock_check()
    wall = getattr(solver, WALL_BOUND, None)
    if wall is not None and elapsed >= 0.95 * wall:
        raise LimitHit(f"a Z3 call: {WALL_STOP}")


def clock_check() -> None:
    """Raise LimitHit once the `clock` has run out: what Z3 answered last may be cut short by it."""
    if time.monotonic() >= _clock[0] - CLOCK_SLACK:
        budget = _clock[1]
        raise LimitHit(budget.over() or f"{budget.why} (Z3's calls stop when the time left "
                                         "allows, which a busy machine brings sooner)")


class Unsupported(Exception):
    """A construct the encoding does not handle (a bound or a distance that depends on the state,
    set-valued choices), or a replay Z3 answers unknown: the caller reports that Z3 could not
    tell, never a wrong answer."""


@dataclass
class SymSet:
    elems: list  # Bool per candidate element
    kind: str  # player | team | enum | int
    values: list | None = None  # for int sets: the candidate values


def literal(x) -> int | None:
    """x's value when it is a number as it stands (a Python int, `int_val`'s term, a Z3 numeral);
    None for any other term, and for a bool: unlike `concrete`, nothing is simplified."""
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return x
    if isinstance(x, _Num):
        return x.value
    if isinstance(x, z3.IntNumRef):
        return x.as_long()
    return None


def concrete(x):
    """The Python value of a term that simplifies to a literal, None for any other."""
    if isinstance(x, bool):
        return x
    number = literal(x)  # (a binder's value, a seat, a constant: nothing to simplify)
    if number is not None:
        return number
    if decided(x) is not None:
        return decided(x)
    s = z3.simplify(x)
    if z3.is_int_value(s):
        return s.as_long()
    if z3.is_true(s):
        return True
    if z3.is_false(s):
        return False
    return None


_TRUE_ID, _FALSE_ID = TRUE.get_id(), FALSE.get_id()


def decided(x):
    """True or False for a literal, None for any other term (no simplification: see Encoder.lit)."""
    if x is True or x is TRUE:
        return True
    if x is False or x is FALSE:
        return False
    if isinstance(x, bool) or not isinstance(x, z3.ExprRef):
        return None
    # Z3 shares equal terms, so its literals are these two: one call instead of z3.is_true's five
    i = x.get_id()
    return True if i == _TRUE_ID else False if i == _FALSE_ID else None


def is_true(x) -> bool:
    """Whether x is the literal true (a Python True or a Z3 one)."""
    return decided(x) is True


def is_false(x) -> bool:
    """Whether x is the literal false (a Python False or a Z3 one)."""
    return decided(x) is False


def _folds(xs) -> bool:
    """Whether a Python literal is among the operands: the values are folded (see the module's
    docstring), so Z3's own constants TRUE and FALSE count as literals too."""
    return any(x is True or x is False for x in xs)


# z3's And, Or and Not coerce every operand (sorts compared, Python values cast) before they
# build the term: a third of a step's encoding went into it. Over Boolean terms the same term
# is built here with the one call to Z3 they end with; anything else goes through z3's own.

def _conjunction(xs):
    """z3.And(*xs)."""
    return _apply(z3core.Z3_mk_and, xs) if _terms(xs) else z3.And(*xs)


def _disjunction(xs):
    """z3.Or(*xs)."""
    return _apply(z3core.Z3_mk_or, xs) if _terms(xs) else z3.Or(*xs)


def _terms(xs) -> bool:
    return bool(xs) and all(isinstance(x, z3.BoolRef) for x in xs)


def _apply(mk, xs):
    ctx = xs[0].ctx
    args = (z3.z3.Ast * len(xs))(*[x.as_ast() for x in xs])
    return z3.BoolRef(mk(ctx.ref(), len(xs), args), ctx)


def not_(a):
    if a is True or a is False:
        return not a
    if isinstance(a, z3.BoolRef):  # z3.Not(a)
        return z3.BoolRef(z3core.Z3_mk_not(a.ctx.ref(), a.as_ast()), a.ctx)
    return z3.Not(a)


def and_(*xs):
    """z3.And over terms; over folded values, the literals decided here."""
    return _conjunction(xs) if not _folds(xs) else _junction(xs, False, z3.And)


def or_(*xs):
    """z3.Or over terms; over folded values, the literals decided here."""
    return _disjunction(xs) if not _folds(xs) else _junction(xs, True, z3.Or)


def _junction(xs, absorbing: bool, build):
    """A conjunction (absorbing False) or disjunction (absorbing True) of folded values: the
    absorbing literal decides it, the other drops out, and what is left is built by `build`."""
    rest = []
    for x in xs:
        d = decided(x) if x is True or x is False or x is TRUE or x is FALSE else None
        if d is absorbing:
            return absorbing
        if d is None:
            rest.append(x)
    return (not absorbing) if not rest else rest[0] if len(rest) == 1 else build(*rest)


def implies(a, b):
    if a is True or a is False or b is True or b is False:
        return or_(not_(a) if a is True or a is False else z3.Not(a), b)
    return z3.Implies(a, b)


def ite(c, a, b):
    """z3.If(c, a, b); the branch itself when c is a Python literal."""
    if c is True:
        return a
    if c is False:
        return b
    return z3.If(c, a, b)


def sum_(xs):
    """z3.Sum of the terms; the Python sum when every one is a Python int."""
    if all(isinstance(x, int) for x in xs):
        return sum(xs)
    return z3.Sum(xs)


def simp(x):
    """z3.simplify of a term; a Python value, and Z3's TRUE and FALSE, unchanged."""
    return z3.simplify(x) if isinstance(x, z3.ExprRef) and x is not TRUE and x is not FALSE else x


def to_term(x):
    """A Python bool or int as a Z3 literal; a term unchanged."""
    if isinstance(x, bool):
        return z3.BoolVal(x)
    if isinstance(x, int):
        return int_val(x)
    return x


class _Num(z3.IntNumRef):
    """z3.IntVal's term that keeps its Python value (`concrete` reads it without asking Z3)."""

    def __init__(self, ast, ctx, value: int):
        super().__init__(ast, ctx)
        self.value = value


_INTS: dict[int, z3.IntNumRef] = {}


def int_val(x: int):
    """z3.IntVal(x): the same term (Z3 shares equal terms), made once per value (the binders,
    seats and constants of a step; z3.IntVal makes its sort and parses the digits each time).
    A new Python object each time, as z3.IntVal's: `sym_if` and `merge` tell branches apart
    by identity, and the terms stay those z3.IntVal gave."""
    v = _INTS.get(x)
    if v is None:
        v = _INTS[x] = z3.IntVal(x)
    return _Num(v.as_ast(), v.ctx, x)


def or_all(terms):
    """The disjunction of `terms`, false for none (the false ones are left out)."""
    terms = list(terms)
    if _folds(terms):
        return or_(*terms)
    terms = [t for t in terms if not is_false(t)]
    return _disjunction(terms) if terms else FALSE


def or2(a, b):
    """a or b, without building a term when either side is a constant (the common case)."""
    if is_false(a):
        return b
    if is_false(b) or is_true(a):
        return a
    if is_true(b):
        return b
    return _disjunction((a, b))


def sym_if(cond, a, b):
    """If cond then a else b, for terms and for sets (element by element)."""
    if a is b:
        return a
    if cond is True or cond is False:  # folded: the branch taken
        return a if cond else b
    if isinstance(a, SymSet):
        if a.kind == "int":  # (values, conditions) lists of different values: keep both, each under its branch
            return SymSet([and_(cond, c) for c in a.elems] + [and_(z3.Not(cond), c) for c in b.elems],
                          "int", list(a.values) + list(b.values))
        return SymSet([ite(cond, x, y) for x, y in zip(a.elems, b.elems)], a.kind, a.values)
    return z3.If(cond, to_term(a), to_term(b))


class SymState:
    """One step's state over terms: the variables' slots, who is out of the game and why, and
    what the step has done so far (outcome facts, errors, overflows, tagged statements)."""

    # per-player and per-team lists: this step's facts (lose, win, draw, leave), then why those
    # out of the game left without losing (drew, won while the game went on, left with no result)
    FIELDS = ("lp", "wp", "lt", "wt", "dp", "dt", "xp", "xt", "rd", "rw", "rx", "trd", "trw", "trx")
    RESULTS = ("rd", "rw", "rx", "trd", "trw", "trx")

    def __init__(self, vals, out, tout, results=None, folded: bool = False):
        self.vals = vals  # name -> list of terms, one per slot
        self.out = out
        self.tout = tout
        self.folded = folded  # the values are folded to Python literals (see the module's docstring)
        false = False if folded else FALSE
        n, nt = len(out), len(tout)
        self.lp = [false] * n
        self.wp = [false] * n
        self.lt = [false] * nt
        self.wt = [false] * nt
        self.dp = [false] * n
        self.xp = [false] * n
        self.dt = [false] * nt
        self.xt = [false] * nt
        self.rd, self.rw, self.rx, self.trd, self.trw, self.trx = results or ([false] * n, [false] * n, [false] * n,
                                                                             [false] * nt, [false] * nt, [false] * nt)
        self.draw = false
        self.fin = false  # the game ends without a winner (`finish`); a state read: it ended so
        self.overflow = false
        self.error = false
        self.over = false  # the state read has ended (properties of end states only)
        # an outcome conflict in some round of this step's settling (outcomes.settle): no error,
        # since the explorer still takes the step and records the conflict on its target
        self.conflict = false
        self.hits: dict[int, object] = {}  # tagged statement's rule id -> when it applied in this step
        self.sg: dict[int, object] = {}  # a declared event's bit (typed.signal_slots) -> when this step raised it
        self.actor = -1 if folded else z3.IntVal(-1)  # who acts in the step (an action's `by` parameter), -1: nobody
        # a key of the explorer's `Machine.decided` -> when this step's resolution notes it (outcomes.py)
        self.noted: dict[tuple, object] = {}
        self.out0, self.tout0 = list(out), list(tout)  # who was out when the step began (lost_now)

    def copy(self):
        s = SymState({k: list(v) for k, v in self.vals.items()}, list(self.out), list(self.tout), folded=self.folded)
        for f in SymState.FIELDS:
            setattr(s, f, list(getattr(self, f)))
        s.draw, s.overflow, s.error, s.over = self.draw, self.overflow, self.error, self.over
        s.fin, s.conflict = self.fin, self.conflict
        s.hits = dict(self.hits)
        s.sg = dict(self.sg)
        s.actor = self.actor
        s.noted = dict(self.noted)
        s.out0, s.tout0 = self.out0, self.tout0
        return s


def merge(cond, a: SymState, b: SymState) -> SymState:
    """If cond then a else b, slot by slot."""
    if is_true(cond):
        return a
    if is_false(cond):
        return b
    def m(x, y):
        return sym_if(cond, x, y)
    s = SymState({k: [m(x, y) for x, y in zip(a.vals[k], b.vals[k])] for k in a.vals},
                 [m(x, y) for x, y in zip(a.out, b.out)], [m(x, y) for x, y in zip(a.tout, b.tout)],
                 folded=a.folded)
    for f in SymState.FIELDS:
        setattr(s, f, [m(x, y) for x, y in zip(getattr(a, f), getattr(b, f))])
    s.draw, s.overflow, s.error = m(a.draw, b.draw), m(a.overflow, b.overflow), m(a.error, b.error)
    s.over = m(a.over, b.over)
    s.fin, s.conflict = m(a.fin, b.fin), m(a.conflict, b.conflict)
    false = False if a.folded else FALSE
    s.hits = {r: m(a.hits.get(r, false), b.hits.get(r, false)) for r in sorted(a.hits.keys() | b.hits.keys())}
    s.noted = {k: m(a.noted.get(k, false), b.noted.get(k, false)) for k in sorted(a.noted.keys() | b.noted.keys())}
    s.sg = {k: m(a.sg.get(k, false), b.sg.get(k, false)) for k in sorted(a.sg.keys() | b.sg.keys())}
    s.actor = m(a.actor, b.actor)
    s.out0 = [m(x, y) for x, y in zip(a.out0, b.out0)]
    s.tout0 = [m(x, y) for x, y in zip(a.tout0, b.tout0)]
    return s


FACT = {"lose": "l", "win": "w", "draw": "d", "leave": "x"}  # an outcome's fact lists: lp, wt, dp, xt...


def lost(out, drew, won, left):
    """Out of the game and not for a draw, a win or leaving: lost."""
    if is_false(out):
        return False if out is False else FALSE
    return and_(out, not_(or_all([drew, won, left])))


def fresh_value(inst, v: Var, name):
    """A fresh symbol for one slot of `v` (one Bool per player for a set)."""
    if v.type.kind == "set":
        return SymSet([z3.Bool(f"{name}.{p}") for p in range(inst.nplayers)], "player")
    return (z3.Bool if v.type.kind == "bool" else z3.Int)(name)


def equal(a, b):
    """The condition that a variable's term `a` equals the value `b` (element by element for sets)."""
    if isinstance(a, SymSet):
        return z3.And(*[x == y for x, y in zip(a.elems, b.elems)]) if a.elems else TRUE
    return a == to_term(b)


# ---------------------------------------------------------------- concrete states <-> Z3

def state_to_sym(inst: Instance, state: tuple, folded: bool = False) -> SymState:
    """The explorer's concrete `state` (slots, out and why masks, end marker) as literals: Z3's,
    or Python's where `folded` (for an `Encoder(fold=True)`)."""
    B = bool if folded else lambda x: z3.BoolVal(bool(x))
    I = int if folded else z3.IntVal
    vals = {}
    for v in inst.vars:
        slots = state[v.offset:v.offset + v.count]
        if v.type.kind == "set":
            vals[v.name] = [SymSet([B(x >> p & 1) for p in range(inst.nplayers)], "player") for x in slots]
            continue
        vals[v.name] = [B(x) if isinstance(x, bool) else I(x) for x in slots]
    k = inst.nslots
    n, nt = inst.nplayers, inst.nteams
    out = [B(state[k] >> p & 1) for p in range(n)]
    tout = [B(state[k + 1] >> t & 1) for t in range(nt)]
    # above who is out, why (the explorer's checker.explicit.compile.result_mask): drew, won, left
    results = tuple([B(state[k] >> (why * n + p) & 1) for p in range(n)] for why in (1, 2, 3)) + \
        tuple([B(state[k + 1] >> (why * nt + t) & 1) for t in range(nt)] for why in (1, 2, 3))
    return SymState(vals, out, tout, results, folded)
