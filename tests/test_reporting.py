"""What a person and a CI pipeline get from `rulewright check` (issue 7): a quiet clean run,
precise baselines (fingerprints, exact `expect`s, findings that grew reported as changed, baseline
files), conventional flags, SARIF that validates against the official 2.1.0 schema and loads in
a SARIF consumer, and JUnit XML."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from bundled import bundled
from checker import engine
from checker.analyses.findings import KINDS
from checker.cli import itf_name, main
from checker.outputs import report

ROOT = Path(__file__).resolve().parent.parent
DEADLOCK = "tests/fixtures/deadlock/defect.rw"
# the OASIS SARIF 2.1.0 schema, errata 01 (JSON Schema draft-04): what code scanning validates an
# upload against. (An older draft of the schema accepted `suppressions[].state`; errata01 wants `status`.)
SCHEMA = json.loads((ROOT / "tests" / "sarif-schema-2.1.0-errata01.json").read_text(encoding="utf-8"))


def sarif_errors(doc: dict) -> list[str]:
    validator = jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    return [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(doc)]


def run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "checker", *args], cwd=cwd, capture_output=True, text=True)


def with_expect(tmp_path, line: str, source: str = DEADLOCK) -> Path:
    """The deadlock fixture with one `expect` line added after its `active` declaration."""
    text = (ROOT / source).read_text(encoding="utf-8")
    text = text.replace("active p [102.1] when turn == p\n", f"active p [102.1] when turn == p\n{line}\n", 1)
    path = tmp_path / "spec.rw"
    path.write_text(text, encoding="utf-8")
    return path


def the_deadlock(path) -> object:
    (f,) = [f for f in engine.check([str(path)]).findings if f.kind == "deadlock"]
    return f


# ---------------------------------------------------------------- a clean run a person reads

@pytest.mark.slow
def test_a_clean_run_of_the_bundled_specs_is_short_and_exits_0():
    r = run("check", "spec/")
    assert r.returncode == 0, r.stdout[-2000:]
    lines = r.stdout.splitlines()
    assert len(lines) < 120
    assert lines[-1] == "result: clean"
    reviewed = [line for line in lines if line.startswith("  ") and re.search(r" [0-9a-f]{12}(-\d+)?: ", line)]
    assert len(reviewed) >= 50
    # each reviewed line cites the write-up of the finding, and no line reads "expected" into a sentence
    assert all("counterexamples/" in line and line.rstrip().endswith(".md") for line in reviewed)
    assert not any("] expected " in line for line in lines)


def test_reviewed_findings_take_one_line_and_v_shows_them_in_full_q_only_the_summary(tmp_path):
    f = the_deadlock(with_expect(tmp_path, ""))  # the same file without the expect: the same fingerprint
    spec = with_expect(tmp_path, f'expect deadlock [117.3d] {f.size} states "see counterexamples/x/priority.md"')
    default = run("check", str(spec))
    assert default.returncode == 0
    (line,) = [x for x in default.stdout.splitlines() if x.startswith("  deadlock")]
    assert f.fingerprint in line and line.endswith("counterexamples/x/priority.md") and "spec.rw:" in line
    assert "counterexample (" not in default.stdout
    verbose = run("check", str(spec), "-v")
    assert "counterexample (" in verbose.stdout and "reviewed: see counterexamples/x/priority.md" in verbose.stdout
    quiet = run("check", str(spec), "-q")
    assert quiet.stdout.splitlines()[0].startswith("checked 1 file(s)") and "deadlock [" not in quiet.stdout


# ---------------------------------------------------------------- fingerprints and exact expects

def test_a_fingerprint_ignores_line_numbers_and_sizes_but_not_rules(tmp_path):
    before = the_deadlock(DEADLOCK)
    moved = tmp_path / "moved.rw"
    moved.write_text("# a comment that moves every line down\n\n" + (ROOT / DEADLOCK).read_text(), encoding="utf-8")
    # same file name for the model: copy the fixture under its own name in another folder
    (tmp_path / "tests/fixtures/deadlock").mkdir(parents=True)
    shutil.copy(moved, tmp_path / DEADLOCK)
    after = subprocess.run([sys.executable, "-m", "checker", "check", DEADLOCK, "--output-format", "json"],
                           cwd=tmp_path, capture_output=True, text=True, env=None)
    (moved_f,) = [f for f in json.loads(after.stdout)["findings"] if f["kind"] == "deadlock"]
    assert moved_f["locations"][0]["line"] != before.spans[0].line
    assert moved_f["fingerprint"] == before.fingerprint


def test_an_expect_with_another_rule_set_does_not_absorb_a_finding_of_the_same_kind(tmp_path):
    spec = with_expect(tmp_path, 'expect deadlock [117.3d, 800.4a] "a different deadlock, reviewed elsewhere"')
    res = engine.check([str(spec)])
    dead = [f for f in res.findings if f.kind == "deadlock"]
    assert dead and not any(f.expected for f in dead)
    assert res.exit_code() == 1


def test_a_baselined_deadlock_with_more_stuck_states_is_reported_as_changed(tmp_path):
    reviewed = the_deadlock(with_expect(tmp_path, ""))
    line = f'expect deadlock [117.3d] {reviewed.size} states 1 instance "see counterexamples/x/priority.md"'
    spec = with_expect(tmp_path, line)
    assert engine.check([str(spec)]).exit_code() == 0
    # an edit that keeps the same deadlock but gives it more stuck states: life totals of 3, not 2
    text = spec.read_text(encoding="utf-8")
    grown = text.replace("var life(p: player) [119.4]: 0..2 = 2", "var life(p: player) [119.4]: 0..3 = 3")
    assert grown != text
    spec.write_text(grown, encoding="utf-8")
    res = engine.check([str(spec)])
    (f,) = [f for f in res.findings if f.kind == "deadlock"]
    assert f.size > reviewed.size and f.fingerprint == reviewed.fingerprint
    assert not f.expected and f"has {f.size} states where {reviewed.size} were reviewed" in f.changed
    assert not any(x.kind == "expectation-unmet" for x in res.findings)  # one report, not two
    assert res.exit_code() == 1
    out = run("check", str(spec)).stdout
    assert "changed since it was reviewed" in out and "1 changed since reviewed" in out


def test_an_expect_can_name_the_declaration_and_the_fingerprint(tmp_path):
    f = the_deadlock(with_expect(tmp_path, ""))
    ok = with_expect(tmp_path, f'expect deadlock fingerprint "{f.fingerprint}"')
    assert engine.check([str(ok)]).exit_code() == 0
    wrong = with_expect(tmp_path, 'expect deadlock fingerprint "000000000000"')
    res = engine.check([str(wrong)])
    (d,) = [x for x in res.findings if x.kind == "deadlock"]
    assert d.changed and "has fingerprint" in d.changed and res.exit_code() == 1


def test_one_expect_accepts_one_finding(tmp_path):
    spec = tmp_path / "inv.rw"
    spec.write_text("players 2\nvar x: 0..3 = 0\ninvariant a: x < 2\ninvariant b: x < 3\n"
                    "expect invariant\n"
                    "action up progress when x < 3 do x := x + 1; end\naction down progress when x > 0 do x := x - 1; end\n",
                    encoding="utf-8")
    res = engine.check([str(spec)])
    inv = [f for f in res.findings if f.kind == "invariant"]
    assert len(inv) == 2 and sum(f.expected for f in inv) == 1 and res.exit_code() == 1


@pytest.mark.parametrize("line, message", [
    ('expect deadlock 3 players', "not measured in `players`"),
    ('expect deadlock 3 states 4 states', "recorded twice"),
    ('expect deadlock fingerprint "xyz"', "is not a fingerprint"),
])
def test_an_expect_that_records_what_its_kind_cannot_have_is_an_error(tmp_path, line, message):
    res = engine.check([str(with_expect(tmp_path, line))])
    assert res.exit_code() == 2 and any(d.code == "E021" and message in d.message for d in res.diagnostics)


# ---------------------------------------------------------------- baseline files

def test_a_baseline_file_accepts_what_it_lists_and_is_deterministic(tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["baseline", DEADLOCK, "-o", str(first)]) == 0
    assert main(["baseline", DEADLOCK, "-o", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()
    entries = json.loads(first.read_text())["findings"]
    assert [e["kind"] for e in entries] == ["deadlock"] and entries[0]["states"] > 0
    assert main(["check", DEADLOCK, "-q"]) == 1
    assert main(["check", DEADLOCK, "-q", "--baseline", str(first)]) == 0
    # an entry that records fewer states than there are: the finding is reported as changed
    doc = json.loads(first.read_text())
    doc["findings"][0]["states"] -= 1
    first.write_text(json.dumps(doc))
    res = engine.check([DEADLOCK])
    from checker.baseline import apply_baseline
    apply_baseline(res, str(first))
    (d,) = [f for f in res.findings if f.kind == "deadlock"]
    assert d.changed and "baseline entry" in d.changed


def test_a_stale_baseline_entry_is_reported(tmp_path, capsys):
    # the baseline names its spec relative to its own folder: a fix made later leaves its entry stale
    spec = tmp_path / "specs" / "defect.rw"
    spec.parent.mkdir()
    shutil.copy(ROOT / DEADLOCK, spec)
    base = tmp_path / "b.json"
    assert main(["baseline", str(spec), "-o", str(base)]) == 0
    assert json.loads(base.read_text())["findings"][0]["file"] == "specs/defect.rw"
    shutil.copy(ROOT / "tests/fixtures/deadlock/twin.rw", spec)
    capsys.readouterr()
    r = run("check", "specs/defect.rw", "--baseline", "b.json", cwd=tmp_path)
    assert r.returncode == 1 and "error[expectation-unmet] baseline entry" in r.stdout


def test_fingerprints_and_baselines_do_not_depend_on_the_working_folder_or_the_spelling_of_a_path(tmp_path):
    tree = tmp_path / "repo" / "spec"
    tree.mkdir(parents=True)
    shutil.copy(ROOT / DEADLOCK, tree / "rules.rw")

    def fingerprints(cwd, path):
        doc = json.loads(run("check", path, "--output-format", "json", cwd=cwd).stdout)
        return sorted(f["fingerprint"] for f in doc["findings"])
    at_root = fingerprints(tmp_path / "repo", "spec/rules.rw")
    assert at_root and at_root == fingerprints(tree, "rules.rw") == fingerprints(tree, "../spec/./rules.rw") \
        == fingerprints(tmp_path, str(tree / "rules.rw"))
    # a baseline written at the root accepts the same findings in a run from spec/ and elsewhere
    assert run("baseline", "spec/rules.rw", "-o", "baseline.json", cwd=tmp_path / "repo").returncode == 0
    assert run("check", "rules.rw", "--baseline", "../baseline.json", cwd=tree).returncode == 0
    assert run("check", "repo/spec", "--baseline", "repo/baseline.json", cwd=tmp_path).returncode == 0


def test_a_baseline_of_the_first_format_is_still_read_without_its_fingerprints(tmp_path):
    spec = tmp_path / "defect.rw"
    shutil.copy(ROOT / DEADLOCK, spec)
    base = tmp_path / "b.json"
    assert main(["baseline", str(spec), "-o", str(base)]) == 0
    doc = json.loads(base.read_text())
    doc["rulewright-baseline"] = 1  # format 1: files as typed, relative to the working folder
    for e in doc["findings"]:
        e["file"], e["model"], e["fingerprint"] = "defect.rw", "defect.rw" + e["model"][len("defect.rw"):], "0123456789ab"
    base.write_text(json.dumps(doc))
    r = run("check", "defect.rw", "--baseline", "b.json", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "baseline of format 1" in r.stderr and "refresh it with `rulewright baseline" in r.stderr


# ---------------------------------------------------------------- flags and configuration

def test_version_select_ignore_and_fail_on():
    assert run("--version").stdout.strip().startswith("rulewright ")
    assert main(["check", DEADLOCK, "-q", "--ignore", "deadlock"]) == 0
    assert main(["check", DEADLOCK, "-q", "--select", "invariant,dead-rule"]) == 0
    assert main(["check", DEADLOCK, "-q", "--select", "deadlock"]) == 1
    dead = "tests/fixtures/dead-rule/defect.rw"  # only a warning
    assert main(["check", dead, "-q"]) == 1
    assert main(["check", dead, "-q", "--fail-on", "error"]) == 0
    r = run("check", DEADLOCK, "--select", "dedlock")
    assert r.returncode == 2 and "did you mean 'deadlock'" in r.stderr


def test_format_still_works_but_says_it_is_deprecated():
    r = run("check", DEADLOCK, "--format", "json")
    assert r.returncode == 1 and json.loads(r.stdout)["tool"] == "rulewright"
    assert "--format is deprecated; use --output-format" in r.stderr


def test_pyproject_sets_defaults_and_the_command_line_wins(tmp_path):
    shutil.copytree(ROOT / "tests/fixtures/deadlock", tmp_path / "specs")
    (tmp_path / "pyproject.toml").write_text('[tool.rulewright]\noutput-format = "json"\nignore = ["deadlock"]\n')
    sub = tmp_path / "sub"
    sub.mkdir()
    r = run("check", "../specs/defect.rw", cwd=sub)  # the nearest pyproject.toml is the parent's
    assert r.returncode == 0 and json.loads(r.stdout)["findings"] == []
    r = run("check", "../specs/defect.rw", "--output-format", "text", "--ignore", "invariant", cwd=sub)
    assert r.returncode == 1 and "error[deadlock]" in r.stdout
    (tmp_path / "pyproject.toml").write_text('[tool.rulewright]\nfail-on = "sometimes"\n')
    r = run("check", "../specs/defect.rw", cwd=sub)
    assert r.returncode == 2 and "fail-on must be one of" in r.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.rulewright]\ncolour = true\n')
    assert "has no setting 'colour'" in run("check", "../specs/defect.rw", cwd=sub).stderr


# ---------------------------------------------------------------- SARIF

def _sarif(*paths) -> dict:
    r = run("check", *paths, "--output-format", "sarif")
    return json.loads(r.stdout)


def test_sarif_validates_against_the_official_schema_and_keeps_reviewed_findings_as_suppressed(tmp_path):
    spec = with_expect(tmp_path, f'expect deadlock [117.3d] "see counterexamples/x/priority.md"')
    shutil.copy(spec, ROOT / "tests" / "_sarif_tmp.rw")
    try:
        f = the_deadlock("tests/_sarif_tmp.rw")
        doc = _sarif("tests/_sarif_tmp.rw", "tests/fixtures/forced-loop/defect.rw", "tests/fixtures/readings-differ/defect.rw")
    finally:
        (ROOT / "tests" / "_sarif_tmp.rw").unlink()
    assert sarif_errors(doc) == []
    run_ = doc["runs"][0]
    results = run_["results"]
    (dead,) = [r for r in results if r["ruleId"] == "deadlock"]
    assert dead["suppressions"] == [{"kind": "inSource", "status": "accepted",
                                     "justification": "see counterexamples/x/priority.md"}]
    assert dead["partialFingerprints"] == {"rulewright/v1": f.fingerprint}
    # one thread flow location per step of the counterexample, each located in the spec, and
    # one level down what else the step ran; the deadlock says what blocks whom
    (flow,) = dead["codeFlows"][0]["threadFlows"]
    assert len([loc for loc in flow["locations"] if loc["nestingLevel"] == 0]) == len(f.trace)
    assert [loc["executionOrder"] for loc in flow["locations"]] == list(range(1, len(flow["locations"]) + 1))
    assert [loc["message"]["text"] for loc in dead["relatedLocations"]] == [b.text(place=False) for b in f.blocked if b.span]
    assert all(loc["location"]["physicalLocation"]["artifactLocation"]["uri"] for loc in flow["locations"])
    # every result has a location (no location-less notes), relative to the repository
    assert all(r["locations"] for r in results)
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"] for r in results for loc in r["locations"]}
    assert all(not u.startswith(("/", "file:")) for u in uris)
    assert {loc["physicalLocation"]["artifactLocation"].get("uriBaseId") for r in results for loc in r["locations"]} == {"SRCROOT"}
    assert "SRCROOT" in run_["originalUriBaseIds"]
    rule_ids = [r["id"] for r in run_["tool"]["driver"]["rules"]]
    assert rule_ids[:len(KINDS)] == list(KINDS)
    assert all(rule_ids[r["ruleIndex"]] == r["ruleId"] for r in results)


@pytest.mark.slow
def test_sarif_of_the_bundled_specs_with_their_reviewed_findings_is_valid_sarif():
    # the bundled specs have `expect`s (suppressions), counterexamples (code flows) and fingerprints
    doc = json.loads(report.as_sarif(bundled()))  # what `check spec/ --output-format sarif` prints
    assert sarif_errors(doc) == []
    results = doc["runs"][0]["results"]
    assert any(r.get("suppressions") for r in results) and any(r.get("codeFlows") for r in results)
    assert doc["runs"][0]["invocations"][0]["executionSuccessful"] is True


def test_sarif_of_a_run_not_checked_to_its_end_says_so_and_is_valid(tmp_path):
    path = tmp_path / "s.rw"
    path.write_text("players 2\nvar x: 0..1000 = 0\naction inc progress when x < 1000 do x := x + 1; end\n"
                    "outcome fin: draw when x == 1000\ninvariant below: x < 900\n"
                    'expect invariant on below "reviewed"\n', encoding="utf-8")
    # (the explorer alone: the symbolic engine would spend its time on a question it cannot decide)
    doc = json.loads(run("check", str(path), "--output-format", "sarif", "--max-states", "100",
                         "--engine", "explicit").stdout)
    assert sarif_errors(doc) == []
    (invocation,) = doc["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 3
    texts = [n["message"]["text"] for n in invocation["toolExecutionNotifications"]]
    assert any(t.startswith("incomplete: ") and "state limit of 100 reached" in t for t in texts), texts
    assert any(t.startswith("not checked: expect `invariant on below`") for t in texts), texts
    assert not doc["runs"][0]["results"]  # the unmet expectation is no result: nobody knows if it is met


def test_sarif_loads_in_a_sarif_consumer(tmp_path):
    from sarif import loader
    path = tmp_path / "out.sarif"
    path.write_text(json.dumps(_sarif(DEADLOCK, "tests/fixtures/invariant/defect.rw")))
    log = loader.load_sarif_file(str(path))
    assert log.get_result_count() >= 2
    assert "deadlock" in {r["ruleId"] for r in log.get_results()}


# ---------------------------------------------------------------- JUnit

def test_junit_has_a_failure_per_unexpected_finding_and_is_deterministic():
    a = run("check", DEADLOCK, "tests/fixtures/deadlock/twin.rw", "--output-format", "junit")
    b = run("check", DEADLOCK, "tests/fixtures/deadlock/twin.rw", "--output-format", "junit")
    assert a.returncode == 1 and a.stdout == b.stdout
    root = ET.fromstring(a.stdout)
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {DEADLOCK, "tests/fixtures/deadlock/twin.rw"}
    failures = [c for c in suites[DEADLOCK].iter("testcase") if c.find("failure") is not None]
    assert [c.find("failure").get("type") for c in failures] == ["deadlock"]
    assert all(c.find("failure") is None for c in suites["tests/fixtures/deadlock/twin.rw"].iter("testcase"))
    assert int(root.get("failures")) == 1


# ---------------------------------------------------------------- small defects

def test_graph_into_a_closed_pipe_ends_quietly():
    p = subprocess.Popen(f"{sys.executable} -m checker graph {DEADLOCK} | head -1", shell=True, cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=120)
    assert out.startswith("digraph") and "BrokenPipeError" not in err and "internal error" not in err


def test_itf_names_are_never_hidden_files(tmp_path):
    folder = tmp_path / "a" / "b"
    folder.mkdir(parents=True)
    shutil.copy(ROOT / DEADLOCK, tmp_path / "a" / "spec.rw")
    r = run("check", "../spec.rw", "--itf", "../traces", cwd=folder)
    assert r.returncode == 1
    names = [p.name for p in (tmp_path / "a" / "traces").iterdir()]
    assert names and not any(n.startswith(".") for n in names)
    f = the_deadlock(DEADLOCK)
    assert itf_name(f).endswith(f"-{f.fingerprint}.itf.json")


def test_docs_list_exactly_the_finding_kinds():
    checks = (ROOT / "docs" / "checks.md").read_text(encoding="utf-8")
    table = checks.split("## Kinds", 1)[1].split("\n\n", 2)[1]
    listed = [k.strip() for row in table.splitlines()[2:] for k in row.split("|")[1].split(",")]
    assert sorted(listed) == sorted(KINDS)
    language = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    named = re.search(r"The finding kinds: (.*?)\.", language, re.S)
    assert named, "docs/language.md names the finding kinds in one sentence"
    assert sorted(re.findall(r"`([a-z-]+)`", named[1])) == sorted(KINDS)


# an instance the explorer cannot finish within 100 states: the symbolic engine decides it, and
# proves that P2 never wins (docs/checks.md, "The symbolic engine")
COUNTING = """players 2
var x: 0..1000 = 0
action tick progress when x < 1000 do x := x + 1; end
action leap progress when x <= 900 do x := x + 100; end
outcome first: win player p when x == 1000 and p == P1
outcome other: lose player p when x == 1000 and p != P1
"""


@pytest.fixture(scope="module")
def handed_over(tmp_path_factory):
    path = tmp_path_factory.mktemp("handed") / "counting.rw"
    path.write_text(COUNTING, encoding="utf-8")
    res = engine.check([str(path)], engine.Limits(max_states=100))
    assert res.instances[0].decisions, res.incomplete
    return res


@pytest.mark.slow  # the symbolic engine's whole run (4 s), as the next
def test_every_output_says_which_engine_decided_a_finding_and_what_the_symbolic_engine_decided(handed_over):
    never = next(f for f in handed_over.findings if f.kind == "unreachable-outcome")
    assert "P2 can never win" in never.message
    assert report.finding_json(never)["engine"] == "symbolic (Spacer)"
    doc = json.loads(report.as_sarif(handed_over))
    assert sarif_errors(doc) == []
    (result,) = [r for r in doc["runs"][0]["results"] if r["ruleId"] == "unreachable-outcome"]
    assert result["properties"]["engine"] == "symbolic (Spacer)"
    invocation = doc["runs"][0]["invocations"][0]
    assert {"check": "unreachable-outcome", "subject": "P2 wins", "verdict": "proved"}.items() <= \
        next(d for d in invocation["properties"]["decisions"] if d["subject"] == "P2 wins").items()
    assert any(n["level"] == "note" and n["message"]["text"].startswith("decided: ")
               for n in invocation["toolExecutionNotifications"])
    from checker.outputs import html
    assert "decided: " in html.render(handed_over) and "unreachable-outcome (P2 wins): from " in html.render(handed_over)


def test_the_explorers_own_findings_name_it_as_their_engine():
    res = engine.check([DEADLOCK])
    assert {report.finding_json(f)["engine"] for f in res.findings} == {"explicit"}


@pytest.mark.slow
def test_the_language_server_says_what_the_symbolic_engine_decided(tmp_path):
    from checker.lsp.problems import check_problems
    path = tmp_path / "counting.rw"
    path.write_text(COUNTING, encoding="utf-8")
    problems = check_problems(str(path), limits=engine.Limits(max_states=100))
    decided = [p for p in problems if p.code == "decided"]
    assert len(decided) == 1 and decided[0].severity == "info"
    assert decided[0].message.startswith("decided: ") and "unreachable-outcome (P2 wins)" in decided[0].message
