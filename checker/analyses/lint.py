"""Lints over a parsed file: rule ids listed twice, tags naming ids the document does not list."""
from __future__ import annotations

from ..frontend import syntax as ir
from ..frontend.syntax import walk
from .findings import Finding


def tagged_nodes(spec: ir.SpecFile):
    """(tag, span) for every tag on a declaration or statement anywhere in the file."""
    roots = list(spec.decls) + list(spec.formats)
    for node in walk(roots):
        for t in getattr(node, "tags", ()) or ():
            yield t, node.span


def lint(spec: ir.SpecFile) -> list[Finding]:
    out: list[Finding] = []
    seen: dict[str, ir.DocId] = {}
    for d in spec.ids:
        if d.id in seen:
            out.append(Finding("duplicate-id", f"rule id {d.id} is listed twice (first at {seen[d.id].span})",
                               (d.id,), (d.span,), spec.path, spec.path, key=d.id, subject=(d.id,)))
        else:
            seen[d.id] = d
    if not spec.ids:
        return out
    reported: set[str] = set()
    for tag, span in tagged_nodes(spec):
        if tag not in seen and tag not in reported:
            reported.add(tag)
            out.append(Finding("undefined-rule", f"tag [{tag}] names a rule the document block does not list",
                               (tag,), (span,), spec.path, spec.path, key=tag, subject=(tag,)))
    return out
