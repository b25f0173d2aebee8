"""Nothing lost or garbled in the outputs (issue 8): ITF file names unique and stable, SARIF URIs
percent-encoded, DOT strings escaped, and lasso traces in ITF as ADR-015 reads them."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from checker import engine
from checker.cli import itf_name, main
from checker.outputs import report
from checker.outputs.trace import narrative, to_itf

ROOT = Path(__file__).resolve().parent.parent
TWO_INVARIANTS = """\
players 2
var x: 0..3 = 0
invariant below_two: x < 2
invariant below_three: x < 3
action up when x < 3 do x := x + 1; end
"""


# ---------------------------------------------------------------- ITF file names

def test_two_untagged_invariants_give_two_itf_files(tmp_path, capsys):
    (tmp_path / "inv.rw").write_text(TWO_INVARIANTS)
    out = tmp_path / "traces"
    assert main(["check", str(tmp_path / "inv.rw"), "--itf", str(out)]) == 1
    capsys.readouterr()
    files = sorted(p.name for p in out.glob("*.itf.json"))
    traced = [f for f in engine.check([str(tmp_path / "inv.rw")]).findings if f.trace]
    assert len(traced) >= 3 and len(files) == len(traced)  # both invariants and the deadlock at x = 3
    described = {json.loads((out / f).read_text())["#meta"]["description"] for f in files}
    assert {"invariant: invariant `below_two` does not hold", "invariant: invariant `below_three` does not hold"} <= described


def test_itf_names_are_stable_across_runs_and_readable():
    a = [itf_name(f) for f in engine.check(["tests/specs/ring_departed_turn.rw"]).findings if f.trace]
    b = [itf_name(f) for f in engine.check(["tests/specs/ring_departed_turn.rw"]).findings if f.trace]
    assert a == b and len(set(a)) == len(a)
    assert all(re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9._-]*-[0-9a-f]{12}(-[0-9]+)?\.itf\.json", n) for n in a)
    assert any("deadlock-1.3-1.2" in n for n in a)


# ---------------------------------------------------------------- SARIF URIs

def test_sarif_uris_are_percent_encoded_and_relative_paths_stay_relative(tmp_path, monkeypatch, capsys):
    shutil.copy(ROOT / "tests/specs/ring_departed_turn.rw", tmp_path / "dead lock#1.rw")
    monkeypatch.chdir(tmp_path)
    main(["check", "dead lock#1.rw", "--format", "sarif"])
    doc = json.loads(capsys.readouterr().out)
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"]
            for r in doc["runs"][0]["results"] for loc in r["locations"]}
    assert uris == {"dead%20lock%231.rw"}
    # an absolute path inside the folder the run is in stays relative to it (repository-relative)
    main(["check", str(tmp_path / "dead lock#1.rw"), "--format", "sarif"])
    doc = json.loads(capsys.readouterr().out)
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"]
            for r in doc["runs"][0]["results"] for loc in r["locations"]}
    assert uris == {"dead%20lock%231.rw"}
    # a file outside it keeps its absolute file:// URI
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    main(["check", str(tmp_path / "dead lock#1.rw"), "--format", "sarif"])
    doc = json.loads(capsys.readouterr().out)
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"]
            for r in doc["runs"][0]["results"] for loc in r["locations"]}
    assert uris == {"file://" + str(tmp_path).replace(" ", "%20") + "/dead%20lock%231.rw"}


def test_uri_keeps_folders_and_encodes_the_rest():
    assert report.uri("spec/a b/c#d?.rw") == "spec/a%20b/c%23d%3F.rw"
    assert report.uri("/abs/x%y.rw") == "file:///abs/x%25y.rw"


# ---------------------------------------------------------------- DOT

_STRING = r'"(?:[^"\\]|\\.)*"'
_LINE = re.compile(rf"""(?x)
    digraph\ {_STRING}\ \{{ | \ \ rankdir=LR; | \ \ node\ \[shape=box,\ fontsize=9\]; | \}}
  | \ \ s\d+\ \[label={_STRING}(,\ style=bold)?(,\ peripheries=2)?\];
  | \ \ s\d+\ ->\ s\d+\ \[label={_STRING}(,\ style=dashed)?\];""")


@pytest.mark.parametrize("folder", ['we"ird', "back\\slash", "ends with\\", "new\nline"])
def test_dot_output_is_valid_whatever_the_path(tmp_path, capsys, folder):
    where = tmp_path / folder
    where.mkdir()
    shutil.copy(ROOT / "tests/specs/ring_departed_turn.rw", where / "a.rw")
    assert main(["graph", str(where / "a.rw")]) == 0
    dot = capsys.readouterr().out
    bad = [line for line in dot.splitlines() if not _LINE.fullmatch(line)]
    assert bad == []
    name = re.match(rf"digraph ({_STRING})", dot)[1]
    shown = re.sub(r"\\(.)", r"\1", name[1:-1])  # what a DOT reader takes the name to be
    assert shown == str(where / "a.rw").replace("\n", "n")


# ---------------------------------------------------------------- ITF lassos (ADR-015)

def _lassos():
    res = engine.check(["tests/fixtures/forced-loop/defect.rw", "tests/fixtures/livelock/defect.rw",
                        "tests/fixtures/starvation/defect.rw"])
    return [f for f in res.findings if f.loop_start is not None]


def test_an_itf_lasso_ends_before_the_state_it_loops_back_to():
    lassos = _lassos()
    assert {f.kind for f in lassos} == {"forced-loop", "livelock", "starvation"}
    for f in lassos:
        doc = to_itf(f)
        states = doc["states"]
        # the last step of the trace leads back to the state at loop_start: it is no state of its own
        assert len(states) == len(f.trace) - 1 and doc["loop"] == f.loop_start < len(states)
        assert dict(f.trace[-1].state) == dict(f.trace[f.loop_start].state)
        assert [s["#meta"]["index"] for s in states] == list(range(len(states)))
        closing = doc["#meta"]["loop-action"]
        assert closing["action"] == f.trace[-1].action and closing["rules"] == list(f.trace[-1].rules)
        # the narrative tells the same: the last numbered step, then where it leads back to
        last = len(f.trace) - 1
        assert narrative(f).splitlines()[-1].strip().startswith(f"back to the state of step {f.loop_start}: ")
        assert f"  {last}. " in narrative(f) and f"  {last + 1}. " not in narrative(f)


def test_committed_itf_lassos_do_not_repeat_their_loop_state():
    files = [p for p in (ROOT / "counterexamples").rglob("*.itf.json") if "loop" in json.loads(p.read_text())]
    assert files
    for path in files:
        doc = json.loads(path.read_text())
        strip = [{k: v for k, v in s.items() if k != "#meta"} for s in doc["states"]]
        assert doc["loop"] == len(strip) - 1 or strip[-1] != strip[doc["loop"]], path
        assert "loop-action" in doc["#meta"], path
