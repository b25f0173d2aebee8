"""The committed counterexamples stay true: every ITF file under counterexamples/ is what the
checker prints today for the finding it records, byte for byte.

Each file's "#meta" names its instance and its "kind: message"; the test finds that finding in
a run over spec/ and compares the trace it writes now. After a deliberate change, regenerate with
    UPDATE_ITF=1 .venv/bin/python -m pytest tests/test_counterexamples.py -q
and review the diff (a changed trace is a changed finding: its write-up may need a word too).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bundled import bundled
from checker.outputs.trace import to_itf

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "counterexamples").rglob("*.itf.json"))


def _dump(doc: dict) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


@pytest.mark.slow  # (a whole `check spec/`, shared with other tests: tests/bundled.py)
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT / "counterexamples")))
def test_a_committed_counterexample_is_what_the_checker_finds_today(path):
    recorded = json.loads(path.read_text(encoding="utf-8"))
    meta = recorded["#meta"]
    matches = [f for f in bundled().findings if f.trace and f"{f.kind}: {f.message}" == meta["description"]
               and meta["source"] in (f.instances or [f.instance])]
    assert matches, f"no finding today matches {meta['description']!r} in {meta['source']}"
    now = _dump(to_itf(matches[0]))
    if os.environ.get("UPDATE_ITF") and now != path.read_text(encoding="utf-8"):
        path.write_text(now, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == now
