"""Packed states: how the generated successors hold a state, and how a value becomes their source.

A state is a tuple with one entry per variable, then the players out, the teams out and the end
marker. A scalar variable's entry is its value; an indexed variable's entry is one integer: a
bit per index for booleans, else a field of `width` bits per index holding `value - low`.
Equality and hashing of packed states are those of the slot tuples (the packing is one-to-one),
a state costs a few integers instead of one slot per seat, and `mk[s]` is a shift and a mask.

`_lit` is the only way a value of the spec becomes text of the generated source (why that is
safe with hostile specs: checker.explicit.codegen's doc). Both live here, apart from the
generator, because every part of it (codegen, codegen_builtins, codegen_stmts) and the compiled
machine use them, and none of those may import another in a circle.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..frontend.instances import Instance, Var


@dataclass(frozen=True)
class Field:
    """How one variable lives in a packed state."""
    var: Var
    entry: int  # its position in the packed tuple
    kind: str  # scalar | bits (an indexed boolean) | fields (an indexed value of `width` bits)
    width: int = 0
    low: int = 0  # the value stored as 0 in a field
    mask: int = 0  # (1 << width) - 1


def layout(inst: Instance) -> list[Field]:
    out = []
    for j, v in enumerate(inst.vars):
        if v.count == 1 and not v.indexed:
            out.append(Field(v, j, "scalar"))
        elif v.type.kind == "bool":
            out.append(Field(v, j, "bits", 1, 0, 1))
        else:
            low = v.type.low if v.type.kind == "int" else -1 if v.type.optional else 0
            count = v.type.count(inst.nplayers, inst.nteams) + (1 if v.type.optional else 0)
            width = max(1, (count - 1).bit_length())
            out.append(Field(v, j, "fields", width, low, (1 << width) - 1))
    return out


def _lit(v) -> str:
    """A literal of the generated source: only ints and bools ever get here (see the module doc)."""
    if v.__class__ is bool:
        return "True" if v else "False"
    if v.__class__ is int:
        return str(v)
    raise AssertionError(f"not a literal of generated code: {v!r}")
