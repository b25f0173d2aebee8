"""Phases and their ends (docs/language.md, "Phases").

A `phases` declaration is a cycle of phases, each ending after a step in which its condition
holds; `when PHASE ends/starts` blocks run in that step, after the step's statements and before
the outcome rules. A phase ends at most once per step, so a chain of phases that end at once
stops. The checks that see a game stuck in a phase cite that phase."""
from __future__ import annotations

from checker import engine
from checker.engine import load_instances
from checker.analyses.verdicts import CONFIRMED
from checking import _check, _errors, _graph

GAME = """players 2
var turn: player = P1
var passes: 0..2 = 0
var skip: bool = false
var life(p: player): 0..1 = 1
phases step [S] {
  main [M] ends when passes == 2
  combat [C] ends when skip or passes == 2
  ending [E] ends when true
}
when main ends [WM] do passes := 0; end
when combat ends [WC] do passes := 0; skip := false; end
when ending ends [WE] do turn := next(turn); end
action pass [A] progress when step != ending and passes < 2 do passes := passes + 1; end
action skip_combat [K] when step == main and not skip do skip := true; end
action hit [H] progress when step == combat and passes == 0 do life[next(turn)] := 0; end
outcome dead: lose player p when life[p] == 0
outcome last: win player p when in_game(p) and forall q in opponents(p): lost(q)
active p when turn == p
"""



def test_a_turn_of_phases_is_clean_and_every_phase_ends(tmp_path):
    res, _ = _check(tmp_path, GAME)
    assert res.diagnostics == [] and res.disagreements == [] and res.findings == []


def test_the_game_starts_in_the_phase_listed_first_and_the_phases_follow_in_order(tmp_path):
    _, spec = _check(tmp_path, GAME)
    inst, g = _graph(spec)
    off = inst.var("step").offset
    members = inst.var("step").type.members
    assert {members[g.values(i)[off]] for i in g.init_ids} == {"main"}
    seen = {(members[g.values(s)[off]], members[g.values(d)[off]]) for s, d, _ in g.edges}
    # ending ends in the step that starts it (`ends when true`): no state is ever in it after a step
    assert ("main", "combat") in seen and ("combat", "main") in seen and "ending" not in {b for _, b in seen}


def test_a_skipped_phase_ends_in_the_step_that_starts_it(tmp_path):
    # with skip set, main's second pass ends main, combat (skip) and ending in one step
    _, spec = _check(tmp_path, GAME + "invariant never_skipped_to_p2: not (turn == P2 and passes == 0 and step == main and life[P2] == 1 and life[P1] == 1)\n")
    res = engine.check([str(spec)])
    (f,) = [f for f in res.findings if f.kind == "invariant"]
    assert f.replay == CONFIRMED
    last = f.trace[-1]
    assert {"M", "C", "E"} <= set(last.rules)


def test_each_phase_ends_at_most_once_per_step(tmp_path):
    text = """players 2
var n: 0..9 = 0
phases step {
  a [A] ends when true
  b [B] ends when true
}
when a starts [SA] do n := n + 1; end
action tick progress when n < 5 do n := n; end
outcome done: finish when n >= 3
"""
    _, spec = _check(tmp_path, text)
    inst, g = _graph(spec)
    off = inst.var("n").offset
    # every step ends a then b (b ends, a starts: n + 1) and stops in a, though a's condition holds
    assert sorted(g.values(i)[off] for i in range(len(g.states))) == [0, 1, 2, 3]


def test_a_phase_that_never_ends_is_a_dead_rule_at_its_line(tmp_path):
    text = GAME.replace("ends when skip or passes == 2", "ends when skip and passes == 3")
    res, spec = _check(tmp_path, text)
    dead = [f for f in res.findings if f.kind == "dead-rule" and "phase `combat` never ends" in f.message]
    assert dead and dead[0].rules == ("C",)
    line = text.splitlines().index("  combat [C] ends when skip and passes == 3") + 1
    assert dead[0].spans[0].line == line


def test_a_deadlock_in_a_phase_cites_the_phase(tmp_path):
    text = GAME.replace("ends when skip or passes == 2", "ends when skip")
    res, _ = _check(tmp_path, text)
    (f,) = [f for f in res.findings if f.kind == "deadlock"]
    assert "C" in f.rules and f.replay == CONFIRMED
    assert f.spans[0].line == text.splitlines().index("  combat [C] ends when skip") + 1


def test_the_phase_is_changed_only_by_its_end_conditions(tmp_path):
    errs = _errors(tmp_path, GAME + "action jump when true do step := ending; end\n")
    assert [c for c, _ in errs] == ["E013"] and "only the phases' end conditions change it" in errs[0][1]


def test_a_when_block_must_name_a_phase(tmp_path):
    errs = _errors(tmp_path, GAME + "when mian ends do passes := 0; end\n")
    assert errs == [("E010", "there is no phase `mian`")]


def test_a_phase_without_an_end_condition_has_no_end_block(tmp_path):
    text = GAME.replace("ending [E] ends when true", "ending [E]")
    errs = _errors(tmp_path, text)
    assert [c for c, _ in errs] == ["E013"] and "ending has no end condition" in errs[0][1]


def test_a_phase_is_listed_once_and_the_cycle_name_is_a_fresh_name(tmp_path):
    errs = _errors(tmp_path, GAME.replace("ending [E] ends when true", "main [E] ends when true"))
    assert ("E011", "phase main is declared twice in `phases step`") in errs
    errs = _errors(tmp_path, "var step: 0..1 = 0\n" + GAME)
    assert any(c == "E011" and "step is declared twice" in m for c, m in errs)


def test_when_blocks_see_no_action_parameters_and_types_are_checked(tmp_path):
    errs = _errors(tmp_path, GAME + "when main starts do passes := q; end\nphases other { x ends when 3 }\n")
    assert [c for c, _ in errs] == ["E010", "E013"]


def test_one_when_block_may_name_several_phases(tmp_path):
    # "at the end of each phase": one block, one rule, run when any phase it names ends
    text = GAME.replace("when main ends [WM] do passes := 0; end\n", "").replace(
        "when combat ends [WC] do passes := 0; skip := false; end",
        "when main, combat ends [W] do passes := 0; end\nwhen combat ends [WC] do skip := false; end")
    res, _ = _check(tmp_path, text)
    assert res.diagnostics == [] and res.findings == []
    res, _ = _check(tmp_path, text.replace("when main, combat ends", "when main, comabt ends"))
    assert [(d.code, d.message) for d in res.diagnostics] == [("E010", "there is no phase `comabt`")]


def test_a_labelled_statement_in_a_when_block_runs_as_written_and_replace_names_it_alone(tmp_path):
    # `when ... ends/starts` blocks have no name: their labels are replaced by `replace LABEL`
    text = GAME.replace("when ending ends [WE] do turn := next(turn); end",
                        "when ending ends [WE] do\n  hand_on: turn := next(turn);\nend\n"
                        "when main starts [WS] do fresh: [WS] skip := false; end") + \
        "reachable second_turn [WE]: turn == P2\n"
    res, _ = _check(tmp_path, text)
    assert res.diagnostics == [] and res.disagreements == [] and res.findings == []
    res, _ = _check(tmp_path, text + "reading as_written { }\nreading stays { replace hand_on do end }\n")
    assert res.diagnostics == [] and res.disagreements == []
    unreachable = [f for f in res.findings if f.kind == "unreachable-property"]
    assert [f.model.rsplit(" ", 1)[-1] for f in unreachable] == ["stays"]


def test_a_loop_inside_a_phase_that_never_ends_cites_the_phase(tmp_path):
    # combat ends only when skipped, and nothing skips it: players wait in combat for ever, a
    # forced loop and an unbounded procedure, both citing combat
    text = GAME.replace("ends when skip or passes == 2", "ends when skip").replace(
        "action pass [A] progress when step != ending and passes < 2 do passes := passes + 1; end",
        "action pass [A] progress when step != ending and passes < 2 do passes := passes + 1; end\n"
        "action wait [A] progress when step == combat do turn := next(turn); end").replace(
        "action hit [H] progress when step == combat and passes == 0 do", "action hit [H] progress when step == main and passes == 9 do").replace(
        "when step == main and not skip do skip := true; end", "when false do skip := true; end") + \
        "procedure fighting [P]: step == combat\n"
    res, _ = _check(tmp_path, text)
    loop = [f for f in res.findings if f.kind == "forced-loop"]
    proc = [f for f in res.findings if f.kind == "unbounded-procedure"]
    assert loop and proc
    line = text.splitlines().index("  combat [C] ends when skip") + 1
    for f in loop + proc:
        assert "C" in f.rules and any(s.line == line for s in f.spans), f


def test_a_choice_read_only_by_a_phase_is_read_during_play(tmp_path):
    # a choice only `init`s and constraints read is Z3's alone; one a phase's end condition (or a
    # match's game result) reads is part of the explored state
    text = ("players 2\nchoice fast: bool\nvar n: 0..3 = 0\nphases step { a ends when fast or n == 2  b ends when true }\n"
            "match { game drawn when n == 3 and not fast do end }\naction tick progress when n < 2 do n := n + 1; end\n")
    _, spec = _check(tmp_path, text)
    (inst,) = load_instances(str(spec))
    from checker.frontend import typed as T
    cycle = inst.model.phases[0]
    refs = [n for n in T.walk(cycle.phases[0].cond) if isinstance(n, T.VarRef) and n.name == "fast"]
    assert refs and not any(r.static for r in refs)
