"""Variables of several indices: `var cmd(p: player, q: player): 0..21` ("21 combat damage from
the same commander", one counter per pair of players).

Such a variable is stored as one variable of one integer index, its slot number: each index
counted from 0 (a player by seat, a number from the low end of its range), the first the most
significant (`cmd[p, q]` is slot `seat(p) * nplayers + seat(q)`). The front end writes that
arithmetic into the typed IR, so the closures, the generated successors and Z3 read and write
these variables as they do any other; `T.Index.parts` keeps the indices, which the instances use
to name every slot (`cmd[P1, P2]`) and symmetry to move every player index of a slot under a
rotation; `VarRef.indices` and `Assign.indices` keep the writer's index expressions, which
symmetry reads instead of the seat() arithmetic. An index outside its range is an evaluation
error as for one index.
"""
from __future__ import annotations

from .. import syntax as sx
from .. import typed as T
from ..diagnostics import Code
from ..types import BOOL, INT, PLAYER
from .context import ERROR, Ctx


def parts_of(d: sx.VarDecl) -> tuple:
    """(binder, domain) of every index of `d`, first to last (none for a single value)."""
    return ((d.index,) + tuple(d.more_indices)) if d.index is not None else ()


def per_what(d: sx.VarDecl) -> str:
    """`player`, `team`, `player and player`: what the variable holds one value per."""
    return " and ".join(k if isinstance(k, str) else "value" for _, k in parts_of(d))


class IndicesMixin:
    """The typed index of a variable of several indices, its declaration and initial value."""

    def index_of(self, d: sx.VarDecl, index_sx, scope, ctx: Ctx):
        """The typed index `index_sx` gives `d`; an error and an ERROR constant when the count
        is wrong. For several indices: (the slot number, the typed index expressions)."""
        parts = parts_of(d)
        given = index_sx.items if isinstance(index_sx, sx.Indices) else (index_sx,)
        if len(given) != len(parts):
            self.error(Code.ARGUMENTS, f"{d.name} takes {len(parts)} ind{'ex' if len(parts) == 1 else 'ices'}, "
                       f"given {len(given)}", index_sx.span, f"for example {d.name}[{', '.join(b for b, _ in parts)}]")
            return T.Const(0, ERROR, index_sx.span)
        if len(parts) == 1:
            return self.coerce(self.ex(given[0], scope, ctx, 0), self.index_type(d), f"the index of {d.name}")
        flat, typed = None, []
        for k, ((_, dom), g) in enumerate(zip(parts, given)):
            want = PLAYER if dom == "player" else INT
            x = self.coerce(self.ex(g, scope, ctx, 0), want, f"index {k + 1} of {d.name}")
            if x.type == ERROR or not (dom == "player" or isinstance(dom, sx.TRange)):
                return T.Const(0, ERROR, index_sx.span)
            typed.append(x)
            sp = g.span
            if dom == "player":
                ordinal = T.Call("seat", (x,), INT, sp)
            else:
                ordinal = T.Arith("-", x, self.part_bounds(d, k)[0], INT, sp)
            if flat is None:
                flat = ordinal
                continue
            size = self.part_size(d, k, sp)
            flat = T.Arith("+", T.Arith("*", flat, size, INT, sp), ordinal, INT, sp)
            if dom != "player":  # a later number out of its range would land in another slot
                inside = T.Logic("and", T.Compare(">=", ordinal, T.Const(0, INT, sp), BOOL, sp),
                                 T.Compare("<", ordinal, size, BOOL, sp), BOOL, sp)
                flat = T.Ite(inside, flat, T.Const(-1, INT, sp), INT, sp)
        return flat, tuple(typed)

    def part_bounds(self, d: sx.VarDecl, k: int):
        """The typed (low, high) of index k of `d`, a number range: resolved once per
        declaration, so that a mistake in them is told once, not at every read."""
        if (d.name, k) not in self.index_bounds:
            dom = parts_of(d)[k][1]
            self.index_bounds[d.name, k] = (self.const(dom.low), self.const(dom.high))
        return self.index_bounds[d.name, k]

    def part_size(self, d: sx.VarDecl, k: int, span):
        """How many values index k of `d` takes, as a typed constant expression."""
        if parts_of(d)[k][1] == "player":
            return T.Call("nplayers", (), INT, span)
        low, high = self.part_bounds(d, k)
        return T.Arith("+", T.Arith("-", high, low, INT, span), T.Const(1, INT, span), INT, span)

    def several_indices(self, d: sx.VarDecl):
        """(the typed Index of slot numbers, the scope the initial value is read in) for a
        variable of several indices: each index's name stands for its part of the slot number."""
        parts = parts_of(d)
        typed_parts, ok = [], True
        for k, (bname, dom) in enumerate(parts):
            if bname in (b for b, _ in parts[:k]):
                self.error(Code.DEFINED_TWICE, f"{d.name} names two of its indices {bname}", d.span,
                           "give each index a name of its own, e.g. (a: player, q: player)")
            if dom == "player":
                typed_parts.append(T.Index("player", self.binder(bname, PLAYER, d.span, {})))
            elif isinstance(dom, sx.TRange):
                typed_parts.append(T.Index("int", self.binder(bname, INT, d.span, {}), *self.part_bounds(d, k)))
            else:
                kind = dom if isinstance(dom, str) else "an enumeration"
                self.error(Code.TYPE_MISMATCH, f"{d.name} has several indices; each is a player or a number range, "
                           f"not {kind}", d.span, "index a variable of several indices by players or by ranges "
                           "like 1..3")
                ok = False
        count = None
        for k in range(len(parts)):
            size = self.part_size(d, k, d.span) if ok else T.Const(1, INT, d.span)
            count = size if count is None else T.Arith("*", count, size, INT, d.span)
        slot = self.fresh(",".join(b for b, _ in parts), INT, d.span)
        index = T.Index("int", slot, T.Const(0, INT, d.span),
                        T.Arith("-", count, T.Const(1, INT, d.span), INT, d.span), parts=tuple(typed_parts))
        # `p` in the initial value is `player_at(slot / stride % size)`: the writer's names,
        # resolved where they are read, each from the slot number
        inner = {"#slot": ("binder", slot)}
        scope, stride = {}, None
        for bname, dom in reversed(parts):
            sp = d.span
            size = sx.Name("nplayers", sp) if dom == "player" else \
                sx.Binary("+", sx.Binary("-", dom.high, dom.low, sp), sx.Num(1, sp), sp) \
                if isinstance(dom, sx.TRange) else sx.Num(1, sp)
            here = sx.Name("#slot", sp) if stride is None else sx.Binary("/", sx.Name("#slot", sp), stride, sp)
            ordinal = sx.Binary("%", here, size, sp)
            value = sx.Call("player_at", (ordinal,), sp) if dom == "player" else \
                sx.Binary("+", dom.low, ordinal, sp) if isinstance(dom, sx.TRange) else sx.Num(0, sp)
            scope[bname] = ("arg", value, inner)
            stride = size if stride is None else sx.Binary("*", stride, size, sp)
        return index, scope
