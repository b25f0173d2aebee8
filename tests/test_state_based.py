"""State-based rules (docs/language.md, "State-based rules"): a rule checked after every step's
statements, said once. How the three engines run them is in tests/test_semantics_table.py
(STATE_ROWS); tests/fixtures/invariant/state-based-{defect,twin}.rw is the fixture pair."""
from checker import engine
from checker.frontend.compose import compose
from checker.frontend.parser import parse_file
from checker.frontend import syntax as sx

POISON = """players 2
var turn: player = P1
var life(p: player): 0..2 = 2
var poison(p: player): 0..2 = 0
active p when turn == p
action sting progress when poison[next(turn)] < 2 do
  poison[next(turn)] := poison[next(turn)] + 1;
  turn := next(turn);
end
state_based venom [1] when exists p in players: poison[p] == 2 do
  forall p in players do
    if poison[p] == 2 then
      reset: poison[p] := 0;
      life[p] := life[p] - 1;
    end
  end
end
outcome no_life: lose player p when life[p] <= 0
outcome last_one: win player p when in_game(p) and forall q in opponents(p): lost(q)
"""
DOC = 'spec "s" formalizes "s.txt"\ndocument { 1: "two poison counters cost a life" }\n'


def _spec(tmp_path, text: str) -> str:
    path = tmp_path / "s.rw"
    path.write_text(DOC + text, encoding="utf-8")
    return str(path)


def test_a_state_based_rule_runs_after_every_step_and_is_cited_in_the_trace(tmp_path):
    res = engine.check([_spec(tmp_path, POISON + "invariant untouched: life[P2] == 2\n")])
    (f,) = [f for f in res.findings if f.kind == "invariant"]
    last = f.trace[-1]
    assert last.action == "sting" and "1" in last.rules
    assert any(r.kind == "state" and r.name == "venom" for r in last.ran)
    assert any(r.text(place=False) == "state-based rule venom [1]" for r in last.ran)


def test_a_state_based_rule_that_never_runs_is_a_dead_rule(tmp_path):
    res = engine.check([_spec(tmp_path, POISON.replace("poison[p] == 2 do", "poison[p] == 3 do"))])
    dead = [f.message for f in res.findings if f.kind == "dead-rule"]
    assert "state-based rule `venom` never applies in any reachable state" in dead


def test_a_reading_removes_a_state_based_rule_or_replaces_one_of_its_statements(tmp_path):
    path = _spec(tmp_path, POISON + "reading none { remove state_based venom }\n"
                                    "reading keep { replace venom.reset do end }\n")
    composed, diags = compose(parse_file(path))
    assert diags == []
    rules = {r: [d for d in decls if isinstance(d, sx.StateBasedDecl)] for _, r, decls in composed}
    assert rules["none"] == [] and len(rules["keep"]) == 1


def test_a_state_based_rule_reads_no_action_parameter_and_is_declared_once(tmp_path):
    res = engine.check([_spec(tmp_path, POISON + "state_based venom when true do end\n"
                                                 "state_based other when q == P1 do end\n")])
    assert [(d.code, d.message) for d in res.diagnostics] == [
        ("E011", "state-based rule venom is declared twice"), ("E010", "`q` is not defined")]
