"""Declared events (docs/language.md, "Declared events"): `event NAME(q: player)` raised by
`signal NAME(x);` and heard by triggers. How the three engines settle them is in
tests/test_semantics_table.py (SIGNAL_ROWS); tests/fixtures/deadlock/event-{defect,twin}.rw is
the fixture pair (MTG 807.4d's wait for ever, each rule written once)."""
from checker import engine
from checking import _check

HAND_ON = """players 4
var mk(p: player): bool = p == P1
var rounds: 0..3 = 0
event takes(q: player) [1]
active p when mk[p]
action pass(p: player) progress when mk[p] do
  mk[p], mk[next(p)] := false, true;
  signal takes(next(p));
end
trigger counted [1] on takes(q) when q == P1 do rounds := min(rounds + 1, 3); end
outcome done: win player p when rounds == 3 and mk[p]
"""
DOC = 'spec "s" formalizes "s.txt"\ndocument { 1: "rounds the rounds: each time the marker comes back" }\n'



def test_a_trigger_on_a_declared_event_runs_in_the_step_that_raises_it_and_is_cited(tmp_path):
    res = _check(tmp_path, DOC + HAND_ON + "invariant no_round: rounds == 0\n")[0]
    (f,) = [f for f in res.findings if f.kind == "invariant"]
    last = f.trace[-1]
    assert last.action == "pass(p=P4)" and "1" in last.rules
    assert [r.text(place=False) for r in last.ran if r.kind == "trigger"] == ["trigger counted on takes(P1) [1]"]
    assert f.replay.status == "confirmed"


def test_a_trigger_on_an_event_nothing_raises_is_a_dead_rule(tmp_path):
    res = _check(tmp_path, DOC + HAND_ON.replace("  signal takes(next(p));\n", ""))[0]
    assert "trigger `counted` never applies in any reachable state" in [f.message for f in res.findings
                                                                        if f.kind == "dead-rule"]


def test_every_mistake_with_events_is_reported_at_once_before_any_exploration(tmp_path):
    text = HAND_ON + """event takes(q: player)
event side(t: team)
action shout(p: player) do signal take(p); signal takes; end
trigger hears on nothing(q) do end
trigger wrong on takes do end
"""
    res = _check(tmp_path, DOC + text)[0]
    got = [(d.code, d.message, d.span.line) for d in res.diagnostics]
    assert got == [
        ("E011", "event takes is declared twice", 14),
        ("E013", "event `side` is about a team, and this format has no teams", 15),
        ("E010", "there is no event `take`", 16),
        ("E012", "event `takes` is raised with a player: `signal takes(x);`", 16),
        ("E010", "there is no event `nothing` for trigger hears to hear", 17),
        ("E012", "event `takes` has a player: trigger wrong hears it as `on takes(q)`", 18),
    ]
    assert res.instances == []
    hints = {d.message: d.hint for d in res.diagnostics}
    assert hints["there is no event `take`"] == "did you mean `takes`?"
    assert hints["event `takes` is raised with a player: `signal takes(x);`"].endswith("s.rw:6:1")


def test_a_reading_removes_an_event_with_everything_that_raises_or_hears_it_or_says_what_is_left(tmp_path):
    res = _check(tmp_path, DOC + HAND_ON + "reading quiet { remove event takes }\n")[0]
    assert [(d.code, d.message) for d in res.diagnostics] == [
        ("E010", "there is no event `takes`"), ("E010", "there is no event `takes` for trigger counted to hear")]


def test_findings_are_the_same_with_symmetry_on_and_off(monkeypatch):
    path = "tests/fixtures/deadlock/event-defect.rw"
    monkeypatch.setenv("RULEWRIGHT_SYMMETRY", "auto")
    on = engine.check([path])
    monkeypatch.setenv("RULEWRIGHT_SYMMETRY", "off")
    off = engine.check([path])
    assert [(f.kind, f.size, f.fingerprint) for f in on.findings] == [(f.kind, f.size, f.fingerprint) for f in off.findings]
    assert [f.kind for f in on.findings] == ["deadlock"]
