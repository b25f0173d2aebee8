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
from checker.cli import main
from checker.explicit.explore import explore
from checker.explicit.compiled import CompiledMachine
from checker.explicit.machine import Machine
from checker.frontend.instances import MAX_PLAYERS
from checker.limits import Budget, LimitHit, Limits, default_memory_mib, rss_mib, watchdog

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


def run(capsys, *args) -> tuple[int, str, float]:
    start = time.perf_counter()
    code = main(["check", *map(str, args)])
    took = time.perf_counter() - start
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

def test_players_200_with_max_seconds_5_exits_3_within_10_seconds(tmp_path):
    # the case, through the real CLI: it used to run 90 s with no output
    path = spec(tmp_path, MELEE.format(n=200))
    start = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "checker", "check", path, "--max-seconds", "5"],
                       capture_output=True, text=True, timeout=60)
    took = time.perf_counter() - start
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
    start = time.perf_counter()
    graph = explore(machine, Limits(max_seconds=0.3))
    assert time.perf_counter() - start < 1.0
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
    assert engine._replay_within(Budget(Limits(max_seconds=1), seconds=0), graph.machine, graph, f, res) \
        == "not replayed: time limit of 1s reached"
    assert res.incomplete == [f"{f.instance}: the Z3 replay of the deadlock finding was not run (time limit of 1s reached)"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_time_limit_is_the_whole_runs_and_each_instance_gets_a_fair_share(capsys, tmp_path, jobs):
    text = MELEE.replace("players {n}", "param N in {{150, 200, 250}}\nplayers N").format()
    code, out, took = run(capsys, spec(tmp_path, text), "--max-seconds", "1.5", "--jobs", jobs)
    assert code == 3, out
    stopped, not_started = out.count("exploration stopped ("), out.count("not checked: the run's time limit")
    assert stopped + not_started == 3 and stopped >= 2, out  # the machine's load decides the last one's luck
    if jobs == "1":  # 1.5 s for three: the first gets a third, the last what is left
        assert "exploration stopped (its share (0.5s) of the run's time limit of 1.5s ran out)" in out
        assert "N=250: exploration stopped (time limit of 1.5s reached)" in out
    assert took < 1.5 + 1.5, took


def test_instances_the_run_had_no_time_left_for_are_incomplete_not_forgotten(capsys, tmp_path, monkeypatch):
    from checker import runner
    text = MELEE.replace("players {n}", "param N in {{3, 4}}\nplayers N").format()
    real = runner.Shares.next
    calls = []

    def next_share(self, waiting, running=0):  # the first instance takes all the time there is
        calls.append(waiting)
        return real(self, waiting, running) if len(calls) == 1 else None
    monkeypatch.setattr(runner.Shares, "next", next_share)
    code, out, _ = run(capsys, spec(tmp_path, text), "--jobs", "1")
    assert code == 3
    assert "N=4: not checked: the run's time limit of 120s was spent before it could start" in out
    assert "checked 1 file(s), 1 model(s), 1 instance(s)" in out  # N=3's


# ---------------------------------------------------------------- states and memory

def test_the_state_limit_applies_to_setup_enumeration(capsys, tmp_path):
    path = spec(tmp_path, "players 12\nvar a(p: player): 0..3 = any\naction go(p: player) when a[p] > 0 do a[p] := a[p] - 1; end\n")
    code, text, _ = run(capsys, path, "--max-states", "1000")
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
    code, text, _ = run(capsys, spec(tmp_path, JUMP), "--max-states", "1000", "--jobs", "1")
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

    def slow(graph, lid):  # drawing an edge takes 10 ms: the 212 edges of 4 players take 2 s
        time.sleep(0.01)
        return real(graph, lid)
    monkeypatch.setattr(explore_module, "describe_label", slow)
    code = main(["graph", spec(tmp_path, MELEE.format(n=4)), "--max-seconds", "0.2"])
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
    code, text, _ = run(capsys, spec(tmp_path, GROW), "--max-states", "100000000", "--max-seconds", "60",
                        "--max-memory", str(limit))
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
    budget = Budget(Limits(max_seconds=0.05))
    start = time.perf_counter()
    with watchdog(budget):
        while time.perf_counter() - start < 1.0:  # this file is not safe to interrupt: never raised here
            pass
    with pytest.raises(LimitHit, match="time limit of 0.05s reached"):
        with watchdog(Budget(Limits(max_seconds=0.05))):
            _spin_in_a_safe_module()
    assert time.perf_counter() - start < 3


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

@pytest.mark.parametrize("sig,jobs", [("SIGINT", "2"), ("SIGTERM", "2"), ("SIGINT", "1")])
def test_an_interrupted_run_prints_the_findings_of_the_instances_it_finished(tmp_path, sig, jobs):
    import signal
    # N=3 is checked in a moment and breaks the invariant; N=200 would take minutes
    text = MELEE.replace("players {n}", "param N in {{3, 200}}\nplayers N").format() + "invariant untouched: life[P1] == 2\n"
    path = spec(tmp_path, text)
    proc = subprocess.Popen([sys.executable, "-m", "checker", "check", path, "--jobs", jobs], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(4)  # start-up and N=3 take about one second
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
