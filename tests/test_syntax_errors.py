"""Typical mistakes get a named error with file:line:col, the line, a caret and a hint; never a traceback."""
import subprocess
import sys

import pytest

from checker.frontend.diagnostics import SpecError
from checker.explicit.machine import Machine
from checker.engine import load_instances
from checker.frontend.parser import parse_text

CASES = [
    # (spec text, message fragment, line, col)
    ("players 3\nvar x: 0..1\naction a do x := 1 end\n", "missing semicolon", 3, 20),
    ("[1.1] action a do end\n", "rule tags before the keyword", 1, 1),
    ("players 3\nvar x: 0..1\ninvariant i: x = 1\n", "`=` used for comparison", 3, 16),
    ("players 3\nvar x: 0..1\naction a do x = 1; end\n", "`=` used for assignment", 3, 15),
    ("players 3\nvar x: 0..1\naction a when x == 0 x := 1; end\n", "missing `do`", 3, 22),
    ("players 3\noutcome o lose player p when true\n", "missing `:` after the name", 2, 11),
    ('spec "abc\n', "unterminated string", 1, 6),
    ("players 3\nvar x: 0..1\naction a do x := 1;\n", "`end` missing: the `action a` opened at bad.rw:3:1", 3, 20),
]


@pytest.mark.parametrize("text, message, line, col", CASES)
def test_typical_mistakes_are_named(text, message, line, col):
    with pytest.raises(SpecError) as exc:
        parse_text(text, "bad.rw")
    d = exc.value.diagnostics[0]
    assert message in d.message
    assert (d.span.line, d.span.col) == (line, col)
    assert d.hint


SEMANTIC = [
    ("players 3\nvar x: bool\naction a when y do x := true; end\n", "E010", "`y` is not defined"),
    ("players 3\nvar x: 0..2\naction a do x := x + true; end\n", "E013", "expected a number"),
    ("players 3\nvar turn: player = P1\naction a do turn := P9; end\n", "E010", "`P9` is not a player of this instance"),
    ("players 3\noutcome o: win player p when not won(p)\n", "E014", "only be used positively"),
    ("players 3\nvar active: bool = false\n", "E011", "`active` is a keyword of the language"),
    ("players 3\ninvariant i: after({P1}, {}, {P1}) == {P1}\n", "E013", "not sets"),
    ("players 3\nlet next(p: player) = p\n", "E011", "`next` is a built-in name"),
    ("players 3\noutcome o: lose player p when not lost(p)\n", "E014", "only be used positively"),
    ("players 3\noutcome o: lose player p when count(q in players: won(q)) > 0\n", "E014", "only be used positively"),
    ("players 3\nvar l(p: player): 0..2 = 1\naction a do l := 0; end\n", "E012", "one value per player"),
    ("players 3\nvar t: player = P1\naction a do t := across(t); end\n", "E013", "even number of players"),
    ("players 3\naction a do x := 1; end\n", "E010", "`x` is not defined"),
    ("teams A, B size 2\nseating A1, A2, B1\n", "E015", "name each player once"),
    # min / max of values, set comprehension, simultaneous assignment
    ("players 3\nvar x: 0..2\naction a do x := min(x, true); end\n", "E013", "arguments of min() do not fit"),
    ("players 3\nvar x: 0..2\naction a do x := count(x, 1); end\n", "E012", "count is an aggregate"),
    ("players 3\nvar m: set player\naction a do m := {p == P1 | p in players}; end\n", "E013",
     "sets of boolean are not supported"),
    ("players 3\nvar m: set player\naction a do m := {p | p in players: seat(p)}; end\n", "E013", "expected a boolean"),
    ("players 3\nvar m: set player\naction a do m := {q | p in players}; end\n", "E010", "`q` is not defined"),
    ("players 3\nvar m: set player\naction a do m := {seat(p) | p in players}; end\n", "E013", "must be a set of players"),
    ("players 3\nvar x: 0..2\nvar y: 0..2\naction a do x, y := y; end\n", "E012", "2 places are assigned 1 values"),
    ("players 3\nvar x: 0..2\naction a do x, x := 1, 2; end\n", "E012", "x is assigned twice"),
    ("players 3\nvar l(p: player): 0..2\naction a do l[P1], l[P1] := 1, 2; end\n", "E012", "l[...] is assigned twice"),
    ("players 3\nvar x: 0..2\nvar t: player = P1\naction a do x, t := t, x; end\n", "E013",
     "the value assigned to x must be a number"),
]


@pytest.mark.parametrize("text, code, fragment", SEMANTIC)
def test_name_and_type_errors_are_diagnosed(text, code, fragment):
    with pytest.raises(SpecError) as exc:
        from checker.frontend.parser import parse_file
        import tempfile, os
        with tempfile.NamedTemporaryFile("w", suffix=".rw", delete=False) as fh:
            fh.write(text)
        try:
            for inst in load_instances(fh.name):
                Machine(inst)
        finally:
            os.unlink(fh.name)
    d = exc.value.diagnostics[0]
    assert d.code == code and fragment in d.message


def test_the_rendered_error_shows_the_line_and_a_caret(tmp_path):
    bad = tmp_path / "bad.rw"
    bad.write_text("players 3\nvar x: 0..1\naction a do x := 1 end\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "checker", "check", str(bad)], capture_output=True, text=True)
    assert run.returncode == 2
    out = run.stdout + run.stderr
    assert f"{bad}:3:20: error[E001]: missing semicolon" in out
    assert "    3 | action a do x := 1 end" in out
    assert "^^^" in out and "hint:" in out
    assert "Traceback" not in out


@pytest.mark.parametrize("text", ["", "players", "action", "}}}", "players 3\nvar x: 0..1 = 5\n", "\x00\x01",
                                  "players 0\n", "param N in 5..3\nplayers N\n", "include \"nowhere.rw\"\n"])
def test_odd_inputs_never_produce_a_traceback(tmp_path, text):
    bad = tmp_path / "odd.rw"
    bad.write_text(text, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "checker", "check", str(bad)], capture_output=True, text=True)
    assert "Traceback" not in run.stdout + run.stderr
    assert run.returncode == 2


def test_a_rule_that_binds_a_team_name_is_an_error_not_a_silent_new_variable(tmp_path):
    spec = tmp_path / "s.rw"
    spec.write_text("teams A, B size 1\noutcome o: lose team A when true\n", encoding="utf-8")
    with pytest.raises(SpecError) as exc:
        from checker.frontend.parser import parse_file
        for inst in load_instances(str(spec)):
            Machine(inst)
    d = exc.value.diagnostics[0]
    assert d.code == "E011" and "hides the team A" in d.message and "t == A" in d.hint


# ---------------------------------------------------------------- words read whole (issue 21)
from checker.frontend.grammar import keywords  # noqa: E402
from checker.frontend.keywords import aggregate_words, reserved_words, soft_keywords  # noqa: E402


def _errors(text: str, tmp_path, name: str = "spec.rw"):
    """Every diagnostic of the whole front end for `text`, or [] when it is clean."""
    spec = tmp_path / name
    spec.write_text(text, encoding="utf-8")
    try:
        load_instances(str(spec))
    except SpecError as exc:
        return exc.value.diagnostics if hasattr(exc, "value") else exc.diagnostics
    return []


@pytest.mark.parametrize("word", sorted(keywords()))
def test_a_keyword_followed_by_an_underscore_is_one_name(word, tmp_path):
    ident = f"{word}_x"
    text = (f"players 3\nvar {ident}: 0..1\n"
            f"invariant i [1]: {ident} == 0 or forall p in players: {ident} < 2 and {ident} in {{0, 1}}\n"
            f"action a [1] when not {ident} in {{1}} do\n  [1] {ident} := {ident};\n"
            f"  if {ident} == 0 then {ident} := 1; end\nend\n")
    assert _errors(text, tmp_path) == []


@pytest.mark.parametrize("word", sorted(keywords()))
def test_a_syntax_error_names_an_identifier_whole_whatever_its_prefix(word):
    text = f"players 3\nvar x: 0..1\naction attack do\n  x := 1;\noutcome {word}_life: lose player p when x == 1\n"
    with pytest.raises(SpecError) as exc:
        parse_text(text, "spec.rw")
    assert f"`outcome {word}_life`" in exc.value.diagnostics[0].message


def test_a_missing_end_names_the_block_it_leaves_open_and_the_declaration_it_runs_into():
    text = ("players 3\nvar life(p: player): 0..2 = 2\n\naction attack(p: player) [1.1] do\n"
            "  life[p] := life[p] - 1;\n\noutcome no_life [1.2]: lose player p when life[p] == 0\n")
    with pytest.raises(SpecError) as exc:
        parse_text(text, "spec.rw")
    d = exc.value.diagnostics[0]
    assert d.message == ("`end` missing: the `action attack` opened at spec.rw:4:1 is not closed before "
                         "`outcome no_life` (line 7)")
    assert (d.span.line, d.span.col, d.span.end_col) == (7, 1, 16)
    assert "`end`" in d.hint


OPEN_BLOCKS = [
    # (text, what is missing, the block, what it runs into)
    ("players 3\nvar x: 0..1\naction a when x == 0 do x := 1;\n", "end", "action a", "the end of the file"),
    ("players 3\nvar x: 0..1\ntrigger t on lose player p when true do\n  x := 1;\ninvariant i: x == 1\n",
     "end", "trigger t", "`invariant i` (line 5)"),
    ("players 3\nvar x: 0..1\nroutine r do\n  x := 1;\nlet f(p: player) = 1\n", "end", "routine r", "`let f` (line 5)"),
    ("players 3\nvar x: 0..1\nphases turn { main ends when true }\nwhen main ends do\n  x := 1;\naction a do end\n",
     "end", "when main ends", "`action a` (line 6)"),
    ("players 3\nmatch {\n  var w: 0..2\n  game won by player p when true do\n    w := 1;\n}\n",
     "end", "game won by player p", "`}` (line 6)"),
    ("players 3\nvar x: 0..1\naction a do\n  x := 1;\n\nplayers 4\n", "end", "action a", "`players` (line 6)"),
    ("document {\n  1.1\n  1.2\nplayers 3\nvar x: 0..1\n", "}", "document", "`players` (line 4)"),
    ("players 3\nphases turn {\n  main ends when true\naction a do end\n", "}", "phases turn", "`action a` (line 4)"),
    ("players 3\nformat F {\n  var x: 0..1\n", "}", "format F", "the end of the file"),
]


@pytest.mark.parametrize("text, closer, block, before", OPEN_BLOCKS)
def test_every_kind_of_block_left_open_is_named(text, closer, block, before):
    with pytest.raises(SpecError) as exc:
        parse_text(text, "spec.rw")
    message = exc.value.diagnostics[0].message
    assert message.startswith(f"`{closer}` missing: the `{block}` opened at spec.rw:")
    assert message.endswith(f"is not closed before {before}")


# ---------------------------------------------------------------- soft keywords (issue 21)

def test_the_keywords_are_split_into_reserved_and_soft_words_sorted():
    assert set(reserved_words()) | set(soft_keywords()) == keywords()
    assert not set(reserved_words()) & set(soft_keywords())
    assert list(reserved_words()) == sorted(reserved_words()) and list(soft_keywords()) == sorted(soft_keywords())
    # statement and expression starters, and the words that join expressions, stay reserved
    assert {"if", "forall", "lose", "let", "not", "true", "and", "end", "do", "var", "action"} <= set(reserved_words())
    assert {"over", "one", "many", "by", "drawn", "same_step", "plays_on", "starts", "steps", "of",
            "abstracts"} <= set(soft_keywords())
    assert set(aggregate_words()) <= set(reserved_words())


def _conflicts(grammar: str) -> int:
    import io
    import logging

    from lark import Lark, logger
    buf = io.StringIO()
    handler = logging.StreamHandler(buf)
    logger.addHandler(handler)
    level = logger.level
    logger.setLevel(logging.DEBUG)
    try:
        Lark(grammar, parser="lalr", lexer="contextual", debug=True, maybe_placeholders=True)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    return sum("conflict" in line.lower() for line in buf.getvalue().splitlines())


def test_soft_keywords_add_no_conflict_to_the_parser():
    import re

    from checker.frontend.grammar import grammar_path
    grammar = grammar_path().read_text(encoding="utf-8")
    without = re.sub(r'!_name: NAME[^\n]*(\n +\|[^\n]*)*', "!_name: NAME", grammar)
    assert without != grammar
    assert _conflicts(grammar) == _conflicts(without)


@pytest.mark.parametrize("word", soft_keywords())
def test_a_soft_keyword_names_anything_a_name_may(word, tmp_path):
    text = (f"document {{\n  1\n}}\nplayers 3\nparam {word}_p in 1..2\nvar {word}: 0..2 = 0\nlet {word}_l = 1\n"
            f"action {word}_a(n: 0..1) [1] when {word} < 2 do\n  [1] {word} := {word} + n;\n"
            f"  forall q in players do {word} := {word}; end\nend\n"
            f"invariant i [1]: count(p in players: {word} >= 0) == 3\n")
    assert _errors(text, tmp_path) == []
    # and as a parameter, an action, a binder of a quantifier and of a `forall` statement
    own = (f"players 3\nparam {word} in 1..2\nvar v: 0..2 = 0\naction {word}_b when v < {word} do\n"
           f"  v := v + 1;\nend\naction {word}_c do v := v; end\n")
    assert _errors(own, tmp_path, "own.rw") == []
    bound = (f"players 3\nvar v: 0..2 = 0\naction {word} do\n  forall {word} in players do v := v; end\nend\n"
             f"invariant j: forall {word} in players: in_game({word}) or v >= 0\n")
    assert _errors(bound, tmp_path, "bound.rw") == []


@pytest.mark.parametrize("text, name", [
    ("players 3\nvar count: 0..2 = 0\naction a when count < 2 do count := count + 1; end\n", "count"),
    ("players 3\nlet size = 2\ninvariant i: size == 2\n", "size"),
    ("players 3\nvar x: 0..1\naction next do x := 1; end\n", "next"),
    ("players 3\nparam max in 1..2\nvar x: 0..2\ninvariant i: x <= max\n", "max"),
])
def test_a_built_in_name_is_refused_once_where_it_is_declared(text, name, tmp_path):
    (d,) = _errors(text, tmp_path)
    assert d.code == "E011" and d.message.startswith(f"`{name}` is a built-in name")
    assert d.span.line == 2 or (name == "next" and d.span.line == 3)
    assert f"`{name}_`" in d.hint


# ---------------------------------------------------------------- tags the document lacks (issue 21)

_DOC = "document {\n  102.1\n  102.3a\n  102.4\n}\nplayers 3\nvar x: 0..1\n"


def test_a_tag_the_document_does_not_list_is_an_input_error_with_a_caret_and_a_suggestion(tmp_path):
    (d,) = _errors(_DOC + "action a [102.1, 102.3] do x := 1; end\n", tmp_path)
    assert d.code == "E022" and d.message == "tag [102.3] names a rule the document block does not list"
    assert (d.span.line, d.span.col, d.span.end_col) == (8, 18, 23)
    assert d.hint.startswith("did you mean `102.3a`?")


def test_every_unknown_tag_is_reported_at_once_up_to_a_cap(tmp_path):
    from checker.frontend.tags import CAP
    lines = "".join(f"invariant i{k} [9.{k}]: x == x\n" for k in range(CAP + 5))
    found = _errors(_DOC + lines, tmp_path)
    assert [d.code for d in found] == ["E022"] * (CAP + 1)
    assert found[-1].message.startswith("... and 5 more tags")
    # each unknown tag once, where it is first used
    assert len(_errors(_DOC + "invariant i [9]: x == x\ninvariant j [9]: x == x\n", tmp_path)) == 1


def test_tags_are_not_checked_without_a_document_block(tmp_path):
    assert _errors("players 3\nvar x: 0..1\ninvariant i [9.9]: x == x\n", tmp_path) == []


def test_the_reference_lists_exactly_the_soft_keywords():
    from pathlib import Path
    import re
    text = (Path(__file__).parent.parent / "docs" / "language.md").read_text(encoding="utf-8")
    sentence = text.split("may name anything a name may", 1)[1].split("`checker.frontend.keywords`", 1)[0]
    listed = re.findall(r"`([a-z_]+)`", sentence.split(":", 1)[1])
    assert listed == list(soft_keywords())


def test_the_parser_reports_every_error_it_can_recover_from():
    text = ("players 3\nvar x: 0..1\naction a do\n  x := 1;\noutcome o: lose player p when x == 1   # why\n"
            "action b do x := 1 end\ninvariant i: x = 1\naction c do\n  if x == 0 then\n    x := 1;\nend\n"
            "var y: 0..2\n")
    with pytest.raises(SpecError) as exc:
        parse_text(text, "spec.rw")
    found = [(d.span.line, d.span.col, d.message.split(":")[0]) for d in exc.value.diagnostics]
    assert found == [(5, 1, "`end` missing"), (6, 20, "missing semicolon"), (7, 16, "`=` used for comparison"),
                     (12, 1, "`end` missing")]


def test_recovery_stops_inside_a_brace_block_rather_than_guess():
    text = "players 3\nformat F {\n  var z: bool\n  action d do z := true end\n}\naction e do x := 1 end\n"
    with pytest.raises(SpecError) as exc:
        parse_text(text, "spec.rw")
    assert [d.span.line for d in exc.value.diagnostics] == [4]


def test_an_inner_block_that_took_the_outer_end_is_pointed_out():
    text = ("players 3\nvar x: 0..1\naction a do\n  if x == 0 then\n    x := 1;\n  x := 0;\nend\n\n"
            "outcome o: lose player p when x == 1\n")
    with pytest.raises(SpecError) as exc:
        parse_text(text, "spec.rw")
    d = exc.value.diagnostics[0]
    assert d.message.startswith("`end` missing: the `action a` opened at spec.rw:3:1")
    assert d.hint == ("the `end` on line 7 lines up with the `action` but closes the `if` of line 4: "
                      "is that `if`'s own `end` missing?")


def test_an_aggregate_word_alone_is_told_to_take_a_domain(tmp_path):
    (d,) = _errors("players 3\nvar x: 0..2\ninvariant i: count > 0\n", tmp_path)
    assert d.code == "E010" and d.message == "`count` is an aggregate, not a value"
    assert d.hint == "write `count(x in DOMAIN: ...)`"
