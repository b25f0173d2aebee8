"""The symbolic engine (checker/symbolic/horn.py, checker/analyses/unbounded.py): Spacer proves
what no reachable frame does, a directed search shows what some play reaches, and an instance
the explorer cannot finish gets its safety checks decided at the documents' numbers."""
import sys
from pathlib import Path

import pytest

from checker import engine
from checker.analyses import unbounded
from checker.cli import main
from checker.explicit.explore import explore
from checker.explicit.compiled import machine_for
from checker.limits import Budget, Limits
from checker.symbolic import horn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from families import ffa_spec  # noqa: E402

STORMS = "tests/symbolic/multiple-of-damage.rw"  # not a fixture: the explorer alone cannot finish it
COUNTER = """players 2
var x: 0..{high} = 0
action inc progress when x < 10 do x := x + 1; end
action reset progress when x == 10 do x := 0; end
outcome never: draw when x == 11
invariant small: x <= 10
"""


def instance(path, **params):
    return next(i for i in engine.load_instances(str(path)) if all(i.params.get(k) == v for k, v in params.items()))


def test_spacer_proves_a_range_is_never_left_and_says_why_in_the_specs_names(tmp_path):
    path = tmp_path / "c.rw"
    path.write_text(COUNTER.format(high=10), encoding="utf-8")
    a = horn.Prover(instance(path)).ask(horn.failing_step, 20)
    assert a.verdict == horn.PROVED
    assert "x" in a.invariant and "Reach" not in a.invariant  # e.g. "x > -1": the guard keeps it under 10


def test_no_step_fails_from_a_game_that_ended_in_its_setup(tmp_path):
    # found by tests/test_unbounded_differential.py: every player draws at the setup, so no
    # action is ever taken, although `a` would fail (a draw for nobody); Spacer said reachable
    path = tmp_path / "ended.rw"
    path.write_text("players 2\nvar opt: player? = none\naction a progress do draw opt; end\n"
                    "outcome all_draw: draw player q when true\n", encoding="utf-8")
    assert horn.Prover(instance(path)).ask(horn.failing_step, 5).verdict == horn.PROVED


def test_spacer_does_not_prove_an_overflow_away_when_a_step_leaves_the_range(tmp_path):
    path = tmp_path / "c.rw"
    path.write_text(COUNTER.format(high=9), encoding="utf-8")  # x := 10 leaves 0..9
    assert horn.Prover(instance(path)).ask(horn.failing_step, 20).verdict == horn.REACHABLE


def test_a_proof_from_the_generalized_setup_is_named_as_such(tmp_path):
    path = tmp_path / "c.rw"
    path.write_text(COUNTER.format(high=10), encoding="utf-8")
    a = horn.Prover(instance(path)).ask(horn.no_step, 20)
    assert a.verdict == horn.PROVED and a.setup == "every start in the declared ranges"


def test_the_symbolic_engine_keeps_its_time_budget_while_it_encodes_a_step():
    """The grand-melee markers (deadlock/event-defect.rw): eight seats whose triggers raise
    events that fire further triggers. Encoding one step settles every round of them over
    symbolic states, minutes of term building that asks no budget: `decide` watches its own
    (it took 563 s on a budget of 30), and says each safety check stopped. Run as a user
    would, the checks it could not decide are said, each with why, and the instance is
    incomplete, never clean."""
    from checker.limits import cpu_seconds
    inst = instance("tests/fixtures/deadlock/event-defect.rw")
    start = cpu_seconds()
    _, decisions = unbounded.decide(inst, [], {"wins": 0, "team_wins": 0}, Budget(Limits(max_seconds=1)))
    assert cpu_seconds() - start < 4
    # (the budget's CPU time, or the moment Z3's calls stop by, which a busy machine brings sooner)
    assert all(d.verdict == "unknown" and d.detail.startswith("the symbolic engine stopped (time limit of 1s reached")
               for d in decisions)
    assert [d.check for d in decisions][:len(unbounded.SAFETY)] == [kind for kind, _ in unbounded.SAFETY]
    assert unbounded.not_decided(inst, decisions) == ["never-active"]  # each other check says it stopped
    res = engine.check(["tests/fixtures/deadlock/event-defect.rw"], Limits(max_states=300, max_seconds=1))
    (inst_res,) = res.instances
    assert not inst_res.complete and res.is_incomplete
    verdicts = {d.check: d.verdict for d in inst_res.decisions}
    assert verdicts["deadlock"] == "found" and verdicts["outcome-gap"] == "unknown"
    assert [f.kind for f in res.findings] == ["deadlock"]  # the explorer's, kept


# Left out: the grand-melee markers (deadlock/event-*.rw): Spacer's encoding of their rounds
# does not finish within the 30 s budget below (see the test above)
SAFETY_FIXTURES = sorted(str(p.relative_to(ROOT)) for kind in ("deadlock", "outcome-gap", "overflow", "outcome-conflict",
                                                                         "player-without-outcome", "implied-loss")
                         for p in (ROOT / "tests" / "fixtures" / kind).glob("*.rw")
                         if not p.name.startswith("event-"))


@pytest.mark.slow
@pytest.mark.parametrize("path", SAFETY_FIXTURES)
def test_spacer_never_contradicts_the_explorer_on_the_fixtures(path):
    """Soundness against the other engine, instance by instance, on every fixture of the safety
    kinds (defects and their twins): a safety kind Spacer proves unreachable is one the complete
    explorer does not find, and a victory it proves unreachable is one the explorer reports."""
    res = engine.check([path], Limits(max_states=200_000))
    if res.diagnostics or res.is_incomplete:
        pytest.skip("the fixture is not checked to its end by the explorer")
    for inst in engine.load_instances(path):
        kinds = {f.kind for f in res.findings if inst.label in (f.instances or [f.instance])}
        every_rule = set(range(len(inst.model.rules)))  # (dead rules: tests/test_unbounded_rules.py)
        _, decisions = unbounded.decide(inst, [], {"wins": 0, "team_wins": 0, "rules": every_rule},
                                        Budget(Limits(max_seconds=30)))
        for d in decisions:
            if d.verdict == "proved" and d.check == "unreachable-outcome":
                assert "unreachable-outcome" in kinds, (inst.label, d)
            elif d.verdict == "proved":
                assert d.check not in kinds, (inst.label, d)


@pytest.mark.slow
def test_a_defect_that_exists_only_at_8000_is_found_there_with_a_replayed_trace_and_proved_absent_at_7999():
    res = engine.check([STORMS], Limits(max_states=20_000))
    gaps = [f for f in res.findings if f.kind == "outcome-gap"]
    assert [f.instance.endswith("L=8000") for f in gaps] == [True]
    (gap,) = gaps
    assert gap.replay is not None and gap.replay.status == "confirmed"
    assert len(gap.trace) == 9  # eight storms from 8,000
    (at_7999,) = [i for i in res.instances if i.label.endswith("L=7999")]
    proved = {d.check for d in at_7999.decisions if d.verdict == "proved"}
    assert {"outcome-gap", "outcome-conflict", "deadlock", "overflow"} <= proved
    found = {d.subject for d in at_7999.decisions if d.verdict == "found" and d.check == "unreachable-outcome"}
    assert found == {"P1 wins", "P2 wins"}  # the directed search's plays, each a win


@pytest.mark.slow
def test_the_free_for_all_at_life_8000_has_every_safety_check_decided(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "symbolic")
    path = ffa_spec(4, 8000, tmp_path)
    res = engine.check([str(path)])
    (i,) = res.instances
    assert [d for d in i.decisions if d.verdict == "unknown"] == []
    assert {d.subject for d in i.decisions if d.check == "unreachable-outcome"} == {"P1 wins", "P2 wins", "P3 wins",
                                                                                    "P4 wins"}
    assert res.findings == []
    # every check decided (the cycle checks by ranking functions: tests/test_ranking.py), so
    # the instance is complete although the explorer stopped
    assert unbounded.not_decided(res.instances[0] and engine.load_instances(str(path))[0], i.decisions) == []
    assert res.incomplete == [] and res.exit_code() == 0


def test_the_explicit_engine_alone_reports_the_state_limit_as_before(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "explicit")
    path = ffa_spec(3, 300, tmp_path)
    res = engine.check([str(path)], Limits(max_states=500))
    (i,) = res.instances
    assert i.decisions == [] and "findings that need the whole graph were not checked" in res.incomplete[0]


def test_the_engine_option_is_checked_on_the_command_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["check", "tests/specs/ring_clean.rw", "--engine", "quantum"])
    assert exc.value.code == 2


def test_under_engine_symbolic_the_explorer_only_looks_first(tmp_path, monkeypatch):
    inst = instance(ffa_spec(3, 300, tmp_path))
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "symbolic")
    assert unbounded.explorer_states(inst, 200_000) == unbounded.SYMBOLIC_PREFIX
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "explicit")
    assert unbounded.explorer_states(inst, 200_000) == 200_000
    assert not explore(machine_for(inst), Limits(max_states=unbounded.SYMBOLIC_PREFIX)).complete


def test_auto_explores_in_full_where_the_ranges_leave_no_more_states_than_the_limit(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "auto")
    small, large = instance(ffa_spec(3, 10, tmp_path)), instance(ffa_spec(3, 300, tmp_path))
    assert unbounded.state_bound(small) <= 200_000  # 11^3 lives, 3 turns, who is out, the ends
    assert unbounded.explorer_states(small, 200_000) == 200_000
    # life 300 among 3 players: the explorer looks at a first stage, then Spacer decides
    assert unbounded.explorer_states(large, 200_000) == unbounded.AUTO_STAGE
    assert unbounded.explorer_states(large, 1_000) == 1_000  # a lower limit is kept


def test_auto_says_why_the_explorer_stopped_at_its_first_stage(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "auto")
    monkeypatch.setattr(unbounded, "AUTO_STAGE", 300)
    res = engine.check([str(ffa_spec(3, 300, tmp_path))], Limits(max_states=200_000))
    (i,) = res.instances
    assert i.decisions and not i.complete
    # (decided in full: no incomplete line; the decided line says why the explorer stopped)
    assert i.stop_reason == "the first 300 states under --engine auto: the declared ranges allow about 10^9"
    from checker.outputs.report import decisions_text
    assert f"after the explorer's {i.states:,} states ({i.stop_reason}): " in decisions_text(i, False)[0]


def test_an_invariant_reads_in_the_languages_words():
    import z3
    life, out, gap = z3.Int("life[P1]"), z3.Bool("out(P1)"), z3.Bool("gap")
    assert horn.show(z3.And(out == (life == 0), z3.Not(life <= -1))) == "(out(P1) == (life[P1] == 0)) and life[P1] > -1"
    assert horn.show(z3.Or(z3.Not(out), life + 1 >= 2)) == "(life[P1] + 1) >= 2 or not out(P1)"
    assert horn.show(z3.Or(life + 1 >= 2, z3.Not(out))) == horn.show(z3.Or(z3.Not(out), life + 1 >= 2))
    # the statuses that are always false are said once, after the rest, in a stable order
    cover = z3.And(z3.Not(z3.Var(2, z3.BoolSort())), z3.Var(0, z3.IntSort()) >= 0, z3.Not(z3.Var(1, z3.BoolSort())))
    assert horn.show_invariant(cover, [life, out, gap]) == "life[P1] >= 0; never: gap, out(P1)"


def test_the_report_says_what_each_engine_decided_and_nothing_when_none_decided():
    from checker.engine import InstanceResult
    from checker.outputs.report import decisions_text
    i = InstanceResult("x.rw | L=8000", "x.rw", 2000, 9000, 1.0, False, "state limit of 2,000 reached")
    i.decisions = [unbounded.Decision("outcome-gap", "", "proved", unbounded.SPACER, "from the setup: life[P1] > -1"),
                   unbounded.Decision("unreachable-outcome", "P1 wins", "found", "explicit")]
    assert decisions_text(i, verbose=False) == [
        "decided: x.rw | L=8000: after the explorer's 2,000 states (state limit of 2,000 reached): proved by symbolic (Spacer): outcome-gap; found by explicit: unreachable-outcome (P1 wins)"]
    assert decisions_text(i, verbose=True)[1] == "  outcome-gap: from the setup: life[P1] > -1"
    i.decisions = [unbounded.Decision("deadlock", "", "unknown", unbounded.SPACER, "Spacer: canceled")]
    assert decisions_text(i, verbose=True) == []  # the undecided question is an `incomplete:` line instead


# a break 3 steps deep at L = 3, 300 deep at L = 300 behind ten values of y at every depth: the
# explorer's 1,000 states hold the first, a directed search finds the second
DEEP_AT_300 = """param L in {3, 300}
players 2
var x: 0..L = 0
var y: 0..9 = 0
action inc progress when x < L do x := x + 1; end
action wiggle(k: 0..9) progress when y != k do y := k; end
invariant below_top: x < L
"""


@pytest.mark.slow  # (about 15 s: Spacer's questions on the instance at 300)
def test_a_finding_of_several_instances_says_which_engine_found_it_in_each(tmp_path):
    from checker.outputs.report import as_json, text
    import json
    path = tmp_path / "deep.rw"
    path.write_text(DEEP_AT_300, encoding="utf-8")
    res = engine.check([str(path)], Limits(max_states=1_000))
    (f,) = [f for f in res.findings if f.kind == "invariant"]
    assert [i.rsplit(" | ", 1)[-1] for i in f.instances] == ["L=3", "L=300"]
    assert f.engines == ["explicit", unbounded.DIRECTED]
    assert "  found by: explicit in L=3; explicit (directed search) in L=300" in text(res).splitlines()
    (j,) = [x for x in json.loads(as_json(res))["findings"] if x["kind"] == "invariant"]
    assert j["engines"] == ["explicit", "explicit (directed search)"]


# ---------------------------------------------------------------- Spacer's paths, walked by the explorer

# a deadlock 9 steps deep behind many orders of the same moves: the explorer's first 20 states
# do not reach it, no win or invariant gives the directed search a goal, Spacer finds a path
WIDE = """players 2
var v(p: player): 0..3 = 0
var w: 0..3 = 0
action up(p: player) progress when v[p] < 3 do v[p] := v[p] + 1; end
action side progress when w < 3 do w := w + 1; end
"""


def test_a_deadlock_spacer_finds_a_path_to_is_walked_by_the_explorer_and_replayed(tmp_path):
    path = tmp_path / "wide.rw"
    path.write_text(WIDE, encoding="utf-8")
    res = engine.check([str(path)], Limits(max_states=20))
    (f,) = [f for f in res.findings if f.kind == "deadlock"]
    assert f.engine == unbounded.WALKED and unbounded.WALKED_NOTE in f.detail
    assert len(f.trace) == 10 and f.replay.status == "confirmed"
    assert ("deadlock", "", "found", unbounded.WALKED) in [(d.check, d.subject, d.verdict, d.engine)
                                                        for d in res.instances[0].decisions]


def test_a_path_the_explorer_cannot_follow_is_an_engine_disagreement(tmp_path, monkeypatch):
    path = tmp_path / "wide.rw"
    path.write_text(WIDE, encoding="utf-8")
    real = horn.Prover.ask

    def tampered(self, bad, seconds):  # Spacer's deadlock path, with a step no action takes
        a = real(self, bad, seconds)
        if a.path:
            a = horn.Answer(a.verdict, setup=a.setup, path=a.path[:2] + ((3, 3, 3, 0, 0),) + a.path[2:])
        return a
    monkeypatch.setattr(horn.Prover, "ask", tampered)
    res = engine.check([str(path)], Limits(max_states=20))
    (d,) = res.disagreements
    assert "Spacer found a path to deadlock that the explorer cannot follow" in d.finding.message
    assert "no step to state 2 of Spacer's 11" in d.replay and res.exit_code() == 4


def test_the_symbolic_engine_decides_even_when_the_checks_on_the_unfinished_graph_ran_out_of_their_share(
        tmp_path, monkeypatch):
    monkeypatch.setattr(unbounded, "PARTIAL_CHECKS_SHARE", 1e-9)  # the checks stop at once
    path = tmp_path / "wide.rw"
    path.write_text(WIDE, encoding="utf-8")
    res = engine.check([str(path)], Limits(max_states=20))
    (i,) = res.instances
    assert any("the checks stopped (the checks' share of an unfinished exploration ran out" in w for w in res.incomplete)
    assert {d.check for d in i.decisions if d.verdict == "proved"} >= {"outcome-conflict", "outcome-gap", "overflow"}


@pytest.mark.slow  # (about 60 s: Spacer's questions on the wins of five players, at three states)
def test_a_player_left_without_an_outcome_beyond_the_state_limit_is_walked_and_replayed(monkeypatch):
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "symbolic")
    res = engine.check(["tests/fixtures/player-without-outcome/defect.rw"], Limits(max_states=3))
    (f,) = [f for f in res.findings if f.kind == "player-without-outcome"]
    assert f.engine == unbounded.WALKED and f.replay.status == "confirmed"
    assert "P2, P5 are still in it with no outcome" in f.message
    twin = engine.check(["tests/fixtures/player-without-outcome/twin.rw"], Limits(max_states=3))
    (i,) = twin.instances
    assert {(d.check, d.verdict) for d in i.decisions} >= {("player-without-outcome", "proved"), ("implied-loss", "proved")}
    assert not [f for f in twin.findings if f.kind in ("player-without-outcome", "implied-loss")]


FINITE = """players 2
var x: 0..5 = 0
action inc progress when x < 5 do x := x + 1; end
outcome done: draw when x == 5
"""


def test_an_instance_whose_every_check_is_decided_beyond_the_state_limit_is_complete(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "symbolic")
    path = tmp_path / "finite.rw"
    path.write_text(FINITE, encoding="utf-8")
    res = engine.check([str(path)], Limits(max_states=3))
    (i,) = res.instances
    assert not i.complete and i.decisions and not res.is_incomplete and res.exit_code() == 0
    assert {d.verdict for d in i.decisions} <= {"proved", "found"}
    nothing = {d.check for d in i.decisions if d.engine == unbounded.NOTHING}
    assert nothing == {"never-active", "dead-declaration"}
    # with a player who waits, whether they always get a turn is a question nobody decided here
    path.write_text(FINITE + "var turn: player = P1\nactive p when p == turn\n", encoding="utf-8")
    res = engine.check([str(path)], Limits(max_states=3))
    (line,) = [x for x in res.incomplete if "exploration stopped" in x]
    # (the game is finite, so P2 starves on no cycle; but nobody saw P2 active)
    assert line.endswith("not checked: never-active") and res.exit_code() == 3


def test_what_the_encoding_cannot_express_leaves_each_question_undecided_never_an_internal_error(tmp_path, monkeypatch):
    # a range whose bounds depend on the state: the ranking search's claims met it unguarded
    # (found by running the grand melee with triggers under the default engine)
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "symbolic")
    path = tmp_path / "ranged.rw"
    path.write_text("players 2\nvar x: 0..3 = 0\nvar y: 0..3 = 0\n"
                    "action a when exists k in 1..x: k == 2 do y := (y + 1) % 4; end\n"
                    "action b progress when x < 3 do x := x + 1; end\n"
                    "outcome done: draw when x == 3 and y == 3\n", encoding="utf-8")
    res = engine.check([str(path)], Limits(max_states=3))
    unsure = [w for w in res.incomplete if "not encoded for the symbolic engine" in w]
    assert any("livelock not decided" in w for w in unsure) and res.exit_code() == 3


def test_a_question_the_wall_clock_bound_stopped_is_a_limit_not_an_answer(tmp_path):
    # the work limit gives the same answer on every machine; the wall-clock bound does not, so
    # what it stops is no answer (Z3 says "canceled" for both): the instance is stopped instead
    import time
    from checker.limits import LimitHit
    inst = instance(ffa_spec(4, 8000, tmp_path))
    prover = horn.Prover(inst)
    prover.system(False)
    prover._deadline = time.monotonic() + 0.002  # a win thousands of steps deep: never in 2 ms
    with pytest.raises(LimitHit, match="the wall-clock bound stopped it, not its share of work"):
        prover._query(False, unbounded._wins(0, False), 20)
    prover._deadline = float("inf")
    a = prover._query(False, unbounded._wins(0, False), 0.001)  # its work runs out first: an answer
    assert a.verdict == horn.UNKNOWN and a.why == "Spacer: its share of work ran out"


def test_the_wall_clock_bound_recorded_for_a_call_is_the_one_z3_was_given():
    # Z3 takes whole milliseconds: a call given 1.9 ms stops after 1, and with 1.9 recorded its
    # "canceled" looked short of the bound, an answer of its work rather than the clock's
    # (the test above failed now and then)
    import time

    import z3

    from checker.symbolic.terms import WALL_BOUND
    s = z3.Solver()
    horn.limit(s, 20, time.monotonic() + 0.0019)
    assert getattr(s, WALL_BOUND) == 0.001
    horn.limit(s, 20, time.monotonic() - 5)  # a moment passed already: the least Z3 takes
    assert getattr(s, WALL_BOUND) == 0.001


def test_a_question_gets_the_same_work_whatever_time_the_instance_has_left(tmp_path):
    # an answer must be the one its work gives: with the work cut to the CPU time left, the
    # last questions of an instance near its share answered otherwise from run to run
    from checker.analyses.decision import QUERY_SECONDS, Questions
    from checker.limits import LimitHit
    prover = horn.Prover(instance(ffa_spec(3, 20, tmp_path)))
    assert Questions(prover, Budget(Limits(max_seconds=600))).work() == QUERY_SECONDS
    assert Questions(prover, Budget(Limits(max_seconds=1))).work() == QUERY_SECONDS
    with pytest.raises(LimitHit):  # no time at all: no question, and no "unknown" either
        Questions(prover, Budget(Limits(max_seconds=0))).work()


def test_a_question_the_time_left_cut_short_stops_the_instance_instead_of_answering(tmp_path):
    # Z3 cannot be interrupted, so its calls stop by the moment the time left allows
    # (terms.clock); an unknown said then is the clock's, not the work's, and must not send
    # the engine on (bounded model checking where Spacer was cut short gave another trace)
    from checker.limits import LimitHit
    from checker.symbolic import terms
    prover = horn.Prover(instance(ffa_spec(4, 8000, tmp_path)))
    prover.system(False)
    with terms.clock(Budget(Limits(max_seconds=0.3))), pytest.raises(LimitHit):
        prover.ask(unbounded._wins(0, False), 20)  # a win thousands of steps deep: never in 0.3 s
    assert prover.ask(horn.no_step, 20).verdict == horn.PROVED  # the clock is the caller's only


def test_a_stop_keeps_what_the_symbolic_engine_decided_before_it(tmp_path, monkeypatch):
    # each decision made had its whole work: a stop later leaves it as it is
    from checker.limits import LimitHit
    from checker.symbolic import ranking

    def stop(*_):
        raise LimitHit("time limit of 60s reached")
    monkeypatch.setattr(unbounded, "_cycles", stop)  # the time runs out at the cycle checks
    path = tmp_path / "c.rw"
    path.write_text(COUNTER.format(high=10), encoding="utf-8")
    inst = instance(path)
    _, decisions = unbounded.decide(inst, [], {"wins": 0, "team_wins": 0}, Budget(Limits(max_seconds=60)))
    verdicts = {(d.check, d.subject): (d.verdict, d.detail) for d in decisions}
    assert verdicts[("overflow", "")][0] == verdicts[("invariant", "small")][0] == "proved"
    stopped = ("unknown", "the symbolic engine stopped (time limit of 60s reached)")
    assert all(verdicts[(kind, "")] == stopped for kind in ranking.CHECKS)
    assert verdicts[("dead-rule", "")] == stopped
    assert unbounded.not_decided(inst, decisions) == ["never-active"]  # (`beyond` decides that one after)


def _decided(path, limits):
    from checker.outputs.report import as_json
    import json
    return [i.get("decisions") for i in json.loads(as_json(engine.check([str(path)], limits)))["instances"]]


@pytest.mark.slow
@pytest.mark.parametrize("fresh", [True, False])
def test_a_proof_reads_the_same_whatever_the_process_checked_before(tmp_path, monkeypatch, fresh):
    # Z3 numbers terms in the order a context makes them, and Spacer's invariants follow that
    # order: without a context per instance, one worker and two gave different reports
    from checker.symbolic import terms
    if not fresh:
        monkeypatch.setattr(terms, "fresh_context", lambda: None)
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "symbolic")
    # (life 20: the proofs differ without a fresh context as at life 100, in a fifth of the time)
    spec, other = ffa_spec(3, 20, tmp_path), tmp_path / "other.rw"
    other.write_text(COUNTER.format(high=10), encoding="utf-8")
    # time enough that the instance is never stopped: it takes about 15 s of CPU, and a stop
    # (a share of the run's time on a loaded machine) is a difference of speed, not of the context
    limits = Limits(max_states=50, max_seconds=600)
    alone = _decided(spec, limits)
    _decided(other, limits)
    after = _decided(spec, limits)
    assert (alone == after) == fresh


@pytest.mark.slow  # (about 3 s: Spacer's questions, twice)
def test_a_directed_search_cut_short_by_time_leaves_the_instance_incomplete(tmp_path, monkeypatch):
    # Spacer would still find the break, but by another engine than on an idle machine: a
    # report that depends on speed is incomplete (its share runs out again, with more time)
    path = tmp_path / "deep.rw"
    path.write_text(DEEP_AT_300.replace("{3, 300}", "{12}"), encoding="utf-8")
    res = engine.check([str(path)], Limits(max_states=40))
    assert [f.engine for f in res.findings if f.kind == "invariant"] == [unbounded.DIRECTED]
    assert not any("directed search stopped" in w for w in res.incomplete)
    monkeypatch.setattr(unbounded, "DIRECTED_SHARE", 1e-9)  # the search stops at its first look at the clock
    res = engine.check([str(path)], Limits(max_states=40))
    assert any("the directed search stopped (the directed search's share ran out) before its 40 expansions" in w
               for w in res.incomplete)
    assert [f.engine for f in res.findings if f.kind == "invariant"] == [unbounded.WALKED] and res.is_incomplete
