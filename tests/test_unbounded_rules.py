"""Dead rules and `reachable` properties beyond the explorer's state limit
(checker/analyses/unbounded_rules.py): what a graph shows applied or reached is found, Spacer
proves the rest never applies or is never reached (checker/symbolic/bmc.py `applies`), and
neither ever contradicts a complete exploration."""
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, note, settings

from checker import engine
from checker.analyses import decision, graph_checks, unbounded, unbounded_rules
from checker.analyses.explored import Explored
from checker.explicit.compiled import machine_for
from checker.explicit.explore import explore
from checker.limits import Budget, LimitHit, Limits, watchdog
from checker.symbolic import horn
from checker.symbolic.encode import Encoder
from checker.symbolic.outcomes import settle
from checker.symbolic.terms import Unsupported, concrete, state_to_sym

from test_differential_specs import EXAMPLES, specs

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
ENDS = """players 2
var x: 0..3 = 0
action inc progress when x < 3 do x := x + 1; end
outcome top: win player p when x == 3 and p == P1
invariant never_over: not game_over
invariant nobody_won: not won(P1)
reachable over: game_over and won(P1)
"""
STORMS = "tests/symbolic/multiple-of-damage.rw"


def instance(tmp_path, text: str):
    path = tmp_path / "spec.rw"
    path.write_text(text, encoding="utf-8")
    (inst,) = engine.load_instances(str(path))
    return inst


def ask_everything(inst):
    """`unbounded.decide` with nothing reached: every rule and property binding is asked."""
    found, decisions = unbounded.decide(inst, [], {"wins": 0, "team_wins": 0}, Budget(Limits(max_seconds=60)))
    verdicts = {(d.check, d.subject): d.verdict for d in decisions}
    return found, verdicts


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
            body = enc.action_body(decl, state_to_sym(inst, g.values(s), folded=True), env)
            after, _, _ = settle(enc, body)
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


# ---------------------------------------------------------------- Spacer's proofs

def test_spacer_proves_dead_exactly_the_rules_no_reachable_step_applies(tmp_path):
    found, verdicts = ask_everything(instance(tmp_path, COUNTER))
    assert verdicts["dead-rule", "action `jump`"] == "proved"  # x never reaches 7
    assert verdicts["dead-rule", "outcome rule `never`"] == "proved"  # nor 9
    # reachable: Spacer shows no path, so they stay undecided, never dead
    assert verdicts["dead-rule", "action `inc`"] == verdicts["dead-rule", "action `reset`"] == "unknown"
    dead = {f.message: f for f in found if f.kind == "dead-rule"}
    assert sorted(dead) == ["action `jump` never applies in any reachable state",
                            "outcome rule `never` never applies in any reachable state"]
    jump = dead["action `jump` never applies in any reachable state"]
    assert (jump.key, jump.subject) == ("action:jump:4", ("jump",))  # the explorer's key and subject
    assert jump.detail.startswith("proved by the symbolic engine (Spacer)") and "x != 7" in jump.detail


def test_spacer_proves_unreached_the_property_bindings_no_reachable_frame_satisfies(tmp_path):
    found, verdicts = ask_everything(instance(tmp_path, COUNTER))
    assert verdicts["unreachable-property", "eight"] == "proved"
    assert verdicts["unreachable-property", "five"] == "unknown"
    # per binding, as the explorer asks: x reaches 5, so `above` holds for k=4 only
    assert [verdicts["unreachable-property", f"above for k={k}"] for k in (4, 5, 6)] == ["unknown", "proved", "proved"]
    props = sorted((f.message, f.key, f.size) for f in found if f.kind == "unreachable-property")
    assert props == [("`above` is never reached for k=5; k=6", "above:2", 2), ("`eight` is never reached", "eight:1", 1)]


def test_a_rule_or_property_a_graph_shows_is_found_and_not_asked(tmp_path):
    inst = instance(tmp_path, COUNTER)
    every_rule = set(range(len(inst.model.rules)))
    found, decisions = unbounded.decide(inst, [], {"wins": 0, "team_wins": 0, "rules": every_rule,
                                                   "properties": {("eight", ())}}, Budget(Limits(max_seconds=60)))
    assert not [f for f in found if f.kind == "dead-rule" or f.subject == ("eight",)]
    assert {(d.subject, d.verdict, d.engine) for d in decisions if d.check == "dead-rule"} == \
        {(s, "found", "explicit") for s in ("action `inc`", "action `jump`", "action `reset`", "outcome rule `never`")}
    assert ("eight", "found", "explicit") in {(d.subject, d.verdict, d.engine) for d in decisions}


def test_the_end_of_a_game_is_read_from_its_end_marker_by_invariants_and_properties(tmp_path):
    """`game_over` and `won()` read the end marker of a state, as the explorer's checks read
    it: an invariant they break is never proved, a property they satisfy never unreached."""
    inst = instance(tmp_path, ENDS)
    res = engine.check([str(tmp_path / "spec.rw")])
    assert {f.subject[0] for f in res.findings if f.kind == "invariant"} == {"never_over", "nobody_won"}
    _, verdicts = ask_everything(inst)
    assert verdicts["invariant", "never_over"] != "proved" and verdicts["invariant", "nobody_won"] != "proved"
    assert verdicts["unreachable-property", "over"] != "proved"


def test_a_dead_win_rule_follows_from_its_sides_never_winning_as_in_a_complete_exploration(tmp_path, monkeypatch):
    instance(tmp_path, COUNTER.replace("outcome never: draw", "outcome never: win player p"))
    path = [str(tmp_path / "spec.rw")]

    def shown(res):
        return sorted((f.kind, f.message, bool(f.follows)) for f in res.findings
                      if f.kind in ("dead-rule", "unreachable-outcome"))
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "explicit")
    explorer = engine.check(path)
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "symbolic")
    symbolic = engine.check(path, Limits(max_states=3))
    assert symbolic.instances[0].decisions and not symbolic.instances[0].complete
    assert shown(symbolic) == shown(explorer) == [
        ("dead-rule", "action `jump` never applies in any reachable state", False),
        ("dead-rule", "outcome rule `never` never applies in any reachable state", True),
        ("unreachable-outcome", "P1, P2 can never win (rule `never`)", False)]


def test_a_rule_and_a_property_spacer_finds_a_path_to_are_found_once_the_explorer_walks_it(tmp_path, monkeypatch):
    instance(tmp_path, COUNTER)
    monkeypatch.setattr(unbounded_rules, "goals", lambda machine, graph, seen: [])  # no directed search for them
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "symbolic")
    res = engine.check([str(tmp_path / "spec.rw")], Limits(max_states=3))
    verdicts = {(d.check, d.subject): (d.verdict, d.engine) for d in res.instances[0].decisions}
    assert verdicts["dead-rule", "action `reset`"] == ("found", unbounded.WALKED)  # x == 5, five steps deep
    assert verdicts["unreachable-property", "five"] == ("found", unbounded.WALKED)
    assert verdicts["dead-rule", "action `jump`"][0] == "proved"


def test_a_walked_path_counts_only_where_its_end_shows_the_rule_or_property(tmp_path):
    inst = instance(tmp_path, COUNTER)
    m = machine_for(inst)
    g = explore(m, Limits())
    rid = {r.name: i for i, r in enumerate(inst.model.rules)}
    five = next(i for i, s in enumerate(g.states) if m.reader(s).vals[0] == 5)
    assert unbounded_rules.not_shown(m, g, five, ("rule", rid["reset"])) == ""
    assert unbounded_rules.not_shown(m, g, five, ("property", "five", ())) == ""
    assert "no step applies it" in unbounded_rules.not_shown(m, g, five, ("rule", rid["jump"]))
    assert "does not hold" in unbounded_rules.not_shown(m, g, five, ("property", "eight", ()))


def test_a_kind_of_rule_the_encoding_does_not_record_is_never_called_dead(tmp_path, monkeypatch):
    monkeypatch.setattr(unbounded_rules, "ENCODED", ("action",))  # as if outcome rules were a new kind
    found, verdicts = ask_everything(instance(tmp_path, COUNTER))
    assert verdicts["dead-rule", "action `jump`"] == "proved"
    assert verdicts["dead-rule", "outcome rule `never`"] == "unknown"
    assert [f.subject for f in found if f.kind == "dead-rule"] == [("jump",)]


def test_a_question_the_encoding_cannot_express_is_undecided_and_says_why(tmp_path):
    inst = instance(tmp_path, COUNTER)
    q = decision.Questions(horn.Prover(inst), Budget(Limits(max_seconds=60)))

    def unsupported(u, f):
        raise Unsupported("a set of numbers that depends on the state")
    a = q.ask(unsupported)
    assert a.verdict == horn.UNKNOWN and a.why == "not encoded for the symbolic engine: a set of numbers that depends on the state"


# ---------------------------------------------------------------- against the complete explorer

class Incomplete(Exception):
    """The explorer did not finish: it has no verdict to compare with."""


def explorer_view(inst, limits: Limits = Limits()) -> tuple[int, set, set, set, set]:
    """(states, dead rules, live rules, reached and unreached property bindings) of a complete
    exploration, named as the decisions name them."""
    g = explore(machine_for(inst), limits)
    if not g.complete:
        raise Incomplete(g.stop_reason)
    labels = [graph_checks.rule_label(r) for r in inst.model.rules]
    reached, unreached = set(), set()
    for d, binders, bindings in graph_checks.property_bindings(Explored(g)):
        for b, ok in bindings:
            text = graph_checks.binding_text(inst, [x.binder for x in binders], b)
            (reached if ok else unreached).add(d.name + (f" for {text}" if text else ""))
    return (len(g.states), {labels[r] for r in range(len(labels)) if r not in g.hit_rules},
            {labels[r] for r in g.hit_rules}, reached, unreached)


SOUNDNESS = ["tests/fixtures/dead-rule/defect.rw", "tests/fixtures/dead-rule/twin.rw",
             *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "fixtures" / "unreachable-property").glob("*.rw")),
             "tests/specs/cannot_lose.rw", "tests/specs/phases_priority.rw", "tests/specs/match_best_of_three.rw",
             "tests/fixtures/deadlock/trigger-defect.rw"]


@pytest.mark.slow
@pytest.mark.parametrize("path", SOUNDNESS)
def test_beyond_a_tiny_state_limit_the_symbolic_verdicts_never_contradict_the_complete_explorer(path, monkeypatch):
    """Under `--engine symbolic` with a state limit of half the smallest instance, every rule
    and property binding decided is decided as a complete exploration decides it: dead or
    unreached only where the explorer never applies or reaches it (soundness), applied or
    reached only where it does."""
    views = {i.label: explorer_view(i) for i in engine.load_instances(path)}
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "symbolic")
    monkeypatch.setattr(decision, "QUERY_SECONDS", 5.0)  # a live rule nothing shows: unknown sooner
    res = engine.check([path], Limits(max_states=max(5, min(v[0] for v in views.values()) // 2)))
    asked = 0
    for i in res.instances:
        _, dead, live, reached, unreached = views[i.label]
        expected = {("dead-rule", "proved"): dead, ("dead-rule", "found"): live,
                    ("unreachable-property", "proved"): unreached, ("unreachable-property", "found"): reached}
        for d in i.decisions:
            if (d.check, d.verdict) in expected:
                asked += 1
                assert d.subject in expected[d.check, d.verdict], (i.label, d)
    assert asked, "the symbolic engine took over"


@pytest.mark.slow
@settings(max_examples=EXAMPLES // 10, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(text=specs())
def test_random_specs_never_get_a_rule_proved_dead_that_the_complete_explorer_applies(tmp_path_factory, text):
    note(text)
    path = tmp_path_factory.mktemp("spec") / "s.rw"
    path.write_text(text, encoding="utf-8")
    try:
        inst = engine.load_instances(str(path))[0]
        _, dead, live, reached, unreached = explorer_view(inst, Limits(max_states=20_000, max_seconds=20))
    except (engine.SpecError, Incomplete):
        assume(False)
    budget = Budget(Limits(max_seconds=60))
    try:
        with watchdog(budget):  # the encoding of a step, however big
            _, decisions = unbounded_rules.decide(inst, decision.Questions(horn.Prover(inst), budget), {})
    except LimitHit:
        assume(False)
    expected = {("dead-rule", "proved"): dead, ("dead-rule", "found"): live,
                ("unreachable-property", "proved"): unreached, ("unreachable-property", "found"): reached}
    answered = [d for d in decisions if (d.check, d.verdict) in expected]
    assume(answered)
    assert [d for d in answered if d.subject not in expected[d.check, d.verdict]] == []


@pytest.mark.slow
@pytest.mark.parametrize("path, kind, subject", [
    ("tests/fixtures/dead-rule/defect.rw", "dead-rule", "fifteen_poison"),
    ("tests/fixtures/unreachable-property/defect.rw", "unreachable-property", "respond"),
    ("tests/fixtures/unreachable-property/same-step-defect.rw", "unreachable-property", "fallen_player_wins")])
def test_the_defect_of_each_fixture_is_proved_beyond_a_tiny_state_limit(path, kind, subject, monkeypatch):
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "explicit")
    explorer = engine.check([path], Limits(max_states=200_000))
    (i,) = explorer.instances
    assert i.complete
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "symbolic")
    res = engine.check([path], Limits(max_states=max(5, i.states // 2)))
    (want,) = [f for f in explorer.findings if f.kind == kind]
    (got,) = [f for f in res.findings if f.kind == kind]
    assert (got.message, got.key, got.subject, got.size, got.rules) == \
        (want.message, want.key, want.subject, want.size, want.rules) and got.subject == (subject,)
    assert got.detail.startswith("proved by the symbolic engine (Spacer)")
    assert not res.instances[0].complete and res.instances[0].decisions


# ---------------------------------------------------------------- at the documents' numbers

@pytest.mark.slow
def test_an_action_dead_and_a_property_unreached_only_at_8000_are_proved_there_and_found_at_7999(tmp_path):
    """The storms deal 1,000 to both players while both have at least 1,000: from 8,000 they
    bring both to 0 at once, so nobody is ever below 1,000 with life left and `attack` (only
    once someone is below 1,000) never applies; from 7,999 both happen. The explorer stops
    long before the eighth storm (training multiplies the states). (At 8,000 the win of a
    player whose opponent is at 0 is dead too: both lose first; Spacer may prove that too.)"""
    text = (ROOT / STORMS).read_text(encoding="utf-8").replace(
        "outcome zero", "reachable close_call [S3]: exists q in players: life[q] > 0 and life[q] < 1000\n\noutcome zero")
    path = tmp_path / "storms.rw"
    path.write_text(text, encoding="utf-8")
    res = engine.check([str(path)], Limits(max_states=20_000))
    by_label = {i.label.rsplit("L=", 1)[1]: {(d.check, d.subject): d.verdict for d in i.decisions}
                for i in res.instances}
    assert by_label["8000"]["dead-rule", "action `attack`"] == "proved"
    assert by_label["8000"]["unreachable-property", "close_call"] == "proved"
    assert by_label["7999"]["dead-rule", "action `attack`"] == "found"
    assert by_label["7999"]["unreachable-property", "close_call"] == "found"
    dead = {f.subject: f for f in res.findings if f.kind == "dead-rule"}
    assert ("attack",) in dead and set(dead) <= {("attack",), ("other_zero",)}
    assert [f.instance.rsplit("L=", 1)[1] for f in dead.values()] == ["8000"] * len(dead)
    (never,) = [f for f in res.findings if f.kind == "unreachable-property"]
    assert never.instance.endswith("L=8000") and "life[P1] > 999" in never.detail


def test_the_undecided_line_leaves_out_dead_rules_and_properties_once_they_are_asked(tmp_path, monkeypatch):
    inst = instance(tmp_path, COUNTER)
    # before the symbolic engine has decided anything (a limit may cut it short), they are unchecked
    assert {"dead-rule", "unreachable-property"} <= set(unbounded.undecided(inst))
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "symbolic")
    res = engine.check([str(tmp_path / "spec.rw")], Limits(max_states=3))
    # (no line at all where every check was decided: the instance is then complete)
    lines = [x for x in res.incomplete if "exploration stopped" in x]
    assert all("dead-rule" not in x and "unreachable-property" not in x for x in lines)
    assert {d.check for d in res.instances[0].decisions} >= {"dead-rule", "unreachable-property"}


def test_the_decided_line_names_each_check_once_with_a_few_of_its_subjects():
    from checker.engine import InstanceResult
    from checker.outputs.report import decisions_text
    i = InstanceResult("x.rw | L=8000", "x.rw", 2000, 9000, 1.0, False, "state limit of 2,000 reached")
    rules = [f"action `a{k}`" for k in range(6)]
    i.decisions = [decision.Decision("dead-rule", r, "found", "explicit") for r in rules] + [
        decision.Decision("dead-rule", "outcome rule `w`", "proved", decision.SPACER, "from the setup: x < 3"),
        decision.Decision("unreachable-property", "p for k=1", "proved", decision.SPACER, "from the setup: x < 3"),
        decision.Decision("unreachable-outcome", "P1 wins", "found", "explicit"),
        decision.Decision("dead-rule", "routine `r`", "unknown", decision.SPACER, "Spacer: canceled")]
    assert decisions_text(i, verbose=False) == [
        "decided: x.rw | L=8000: after the explorer's 2,000 states (state limit of 2,000 reached): "
        "found by explicit: dead-rule (action `a0`, action `a1`, action `a2`, and 3 more), "
        "unreachable-outcome (P1 wins); proved by symbolic (Spacer): dead-rule (outcome rule `w`), "
        "unreachable-property (p for k=1)"]
    assert decisions_text(i, verbose=True)[1:] == ["  dead-rule (outcome rule `w`): from the setup: x < 3",
                                                   "  unreachable-property (p for k=1): from the setup: x < 3"]
