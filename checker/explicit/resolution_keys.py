"""What a step's outcome resolution reads of a number: the thresholds it compares it with.

The compiled successors look a step's outcome resolution up by the values it reads
(checker.explicit.compiled: `RESOLVED`), and compute it only for values not seen before. A
number that resolution reads only by comparing it with constants ("total[t] <= 0", "score >=
11") decides the resolution only through those comparisons: totals of 7,999 and of 12 resolve
alike. Keyed by the comparisons' truth values instead of the number, a game counted to the unit
(totals of 8,000) needs a handful of resolutions where it needed one for every total reached.

A variable is keyed by its thresholds only where that is exact: an integer variable that every
read of the resolution's code (outcome rules, `ends`, triggers' conditions and statements, the
statements run again after triggers) compares with a constant of the instance or with another
of its own values ("the team with the higher total": `total[t] > total[u]`, where the key
then holds how each two of its values compare), which that code never assigns (so a
resolution's result never carries its value), and which has more values than its comparisons
can tell apart.
Anything else about it (an index, a sum, a `let`, a comparison with another variable) keeps
the value in the key.
"""
from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass

from ..frontend import typed as T
from ..frontend.instances import Instance
from .closed_exprs import closed_value, is_closed
from .compile import Compiler
from .packing import Field

_OPS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
        ">=": operator.ge}
_FLIPPED = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


@dataclass(frozen=True)
class Thresholds:
    """The comparisons `var op constant` through which resolution reads variable `var`."""
    var: str
    atoms: tuple[tuple[str, int], ...]  # (op, constant), the variable on the left, sorted
    ordered: bool = False  # also compared with its own values (another index): their order counts

    def bucket(self, value: int) -> int:
        """The truth values of the comparisons for one value, as the bits of an int."""
        out = 0
        for i, (op, k) in enumerate(self.atoms):
            if _OPS[op](value, k):
                out |= 1 << i
        return out


def resolution_nodes(model: T.Model) -> list:
    """Everything outcome resolution evaluates (checker.explicit.outcomes: `settle`)."""
    nodes: list = [r.cond for r in model.outcomes] + [d.cond for d in model.ends]
    for t in model.triggers:
        nodes += [t.cond, list(t.body)]
    nodes.append(list(model.after_triggers))
    return nodes


def thresholds(inst: Instance, comp: Compiler) -> dict[str, Thresholds]:
    """The variables resolution reads only through comparisons with constants, with them."""
    nodes = resolution_nodes(inst.model)
    written = {n.var for n in T.walk(nodes) if isinstance(n, T.Assign)}
    reads: dict[str, int] = {}  # every read of each variable
    atoms: dict[str, set] = {}  # the reads that are one side of a comparison with a constant
    ordered: set = set()  # the variables compared with their own values
    for n in T.walk(nodes):
        if isinstance(n, T.VarRef):
            reads[n.name] = reads.get(n.name, 0) + 1
        elif isinstance(n, T.Compare):
            left, right = n.left, n.right
            if (isinstance(left, T.VarRef) and isinstance(right, T.VarRef) and left.name == right.name
                    and left.type.kind == "int"):
                ordered.add(left.name)
                atoms.setdefault(left.name, set())
                reads[left.name] = reads.get(left.name, 0) - 2  # (both sides, counted by the walk)
                continue
            for var, other, op in ((left, right, n.op), (right, left, _FLIPPED[n.op])):
                if isinstance(var, T.VarRef) and var.type.kind == "int":
                    k = _constant(comp, other)
                    if k is not None:
                        atoms.setdefault(var.name, set()).add((op, k))
                        reads[var.name] = reads.get(var.name, 0) - 1  # (the walk counts it as a read too)
    out = {}
    by_name = {v.name: v for v in inst.vars}
    for name, found in atoms.items():
        v = by_name.get(name)
        if v is None or name in written or reads.get(name, 0) != 0 or v.type.kind != "int":
            continue
        values = v.type.high - v.type.low + 1
        # no fewer keys than values (a value's order among its others: at most 2 more)
        if 2 * len({k for _, k in found}) + 1 + 2 * (name in ordered) >= values:
            continue
        out[name] = Thresholds(name, tuple(sorted(found)), name in ordered)
    return out


def _constant(comp: Compiler, e) -> int | None:
    """The value of `e` if it reads nothing but the instance's parameters and constants."""
    if not is_closed(e):
        return None
    k = closed_value(comp, e)
    return k if type(k) is int else None


def key_function(th: Thresholds, field: Field) -> Callable:
    """The key of a packed field's value: the buckets of each of its slots, memoized on the
    packed value (the values a search reaches)."""
    kind, count, width, mask, low = field.kind, field.var.count, field.width, field.mask, field.low
    memo: dict = {}
    shared: dict = {}  # one key object per bucket: the memo holds no copies

    def key(x):
        r = memo.get(x)
        if r is None:
            if kind == "scalar":
                r = th.bucket(x)
            else:
                vals = [((x >> (i * width)) & mask) + low for i in range(count)]
                r = tuple(th.bucket(v) for v in vals)
                if th.ordered:  # how each two compare: -1, 0 or 1
                    r += tuple((a > b) - (a < b) for i, a in enumerate(vals) for b in vals[i + 1:])
            r = memo[x] = shared.setdefault(r, r)
        return r
    return key
