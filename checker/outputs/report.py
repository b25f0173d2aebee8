"""Reports: the text a person reads, the JSON a pipeline reads, SARIF for code scanning and JUnit
XML for CI test views. All are deterministic: no timings or absolute paths unless asked for
(`stats=True`), findings in the engine's order.

`FORMATS` maps the `--output-format` names rendered here to their renderers; `formats.py` adds
the ones built on this module (HTML).

The text report prints each finding nobody has reviewed in full (message, rules, source, trace);
a reviewed one (accepted by an `expect` or a baseline entry) gets one line: kind, rules, where,
model, fingerprint and the write-up its expectation cites. `verbosity` 1 prints reviewed
findings and notes in full too; -1 prints the summary only.
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import Callable
from urllib.parse import quote
from xml.sax.saxutils import escape, quoteattr

from ..frontend.diagnostics import CODES, Code, caret_block, render_all
from ..engine import Result
from ..analyses import consequences
from ..analyses.findings import EXPLORER, KINDS, MEASURES, Finding
from .trace import changes_text, decided, narrative, to_itf

TOOL_VERSION = "0.1.0"  # pyproject.toml's version; no metadata lookup, so an uninstalled checkout says the same


@dataclass(frozen=True)
class Options:
    stats: bool = False  # per-instance sizes and timings (not deterministic)
    verbosity: int = 0  # -1 summary only, 0 default, 1 reviewed findings and notes in full


def _instances_line(f: Finding) -> str:
    if len(f.instances) <= 1:
        return f.instances[0] if f.instances else f.instance
    first = f.instances[0]
    params = [i.rsplit(" | ", 1)[-1] for i in f.instances]
    return f"{first.rsplit(' | ', 1)[0]} | {'; '.join(params)}"


def _engines_line(f: Finding) -> str:
    """Which engine found it in which instances: "explicit in N=2; explicit (directed search) in N=3"."""
    by: dict[str, list[str]] = {}
    for label, engine in zip(f.instances, f.engines):
        by.setdefault(engine, []).append(label.rsplit(" | ", 1)[-1])
    return "; ".join(f"{engine} in {', '.join(labels)}" for engine, labels in by.items())


def status(f: Finding) -> str:
    """new (nobody reviewed it), reviewed, changed (an expectation names it but it grew or
    cites other rules), follows (another finding implies it: shown under that one, never fails a
    run on its own), or note (information, never fails a run)."""
    if f.expected:
        return "reviewed"
    if f.changed:
        return "changed"
    if f.follows:
        return "follows"
    return "note" if f.severity == "info" else "new"


def cited(note: str) -> str:
    """The write-up an expectation's note cites (its first `*.md` path), else the note itself."""
    m = re.search(r"[\w./-]+\.md\b", note)
    if m:
        return m[0]
    return note if len(note) <= 80 else note[:77] + "..."


def suggested_expect(f: Finding) -> str:
    """The `expect` line that accepts exactly this finding, for after it has been reviewed."""
    parts = [f"expect {f.kind}"]
    if f.rules:
        parts.append(f"[{', '.join(f.rules)}]")
    names = [s for s in f.subject if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", s)]
    if names and len(names) == len(f.subject):
        parts.append("on " + ", ".join(names))
    if f.kind in MEASURES:
        parts.append(f"{f.size} {MEASURES[f.kind]}")
    n = len(f.instances or [f.instance])
    parts.append(f"{n} instance{'s' if n != 1 else ''}")
    parts.append(f'fingerprint "{f.fingerprint}"')
    return " ".join(parts) + ' "why it is accepted; see counterexamples/..."'


def _block(f: Finding, full: bool = False, findings: list[Finding] = ()) -> list[str]:
    out = [f"{f.severity}[{f.kind}] {f.message}", f"  in: {_instances_line(f)}"]
    if f.rules:
        out.append(f"  rules: {', '.join(f.rules)}")
    for span in f.spans[:2]:
        out.append(f"  at {span}")
        block = caret_block(span)
        if block:
            out.extend("    " + line for line in block.splitlines())
    if f.detail:
        out.append(f"  {f.detail}")
    if f.abstraction:
        out.append(f"  under the abstraction (the spec's claim, not proven): {f.abstraction}")
    if len(set(f.engines)) > 1:  # (one engine everywhere: the counterexample's line says which)
        out.append(f"  found by: {_engines_line(f)}")
    if f.trace:
        out.append(f"  counterexample ({len(f.trace)} steps; Z3 replay: {f.replay or 'not run'}):")
        out.append(narrative(f, full))  # full: every state in full (-v), not only what changed
    out.append(f"  fingerprint: {f.fingerprint}")
    cause = consequences.cause_of(f, list(findings))
    if cause is not None:
        out.append(f"  follows from: {cause.kind} {cause.fingerprint} ({cause.message})")
    implied = [c for c in findings if c.follows and consequences.cause_of(c, [f]) is f and not c.expected]
    if implied:
        out.append("  consequences (they follow from this finding; -v shows them in full):")
        out.extend(f"    {c.kind}: {c.message} ({c.fingerprint})" for c in implied)
    if f.expected:
        out.append(f"  reviewed: {f.reviewed or '(no note)'}")
    elif f.changed:
        out.append(f"  {f.changed}")
    if status(f) in ("new", "changed") and f.kind != "expectation-unmet":
        out.append(f"  once reviewed, accept it with: {suggested_expect(f)}")
    out.append("")
    return out


def _where(f: Finding) -> str:
    located = [s for s in f.spans if s.line > 0]
    return str(located[0]) if located else f.model.split(" | ")[0]


def _one_line(f: Finding) -> str:
    model = f.model.split(" | ", 1)[1] if " | " in f.model else ""
    rules = f" [{', '.join(f.rules)}]" if f.rules else ""
    n = len(f.instances or [f.instance])
    where = _where(f) + (f" ({model}{'' if n == 1 else f', {n} instances'})" if model else "")
    return f"  {f.kind}{rules} at {where} {f.fingerprint}: {cited(f.reviewed) or '(no note)'}"


def text(res: Result, stats: bool = False, verbosity: int = 0) -> str:
    out: list[str] = []
    if res.diagnostics:
        out.append(render_all(res.diagnostics))
        out.append("")
    for d in res.disagreements:
        out.extend(disagreement_text(d))
    reviewed = [f for f in res.findings if f.expected]
    notes = [f for f in res.findings if status(f) == "note"]
    if verbosity >= 0:
        for f in res.findings:
            if status(f) in ("new", "changed") or verbosity > 0:
                out.extend(_block(f, full=verbosity > 0, findings=res.findings))
        if reviewed and verbosity == 0:
            out.append(f"reviewed findings ({len(reviewed)}; -v shows them in full):")
            out.extend(_one_line(f) for f in reviewed)
            out.append("")
    n_models = len({i.model for i in res.instances})
    states = sum(i.states for i in res.instances)
    counts: dict[str, int] = {}
    following = 0
    for f in res.findings:
        if f.severity != "info" and status(f) != "follows":
            counts[f.kind] = counts.get(f.kind, 0) + 1
        following += status(f) == "follows"
    summary = (f"checked {len(res.files)} file(s), {n_models} model(s), {len(res.instances)} instance(s), "
               f"{states:,} states")
    out.append(summary)
    if stats:
        for i in res.instances:
            out.append(f"  {i.label}: {i.states:,} states, {i.transitions:,} transitions, {i.seconds:.3f}s"
                       + ("" if i.complete else f" ({'explored in part' if i.decisions else 'incomplete'}: {i.stop_reason})")
                       + (f"; symmetry: {i.symmetry}" if i.symmetry else ""))
    for i in res.instances:
        out.extend(decisions_text(i, verbose=verbosity > 0))
    for why in res.incomplete:
        out.append(f"incomplete: {why}")
    for nc in res.not_checked:
        out.append(f"not checked: {_not_checked_text(nc)}")
    if res.interrupted:
        out.append(f"INTERRUPTED: {res.interrupted}")
    if counts:
        changed = sum(1 for f in res.findings if f.changed)
        tail = ", ".join(x for x in (f"{len(reviewed)} reviewed" if reviewed else "",
                                     f"{changed} changed since reviewed" if changed else "",
                                     f"{following} more follow from these" if following else "") if x)
        out.append("findings: " + ", ".join(f"{k} {counts[k]}" for k in KINDS if k in counts)
                   + (f" ({tail})" if tail else ""))
    if notes:
        kinds = sorted({f.kind for f in notes})
        out.append(f"notes: {len(notes)} ({', '.join(kinds)}; information only"
                   + ("; -v shows them)" if verbosity <= 0 else ")"))
    if res.disagreements:
        out.append(f"ENGINES DISAGREE on {len(res.disagreements)} counterexample(s): no verdict of this run can be trusted")
    out.append("result: " + verdict(res))
    return "\n".join(out) + "\n"


def verdict(res: Result) -> str:
    """The run's result in a few words, as its exit code tells it (every format says the same)."""
    code = res.exit_code()
    if code == 3 and not res.interrupted:
        return "incomplete" + _partly(res) + (f"; {len(res.failing)} unexpected finding(s)" if res.failing else "")
    return {0: "clean", 1: f"{len(res.failing)} unexpected finding(s)" + _partly(res), 2: "bad input",
            3: "interrupted", 4: "the engines disagree (a bug in rulewright)"}[code]


def _not_checked_text(nc) -> str:
    e = nc.expectation
    return f"{e.origin} `{e.describe()}` at {e.span} ({nc.why})"


def _partly(res: Result) -> str:
    """What a run that was not checked to its end left out, for its result line."""
    parts = []
    if res.unfinished:
        parts.append(f"{len(res.unfinished)} instance(s) not checked to the end")
    if res.not_checked:
        parts.append(f"{len(res.not_checked)} expectation(s) not checked")
    return f" ({', '.join(parts)})" if parts else ""


def disagreement_text(d) -> list[str]:
    """Both views of a counterexample one engine found and the other rejects, loud enough not to be missed."""
    f = d.finding
    if f.trace:
        body = ["  The explorer found the counterexample below; the independent Z3 replay of the same",
                "  steps does not confirm it. This is a bug in rulewright, not a finding about the rules:",
                "  please report it with the spec. The explorer's view:",
                narrative(f),
                f"  The replay's view: {d.replay}"]
    else:  # the symbolic engine's play (no trace of the explorer's), which the explorer walked
        body = ["  The symbolic engine found a play that the explorer, walking it step by step, does",
                "  not confirm. This is a bug in rulewright, not a finding about the rules: please",
                "  report it with the spec.",
                f"  The explorer's view: {d.replay}"]
    return ["=" * 78, f"ENGINES DISAGREE [{f.kind}] {f.message}", f"  in: {_instances_line(f)}", *body, "=" * 78, ""]


# ---------------------------------------------------------------- JSON

def finding_json(f: Finding) -> dict:
    return {
        "kind": f.kind,
        "severity": f.severity,
        "message": f.message,
        "rules": list(f.rules),
        "subject": list(f.subject),
        "cause": list(f.cause),
        "fingerprint": f.fingerprint,
        "status": status(f),
        "follows": f.follows_fingerprint or None,
        "size": {"count": f.size, "unit": MEASURES[f.kind]} if f.kind in MEASURES else None,
        "locations": [{"file": s.file, "line": s.line, "col": s.col} for s in f.spans],
        "model": f.model,
        "instances": f.instances or [f.instance],
        "expected": f.expected,
        "reviewed": f.reviewed if f.expected else None,
        "changed": f.changed or None,
        "detail": f.detail,
        "abstraction": f.abstraction or None,
        "engine": f.engine or EXPLORER,
        "engines": f.engines or [f.engine or EXPLORER],  # per instance of "instances"
        "replay": str(f.replay) if f.replay else "",
        "trace": to_itf(f) if f.trace else None,
        "narrative": narrative(f) if f.trace else None,
        "story": story_json(f) if f.trace else None,
    }


def _at(span) -> dict:
    return {"file": span.file, "line": span.line, "col": span.col} if span is not None else {}


def story_json(f: Finding) -> dict:
    """The story of the trace (checker.analyses.story) as data: per step the entries it changed
    and the rules it ran, in order, with subjects and what they decided; for a deadlock, what
    blocks each player still in the game."""
    steps = []
    for st in f.trace:
        steps.append({
            "index": st.number,
            "action": st.action,
            "changes": [{"name": c.name, "old": c.old or None, "new": c.new or None,
                         "added": list(c.added), "removed": list(c.removed)} for c in st.entries],
            "ran": [{"kind": r.kind, "name": r.name, "subject": r.subject or None, "rules": list(r.tags),
                     "decided": r.decided or None, **_at(r.span)} for r in st.ran],
        })
    return {"steps": steps,
            "blocked": [{"player": b.player, "action": b.action or None, "why": b.why, **_at(b.span)}
                        for b in f.blocked]}


def as_json(res: Result, stats: bool = False) -> str:
    doc = {
        "tool": "rulewright",
        "version": TOOL_VERSION,
        "exit_code": res.exit_code(),
        "files": res.files,
        "diagnostics": [{"code": d.code, "message": d.message, "hint": d.hint, "file": d.span.file,
                         "line": d.span.line, "col": d.span.col} for d in res.diagnostics],
        "findings": [finding_json(f) for f in res.findings],
        "disagreements": [{**finding_json(d.finding), "replay_view": d.replay} for d in res.disagreements],
        "incomplete": res.incomplete,
        "unfinished": [{"instance": label, "why": why} for label, why in res.unfinished.items()],
        "not_checked": [_not_checked_json(nc) for nc in res.not_checked],
        "interrupted": res.interrupted or None,
        "instances": [{"instance": i.label, "states": i.states, "transitions": i.transitions, "complete": i.complete,
                       **({"decisions": [asdict(d) for d in i.decisions]} if i.decisions else {}),
                       **({"seconds": round(i.seconds, 4), "symmetry": i.symmetry} if stats else {})}
                      for i in res.instances],
    }
    return json.dumps(doc, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


DECIDED_SHOWN = 4  # subjects of one check named on the `decided:` line; past that, how many more


def decisions_text(i, verbose: bool) -> list[str]:
    """What the symbolic engine decided for an instance the explorer did not finish: one line,
    by verdict and engine, each check once with its subjects (`dead-rule (action `a`, ... and
    9 more)`: an instance has dozens of rules), and with `verbose` each proof's invariant."""
    if not i.decisions:
        return []
    groups: dict[tuple[str, str], dict[str, list[str]]] = {}
    for d in i.decisions:
        groups.setdefault((d.verdict, d.engine), {}).setdefault(d.check, []).append(d.subject)
    said = [f"{verdict} by {engine}: {', '.join(_subjects(check, s) for check, s in checks.items())}"
            for (verdict, engine), checks in groups.items()
            if verdict != "unknown"]  # (what was not decided is an `incomplete:` line of its own)
    out = [f"decided: {i.label}: after the explorer's {i.states:,} states ({i.stop_reason}): " + "; ".join(said)
           ] if said else []
    if verbose:
        out += [f"  {d.check}{' (' + d.subject + ')' if d.subject else ''}: {d.detail}"
                for d in i.decisions if d.verdict == "proved"]
    return out


def _subjects(check: str, subjects: list[str]) -> str:
    named = [s for s in subjects if s]
    if not named:
        return check
    if len(named) > DECIDED_SHOWN:
        named = named[:DECIDED_SHOWN - 1] + [f"and {len(named) - DECIDED_SHOWN + 1} more"]
    return f"{check} ({', '.join(named)})"


def _not_checked_json(nc) -> dict:
    e = nc.expectation
    return {"origin": e.origin, "expectation": e.describe(), "model": e.model, "kind": e.kind,
            "file": e.span.file, "line": e.span.line, "col": e.span.col, "why": nc.why}


# ---------------------------------------------------------------- SARIF 2.1.0

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "SRCROOT"
_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def uri(path: str) -> str:
    """A file path as a SARIF artifact URI: percent-encoded (`dead lock#1.rw` must not end in a
    fragment), relative paths kept relative, absolute ones as file:// URIs."""
    if path.startswith("/"):
        return "file://" + quote(path)
    return quote(str(PurePosixPath(path)))


def source_root(start: Path | None = None) -> Path:
    """The repository the run is in (the nearest folder with `.git` above the working
    directory), or the working directory: SARIF URIs are relative to it."""
    here = (start or Path.cwd()).resolve()
    for d in (here, *here.parents):
        if (d / ".git").exists():
            return d
    return here


def _artifact(path: str, root: Path) -> dict:
    """Relative to the source root (uriBaseId SRCROOT) when the file is inside it."""
    try:
        rel = Path(path).resolve().relative_to(root)
    except (ValueError, OSError):
        return {"uri": uri(path)}
    return {"uri": uri(rel.as_posix()), "uriBaseId": SRCROOT}


def _location(span, root: Path, message: str = "") -> dict:
    phys: dict = {"artifactLocation": _artifact(span.file, root)}
    if span.line > 0:
        phys["region"] = {"startLine": span.line, "startColumn": max(span.col, 1)}
    loc: dict = {"physicalLocation": phys}
    if message:
        loc["message"] = {"text": message}
    return loc


def _file_of(f: Finding) -> str:
    return f.model.split(" | ")[0]


def _action_spans(res: Result) -> dict[tuple[str, str], dict[str, object]]:
    """(file, model) -> action or routine name -> its declaration's span, per model of every spec."""
    from ..frontend.resolve import variants
    from ..frontend import syntax as sx
    from ..frontend.typed import model_name
    out: dict = {}
    for spec in res.specs:
        for fmt, reading, decls in variants(spec):
            out[(spec.path, model_name(spec.path, fmt, reading))] = {
                d.name: d.span for d in decls if isinstance(d, (sx.ActionDecl, sx.RoutineDecl))}
    return out


def _code_flow(f: Finding, spans: dict, root: Path) -> dict:
    """One thread flow location per step of the trace, at the action that takes it (the setup and
    unknown actions at the spec file), saying what the step did and which rules it cites."""
    actions = spans.get((_file_of(f), f.model), {})
    locations = []
    for st in f.trace:
        text = f"{st.number}. {st.action}"
        if st.rules:
            text += f" [{', '.join(st.rules)}]"
        changed = changes_text(st, st.number == 0)
        if changed:
            text += ": " + changed
        outcomes = decided(st)
        if outcomes:
            text += "; decided: " + "; ".join(outcomes)
        if st.note:
            text += f" ({st.note})"
        if f.loop_start is not None and st.number == f.loop_start:
            text += " (the loop starts here)"
        span = actions.get(st.action.split("(")[0].strip())
        loc = _location(span, root, text) if span is not None else {
            "physicalLocation": {"artifactLocation": _artifact(_file_of(f), root)}, "message": {"text": text}}
        state = ({c.name: {"text": c.what} for c in st.entries} if st.entries and st.number
                 else {k: {"text": str(v)} for k, v in st.changes})
        locations.append({"location": loc, "nestingLevel": 0, "executionOrder": len(locations) + 1, "state": state})
        # what ran in the step after its action, each at its declaration: one level down
        for r in st.ran[1:] if st.ran and st.ran[0].kind == "action" else st.ran:
            outcome = r.outcome()
            locations.append({"location": _location(r.span, root, r.text(place=False) + (f": {outcome}" if outcome else "")),
                              "nestingLevel": 1, "executionOrder": len(locations) + 1})
    return {"message": {"text": f"counterexample ({len(f.trace)} steps; Z3 replay: {f.replay or 'not run'})"},
            "threadFlows": [{"locations": locations}]}


def _rule_index() -> tuple[list[dict], dict[str, int]]:
    rules = []
    for k, (sev, desc) in KINDS.items():
        props: dict = {"tags": ["rules-defect"]}
        if k in MEASURES:
            props["measure"] = MEASURES[k]
        rules.append({"id": k, "name": "".join(w.capitalize() for w in k.split("-")),
                      "shortDescription": {"text": desc}, "fullDescription": {"text": desc},
                      "defaultConfiguration": {"level": _LEVELS[sev]}, "properties": props})
    rules.append({"id": "engines-disagree", "name": "EnginesDisagree",
                  "shortDescription": {"text": "the explicit and the Z3 engine disagree on a counterexample "
                                               "(a bug in rulewright)"},
                  "defaultConfiguration": {"level": "error"}})
    for code, desc in CODES.items():
        rules.append({"id": code, "name": "Spec" + code, "shortDescription": {"text": desc},
                      "defaultConfiguration": {"level": "error"}})
    return rules, {r["id"]: i for i, r in enumerate(rules)}


def as_sarif(res: Result, root: Path | None = None) -> str:
    """SARIF 2.1.0, for code-scanning tools in CI: one result per finding (reviewed ones as
    suppressed results, never dropped), each with the finding's fingerprint, a location (the
    spec file at least), and its counterexample as a code flow."""
    root = root or source_root()
    rules, index = _rule_index()
    spans = _action_spans(res)
    results = []
    for f in res.findings:
        # every result has a location: its spans, or else the file it is about (never none)
        locations = [_location(s, root) for s in f.spans if s.line > 0] or [
            {"physicalLocation": {"artifactLocation": _artifact(f.spans[0].file if f.spans else _file_of(f), root)}}]
        text = f.message + (f" (rules {', '.join(f.rules)})" if f.rules else "")
        if f.detail:
            text += f". {f.detail}"
        if f.changed:
            text += f". {f.changed}"
        if f.abstraction:
            text += f". Under the abstraction: {f.abstraction}"
        if f.follows_fingerprint:
            text += f". It follows from the finding {f.follows_fingerprint}"
        # a consequence is shown under its cause: a note, not an alert of its own
        level = "note" if status(f) == "follows" else _LEVELS[f.severity]
        r = {"ruleId": f.kind, "ruleIndex": index[f.kind], "level": level, "message": {"text": text},
             "locations": locations, "partialFingerprints": {"rulewright/v1": f.fingerprint},
             "baselineState": "unchanged" if f.expected else "updated" if f.changed else "new",
             "properties": {"rules": list(f.rules), "subject": list(f.subject), "cause": list(f.cause), "model": f.model,
                            "instances": f.instances or [f.instance], "status": status(f),
                            "engine": f.engine or EXPLORER, "engines": f.engines or [f.engine or EXPLORER],
                            "replay": str(f.replay) if f.replay else ""}}
        if f.kind in MEASURES:
            r["properties"]["size"] = {"count": f.size, "unit": MEASURES[f.kind]}
        if f.abstraction:
            r["properties"]["abstraction"] = f.abstraction
        if f.expected:
            r["suppressions"] = [{"kind": "external" if f.reviewed.startswith("accepted in the baseline") else "inSource", "status": "accepted",
                                  "justification": f.reviewed or "accepted by an expect or a baseline entry"}]
        if f.trace:
            r["codeFlows"] = [_code_flow(f, spans, root)]
        if f.blocked:  # a deadlock: what blocks each player still in the game, where
            r["relatedLocations"] = [{"id": i, **_location(b.span, root, b.text(place=False))}
                                     for i, b in enumerate(f.blocked) if b.span is not None]
        results.append(r)
    for d in res.disagreements:
        f = d.finding
        results.append({"ruleId": "engines-disagree", "ruleIndex": index["engines-disagree"], "level": "error",
                        "message": {"text": f"The engines disagree on a {f.kind} counterexample ({f.message}); "
                                            f"the replay says: {d.replay}. This is a bug in rulewright."},
                        "locations": [_location(s, root) for s in f.spans if s.line > 0]
                        or [{"physicalLocation": {"artifactLocation": _artifact(_file_of(f), root)}}]})
    for d in res.diagnostics:
        results.append({"ruleId": d.code, "ruleIndex": index.get(d.code, index[Code.SYNTAX]), "level": "error",
                        "message": {"text": f"{d.message}. {d.hint}".strip()},
                        "locations": [_location(d.span, root)]})
    run: dict = {
        "tool": {"driver": {"name": "rulewright", "version": TOOL_VERSION, "semanticVersion": TOOL_VERSION,
                            "rules": rules}},
        # the consumer knows where the repository is checked out; the URIs below are relative to it
        "originalUriBaseIds": {SRCROOT: {"description": {
            "text": "the root of the repository rulewright ran in (or the folder it ran in)"}}},
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    # a run not checked to its end did not execute successfully, whatever it found: a consumer
    # must not read its results as the whole truth (the notifications say what is missing)
    notes = [{"level": "error", "message": {"text": res.interrupted}}] if res.interrupted else []
    notes += [{"level": "warning", "message": {"text": f"incomplete: {why}"}} for why in res.incomplete]
    notes += [{"level": "warning", "message": {"text": f"not checked: {_not_checked_text(nc)}"},
               "locations": [_location(nc.expectation.span, root)]} for nc in res.not_checked]
    # what the symbolic engine decided where the explorer did not finish (docs/checks.md)
    notes += [{"level": "note", "message": {"text": line}}
              for i in res.instances for line in decisions_text(i, verbose=False)]
    invocation = {"executionSuccessful": not res.interrupted and not res.is_incomplete and res.exit_code() in (0, 1),
                  "exitCode": res.exit_code(), "toolExecutionNotifications": notes}
    decided = [{"instance": i.label, **asdict(d)} for i in res.instances for d in i.decisions]
    if decided:
        invocation["properties"] = {"decisions": decided}
    run["invocations"] = [invocation]
    doc = {"version": "2.1.0", "$schema": SARIF_SCHEMA, "runs": [run]}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- JUnit XML

def as_junit(res: Result) -> str:
    """JUnit XML for CI test views: one test suite per spec file, one test case per instance
    (an error if it is incomplete or was never checked), one per finding (a failure if nobody
    reviewed it, or it changed since) and one per expectation the run could not tell (skipped). No timestamps or timings: the same run gives the same bytes."""
    files = list(dict.fromkeys(res.files + [_file_of(f) for f in res.findings]))
    suites = []
    for path in files:
        cases = []
        for i in res.instances:
            if i.label.split(" | ")[0] != path:
                continue
            why = [w for w in res.incomplete if w.startswith(i.label + ":")]
            body = (f'<error type="incomplete" message={quoteattr(why[0])}/>' if why else "")
            cases.append(_case(i.model, f"instance {i.label}", body, f"{i.states} states, complete: {i.complete}"))
        seen = {i.label for i in res.instances}
        for label, why in res.unfinished.items():  # never started, or lost with its worker
            if label.split(" | ")[0] == path and label not in seen:
                cases.append(_case(label, f"instance {label}", f'<error type="incomplete" message={quoteattr(why)}/>'))
        for nc in res.not_checked:
            if nc.expectation.model.split(" | ")[0] == path:
                cases.append(_case(nc.expectation.model, f"{nc.expectation.origin} {nc.expectation.describe()}",
                                   f'<skipped message={quoteattr("not checked: " + nc.why)}/>'))
        for f in res.findings:
            if _file_of(f) != path:
                continue
            name = f"{f.kind} [{', '.join(f.rules)}] {f.fingerprint}"
            block = "\n".join(_block(f))
            if status(f) in ("new", "changed") and f.severity != "info":
                body = f'<failure type={quoteattr(f.kind)} message={quoteattr(f.message)}>{escape(block)}</failure>'
                cases.append(_case(f.model, name, body))
            else:
                cases.append(_case(f.model, name, "", block))
        for d in res.disagreements:
            if _file_of(d.finding) == path:
                body = f'<error type="engines-disagree" message={quoteattr(d.replay)}>{escape(chr(10).join(disagreement_text(d)))}</error>'
                cases.append(_case(d.finding.model, f"replay of {d.finding.kind} {d.finding.fingerprint}", body))
        for d in res.diagnostics:
            if d.span.file == path:
                cases.append(_case(path, f"{d.code} at {d.span}", f'<error type={quoteattr(d.code)} message={quoteattr(d.message)}/>'))
        failures = sum(1 for c in cases if "<failure" in c)
        errors = sum(1 for c in cases if "<error" in c)
        skipped = sum(1 for c in cases if "<skipped" in c)
        suites.append(f'  <testsuite name={quoteattr(path)} tests="{len(cases)}" failures="{failures}" errors="{errors}" skipped="{skipped}">\n'
                      + "".join(cases) + "  </testsuite>\n")
    stray = [d for d in res.diagnostics if d.span.file not in files]
    if stray:
        cases = [_case("rulewright", f"{d.code} {d.span}", f'<error type={quoteattr(d.code)} message={quoteattr(d.message)}/>')
                 for d in stray]
        suites.append(f'  <testsuite name="rulewright" tests="{len(cases)}" failures="0" errors="{len(cases)}" skipped="0">\n'
                      + "".join(cases) + "  </testsuite>\n")
    tests = sum(s.count("<testcase ") for s in suites)
    failures = sum(s.count("<failure ") for s in suites)
    errors = sum(s.count("<error ") for s in suites)
    skipped = sum(s.count("<skipped ") for s in suites)
    doc = ('<?xml version="1.0" encoding="UTF-8"?>\n'
           f'<testsuites name="rulewright" tests="{tests}" failures="{failures}" errors="{errors}" skipped="{skipped}">\n'
           + "".join(suites) + "</testsuites>\n")
    return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]", "?", doc)  # characters XML 1.0 cannot hold


def _case(classname: str, name: str, body: str, out: str = "") -> str:
    inner = body + (f"<system-out>{escape(out)}</system-out>" if out else "")
    return f"    <testcase classname={quoteattr(classname)} name={quoteattr(name)}>{inner}</testcase>\n"


# ---------------------------------------------------------------- the formats

FORMATS: dict[str, Callable[[Result, Options], str]] = {
    "text": lambda res, o: text(res, o.stats, o.verbosity),
    "json": lambda res, o: as_json(res, o.stats),
    "sarif": lambda res, o: as_sarif(res),
    "junit": lambda res, o: as_junit(res),
}
