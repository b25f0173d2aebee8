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
    ("players 3\nvar x: 0..1\naction a do x := 1;\n", "missing `end`", 3, 20),
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
