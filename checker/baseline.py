"""Baseline files: reviewed findings kept outside the specs, for writers who prefer one file to
`expect` declarations. `rulewright baseline PATHS -o FILE` writes one; `check --baseline FILE`
accepts what it lists exactly as an `expect` naming the same rules, declarations, fingerprint,
size and number of instances would (checker.analyses.expectations).

The file is JSON, one finding per line, sorted, with no timestamps: the same findings give the
same bytes, so a refreshed baseline's diff shows exactly which findings came or went.

Format 3 (issue 21) has the fingerprints that hash a finding's declarations and cause instead of
the rules it cites (checker.analyses.findings); format 2 is read with its fingerprints ignored.
Since format 2 each spec file is named relative to the baseline file's own folder, and fingerprints no
longer depend on the working folder (checker.analyses.findings.stable_model), so a baseline
written at the repository root accepts the same findings when the check runs from `spec/` or on
a CI runner's checkout. Format 1 named files as they were typed, relative to the folder the run
started in, and its fingerprints hashed that spelling: it is still read (its files relative to
the working folder, as before) but its fingerprints are ignored, and the run says to refresh it.
"""
from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

from .analyses.expectations import Expectation, apply
from .analyses.findings import MEASURES, Finding, assign_fingerprints
from .files import MAX_BASELINE_BYTES, read_bytes
from .frontend.diagnostics import Code, Diagnostic, SpecError
from .frontend.syntax import Span

FORMAT_KEY, FORMAT_VERSION = "rulewright-baseline", 3
OLD_VERSIONS = (1, 2)  # still read: see the module's docstring


def _file_of(model: str) -> str:
    return model.split(" | ")[0]


def _rest_of(model: str) -> str:
    """The model's name after its file (" | format | reading ..."), "" for a file's only model."""
    path, sep, rest = model.partition(" | ")
    return sep + rest


def _relative(path: str, folder: Path) -> str:
    """`path` relative to `folder`, with / separators: how a baseline names a spec file."""
    return Path(os.path.relpath(Path(path).resolve(), folder.resolve())).as_posix()


def entry(f: Finding, folder: Path = Path(".")) -> dict:
    file = _relative(_file_of(f.model), folder)
    e = {"file": file, "model": file + _rest_of(f.model), "kind": f.kind, "rules": sorted(f.rules),
         "subject": list(f.subject), "fingerprint": f.fingerprint, "instances": len(f.instances or [f.instance])}
    if f.kind in MEASURES:
        e[MEASURES[f.kind]] = f.size
    e["message"] = f.message  # for the person reading the file; not compared
    return e


def render(findings: list[Finding], output: str = "baseline.json") -> str:
    """Every finding a run would fail on or has reviewed (not notes, not unmet expectations), its
    file named relative to the folder of `output` (where the baseline is written)."""
    folder = Path(output).parent
    entries = sorted((entry(f, folder) for f in findings if f.severity != "info" and f.kind != "expectation-unmet"),
                     key=lambda e: (e["file"], e["model"], e["kind"], e["fingerprint"]))
    lines = [json.dumps(e, ensure_ascii=False, sort_keys=False) for e in entries]
    body = ",\n    ".join(lines)
    return ('{\n  "%s": %d,\n  "findings": [\n    %s\n  ]\n}\n' % (FORMAT_KEY, FORMAT_VERSION, body) if lines
            else '{\n  "%s": %d,\n  "findings": []\n}\n' % (FORMAT_KEY, FORMAT_VERSION))


def load(path: str) -> tuple[int, list[tuple[Path, Expectation]]]:
    """(the file's format version, each entry as (the spec file it names, resolved; an
    expectation located at its line of the baseline)). The expectation's model is the entry's
    own; `apply_baseline` renames it after the file as this run names it."""
    def bad(why: str, line: int = 1):
        return SpecError(Diagnostic(Code.UNREADABLE, f"{path} is not a rulewright baseline: {why}",
                                    Span(path, line, 1, line, 1), "write one with `rulewright baseline PATHS -o FILE`"))
    try:  # a regular file, size-capped: a pyproject.toml of the checked tree may name this file
        text = read_bytes(path, MAX_BASELINE_BYTES, f"the baseline {path}", "give a file written by "
                          "`rulewright baseline`, a regular file of at most 16 MiB").decode("utf-8")
        doc = json.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(Diagnostic(Code.UNREADABLE, f"cannot read the baseline {path}: {exc}", Span(path, 0, 0, 0, 0),
                                   "give a file written by `rulewright baseline`"))
    except json.JSONDecodeError as exc:
        raise bad(f"{exc.msg}", exc.lineno)
    version = doc.get(FORMAT_KEY) if isinstance(doc, dict) else None
    if version not in (FORMAT_VERSION, *OLD_VERSIONS) or not isinstance(doc.get("findings"), list):
        raise bad(f'it needs "{FORMAT_KEY}": {FORMAT_VERSION} and a "findings" list')
    folder = Path(path).parent if version != 1 else Path(".")  # format 1: the working folder
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
            model = str(e["model"])
            file = (folder / str(e.get("file") or _file_of(model))).resolve()
            out.append((file, Expectation(model, str(kind), tuple(map(str, e.get("rules", ()))),
                                          tuple(map(str, e.get("subject", ()))), tuple(measures),
                                          str(fp) if version == FORMAT_VERSION else "",
                                          f"accepted in the baseline {path}", Span(path, line, 1, line, 1),
                                          "baseline entry")))
        except (KeyError, TypeError, ValueError, OSError) as exc:
            raise bad(f"finding {i + 1} lacks or garbles {exc}", line)
    return version, out


def apply_baseline(res, path: str) -> list[str]:
    """Accept what the baseline lists among the findings of the files this run checked; its
    entries for those files that no finding meets are `expectation-unmet` findings, unless their
    model was not checked to its end (a limit, an interrupt, a part selected): those are not
    checked, as the missing findings may just not have been looked for. Returns warnings for
    the person running it (an old format)."""
    version, loaded = load(path)
    checked: dict[Path, str] = {}  # each file this run checked, resolved -> as the run names it
    for f in res.files:
        checked.setdefault(Path(f).resolve(), f)
    entries = [replace(e, model=checked[file] + _rest_of(e.model)) for file, e in loaded if file in checked]
    unchecked = dict(res.unchecked_models)
    if res.interrupted:
        unchecked.update((e.model, "the run was interrupted") for e in entries if e.model not in unchecked)
    for model in res.left_out_models:  # a part selected on purpose says nothing of the rest
        unchecked.setdefault(model, "")
    unmet, not_checked = apply(res.findings, entries, unchecked)
    assign_fingerprints(unmet)
    res.findings.extend(unmet)
    res.not_checked.extend(nc for nc in not_checked if nc.why)
    if version == 1:
        return [f"{path} is a baseline of format {version}: its fingerprints depended on the folder the run "
                f"started in and are ignored; refresh it with `rulewright baseline PATHS -o {path}`"]
    if version == 2:
        return [f"{path} is a baseline of format {version}: its fingerprints hashed the rules each finding "
                f"cited and are ignored; refresh it with `rulewright baseline PATHS -o {path}`"]
    return []
