"""`check --exact` (checker/exact.py, docs/checks.md lists the note abstraction-differs): a model that rounds
an amount to a step is checked again with those numbers in ones, and a note says where the
rounding changed a verdict."""
from checker import engine
from checker.cli import main
from checker.exact import exact_spec
from checker.explicit.explore import Limits
from checker.frontend.parser import parse_file
from checking import _check

DOC = 'spec "s" formalizes "s.txt"\ndocument { 1: "each player starts with 10 HP; a blast deals 1" }\n'
BLASTS = """players 2
var hp(p: player) [1]: 0..10 in steps of 5 rounding down = 10
var turn [1]: player = P1
active p [1] when turn == p
action blast [1] progress do
  hp[next(turn)] := max(0, hp[next(turn)] - 1);
  turn := next(turn);
end
outcome ko [1]: lose player p when hp[p] == 0
outcome last [1]: win player p when in_game(p) and size(remaining) == 1
"""


def test_a_rounding_that_drops_every_blast_is_named_by_the_model_in_ones(tmp_path):
    res, spec = _check(tmp_path, DOC + BLASTS)
    assert not [f for f in res.findings if f.kind == "abstraction-differs"]  # only with --exact
    res = engine.check([str(spec)], exact=True)
    (note,) = [f for f in res.findings if f.kind == "abstraction-differs"]
    assert note.message.startswith("the rounding changes a verdict: only the model in ones finds unreachable-outcome [1] "
                                   "(P2 can never win (rule `last`)); and only the rounded model finds ")
    assert "forced-loop [1]" in note.message and note.severity == "info"
    assert note.subject == ("hp",) and note.spans[0].line == 8  # the amount rounded: `- 1`


def test_a_rounding_that_changes_no_verdict_says_nothing():
    res = engine.check(["tests/fixtures/overflow/rounding-defect.rw"], exact=True)
    assert [f.kind for f in res.findings] == ["overflow"]


def test_a_model_in_ones_beyond_the_limit_is_compared_with_nothing():
    res = engine.check(["tests/fixtures/overflow/rounding-defect.rw"], Limits(max_states=5_000), exact=True)
    (note,) = [f for f in res.findings if f.kind == "abstraction-differs"]
    assert note.message.startswith("not compared: the model in ones was not checked to its end (")
    assert res.exit_code() == 1  # the overflow, as without --exact: a note changes no verdict


def test_only_rounding_variables_are_counted_in_ones():
    assert exact_spec(parse_file("tests/fixtures/overflow/twin.rw")) is None
    exact = exact_spec(parse_file("tests/fixtures/overflow/rounding-defect.rw"))
    (hp,) = [d for d in exact.decls if getattr(d, "name", "") == "hp"]
    assert hp.step is None and hp.rounding == ""


def test_the_cli_takes_exact(tmp_path, capsys):
    _, spec = _check(tmp_path, DOC + BLASTS)
    assert main(["check", str(spec), "--exact", "--jobs", "1", "-v"]) == 1
    assert "info[abstraction-differs] the rounding changes a verdict" in capsys.readouterr().out
