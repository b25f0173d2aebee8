"""The cycle checks search the explorer's own arrays (checker.analyses.paths): the same
components and the same shortest paths as networkx finds on a copy of the graph, one shared
component pass, and no path built per state (issue 19: the 43-seat ring's checks did not fit in
6 GiB, the 31-seat ring's took seven times its search)."""
from __future__ import annotations

import random

import networkx as nx
import pytest

from checker.analyses import cycle_checks, paths
from checker.analyses.explored import Explored
from checker.engine import load_instances
from checker.explicit import explore as explore_module
from checker.explicit.compiled import CompiledMachine
from checker.explicit.explore import Edges, explore


def random_edges(seed: int, n: int, m: int, labels: int) -> Edges:
    rng = random.Random(seed)
    edges = Edges()
    for _ in range(m):
        edges.append((rng.randrange(n), rng.randrange(n), rng.randrange(labels)))
    return edges


def as_networkx(edges: Edges, n: int, inside, usable) -> nx.DiGraph:
    """The copy the checks used to build: edge by edge, in the graph's order."""
    g = nx.DiGraph()
    g.add_nodes_from(u for u in range(n) if inside[u])
    for u, v, lid in edges:
        if inside[u] and inside[v] and usable[lid]:
            g.add_edge(u, v)
    return g


@pytest.mark.parametrize("seed", range(12))
def test_components_are_the_strongly_connected_components_networkx_finds(seed):
    rng = random.Random(seed)
    n, labels = rng.randrange(1, 60), 4
    edges = random_edges(seed, n, rng.randrange(0, 4 * n), labels)
    inside = bytearray(rng.random() < 0.8 for _ in range(n))
    usable = bytearray(rng.random() < 0.7 for _ in range(labels))
    cs = paths.Components(paths.Arcs(edges, n), inside, usable, range(n))
    ours: dict[int, set] = {}
    for u, c in enumerate(cs.comp):
        assert (c >= 0) == bool(inside[u])
        if c >= 0:
            ours.setdefault(c, set()).add(u)
    theirs = list(nx.strongly_connected_components(as_networkx(edges, n, inside, usable)))
    assert sorted(map(sorted, ours.values())) == sorted(map(sorted, theirs))
    g = as_networkx(edges, n, inside, usable)
    cyclic = cs.cyclic(paths.Arcs(edges, n), usable)
    for c, states in ours.items():
        assert bool(cyclic[c]) == (len(states) > 1 or any(g.has_edge(u, u) for u in states))


@pytest.mark.parametrize("seed", range(12))
def test_shortest_paths_are_the_paths_networkx_gives_on_a_copy_built_in_the_graphs_order(seed):
    # (the traces shown must not change: networkx's bidirectional search, on a copy built edge
    # by edge, is what chose them before)
    rng = random.Random(100 + seed)
    n = rng.randrange(2, 50)
    edges = random_edges(100 + seed, n, rng.randrange(n, 5 * n), 3)
    inside, usable = bytearray([1]) * n, bytearray([1]) * 3
    arcs = paths.Arcs(edges, n)
    g = as_networkx(edges, n, inside, usable)

    def succ(v):
        return [arcs.dst[i] for i in arcs.out(v)]

    def pred(v):
        return [arcs.src[i] for i in arcs.into(v)]

    for comp in nx.strongly_connected_components(g):
        for a in sorted(comp)[:4]:
            for b in sorted(comp)[-4:]:
                assert paths.shortest_path(succ, pred, a, b) == nx.shortest_path(g, a, b)


def ring(tmp_path, n: int) -> Explored:
    text = open("bench/peers/markers.rw", encoding="utf-8").read()
    text = text.replace("in 8..16", f"in {n}..{n}").replace("in 0..1", "in 0..0")
    spec = tmp_path / "ring.rw"
    spec.write_text(text, encoding="utf-8")
    (inst,) = load_instances(str(spec))
    return Explored(explore(CompiledMachine(inst)))


def test_the_depth_of_a_state_is_the_length_of_its_shortest_path(tmp_path):
    x = ring(tmp_path, 9)
    assert [x.depth[s] for s in range(len(x.graph.states))] == \
        [len(x.graph.path_to(s)) - 1 for s in range(len(x.graph.states))]


def test_the_forced_loop_builds_the_one_path_it_shows_and_no_path_per_state(tmp_path, monkeypatch):
    x = ring(tmp_path, 19)
    calls = []
    real = explore_module.path_from
    monkeypatch.setattr(explore_module, "path_from", lambda parent, sid: calls.append(sid) or real(parent, sid))
    (f,) = cycle_checks.check_forced_loop(x)
    assert f.loop_start is not None and len(x.graph.states) > 500
    assert len(calls) <= 2, f"{len(calls)} paths built for one lasso"


def test_the_checks_share_one_component_pass(tmp_path, monkeypatch):
    x = ring(tmp_path, 9)
    made = []
    real = paths.Components.__init__

    def counting(self, arcs, inside, usable, roots, tick=None):
        made.append(sum(inside))
        real(self, arcs, inside, usable, roots, tick)

    monkeypatch.setattr(paths.Components, "__init__", counting)
    assert x.on_cycles and x.has_cycle() and x.on_cycles
    assert len(made) == 1


STARVED = "tests/fixtures/starvation/defect.rw"


def starved_by_networkx(x: Explored) -> list[str]:
    """Per player, what the search per player decided: a cycle through a progress move among
    the running states where the player is in the game and not active."""
    g, inst = x.graph, x.inst
    game = g.to_networkx(game_only=True, readable=False)
    out = []
    for p in range(inst.nplayers):
        nodes = {i for i in x.running if not (g.states[i][-3] >> p) & 1 and not x.is_active(i, p)}
        sub = game.subgraph(nodes)
        for comp in nx.strongly_connected_components(sub):
            if any(v in comp and any(g.is_progress(lid) for lid in sub[u][v]["labels"])
                   for u in comp for v in sub[u]):
                out.append(inst.players[p])
                break
    return out


def test_starvation_names_every_player_a_search_per_player_would_name():
    for inst in load_instances(STARVED):
        x = Explored(explore(CompiledMachine(inst)))
        want = starved_by_networkx(x)
        found = cycle_checks.check_starvation(x)
        if not want:
            assert found == []
            continue
        (f,) = found
        assert f.size == len(want)
        assert f.message.startswith(f"{want[0]} stays in the game")
        if len(want) > 1:
            assert f.detail == f"players who can be starved this way: {', '.join(want)}"


def lasso_by_networkx(edges: Edges, n: int, nodes: set, usable, required, depth):
    """The lasso's cycle as the checks found it before: the components of a networkx copy in
    order of their least state, the first holding a required edge, its least such edge (a, b),
    the entry of least depth, networkx's shortest paths entry -> a and b -> entry."""
    g = nx.DiGraph()
    labels: dict = {}
    for u, v, lid in edges:
        if u in nodes and v in nodes and usable[lid]:
            g.add_edge(u, v)
            labels.setdefault((u, v), []).append(lid)
    for comp in sorted(nx.strongly_connected_components(g), key=min):
        inside = sorted((u, v) for (u, v) in labels if u in comp and v in comp
                        and any(required is None or required[lid] for lid in labels[u, v]))
        if not inside:
            continue
        a, b = inside[0]
        key = min(lid for lid in labels[a, b] if required is None or required[lid])
        entry = min(comp, key=lambda s: (depth[s], s))
        cycle = nx.shortest_path(g, entry, a) + nx.shortest_path(g, b, entry)
        steps = [(v, key if (u, v) == (a, b) else min(labels[u, v])) for u, v in zip(cycle, cycle[1:])]
        return entry, steps, sorted(comp)
    return None


@pytest.mark.parametrize("seed", range(20))
def test_the_lasso_on_the_arrays_is_the_lasso_networkx_gave(seed):
    rng = random.Random(200 + seed)
    n, labels = rng.randrange(2, 40), 5
    edges = random_edges(200 + seed, n, rng.randrange(n, 4 * n), labels)
    nodes = {u for u in range(n) if rng.random() < 0.85}
    usable = bytearray(rng.random() < 0.8 for _ in range(labels))
    required = None if seed % 3 == 0 else bytearray(rng.random() < 0.5 for _ in range(labels))
    depth = [rng.randrange(6) for _ in range(n)]
    arcs = paths.Arcs(edges, n)
    states = sorted(nodes)
    inside = bytearray(u in nodes for u in range(n))
    cs = paths.Components(arcs, inside, usable, states)
    found = paths.lasso_cycle(arcs, cs, states, usable, required, depth)
    assert found == lasso_by_networkx(edges, n, nodes, usable, required, depth)
