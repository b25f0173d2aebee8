"""Symmetry reduction, the checks on the quotient: what needs more than orbit sizes.

A check on single states reads the reduced graph as it is (each representative stands for its
orbit: checker.explicit.symmetry_search). A check on cycles or on players needs the quotient's
structure: a cycle of the quotient is a real cycle only once its rotations add up to none, and a
player of a representative is some other player of the states it stands for. `lasso` finds the
full graph's cycles on the quotient and walks them on real states; `Unreduced` is raised where
the exact finding of the full graph cannot be told from the quotient, and the instance is then
explored again in full (docs/checks.md, "Symmetry").
"""
from __future__ import annotations

from .explore import rules_of, sccs
from .symmetry_search import EXTRA, ReducedGraph, Unreduced  # noqa: F401 - symmetry.Unreduced is reached from here


def lasso(x, nodes, start=None, allowed=None, required=None, per_player: bool = False):
    """`Explored.lasso` on the quotient, or None.

    A cycle of the quotient is a path from s to a rotation of s; walked as often as the order
    of that rotation it is a real cycle, so a qualifying cycle exists in the quotient exactly
    when one exists in the full graph. Which one the full search would show depends on the
    real ids of states the reduced search never stores, so the rules the finding cites are
    exact only when every qualifying SCC cites the same rules and every cycle in it must cite
    them all; otherwise `Unreduced`. Returns (path of (state id, label id) pairs, loop start, its SCC, the SCC's entry, the
    nodes of every qualifying SCC). With `per_player`, the search runs on pairs (state, a
    player's seat relative to the state) and `nodes` is a predicate of (sid, seat)."""
    adj, volt = _quotient_edges(x.graph, nodes, allowed, per_player)
    if start is not None:
        if start not in adj:
            return None
        adj = _reachable_part(adj, start)
    found = _qualifying_components(x, adj, required)
    if not found:
        return None
    if len({u for _, u, _, _ in found}) > 1:
        raise Unreduced("cycles that cite different rules")
    found.sort(key=lambda t: t[0])
    _, _, comp, inside = found[0]
    path, loop_start, entry = _cycle_in(x, comp, inside, volt, required, per_player)
    return path, loop_start, comp, entry, set().union(*(c for _, _, c, _ in found))


def _quotient_edges(g, nodes, allowed, per_player: bool) -> tuple[dict, dict]:
    """(adj, volt): the quotient's edges between `nodes` whose labels are `allowed` and not
    leave moves, as node -> {successor: [labels]} (plain dicts, networkx is ten times slower
    here), and per edge (u, v, label) its rotation (not kept per player: there the seat in
    the node already says it)."""
    n = g.rot.n
    leave = [g.is_leave(lid) for lid in range(len(g.labels))]
    adj: dict = {}
    volt: dict = {}
    seats: dict = {}  # per player: a state's seats that are nodes, each state asked once

    def at(s):
        r = seats.get(s)
        if r is None:
            r = seats[s] = tuple(q for q in range(n) if nodes(s, q))
        return r

    for (u, v, lid), h in zip(g.edges, g.volt):
        if leave[lid] or (allowed is not None and not allowed(lid)):
            continue
        if not per_player:
            if u in nodes and v in nodes:
                adj.setdefault(u, {}).setdefault(v, []).append(lid)
                volt[u, v, lid] = h
            continue
        here = at(u)
        if not here:
            continue
        there = at(v)
        for q in here:  # (u, q) -> (v, q - h): the same real player seen from the target's representative
            r = (q - h) % n
            if r in there:
                adj.setdefault((u, q), {}).setdefault((v, r), []).append(lid)
    return adj, volt


def _reachable_part(adj: dict, start) -> dict:
    """The edges of `adj` among the nodes reachable from `start`."""
    keep, todo = {start}, [start]
    while todo:
        for w in adj.get(todo.pop(), ()):
            if w not in keep:
                keep.add(w)
                todo.append(w)
    return {u: {v: ls for v, ls in out.items() if v in keep} for u, out in adj.items() if u in keep}


def _qualifying_components(x, adj: dict, required) -> list:
    """Per SCC holding a qualifying cycle: (its least state id, the rules its edges cite, its
    nodes, its internal edges). `Unreduced` where the rules a finding would cite depend on which
    of its cycles is shown (a rule some cycle can avoid)."""
    g = x.graph
    rules_of_lid: dict = {}

    def rules(lid):
        if lid not in rules_of_lid:
            rules_of_lid[lid] = frozenset(rules_of(x.machine, g.labels[lid][2]))
        return rules_of_lid[lid]

    found = []
    for i, comp in enumerate(_sccs(adj)):
        x.tick(i)
        # (one component holding every node, as in a ring that never ends: no copy needed)
        whole = len(comp) == len(adj) and comp.issuperset(adj) and all(v in comp for out in adj.values() for v in out)
        inside = adj if whole else _within(adj, comp)
        if not _qualifies(inside, required):
            continue
        union = frozenset().union(*(rules(lid) for out in inside.values() for ls in out.values() for lid in ls))
        everywhere = frozenset.intersection(*(rules(lid) for out in inside.values() for ls in out.values() for lid in ls))
        for r in union - everywhere:  # every cycle must cite r: without r's edges no qualifying cycle is left
            rest = {u: {v: [lid for lid in ls if r not in rules(lid)] for v, ls in out.items()} for u, out in inside.items()}
            if any(_qualifies(_within(rest, c), required) for c in _sccs(rest)):
                raise Unreduced("a cycle check whose rules depend on which cycle is shown")
        found.append((min(_sid(c) for c in comp), union, comp, inside))
    return found


def _cycle_in(x, comp, inside: dict, volt: dict, required, per_player: bool):
    """(path, loop start, entry): the lasso into the SCC `comp` at its entry (the node the
    breadth-first search met first), round a cycle through its least qualifying edge, walked on
    real states (`_lift`)."""
    g = x.graph
    n = g.rot.n
    edges = sorted((a, b, ls) for a, out in inside.items() for b, ls in out.items()
                   if required is None or any(required(lid) for lid in ls))
    a, b, ls = edges[0]
    key_lid = min(lid for lid in ls if required is None or required(lid))
    depth = x.depth  # (computed once per graph, from the parents: checker.analyses.explored)
    entry = min(comp, key=lambda s: (depth[_sid(s)], s))
    walk = _bfs_path(inside, entry, a) + _bfs_path(inside, b, entry)
    qpath = []
    for u, v in zip(walk, walk[1:]):
        qpath.append((u, v, key_lid if (u, v) == (a, b) else min(inside[u][v])))
    if not per_player:  # a cycle of the quotient with a rotation on it: look for a real one first
        qpath = _real_cycle(inside, volt, n, entry, qpath, (a, b, key_lid)) or qpath
        qpath = [(u, v, lid, volt[u, v, lid]) for u, v, lid in qpath]
    else:  # (u, q) -> (v, q - h)
        qpath = [(u, v, lid, (u[1] - v[1]) % n) for u, v, lid in qpath]
    path, loop_start = _lift(x, entry, qpath)
    return path, loop_start, entry


def _sid(node) -> int:
    return node[0] if isinstance(node, tuple) else node


def _within(adj: dict, comp) -> dict:
    """The edges of `adj` with both ends in `comp` (and at least one label)."""
    return {u: {v: ls for v, ls in adj.get(u, {}).items() if v in comp and ls} for u in comp}


def _qualifies(inside: dict, required) -> bool:
    """Whether an SCC (its internal edges) holds a cycle, through a `required` label if given."""
    for u, out in inside.items():
        for v, ls in out.items():
            if ls and (required is None or any(required(lid) for lid in ls)):
                return True
    return False


def _sccs(adj: dict) -> list[set]:
    """The strongly connected components of `adj` (node -> {successor: labels}), counting an
    edge only where it keeps a label."""
    return sccs({u: [v for v, ls in out.items() if ls] for u, out in adj.items()})


def _bfs_path(inside: dict, a, b) -> list:
    """A shortest path from a to b inside an SCC (successors in sorted order: deterministic)."""
    parent = {a: None}
    todo = [a]
    for u in todo:
        if u == b:
            break
        for v in sorted(inside.get(u, ())):
            if v not in parent:
                parent[v] = u
                todo.append(v)
    path = [b]
    while parent[path[-1]] is not None:
        path.append(parent[path[-1]])
    return path[::-1]


REAL_CYCLE_CAP = 1_000_000  # (state, rotation) pairs searched for a real cycle before the quotient's is repeated


def _real_cycle(inside: dict, volt: dict, n: int, entry, qpath: list, key_edge) -> list | None:
    """The quotient cycle `qpath` goes entry -> a -> b -> entry; when its rotations do not add up
    to 0, walking it on real states comes back to a rotation of the entry, and repeating it
    until it closes makes a long trace (474 steps on the 43-seat ring, 21 s of Z3 replay).
    Instead: the same way to a and over a -> b, then a breadth-first search over (state,
    rotation) pairs, which are the real states, back to the entry itself: the shortest real way
    back, as the full graph's lasso takes (45 steps there). None if the rotations already add up
    to 0, or when the search is longer than REAL_CYCLE_CAP pairs (kept as one int each)."""
    if sum(volt[e] for e in qpath) % n == 0:
        return None
    at = qpath.index(key_edge)
    off = 0
    for e in qpath[:at + 1]:
        off = (off + volt[e]) % n
    ids = {u: i for i, u in enumerate(inside)}  # a pair (node, rotation) is the int ids[node] * n + rotation
    nodes = list(inside)
    # successors as (target id, label, rotation), in the edges' order (deterministic: no sorting)
    out = [[(ids[v], lid, volt[u, v, lid]) for v, ls in inside[u].items() for lid in ls] for u in nodes]
    first, goal = ids[key_edge[1]] * n + off, ids[entry] * n
    nl = 1 + max(lid for succ in out for _, lid, _ in succ)
    parent = {first: -1}  # pair -> the pair before it * nl + the label between (one int: half the memory)
    todo = [first]
    for cur in todo:
        if cur == goal:
            break
        if len(parent) > REAL_CYCLE_CAP:
            return None
        u, o = divmod(cur, n)
        for v, lid, h in out[u]:
            w = v * n + (o + h) % n
            if w not in parent:
                parent[w] = cur * nl + lid
                todo.append(w)
    else:
        return None
    back = []
    cur = goal
    while parent[cur] >= 0:
        prev, lid = divmod(parent[cur], nl)
        back.append((nodes[prev // n], nodes[cur // n], lid))
        cur = prev
    return qpath[:at + 1] + back[::-1]


def _lift(x, entry, qpath):
    """The real lasso: the BFS path to the entry's representative, then the quotient cycle
    walked on real states (each step the real successor by the rotated action, checked to land
    in the next orbit), repeated until it is back at the entry's real state: the path as
    (state id, label id) pairs (real states beyond the quotient get ids EXTRA + i), and the
    index where the loop starts. `qpath` holds
    (u, v, label, h): from the real state rotate(u, a) the step leads to rotate(v, a + h)."""
    g, m = x.graph, x.machine
    rot = g.rot
    prefix = x.path_to(_sid(entry))
    path = [(s, l) for s, l in prefix]
    start_state = g.states[_sid(entry)]
    cur, a = start_state, 0
    for _ in range(rot.order):
        for u, v, lid, h in qpath:
            ai, binding, _ = g.labels[lid]
            want = rot.rotate_binding(m.actions[ai], binding, a)
            step = next(s for s in m.successors(cur) if s.__class__ is tuple and s[0][0] == ai and s[0][1] == want)
            (_, _, hits), target, _ = step
            vs = _sid(v)
            assert g.index[rot.canon(target)[0]] == vs, "the de-canonicalized step left the quotient path"
            # the rotation of v's representative this real state is, as the path's own rotations
            # say (canon's rho may differ by a rotation that fixes the state, and then the next
            # step's arguments would be rotated differently: another real path)
            a = (a + h) % rot.n
            rlid = g.label(ai, want, hits)
            cur = target
            if cur == start_state:
                path.append((_sid(entry), rlid))
                return path, len(prefix) - 1
            g.extra.append(cur)
            path.append((EXTRA + len(g.extra) - 1, rlid))
    raise AssertionError("the lifted cycle did not close")


def all_rotations(g: ReducedGraph, mask: int) -> int:
    out = 0
    for r in g.rot.rs:
        out |= g.rot.rot_mask(mask, r)
    return out


def player_orbits(g: ReducedGraph, players) -> set[int]:
    """The players the group moves `players` to (with every rotation: all of them), where the
    reachable states are known closed under it; else `players` alone (a search stopped before
    it showed the closure: P1's turns seen from a setup where P1 starts say nothing of P2's)."""
    if not g.closed:
        return set(players)
    n = g.rot.n
    return {(p + r) % n for p in players for r in g.rot.rs}
