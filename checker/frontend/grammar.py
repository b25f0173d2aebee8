"""The grammar file, its keywords, the LALR parser built from it (its tables cached only where
no one else can write), and limits on a parse tree, checked before anything recursive walks it.

Lark's LALR parser is iterative, but its Transformer (and every pass over the IR after it)
recurses once or more per level of nesting, so 500 nested `not` end in RecursionError. The
tree is therefore measured here, with an explicit stack, right after parsing: nesting deeper
than `MAX_DEPTH` and numbers longer than `MAX_DIGITS` are refused with a located diagnostic.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Tree

from .diagnostics import Code, Diagnostic, SpecError
from .syntax import Span

# Levels below a top-level item (the declaration is level 1). The bundled specs nest at most
# 13 deep; 100 leaves them room and keeps every later recursive pass (the Transformer, type
# checks, compilation to closures, the Z3 encoding: a few frames per level each) far below
# Python's recursion limit of 1000.
MAX_DEPTH = 100

# 18 digits always fit in a signed 64-bit integer, and stay far below int()'s 4300-digit limit.
MAX_DIGITS = 18

# The Transformer folds these flat lists of operands into left-deep chains of binary nodes,
# so `a + b + c` nests one level per operator in the IR although it is one node here.
_CHAINS = {"sum": "+/-", "product": "*, / or %", "conjunction": "and", "disjunction": "or"}


def grammar_path() -> Path:
    """grammar/rulewright.lark: beside the package when installed, at the repository root in a checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "grammar" / "rulewright.lark", here.parent.parent / "grammar" / "rulewright.lark"):
        if candidate.exists():
            return candidate
    raise FileNotFoundError("rulewright.lark not found next to the checker package")


@lru_cache(maxsize=1)
def lark_parser() -> Lark:
    # lark's own cache=True would unpickle a predictably named file in the shared temp folder,
    # which anyone can plant. Building the tables takes about 0.2 s per process, a tenth of a
    # small run, so they are cached only in a folder that only this user can write (or not at all).
    return Lark(grammar_path().read_text(encoding="utf-8"), parser="lalr", lexer="contextual",
                propagate_positions=True, maybe_placeholders=True, postlex=_Names(),
                cache=_private_cache_file() or False)


class _Names:
    """Lets the contextual lexer try NAME in every parser state, not only where a name may stand.

    A state's lexer knows only the terminals the parser accepts there. Where a keyword may stand
    and a name may not (`in` after `forall p`, `end` after a statement), `in_x` was lexed as the
    keyword `in` and then `_x`, and where nothing matched, lark fell back to a lexer of every
    terminal, in which a rule id or a finding kind cut `no_life` to `no`. With NAME always
    tried, a word is always read whole: a keyword only when the whole word is the keyword (lark
    turns a NAME that spells a keyword of the state into that keyword), and an identifier the
    state cannot take is reported whole, as what it is."""

    always_accept = ("NAME",)

    def process(self, stream):
        return stream


def _private_cache_file() -> str | None:
    """A cache file name in a folder only the current user can write, or None if there is no
    such folder. Lark stores the grammar's hash in the file and rebuilds when it differs."""
    import hashlib
    import os
    import stat
    import sys

    import lark

    if not hasattr(os, "getuid") or os.environ.get("RULEWRIGHT_NO_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "rulewright")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        st = os.lstat(folder)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
            return None
        digest = hashlib.sha256(grammar_path().read_bytes()).hexdigest()[:16]
        name = os.path.join(folder, f"grammar-{digest}-lark{lark.__version__}-py{sys.version_info[0]}{sys.version_info[1]}.cache")
        if os.path.lexists(name):
            st = os.lstat(name)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
                return None
        return name
    except OSError:
        return None


@lru_cache(maxsize=1)
def keywords() -> frozenset[str]:
    """Every word the grammar spells out (`var`, `active`, `when`, ...); `keywords.py` says which
    of them may still be names (the soft keywords)."""
    return frozenset(re.findall(r'"([a-z_]+)"', grammar_path().read_text(encoding="utf-8")))


def check_tree(tree: Tree, file: str) -> None:
    """Refuse the first (in reading order) node nested too deep, or number too long."""
    stack: list[tuple[object, int, Span]] = [(tree, -1, Span(file, 1, 1, 1, 2))]
    while stack:
        node, depth, near = stack.pop()
        if isinstance(node, Token):
            if node.type == "NUMBER" and len(node) > MAX_DIGITS:
                raise SpecError(_too_long(node, file))
            continue
        if not isinstance(node, Tree):  # None placeholders for absent optional parts
            continue
        here = _span(node, file) or near
        depth += _levels(node)
        if depth > MAX_DEPTH:
            raise SpecError(_too_deep(node, here))
        stack.extend((child, depth, here) for child in reversed(node.children))


def _levels(node: Tree) -> int:
    """How many levels of the IR this node becomes (a chain of k operands becomes k-1)."""
    if node.data in _CHAINS:
        return max(1, _operands(node) - 1)
    return 1


def _operands(node: Tree) -> int:
    return sum(1 for c in node.children if isinstance(c, Tree))


def _span(node: Tree, file: str) -> Span | None:
    meta = node.meta
    if getattr(meta, "empty", True) or not hasattr(meta, "line"):
        return None
    return Span(file, meta.line, meta.column, meta.end_line, meta.end_column)


def _too_deep(node: Tree, at: Span) -> Diagnostic:
    if node.data in _CHAINS:
        message = (f"a chain of {_operands(node)} `{_CHAINS[node.data]}` terms nests deeper than "
                   f"{MAX_DEPTH} levels")
        hint = (f"each operator is one level: put groups of fewer than {MAX_DEPTH} terms in separate "
                f"`let`s and add those up in one expression")
    else:
        message = f"nesting deeper than {MAX_DEPTH} levels"
        hint = (f"rulewright reads at most {MAX_DEPTH} levels of nested expressions and statements; "
                f"name inner parts with `let`, or flatten nested `if`s with `elif`")
    return Diagnostic(Code.TOO_DEEP, message, at, hint)


def _too_long(tok: Token, file: str) -> Diagnostic:
    end = tok.end_column if tok.end_line == tok.line and tok.end_column else tok.column + len(tok)
    return Diagnostic(Code.NUMBER_TOO_LARGE, f"number too large: {len(tok)} digits (at most {MAX_DIGITS})",
                      Span(file, tok.line, tok.column, tok.line, end),
                      "rulewright works with numbers below 10^18")
