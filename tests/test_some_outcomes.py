"""Outcomes for some players while the game goes on (docs/language.md, "Outcomes").

A player or team can draw and leave while the others play on (`draw x;`, `draw player p when
...`), leave with no result (`leave x;`), or, where the format says `after_win plays_on`, win
and leave as a winner. `precedence lose over win same_step` lets a player who lost earlier win
with their team; `loop_draws` makes a loop no game action can leave a draw by rule. Each test
checks the whole pipeline (compiled successors, checks, Z3 replay of every reported trace), and
the graphs of the closures and the compiled successors are compared state for state."""
from __future__ import annotations

import pytest

from checker import engine
from checker.engine import load_instances
from checker.explicit.compiled import CompiledMachine
from checker.explicit.explore import Limits, explore
from checker.explicit.machine import Machine
from checker.frontend.ends import is_gap

from test_compiled import view

LIMITS = Limits(max_states=10_000, max_seconds=30)

FFA = """players 3
var turn: player = P1
var life(p: player): 0..1 = 1
active p when p == turn
action hit(q: player) progress when q != turn and in_game(q) do
  life[q] := life[q] - 1;
  turn := next_in_game(turn);
end
outcome no_life: lose player p when life[p] <= 0
"""
OFFER_DRAW = """action offer_draw(p: player) progress when p == turn do
  turn := next_in_game(turn);
  draw p;
end
"""


def _check(tmp_path, text: str, name: str = "s.rw"):
    spec = tmp_path / name
    spec.write_text(text, encoding="utf-8")
    res = engine.check([str(spec)])
    assert res.diagnostics == [] and res.disagreements == [], (res.diagnostics, res.disagreements)
    return res, spec


def _graph(spec):
    (inst,) = load_instances(str(spec))
    reference, compiled = explore(Machine(inst), LIMITS), explore(CompiledMachine(inst), LIMITS)
    assert view(compiled) == view(reference)
    return inst, reference


def _ends(spec) -> set:
    inst, g = _graph(spec)
    return {"gap: " + s[-1].why if is_gap(s[-1]) else inst.describe_end(s[-1]) for s in g.states if s[-1]}


def _kinds(res) -> list:
    return sorted(f.kind for f in res.findings)


# ---------------------------------------------------------------- a draw for some players only

def test_a_player_who_draws_leaves_the_game_without_losing_and_the_others_play_on(tmp_path):
    res, spec = _check(tmp_path, FFA + OFFER_DRAW
                       + "outcome last_standing: win player p when in_game(p) and forall q in opponents(p): not in_game(q)\n"
                       "reachable drew_and_someone_won: exists p in players: drew(p) and game_won\n"
                       "invariant a_draw_is_no_loss: forall p in players: not (drew(p) and lost(p))\n"
                       "invariant who_drew_is_out: forall p in players: drew(p) implies not in_game(p)\n")
    assert res.findings == []
    assert {"P1 wins", "P2 wins", "P3 wins"} <= _ends(spec)


def test_a_win_rule_that_waits_for_losses_leaves_a_gap_after_a_draw(tmp_path):
    # the way writers used to say "the last one standing": every opponent lost. A player who
    # drew did not lose, so nobody wins once a draw has taken one player out
    res, _ = _check(tmp_path, FFA + OFFER_DRAW
                    + "outcome last_standing: win player p when in_game(p) and forall q in opponents(p): lost(q)\n")
    (gap,) = res.findings
    assert gap.kind == "outcome-gap" and "is left in the game" in gap.message


def test_a_draw_of_some_players_is_judged_with_the_losses_so_the_last_one_standing_wins_in_that_step(tmp_path):
    _, spec = _check(tmp_path, FFA + OFFER_DRAW
                     + "outcome last_standing: win player p when in_game(p) and forall q in opponents(p): not in_game(q)\n")
    assert not any(e.startswith("gap") for e in _ends(spec))


def test_everyone_drawing_ends_the_game_as_a_draw_not_as_a_gap(tmp_path):
    res, spec = _check(tmp_path, """players 2
var done: bool = false
action agree progress when not done do
  done := true;
  draw P1;
  draw P2;
end
reachable drawn: game_drawn
""")
    assert res.findings == []
    assert _ends(spec) == {"the game is a draw"}


def test_a_draw_rule_for_some_players_reads_the_losses_of_its_stratum_positively(tmp_path):
    # "if a player loses, the player to their left draws": rules of the first stratum, to a fixpoint
    res, spec = _check(tmp_path, FFA
                       + "outcome neighbour_draws: draw player p when lost(right(p, 1)) and in_game(p)\n"
                       "outcome last_standing: win player p when in_game(p) and forall q in opponents(p): not in_game(q)\n"
                       "reachable someone_drew: exists p in players: drew(p)\n")
    assert "outcome-gap" not in _kinds(res)
    assert "unreachable-property" not in _kinds(res)


def test_a_player_who_both_draws_and_loses_in_one_step_is_an_outcome_conflict_unless_precedence_says(tmp_path):
    base = "players 2\naction both progress do draw P1; lose P1; end\n"
    res, _ = _check(tmp_path, base + "outcome last: win player p when in_game(p) and forall q in opponents(p): not in_game(q)\n")
    assert "outcome-conflict" in _kinds(res)
    res, spec = _check(tmp_path, base + "precedence lose over draw\n"
                       "outcome last: win player p when in_game(p) and forall q in opponents(p): not in_game(q)\n",
                       name="fixed.rw")
    assert "outcome-conflict" not in _kinds(res)
    assert _ends(spec) == {"P2 wins"}


def test_the_subject_of_a_draw_or_a_departure_must_be_a_player_or_a_team(tmp_path):
    spec = tmp_path / "bad.rw"
    spec.write_text("players 2\naction a progress do draw 3; leave true; end\n", encoding="utf-8")
    res = engine.check([str(spec)])
    assert [(d.code, d.span.line) for d in res.diagnostics] == [("E013", 2), ("E013", 2)]


def test_drew_may_not_be_read_negatively_in_a_loss_rule(tmp_path):
    spec = tmp_path / "bad.rw"
    spec.write_text("players 2\noutcome odd: lose player p when not drew(p)\n", encoding="utf-8")
    res = engine.check([str(spec)])
    assert [d.code for d in res.diagnostics] == ["E014"]


# ---------------------------------------------------------------- leaving with no result

HYDRA = """teams A, B size 1
var shield(t: team): bool = false
var turn: team = A
action protect progress when not shield[turn] do
  shield[turn] := true;
end
action pass progress do
  turn := if turn == A then B else A end;
end
action concede(p: player) leave when in_game(p) do
  forall q in members(team(p)) do leave q; end
  leave team(p);
  lose team(p);
end
outcome shielded: cannot lose team t when shield[t]
outcome with_team: lose player p when lost(team(p))
"""


def test_a_team_that_cannot_lose_still_leaves_when_it_concedes_and_leaves_without_a_result(tmp_path):
    res, spec = _check(tmp_path, HYDRA
                       + "outcome last_team: win team t when in_game(t) and forall u in teams: u == t or not in_game(u)\n"
                       "reachable left_without_losing: exists t in teams: not in_game(t) and not lost(t) and not drew(t)\n")
    assert "unreachable-property" not in _kinds(res)
    assert "outcome-gap" not in _kinds(res)
    assert {"A wins", "B wins"} <= _ends(spec)


def test_a_win_rule_that_needs_the_other_team_to_have_lost_leaves_a_gap_when_it_left(tmp_path):
    res, _ = _check(tmp_path, HYDRA + "outcome last_team: win team t when forall u in teams: u == t or lost(u)\n")
    assert "outcome-gap" in _kinds(res)


# ---------------------------------------------------------------- a win while the game goes on

RACE = """players 3
var turn: player = P1
var points(p: player): 0..2 = 0
active p when p == turn
action score progress when in_game(turn) do
  points[turn] := points[turn] + 1;
  turn := next_in_game(turn);
end
outcome two_points: win player p when points[p] >= 2
"""


def test_after_a_win_the_game_goes_on_for_the_others_and_ends_when_nobody_is_left(tmp_path):
    res, spec = _check(tmp_path, RACE + "winners many\nafter_win plays_on\nlast_side plays_on\n"
                       "reachable first_winner_waits: won(P1) and not game_over\n")
    assert res.findings == []
    assert _ends(spec) == {"P1 and P2 and P3 win"}


def test_without_after_win_the_same_race_leaves_two_players_without_an_outcome(tmp_path):
    res, _ = _check(tmp_path, RACE + "winners many\n")
    assert "player-without-outcome" in _kinds(res)


# ---------------------------------------------------------------- precedence scoped to one step

TEAMS = """teams A, B size 2
var step: 0..3 = 0
action knock_out_A1 progress when step == 0 do step := 1; lose A1; end
action team_A_wins progress when step == 1 do step := 2; win A; end
outcome with_team: win player p when won(team(p))
reachable a_past_loser_wins: won(A1)
"""


def test_a_player_who_lost_earlier_wins_with_the_team_under_same_step_precedence(tmp_path):
    res, spec = _check(tmp_path, TEAMS + "precedence lose over win same_step\n")
    assert "unreachable-property" not in _kinds(res)
    assert "A and A1 and A2 win" in _ends(spec)


def test_without_the_scope_a_past_loss_keeps_the_player_from_winning(tmp_path):
    res, spec = _check(tmp_path, TEAMS + "precedence lose over win\n")
    assert "unreachable-property" in _kinds(res)
    assert "A and A2 win" in _ends(spec)


def test_same_step_precedence_still_settles_a_loss_and_a_win_of_the_same_step(tmp_path):
    res, spec = _check(tmp_path, "players 2\naction clash progress do lose P1; win P1; end\n"
                       "outcome last: win player p when in_game(p) and forall q in opponents(p): lost(q)\n"
                       "precedence lose over win same_step\n")
    assert "outcome-conflict" not in _kinds(res)
    assert _ends(spec) == {"P2 wins"}


def test_only_lose_over_win_has_a_scope(tmp_path):
    spec = tmp_path / "bad.rw"
    spec.write_text("players 2\nprecedence win over lose same_step\n", encoding="utf-8")
    res = engine.check([str(spec)])
    assert [d.code for d in res.diagnostics] == ["E013"]


# ---------------------------------------------------------------- precedence for players or for teams

CLASH = """teams A, B size 2
var done: bool = false
action clash progress when not done do done := true; win A1; lose A1; win B; lose B; end
"""


def test_a_precedence_for_players_settles_players_and_leaves_teams_in_conflict(tmp_path):
    res, _ = _check(tmp_path, CLASH + "precedence lose over win for players\n")
    (f,) = [f for f in res.findings if f.kind == "outcome-conflict"]
    assert f.message == "team B both wins and loses" and f.replay.status == "confirmed"


def test_a_precedence_for_teams_settles_teams_and_leaves_players_in_conflict(tmp_path):
    res, _ = _check(tmp_path, CLASH + "precedence lose over win for teams\n")
    (f,) = [f for f in res.findings if f.kind == "outcome-conflict"]
    assert f.message == "A1 both wins and loses" and f.replay.status == "confirmed"


def test_a_precedence_for_everyone_settles_both(tmp_path):
    res, _ = _check(tmp_path, CLASH + "precedence lose over win\n")
    assert "outcome-conflict" not in _kinds(res)


def test_a_precedence_for_players_that_never_decides_is_a_dead_declaration_of_its_own(tmp_path):
    res, _ = _check(tmp_path, CLASH.replace("win A1; lose A1; ", "") + "precedence lose over win for players\n"
                    "precedence lose over win for teams\n")
    (f,) = [f for f in res.findings if f.kind == "dead-declaration"]
    assert f.message.startswith("`precedence lose over win for players` never decides")


@pytest.mark.parametrize("text, why", [
    ("players 2\nprecedence draw over win for players\n", "only `lose over win` and `win over lose`"),
    ("players 2\nprecedence lose over win for teams\n", "needs teams"),
    ("teams A, B size 2\nprecedence lose over win for players same_step\n", "cannot be combined"),
])
def test_only_lose_and_win_are_restricted_to_players_or_teams_and_teams_need_teams(tmp_path, text, why):
    spec = tmp_path / "bad.rw"
    spec.write_text(text, encoding="utf-8")
    res = engine.check([str(spec)])
    assert [d.code for d in res.diagnostics] == ["E013"] and why in res.diagnostics[0].message


# ---------------------------------------------------------------- a loop that is a draw

def test_a_forced_loop_is_no_finding_where_the_rules_make_it_a_draw():
    defect = "tests/fixtures/forced-loop/defect.rw"
    assert "forced-loop" in {f.kind for f in engine.check([defect]).findings}
    res = engine.check(["tests/fixtures/forced-loop/loop-draws-twin.rw"])
    assert "forced-loop" not in {f.kind for f in res.findings}
