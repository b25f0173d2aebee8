"""One finding per cause: bad states of one kind are grouped by what a writer would change.

A deadlock's cause is the condition that stops the actions that got furthest through their
guards there; an outcome gap's cause is the `ends` rule (or built-in reason) that says the game
must end, and whether some player left it without losing (a concession, a draw). Each cause is
its own finding with its own shortest trace and count (checker/analyses/causes.py).
"""
from __future__ import annotations

import textwrap

from checker import engine
from checker.analyses import causes

TWO_CAUSES = "tests/fixtures/deadlock/two-causes-defect.rw"


def deadlocks(res):
    return [f for f in res.findings if f.kind == "deadlock"]


def test_two_unrelated_deadlock_causes_are_two_findings_each_with_its_own_trace():
    found = deadlocks(engine.check([TWO_CAUSES]))
    assert len(found) == 2
    last_steps = sorted(f.trace[-1].action for f in found)
    assert last_steps == ["open_gate", "ring"]
    assert {f.cause for f in found} == {("blocked by not gate",), ("blocked by rings < 3",)}
    assert len({f.fingerprint for f in found}) == 2
    assert all("blocked: `" in f.detail for f in found)


def test_the_causes_are_the_same_with_symmetry_on_and_off(monkeypatch):
    monkeypatch.setenv("RULEWRIGHT_SYMMETRY", "auto")
    on = engine.check([TWO_CAUSES])
    monkeypatch.setenv("RULEWRIGHT_SYMMETRY", "off")
    off = engine.check([TWO_CAUSES])
    assert [(f.cause, f.size, f.fingerprint) for f in deadlocks(on)] == \
        [(f.cause, f.size, f.fingerprint) for f in deadlocks(off)]


def test_a_concession_and_a_loss_that_leave_the_game_undecided_are_two_gaps(tmp_path):
    spec = tmp_path / "gaps.rw"
    spec.write_text(textwrap.dedent('''\
        spec "Two gaps" formalizes "t.txt"
        document {
          T1: "Two players; the active player hits the other or passes."
          T2: "A player at 0 life loses; a player may concede."
          T3: "The game ends when one player is left."
        }
        players [T1] 2
        var turn [T1]: player = P1
        var life(p: player) [T2]: 0..1 = 1
        active p [T1] when p == turn
        action hit [T1] progress do
          life[next(turn)] := 0;
          turn := next(turn);
        end
        action concede(p: player) [T2] leave when in_game(p) do
          leave p;
        end
        outcome no_life [T2]: lose player p when life[p] <= 0
        ends one_left [T3]: count(p in players: in_game(p)) <= 1
        '''))
    gaps = [f for f in engine.check([str(spec)]).findings if f.kind == "outcome-gap"]
    assert sorted(f.cause for f in gaps) == [(), ("some left with no result",)]
    assert {f.subject for f in gaps} == {("one_left",)}


def test_more_causes_than_shown_are_counted_on_the_last_finding(monkeypatch):
    monkeypatch.setattr(causes, "MAX_CAUSES", 1)
    from checker.analyses import state_checks
    monkeypatch.setattr(state_checks, "MAX_CAUSES", 1)
    found = deadlocks(engine.check([TWO_CAUSES]))
    assert len(found) == 1
    assert "... and 1 more cause(s) of this kind (2 state(s))" in found[0].detail


def test_a_guard_is_split_into_its_conjuncts():
    from checker.frontend import typed as T
    from checker.frontend.types import BOOL
    a, b, c = (T.Const(v, BOOL) for v in (True, False, True))
    e = T.Logic("and", T.Logic("and", a, b, BOOL), c, BOOL)
    assert causes.conjuncts(e) == [a, b, c]
    assert causes.conjuncts(T.Logic("or", a, b, BOOL)) == [T.Logic("or", a, b, BOOL)]
