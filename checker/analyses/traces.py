"""Counterexample traces: explored paths turned into steps in the spec's own words.

Each step names the action and its arguments, cites the rules that fired and keeps every
variable as an ITF-ready value, so the outputs (`checker.outputs.trace`) can narrate it or
write it as the Informal Trace Format.
"""
from __future__ import annotations

from ..explicit.compile import DREW, LEFT, WON, result_mask
from ..explicit.explore import Graph, describe_label, rules_of
from ..frontend.ends import is_gap
from .findings import TraceStep


def state_values(graph: Graph, state: tuple) -> list[tuple[str, object]]:
    """(name, ITF value) for every variable and built-in status of a state of the graph."""
    inst = graph.machine.inst
    state = graph.machine.values(state)  # the slots of a packed state
    out: list[tuple[str, object]] = []
    for v in inst.vars:
        if v.indexed:
            keys = v.index_keys(inst)
            out.append((v.name, {"#map": [[k, _itf(inst, v, state[v.offset + i])] for i, k in enumerate(keys)]}))
        else:
            out.append((v.name, _itf(inst, v, state[v.offset])))
    k = inst.nslots
    out.append(("out_of_game", {"#set": [inst.players[p] for p in range(inst.nplayers) if state[k] >> p & 1]}))
    if inst.has_teams:
        out.append(("teams_out", {"#set": [inst.teams[t] for t in range(inst.nteams) if state[k + 1] >> t & 1]}))
    if graph.machine.results_used:
        out += _results(inst, state[k], state[k + 1], graph.machine.results_used)
    end = state[-1]
    if not end:
        out.append(("game", "running"))
    elif is_gap(end):
        out.append(("game", f"must end: {end.why}"))
    else:
        out.append(("game", "ended: " + inst.describe_end(end)))
    return out


# why a player or team is out without having lost: (bit group, the row's name, the model's use)
RESULT_ROWS = ((DREW, "drew", "drew"), (WON, "won", "won"), (LEFT, "left_with_no_result", "left"))


def _results(inst, out: int, tout: int, used) -> list[tuple[str, object]]:
    """Who is out of the game without having lost: drew, won (the game went on), left; only
    the reasons the model can give."""
    n, nt = inst.nplayers, inst.nteams
    rows = []
    for why, name, key in RESULT_ROWS:
        if key not in used:
            continue
        rows.append((name, {"#set": [inst.players[p] for p in range(n) if result_mask(out, n, why) >> p & 1]
                            + [inst.teams[t] for t in range(nt) if result_mask(tout, nt, why) >> t & 1]}))
    return rows


def _itf(inst, var, value):
    k = var.type.kind
    if k == "int":  # a number counted in steps is shown as the document's number
        return {"#bigint": str(value * var.step)}
    if k == "bool":
        return bool(value)
    if k == "set":
        return {"#set": [inst.players[p] for p in range(inst.nplayers) if value >> p & 1]}
    return inst.show_value(var, value)


def show(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        if "#bigint" in value:
            return value["#bigint"]
        if "#set" in value:
            return "{" + ", ".join(show(x) for x in value["#set"]) + "}"
        if "#map" in value:
            return "{" + ", ".join(f"{_key(show(k))}: {show(v)}" for k, v in value["#map"]) + "}"
    return str(value)


def _key(shown: str) -> str:
    """A map's key as shown inside the map: `(P1, P2)` for a pair (a variable of several
    indices), whose key alone reads `cmd[P1, P2]`."""
    return f"({shown})" if ", " in shown else shown


def preferred_parents(graph: Graph) -> list:
    """Parents of shortest paths that take the fewest `leave` moves (conceding, leaving).

    The explorer's BFS parents give a shortest path to every state, but when a concession and
    a game action both reach a state at the same depth, whichever was found first is kept: a
    trace may then show an irrelevant concession. Over the finished graph, a pass in order of
    depth keeps the depth and minimises the number of leave moves (ties keep the BFS parent):
    a shortest path with 0/1 weights on leave edges within each depth layer. One pass over the
    edges, run only when a trace would take a leave move."""
    n = len(graph.states)
    depth = [0] * n
    for sid in range(n):  # a parent is always found before its child: it has a smaller id
        par = graph.parent[sid]
        if par is not None:
            depth[sid] = depth[par[0]] + 1
    leave = [graph.is_leave(lid) for lid in range(len(graph.labels))]
    parent = list(graph.parent)
    cost = [0 if p is None else n + 1 for p in parent]
    # sorted by the source's depth (already so in BFS order, which the stable sort keeps in linear time)
    for u, v, lid in sorted(graph.edges, key=lambda e: depth[e[0]]):
        if depth[v] == depth[u] + 1:
            c = cost[u] + leave[lid]
            if c < cost[v]:
                cost[v] = c
                parent[v] = (u, lid)
    return parent


def build_trace(graph: Graph, path: list[tuple[int, int]]) -> list[TraceStep]:
    steps: list[TraceStep] = []
    prev: dict[str, object] = {}
    for i, (sid, lid) in enumerate(path):
        values = state_values(graph, graph.state_of(sid))
        if lid == -1:
            action, rules = "setup", rules_of(graph.machine, graph.init_hits.get(sid, ()))
        else:
            action, rules = describe_label(graph, lid)
        changes = tuple((k, show(v)) for k, v in values if prev.get(k) != v)
        steps.append(TraceStep(i, action, rules, changes, tuple(values), sid=sid, lid=lid))
        prev = dict(values)
    return steps
