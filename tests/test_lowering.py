"""What the lowerings of phases and matches produce (checker.frontend.lower), against golden files.

Each golden file in tests/golden/lower/ is `checker.frontend.lower.printer.render` of every
model of one small spec: its variables (the lowered ones among them), its cycles of phases, its
match, and its actions with the phase chain and the game's results at the end of their
bodies, and `next_game`. A change of what the engines run (or of how binders and rules are
numbered) changes the text. After a change made on purpose, regenerate them with

    UPDATE_GOLDEN=1 python -m pytest tests/test_lowering.py

and review the difference like code.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from checker.engine import KINDS, MEASURES
from checker.frontend.lower import match as lower_match
from checker.frontend.lower import phases as lower_phases
from checker.frontend.lower.printer import expr, render
from checker.frontend.parser import parse_source
from checker.frontend.resolve import resolve_spec

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "lower"
DOC = ROOT / "docs" / "language.md"

# (golden file, where the spec comes from: a file of tests/, or the title of an example of the reference)
CASES = [
    ("phases_priority", "tests/specs/phases_priority.rw"),
    ("match_best_of_three", "tests/specs/match_best_of_three.rw"),
    ("match_restart", "tests/specs/match_restart.rw"),
    ("doc_turn_phases", "docs: Turn phases"),
    ("match_phases", "tests/golden/lower/match_phases.rw"),  # a match action: phases move only in a game
]


def _spec(source: str):
    if source.startswith("docs: "):
        title = source.removeprefix("docs: ")
        (text,) = [ex for ex in re.findall(r"```rulewright\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
                   if ex.startswith(f'spec "{title}"')]
        return parse_source(text, "docs/language.md", ROOT)
    return parse_source((ROOT / source).read_text(encoding="utf-8"), source, ROOT)  # named as in tests/


def _rendered(source: str) -> str:
    models, diags = resolve_spec(_spec(source), KINDS, MEASURES)
    assert diags == []
    return "\n".join(render(m) for m in models)


@pytest.mark.parametrize("name, source", CASES, ids=[c[0] for c in CASES])
def test_the_lowering_matches_its_golden_file(name, source):
    got = _rendered(source)
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(got, encoding="utf-8")
    assert path.exists(), f"no golden file {path}: run with UPDATE_GOLDEN=1"
    assert got == path.read_text(encoding="utf-8"), f"{name}: the lowering changed (UPDATE_GOLDEN=1 to accept)"


def test_every_golden_file_has_a_case():
    assert sorted(p.stem for p in GOLDEN.glob("*.txt")) == sorted(name for name, _ in CASES)


def test_the_variables_a_lowering_declares_are_plain_syntax():
    # the syntax-to-syntax part of each lowering: the declarations it adds, before anything is typed
    spec = _spec("tests/specs/match_best_of_three.rw")
    (match,) = [d for d in spec.decls if type(d).__name__ == "MatchDecl"]
    assert [v.name for v in lower_match.match_variables(match)] == ["between_games", "wins", "draws", "last_loser"]
    (cycle,) = [d for d in spec.decls if type(d).__name__ == "PhasesDecl"]
    var = lower_phases.phase_variable(cycle)
    assert (var.name, var.type.members, var.init.name) == ("step", ("main", "ending"), "main")


def test_the_printer_parenthesizes_what_binds_loosely():
    text = "players 2\nvar x: 0..9 = 0\nvar b: bool = false\n" \
           "action a when not (b or x > 1) and (x + 1) * 2 == 4 - (3 - x) do x := -(x - 1); end\n"
    (model,), diags = resolve_spec(parse_source(text, "p.rw", ROOT), KINDS, MEASURES)
    (action,) = model.actions
    assert expr(action.guard) == "not (b or x > 1) and (x + 1) * 2 == 4 - (3 - x)"
    assert render(model).splitlines()[-2] == "  x := -(x - 1);"
