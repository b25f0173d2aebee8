"""Which specs include a file, directly or through other includes.

An include file (`*.rwi`, or any file a spec includes) is no spec of its own: checked alone it
declares no players. Whatever checks an edited include file therefore checks the specs that
include it: the language server shows a `.rwi`'s problems as those specs see them, and
`rulewright affected` and `check --includers-in DIR` give a pre-commit hook or a CI job every
spec an edited include file belongs to.

The specs are the `*.rw` files under one folder tree, found as `rulewright check DIR` finds
them. Their include statements are found by scanning the text (strings and comments skipped),
not by the parser: a spec whose include file no longer parses, often because of the very edit
being checked, must still count as including it. The scan may over-count (an `include "x"`
that a syntax error makes no include), which only checks a spec more. Every file is read as
`includes` reads spec files (inside the tree, regular, size-capped) and every path resolved
the same way, so the scan asks nothing about places outside the tree. Where an include cannot
be read, the scan stops there: what it would include is unknown, and a check of the spec says
why it cannot be read.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from .diagnostics import SpecError
from .includes import Outside, SpecTree, resolve_within

# the grammar's COMMENT and STRING (grammar/rulewright.lark), words, and any other character
_TOKEN = re.compile(r'#[^\n]*|"(?:[^"\\\n]|\\["\\])*"|[A-Za-z_][A-Za-z0-9_]*|\S')


def is_spec(path: str | Path) -> bool:
    """A spec is a `*.rw` file, as a walked folder's specs are; anything else is only included."""
    return str(path).endswith(".rw")


def include_paths(text: str) -> list[str]:
    """The paths of the `include "..."` statements of a text, in order, whether or not the rest parses."""
    out: list[str] = []
    after_include = False
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok.startswith("#"):
            continue
        if after_include and len(tok) >= 2 and tok.startswith('"') and tok.endswith('"'):
            out.append(re.sub(r'\\(["\\])', r"\1", tok[1:-1]))  # as the parser unquotes a string
        after_include = tok == "include"
    return out


class _Graph:
    """The include statements of the files under one tree, each file read at most once."""

    def __init__(self, tree: str):
        self.tree = tree
        self.real_tree = os.path.realpath(tree)
        self.edges: dict[str, list[str]] = {}  # real path -> the real paths it includes

    def key(self, path: str) -> str | None:
        """The real path of a file of the tree; for one that does not exist (an include file the
        change being checked deletes) its real folder and its name; None if it is not in the tree."""
        try:
            return resolve_within(path, self.tree, self.real_tree)[0]
        except Outside:
            return None
        except OSError:
            pass
        try:
            folder = resolve_within(os.path.dirname(path) or ".", self.tree, self.real_tree)[0]
        except (Outside, OSError):
            return None
        return os.path.join(folder, os.path.basename(path))

    def visit(self, path: str, real: str) -> None:
        """Scan `path` and everything it includes, once each."""
        todo = [(path, real)]
        while todo:
            path, real = todo.pop()
            if real in self.edges:
                continue
            self.edges[real] = []
            try:
                text, _ = SpecTree(self.tree).read(Path(path), path)
            except SpecError:
                continue  # unreadable: what it includes is unknown
            for rel in include_paths(text):
                if "\x00" in rel or os.path.isabs(rel):
                    continue  # refused by the parser as it stands
                target = os.path.join(os.path.dirname(path), rel)
                key = self.key(target)
                if key is not None:
                    self.edges[real].append(key)
                    todo.append((target, key))

    def reaching(self, targets: set[str]) -> set[str]:
        """The files that include one of `targets`, directly or through others."""
        back: dict[str, list[str]] = {}
        for src, dsts in self.edges.items():
            for d in dsts:
                back.setdefault(d, []).append(src)
        seen, todo = set(), list(targets)
        while todo:
            for src in back.get(todo.pop(), ()):
                if src not in seen:
                    seen.add(src)
                    todo.append(src)
        return seen


def specs_under(tree: str) -> list[str]:
    """The specs `rulewright check TREE` would check."""
    return sorted(str(f) for f in Path(tree).rglob("*.rw"))


def includers(files: list[str], tree: str) -> list[str]:
    """The specs under `tree` that include one of `files`, directly or through other includes,
    sorted. A file outside the tree is included by none of them (includes stay in the tree)."""
    graph = _Graph(tree)
    targets = {k for k in map(graph.key, files) if k is not None}
    if not targets:
        return []
    specs = [(s, graph.key(s)) for s in specs_under(tree)]
    for s, real in specs:
        if real is not None:
            graph.visit(s, real)
    reaching = graph.reaching(targets)
    return [s for s, real in specs if real in reaching]


def affected(paths: list[str], tree: str) -> list[str]:
    """What a change of `paths` calls for checking: each of them that is a folder (walked as
    usual) or an existing spec, and every spec under `tree` that includes one of them. Each
    spec once (the first spelling of its real path; none inside a folder named, which checks
    it anyway), in order of the paths then the specs found."""
    named = [p for p in paths if os.path.isdir(p) or (is_spec(p) and os.path.isfile(p))]
    folders = [os.path.realpath(p) for p in named if os.path.isdir(p)]
    out, seen = [], set()
    for p in named + includers(paths, tree):
        real = os.path.realpath(p)
        if real in seen or (not os.path.isdir(p) and any(real.startswith(f.rstrip("/") + "/") for f in folders)):
            continue
        seen.add(real)
        out.append(p)
    return out
