"""Every example in docs/language.md parses; complete examples (a header and a table) also compile."""
import re
from pathlib import Path

import pytest

from checker.explicit.machine import Machine
from checker.engine import load_instances
from checker.frontend.parser import parse_file, parse_text

DOC = Path(__file__).resolve().parent.parent / "docs" / "language.md"
EXAMPLES = re.findall(r"```rulewright\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_reference_has_examples():
    assert len(EXAMPLES) >= 15


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_every_example_in_the_reference_parses(index):
    parse_text(EXAMPLES[index], f"docs/language.md#example{index}")


CONSTRUCTS = ["spec", "document", "out_of_scope", "include", "format", "reading", "param", "let", "players",
              "teams", "seating", "var", "choice", "init", "constraint", "action", "progress", "leave", "outcome",
              "precedence", "winners", "ends", "active", "procedure", "invariant", "reachable", "expect",
              "forall", "exists", "count(", "sum(", "if", "elif", "lose", "win", "draw", "finish", "cannot",
              "trigger", "lost_now(",
              "phases", "match", "game won by", "game drawn", "game starts",
              # outcomes for some players while the game goes on
              "drew(", "after_win", "same_step", "loop_draws", "state_based", "extends"]


@pytest.mark.parametrize("keyword", CONSTRUCTS)
def test_every_construct_has_an_example(keyword):
    assert any(re.search(rf"(^|\W){re.escape(keyword)}", ex) for ex in EXAMPLES), keyword


def test_grammar_keywords_are_all_documented():
    grammar = (DOC.parent.parent / "grammar" / "rulewright.lark").read_text(encoding="utf-8")
    keywords = set(re.findall(r'"([a-z_]+)"', grammar))
    text = DOC.read_text(encoding="utf-8")
    missing = sorted(k for k in keywords if not re.search(rf"\b{k}\b", text))
    assert missing == []


def test_the_examples_assembled_into_one_spec_compile(tmp_path):
    spec = tmp_path / "doc.rw"
    spec.write_text("""
spec "Doc example" formalizes "doc.txt"
param S [1] in 2..2
teams [1] A, B size S
seating [1] alternate
var turn [1]: player = any
var life(p: player) [1]: 0..3 = 2
var points(t: team) [1]: 0..2 = 0
var phase [1]: {main, combat} = main
var markers [1]: set player = {}
var attacked [1]: player? = none
choice copies(p: player) [1]: 0..8
constraint copies_ok [1]: forall t in teams: sum(p in members(t): copies[p]) <= 4
init first [1]: turn in {A1, B1}
let opposite(p: player) = across(p)
action attack(q: player, n: 1..2) [1] progress when q in opponents(turn) and dist(turn, q) <= 1 and life[q] >= n do
  life[q] := life[q] - n;
  attacked := q;
  markers := markers + {q};
  if count(x in players: life[x] == 0) > 0 then phase := combat; elif phase == combat then phase := main; else phase := main; end
  turn := after(turn, A1, B1, A2, B2);
end
action pass [1] progress do turn := next_in_game(turn); end
action pass_all_markers [1] progress when markers != {} do markers := {next_in_game(p) | p in markers}; end
action trade_places [1] when true do
  turn, attacked := after(turn, A1, B1), turn;
  life[turn], life[A2] := life[A2], min(life[turn], 2);
end
action concede(p: player) [1] leave when in_game(p) do lose p; end
outcome dead [1]: lose player p when life[p] <= 0
outcome team_out [1]: lose team t when forall p in members(t): lost(p)
outcome team_wins [1]: win team t when exists u in teams: u != t and lost(u)
precedence [1] lose over win
winners [1] one
active p [1] when turn == p
procedure fight [1]: phase == combat
invariant sane [1]: forall t in teams: points[t] <= 2
reachable can_win(t: team) [1]: won(t)
""", encoding="utf-8")
    for inst in load_instances(str(spec)):
        Machine(inst)


def test_the_complete_example_is_clean_as_the_reference_says(tmp_path):
    from checker import engine
    (example,) = [ex for ex in EXAMPLES if "A three-player ring" in ex]
    spec = tmp_path / "ring.rw"
    spec.write_text(example, encoding="utf-8")
    res = engine.check([str(spec)])
    assert res.findings == [] and res.exit_code() == 0


COMPLETE = [i for i, ex in enumerate(EXAMPLES) if ex.startswith('spec "') and re.search(r"^(players|teams) ", ex, re.M)]


def test_the_reference_has_complete_examples():
    assert len(COMPLETE) >= 10


@pytest.mark.parametrize("index", COMPLETE)
def test_every_complete_example_in_the_reference_compiles(index, tmp_path):
    # a complete example (a header and a table) is a spec a writer may copy: it must load and
    # compile as written, not only parse
    spec = tmp_path / "example.rw"
    spec.write_text(EXAMPLES[index], encoding="utf-8")
    for inst in load_instances(str(spec)):
        Machine(inst)
