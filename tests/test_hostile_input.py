"""Hostile input (issue 8, front end): includes confined to the spec's folder tree, no parser
cache to unpickle, the renderer shows only text the parser accepted, and deep nesting, huge
numbers and invalid UTF-8 refused with a located error instead of an internal one."""

import os
import pickle
import re
import tempfile
from pathlib import Path

import pytest

from checker.cli import main
from checker.frontend import parser
from checker.frontend.diagnostics import Diagnostic, SpecError, render
from checker.frontend.syntax import Span

HOSTILE = Path(__file__).resolve().parent / "hostile"
SECRET = "TOP-SECRET-LINE-7f3a"  # written into files outside the tree: it must never be printed


def check(capsys, *args) -> tuple[int, str]:
    code = main(["check", "--no-replay", *map(str, args)])
    out = capsys.readouterr()
    text = out.out + out.err
    assert "internal error" not in text and "Traceback" not in text
    return code, text


def located(text: str, code: str) -> str:
    """The `file:line:col` of the first diagnostic with `code` (line and column both at least 1)."""
    m = re.search(rf"^(\S+):(\d+):(\d+): error\[{code}\]", text, re.M)
    assert m, text
    assert int(m[2]) >= 1 and int(m[3]) >= 1, text
    return f"{Path(m[1]).name}:{m[2]}:{m[3]}"


@pytest.fixture
def tree(tmp_path):
    """tmp/outside/secret.rwi (a line of it would be echoed by a syntax error), tmp/x (likewise),
    and the spec folder tmp/proj/specs/ with main.rw; returns a writer for main.rw's include."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.rwi").write_text(f"{SECRET} is not rulewright\n")
    (tmp_path / "x").write_text(f"{SECRET}\n")
    specs = tmp_path / "proj" / "specs"
    specs.mkdir(parents=True)

    def main_including(target: str) -> Path:
        main_rw = specs / "main.rw"
        main_rw.write_text(f'players 2\ninclude "{target}"\n')
        return main_rw
    main_including.specs = specs
    main_including.tmp = tmp_path
    return main_including


# ---------------------------------------------------------------- no cache to unpickle

class _Payload:
    """Unpickling this makes a folder at `marker`: proof that the pickle ran."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (str(self.marker),))


def test_a_pickle_planted_where_lark_caches_its_tables_is_never_loaded(tmp_path, monkeypatch):
    from lark import Lark
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    grammar_text = parser._grammar_path().read_text(encoding="utf-8")
    # how rulewright used to build its parser: lark names the cache file after the grammar's hash
    old = dict(parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=True, cache=True)
    Lark(grammar_text, **old)
    (planted,) = tmp_path.glob(".lark_cache_*")
    header = planted.read_bytes().split(b"\n", 1)[0]
    marker = tmp_path / "payload-ran"

    def plant():
        planted.write_bytes(header + b"\n" + pickle.dumps(_Payload(marker)))

    plant()
    Lark(grammar_text, **old)  # control: the old way runs the planted payload
    assert marker.exists()
    marker.rmdir()
    plant()  # again: lark rewrote the cache after the payload failed to load as tables
    before = {p: p.read_bytes() for p in tmp_path.iterdir()}

    parser._lark.cache_clear()
    try:
        parser.parse_text("players 2\nvar x: bool = false\n", "t.rw")
    finally:
        parser._lark.cache_clear()
    assert not marker.exists()
    assert {p: p.read_bytes() for p in tmp_path.iterdir()} == before  # and nothing is written there either


# ---------------------------------------------------------------- the renderer

def test_the_renderer_never_reads_a_file_itself(tree):
    secret = tree.tmp / "outside" / "secret.rwi"
    shown = render(Diagnostic("E001", "boom", Span(str(secret), 1, 1, 1, 5)))
    assert SECRET not in shown
    assert shown.startswith(f"{secret}:1:1: error[E001]: boom")


def test_the_renderer_shows_no_control_characters_and_cuts_long_lines():
    with pytest.raises(SpecError) as exc:
        parser.parse_text("players 2\n# \x1b]0;pwned\x07\ninvariant i: " + "x + " * 2000 + "= 1\n", "ctl.rw")
    text = render(exc.value.diagnostics[0])
    assert "\x1b" not in text and "\x07" not in text
    assert all(len(line) < 200 for line in text.splitlines())
    with pytest.raises(SpecError) as exc:
        parser.parse_text("players 2\n# \x1b[2J\x0c\nx\n", "ctl2.rw")  # \x0c must not count as a line break
    (d,) = exc.value.diagnostics
    assert d.span.line == 3 and "\x1b" not in render(d) and "    3 | x" in render(d)
