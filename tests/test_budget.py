"""A budget for "any number" (docs/language.md, "Any number of times"): `param EXTRA in 2..3
budget`, and the note `budget-differs` where the largest budget finds otherwise than the next.
tests/fixtures/budget-differs/{defect,twin}.rw is the fixture pair."""
from checker import engine

DEFECT = "tests/fixtures/budget-differs/defect.rw"


def test_the_largest_budget_finding_more_than_the_next_is_a_note_that_names_what_it_found():
    res = engine.check([DEFECT])
    (note,) = [f for f in res.findings if f.kind == "budget-differs"]
    assert note.message == ('budget EXTRA=3 finds overflow [A6, A7] that EXTRA=2 does not: "any number" may find '
                            'otherwise than EXTRA=3; check a larger budget')
    assert note.severity == "info" and note.rules == ("A6", "A7")
    assert [f.kind for f in res.findings if f.kind != "budget-differs"] == ["overflow"]


def test_the_budget_is_compared_for_each_value_of_the_other_parameters(tmp_path):
    text = open(DEFECT, encoding="utf-8").read().replace(
        "players [A1] 2", "param CAP [A7] in {2, 9}\nplayers [A1] 2").replace(
        "var units [A7]: 0..2 = 0", "var units [A7]: 0..CAP = 0").replace(
        "var passed_with [A8]: 0..2 = 0", "var passed_with [A8]: 0..CAP = 0")
    path = tmp_path / "two.rw"
    path.write_text(text, encoding="utf-8")
    notes = [f.message for f in engine.check([str(path)]).findings if f.kind == "budget-differs"]
    # with room for nine units no budget overflows: only CAP=2 differs
    assert notes == ['budget EXTRA=3 finds overflow [A6, A7] that EXTRA=2 does not (with CAP=2): "any number" may '
                     'find otherwise than EXTRA=3; check a larger budget']


def test_budgets_that_find_the_same_say_nothing():
    res = engine.check(["tests/fixtures/budget-differs/twin.rw"])
    assert res.findings == [] and res.exit_code() == 0
