"""Outcome shapes beyond win, lose and draw (docs/language.md, "Outcomes").

`finish` ends a game that has no winner: a draft, deck building, a pre-game. It is neither a
draw nor a gap: the game is over with no winner, no loser and no draw, and `game_finished`
tells it apart from a drawn game."""
from __future__ import annotations

from checker import engine
from checker.engine import load_instances
from checker.explicit.explore import Limits, explore
from checker.explicit.machine import Machine

DRAFT = """players 3
var picks(p: player): 0..2 = 0
var turn: player = P1
active p when p == turn
action pick progress when picks[turn] < 2 do
  picks[turn] := picks[turn] + 1;
  turn := next(turn);
end
"""


def _check(tmp_path, text: str, name: str = "s.rw"):
    spec = tmp_path / name
    spec.write_text(text, encoding="utf-8")
    return engine.check([str(spec)]), spec


def _ends(spec) -> set:
    (inst,) = load_instances(str(spec))
    g = explore(Machine(inst), Limits(max_states=10_000, max_seconds=30))
    return {inst.describe_end(s[-1]) if s[-1] and s[-1][0] != "gap" else s[-1] and "gap" for s in g.states} - {()}


def test_a_draft_that_finishes_ends_without_a_winner_and_is_clean(tmp_path):
    res, spec = _check(tmp_path, DRAFT + "outcome drafted: finish when forall p in players: picks[p] == 2\n"
                       "reachable over: game_finished\ninvariant not_a_draw: not game_drawn\n")
    assert res.diagnostics == [] and res.disagreements == [] and res.findings == []
    assert _ends(spec) == {"the game ends without a winner"}


def test_a_finish_statement_ends_the_game_in_the_step_that_runs_it(tmp_path):
    text = DRAFT.replace("  turn := next(turn);\n", "  turn := next(turn);\n"
                         "  if forall p in players: picks[p] == 2 then finish; end\n")
    res, spec = _check(tmp_path, text + "reachable over: game_finished\n")
    assert res.diagnostics == [] and res.findings == []
    assert _ends(spec) == {"the game ends without a winner"}


def test_without_finish_the_same_draft_deadlocks_at_its_end(tmp_path):
    # the draft cannot go on, and nothing ends it: what writers used to paper over with a draw
    res, _ = _check(tmp_path, DRAFT)
    assert [f.kind for f in res.findings] == ["deadlock"]


def test_players_who_lose_in_the_finishing_step_stay_lost_and_no_gap_follows(tmp_path):
    # every player leaves as the procedure finishes: "no player is left" is no gap, the game is over
    res, spec = _check(tmp_path, """players 2
var done: bool = false
action close progress when not done do
  done := true;
  lose P1;
  lose P2;
  finish;
end
invariant over_when_done: not done or game_finished
""")
    assert res.diagnostics == [] and res.disagreements == [] and res.findings == []
    assert _ends(spec) == {"the game ends without a winner"}


def test_a_finish_together_with_a_win_is_an_outcome_conflict(tmp_path):
    res, _ = _check(tmp_path, """players 2
var x: 0..1 = 0
action go progress when x == 0 do x := 1; end
outcome ends: finish when x == 1
outcome champion: win player p when x == 1 and p == P1
""")
    (f,) = [f for f in res.findings if f.kind == "outcome-conflict"]
    assert "ends without a winner and is won" in f.message and f.replay == "confirmed"


def test_a_drawn_game_is_not_a_finished_one(tmp_path):
    res, _ = _check(tmp_path, """players 2
var x: 0..1 = 0
action go progress when x == 0 do x := 1; draw; end
reachable finished: game_finished
""")
    (f,) = res.findings
    assert f.kind == "unreachable-property" and "finished" in f.message


def test_finish_is_read_in_outcome_rules_freely_like_a_draw(tmp_path):
    # a finish rule may read lost() and won() under `not`: its stratum comes after the wins
    res, _ = _check(tmp_path, DRAFT + "outcome drafted: finish when not won(P1) and "
                    "forall p in players: picks[p] == 2 and not lost(p)\n")
    assert res.diagnostics == [] and res.findings == []
