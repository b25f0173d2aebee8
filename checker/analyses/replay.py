"""The Z3 replay of a counterexample: the explorer's trace given to the symbolic engine step by
step (setup, actions, the failing step or the stuck state), within the instance's budget.
A trace the replay rejects is a disagreement of the two engines, never a finding."""
from __future__ import annotations

from ..explicit.explore import Graph
from ..explicit.machine import Machine
from ..limits import Budget, LimitHit, watchdog
from ..symbolic import replay as z3replay
from ..symbolic.terms import Unsupported
from .findings import Finding
from .verdicts import CONFIRMED, Replay


def replay_within(budget: Budget, machine: Machine, graph: Graph, f: Finding, res, memo: dict | None = None) -> Replay:
    try:
        budget.check()
        with watchdog(budget):
            return replay_finding(machine, graph, f, memo)
    except LimitHit as exc:
        res.incomplete.append(f"{f.instance}: the Z3 replay of the {f.kind} finding was not run ({exc})")
        return Replay("not-replayed", str(exc))


def binding_values(machine: Machine, binders) -> list:
    """Every binding of fixed domains (a `possible` property's parameters), in the order
    `_possible_bindings` lists them."""
    from ..explicit.compile import Ctx
    return list(machine.bindings(binders, Ctx(()))) if binders else [()]


def replay_finding(machine: Machine, graph: Graph, f: Finding, memo: dict | None = None) -> Replay:
    """The finding's trace re-executed by the symbolic engine: confirmed, not replayed (the
    encoding cannot tell), or failed (what the replay saw)."""
    if "setup_error" in f.context:
        e = f.context["setup_error"]
        try:
            problem = z3replay.replay_setup(machine.inst, e.values, e.where, e.kind)
        except Unsupported as exc:
            return Replay("not-replayed", str(exc))
        return Replay("failed", problem) if problem else CONFIRMED
    steps = []
    path = [st for st in f.trace if st.sid >= 0]
    for a, b in zip(path, path[1:]):
        action, binding, hits = graph.labels[b.lid]
        steps.append(z3replay.ReplayStep(graph.values(a.sid), action, binding, graph.values(b.sid), hits=hits))
    if "failing_step" in f.context:
        src, step = f.context["failing_step"]
        steps.append(z3replay.ReplayStep(graph.values(src), step.action, step.binding, None, step.error_kind, step.where))
    try:
        problem = z3replay.replay(machine.inst, steps, memo)
    except Unsupported as exc:
        return Replay("not-replayed", str(exc))
    if not problem and "failing_condition" in f.context:
        cond, state = f.context["failing_condition"]
        if not z3replay.fails_in(machine.inst, state, cond):
            problem = "the condition can be evaluated in the last state of the replay"
    return Replay("failed", problem) if problem else CONFIRMED
