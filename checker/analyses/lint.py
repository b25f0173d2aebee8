"""Lints over a parsed file: rule ids listed twice.

A tag naming an id the document does not list is an input error of the front end
(`checker.frontend.tags`, E022), found before anything is explored.
"""
from __future__ import annotations

from ..frontend import syntax as ir
from ..frontend.tags import tagged_nodes  # noqa: F401  (coverage.py reads the tags through here)
from .findings import Finding


def lint(spec: ir.SpecFile) -> list[Finding]:
    out: list[Finding] = []
    seen: dict[str, ir.DocId] = {}
    for d in spec.ids:
        if d.id in seen:
            out.append(Finding("duplicate-id", f"rule id {d.id} is listed twice (first at {seen[d.id].span})",
                               (d.id,), (d.span,), spec.path, spec.path, key=d.id, subject=(d.id,)))
        else:
            seen[d.id] = d
    return out
