"""A Commander-like free-for-all (tests/symbolic/commander.rw, issue 22): four players at 40
life, commander damage counted per pair of players, a player dealt 21 by one commander loses.
The explorer cannot finish it at these numbers; the default engine must still decide every
check of single states. Its twins at small numbers, which the explorer finishes, are checked by
both engines, which must agree."""
import re

import pytest

from checker import engine
from checker.engine import Selection
from checker.limits import Limits
from checker.symbolic import horn

SPEC = "tests/symbolic/commander.rw"
SAFETY = ("outcome-gap", "outcome-conflict", "deadlock", "overflow", "unreachable-outcome")


def check(monkeypatch, path, formats, mode=None):
    """The findings of `formats` of the spec under one engine (None: the default)."""
    if mode is None:
        monkeypatch.delenv("RULEWRIGHT_ENGINE", raising=False)
    else:
        monkeypatch.setenv("RULEWRIGHT_ENGINE", mode)
    res = engine.check([str(path)], Limits(), select=Selection(only=formats))
    assert res.diagnostics == [] and res.disagreements == []
    return res


# Spacer's proof of the gap from every start in the declared ranges takes 8 to 12 million of
# Z3's resource units in one attempt: horn.Prover.ask gives those starts one attempt of three
# quarters of a question's 40 million (checker/analyses/decision.py QUERY_SECONDS).
@pytest.mark.slow
def test_at_40_life_and_21_commander_damage_the_default_engine_decides_every_outcome_check(monkeypatch):
    res = check(monkeypatch, SPEC, ("commander",))
    (inst,) = res.instances
    assert not inst.complete  # the explorer alone could not have said it
    verdicts = {(d.check, d.subject): d.verdict for d in inst.decisions}
    asked = {(k, "") for k in SAFETY if k != "unreachable-outcome"} | \
            {("unreachable-outcome", f"P{n} wins") for n in range(1, 5)}
    assert asked <= set(verdicts)
    assert {q: verdicts[q] for q in sorted(asked) if verdicts[q] not in ("proved", "found")} == {}
    assert res.findings == []  # the rules are sound: every player can win, nothing else is found


def unclamped(tmp_path):
    """The spec with the commander damage no longer kept at the limit: a hit of 3 on a player
    with 2 below the limit leaves the counter's range (an overflow) at every size."""
    text = open(SPEC, encoding="utf-8").read()
    text, n = re.subn(r"min\(K, (cmd\[turn, q\] \+ d)\)", r"\1", text)
    assert n == 1
    path = tmp_path / "commander-unclamped.rw"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("variant,expected", [("as written", set()), ("unclamped", {"overflow"})])
def test_the_symbolic_and_the_explicit_engine_find_the_same_in_the_small_twins(monkeypatch, tmp_path, variant,
                                                                                expected):
    path = SPEC if variant == "as written" else unclamped(tmp_path)
    seen = {}
    for mode in ("explicit", "symbolic"):
        res = check(monkeypatch, path, ("twin", "twin3"), mode)
        seen[mode] = {(f.kind, f.subject) for f in res.findings if f.kind in SAFETY}
        if mode == "explicit":
            assert all(i.complete for i in res.instances) and len(res.instances) == 2
        else:  # looked at 2,000 states only: what it says of the rest is the symbolic engine's
            assert not any(i.complete for i in res.instances) and all(i.decisions for i in res.instances)
    assert seen["symbolic"] == seen["explicit"]
    assert {kind for kind, _ in seen["explicit"]} == expected


def test_the_clauses_variables_are_walked_once_per_setup_however_many_questions_are_asked(monkeypatch):
    """A walk of the step for its variables is a fifth of a CPU second on the four-player
    instance; every attempt of every question used to walk it again."""
    (inst,) = [i for i in engine.load_instances(SPEC) if i.format == "twin3"]
    prover = horn.Prover(inst)
    walked, real = [], horn._constants
    monkeypatch.setattr(horn, "_constants", lambda *terms: walked.append(terms) or real(*terms))
    for bad in (horn.failing_step, lambda u, f: f.gap, lambda u, f: f.ended):
        for generalized in (True, False):
            prover._query(generalized, bad, 0.05)
    steps = {prover.system(g)[5].get_id() for g in (True, False)}
    assert sum(any(t.get_id() in steps for t in terms) for terms in walked) == 2  # once per setup
    for generalized in (True, False):  # the same variables as a walk of everything at once
        _, _, _, _, init, step = prover.system(generalized)
        gap = prover.frame(generalized)[1].gap
        assert prover._variables(generalized, gap) == real(init, step, gap)
