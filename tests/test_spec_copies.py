"""The bundled specs say each rule once: no run of six or more statement lines stands in two
places of spec/ (within one file or across files). A copied block is where a later fix is
made in one place and forgotten in the other; routines, lets, includes, labelled statements
that a reading replaces, shared readings and `remove` say a difference without a copy
(docs/language.md, "Composition").

Lines are compared after dropping comments and blank lines, the `document { ... }` blocks (the
quotes of the source text) and lines that are only a quote, and with runs of spaces made one.
"""
from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = 6
SPECS = sorted([*ROOT.glob("spec/*.rw"), *ROOT.glob("spec/*.rwi")])


def statement_lines(text: str) -> list[tuple[int, str]]:
    """(line number, normalized text) of every statement line of a spec file."""
    out: list[tuple[int, str]] = []
    in_document = False
    for number, raw in enumerate(text.splitlines(), 1):
        line = re.sub(r"\s+", " ", _without_comment(raw)).strip()
        if not line or re.fullmatch(r'"([^"\\]|\\.)*"', line):
            continue
        if re.match(r"document\s*\{", line):
            in_document = "}" not in line
            continue
        if in_document:
            in_document = line != "}"
            continue
        out.append((number, line))
    return out


def _without_comment(line: str) -> str:
    """The line up to a `#` that is not inside a quote."""
    quoted = escaped = False
    for i, c in enumerate(line):
        if escaped:
            escaped = False
        elif c == "\\" and quoted:
            escaped = True
        elif c == '"':
            quoted = not quoted
        elif c == "#" and not quoted:
            return line[:i]
    return line


def copies(files: dict[str, str], run: int = RUN) -> list[list[tuple[str, int]]]:
    """Every run of `run` statement lines that stands in more than one place: the places
    (file, first line) of each, one list per distinct run."""
    places: dict[tuple[str, ...], list[tuple[str, int]]] = defaultdict(list)
    for name, text in files.items():
        lines = statement_lines(text)
        for i in range(len(lines) - run + 1):
            places[tuple(t for _, t in lines[i:i + run])].append((name, lines[i][0]))
    return [p for p in places.values() if len(p) > 1]


def test_no_block_of_statements_is_written_twice_in_spec():
    found = copies({p.name: p.read_text(encoding="utf-8") for p in SPECS})
    shown = "\n".join(" and ".join(f"{f}:{n}" for f, n in p) for p in found[:20])
    assert found == [], f"{len(found)} runs of {RUN} lines stand in two places, e.g.\n{shown}"


# ---------------------------------------------------------------- what counts as a copy

def test_a_copied_block_is_found_within_a_file_and_across_files():
    block = "\n".join(f"x{i} := {i};" for i in range(6))
    assert copies({"a.rw": block + "\n# between\n" + block}) == [[("a.rw", 1), ("a.rw", 8)]]
    assert copies({"a.rw": block, "b.rw": "\n\n" + block}) == [[("a.rw", 1), ("b.rw", 3)]]


def test_comments_blank_lines_spacing_and_quotes_do_not_hide_a_copy():
    block = "\n".join(f"x{i} := {i};" for i in range(6))
    other = "\n".join(f"  x{i}   :=  {i};  # note {i}\n" for i in range(6))
    assert len(copies({"a.rw": block, "b.rw": other})) == 1


def test_five_lines_are_not_a_copy_and_the_document_block_is_not_read():
    five = "\n".join(f"x{i} := {i};" for i in range(5))
    assert copies({"a.rw": five + "\ny := 1;\n" + five}) == []
    doc = "document {\n" + "\n".join(f'  {i}: "same quote"' for i in range(8)) + "\n}\n"
    assert statement_lines(doc + "players 2\n") == [(11, "players 2")]
    assert copies({"a.rw": doc, "b.rw": doc}) == []
