"""Counterexamples for people and tools: the numbered narrative and the Informal Trace Format.

ITF is the JSON that Apalache and Quint write: `{"#meta", "vars", "states": [...], "loop"?}`.
"""
from __future__ import annotations

from ..analyses.findings import Finding


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
