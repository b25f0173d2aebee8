"""The story of a counterexample (checker.analyses.story): what each step changed and ran, what
the outcome rules decided, what blocks the players of a deadlock; and that every report tells
the same story (text, JSON, SARIF, HTML, the language server)."""
from __future__ import annotations

import functools
import json

from checker import engine
from checker.analyses import story
from checker.analyses.explored import Explored
from checker.analyses.story import Change, entry_changes, rerun, what_ran
from checker.lsp.problems import finding_problem
from checker.outputs import html, report
from checker.outputs.trace import narrative

STORY = "tests/fixtures/deadlock/story-defect.rw"  # a trigger runs in the trace; nobody in the game is active
PRIORITY = "tests/fixtures/deadlock/defect.rw"  # an active player whose every action's guard fails


@functools.cache
def checked(path: str) -> engine.Result:
    return engine.check([path])


def deadlock(path: str):
    (f,) = [f for f in checked(path).findings if f.kind == "deadlock"]
    return f


# ---------------------------------------------------------------- what changed

def test_a_step_shows_the_entries_it_changed_not_whole_maps():
    before = (("life", {"#map": [["P1", {"#bigint": "2"}], ["P2", {"#bigint": "3"}]]}), ("turn", "P1"),
              ("out_of_game", {"#set": ["P4"]}))
    after = (("life", {"#map": [["P1", {"#bigint": "2"}], ["P2", {"#bigint": "1"}]]}), ("turn", "P1"),
             ("out_of_game", {"#set": ["P3"]}))
    assert entry_changes(before, after) == (Change("life[P2]", "3", "1"),
                                            Change("out_of_game", added=("P3",), removed=("P4",)))
    assert [str(c) for c in entry_changes(before, after)] == ["life[P2]: 3 -> 1", "out_of_game: +P3, -P4"]


def test_the_narrative_shows_changed_entries_and_the_setup_in_full():
    text = narrative(deadlock(STORY))
    assert "life = {P1: 2, P2: 2, P3: 2, P4: 2}" in text  # the setup, whole
    assert "life[P1]: 1 -> 0; marker[P1]: 0 -> 1; turn: P4 -> P2; out_of_game: +P1" in text
    assert "life = {P1: 0" not in text  # no later state printed whole


# ---------------------------------------------------------------- what ran

def test_a_step_names_each_rule_it_ran_in_order_with_its_subject_and_place():
    last = deadlock(STORY).trace[-1]
    assert [(r.kind, r.name, r.subject, r.tags) for r in last.ran] == [
        ("action", "attack(q=P1)", "", ("S2",)),
        ("outcome", "eliminated", "P1", ("S3",)),
        ("trigger", "skip_the_eliminated", "P1", ("S4",)),
    ]
    assert str(last.ran[2]) == f"trigger skip_the_eliminated for P1 [S4] at {STORY}:31"


def test_a_step_says_which_rule_decided_which_outcome():
    f = deadlock(STORY)
    assert [r.outcome() for r in f.trace[-1].ran if r.outcome()] == ["P1 loses by `eliminated` [S3]"]
    conflict = [f for f in checked("tests/fixtures/outcome-conflict/defect.rw").findings
                if f.kind == "outcome-conflict"][0]
    assert "decided: P1 wins by `victory` [V2]; P2 wins by `victory` [V2]" in narrative(conflict)


def test_the_steps_are_re_run_exactly_as_the_explorer_took_them():
    # the story re-runs each shown step through the closures; it must land on the recorded state
    graphs: dict = {}
    res = engine.check([STORY], graphs=graphs)
    (f,) = res.findings
    g = graphs[f.instance]
    for before, st in zip(f.trace, f.trace[1:]):
        ai, binding, hits = g.labels[st.lid]
        after, ran, _ = rerun(g.machine, g.machine.values(g.state_of(before.sid)), ai, binding)
        assert after == tuple(g.machine.values(g.state_of(st.sid)))
        assert [rid for rid, _ in ran] == list(hits)
    assert Explored(g).machine is g.machine


# ---------------------------------------------------------------- what blocks a deadlock

def test_a_deadlock_says_that_no_player_in_the_game_is_active_and_why():
    f = deadlock(STORY)
    (b,) = f.blocked
    assert b.player == "P3, P4"  # the players still in the game, never P1 or P2 who are out
    assert "`turn == p` is false: turn = P2, out of the game" in b.why
    assert "no player in the game is active" in b.why
    assert "what blocks the players still in the game:" in narrative(f)


def test_a_deadlock_names_the_false_part_of_each_guard_of_the_active_player():
    f = deadlock(PRIORITY)
    waiting = [b for b in f.blocked if not b.action]
    assert [(b.player, b.why) for b in waiting] == [("P3", "not active (`turn == p` is false: turn = P1); waits for P1")]
    guards = {(b.action, b.why) for b in f.blocked if b.action}
    assert ("pass_priority", "the part `priority == p` is false (pass_priority(p=P1), pass_priority(p=P3))") in guards
    assert ("pass_priority", "the part `in_game(p)` is false (pass_priority(p=P2))") in guards
    assert all(b.player == "P1 (active)" for b in f.blocked if b.action)


# ---------------------------------------------------------------- every report tells it

def test_json_has_the_story_as_data_and_the_itf_trace_unchanged():
    doc = json.loads(report.as_json(checked(STORY)))
    (f,) = doc["findings"]
    last = f["story"]["steps"][-1]
    assert {"name": "marker[P1]", "old": "0", "new": "1", "added": [], "removed": []} in last["changes"]
    trigger = last["ran"][2]
    assert (trigger["kind"], trigger["subject"], trigger["rules"], trigger["line"]) == ("trigger", "P1", ["S4"], 31)
    assert last["ran"][1]["decided"] == "loses"
    assert f["story"]["blocked"][0]["player"] == "P3, P4"
    assert set(f["trace"]["states"][-1]) == {"#meta", "life", "marker", "turn", "out_of_game", "game"}


def test_sarif_nests_what_a_step_ran_under_the_step():
    doc = json.loads(report.as_sarif(checked(STORY)))
    (res,) = doc["runs"][0]["results"]
    locs = res["codeFlows"][0]["threadFlows"][0]["locations"]
    nested = [loc["location"]["message"]["text"] for loc in locs if loc["nestingLevel"] == 1]
    assert "trigger skip_the_eliminated for P1 [S4]" in nested
    assert "outcome eliminated for P1 [S3]: P1 loses by `eliminated` [S3]" in nested


def test_the_html_report_shows_fingerprint_source_expect_line_and_story():
    page = html.render(checked(STORY))
    f = deadlock(STORY)
    assert f.fingerprint in page
    assert "once reviewed, accept it with:" in page and "expect deadlock [S2, S3, S4]" in page
    assert "active p [S2] when turn == p" in page  # the source line of a cited place
    assert "trigger skip_the_eliminated for P1 [S4]" in page
    assert "P1 loses by `eliminated` [S3]" in page


def test_the_html_report_puts_errors_first_and_folds_the_notes_at_the_end():
    page = html.render(engine.check(["tests/fixtures/readings-differ/defect.rw"]))
    assert "<details" in page
    folded = page[page.index("<details"):]
    assert "[readings-differ]" in folded and "error[" not in folded
    assert "error[" in page[:page.index("<details")]


def test_the_language_server_shows_the_story_as_related_information():
    p = finding_problem(deadlock(STORY), STORY)
    messages = [r.message for r in p.related]
    assert "step 4 (attack(q=P1)): trigger skip_the_eliminated for P1 [S4]" in messages
    assert "step 4 (attack(q=P1)): outcome eliminated for P1 [S3]; P1 loses by `eliminated` [S3]" in messages
    assert any(m.startswith("what blocks P3, P4: not active") for m in messages)
    trigger = next(r for r in p.related if "trigger" in r.message)
    assert (trigger.file, trigger.line) == (STORY, 31)


def test_the_language_server_sends_related_information_to_the_editor():
    from pygls.workspace import TextDocument
    from checker.lsp.server import RulewrightServer
    text = open(STORY, encoding="utf-8").read()
    doc = TextDocument("file:///story-defect.rw", text)
    d = RulewrightServer.to_lsp(finding_problem(deadlock(STORY), STORY), list(doc.lines), doc)
    assert d.related_information and d.related_information[0].location.uri.endswith("story-defect.rw")
    assert any("skip_the_eliminated" in r.message for r in d.related_information)


def test_a_step_that_ends_phases_names_each_phase_and_when_block_it_ran(tmp_path):
    spec = tmp_path / "phases.rw"
    text = open("tests/fixtures/deadlock/phase-twin.rw", encoding="utf-8").read()
    spec.write_text(text + "invariant never_second_turn [P4]: turn == P1\n", encoding="utf-8")
    (f,) = engine.check([str(spec)]).findings
    assert [r.text(place=False) for r in f.trace[-1].ran] == [
        "action pass [P1, P2]", "phase main ends [P2, P3]", "phase when main ends [P2]",
        "phase ending ends [P3]", "phase when ending ends [P4]"]


def test_an_action_without_parameters_is_blocked_without_naming_arguments():
    f = deadlock("tests/fixtures/deadlock/phase-defect.rw")
    assert ("pass", "the part `passes < size(remaining)` is false") in {(b.action, b.why) for b in f.blocked}


def test_a_step_told_from_its_recorded_ids_reads_as_the_step_run_again(tmp_path, monkeypatch):
    # Most steps of a long trace hit no rule with a subject; their story skips running them
    # again, and must not differ from the story of the step run again.
    runs = []
    monkeypatch.setattr(story, "rerun", lambda *a: runs.append(a) or rerun(*a))
    spec = tmp_path / "count.rw"
    spec.write_text(SUBJECTLESS)
    graphs: dict = {}
    res = engine.check([str(spec)], graphs=graphs)
    shown = [f for f in res.findings if f.trace]
    assert shown
    told = 0
    for f in shown:
        x = Explored(graphs[f.instance])
        for before, st in zip(f.trace, f.trace[1:]):
            if st.sid < 0 or before.sid < 0:
                continue
            runs.clear()
            recorded = what_ran(x, st, before.sid)
            assert not runs  # told from the recorded ids
            assert recorded == what_ran(x, st, before.sid, again=True)
            assert runs  # and again through the closures
            told += 1
    assert told >= 5


# A total counted down one at a time, then a win decided by a rule without a subject (the
# game ends): the steps before it hit only the action and a tagged statement.
SUBJECTLESS = """
spec "countdown" formalizes "t"
document {
  R1: "count"
  R2: "tick"
  R3: "end"
}
players [R1] 2
var total [R1]: 0..6 = 6
var ticks [R2]: 0..6 = 0
action tick [R2] progress when total > 0 do
  total := total - 1;
  [R2] ticks := ticks + 1;
end
outcome done [R3]: draw when total == 0
reachable all_ticked [R2]: ticks == 6
invariant never_six [R2]: ticks < 6
"""
