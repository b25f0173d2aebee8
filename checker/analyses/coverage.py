"""Coverage: for each source document, which listed ids are formalized, out of scope, or missing."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..frontend import syntax as ir
from .lint import tagged_nodes


@dataclass
class Coverage:
    document: str
    specs: list[str] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    formalized: list[str] = field(default_factory=list)
    out_of_scope: list[str] = field(default_factory=list)

    @property
    def missing(self) -> list[str]:
        done = set(self.formalized) | set(self.out_of_scope)
        return [i for i in self.ids if i not in done]


def coverage(specs: list[ir.SpecFile]) -> list[Coverage]:
    by_doc: dict[str, Coverage] = {}
    for spec in specs:
        doc = spec.document or spec.path
        cov = by_doc.setdefault(doc, Coverage(doc))
        cov.specs.append(spec.path)
        for d in spec.ids:
            if d.id not in cov.ids:
                cov.ids.append(d.id)
        oos = set()
        for node in list(spec.decls) + [d for f in spec.formats for d in f.decls]:
            if isinstance(node, ir.OutOfScopeDecl):
                oos.update(node.tags)
        tagged = {t for t, _ in tagged_nodes(spec)} - oos
        for i in cov.ids:
            if i in tagged and i not in cov.formalized:
                cov.formalized.append(i)
            if i in oos and i not in cov.out_of_scope and i not in tagged:
                cov.out_of_scope.append(i)
    return [by_doc[k] for k in sorted(by_doc)]


def render(covs: list[Coverage]) -> str:
    lines = []
    for c in covs:
        lines.append(f"{c.document}  ({', '.join(c.specs)})")
        lines.append(f"  ids: {len(c.ids)}  formalized: {len(c.formalized)}  out of scope: {len(c.out_of_scope)}  missing: {len(c.missing)}")
        if c.missing:
            lines.append("  missing: " + ", ".join(c.missing))
    return "\n".join(lines)
