"""Tags that name a rule the `document` block does not list: input errors, found before anything
is explored.

A tag is how a finding, a trace and the coverage report point into the source document; one that
names no listed id is a typo or a tag from another edition, and every report built on it would
cite a rule no reader can look up. So a file with a `document` block must tag only ids it lists
(a file without one has nothing to check tags against). Each unknown tag is reported once, where
it is first used, with a caret under the tag itself and the closest listed id; after `CAP` of
them one more line says how many are left, as a long list helps no one.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Iterator

from . import syntax as ir
from .diagnostics import Code, Diagnostic, source_line
from .syntax import Span, walk

CAP = 20


def tagged_nodes(spec: ir.SpecFile) -> Iterator[tuple[str, Span]]:
    """(tag, span of the tagged declaration or statement) for every tag anywhere in the file,
    in reading order."""
    roots = list(spec.decls) + list(spec.formats)
    for node in walk(roots):
        for t in getattr(node, "tags", ()) or ():
            yield t, node.span


def undefined_tags(spec: ir.SpecFile) -> list[Diagnostic]:
    """One error per tag naming an id the document block does not list (none without a block)."""
    if not spec.ids:
        return []
    listed = sorted({d.id for d in spec.ids})
    known = set(listed)
    out: list[Diagnostic] = []
    seen: set[str] = set()
    for tag, span in tagged_nodes(spec):
        if tag in known or tag in seen:
            continue
        seen.add(tag)
        out.append(_undefined(tag, _tag_span(tag, span), listed))
    if len(out) > CAP:
        rest = len(out) - CAP
        more = Diagnostic(Code.UNDEFINED_RULE, f"... and {rest} more tag{'s' if rest > 1 else ''} naming rules the "
                          "document block does not list", out[CAP].span,
                          "list the rules in `document { ... }` or correct the tags")
        out = out[:CAP] + [more]
    return out


def _undefined(tag: str, span: Span, listed: list[str]) -> Diagnostic:
    close = difflib.get_close_matches(tag, listed, n=1)
    hint = (f"did you mean `{close[0]}`? " if close else "") + \
        f"list `{tag}` in `document {{ ... }}` if the source document has it, or correct the tag"
    return Diagnostic(Code.UNDEFINED_RULE, f"tag [{tag}] names a rule the document block does not list", span, hint)


def _tag_span(tag: str, near: Span) -> Span:
    """The tag itself inside the tagged node's text (`[P4a]`, `[1.2, P4a]`), else the node."""
    pattern = re.compile(r"[\[,]\s*(" + re.escape(tag) + r")\s*[,\]]")
    for line in range(near.line, max(near.line, near.end_line) + 1):
        text = source_line(Span(near.file, line, 1, line, 1))
        if text is None:
            break
        start = near.col - 1 if line == near.line else 0
        m = pattern.search(text, start)
        if m:
            col = m.start(1) + 1
            return Span(near.file, line, col, line, col + len(tag))
    return near
