"""The values the symbolic engine computes with, the first thing every other pass of
`checker.symbolic` reads: Z3 terms and sets of them, the symbolic state of one step, the
if-then-else that merges two of them, and a concrete state of the explorer as terms.

Values: booleans are Bool, numbers/players/teams/members Int (-1 for none); sets are `SymSet`s:
one Bool per possible element (for sets of numbers, a condition per candidate value).
"""
from __future__ import annotations

from dataclasses import dataclass

import z3

from ..frontend.instances import Instance, Var

TRUE, FALSE = z3.BoolVal(True), z3.BoolVal(False)


def solve(s: z3.Solver, *assumptions):
    """`s.check(*assumptions)`, with Ctrl-C kept. While a check runs, Z3 catches SIGINT itself
    and answers unknown ("interrupted from keyboard"), so Python never sees the interrupt and
    an interrupted run went on checking; here it stops the run as Ctrl-C does anywhere else."""
    r = s.check(*assumptions)
    if r == z3.unknown and s.reason_unknown() == "interrupted from keyboard":
        raise KeyboardInterrupt
    return r


class Unsupported(Exception):
    """A construct the encoding does not handle (a bound or a distance that depends on the state,
    set-valued choices), or a replay Z3 answers unknown: the caller reports that Z3 could not
    tell, never a wrong answer."""


@dataclass
class SymSet:
    elems: list  # Bool per candidate element
    kind: str  # player | team | enum | int
    values: list | None = None  # for int sets: the candidate values


def concrete(x):
    """The Python value of a term that simplifies to a literal, None for any other."""
    if isinstance(x, bool) or isinstance(x, int):
        return x
    s = z3.simplify(x)
    if z3.is_int_value(s):
        return s.as_long()
    if z3.is_true(s):
        return True
    if z3.is_false(s):
        return False
    return None


def decided(x):
    """True or False for a literal, None for any other term (no simplification: see Encoder.lit)."""
    if z3.is_true(x):
        return True
    if z3.is_false(x):
        return False
    return None


def to_term(x):
    """A Python bool or int as a Z3 literal; a term unchanged."""
    if isinstance(x, bool):
        return z3.BoolVal(x)
    if isinstance(x, int):
        return z3.IntVal(x)
    return x


def or_all(terms):
    """The disjunction of `terms`, false for none (the false ones are left out)."""
    terms = [t for t in terms if not z3.is_false(t)]
    return z3.Or(*terms) if terms else FALSE


def or2(a, b):
    """a or b, without building a term when either side is a constant (the common case)."""
    if z3.is_false(a):
        return b
    if z3.is_false(b) or z3.is_true(a):
        return a
    if z3.is_true(b):
        return b
    return z3.Or(a, b)


def sym_if(cond, a, b):
    """If cond then a else b, for terms and for sets (element by element)."""
    if a is b:
        return a
    if isinstance(a, SymSet):
        if a.kind == "int":  # (values, conditions) lists of different values: keep both, each under its branch
            return SymSet([z3.And(cond, c) for c in a.elems] + [z3.And(z3.Not(cond), c) for c in b.elems],
                          "int", list(a.values) + list(b.values))
        return SymSet([z3.If(cond, x, y) for x, y in zip(a.elems, b.elems)], a.kind, a.values)
    return z3.If(cond, to_term(a), to_term(b))


class SymState:
    """One step's state over terms: the variables' slots, who is out of the game and why, and
    what the step has done so far (outcome facts, errors, overflows, tagged statements)."""

    # per-player and per-team lists: this step's facts (lose, win, draw, leave), then why those
    # out of the game left without losing (drew, won while the game went on, left with no result)
    FIELDS = ("lp", "wp", "lt", "wt", "dp", "dt", "xp", "xt", "rd", "rw", "rx", "trd", "trw", "trx")
    RESULTS = ("rd", "rw", "rx", "trd", "trw", "trx")

    def __init__(self, vals, out, tout, results=None):
        self.vals = vals  # name -> list of terms, one per slot
        self.out = out
        self.tout = tout
        n, nt = len(out), len(tout)
        self.lp = [FALSE] * n
        self.wp = [FALSE] * n
        self.lt = [FALSE] * nt
        self.wt = [FALSE] * nt
        self.dp = [FALSE] * n
        self.xp = [FALSE] * n
        self.dt = [FALSE] * nt
        self.xt = [FALSE] * nt
        self.rd, self.rw, self.rx, self.trd, self.trw, self.trx = results or ([FALSE] * n, [FALSE] * n, [FALSE] * n,
                                                                             [FALSE] * nt, [FALSE] * nt, [FALSE] * nt)
        self.draw = FALSE
        self.fin = FALSE  # the game ends without a winner (`finish`); a state read: it ended so
        self.overflow = FALSE
        self.error = FALSE
        self.over = FALSE  # the state read has ended (properties of end states only)
        self.hits: dict[int, object] = {}  # tagged statement's rule id -> when it applied in this step
        self.out0, self.tout0 = list(out), list(tout)  # who was out when the step began (lost_now)

    def copy(self):
        s = SymState({k: list(v) for k, v in self.vals.items()}, list(self.out), list(self.tout))
        for f in SymState.FIELDS:
            setattr(s, f, list(getattr(self, f)))
        s.draw, s.overflow, s.error, s.over = self.draw, self.overflow, self.error, self.over
        s.fin = self.fin
        s.hits = dict(self.hits)
        s.out0, s.tout0 = self.out0, self.tout0
        return s


def merge(cond, a: SymState, b: SymState) -> SymState:
    """If cond then a else b, slot by slot."""
    if z3.is_true(cond):
        return a
    if z3.is_false(cond):
        return b
    def m(x, y):
        return sym_if(cond, x, y)
    s = SymState({k: [m(x, y) for x, y in zip(a.vals[k], b.vals[k])] for k in a.vals},
                 [m(x, y) for x, y in zip(a.out, b.out)], [m(x, y) for x, y in zip(a.tout, b.tout)])
    for f in SymState.FIELDS:
        setattr(s, f, [m(x, y) for x, y in zip(getattr(a, f), getattr(b, f))])
    s.draw, s.overflow, s.error = m(a.draw, b.draw), m(a.overflow, b.overflow), m(a.error, b.error)
    s.over = m(a.over, b.over)
    s.fin = m(a.fin, b.fin)
    s.hits = {r: m(a.hits.get(r, FALSE), b.hits.get(r, FALSE)) for r in sorted(a.hits.keys() | b.hits.keys())}
    s.out0 = [m(x, y) for x, y in zip(a.out0, b.out0)]
    s.tout0 = [m(x, y) for x, y in zip(a.tout0, b.tout0)]
    return s


FACT = {"lose": "l", "win": "w", "draw": "d", "leave": "x"}  # an outcome's fact lists: lp, wt, dp, xt...


def lost(out, drew, won, left):
    """Out of the game and not for a draw, a win or leaving: lost."""
    if z3.is_false(out):
        return FALSE
    return z3.And(out, z3.Not(or_all([drew, won, left])))


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

def state_to_sym(inst: Instance, state: tuple) -> SymState:
    """The explorer's concrete `state` (slots, out and why masks, end marker) as literals."""
    vals = {}
    for v in inst.vars:
        slots = state[v.offset:v.offset + v.count]
        if v.type.kind == "set":
            vals[v.name] = [SymSet([z3.BoolVal(bool(x >> p & 1)) for p in range(inst.nplayers)], "player") for x in slots]
            continue
        vals[v.name] = [z3.BoolVal(x) if isinstance(x, bool) else z3.IntVal(x) for x in slots]
    k = inst.nslots
    n, nt = inst.nplayers, inst.nteams
    out = [z3.BoolVal(bool(state[k] >> p & 1)) for p in range(n)]
    tout = [z3.BoolVal(bool(state[k + 1] >> t & 1)) for t in range(nt)]
    # above who is out, why (the explorer's checker.explicit.compile.result_mask): drew, won, left
    results = tuple([z3.BoolVal(bool(state[k] >> (why * n + p) & 1)) for p in range(n)] for why in (1, 2, 3)) + \
        tuple([z3.BoolVal(bool(state[k + 1] >> (why * nt + t) & 1)) for t in range(nt)] for why in (1, 2, 3))
    return SymState(vals, out, tout, results)
