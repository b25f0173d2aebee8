"""Instances: includes, formats, readings, parameter sweeps, seating; the seating functions of
both backends agree on every table."""
import z3
from hypothesis import given, settings, strategies as st

from checker.explicit.compile import dist_in_game, ring_step
from checker.engine import load_instances
from checker.frontend.parser import parse_file
from checker.symbolic.encode import Encoder, floordiv
from checker.symbolic.terms import SymState, concrete


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def test_includes_formats_and_readings_make_one_model_each(tmp_path):
    write(tmp_path, "general.rwi", 'document { 1 2 3 }\nvar life(p: player) [1]: 0..3 = 2\n')
    path = write(tmp_path, "f.rw", """spec "F" formalizes "f.txt"
include "general.rwi"
players [1] 3
format small [2] { players [2] 2 }
format large [2] {
  players [2] 4
  reading a [3] { var life(p: player) [3]: 0..3 = 1 }
  reading b [3] { var life(p: player) [3]: 0..3 = 3 }
}
""")
    spec = parse_file(path)
    assert [d.id for d in spec.ids] == ["1", "2", "3"]
    insts = load_instances(path)
    assert [(i.format, i.reading, i.nplayers) for i in insts] == [("small", "", 2), ("large", "a", 4), ("large", "b", 4)]
    lives = [i.var("life").info.init.value for i in insts]
    assert lives == [2, 1, 3]


def test_parameters_are_swept_over_every_combination(tmp_path):
    path = write(tmp_path, "p.rw", "param S in 2..3\nparam R in {1, 2}\nteams A, B size S\n")
    assert [i.params for i in load_instances(path)] == [
        {"S": 2, "R": 1}, {"S": 2, "R": 2}, {"S": 3, "R": 1}, {"S": 3, "R": 2}]


def test_seating_orders(tmp_path):
    def seats(kind):
        return load_instances(write(tmp_path, "s.rw", f"teams A, B size 3\nseating {kind}\n"))[0].players
    assert seats("alternate") == ("A1", "B1", "A2", "B2", "A3", "B3")
    assert seats("blocks") == ("A1", "A2", "A3", "B1", "B2", "B3")
    assert seats("A1, B1, B2, A2, A3, B3") == ("A1", "B1", "B2", "A2", "A3", "B3")
    three = load_instances(write(tmp_path, "t.rw", "teams count 3 size 1\n"))[0]
    assert three.teams == ("A", "B", "C") and three.players == ("A1", "B1", "C1")


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 9), out=st.integers(0, 511), p=st.integers(0, 8), q=st.integers(0, 8), k=st.integers(1, 3))
def test_seating_functions_agree_between_the_explorer_and_z3(tmp_path_factory, n, out, p, q, k):
    out &= (1 << n) - 1
    p, q = p % n, q % n
    path = tmp_path_factory.mktemp("ring") / "r.rw"
    path.write_text(f"players {n}\n", encoding="utf-8")
    enc = Encoder(load_instances(str(path))[0])
    sym = SymState({}, [z3.BoolVal(bool(out >> i & 1)) for i in range(n)], [])
    for direction in (1, -1):
        assert concrete(enc.ring_step(sym, p, k, direction)) == ring_step(p, k, direction, out, n)
    assert concrete(enc.dist_in_game(sym, p, q)) == dist_in_game(p, q, out, n)


@settings(max_examples=200, deadline=None)
@given(a=st.integers(-50, 50), b=st.integers(-9, 9).filter(lambda b: b != 0))
def test_integer_division_and_remainder_agree_between_the_backends(a, b):
    q = floordiv(z3.IntVal(a), z3.IntVal(b))
    assert concrete(q) == a // b
    assert concrete(z3.IntVal(a) - z3.IntVal(b) * q) == a % b
