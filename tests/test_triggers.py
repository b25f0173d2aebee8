"""Events and triggers (docs/language.md, "Events and triggers"), as specifications.

Each test is a small spec and a play; the step is taken by the closure machine (the reference),
by the compiled successors and by the Z3 replay, and all three must give the state the test
states. A play is a list of action texts as traces print them (`hit(q=P2)`).
"""
from __future__ import annotations

import pytest

from checker import engine
from checker.engine import load_instances
from checker.explicit.compiled import CompiledMachine
from checker.explicit.explore import describe_action
from checker.explicit.machine import Machine
from checker.frontend.diagnostics import SpecError
from checker.frontend.ends import is_gap
from checker.symbolic.replay import ReplayStep, replay
from checker.analyses.verdicts import CONFIRMED

RING = """
players 4
var turn: player = P1
var life(p: player): 0..2 = 1
var log: 0..9999 = 0
var n: 0..9 = 0
action hit(q: player) progress when in_game(q) and q != turn do
  life[q] := 0;
  turn := next_in_game(turn);
end
action quake progress do
  forall q in opponents(turn) do life[q] := 0; end
end
action pass progress do turn := next_in_game(turn); end
outcome dead: lose player p when life[p] == 0
"""


def play(text: str, *moves: str, tmp_path) -> dict:
    """The state after `moves` from the first initial state, in words ({"turn": "P3", "life[P2]":
    "0", "out": "P2", "end": ...}); the three engines must agree on every step."""
    path = tmp_path / "t.rw"
    path.write_text(text, encoding="utf-8")
    inst = load_instances(str(path))[0]
    ref, fast = Machine(inst), CompiledMachine(inst)
    (s, _, _), = ref.initial_states()[0][:1]
    (f, _, _), = fast.initial_states()[0][:1]
    for move in moves:
        steps = {describe_action(ref, st.action, st.binding): st for st in ref.successors(s)}
        assert move in steps, f"{move} is not possible; possible: {sorted(steps)}"
        st = steps[move]
        assert st.target is not None, f"{move} fails: {st.error}"
        quick = {describe_action(fast, k[0], k[1]): (t, k[2]) for (k, t, _) in
                 (x for x in fast.successors(f) if isinstance(x, tuple))}
        assert fast.unpack(quick[move][0]) == st.target and quick[move][1] == st.hits, "compiled successors differ"
        problem = replay(inst, [ReplayStep(s, st.action, st.binding, st.target, hits=st.hits)])
        assert problem == "", f"Z3 replay: {problem}"
        s, f = st.target, quick[move][0]
    return words(inst, s)


def words(inst, state) -> dict:
    out = {}
    for v in inst.vars:
        keys = v.index_keys(inst) if v.indexed else [None]
        for j, key in enumerate(keys):
            out[v.name if key is None else f"{v.name}[{key}]"] = inst.show_value(v, state[v.offset + j])
    k = inst.nslots
    out["out"] = ",".join(p for i, p in enumerate(inst.players) if state[k] >> i & 1)
    end = state[-1]
    out["end"] = ("gap" if is_gap(end) else "won " + ",".join(
        [p for i, p in enumerate(inst.players) if end.players >> i & 1] + [t for i, t in enumerate(inst.teams) if end.teams >> i & 1])
        + (" draw" if end.draw else "")) if end else "running"
    return out


def errors(text: str, tmp_path) -> list[str]:
    path = tmp_path / "e.rw"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as exc:
        load_instances(str(path))
    return [f"{d.code} {d.message}" for d in exc.value.diagnostics]


# ---------------------------------------------------------------- when and how often triggers run

def test_a_trigger_runs_after_the_outcomes_of_the_step_and_sees_the_new_statuses(tmp_path):
    spec = RING + """
trigger skip on lose player p when turn == p do
  turn := next_in_game(p);
  log := if in_game(p) then 1 else 2 end;
end
"""
    # P1 hits P2: the turn passes to P2 as the step ends, P2 is eliminated, the trigger hands it on
    s = play(spec, "hit(q=P2)", tmp_path=tmp_path)
    assert (s["turn"], s["out"], s["log"]) == ("P3", "P2", "2")


def test_each_eliminated_player_fires_once_in_seat_order(tmp_path):
    spec = RING + """
trigger record on lose player p do log := log * 10 + seat(p) + 1; n := n + 1; end
"""
    s = play(spec, "quake", tmp_path=tmp_path)
    assert (s["log"], s["n"], s["out"]) == ("234", "3", "P2,P3,P4")


def test_triggers_of_one_event_run_in_the_order_written_each_seeing_the_ones_before(tmp_path):
    spec = RING + """
trigger first on lose player p do log := log * 10 + 1; end
trigger second on lose player p when log > 0 do log := log * 10 + 2; end
"""
    assert play(spec, "hit(q=P3)", tmp_path=tmp_path)["log"] == "12"


def test_a_trigger_whose_condition_is_false_does_not_run(tmp_path):
    spec = RING + "trigger never on lose player p when p == P1 do log := 7; end\n"
    assert play(spec, "hit(q=P3)", tmp_path=tmp_path)["log"] == "0"


def test_a_loss_a_trigger_states_is_settled_in_a_next_round_and_fires_its_own_triggers(tmp_path):
    # "if one player concedes, their teammate leaves too": the teammate's loss makes the team
    # lose and the other team the last one standing, and its own trigger runs once
    spec = """
teams A, B size 2
var conceded(p: player): bool = false
var log: 0..9999 = 0
action concede(p: player) leave when in_game(p) do conceded[p] := true; lose p; end
trigger teammate_leaves on lose player p when conceded[p] do
  forall q in teammates(p) do lose q; end
end
trigger record on lose player p do log := log * 10 + seat(p) + 1; end
outcome team_out: lose team t when forall p in members(t): lost(p)
outcome last_team: win team t when in_game(t) and forall u in teams: u == t or lost(u)
"""
    s = play(spec, "concede(p=A1)", tmp_path=tmp_path)
    # seats: A1 B1 A2 B2; A1 out in the first round, A2 in the second
    assert (s["out"], s["log"], s["end"]) == ("A1,A2", "13", "won B")


def test_a_chain_of_triggers_ends_each_subject_firing_once(tmp_path):
    # every elimination eliminates the next player: the chain goes round once and stops
    spec = RING + "trigger domino on lose player p do lose next(p); n := n + 1; end\n"
    s = play(spec, "hit(q=P2)", tmp_path=tmp_path)
    assert s["n"] == "4" and s["out"] == "P1,P2,P3,P4"


def test_win_and_draw_events_fire_their_triggers(tmp_path):
    spec = RING + """
outcome last: win player p when in_game(p) and forall q in opponents(p): lost(q)
outcome none_left: draw when forall p in players: lost(p)
trigger crown on win player p do log := seat(p) + 1; end
trigger tie on draw do log := 99; end
"""
    assert play(spec, "quake", tmp_path=tmp_path)["log"] == "1"
    s = play(spec.replace("opponents(turn)", "players"), "quake", tmp_path=tmp_path)
    assert (s["log"], s["end"]) == ("99", "won  draw")


def test_a_trigger_changes_nothing_of_a_step_without_its_event(tmp_path):
    spec = RING + "trigger skip on lose player p when turn == p do turn := next_in_game(p); end\n"
    assert play(spec, "pass", tmp_path=tmp_path)["turn"] == "P2"


# ---------------------------------------------------------------- lost_now: lost in this step

def test_lost_now_tells_a_loss_of_this_step_from_an_earlier_one(tmp_path):
    # P2 is eliminated first; then a quake eliminates P1 and P4 at the same time: those two lost
    # in this step, P2 long ago, and lost() cannot tell them apart
    spec = RING + """
outcome last: win player p when in_game(p) and forall q in opponents(p): lost(q)
trigger record on lose player p do n := count(q in players: lost_now(q)); log := count(q in players: lost(q)); end
"""
    s = play(spec, "hit(q=P2)", "pass", "quake", tmp_path=tmp_path)
    assert (s["out"], s["n"], s["log"], s["end"]) == ("P1,P2,P4", "2", "3", "won P3")


def test_lost_now_in_a_draw_rule_needs_two_players_falling_together(tmp_path):
    spec = RING + """
outcome together: draw when forall p in players: lost(p) and count(q in players: lost_now(q)) >= 2
action doom progress do forall q in remaining do life[q] := 0; end end
"""
    assert play(spec, "hit(q=P2)", "pass", "doom", tmp_path=tmp_path)["end"] == "won  draw"


def test_lost_now_is_for_outcome_rules_and_triggers_only(tmp_path):
    got = errors("players 2\nvar x: 0..1 = 0\ninvariant i: not lost_now(P1)\n"
                 "action a when lost_now(P2) do x := 1; end\n", tmp_path)
    assert len(got) == 2 and all(g.startswith("E014 lost_now()") for g in got), got


def test_lost_now_counts_positively_in_a_loss_rule(tmp_path):
    got = errors("players 2\noutcome o: lose player p when not lost_now(next(p))\n", tmp_path)
    assert got and got[0].startswith("E014 lost_now() may only be used positively in a loss rule")


# ---------------------------------------------------------------- the resolve pass

def test_trigger_errors_are_located_and_all_reported(tmp_path):
    got = errors("""
players 2
var x: 0..1 = 0
trigger a on lose team t do x := 1; end
trigger b on lose player p when game_over do x := 1; end
trigger b on draw do y := 1; end
""", tmp_path)
    assert any(g.startswith("E013 a trigger on a team's outcome needs teams") for g in got), got
    assert any(g.startswith("E014 `game_over` reads the end of the game") for g in got), got
    assert any(g.startswith("E011 trigger b is declared twice") for g in got), got


def test_a_reading_replaces_a_trigger_of_the_same_name(tmp_path):
    spec = RING + """
trigger skip on lose player p when turn == p do turn := next_in_game(p); end
reading stay { trigger skip on lose player p when false do turn := p; end }
"""
    path = tmp_path / "r.rw"
    path.write_text(spec, encoding="utf-8")
    (inst,) = load_instances(str(path))
    (t,) = inst.model.triggers
    assert inst.model.reading == "stay" and t.name == "skip"


def test_a_labelled_statement_in_a_trigger_runs_as_written_and_replace_names_it_by_the_trigger(tmp_path):
    # a label names a statement so that a reading (or the file) can replace it: in a trigger as
    # in an action, and the trigger's name qualifies it
    spec = RING + """
trigger record on lose player p do
  [T1] mark: log := seat(p) + 1;
  n := n + 1;
end
"""
    s = play(spec, "hit(q=P2)", tmp_path=tmp_path)
    assert (s["log"], s["n"]) == ("2", "1")
    s = play(spec + "replace record.mark do log := 7; end\n", "hit(q=P2)", tmp_path=tmp_path)
    assert (s["log"], s["n"]) == ("7", "1")
    s = play(spec + "replace mark do end\n", "hit(q=P2)", tmp_path=tmp_path)
    assert (s["log"], s["n"]) == ("0", "1")


# ---------------------------------------------------------------- findings and traces

def test_a_trigger_that_never_runs_is_a_dead_rule_and_one_that_runs_is_cited(tmp_path):
    path = tmp_path / "d.rw"
    path.write_text("""spec "d" formalizes "d.txt"
document {
  1: "two players"
  2: "a hit eliminates"
  3: "when a player is eliminated on his turn it passes on"
  4: "when a player wins he is crowned"
}
players [1] 2
var turn [1]: player = P1
var life(p: player) [2]: 0..1 = 1
var crowned [4]: bool = false
action hit [2] progress when life[next(turn)] > 0 do life[next(turn)] := 0; turn := next(turn); end
outcome dead [2]: lose player p when life[p] == 0
trigger skip [3] on lose player p when turn == p do turn := next_in_game(p); end
trigger crown [4] on win player p do crowned := true; end
invariant never_skipped [3]: not (turn == P1 and lost(P2))
""", encoding="utf-8")
    res = engine.check([str(path)])
    dead = [f for f in res.findings if f.kind == "dead-rule"]
    assert [f.message for f in dead] == ["trigger `crown` never applies in any reachable state"]
    (inv,) = [f for f in res.findings if f.kind == "invariant"]
    assert "3" in inv.rules and inv.replay == CONFIRMED


def test_the_reference_example_of_triggers_is_clean(tmp_path):
    import re
    from pathlib import Path
    doc = (Path(__file__).resolve().parent.parent / "docs" / "language.md").read_text(encoding="utf-8")
    (example,) = [e for e in re.findall(r"```rulewright\n(.*?)```", doc, re.S) if "Elimination and the turn" in e]
    path = tmp_path / "ex.rw"
    path.write_text(example, encoding="utf-8")
    res = engine.check([str(path)])
    assert res.findings == [] and res.exit_code() == 0


def test_a_trigger_without_a_name_is_a_syntax_error_that_says_so(tmp_path):
    got = errors("players 2\nvar x: 0..1 = 0\ntrigger on lose player p do x := 1; end\n", tmp_path)
    assert got == ["E001 a trigger needs a name, then `on` and its event"], got
