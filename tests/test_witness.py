"""Witnesses with concrete values (checker/symbolic/witness.py): where the explorer cannot finish
(life 8,000, damage any amount), a lasso of bounded model checking shows a cycle no ranking
function rules out, and a short play shows what Spacer left undecided; the explorer walks
each, and its checks report them as their own."""
from pathlib import Path

import pytest

from checker import engine
from checker.analyses import unbounded
from checker.limits import Limits
from checker.outputs import report
from checker.symbolic import horn, terms, witness

ROOT = Path(__file__).resolve().parent.parent

# Sudden death: once time is called, the game ends at the end of a turn where life totals
# differ; while they are tied, turns pass forever (a procedure without bound, as Yu-Gi-Oh!'s
# Tag Duel has it). Damage is any amount up to 8,000: 16,002 steps from a state, so the
# explorer only looks at the first million steps and never reaches the loop (three steps deep
# behind 8,000 attacks).
TIED = """players 2
var life(p: player): 0..8000 = 8000
var turn: player = P1
var sudden: bool = false
var over: bool = false
active p when turn == p
action attack(p: player, n: 1..8000) progress when turn == p and not over do
  life[after(p, P1, P2)] := if n >= life[after(p, P1, P2)] then 0 else life[after(p, P1, P2)] - n end;
end
action call_time progress when not sudden do
  sudden := true;
end
action end_turn progress when not over do
  turn := after(turn, P1, P2);
  if sudden and {ends} then
    over := true;
  end
end
outcome zero: lose player p when life[p] == 0
outcome other_out: win player p when life[p] > 0 and lost(after(p, P1, P2))
outcome ahead: win player p when over and life[p] > life[after(p, P1, P2)]
outcome tied: draw when over and life[P1] == life[P2]
ends time_up: over
procedure sudden_death: sudden
"""
# room for the walks (four states of about 8,000 successors each), few expansions for the
# directed search (about a hundredth of the limit in steps: checker.analyses.unbounded)
LIMITS = Limits(max_states=8_000)
UNTIL_UNTIED = TIED.replace("{ends}", "life[P1] != life[P2]")
CAPPED = TIED.replace("{ends}", "true")  # sudden death lasts one turn


def instance(tmp_path, text):
    path = tmp_path / "tied.rw"
    path.write_text(text, encoding="utf-8")
    (inst,) = engine.load_instances(str(path))
    terms.fresh_context()
    return inst


def test_the_shortest_lasso_comes_back_to_the_state_its_loop_starts_from(tmp_path):
    inst = instance(tmp_path, UNTIL_UNTIED)
    (d,) = inst.model.procedures
    found = witness.lasso(witness.Unrolling(inst), witness.procedure(d))
    assert found.verdict == witness.FOUND
    # call time, then two ends of turn back to the state after it
    assert len(found.path) == 4 and found.loop_start == 1 and found.path[1] == found.path[3]
    assert found.path[0] != found.path[1]


def test_no_lasso_is_found_where_every_loop_ends_and_none_is_no_proof(tmp_path):
    inst = instance(tmp_path, CAPPED)
    (d,) = inst.model.procedures
    found = witness.lasso(witness.Unrolling(inst), witness.procedure(d), max_steps=6)
    assert found.verdict == witness.NONE and "6 steps or fewer" in found.why


# P1 may take turns for ever (`again`), P2 waits meanwhile; shuffling a counter is no progress
WAITS = """players 2
var turn: player = P1
var x: 0..1 = 0
active p when turn == p
action again progress when turn == P1 do x := x; end
action pass progress when true do turn := after(turn, P1, P2); end
action shuffle when true do x := 1 - x; end
"""


def test_a_lasso_of_moves_without_progress_is_a_livelock_and_one_a_player_waits_through_is_starvation(tmp_path):
    inst = instance(tmp_path, WAITS)
    u = witness.Unrolling(inst)
    live = witness.lasso(u, witness.livelock())
    assert live.verdict == witness.FOUND and len(live.path) == 3  # shuffle, shuffle: back to the start
    starved = witness.lasso(u, witness.starvation(inst, 1))  # the same unrolling serves every question
    assert starved.verdict == witness.FOUND and len(starved.path) == 2  # P1 takes another turn
    assert witness.lasso(u, witness.starvation(inst, 0), max_steps=4).verdict == witness.NONE  # P1 is active on every cycle


# P1 may win at any moment, a step that changes no variable; the turn passes on. No cycle
# leaves P2 waiting: the win ends the game (the state after it is the explorer's end marker)
WINS_AT_ONCE = """players 2
var turn: player = P1
active p when turn == p
action claim progress when turn == P1 do win P1; end
action pass progress when true do turn := after(turn, P1, P2); end
"""


def test_a_step_that_ends_the_game_does_not_come_back_to_the_running_state_it_left(tmp_path):
    # (seen at Hydra's 8,000 life to the unit: a win changing no variable made a lasso of one
    # step that the explorer, whose state after a win is ended, could not confirm)
    inst = instance(tmp_path, WINS_AT_ONCE)
    assert witness.lasso(witness.Unrolling(inst), witness.starvation(inst, 1), max_steps=4).verdict == witness.NONE


def test_a_loop_beyond_the_explorers_reach_is_reported_walked_and_replayed(tmp_path):
    path = tmp_path / "tied.rw"
    path.write_text(UNTIL_UNTIED, encoding="utf-8")
    res = engine.check([str(path)], LIMITS)
    (f,) = [f for f in res.findings if f.kind == "unbounded-procedure"]
    assert f.engine == unbounded.LASSO_WALKED and unbounded.LASSO_NOTE in f.detail
    assert f.replay.status == "confirmed" and len(f.trace) == 4
    (i,) = res.instances
    assert ("unbounded-procedure", "sudden_death", "found", unbounded.LASSO_WALKED) in [
        (d.check, d.subject, d.verdict, d.engine) for d in i.decisions]
    # the walked loop is a cycle of the full graph on which both players are active
    assert ("never-active", "proved") in [(d.check, d.verdict) for d in i.decisions]
    assert not res.is_incomplete and not res.disagreements


# Both players are active from the start (the first is any), but turns pass only after two
# ticks: the cycle of game moves is four steps deep behind 8,000 hits, beyond the explorer
ROUNDS = """players 2
var life(p: player): 0..8000 = 8000
var turn: player = any
var stage: 0..2 = 0
{rounds}
active p when p == turn
action hit(q: players, n: 1..8000) progress when q != turn and life[q] > 0 do
  life[q] := if n >= life[q] then 0 else life[q] - n end;
end
action tick progress when stage < 2 do
  stage := stage + 1;
end
action pass progress when stage == 2{more} do
  stage := 0;
  turn := if turn == P1 then P2 else P1 end;{count}
end
outcome dead: lose player p when life[p] <= 0
outcome last: win player p when forall q in players: q == p or lost(q)
"""
FOREVER = ROUNDS.format(rounds="", more="", count="")
THRICE = ROUNDS.format(rounds="var passes: 0..3 = 0", more=" and passes < 3", count="\n  passes := passes + 1;")


@pytest.mark.parametrize("text, verdict, engine_", [
    (FOREVER, "proved", unbounded.LASSO_WALKED),
    # three passes and no more: no play goes on forever, so whether a complete play skips a
    # player is the explorer's question, on a graph it cannot finish
    (THRICE, horn.UNKNOWN, unbounded.LASSO_WALKED)], ids=["forever", "three-passes"])
def test_never_active_beyond_the_explorers_reach_asks_for_a_cycle_of_game_moves(tmp_path, text, verdict, engine_):
    path = tmp_path / "rounds.rw"
    path.write_text(text, encoding="utf-8")
    res = engine.check([str(path)])  # (the explorer sees both players active in its first million steps)
    (i,) = res.instances
    assert not i.complete
    (d,) = [d for d in i.decisions if d.check == "never-active"]
    assert (d.verdict, d.engine) == (verdict, engine_)
    if verdict == "proved":  # the lasso the explorer walked is a cycle of the full graph
        assert "a lasso of the bounded model checker, walked by the explorer" in d.detail
        assert not res.is_incomplete and not res.disagreements
    else:
        assert "no cycle of game moves is among them, and the bounded model checker showed none" in d.detail
        assert any("never-active not decided" in line for line in res.incomplete)


def test_a_lasso_whose_cycle_the_explorer_does_not_confirm_is_an_engine_disagreement(tmp_path, monkeypatch):
    real = witness.lasso

    def tampered(u, loop, *args, **kw):  # the way into the loop, not round it
        found = real(u, loop, *args, **kw)
        return witness.Witness(found.verdict, found.path[:2], found.loop_start) if found.path else found
    monkeypatch.setattr(witness, "lasso", tampered)
    path = tmp_path / "tied.rw"
    path.write_text(UNTIL_UNTIED, encoding="utf-8")
    res = engine.check([str(path)], LIMITS)
    (d,) = res.disagreements
    assert "lasso of unbounded-procedure (sudden_death) that the explorer's checks do not confirm" in d.finding.message
    assert res.exit_code() == 4
    # the report shows the symbolic engine's play, in the spec's names, frame by frame
    text = "\n".join(report.disagreement_text(d))
    assert "The symbolic engine found a play that the explorer, walking it step by step, does" in text
    assert "the lasso, frame by frame: 0: life[P1]=8000, life[P2]=8000, turn=0, sudden=False" in text
    assert "1: sudden=True" in text


# every player's counter and a shared one count up to 3, then nothing is left to do: a deadlock
# nine steps deep, beyond an explorer stopped at 20 states
WIDE = """players 2
var v(p: player): 0..3 = 0
var w: 0..3 = 0
action up(p: player) progress when v[p] < 3 do v[p] := v[p] + 1; end
action side progress when w < 3 do w := w + 1; end
"""


def test_where_spacer_does_not_decide_a_short_play_shows_the_bad_frame_and_is_replayed(tmp_path, monkeypatch):
    def gives_up(self, bad, seconds):
        return horn.Answer(horn.UNKNOWN, why="Spacer: its share of work ran out")
    monkeypatch.setattr(horn.Prover, "ask", gives_up)
    path = tmp_path / "wide.rw"
    path.write_text(WIDE, encoding="utf-8")
    res = engine.check([str(path)], Limits(max_states=20))
    (f,) = [f for f in res.findings if f.kind == "deadlock"]
    assert f.engine == unbounded.BMC_WALKED and unbounded.BMC_NOTE in f.detail
    assert len(f.trace) == 10 and f.replay.status == "confirmed"  # the fewest steps: 3 + 3 + 3
    decided = {(d.check, d.verdict, d.engine) for d in res.instances[0].decisions}
    assert ("deadlock", "found", unbounded.BMC_WALKED) in decided
    # what no play shows stays undecided, saying both engines' why
    (gap,) = [d for d in res.instances[0].decisions if d.check == "outcome-gap"]
    assert gap.verdict == "unknown" and "Spacer: its share of work ran out; bounded model checking: " in gap.detail


# The bundled Tag Duel counts its 16,000 Life Points in steps of the damage of an attack (two
# or four attacks defeat a team: the run over spec/ stays within its time). Here it is counted
# to the unit, as the document gives it, with damage of any amount.
TAG_DUEL_TO_THE_UNIT = [
    ("param HITS [TD2.2] in {16000, 2, 4}\nlet HIT = 16000 / HITS\n", ""),
    ("var lp(t: team) [TD2.2]: 0..16000 in steps of HIT = 16000", "var lp(t: team) [TD2.2]: 0..16000 = 16000"),
    ("action attack(p: player) [TD9, TD10.3, TD10.4] progress", "action attack(p: player, n: 1..16000) [TD9, TD10.3, TD10.4] progress"),
    ("if team(p) == One then lp[Two] := lp[Two] - HIT; else lp[One] := lp[One] - HIT; end",
     "if team(p) == One then lp[Two] := if n >= lp[Two] then 0 else lp[Two] - n end; "
     "else lp[One] := if n >= lp[One] then 0 else lp[One] - n end; end"),
    ("action each_player_takes_damage(p: player) [TD6, TD2.2] progress",
     "action each_player_takes_damage(p: player, n: 1..8000) [TD6, TD2.2] progress"),
    ("lp[One] := if lp[One] >= 2 * HIT then lp[One] - 2 * HIT else 0 end;",
     "lp[One] := if lp[One] >= 2 * n then lp[One] - 2 * n else 0 end;"),
    ("lp[Two] := if lp[Two] >= 2 * HIT then lp[Two] - 2 * HIT else 0 end;",
     "lp[Two] := if lp[Two] >= 2 * n then lp[Two] - 2 * n else 0 end;"),
]


@pytest.mark.slow  # (about 40 s of CPU: one reading at 16,000 LP, 96,002 steps from a state)
def test_the_tag_duel_at_its_16000_life_points_shows_both_reviewed_defects_with_replayed_traces(tmp_path):
    text = (ROOT / "spec" / "yugioh-tag-duel.rw").read_text(encoding="utf-8")
    for old, new in TAG_DUEL_TO_THE_UNIT:
        assert text.count(old) == 1, f"the bundled spec changed: {old!r}"
        text = text.replace(old, new)
    path = tmp_path / "yugioh-tag-duel.rw"
    path.write_text(text, encoding="utf-8")
    res = engine.check([str(path)], select=engine.Selection(only=("/text_as_written",)))
    (i,) = res.instances
    engines = {f.kind: f.engine for f in res.findings}
    # both teams at 0 after one effect (found by the explorer's first states), and sudden death
    # without end while the totals stay tied (a lasso of nine steps)
    assert engines == {"outcome-gap": "", "unbounded-procedure": unbounded.LASSO_WALKED}  # "": the explorer
    assert all(f.replay.status == "confirmed" for f in res.findings)
    assert not res.is_incomplete and not res.disagreements
    assert {d.check for d in i.decisions if d.verdict == "unknown"} == set()
