"""How far a concrete state is from satisfying a condition: the directed search's heuristic.

A rules text's numbers are big (life 8,000): the state where a player has won lies thousands
of steps deep, past more states than any breadth-first search can hold. The directed search
(checker.explicit.directed) instead expands the state nearest its goal first, and "nearest" is
read off the goal's own condition, a typed boolean expression (checker.frontend.typed), on the
state's values: 0 exactly where the condition holds, more the further it is from holding.

    and: the sum of both sides' distances   or: the least of them   not: pushed inward
    a <= b on numbers: max(0, a - b)  (and alike for < > >=)   a == b: |a - b|   a != b: 0 or 1
    forall over a domain: the sum over its values   exists: the least
    lost(x) of a subject still in the game: the least distance of the `lose` rules' conditions
        for it (what would make it lose), `won(x)` through the `win` rules alike
    in_game(x) of a subject out of the game: OUT (no one comes back)
    any other condition: 0 where it holds, else 1; one without a value (an evaluation error) 1

Values are the explicit engine's own: each leaf is compiled to a closure by the machine's
`Compiler` (checker.explicit.compile) and read from `machine.reader(state)`, so the heuristic
and the search agree on what holds. A condition is compiled once into a closure of distances
(`Distances.of`), and evaluating it is one call per state. Nothing here knows a format: the
only rules it reads are the spec's outcome rules, through the statuses the language has.

The heuristic only orders the search, it decides nothing: a goal is met where its predicate
holds (checker.explicit.directed's `Goal`), and a poor distance costs time, never a wrong path.
"""
from __future__ import annotations

import math
import weakref

from ..frontend import typed as T
from .compile import EvalError
from .machine import Machine

# A condition that needs a subject back in the game, or a status it has lost: as far as
# anything gets, yet finite, so that such states still order by the rest of the condition.
OUT = 1e12
# lost(x) and won(x) are unfolded through outcome rules this many rules deep (a win rule reads
# lost(), so "P1 wins" unfolds twice to reach the opponents' life totals); a rule is never
# unfolded inside itself.
UNFOLD = 2
MISS = 1.0  # a leaf that does not hold, or has no value

# the distance of `a OP b` on numbers; the negation of OP
_GAP = {"<=": lambda a, b: max(0, a - b), "<": lambda a, b: max(0, a - b + 1),
        ">=": lambda a, b: max(0, b - a), ">": lambda a, b: max(0, b - a + 1),
        "==": lambda a, b: abs(a - b), "!=": lambda a, b: MISS if a == b else 0}
_NEGATED = {"<=": ">", "<": ">=", ">=": "<", ">": "<=", "==": "!=", "!=": "=="}

# the statuses unfolded through outcome rules: (subject kind, which rules, positive or negated)
_STATUS = {"lost_player": "player", "lost_team": "team", "won_player": "player", "won_team": "team",
           "in_game_player": "player", "in_game_team": "team"}


class Distances:
    """The distance closures of one machine's conditions, compiled once each: `of(e)` is a
    function of a reading context (`machine.reader(state)`, with every binder `e` leaves free
    bound in its cell) to a float, 0.0 exactly where `e` holds."""

    def __init__(self, machine: Machine):
        # what the closures read of the machine, not the machine: `distances` keeps this as long
        # as the machine lives, and a reference back to it would keep it forever
        self.comp, self.outcomes, self.departing = machine.comp, machine.outcomes, machine.loss_rules
        self._done: dict[tuple, tuple] = {}  # (id of e, negated, unfolding chain) -> (e, closure)

    def of(self, e, negated: bool = False, chain: tuple = ()):
        """The distance closure of `e` (of `not e` if `negated`); `chain` is the outcome rules
        being unfolded around it (their ids), which are not unfolded again inside."""
        key = (id(e), negated, chain)
        got = self._done.get(key)
        if got is None:
            got = self._done[key] = (e, self._compile(e, negated, chain))  # e kept: its id stays its own
        return got[1]

    def _compile(self, e, neg: bool, chain: tuple):
        match e:
            case T.Not(operand=x):
                return self.of(x, not neg, chain)
            case T.Logic(op=op, left=a, right=b):
                # implies is `not a or b`; a negated side's distance is of its negation
                na = neg if op != "implies" else not neg
                da, db = self.of(a, na, chain), self.of(b, neg, chain)
                conj = (op == "and") != neg if op != "implies" else neg
                return _sum2(da, db) if conj else _min2(da, db)
            case T.Compare(op=op, left=a, right=b) if a.type.kind == "int" and b.type.kind == "int":
                gap, f, g = _GAP[_NEGATED[op] if neg else op], self.comp.expr(a), self.comp.expr(b)

                def compare(c):
                    try:
                        return float(gap(f(c), g(c)))
                    except EvalError:
                        return MISS
                return compare
            case T.Quant(kind=kind, binder=b, domain=dom, body=body):
                every = (kind == "forall") != neg  # forall, or the negation of an exists
                return _quant(self.comp.domain(dom), self.comp.cell(b), self.of(body, neg, chain), every)
            case T.Ite(cond=cond, then=then, other=other) if e.type.kind == "bool":
                # (cond and then) or (not cond and other), each branch negated with the whole
                yes = _sum2(self.of(cond, False, chain), self.of(then, neg, chain))
                no = _sum2(self.of(cond, True, chain), self.of(other, neg, chain))
                return _min2(yes, no)
            case T.Call(func=func, args=(x,)) if func in _STATUS:
                return self._status(e, func, x, neg, chain)
        return _leaf(self.comp.expr(e), neg)

    def _status(self, e, func: str, x, neg: bool, chain: tuple):
        """lost(x), won(x), in_game(x), or their negations: statuses a subject keeps once it has
        them, so the way to one is through the rules that give it, and away from one there is none."""
        holds = self.comp.expr(e)
        kind = _STATUS[func]
        if func.startswith("in_game"):
            # in the game: it holds or never will again; out of it: by a rule that makes x leave
            towards = neg
            rules = [r for r in self.departing if r.subject == kind]
        else:
            towards = not neg
            outcome = "lose" if func.startswith("lost") else "win"
            rules = [r for r in self.outcomes if r.kind == outcome and r.subject == kind]
        if not towards:  # away from a status it has: never, once it has it
            return _leaf(holds, neg, far=OUT)
        rules = [r for r in rules if r.rid not in chain] if len(chain) < UNFOLD else []
        if not rules:
            return _leaf(holds, neg)
        arg = self.comp.expr(x)
        ways = [(r.cell, self.of(r.decl.cond, False, chain + (r.rid,))) for r in rules]

        def status(c):
            try:
                if bool(holds(c)) != neg:
                    return 0.0
                who = arg(c)
            except EvalError:
                return MISS
            best = math.inf
            for cell, dist in ways:
                cell[0] = who  # the rule's subject is x (the rule's own cell: set just before it is read)
                d = dist(c)
                if d < best:
                    best = d
            # a rule's condition may hold without the status (a "cannot" rule, a precedence): near, not there
            return max(best, MISS)
        return status


def _leaf(f, neg: bool, far: float = MISS):
    """0 where the closure `f`'s value (negated if `neg`) holds, else `far`; MISS where it has no value."""
    def leaf(c):
        try:
            return 0.0 if bool(f(c)) != neg else far
        except EvalError:
            return MISS
    return leaf


def _sum2(f, g):
    return lambda c: f(c) + g(c)


def _min2(f, g):
    def least(c):
        a = f(c)
        return a if a == 0.0 else min(a, g(c))  # (the other side need not be read when one holds)
    return least


def _quant(dom, cell, body, every: bool):
    """Over the domain's values: the sum of the body's distances (`every`), or the least (an
    empty domain: nothing to miss, or no value that holds)."""
    if every:
        def total(c):
            try:
                values = dom(c)
            except EvalError:
                return MISS
            out = 0.0
            for v in values:
                cell[0] = v
                out += body(c)
            return out
        return total

    def least(c):
        try:
            values = dom(c)
        except EvalError:
            return MISS
        best = math.inf
        for v in values:
            cell[0] = v
            d = body(c)
            if d == 0.0:
                return 0.0
            if d < best:
                best = d
        return best if best < math.inf else MISS
    return least


_BY_MACHINE: "weakref.WeakKeyDictionary[Machine, Distances]" = weakref.WeakKeyDictionary()


def distances(machine: Machine) -> Distances:
    """The machine's compiled distances (kept as long as the machine is)."""
    got = _BY_MACHINE.get(machine)
    if got is None:
        got = _BY_MACHINE[machine] = Distances(machine)
    return got


def distance(machine: Machine, expr, state: tuple, env: dict | None = None) -> float:
    """The distance of the boolean expression `expr` in `state` (a state of `machine`): 0.0
    exactly where it holds. `env` binds the binders it leaves free: {T.Binder: value}."""
    d = distances(machine).of(expr)
    for b, v in (env or {}).items():
        machine.comp.cell(b)[0] = v
    return d(machine.reader(state))
