"""Variables of several indices (docs/language.md, "Several indices"): `var cmd(a: player, q:
player)`, one value per pair, read and assigned as `cmd[a, q]`. How the three engines read and
write them is in tests/test_semantics_table.py (the `dmg` rows); random specs draw them
(tests/test_differential_specs.py, kind "pair"); tests/fixtures/invariant/pair-{defect,twin}.rw
is the fixture pair (903.10a's damage "by the same commander")."""
import os

from checker import engine
from checker.engine import load_instances
from checker.explicit import symmetry
from checker.explicit.compiled import machine_for
from checker.explicit.explore import explore
from checker.explicit.machine import Machine
from checker.limits import Limits
from checking import _check, _errors

DOC = 'spec "s" formalizes "s.txt"\ndocument { C1: "damage per commander and player" }\n'

COMMANDER = DOC + """players 3
var cmd(a: player, q: player) [C1]: 0..2 = 0
var mine(p: player): bool = seat(p) == 0
active p when mine[p]
action hit(p: player, q: player) [C1] progress when mine[p] and q != p and in_game(q) do
  cmd[p, q] := min(cmd[p, q] + 1, 2);
  mine[p] := false; mine[next_in_game(p)] := true;
end
outcome commander [C1]: lose player q when exists a in players: cmd[a, q] >= 2
outcome last [C1]: win player p when in_game(p) and size(remaining) == 1
"""


def test_each_pair_of_indices_has_a_value_of_its_own_named_by_both(tmp_path):
    res = _check(tmp_path, COMMANDER + "invariant once [C1]: cmd[P1, P2] + cmd[P2, P1] < 2\n")[0]
    (f,) = [f for f in res.findings if f.kind == "invariant"]
    changed = [c.name for step in f.trace[1:] for c in step.entries if c.name.startswith("cmd")]
    assert changed == ["cmd[P1, P2]", "cmd[P2, P1]"]
    assert f.replay.status == "confirmed"


def test_the_initial_value_reads_every_index(tmp_path):
    spec = tmp_path / "s.rw"
    spec.write_text(COMMANDER.replace("0..2 = 0", "0..9 = 3 * seat(a) + seat(q)").replace(">= 2", ">= 9"), encoding="utf-8")
    (inst,) = load_instances(str(spec))
    v = inst.var("cmd")
    assert v.index_keys(inst)[:4] == ["P1, P1", "P1, P2", "P1, P3", "P2, P1"]
    ((state, _, _),), _ = Machine(inst).initial_states()
    assert list(state[v.offset:v.offset + v.count]) == list(range(9))


def test_a_wrong_number_of_indices_or_an_unsupported_kind_is_an_error_before_exploration(tmp_path):
    text = DOC + """teams A, B size 2
var cmd(a: player, q: player): 0..2 = 0
var life(p: player): 0..2 = 2
var per_team(p: player, t: team): bool = false
var twice(p: player, p: player): bool = false
action hit(p: player) do
  cmd[p] := 1;
  life[p, p] := 1;
end
invariant whole: cmd == 0
"""
    assert _errors(tmp_path, text) == [
        ("E013", "per_team has several indices; each is a player or a number range, not team"),
        ("E011", "twice names two of its indices p"),
        ("E012", "cmd takes 2 indices, given 1"),
        ("E012", "life takes 1 index, given 2"),
        ("E012", "cmd holds one value per player and player; read it as cmd[...]"),
    ]


SYMMETRIC = DOC + """players 4
var cmd(a: player, q: player) [C1]: 0..1 = 0
var hit_by(q: player, a: player) [C1]: bool = false
var last: player? = none
action hit(p: player, q: player) [C1] progress when in_game(p) and p != q and cmd[p, q] < 1 do
  cmd[p, q] := cmd[p, q] + 1;
  hit_by[q, p] := true;
  last := p;
end
outcome last_one [C1]: win player p when in_game(p) and size(remaining) == 1
invariant agree [C1]: forall q in players: forall a in players: hit_by[q, a] == (cmd[a, q] > 0)
invariant few [C1]: forall q in players: size({a | a in players: cmd[a, q] > 0}) < 3
"""


def test_a_rotation_moves_every_player_index_and_the_findings_are_the_same_with_symmetry_off(tmp_path, monkeypatch):
    res, spec = _check(tmp_path, SYMMETRIC)
    (inst,) = load_instances(str(spec))
    assert symmetry.detect(inst) == (4, "")
    m = machine_for(inst)
    reduced = symmetry.explore_reduced(m, symmetry.Rotation(m, 4), Limits(max_states=100_000))
    full = explore(machine_for(inst), Limits(max_states=100_000))
    # each representative stands for its orbit: the orbits add up to the full search, which
    # they would not if a rotation moved one index of cmd[a, q] and not the other
    assert len(reduced.states) < len(full.states) == reduced.nreal
    monkeypatch.setenv("RULEWRIGHT_SYMMETRY", "off")
    off = engine.check([str(spec)])
    assert [(f.kind, f.fingerprint, [s.changes for s in f.trace or ()]) for f in res.findings] == \
        [(f.kind, f.fingerprint, [s.changes for s in f.trace or ()]) for f in off.findings]
    assert "invariant" in [f.kind for f in res.findings]  # `few`: three commanders hit P1


def test_an_exchange_of_indexed_values_at_once_keeps_the_model_unreduced(tmp_path):
    # a simultaneous assignment computes the slot numbers first, with seat(): read as such
    res, spec = _check(tmp_path, SYMMETRIC.replace("  hit_by[q, p] := true;\n", "  hit_by[q, p], last := true, p;\n"))
    (inst,) = load_instances(str(spec))
    assert symmetry.detect(inst) == (0, "the rules read seat()")


def test_the_fixture_pair_the_summary_that_adds_up_the_commanders_is_broken_the_rules_own_words_hold():
    defect = engine.check(["tests/fixtures/invariant/pair-defect.rw"])
    (f,) = defect.findings
    assert f.kind == "invariant" and f.rules == ("S1", "903.4")
    twin = engine.check(["tests/fixtures/invariant/pair-twin.rw"])
    assert twin.findings == []


def test_an_empty_range_among_the_indices_is_reported_once_at_that_range(tmp_path):
    assert _errors(tmp_path, DOC + "players 3\nvar z(a: player, k: 1..0): bool = false\n") == [
        ("E015", "empty index range 1..0")]
