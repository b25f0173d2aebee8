"""Invariants about a phase no reachable state is in (docs/checks.md, "Kinds": vacuous-property).

A phase whose end condition already holds when it starts (`ending ends when true`) is left in
the step that enters it: no state is ever in it, so an invariant that says what holds *in* that
phase (`step != ending or stack == 0`) holds in every state without ever being tested there.
The writer meant a claim and got none; nothing else says so, since every other check is
content with a property that holds. This check names each such (invariant, phase) pair.

Which phases an invariant is about is read off its condition: the constants of a cycle's
enumeration in a condition that reads that cycle's variable (`step == main`, `step in {a, b}`).
A claim about every reachable state, so it runs on a complete graph only; beyond the explorer's
limit the symbolic engine asks Spacer whether each phase is ever entered
(checker.analyses.unbounded).

Part of the ordered tuple `checker.analyses.checks.CHECKS`.
"""
from __future__ import annotations

from ..frontend import typed as T
from ..frontend.types import BOOL
from .explored import Explored
from .findings import Finding


def phase_mentions(model: T.Model) -> list[tuple[T.Condition, T.PhaseCycle, T.Phase]]:
    """(invariant, cycle, phase) for each phase an invariant names beside its cycle's variable,
    in the order the invariants and the phases are written."""
    out = []
    for d in model.invariants:
        nodes = list(T.walk(d.cond))
        for cyc in model.phases:
            refs = [n for n in nodes if isinstance(n, T.VarRef) and n.name == cyc.name]
            if not refs:
                continue
            members = refs[0].type.members
            named = {n.value for n in nodes if isinstance(n, T.Const) and n.type.kind == "enum"
                     and n.type.members == members}
            out.extend((d, cyc, p) for p in cyc.phases if p.index in named)
    return out


def in_phase(inst, cyc: T.PhaseCycle, p: T.Phase) -> T.Expr:
    """`cyc == p`: a state is in phase `p` (what Spacer is asked, as of a `reachable` property)."""
    ty = next(v.type for v in inst.model.vars if v.name == cyc.name)
    return T.Compare("==", T.VarRef(cyc.name, None, ty, False), T.Const(p.index, ty), BOOL)


def phases_entered(x: Explored) -> set[tuple[str, int]]:
    """(cycle, phase index) of every phase some state of the graph (complete or not) is in."""
    g = x.graph
    offsets = [(cyc.name, x.inst.var(cyc.name).offset) for cyc in x.inst.model.phases]
    seen: set[tuple[str, int]] = set()
    for sid in range(len(g.states)):
        x.tick(sid)
        values = g.values(sid)
        seen.update((name, values[off]) for name, off in offsets)
    return seen


def check_vacuous_properties(x: Explored) -> list[Finding]:
    if not x.graph.complete:
        return []
    mentions = phase_mentions(x.inst.model)
    if not mentions:
        return []
    entered = phases_entered(x)
    return [vacuous_property(x.inst, d, cyc, p, f"checked all {x.nstates:,} reachable states")
            for d, cyc, p in mentions if (cyc.name, p.index) not in entered]


def vacuous_property(inst, d: T.Condition, cyc: T.PhaseCycle, p: T.Phase, detail: str) -> Finding:
    """The finding of invariant `d`, about phase `p` of `cyc`, which no reachable state is in,
    whichever engine shows it. It cites the invariant and the phase (its end condition is where
    to look)."""
    ends = " (it ends as it starts)" if p.cond is not None and _always(p.cond) else ""
    return Finding("vacuous-property",
                   f"invariant `{d.name}` speaks of phase `{p.name}`, which no reachable state is in{ends}: "
                   f"what it says of that phase is never tested",
                   tuple(dict.fromkeys(d.tags + p.tags)), (d.span, p.span), inst.label, inst.model_name,
                   detail=detail, key=f"{d.name}:{cyc.name}.{p.name}", subject=(d.name, p.name))


def _always(cond) -> bool:
    return isinstance(cond, T.Const) and cond.value is True
