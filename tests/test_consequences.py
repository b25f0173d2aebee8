"""Consequences: a finding that another finding of the same instance implies is shown under
it ("follows from") and does not fail the run on its own (checker/analyses/consequences.py).
"""
from __future__ import annotations

import json
import textwrap

from checker import engine
from checker.outputs import report

UNWINNABLE = textwrap.dedent('''\
    spec "Unwinnable" formalizes "u.txt"
    document {
      U1: "Two players take turns scoring a point or passing."
      U2: "A player with 3 points wins."
      U3: "Points stop at 2."
      U4: "A player who has won shakes hands."
    }
    players [U1] 2
    var turn [U1]: player = P1
    var points(p: player) [U1, U3]: 0..2 = 0
    var shook [U4]: bool = false
    active p [U1] when p == turn
    action score [U1] progress when points[turn] < 2 do
      points[turn] := points[turn] + 1;
      turn := next(turn);
    end
    action pass_turn [U1] progress do
      turn := next(turn);
    end
    action shake [U4] progress when exists p in players: points[p] >= 3 do
      shook := true;
    end
    outcome three [U2]: win player p when points[p] >= 3
    reachable someone_won [U2]: exists p in players: won(p)
    reachable hands_shaken [U4]: shook
    ''')


def checked(tmp_path, text=UNWINNABLE):
    path = tmp_path / "spec.rw"
    path.write_text(text)
    return engine.check([str(path)])


def by_kind(res):
    out = {}
    for f in res.findings:
        out.setdefault(f.kind, []).append(f)
    return out


def test_an_unreachable_win_carries_its_dead_rule_the_properties_that_need_a_win_and_the_loop(tmp_path):
    res = checked(tmp_path)
    cause = by_kind(res)["unreachable-outcome"][0]
    follows = {(f.kind, f.subject) for f in res.findings if f.follows_fingerprint == cause.fingerprint}
    assert follows == {("dead-rule", ("three",)), ("unreachable-property", ("someone_won",)), ("forced-loop", ())}


def test_findings_with_a_cause_of_their_own_stand_alone(tmp_path):
    res = checked(tmp_path)
    alone = {(f.kind, f.subject) for f in res.findings if not f.follows}
    assert ("dead-rule", ("shake",)) in alone  # its guard reads the points, not a win
    assert ("unreachable-property", ("hands_shaken",)) in alone


def test_a_consequence_does_not_fail_the_run_and_is_listed_under_its_cause(tmp_path):
    res = checked(tmp_path)
    assert {f.kind for f in res.failing} == {"unreachable-outcome", "dead-rule", "unreachable-property"}
    assert len(res.failing) == 3
    text = report.text(res)
    assert "consequences (they follow from this finding" in text
    assert "(3 more follow from these)" in text
    doc = json.loads(report.as_json(res))
    statuses = sorted(f["status"] for f in doc["findings"])
    assert statuses.count("follows") == 3
    sarif = json.loads(report.as_sarif(res))
    levels = [r["level"] for r in sarif["runs"][0]["results"] if r["properties"]["status"] == "follows"]
    assert levels == ["note"] * 3


def test_everything_after_a_setup_that_always_fails_follows_from_it(tmp_path):
    res = checked(tmp_path, "players 2\noutcome o: win player p when 1 <= 1 % 0\n")
    failing = res.failing
    assert [f.kind for f in failing] == ["evaluation-error"]
    assert {f.kind for f in res.findings if f.follows} == {"unreachable-outcome", "dead-rule"}


def test_a_consequence_of_some_instances_follows_from_the_cause_found_there(tmp_path):
    # with N = 2 the points stop below the winning score; with N = 3 they reach it
    text = UNWINNABLE.replace("players [U1] 2", "param N in {2, 3}\nplayers [U1] 2") \
        .replace("0..2 = 0", "0..N = 0").replace("points[turn] < 2", "points[turn] < N")
    res = checked(tmp_path, text)
    outcome = [f for f in res.findings if f.kind == "unreachable-outcome"]
    assert len(outcome) == 1 and outcome[0].instances == [outcome[0].instances[0]]  # only N=2
    dead = [f for f in res.findings if f.kind == "dead-rule" and f.subject == ("three",)]
    assert len(dead) == 1 and dead[0].follows_fingerprint == outcome[0].fingerprint
    assert dead[0].instances == outcome[0].instances
