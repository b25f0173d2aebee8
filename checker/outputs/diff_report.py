"""`rulewright diff` for people (text) and pipelines (JSON); both deterministic."""
from __future__ import annotations

import json

from ..diff import DiffResult, Difference
from ..frontend.diagnostics import render_all

RESULT = {0: "the same behaviour", 1: "behaviour changed", 2: "bad input", 3: "incomplete",
          4: "the engines disagree (a bug in rulewright)"}


def _where(d: Difference) -> str:
    if len(d.instances) <= 1:
        return (d.instances[0] if d.instances else d.model) or "the model"
    first = d.instances[0]
    params = [i.rsplit(" | ", 1)[-1] for i in d.instances]
    head = first.rsplit(" | ", 1)[0] if " | " in first else ""
    return (f"{head} | " if head else "") + "; ".join(params)


def _steps(trace) -> list[str]:
    lines = []
    for st in trace or ():
        head = f"    {st.number}. {st.action}" + (f"  [{', '.join(st.rules)}]" if st.rules else "")
        lines.append(head)
        if st.changes:
            lines.append("         " + "; ".join(f"{k} = {v}" for k, v in st.changes))
    return lines


def text(res: DiffResult, display: dict[str, str] | None = None) -> str:
    out: list[str] = []
    if res.diagnostics:
        out.append(_shown(render_all(res.diagnostics), display))
        out.append("")
    out.append(f"diff {res.old} -> {res.new}")
    for d in res.differences:
        mark = "" if not d.behaviour else ("declared " if d.declared_by else "CHANGED ")
        out.append("")
        out.append(f"{mark}{d.kind}: {d.summary}")
        out.append(f"  in: {_where(d)}")
        if d.rules:
            out.append(f"  rules: {', '.join(d.rules)}")
        if d.declared_by:
            out.append(f"  declared by: {_shown(d.declared_by, display)}")
        out.append(f"  fingerprint: {d.fingerprint}")
        if d.trace:
            if d.kind == "finding":
                side = "NEW" if d.findings[1] is not None else "OLD"
                out.append(f"  counterexample in {side} ({len(d.trace)} steps; Z3 replay: {d.replay or 'not run'}):")
            elif d.old_trace is not None:
                out.append(f"  play in OLD ({len(d.old_trace)} steps; Z3 replay: {d.old_replay or 'not run'}):")
                out.extend(_steps(d.old_trace))
                out.append(f"  play in NEW ({len(d.trace)} steps; Z3 replay: {d.replay or 'not run'}):")
            else:
                out.append(f"  play in {d.side.upper()} ({len(d.trace)} steps; Z3 replay: {d.replay or 'not run'}):")
            out.extend(_steps(d.trace))
    for label, n in res.more:
        out.append("")
        out.append(f"... and {n} more distinct difference(s) in {label or 'the model'} "
                   f"(past the cap of {res.every}: --all-differences N shows up to N)")
    for what, where in _same_contradictions(res):
        out.append("")
        out.append(f"contradiction unchanged: {what}")
        out.append(f"  in: {where}")
    out.append("")
    for why in res.incomplete:
        out.append(f"incomplete: {_shown(why, display)}")
    for note in res.stale_notes + res.unused_notes:
        out.append(f"note: {_shown(note, display)}")
    behaviour = [d for d in res.differences if d.behaviour]
    declared = sum(1 for d in behaviour if d.declared_by)
    findings = len(res.differences) - len(behaviour)
    out.append(f"compared {res.compared} instance(s): {len(behaviour)} behaviour difference(s)"
               + (f" ({declared} declared)" if declared else "") + f", {findings} finding difference(s)")
    out.append("result: " + RESULT[res.exit_code()])
    return "\n".join(out) + "\n"


def _same_contradictions(res: DiffResult) -> list[tuple[str, str]]:
    """(contradiction, where) for the instances neither version has a setup for, with the same
    rules in conflict: one entry per model and contradiction, its instances listed as `_where` does."""
    groups: dict[tuple, list[str]] = {}
    for label, what in res.same_contradictions:
        model = label.rsplit(" | ", 1)[0] if " | " in label else ""
        groups.setdefault((model, what), []).append(label)
    return [(what, _where(Difference("contradiction", "both", model, what, (), (), instances=labels)))
            for (model, what), labels in groups.items()]


def _shown(s: str, display: dict[str, str] | None) -> str:
    """Temporary paths (a git revision's copy) shown as the revision the user named."""
    for tmp, name in (display or {}).items():
        s = s.replace(tmp, name)
    return s


def difference_json(d: Difference, display: dict[str, str] | None = None) -> dict:
    return {
        "kind": d.kind,
        "side": d.side,
        "model": d.model,
        "instances": d.instances,
        "summary": d.summary,
        "rules": list(d.rules),
        "fingerprint": d.fingerprint,
        "declared_by": _shown(d.declared_by, display) or None,
        "other": d.other or None,
        "replay": str(d.replay) if d.replay else None,
        "trace": _trace_json(d.trace),
        "old_trace": _trace_json(d.old_trace),
        "old_replay": str(d.old_replay) if d.old_replay else None,
    }


def _trace_json(trace) -> list | None:
    if not trace:
        return None
    return [{"step": st.number, "action": st.action, "rules": list(st.rules), "changes": {k: v for k, v in st.changes}}
            for st in trace]


def as_json(res: DiffResult, display: dict[str, str] | None = None) -> str:
    doc = {
        "tool": "rulewright diff",
        "old": res.old,
        "new": res.new,
        "exit_code": res.exit_code(),
        "diagnostics": [{"code": d.code, "message": d.message, "file": _shown(d.span.file, display),
                         "line": d.span.line, "col": d.span.col} for d in res.diagnostics],
        "differences": [difference_json(d, display) for d in res.differences],
        "more_differences": [{"in": label or "the model", "count": n} for label, n in res.more],
        "unchanged_contradictions": [{"contradiction": what, "in": where} for what, where in _same_contradictions(res)],
        "incomplete": [_shown(w, display) for w in res.incomplete],
        "unused_notes": [_shown(n, display) for n in res.unused_notes],
        "stale_notes": [_shown(n, display) for n in res.stale_notes],
        # an accepted-differences file for --accept: every behaviour difference of this run
        "accept": {"accepted": [{"fingerprint": d.fingerprint, "why": d.summary}
                                for d in res.differences if d.behaviour]},
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
