"""Findings are located at their cause.

Each test reads as a specification of where a finding points and what its trace shows. The
specs are in tests/specs/located/, each with a comment saying what it is built to show.
"""
from __future__ import annotations

import functools

from checker import engine
from checker.outputs import report
from checker.outputs.trace import narrative
from checker.analyses.verdicts import CONFIRMED

LOCATED = "tests/specs/located"


@functools.cache
def checked(path: str) -> engine.Result:
    return engine.check([path])


def only(res: engine.Result, kind: str):
    found = [f for f in res.findings if f.kind == kind]
    assert len(found) == 1, report.text(res)
    return found[0]


def lines(spans) -> list[int]:
    return [s.line for s in spans]


def declared_at(path: str, text: str) -> int:
    """The line of the first line of `path` that starts with `text`."""
    with open(path, encoding="utf-8") as fh:
        for i, line in enumerate(fh, 1):
            if line.startswith(text):
                return i
    raise AssertionError(f"{text!r} not in {path}")


# ---------------------------------------------------------------- conflicts and gaps

def test_an_outcome_conflict_is_located_at_the_outcome_rules_that_fired_in_its_last_step():
    path = f"{LOCATED}/conflict.rw"
    f = only(checked(path), "outcome-conflict")
    assert f.spans[0].line == declared_at(path, "outcome victory")
    assert declared_at(path, "action harmony") in lines(f.spans)  # the step that brought both to 2 points
    quiet = [declared_at(path, f"outcome {name}") for name in ("no_life", "no_deck", "no_hand")]
    assert not set(quiet) & set(lines(f.spans)), "rules that did not fire are not the cause"


def test_an_outcome_gap_is_located_at_the_loss_rules_that_emptied_the_table():
    path = "tests/fixtures/outcome-gap/simultaneous-defect.rw"
    f = only(checked(path), "outcome-gap")
    assert lines(f.spans)[:2] == [declared_at(path, "outcome no_life"), declared_at(path, "outcome team_out")]
    assert declared_at(path, "action earthquake") in lines(f.spans)
    assert declared_at(path, "outcome last_team") not in lines(f.spans)  # the win rule never fired


# ---------------------------------------------------------------- tagged if statements

def test_a_tagged_if_whose_branch_never_runs_is_a_dead_rule_at_the_if():
    path = f"{LOCATED}/tagged-if.rw"
    f = only(checked(path), "dead-rule")
    assert f.rules == ("T3",)
    assert f.spans[0].line == declared_at(path, "  [T3] if")


def test_a_trace_cites_a_tagged_if_only_when_its_branch_ran():
    f = only(checked(f"{LOCATED}/tagged-if.rw"), "invariant")
    assert f.replay == CONFIRMED  # the Z3 replay agrees on which tagged statements applied
    assert [st.action for st in f.trace] == ["setup", "hit"]
    assert "T3" not in f.trace[1].rules and "T3" not in f.rules


def test_a_tagged_if_with_an_else_applies_either_way():
    # the marker rule of the starvation fixture: "the marker waits" is its else
    f = only(checked("tests/fixtures/starvation/defect.rw"), "starvation")
    assert "807.4d" in f.rules


# ---------------------------------------------------------------- loops and concessions

def test_the_loop_marker_is_on_the_state_the_loop_starts_in_not_on_the_concession_into_it():
    f = only(checked("tests/fixtures/forced-loop/defect.rw"), "forced-loop")
    assert f.trace[f.loop_start].action.startswith("concede(")  # the loop's state is reached by conceding
    text = narrative(f).splitlines()
    head = next(i for i, line in enumerate(text) if line.startswith(f"  {f.loop_start}. "))
    assert "loop" not in text[head]
    after = text[head + 1:]
    marker = next(i for i, line in enumerate(after) if "loop starts" in line)
    assert not any(line.startswith("  ") and line[2:3].isdigit() for line in after[:marker]), \
        "the marker comes before the next step, under the state's values"


def test_a_shortest_trace_takes_a_game_action_rather_than_an_equally_short_concession():
    f = only(checked(f"{LOCATED}/concession.rw"), "invariant")
    assert [st.action for st in f.trace] == ["setup", "knock_out(q=P3)"]
    assert f.replay == CONFIRMED


def test_a_concession_stays_in_a_trace_where_it_is_the_shorter_way():
    f = only(checked("tests/fixtures/deadlock/defect.rw"), "deadlock")
    assert any(st.action.startswith("concede(") for st in f.trace)


# ---------------------------------------------------------------- contradictions and parameter values

def test_a_contradictory_setup_folds_the_findings_that_follow_from_it():
    res = checked(f"{LOCATED}/contradiction.rw")
    f = only(res, "contradiction")
    assert f.instances == [f"{LOCATED}/contradiction.rw | N=3"]
    assert {g.kind for g in res.findings} == {"contradiction"}, report.text(res)
    assert "4 follow-on finding(s) folded into this one (1 unreachable-outcome, 3 dead-rule)" in f.detail


def test_a_rule_dead_for_some_parameter_values_says_for_which_and_where_it_applies():
    res = checked(f"{LOCATED}/dead-some.rw")
    (bonus,) = [f for f in res.findings if f.kind == "dead-rule" and "bonus" in f.message]
    assert bonus.message == "action `bonus` never applies in any reachable state when N=2"
    assert bonus.detail == "it does apply when N=3"


def test_a_rule_dead_for_every_parameter_value_says_so_plainly():
    res = checked(f"{LOCATED}/dead-some.rw")
    (comeback,) = [f for f in res.findings if f.kind == "dead-rule" and "comeback" in f.message]
    assert comeback.message == "action `comeback` never applies in any reachable state"
    assert comeback.instances == [f"{LOCATED}/dead-some.rw | N=2", f"{LOCATED}/dead-some.rw | N=3"]
