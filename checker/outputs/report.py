"""Reports: the text a person reads and the JSON a pipeline reads. Both are deterministic:
no timings or absolute paths unless asked for (`stats=True`)."""
from __future__ import annotations

import json
from pathlib import PurePosixPath
from urllib.parse import quote

from ..frontend.diagnostics import caret_block, render_all
from ..engine import Result
from ..analyses.findings import KINDS, Finding
from .trace import narrative, to_itf


def _instances_line(f: Finding) -> str:
    if len(f.instances) <= 1:
        return f.instances[0] if f.instances else f.instance
    first = f.instances[0]
    params = [i.rsplit(" | ", 1)[-1] for i in f.instances]
    return f"{first.rsplit(' | ', 1)[0]} | {'; '.join(params)}"


def text(res: Result, stats: bool = False) -> str:
    out: list[str] = []
    if res.diagnostics:
        out.append(render_all(res.diagnostics))
        out.append("")
    for d in res.disagreements:
        out.extend(disagreement_text(d))
    for f in res.findings:
        tag = "expected " if f.expected else ""
        out.append(f"{f.severity}[{f.kind}] {tag}{f.message}")
        out.append(f"  in: {_instances_line(f)}")
        if f.rules:
            out.append(f"  rules: {', '.join(f.rules)}")
        for span in f.spans[:2]:
            out.append(f"  at {span}")
            block = caret_block(span)
            if block:
                out.extend("    " + line for line in block.splitlines())
        if f.detail:
            out.append(f"  {f.detail}")
        if f.trace:
            out.append(f"  counterexample ({len(f.trace)} steps; Z3 replay: {f.replay or 'not run'}):")
            out.append(narrative(f))
        out.append("")
    n_models = len({i.model for i in res.instances})
    states = sum(i.states for i in res.instances)
    counts: dict[str, int] = {}
    for f in res.findings:
        if f.severity != "info":
            counts[f.kind] = counts.get(f.kind, 0) + 1
    expected = sum(1 for f in res.findings if f.expected)
    summary = (f"checked {len(res.files)} file(s), {n_models} model(s), {len(res.instances)} instance(s), "
               f"{states:,} states")
    out.append(summary)
    if stats:
        for i in res.instances:
            out.append(f"  {i.label}: {i.states:,} states, {i.transitions:,} transitions, {i.seconds:.3f}s"
                       + ("" if i.complete else f" (incomplete: {i.stop_reason})"))
    for why in res.incomplete:
        out.append(f"incomplete: {why}")
    if res.interrupted:
        out.append(f"INTERRUPTED: {res.interrupted}")
    if counts:
        out.append("findings: " + ", ".join(f"{k} {counts[k]}" for k in KINDS if k in counts)
                   + (f" ({expected} expected)" if expected else ""))
    code = res.exit_code()
    if res.disagreements:
        out.append(f"ENGINES DISAGREE on {len(res.disagreements)} counterexample(s): no verdict of this run can be trusted")
    out.append("result: " + {0: "clean", 1: f"{len(res.unexpected)} unexpected finding(s)",
                             2: "bad input", 3: "interrupted" if res.interrupted else "incomplete",
                             4: "the engines disagree (a bug in rulewright)"}[code])
    return "\n".join(out) + "\n"


def disagreement_text(d) -> list[str]:
    """Both views of a counterexample the replay rejected, loud enough not to be missed."""
    f = d.finding
    return [
        "=" * 78,
        f"ENGINES DISAGREE [{f.kind}] {f.message}",
        f"  in: {_instances_line(f)}",
        "  The explorer found the counterexample below; the independent Z3 replay of the same",
        "  steps does not confirm it. This is a bug in rulewright, not a finding about the rules:",
        "  please report it with the spec. The explorer's view:",
        narrative(f),
        f"  The replay's view: {d.replay}",
        "=" * 78,
        "",
    ]


def finding_json(f: Finding) -> dict:
    return {
        "kind": f.kind,
        "severity": f.severity,
        "message": f.message,
        "rules": list(f.rules),
        "locations": [{"file": s.file, "line": s.line, "col": s.col} for s in f.spans],
        "model": f.model,
        "instances": f.instances or [f.instance],
        "expected": f.expected,
        "detail": f.detail,
        "replay": f.replay,
        "trace": to_itf(f) if f.trace else None,
        "narrative": narrative(f) if f.trace else None,
    }


def as_json(res: Result, stats: bool = False) -> str:
    doc = {
        "tool": "rulewright",
        "exit_code": res.exit_code(),
        "files": res.files,
        "diagnostics": [{"code": d.code, "message": d.message, "hint": d.hint, "file": d.span.file,
                         "line": d.span.line, "col": d.span.col} for d in res.diagnostics],
        "findings": [finding_json(f) for f in res.findings],
        "disagreements": [{**finding_json(d.finding), "replay_view": d.replay} for d in res.disagreements],
        "incomplete": res.incomplete,
        "interrupted": res.interrupted or None,
        "instances": [{"instance": i.label, "states": i.states, "transitions": i.transitions, "complete": i.complete,
                       **({"seconds": round(i.seconds, 4)} if stats else {})} for i in res.instances],
    }
    return json.dumps(doc, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def uri(path: str) -> str:
    """A file path as a SARIF artifact URI: percent-encoded (`dead lock#1.rw` must not end in a
    fragment), relative paths kept relative, absolute ones as file:// URIs."""
    if path.startswith("/"):
        return "file://" + quote(path)
    return quote(str(PurePosixPath(path)))


def _location(span) -> dict:
    return {"physicalLocation": {"artifactLocation": {"uri": uri(span.file)},
                                 "region": {"startLine": max(span.line, 1), "startColumn": max(span.col, 1)}}}


def as_sarif(res: Result) -> str:
    """SARIF 2.1.0, for code-scanning tools in CI; one result per finding, located at its spans."""
    levels = {"error": "error", "warning": "warning", "info": "note"}
    results = []
    for f in res.findings:
        if f.expected:
            continue
        locations = [_location(s) for s in f.spans if s.line > 0]
        text = f.message + (f" (rules {', '.join(f.rules)})" if f.rules else "")
        if f.trace:
            text += "\n" + narrative(f)
        results.append({"ruleId": f.kind, "level": levels[f.severity], "message": {"text": text},
                        "locations": locations, "properties": {"rules": list(f.rules), "instances": f.instances}})
    for d in res.disagreements:
        f = d.finding
        results.append({"ruleId": "engines-disagree", "level": "error",
                        "message": {"text": f"The engines disagree on a {f.kind} counterexample ({f.message}); "
                                            f"the replay says: {d.replay}. This is a bug in rulewright."},
                        "locations": [_location(s) for s in f.spans if s.line > 0]})
    for d in res.diagnostics:
        results.append({"ruleId": d.code, "level": "error", "message": {"text": f"{d.message}. {d.hint}".strip()},
                        "locations": [_location(d.span)]})
    rules = [{"id": k, "shortDescription": {"text": desc}, "defaultConfiguration": {"level": levels[sev]}}
             for k, (sev, desc) in KINDS.items()]
    run = {"tool": {"driver": {"name": "rulewright", "rules": rules}}, "results": results}
    if res.interrupted:  # the results are not all there are
        run["invocations"] = [{"executionSuccessful": False,
                               "toolExecutionNotifications": [{"level": "error", "message": {"text": res.interrupted}}]}]
    doc = {"version": "2.1.0", "$schema": "https://json.schemastore.org/sarif-2.1.0.json", "runs": [run]}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
