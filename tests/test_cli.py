"""The command line: exit codes, deterministic output, DOT, coverage, usage errors."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

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
    r = run("check", CLEAN, "--max-states", "20", "--engine", "explicit")  # (auto may decide it in full)
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


# ---------------------------------------------------------------- --itf DIR may hold planted entries

ROOT = Path(__file__).resolve().parent.parent
COLL = "players 2\nvar x: 0..3 = 0\naction a progress when x < 3 do x := x + 1; end\ninvariant x_small: x < 2\n"


def run_in(cwd, *args, timeout=120):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "checker", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=timeout)


def _itf_names(tmp_path) -> list[str]:
    (tmp_path / "coll.rw").write_text(COLL)
    assert run_in(tmp_path, "check", "coll.rw", "--no-replay", "--itf", "probe").returncode == 1
    names = sorted(p.name for p in (tmp_path / "probe").iterdir())
    assert names
    return names


def test_itf_never_writes_through_a_symlink_planted_in_its_folder(tmp_path):
    # S2 of 2026-11-26: the names are deterministic, so a pull request can commit links with them
    names = _itf_names(tmp_path)
    (tmp_path / "out").mkdir()
    for n in names:
        (tmp_path / "out" / n).symlink_to(tmp_path / f"victim_{n}")
    (tmp_path / "kept").write_text("mine\n")
    (tmp_path / "out" / names[0]).unlink()
    (tmp_path / "out" / names[0]).symlink_to(tmp_path / "kept")  # an existing file behind the link, too
    r = run_in(tmp_path, "check", "coll.rw", "--no-replay", "--itf", "out")
    assert r.returncode == 2 and "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert "error[E009]" in r.stderr and "symlink" in r.stderr and "hint:" in r.stderr
    assert not list(tmp_path.glob("victim_*")) and (tmp_path / "kept").read_text() == "mine\n"


@pytest.mark.parametrize("how", ["relative", "absolute", "inside"])
def test_itf_refuses_a_folder_reached_through_a_symlink_before_the_run(tmp_path, how):
    (tmp_path / "coll.rw").write_text(COLL)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "out").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    folder = {"relative": "out", "absolute": tmp_path / "out", "inside": "out/traces"}[how]
    r = run_in(tmp_path, "check", "coll.rw", "--no-replay", "--itf", folder)
    assert r.returncode == 2 and "error[E009]" in r.stderr and "is a symlink" in r.stderr
    assert r.stdout == "", "refused before the run"
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_itf_refuses_a_named_pipe_in_its_folder_without_blocking(tmp_path):
    names = _itf_names(tmp_path)
    (tmp_path / "out").mkdir()
    os.mkfifo(tmp_path / "out" / names[0])
    r = run_in(tmp_path, "check", "coll.rw", "--no-replay", "--itf", "out", timeout=60)
    assert r.returncode == 2 and "a named pipe" in r.stderr and "error[E009]" in r.stderr


def test_itf_replaces_the_files_an_earlier_run_wrote(tmp_path):
    names = _itf_names(tmp_path)
    (tmp_path / "probe" / names[0]).write_text("stale\n")
    assert run_in(tmp_path, "check", "coll.rw", "--no-replay", "--itf", "probe").returncode == 1
    assert json.loads((tmp_path / "probe" / names[0]).read_text())["states"]


# ---------------------------------------------------------------- configuration from the checked tree

DEAD = "players 2\nvar d: bool = false\naction a progress when not d do d := true; end\ninvariant i: not d\n"


def _capped():
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # were /dev/zero read, fail fast, not the machine


def run_capped(cwd, *args, env=None, timeout=30):
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "checker", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=timeout, preexec_fn=_capped)


def _tree(tmp_path, config: str):
    (tmp_path / "s.rw").write_text(DEAD)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n\n[tool.rulewright]\n" + config)


def _refused(r, text: str, where: str = "pyproject.toml:5:1: error[E004]") -> None:
    out = r.stdout + r.stderr
    assert r.returncode == 2, out
    assert where in out and text in out and "hint:" in out, out
    assert "Traceback" not in out and "internal error" not in out


def test_the_configuration_is_not_looked_for_above_the_checkouts_root(tmp_path):
    from checker.config import find_config
    (tmp_path / "pyproject.toml").write_text("[tool.rulewright]\nmax-states = 5\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "spec").mkdir()
    assert find_config(repo / "spec") == (None, {})  # the file above the checkout is not its own
    assert find_config(tmp_path)[0] == tmp_path / "pyproject.toml"


def test_a_pyproject_baseline_outside_the_pyprojects_folder_is_refused_at_its_line(tmp_path):
    # S3 of 2026-11-26: /dev/zero was read until memory ran out
    _tree(tmp_path, 'baseline = "/dev/zero"\n')
    _refused(run_capped(tmp_path, "check", "s.rw"), "leads outside the folder tree")
    (tmp_path / "zero").symlink_to("/dev/zero")
    _tree(tmp_path, 'baseline = "zero"\n')
    _refused(run_capped(tmp_path, "check", "s.rw"), "through a symlink")
    _tree(tmp_path, 'baseline = "../x.json"\n')
    _refused(run_capped(tmp_path, "check", "s.rw"), "leads outside the folder tree")


def test_a_pyproject_baseline_that_is_a_named_pipe_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "ff")
    _tree(tmp_path, 'baseline = "ff"\n')
    _refused(run_capped(tmp_path, "check", "s.rw", timeout=20), "is not a regular file (a named pipe)")


def test_a_baseline_named_on_the_command_line_is_a_regular_file_of_at_most_16_mib(tmp_path):
    (tmp_path / "s.rw").write_text(DEAD)
    os.mkfifo(tmp_path / "ff")
    with open(tmp_path / "big.json", "wb") as fh:
        fh.truncate((16 << 20) + 1)  # sparse: nothing is written
    for name, text in (("/dev/zero", "a character device"), ("ff", "a named pipe"), ("big.json", "larger than 16 MiB")):
        _refused(run_capped(tmp_path, "check", "s.rw", "--no-replay", "--baseline", name, timeout=20), text,
                 f"{name}:0:0: error[E004]")


def test_a_pyproject_that_is_a_symlink_out_of_its_folder_or_a_device_is_refused(tmp_path):
    (tmp_path / "s.rw").write_text(DEAD)
    (tmp_path / "pyproject.toml").symlink_to("/dev/zero")
    _refused(run_capped(tmp_path, "check", "s.rw"), "through a symlink", "pyproject.toml:0:0: error[E004]")
    (tmp_path / "pyproject.toml").unlink()
    os.mkfifo(tmp_path / "pyproject.toml")
    _refused(run_capped(tmp_path, "check", "s.rw", timeout=20), "a named pipe", "pyproject.toml:0:0: error[E004]")


def test_a_pyproject_baseline_is_relative_to_the_pyprojects_folder(tmp_path):
    (tmp_path / "s.rw").write_text(DEAD)
    assert run_capped(tmp_path, "baseline", "s.rw", "--no-replay", "-o", "b.json").returncode == 0
    _tree(tmp_path, 'baseline = "b.json"\n')
    (tmp_path / "sub").mkdir()
    r = run_capped(tmp_path / "sub", "check", str(tmp_path / "s.rw"), "--no-replay", "-q")
    assert r.returncode == 0 and "(2 reviewed)" in r.stdout  # found, read, and its entries name the same file
    r = run_capped(tmp_path, "check", "s.rw", "--no-replay", "-q")
    assert r.returncode == 0 and "(2 reviewed)" in r.stdout


def test_rulewright_no_config_reads_no_pyproject(tmp_path):
    # a CI job that must not let the change it checks choose what is reported
    _tree(tmp_path, 'ignore = ["invariant", "deadlock"]\n')
    assert run_capped(tmp_path, "check", "s.rw", "--no-replay").returncode == 0
    r = run_capped(tmp_path, "check", "s.rw", "--no-replay", env={"RULEWRIGHT_NO_CONFIG": "1"})
    assert r.returncode == 1 and "error[invariant]" in r.stdout


# ---------------------------------------------------------------- the specs an include file belongs to

def _includes(tmp_path):
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "a.rw").write_text('players 2\ninclude "common.rwi"\n')
    (tmp_path / "spec" / "common.rwi").write_text(DEAD.replace("players 2\n", ""))
    (tmp_path / "spec" / "b.rw").write_text("players 2\n")
    (tmp_path / "spec" / "lone.rwi").write_text("var z: bool = false\n")


def test_affected_lists_the_specs_named_and_every_spec_including_a_file_named(tmp_path):
    _includes(tmp_path)
    r = run_in(tmp_path, "affected", "spec/common.rwi", "spec/b.rw", "spec/gone.rwi")
    assert (r.returncode, r.stdout) == (0, "spec/b.rw\nspec/a.rw\n")
    assert run_in(tmp_path / "spec", "affected", "common.rwi").stdout == "a.rw\n"  # --in defaults to the working folder
    assert run_in(tmp_path, "affected", "--in", "spec/a.rw", "x").returncode == 2  # not a folder


def test_affected_refuses_a_path_it_could_not_list_one_per_line(tmp_path):
    _includes(tmp_path)
    (tmp_path / "spec" / "evil\nspec").mkdir()
    (tmp_path / "spec" / "evil\nspec" / "c.rw").write_text('players 2\ninclude "../common.rwi"\n')
    r = run_in(tmp_path, "affected", "spec/common.rwi")
    assert r.returncode == 2 and r.stdout == "" and "line break" in r.stderr


def test_check_includers_in_checks_the_specs_including_a_changed_include_file_not_the_file(tmp_path):
    _includes(tmp_path)
    r = run_in(tmp_path, "check", "--no-replay", "--includers-in", ".", "spec/common.rwi")
    assert r.returncode == 1 and "error[invariant]" in r.stdout and "checked 1 file(s)" in r.stdout
    assert "declares no players" not in r.stdout + r.stderr
    r = run_in(tmp_path, "check", "--no-replay", "--includers-in", ".", "spec/lone.rwi")
    assert r.returncode == 0 and "nothing to check" in r.stderr


@pytest.mark.parametrize("before", [None, "symbolic"])
def test_a_run_in_process_leaves_the_engine_and_symmetry_settings_as_it_found_them(monkeypatch, capsys, before):
    # --engine and --symmetry reach the workers through the environment; a second command in the
    # same process (the tests, the language server) must not inherit the first one's choice
    from checker.cli import main
    for name in ("RULEWRIGHT_ENGINE", "RULEWRIGHT_SYMMETRY"):
        if before is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, before)
    assert main(["check", CLEAN, "--jobs", "1", "--engine", "explicit", "--symmetry", "off"]) == 0
    capsys.readouterr()
    assert os.environ.get("RULEWRIGHT_ENGINE") == before and os.environ.get("RULEWRIGHT_SYMMETRY") == before
