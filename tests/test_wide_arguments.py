"""Amounts taken from wide ranges ("set a player's life to x", "deal X damage"): the symbolic
engine takes such an argument as one symbol per step instead of one option per value, the
explorer hands over after a stage sized by the steps per state, and the verdicts stay those
of the explorer wherever it can finish."""
import pytest

from checker import engine
from checker.analyses import unbounded
from checker.limits import Limits
from checker.symbolic import bmc, horn

# Exactly one value of k goes on from each state: a free symbol in the deadlock's "no action
# goes through" would pick a k that fails and call every state a deadlock.
ONE_WAY_ON = """players 2
var x: 0..{high} = 0
action step(k: 0..{high}) progress when k == x + 1 or x == {high} and k == 0 do x := k; end
"""

# the repro of a state limit inside one expansion: 10^8 values of k
JUMP = """players 2
var x: 0..999999 = 0
action jump(k: 0..100000000) when x == 0 and k < 1000000 do x := k; end
"""

HALF = """players 2
var life: 0..8000 = 8000
var mismatch: bool = false
let own = life / 2
action lose(n: 1..8000) progress when life > 0 do life := if n >= life then 0 else life - n end; end
action set_life(x: 0..4000) progress when x != own do
  life := life + (x - own);
  if own != x then mismatch := true; end
end
outcome dead: lose player p when life == 0
invariant exact: not mismatch
"""


def _instance(tmp_path, text, name="w.rw"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    (inst,) = engine.load_instances(str(path))
    return path, inst


def test_a_range_wider_than_the_threshold_is_one_symbol_per_step_and_a_narrow_one_is_listed(tmp_path):
    _, wide = _instance(tmp_path, ONE_WAY_ON.format(high=bmc.SYMBOLIC_ARGUMENT))
    _, narrow = _instance(tmp_path, ONE_WAY_ON.format(high=bmc.SYMBOLIC_ARGUMENT - 2), "n.rw")
    u, f = horn.Prover(wide).frame()
    (o,) = u._options(f)
    assert [str(a) for a in o.args] == ["step@0.k"]
    u, f = horn.Prover(narrow).frame()
    assert len(u._options(f)) == bmc.SYMBOLIC_ARGUMENT - 1 and not any(o.args for o in u._options(f))


def test_no_deadlock_is_proved_where_one_value_of_a_wide_argument_always_goes_on(tmp_path, monkeypatch):
    path, inst = _instance(tmp_path, ONE_WAY_ON.format(high=1000))
    assert horn.Prover(inst).ask(lambda u, f: u.stuck(f), 20).verdict == horn.PROVED
    # and the explorer, which lists every value, agrees
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "explicit")
    res = engine.check([str(path)], Limits(max_states=200_000))
    assert res.instances[0].complete and not [x for x in res.findings if x.kind == "deadlock"]


def test_a_wide_argument_the_guard_refuses_for_some_values_is_no_deadlock_but_a_real_one_is_found(tmp_path):
    path, inst = _instance(tmp_path, JUMP)
    # after the jump, x is above 0 (or 0 again, jumping to 0): Spacer finds the deadlock there
    a = horn.Prover(inst).ask(lambda u, f: u.stuck(f), 20)
    assert a.verdict == horn.REACHABLE and a.path and a.path[-1][0] != 0


def test_the_repro_of_10_to_the_8_values_is_decided_in_little_memory_and_says_what_it_could_not_walk(tmp_path):
    path, _ = _instance(tmp_path, JUMP)
    res = engine.check([str(path)], Limits(max_states=1_000))
    (i,) = res.instances
    assert not any("memory" in line for line in res.incomplete)
    proved = {d.check for d in i.decisions if d.verdict == horn.PROVED}
    assert {"outcome-conflict", "outcome-gap", "overflow"} <= proved
    # a million successors do not fit the walk's room: said, never a finding nor a disagreement
    assert any("deadlock not decided: Spacer's path was not walked to its end" in line for line in res.incomplete)
    assert not res.disagreements and res.exit_code() == 3


def test_auto_hands_over_early_where_each_state_has_thousands_of_steps(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "auto")
    _, inst = _instance(tmp_path, HALF)
    assert unbounded.state_bound(inst) <= 1_000_000  # few states, yet 8,000 + 4,001 steps from each
    assert unbounded.step_bound(inst) == 12_001
    assert unbounded.explorer_states(inst, 1_000_000) == unbounded.AUTO_STAGE
    # the stage's states are reached late (most steps lead to states seen): it is counted in steps too
    assert unbounded.explorer_steps(inst) == unbounded.STAGE_STEPS
    _, small = _instance(tmp_path, ONE_WAY_ON.format(high=10), "s.rw")
    assert unbounded.explorer_states(small, 200_000) == 200_000 and unbounded.explorer_steps(small) == 0
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "explicit")
    assert unbounded.explorer_steps(inst) == 0


@pytest.mark.slow  # (about 5 s: a million steps of the explorer's stage, then Spacer)
def test_an_amount_from_a_range_of_thousands_is_checked_as_written(tmp_path):
    path, _ = _instance(tmp_path, HALF)
    res = engine.check([str(path)], Limits(max_states=200_000))
    (i,) = res.instances
    (f,) = [f for f in res.findings if f.kind == "invariant"]
    # found by the explorer's first stage: the shortest trace, one step deep
    assert f.replay.status == "confirmed" and [s.action for s in f.trace] == ["setup", "set_life(x=0)"]
    # every other check decided beyond the stage: nothing left incomplete
    assert not res.incomplete
    assert i.stop_reason == ("the first 1,008,000 steps under --engine auto: the declared ranges allow "
                             "about 10^5 states, with up to 12,001 steps from each")


def test_a_wide_domain_that_turns_out_empty_leaves_the_explorer_to_finish(tmp_path):
    # 10^10 values beside an empty range: the estimate says wide, the explorer takes few steps
    path, inst = _instance(tmp_path, "players 2\nvar x: 0..3 = 0\naction a(k: 0..10000000000, j: 2..1) do x := 1; end\n"
                                     "action b progress when x < 3 do x := x + 1; end\n")
    assert unbounded.explorer_steps(inst) == unbounded.STAGE_STEPS
    res = engine.check([str(path)], Limits(max_states=200_000))
    assert res.instances[0].complete and not res.instances[0].decisions


def test_the_replay_reads_a_range_argument_by_its_bounds_and_rejects_one_outside(tmp_path):
    from checker.symbolic.replay import ReplayStep, replay
    _, inst = _instance(tmp_path, JUMP)
    pre = (0, 0, 0)  # x = 0, nobody out, no team out
    ok = ReplayStep(pre, 0, (999_999,), (999_999, 0, 0))
    assert replay(inst, [ok]) == ""
    assert replay(inst, [ReplayStep(pre, 0, (100_000_001,), (0, 0, 0))]) == "step 1 (jump): argument k outside its domain"
