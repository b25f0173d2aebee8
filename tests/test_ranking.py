"""Ranking functions (checker/symbolic/ranking.py): the cycle checks an instance the explorer
cannot finish still gets decided where a linear function of the state proves them absent,
and never where the explorer finds the cycle."""
import re
import sys
from pathlib import Path

import pytest
import z3

from checker import engine
from checker.analyses import unbounded
from checker.analyses.decision import Questions
from checker.limits import Budget, Limits
from checker.symbolic import horn, ranking, terms

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from families import ffa_spec  # noqa: E402

CYCLE_FIXTURES = sorted(str(p.relative_to(ROOT)) for kind in ("livelock", "forced-loop", "unbounded-procedure", "starvation")
                        for p in (ROOT / "tests" / "fixtures" / kind).glob("*.rw"))

# a game with a loop of actions that are not progress: `shuffle` between two hits, either
# bounded (`shuffles < 3`, counting up) or not (turning a card over and back, forever)
SHUFFLES = """players 2
var shuffles: 0..3 = 0
var life(p: player): 0..5 = 5
var turn: player = P1
active p when turn == p
action shuffle when {guard} do shuffles := {update}; end
action hit progress when {hits} do life[next(turn)] := life[next(turn)] - 1; turn := next(turn); shuffles := 0; end
outcome dead: lose player p when life[p] == 0
outcome last: win player p when in_game(p) and forall q in opponents(p): lost(q)
"""
BOUNDED = {"guard": "shuffles < 3", "update": "shuffles + 1", "hits": "true"}
FOREVER = {"guard": "true", "update": "1 - shuffles", "hits": "true"}


def instance(path, **params):
    return next(i for i in engine.load_instances(str(path)) if all(i.params.get(k) == v for k, v in params.items()))


EVERY = {"livelock", "forced-loop", "unbounded-procedure", "starvation"}


def decided(path, *kinds, work: float = 20.0, **params) -> dict:
    """{(check, subject): Ranking} for one instance, each question given `work` units (CPU
    seconds on an idle machine): the checks `kinds` (all if none named)."""
    skip = EVERY - set(kinds) if kinds else set()
    inst = instance(path, **params)
    terms.fresh_context()  # as a run does per instance: the functions found must not depend on what ran before
    prover = horn.Prover(inst)
    return {(k, s): r for k, s, r in ranking.cycle_checks(prover, skip, lambda cap=20.0: work)}


def shuffles(tmp_path, **how):
    path = tmp_path / "shuffles.rw"
    path.write_text(SHUFFLES.format(**how), encoding="utf-8")
    return path


def test_the_free_for_all_at_life_8000_can_always_be_ended_because_each_attack_lowers_the_life_totals(tmp_path):
    r = decided(ffa_spec(3, 8000, tmp_path), "forced-loop")[("forced-loop", "")]
    assert r.verdict == "proved", r.why
    assert r.function == "life[P1] + life[P2] + life[P3]"
    assert r.detail.startswith("life[P1] + life[P2] + life[P3] is never below 0 while the game runs")
    assert "(the actions that lower it: attack)" in r.detail  # passing never does


def explorer_finds(path) -> set[str]:
    return {f.kind for f in engine.check([str(path)]).findings}


def test_a_loop_of_non_progress_actions_that_can_repeat_forever_is_never_proved_absent(tmp_path):
    path = shuffles(tmp_path, **FOREVER)
    assert "livelock" in explorer_finds(path)
    r = decided(path, "livelock")[("livelock", "")]
    assert r.verdict == "unknown" and r.why


def test_a_loop_of_non_progress_actions_that_a_counter_bounds_is_proved_absent_by_that_counter(tmp_path):
    r = decided(shuffles(tmp_path, **BOUNDED), "livelock")[("livelock", "")]
    assert r.verdict == "proved", r.why
    assert r.function == "-shuffles + 2"  # 2, 1, 0: each shuffle lowers it, and it is 0 or more where one may be taken
    assert "each such action (shuffle) lowers it by at least 1" in r.detail



def test_a_constant_that_creeps_up_one_state_at_a_time_is_lifted_at_once(tmp_path, monkeypatch):
    # up to 2,000 shuffles: Z3 offers the state one shuffle past each candidate's constant,
    # so learning from them one at a time raised it by one per question
    path = tmp_path / "s.rw"
    path.write_text(SHUFFLES.replace("0..3", "0..2000").format(
        guard="shuffles < 2000", update="shuffles + 1", hits="true"), encoding="utf-8")
    learn, asked = ranking._learn, []
    monkeypatch.setattr(ranking, "_learn", lambda *a: asked.append(1) or learn(*a))
    r = decided(path, "livelock")[("livelock", "")]
    assert r.verdict == "proved", r.why
    assert r.function == "-shuffles + 1999"  # the smallest constant that proves it, not the range's 2,000
    assert len(asked) < 10
    asked.clear()
    monkeypatch.setattr(ranking, "_lifted", lambda c, ranges: c)
    assert decided(path, "livelock")[("livelock", "")].verdict == "unknown"
    assert len(asked) > 50

# P2's turn: hits bring the life down to 0, then one replay sets it back to 3 (a drawn game
# played again, as Force of Will's Hydra match has it); P1 waits throughout. No linear
# function with small coefficients ranks the replay (life rises by 3, `replayed` changes by 1)
REPLAY = """players 2
var turn: player = P1
var life: 0..3 = 3
var replayed: bool = false
active p when turn == p
action hit progress when turn == P2 and life > 0 do life := life - 1; end
action replay progress when turn == P2 and life == 0 and not replayed do life := 3; replayed := true; end
action pass progress do turn := next(turn); end
"""


def proved_absent(tmp_path, text: str, kind: str, subject: str = "") -> ranking.Ranking:
    """The ranking of one check of a spec in which the explorer finds no such defect: proved."""
    path = tmp_path / "s.rw"
    path.write_text(text, encoding="utf-8")
    assert kind not in explorer_finds(path)
    r = decided(path, kind)[(kind, subject)]
    assert r.verdict == "proved", r.why
    return r


def test_a_replay_that_sets_a_count_back_up_is_ranked_in_two_parts(tmp_path):
    r = proved_absent(tmp_path, REPLAY, "starvation", "P1")
    # `replayed` never falls: round a cycle it keeps its value, so the replay is on none
    assert r.detail.startswith("a ranking in two parts: [replayed] never falls on the steps below")
    assert r.function == "life"



def test_what_the_first_search_saw_move_is_not_asked_about_again(tmp_path, monkeypatch):
    never_moving, seeds = ranking._never_moving, []
    monkeypatch.setattr(ranking, "_never_moving",
                        lambda *a: seeds.append((a[4], set(a[6]))) or never_moving(*a))
    # (P1's two questions come first: P2's are asked with P1's proof, which names its slots)
    seen = proved_absent(tmp_path, REPLAY, "starvation", "P1")
    assert any(s for _, s in seeds[:2])  # the hits lowered life in the first search's states
    seeds.clear()
    monkeypatch.setattr(ranking, "_seen_moving", lambda *a: set())
    unseen = proved_absent(tmp_path, REPLAY, "starvation", "P1")
    assert not any(s for _, s in seeds[:2])
    assert (seen.function, seen.detail) == (unseen.function, unseen.detail)

def test_an_end_reached_after_one_replay_is_ranked_in_two_parts(tmp_path):
    # the same replay in a game that ends once life is down to 0 a second time: the replay
    # step changes `replayed`, which only rises within its range, so it counts as a step
    # towards the end
    r = proved_absent(tmp_path, "players 2\nvar life: 0..3 = 3\nvar replayed: bool = false\n"
                      "action hit progress when life > 0 do life := life - 1; end\n"
                      "action replay progress when life == 0 and not replayed do life := 3; replayed := true; end\n"
                      "outcome over: draw when life == 0 and replayed\n", "forced-loop")
    assert r.detail.startswith("a ranking in two parts: [replayed] never falls where the game goes on")
    assert r.function == "life"


def test_a_game_nothing_can_end_has_no_proof_that_an_end_can_always_be_reached(tmp_path):
    # nobody can hit: the cards are turned over and back forever
    path = shuffles(tmp_path, **{**FOREVER, "hits": "false"})
    assert "forced-loop" in explorer_finds(path)
    assert decided(path, "forced-loop")[("forced-loop", "")].verdict == "unknown"


def test_checks_with_nothing_to_find_are_decided_as_such(tmp_path):
    path = tmp_path / "plain.rw"
    path.write_text("players 2\nvar x: 0..3 = 0\naction inc progress when x < 3 do x := x + 1; end\n"
                    "outcome done: draw when x == 3\n", encoding="utf-8")
    d = decided(path)
    assert d[("unbounded-procedure", "")].detail == "no procedure is declared"
    assert d[("starvation", "")].verdict == "proved"  # no `active`: nobody waits
    assert d[("livelock", "")].detail == "every game action is marked `progress`: no cycle can lack one"


def test_a_z3_error_is_an_unknown_never_a_proof(tmp_path, monkeypatch):
    def broken(*args):
        raise z3.Z3Exception("out of memory")
    monkeypatch.setattr(ranking, "_learn", broken)
    r = decided(shuffles(tmp_path, **BOUNDED), "livelock")[("livelock", "")]
    assert r.verdict == "unknown" and "out of memory" in r.why


def test_a_function_reads_in_the_specs_names(tmp_path):
    path = tmp_path / "names.rw"
    path.write_text("players 3\nvar hand(p: player): 0..7 = 7\nvar kept: set player = {}\nvar started: bool = false\n"
                    "action a progress when true do started := true; end\n", encoding="utf-8")
    inst = instance(path)
    st = horn.Prover(inst).frame()[1].st
    # hand x3, P1..P3 in kept, started, out(P1..P3)
    assert ranking.show_rank(inst, (3, 1, 1, 1, -1, -1, -1, 2, 0, 0, -1), st) == \
        "hand[P1] + hand[P2] + hand[P3] - size(kept) + 2*[started] - [out(P3)] + 3"
    assert ranking.show_rank(inst, (0,) + (0,) * 10, st) == "0"


def test_the_incomplete_line_names_only_the_checks_nobody_decided(tmp_path):
    class Stopped:
        stop_reason, states = "state limit of 2 reached", [(), ()]
    inst = instance(ffa_spec(3, 8000, tmp_path))
    line = unbounded.undecided_line(inst, Stopped(), decisions=[
        unbounded.Decision("livelock", "", "proved", unbounded.RANKING),
        unbounded.Decision("forced-loop", "", "unknown", unbounded.RANKING)])
    assert line.endswith("not checked: unbounded-procedure, starvation, never-active, player-without-outcome, "
                         "dead-rule, dead-declaration")


@pytest.mark.slow  # (two runs of every cycle check at 4 players: about 35 s)
def test_a_frame_spacer_ruled_out_for_one_check_is_not_asked_again_for_the_next(tmp_path, monkeypatch):
    # the ranking searches of one instance meet the same unreachable frames (a player below 0
    # life); what Spacer proved of them for an earlier check serves the later ones, and the
    # proofs stay the same. (With its declared ranges this game needs no such frame ruled out:
    # the test takes them away, as where a step relation is too large to show they hold.)
    monkeypatch.setattr(ranking, "_ranges", lambda prover, work=None: ranking._terms.TRUE)
    # (Spacer asked about every such frame, as it is met: the facts shown with plain queries
    # would leave it few questions to share, and frames learnt from before Spacer is asked make
    # the two runs' searches differ)
    monkeypatch.setattr(ranking, "NO_WAY_IN", False)
    monkeypatch.setattr(ranking, "DEFER_SPACER", False)
    # (each player searched afresh: the last player's proof, tried first, would hide what the
    # facts save)
    prove = ranking._prove
    monkeypatch.setattr(ranking, "_prove", lambda prover, claim, seconds, hint=None: prove(prover, claim, seconds))
    path = ffa_spec(4, 10, tmp_path)
    asked = []
    ask_wider = horn.Prover.ask_wider
    monkeypatch.setattr(horn.Prover, "ask_wider", lambda self, *a: asked.append(1) or ask_wider(self, *a))

    def run():
        terms.fresh_context()  # (Z3's choices follow the order its context made the terms)
        asked.clear()
        # (twice the usual work: without the ranges the searches meet more frames, and how many
        # units P1's takes varies with the order Z3 made the terms in; the questions are counted)
        return {key: (r.verdict, r.function) for key, r in decided(path, work=40.0).items()}, len(asked)

    shared, questions = run()
    monkeypatch.setattr(ranking, "_known_excluding", lambda *args: [])
    alone, questions_alone = run()
    assert shared == alone and all(verdict == "proved" for verdict, _ in shared.values())
    assert questions < questions_alone * 0.75


@pytest.mark.slow
def test_the_free_for_all_of_four_at_life_8000_has_its_loops_decided_in_the_report(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "symbolic")
    res = engine.check([str(ffa_spec(4, 8000, tmp_path))])
    (i,) = res.instances
    ranked = {(d.check, d.subject): d for d in i.decisions if d.engine == unbounded.RANKING}
    assert {k: d.verdict for k, d in ranked.items()} == {
        ("livelock", ""): "proved", ("forced-loop", ""): "proved", ("unbounded-procedure", ""): "proved",
        ("starvation", "P1"): "proved", ("starvation", "P2"): "proved", ("starvation", "P3"): "proved",
        ("starvation", "P4"): "proved"}
    assert ranked["forced-loop", ""].detail.startswith("life[P1] + life[P2] + life[P3] + life[P4] is never below 0")
    assert ranked["starvation", "P3"].detail.startswith("while P3 waits, ")
    # every player was active in the explored states, among which the passes make a cycle
    assert [d.verdict for d in i.decisions if d.check == "never-active"] == ["proved"]
    assert res.incomplete == [] and res.exit_code() == 0  # decided in full, at life 8,000


@pytest.mark.slow
@pytest.mark.parametrize("path", CYCLE_FIXTURES)
def test_a_ranking_function_never_contradicts_the_explorer_on_the_fixtures(path):
    """Soundness against the complete explorer, instance by instance, on every fixture of the
    cycle kinds (each defect and its twins): a cycle check proved absent is one the explorer
    does not find. The defects' own loops are therefore never proved absent."""
    res = engine.check([path], Limits(max_states=200_000))
    if res.diagnostics or res.is_incomplete:
        pytest.skip("the fixture is not checked to its end by the explorer")
    kind = Path(path).parent.name
    if Path(path).name == "defect.rw":  # the defect is there to be contradicted
        assert any(f.kind == kind for f in res.findings)
    for inst in engine.load_instances(path):
        kinds = {f.kind for f in res.findings if inst.label in (f.instances or [f.instance])}
        for check, subject, r in ranking.cycle_checks(horn.Prover(inst), set(), lambda cap=20.0: 20.0):
            if r.verdict == "proved":
                assert check not in kinds, (inst.label, check, subject, r.detail)


@pytest.mark.slow
@pytest.mark.parametrize("kind, subject", [("livelock", ""), ("forced-loop", ""), ("unbounded-procedure", "time_limit")])
def test_each_clean_twin_has_its_check_proved_by_a_ranking_function(kind, subject):
    r = decided(ROOT / "tests" / "fixtures" / kind / "twin.rw", kind, **({"R": 1} if kind == "forced-loop" else {}))
    assert r[(kind, subject)].verdict == "proved", r[(kind, subject)].why
    assert r[(kind, subject)].function


# A total counted down, then a new game that sets it back up. Frames "between games with a low
# total" are ones no play reaches; asked about one, Spacer proves only that frame's bound
# (between games, life > 2), and a search that meets the next total down asks again.
BETWEEN_GAMES = """players 2
var between: bool = false
var life: 0..2000 = 2000
var turn: player = P1
action hit progress when not between and life > 0 do life := life - 1; turn := next(turn); end
action finish_game progress when not between and life == 0 do between := true; life := 2000; end
action next_game progress when between do between := false; turn := next(turn); end
active p when turn == p
outcome done: draw when between and turn == P2
"""


def _facts_and_questions(path, monkeypatch) -> tuple[list[str], int]:
    asked = []
    ask_wider = horn.Prover.ask_wider
    monkeypatch.setattr(horn.Prover, "ask_wider", lambda self, *a: asked.append(1) or ask_wider(self, *a))
    inst = instance(path)
    terms.fresh_context()
    prover = horn.Prover(inst)
    verdicts = {(k, s): r.verdict for k, s, r in ranking.cycle_checks(prover, set(), lambda cap=20.0: 20.0)}
    assert verdicts[("starvation", "P2")] == "proved"
    return [str(f) for f in prover.reachable_facts], len(asked)


def test_a_bound_spacer_proves_of_one_frame_is_moved_to_the_end_of_its_range(tmp_path, monkeypatch):
    path = tmp_path / "between.rw"
    path.write_text(BETWEEN_GAMES, encoding="utf-8")
    monkeypatch.setattr(ranking, "WIDENED_BOUNDS", 4)  # (the default; the test must not follow a change of it)
    monkeypatch.setattr(ranking, "NO_WAY_IN", False)  # (Spacer asked about every frame: its facts are moved)
    facts, questions = _facts_and_questions(path, monkeypatch)
    life_bounds = {int(b) for f in facts for b in re.findall(r"life_0@0 <= (\d+)", f)}
    # between games, life is 2,000: once the facts count down, one more question, not one per total
    assert max(life_bounds) == 1999 and len(life_bounds) <= 2, facts
    monkeypatch.setattr(ranking, "WIDENED_BOUNDS", 0)
    facts_as_given, questions_as_given = _facts_and_questions(path, monkeypatch)
    assert len({b for f in facts_as_given for b in re.findall(r"life_0@0 <= (\d+)", f)}) > 3
    assert questions * 2 < questions_as_given


def test_a_bound_is_kept_where_no_end_of_the_range_holds_of_every_frame(tmp_path, monkeypatch):
    monkeypatch.setattr(ranking, "WIDENED_BOUNDS", 4)
    path = tmp_path / "between.rw"
    path.write_text(BETWEEN_GAMES, encoding="utf-8")
    terms.fresh_context()
    prover = horn.Prover(instance(path))
    u, f = prover.frame()
    names = dict(horn.slot_names(prover.inst, f))
    life, between = names["life"], names["between"]
    support = [ranking._ranges(prover)]
    work = ranking._Work(60.0)
    # a fact like one before but for its bound: Spacer's facts count down
    prover.reachable_facts.append(z3.Or(z3.Not(life <= 1), z3.Not(between)))
    assert z3.eq(ranking._widened(prover, support, z3.Or(z3.Not(between), z3.Not(life <= 3)), work),
                 z3.Or(z3.Not(between), z3.Not(life <= 1999)))  # life is 2,000 between games
    # life >= 0 holds, but neither life == 2,000 (it counts down) nor life > 0 (it reaches 0)
    prover.reachable_facts.append(z3.Not(life <= -3))
    held = z3.Not(life <= -1)
    assert z3.eq(ranking._widened(prover, support, held, work), held)
    # a fact like none before is left as it is, without a check
    checks = []
    holds_always = ranking._holds_always
    monkeypatch.setattr(ranking, "_holds_always", lambda *a: checks.append(1) or holds_always(*a))
    other = z3.Or(between, z3.Not(life <= 5))
    assert ranking._widened(prover, support, other, work) is other and not checks


def _between_games(tmp_path, **values):
    """The prover of BETWEEN_GAMES, a model of its frame 0 with the slots named (in the spec's
    words) set, and the slots by name."""
    path = tmp_path / "between.rw"
    path.write_text(BETWEEN_GAMES, encoding="utf-8")
    terms.fresh_context()
    prover = horn.Prover(instance(path))
    names = dict(horn.slot_names(prover.inst, prover.frame()[1]))
    s = z3.Solver()
    s.add(*[names[n] == v for n, v in values.items()])
    assert s.check() == z3.sat
    return prover, s.model(), names


def test_a_frame_no_step_leads_into_is_ruled_out_without_spacer_for_all_its_totals(tmp_path, monkeypatch):
    # between games, life is 2,000 (finish_game sets it, and nothing else is done between
    # games): a frame between games at 7 life has no way in, and two plain queries say so for
    # every total below 2,000 at once, where Spacer proved "life > 6" and little more
    monkeypatch.setattr(horn.Prover, "ask_wider", lambda *a: pytest.fail("Spacer was asked"))
    prover, m, names = _between_games(tmp_path, between=True, life=7, turn=0)
    (fact,) = ranking._ruled_out(prover, [ranking._ranges(prover)], m, ranking._Work(10.0))
    life, between = names["life"], names["between"]
    assert z3.eq(z3.simplify(fact), z3.simplify(z3.Not(z3.And(between == True, life <= 1999)))), fact  # noqa: E712
    assert prover.reachable_facts == [fact]


@pytest.mark.parametrize("values", [
    # in a game at 7 life with P2 to play, hit leads in (from 8 life with P1 to play): only a
    # question about every play can tell, which is Spacer's
    {"between": False, "life": 7, "turn": 1},
    # the setup
    {"between": False, "life": 2000, "turn": 0},
])
def test_a_frame_with_a_way_in_is_left_to_spacer(tmp_path, values):
    prover, m, _ = _between_games(tmp_path, **values)
    frame = [m.eval(t, model_completion=True) for t in prover.system(False)[2]]
    assert ranking._no_way_in(prover, [ranking._ranges(prover)], frame, ranking._Work(10.0)) is None


def test_a_candidate_z3_cannot_check_within_the_work_is_said_so_in_words(tmp_path, monkeypatch):
    first_sat = ranking._first_sat

    def cut_short(s, tries):
        s.set("rlimit", 1)  # (Z3's work limit, as a question whose work is spent meets it)
        return first_sat(s, tries)
    monkeypatch.setattr(ranking, "_first_sat", cut_short)
    r = decided(shuffles(tmp_path, **BOUNDED), "livelock")[("livelock", "")]
    assert (r.verdict, r.why) == ("unknown", "Z3 could not check a candidate within this question's work")


def test_a_candidate_checked_with_the_last_of_the_work_says_the_work_was_spent(tmp_path, monkeypatch):
    # the check that meets the end of the question's work had a sliver of it, not its slice:
    # what ran out is the question's work, and the words say that, not that Z3 failed
    first_sat, spent = ranking._first_sat, []

    def last_check(s, tries):
        s.set("rlimit", 1)
        spent.append(1)
        return first_sat(s, tries)
    monkeypatch.setattr(ranking, "_first_sat", last_check)
    monkeypatch.setattr(ranking._Work, "left", property(lambda self: 1.0 if not spent else 0.0))
    r = decided(shuffles(tmp_path, **BOUNDED), "livelock")[("livelock", "")]
    assert (r.verdict, r.why) == ("unknown", "the time for this question was spent")


def test_a_question_asked_with_its_work_spent_is_unknown_not_a_limit_of_the_run(tmp_path):
    # A search whose work ran out just before it asked Spacer about a frame once got a
    # wall-clock deadline of "now": the instance stopped as if the machine were loaded.
    prover = horn.Prover(instance(shuffles(tmp_path, **BOUNDED)))
    a = prover.ask_wider(lambda u, f: f.ended, 0.0)
    assert a.verdict == horn.UNKNOWN
    a = prover.ask(lambda u, f: f.ended, 0.0)
    assert a.verdict == horn.UNKNOWN


# Teammates wait at the same times: one player's ranking is the next one's. In the second game
# a replay sets life back up, so the ranking has two parts (games never falls; then life).
TEAM_TURNS = """teams A, B size 2
var turn: team = A
var life: 0..3 = 3
var games: 0..1 = 0
active p when team(p) == turn
action hit progress when life > 0 do life := life - 1; end
action replay progress when life == 0 and games == {replays} do games := 1; life := 3; end
action end_turn progress do turn := if turn == A then B else A end; end
"""


@pytest.mark.parametrize("replays, parts", [("2", 1), ("0", 2)])
def test_the_last_players_ranking_is_tried_first_for_the_next(tmp_path, monkeypatch, replays, parts):
    path = tmp_path / "teams.rw"
    path.write_text(TEAM_TURNS.format(replays=replays), encoding="utf-8")  # (games == 2: never, no replay)
    learnt = []
    learn = ranking._learn
    monkeypatch.setattr(ranking, "_learn", lambda *a: learnt.append(1) or learn(*a))
    with_hint = {}
    for (_, who), r in decided(path, "starvation").items():
        with_hint[who] = (r.verdict, r.function, r.detail, len(learnt))
        learnt.clear()
    assert [who for who, (_, _, _, n) in with_hint.items() if n] == ["A1"]  # the others: no search
    assert {len(r.kept) + 1 for r in decided(path, "starvation").values()} == {parts}
    prove = ranking._prove
    monkeypatch.setattr(ranking, "_prove", lambda prover, claim, seconds, hint=None: prove(prover, claim, seconds))
    alone = {who: (r.verdict, r.function, r.detail) for (_, who), r in decided(path, "starvation").items()}
    assert alone == {who: v[:3] for who, v in with_hint.items()}  # the same proofs, found without a hint


def test_what_spacer_proved_for_a_safety_question_serves_the_ranking_searches(tmp_path):
    # its invariant holds of every frame a play reaches, whatever the question was
    prover = horn.Prover(instance(shuffles(tmp_path, **BOUNDED)))
    q = Questions(prover, Budget(Limits(max_seconds=60)))
    a = q.ask(lambda u, f: f.st.vals["shuffles"][0] > 3)
    assert a.verdict == horn.PROVED
    assert prover.reachable_facts == [a.formula]
    assert q.ask(lambda u, f: f.ended).verdict != horn.PROVED and len(prover.reachable_facts) == 1


@pytest.mark.slow  # (one reading of Hydra's game at 8,000 to the unit: about 30 s)
def test_hydras_game_with_damage_of_any_amount_has_every_check_decided_with_the_default_work():
    # issue 22's game at the document's numbers, as spec/ holds it (HITS = 8000): its
    # forced-loop needed about 45 units where it had 10 while every frame that broke a
    # candidate was put to Spacer first; now a frame nothing leads into is ruled out by plain
    # queries, the others are learnt from before Spacer is asked, a candidate checked again
    # reuses its work, and the question has 20 units
    res = engine.check([str(ROOT / "spec" / "force-of-will-floor-rules.rw")],
                       select=engine.Selection(only=("hydra/as_written",), params=(("HITS", (8000,)),)))
    (i,) = res.instances
    assert not [(d.check, d.subject, d.detail) for d in i.decisions if d.verdict == "unknown"]
    assert {d.engine for d in i.decisions if d.check == "forced-loop"} == {unbounded.RANKING}
    assert res.exit_code() == 0  # (the reviewed findings expected, nothing else found or left undecided)


def test_a_candidate_checked_again_does_not_eliminate_the_arguments_again(tmp_path, monkeypatch):
    # a hit of 1 to 100: "some hit ends the game or lowers r" is eliminated once per
    # candidate's coefficients (the constant cancels out of "lowers"), however often checked
    path = tmp_path / "amounts.rw"
    path.write_text("""players 2
var life(p: player): 0..1000 = 1000
var turn: player = P1
active p when turn == p
action hit(n: 1..100) progress when life[next(turn)] > 0 do
  life[next(turn)] := if n >= life[next(turn)] then 0 else life[next(turn)] - n end;
  turn := next(turn);
end
outcome dead: lose player p when life[p] == 0
outcome last: win player p when in_game(p) and forall q in opponents(p): lost(q)
""", encoding="utf-8")
    eliminated, checked = [], []
    for_some, broken = ranking.for_some, ranking._broken
    monkeypatch.setattr(ranking, "for_some", lambda args, cond: (eliminated.append(1) if args else None) or for_some(args, cond))
    monkeypatch.setattr(ranking, "_broken", lambda claim, x, c, *a: checked.append(c) or broken(claim, x, c, *a))
    r = decided(path, "forced-loop")[("forced-loop", "")]
    assert r.verdict == "proved"
    assert len(eliminated) == len({c[1:] for c in checked}) < len(checked)  # (hit: one step with an argument)
