"""`rulewright diff`: two versions of a spec compared by behaviour (docs/checks.md, "diff").

The acceptance test re-creates the edits a mutation campaign of the bundled specs could not
catch with generic checks (turn order, turn direction, starting player, the seat "directly
across", attack range): each keeps the game running, and each must be reported as a change of
behaviour, with a play replayed by the Z3 engine. The mutants are edits (old text -> new text)
applied to a copy of the spec, so they follow the specs as they evolve.
"""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from checker.diff import BEHAVIOUR, diff
from checker.cli import main
from checker.limits import Limits
from checker.analyses.verdicts import CONFIRMED

SPEC = Path(__file__).resolve().parent.parent / "spec"
YUGIOH, RIFTBOUND = SPEC / "yugioh-tag-duel.rw", SPEC / "riftbound-2v2-magma-chamber.rw"
MTG, WARHAMMER = SPEC / "mtg-multiplayer-draft-2004-fr.rw", SPEC / "warhammer-invasion-realm-wars.rw"
FOW = SPEC / "force-of-will-floor-rules.rw"

# (name, spec, old text, new text, the kind of difference: setup or play)
MUTANTS = [
    ("turn order 1A,1B,2A,2B instead of 1A,2A,1B,2B", YUGIOH,
     "after(turn, One1, Two1, One2, Two2)", "after(turn, One1, One2, Two1, Two2)", "play"),
    ("the wrong starting player", YUGIOH,
     "var turn [TD10.1]: player = One1", "var turn [TD10.1]: player = Two1", "setup"),
    pytest.param("turns pass counterclockwise instead of clockwise", RIFTBOUND,
                 "seating alternate\n    let next_turn(p: player) = next(p)",
                 "seating alternate\n    let next_turn(p: player) = right(p, 1)", "play", marks=pytest.mark.slow),
    pytest.param("turn order A1,A2,B1,B2 instead of A1,B1,A2,B2", RIFTBOUND,
                 "after(p, A1, B1, A2, B2)", "after(p, A1, A2, B1, B2)", "play", marks=pytest.mark.slow),
    pytest.param("'directly across' off by one seat", RIFTBOUND,
                 "player_at(3 - seat(p))", "player_at((4 - seat(p)) % 4)", "play", marks=pytest.mark.slow),
    pytest.param("the wrong starting team", WARHAMMER,
                 "var turn_team [Q2]: team = A", "var turn_team [Q2]: team = B", "setup", marks=pytest.mark.slow),
    pytest.param("turns pass to the right instead of the left", MTG,
                 "action pass_turn [101.5, 102.6] progress do\n  turn := next_in_game(turn);",
                 "action pass_turn [101.5, 102.6] progress do\n  turn := prev_in_game(turn);", "play",
                 marks=pytest.mark.slow),
    pytest.param("attack range 2 instead of adjacent", MTG,
                 "[608.6] = dist(a, q) == 1", "[608.6] = dist(a, q) <= 2", "play", marks=pytest.mark.slow),
    pytest.param("attack the player two seats left instead of directly left", MTG,
                 "[606.6, 604.1, 604.1a] = q == left(a, 1)", "[606.6, 604.1, 604.1a] = q == left(a, 1) or q == left(a, 2)",
                 "play", marks=pytest.mark.slow),
    pytest.param("'directly across' off by one seat (two-headed giant teams in a row)", MTG,
                 "player_at(nplayers - 1 - seat(p))", "player_at((nplayers - seat(p)) % nplayers)", "play",
                 marks=pytest.mark.slow),
    pytest.param("the wrong starting player (609.3)", MTG,
                 "turn in {A2, B2}", "turn in {A1, B1}", "setup", marks=pytest.mark.slow),
    pytest.param("the open draft passes counterclockwise", FOW,
                 "[A4.4.1.6, A4.4.1.9, A4.4.1.12] chooser := left(chooser, 1);",
                 "[A4.4.1.6, A4.4.1.9, A4.4.1.12] chooser := right(chooser, 1);", "play", marks=pytest.mark.slow),
]


# `diff` compares the explorer's graphs, which a spec counted to the unit is beyond (the Tag
# Duel's 16,000 LP, HITS = 16000, and Hydra's 8,000 life, HITS = 8000: their diff is honestly
# incomplete): these tests compare the values of the parameter that the document's numbers are
# checked against.
EXPLORABLE = {YUGIOH: ("param HITS [TD2.2] in {16000, 2, 4}", "param HITS [TD2.2] in {2, 4}"),
              FOW: ("param HITS [A11.2.p1] in {8000, 1}", "param HITS [A11.2.p1] in {1}")}


def explorable(tmp_path: Path, spec: Path) -> Path:
    """`spec`, or its copy at the parameter values the explorer holds whole (EXPLORABLE)."""
    if spec not in EXPLORABLE:
        return spec
    (tmp_path / "explorable").mkdir(exist_ok=True)
    return mutate(tmp_path / "explorable", spec, *EXPLORABLE[spec])


def mutate(tmp_path: Path, spec: Path, old: str, new: str) -> Path:
    text = spec.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"the edit must apply exactly once to {spec.name}: {old!r}"
    out = tmp_path / spec.name
    out.write_text(text.replace(old, new), encoding="utf-8")
    for included in spec.parent.glob("*.rwi"):  # the files the specs include, beside them
        shutil.copy(included, tmp_path / included.name)
    return out


def side(path: Path, name: str = ""):
    return (str(path), None, name or str(path))


@pytest.mark.parametrize("name, spec, old, new, kind", MUTANTS)
def test_each_missed_mutant_is_reported_with_a_replayed_play(tmp_path, name, spec, old, new, kind):
    spec = explorable(tmp_path, spec)
    mutant = mutate(tmp_path, spec, old, new)
    res = diff(side(spec), side(mutant))
    assert res.exit_code() == 1, name
    changes = [d for d in res.undeclared if d.kind == kind]
    assert changes, f"{name}: no {kind} difference among {[d.summary for d in res.differences]}"
    d = changes[0]
    assert d.trace and d.replay == CONFIRMED, (name, d.replay)
    assert d.old_trace is None or d.old_replay == CONFIRMED
    assert d.rules  # cited in the rules' vocabulary


@pytest.mark.parametrize("spec", [YUGIOH, pytest.param(RIFTBOUND, marks=pytest.mark.slow),
                                  pytest.param(WARHAMMER, marks=pytest.mark.slow)])
def test_a_spec_against_itself_has_no_difference(tmp_path, spec):
    spec = explorable(tmp_path, spec)
    # (Riftbound's two final-point instances at V=11 compare 29,260 states with themselves:
    # 22 s of CPU each while the comparison rebuilt its reverse map of observations at every
    # pair of state sets, which left them incomplete on a loaded machine; now a few seconds)
    res = diff(side(spec), side(spec))
    assert res.differences == [] and res.incomplete == [] and res.exit_code() == 0


def test_the_same_spec_under_another_name_and_with_moved_lines_has_no_difference(tmp_path):
    spec = explorable(tmp_path, YUGIOH)
    copy = tmp_path / "renamed.rw"
    copy.write_text("# a comment that moves every line\n\n" + spec.read_text(encoding="utf-8"), encoding="utf-8")
    assert diff(side(spec), side(copy)).differences == []



def test_variables_declared_in_another_order_have_no_difference(tmp_path):
    # the order of declarations is not behaviour: a variable moved (or a phase cycle declared
    # instead of a variable of the same name) observes the same states
    spec = explorable(tmp_path, YUGIOH)
    text = spec.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    i, j = [k for k, line in enumerate(lines) if line.startswith("var ")][:2]
    lines[i], lines[j] = lines[j], lines[i]
    copy = tmp_path / "moved.rw"
    copy.write_text("".join(lines), encoding="utf-8")
    assert diff(side(spec), side(copy)).differences == []

SMALL = """document { 1: "turns" 2: "attack" }
players 3
var turn [1]: player = P1
var hits [2]: 0..2 = 0
action attack(q: player) [2] progress when q != turn and hits < 2 and {guard} do
  hits := hits + 1;
end
action pass [1] progress when hits < 2 do
  turn := next(turn);
end
outcome done [2]: win player p when hits >= 2 and p == turn
"""


def small(tmp_path: Path, name: str, guard: str = "q == next(turn)", extra: str = "") -> Path:
    p = tmp_path / name
    p.write_text(SMALL.replace("{guard}", guard) + extra, encoding="utf-8")
    return p


def test_an_attack_that_became_legal_is_the_shortest_play_only_new_allows(tmp_path):
    old, new = small(tmp_path, "old.rw"), small(tmp_path, "new.rw", "true")
    res = diff(side(old), side(new))
    plays = [d for d in res.differences if d.kind == "play"]
    assert len(plays) == 1
    d = plays[0]
    assert d.side == "new" and [st.action for st in d.trace] == ["setup", "attack(q=P3)"]
    assert "OLD does not allow attack(q=P3)" in d.summary and d.rules == ("2",)
    assert d.replay == CONFIRMED


def test_a_changes_note_citing_the_rule_declares_the_change(tmp_path):
    old = small(tmp_path, "old.rw")
    new = small(tmp_path, "new.rw", "true", 'changes [2] "any opponent may be attacked now"\n')
    res = diff(side(old), side(new))
    assert res.exit_code() == 0 and res.differences
    assert all(d.declared_by.startswith("changes [2]") for d in res.differences if d.behaviour)


def test_a_changes_note_citing_another_rule_declares_nothing(tmp_path):
    old = small(tmp_path, "old.rw")
    new = small(tmp_path, "new.rw", "true", 'changes [1] "turns"\n')
    res = diff(side(old), side(new))
    assert res.exit_code() == 1
    assert res.unused_notes and "declares no difference" in res.unused_notes[0]


def test_an_accepted_differences_file_declares_exactly_its_fingerprints(tmp_path, capsys):
    old, new = small(tmp_path, "old.rw"), small(tmp_path, "new.rw", "true")
    assert main(["diff", str(old), str(new), "--output-format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    accept = tmp_path / "accepted.json"
    accept.write_text(json.dumps(doc["accept"]), encoding="utf-8")
    assert main(["diff", str(old), str(new), "--accept", str(accept)]) == 0
    out = capsys.readouterr().out
    assert "declared by: accepted in" in out and "result: the same behaviour" in out
    other = small(tmp_path, "other.rw", "q != next(turn)")  # another change: not accepted
    assert main(["diff", str(old), str(other), "--accept", str(accept)]) == 1


def test_a_malformed_accepted_differences_file_is_bad_input(tmp_path, capsys):
    old = small(tmp_path, "old.rw")
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2", encoding="utf-8")
    assert main(["diff", str(old), str(old), "--accept", str(bad)]) == 2
    assert "is not JSON" in capsys.readouterr().err


def test_an_accepted_differences_file_that_is_a_named_pipe_is_refused_without_blocking(tmp_path, capsys):
    old = small(tmp_path, "old.rw")
    pipe = tmp_path / "accept.json"
    os.mkfifo(pipe)
    assert main(["diff", str(old), str(old), "--accept", str(pipe)]) == 2
    assert "not a regular file (a named pipe)" in capsys.readouterr().err


def test_an_outcome_reachable_in_one_version_only_is_reported(tmp_path):
    old = small(tmp_path, "old.rw")
    new = tmp_path / "new.rw"
    new.write_text(old.read_text().replace("p == turn", "p == P1"), encoding="utf-8")
    res = diff(side(old), side(new))
    outcomes = {(d.side, d.summary) for d in res.differences if d.kind == "outcome"}
    assert ("old", "only OLD can end with: P2 wins") in outcomes
    assert all(d.replay == CONFIRMED for d in res.differences if d.kind == "outcome")


def test_findings_added_and_fixed_are_listed_but_do_not_fail_the_diff_by_themselves(tmp_path):
    old = small(tmp_path, "old.rw")
    new = small(tmp_path, "new.rw", extra="invariant few [2]: hits < 2\n")
    res = diff(side(old), side(new))
    kinds = [(d.kind, d.side, d.summary.split(":")[0]) for d in res.differences]
    assert kinds == [("finding", "new", "invariant added")]
    assert res.exit_code() == 0


def test_an_instance_only_one_version_has_is_a_difference(tmp_path):
    old = small(tmp_path, "old.rw")
    new = tmp_path / "new.rw"
    new.write_text(old.read_text().replace("players 3", "param N in 3..4\nplayers N"), encoding="utf-8")
    res = diff(side(old), side(new))
    assert {(d.kind, d.side) for d in res.differences} >= {("instance", "old"), ("instance", "new")}
    assert res.exit_code() == 1


def test_a_limit_hit_without_a_difference_is_incomplete(tmp_path):
    old = small(tmp_path, "old.rw")
    res = diff(side(old), side(old), Limits(max_states=3))
    assert res.differences == [] and res.incomplete and res.exit_code() == 3


def test_a_limit_hit_with_a_difference_still_reports_it(tmp_path):
    old, new = small(tmp_path, "old.rw"), small(tmp_path, "new.rw", "true")
    res = diff(side(old), side(new), Limits(max_states=4))
    assert res.incomplete and res.exit_code() == 1


def test_the_output_is_deterministic(tmp_path, capsys):
    old, new = small(tmp_path, "old.rw"), small(tmp_path, "new.rw", "true")
    outs = []
    for _ in range(2):
        main(["diff", str(old), str(new)])
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and "CHANGED play" in outs[0]


def test_a_bad_spec_on_either_side_is_bad_input(tmp_path, capsys):
    old = small(tmp_path, "old.rw")
    bad = tmp_path / "bad.rw"
    bad.write_text("players 2\naction a when nope do end\n", encoding="utf-8")
    assert main(["diff", str(old), str(bad)]) == 2
    assert "`nope` is not defined" in capsys.readouterr().out


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                   check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_git_revision_is_read_with_its_own_includes_only(tmp_path, capsys, monkeypatch):
    repo = tmp_path / "repo"
    (repo / "rules").mkdir(parents=True)
    _git(repo, "init", "-q")
    spec = repo / "rules" / "game.rw"
    spec.write_text(SMALL.replace("{guard}", "q == next(turn)").replace("players 3", 'include "size.rwi"'),
                    encoding="utf-8")
    (repo / "rules" / "size.rwi").write_text("players 3\n", encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "first")
    # the working tree changes the included file: the revision must still read its own copy
    (repo / "rules" / "size.rwi").write_text("players 4\n", encoding="utf-8")
    monkeypatch.chdir(repo)
    assert main(["diff", "HEAD:rules/game.rw", "HEAD:rules/game.rw"]) == 0
    capsys.readouterr()
    assert main(["diff", "HEAD:rules/game.rw", "rules/game.rw"]) == 1
    out = capsys.readouterr().out
    assert "diff HEAD:rules/game.rw -> rules/game.rw" in out and "only OLD has the instance" not in out
    assert "rulewright-rev-" not in out  # the temporary copy is never shown
    assert main(["diff", "HEAD:rules/nothing.rw", "rules/game.rw"]) == 2
    assert "not a file in that revision" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_revision_cannot_include_a_file_outside_its_folder(tmp_path, capsys, monkeypatch):
    repo = tmp_path / "repo"
    (repo / "rules").mkdir(parents=True)
    _git(repo, "init", "-q")
    (repo / "secret.rwi").write_text("players 3\n", encoding="utf-8")
    (repo / "rules" / "game.rw").write_text('include "../secret.rwi"\nvar x: 0..1 = 0\n', encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "first")
    monkeypatch.chdir(repo)
    assert main(["diff", "HEAD:rules/game.rw", "HEAD:rules/game.rw"]) == 2
    assert "../secret.rwi" in capsys.readouterr().out


def _hook_entry(hook_id: str) -> str:
    text = (Path(__file__).resolve().parent.parent / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    block = text.split(f"\n- id: {hook_id}\n", 1)[1].split("\n- id: ", 1)[0]
    entry = block.split("entry: ", 1)[1].split("\n", 1)[0]
    return entry


@pytest.mark.skipif(shutil.which("git") is None or shutil.which("sh") is None, reason="git and sh are needed")
def test_the_pre_commit_diff_hook_fails_on_an_undeclared_change_and_passes_a_declared_one(tmp_path):
    import shlex
    import sys
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    spec = repo / "game.rw"
    spec.write_text(SMALL.replace("{guard}", "q == next(turn)"), encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "first")
    bin_dir = Path(sys.executable).parent  # where the installed `rulewright` script is
    env = {**__import__("os").environ, "PATH": f"{bin_dir}:{__import__('os').environ.get('PATH', '')}"}
    hook = shlex.split(_hook_entry("rulewright-diff")) + ["game.rw", "new.rw"]
    (repo / "new.rw").write_text("players 2\n", encoding="utf-8")  # new in this commit: nothing to compare
    assert subprocess.run(hook, cwd=repo, env=env, capture_output=True).returncode == 0
    spec.write_text(SMALL.replace("{guard}", "true"), encoding="utf-8")
    assert subprocess.run(hook, cwd=repo, env=env, capture_output=True).returncode == 1
    spec.write_text(SMALL.replace("{guard}", "true") + 'changes [2] "any opponent"\n', encoding="utf-8")
    assert subprocess.run(hook, cwd=repo, env=env, capture_output=True).returncode == 0


# ---------------------------------------------------------------- include files in every workflow

RULES = "var x: 0..2 = 0\naction tick progress when x == 0 do x := {v}; end\noutcome o: draw when x == {v}\n"


def _repo_with_an_include(tmp_path) -> Path:
    """spec/a.rw includes spec/parts/mid.rwi, which includes spec/common.rwi; spec/b.rw includes
    nothing. Committed on main."""
    repo = tmp_path / "repo"
    (repo / "spec" / "parts").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    (repo / "spec" / "a.rw").write_text('players 2\ninclude "parts/mid.rwi"\n', encoding="utf-8")
    (repo / "spec" / "parts" / "mid.rwi").write_text('include "../common.rwi"\n', encoding="utf-8")
    (repo / "spec" / "common.rwi").write_text(RULES.format(v=1), encoding="utf-8")
    (repo / "spec" / "b.rw").write_text("players 2\nvar y: bool = false\naction t progress when not y do y := true; end\n"
                                        "outcome o: draw when y\n", encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "first")
    return repo


def _path_env() -> dict:
    import os
    import sys
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"}


@pytest.mark.skipif(shutil.which("git") is None or shutil.which("sh") is None, reason="git and sh are needed")
def test_the_pre_commit_hooks_check_and_diff_every_spec_including_a_staged_include_file(tmp_path):
    import re
    import shlex
    repo = _repo_with_an_include(tmp_path)
    text = (Path(__file__).resolve().parent.parent / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert [re.search(f, "spec/common.rwi") is not None for f in re.findall(r"files: (.*)", text)] == [True, True]
    env = _path_env()
    check = shlex.split(_hook_entry("rulewright-check")) + ["spec/common.rwi"]
    hook = shlex.split(_hook_entry("rulewright-diff")) + ["spec/common.rwi"]
    assert subprocess.run(hook, cwd=repo, env=env, capture_output=True).returncode == 0
    (repo / "spec" / "common.rwi").write_text(RULES.format(v=2), encoding="utf-8")  # a.rw's behaviour changes
    r = subprocess.run(hook, cwd=repo, env=env, capture_output=True, text=True)
    assert r.returncode == 1 and "behaviour changed" in r.stdout
    (repo / "spec" / "common.rwi").write_text(RULES.format(v=2).replace(";", ""), encoding="utf-8")  # breaks a.rw
    r = subprocess.run(check, cwd=repo, env=env, capture_output=True, text=True)
    out = r.stdout + r.stderr
    assert r.returncode == 2 and "common.rwi:2:" in out and "error[E001]" in out, out


@pytest.mark.skipif(shutil.which("git") is None or shutil.which("bash") is None, reason="git and bash are needed")
def test_the_example_workflow_diffs_the_specs_whose_include_files_a_pull_request_changes(tmp_path):
    yaml = pytest.importorskip("yaml")
    workflow = yaml.safe_load((Path(__file__).resolve().parent.parent / "docs/ci/github-workflow.yml").read_text())
    steps = workflow["jobs"]["rulewright"]["steps"]
    (script,) = [s["run"] for s in steps if "rulewright diff" in s.get("run", "")]
    repo = _repo_with_an_include(tmp_path)
    _git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    _git(repo, "checkout", "-q", "-b", "change")
    (repo / "spec" / "common.rwi").write_text(RULES.format(v=2), encoding="utf-8")
    _git(repo, "commit", "-q", "-am", "only the include file changes")
    env = {**_path_env(), "RUNNER_TEMP": str(tmp_path), **workflow["jobs"]["rulewright"]["env"]}
    r = subprocess.run(["bash", "-e", "-c", script], cwd=repo, env=env, capture_output=True, text=True)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "::group::rulewright diff origin/main:spec/a.rw spec/a.rw" in r.stdout and "spec/b.rw" not in r.stdout


def test_the_example_workflow_installs_rulewright_from_its_repository_not_the_package_index():
    text = (Path(__file__).resolve().parent.parent / "docs/ci/github-workflow.yml").read_text(encoding="utf-8")
    installs = [line.split("run:", 1)[1].strip() for line in text.splitlines() if "pip install" in line and "run:" in line]
    assert installs == ['pip install "git+https://github.com/OWNER/REPO@REV"']


def test_notes_citing_every_edited_declaration_declare_what_the_edits_cause(tmp_path):
    # the edit is in a `let` tagged [3]; the attack it enables cites rule 2 only
    base = SMALL.replace('document { 1: "turns" 2: "attack" }', 'document { 1: "turns" 2: "attack" 3: "range" }')
    base = base.replace("players 3\n", "players 3\nlet reach(a: player, q: player) [3] = q == next(a)\n")
    old = tmp_path / "old.rw"
    old.write_text(base.replace("{guard}", "reach(turn, q)"), encoding="utf-8")
    edited = base.replace("[3] = q == next(a)", "[3] = true").replace("{guard}", "reach(turn, q)")
    new = tmp_path / "new.rw"
    new.write_text(edited, encoding="utf-8")
    res = diff(side(old), side(new))
    assert res.exit_code() == 1 and "3" not in res.undeclared[0].rules
    new.write_text(edited + 'changes [3] "any opponent is in reach"\n', encoding="utf-8")
    res = diff(side(old), side(new))
    assert res.exit_code() == 0 and res.unused_notes == []
    assert all("cite every declaration it edits" in d.declared_by for d in res.differences if d.behaviour)
    # a second, undeclared edit: the note no longer covers every edit
    new.write_text(edited.replace("hits < 2 do\n  turn", "hits < 3 do\n  turn") + 'changes [3] "reach"\n', encoding="utf-8")
    assert diff(side(old), side(new)).exit_code() == 1


KNOCK_OUT = """document { 1: "turns" 2: "knock out" }
players 3
var turn [1]: player = P1
var knocked [2]: bool = false
action knock [2] progress when not knocked do knocked := true; end
action pass [1] progress do turn := next_in_game(turn); end
outcome out [2]: {kind} player p when knocked and p == P3
"""


def test_a_loss_turned_into_a_draw_for_one_player_is_a_change_of_behaviour(tmp_path):
    # P3 is out of the game in both versions and the game goes on: only why P3 is out differs
    old, new = tmp_path / "lose.rw", tmp_path / "draw.rw"
    old.write_text(KNOCK_OUT.replace("{kind}", "lose"), encoding="utf-8")
    new.write_text(KNOCK_OUT.replace("{kind}", "draw"), encoding="utf-8")
    res = diff(side(old), side(new))
    plays = [d for d in res.differences if d.kind == "play"]
    assert len(plays) == 1 and res.exit_code() == 1
    assert plays[0].summary == "after setup, knock leads to drew = {} in OLD but to drew = {P3} in NEW"
    assert [st.action for st in plays[0].trace] == ["setup", "knock"] and plays[0].replay == CONFIRMED


def test_a_reason_only_one_version_can_give_but_never_gives_is_no_difference(tmp_path):
    # NEW can give a draw to some players (a rule that never applies); OLD cannot: nobody is
    # out for a draw in either, which is the same observation
    old, new = tmp_path / "a.rw", tmp_path / "b.rw"
    old.write_text(KNOCK_OUT.replace("{kind}", "lose"), encoding="utf-8")
    new.write_text(KNOCK_OUT.replace("{kind}", "lose") + "outcome never [2]: draw player p when false\n",
                   encoding="utf-8")
    res = diff(side(old), side(new))
    assert [d for d in res.differences if d.kind in BEHAVIOUR] == []


# ---------------------------------------------------------------- versions without a setup

# the deck choices are left to Z3 (no play reads them); with MOST = 2 no deck choice fits
DECKS = """document { 1: "decks" 2: "turns" 3: "deck minimum" }
players 2
choice copies(p: player) [1]: 0..4
constraint at_most [1]: sum(p in players: copies[p]) <= {most}
constraint at_least [{least_rule}]: forall p in players: copies[p] >= 2
var hits [2]: 0..3 = 0
action hit [2] progress when hits < 3 do hits := hits + 1; end
outcome done [2]: win player p when hits >= {win} and p == P1
"""


def decks(tmp_path: Path, name: str, most: int = 2, win: int = 3, least_rule: str = "1") -> Path:
    p = tmp_path / name
    p.write_text(DECKS.replace("{most}", str(most)).replace("{win}", str(win)).replace("{least_rule}", least_rule),
                 encoding="utf-8")
    return p


def test_an_edit_beside_a_contradiction_compares_the_contradictions_not_plays_of_no_setup(tmp_path, capsys):
    # neither version has a setup: its games are nobody's, and no play of them is compared
    old, new = decks(tmp_path, "old.rw"), decks(tmp_path, "new.rw", win=2)
    res = diff(side(old), side(new))
    assert res.exit_code() == 0 and res.disagreements == [] and res.incomplete == []
    assert [d for d in res.differences if d.behaviour] == []
    assert res.same_contradictions == [("", "no setup satisfies all of: `at_least`; `at_most`")]
    assert main(["diff", str(old), str(new)]) == 0
    out = capsys.readouterr().out
    assert "contradiction unchanged: no setup satisfies all of: `at_least`; `at_most`" in out
    assert "Z3 replay" not in out


def test_a_contradiction_of_other_rules_is_a_contradiction_difference_not_a_behaviour_change(tmp_path):
    old, new = decks(tmp_path, "old.rw"), decks(tmp_path, "new.rw", least_rule="3")
    res = diff(side(old), side(new))
    (d,) = [d for d in res.differences if d.kind == "contradiction"]
    assert d.side == "both" and not d.behaviour and set(d.rules) == {"1", "3"}
    assert d.summary.startswith("contradiction changed: OLD: no setup satisfies all of:")
    assert res.exit_code() == 0


def test_a_version_that_lost_every_setup_differs_at_the_setup_citing_the_conflicting_rules(tmp_path):
    old, new = decks(tmp_path, "old.rw", most=4), decks(tmp_path, "new.rw", most=2)
    res = diff(side(old), side(new))
    assert res.exit_code() == 1 and res.disagreements == []
    (d,) = [d for d in res.differences if d.behaviour]  # the setup says it all: no outcome differences besides
    assert d.kind == "setup" and d.side == "old" and "NEW admits no setup" in d.summary
    assert "1" in d.rules and d.replay == CONFIRMED


@pytest.mark.slow
def test_the_riftbound_victory_score_edit_is_a_change_of_behaviour_beside_its_reviewed_contradictions(tmp_path):
    # issue 20: `>=` to `>` in victory_score used to end in 14 replays FAILED (exit 4), from the
    # games of battlefield readings that have no setup
    mutant = mutate(tmp_path, RIFTBOUND, "points[t] >= V", "points[t] > V")
    res = diff(side(RIFTBOUND), side(mutant))
    assert res.exit_code() == 1 and res.disagreements == [] and res.incomplete == []
    assert not any(r is not None and r.failed for d in res.differences for r in (d.replay, d.old_replay))
    assert any(d.kind == "outcome" and d.side == "old" and "A and A1 and A2 win" in d.summary for d in res.undeclared)
    unchanged = {label.split(" | V=")[0] for label, _ in res.same_contradictions}
    assert unchanged == {"battlefields | reading provided_to_game", "battlefields | reading deck_holds_one"}


# ---------------------------------------------------------------- one budget for the whole diff

def test_the_two_checks_and_the_comparison_share_the_diffs_time_limit(tmp_path, monkeypatch):
    from checker import diff as diff_module
    given, parts = [], []
    real_check, real_compare = diff_module.check_spec, diff_module.compare_graphs

    def check(paths, limits, *args):
        given.append(limits.max_seconds)
        return real_check(paths, limits, *args)

    def compare(a, b, limits, replay, budget, *rest):
        parts.append(budget.start + budget.seconds)  # where its CPU time runs out
        return real_compare(a, b, limits, replay, budget, *rest)
    monkeypatch.setattr(diff_module, "check_spec", check)
    monkeypatch.setattr(diff_module, "compare_graphs", compare)
    old, new = small(tmp_path, "old.rw"), small(tmp_path, "new.rw", "true")
    from checker.limits import cpu_seconds
    start = cpu_seconds()  # the limits are CPU time of this thread, where both versions are checked
    res = diff(side(old), side(new), Limits(max_seconds=50))
    assert res.exit_code() == 1
    assert given[0] == 20 and given[1] <= 50 * 2 / 3  # each version 40%, NEW also what OLD left of its own
    assert parts and all(deadline <= start + 50 + 0.5 for deadline in parts)  # (the diff started after `start`)


def test_the_time_limit_is_said_as_each_versions_part_of_the_diffs(tmp_path):
    # 200 players: one state takes longer than the whole diff may
    text = "players 200\nvar turn: player = P1\nvar life(p: player): 0..2 = 2\n" \
           "action hit(p: player, q: player) progress when p == turn and q != p and in_game(q) do\n" \
           "  life[q] := life[q] - 1;\n  turn := next_in_game(turn);\nend\n" \
           "outcome dead: lose player p when life[p] <= 0\n"
    old = tmp_path / "old.rw"
    old.write_text(text, encoding="utf-8")
    res = diff(side(old), side(old), Limits(max_seconds=2, max_wall_seconds=600))  # the CPU limit, even under load
    assert res.exit_code() == 3 and res.differences == []
    assert any(line.startswith("OLD: ") and "OLD's part (0.8s) of the diff's time limit of 2s" in line
               for line in res.incomplete), res.incomplete
    assert any(line.startswith("NEW: ") for line in res.incomplete)


def test_an_instance_one_version_did_not_check_is_not_compared_and_not_missing(tmp_path, monkeypatch):
    from checker import runner
    old = tmp_path / "old.rw"
    old.write_text(SMALL.replace("players 3", "param N in 3..4\nplayers N").replace("{guard}", "true"), encoding="utf-8")
    real = runner.Shares.next
    runs = []

    def next_share(self, waiting, running=0):  # NEW's run (the second) has no time for its second instance
        if waiting == 2:
            runs.append(self)
        return None if len(runs) == 2 and waiting == 1 and self is runs[1] else real(self, waiting, running)
    monkeypatch.setattr(runner.Shares, "next", next_share)
    res = diff(side(old), side(old))
    assert [d for d in res.differences if d.kind == "instance"] == []
    assert "N=4: not compared: NEW did not check it" in res.incomplete
    assert res.compared == 1 and res.exit_code() == 3


def test_an_instance_whose_choices_z3_could_not_decide_is_not_compared(tmp_path, monkeypatch):
    from checker.symbolic import setup
    monkeypatch.setattr(setup, "contradiction", lambda inst, ms=0: ("unknown", "timeout"))
    old, new = decks(tmp_path, "old.rw"), decks(tmp_path, "new.rw", win=2)
    res = diff(side(old), side(new))
    assert res.exit_code() == 3 and res.disagreements == [] and res.differences == []
    assert "not compared: Z3 could not tell whether OLD has a setup at all (its time ran out (timeout" \
        in "; ".join(res.incomplete)


def test_findings_of_a_model_a_version_did_not_see_whole_are_neither_added_nor_fixed(tmp_path):
    # NEW's ten initial states use up the state limit before the invariant breaks: that
    # it found no invariant does not mean it is fixed
    old = small(tmp_path, "old.rw", extra="invariant few [2]: hits < 2\n")
    new = small(tmp_path, "new.rw", extra="invariant few [2]: hits < 2\nvar noise [1]: 0..9 = any\n")
    res = diff(side(old), side(new), Limits(max_states=12))
    assert any(f.kind == "invariant" for f in res.old_check.findings)
    assert not any(f.kind == "invariant" for f in res.new_check.findings)
    assert [d for d in res.differences if d.kind == "finding"] == []
    assert res.exit_code() == 3


# ---------------------------------------------------------------- notes the old version already has

NOTE = 'changes [2] "turns and attacks follow rule 2 now"\n'


def test_a_changes_note_the_old_version_already_has_declares_nothing(tmp_path, capsys):
    # issue 21: the note of an accepted change stayed and declared every later change of rule 2
    base = SMALL.replace("action pass [1]", "action pass [2]").replace("{guard}", "true") + NOTE
    old, new = tmp_path / "old.rw", tmp_path / "new.rw"
    old.write_text(base, encoding="utf-8")
    new.write_text(base.replace("turn := next(turn);", "turn := right(turn, 1);"), encoding="utf-8")  # a new turn order
    res = diff(side(old), side(new))
    assert res.exit_code() == 1 and res.undeclared and all("2" in d.rules for d in res.undeclared)
    assert res.unused_notes == []
    (stale,) = res.stale_notes
    assert stale == (f'`changes [2] "turns and attacks follow rule 2 now"` at {new}:12:1 was already in the old '
                     "version: it declares nothing; remove it once its change is accepted")
    for fmt in ("text", "json"):
        assert main(["diff", str(old), str(new), "--output-format", fmt]) == 1
        assert "was already in the old version: it declares nothing" in capsys.readouterr().out


def test_a_moved_note_with_its_rules_in_another_order_is_still_the_old_versions(tmp_path):
    base = SMALL.replace("{guard}", "true")
    old, new = tmp_path / "old.rw", tmp_path / "new.rw"
    old.write_text(base + 'changes [1, 2] "any opponent"\n', encoding="utf-8")
    new.write_text('changes [2, 1] "any  opponent"\n' + base.replace("players 3", "players 3\n\n")
                   .replace("turn := next(turn);", "turn := right(turn, 1);"), encoding="utf-8")
    res = diff(side(old), side(new))
    assert res.exit_code() == 1 and len(res.stale_notes) == 1


def test_a_note_with_a_new_text_declares_the_new_change(tmp_path):
    base = SMALL.replace("action pass [1]", "action pass [2]").replace("{guard}", "true")
    old, new = tmp_path / "old.rw", tmp_path / "new.rw"
    old.write_text(base + NOTE, encoding="utf-8")
    new.write_text(base.replace("turn := next(turn);", "turn := right(turn, 1);") + NOTE
                   + 'changes [2] "turns pass to the right"\n', encoding="utf-8")
    res = diff(side(old), side(new))
    assert res.exit_code() == 0 and len(res.stale_notes) == 1
    assert all(d.declared_by.startswith("changes [2] at") and ":13:1" in d.declared_by
               for d in res.differences if d.behaviour)


# ---------------------------------------------------------------- findings matched by fingerprint

BOUNTY = """document { 1: "turns" 2: "attack" 3: "bounty" }
players 3
var turn [1]: player = P1
var life(p: player) [2]: 0..2 = 2
var attacks [2]: 0..2 = 0
var bounties: 0..3 = 0
action attack(q: player) [{tags}] progress when attacks < 2 and in_game(turn) and q != turn and in_game(q) do
  life[q] := life[q] - 1;
  attacks := attacks + 1;
{in_action}  turn := next_in_game(turn);
end
outcome eliminated [2]: lose player p when life[p] == 0
{trigger}"""
IN_ACTION = BOUNTY.replace("{tags}", "2, 3").replace("{trigger}", "") \
    .replace("{in_action}", "  if life[q] == 0 then bounties := bounties + 1; end\n")
IN_TRIGGER = BOUNTY.replace("{tags}", "2").replace("{in_action}", "") \
    .replace("{trigger}", "trigger bounty [3] on lose player p do\n  bounties := bounties + 1;\nend\n")


def test_a_finding_whose_tags_moved_into_a_trigger_is_the_same_finding_citing_other_rules(tmp_path, monkeypatch):
    old, new = tmp_path / "old.rw", tmp_path / "new.rw"
    old.write_text(IN_ACTION, encoding="utf-8")
    new.write_text(IN_TRIGGER, encoding="utf-8")
    res = diff(side(old), side(new))
    assert [d for d in res.differences if d.behaviour] == [] and res.exit_code() == 0
    (d,) = [d for d in res.differences if d.kind == "finding"]  # not "fixed" and "added"
    assert d.side == "both" and d.identity[0] == "recited"
    assert d.summary == "deadlock: same finding, now cites 2 (cited 2, 3)"
    assert [f.rules for f in d.findings] == [("2", "3"), ("2",)]


def test_findings_are_matched_by_fingerprint_whatever_the_files_are_called(tmp_path, monkeypatch):
    old, new = tmp_path / "old.rw", tmp_path / "renamed.rw"
    old.write_text(IN_ACTION, encoding="utf-8")
    new.write_text("# moved down a line\n" + IN_ACTION, encoding="utf-8")
    assert diff(side(old), side(new)).differences == []


# ---------------------------------------------------------------- values encoded another way

NUMBERS = """document { 1: "phases" 2: "choose" }
players 2
let draft = 0
let play = 1
let done = 2
var phase [1]: 0..2 = draft
var turn [1]: player = P1
var picked(p: player) [2]: 0..2 = 0
var ready [2]: 0..1 = 0
action pick(k: 0..2) [2] progress when phase == draft do
  picked[turn] := k;
  ready := 1;
  turn := next(turn);
  if turn == P1 then phase := play; end
end
action finish_game [1] progress when phase == play and ready == 1 do
  phase := done;
end
outcome over [1]: win player p when phase == done and picked[p] == 2 and picked[next(p)] != 2
outcome tie [1]: draw when phase == done and (picked[P1] == 2) == (picked[P2] == 2)
"""
ENUMERATION = """document { 1: "phases" 2: "choose" }
players 2
var phase [1]: {PHASES} = draft
var turn [1]: player = P1
var picked(p: player) [2]: {low, mid, high} = low
var ready [2]: bool = false
action pick(k: {low, mid, high}) [2] progress when phase == draft do
  picked[turn] := k;
  ready := true;
  turn := next(turn);
  if turn == P1 then phase := AFTER_PICKS; end
end
action finish_game [1] progress when phase == play and ready do
  phase := done;
end
outcome over [1]: win player p when phase == done and picked[p] == high and picked[next(p)] != high
outcome tie [1]: draw when phase == done and (picked[P1] == high) == (picked[P2] == high)
"""


def encoded(tmp_path: Path, phases: str = "{draft, play, done}", after_picks: str = "play") -> tuple[Path, Path]:
    old, new = tmp_path / "numbers.rw", tmp_path / "enumeration.rw"
    old.write_text(NUMBERS, encoding="utf-8")
    new.write_text(ENUMERATION.replace("{PHASES}", phases).replace("AFTER_PICKS", after_picks), encoding="utf-8")
    return old, new


def test_numbers_named_by_lets_and_an_enumeration_of_the_same_values_are_the_same_behaviour(tmp_path):
    # issue 21: `0..2` plus lets against `{draft, play, done}`, `0..1` against bool, an action
    # parameter `0..2` against `{low, mid, high}` read as behaviour changes
    old, new = encoded(tmp_path)
    res = diff(side(old), side(new))
    assert [d.summary for d in res.differences] == [] and res.exit_code() == 0


def test_an_enumeration_in_another_order_pairs_with_the_numbers_by_the_lets_names(tmp_path):
    old, new = encoded(tmp_path, phases="{play, done, draft}")
    assert diff(side(old), side(new)).differences == []


def test_a_real_difference_still_shows_through_another_encoding(tmp_path):
    old, new = encoded(tmp_path, after_picks="done")  # the picks skip the play phase
    res = diff(side(old), side(new))
    (d,) = [d for d in res.differences if d.behaviour and d.kind == "play"]
    assert d.side == "both" and res.exit_code() == 1 and d.replay == CONFIRMED and d.old_replay == CONFIRMED
    assert d.summary.startswith("after setup; pick(k=high), pick(k=high) leads to ")  # OLD's pick(k=2), in NEW's words
    assert "phase = play in OLD but to " in d.summary and "phase = done in NEW" in d.summary
    assert [st.action for st in d.old_trace] == ["setup", "pick(k=2)", "pick(k=2)"]  # each play in its own words


def test_an_enumeration_of_another_size_is_not_paired_with_the_numbers(tmp_path):
    old, new = encoded(tmp_path, phases="{draft, play, done, scored}")
    res = diff(side(old), side(new))
    assert any(d.kind == "setup" for d in res.undeclared)  # phase = 0 against phase = draft: not the same value


# ---------------------------------------------------------------- every difference of an instance

def two_changes(tmp_path: Path) -> tuple[Path, Path]:
    # turns pass the other way, and a second attack may go to any opponent
    old = small(tmp_path, "old.rw")
    new = small(tmp_path, "new.rw", "(q == next(turn) or hits == 1)")
    new.write_text(new.read_text(encoding="utf-8").replace("turn := next(turn);", "turn := right(turn, 1);"),
                   encoding="utf-8")
    return old, new


def test_by_default_only_the_first_difference_of_each_version_is_reported(tmp_path):
    old, new = two_changes(tmp_path)
    assert [d.summary for d in diff(side(old), side(new)).differences if d.behaviour] == [
        "after setup, pass leads to turn = P2 in OLD but to turn = P3 in NEW"]


def test_all_differences_reports_each_distinct_difference_with_its_own_replayed_play(tmp_path):
    old, new = two_changes(tmp_path)
    runs = [diff(side(old), side(new), every=20) for _ in range(2)]
    plays = [d for d in runs[0].differences if d.behaviour]
    assert [d.summary for d in plays] == [
        "after setup, pass leads to turn = P2 in OLD but to turn = P3 in NEW",
        "after setup; attack(q=P2), NEW allows attack(q=P3); OLD does not allow attack(q=P3) there"]
    assert [st.action for st in plays[1].trace] == ["setup", "attack(q=P2)", "attack(q=P3)"]
    assert all(d.replay == CONFIRMED for d in plays) and runs[0].more == []
    assert [d.summary for d in runs[1].differences] == [d.summary for d in runs[0].differences]  # deterministic


def test_all_differences_past_the_cap_are_counted(tmp_path, capsys):
    old, new = two_changes(tmp_path)
    res = diff(side(old), side(new), every=1)
    assert len([d for d in res.differences if d.behaviour]) == 1 and res.more == [("", 1)]
    assert main(["diff", str(old), str(new), "--all-differences", "1"]) == 1
    assert "... and 1 more distinct difference(s) in the model (past the cap of 1" in capsys.readouterr().out
    assert main(["diff", str(old), str(new), "--all-differences", "1", "--output-format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["more_differences"] == [{"in": "the model", "count": 1}]
    with pytest.raises(SystemExit) as stop:  # a cap of at least one
        main(["diff", str(old), str(new), "--all-differences", "0"])
    assert stop.value.code == 2
    assert "expected a whole number of at least 1" in capsys.readouterr().err


INDEXED = """players 2
var score(k: 0..2): 0..3 = 0
var turn: player = P1
action add(k: 0..2) progress when score[k] < 3 do score[k] := score[k] + 1; turn := next(turn); end
outcome o: draw when score[2] == 3
"""


def test_an_index_encoded_another_way_pairs_its_keys(tmp_path):
    old, new, edited = tmp_path / "old.rw", tmp_path / "new.rw", tmp_path / "edited.rw"
    old.write_text(INDEXED, encoding="utf-8")
    enum = INDEXED.replace("(k: 0..2)", "(k: {a, b, c})").replace("score[2]", "score[c]")
    new.write_text(enum, encoding="utf-8")
    edited.write_text(enum.replace("score[c] == 3", "score[b] == 3"), encoding="utf-8")
    assert diff(side(old), side(new)).differences == []
    res = diff(side(old), side(edited))
    assert [d.summary for d in res.undeclared] == [
        "after setup; add(k=b); add(k=b), add(k=b) leads to game = running in OLD but to game = ended: "
        "the game is a draw in NEW"]


MARKS_AS_A_SET = """players 3
var turn: player = P1
var marked: set player = {}
action mark(q: player) progress when q not in marked do marked := marked + {q}; turn := next(turn); end
outcome o: win player p when size(marked) == 3 and p == turn
"""
MARKS_PER_PLAYER = """players 3
var turn: player = P1
var marked(p: player): bool = false
action mark(q: player) progress when not marked[q] do marked[q] := true;{EXTRA} turn := next(turn); end
outcome o: win player p when marked[P1] and marked[P2] and marked[P3] and p == turn
"""


def test_a_set_of_players_and_a_boolean_per_player_are_the_same_values(tmp_path):
    as_set, per_player, edited = tmp_path / "set.rw", tmp_path / "per_player.rw", tmp_path / "edited.rw"
    as_set.write_text(MARKS_AS_A_SET, encoding="utf-8")
    per_player.write_text(MARKS_PER_PLAYER.replace("{EXTRA}", ""), encoding="utf-8")
    edited.write_text(MARKS_PER_PLAYER.replace("{EXTRA}", " marked[P1] := true;"), encoding="utf-8")
    assert diff(side(as_set), side(per_player)).differences == []
    assert diff(side(per_player), side(as_set)).differences == []
    res = diff(side(as_set), side(edited))
    assert "after setup, mark(q=P2) leads to marked = {P1: false, P2: true, P3: false} in OLD but to " \
           "marked = {P1: true, P2: true, P3: false} in NEW" in [d.summary for d in res.undeclared]


def test_each_instance_is_given_time_to_compare_in_proportion_to_its_states():
    # with equal parts, a 29,000-state instance followed by light ones got no more than each of
    # them, and on a loaded machine said "incomplete" while they left theirs unused
    from checker.diff import _time_share
    assert _time_share(100.0, [30_000, 40, 40], 0) > 99.0
    # a light one keeps at least an equal part of what is left (its replay by Z3 costs the same)
    assert _time_share(100.0, [40, 30_000, 40], 0) == pytest.approx(100.0 / 3)
    assert _time_share(100.0, [40, 30_000, 40], 1) > 99.0
    # an instance compared in neither version takes nothing, and counts in nobody's part
    assert _time_share(100.0, [0, 40, 40], 0) == 0.0
    assert _time_share(100.0, [40, 0, 40], 0) == pytest.approx(50.0)
    assert _time_share(100.0, [40, 0, 40], 2) == pytest.approx(100.0)
