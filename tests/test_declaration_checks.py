"""dead-declaration (checker.analyses.declaration_checks): a `precedence` that never picks and a
`cannot` rule that never changes how a step ends, as docs/checks.md says. The fixture pair
tests/fixtures/dead-declaration/ shows `lose over win` and a `cannot lose` rule; these show the
other precedences, a precedence of a rule over a `cannot` rule, a declaration dead for some
parameter values only, and the same findings with the search reduced by symmetry or not."""
from __future__ import annotations

import json

import pytest

from checker import engine
from checker.explicit.compiled import CompiledMachine
from checker.engine import load_instances
from checker.explicit.explore import explore

DUEL = """spec "duel" formalizes "duel.txt"
document {
  1: "two players take turns; on his turn a player attacks: his opponent loses his life"
  2: "a player at 0 life loses"
  3: "the players may agree to a draw; a double knockout is a draw"
  4: "a draw prevails over a loss"
}
players [1] 2
var turn [1]: player = P1
var life(p: player) [1]: 0..1 = 1
action attack [1] progress do
  life[next(turn)] := 0;
  turn := next(turn);
end
ACTION
outcome no_life [2]: lose player p when life[p] <= 0
outcome both_out [3]: draw when forall p in players: lost(p)
outcome last [1]: win player p when in_game(p) and forall q in opponents(p): lost(q)
precedence [4] draw over lose
"""
AGREED = "action agree [3] progress do draw; end"  # a draw with no loss: the precedence never picks
DOUBLE_KO = "action double_ko [3] progress do life[P1] := 0; life[P2] := 0; end"  # both lose, and draw

ANGEL = """spec "angel" formalizes "angel.txt"
document {
  A1: "two players take turns; on his turn a player attacks: his opponent loses one life"
  A2: "the angel's controller (the second player) can't lose the game"
  A3: "a player at 0 life loses the game"
  A4: "a player whose opponent has left the game wins it"
  A5: "a player without the angel may concede on his turn, even one who can't lose"
}
players [A1] 2
var turn [A1]: player = P1
var life(p: player) [A1]: 0..1 = 1
var conceded(p: player) [A5]: bool = false
let angel(p: player) [A2] = p == P2
action attack [A1] progress do
  if life[next(turn)] > 0 then
    life[next(turn)] := life[next(turn)] - 1;
  end
  turn := next(turn);
end
action concede [A5] progress when not angel(turn) do
  conceded[turn] := true;
end
outcome angel_shield [A2]: cannot lose player p when angel(p)
outcome no_life [A3]: lose player p when life[p] <= 0
outcome by_concession [A5]: lose player p when conceded[p]
outcome last_standing [A4]: win player p when in_game(p) and forall q in opponents(p): not in_game(q)
precedence [A5] by_concession over angel_shield
"""

GAMBIT = """spec "gambit" formalizes "gambit.txt"
document {
  G1: "two players take turns; on his turn a player attacks: his opponent loses one life"
  G2: "a player at 0 life loses"
  G3: "a player whose opponent has lost wins"
  G4: "gambit: a player at 1 life may pay P life to win the game"
  G5: "a player who would win and lose at the same time loses"
}
param P [G4] in 0..1
players [G1] 2
var turn [G1]: player = P1
var life(p: player) [G1]: 0..2 = 2
action attack [G1] progress when life[next(turn)] > 0 do
  life[next(turn)] := life[next(turn)] - 1;
  turn := next(turn);
end
action gambit [G4] progress when life[turn] == 1 do
  life[turn] := life[turn] - P;
  win turn;
end
outcome no_life [G2]: lose player p when life[p] <= 0
outcome last [G3]: win player p when in_game(p) and forall q in opponents(p): lost(q)
precedence [G5] lose over win
"""

RING = """spec "ring" formalizes "ring.txt"
document {
  R1: "four players sit in a ring; the player whose turn it is attacks the next one, who loses, or passes"
  R2: "the last player in the game wins"
  R3: "a player who would win and lose at the same time loses"
}
players [R1] 4
var turn [R1]: player = any
active p [R1] when turn == p
action attack [R1] progress when in_game(turn) do
  lose next_in_game(turn);
  turn := left_in_game(turn, 2);
end
action pass [R1] progress when in_game(turn) do
  turn := next_in_game(turn);
end
outcome last [R2]: win player p when in_game(p) and forall q in opponents(p): lost(q)
precedence [R3] lose over win
"""


def _check(tmp_path, text: str, name: str = "probe.rw") -> engine.Result:
    path = tmp_path / name
    path.write_text(text)
    return engine.check([str(path)])


def _dead(res: engine.Result) -> list:
    return [f for f in res.findings if f.kind == "dead-declaration"]


def test_a_draw_over_a_loss_that_no_step_meets_is_a_dead_declaration(tmp_path):
    (f,) = _dead(_check(tmp_path, DUEL.replace("ACTION", AGREED)))
    assert f.message == ("`precedence draw over lose` never decides: no reachable step has a draw of the game "
                         "with a loss, or a player or team who both draws and loses")
    assert (f.rules, f.subject, f.severity) == (("4",), ("precedence draw over lose",), "warning")
    assert f.spans[0].line == DUEL.splitlines().index("precedence [4] draw over lose") + 1


def test_a_draw_over_a_loss_decides_where_a_double_knockout_is_a_draw(tmp_path):
    assert _dead(_check(tmp_path, DUEL.replace("ACTION", DOUBLE_KO))) == []


def test_a_rule_over_a_cannot_rule_is_dead_where_the_cannot_rule_never_forbids_what_the_rule_says(tmp_path):
    res = _check(tmp_path, ANGEL)
    (f,) = _dead(res)
    assert f.message == ("`precedence by_concession over angel_shield` never decides: no reachable step has "
                         "`by_concession` hold for a player whom `angel_shield` forbids to lose")
    assert f.rules == ("A5",)
    # both rules it names apply, and the cannot rule itself matters: it keeps the angel's
    # controller in the game at 0 life (so nobody can beat him: an unreachable-outcome)
    assert [g.kind for g in res.findings] == ["unreachable-outcome", "dead-declaration"]


def test_a_rule_over_a_cannot_rule_decides_once_the_protected_player_may_concede(tmp_path):
    assert _dead(_check(tmp_path, ANGEL.replace(" when not angel(turn) do", " do"))) == []


def test_a_declaration_dead_for_some_parameter_values_only_says_for_which(tmp_path):
    (f,) = _dead(_check(tmp_path, GAMBIT))
    assert f.message.endswith("who both wins and loses when P=0")
    assert f.detail == "it does apply when P=1"


@pytest.mark.parametrize("mode", ["off", "auto"])
def test_the_search_reduced_by_rotations_finds_the_same_dead_declarations(tmp_path, monkeypatch, capsys, mode):
    from checker.cli import main
    monkeypatch.setenv("RULEWRIGHT_SYMMETRY", mode)
    (tmp_path / "ring.rw").write_text(RING)
    main(["check", str(tmp_path / "ring.rw"), "--jobs", "1", "--output-format", "json", "--stats"])
    doc = json.loads(capsys.readouterr().out)
    (inst,) = doc["instances"]
    assert inst["symmetry"].startswith("none") == (mode == "off")
    assert [(f["kind"], f["message"]) for f in doc["findings"]] == [
        ("dead-declaration", "`precedence lose over win` never decides: no reachable step has a player or team "
                             "who both wins and loses")]


def _machine(tmp_path, text: str) -> CompiledMachine:
    path = tmp_path / "probe.rw"
    path.write_text(text)
    (inst,) = load_instances(str(path))
    return CompiledMachine(inst)


def test_a_cannot_rule_that_mattered_once_is_never_resolved_without_again(tmp_path):
    m = _machine(tmp_path, ANGEL)
    explore(m)
    assert ("cannot", "angel_shield") in m.decided
    assert m._unproven == []  # no later step pays for a second resolution


def test_resolving_a_step_again_without_a_cannot_rule_leaves_the_graph_as_it_was(tmp_path):
    text = open("tests/fixtures/dead-declaration/cannot-defect.rw").read()
    m = _machine(tmp_path, text)
    g = explore(m)
    assert ("cannot", "angel_shield") not in m.decided and m._unproven  # resolved twice wherever it applied
    m._unproven = []  # the same exploration, never resolved twice
    again = explore(m)
    assert (again.states, list(again.edges), again.labels) == (g.states, list(g.edges), g.labels)
