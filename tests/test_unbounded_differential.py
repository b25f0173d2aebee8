"""The symbolic engine against the explorer, question by question (issue 22): on every instance
the explorer finishes (random specs, and the bundled specs at their small numbers), each
safety question Spacer answers gets the explorer's answer. A proof (no reachable frame is bad)
is a check the complete graph does not fail; "reachable" is one it fails; a side proved never
to win is one the graph never shows winning, a phase proved never entered one no state is in. Unknown answers are allowed (Spacer's time is
bounded), but the tests count the answers and fail if there are none to compare."""
from __future__ import annotations

import glob
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, note, settings

from checker.analyses import unbounded
from checker.analyses.checks import run_checks_within
from checker.analyses.explored import Explored
from checker.analyses.graph_checks import winners
from checker.analyses.phase_checks import in_phase, phases_entered
from checker.engine import load_instances
from checker.explicit.compiled import machine_for
from checker.explicit.explore import explore
from checker.frontend.diagnostics import SpecError
from checker.limits import Budget, LimitHit, Limits, watchdog
from checker.symbolic import horn

from test_differential_specs import EXAMPLES, specs

ROOT = Path(__file__).resolve().parent.parent
SECONDS = 3.0  # of work per question: small instances, and an unknown answer is no failure
# the explorer's finding kinds that fail each question (a failing step is an overflow or an
# evaluation error, whichever the step meets first)
FAILS = {"outcome-conflict": {"outcome-conflict"}, "outcome-gap": {"outcome-gap"}, "deadlock": {"deadlock"},
         "overflow": {"overflow", "evaluation-error"}, "player-without-outcome": {"player-without-outcome"},
         "implied-loss": {"implied-loss"}}


def explorer_answers(inst) -> dict | None:
    """Per question, whether the complete explorer finds it bad; None when it does not finish."""
    graph = explore(machine_for(inst), Limits(max_states=20_000, max_seconds=20))
    if not graph.complete or not graph.init_ids:
        return None
    found, stopped = run_checks_within(graph, None)
    assert not stopped
    # an invariant that cannot be evaluated is that invariant's failure, not a failing step
    kinds = {f.kind for f in found if not (f.kind == "evaluation-error" and f.key.startswith("invariant:"))}
    answers = {kind: bool(kinds & fails) for kind, fails in FAILS.items()}
    for d in inst.model.invariants:
        answers["invariant " + d.name] = any(f.kind in ("invariant", "evaluation-error") and d.name in f.subject
                                             for f in found)
    entered = phases_entered(Explored(graph))
    for cyc in inst.model.phases:
        for p in cyc.phases:
            answers[f"in phase {p.name}"] = (cyc.name, p.index) in entered
    wp, wt = winners(graph)
    for x in range(inst.nplayers):
        answers[f"{inst.players[x]} wins"] = bool(wp >> x & 1)
    for x in range(inst.nteams):
        answers[f"team {inst.teams[x]} wins"] = bool(wt >> x & 1)
    return answers


def spacer_answers(inst) -> dict[str, str]:
    """Per question, Spacer's verdict: proved (never bad), reachable, or unknown."""
    prover = horn.Prover(inst)
    bads = dict(unbounded.SAFETY)
    bads.update({"invariant " + d.name: horn.violated(d.cond) for d in inst.model.invariants})
    bads.update({f"in phase {p.name}": horn.holds(in_phase(inst, cyc, p), {})
                 for cyc in inst.model.phases for p in cyc.phases})
    bads.update({f"{inst.players[x]} wins": unbounded._wins(x, False) for x in range(inst.nplayers)})
    bads.update({f"team {inst.teams[x]} wins": unbounded._wins(x, True) for x in range(inst.nteams)})
    out = {}
    for question, bad in bads.items():
        if bad(*prover.frame()) is None:
            continue  # not encoded for the symbolic engine (said as such by `decide`)
        out[question] = prover.ask(bad, SECONDS).verdict
    return out


def disagreements(inst) -> tuple[list[str], int]:
    """(the questions where the engines disagree, how many Spacer answered)."""
    mine = explorer_answers(inst)
    if mine is None:
        return [], 0
    try:
        with watchdog(Budget(Limits(max_seconds=60))):  # the encoding of a step, however big
            theirs = spacer_answers(inst)
    except LimitHit:
        return [], 0
    wrong, answered = [], 0
    for question, verdict in theirs.items():
        if verdict == horn.UNKNOWN or question == "implied-loss" and mine["player-without-outcome"]:
            continue  # (the explorer says a player without an outcome first, and then only that)
        answered += 1
        # proved: no reachable frame meets the condition (a failure, or a side's win); reachable: some does
        if (verdict == horn.PROVED) == mine[question]:
            wrong.append(f"{question}: Spacer says {verdict}, the explorer {'finds' if mine[question] else 'never finds'} it")
    return wrong, answered


# found by CI: an invariant that has no value (in_game(none)) was counted as a failing step, so the
# explorer "found" an overflow that Spacer had rightly proved absent
INVARIANT_WITHOUT_A_VALUE = """players 2
var opt1: player? = none
var opt2: player? = none
action a0 progress when true do opt1 := P1; end
phases cyc { ph0 ends when true }
when ph0 ends do leave P1; end
outcome o0: lose player q4 when true
winners many
last_side plays_on
after_win plays_on
ends stop: true
invariant inv0: in_game(opt2)
"""


@pytest.mark.slow
@settings(max_examples=EXAMPLES // 5, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(text=specs())
@example(text=INVARIANT_WITHOUT_A_VALUE)
def test_random_specs_get_the_explorers_answer_to_every_question_spacer_answers(tmp_path_factory, text):
    note(text)
    path = tmp_path_factory.mktemp("spec") / "s.rw"
    path.write_text(text, encoding="utf-8")
    try:
        inst = load_instances(str(path))[0]
    except SpecError:
        assume(False)
    wrong, answered = disagreements(inst)
    assume(answered > 0)
    assert wrong == []


SPECS = sorted(glob.glob(str(ROOT / "spec" / "*.rw")))
MODELS_PER_FILE = 3


@pytest.mark.slow
@pytest.mark.parametrize("path", SPECS, ids=lambda p: Path(p).stem)
def test_the_bundled_specs_get_the_explorers_answer_to_every_question_spacer_answers(path):
    # one instance per model (its first reading and smallest parameters), the file's first
    # MODELS_PER_FILE models: the models differ in their rules, their instances mostly in their
    # sizes, and each model costs seconds of Spacer's time
    wrong, answered, models = [], 0, set()
    for inst in load_instances(path):
        if inst.model_name in models or len(models) == MODELS_PER_FILE:
            continue
        models.add(inst.model_name)
        bad, n = disagreements(inst)
        wrong += [f"{inst.label}: {b}" for b in bad]
        answered += n
    assert answered > 0  # something was compared
    assert wrong == []
