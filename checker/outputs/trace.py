"""Counterexamples for people and tools: the numbered narrative and the Informal Trace Format.

ITF is the JSON that Apalache and Quint write: `{"#meta", "vars", "states": [...], "loop"?}`.

A lasso (a trace that ends in a cycle) comes from the checks with its last step leading back
to the state at `loop_start`. ITF (Apalache ADR-015) says `loop` is the index of the state the
loop starts at and that the loop ends in the last state, the next state being the one at
`loop` again: so the ITF states stop before the repeated state, and the step that closes the
loop is told in the trace's "#meta" (`loop-action`). The narrative numbers the same steps and
says where the last one leads back to, and marks the state the loop starts in (not the step into
it, which may be a concession that is no part of the loop).
"""
from __future__ import annotations

from ..analyses.findings import Finding


def _closes_loop(f: Finding) -> bool:
    return f.loop_start is not None and len(f.trace or ()) > f.loop_start + 1


def narrative(f: Finding) -> str:
    if not f.trace:
        return ""
    lines = []
    last = len(f.trace) - 1
    for st in f.trace:
        head = f"  {st.number}. " + ("setup" if st.action == "setup" else st.action)
        if st.rules:
            head += "  [" + ", ".join(st.rules) + "]"
        lines.append(head)
        if st.changes:
            shown = st.changes if st.action != "setup" else st.changes
            lines.append("       " + "; ".join(f"{k} = {v}" for k, v in shown))
        if st.note:
            lines.append("       " + st.note)
        if _closes_loop(f) and st.number == f.loop_start:
            # said of the state, below its values: the step into it (a concession, say) is not part of the loop
            lines.append("       ^ the loop starts in this state")
    if _closes_loop(f):
        k = f.loop_start
        again = f"step {last}" if k + 1 == last else f"steps {k + 1} to {last}"
        lines.append(f"       back to the state of step {k}: {again} repeat{'s' if k + 1 == last else ''} forever")
    return "\n".join(lines)


def to_itf(f: Finding) -> dict:
    trace = [st for st in (f.trace or []) if st.state]
    closing = None
    if _closes_loop(f):
        closing, trace = trace[-1], trace[:-1]  # its state is the one at loop_start
    names = [k for k, _ in trace[0].state] if trace else []
    doc = {
        "#meta": {
            "format": "ITF",
            "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
            "source": f.instance,
            "description": f"{f.kind}: {f.message}",
            "rules": list(f.rules),
            "fingerprint": f.fingerprint,
        },
        "vars": names,
        "states": [],
    }
    for st in trace:
        state = {"#meta": {"index": st.number, "action": st.action, "rules": list(st.rules)}}
        state.update({k: v for k, v in st.state})
        doc["states"].append(state)
    if closing is not None:
        doc["#meta"]["loop-action"] = {"action": closing.action, "rules": list(closing.rules),
                                       "description": f"the step from the last state back to state {f.loop_start}"}
        doc["loop"] = f.loop_start
    return doc
