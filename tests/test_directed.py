"""The directed search (checker.explicit.directed) and its heuristic (checker.explicit.distance):
a path to a goal deep in a big game, made of real steps, in a graph the checks can read."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from checker.analyses.checks import run_checks_within
from checker.engine import load_instances
from checker.explicit.compiled import machine_for
from checker.explicit.directed import (explore_directed, invariant_fails, player_wins, reachable_goal,
                                       rule_fires, win_goals)
from checker.explicit.distance import distance
from checker.explicit.explore import Limits, explore
from checker.explicit.machine import Machine
from checker.frontend.ends import has_ended
from checker.limits import Budget

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from families import ffa_spec  # noqa: E402  (bench/families.py writes the free-for-all at any size)

SECONDS = 60.0  # CPU seconds a search or the checks may take here: far more than they need
FEW = 20.0  # "a few seconds": the four wins at L = 8,000 take about 5 (checker.explicit.directed)


def ffa(tmp_path_factory, players: int, life: int):
    (inst,) = load_instances(str(ffa_spec(players, life, tmp_path_factory.mktemp("ffa"))))
    return machine_for(inst)


def spec(tmp_path, text: str):
    path = tmp_path / "s.rw"
    path.write_text(text, encoding="utf-8")
    (inst,) = load_instances(str(path))
    return machine_for(inst)


def search(machine, goals, **kw):
    return explore_directed(machine, goals, Limits(max_states=300_000, max_seconds=SECONDS), **kw)


def replays(machine, graph, sid: int) -> bool:
    """Whether the path to `sid` is steps a fresh machine takes: an initial state, then each
    state among the successors of the one before, by the step its label names."""
    fresh = machine_for(machine.inst)
    path = graph.path_to(sid)
    initial = {s for s, _, _ in fresh.initial_states()[0]}
    if graph.states[path[0][0]] not in initial:
        return False
    for (prev, _), (cur, lid) in zip(path, path[1:]):
        steps = fresh.successors(graph.states[prev])
        if (graph.labels[lid], graph.states[cur]) not in {(s[0], s[1]) for s in steps if s.__class__ is tuple}:
            return False
    return True


def winner(machine, state) -> int:
    end = machine.values(state)[-1]
    return end.players if has_ended(end) else 0


# ---------------------------------------------------------------- the free-for-all, deep

@pytest.fixture(scope="module", params=[pytest.param(300, id="L300"),
                                        pytest.param(8000, id="L8000", marks=pytest.mark.slow)])
def ffa_wins(request, tmp_path_factory):
    """Four players with life L: one search for every player's win, and what it cost."""
    m = ffa(tmp_path_factory, 4, request.param)
    t = time.process_time()
    g, found = search(m, win_goals(m))
    return m, g, found, time.process_time() - t


def test_a_path_to_every_players_win_is_found_in_a_few_seconds_made_of_real_steps(ffa_wins):
    m, g, found, cpu = ffa_wins
    assert cpu < FEW
    assert all(f is not None for f in found), g.stop_reason
    for p, sid in enumerate(found):
        assert winner(m, g.states[sid]) == 1 << p
        assert replays(m, g, sid)


def test_the_checks_read_the_searched_graph_as_a_partial_one(ffa_wins):
    m, g, found, _ = ffa_wins
    assert not g.complete and g.stop_reason.startswith("a directed search")
    findings, stopped = run_checks_within(g, Budget(Limits(max_seconds=SECONDS)))
    assert stopped == ""
    assert [f for f in findings if f.kind == "evaluation-error"] == []


def test_the_graph_is_numbered_as_the_checks_read_it(ffa_wins):
    _, g, found, _ = ffa_wins
    pred = g.parent.pred
    for sid in range(len(g.states)):  # every state's parent is expanded, and numbered before it
        p = pred[sid]
        assert p < g.expanded and p < sid
        assert (p < 0) == (sid in g.init_ids)
    assert all(src < g.expanded for src in g.edges.src)  # only expanded states have moves out
    for sid in found:
        assert g.path_to(sid)[0][0] in g.init_ids


def test_two_searches_find_the_same_paths(tmp_path_factory):
    m = ffa(tmp_path_factory, 3, 40)
    paths = []
    for _ in range(2):
        g, found = search(m, win_goals(m))
        paths.append([[(g.states[s], g.labels[lid] if lid >= 0 else None) for s, lid in g.path_to(f)] for f in found])
    assert paths[0] == paths[1] and all(paths[0])


def test_a_partial_breadth_first_graph_is_the_first_frontier(tmp_path_factory):
    m = ffa(tmp_path_factory, 3, 40)
    bfs = explore(m, Limits(max_states=500))
    assert not bfs.complete
    g, found = search(m, win_goals(m), start=bfs)
    assert all(f is not None for f in found)
    assert g.states[:bfs.expanded] == bfs.states[:bfs.expanded]  # what was expanded stays where it was
    assert all(replays(m, g, sid) for sid in found)


def test_the_state_limit_ends_the_search_and_keeps_what_was_found(tmp_path_factory):
    m = ffa(tmp_path_factory, 3, 8000)
    g, found = explore_directed(m, win_goals(m), Limits(max_states=2_000, max_seconds=SECONDS))
    assert found == [None, None, None]
    assert "state limit of 2,000 reached" in g.stop_reason
    assert len(g.states) <= 2_000 + len(g.init_ids) and 0 < g.expanded < len(g.states)


# ---------------------------------------------------------------- the heuristic

def test_p1s_win_is_nearer_as_an_opponents_life_goes_down_and_zero_exactly_where_p1_has_won(tmp_path_factory):
    m = ffa(tmp_path_factory, 3, 5)
    inst = m.inst
    p1 = player_wins(m, 0)
    start = m.values(m.initial_states()[0][0][0])
    life = inst.var("life").offset

    def with_life(q, v):
        vals = list(start)
        vals[life + q] = v
        return m.pack(tuple(vals))
    assert p1.distance(m.pack(start)) == 10.0  # two opponents with 5 life each
    assert p1.distance(with_life(1, 4)) < p1.distance(m.pack(start))
    assert p1.distance(with_life(2, 1)) < p1.distance(with_life(2, 2)) < p1.distance(with_life(2, 3))
    assert p1.distance(with_life(0, 1)) == p1.distance(m.pack(start))  # P1's own life is no step towards it
    g = explore(m, Limits(max_states=100_000))
    assert g.complete
    wins = [s for s in g.states if winner(m, s) == 1]
    assert wins and all(p1.holds(s) == (winner(m, s) == 1) == (p1.distance(s) == 0.0) for s in g.states)


def test_the_distance_of_a_win_rule_is_what_the_opponents_have_left(tmp_path_factory):
    m = ffa(tmp_path_factory, 4, 8000)
    (rule,) = [r.decl for r in m.win_rules]
    state = m.initial_states()[0][0][0]
    for p in range(4):  # each of the three others has 8,000 life: that much damage away
        assert distance(m, rule.cond, state, {rule.binder: p}) == 24_000.0


# The win is read off the totals and who is out (a player may resign); whose turn it is and
# the tap are not read by any outcome rule.
TOTALS_AND_TURN = """
players 2
var turn: player = P1
var life(p: player): 0..30 = 30
var tapped: bool = false
action hit(q: players) progress when q != turn and life[q] > 0 do life[q] := life[q] - 1; end
action tap progress when not tapped do tapped := true; end
action end_turn progress do turn := next(turn); tapped := false; end
action resign(q: players) progress when q == turn do lose q; end
outcome out_of_life: lose player p when life[p] <= 0
outcome last_standing: win player p when forall q in players: q == p or lost(q)
"""


def test_a_distance_kept_by_the_totals_it_reads_is_the_closures_distance_in_every_state(tmp_path):
    m = spec(tmp_path, TOTALS_AND_TURN)
    read = m.entries_read([r.decl.cond for r in m.outcomes])
    assert [m.fields[i].var.name for i in read if i < len(m.fields)] == ["life"]  # and who is out
    closures = Machine(m.inst)
    g = explore(m, Limits(max_states=100_000))
    assert g.complete
    for p in range(2):
        kept, computed = player_wins(m, p), player_wins(closures, p)
        assert all(kept.distance(s) == computed.distance(m.values(s)) for s in g.states)
    g1, found1 = search(m, win_goals(m))
    g2, found2 = search(closures, win_goals(closures))
    assert [len(g1.path_to(s)) for s in found1] == [len(g2.path_to(s)) for s in found2]
    assert len(g1.states) == len(g2.states)


COUNTER = """spec "Counter" formalizes "counter.txt"
document { 1 2 }
players [1] 2
var x [1]: 0..MAX = 0
action up [1] when x < TOP do x := x + 1; end
action down [1] when x > 0 do x := x - 1; end
invariant small [2]: x <= 2
reachable past_the_top [2]: x == MAX
"""


def test_a_goal_never_reached_is_not_found_without_error(tmp_path):
    m = spec(tmp_path, COUNTER.replace("MAX", "9").replace("TOP", "3"))
    g, found = search(m, [reachable_goal(m, "past_the_top")])
    assert found == [None]
    assert g.expanded == len(g.states) == 4  # every state expanded: x is 0..3


def test_a_goal_gets_no_more_than_its_share_of_the_expansions(tmp_path):
    m = spec(tmp_path, COUNTER.replace("MAX", "1000").replace("TOP", "999"))
    t = time.process_time()
    g, found = search(m, [reachable_goal(m, "past_the_top"), invariant_fails(m, "small")], max_expansions=40)
    assert time.process_time() - t < 5
    assert found[0] is None and g.expanded <= 20 + 3  # its half of 40, then x = 3 for the invariant
    assert found[1] is not None and g.values(found[1])[0] == 3
    assert "1 of 2 goal(s) reached" in g.stop_reason


def test_an_action_goal_is_met_where_its_guard_holds(tmp_path):
    m = spec(tmp_path, COUNTER.replace("MAX", "9").replace("TOP", "3"))
    g, found = search(m, [rule_fires(m, "down")])
    assert g.values(found[0])[0] == 1 and len(g.path_to(found[0])) == 2


def test_the_checks_report_what_the_search_reached_with_its_path(tmp_path):
    m = spec(tmp_path, COUNTER.replace("MAX", "1000").replace("TOP", "999"))
    g, found = search(m, [invariant_fails(m, "small")])
    findings, _ = run_checks_within(g, Budget(Limits(max_seconds=SECONDS)))
    (broken,) = [f for f in findings if f.kind == "invariant"]
    assert [st.action for st in broken.trace] == ["setup", "up", "up", "up"]
    assert broken.trace[-1].sid == found[0]


# ---------------------------------------------------------------- a path Spacer found, walked

COUNTER_TO_DEADLOCK = "players 2\nvar x: 0..5 = 0\nvar seen: bool = false\n" \
                      "action up progress when x < 5 do x := x + 1; seen := true; end\n"


def test_the_explorer_walks_the_path_spacer_found_to_a_deadlock_and_its_checks_find_it_there(tmp_path):
    from checker.analyses.unbounded import SAFETY
    from checker.explicit.directed import follow
    from checker.symbolic import horn
    machine = spec(tmp_path, COUNTER_TO_DEADLOCK)
    answer = horn.Prover(machine.inst).ask(dict(SAFETY)["deadlock"], 20)
    assert answer.verdict == horn.REACHABLE and answer.setup == horn.SETUP
    # each state as the explorer lays it out: x, seen, the players out, the teams out
    assert answer.path == ((0, False, 0, 0), (1, True, 0, 0), (2, True, 0, 0), (3, True, 0, 0), (4, True, 0, 0),
                           (5, True, 0, 0))
    graph, last, fitted = follow(machine, list(answer.path))
    assert fitted == 6 and last is not None and replays(machine, graph, last)
    found, _ = run_checks_within(graph, None)
    assert [(f.kind, len(f.trace)) for f in found] == [("deadlock", 6)]


def test_a_path_the_explorer_has_no_step_for_is_not_walked_to_its_end(tmp_path):
    from checker.explicit.directed import follow
    machine = spec(tmp_path, COUNTER_TO_DEADLOCK)
    graph, last, fitted = follow(machine, [(0, False, 0, 0), (2, True, 0, 0), (3, True, 0, 0)])  # no step adds 2
    assert last is None and fitted == 1
    assert "1 of 3 step(s)" in graph.stop_reason


# a counter raised by any amount, or the game conceded (a `leave` move): 500 steps a state
AMOUNTS = "players 2\nvar x: 0..1000 = 0\n" \
          "action add(n: 1..499) progress when x < 1000 do x := if x + n > 1000 then 1000 else x + n end; end\n" \
          "action concede(p: player) leave do leave p; end\n"


def test_a_walk_keeps_the_steps_along_its_path_and_a_game_move_so_no_state_looks_deadlocked(tmp_path):
    from checker.explicit.directed import follow
    machine = spec(tmp_path, AMOUNTS)
    graph, last, fitted = follow(machine, [(0, 0, 0), (7, 0, 0), (7, 1, 0)])  # add 7, then P1 concedes
    assert fitted == 3 and last is not None and replays(machine, graph, last)
    out_of = {}
    for s, d in zip(graph.edges.src, graph.edges.dst):
        out_of.setdefault(graph.states[s], []).append(graph.states[d])
    (setup,) = (graph.states[sid] for sid in graph.init_ids)

    def seen(state):  # x, and who is out as a mask (the slot holds more above: why)
        return [(v[0], v[1] & 3) for v in map(machine.values, out_of[state])]
    # the setup: the one step to x = 7 (of 499); at x = 7: the concession the path takes, and
    # one game move besides (a concession is no game move: the deadlock check would see none)
    assert seen(setup) == [(7, 0)]
    assert sorted(seen(out_of[setup][0])) == [(7, 1), (8, 0)]
    found, _ = run_checks_within(graph, None)
    assert not [f for f in found if f.kind == "deadlock"]
