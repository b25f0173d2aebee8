"""A match of games (docs/language.md, "A match of games").

The match's variables persist from game to game; every other variable belongs to the game and
starts again from its initial value (or from each value, for `= any`) when `next_game` starts
the next game. A game ends after a step in which a `game won by` / `game drawn` condition holds
(the first in the order declared); game actions run only while a game is played, the match's
actions between games too; the outcome rules are the match's."""
from __future__ import annotations

from checker.analyses.verdicts import CONFIRMED
from checking import _check, _errors, _graph

MATCH = """players 2
var life(p: player) [G]: 0..1 = 1
var turn [G]: player = any
match [M] {
  var wins(p: player) [M]: 0..2 = 0
  var draws [D]: 0..1 = 0
  game won by player p [W] when life[p] > 0 and life[next(p)] == 0 do wins[p] := wins[p] + 1; end
  game drawn [D] when life[P1] == 0 and life[P2] == 0 do draws := 1; end
  action concede_match(p: player) [C] leave when in_game(p) do lose p; end
}
var turns [G]: 0..1 = 0
action pass_turn [G] progress when turns == 0 do turn := next(turn); turns := 1; end
action deal [G] progress when turns == 1 do life[next(turn)] := 0; end
action both [G] progress when turns == 1 do life[P1] := 0; life[P2] := 0; end
outcome two_wins [M]: win player p when wins[p] == 2
outcome drawn_match [D]: draw when draws == 1
outcome last [C]: win player p when in_game(p) and forall q in opponents(p): lost(q)
active p [G] when turn == p and not between_games
"""



def test_a_best_of_three_match_is_clean(tmp_path):
    res, _ = _check(tmp_path, MATCH)
    assert res.diagnostics == [] and res.disagreements == [] and res.findings == []


def test_the_next_game_starts_from_the_initial_values_and_the_match_variables_persist(tmp_path):
    _, spec = _check(tmp_path, MATCH)
    inst, g = _graph(spec)
    nxt = [lid for lid, (a, _, _) in enumerate(g.labels) if inst.model.actions[a].name == "next_game"]
    life, wins, turn = (inst.var(n).offset for n in ("life", "wins", "turn"))
    starts = [(g.values(s), g.values(d)) for s, d, lid in g.edges if lid in nxt]
    assert starts
    for before, after in starts:
        assert before[life:life + 2] == after[life:life + 2] == (1, 1)  # its initial value since the game ended
        assert after[wins:wins + 2] == before[wins:wins + 2]  # a match variable: as it was
    # `turn = any`: the next game starts once with each player first
    assert {after[turn] for before, after in starts if before[wins:wins + 2] == (1, 0)} == {0, 1}


def test_game_actions_wait_between_games_and_match_actions_do_not(tmp_path):
    _, spec = _check(tmp_path, MATCH)
    inst, g = _graph(spec)
    between = inst.var("between_games").offset
    names = {(bool(g.values(s)[between]), inst.model.actions[g.labels[lid][0]].name) for s, _, lid in g.edges}
    assert ("deal", ) not in names and (True, "deal") not in names and (True, "both") not in names
    assert (True, "concede_match") in names and (True, "next_game") in names and (False, "next_game") not in names


def test_results_are_judged_in_the_order_declared(tmp_path):
    # `won by` is declared before `drawn`: a step that brings both to 0 is won by P1 (first in seat order)
    text = MATCH.replace("life[p] > 0 and life[next(p)] == 0", "life[next(p)] == 0")
    res, _ = _check(tmp_path, text + "invariant no_draw [D]: draws == 0\n")
    assert not [f for f in res.findings if f.kind == "invariant"]
    drawn = "  game drawn [D] when life[P1] == 0 and life[P2] == 0 do draws := 1; end\n"
    swapped = text.replace(drawn, "").replace("  game won by", drawn + "  game won by")
    res, _ = _check(tmp_path, swapped + "invariant no_draw [D]: draws == 0\n")  # `drawn` first: a drawn game
    (f,) = [f for f in res.findings if f.kind == "invariant"]
    assert "D" in f.trace[-1].rules and "W" not in f.trace[-1].rules and f.replay == CONFIRMED


def test_the_game_ends_with_its_variables_back_at_their_initial_values(tmp_path):
    # outcome rules and invariants never see the last game's state between games
    res, _ = _check(tmp_path, MATCH + "invariant fresh [G]: between_games implies life[P1] == 1 and life[P2] == 1 and turns == 0\n")
    assert res.findings == []


def test_a_match_that_never_plays_a_second_game_has_a_dead_next_game(tmp_path):
    res, _ = _check(tmp_path, MATCH.replace("wins[p] == 2", "wins[p] == 1"))
    dead = [f for f in res.findings if f.kind == "dead-rule"]
    assert any("`next_game`" in f.message for f in dead) and not any("`two_wins`" in f.message for f in dead)


def test_a_match_needs_game_results(tmp_path):
    text = MATCH.replace("  game won by player p [W] when life[p] > 0 and life[next(p)] == 0 do wins[p] := wins[p] + 1; end\n", "")
    text = text.replace("  game drawn [D] when life[P1] == 0 and life[P2] == 0 do draws := 1; end\n", "")
    assert [c for c, _ in _errors(tmp_path, text)] == ["E013"]


def test_init_is_refused_in_a_match_and_indexed_any_cannot_start_again(tmp_path):
    errs = _errors(tmp_path, MATCH + "init first: turn == P1\n")
    assert [c for c, _ in errs] == ["E013"] and "`init` cannot restrict the games of a match" in errs[0][1]
    errs = _errors(tmp_path, MATCH.replace("var life(p: player) [G]: 0..1 = 1", "var life(p: player) [G]: 0..1 = any"))
    assert [c for c, _ in errs] == ["E013"] and "starts at `any`" in errs[0][1]


def test_names_the_match_reserves(tmp_path):
    errs = _errors(tmp_path, MATCH + "action next_game progress do end\n")
    assert any(c == "E011" and "next_game" in m for c, m in errs)
    errs = _errors(tmp_path, MATCH + "var between_games: bool = false\n")
    assert any(c == "E011" and "between_games is declared twice" in m for c, m in errs)
    errs = _errors(tmp_path, MATCH + "match { game drawn when true do end }\n")
    assert any(c == "E011" and "`match` is declared twice" in m for c, m in errs)


def test_phases_start_again_in_every_game(tmp_path):
    text = MATCH.replace("action deal [G] progress do", "action deal [G] progress when step == second do").replace(
        "var turn [G]: player = any\n", "var turn [G]: player = any\nphases step [G] { first [G] ends when true  second [G] }\n"
        "action go [G] progress when step == first do end\n").replace("progress when turns == 1 do", "progress when turns == 1 and step == second do")
    res, spec = _check(tmp_path, text)
    assert res.findings == [] and res.diagnostics == []
    inst, g = _graph(spec)
    nxt = {lid for lid, (a, _, _) in enumerate(g.labels) if inst.model.actions[a].name == "next_game"}
    step = inst.var("step").offset
    assert {g.values(d)[step] for _, d, lid in g.edges if lid in nxt} == {0}  # back in the first phase
    between = inst.var("between_games").offset
    assert {g.values(i)[step] for i in range(len(g.states)) if g.values(i)[between]} == {0}


def test_labelled_statements_in_a_match_run_as_written_and_can_be_replaced(tmp_path):
    # a label may stand in a `game won by`, `game drawn` or `game starts` block (replaced by the
    # label alone: they have no name) and in a match action (qualified by the action)
    text = MATCH.replace("do wins[p] := wins[p] + 1; end", "do count: wins[p] := wins[p] + 1; end").replace(
        "do draws := 1; end", "do [D] tally: draws := 1; end").replace(
        "leave when in_game(p) do lose p; end", "leave when in_game(p) do gone: lose p; end").replace(
        "  action concede_match", "  game starts [M] do opening: wins[P1] := wins[P1]; end\n  action concede_match") + \
        "reachable third_game [M]: wins[P1] == 1 and wins[P2] == 1 and not between_games\n"
    res, _ = _check(tmp_path, text)
    assert res.diagnostics == [] and res.disagreements == [] and res.findings == []
    # the first game won (or drawn) ends the match: no second game, no third
    res, _ = _check(tmp_path, text + "replace count do wins[p] := 2; end\nreplace concede_match.gone do lose p; end\n"
                    "replace opening do end\nreplace tally do draws := 1; end\n")
    assert res.diagnostics == [] and res.disagreements == []
    assert sorted(f.message for f in res.findings) == ["`third_game` is never reached",
                                                       "action `next_game` never applies in any reachable state"]


def test_an_action_flagged_match_is_the_match_s_wherever_it_is_declared(tmp_path):
    # a reading replaces an action by name: a match action declared outside `match { }` can be replaced
    text = MATCH.replace("  action concede_match(p: player) [C] leave when in_game(p) do lose p; end\n", "") + \
        "action concede_match(p: player) [C] leave match when in_game(p) do lose p; end\n"
    res, spec = _check(tmp_path, text)
    assert res.diagnostics == [] and res.findings == []
    inst, g = _graph(spec)
    between = inst.var("between_games").offset
    assert (True, "concede_match") in {(bool(g.values(s)[between]), inst.model.actions[g.labels[lid][0]].name)
                                       for s, _, lid in g.edges}
    errs = _errors(tmp_path, "players 2\naction a match do end\n")
    assert [c for c, _ in errs] == ["E013"] and "marked `match`" in errs[0][1]
