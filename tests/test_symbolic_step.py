"""What one step of the symbolic engine costs (docs/speed.md, "One step of the symbolic
engine"): the rounds of a step's outcome resolution and triggers stop where no value can make
them derive anything, and the terms are built without z3's coercions, yet are the terms z3's
own functions build. The meaning is checked against the explorer by tests/test_backends.py,
whose specs include tests/specs/outcome_chain.rw (a step of several rounds).
"""
from __future__ import annotations

import pytest
import z3

from checker.engine import load_instances
from checker.symbolic import bmc, horn, outcomes
from checker.symbolic.bmc import BMC
from checker.symbolic.encode import Encoder
from checker.symbolic.terms import Unsupported, and_, concrete, decided, int_val, not_, or2, or_, or_all

# Two teams of three; a loss rule reads won(), so resolution goes in rounds, and a trigger on
# every loss, so settling does too. Nothing a round after the first derives can change anything
# here: the winners' opponents have already lost.
TEAMS = """
teams A, B size 3
var life(t: team): 0..3 = 3
var turn: player = A1
action hit(q: player) progress when team(q) != team(turn) and in_game(q) do
  life[team(q)] := life[team(q)] - 1;
  turn := next_in_game(turn);
end
outcome zero: lose player p when life[team(p)] <= 0
outcome beaten: lose player p when exists q in players: won(q) and team(q) != team(p)
outcome team_out: lose team t when forall p in members(t): lost(p)
outcome team_wins: win team t when forall u in teams: u == t or lost(u)
outcome last: win player p when in_game(p) and forall q in players: lost(q) or team(q) == team(p)
trigger skip on lose player p when turn == p do turn := next_in_game(p); end
"""


def _instance(tmp_path, text):
    path = tmp_path / "s.rw"
    path.write_text(text, encoding="utf-8")
    (inst,) = load_instances(str(path))
    return inst


def _count(monkeypatch, module, name, tally: list, counts=lambda *args: True):
    """Replace module.name by itself counting its calls (those `counts` accepts) in tally[0]."""
    fn = getattr(module, name)

    def counting(*args, **kwargs):
        tally[0] += bool(counts(*args))
        return fn(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)


def test_a_steps_resolution_stops_at_the_round_that_can_derive_nothing(tmp_path, monkeypatch):
    inst = _instance(tmp_path, TEAMS)
    loss_rounds, resolutions, settlings = [0], [0], [0]
    _count(monkeypatch, outcomes, "_fixpoint", loss_rounds, lambda enc, st, rules, *rest: rules and rules[0].kind == "lose")
    _count(monkeypatch, outcomes, "resolve", resolutions)
    _count(monkeypatch, bmc, "settle", settlings)
    BMC(inst).extend()
    losses = [r for r in inst.model.outcomes if r.kind == "lose"]
    assert outcomes._slots(Encoder(inst), losses) + 1 == 6 + 2 + 1  # the bound: a round per loss fact
    # each resolution: the first round and the one that finds nothing new; each settling: the
    # first resolution and one round of triggers (the bound is one round per player)
    assert loss_rounds[0] == 2 * resolutions[0]
    assert resolutions[0] == 2 * settlings[0]


WIDE = TEAMS.replace("action hit(q: player)", "action hit(q: player, n: 1..500)").replace(
    "life[team(q)] := life[team(q)] - 1;", "life[team(q)] := if n >= life[team(q)] then 0 else life[team(q)] - n end;"
).replace("0..3 = 3", "0..500 = 500")


@pytest.mark.parametrize("text", [TEAMS, WIDE], ids=["teams", "wide-argument"])
def test_a_later_step_is_the_first_steps_formulas_over_its_own_frames_and_arguments(tmp_path, text):
    # (BMC.steps renames the first step's formulas instead of encoding each step again)
    inst = _instance(tmp_path, text)
    u = BMC(inst)
    u.extend()
    u.extend()
    u.frames.append(bmc._Frame(inst, 3))
    f, g = u.frames[2], u.frames[3]
    renamed = u.steps(f, g)
    encoded = [(o.action, z3.And(o.ok, g.equals(o.post, o.ended, o.gap))) for o in u._options(f) if o.post is not None]
    assert [a for a, _ in renamed] == [a for a, _ in encoded]
    s = z3.Solver()
    for (_, x), (_, y) in zip(renamed, encoded):
        assert s.check(x != y) == z3.unsat
    # nothing of the first frames is left in them: each reads frames 2 and 3 and its own arguments
    names = {str(t) for t in horn._constants(*[x for _, x in renamed])}
    assert names and all(n.endswith(("@2", "@3")) or "@2." in n for n in names)



def test_never_is_said_only_of_a_condition_no_value_satisfies(tmp_path):
    enc = Encoder(_instance(tmp_path, TEAMS))
    x = z3.Int("x")
    assert enc.never(z3.And(x > 0, x < 0))
    assert enc.never(z3.BoolVal(False)) and enc.never(False)
    assert not enc.never(x > 0)
    assert not enc.never(z3.BoolVal(True)) and not enc.never(True)
    # folding (a replay): its conditions are literals, and a term is never asked about
    assert not Encoder(enc.inst, fold=True).never(z3.And(x > 0, x < 0))


def test_the_connectives_build_the_terms_z3_builds():
    p, q, r = z3.Bools("p q r")
    assert and_(p, q, r).eq(z3.And(p, q, r))
    assert or_(p, q).eq(z3.Or(p, q))
    assert not_(p).eq(z3.Not(p))
    assert or_all([p, z3.BoolVal(False), q]).eq(z3.Or(p, q))
    assert or2(p, q).eq(z3.Or(p, q))
    # a Python literal among the operands still folds
    assert and_(p, False) is False and or_(p, True) is True


def test_an_integer_literal_is_the_term_of_z3s_intval_a_new_object_each_time():
    a, b = int_val(7), int_val(7)
    assert a.eq(z3.IntVal(7)) and a is not b
    assert concrete(a) == 7 and concrete(z3.IntVal(-3)) == -3 and concrete(z3.Int("x") + 0) is None
    assert decided(z3.simplify(z3.Or(z3.Bool("p"), z3.Not(z3.Bool("p"))))) is True
    assert decided(z3.BoolVal(False)) is False and decided(z3.Bool("p")) is None


def test_an_arguments_quantifier_is_eliminated_or_said_unsupported():
    x, y = z3.Ints("x y")
    out = bmc.eliminated(z3.Exists([y], z3.And(y > x, y < 5)))
    s = z3.Solver()
    s.add(out != (x <= 3))
    assert s.check() == z3.unsat  # "some y with x < y < 5" is "x <= 3"
    with pytest.raises(Unsupported, match="could not eliminate"):
        bmc.eliminated(z3.Exists([y], y * y == x))  # (not linear: the tactic leaves it)


# A `let` of parameters (`HIT = 8000 / HITS`, the size of a hit where life is counted in steps)
# is a number in each instance; times an action's amount it must stay a linear term.
STEPS = """
players 2
param HITS in {8000}
let HIT = 8000 / HITS
var life: 0..8000 in steps of HIT = 8000
action hit(n: 1..HITS) progress when life > 0 do
  life := if n * HIT >= life then 0 else life - n * HIT end;
end
"""


def _products(term) -> list:
    """The products in `term` of two or more factors that are not numbers."""
    out, todo, seen = [], [term], set()
    while todo:
        t = todo.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_mul(t) and sum(not z3.is_int_value(c) for c in t.children()) > 1:
            out.append(t)
        todo.extend(t.children())
    return out


def test_a_let_of_parameters_is_a_number_in_the_step_not_a_product_of_terms(tmp_path):
    inst = _instance(tmp_path, STEPS)
    u, f = horn.Prover(inst).frame()
    (opt,) = [o for o in u._options(f) if o.post is not None]
    (life,) = opt.post.vals["life"]
    assert _products(life) == []
    assert "8000/8000" not in str(life)
