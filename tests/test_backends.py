"""The explorer and the Z3 backend are two implementations of one semantics; they must agree."""
from pathlib import Path

import pytest

from checker.symbolic.bmc import BMC
from checker.symbolic.encode import Encoder
from checker.symbolic.outcomes import settle
from checker.symbolic.setup import contradiction, setups
from checker.symbolic.terms import Unsupported, state_to_sym
from checker.analyses.checks import run_checks
from checker.explicit.explore import explore
from checker.explicit.machine import Machine
from checker import engine
from checker.analyses import questions
from checker.analyses.replay import replay_finding
from checker.engine import load_instances
from checker.frontend.diagnostics import SpecError
from checker.frontend.ends import RUNNING, has_ended, is_gap
from checker.limits import Budget, LimitHit, Limits, watchdog
from checker.analyses.verdicts import CONFIRMED

ROOT = Path(__file__).resolve().parent.parent


def _tiered(paths: list[str]) -> list:
    """`paths` as test parameters: each fixture pair's first defect (`defect.rw`) and the files
    outside tests/fixtures in the fast tier, the other fixtures in the slow one (every fixture
    pair adds a second to each comparison; the slow tier, which CI runs, compares them all)."""
    return [pytest.param(p, marks=pytest.mark.slow)
            if p.startswith("tests/fixtures/") and not p.endswith("/defect.rw") else p for p in paths]


SPECS = _tiered(sorted(str(p.relative_to(ROOT)) for p in list((ROOT / "tests" / "specs").glob("*.rw"))
                       + [p for p in (ROOT / "tests" / "fixtures").rglob("*.rw") if "bugs" not in p.parts]))
DEPTH = 4
Z3_SECONDS = 20  # per fixture: beyond it the comparison is skipped, and says why


def _depths(graph):
    depth = [0] * len(graph.states)
    for i, par in enumerate(graph.parent):
        if par is not None:
            depth[i] = depth[par[0]] + 1
    return depth


def _explorer_view(graph, k):
    """What the explorer's graph (a `Machine`'s) reaches within `k` steps, as BMC.reachable_outcomes
    says it: the end outcomes, whether a gap is, a deadlock, an outcome conflict."""
    depth = _depths(graph)
    within = [i for i in range(len(graph.states)) if depth[i] <= k]
    outcomes = {graph.states[i][-1] for i in within if has_ended(graph.states[i][-1])}
    gaps = any(is_gap(graph.states[i][-1]) for i in within)
    moves = {s for s, _, lid in graph.edges if not graph.is_leave(lid)}
    failed = {s for s, _ in graph.errors}
    dead = any(not graph.states[i][-1] and i not in moves and i not in failed for i in within)
    return outcomes, gaps, dead, _conflict_within(graph, depth, k)


def _conflict_within(graph, depth, k) -> bool:
    """Whether the explorer meets an outcome conflict within `k` steps: in a setup's settling or
    in a step out of a state at depth < k. `graph.conflicts` alone cannot tell, since it keeps
    the conflict on the step's target, whose depth is that of its shortest path, which need not
    be the conflicting step's: the steps are taken again (only where the graph has a conflict)."""
    if not graph.conflicts:
        return False
    m = graph.machine
    if any(conflict for _, _, conflict in m.initial_states()[0]):
        return True
    return any(step.conflict for i, state in enumerate(graph.states)
               if depth[i] < k and not state[-1] for step in m.successors(state))


@pytest.mark.parametrize("path", SPECS)
def test_both_backends_reach_the_same_outcomes_and_deadlocks_within_the_bound(path):
    try:
        insts = load_instances(path)
    except Exception as exc:  # specs with deliberate input errors are not for this test
        pytest.skip(f"does not instantiate: {exc}")
    inst = insts[0]
    graph = explore(Machine(inst))
    assert graph.complete
    try:
        with watchdog(Budget(Limits(max_seconds=Z3_SECONDS))):  # stops only where nothing is half-built
            bmc = BMC(inst)
            got = bmc.reachable_outcomes(DEPTH)
    except Unsupported as exc:
        pytest.skip(f"not encodable in Z3 yet: {exc}")
    except LimitHit:
        # the grand-melee markers of deadlock/event-*.rw: eight seats whose triggers raise events
        # that fire further triggers, each round's terms built over every seat (issue 19)
        pytest.skip(f"Z3's encoding of {DEPTH} steps takes over {Z3_SECONDS} s of CPU")
    outcomes, gaps, dead, conflict = _explorer_view(graph, DEPTH)
    assert got[0] == outcomes
    assert got[1] == gaps
    assert got[2] == dead
    assert got[3] == conflict


def _one_step(header: str, body: str, rest: str = "") -> str:
    """A spec whose action `a` can be taken once: `body` is the step, `rest` more declarations."""
    return f"{header}var go: bool = false\naction a progress when not go do go := true; {body} end\n{rest}"


# name -> (spec, whether it has an outcome conflict): one per case of the explorer's `_conflict`
# and `_results_conflict`, and the near misses each case must not catch
CONFLICTS = {
    "wins_and_loses": (_one_step("players 2\n", "win P1; lose P1;"), True),
    "team_wins_and_loses": (_one_step("teams count 2 size 1\n", "win A; lose A;"), True),
    "draws_and_loses": (_one_step("players 3\n", "draw P1; lose P1;",  # the game goes on after the conflict
                                  "action b progress when go do lose P2; end\n"
                                  "outcome last: win player p when forall q in players: q == p or not in_game(q)\n"), True),
    "draws_and_wins": (_one_step("players 2\n", "draw P1; win P1;"), True),
    "team_draws_and_loses": (_one_step("teams count 2 size 1\n", "draw A; lose A;"), True),
    "team_draws_and_wins": (_one_step("teams count 2 size 1\n", "draw A; win A;"), True),
    "drawn_and_won": (_one_step("players 2\n", "draw; win P1;"), True),
    "finished_and_drawn": (_one_step("players 2\n", "finish; draw;"), True),
    "finished_and_won": (_one_step("players 2\n", "finish; win P1;"), True),
    "two_players_win": (_one_step("players 2\n", "win P1; win P2;"), True),
    "a_team_and_a_player_of_another_win": (_one_step("teams count 2 size 1\n", "win A; win B1;"), True),
    "two_teammates_win": (_one_step("teams count 2 size 2\n", "win A1; win A2;"), False),
    "a_team_and_its_member_win": (_one_step("teams count 2 size 2\n", "win A; win A1;"), False),
    "two_players_win_where_winners_many": (_one_step("players 2\n", "win P1; win P2;", "winners many\n"), False),
    "a_precedence_keeps_the_loss": (_one_step("players 2\n", "win P1; lose P1;", "precedence lose over win\n"), False),
    "both_win_in_the_setup": (_one_step("players 2\n", "win P1;", "outcome all: win player p when not go\n"), True),
    # the conflict of a later round, and one of the first round that the next round does not repeat
    "a_trigger_draws_a_won_game": (_one_step("players 2\n", "win P1;", "trigger tie on win player p do draw; end\n"), True),
    "a_trigger_runs_after_the_conflict": (_one_step("players 2\n", "win P1; lose P1;",
                                                    "trigger note on lose player p do go := true; end\n"), True),
}


def _only_instance(tmp_path, text: str):
    path = tmp_path / "s.rw"
    path.write_text(text, encoding="utf-8")
    (inst,) = load_instances(str(path))
    return inst


@pytest.mark.parametrize("name", sorted(CONFLICTS))
def test_both_backends_meet_an_outcome_conflict_in_the_same_specs(tmp_path, name):
    text, conflict = CONFLICTS[name]
    inst = _only_instance(tmp_path, text)
    graph = explore(Machine(inst))
    view = _explorer_view(graph, DEPTH)
    assert view[3] == conflict  # the spec shows what it was written for
    assert BMC(inst).reachable_outcomes(DEPTH) == view


@pytest.mark.parametrize("name", sorted(CONFLICTS))
def test_the_folded_encoding_finds_the_conflict_of_each_step_the_explorer_takes(tmp_path, name):
    # the replay's literals (terms.py, "Folded values") take other paths through the connectives
    # than the BMC's terms: each setup and step must give the explorer's answer, as a Python bool
    inst = _only_instance(tmp_path, CONFLICTS[name][0])
    machine, enc, k = Machine(inst), Encoder(inst, fold=True), inst.nslots
    for state, _, conflict in machine.initial_states()[0]:  # no trigger changes a value here
        st, _, _ = settle(enc, state_to_sym(inst, state[:k] + (0, 0, RUNNING), folded=True))
        assert st.conflict is bool(conflict)
    graph = explore(machine)
    for state in graph.states:
        for step in [] if state[-1] else machine.successors(state):
            action = inst.model.actions[step.action]
            st, _, _ = settle(enc, enc.stmts(action.body, state_to_sym(inst, state, folded=True), {}))
            assert st.conflict is bool(step.conflict), (action.name, state)


def test_bmc_meets_the_harmony_conflict_at_its_depth_and_none_in_the_clean_twin():
    # the first Harmony brings both players to 1 point, the second to the victory score at once
    defect = load_instances("tests/fixtures/outcome-conflict/defect.rw")[0]
    assert BMC(defect).reachable_outcomes(1)[3] is False
    assert BMC(defect).reachable_outcomes(2)[3] is True
    twin = load_instances("tests/fixtures/outcome-conflict/twin.rw")[0]  # the tie is a draw instead
    assert BMC(twin).reachable_outcomes(DEPTH)[3] is False


# every spec of spec/ and every fixture, the ones that reproduce bugs included
EVERY_SPEC = _tiered(sorted(str(p.relative_to(ROOT)) for p in list((ROOT / "spec").glob("*.rw"))
                            + list((ROOT / "tests" / "fixtures").rglob("*.rw"))))
SETUPS_LISTED = 2_000  # more setups than this are compared by existence only


@pytest.mark.parametrize("path", EVERY_SPEC)
def test_both_engines_agree_on_whether_a_setup_exists_and_which_setups_there_are(path):
    # Z3 decides every choice; the explorer enumerates only those the play reads, and takes
    # the engine's word (the contradiction check) for the others: a setup exists for one
    # exactly when it exists for the other, with the same values of the explored variables
    try:
        insts = load_instances(path)
    except SpecError:
        pytest.skip("an input-error fixture")
    for inst in insts:
        res = engine.Outcome()
        found = questions.contradiction(inst, Budget(Limits()), res)
        if res.incomplete:  # Z3 cannot tell (set-valued choices): nothing to compare
            continue
        machine = questions.explorer_machine(inst, found)
        initial, errors = machine.initial_states()
        # a setup whose outcome resolution fails is still a setup (Z3 does not resolve outcomes)
        explored = [tuple(machine.values(s)[:inst.nslots]) for s, _, _ in initial]
        explored += [tuple(e.values) for e in errors if e.where == "outcome"]
        assert bool(explored) == (not found), inst.label
        if inst.model.triggers:  # triggers may change a setup's values before it is a state
            continue
        listed = setups(inst, SETUPS_LISTED)
        if listed is not None:
            assert set(explored) == listed, inst.label


def test_a_constraint_that_ties_a_choice_to_a_variable_makes_the_explorer_enumerate_the_choice(tmp_path):
    # left to Z3, `c` would take `tie` out of the explorer's setup: it would start from x = 0..3
    inst = _only_instance(tmp_path, "players 2\nchoice c: 0..3\nvar x: 0..3 = any\nconstraint tie: x == c and c == 0\n"
                                    "action tick progress when x < 3 do x := x + 1; end\n")
    assert "c" not in inst.static_choices
    initial, _ = Machine(inst).initial_states()
    assert {Machine(inst).values(s)[inst.var("x").offset] for s, _, _ in initial} == {0}
    assert setups(inst, 10) == {tuple(Machine(inst).values(s)[:inst.nslots]) for s, _, _ in initial}


def test_a_choice_only_a_trigger_reads_is_explored(tmp_path):
    inst = _only_instance(tmp_path, "players 2\nchoice bonus: 0..2\nvar score(p: player): 0..5 = 0\n"
                                    "action hit(p: player) progress when score[p] < 3 do lose p; end\n"
                                    "trigger reward on lose player p do score[p] := bonus; end\n"
                                    "outcome last: win player p when forall q in players: q == p or lost(q)\n")
    assert "bonus" not in inst.static_choices
    graph = explore(Machine(inst))
    assert graph.complete and {graph.values(s)[inst.var("bonus").offset] for s in graph.init_ids} == {0, 1, 2}


def test_choices_without_any_value_that_fits_leave_the_explorer_no_initial_state():
    # the team of three cannot register decks (tests/fixtures/contradiction): the explorer does
    # not enumerate the deck choices, and used to explore the games of teams that cannot exist
    res = engine.check(["tests/fixtures/contradiction/defect.rw"])
    sizes = {i.label.rsplit(" | ", 1)[-1]: (i.states, i.complete) for i in res.instances}
    assert sizes["S=3"] == (0, True) and sizes["S=2"][0] > 0
    assert [f.kind for f in res.findings] == ["contradiction"]


def test_the_replay_confirms_a_true_trace_and_rejects_a_tampered_one():
    inst = load_instances("tests/specs/ring_departed_turn.rw")[0]
    machine = Machine(inst)
    graph = explore(machine)
    (finding,) = [f for f in run_checks(graph) if f.kind == "deadlock"]
    assert replay_finding(machine, graph, finding) == CONFIRMED
    # tamper with the recorded target state: give a player one more life point
    last = finding.trace[-1].sid
    state = list(graph.states[last])
    life = inst.var("life")
    state[life.offset] = 1 - state[life.offset]
    graph.states[last] = tuple(state)
    got = replay_finding(machine, graph, finding)
    assert got.failed and got.why.startswith("step") and "life" in got.why
    assert str(got).startswith("FAILED: step")  # the reports' words


def test_a_contradiction_comes_back_as_a_minimal_core_of_rules(tmp_path):
    spec = tmp_path / "c.rw"
    spec.write_text("""
param N [1] in 7..8
players [1] N
choice fmt [2]: {ffa, melee, grand}
constraint ffa_size [3]: fmt == ffa implies N <= 6
constraint ten_or_fewer [4]: N <= 10 implies fmt == ffa
constraint unrelated [5]: true
""")
    inst = load_instances(str(spec))[0]
    verdict = contradiction(inst)
    assert verdict[0] == "unsat"
    rules = sorted(t for d, _ in verdict[1] for t in d.tags)
    assert rules == ["3", "4"]


def test_the_state_graph_edges_carry_actions_and_rule_numbers():
    inst = load_instances("tests/specs/ring_departed_turn.rw")[0]
    g = explore(Machine(inst)).to_networkx(game_only=False)
    actions = {a for _, _, acts in g.edges(data="actions") for a in acts}
    rules = {r for _, _, rs in g.edges(data="rules") for r in rs}
    assert "hit(q=P2)" in actions and any(a.startswith("concede(") for a in actions)
    assert {"1.2", "1.3", "1.5"} <= rules


def test_rules_that_derive_the_same_fact_in_one_step_all_apply_and_aggregates_replay():
    from checker import engine
    res = engine.check(["tests/specs/redundant_draws.rw"])
    kinds = [f.kind for f in res.findings]
    assert "dead-rule" not in kinds
    (inv,) = [f for f in res.findings if f.kind == "invariant"]
    assert inv.replay == CONFIRMED


def test_a_livelock_trace_loops_through_non_progress_moves_only():
    inst = load_instances("tests/fixtures/livelock/defect.rw")[0]
    machine = Machine(inst)
    graph = explore(machine)
    (finding,) = [f for f in run_checks(graph) if f.kind == "livelock"]
    loop = finding.trace[finding.loop_start + 1:]
    assert loop and all(not graph.is_progress(st.lid) for st in loop)
