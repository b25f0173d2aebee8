"""The bundled specs cover their source documents: every rule id is formalized or out of scope,
and the ids and quotes in each spec match the document in ../shared/sources (when present)."""
import re
from pathlib import Path

import pytest

from checker.analyses.coverage import coverage
from checker.frontend.parser import parse_file

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT.parent / "shared" / "sources"
SPECS = sorted(ROOT.glob("spec/*.rw"))
NUMBERED = {"riftbound-2v2-magma-chamber.txt", "mtg-multiplayer-draft-2004-fr.txt"}
# an id at a word boundary, possibly followed by a period, and not a cross-reference ("see rule 411")
ID = re.compile(r"(?<!rule )(?<!règle )(?:(?<=\s)|^)(\d{3}(?:\.(?:\d+[a-z]?|[a-z]))*)\.?(?=\s)", re.M)


def _norm(text: str) -> str:
    text = text.replace("’", "'").replace("“", '"').replace("”", '"').replace("**", "").replace("*", "")
    return re.sub(r"\s+", " ", text).strip()


def anchored(quote: str, norm_text: str) -> bool:
    """The quote's parts, split at `...` elisions, appear in the document in order."""
    pos = 0
    for part in (p.strip() for p in _norm(quote).split("...")):
        if not part:
            continue
        found = norm_text.find(part, pos)
        if found < 0:
            return False
        pos = found + len(part)
    return True


def specs_by_document():
    docs = {}
    for path in SPECS:
        spec = parse_file(str(path))
        docs.setdefault(spec.document, []).append(spec)
    return docs


def test_there_is_a_spec_for_every_source_document():
    if not SOURCES.exists():
        pytest.skip("../shared/sources is not here")
    assert set(specs_by_document()) == {p.name for p in SOURCES.glob("*.txt")}


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_no_rule_id_is_missing(path):
    (cov,) = coverage([parse_file(str(path))])
    assert cov.ids, "the spec lists its document's ids"
    assert cov.missing == []


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_the_ids_match_the_source_document(path):
    spec = parse_file(str(path))
    source = SOURCES / spec.document
    if not source.exists():
        pytest.skip(f"{source} is not here")
    text = source.read_text(encoding="utf-8")
    declared = [d.id for d in spec.ids]
    norm = _norm(text)
    if spec.document in NUMBERED:
        found = list(dict.fromkeys(ID.findall(text)))
        assert sorted(set(found) - set(declared)) == [], "ids in the document that the spec does not list"
        # an unnumbered part of a numbered document (a heading, a glossary entry) needs a quote
        invented = [d.id for d in spec.ids if d.id not in found and not (d.quote and anchored(d.quote, norm))]
        assert invented == [], "ids the spec lists that the document neither numbers nor quotes"
    unanchored = [d.id for d in spec.ids if d.quote and not anchored(d.quote, norm)]
    assert unanchored == [], "quotes not found in the document"
    if spec.document not in NUMBERED:
        assert all(d.quote for d in spec.ids), "paragraph ids of an unnumbered document need a quote"


def test_every_counterexample_write_up_is_indexed():
    index = (ROOT / "counterexamples" / "README.md").read_text(encoding="utf-8")
    write_ups = sorted(p.relative_to(ROOT / "counterexamples").as_posix()
                       for p in (ROOT / "counterexamples").glob("*/*.md"))
    assert write_ups
    assert [w for w in write_ups if f"({w})" not in index] == []


def test_the_bundled_specs_check_clean_with_their_reviewed_findings():
    from checker import engine
    res = engine.check([str(p.relative_to(ROOT)) for p in SPECS])
    assert res.diagnostics == [] and res.incomplete == []
    assert [f"{f.kind}: {f.message} ({f.instance})" for f in res.unexpected] == []
    assert sum(1 for f in res.findings if f.expected) >= 20
