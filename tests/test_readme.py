"""The README is a README: short, starting with the two commands a newcomer types, and pointing
to the manual in docs/ for everything else (issue 17).

- It stays under 130 lines: the manual, the CI notes, the speed log and the architecture live in
  docs/usage.md, docs/ci.md, docs/speed.md, docs/untrusted-specs.md and docs/architecture.md.
- Its first code block is the install-and-check command, its second the two test commands:
  the fast tier and every tier.
- Every docs/ path it or a page of docs/ names exists, and every section that the README, the
  docs, the code, the benchmarks or the tests cite by heading is still there under that heading.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))

INSTALL_AND_CHECK = "python3 -m venv .venv && .venv/bin/pip install '.[test]' && .venv/bin/rulewright check spec/"
FAST_TIER = ".venv/bin/python -m pytest -q"
EVERY_TIER = ".venv/bin/python -m pytest -q --all -n 2"

# a path inside docs/, not part of a longer path or address, ending in a letter or digit (so the
# full stop or comma after it is not part of it)
DOCS_PATH = re.compile(r"(?<![\w./:-])docs/[\w./-]*\w")
# a section cited by heading: (README, "Reliability"), docs/checks.md, "Symmetry"
CITATION = re.compile(r'(README|docs/[\w-]+\.md),?\s+"([^"]+)"')


def code_blocks(text: str) -> list[list[str]]:
    return [block.strip("\n").splitlines() for block in re.findall(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M)]


def headings(path: Path) -> list[str]:
    return re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.M)


def test_the_readme_is_under_130_lines():
    assert len(README.read_text(encoding="utf-8").splitlines()) < 130


def test_the_first_code_block_installs_rulewright_and_checks_the_bundled_specs():
    assert code_blocks(README.read_text(encoding="utf-8"))[0] == [INSTALL_AND_CHECK]


def test_the_second_code_block_runs_the_fast_tier_then_every_tier():
    assert code_blocks(README.read_text(encoding="utf-8"))[1] == [FAST_TIER, EVERY_TIER]


@pytest.mark.parametrize("page", [README, *DOCS], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_docs_path_a_page_names_exists(page):
    named = set(DOCS_PATH.findall(page.read_text(encoding="utf-8")))
    assert sorted(p for p in named if not (ROOT / p).exists()) == []


def test_the_readme_points_to_every_page_of_docs():
    named = set(DOCS_PATH.findall(README.read_text(encoding="utf-8")))
    assert sorted(str(p.relative_to(ROOT)) for p in DOCS if str(p.relative_to(ROOT)) not in named) == []


def test_every_section_cited_by_heading_exists():
    sources = [README, *DOCS, ROOT / "CHANGELOG.md", ROOT / ".pre-commit-hooks.yaml",
               *(ROOT / "checker").rglob("*.py"), *(ROOT / "bench").rglob("*.py"), *(ROOT / "tests").glob("*.py")]
    missing = []
    for source in sources:
        for page, section in CITATION.findall(source.read_text(encoding="utf-8")):
            section = re.sub(r"\s*\n\s*(#\s*)?", " ", section)  # a citation wrapped over lines (of a comment)
            target = README if page == "README" else ROOT / page
            if not any(section in h for h in headings(target)):
                missing.append(f"{source.relative_to(ROOT)}: {page}, {section!r}")
    assert missing == []
