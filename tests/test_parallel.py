"""Parallel and partial runs (issue 9): instances checked in worker processes or on a Dask
cluster give the report of a run in one process, byte for byte; the run's time limit is shared
fairly; --only and --param check a part; the progress line never reaches a pipe."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bundled import LIMITS, SPECS, bundled
from checker import engine, runner
from checker.cli import main
from checker.limits import Limits
from checker.outputs import report
from checker.progress import Progress, wanted
from checker.analyses.verdicts import CONFIRMED
from checking import report_differences

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_FOLDERS = sorted(p for p in (ROOT / "tests" / "fixtures").iterdir() if p.is_dir())


def as_json(paths, **options) -> str:
    # time enough that a loaded machine cannot make one side incomplete and not the other
    return report.as_json(engine.check([str(p) for p in paths], Limits(max_seconds=3600), **options))


# ---------------------------------------------------------------- one worker or many: one report

@pytest.mark.slow
@pytest.mark.parametrize("folder", FIXTURE_FOLDERS, ids=lambda p: p.name)
def test_one_worker_and_two_give_the_same_report(folder):
    paths = sorted(folder.glob("*.rw"))
    one, two = as_json(paths, jobs=1), as_json(paths, jobs=2)
    assert report_differences(one, two) == []  # (where they differ, briefly: a CI log keeps the end)
    assert two == one


@pytest.mark.slow
def test_one_worker_and_two_give_the_same_report_of_the_bundled_specs():
    one, two = report.as_json(bundled(jobs=1)), report.as_json(bundled(jobs=2))
    assert report_differences(one, two) == []
    assert two == one


def test_the_cli_report_is_byte_identical_with_one_and_two_workers():
    # two files, six instances: the pool is used, and nothing but the report reaches stdout
    args = [sys.executable, "-m", "checker", "check", "tests/fixtures/readings-differ", "tests/specs/ring_clean.rw",
            "--output-format", "json"]
    one = subprocess.run(args + ["--jobs", "1"], capture_output=True, text=True, cwd=ROOT)
    two = subprocess.run(args + ["--jobs", "2"], capture_output=True, text=True, cwd=ROOT)
    assert one.stdout and one.stdout == two.stdout and one.returncode == two.returncode
    assert one.stderr == two.stderr == ""  # no progress line on a pipe


@pytest.mark.slow
def test_a_dask_cluster_gives_the_report_of_one_process():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        on_cluster = report.as_json(engine.check(list(SPECS), LIMITS, cluster=cluster.scheduler_address))
    alone = report.as_json(bundled(jobs=1))
    assert report_differences(on_cluster, alone) == []
    assert on_cluster == alone


def test_without_dask_cluster_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails as if it were not installed
    assert main(["check", "tests/specs/ring_clean.rw", "--cluster", "tcp://127.0.0.1:8786"]) == 2
    assert "pip install 'rulewright[cluster]'" in capsys.readouterr().err


def test_a_malformed_cluster_address_is_bad_input(capsys):
    pytest.importorskip("distributed")
    assert main(["check", "tests/specs/ring_clean.rw", "--cluster", "nowhere:://x"]) == 2
    assert "not a Dask scheduler address: nowhere:://x" in capsys.readouterr().err


def test_a_worker_refuses_an_instance_its_file_no_longer_gives(tmp_path):
    path = tmp_path / "s.rw"
    path.write_text("param N in 2..3\nplayers N\nvar x: 0..1 = 0\naction a progress when x == 0 do x := 1; end\n")
    (inst, _) = engine.load_instances(str(path))
    task = engine.Task(str(path), str(tmp_path), os.getcwd(), 0, inst.label, "not the digest", Limits(), "", True)
    outcome = engine.run_task(task)
    assert outcome.instance is None and outcome.findings == []
    assert "reads differently in the worker (edited during the run" in outcome.incomplete[0]


def _exit_in_worker(task):
    if task.index == 1:
        os._exit(9)  # a worker killed from outside (the kernel's OOM killer, say)
    return engine.run_task(task)


def test_an_instance_whose_worker_dies_is_incomplete_and_the_others_are_kept(tmp_path):
    path = tmp_path / "s.rw"
    path.write_text("param N in 2..5\nplayers N\nvar x: 0..1 = 0\ninvariant never: x == 0\n"
                    "action a progress when x == 0 do x := 1; end\n")
    plan = engine.front_end([str(path)], engine.Result())[0]
    digest = engine.spec_digest(plan.spec)
    outcomes, missed = {}, {}

    def make_task(k, share):
        return engine.Task(str(path), str(tmp_path), os.getcwd(), k, plan.instances[k].label, digest,
                           Limits(max_seconds=share.seconds), share.why, True)
    runner.run([i.label for i in plan.instances], make_task, None, _exit_in_worker, outcomes.__setitem__,
               missed.__setitem__, Limits(), jobs=2)
    assert set(outcomes) | set(missed) == {0, 1, 2, 3} and 1 in missed and 0 in outcomes
    assert missed[1].startswith("not checked: the worker process checking it stopped")
    assert all(o.findings and o.findings[0].replay == CONFIRMED for o in outcomes.values())


# ---------------------------------------------------------------- the run's time, shared fairly

def test_an_instance_gets_the_cpu_time_left_over_the_instances_not_started_and_gets_back_what_others_leave():
    shares = runner.Shares(Limits(max_seconds=60), slots=2, memory=1000)  # 120 CPU seconds in all
    first = shares.next(waiting=6)
    assert first.seconds == 20 and "its share (20s) of the run's time limit of 60s ran out" == first.why
    assert shares.next(waiting=4, running=1).seconds == 25  # (120 - 20) / 4: the running one holds its 20
    shares.settle(first, used=5)  # done early: 15 back to the run
    last = shares.next(waiting=1, running=1)  # 90 left, but one instance never gets more than the limit
    assert last.seconds == 60 and last.why == "time limit of 60s reached" and last.memory == 1000
    assert last.wall <= 180  # the wall-clock bound: three times the limit by default


def test_no_instance_starts_once_the_runs_cpu_time_or_wall_clock_is_spent():
    shares = runner.Shares(Limits(max_seconds=10), slots=1, memory=1000)
    shares.settle(shares.next(waiting=1), used=10)
    assert shares.next(waiting=1) is None and shares.spent_why == "the run's time limit of 10s was spent"
    shares = runner.Shares(Limits(max_seconds=10, max_wall_seconds=5), slots=1, memory=1000)
    shares.deadline = 0
    assert shares.next(waiting=1) is None and shares.spent_why == "the run's wall-clock bound of 5s passed"


def test_an_instance_cut_short_by_its_share_is_tried_again_with_the_time_the_others_left():
    # ten instances, 100 s: the first gets 10 s and needs 30; the other nine need none
    seen = []

    def run_here(task):
        seen.append((task.position, round(task.limits.max_seconds)))
        return engine.Outcome(short_of_time=task.position == 0 and task.limits.max_seconds < 30)
    outcomes = {}
    runner.run([f"i{k}" for k in range(10)], lambda k, share: engine.Task("", "", "", k, "", "", Limits(
        max_seconds=share.seconds), share.why, True, position=k), run_here, None, outcomes.__setitem__, None,
        Limits(max_seconds=100), jobs=1)
    assert seen[0] == (0, 10) and seen[-1] == (0, 100) and len(seen) == 11
    assert not outcomes[0].short_of_time  # the second outcome replaced the first


# ---------------------------------------------------------------- a part of a spec

READINGS = """\
param N in 2..4
players N
var x: 0..2 = 0
action a progress when x < 2 do x := x + 1; end
format duel {
  reading strict "" { invariant low: x < 2 }
  reading loose "" { invariant low: x < 3 }
}
format melee {
  action b progress when x == 1 do x := 0; end
}
"""


def instances_checked(capsys, *args) -> tuple[int, list[str], str]:
    code = main(["check", "--output-format", "json", "--jobs", "1", *map(str, args)])
    out = capsys.readouterr()
    if code == 2:
        return code, [], out.out + out.err
    import json
    return code, [i["instance"].split(" | ", 1)[1] for i in json.loads(out.out)["instances"]], out.err


def test_only_and_param_check_a_part_of_a_spec(tmp_path, capsys):
    path = tmp_path / "r.rw"
    path.write_text(READINGS)
    assert instances_checked(capsys, path, "--only", "melee")[1] == ["melee | N=2", "melee | N=3", "melee | N=4"]
    assert instances_checked(capsys, path, "--only", "duel/loose", "--param", "N=3")[1] == ["duel | reading loose | N=3"]
    code, got, _ = instances_checked(capsys, path, "--param", "N=2", "--param", "N=4", "--only", "duel")
    assert got == ["duel | reading strict | N=2", "duel | reading strict | N=4",
                   "duel | reading loose | N=2", "duel | reading loose | N=4"]


def test_a_selection_that_matches_nothing_lists_what_there_is(tmp_path, capsys):
    path = tmp_path / "r.rw"
    path.write_text(READINGS)
    code, _, err = instances_checked(capsys, path, "--only", "duel/lenient")
    assert code == 2 and "no instance matches --only duel/lenient" in err
    assert "there are duel/strict (N = 2, 3, 4)" in err and "duel/loose (N = 2, 3, 4)" in err and "melee (N = 2, 3, 4)" in err
    code, _, err = instances_checked(capsys, path, "--param", "N=9")
    assert code == 2 and "no instance matches --param N=9" in err
    with pytest.raises(SystemExit) as exc:
        main(["check", str(path), "--param", "N"])
    assert exc.value.code == 2 and "--param takes NAME=VALUE" in capsys.readouterr().err


def test_a_part_does_not_claim_an_expectation_unmet_by_the_instances_it_left_out(tmp_path, capsys):
    path = tmp_path / "e.rw"
    path.write_text("param N in 2..3\nplayers N\nvar x: 0..1 = 0\nexpect invariant\ninvariant small: N == 2 or x == 0\n"
                    "action a progress when x == 0 do x := 1; end\n")
    main(["check", str(path), "--jobs", "1"])
    out = capsys.readouterr().out
    assert "invariant 1 (1 reviewed)" in out and "expectation-unmet" not in out  # N=3 breaks it, as expected
    main(["check", str(path), "--jobs", "1", "--param", "N=2"])
    out = capsys.readouterr().out
    assert "checked 1 file(s), 1 model(s), 1 instance(s)" in out
    assert "invariant" not in out  # N=2 keeps it; N=3, which breaks it, was not checked


# ---------------------------------------------------------------- progress

class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_is_shown_on_a_terminal_only(monkeypatch):
    monkeypatch.setenv("TERM", "xterm")
    assert wanted(Terminal()) and not wanted(io.StringIO())
    monkeypatch.setenv("TERM", "dumb")
    assert not wanted(Terminal())


def test_the_progress_line_counts_instances_and_states_and_names_the_running_one(tmp_path):
    screen = Terminal()
    progress = Progress(screen)
    path = tmp_path / "s.rw"
    path.write_text("param N in 2..3\nplayers N\nvar x: 0..1 = 0\naction a progress when x == 0 do x := 1; end\n")
    engine.check([str(path)], progress=progress)
    drawn = screen.getvalue()
    assert "rulewright: 0/2 instances  0 states" in drawn and "| N=2 (" in drawn
    assert "rulewright: 2/2 instances  4 states" in drawn
    assert drawn.endswith("\r")  # erased at the end: the report starts on a clean line


class Watching(Progress):
    """Remembers, as each instance finishes, the live count its explorer had reported."""
    def __init__(self, stream):
        super().__init__(stream)
        self.seen: list[int] = []

    def finished(self, k, outcome):
        self.seen.append(int(self.cells[k]) if self.cells is not None else -1)
        super().finished(k, outcome)


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_progress_line_counts_the_states_of_instances_still_running(tmp_path, jobs):
    # 8,192 values of a counter: the explorer reports while it runs (every 4,096 states
    # expanded it says how many it holds), in this process and from worker processes alike
    path = tmp_path / "count.rw"
    path.write_text("param N in {2, 3}\nplayers N\nvar c: 0..8191 = 0\n"
                    "action up progress when c < 8191 do c := c + 1; end\n"
                    "action jump progress when c < 4000 do c := c + 4000; end\n")
    progress = Watching(Terminal())
    engine.check([str(path)], jobs=jobs, progress=progress)
    assert progress.seen and all(seen >= 4096 for seen in progress.seen)


def test_the_progress_line_counts_the_states_of_instances_running_on_a_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    path = tmp_path / "count.rw"
    path.write_text("param N in {2, 3}\nplayers N\nvar c: 0..8191 = 0\n"
                    "action up progress when c < 8191 do c := c + 1; end\n")
    progress = Watching(Terminal())
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as cluster:
        engine.check([str(path)], cluster=cluster.scheduler_address, progress=progress)
    # the counts travel as Dask events, beside the results: they reach the table, if not always
    # before the instance's result does
    assert progress.cells is not None and [int(c) >= 4096 for c in progress.cells] == [True, True]


def test_worker_processes_that_cannot_start_are_a_clear_error(monkeypatch, capsys):
    def no_processes(self, *args, **kwargs):
        raise OSError("fork: Resource temporarily unavailable")
    monkeypatch.setattr(runner.cf.ProcessPoolExecutor, "submit", no_processes)
    assert main(["check", "tests/fixtures/readings-differ", "--jobs", "2"]) == 2
    err = capsys.readouterr().err
    assert "rulewright: error: cannot start worker processes (OSError: fork: Resource" in err and "--jobs 1 checks in this process" in err


# ---------------------------------------------------------------- limits hold in workers

def test_the_watchdog_and_time_limit_hold_in_worker_processes(tmp_path, capsys):
    # three quantifiers nested over a thousand players: only the watchdog (a timer signal in the
    # worker's main thread) can stop the invariant; each worker keeps the deadlock found before
    path = tmp_path / "w.rw"
    path.write_text("param N in {999, 1000}\nplayers N\nvar x: 0..3 = 0\ninvariant i: forall p in players: "
                    "forall q in players: forall r in players: p == q or q != r or true\n"
                    "action a when x < 3 do x := x + 1; end\n")
    from checking import cpu_time
    start = cpu_time()
    code = main(["check", str(path), "--max-seconds", "2", "--jobs", "2"])
    took = cpu_time() - start  # CPU time, as the limit: wall time stretches on a loaded machine
    out = capsys.readouterr().out
    assert code == 1 and "error[deadlock]" in out and "N=999; N=1000" in out
    assert out.count("the checks stopped (") == 2, out
    assert took < 2 * 2 + 3, took  # two workers' 2 s, start-up and the parent's part


_run_task = engine.run_task


def _wrong_left_in_worker(task):
    from checker.symbolic import encode  # a deliberately wrong symbolic `left`, in the worker only
    encode._BUILTIN["left"] = lambda self, e, a, st: (a[0] + a[1] + 1) % self.n
    return _run_task(task)


def test_engines_that_disagree_in_a_worker_still_stop_the_run_with_exit_4(monkeypatch):
    monkeypatch.setattr(engine, "run_task", _wrong_left_in_worker)
    res = engine.check(["tests/fixtures/never-active/play-defect.rw", "tests/specs/ring_clean.rw"], jobs=2)
    assert len(res.instances) == 2
    assert res.disagreements and not any(f.kind == "never-active" for f in res.findings)
    assert res.exit_code() == 4


@pytest.mark.slow
def test_the_memory_limit_is_shared_among_the_workers_and_holds_in_each(tmp_path, capsys):
    path = tmp_path / "g.rw"
    path.write_text("param K in 1..2\nplayers 2\nvar x: 0..999999 = 0\nvar y: 0..999999 = 0\n"
                    "action incx when x < 999999 do x := x + K; end\naction incy when y < 999999 do y := y + 1; end\n")
    code = main(["check", str(path), "--jobs", "2", "--max-states", "100000000", "--max-seconds", "120",
                 "--max-memory", "500", "--engine", "explicit"])  # (the explorer alone: no first stage)
    out = capsys.readouterr().out
    assert code == 3 and out.count("exploration stopped (memory limit of 250 MiB reached)") == 2, out


def test_a_worker_that_parsed_a_file_for_an_earlier_run_reads_it_again_when_it_changed(tmp_path):
    path = tmp_path / "s.rw"
    path.write_text("players 2\nvar x: 0..1 = 0\naction a progress when x == 0 do x := 1; end\n")
    for text in ("", "invariant low: x == 0\n"):  # a cluster worker's child outlives a run
        path.write_text(path.read_text() + text)
        (plan,) = engine.front_end([str(path)], engine.Result())
        task = engine.Task(str(path), str(tmp_path), os.getcwd(), 0, plan.instances[0].label,
                           engine.spec_digest(plan.spec), Limits(), "", True)
        outcome = engine.run_task(task)
        assert outcome.instance is not None
        assert any(f.kind == "invariant" for f in outcome.findings) == bool(text)


@pytest.mark.slow  # (about 20 s: workers started afresh, each checking with the symbolic engine)
def test_a_worker_checks_with_the_engine_the_client_chose_whatever_its_own_environment_says(tmp_path, monkeypatch):
    # a cluster's workers have environments of their own: the task carries --engine and --symmetry
    path = tmp_path / "s.rw"
    path.write_text("players 2\nvar x: 0..300 = 0\naction a progress when x < 300 do x := x + 1; end\n"
                    "outcome done: draw when x == 300\n")
    (plan,) = engine.front_end([str(path)], engine.Result())
    for client, decided in (("explicit", False), ("symbolic", True)):
        monkeypatch.setenv("RULEWRIGHT_ENGINE", client)
        settings = engine.run_settings()
        assert ("RULEWRIGHT_ENGINE", client) in settings and ("RULEWRIGHT_SYMMETRY", "auto") in settings
        monkeypatch.setenv("RULEWRIGHT_ENGINE", "symbolic" if client == "explicit" else "explicit")  # the worker's
        task = engine.Task(str(path), str(tmp_path), os.getcwd(), 0, plan.instances[0].label,
                           engine.spec_digest(plan.spec), Limits(max_states=100), "", True, settings=settings)
        assert bool(engine.run_task(task).instance.decisions) is decided, client


def test_a_part_does_not_claim_a_baseline_entry_unmet_by_the_instances_it_left_out(tmp_path, capsys):
    path = tmp_path / "e.rw"
    path.write_text("param N in 2..3\nplayers N\nvar x: 0..1 = 0\ninvariant small: N == 2 or x == 0\n"
                    "action a progress when x == 0 do x := 1; end\n")
    base = tmp_path / "b.json"
    assert main(["baseline", str(path), "-o", str(base)]) == 0  # N=3 breaks the invariant
    assert main(["check", str(path), "--jobs", "1", "--baseline", str(base)]) == 0
    capsys.readouterr()
    assert main(["check", str(path), "--jobs", "1", "--param", "N=2", "--baseline", str(base)]) == 0
    out = capsys.readouterr().out
    assert "expectation-unmet" not in out and "not checked" not in out
