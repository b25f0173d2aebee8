"""Language constructs that are sugar over the core: each reads as its documented expansion."""
from __future__ import annotations

from checker import engine
from checker.frontend import syntax as sx
from checker.frontend.parser import parse_text
from checker.analyses.verdicts import CONFIRMED


def _expr(text: str):
    (inv,) = [d for d in parse_text(f"invariant i: {text}\n", "t.rw") if isinstance(d, sx.InvariantDecl)]
    return inv.cond


def test_elif_in_an_expression_is_a_chain_of_ifs():
    assert _expr("if a then 1 elif b then 2 elif c then 3 else 4 end") == \
        _expr("if a then 1 else if b then 2 else if c then 3 else 4 end end end")


def test_the_first_branch_whose_condition_holds_gives_the_value(tmp_path):
    spec = tmp_path / "e.rw"
    spec.write_text("players 2\nvar x: 0..3 = 0\n"
                    "action a progress when x < 3 do x := x + 1; end\n"
                    "invariant picks [1]: (if x >= 2 then 20 elif x >= 1 then 10 else 0 end) == "
                    "(if x >= 2 then 20 else if x >= 1 then 10 else 0 end end)\n"
                    "invariant wrong: (if x >= 1 then 1 elif x >= 2 then 2 else 0 end) != 2\n", encoding="utf-8")
    res = engine.check([str(spec)])
    assert not any(f.kind in ("invariant", "evaluation-error") for f in res.findings)


def test_a_quote_may_contain_escaped_quotes_and_backslashes():
    items = parse_text('document { Q3: "the \\"wait\\" rule, a \\\\ b" }\n', "q.rw")
    (doc,) = [i for i in items if isinstance(i, tuple) and i[0] == "document"]
    assert doc[1][0].quote == 'the "wait" rule, a \\ b'


def test_a_local_name_keeps_the_value_it_had_where_it_was_bound(tmp_path):
    # "swap the two markers": without a local name the second assignment would read the new m1
    spec = tmp_path / "swap.rw"
    spec.write_text("""players 4
var m1: player = P1
var m2: player = P3
var moved: 0..2 = 0
action swap progress when moved < 2 do
  let first = m1;
  m1 := m2;
  m2 := first;
  moved := moved + 1;
end
invariant swapped: (moved == 1 and m1 == P3 and m2 == P1) or (moved != 1 and m1 == P1 and m2 == P3)
outcome done: draw when moved == 2
""", encoding="utf-8")
    res = engine.check([str(spec)])
    assert res.diagnostics == [] and res.disagreements == []
    assert [f.kind for f in res.findings] == []


def test_a_local_name_may_not_hide_a_variable(tmp_path):
    spec = tmp_path / "hide.rw"
    spec.write_text("players 2\nvar x: 0..1 = 0\naction a do let x = 1; end\n", encoding="utf-8")
    (d,) = engine.check([str(spec)]).diagnostics
    assert d.code == "E011" and "hides the variable x" in d.message


ROUTINE = """spec "routines" formalizes "r.txt"
document { 1: "turns" 2: "a hit costs a life" 3: "no life left: out" 4: "a spare rule" }
players [1] 3
var life(p: player) [1]: 0..2 = 2
var turn [1]: player = P1
routine hit(q: player) [2] do
  life[q] := life[q] - 1;
  [3] if life[q] == 0 then
    lose q;
  end
end
routine spare [4] do
  turn := turn;
end
action attack(q: player) [1] progress when q != turn and in_game(q) do
  hit(q);
  turn := next_in_game(turn);
end
action quake [1] progress when forall p in remaining: life[p] == 2 do
  forall q in remaining do
    hit(q);
  end
end
outcome last [1]: win player p when in_game(p) and forall q in opponents(p): lost(q)
"""


def test_a_routine_runs_where_it_is_called_and_is_judged_once_over_all_its_callers(tmp_path):
    spec = tmp_path / "r.rw"
    spec.write_text(ROUTINE, encoding="utf-8")
    res = engine.check([str(spec)])
    assert res.diagnostics == [] and res.disagreements == []
    # the routine nobody runs is dead; `hit` and its tagged statement, run from two actions, are not
    (dead,) = [f for f in res.findings if f.kind == "dead-rule"]
    assert dead.rules == ("4",) and dead.message == "routine `spare` never applies in any reachable state"
    insts = engine.load_instances(str(spec))
    from checker.explicit.explore import explore
    from checker.explicit.machine import Machine
    graph = explore(Machine(insts[0]))
    cited = {r for _, _, hits in graph.labels for rid in hits for r in insts[0].model.rules[rid].tags}
    assert {"2", "3"} <= cited


def test_a_routine_that_runs_itself_is_refused(tmp_path):
    spec = tmp_path / "r.rw"
    spec.write_text("players 2\nvar x: 0..3 = 0\nroutine r do x := x + 1; r(); end\naction a do r(); end\n",
                    encoding="utf-8")
    (d,) = engine.check([str(spec)]).diagnostics
    assert d.code == "E012" and "may not be recursive" in d.message


def test_argmax_is_the_first_element_with_the_largest_value_and_none_of_no_players(tmp_path):
    spec = tmp_path / "a.rw"
    spec.write_text("""players 4
var life(p: player): 0..3 = 3
var turn: player = P1
var chosen: player? = none
action hit(q: player) progress when life[q] > 0 and q != turn do
  life[q] := life[q] - 1;
  chosen := argmax(p in remaining: life[p]);
  turn := next(turn);
end
invariant healthiest: chosen == none or forall p in remaining: life[p] <= life[chosen]
invariant first_on_ties: chosen == none or forall p in remaining: life[p] < life[chosen] or seat(p) >= seat(chosen)
invariant low: argmin(k in 1..3: (k - 2) * (k - 2)) == 2 and argmax(p in {}: 1) == none
invariant shown: chosen != P3
outcome out: lose player p when life[p] == 0
outcome last: win player p when in_game(p) and forall q in opponents(p): lost(q)
""", encoding="utf-8")
    res = engine.check([str(spec)])
    assert res.diagnostics == [] and res.disagreements == []
    (f,) = res.findings
    assert f.kind == "invariant" and "shown" in f.message and f.replay == CONFIRMED


def test_a_parameter_over_fresh_names_declares_an_enumeration(tmp_path):
    spec = tmp_path / "e.rw"
    spec.write_text("players 2\nvar score: 0..3 = 0\n"
                    "action battle(how: {hold, conquer}) progress when score < 2 do\n"
                    "  if how == conquer then score := score + 2; else score := score + 1; end\nend\n"
                    "reachable conquered: score == 2\noutcome done: draw when score >= 2\n", encoding="utf-8")
    res = engine.check([str(spec)])
    assert res.diagnostics == [] and res.findings == []


def test_an_optional_team_holds_a_team_or_none_and_none_is_no_team(tmp_path):
    spec = tmp_path / "t.rw"
    spec.write_text("""teams A, B size 1
var holder: team? = none
var rounds: 0..2 = 0
action take(t: team) progress when holder == none do holder := t; end
action score progress when rounds < 2 do rounds := rounds + 1; end
outcome winner: win team t when rounds == 2 and holder == t
outcome nobody: draw when rounds == 2 and holder == none
""", encoding="utf-8")
    res = engine.check([str(spec)])
    assert res.diagnostics == [] and res.disagreements == [] and res.findings == []
    spec.write_text("teams A, B size 1\nvar holder: team? = none\naction a do holder := none; end\n"
                    "invariant i: size(members(holder)) == 1\n", encoding="utf-8")
    (f,) = [f for f in engine.check([str(spec)]).findings if f.kind == "evaluation-error"]
    assert "none where a team is needed" in f.message and f.replay == CONFIRMED


def test_properties_can_tell_a_running_game_from_an_ended_or_drawn_one(tmp_path):
    spec = tmp_path / "g.rw"
    spec.write_text("""players 2
var life(p: player): 0..2 = 2
action hit(q: player) progress when life[q] > 0 do life[q] := life[q] - 1; end
action quake progress do forall q in players do life[q] := life[q] - 1; end end
outcome dead: lose player p when life[p] == 0
outcome last: win player p when in_game(p) and forall q in opponents(p): lost(q)
outcome both: draw when forall p in players: lost(p)
invariant alive_while_playing: game_over or forall p in players: life[p] > 0
reachable drawn_game: game_drawn
invariant never_drawn: not game_drawn
""", encoding="utf-8")
    res = engine.check([str(spec)])
    assert res.diagnostics == [] and res.disagreements == []
    (f,) = res.findings
    assert f.kind == "invariant" and "never_drawn" in f.message and f.replay == CONFIRMED
    spec.write_text("players 2\noutcome o: draw when game_over\n", encoding="utf-8")
    (d,) = engine.check([str(spec)]).diagnostics
    assert d.code == "E014" and "reads the end of the game" in d.message


def test_after_of_a_value_it_does_not_list_is_an_evaluation_error_never_the_first_value(tmp_path):
    # after(x, P1, P2) with x none used to be P1; the explorer (closures and generated
    # successors alike) and the Z3 replay now all stop the step there
    spec = tmp_path / "a.rw"
    spec.write_text("""players 3
var x: player? = none
var seen: player? = none
var done: bool = false
action a progress when not done do done := true; seen := after(x, P1, P2); end
action b progress when not done and after(x, P1, P2) == P1 do done := true; end
action c progress when not done and x != none and after(x, P1, P2) == P1 do done := true; end
outcome fin: draw when done
""", encoding="utf-8")
    res = engine.check([str(spec)])
    assert res.diagnostics == [] and res.disagreements == []
    # a's body and b's guard fail (one finding of 2 failing steps); c tests for none first
    (f,) = [f for f in res.findings if f.kind == "evaluation-error"]
    assert f.message == "none is not one of the values after() lists" and f.size == 2 and f.replay == CONFIRMED
    assert "action `c` never applies in any reachable state" in {g.message for g in res.findings}
    spec.write_text("players 3\nvar seen: player? = none\naction a do seen := after(none, P1, P2); end\n",
                    encoding="utf-8")
    (d,) = engine.check([str(spec)]).diagnostics
    assert d.code == "E013" and d.message.startswith("after(none, ...): none is not one of the values listed")
    assert (d.span.line, d.span.col) == (3, 27)  # at the none
