"""Counterexample traces: built from explored paths, told as a narrative, written as ITF.

The narrative numbers each step, names the action and its arguments in the spec's own words,
cites the rules that fired and shows what changed. The Informal Trace Format (ITF) is the JSON
that Apalache and Quint write: `{"#meta", "vars", "states": [...], "loop"?}`.
"""
from __future__ import annotations

from .explore import Graph
from .findings import Finding, TraceStep


def state_values(graph: Graph, state: tuple) -> list[tuple[str, object]]:
    """(name, ITF value) for every variable and built-in status of a state."""
    inst = graph.machine.inst
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
    end = state[-1]
    if not end:
        out.append(("game", "running"))
    elif end[0] == "gap":
        out.append(("game", f"must end: {end[1]}"))
    else:
        out.append(("game", "ended: " + inst.describe_end(end)))
    return out


def _itf(inst, var, value):
    k = var.type.kind
    if k == "int":
        return {"#bigint": str(value)}
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
            return "{" + ", ".join(f"{show(k)}: {show(v)}" for k, v in value["#map"]) + "}"
    return str(value)


def describe_label(graph: Graph, lid: int) -> tuple[str, tuple[str, ...]]:
    action_i, binding, hits = graph.labels[lid]
    m = graph.machine
    a = m.actions[action_i]
    args = []
    for (name, _, _, _, et), v in zip(a.binders, binding):
        args.append(f"{name}={m.show(et, v)}")
    text = a.decl.name + (f"({', '.join(args)})" if args else "")
    return text, rules_of(m, hits)


def rules_of(machine, hits) -> tuple[str, ...]:
    seen: list[str] = []
    for rid in hits:
        for t in machine.rules[rid].tags:
            if t not in seen:
                seen.append(t)
    return tuple(seen)


def build_trace(graph: Graph, path: list[tuple[int, int]]) -> list[TraceStep]:
    steps: list[TraceStep] = []
    prev: dict[str, object] = {}
    for i, (sid, lid) in enumerate(path):
        values = state_values(graph, graph.states[sid])
        if lid == -1:
            action, rules = "setup", rules_of(graph.machine, graph.init_hits.get(sid, ()))
        else:
            action, rules = describe_label(graph, lid)
        changes = tuple((k, show(v)) for k, v in values if prev.get(k) != v)
        steps.append(TraceStep(i, action, rules, changes, tuple(values), sid=sid, lid=lid))
        prev = dict(values)
    return steps


def narrative(f: Finding) -> str:
    if not f.trace:
        return ""
    lines = []
    for st in f.trace:
        head = f"  {st.number}. " + ("setup" if st.action == "setup" else st.action)
        if st.rules:
            head += "  [" + ", ".join(st.rules) + "]"
        if f.loop_start is not None and st.number == f.loop_start:
            head += "  <- the loop starts here"
        lines.append(head)
        if st.changes:
            shown = st.changes if st.action != "setup" else st.changes
            lines.append("       " + "; ".join(f"{k} = {v}" for k, v in shown))
        if st.note:
            lines.append("       " + st.note)
    if f.loop_start is not None:
        lines.append(f"  ... and back to step {f.loop_start}, forever")
    return "\n".join(lines)


def to_itf(f: Finding) -> dict:
    trace = [st for st in (f.trace or []) if st.state]
    names = [k for k, _ in trace[0].state] if trace else []
    doc = {
        "#meta": {
            "format": "ITF",
            "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
            "source": f.instance,
            "description": f"{f.kind}: {f.message}",
            "rules": list(f.rules),
        },
        "vars": names,
        "states": [],
    }
    for st in trace:
        state = {"#meta": {"index": st.number, "action": st.action, "rules": list(st.rules)}}
        state.update({k: v for k, v in st.state})
        doc["states"].append(state)
    if f.loop_start is not None:
        doc["loop"] = f.loop_start
    return doc
