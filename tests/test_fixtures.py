"""Every finding kind, shown on a small rules defect and on its clean twin.

tests/fixtures/<kind>/defect.rw has exactly one rules defect, of that kind; twin.rw differs
from it minimally and is clean. Each row of CASES says which rules the finding must cite, and
reads as two specifications: "<kind> is found when ..." and "the twin is clean when ...". The
engine runs in-process, from the repository root (see conftest.py), on paths relative to it.

Golden reports: tests/golden/<kind>.txt holds the text report of a handful of defects, byte
for byte. After a deliberate change to the report, rewrite them with
    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_fixtures.py -q
and review the diff.

Engine bugs found while writing the fixtures have a minimal spec in tests/fixtures/bugs/ and a
test marked xfail(strict=True) that states the correct behaviour: it turns into a failure
("XPASS strict") once the bug is fixed, so the marker gets removed.
"""
from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
import pytest

from checker import engine
from checker.outputs import report
from checker.frontend.parser import parse_file
from checker.analyses.findings import KINDS
from checker.analyses.verdicts import CONFIRMED

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path("tests/fixtures")
GOLDEN = ROOT / "tests" / "golden"


@dataclass(frozen=True)
class Case:
    kind: str
    rules: frozenset[str]  # rule ids the defect's finding must cite
    found_when: str  # "<kind> is found when ..."
    clean_when: str  # "the twin is clean when ..."
    defect: str = "defect.rw"
    twin: str = "twin.rw"
    also: frozenset[str] = frozenset()  # other kinds the defect shows (a consequence of the same defect)

    @property
    def defect_path(self) -> str:
        return str(FIXTURES / self.kind / self.defect)

    @property
    def twin_path(self) -> str:
        return str(FIXTURES / self.kind / self.twin)


def case(kind, rules, found_when, clean_when, **kw) -> Case:
    return Case(kind, frozenset(rules), found_when, clean_when, **kw)


CASES = [
    case("contradiction", {"U2", "U3"},
         "no_team_of_three_can_register_legal_decks",
         "each_deck_needs_only_one_featured_card"),
    case("outcome-conflict", {"V1", "V2"},
         "harmony_brings_both_players_to_the_victory_score",
         "a_tie_at_the_victory_score_is_a_draw"),
    case("outcome-conflict", {"H2", "H4"},
         "a_precedence_for_players_leaves_a_team_that_both_wins_and_loses_open",
         "a_precedence_for_teams_settles_the_team_as_the_one_for_players_settles_the_player",
         defect="scoped-precedence-defect.rw", twin="scoped-precedence-twin.rw"),
    case("outcome-gap", {"A8.2"},
         "time_runs_out_with_the_life_totals_tied",
         "a_tie_at_time_is_a_draw"),
    case("outcome-gap", {"810.3", "810.5", "810.7"},
         "an_earthquake_eliminates_both_teams_at_once",
         "a_simultaneous_loss_is_a_draw",
         defect="simultaneous-defect.rw", twin="simultaneous-twin.rw"),
    case("outcome-gap", {"T3", "T4"},
         "the_phase_a_concession_ends_in_its_own_step_ends_the_game_with_two_players_tied",
         "a_tie_for_the_most_hp_is_a_draw",
         defect="phase-trigger-defect.rw", twin="phase-trigger-twin.rw"),
    case("outcome-gap", {"D3"},
         "a_draft_must_be_over_but_no_rule_ends_it",
         "the_draft_finishes_without_a_winner",
         defect="finish-defect.rw", twin="finish-twin.rw"),
    case("outcome-gap", {"C1", "C3"},
         "the_last_player_standing_cannot_win",
         "a_last_player_who_cannot_win_draws",
         defect="cannot-defect.rw", twin="cannot-twin.rw"),
    case("outcome-gap", {"904.7", "104.3"},
         "a_scheme_ends_the_archenemy_and_the_last_heroes_together",
         "all_players_out_at_once_is_a_draw",
         defect="sizes-defect.rw", twin="sizes-twin.rw"),
    case("player-without-outcome", {"S2", "S3"},
         "a_win_leaves_the_winners_allies_without_a_result",
         "the_winners_allies_lose_too"),
    case("implied-loss", {"S1", "S2"},
         "the_first_to_two_points_wins_and_no_rule_says_the_others_lose",
         "the_others_lose_when_a_player_wins"),
    # outcomes for some players while the game goes on (docs/language.md, "Outcomes")
    case("outcome-gap", {"D2"},
         "a_player_draws_and_the_last_one_standing_waits_for_a_loss",
         "the_last_one_standing_wins_when_the_others_have_left",
         defect="draw-defect.rw", twin="draw-twin.rw", also=frozenset({"unreachable-outcome"})),
    case("outcome-gap", {"L2", "L3"},
         "a_protected_team_concedes_and_leaves_without_losing",
         "a_team_wins_when_the_other_team_has_left",
         defect="leave-defect.rw", twin="leave-twin.rw"),
    case("player-without-outcome", {"S2"},
         "the_first_winner_ends_a_race_meant_to_go_on",
         "winners_leave_and_the_others_race_on",
         defect="plays-on-defect.rw", twin="plays-on-twin.rw", also=frozenset({"unreachable-outcome"})),
    case("unreachable-property", {"W3"},
         "lose_over_win_keeps_a_fallen_player_from_winning_with_the_team",
         "lose_over_win_in_the_same_step_lets_the_fallen_player_win",
         # `lose over win` without `same_step` picks nothing there either: a win of a player already
         # out is no news with or without it, so the precedence is also a dead-declaration
         defect="same-step-defect.rw", twin="same-step-twin.rw", also=frozenset({"dead-declaration"})),
    case("forced-loop", {"R1"},
         "nothing_says_what_a_game_that_cannot_end_is",
         "a_game_that_cannot_end_is_a_draw_by_rule",
         twin="loop-draws-twin.rw"),
    case("evaluation-error", {"R2"},
         "a_player_retaliates_before_anyone_attacked",
         "retaliation_needs_a_last_attacker"),
    case("never-active", {"T1"},
         "the_turn_passes_two_seats_to_the_left",
         "the_turn_passes_to_the_next_player"),
    case("never-active", {"U1", "U2"},
         "reverse_keeps_the_turn_away_from_a_player_for_the_whole_game",
         "reverse_waits_until_everyone_had_a_turn",
         defect="play-defect.rw", twin="play-twin.rw"),
    case("deadlock", {"117.3d"},
         "priority_is_passed_to_a_player_who_has_conceded",
         "priority_skips_players_who_have_left"),
    case("deadlock", {"G2"},
         "opening_the_gate_or_the_third_ring_stops_all_play",
         "the_open_gate_is_a_draw_and_the_third_ring_wins",
         defect="two-causes-defect.rw", twin="two-causes-twin.rw", also=frozenset({"forced-loop"})),
    case("deadlock", {"T2"},
         "every_player_in_range_is_a_teammate",
         "a_player_without_opponents_in_range_just_ends_his_turn",
         defect="range-defect.rw", twin="range-twin.rw"),
    case("deadlock", {"K2", "K3"},
         "the_turn_passes_to_a_player_the_same_attack_eliminates",
         "a_trigger_on_the_elimination_passes_his_turn_on",
         defect="trigger-defect.rw", twin="trigger-twin.rw"),
    case("deadlock", {"L3"},
         "a_player_who_leaves_with_a_draw_of_his_own_keeps_the_turn_a_trigger_on_losing_passes_on",
         "a_trigger_on_every_way_out_passes_the_turn_on",
         defect="leave-event-defect.rw", twin="leave-event-twin.rw"),
    case("deadlock", {"807.3", "807.4d"},
         "two_turn_markers_wait_for_each_other_for_ever_each_rule_written_once_with_declared_events",
         "a_waiting_marker_does_not_block_and_is_tried_again_whenever_a_marker_is_taken",
         defect="event-defect.rw", twin="event-twin.rw"),
    case("deadlock", {"S3", "S4"},
         "a_trigger_hands_the_turn_of_an_eliminated_player_to_an_empty_seat",
         "the_trigger_hands_the_turn_to_the_next_player_in_the_game",
         defect="story-defect.rw", twin="story-twin.rw"),
    case("overflow", {"H4"},
         "a_trigger_on_elimination_heals_beyond_the_most_life",
         "the_trigger_heals_up_to_the_most_life",
         defect="trigger-defect.rw", twin="trigger-twin.rw"),
    case("overflow", {"B3"},
         "a_heal_lifts_a_base_above_its_starting_hp_counted_in_fives_with_blasts_rounded_up",
         "the_heal_stops_at_the_starting_hp",
         defect="rounding-defect.rw", twin="rounding-twin.rw"),
    case("overflow", {"B4"},
         "the_eliminators_bounty_written_once_with_who_acts_heals_beyond_the_starting_hp",
         "the_bounty_heals_only_the_damage_there_is",
         defect="bounty-defect.rw", twin="bounty-twin.rw"),
    case("overflow", {"R4"},
         "a_consequence_the_text_states_once_per_step_runs_once_per_eliminated_player",
         "a_once_trigger_runs_at_most_once_per_step",
         defect="once-defect.rw", twin="once-twin.rw",
         also=frozenset({"unreachable-outcome"})),  # every step that ends the game fails
    case("overflow", {"L2"},
         "a_variant_changes_the_starting_life_that_its_formats_healing_rule_repeats",
         "the_starting_life_is_named_once_and_the_variant_replaces_it",
         defect="variant-defect.rw", twin="variant-twin.rw"),
    case("deadlock", {"P2", "P3"},
         "a_phase_ends_when_players_who_are_out_have_passed_too",
         "a_phase_ends_when_the_players_in_the_game_have_passed",
         defect="phase-defect.rw", twin="phase-twin.rw"),
    case("deadlock", {"M4", "M5"},
         "a_match_is_undecided_after_its_last_game",
         "after_the_last_game_more_game_wins_win_and_a_tie_draws",
         defect="match-defect.rw", twin="match-twin.rw", also=frozenset({"forced-loop"})),
    case("forced-loop", {"R1"},
         "range_counts_the_seats_of_players_who_have_left",
         "range_counts_only_players_still_in_the_game"),
    case("livelock", {"103.4c"},
         "every_mulligan_is_free",
         "only_the_first_mulligan_is_free"),
    case("unbounded-procedure", {"A8.1", "A8.3"},
         "sudden_death_repeats_until_the_totals_differ",
         "sudden_death_is_played_once"),
    case("starvation", {"807.3", "807.4d"},
         "markers_block_each_other",
         "the_blocking_rule_looks_two_seats_ahead"),
    case("unreachable-outcome", {"803.3"},
         "attacks_reach_only_the_seat_to_the_left",
         "attacks_reach_the_next_player_still_in_the_game"),
    case("dead-rule", {"810.9"},
         "the_two_player_poison_rule_preempts_the_team_rule",
         "only_the_team_poison_rule_applies"),
    case("dead-declaration", {"G6"},
         "a_precedence_of_loss_over_win_meets_no_player_who_both_wins_and_loses",
         "the_gambit_pays_the_last_life_so_its_player_wins_and_loses_at_once"),
    case("dead-declaration", {"A2"},
         "a_cannot_lose_rule_only_forbids_losses_that_stand_all_the_same",
         "the_cannot_lose_rule_alone_keeps_a_player_at_zero_life_in_the_game",
         defect="cannot-defect.rw", twin="cannot-twin.rw"),
    case("invariant", {"810.5"},
         "damage_to_a_player_skips_the_shared_life_total",
         "damage_to_a_player_is_dealt_to_his_team"),
    case("invariant", {"E2", "E4"},
         "an_exchange_of_hands_reads_a_hand_it_has_just_written",
         "both_hands_are_exchanged_at_once",
         defect="exchange-defect.rw", twin="exchange-twin.rw"),
    case("invariant", {"S1", "903.4"},
         "a_summary_counts_commander_damage_in_total_where_the_rule_counts_it_per_commander",
         "the_summary_counts_it_per_commander_as_the_rule_does",
         defect="pair-defect.rw", twin="pair-twin.rw"),
    case("invariant", {"S4"},
         "a_state_based_action_copied_into_two_actions_of_three_is_skipped_after_the_third",
         "the_state_based_action_is_one_state_based_rule",
         defect="state-based-defect.rw", twin="state-based-twin.rw",
         # the counters the skipped check leaves let all three players reach their last life together
         also=frozenset({"outcome-gap"})),
    case("unreachable-property", {"117.7"},
         "spells_can_only_be_cast_on_an_empty_stack",
         "spells_can_be_cast_in_response"),
    case("vacuous-property", {"P7", "P2", "P3"},
         "the_pass_count_is_not_reset_so_the_end_phase_ends_as_it_starts",
         "the_pass_count_starts_again_with_each_phase"),
    case("impossible-property", {"D3", "D4"},
         "the_pool_limit_takes_away_the_permission_of_more_than_four_copies",
         "the_pool_limit_is_a_rule_of_constructed_pools"),
    case("overflow", {"P3"},
         "a_knock_out_takes_more_prizes_than_are_left",
         "a_team_takes_only_the_prizes_that_are_left"),
    case("duplicate-id", {"R2"},
         "the_document_lists_a_rule_twice",
         "every_rule_is_listed_once"),
    case("abstraction-differs", {"D2"},
         "a_blast_of_1_rounded_down_in_fives_hides_that_a_base_can_be_worn_below_5",
         "hp_counted_in_ones_rounds_nothing",
         also=frozenset({"unreachable-property"})),
    case("budget-differs", {"A6", "A7"},
         "any_number_of_other_actions_checked_with_budgets_2_and_3_and_only_3_overflows",
         "every_budget_finds_the_same",
         also=frozenset({"overflow"})),
    case("readings-differ", {"M1"},
         "range_may_or_may_not_count_the_seats_of_players_who_left",
         "teammates_sit_alternately",
         also=frozenset({"forced-loop"})),
    case("readings-differ", {"M1"},
         "the_readings_of_two_ambiguities_combine_and_one_question_changes_the_game",
         "the_combined_readings_all_give_the_same_game",
         defect="ambiguities-defect.rw", twin="ambiguities-twin.rw", also=frozenset({"forced-loop"})),
    case("expectation-unmet", {"117.3d"},
         "the_expected_deadlock_was_fixed",
         "the_stale_expectation_is_removed"),
]

# A few defects whose whole text report is pinned (tests/golden/<name>.txt).
GOLDEN_CASES = {
    "contradiction": "tests/fixtures/contradiction/defect.rw",
    "deadlock": "tests/fixtures/deadlock/defect.rw",
    "deadlock-story": "tests/fixtures/deadlock/story-defect.rw",  # a trigger's step and what blocks whom
    "starvation": "tests/fixtures/starvation/defect.rw",
    "outcome-conflict": "tests/fixtures/outcome-conflict/defect.rw",
    "unbounded-procedure": "tests/fixtures/unbounded-procedure/defect.rw",
    "forced-loop": "tests/fixtures/forced-loop/defect.rw",
    "readings-differ": "tests/fixtures/readings-differ/defect.rw",
    "readings-differ-ambiguities": "tests/fixtures/readings-differ/ambiguities-defect.rw",
}


@functools.cache
def checked(path: str) -> engine.Result:
    """The engine's result for one fixture; cwd is the repository root (conftest.py). The
    fixtures of `abstraction-differs` are checked as that note is asked for: `--exact`."""
    return engine.check([path], exact="/abstraction-differs/" in path)


def describe(res: engine.Result) -> str:
    return report.text(res)


# ---------------------------------------------------------------- the table, as named tests

def assert_defect_found(c: Case) -> None:
    res = checked(c.defect_path)
    assert not res.diagnostics, describe(res)
    mine = [f for f in res.findings if f.kind == c.kind]
    assert mine, f"no {c.kind} finding:\n{describe(res)}"
    for f in mine:
        assert not f.expected, f"{c.kind} finding is marked expected:\n{describe(res)}"
        if f.trace:
            assert f.replay == CONFIRMED, f"trace not confirmed by the Z3 replay ({f.replay}):\n{describe(res)}"
    assert any(c.rules <= set(f.rules) for f in mine), (
        f"no {c.kind} finding cites all of {sorted(c.rules)}; cited: {[f.rules for f in mine]}\n{describe(res)}")
    assert res.exit_code() == 1 or KINDS[c.kind][0] == "info", describe(res)


def assert_twin_clean(c: Case) -> None:
    res = checked(c.twin_path)
    assert res.exit_code() == 0, describe(res)
    assert not res.findings, describe(res)
    assert not res.incomplete, describe(res)


def _ident(kind: str) -> str:
    return kind.replace("-", "_")


def _make_tests(c: Case) -> None:
    def found():
        assert_defect_found(c)

    def clean():
        assert_twin_clean(c)

    found.__name__ = f"test_{_ident(c.kind)}_is_found_when_{c.found_when}"
    found.__doc__ = f"{c.defect_path}: a {c.kind} finding citing {', '.join(sorted(c.rules))}."
    clean.__name__ = f"test_{_ident(c.kind)}_twin_is_clean_when_{c.clean_when}"
    clean.__doc__ = f"{c.twin_path}: exit code 0, no findings."
    for fn in (found, clean):
        assert fn.__name__ not in globals(), fn.__name__
        globals()[fn.__name__] = fn


for _c in CASES:
    _make_tests(_c)


def test_every_finding_kind_has_a_defect_and_a_clean_twin():
    from checker.analyses.findings import KINDS
    assert {c.kind for c in CASES} == set(KINDS)
    on_disk = {p.relative_to(ROOT / FIXTURES).as_posix() for p in (ROOT / FIXTURES).rglob("*.rw")}
    in_table = {f"{c.kind}/{c.defect}" for c in CASES} | {f"{c.kind}/{c.twin}" for c in CASES}
    bugs = {p for p in on_disk if p.startswith("bugs/")}
    assert on_disk - bugs == in_table


@pytest.mark.parametrize("c", CASES, ids=lambda c: f"{c.kind}/{c.defect}")
def test_a_defect_shows_no_other_kind_of_finding(c):
    res = checked(c.defect_path)
    assert {f.kind for f in res.findings} == {c.kind} | c.also, describe(res)


# ---------------------------------------------------------------- what the fixtures show about progress

def test_deadlock_judges_progress_by_game_actions_not_by_conceding():
    # the deadlocked players may still concede; that does not make the game live
    (f,) = [f for f in checked("tests/fixtures/deadlock/defect.rw").findings if f.kind == "deadlock"]
    assert "players can only leave the game from here" in f.message
    # the shortest way in: somebody concedes, then priority is passed to his empty seat
    assert any(s.action.startswith("concede(") for s in f.trace)
    assert f.trace[-1].action.startswith("pass_priority(")


def test_forced_loop_is_reported_even_though_conceding_would_end_the_game():
    (f,) = [f for f in checked("tests/fixtures/forced-loop/defect.rw").findings if f.kind == "forced-loop"]
    assert "only leaving the game" in f.message
    assert f.loop_start is not None
    assert f.instances == ["tests/fixtures/forced-loop/defect.rw | R=1"]


def test_forced_loop_twin_still_loops_but_a_game_action_can_leave_the_loop():
    graphs: dict = {}
    res = engine.check(["tests/fixtures/forced-loop/twin.rw"], graphs=graphs)
    assert res.exit_code() == 0 and not res.findings
    for label, g in graphs.items():
        game = g.to_networkx(game_only=True)
        running = {i for i in range(g.expanded) if not g.states[i][-1]}
        ended = {i for i, s in enumerate(g.states) if s[-1]}
        loops = [c for c in nx.strongly_connected_components(game.subgraph(running)) if len(c) > 1]
        assert loops, f"{label}: expected cycles of play (turns passing without attacks)"
        can_end = set().union(*(nx.ancestors(game, t) | {t} for t in ended))
        assert running <= can_end, f"{label}: every running state can still reach an end by game actions"


def test_unbounded_procedure_says_which_game_action_leaves_sudden_death():
    (f,) = [f for f in checked("tests/fixtures/unbounded-procedure/defect.rw").findings
            if f.kind == "unbounded-procedure"]
    assert "time_limit" in f.message and "take_turn" in f.message


def test_starvation_names_a_player_who_never_gets_a_turn():
    (f,) = [f for f in checked("tests/fixtures/starvation/defect.rw").findings if f.kind == "starvation"]
    assert re.match(r"P[234678] stays in the game but is never active", f.message), f.message


# ---------------------------------------------------------------- fixture hygiene

ALL_FIXTURES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / FIXTURES).rglob("*.rw"))


@pytest.mark.parametrize("path", ALL_FIXTURES)
def test_every_fixture_says_what_it_shows_and_tags_every_declaration(path):
    text = (ROOT / path).read_text()
    first = text.splitlines()[0]
    assert re.match(r"# (DEFECT [a-z-]+( \(a note, not a failure\))?:|TWIN of [a-z-]+/[a-z-]+\.rw:|BUG [a-z-]+\b)", first), first
    spec = parse_file(path)
    assert spec.ids, "a document { } block with the rule ids"
    decls = list(spec.decls) + [d for fmt in spec.formats for d in fmt.decls]
    decls += [d for r in list(decls) if type(r).__name__ == "ReadingDecl" for d in r.decls]
    untagged = [f"{type(d).__name__} at line {d.span.line}" for d in decls if not d.tags]
    assert not untagged, untagged


# ---------------------------------------------------------------- engine bugs (tests/fixtures/bugs/)
# Each was found while writing the fixtures and has since been fixed; the tests keep them fixed.
# A new engine bug gets a spec here and a test marked xfail(strict=True, reason=...).

def test_a_trace_through_a_min_aggregate_is_replayed():
    # was an internal error (Z3 replay compared the first value with None); kept as a regression test
    res = engine.check(["tests/fixtures/bugs/replay-min-aggregate.rw"])
    assert res.exit_code() == 1, report.text(res)
    (f,) = [f for f in res.findings if f.kind == "invariant"]
    assert f.replay == CONFIRMED


def test_a_trace_through_a_division_by_a_negative_number_is_replayed():
    # was "Z3 replay: FAILED": the replay divided Euclidean (7 / -2 = -3), the explorer floors (-4)
    res = engine.check(["tests/fixtures/bugs/replay-negative-divisor.rw"])
    traced = [f for f in res.findings if f.trace]
    assert traced
    assert all(f.replay == CONFIRMED for f in traced), [f.replay for f in traced]


def test_an_overflow_of_a_team_indexed_variable_names_the_team():
    # was "taken[0] would become 4"
    res = engine.check(["tests/fixtures/bugs/overflow-index-name.rw"])
    (f,) = [f for f in res.findings if f.kind == "overflow"]
    assert f.message.startswith("taken[A] would become 4"), f.message


# ---------------------------------------------------------------- golden reports and determinism

@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_text_report_matches_the_golden_file(name):
    path = GOLDEN_CASES[name]
    res = checked(path)
    # a note (readings-differ) is shown only with -v: its golden file is the verbose report
    got = report.text(res, verbosity=1 if any(f.severity == "info" for f in res.findings) else 0)
    golden = GOLDEN / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_bytes(got.encode())
    assert golden.exists(), f"{golden} is missing; run with UPDATE_GOLDEN=1"
    assert got.encode() == golden.read_bytes(), f"{golden} differs; rerun with UPDATE_GOLDEN=1 if intended"


@pytest.mark.parametrize("path", [c.defect_path for c in CASES] + [c.twin_path for c in CASES])
def test_json_report_is_byte_identical_across_runs(path):
    first = report.as_json(checked(path))
    second = report.as_json(checked(path))
    assert first == second
