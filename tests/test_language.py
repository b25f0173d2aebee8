"""Language constructs that are sugar over the core: each reads as its documented expansion."""
from __future__ import annotations

from checker import engine
from checker.frontend import syntax as sx
from checker.frontend.parser import parse_text


def _expr(text: str):
    (inv,) = [d for d in parse_text(f"invariant i: {text}\n", "t.rw") if isinstance(d, sx.InvariantDecl)]
    return inv.cond


def test_elif_in_an_expression_is_a_chain_of_ifs():
    assert _expr("if a then 1 elif b then 2 elif c then 3 else 4 end") == \
        _expr("if a then 1 else if b then 2 else if c then 3 else 4 end end end")


def test_the_first_branch_whose_condition_holds_gives_the_value(tmp_path):
    spec = tmp_path / "e.rw"
    spec.write_text("players 2\nvar x: 0..3 = 0\n"
                    "action a progress when x < 3 do x := x + 1; end\n"
                    "invariant picks [1]: (if x >= 2 then 20 elif x >= 1 then 10 else 0 end) == "
                    "(if x >= 2 then 20 else if x >= 1 then 10 else 0 end end)\n"
                    "invariant wrong: (if x >= 1 then 1 elif x >= 2 then 2 else 0 end) != 2\n", encoding="utf-8")
    res = engine.check([str(spec)])
    assert not any(f.kind in ("invariant", "evaluation-error") for f in res.findings)


def test_a_quote_may_contain_escaped_quotes_and_backslashes():
    items = parse_text('document { Q3: "the \\"wait\\" rule, a \\\\ b" }\n', "q.rw")
    (doc,) = [i for i in items if isinstance(i, tuple) and i[0] == "document"]
    assert doc[1][0].quote == 'the "wait" rule, a \\ b'
