"""Types and values: choices indexed by any finite domain, lets that name a place."""
from __future__ import annotations

from checker import engine
from checker.analyses.verdicts import CONFIRMED


def _check(tmp_path, text: str, name: str = "t.rw"):
    spec = tmp_path / name
    spec.write_text(text, encoding="utf-8")
    return engine.check([str(spec)])


HEAD = 'spec "t" formalizes "t.txt"\ndocument {\n  1: "a"\n  2: "b"\n}\n'


# ---------------------------------------------------------------- choices indexed by any domain

def test_a_choice_indexed_by_a_range_or_an_enumeration_is_explored_and_replayed():
    res = engine.check(["tests/specs/places_and_choices.rw"])
    assert res.diagnostics == [] and res.disagreements == []
    assert res.findings == []


def test_a_choice_indexed_by_a_range_only_constraints_read_is_decided_by_z3_with_its_core(tmp_path):
    res = _check(tmp_path, HEAD + """param N [1] in 4..5
players [1] N
choice table(k: 1..4) [1]: 0..24
var turn [1]: player = P1
constraint pods [1]: forall k in 1..4: table[k] == 0 or table[k] >= 4
constraint seated [2]: sum(k in 1..4: table[k]) == N
constraint row_5 [2]: N == 5 implies table[1] == 4 and table[2] == 1
constraint spare [1]: table[4] <= 24
action go [1] progress when turn == P1 do turn := P2; end
outcome over [1]: finish when turn == P2
""")
    (c,) = [f for f in res.findings if f.kind == "contradiction"]
    assert c.instances == ["t.rw | N=5"] or "N=5" in c.instance
    assert sorted(c.subject) == ["pods", "row_5"]


def test_a_choice_indexed_by_an_enumeration_in_a_contradiction(tmp_path):
    res = _check(tmp_path, HEAD + """players [1] 2
choice open(b: {b1, b2, b3}) [1]: bool
var turn [1]: player = P1
constraint some [1]: exists b in {b1, b2, b3}: open[b]
constraint none_open [2]: forall b in {b1, b2, b3}: not open[b]
action go [1] progress when turn == P1 do turn := P2; end
outcome over [1]: finish when turn == P2
""")
    (c,) = [f for f in res.findings if f.kind == "contradiction"]
    assert sorted(c.subject) == ["none_open", "some"]


# ---------------------------------------------------------------- lets that name a place

TEAM_POINTS = HEAD + """teams [1] A, B size 2
var points(t: team) [1]: 0..3 = 0
let score(p: player) = points[team(p)]
var turn [1]: player = A1
action score_one [1] progress when score(turn) < 3 do
  score(turn) := score(turn) + 1;
  turn := next(turn);
end
outcome three [2]: win player p when score(p) == 3
outcome others [2]: lose player p when exists q in players: won(q) and team(q) != team(p)
reading player_points [1] "points are kept per player" {
  var points(p: player) [1]: 0..3 = 0
  let score(p: player) = points[p]
}
reading team_points [1] "points are kept per team" {
}
"""


def test_a_reading_switches_team_points_and_player_points_through_one_let(tmp_path):
    res = _check(tmp_path, TEAM_POINTS)
    assert res.diagnostics == [] and res.disagreements == []
    models = engine.load_instances(str(tmp_path / "t.rw"))
    by_reading = {i.reading: i for i in models}
    assert by_reading["player_points"].var("points").index_type.kind == "player"
    assert by_reading["team_points"].var("points").index_type.kind == "team"


def test_an_assignment_to_a_let_is_an_assignment_to_the_place_it_names(tmp_path):
    from checker.frontend import typed as T
    res = engine.load_instances(str(_write(tmp_path, TEAM_POINTS)))
    inst = [i for i in res if i.reading == "team_points"][0]
    (action,) = inst.model.actions
    first = action.body[0]
    assert isinstance(first, T.Assign) and first.var == "points"
    assert isinstance(first.index, T.Call) and first.index.func == "team"


def _write(tmp_path, text):
    p = tmp_path / "t.rw"
    p.write_text(text, encoding="utf-8")
    return p


def test_a_let_that_computes_a_value_is_no_place(tmp_path):
    res = _check(tmp_path, HEAD + """teams [1] A, B size 1
var points(t: team) [1]: 0..3 = 0
let plus_one(t: team) = points[t] + 1
action a [1] do plus_one(A) := 2; end
""")
    (d,) = res.diagnostics
    assert d.code == "E012" and "plus_one is a let whose value is not a variable" in d.message
    assert d.span.line == 9


def test_a_let_place_is_assigned_the_way_it_is_read(tmp_path):
    res = _check(tmp_path, HEAD + """teams [1] A, B size 1
var points(t: team) [1]: 0..3 = 0
let score(t: team) = points[t]
action a [1] do score[A] := 2; points(A) := 1; end
""")
    messages = sorted(d.message for d in res.diagnostics)
    assert messages == ["points is a variable; assign it as points[...]",
                        "score is a let; assign it as score(...), the way it is read"]


def test_a_let_place_may_not_name_a_choice(tmp_path):
    res = _check(tmp_path, HEAD + """players [1] 2
choice deck [1]: 0..3
let chosen = deck
action a [1] do chosen := 2; end
""")
    (d,) = res.diagnostics
    assert "deck is a choice made before play" in d.message


# ---------------------------------------------------------------- possible

DECKS = HEAD + """players [1] 1
choice main [1]: 0..60
choice copies [2]: 0..10
constraint minimum [1]: main >= 20
constraint within [2]: copies <= main and copies <= LIMIT
possible five_copies [2]: copies >= 5
var built [1]: bool = false
action build [1] progress when not built READS do built := true; end
outcome done [1]: finish when built
"""


def test_a_possible_that_the_constraints_rule_out_names_the_rules_that_do(tmp_path):
    res = _check(tmp_path, DECKS.replace("LIMIT", "4").replace("READS", ""))
    (f,) = res.findings
    assert f.kind == "impossible-property" and f.subject == ("five_copies",)
    assert f.message == "no setup allows `five_copies`: it is ruled out by: `within`"
    assert f.rules == ("2",) and res.exit_code() == 1
    assert f.replay.status == "not-replayed"  # the choices are Z3's alone: the explorer has no view


def test_a_possible_some_setup_satisfies_is_no_finding(tmp_path):
    res = _check(tmp_path, DECKS.replace("LIMIT", "10").replace("READS", ""))
    assert res.findings == [] and res.exit_code() == 0


def test_the_explorer_confirms_a_possible_when_it_enumerates_every_setup(tmp_path):
    res = _check(tmp_path, DECKS.replace("LIMIT", "4").replace("READS", "and copies + main >= 0"))
    (f,) = res.findings
    assert f.kind == "impossible-property" and str(f.replay) == "confirmed by the explorer's initial states"
    assert res.disagreements == []
    clean = _check(tmp_path, DECKS.replace("LIMIT", "10").replace("READS", "and copies + main >= 0"), "u.rw")
    assert clean.findings == [] and clean.disagreements == []


def test_a_possible_is_not_asked_of_a_contradictory_setup(tmp_path):
    res = _check(tmp_path, DECKS.replace("LIMIT", "4").replace("READS", "")
                 + "constraint none [1]: main < 20\n")
    assert [f.kind for f in res.findings] == ["contradiction"]


def test_a_possible_is_a_condition_on_the_setup(tmp_path):
    res = _check(tmp_path, DECKS.replace("LIMIT", "4").replace("READS", "").replace(
        "possible five_copies [2]: copies >= 5", "possible five_copies [2]: copies + 5\npossible other [2]: nothing > 1"))
    messages = sorted(d.message for d in res.diagnostics)
    assert messages == ["`nothing` is not defined", "expected a boolean here, found a number"]


# ---------------------------------------------------------------- numbers in steps (abstraction)

LIFE = HEAD + """players [1] 2
var life(p: player) [1]: 0..8000 in steps of 1000 = 8000
var turn [1]: player = P1
var turns [1]: 0..3 = 0
BODY
"""


def _errors(tmp_path, body):
    res = _check(tmp_path, LIFE.replace("BODY", body))
    return sorted(d.message for d in res.diagnostics)


def test_the_engines_read_a_stepped_variable_in_steps_and_traces_show_the_documents_numbers(tmp_path):
    res = engine.check(["tests/specs/life_in_steps.rw"])
    assert res.findings == [] and res.diagnostics == [] and res.disagreements == []
    inst = engine.load_instances("tests/specs/life_in_steps.rw")[0]
    life = inst.var("life")
    assert (life.type.low, life.type.high, life.step) == (0, 4, 2000)  # HIT=2000: 0..8000 held as 0..4
    res = _check(tmp_path, LIFE.replace("BODY", "action hit [1] progress when life[P2] > 0 do life[P2] := life[P2] - 2000; end\n"
                                        "invariant above [1]: life[P2] > 2000"))
    (f,) = [f for f in res.findings if f.kind == "invariant"]
    assert f.replay == CONFIRMED
    assert [dict(s.state)["life"]["#map"][1][1] for s in f.trace] == [{"#bigint": str(n)} for n in (8000, 6000, 4000, 2000)]
    assert f.abstraction == "life in steps of 1000 (0..8000 checked as 0..8)"


def test_a_constant_that_meets_a_stepped_number_must_be_a_multiple_of_the_step(tmp_path):
    assert _errors(tmp_path, "invariant i [1]: life[P1] > 2500") == [
        "this number is 2500, which is not a multiple of the step 1000"]
    assert _errors(tmp_path, "action a [1] do life[P1] := 500; end") == [
        "the value assigned to life is 500, which is not a multiple of the step 1000"]


def test_only_exact_operations_are_allowed_on_numbers_in_steps(tmp_path):
    assert _errors(tmp_path, "invariant i [1]: life[P1] > turns") == [
        "`>`: a number in steps of 1000 meets a number counted in ones"]
    assert _errors(tmp_path, "invariant i [1]: life[P1] * life[P2] > 0") == [
        "two numbers counted in steps are multiplied: the product is in no steps the model declares"]
    assert _errors(tmp_path, "invariant i [1]: life[P1] / 2 > 0") == [
        "this number is 2, which is not a multiple of the step 1000"]
    assert _errors(tmp_path, "action a [1] do turns := life[P1]; end") == [
        "the value assigned to turns must be a plain number, not a number in steps of 1000"]
    assert _errors(tmp_path, "invariant i [1]: left(P1, life[P1]) == P1") == [
        "the arguments of left() do not fit: player, number in steps of 1000"]


def test_numbers_in_different_steps_do_not_mix(tmp_path):
    assert _errors(tmp_path, "var gold [1]: 0..100 in steps of 50 = 0\ninvariant i [1]: gold < life[P1]") == [
        "`<`: a number in steps of 50 meets a number in steps of 1000"]


def test_only_a_range_is_counted_in_steps(tmp_path):
    assert _errors(tmp_path, "var flag [1]: bool in steps of 2 = false") == [
        "flag is not a number range, so it cannot be counted in steps"]


def test_a_step_that_reads_a_parameter_is_checked_in_every_instance(tmp_path):
    res = _check(tmp_path, HEAD + """param H [1] in {2000, 3000}
players [1] 2
var life(p: player) [1]: 0..8000 in steps of H = 8000
""")
    assert sorted({(d.message, d.context) for d in res.diagnostics}) == [
        ("the high end of life's range is 8000, which is not a multiple of the step 3000", "H=3000"),
        ("the initial value of life is 8000, which is not a multiple of the step 3000", "H=3000")]


def test_a_parameter_that_abstracts_the_documents_number_is_named_in_every_finding(tmp_path):
    res = _check(tmp_path, HEAD + """param V [1] in 2..3 abstracts 11
players [1] 2
var points(p: player) [1]: 0..V = 0
var turn [1]: player = P1
action score [1] progress when points[turn] < V do points[turn] := points[turn] + 1; end
invariant below [2]: points[P1] < 2
""")
    (f,) = [f for f in res.findings if f.kind == "invariant"]
    assert f.abstraction == "V=2 for the document's 11 / V=3 for the document's 11"
    from checker.outputs import report
    assert "under the abstraction (the spec's claim, not proven): V=2 for the document's 11" in report.text(res)
    import json
    (j,) = [x for x in json.loads(report.as_json(res))["findings"] if x["kind"] == "invariant"]
    assert j["abstraction"] == f.abstraction


def test_a_step_of_1_is_the_number_as_written_and_no_abstraction(tmp_path):
    res = _check(tmp_path, HEAD + """param HIT [1] in {1, 3}
players [1] 2
var life [1]: 0..3 in steps of HIT = 3
action hit [1] progress when life > 0 do life := life - HIT; end
invariant alive [2]: life > 0
""")
    by_instance = {i: f.abstraction for f in res.findings if f.kind == "invariant" for i in f.instances or [f.instance]}
    assert by_instance and all("steps of 1 " not in a for a in by_instance.values())
    from checker.analyses.merging import abstraction_of
    from checker.engine import load_instances
    texts = {i.params["HIT"]: abstraction_of(i) for i in load_instances(str(tmp_path / "t.rw"))}
    assert texts == {1: "", 3: "life in steps of 3 (0..3 checked as 0..1)"}


def test_a_possible_reads_the_setup_not_the_play(tmp_path):
    res = _check(tmp_path, DECKS.replace("LIMIT", "4").replace("READS", "").replace(
        "possible five_copies [2]: copies >= 5", "possible five_copies [2]: copies >= 5 and in_game(P1)"))
    (d,) = res.diagnostics
    assert d.message == "`possible five_copies` reads in_game, which play decides, not the setup"


def test_an_overflow_of_a_number_in_steps_is_told_in_the_documents_numbers(tmp_path):
    res = _check(tmp_path, LIFE.replace("BODY", "action hit [1] progress do life[P2] := life[P2] - 3000 - 1000; end"))
    (f,) = [f for f in res.findings if f.kind == "overflow"]
    assert f.message == "life[P2] would become -4000, outside its type" and f.replay == CONFIRMED


def test_a_step_is_at_least_one(tmp_path):
    assert _errors(tmp_path, "var gold [1]: 0..100 in steps of 0 = 0") == ["the step of gold is 0; a step must be at least 1"]


def test_a_step_that_reads_a_parameter_is_at_least_one_in_every_instance(tmp_path):
    res = _check(tmp_path, HEAD + "players [1] 2\nparam Z [1] in 0..1\nvar gold [1]: 0..100 in steps of Z = 0\n")
    assert [(d.message, d.context) for d in res.diagnostics] == [("the step of gold is 0; a step must be at least 1", "Z=0")]


def test_a_plain_number_times_a_multiple_of_the_step_is_counted_in_steps(tmp_path):
    res = _check(tmp_path, LIFE.replace("BODY", "action hit(k: 1..3) [1] progress when life[P2] >= k * 1000 do\n"
                                        "  life[P2] := life[P2] - k * 1000;\nend\ninvariant above [1]: life[P2] >= 6000"))
    (f,) = [f for f in res.findings if f.kind == "invariant"]
    assert f.replay == CONFIRMED and f.trace[-1].action == "hit(k=3)"
    assert _errors(tmp_path, "action hit(k: 1..3) [1] do life[P2] := life[P2] - k * 1500; end") == [
        "this number is 1500, which is not a multiple of the step 1000"]


CAPTAINS = HEAD + """teams [1] A, B size 2
choice captain(t: team) [1]: player
constraint own_team [1]: forall t in teams: team(captain[t]) == t
constraint first_seat [2]: forall t in teams: captain[t] == A1 or captain[t] == B1
possible either_member(t: team, p: player) [1]: team(p) != t or captain[t] == p
var ended [1]: bool = false
action go [1] progress when not ended READS do ended := true; end
outcome done [1]: finish when ended
"""


def test_a_possible_with_parameters_is_asked_for_every_binding(tmp_path):
    res = _check(tmp_path, CAPTAINS.replace("READS", ""))
    assert sorted((f.message, f.subject) for f in res.findings) == [
        ("no setup allows `either_member` (for t=A, p=A2): it is ruled out by: `first_seat`", ("either_member", "t=A, p=A2")),
        ("no setup allows `either_member` (for t=B, p=B2): it is ruled out by: `first_seat`", ("either_member", "t=B, p=B2"))]
    assert len({f.fingerprint for f in res.findings}) == 2
    explored = _check(tmp_path, CAPTAINS.replace("READS", "and team(captain[A]) == A"), "u.rw")
    assert [str(f.replay) for f in explored.findings] == ["confirmed by the explorer's initial states"] * 2
    assert explored.disagreements == []


def test_a_possibles_parameters_range_over_fixed_domains(tmp_path):
    res = _check(tmp_path, CAPTAINS.replace("READS", "").replace("(t: team, p: player)", "(t: team, p: remaining)"))
    (d,) = res.diagnostics
    assert "the parameter p of `possible either_member` ranges over a domain that depends on the game" == d.message
