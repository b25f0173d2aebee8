"""The command line: exit codes, deterministic output, DOT, coverage, usage errors."""
import json
import subprocess
import sys

CLEAN = "tests/specs/ring_clean.rw"
DEFECT = "tests/specs/ring_departed_turn.rw"


def run(*args):
    return subprocess.run([sys.executable, "-m", "checker", *args], capture_output=True, text=True)


def test_a_clean_spec_exits_0():
    r = run("check", CLEAN)
    assert r.returncode == 0, r.stdout
    assert "result: clean" in r.stdout


def test_a_spec_with_a_finding_exits_1_and_shows_a_replayed_trace():
    r = run("check", DEFECT)
    assert r.returncode == 1
    assert "error[deadlock]" in r.stdout
    assert "Z3 replay: confirmed" in r.stdout
    assert "rules: 1.3, 1.2" in r.stdout


def test_hitting_the_state_limit_exits_3_and_says_incomplete():
    r = run("check", CLEAN, "--max-states", "20")
    assert r.returncode == 3
    assert "incomplete" in r.stdout and "state limit of 20 reached" in r.stdout


def test_usage_errors_exit_2_without_a_traceback():
    for args in (["check"], ["frobnicate"], ["check", "--format", "xml", CLEAN], ["check", "no/such/file.rw"]):
        r = run(*args)
        assert r.returncode == 2, args
        assert "Traceback" not in r.stderr + r.stdout


def test_json_output_is_byte_identical_across_runs_and_carries_itf():
    a, b = run("check", DEFECT, "--format", "json"), run("check", DEFECT, "--format", "json")
    assert a.stdout == b.stdout
    doc = json.loads(a.stdout)
    assert doc["exit_code"] == 1
    (finding,) = [f for f in doc["findings"] if f["kind"] == "deadlock"]
    trace = finding["trace"]
    assert trace["#meta"]["format"] == "ITF"
    assert trace["vars"][:2] == ["turn", "life"]
    assert trace["states"][0]["life"] == {"#map": [["P1", {"#bigint": "1"}], ["P2", {"#bigint": "1"}], ["P3", {"#bigint": "1"}]]}


def test_text_output_is_byte_identical_across_runs():
    assert run("check", DEFECT).stdout == run("check", DEFECT).stdout


def test_itf_files_are_written(tmp_path):
    run("check", DEFECT, "--itf", str(tmp_path))
    files = sorted(tmp_path.glob("*.itf.json"))
    assert files
    assert json.loads(files[0].read_text())["states"]


def test_graph_prints_dot_with_actions_and_rules():
    r = run("graph", DEFECT)
    assert r.returncode == 0
    assert r.stdout.startswith('digraph "')
    assert "hit(q=P2) [1.3, 1.2]" in r.stdout
    assert "style=dashed" in r.stdout  # leave moves are drawn dashed


def test_coverage_lists_missing_ids(tmp_path):
    spec = tmp_path / "c.rw"
    spec.write_text('spec "C" formalizes "c.txt"\ndocument { 1 2 3 }\nplayers [1] 2\nout_of_scope [2] "not game logic"\n')
    r = run("coverage", str(spec))
    assert r.returncode == 1
    assert "ids: 3  formalized: 1  out of scope: 1  missing: 1" in r.stdout
    assert "missing: 3" in r.stdout


def test_kinds_lists_every_finding_kind():
    r = run("kinds")
    assert r.returncode == 0 and "starvation" in r.stdout and "contradiction" in r.stdout


def test_sarif_output_locates_each_finding():
    r = run("check", DEFECT, "--format", "sarif")
    assert r.returncode == 1
    doc = json.loads(r.stdout)
    assert doc["version"] == "2.1.0"
    (result,) = [x for x in doc["runs"][0]["results"] if x["ruleId"] == "deadlock"]
    loc = result["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == DEFECT and loc["region"]["startLine"] >= 1
