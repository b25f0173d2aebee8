"""Invariants (docs/checks.md, "Kinds"): each is judged at the first state, by id, where it
fails or has no value, whatever the other invariants do; the states are read once for all."""
from checking import _check

COUNTER = """players 2
var x: 0..6 = 0
var d: 0..3 = 1
action up progress when x < 6 do x := x + 1; if x == 3 then d := 0; end end
invariant small: x <= 4
invariant early: x <= 1
invariant ratio: x / d <= 9
invariant fine: x >= 0
"""


def test_several_invariants_each_at_the_shortest_trace_that_breaks_it(tmp_path):
    res, _ = _check(tmp_path, COUNTER)
    found = {f.subject[0]: (f.kind, len(f.trace)) for f in res.findings if f.kind in ("invariant", "evaluation-error")}
    # `early` breaks at x = 2, `ratio` has no value once d is 0 (x = 3), `small` breaks at x = 5
    assert {name: kind for name, (kind, _) in found.items()} == {
        "early": "invariant", "ratio": "evaluation-error", "small": "invariant"}
    assert found["early"][1] < found["ratio"][1] < found["small"][1]
