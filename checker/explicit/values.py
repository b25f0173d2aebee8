"""The values of the explicit engine and what computes with them at run time.

Values: booleans are bools, numbers ints, players/teams/members their index (-1 for none),
sets of players, teams or members bit masks, sets of numbers frozensets. A closure takes a
`Ctx`: the variable slots, the players and teams out of the game as the current evaluation
sees them, and the outcome facts of the step.

Both ways of computing a step use what is here: the closures (checker.explicit.compile and its
parts compile_builtins and compile_stmts) and the generated successors' run time
(checker.explicit.codegen_runtime). It is a module of its own so that each of those imports it
without importing the others (tests/test_front_end.py forbids import circles);
checker.explicit.compile re-exports all of it, where the rest of rulewright has always found it.
"""
from __future__ import annotations


class EvalError(Exception):
    """An expression has no value: division by zero, an index outside its range, none as a player."""

    def __init__(self, msg, span):
        super().__init__(msg)
        self.span = span


class Overflow(Exception):
    def __init__(self, var: str, value, span):
        super().__init__(f"{var} := {value}")
        self.var, self.value, self.span = var, value, span


class Ctx:
    """One evaluation: the values being read or written and the outcome facts of this step."""
    __slots__ = ("vals", "out", "tout", "lp", "lt", "wp", "wt", "draw", "fin", "hits", "over", "out0", "tout0",
                 "dp", "dt", "xp", "xt", "sg", "actor")

    def __init__(self, vals, out=0, tout=0):
        self.vals = vals
        self.out = out
        self.tout = tout
        self.lp = self.lt = self.wp = self.wt = 0
        self.dp = self.dt = self.xp = self.xt = 0  # players/teams who draw, or leave with no result, in this step
        self.sg = 0  # the declared events raised in this step, one bit per (event, subject): typed.signal_slots
        self.actor = -1  # who acts in this step (an action's `by` parameter), -1: nobody
        self.draw = False
        self.fin = False  # the game ends without a winner (`finish`); a state read: it ended so
        self.hits: list[int] = []
        self.over = False  # the state read has ended (only properties of states read this)
        self.out0, self.tout0 = out, tout  # who was out when the step began: lost_now() is lost since


# ---- why a player or team is out (outcome shapes for some players, docs/language.md "Outcomes")
# The mask of players (teams) out of the game keeps, above its first `width` bits (who is out),
# why each one left without losing: bits width..2*width-1 drew, the next `width` bits won while
# the game went on (`after_win plays_on`), the next left with no result (`leave`). One out with
# none of these lost. The state keeps its shape, and whatever asks who is in the game reads the
# low bits as before; only lost(), won() and drew() read the rest.
DREW, WON, LEFT = 1, 2, 3


def result_mask(out: int, width: int, why: int) -> int:
    """The players (teams) out of the game for this reason: DREW, WON or LEFT."""
    return (out >> (why * width)) & ((1 << width) - 1)


def lost_mask(out: int, width: int) -> int:
    """The players (teams) out of the game by a loss."""
    low = out & ((1 << width) - 1)
    if out == low:  # nobody left without losing: the common case
        return low
    return low & ~(result_mask(out, width, DREW) | result_mask(out, width, WON) | result_mask(out, width, LEFT))


def with_results(out: int, width: int, lost: int, drew: int, won: int, left: int) -> int:
    """`out` with these players (teams) gone, each for its reason (`won` only where winners
    leave while the game goes on)."""
    return (out | lost | drew | won | left | (drew << width) | (won << (2 * width))
            | (left << (3 * width)))


def popcount(x: int) -> int:
    return bin(x).count("1")


def ring_step(p: int, k: int, direction: int, out: int, n: int) -> int:
    """The k-th player still in the game from p going left (+1) or right (-1); p if none."""
    q, found = p, 0
    for _ in range(n * max(k, 1)):
        q = (q + direction) % n
        if q == p and found == 0:
            break
        if not (out >> q) & 1:
            found += 1
            if found == k:
                return q
    return p


def dist_in_game(p: int, q: int, out: int, n: int) -> int:
    ring = [s for s in range(n) if not (out >> s) & 1 or s in (p, q)]
    i, j = ring.index(p), ring.index(q)
    d = (j - i) % len(ring)
    return min(d, len(ring) - d)


def mask_of(values) -> int:
    """The set of players, teams or members with these indexes; none (-1) adds nothing."""
    m = 0
    for v in values:
        if v >= 0:
            m |= 1 << v
    return m


def best_of(pairs, sign: int):
    """The first value whose score times `sign` is greatest, of (value, score) pairs; None if
    there are none (argmax: sign 1, argmin: -1)."""
    best, best_value = None, None
    for v, x in pairs:
        x = x * sign
        if best is None or x > best_value:  # strictly better: ties keep the first
            best, best_value = v, x
    return best


def after_in(x, vals, span, ty, show):
    """The value after x's first place in vals, round the end. An x that is not there (`none`,
    unless it is listed) has no value after it: an evaluation error, never the first value,
    which would be a wrong value (docs/language.md: none where a value is needed)."""
    for i, w in enumerate(vals):
        if w == x:
            return vals[(i + 1) % len(vals)]
    raise EvalError(f"{after_shown(ty, x, show)} is not one of the values after() lists", span)


def after_shown(ty, x, show) -> str:
    """x as after()'s error shows it: in the spec's words (`show` is Instance.show)."""
    if ty.kind == "bool":
        return "true" if x else "false"
    if ty.kind == "int" and ty.step is not None:  # the engines hold a count of steps
        return f"{x} steps of {ty.step.text}"
    return show(ty, x)
