"""The bundled specs cover their source documents: every rule id is formalized or out of scope,
and the ids and quotes in each spec match the document: in spec/sources (kept in the repository,
so always checked) or in ../shared/sources (checked when present)."""
import re
from pathlib import Path

import pytest

from bundled import bundled
from checker.analyses.coverage import coverage
from checker.frontend.parser import parse_file

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT.parent / "shared" / "sources"
# source texts kept beside the specs: public excerpts, each stating its origin at the top
REPO_SOURCES = ROOT / "spec" / "sources"
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


def source_of(document: str) -> Path:
    """The document's text: the copy in the repository if there is one, else the shared one."""
    here = REPO_SOURCES / document
    return here if here.exists() else SOURCES / document


def specs_by_document():
    docs = {}
    for path in SPECS:
        spec = parse_file(str(path))
        docs.setdefault(spec.document, []).append(spec)
    return docs


def test_there_is_a_spec_for_every_source_document():
    if not SOURCES.exists():
        pytest.skip("../shared/sources is not here")
    sources = {p.name for p in SOURCES.glob("*.txt")} | {p.name for p in REPO_SOURCES.glob("*.txt")}
    assert set(specs_by_document()) == sources


def test_every_source_kept_in_the_repository_has_a_spec_and_states_its_origin():
    kept = sorted(REPO_SOURCES.glob("*.txt"))
    assert kept, "spec/sources holds the source texts of the specs written in this repository"
    documents = set(specs_by_document())
    for path in kept:
        assert path.name in documents, f"{path.name} is no spec's document"
        head = path.read_text(encoding="utf-8")[:3000]
        assert "Retrieved on" in head and "http" in head, f"{path.name} does not say where and when it was taken from"


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_no_rule_id_is_missing(path):
    (cov,) = coverage([parse_file(str(path))])
    assert cov.ids, "the spec lists its document's ids"
    assert cov.missing == []


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_the_ids_match_the_source_document(path):
    spec = parse_file(str(path))
    source = source_of(spec.document)
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
    res = bundled()  # (one run of spec/, shared with other slow tests)
    assert res.diagnostics == [] and res.incomplete == []
    assert [f"{f.kind}: {f.message} ({f.instance})" for f in res.unexpected] == []
    assert sum(1 for f in res.findings if f.expected) >= 20
