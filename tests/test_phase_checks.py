"""vacuous-property (checker/analyses/phase_checks.py): an invariant about a phase no reachable
state is in is named, by the explorer on a complete graph and by Spacer beyond the explorer's
limit, with the same finding. tests/fixtures/vacuous-property/ holds the defect and its twin."""
from pathlib import Path

import pytest

from checker import engine
from checker.analyses.phase_checks import in_phase, phase_mentions
from checker.limits import Limits
from checker.symbolic import horn

DEFECT = "tests/fixtures/vacuous-property/defect.rw"
TWIN = "tests/fixtures/vacuous-property/twin.rw"

# two phases, the second skipped as it starts; `rounds` is only there to make the game long
SKIPPED = """players 2
var turn: player = P1
var rounds: 0..{top} = 0
phases step {{
  play ends when true
  bonus ends when true
}}
action pass progress when rounds < {top} do rounds := rounds + 1; turn := next(turn); end
outcome out_of_rounds: draw when rounds == {top}
active p when turn == p
{invariants}
"""


def _vacuous(res):
    return [f for f in res.findings if f.kind == "vacuous-property"]


def _spec(tmp_path: Path, invariants: str, top: int = 3) -> str:
    path = tmp_path / "s.rw"
    path.write_text(SKIPPED.format(top=top, invariants=invariants), encoding="utf-8")
    return str(path)


def test_an_invariant_about_a_phase_that_ends_as_it_starts_is_named_with_the_phase():
    (f,) = _vacuous(engine.check([DEFECT]))
    assert f.subject == ("end_phase_of_a_player", "ending")
    assert [s.line for s in f.spans] == [48, 28]  # the invariant, then the phase's end condition
    assert f.severity == "warning"


def test_an_invariant_about_a_phase_that_is_played_is_not_named():
    assert _vacuous(engine.check([TWIN])) == []


def test_only_an_invariant_that_speaks_of_the_skipped_phase_is_named(tmp_path):
    # a step ends `play`, starts and ends `bonus`, and starts `play` again (no phase ends twice in
    # a step): every state is in `play`, none in `bonus`
    res = engine.check([_spec(tmp_path, "invariant b: step != bonus or rounds > 0\n"
                                        "invariant p: step != play or rounds >= 0\n"
                                        "invariant r: rounds >= 0")])
    assert [f.subject for f in _vacuous(res)] == [("b", "bonus")]


def test_a_set_of_phases_names_each_of_them(tmp_path):
    inst = engine.load_instances(_spec(tmp_path, "invariant i: step in {play, bonus} or rounds > 0"))[0]
    assert [(d.name, p.name) for d, _, p in phase_mentions(inst.model)] == [("i", "play"), ("i", "bonus")]


def test_spacer_proves_that_no_frame_is_in_a_phase_that_ends_as_it_starts(tmp_path):
    inst = engine.load_instances(_spec(tmp_path, "invariant b: step != bonus or rounds > 0", top=100_000))[0]
    (_, cyc, bonus), = phase_mentions(inst.model)
    a = horn.Prover(inst).ask(horn.holds(in_phase(inst, cyc, bonus), {}), 20)
    assert a.verdict == horn.PROVED
    play = cyc.phases[0]
    assert horn.Prover(inst).ask(horn.holds(in_phase(inst, cyc, play), {}), 20).verdict == horn.REACHABLE


@pytest.mark.slow  # the whole symbolic run (20 s): every other question is asked too
def test_beyond_the_explorers_limit_spacer_proves_the_phase_is_never_entered(tmp_path):
    (shown,) = _vacuous(engine.check([_spec(tmp_path, "invariant b: step != bonus or rounds > 0")]))
    path = _spec(tmp_path, "invariant b: step != bonus or rounds > 0", top=100_000)
    (f,) = _vacuous(engine.check([path], Limits(max_states=200)))
    assert f.engine.startswith("symbolic (Spacer)")
    assert "step" in f.detail  # Spacer's invariant, in the spec's names
    assert (f.fingerprint, f.message) == (shown.fingerprint, shown.message)  # the explorer's finding


@pytest.mark.slow  # as above
def test_a_phase_the_partial_graph_entered_is_decided_without_spacer(tmp_path):
    path = _spec(tmp_path, "invariant p: step != play or rounds >= 0", top=100_000)
    res = engine.check([path], Limits(max_states=200))
    assert _vacuous(res) == []
    assert not any("vacuous-property" in line for line in res.incomplete)
