"""Hostile input (issue 8, front end): includes confined to the spec's folder tree, no parser
cache to unpickle, the renderer shows only text the parser accepted, and deep nesting, huge
numbers and invalid UTF-8 refused with a located error instead of an internal one."""

import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import time

import pytest

from checker.cli import main
from checker.frontend import grammar, includes, parser
from checker.frontend.diagnostics import CODES, Diagnostic, SpecError, render
from checker.frontend.syntax import Span
from checker.analyses.verdicts import CONFIRMED

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
    grammar_text = grammar.grammar_path().read_text(encoding="utf-8")
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

    grammar.lark_parser.cache_clear()
    try:
        parser.parse_text("players 2\nvar x: bool = false\n", "t.rw")
    finally:
        grammar.lark_parser.cache_clear()
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


# ---------------------------------------------------------------- includes stay in the tree

@pytest.mark.parametrize("target", ["/etc/passwd", "/proc/self/environ", "/dev/zero", "ABSOLUTE_SECRET"])
def test_an_absolute_include_is_refused_at_the_include(capsys, tree, target):
    if target == "ABSOLUTE_SECRET":
        target = str(tree.tmp / "outside" / "secret.rwi")
    code, text = check(capsys, tree(target))
    assert code == 2
    assert located(text, "E004") == "main.rw:2:1"
    assert "absolute path" in text
    assert SECRET not in text and "root:" not in text


@pytest.mark.parametrize("target", ["../../x", "../../outside/secret.rwi", "sub/../../../x"])
def test_an_include_climbing_out_of_the_tree_is_refused(capsys, tree, target):
    code, text = check(capsys, tree(target))
    assert code == 2
    assert located(text, "E004") == "main.rw:2:1"
    assert "leads outside the folder tree" in text
    assert SECRET not in text


def test_an_include_through_a_symlink_leading_outside_is_refused(capsys, tree):
    (tree.specs / "rules.rwi").symlink_to(tree.tmp / "outside" / "secret.rwi")
    code, text = check(capsys, tree("rules.rwi"))
    assert code == 2
    assert located(text, "E004") == "main.rw:2:1"
    assert "through a symlink" in text
    assert SECRET not in text


def test_a_symlink_to_the_machines_root_tells_nothing_about_what_exists_outside(capsys, tree):
    # S1 of 2026-11-26: "leads outside" for a path that exists, "does not exist" for one that does not
    (tree.specs / "rootlink").symlink_to("/")
    exists = str(tree.tmp / "outside" / "secret.rwi").lstrip("/")
    missing = str(tree.tmp / "outside" / "no-such-file.rwi").lstrip("/")
    texts = []
    for target in (f"rootlink/{exists}", f"rootlink/{missing}", "rootlink/etc/passwd", "rootlink/etc/nothing-xyz"):
        code, text = check(capsys, tree(target))
        assert code == 2 and located(text, "E004") == "main.rw:2:1", text
        texts.append(text.splitlines()[0].replace(target, "TARGET"))  # the message (the caret line's width varies)
    assert len(set(texts)) == 1 and "leads outside the folder tree" in texts[0] and "through a symlink" in texts[0]
    assert SECRET not in texts[0] and "root:" not in texts[0]


def test_resolving_an_include_asks_nothing_about_places_outside_the_tree(tree, monkeypatch):
    (tree.specs / "rootlink").symlink_to("/")
    (tree.specs / "up").symlink_to("../..")  # a relative link that climbs out
    asked: list[str] = []
    for name in ("stat", "lstat", "readlink", "open"):
        real = getattr(os, name)

        def spy(path, *args, real=real, **kwargs):
            asked.append(os.path.abspath(path))
            return real(path, *args, **kwargs)
        monkeypatch.setattr(os, name, spy)
    root = os.path.realpath(tree.specs)
    for target in ("rootlink/etc/passwd", "up/outside/secret.rwi", "up/outside/nothing.rwi", "rootlink/../etc/x"):
        with pytest.raises(SpecError) as exc:
            parser.parse_file(tree(target))
        assert "leads outside the folder tree" in exc.value.diagnostics[0].message
    assert asked, "the spy saw nothing: the test would prove nothing"
    # the tree, and the folders above it (which exist whatever the spec says), are all that is asked about
    assert [p for p in asked if not (p == root or p.startswith(root + "/") or root.startswith(p.rstrip("/") + "/")
                                     or p == "/")] == []


def test_dot_dot_after_a_symlink_is_the_parent_of_where_it_leads(capsys, tree):
    deep = tree.specs / "parts" / "deep"
    deep.mkdir(parents=True)
    (deep / "x.rwi").write_text("var x: 0..1 = 0\n")
    (tree.specs / "x.rwi").write_text(f"{SECRET}\n")  # what a lexical `..` would read: a syntax error
    (tree.specs / "alias").symlink_to("parts/deep/inner", target_is_directory=True)
    (deep / "inner").mkdir()
    spec = parser.parse_file(tree("alias/../x.rwi"))  # the kernel's reading: parts/deep/x.rwi
    assert [type(d).__name__ for d in spec.decls] == ["PlayersDecl", "VarDecl"]


def test_a_spec_named_through_the_users_own_symlink_to_its_folder_is_read(capsys, tree):
    (tree.specs / "common.rwi").write_text("var x: 0..1 = 0\naction tick when x == 0 do x := 1; end\n")
    tree("common.rwi")
    link = tree.tmp / "speclink"
    link.symlink_to(tree.specs, target_is_directory=True)
    code, text = check(capsys, link / "main.rw")
    assert code in (0, 1) and "error[E0" not in text


def test_a_symlink_to_a_device_inside_the_tree_is_never_read(capsys, tree):
    (tree.specs / "zero.rwi").symlink_to("/dev/zero")
    code, text = check(capsys, tree("zero.rwi"))
    assert code == 2 and located(text, "E004") == "main.rw:2:1"


def test_an_include_of_a_named_pipe_is_refused_without_blocking(tree):
    os.mkfifo(tree.specs / "pipe.rwi")
    main_rw = tree("pipe.rwi")
    # a subprocess with a timeout: opening a pipe for reading would block until a writer comes
    r = subprocess.run([sys.executable, "-m", "checker", "check", str(main_rw)], capture_output=True, text=True,
                       timeout=20)
    assert r.returncode == 2
    assert located(r.stdout + r.stderr, "E004") == "main.rw:2:1"
    assert "not a regular file (a named pipe)" in r.stdout + r.stderr


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "folder"])
def test_a_spec_named_on_the_command_line_must_be_a_regular_file(tmp_path, kind):
    if kind == "fifo":
        target = tmp_path / "spec.rw"
        os.mkfifo(target)
    elif kind == "folder":
        target = tmp_path / "spec.rw"
        target.mkdir()
    else:
        target = Path(kind)
    commands = ["graph"] if kind == "folder" else ["check", "graph", "coverage"]  # check walks a folder
    for command in commands:
        args = [command, str(target)]
        r = subprocess.run([sys.executable, "-m", "checker", *args], capture_output=True, text=True, timeout=20)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert "error[E004]" in r.stdout + r.stderr and "not a regular file" in r.stdout + r.stderr
        assert "internal error" not in r.stdout + r.stderr


def test_a_symlink_include_loop_is_reported_at_the_include(capsys, tmp_path):
    # R17: R17_loop.rwi is a symlink to itself (made here, not kept in git)
    spec = tmp_path / "R17_symlink_include_loop.rw"
    shutil.copy(HOSTILE / spec.name, spec)
    (tmp_path / "R17_loop.rwi").symlink_to("R17_loop.rwi")
    code, text = check(capsys, spec)
    assert code == 2
    assert located(text, "E003") == "R17_symlink_include_loop.rw:1:1"
    assert "symlink loop" in text


def test_a_spec_that_is_a_symlink_loop_is_reported(capsys, tmp_path):
    (tmp_path / "loop.rw").symlink_to("loop.rw")
    code, text = check(capsys, tmp_path / "loop.rw")
    assert code == 2 and "error[E002]" in text and "symlink loop" in text


def test_a_file_including_itself_through_another_is_a_cycle(capsys, tmp_path):
    (tmp_path / "a.rw").write_text('players 2\ninclude "b.rwi"\n')
    (tmp_path / "b.rwi").write_text('\ninclude "a.rw"\n')
    code, text = check(capsys, tmp_path / "a.rw")
    assert code == 2 and located(text, "E003") == "b.rwi:2:1" and "includes itself" in text


def test_includes_inside_the_tree_still_work(capsys, tree):
    parts = tree.specs / "parts"
    parts.mkdir()
    (parts / "vars.rwi").write_text('var x: 0..1 = 0\ninclude "../common.rwi"\n')  # ".." that stays inside
    (tree.specs / "common.rwi").write_text("action tick when x == 0 do x := 1; end\n")
    spec = parser.parse_file(tree("parts/vars.rwi"))
    assert {type(d).__name__ for d in spec.decls} >= {"VarDecl", "ActionDecl"}
    assert [Path(p).name for p in spec.includes] == ["vars.rwi", "common.rwi"]
    code, text = check(capsys, tree.specs / "main.rw")
    assert code in (0, 1) and "error[E0" not in text


def test_a_symlink_that_stays_inside_the_tree_is_followed(capsys, tree):
    (tree.specs / "parts").mkdir()
    (tree.specs / "parts" / "all.rwi").write_text("var x: 0..1 = 0\naction tick when x == 0 do x := 1; end\n")
    (tree.specs / "alias.rwi").symlink_to("parts/all.rwi")
    code, text = check(capsys, tree("alias.rwi"))
    assert code in (0, 1) and "error[E0" not in text


def test_include_root_widens_the_tree(capsys, tree):
    (tree.tmp / "proj" / "shared.rwi").write_text("var x: 0..1 = 0\n")
    main_rw = tree("../shared.rwi")
    code, text = check(capsys, main_rw)
    assert code == 2 and "leads outside the folder tree" in text
    code, text = check(capsys, "--include-root", tree.tmp / "proj", main_rw)
    assert code in (0, 1) and "error[E0" not in text
    assert main(["coverage", "--include-root", str(tree.tmp / "proj"), str(main_rw)]) in (0, 1)
    assert "leads outside" not in capsys.readouterr().err


def test_include_root_must_be_a_folder(capsys, tree):
    with pytest.raises(SystemExit) as exc:
        main(["check", "--include-root", str(tree.tmp / "x"), str(tree("a.rwi"))])
    assert exc.value.code == 2
    assert "not a folder" in capsys.readouterr().err


def test_a_walked_folder_is_the_root_of_the_specs_found_in_it(capsys, tree):
    (tree.specs / "ok.rw").write_text("players 2\nvar x: 0..1 = 0\naction a when x == 0 do x := 1; end\n")
    (tree.specs / "evil.rw").symlink_to(tree.tmp / "outside" / "secret.rwi")
    code, text = check(capsys, tree.specs)
    assert code == 2
    assert "evil.rw:0:0: error[E004]" in text and "through a symlink" in text
    assert SECRET not in text
    assert "0 instance(s)" in text  # with any input error, every error is shown and nothing is explored


def test_a_file_over_the_size_limit_is_refused_unread(capsys, tree):
    with open(tree.specs / "big.rwi", "wb") as fh:
        fh.truncate(includes.MAX_FILE_BYTES + 1)  # sparse: nothing is written
    code, text = check(capsys, tree("big.rwi"))
    assert code == 2 and located(text, "E004") == "main.rw:2:1" and "larger than 1 MiB" in text


def test_an_include_fan_out_stops_at_the_file_limit(capsys, tmp_path):
    # each file includes the next twice: 2^10 inclusions from 11 small files
    for k in range(10):
        (tmp_path / f"f{k}.rwi").write_text(f'include "f{k + 1}.rwi"\ninclude "f{k + 1}.rwi"\n')
    (tmp_path / "f10.rwi").write_text("\n")
    (tmp_path / "main.rw").write_text('players 2\ninclude "f0.rwi"\n')
    code, text = check(capsys, tmp_path / "main.rw")
    assert code == 2 and "error[E004]" in text and f"limit of {includes.MAX_SPEC_FILES} files" in text


# ---------------------------------------------------------------- the reproducers of issue 8

@pytest.mark.parametrize("name, code, where", [
    ("R15_number_over_4300_digits.rw", "E007", "2:11"),
    ("R16a_deep_not_nesting.rw", "E006", "3:410"),
    ("R16b_deep_if_nesting.rw", "E006", "3:"),
    ("R18_invalid_utf8.rw", "E005", "2:1"),
])
def test_each_reproducer_gives_a_located_error(capsys, name, code, where):
    exit_code, text = check(capsys, HOSTILE / name)
    assert exit_code == 2
    assert located(text, code).startswith(f"{name}:{where}")


def test_a_600_term_sum_is_refused_with_a_hint(capsys, tmp_path):
    spec = tmp_path / "sum.rw"
    spec.write_text("players 2\nvar x: 0..1 = 0\ninvariant i: " + " + ".join(["x"] * 600) + " >= 0\n")
    code, text = check(capsys, spec)
    assert code == 2 and located(text, "E006") == "sum.rw:3:14"
    assert "a chain of 600" in text and "`let`" in text


def test_the_same_sum_split_into_lets_is_checked(capsys, tmp_path):
    lets = "".join(f"let s{k} = " + " + ".join(["x"] * 90) + "\n" for k in range(7))
    spec = tmp_path / "lets.rw"
    spec.write_text("players 2\nvar x: 0..1 = 0\n" + lets + "invariant i: " + " + ".join(f"s{k}" for k in range(7))
                    + " >= 0\naction a when x == 0 do x := 1; end\n")
    code, text = check(capsys, spec)
    assert code in (0, 1) and "error[E0" not in text


def test_a_chain_of_lets_deeper_than_32_is_refused_at_the_use(capsys, tmp_path):
    lets = ["let f0(k: 0..9) = k"] + [f"let f{i}(k: 0..9) = f{i - 1}(k) + 1" for i in range(1, 250)]
    spec = tmp_path / "chain.rw"
    spec.write_text("players 2\nvar x: 0..3 = 0\n" + "\n".join(lets) + "\naction a when f249(x) < 300 do x := x + 1; end\n")
    code, text = check(capsys, spec)
    assert code == 2 and "error[E006]" in text and "used inside 32 other lets" in text


def test_lets_that_double_at_each_link_are_refused_quickly(capsys, tmp_path):
    lets = ["let f0(k: 0..9) = k"] + [f"let f{i}(k: 0..9) = f{i - 1}(f{i - 1}(k))" for i in range(1, 30)]
    spec = tmp_path / "double.rw"
    spec.write_text("players 2\nvar x: 0..3 = 0\n" + "\n".join(lets) + "\naction a when f29(x) < 9 do x := x + 1; end\n")
    start = time.process_time()  # CPU time: it holds on a loaded machine, where wall time stretches
    code, text = check(capsys, spec)
    assert code == 2 and "error[E008]" in text and time.process_time() - start < 20


def test_deep_lets_inside_deep_expressions_are_refused_not_a_recursion_error(capsys, tmp_path):
    deep = "(" * 45 + "k" + " + 1)" * 45
    lets = ["let f0(k: 0..9) = k"] + [f"let f{i}(k: 0..9) = f{i - 1}({deep.replace('k', 'k', 1)})" for i in range(1, 30)]
    spec = tmp_path / "deeper.rw"
    spec.write_text("players 2\nvar x: 0..3 = 0\n" + "\n".join(lets) + "\naction a when f29(x) < 9 do x := x + 1; end\n")
    code, text = check(capsys, spec)
    assert code == 2 and "error[E006]" in text and "with its lets expanded" in text


def test_numbers_up_to_18_digits_parse_and_longer_ones_are_refused():
    (item,) = parser.parse_text("players " + "9" * 18, "n.rw")
    assert item.count.value == 10**18 - 1
    with pytest.raises(SpecError) as exc:
        parser.parse_text("players " + "0" * 19, "n.rw")
    (d,) = exc.value.diagnostics
    assert (d.code, d.span.line, d.span.col, d.span.end_col) == ("E007", 1, 9, 28)


def test_invalid_utf8_is_located_in_characters_in_an_included_file(capsys, tmp_path):
    (tmp_path / "main.rw").write_text('players 2\ninclude "part.rwi"\n')
    (tmp_path / "part.rwi").write_bytes("var x: bool\n# é ü \xff\n".encode("utf-8").replace(b"\xc3\xbf", b"\xff"))
    code, text = check(capsys, tmp_path / "main.rw")
    assert code == 2 and located(text, "E005") == "part.rwi:2:7" and "0xff" in text


_H = "players 2\nvar x: 0..1 = 0\nvar b: bool = false\nvar t: player = P1\naction go when x == 0 do x := 1; end\n"
SHAPES = {
    "not": lambda n: _H + "invariant i: " + "not " * n + "b or true\n",
    "minus": lambda n: _H + "invariant i: " + "- " * n + "x <= 1 or true\n",
    "if statement": lambda n: _H + "action a do " + "if true then " * n + "x := 1;" + " end" * n + " end\n",
    "if expression": lambda n: _H + "invariant i: " + "if b then " * n + "b" + " else true end" * n + "\n",
    "implies": lambda n: _H + "invariant i: " + "b implies " * n + "true\n",
    "quantifier": lambda n: _H + "invariant i: " + "".join(f"forall p{k} in 0..0: " for k in range(n)) + "true\n",
    "aggregate": lambda n: _H + "invariant i: " + "sum(k in 0..0: " * n + "1" + ")" * n + " > 0\n",
    "sum": lambda n: _H + "invariant i: " + "x + " * n + "x >= 0\n",
    "and": lambda n: _H + "invariant i: " + "b and " * n + "b or true\n",
    "call": lambda n: _H + "invariant i: " + "next(" * n + "t" + ")" * n + " == t or true\n",
    "forall": lambda n: _H + "action a do " + "".join(f"forall p{k} in 0..0 do " for k in range(n)) + "x := 1;"
                        + " end" * n + " end\n",
}


def _accepted(text: str) -> bool:
    try:
        parser.parse_text(text, "deep.rw")
        return True
    except SpecError as exc:
        assert [d.code for d in exc.diagnostics] == ["E006"]
        return False


@pytest.mark.parametrize("shape", SHAPES)
def test_the_deepest_accepted_nesting_runs_through_every_check(capsys, tmp_path, shape):
    # the limit is there so no later pass (Transformer, checks, compilation, Z3) meets
    # RecursionError: the deepest spec of each shape that is accepted must check cleanly
    make = SHAPES[shape]
    n = next(n for n in range(grammar.MAX_DEPTH + 1, 0, -1) if _accepted(make(n)))
    assert n >= grammar.MAX_DEPTH - 5
    assert not _accepted(make(n + 1))
    spec = tmp_path / "deep.rw"
    spec.write_text(make(n))
    code = main(["check", str(spec)])
    out = capsys.readouterr()
    assert code in (0, 1, 3), out.out + out.err
    assert "internal error" not in out.err and "error[E0" not in out.out


def test_no_bundled_spec_comes_near_the_nesting_limit():
    from lark import Tree
    from checker.frontend.grammar import _levels
    root = Path(__file__).resolve().parent.parent
    files = [p for p in [*root.glob("spec/*.rw*"), *root.glob("tests/**/*.rw*"), *root.glob("counterexamples/**/*.rw*")]
             if "hostile" not in p.parts and p.is_file()]
    deepest = 0
    for path in files:
        try:
            tree = grammar.lark_parser().parse(path.read_text(encoding="utf-8"))
        except Exception:  # the fixtures of syntax errors
            continue
        stack = [(tree, -1)]
        while stack:
            node, depth = stack.pop()
            if isinstance(node, Tree):
                depth += _levels(node)
                deepest = max(deepest, depth)
                stack.extend((c, depth) for c in node.children)
    assert 5 < deepest <= grammar.MAX_DEPTH // 2


def test_every_code_in_the_table_is_used():
    # (and none is written as a literal, which could miss the table: tests/test_front_end.py)
    from checker.frontend.diagnostics import Code
    root = Path(__file__).resolve().parent.parent / "checker"
    source = "".join(p.read_text(encoding="utf-8") for p in root.rglob("*.py") if p.name != "diagnostics.py")
    assert {"E004", "E005", "E006", "E007"} <= set(CODES)
    assert [code.value for code in Code if f"Code.{code.name}" not in source] == []


def test_the_grammar_cache_lives_only_where_no_one_else_can_write(tmp_path, monkeypatch):
    # the parser tables are cached in a folder of the user's own, mode 0700; a folder or file
    # that others could have written is never read (lark would unpickle it)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    name = grammar._private_cache_file()
    folder = tmp_path / "rulewright"
    assert name is not None and Path(name).parent == folder and (folder.stat().st_mode & 0o777) == 0o700
    folder.chmod(0o777)
    assert grammar._private_cache_file() is None
    folder.chmod(0o700)
    Path(name).write_bytes(b"planted")
    Path(name).chmod(0o666)
    assert grammar._private_cache_file() is None
    Path(name).chmod(0o600)
    assert grammar._private_cache_file() == name


# The fuzz campaign's reproducers (../shared/repros, copied to tests/hostile): each gives a
# clear error before exploring, or the right finding with a confirmed replay; never a wrong
# value (`team(none)` used to be the last team, `next(none)` P1) and never an internal error.
REPROS = {
    "R01_in_game_none.rw": ("finding", "evaluation-error"),
    "R02_lost_none.rw": ("finding", "evaluation-error"),
    "R03_won_none.rw": ("finding", "evaluation-error"),
    "R04_opponents_none_literal.rw": ("error", "E013"),
    "R05_teammates_none_literal.rw": ("error", "E013"),
    "R06_lose_none.rw": ("finding", "evaluation-error"),
    "R07_dist_in_game_none.rw": ("finding", "evaluation-error"),
    "R08_team_of_none_silent.rw": ("finding", "evaluation-error"),
    "R08b_next_of_none_silent.rw": ("finding", "evaluation-error"),
    "R09_index_error_in_outcome_at_setup.rw": ("finding", "evaluation-error"),
    "R10_div_zero_in_outcome_at_setup.rw": ("finding", "evaluation-error"),
    "R11_init_reads_later_var_player.rw": ("error", "E013"),
    "R12_init_reads_later_var_set.rw": ("error", "E013"),
    "R13_init_reads_later_var_left.rw": ("error", "E013"),
    "R14a_z3_int_as_bool_constraint.rw": ("error", "E013"),
    "R14b_z3_set_as_init_condition.rw": ("error", "E013"),
    "R14c_z3_set_initial_value_of_bool.rw": ("error", "E013"),
    "R14d_z3_not_of_number.rw": ("error", "E013"),
}


@pytest.mark.parametrize("name", sorted(REPROS))
def test_a_fuzz_reproducer_gets_a_clear_error_or_a_replayed_finding(name):
    from checker import engine
    what, code = REPROS[name]
    res = engine.check([str(HOSTILE / name)])
    if what == "error":
        assert res.diagnostics and {d.code for d in res.diagnostics} == {code} and res.instances == []
        assert all(d.span.line > 0 for d in res.diagnostics)
    else:
        assert res.diagnostics == [] and res.disagreements == []
        (f,) = [f for f in res.findings if f.kind == code]
        assert f.trace and f.replay == CONFIRMED


@pytest.mark.parametrize("successors", ["compiled", "closures"])
def test_a_huge_domain_beside_an_empty_one_has_no_binding_and_ends_at_once(capsys, monkeypatch, successors):
    monkeypatch.setenv("RULEWRIGHT_SUCCESSORS", successors)
    start = time.process_time()  # CPU time, as the limits (--jobs 1: all of it in this process)
    code, text = check(capsys, HOSTILE / "F01_huge_domain_beside_an_empty_one.rw", "--jobs", "1", "--max-seconds", "5",
                       "--max-wall-seconds", "60")  # (the CPU time is what is tested, not the load)
    assert time.process_time() - start < 10
    assert code == 1 and "incomplete" not in text and "dead-rule" in text


@pytest.mark.parametrize("successors", ["compiled", "closures"])
def test_an_outer_parameter_over_ten_billion_values_stops_at_the_time_limit(capsys, monkeypatch, tmp_path, successors):
    # the inner domain depends on the state and is empty: no binding is ever complete
    monkeypatch.setenv("RULEWRIGHT_SUCCESSORS", successors)
    spec = tmp_path / "outer.rw"
    spec.write_text("players 2\nvar x: 0..3 = 0\naction a(k: 0..10000000000, j: 1..x) when k == j do x := 1; end\n")
    start = time.process_time()  # CPU time, as the limits (--jobs 1: all of it in this process)
    # (a wall-clock bound far off: at its default, 3 s, a machine running the tests on both cores
    # stopped this run for the load, not for the CPU time this test is about)
    code, text = check(capsys, spec, "--jobs", "1", "--max-seconds", "1", "--max-wall-seconds", "60")
    assert time.process_time() - start < 6
    assert code == 3 and "time limit" in text
