"""Amounts that do not share a step (docs/language.md, "Large numbers"): `in steps of K rounding
down|up|nearest` counts a constant no multiple of K as one, and every finding says which
amounts were rounded. tests/fixtures/overflow/rounding-{defect,twin}.rw is the fixture pair."""
import pytest

from checking import _check
from checker.frontend.steps import round_to_step

DOC = 'spec "s" formalizes "s.txt"\ndocument { 1: "a blast deals 1; a base has 30 HP" }\n'



@pytest.mark.parametrize("v, mode, steps", [
    (1, "down", 0), (7, "down", 1), (1, "up", 1), (6, "up", 2), (2, "nearest", 0), (3, "nearest", 1),
    (5, "down", 1), (5, "up", 1), (-1, "up", 0), (-1, "down", -1),
])
def test_an_amount_is_counted_as_the_multiple_its_rounding_names(v, mode, steps):
    assert round_to_step(v, 5, mode) == steps


def _after_one_blast(tmp_path, mode: str, amount: str, params: str = "") -> str:
    text = params + f"""players 2
var hp(p: player) [1]: 0..30 in steps of 5 rounding {mode} = 30
action blast [1] progress do hp[P2] := max(0, hp[P2] - {amount}); end
outcome gone: lose player p when hp[p] == 0
outcome last: win player p when in_game(p) and size(remaining) == 1
invariant untouched: hp[P2] == 30
"""
    res = _check(tmp_path, DOC + text)[0]
    assert not res.diagnostics
    found = [f for f in res.findings if f.kind == "invariant"]
    if not found:
        return "untouched"
    (f,) = found
    return f.abstraction


def test_rounding_down_drops_a_blast_finer_than_the_step_and_up_counts_it_as_a_step(tmp_path):
    assert _after_one_blast(tmp_path, "down", "1") == "untouched"
    assert _after_one_blast(tmp_path, "up", "1") == (
        "hp in steps of 5 rounding up (0..30 checked as 0..6); amounts counted as a multiple of their step: "
        "1 at line 5 as 5")


def test_an_amount_that_reads_a_parameter_is_rounded_per_instance(tmp_path):
    text = _after_one_blast(tmp_path, "nearest", "D", "param D [1] in {2, 3}\n")
    assert "amounts counted as a multiple of their step: 3 at line 6 as 5" in text


def test_without_a_rounding_an_amount_finer_than_the_step_is_refused(tmp_path):
    text = """players 2
var hp(p: player) [1]: 0..30 in steps of 5 = 30
action blast [1] progress do hp[P2] := max(0, hp[P2] - 1); end
"""
    res = _check(tmp_path, DOC + text)[0]
    assert [(d.code.value, d.message) for d in res.diagnostics] == [
        ("E013", "this number is 1, which is not a multiple of the step 5")]


def test_numbers_in_the_same_steps_rounded_otherwise_do_not_mix(tmp_path):
    text = """players 2
var a [1]: 0..30 in steps of 5 rounding up = 30
var b [1]: 0..30 in steps of 5 rounding down = 30
action move [1] progress do a := b; end
"""
    res = _check(tmp_path, DOC + text)[0]
    assert [d.code.value for d in res.diagnostics] == ["E013"]
    assert "rounding down" in res.diagnostics[0].message


def test_a_rounded_amount_is_listed_under_the_findings_it_bears_on_only():
    from checker import engine
    res = engine.check(["tests/fixtures/overflow/rounding-defect.rw"])
    (over,) = [f for f in res.findings if f.kind == "overflow"]
    assert [s.action for s in over.trace[1:]] == ["heal"]  # the blast of 1 (line 23) is not in it
    assert "amounts counted" not in over.abstraction and "hp in steps of 5 rounding up" in over.abstraction


def test_a_rounded_amount_in_a_rule_the_trace_ran_is_listed(tmp_path):
    text = DOC + """players 2
var hp(p: player) [1]: 0..30 in steps of 5 rounding up = 30
action blast [1] progress do hp[P2] := max(0, hp[P2] - 1); end
action rest [1] progress do hp[P1] := hp[P1]; end
invariant untouched: hp[P2] == 30
invariant rested: hp[P1] != 26
"""
    res = _check(tmp_path, text)[0]
    shown = {f.subject: f.abstraction for f in res.findings if f.kind == "invariant"}
    # each invariant's own amount, and the blast's where the trace ran it
    assert shown[("untouched",)].endswith("amounts counted as a multiple of their step: 1 at line 5 as 5")
    assert shown[("rested",)].endswith("amounts counted as a multiple of their step: 26 at line 8 as 30")
