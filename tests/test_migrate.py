"""`rulewright migrate`: reviewed specs brought up to this version of the language.

A spec nobody edited breaks in three mechanical ways when the language changes: a name becomes
a reserved word, a reviewed finding now cites other rules than its `expect [rules]` lists, or
a finding of the games of a setup that cannot exist is no longer reported.
migrate proposes the repair as a diff, writes it only with --write, only inside the spec's tree,
and a second run has nothing left to do.
"""
import re
from pathlib import Path

import pytest

from checker.cli import main
from checker.migrate import reserved_words

ROOT = Path(__file__).resolve().parent.parent
DEADLOCK = ROOT / "tests" / "fixtures" / "deadlock" / "defect.rw"
FAST = ["--no-replay", "--jobs", "1", "--max-seconds", "60"]


@pytest.fixture(autouse=True)
def _no_config(monkeypatch):
    monkeypatch.setenv("RULEWRIGHT_NO_CONFIG", "1")


def migrate(capsys, *args) -> tuple[int, str, str]:
    code = main(["migrate", *map(str, args), *FAST])
    out, err = capsys.readouterr()
    return code, out, err


def check(capsys, path) -> tuple[int, str]:
    code = main(["check", str(path), *FAST])
    return code, capsys.readouterr().out


# The deadlock fixture's one finding cites [117.3d]; this expectation was reviewed when it also
# cited the active rule 102.1, and under an older fingerprint. Comment and layout must survive.
OLD_EXPECT = ('expect deadlock [102.1,   117.3d] 354 states   fingerprint "000000000000" '
              '"priority to an empty seat; see notes"  # reviewed in 2025\n')
NEW_EXPECT = ('expect deadlock [117.3d] 354 states   fingerprint "{fp}" '
              '"priority to an empty seat; see notes"  # reviewed in 2025\n')


def old_deadlock_spec(tmp_path: Path) -> Path:
    spec = tmp_path / "priority.rw"
    spec.write_text(DEADLOCK.read_text(encoding="utf-8") + "\n" + OLD_EXPECT, encoding="utf-8")
    return spec


def test_an_expect_of_an_older_rule_set_is_rewritten_and_the_spec_then_checks_clean(tmp_path, capsys):
    spec = old_deadlock_spec(tmp_path)
    code, out = check(capsys, spec)
    assert code == 1 and "changed since it was reviewed" in out
    fp = re.search(r'fingerprint: ([0-9a-f]{12})', out).group(1)

    code, out, err = migrate(capsys, spec, "--write")
    assert code == 1
    assert f"-{OLD_EXPECT}" in out and "+" + NEW_EXPECT.format(fp=fp) in out
    assert "priority.rw:" in err and "now [117.3d]" in err
    assert spec.read_text(encoding="utf-8").endswith(NEW_EXPECT.format(fp=fp))
    assert spec.read_text(encoding="utf-8").startswith(DEADLOCK.read_text(encoding="utf-8"))

    code, out = check(capsys, spec)
    assert code == 0, out
    assert "1 reviewed" in out


def test_nothing_is_written_without_write(tmp_path, capsys):
    spec = old_deadlock_spec(tmp_path)
    before = spec.read_bytes()
    code, out, err = migrate(capsys, spec)
    assert code == 1
    assert out.startswith(f"--- {spec}\n+++ {spec}\n")
    assert "--write writes them" in err
    assert spec.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["priority.rw"]  # no temporary file left either


def test_migrating_twice_changes_nothing_the_second_time(tmp_path, capsys):
    spec = old_deadlock_spec(tmp_path)
    assert migrate(capsys, spec, "--write")[0] == 1
    once = spec.read_bytes()
    code, out, err = migrate(capsys, spec, "--write")
    assert (code, out) == (0, "")
    assert spec.read_bytes() == once


def test_an_expect_whose_finding_grew_is_a_change_to_review_not_to_rewrite(tmp_path, capsys):
    spec = tmp_path / "priority.rw"
    spec.write_text(DEADLOCK.read_text(encoding="utf-8") + '\nexpect deadlock [102.1, 117.3d] 10 states "old"\n',
                    encoding="utf-8")
    code, out, err = migrate(capsys, spec)
    assert (code, out) == (0, "")
    assert "not rewritten" in err and "354 states where 10 were reviewed" in err


def test_an_expect_of_a_model_not_checked_to_its_end_is_left_alone_and_says_why(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RULEWRIGHT_ENGINE", "explicit")  # (auto may decide the model in full beyond the limit)
    spec = old_deadlock_spec(tmp_path)
    before = spec.read_bytes()
    code = main(["migrate", str(spec), "--no-replay", "--jobs", "1", "--max-states", "50"])
    out, err = capsys.readouterr()
    assert (code, out) == (3, "")
    assert "not rewritten" in err and "not checked to its end" in err
    assert spec.read_bytes() == before


# ---------------------------------------------------------------- reserved words

SHARED = """\
# `phases` here is a word of a comment, and stays
var phases [1]: bool = false
"""
MAIN = """\
spec "Reserved" formalizes "r.txt"
document {
  1: "The game is over when a player says so."
}
players [1] 2
include "shared.rwi"
var phases_ [1]: 0..1 = 0
action stop(p: player) [1] when not phases do
  phases := true;
  phases_ := 1;
end
outcome said [1]: win player p when phases and p == P1
outcome other [1]: lose player p when phases and p != P1
"""


def test_a_name_that_became_reserved_is_renamed_where_declared_and_used_in_every_file(tmp_path, capsys):
    (tmp_path / "shared.rwi").write_text(SHARED, encoding="utf-8")
    spec = tmp_path / "game.rw"
    spec.write_text(MAIN, encoding="utf-8")
    code, out = check(capsys, spec)
    assert code == 2  # `phases` is a keyword of the language

    code, out, err = migrate(capsys, spec, "--write")
    assert code == 1
    assert "`phases` is a reserved word: renamed to `phases_2`" in err  # phases_ is taken
    assert (tmp_path / "shared.rwi").read_text(encoding="utf-8") == SHARED.replace("var phases ", "var phases_2 ")
    assert spec.read_text(encoding="utf-8") == (
        MAIN.replace("not phases do", "not phases_2 do").replace("  phases :=", "  phases_2 :=")
            .replace("when phases and", "when phases_2 and"))  # the document's quoted text keeps its "over"
    code, out = check(capsys, spec)
    assert code in (0, 1) and "error[E" not in out  # it parses and resolves: its findings are its own
    assert migrate(capsys, spec)[:2] == (0, "")


STATEMENT = """\
spec "Reserved" formalizes "r.txt"
document {
  1: "Each player draws; the game is over at three draws."
}
players [1] 2
var draw [1]: 0..3 = 0
var one [1]: bool = false
action take(p: player) [1] when draw < 3 do
  draw := draw + 1;  # draw, the counter
  one := draw == 1;
end
outcome said [1]: win player p when draw == 3 and p == P1
"""


def test_a_name_that_reads_as_a_keyword_statement_is_renamed_too(tmp_path, capsys):
    # `draw := ...` starts like the statement `draw x;`: the parse fails at `:=`, not at `draw`;
    # `one`, a soft keyword (docs/language.md), is a name where a name may stand, and stays
    spec = tmp_path / "draws.rw"
    spec.write_text(STATEMENT, encoding="utf-8")
    assert main(["check", str(spec), *FAST]) == 2
    assert "missing semicolon" in capsys.readouterr().out  # E001 at `:=`, in the report
    code, out, err = migrate(capsys, spec, "--write")
    assert code == 1
    assert "`draw` is a reserved word: renamed to `draw_` (6 places in this file)" in err
    assert "`one`" not in err
    text = spec.read_text(encoding="utf-8")
    assert "  draw_ := draw_ + 1;  # draw, the counter\n  one := draw_ == 1;\n" in text
    assert '"Each player draws; the game is over at three draws."' in text
    assert check(capsys, spec)[0] in (0, 1)


def test_an_include_outside_the_spec_tree_is_refused_and_nothing_is_written(tmp_path, capsys):
    outside = tmp_path / "shared.rwi"
    outside.write_text(SHARED, encoding="utf-8")
    tree = tmp_path / "tree"
    tree.mkdir()
    spec = tree / "game.rw"
    spec.write_text(MAIN.replace('include "shared.rwi"', 'include "../shared.rwi"'), encoding="utf-8")
    before = spec.read_bytes()
    code, out, err = migrate(capsys, spec, "--write")
    assert (code, out) == (2, "")
    assert "leads outside the folder tree" in err and "nothing migrated" in err
    assert outside.read_text(encoding="utf-8") == SHARED and spec.read_bytes() == before


def test_a_spec_broken_for_another_reason_is_not_renamed(tmp_path, capsys):
    spec = tmp_path / "game.rw"
    spec.write_text(MAIN.replace('include "shared.rwi"\n', "var phases [1]: bool = false\n")
                    .replace("phases_ := 1;", "missing := 1;"), encoding="utf-8")
    before = spec.read_bytes()
    code, out, err = migrate(capsys, spec, "--write")
    assert (code, out) == (2, "")
    assert "missing" in err
    assert spec.read_bytes() == before


@pytest.mark.slow  # checks every spec of the repository: about 30 s in one process
def test_the_specs_of_this_repository_need_no_migration(capsys):
    code, out, err = migrate(capsys, "spec/")
    assert (code, out) == (0, "")


# ---------------------------------------------------------------- the published list

def documented_reserved_words() -> list[str]:
    text = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- reserved words:.*?-->\n(.*?)<!-- end of reserved words -->", text, re.S)
    assert block, "docs/language.md has no list of reserved words"
    return re.findall(r"`([^`]+)`", block.group(1))


def test_the_reserved_words_in_the_language_reference_are_those_the_grammar_reserves():
    documented = documented_reserved_words()
    expected = sorted(reserved_words())
    listed = ", ".join(f"`{w}`" for w in expected)
    assert documented == expected, f"docs/language.md, 'Reserved words', should list (in this order):\n{listed}"
    assert f"These {len(expected)} words" in (ROOT / "docs" / "language.md").read_text(encoding="utf-8")


# ---------------------------------------------------------------- an expect shared by models

def two_formats(tmp_path: Path, left_tag: str, expect: str) -> Path:
    """The deadlock fixture with an expect at the top and two formats; format `left` tags the
    action that hands priority on with `left_tag` instead of 117.3d."""
    text = DEADLOCK.read_text(encoding="utf-8")
    action = text[text.index("action pass_priority"):text.index("action concede")]
    spec = tmp_path / "formats.rw"
    spec.write_text(text + "\n" + expect + 'format left "x" {\n' + action.replace("[117.3d]", f"[{left_tag}]")
                    + '}\nformat right "y" {\n}\n', encoding="utf-8")
    return spec


def test_an_expect_shared_by_two_formats_is_rewritten_once_when_their_findings_agree(tmp_path, capsys):
    spec = two_formats(tmp_path, "117.3d", 'expect deadlock [102.1, 117.3d] "old"\n')
    code, out, err = migrate(capsys, spec, "--write")
    assert code == 1 and out.count('\n+expect deadlock [117.3d] "old"\n') == 1
    assert check(capsys, spec)[0] == 0


@pytest.mark.parametrize("left_tag, expect, why", [
    ("117.3b", 'expect deadlock [102.1, 117.3d] "old"\n', "cite different rules"),
    # one fingerprint names the finding of one model: the two models' fingerprints differ
    ("117.3d", OLD_EXPECT, "have different fingerprints"),
])
def test_an_expect_shared_by_two_formats_whose_findings_differ_is_left_alone(tmp_path, capsys, left_tag, expect, why):
    spec = two_formats(tmp_path, left_tag, expect)
    before = spec.read_bytes()
    code, out, err = migrate(capsys, spec, "--write")
    assert (code, out) == (0, "")
    assert f"not rewritten: the findings it names in its 2 models {why}" in err
    assert spec.read_bytes() == before


def test_a_file_edited_while_it_was_migrated_is_not_overwritten(tmp_path):
    from checker.frontend.diagnostics import SpecError
    from checker.limits import Limits
    from checker.migrate import migrate as plan, write

    spec = old_deadlock_spec(tmp_path)
    out = plan([str(spec)], Limits(max_seconds=60), replay=False)
    assert [c.path for c in out.changes] == [str(spec)]
    spec.write_text(spec.read_text(encoding="utf-8") + "# an edit meanwhile\n", encoding="utf-8")
    with pytest.raises(SpecError, match="changed while it was migrated"):
        write(out.changes)
    assert spec.read_text(encoding="utf-8").endswith(OLD_EXPECT + "# an edit meanwhile\n")


def test_an_include_two_specs_share_is_renamed_once_and_both_specs_use_the_new_name(tmp_path, capsys):
    (tmp_path / "shared.rwi").write_text(SHARED, encoding="utf-8")
    for name in ("a.rw", "b.rw"):
        (tmp_path / name).write_text(MAIN.replace("phases_", "spare"), encoding="utf-8")
    code, out, err = migrate(capsys, tmp_path, "--write")
    assert code == 1
    assert out.count("\n+var phases_ [1]: bool = false\n") == 1
    for name in ("a.rw", "b.rw"):
        assert "when phases_ and" in (tmp_path / name).read_text(encoding="utf-8")
        assert check(capsys, tmp_path / name)[0] in (0, 1)


CONTRADICTION = ROOT / "tests" / "fixtures" / "contradiction" / "defect.rw"
# Reviewed when the teams of three (no setup fits: a contradiction) still had their games
# played: `attack` was dead there. Now the contradiction is the one finding of that instance.
PHANTOM_EXPECTS = ('expect contradiction 1 instance "teams of three cannot register"\n'
                   'expect dead-rule [U5] on attack 1 instance "teams of three never attack"  # 2025\n')


def test_an_expect_of_a_setup_that_cannot_exist_becomes_a_comment_that_says_why(tmp_path, capsys):
    spec = tmp_path / "unified.rw"
    spec.write_text(CONTRADICTION.read_text(encoding="utf-8") + "\n" + PHANTOM_EXPECTS, encoding="utf-8")
    code, out = check(capsys, spec)
    assert code == 1 and "expectation-unmet" in out

    code, out, err = migrate(capsys, spec, "--write")
    assert code == 1
    assert "turned into a comment: no setup exists (contradiction" in err
    text = spec.read_text(encoding="utf-8")
    assert text.endswith('expect contradiction 1 instance "teams of three cannot register"\n'
                         "# rulewright migrate: no setup exists (contradiction [U2, U3] on featured_minimum, "
                         "team_copies): dead-rule findings of states that cannot exist are no longer reported\n"
                         '# expect dead-rule [U5] on attack 1 instance "teams of three never attack"  # 2025\n')

    code, out = check(capsys, spec)
    assert code == 0, out
    assert migrate(capsys, spec, "--write")[:2] == (0, "")


def test_an_expect_that_names_no_finding_for_another_reason_is_left_alone(tmp_path, capsys):
    # the teams of two have setups: a dead `attack` missing there is not the contradiction's doing
    spec = tmp_path / "unified.rw"
    text = CONTRADICTION.read_text(encoding="utf-8").replace("param S [U1] in 2..3", "param S [U1] in 2..2")
    spec.write_text(text + '\nexpect dead-rule [U5] on attack 1 instance "never attack"\n', encoding="utf-8")
    code, out, err = migrate(capsys, spec, "--write")
    assert (code, out) == (0, "")
    assert "no finding it could name" in err
