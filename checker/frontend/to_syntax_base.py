"""What every part of the `ToIR` Transformer shares: the file its spans name, picking the tag
list out of a node's children, and the two helpers more than one part needs (`Tags`,
`unquote`).

`SyntaxBuilder` is the base of the mixins `checker.frontend.to_syntax.ToIR` is made of. Each
mixin is decorated with `v_args(meta=True)` itself: lark's decorator wraps only the methods a
class defines, not those it inherits.
"""
from __future__ import annotations

import re

from lark import Token, Transformer, v_args

from . import syntax as ir


def _span(file: str, meta) -> ir.Span:
    if getattr(meta, "empty", False) or not hasattr(meta, "line"):
        return ir.Span(file, 0, 0, 0, 0)
    return ir.Span(file, meta.line, meta.column, meta.end_line, meta.end_column)


def unquote(tok: Token) -> str:
    """A quoted string's text: `\\"` and `\\\\` stand for a quote and a backslash."""
    return re.sub(r'\\(["\\])', r"\1", str(tok)[1:-1])


class Tags(list):
    """Marker type so the transformer can tell a tag list from other children."""


@v_args(meta=True)
class SyntaxBuilder(Transformer):
    def __init__(self, file: str):
        super().__init__()
        self.file = file

    def sp(self, meta) -> ir.Span:
        return _span(self.file, meta)

    # --- helpers to pick children apart
    @staticmethod
    def _split(children):
        tags = ()
        rest = []
        for c in children:
            if isinstance(c, Tags):
                tags = tuple(c)
            elif c is not None:
                rest.append(c)
        return tags, rest

    def tags(self, meta, children):
        return Tags(str(c) for c in children)
