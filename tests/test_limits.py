"""Limits everywhere (issue 8): the state, time and memory limits stop every phase of an
instance (setup enumeration, one state's successors, the checks, the Z3 contradiction check
and replay), a limit hit is "incomplete" (exit 3) with what was reached and never an internal
error, and limit arguments are validated. Small limits keep these tests fast."""
from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from checker import engine
from checker.analyses.checks import run_checks_within
from checker.analyses.replay import replay_within
from checker.analyses.verdicts import Replay
from checker.cli import main
from checker.explicit.explore import explore
from checker.explicit.compiled import CompiledMachine
from checker.explicit.machine import Machine
from checker.frontend.instances import MAX_PLAYERS
from checker.limits import Budget, LimitHit, Limits, default_memory_mib, rss_mib, watchdog

from checking import burn_cpu, cpu_time

# a turn-based duel among N players: one state has N*(N-1) bindings, each resolving outcomes for
# every player against every opponent, so with N = 200 one state takes about half a second
MELEE = """\
players {n}
var turn: player = P1
var life(p: player): 0..2 = 2
action hit(p: player, q: player) progress when p == turn and q != p and in_game(q) do
  life[q] := life[q] - 1;
  turn := next_in_game(turn);
end
outcome dead: lose player p when life[p] <= 0
outcome last: win player p when in_game(p) and forall q in opponents(p): lost(q)
active p when turn == p
"""


def spec(tmp_path: Path, text: str, name: str = "s.rw") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# The wall-clock bound (three times --max-seconds) is what stops a run on a machine so loaded
# that it gets less than a third of a core; these tests are about the CPU limit, so they set the
# bound far off and hold whatever else runs beside them.
FAR = ["--max-wall-seconds", "600"]


def run(capsys, *args) -> tuple[int, str, float]:
    """(exit code, output, CPU seconds it took)"""
    start = cpu_time()
    code = main(["check", *map(str, args), *(FAR if "--max-seconds" in args else [])])
    took = cpu_time() - start
    out = capsys.readouterr()
    text = out.out + out.err
    assert "internal error" not in text and "Traceback" not in text, text
    return code, text, took


def states_reached(text: str) -> int:
    m = re.search(r"after ([\d,]+) states", text)
    assert m, text
    return int(m[1].replace(",", ""))


# ---------------------------------------------------------------- arguments

@pytest.mark.parametrize("option", ["--max-states", "--max-seconds", "--max-memory"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-1", "many"])
def test_a_limit_must_be_a_finite_number_above_zero(capsys, option, value):
    with pytest.raises(SystemExit) as exc:
        main(["check", "tests/specs/ring_clean.rw", f"{option}={value}"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}: {option} must be" in err and "Traceback" not in err


def test_the_graph_command_validates_its_limits_too(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["graph", "tests/specs/ring_clean.rw", "--max-seconds", "nan"])
    assert exc.value.code == 2 and "--max-seconds must be a finite number" in capsys.readouterr().err


def test_the_default_memory_limit_is_below_the_machines_memory():
    from checker.limits import physical_memory_mib
    phys = physical_memory_mib()
    assert 0 < default_memory_mib() <= 4096
    if phys:
        assert default_memory_mib() <= phys * 3 // 4
    assert Limits().max_memory == default_memory_mib()
    assert 10 < rss_mib() < default_memory_mib()


# ---------------------------------------------------------------- time, in every phase

def test_players_200_with_max_seconds_5_exits_3_within_10_cpu_seconds(tmp_path):
    # the case, through the real CLI: it used to run 90 s with no output
    path = spec(tmp_path, MELEE.format(n=200))
    start = cpu_time()
    r = subprocess.run([sys.executable, "-m", "checker", "check", path, "--max-seconds", "5", *FAR],
                       capture_output=True, text=True, timeout=120)
    took = cpu_time() - start
    assert r.returncode == 3, r.stdout + r.stderr
    assert "exploration stopped (time limit of 5s reached)" in r.stdout and "result: incomplete" in r.stdout
    assert states_reached(r.stdout) > 0
    assert took < 10, took


def test_a_thousand_players_are_explored_until_the_limit(capsys, tmp_path):
    assert MAX_PLAYERS >= 1000
    code, text, took = run(capsys, spec(tmp_path, MELEE.format(n=1000)), "--max-seconds", "1")
    assert code == 3 and "exploration stopped (time limit of 1s reached)" in text
    assert took < 3, took


@pytest.mark.parametrize("machine_class", [Machine, CompiledMachine])
def test_one_states_successors_stop_at_the_time_limit(tmp_path, machine_class):
    # one state of 400 players takes seconds: the budget is read between its steps
    inst = engine.load_instances(spec(tmp_path, MELEE.format(n=400)))[0]
    machine = machine_class(inst)
    start = time.thread_time()
    graph = explore(machine, Limits(max_seconds=0.3, max_wall_seconds=600))
    assert time.thread_time() - start < 1.0
    assert not graph.complete and graph.stop_reason == "time limit of 0.3s reached"
    assert graph.expanded == 0 and len(graph.states) == 1  # the state stays unexpanded and whole
    assert len(graph.edges) == 0


def test_a_parameter_over_ten_billion_values_is_a_time_limit_not_a_list(capsys, tmp_path):
    path = spec(tmp_path, "players 2\nvar x: 0..3 = 0\naction a(k: 0..10000000000) when k == 5 and x < 3 do x := x + 1; end\n")
    code, text, took = run(capsys, path, "--max-seconds", "1")
    assert code == 3 and "exploration stopped (time limit of 1s reached) after 1 states" in text
    assert took < 3, took


def test_an_init_over_a_hundred_million_values_stops_in_every_phase(capsys, tmp_path):
    # Z3 builds the quantifier term by term, setup evaluates it for the initial state: both stop
    path = spec(tmp_path, "players 2\nvar x: 0..3 = 0\ninit i: forall k in 0..100000000: k >= 0\n"
                          "action a when x < 3 do x := x + 1; end\n")
    code, text, took = run(capsys, path, "--max-seconds", "2")
    assert code == 3
    assert "the contradiction check is incomplete (Z3: the contradiction check's 0.5s ran out)" in text
    assert "exploration stopped (time limit of 2s reached) after 0 states" in text
    assert took < 4, took


def test_a_check_evaluating_a_billion_terms_stops_and_keeps_the_findings_before_it(capsys, tmp_path):
    # the invariant nests three quantifiers over 1000 players: no loop of rulewright's own is
    # there to read the clock, so the watchdog stops it; the deadlock found before is kept
    path = spec(tmp_path, "players 1000\nvar x: 0..3 = 0\ninvariant i: forall p in players: forall q in players: "
                          "forall r in players: p == q or q != r or true\naction a when x < 3 do x := x + 1; end\n")
    code, text, took = run(capsys, path, "--max-seconds", "1")
    assert code == 1 and "error[deadlock]" in text
    assert "the checks stopped (time limit of 1s reached; not checked: invariants, forced-loop" in text
    assert "Z3 replay: not replayed: time limit of 1s reached" in text
    assert took < 3, took


def test_spent_budgets_stop_the_checks_and_the_replay_cleanly(tmp_path):
    inst = engine.load_instances("tests/specs/ring_departed_turn.rw")[0]
    graph = explore(Machine(inst))
    found, stopped = run_checks_within(graph, Budget(Limits(max_seconds=1), seconds=0))
    assert found == [] and stopped.startswith("time limit of 1s reached; not checked: outcome-conflict, outcome-gap")
    found, stopped = run_checks_within(graph, Budget(Limits()))
    assert stopped == "" and any(f.kind == "deadlock" for f in found)
    res = engine.Result()
    (f,) = [f for f in found if f.kind == "deadlock"]
    assert replay_within(Budget(Limits(max_seconds=1), seconds=0), graph.machine, graph, f, res) \
        == Replay("not-replayed", "time limit of 1s reached")
    assert res.incomplete == [f"{f.instance}: the Z3 replay of the deadlock finding was not run (time limit of 1s reached)"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_time_limit_is_the_whole_runs_cpu_time_and_each_instance_gets_a_fair_share(capsys, tmp_path, jobs):
    text = MELEE.replace("players {n}", "param N in {{150, 200, 250}}\nplayers N").format()
    code, out, took = run(capsys, spec(tmp_path, text), "--max-seconds", "1.5", "--jobs", jobs)
    assert code == 3, out
    stopped, not_started = out.count("exploration stopped ("), out.count("not checked: the run's time limit")
    assert stopped + not_started == 3 and stopped >= 2, out
    if jobs == "1":  # 1.5 CPU seconds for three: the first gets a third, the others a part of what is left
        assert "N=150: exploration stopped (its share (0.5s) of the run's time limit of 1.5s ran out)" in out
        assert re.search(r"N=250: exploration stopped \(its share \([\d.]+s\) of the run's time limit of 1.5s ran out\)",
                         out), out
    # CPU time, not wall time: a loaded machine makes the run slower, never shorter of time; the
    # wall-clock bound (three times the limit) is far from what this test could take even then
    assert took < 1.5 * 3 + 10, took


def test_instances_the_run_had_no_time_left_for_are_incomplete_not_forgotten(capsys, tmp_path, monkeypatch):
    from checker import runner
    text = MELEE.replace("players {n}", "param N in {{3, 4}}\nplayers N").format()
    real = runner.Shares.next
    calls = []

    def next_share(self, waiting, running=0):  # the first instance takes all the time there is
        calls.append(waiting)
        if len(calls) > 1:
            self.left = 0
        return real(self, waiting, running)
    monkeypatch.setattr(runner.Shares, "next", next_share)
    code, out, _ = run(capsys, spec(tmp_path, text), "--jobs", "1")
    assert code == 3
    assert "N=4: not checked: the run's time limit of 300s was spent before it could start" in out
    assert "checked 1 file(s), 1 model(s), 1 instance(s)" in out  # N=3's


# ---------------------------------------------------------------- states and memory

def test_the_state_limit_applies_to_setup_enumeration(capsys, tmp_path):
    path = spec(tmp_path, "players 12\nvar a(p: player): 0..3 = any\naction go(p: player) when a[p] > 0 do a[p] := a[p] - 1; end\n")
    code, text, _ = run(capsys, path, "--max-states", "1000", "--engine", "explicit")
    assert code == 3 and "exploration stopped (more than 1,000 initial states)" in text


# one state with a million successors: a parameter over 0..10^8 (issue 20's L1 reproducer)
JUMP = "players 2\nvar x: 0..999999 = 0\naction jump(k: 0..100000000) when x == 0 and k < 1000000 do x := k; end\n"


@pytest.mark.parametrize("machine_class", [Machine, CompiledMachine])
def test_the_state_limit_stops_one_states_successors_before_they_are_all_built(tmp_path, machine_class):
    inst = engine.load_instances(spec(tmp_path, JUMP))[0]
    graph = explore(machine_class(inst), Limits(max_states=1000, max_seconds=600))
    assert not graph.complete and graph.stop_reason == "state limit of 1,000 reached"
    assert graph.expanded == 0 and len(graph.states) == 1 and len(graph.edges) == 0  # unexpanded and whole


def test_a_check_with_max_states_1000_ends_with_what_it_reached_when_one_state_has_a_million_successors(capsys, tmp_path):
    code, text, _ = run(capsys, spec(tmp_path, JUMP), "--max-states", "1000", "--jobs", "1", "--engine", "explicit")
    assert code == 3 and "exploration stopped (state limit of 1,000 reached) after 1 states" in text


@pytest.mark.parametrize("machine_class", [Machine, CompiledMachine])
def test_the_explorer_never_holds_more_states_than_the_limit_and_both_machines_stop_at_the_same_one(tmp_path,
                                                                                                 machine_class):
    inst = engine.load_instances(spec(tmp_path, MELEE.format(n=4)))[0]
    whole = explore(Machine(inst))
    for limit in (5, 17, 50):
        graph = explore(machine_class(inst), Limits(max_states=limit))
        assert not graph.complete and graph.stop_reason == f"state limit of {limit} reached"
        assert len(graph.states) <= limit
        # breadth first, so what it holds is the whole graph's first states; the state it
        # stopped at is the first whose new successors did not fit
        assert [whole.values(i) for i in range(len(graph.states))] == [graph.values(i) for i in range(len(graph.states))]
        assert len(set(whole.init_ids) | {d for s, d, _ in whole.edges if s <= graph.expanded}) > limit


def test_the_reduced_search_reads_the_state_limit_inside_one_state(tmp_path):
    from checker.explicit import symmetry
    path = spec(tmp_path, "players 4\nvar life(p: player): 0..1 = 1\nvar x: 0..999999 = 0\n"
                          "action jump(p: player, k: 0..100000000) when life[p] == 1 and x == 0 and k < 1000000 do x := k; end\n")
    inst = engine.load_instances(path)[0]
    machine = CompiledMachine(inst)
    graph = symmetry.explore_reduced(machine, symmetry.Rotation(machine, 4), Limits(max_states=1000, max_seconds=600))
    assert not graph.complete and graph.stop_reason == "state limit of 1,000 reached"
    assert graph.expanded == 0 and len(graph.states) == 1


def test_the_reduced_search_counts_orbits_not_rotated_copies_against_the_state_limit(tmp_path):
    from checker.explicit import symmetry
    # 8 seats, each alive or not: 36 orbits of 256 states; one death from the start is 8 rotated
    # copies of one orbit
    inst = engine.load_instances(spec(tmp_path, "players 8\nvar life(p: player): 0..1 = 1\n"
                                                "action die(p: player) when life[p] == 1 do life[p] := 0; end\n"))[0]
    machine = CompiledMachine(inst)
    graph = symmetry.explore_reduced(machine, symmetry.Rotation(machine, 8), Limits(max_states=36))
    assert graph.complete and len(graph.states) == 36 and graph.nreal == 256


def test_the_graph_command_keeps_to_the_state_limit_inside_one_state(capsys, tmp_path):
    code = main(["graph", spec(tmp_path, JUMP), "--max-states", "1000"])
    out = capsys.readouterr()
    assert code == 3 and "graph incomplete (state limit of 1,000 reached)" in out.err
    assert out.out.count("[label=") == 1 and out.out.rstrip().endswith("}")  # the one state, unexpanded


def test_the_graph_command_stops_drawing_at_the_time_limit_and_prints_a_whole_graph(capsys, tmp_path, monkeypatch):
    from checker.explicit import explore as explore_module
    real = explore_module.describe_label

    def slow(graph, lid):  # drawing an edge takes 10 ms of CPU: the 212 edges of 4 players take 2 s
        burn_cpu(0.01)  # not sleep: the limit is CPU time, and a sleeping run only meets the wall-clock bound
        return real(graph, lid)
    monkeypatch.setattr(explore_module, "describe_label", slow)
    code = main(["graph", spec(tmp_path, MELEE.format(n=4)), "--max-seconds", "0.2", *FAR])
    out = capsys.readouterr()
    assert code == 3 and "drawing stopped (time limit of 0.2s reached)" in out.err
    assert out.out.rstrip().endswith("}") and 0 < out.out.count(" -> ") < 212
    assert out.out.count("[label=") - out.out.count(" -> ") == 136  # every state, then the edges it had time for


GROW = """\
players 2
var x: 0..999999 = 0
var y: 0..999999 = 0
action incx when x < 999999 do x := x + 1; end
action incy when y < 999999 do y := y + 1; end
"""


def test_the_memory_limit_stops_exploration_with_what_was_reached(capsys, tmp_path):
    # exploration may use 80% of the limit: above what this process already holds (which grows
    # with the tests run before this one), whatever that is
    limit = int(rss_mib() / 0.8) + 60
    # (the explorer alone: under auto it would hand over to the symbolic engine at its first stage)
    code, text, _ = run(capsys, spec(tmp_path, GROW), "--max-states", "100000000", "--max-seconds", "60",
                        "--max-memory", str(limit), "--engine", "explicit")
    assert code == 3
    assert f"exploration stopped (memory limit of {limit} MiB reached)" in text
    assert states_reached(text) > 1000  # exploration stops at 80% of it: the checks may still run


def run_out_of_memory_with_3_players(monkeypatch) -> None:
    """Both machines raise MemoryError when asked for the successors of a 3-player state."""
    for machine_class in (Machine, CompiledMachine):
        def successors(self, state, budget=None, room=None, real=machine_class.successors):
            if self.inst.nplayers == 3:
                raise MemoryError
            return real(self, state, budget, room)
        monkeypatch.setattr(machine_class, "successors", successors)


def test_a_memory_error_in_an_instance_is_incomplete_and_keeps_the_other_instances(capsys, monkeypatch, tmp_path):
    path = spec(tmp_path, "param N in {2, 3}\nplayers N\nvar x: 0..2 = 0\ninvariant small: x < 2\n"
                          "action a when x < 2 do x := x + 1; end\n")
    run_out_of_memory_with_3_players(monkeypatch)
    code, text, _ = run(capsys, path, "--jobs", "1")  # the patch is in this process only
    assert code == 1 and "error[invariant]" in text and "N=2" in text
    assert "N=3: memory ran out (MemoryError); nothing of this instance is reported" in text


def test_an_instance_lost_to_memory_cannot_leave_an_expectation_unmet(capsys, monkeypatch, tmp_path):
    # only N=3 breaks the invariant the spec expects; N=3 runs out of memory: nobody can say
    path = spec(tmp_path, "param N in {2, 3}\nplayers N\nvar x: 0..2 = 0\nexpect invariant\n"
                          "invariant small: N == 2 or x < 2\naction a when x < 2 do x := x + 1; end\n")
    run_out_of_memory_with_3_players(monkeypatch)
    code, text, _ = run(capsys, path, "--jobs", "1")
    assert code == 1 and "error[deadlock]" in text  # N=2 deadlocks at x = 2: that is still reported
    assert "expectation-unmet" not in text and "memory ran out" in text


def test_a_memory_error_outside_any_instance_is_exit_3(capsys, monkeypatch):
    def boom(*a, **k):
        raise MemoryError
    monkeypatch.setattr(engine, "check", boom)
    code, text, _ = run(capsys, "tests/specs/ring_clean.rw")
    assert code == 3 and "rulewright: incomplete: memory ran out" in text


# ---------------------------------------------------------------- the watchdog

def test_the_watchdog_raises_only_in_code_that_keeps_nothing_half_written():
    # the limits count CPU time, and the wall-clock bound is set far off: on a loaded machine
    # the CPU limit is still the one that stops the safe module
    limits = Limits(max_seconds=0.05, max_wall_seconds=600)
    start = time.thread_time()
    with watchdog(Budget(limits)):
        burn_cpu(1.0)  # this file is not safe to interrupt: never raised here
    with pytest.raises(LimitHit, match="time limit of 0.05s reached"):
        with watchdog(Budget(limits)):
            _spin_in_a_safe_module()
    assert time.thread_time() - start < 3


def test_the_watchdog_never_interrupts_an_import_even_of_a_module_it_may_interrupt(tmp_path):
    # A limit that hit while networkx was first imported left it half-imported, and every later
    # instance of the process failed with an internal error. Here a module whose file name is
    # on the watchdog's safe list spins at import time past a spent budget: the import finishes;
    # a call into it afterwards is stopped as before.
    safe = tmp_path / "checker" / "analyses" / "paths.py"
    safe.parent.mkdir(parents=True)
    safe.write_text("import time\n\ndef settle():\n    start = time.perf_counter()\n"
                    "    while time.perf_counter() - start < 0.8:\n        pass\n    return True\n\n"
                    "imported = settle()\n\ndef spin():\n    while True:\n        pass\n")
    import importlib.util
    spec_ = importlib.util.spec_from_file_location("probe_paths", safe)
    module = importlib.util.module_from_spec(spec_)
    with watchdog(Budget(Limits(max_seconds=0.05))):
        spec_.loader.exec_module(module)
        assert module.imported
        with pytest.raises(LimitHit):
            module.spin()


def test_no_check_imports_networkx():
    # the checks find their paths with code of their own (checker.analyses.paths), so no limit
    # can ever stop networkx half way; a forced loop exercises the lasso
    code = ("import sys; from checker import engine; "
            "r = engine.check(['tests/fixtures/forced-loop/defect.rw']); "
            "assert any(f.kind == 'forced-loop' for f in r.findings), r.findings; "
            "print('networkx' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stdout + out.stderr


def test_the_watchdog_may_stop_the_checks_in_every_module_they_are_written_in():
    # the checks keep nothing half written, so the watchdog may raise in them: a module of
    # checks missing from its list would be one it waits on until the budget's next read
    from checker import limits
    from checker.analyses import checks
    modules = {sys.modules[c.__module__].__file__ for c in checks.CHECKS}
    modules |= {checks.__file__, sys.modules[checks.Explored.__module__].__file__}
    assert len(modules) >= 2
    assert [m for m in modules if not any(part in m for part in limits._SAFE)] == []


def test_every_module_on_the_watchdogs_list_exists():
    # a module split or renamed leaves its old name here and its code uninterruptible
    from checker import limits
    root = Path(__file__).resolve().parent.parent
    assert [p for p in limits._SAFE if not ((root / p).is_file() or (root / p).is_dir())] == []


def _spin_in_a_safe_module():
    from checker.explicit import compile as c  # a safe module
    while True:
        c.ring_step(0, 1, 1, 0, 1000)


def test_the_watchdog_does_nothing_outside_the_main_thread():
    seen = []

    def work():
        with watchdog(Budget(Limits(max_seconds=0.01))):
            time.sleep(0.3)
        seen.append("done")
    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert seen == ["done"]


# ---------------------------------------------------------------- interrupted runs lose nothing finished

def test_an_abandoned_pool_leaves_no_thread_to_race_the_exit():
    # an interrupt abandons the pool; its thread, left running, closed its wake-up pipe while
    # Python's exit wrote to it, and a run ended now and then with a traceback (OSError: Bad
    # file descriptor) after its report (the test below, about one run in twenty under load)
    from checker.runner import _LocalPool
    pool = _LocalPool(2, time.sleep)
    pool.submit(60)  # a worker busy for a minute
    time.sleep(0.5)
    manager = pool._executor._executor_manager_thread
    started = time.perf_counter()
    pool.abandon()
    assert not manager.is_alive() and time.perf_counter() - started < 3


@pytest.mark.parametrize("sig,jobs", [("SIGINT", "2"), ("SIGTERM", "2"), ("SIGINT", "1")])
def test_an_interrupted_run_prints_the_findings_of_the_instances_it_finished(tmp_path, sig, jobs):
    import signal
    # N=3 is checked in a moment and breaks the invariant; N=200 would take minutes
    text = MELEE.replace("players {n}", "param N in {{3, 200}}\nplayers N").format() + "invariant untouched: life[P1] == 2\n"
    path = spec(tmp_path, text)
    # SIGINT back to its default in the child: a test run started in the background (nohup, `&`)
    # inherits SIGINT ignored, and Python then keeps ignoring it, as a shell's background job should
    proc = subprocess.Popen([sys.executable, "-m", "checker", "check", path, "--jobs", jobs], stdout=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                            stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(8)  # start-up and N=3 take about one second of CPU; a loaded machine stretches it
        assert proc.poll() is None
        start = time.perf_counter()
        proc.send_signal(getattr(signal, sig))
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert time.perf_counter() - start < 5
    assert proc.returncode == 3, out + err
    assert "error[invariant] invariant `untouched` does not hold" in out and "| N=3" in out
    assert "Z3 replay: confirmed" in out  # a finished instance's replays are part of it
    assert "INTERRUPTED: the run was interrupted after 1 of 2 instance(s)" in out
    assert out.rstrip().endswith("result: interrupted")
    assert "Traceback" not in err and "internal error" not in err


# ---------------------------------------------------------------- "not checked" is its own verdict

COUNTER = """\
players 2
var x: 0..1000 = 0
action inc progress when x < 1000 do x := x + 1; end
outcome fin: draw when x == 1000
invariant below: x < 900
"""


def test_an_expectation_of_an_instance_not_checked_to_its_end_is_not_checked_never_unmet(capsys, tmp_path):
    # the violation lies beyond the state limit: the expectation can be neither met nor unmet
    path = spec(tmp_path, COUNTER + 'expect invariant on below "reviewed: x passes 900"\n')
    code, text, _ = run(capsys, path, "--max-states", "100", "--engine", "explicit")
    assert code == 3 and "expectation-unmet" not in text, text
    assert "not checked: expect `invariant on below` at" in text and "was not checked to its end" in text
    assert "result: incomplete (1 instance(s) not checked to the end, 1 expectation(s) not checked)" in text
    code, text, _ = run(capsys, path)
    assert code == 0 and "not checked" not in text


def test_a_baseline_entry_of_an_instance_not_checked_to_its_end_is_not_checked(capsys, tmp_path):
    path = spec(tmp_path, COUNTER)
    baseline = tmp_path / "baseline.json"
    assert main(["baseline", path, "-o", str(baseline)]) == 0
    capsys.readouterr()
    code, text, _ = run(capsys, path, "--baseline", baseline, "--max-states", "100", "--engine", "explicit")
    assert code == 3 and "expectation-unmet" not in text, text
    assert "not checked: baseline entry `invariant" in text


def test_fail_on_incomplete_makes_a_partly_checked_run_exit_3_even_with_findings(capsys, tmp_path):
    # a finding early on, and an instance that stops at the state limit: by default the finding
    # decides (1); with `incomplete` in --fail-on, 1 means "checked to its end" and this is 3
    path = spec(tmp_path, "param N in {2, 3}\n" + COUNTER.replace("players 2", "players N")
                .replace("invariant below: x < 900", "invariant below: N == 3 or x < 50"))
    assert run(capsys, path, "--max-states", "200", "--engine", "explicit")[0] == 1
    code, text, _ = run(capsys, path, "--max-states", "200", "--fail-on", "warning,incomplete", "--engine", "explicit")
    assert code == 3 and "error[invariant]" in text, text
    assert "result: incomplete (2 instance(s) not checked to the end); 1 unexpected finding(s)" in text
    assert run(capsys, path, "--fail-on", "warning,incomplete")[0] == 1


def test_a_time_limit_on_the_bundled_specs_never_fails_an_expectation(capsys):
    # the case: `check spec/ --max-seconds 10` reported 39 expectation-unmet findings for
    # instances never explored; with far less time, every instance not checked to its end is named
    code, text, _ = run(capsys, "spec/", "--max-seconds", "0.5", "--jobs", "1")
    assert code == 3 and "expectation-unmet" not in text, text
    assert "not checked: expect " in text and re.search(r"result: incomplete \(\d+ instance\(s\) not checked", text)


def test_ctrl_c_during_a_z3_check_stops_the_run_instead_of_answering_unknown():
    # Z3 catches SIGINT while it solves and answers unknown; the run went on checking for
    # minutes after Ctrl-C whenever the signal arrived during a check
    import z3
    from checker.symbolic.terms import solve

    class Interrupted:
        def check(self, *assumptions):
            return z3.unknown

        def reason_unknown(self):
            return "interrupted from keyboard"
    with pytest.raises(KeyboardInterrupt):
        solve(Interrupted())
    s = z3.Solver()
    s.add(z3.Int("x") > 0)
    assert solve(s) == z3.sat


def test_worker_processes_leave_ctrl_c_to_the_parent_z3_included():
    code = ("import signal, z3; from checker.limits import ignore_ctrl_c; ignore_ctrl_c(); "
            "print(signal.getsignal(signal.SIGINT) == signal.SIG_IGN, z3.get_param('ctrl_c'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["True", "false"], out.stdout + out.stderr


def test_with_no_verdict_on_the_setup_findings_that_need_one_are_not_checked_never_reported(monkeypatch):
    # `check spec/ --max-seconds 10` on a busy machine reported dead rules and impossible
    # properties of instances whose contradiction check Z3 left unknown: in a complete run the
    # contradiction folds them away, so they failed a run that only lacked time
    from checker.symbolic import setup as z3setup
    monkeypatch.setattr(z3setup, "contradiction", lambda inst, ms: ("unknown", "canceled"))
    res = engine.check(["tests/fixtures/impossible-property/defect.rw"])
    assert [f.kind for f in res.findings] == []
    assert any("the `possible` properties were not asked" in line for line in res.incomplete), res.incomplete
    assert res.exit_code() == 3


def test_with_no_verdict_on_choices_left_to_z3_the_explorers_findings_are_withheld(monkeypatch, tmp_path):
    from checker.symbolic import setup as z3setup
    monkeypatch.setattr(z3setup, "contradiction", lambda inst, ms: ("unknown", "canceled"))
    path = spec(tmp_path, "players 2\nchoice deck: 0..3\nconstraint c: deck == 2\nvar x: 0..2 = 0\n"
                          "action a when x < 2 do x := x + 1; end\naction never when x > 5 do x := 0; end\n")
    res = engine.check([path])
    assert res.findings == [] and res.exit_code() == 3
    assert any("finding(s) not reported: they hold only if some setup exists" in line for line in res.incomplete)
