"""Dead declarations beyond the explorer's state limit (checker/analyses/unbounded_declarations.py):
what the explorer noted is found, Spacer proves the rest never decides (checker/symbolic/bmc.py
`notes`), and neither ever contradicts a complete exploration."""
from pathlib import Path

import pytest

from checker import engine
from checker.analyses import decision, unbounded, unbounded_declarations
from checker.analyses.declaration_checks import check_dead_declarations
from checker.analyses.explored import Explored
from checker.explicit.compiled import machine_for
from checker.explicit.explore import explore
from checker.limits import Budget, Limits
from checker.symbolic import horn
from checker.symbolic.encode import Encoder
from checker.symbolic.outcomes import settle
from checker.symbolic.terms import concrete, state_to_sym

ROOT = Path(__file__).resolve().parent.parent
# (the same_step pair: a `precedence lose over win same_step` that never decides, and its twin)
FIXTURES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "fixtures" / "dead-declaration").glob("*.rw")) + [
    "tests/fixtures/unreachable-property/same-step-defect.rw", "tests/fixtures/unreachable-property/same-step-twin.rw"]
# the spec/ models with a precedence or a "cannot" rule, at their own small numbers, and the test
# specs that have one (the explorer finishes each instance)
SPECS = ["spec/mtg-multiplayer-draft-2004-fr.rw", "spec/warhammer-invasion-realm-wars.rw", "spec/yugioh-tag-duel.rw",
         "spec/force-of-will-floor-rules.rw", "tests/specs/cannot_lose.rw", "tests/specs/markers_at_once.rw",
         "tests/specs/ring_departed_turn.rw"]

# a duel whose life total is far beyond any state limit: a hit takes one life; a gambit makes
# its player win and lose at once (the loss stands); a draw is never proposed with a loss
DUEL = """players 2
var turn: player = P1
var life(p: player): 0..8000 = 8000
action hit progress when life[next(turn)] > 0 do
  life[next(turn)] := life[next(turn)] - 1;
  turn := next(turn);
end
action gambit progress do
  win turn;
  lose turn;
end
outcome no_life: lose player p when life[p] <= 0
outcome last_standing: win player p when in_game(p) and forall q in opponents(p): lost(q)
outcome never_both: draw when life[P1] == 0 and life[P2] == 0
precedence lose over win
precedence draw over lose
"""


def explorer_dead(inst, max_states: int = 200_000):
    """(the subjects a complete exploration reports as dead declarations, the rules it applied);
    None where it does not finish."""
    g = explore(machine_for(inst), Limits(max_states=max_states))
    if not g.complete:
        return None
    return {f.subject[0] for f in check_dead_declarations(Explored(g))}, set(g.hit_rules)


def symbolic_answers(inst, hit: set) -> dict[str, object]:
    """Each declaration's decision with nothing noted: every one is asked of Spacer (its rules'
    dead-rule verdicts: the explorer's)."""
    q = decision.Questions(horn.Prover(inst), Budget(Limits(max_seconds=120)))
    rules = {rid: "found" if rid in hit else horn.PROVED for rid in range(len(inst.model.rules))}
    _, decisions = unbounded_declarations.decide(inst, q, set(), rules)
    return {d.subject: d for d in decisions}


def contradictions(path: str, players: int = 4) -> tuple[list[str], int]:
    """Per declaration of each instance of at most `players` players that the explorer
    finishes: a Spacer proof where the explorer does not report it dead, or a frame Spacer
    finds deciding where it does. Returns (the contradictions, how many declarations Spacer
    decided one way or the other). (Spacer takes a minute or more from nine players up.)"""
    out, decided = [], 0
    for inst in [i for i in engine.load_instances(path) if i.nplayers <= players]:
        view = explorer_dead(inst)
        if view is None:
            continue
        dead, hit = view
        for subject, d in symbolic_answers(inst, hit).items():
            proved = d.verdict == horn.PROVED and d.engine == decision.SPACER
            reachable = d.detail.startswith("reachable")
            decided += proved or reachable
            if proved and subject not in dead or reachable and subject in dead:
                out.append(f"{inst.label} {subject}: explorer {'dead' if subject in dead else 'decides'}, "
                           f"Spacer {d.verdict}: {d.detail}")
    return out, decided


@pytest.mark.parametrize("path", FIXTURES)
def test_on_each_dead_declaration_fixture_spacer_never_contradicts_the_complete_explorer(path):
    problems, decided = contradictions(path)
    assert problems == [] and decided > 0


@pytest.mark.slow
@pytest.mark.parametrize("path", SPECS)
def test_on_each_model_with_declarations_spacer_never_contradicts_the_complete_explorer(path):
    problems, _ = contradictions(path)
    assert problems == []


def test_the_defects_dead_declaration_is_proved_and_its_twins_live_one_is_reachable():
    (defect,) = engine.load_instances("tests/fixtures/dead-declaration/defect.rw")
    (twin,) = engine.load_instances("tests/fixtures/dead-declaration/twin.rw")
    every = set(range(len(defect.model.rules)))
    assert symbolic_answers(defect, every)["precedence lose over win"].verdict == horn.PROVED
    live = symbolic_answers(twin, every)["precedence lose over win"]
    assert live.verdict == horn.UNKNOWN and live.detail.startswith("reachable")


def test_a_declaration_whose_rule_never_applies_is_left_to_dead_rule_and_one_not_known_to_apply_is_unknown():
    (inst,) = engine.load_instances("tests/fixtures/dead-declaration/cannot-defect.rw")
    q = decision.Questions(horn.Prover(inst), Budget(Limits(max_seconds=60)))
    shield = next(r.rule for r in inst.model.outcomes if r.name == "angel_shield")
    every = {rid: "found" for rid in range(len(inst.model.rules))}
    found, decisions = unbounded_declarations.decide(inst, q, set(), {**every, shield: horn.PROVED})
    assert found == [] and {d.verdict for d in decisions} == {horn.PROVED}
    assert {d.engine for d in decisions} == {unbounded_declarations.DEAD_RULE}
    found, decisions = unbounded_declarations.decide(inst, q, set(), {**every, shield: horn.UNKNOWN})
    assert found == [] and {d.verdict for d in decisions} == {horn.UNKNOWN}
    assert all("angel_shield" in d.detail for d in decisions)


def test_a_declaration_the_explorer_noted_is_found_and_not_asked(tmp_path):
    (inst,) = engine.load_instances("tests/fixtures/dead-declaration/defect.rw")
    q = decision.Questions(horn.Prover(inst), Budget(Limits(max_seconds=0)))  # no time: asking would be unknown
    every = {rid: "found" for rid in range(len(inst.model.rules))}
    found, (d,) = unbounded_declarations.decide(inst, q, {("precedence", "lose", "win")}, every)
    assert found == [] and (d.verdict, d.engine) == ("found", "explicit")


# ---------------------------------------------------------------- a handed-over instance

@pytest.mark.slow
def test_a_handed_over_duel_reports_its_dead_precedence_with_spacers_proof_and_finds_the_live_one(tmp_path, monkeypatch):
    path = tmp_path / "duel.rw"
    path.write_text(DUEL, encoding="utf-8")
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "symbolic")
    res = engine.check([str(path)], Limits(max_states=2_000))
    (i,) = res.instances
    assert not i.complete
    verdicts = {d.subject: (d.verdict, d.engine) for d in i.decisions if d.check == "dead-declaration"}
    assert verdicts["precedence draw over lose"] == (horn.PROVED, decision.SPACER)
    assert verdicts["precedence lose over win"] == ("found", "explicit")  # the explorer's first states noted it
    (dead,) = [f for f in res.findings if f.kind == "dead-declaration"]
    assert dead.subject == ("precedence draw over lose",) and dead.engine == decision.SPACER
    assert dead.message.startswith("`precedence draw over lose` never decides: no reachable step has a draw of the game")
    assert dead.detail.startswith("proved by the symbolic engine (Spacer)")
    assert "dead-declaration" not in unbounded.not_decided(engine.load_instances(str(path))[0], i.decisions)


def test_the_same_duel_explored_in_full_reports_the_same_finding(tmp_path, monkeypatch):
    path = tmp_path / "duel.rw"
    path.write_text(DUEL.replace("0..8000 = 8000", "0..3 = 3"), encoding="utf-8")
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "explicit")
    res = engine.check([str(path)])
    assert [(f.subject, f.key) for f in res.findings if f.kind == "dead-declaration"] == \
        [(("precedence draw over lose",), f"precedence draw over lose:{DUEL.splitlines().index('precedence draw over lose') + 1}")]


# ---------------------------------------------------------------- the encoding: which keys a step notes

def step_notes_disagree(path: str, max_states: int = 400) -> tuple[list[str], int]:
    """Each state of the explorer's graph (its first states) expanded by a machine that noted
    nothing before, against the folded encoding of its steps: the keys of precedences the
    explorer's resolutions note (`Machine.decided`) must be among those the encoding's note
    (`noted`) for the same steps. Returns (the states where they are not, how many states the
    explorer noted a key in)."""
    out, noticed = [], 0
    for inst in engine.load_instances(path):
        g = explore(machine_for(inst), Limits(max_states=max_states))
        m = machine_for(inst)
        enc = Encoder(inst, fold=True)
        steps: dict[int, list] = {}
        for s, lid in zip(g.edges.src, g.edges.lid):
            steps.setdefault(s, []).append(g.labels[lid][:2])
        for s, labels in sorted(steps.items()):
            m.forget_resolutions()  # (a cached resolution notes nothing)
            m._init_decided()
            m.successors(g.states[s])
            mine = {k for k in m.decided if k[0] != "cannot"}
            theirs = set()
            for action, binding in labels:
                decl = inst.model.actions[action]
                env = {b.uid: v for (b, _), v in zip(decl.params, binding)}
                after, _, _ = settle(enc, enc.action_body(decl, state_to_sym(inst, g.values(s), folded=True), env))
                theirs |= {k for k, c in after.noted.items() if concrete(c) is True}
            noticed += bool(mine)
            if not mine <= theirs:
                out.append(f"{inst.label} state {s}: explorer {sorted(mine)}, encoding {sorted(theirs)}")
    return out, noticed


NOTE_SPECS = FIXTURES + ["tests/specs/cannot_lose.rw", "tests/specs/markers_at_once.rw", "tests/specs/ring_departed_turn.rw"]


@pytest.mark.parametrize("path", NOTE_SPECS)
def test_each_step_the_explorer_notes_a_precedence_for_notes_it_in_the_encoding_too(path):
    problems, noticed = step_notes_disagree(path)
    assert problems == []
    if path.endswith("twin.rw"):  # the twins' precedences decide: the comparison has something to compare
        assert noticed > 0
