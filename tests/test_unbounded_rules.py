"""The symbolic encoding of which rules a step applies (checker/symbolic/outcomes.py,
checker/symbolic/bmc.py `applies`): the same rules the explorer records, step by step."""
from pathlib import Path

import pytest

from checker import engine
from checker.explicit.compiled import machine_for
from checker.explicit.explore import explore
from checker.limits import Limits
from checker.symbolic import horn
from checker.symbolic.encode import Encoder
from checker.symbolic.outcomes import settle
from checker.symbolic.terms import concrete, state_to_sym

ROOT = Path(__file__).resolve().parent.parent

COUNTER = """players 2
var x: 0..10 = 0
action inc progress when x < 5 do x := x + 1; end
action jump progress when x == 7 do x := 0; end
action reset progress when x == 5 do x := 0; end
outcome never: draw when x == 9
reachable five: x == 5
reachable eight: x == 8
reachable above(k: 4..6): x > k
"""


def instance(tmp_path, text: str):
    path = tmp_path / "spec.rw"
    path.write_text(text, encoding="utf-8")
    (inst,) = engine.load_instances(str(path))
    return inst


# ---------------------------------------------------------------- the encoding: which rules a step applies

def step_hits_disagree(path: str, max_states: int = 400) -> list[str]:
    """Each step of the explorer's graph (its first states) replayed by the folded encoding:
    the rules the step applies (tagged statements, routines, phases, triggers, outcome rules
    cited as the explorer cites them) must be the explorer's, to the rule."""
    out = []
    for inst in engine.load_instances(path):
        g = explore(machine_for(inst), Limits(max_states=max_states))
        enc = Encoder(inst, fold=True)
        for s, lid in zip(g.edges.src, g.edges.lid):
            action, binding, hits = g.labels[lid]
            decl = inst.model.actions[action]
            env = {b.uid: v for (b, _), v in zip(decl.params, binding)}
            after, _, _ = settle(enc, enc.stmts(decl.body, state_to_sym(inst, g.values(s), folded=True), env))
            theirs = {r for r, c in after.hits.items() if concrete(c) is True}
            mine = {r for r in hits if inst.model.rules[r].kind != "action"}
            if mine != theirs:
                out.append(f"{inst.label} {decl.name}{binding}: explorer {sorted(mine)}, encoding {sorted(theirs)}")
    return out


HIT_SPECS = ["tests/specs/cannot_lose.rw", "tests/specs/phases_priority.rw", "tests/specs/match_best_of_three.rw",
             "tests/fixtures/dead-rule/defect.rw", "tests/fixtures/deadlock/trigger-defect.rw",
             "tests/fixtures/dead-declaration/cannot-defect.rw"]
EVERY_SPEC = sorted(str(p.relative_to(ROOT)) for p in [*(ROOT / "tests" / "fixtures").glob("*/*.rw"),
                                                        *(ROOT / "tests" / "specs").glob("*.rw")])


@pytest.mark.parametrize("path", HIT_SPECS)
def test_each_step_applies_the_same_rules_in_the_encoding_as_in_the_explorer(path):
    assert step_hits_disagree(path) == []


@pytest.mark.slow
def test_each_step_of_every_fixture_and_test_spec_applies_the_same_rules_in_both_engines():
    problems = []
    for path in EVERY_SPEC:
        try:
            problems += step_hits_disagree(path, 1_500)
        except engine.SpecError:
            continue  # the fixtures of input errors
    assert problems == []


def test_the_replay_rejects_a_step_that_cites_other_outcome_rules_than_the_encoding(tmp_path):
    from checker.symbolic.replay import ReplayStep, replay
    inst = instance(tmp_path, COUNTER.replace("x == 9", "x == 5"))  # `never` now applies when x reaches 5
    g = explore(machine_for(inst), Limits())
    never = next(i for i, r in enumerate(inst.model.rules) if r.name == "never")
    (s, t, lid), = [(s, t, lid) for s, t, lid in zip(g.edges.src, g.edges.dst, g.edges.lid) if never in g.labels[lid][2]]
    action, binding, hits = g.labels[lid]
    step = ReplayStep(g.values(s), action, binding, g.values(t), hits=hits)
    assert replay(inst, [step]) == ""
    cut = ReplayStep(g.values(s), action, binding, g.values(t), hits=tuple(r for r in hits if r != never))
    assert "the rules applied differ" in replay(inst, [cut])


def test_the_setup_applies_the_outcome_rules_its_settling_applies(tmp_path):
    inst = instance(tmp_path, """players 2
var x: 0..3 = 3
action dec progress when x > 0 do x := x - 1; end
outcome at_three: draw when x == 3
outcome at_two: draw when x == 2
""")
    prover = horn.Prover(inst)
    rid = {r.name: i for i, r in enumerate(inst.model.rules)}
    assert prover.at_setup(lambda u: u.setup_hits.get(rid["at_three"], False), 10) == horn.REACHABLE
    assert prover.at_setup(lambda u: u.setup_hits.get(rid["at_two"], False), 10) == horn.PROVED
