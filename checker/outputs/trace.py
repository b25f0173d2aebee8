"""Counterexamples for people and tools: the numbered narrative and the Informal Trace Format.

ITF is the JSON that Apalache and Quint write: `{"#meta", "vars", "states": [...], "loop"?}`.

A lasso (a trace that ends in a cycle) comes from the checks with its last step leading back
to the state at `loop_start`. ITF (Apalache ADR-015) says `loop` is the index of the state the
loop starts at and that the loop ends in the last state, the next state being the one at
`loop` again: so the ITF states stop before the repeated state, and the step that closes the
loop is told in the trace's "#meta" (`loop-action`). The narrative numbers the same steps and
says where the last one leads back to, and marks the state the loop starts in (not the step into
it, which may be a concession that is no part of the loop).

Each step of the narrative tells its story (checker.analyses.story): the entries it changed
(`life[P2]: 2 -> 1`, `out_of_game: +P2`; the setup, or every step with `full`, shows the whole
state), each rule that ran in order with its subject and place (`trigger skip for P3 [K5] at
x.rw:31`), and what the outcome rules decided (`P3 loses by `eliminated` [K3]`). A deadlock ends
with what blocks each player still in the game. A trace told without a story (a step that
fails, a finding from elsewhere) shows the variables that changed, as before.
"""
from __future__ import annotations

from ..analyses.findings import Finding, TraceStep
from ..analyses.traces import show


def _closes_loop(f: Finding) -> bool:
    return f.loop_start is not None and len(f.trace or ()) > f.loop_start + 1


def changes_text(st: TraceStep, full: bool = False) -> str:
    """What the step changed, on one line: the entries that changed, or (the setup, `full`,
    a step told without a story) the variables as `name = value`."""
    if st.entries and not full:
        return "; ".join(str(c) for c in st.entries)
    if full and st.state:
        return "; ".join(f"{k} = {show(v)}" for k, v in st.state)
    return "; ".join(f"{k} = {v}" for k, v in st.changes)


def decided(st: TraceStep) -> list[str]:
    """`P2 loses by `hp_zero` [102.3a]`, for each outcome a rule of the step decided."""
    return [d for d in (r.outcome() for r in st.ran) if d]


def story_lines(st: TraceStep, full: bool = False) -> list[str]:
    """The lines under a step's head: what changed, what ran, what was decided."""
    lines = []
    text = changes_text(st, st.number == 0)
    if text:
        lines.append("       " + text)
    if full and st.number > 0 and st.state:  # -v: the state after the step too, whole
        lines.append("       state: " + changes_text(st, True))
    for i, r in enumerate(st.ran):
        lines.append(("       ran: " if i == 0 else "            ") + str(r))
    outcomes = decided(st)
    if outcomes:
        lines.append("       decided: " + "; ".join(outcomes))
    return lines


def blocked_lines(f: Finding) -> list[str]:
    if not f.blocked:
        return []
    return ["     what blocks the players still in the game:"] + [f"       {b}" for b in f.blocked]


def narrative(f: Finding, full: bool = False) -> str:
    if not f.trace:
        return ""
    lines = []
    last = len(f.trace) - 1
    for st in f.trace:
        head = f"  {st.number}. " + ("setup" if st.action == "setup" else st.action)
        if st.rules:
            head += "  [" + ", ".join(st.rules) + "]"
        lines.append(head)
        lines += story_lines(st, full)
        if st.note:
            lines.append("       " + st.note)
        if _closes_loop(f) and st.number == f.loop_start:
            # said of the state, below its values: the step into it (a concession, say) is not part of the loop
            lines.append("       ^ the loop starts in this state")
    if _closes_loop(f):
        k = f.loop_start
        again = f"step {last}" if k + 1 == last else f"steps {k + 1} to {last}"
        lines.append(f"       back to the state of step {k}: {again} repeat{'s' if k + 1 == last else ''} forever")
    lines += blocked_lines(f)
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
