"""Baseline files: reviewed findings kept outside the specs, for writers who prefer one file to
`expect` declarations. `rulewright baseline PATHS -o FILE` writes one; `check --baseline FILE`
accepts what it lists exactly as an `expect` naming the same rules, declarations, fingerprint,
size and number of instances would (checker.analyses.expectations).

The file is JSON, one finding per line, sorted, with no timestamps: the same findings give the
same bytes, so a refreshed baseline's diff shows exactly which findings came or went.
"""
from __future__ import annotations

import json

from .analyses.expectations import Expectation, apply
from .analyses.findings import MEASURES, Finding, assign_fingerprints
from .files import MAX_BASELINE_BYTES, read_bytes
from .frontend.diagnostics import Diagnostic, SpecError
from .frontend.syntax import Span

FORMAT_KEY, FORMAT_VERSION = "rulewright-baseline", 1


def _file_of(model: str) -> str:
    return model.split(" | ")[0]


def entry(f: Finding) -> dict:
    e = {"file": _file_of(f.model), "model": f.model, "kind": f.kind, "rules": sorted(f.rules),
         "subject": list(f.subject), "fingerprint": f.fingerprint, "instances": len(f.instances or [f.instance])}
    if f.kind in MEASURES:
        e[MEASURES[f.kind]] = f.size
    e["message"] = f.message  # for the person reading the file; not compared
    return e


def render(findings: list[Finding]) -> str:
    """Every finding a run would fail on or has reviewed (not notes, not unmet expectations)."""
    entries = sorted((entry(f) for f in findings if f.severity != "info" and f.kind != "expectation-unmet"),
                     key=lambda e: (e["file"], e["model"], e["kind"], e["fingerprint"]))
    lines = [json.dumps(e, ensure_ascii=False, sort_keys=False) for e in entries]
    body = ",\n    ".join(lines)
    return ('{\n  "%s": %d,\n  "findings": [\n    %s\n  ]\n}\n' % (FORMAT_KEY, FORMAT_VERSION, body) if lines
            else '{\n  "%s": %d,\n  "findings": []\n}\n' % (FORMAT_KEY, FORMAT_VERSION))


def load(path: str) -> list[Expectation]:
    """The baseline's entries as expectations, each located at its line of the file."""
    def bad(why: str, line: int = 1):
        return SpecError(Diagnostic("E002", f"{path} is not a rulewright baseline: {why}",
                                    Span(path, line, 1, line, 1), "write one with `rulewright baseline PATHS -o FILE`"))
    try:  # a regular file, size-capped: a pyproject.toml of the checked tree may name this file
        text = read_bytes(path, MAX_BASELINE_BYTES, f"the baseline {path}", "give a file written by "
                          "`rulewright baseline`, a regular file of at most 16 MiB").decode("utf-8")
        doc = json.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(Diagnostic("E002", f"cannot read the baseline {path}: {exc}", Span(path, 0, 0, 0, 0),
                                   "give a file written by `rulewright baseline`"))
    except json.JSONDecodeError as exc:
        raise bad(f"{exc.msg}", exc.lineno)
    if not isinstance(doc, dict) or doc.get(FORMAT_KEY) != FORMAT_VERSION or not isinstance(doc.get("findings"), list):
        raise bad(f'it needs "{FORMAT_KEY}": {FORMAT_VERSION} and a "findings" list')
    lines = text.split("\n")
    out = []
    for i, e in enumerate(doc["findings"]):
        fp = e.get("fingerprint", "") if isinstance(e, dict) else ""
        line = next((n + 1 for n, l in enumerate(lines) if fp and f'"fingerprint": "{fp}"' in l), 1)
        try:
            kind = e["kind"]
            measures = [("instances", int(e["instances"]))] if "instances" in e else []
            if kind in MEASURES and MEASURES[kind] in e:
                measures.append((MEASURES[kind], int(e[MEASURES[kind]])))
            out.append(Expectation(str(e["model"]), str(kind), tuple(map(str, e.get("rules", ()))),
                                   tuple(map(str, e.get("subject", ()))), tuple(measures), str(fp),
                                   f"accepted in the baseline {path}", Span(path, line, 1, line, 1), "baseline entry"))
        except (KeyError, TypeError, ValueError) as exc:
            raise bad(f"finding {i + 1} lacks or garbles {exc}", line)
    return out


def apply_baseline(res, path: str) -> None:
    """Accept what the baseline lists among the findings of the files this run checked; its
    entries for those files that no finding meets are `expectation-unmet` findings (unless the
    run was interrupted, when the missing findings may just not have been looked for)."""
    checked = set(res.files)
    entries = [e for e in load(path) if _file_of(e.model) in checked]
    unmet = apply(res.findings, entries, report_unmet=not res.interrupted)
    assign_fingerprints(unmet)
    res.findings.extend(unmet)
