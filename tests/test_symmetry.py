"""Symmetry reduction (checker.explicit.symmetry): which instances it applies to, canonical
forms, the reduced search's counts, de-canonicalized counterexamples, and the differential
test the issue asks for: every finding is the same with the reduction on and off."""
import json
import re
from pathlib import Path

import pytest

from bundled import bundled
from checker.analyses.checks import run_checks
from checker.engine import load_instances
from checker.explicit import symmetry
from checker.explicit.compiled import CompiledMachine
from checker.explicit.explore import Limits, explore
from checker.outputs import report
from checker.analyses.verdicts import CONFIRMED

ROOT = Path(__file__).resolve().parent.parent
MARKERS = ROOT / "bench" / "peers" / "markers.rw"

RING = """spec "ring" formalizes "ring.txt"
document {
  1: "players sit in a ring"
  2: "a turn passes to the left"
}
players [1] 5
var turn [2]: player = any
var done(p: player) [2]: bool = false
action pass [2] progress when not done[turn] do
  done[turn] := true;
  turn := next(turn);
end
action reset [2] progress when forall p in players: done[p] do
  {body}
end
"""


def _instance(tmp_path, text: str):
    path = tmp_path / "s.rw"
    path.write_text(text, encoding="utf-8")
    return load_instances(str(path))[0]


def _ring(tmp_path):
    return _instance(tmp_path, RING.replace("{body}", "turn := next(turn);"))


def _markers(tmp_path, n: int, departures: int = 0):
    text = MARKERS.read_text(encoding="utf-8")
    text = re.sub(r"(param N \[[^\]]*\] in )\S+", rf"\g<1>{n}..{n}", text)
    text = re.sub(r"(param DEPARTURES \[[^\]]*\] in )\S+", rf"\g<1>{departures}..{departures}", text)
    return _instance(tmp_path, text)


# ---------------------------------------------------------------- detection

def test_a_ring_whose_rules_treat_every_seat_alike_is_reduced_by_its_rotations(tmp_path):
    assert symmetry.detect(_ring(tmp_path)) == (5, "")


@pytest.mark.parametrize("guard, why", [
    ("turn != P1", "the rules name P1"),
    ("seat(turn) > 0", "the rules read seat()"),
    ("player_at(1) != turn", "the rules read player_at()"),
    ("after(turn, P1, P2) != turn", "the rules read after()"),
    ("argmax(p in players: 1) != turn", "argmax over players breaks ties by seat"),
])
def test_a_rule_that_can_tell_seats_apart_disables_rotation(tmp_path, guard, why):
    text = RING.replace("{body}", "turn := next(turn);").replace("when not done[turn]", f"when not done[turn] and {guard}")
    n, reason = symmetry.detect(_instance(tmp_path, text))
    assert n == 0 and reason == why


@pytest.mark.parametrize("body", [
    "forall p in players do done[next(p)] := not done[p]; end",  # each turn reads what the one before wrote
    "forall p in players do if not lost(next(p)) then lose p; end end",  # sees the losses of the turns before
])
def test_a_forall_statement_whose_turns_see_each_other_runs_in_seat_order_and_disables_rotation(tmp_path, body):
    text = RING.replace("{body}", body)
    assert symmetry.detect(_instance(tmp_path, text)) == (0, "a `forall ... do` over players runs in seat order")


def test_a_forall_statement_that_touches_only_its_own_players_places_keeps_rotation(tmp_path):
    text = RING.replace("{body}", "forall p in players do done[p] := not done[p]; if done[p] then lose p; end end")
    assert symmetry.detect(_instance(tmp_path, text)) == (5, "")


def test_teams_disable_rotation(tmp_path):
    text = RING.replace("players [1] 5", "teams [1] A, B size 2").replace("{body}", "turn := next(turn);")
    assert symmetry.detect(_instance(tmp_path, text)) == (0, "the model has teams")


def test_an_asymmetric_setup_does_not_disable_rotation(tmp_path):
    # 607.7a puts the markers on seats 0, 4, 8...: only the initial states read seat()
    assert symmetry.detect(_markers(tmp_path, 12)) == (12, "")


# ---------------------------------------------------------------- canonical forms

def test_every_rotation_of_a_state_has_the_same_canonical_form_and_the_fast_path_agrees(tmp_path):
    inst = _markers(tmp_path, 13)
    m = CompiledMachine(inst)
    rot = symmetry.Rotation(m, 13)
    g = explore(m, Limits(max_states=500))
    for state in g.states:
        key, rho, stab = rot.canon(state)
        assert (key, rho, stab) == rot.canon_slow(state)
        assert rot.apply(state, (13 - rho) % 13) == key  # state = rotate(canonical, rho)
        for r in range(13):
            assert rot.canon(rot.apply(state, r)[:-1] + (state[-1],))[0] == key


LIFE = """players 4
var life(p: player): 0..2 = 2
var turn: player = P1
var hit: set player = {}
action attack(p: player, q: player) progress when p == turn and q != p and in_game(q) and life[q] > 0 do
  life[q] := life[q] - 1;
  hit := hit + {q};
  turn := next_in_game(turn);
end
action concede(p: player) leave when in_game(p) do lose p; end
outcome ko: lose player p when life[p] == 0
outcome last: win player p when in_game(p) and size(remaining) == 1
"""


def test_the_generated_canonical_form_agrees_where_rotations_tie_on_the_seats_out(tmp_path):
    """Life per seat, a player, a set of players: no per-seat marker, so before anyone leaves
    every rotation ties on the mask of players out and the full keys are compared."""
    m = CompiledMachine(_instance(tmp_path, LIFE))
    rot = symmetry.Rotation(m, 4)
    assert rot.canon != rot.canon_slow
    g = explore(m, Limits(max_states=5000))
    assert g.complete
    for state in g.states:
        key, rho, stab = rot.canon(state)
        assert (key, rho, stab) == rot.canon_slow(state)
        for r in range(4):  # (the winners in the end marker move too)
            assert rot.canon(rot.apply(state, r))[0] == key


def test_the_stabilizer_counts_the_rotations_that_fix_a_state(tmp_path):
    inst = _markers(tmp_path, 12)
    m = CompiledMachine(inst)
    rot = symmetry.Rotation(m, 12)
    (state,) = [s for s, _, _ in m.initial_states()[0]]  # markers on seats 0, 4, 8: fixed by rotations of 4 and 8
    assert rot.canon(state)[2] == 3


# ---------------------------------------------------------------- the reduced search

@pytest.mark.parametrize("n, departures", [(13, 0), (18, 0), (23, 0), (9, 1), (10, 1)])
def test_the_reduced_search_counts_the_states_and_transitions_of_the_full_one(tmp_path, n, departures):
    inst = _markers(tmp_path, n, departures)
    full = explore(CompiledMachine(inst))
    m = CompiledMachine(inst)
    red = symmetry.explore_reduced(m, symmetry.Rotation(m, n))
    assert red is not None and red.complete
    assert (red.nreal, red.nreal_edges) == (len(full.states), len(full.edges))
    # its states are the full search's first state of each orbit, in the full search's order, with the same parents
    ids = [full.index[s] for s in red.states]
    assert ids == sorted(ids)
    assert [full.parent[i][0] if full.parent[i] else None for i in ids] == \
        [ids[p[0]] if p else None for p in red.parent]


@pytest.mark.parametrize("n, step", [(12, 4), (16, 4), (24, 4)])
def test_where_the_play_does_not_rotate_the_setup_the_rotations_that_fix_the_setup_still_reduce(tmp_path, n, step):
    # with 4k seats the markers sit on every fourth seat and block each other at once
    inst = _markers(tmp_path, n)
    m = CompiledMachine(inst)
    assert symmetry.explore_reduced(m, symmetry.Rotation(m, n)) is None
    assert symmetry.setup_step(m, n) == step
    red = symmetry.explore_reduced(m, symmetry.Rotation(m, n, step))
    full = explore(CompiledMachine(inst))
    assert (red.nreal, red.nreal_edges) == (len(full.states), len(full.edges))
    assert len(red.states) < len(full.states)


def test_a_setup_whose_rotations_are_never_reached_is_explored_in_full(tmp_path):
    # P1 starts (only the setup names a player); "P2 starts" is never reached, so the orbit
    # sizes would overcount: the reduced search says so and the instance is explored in full
    inst = _instance(tmp_path, """spec "s" formalizes "s.txt"
document {
  1: "P1 starts"
}
players [1] 3
var turn [1]: player = P1
var started [1]: bool = false
action start [1] progress when not started do started := true; end
action pass [1] progress when started do turn := next(turn); end
""")
    m = CompiledMachine(inst)
    assert symmetry.detect(inst)[0] == 3
    assert symmetry.explore_reduced(m, symmetry.Rotation(m, 3)) is None


@pytest.mark.parametrize("n", [18, 23])  # 18: the cycle passes states that rotations by 9 fix
def test_a_forced_loop_found_on_the_quotient_is_a_real_lasso_that_z3_replays(tmp_path, n):
    from checker.analyses.replay import replay_finding
    inst = _markers(tmp_path, n)
    m = CompiledMachine(inst)
    red = symmetry.explore_reduced(m, symmetry.Rotation(m, n))
    full = run_checks(explore(CompiledMachine(inst)))
    (loop,) = [f for f in run_checks(red) if f.kind == "forced-loop"]
    (expected,) = [f for f in full if f.kind == "forced-loop"]
    assert (set(loop.rules), loop.size) == (set(expected.rules), expected.size)
    assert loop.trace[loop.loop_start].state == loop.trace[-1].state  # the lifted cycle closes on a real state
    assert replay_finding(m, red, loop) == CONFIRMED


# ---------------------------------------------------------------- triggers

# A step that knocks out two neighbours at once fires the trigger for both, by seat. `{trigger}`
# either counts the departures (the order cannot matter) or marks the first player it fires for
# (the seat order decides which: from P4 and P1 it marks P1, from P1 and P2 it marks P1 too,
# so the same step from a rotated state does not give the rotated state).
PAIRS = """spec "pairs" formalizes "pairs.txt"
document {
  1: "four players sit in a ring, each with one life"
  2: "a player still in the game may knock out the player on his left with himself"
  3: "a player with no life left is out"
  4: "what happens when a player goes out"
}
players [1] 4
var life(p: player) [1]: 0..1 = 1
var gone [4]: 0..4 = 0
var mark [4]: player? = none
action knock(p: player) [2] progress when in_game(p) and in_game(next(p)) do
  life[p] := 0;
  life[next(p)] := 0;
end
outcome out [3]: lose player p when life[p] == 0
{trigger}
"""
COUNTS = "trigger counted [4] on lose player q do gone := gone + 1; end"
MARKS_FIRST = "trigger marked [4] on lose player q when mark == none do mark := q; end"


def _pairs(tmp_path, trigger: str):
    return _instance(tmp_path, PAIRS.replace("{trigger}", trigger))


@pytest.mark.parametrize("trigger", [COUNTS, MARKS_FIRST])
def test_triggers_are_no_reason_to_refuse_rotation(tmp_path, trigger):
    assert symmetry.detect(_pairs(tmp_path, trigger)) == (4, "")


def test_a_trigger_that_names_a_player_disables_rotation(tmp_path):
    text = "trigger named [4] on lose player q when q == P2 do gone := gone + 1; end"
    assert symmetry.detect(_pairs(tmp_path, text)) == (0, "the rules name P2")


def test_triggers_fired_for_several_players_whose_order_cannot_matter_keep_the_reduction(tmp_path):
    inst = _pairs(tmp_path, COUNTS)
    m = CompiledMachine(inst)
    red = symmetry.explore_reduced(m, symmetry.Rotation(m, 4))
    full = explore(CompiledMachine(inst))
    assert red is not None and len(red.states) < len(full.states)
    assert (red.nreal, red.nreal_edges) == (len(full.states), len(full.edges))
    assert m.order_sensitive == "" and not m.watch_order  # compared while searching, and no longer


def test_triggers_whose_seat_order_matters_make_the_reduced_search_give_way_to_the_full_one(tmp_path):
    m = CompiledMachine(_pairs(tmp_path, MARKS_FIRST))
    with pytest.raises(symmetry.Unreduced, match="marked"):
        symmetry.explore_reduced(m, symmetry.Rotation(m, 4))
    # what the reduction would have got wrong: the full graph is not closed under rotation of its steps
    full = explore(CompiledMachine(_pairs(tmp_path, MARKS_FIRST)))
    rot = symmetry.Rotation(m, 4)
    keys = {rot.apply(s, 0) for s in full.states}
    assert any(rot.apply(s, 1) not in keys for s in full.states)


def test_resolutions_cached_before_the_reduced_search_are_compared_again(tmp_path):
    m = CompiledMachine(_pairs(tmp_path, MARKS_FIRST))
    explore(m)  # every step resolved and cached, the seat orders not compared
    with pytest.raises(symmetry.Unreduced, match="marked"):
        symmetry.explore_reduced(m, symmetry.Rotation(m, 4))


@pytest.mark.parametrize("trigger", [COUNTS, MARKS_FIRST])
def test_every_finding_of_a_model_with_triggers_is_the_same_with_symmetry_on_and_off(tmp_path, trigger, monkeypatch,
                                                                                   capsys):
    path = tmp_path / "pairs.rw"
    path.write_text(PAIRS.replace("{trigger}", trigger), encoding="utf-8")
    off, off_sizes = _findings(str(path), "off", monkeypatch, capsys)
    on, on_sizes = _findings(str(path), "auto", monkeypatch, capsys)
    assert off and on == off
    assert on_sizes[:-1] == off_sizes[:-1]
    (used,) = on_sizes[-1][1]
    if trigger == COUNTS:
        assert used == "rotations of 4 seats"
    else:
        assert used.startswith("none: the triggers marked end otherwise")


def test_the_grand_melee_written_with_triggers_is_reduced_and_finds_what_the_full_graph_finds(tmp_path, monkeypatch,
                                                                                               capsys):
    # the measured model (bench/peers/melee_triggers.rw) at 8 seats: one player leaves per step,
    # so its two triggers never fire for two players at once
    text = (ROOT / "bench" / "peers" / "melee_triggers.rw").read_text(encoding="utf-8")
    path = tmp_path / "melee.rw"
    path.write_text(text.replace("players [607.1] 12", "players [607.1] 8"), encoding="utf-8")
    off, off_sizes = _findings(str(path), "off", monkeypatch, capsys)
    on, on_sizes = _findings(str(path), "auto", monkeypatch, capsys)
    assert [f[0] for f in off] == ["deadlock"] and on == off
    assert on_sizes[:-1] == off_sizes[:-1]
    assert on_sizes[-1][1] == ["rotations of 8 seats by multiples of 4 (those that map the setup onto itself)"]


# ---------------------------------------------------------------- the differential test

def _findings(target: str, mode: str, monkeypatch, capsys) -> tuple[list, list]:
    from checker.cli import main
    monkeypatch.setenv("RULEWRIGHT_SYMMETRY", mode)
    main(["check", target, "--jobs", "1", "--output-format", "json", "--stats", "--max-seconds", "900"])
    return _compared(json.loads(capsys.readouterr().out))


def _compared(doc: dict) -> tuple[list, list]:
    """What must not change with symmetry: the findings, and the instances' sizes (the reduced
    search counts the full graph's states); last, the symmetry each instance used."""
    found = sorted((f["kind"], f["fingerprint"], sorted(f["rules"]), f["subject"], f.get("size"), f["instances"],
                    f["status"], f.get("replay", "")) for f in doc["findings"])
    sizes = [(i["instance"], i["states"], i["transitions"], i["complete"]) for i in doc["instances"]]
    return found, sizes + [("symmetry", [i["symmetry"] for i in doc["instances"]])]


@pytest.mark.slow
def test_every_finding_of_the_fixtures_is_the_same_with_symmetry_on_and_off(monkeypatch, capsys):
    off, off_sizes = _findings("tests/fixtures", "off", monkeypatch, capsys)
    on, on_sizes = _findings("tests/fixtures", "auto", monkeypatch, capsys)
    assert on == off
    assert on_sizes[:-1] == off_sizes[:-1]  # states and transitions: the orbit sizes count the full graph
    assert any(not s.startswith("none") for s in on_sizes[-1][1])  # the reduction did apply somewhere


@pytest.mark.slow
def test_every_finding_of_the_bundled_specs_is_the_same_with_symmetry_on_and_off():
    # (the runs are shared with other tests: tests/bundled.py)
    off, off_sizes = _compared(json.loads(report.as_json(bundled(symmetry="off"), stats=True)))
    on, on_sizes = _compared(json.loads(report.as_json(bundled(symmetry="auto"), stats=True)))
    assert on == off
    assert on_sizes[:-1] == off_sizes[:-1]  # states and transitions: the orbit sizes count the full graph
    assert any(not s.startswith("none") for s in on_sizes[-1][1])  # the reduction did apply somewhere


STARVING = """spec "skips" formalizes "skips.txt"
document {
  1: "the turn passes to the left"
  2: "a player may pass the turn two seats on"
}
players [1] 6
var turn [1]: player = any
active p [1] when turn == p
action pass [1] progress do turn := next(turn); end
action jump [1, 2] progress do turn := left(turn, 2); end
action stop [1] do draw; end
"""


def test_starvation_carries_the_player_along_the_quotient_and_its_lasso_is_replayed(tmp_path):
    from checker.analyses.replay import replay_finding
    inst = _instance(tmp_path, STARVING)
    m = CompiledMachine(inst)
    red = symmetry.explore_reduced(m, symmetry.Rotation(m, 6))
    assert len(red.states) == 2 and red.nreal == 12  # two orbits: whose turn it is, running or drawn
    (got,) = [f for f in run_checks(red) if f.kind == "starvation"]
    (want,) = [f for f in run_checks(explore(CompiledMachine(inst))) if f.kind == "starvation"]
    assert (set(got.rules), got.size) == (set(want.rules), want.size) == ({"1", "2"}, 6)  # every cycle jumps
    assert replay_finding(m, red, got) == CONFIRMED
    starved = got.message.split()[0]  # the trace's cycle never gives that player the turn
    assert all(dict(st.state)["turn"] != starved for st in got.trace[got.loop_start:])


def test_a_finite_game_whose_complete_plays_are_searched_falls_back_to_the_full_graph(tmp_path):
    text = STARVING.replace("var turn [1]: player = any", "var turn [1]: player = any\nvar moves [1]: 0..2 = 0")
    text = text.replace("progress do turn := next(turn);", "progress when moves < 2 do moves := moves + 1; turn := next(turn);")
    text = text.replace("[1, 2] progress do turn := left(turn, 2);",
                        "[1, 2] progress when moves < 2 do moves := moves + 1; turn := left(turn, 2);")
    text += "outcome over [1]: draw when moves == 2\n"
    inst = _instance(tmp_path, text)
    m = CompiledMachine(inst)
    red = symmetry.explore_reduced(m, symmetry.Rotation(m, 6))
    with pytest.raises(symmetry.Unreduced):
        run_checks(red)


# P1 starts and the turn never passes: P2 is never active. The rules treat seats alike, so the
# search is reduced, but its one initial state is no rotation of itself.
ONE_STARTS = """players 2
var life(p: player): 0..100 = 100
var turn: player = P1
action hit(q: players, n: 1..3) progress when q != turn and life[q] > 0 do
  life[q] := if n >= life[q] then 0 else life[q] - n end;
end
action pass progress do
  turn := turn;
end
outcome dead: lose player p when life[p] <= 0
outcome last: win player p when forall q in players: q == p or lost(q)
active p when p == turn
"""


def test_a_search_stopped_before_closure_under_rotation_says_nothing_of_the_players_it_rotates_to(tmp_path, monkeypatch):
    # (seen with the symbolic engine taking over: P1 active on a cycle of the stopped reduced
    # search counted as every player active, and never-active was called proved)
    from checker import engine
    path = tmp_path / "one.rw"
    path.write_text(ONE_STARTS, encoding="utf-8")
    m = CompiledMachine(load_instances(str(path))[0])
    g = symmetry.explore_reduced(m, symmetry.Rotation(m, 2), Limits(max_states=20))
    assert not g.complete and not g.closed
    assert symmetry.player_orbits(g, {0}) == {0}
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "symbolic")
    stopped = engine.check([str(path)], Limits(max_states=20))
    assert not [d for d in stopped.instances[0].decisions if d.check == "never-active" and d.verdict == "proved"]
    # the complete search shows the closure, or gives way to the full graph: P2 is never active
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "explicit")
    full = engine.check([str(path)])
    assert [f.message for f in full.findings if f.kind == "never-active"] == ["P2 is never active in any reachable state"]
