"""The peer models of bench/peers/ (issue 19): each model is written three times, for rulewright,
as a plain Python breadth-first search and as Promela for SPIN, and the benchmark's ratios mean
something only if the three explore the same states by the same transitions. These tests hold
them to it at sizes small enough for the fast tier (`python bench/peers.py --family ffa|melee`
compares them again at the measured sizes and prints MISMATCH when they differ).
"""
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from checker.engine import load_instances
from checker.explicit.compiled import CompiledMachine
from checker.explicit.explore import Limits, explore

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "bench" / "peers"
sys.path.insert(0, str(ROOT / "bench"))

import families  # noqa: E402  (bench/families.py: the sizes written into copies of the models)


def _module(name: str):
    spec = importlib.util.spec_from_file_location(name, PEERS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ffa_bfs = _module("ffa_bfs")
ffa_promela = _module("ffa_promela")
markers_bfs = _module("markers_bfs")


def _explored(path: Path) -> tuple[int, int]:
    (inst,) = load_instances(str(path))
    graph = explore(CompiledMachine(inst), Limits(max_states=1_000_000, max_seconds=120))
    assert graph.complete
    edges = getattr(graph, "nedges", None)  # a search that stores no edge list counts them
    return len(graph.states), len(graph.edges) if edges is None else edges


@pytest.mark.parametrize("players, life", [(2, 3), (3, 2), (3, 5), (4, 2)])
def test_the_free_for_all_explores_the_plain_bfs_states_and_transitions(tmp_path, players, life):
    states, transitions, _ = ffa_bfs.bfs(players, life)
    assert _explored(families.ffa_spec(players, life, tmp_path)) == (states, transitions)


@pytest.mark.slow  # a 53,240-state search: about 1 s idle
def test_the_free_for_all_family_has_the_size_the_issue_quotes():
    # issues 19 and 22: P = 4, L = 10 is 53,240 states
    assert ffa_bfs.bfs(4, 10)[:2] == (53_240, 488_800)


def test_the_free_for_all_declares_the_sizes_the_benchmark_measures_by_default():
    # so that `rulewright check bench/peers/ffa.rw --param P=4 --param L=10` finds its instance
    labels = sorted(inst.label.split("| ")[1] for inst in load_instances(str(PEERS / "ffa.rw")))
    assert labels == ["P=3,L=10", "P=3,L=5", "P=4,L=10", "P=4,L=5"]


def test_the_promela_model_has_one_option_per_attack_and_pass_of_each_player_in_turn():
    text = ffa_promela.model(4, 10)
    assert len(re.findall(r"^  :: d_step", text, re.M)) == 4 * 3 * 3 + 4
    assert "end:" in text  # a game with one player left is a valid end state, not a deadlock


@pytest.mark.slow  # spin -a and gcc: seconds
@pytest.mark.skipif(not (shutil.which("spin") and shutil.which("gcc")), reason="SPIN is not installed")
def test_spin_stores_the_plain_bfs_states_and_one_before_initialisation(tmp_path):
    (tmp_path / "m.pml").write_text(ffa_promela.model(3, 4), encoding="utf-8")
    subprocess.run(["spin", "-a", "m.pml"], cwd=tmp_path, check=True, capture_output=True)
    subprocess.run(["gcc", "-O2", "-DSAFETY", "-o", "pan", "pan.c"], cwd=tmp_path, check=True, capture_output=True)
    out = subprocess.run(["./pan", "-c0", "-n", "-m10000", "-w16"], cwd=tmp_path, check=True, capture_output=True,
                         text=True).stdout
    states, transitions, _ = ffa_bfs.bfs(3, 4)
    assert int(re.search(r"(\d+) states, stored", out)[1]) == states + 1
    assert int(re.search(r"(\d+) transitions \(=", out)[1]) == transitions + 2


@pytest.mark.parametrize("seats", [6, 8])
def test_the_grand_melee_with_triggers_explores_the_ring_peer_with_departures(tmp_path, seats):
    # the measured model has 12 seats (119,604 states); fewer seats are the same rules
    text = (PEERS / "melee_triggers.rw").read_text(encoding="utf-8")
    text, count = re.subn(r"(?m)^players \[607\.1\] 12$", f"players [607.1] {seats}", text)
    assert count == 1
    path = tmp_path / "melee.rw"
    path.write_text(text, encoding="utf-8")
    states, transitions, _, _ = markers_bfs.bfs(seats, True)
    assert _explored(path) == (states, transitions)


def test_the_grand_melee_with_triggers_is_the_ring_written_with_copies(tmp_path):
    # the same game as markers.rw with departures: the triggers replace the copies, nothing else
    text = (PEERS / "melee_triggers.rw").read_text(encoding="utf-8").replace("players [607.1] 12", "players [607.1] 8")
    path = tmp_path / "melee.rw"
    path.write_text(text, encoding="utf-8")
    assert _explored(path) == _explored(families.ring_spec(8, 1, tmp_path))
