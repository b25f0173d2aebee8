"""The Z3 replay of a trace costs the operations its rules perform (docs/speed.md, "The Z3
replay"): every input of a replayed step is concrete, so its values are Python literals and
no Z3 term is built for them, and yet a step that does not give the recorded state is still
rejected.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import z3

from checker.engine import load_instances
from checker.explicit.machine import Machine
from checker.symbolic.replay import ReplayStep, replay

MARKERS = Path(__file__).resolve().parent.parent / "bench" / "peers" / "markers.rw"

DUEL = """
players 3
var turn: player = P1
var life(p: player): 0..3 = 2
action hit(q: player) progress when in_game(q) and q != turn do
  life[q] := life[q] - 1;
  turn := next_in_game(turn);
end
outcome dead: lose player p when life[p] == 0
outcome last: win player p when in_game(p) and count(q in players: in_game(q)) == 1
"""


def instance(path: Path, **params):
    for inst in load_instances(str(path)):
        if all(inst.params.get(k) == v for k, v in params.items()):
            return inst
    raise AssertionError(f"no instance {params}")


def walk(inst, length: int) -> list[ReplayStep]:
    """A trace of the reference machine: from the first initial state, the last successor each
    time (the ring's markers move on, the duel's players lose), `length` steps or until none."""
    machine = Machine(inst)
    state = machine.initial_states()[0][0][0]
    steps = []
    for _ in range(length):
        nexts = [st for st in machine.successors(state) if st.target is not None]
        if not nexts:
            break
        st = nexts[-1]
        steps.append(ReplayStep(state, st.action, st.binding, st.target, hits=st.hits))
        state = st.target
    return steps


@pytest.fixture
def terms_built(monkeypatch):
    """How many Z3 terms (ASTs) were made since the test began."""
    made = [0]
    init = z3.AstRef.__init__

    def counting(self, *args, **kwargs):
        made[0] += 1
        init(self, *args, **kwargs)

    monkeypatch.setattr(z3.AstRef, "__init__", counting)
    return made


@pytest.mark.parametrize("case", ["markers ring, departures", "duel with outcomes"])
def test_a_replayed_trace_builds_no_z3_term(case, terms_built, tmp_path):
    if case.startswith("markers"):
        inst = instance(MARKERS, N=12, DEPARTURES=1)
    else:
        (tmp_path / "duel.rw").write_text(DUEL, encoding="utf-8")
        inst = instance(tmp_path / "duel.rw")
    steps = walk(inst, 12)
    assert len(steps) >= 4
    terms_built[0] = 0
    assert replay(inst, steps) == ""
    assert terms_built[0] == 0


def test_a_step_that_gives_another_state_is_still_rejected(tmp_path):
    (tmp_path / "duel.rw").write_text(DUEL, encoding="utf-8")
    inst = instance(tmp_path / "duel.rw")
    steps = walk(inst, 3)
    last = steps[-1]
    turn = inst.var("turn").offset
    wrong = last.post[:turn] + ((last.post[turn] + 1) % inst.nplayers,) + last.post[turn + 1:]
    steps[-1] = ReplayStep(last.pre, last.action, last.binding, wrong, hits=last.hits)
    assert replay(inst, steps).startswith("step 3 (hit): turn is ")
