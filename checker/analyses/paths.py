"""Searches on the explorer's own arrays: strongly connected components, the lasso's cycle and
shortest paths inside one component, without copying a component anywhere.

`Arcs` indexes the graph's edges (three integer arrays, `checker.explicit.explore.Edges`) by
source and by target, each in the graph's order of edges: about 16 bytes an edge more, where a
dict of lists or a networkx copy of the same component took hundreds (the 43-seat ring's
968,704-state component did not fit in 6 GiB). The node sets and the labels a search may use
are bytearrays indexed by state and by label id.

`components` is Tarjan's algorithm without recursion; `shortest_path` is what
`networkx.shortest_path` did here (its bidirectional breadth-first search,
`_bidirectional_pred_succ`), walking successors and predecessors in the order networkx's graph,
built edge by edge in the graph's order, kept them, so every trace is the path networkx gave
before. Owning these matters: the watchdog (checker.limits) may stop a search only in code the
project owns, and a limit that hit while networkx ran (or was being imported lazily) left a
half-imported networkx that broke every later instance of the process.
"""
from __future__ import annotations

from array import array


def _index_by(keys, n: int) -> tuple[array, array | None]:
    """(offsets, order): the edges whose key is k are order[i] for i in offsets[k]..offsets[k+1]-1,
    in the graph's order (a stable counting sort); order None when the keys are already sorted
    (the search appends edges state after state, so by source they are)."""
    off = array("l", [0]) * (n + 1)
    ordered, prev = True, -1
    for k in keys:
        off[k + 1] += 1
        if k < prev:
            ordered = False
        prev = k
    for i in range(n):
        off[i + 1] += off[i]
    if ordered:
        return off, None
    order, at = array("l", [0]) * len(keys), off[:n]
    for i, k in enumerate(keys):
        order[at[k]] = i
        at[k] += 1
    return off, order


class Arcs:
    """The edges of an explored graph indexed by source and by target (`_index_by`)."""

    def __init__(self, edges, n: int):
        self.n = n
        self.src, self.dst, self.lid = edges.src, edges.dst, edges.lid
        self.out_off, self.out_order = _index_by(self.src, n)
        self._in = None

    def out(self, u: int):
        """The indices of the edges leaving u, in the graph's order."""
        lo, hi = self.out_off[u], self.out_off[u + 1]
        return range(lo, hi) if self.out_order is None else self.out_order[lo:hi]

    def into(self, v: int):
        """The indices of the edges entering v, in the graph's order (indexed on first use)."""
        if self._in is None:
            self._in = _index_by(self.dst, self.n)
        off, order = self._in
        lo, hi = off[v], off[v + 1]
        return range(lo, hi) if order is None else order[lo:hi]


class Components:
    """The strongly connected components of the edges `usable` (a flag per label id) among the
    states `inside` (a flag per state): `comp[s]` is the component of s, -1 for a state outside
    or not reached from the roots; `firsts` the components in the order of their least state."""

    def __init__(self, arcs: Arcs, inside, usable, roots, tick=None):
        n = arcs.n
        dst, lid, out_off, order = arcs.dst, arcs.lid, arcs.out_off, arcs.out_order
        index = array("l", [-1]) * n
        low = array("l", [0]) * n
        comp = array("l", [-1]) * n
        stack: list[int] = []
        counter = ncomp = 0
        for root in roots:
            if index[root] >= 0 or not inside[root]:
                continue
            index[root] = low[root] = counter
            counter += 1
            stack.append(root)
            work_v, work_e = [root], [out_off[root]]
            while work_v:
                v, e = work_v[-1], work_e[-1]
                end = out_off[v + 1]
                descended = False
                while e < end:
                    i = e if order is None else order[e]
                    e += 1
                    if not usable[lid[i]]:
                        continue
                    w = dst[i]
                    if not inside[w]:
                        continue
                    if index[w] < 0:  # a new state: go down, and come back to the next edge
                        if tick is not None:
                            tick(counter)  # (reads the budget every 1024th state)
                        work_e[-1] = e
                        index[w] = low[w] = counter
                        counter += 1
                        stack.append(w)
                        work_v.append(w)
                        work_e.append(out_off[w])
                        descended = True
                        break
                    if comp[w] < 0 and index[w] < low[v]:  # w is still on the stack
                        low[v] = index[w]
                if descended:
                    continue
                work_v.pop()
                work_e.pop()
                if work_v:
                    u = work_v[-1]
                    if low[v] < low[u]:
                        low[u] = low[v]
                if low[v] == index[v]:
                    while True:
                        w = stack.pop()
                        comp[w] = ncomp
                        if w == v:
                            break
                    ncomp += 1
        self.comp, self.count = comp, ncomp

    def cyclic(self, arcs: Arcs, usable, tick=None) -> bytearray:
        """Per component, whether it holds a cycle (an edge inside it: a self-loop, or any edge
        of a component of two states or more)."""
        comp, dst, lid = self.comp, arcs.dst, arcs.lid
        got = bytearray(self.count)
        for u in range(arcs.n):
            c = comp[u]
            if c < 0 or got[c]:
                continue
            if tick is not None:
                tick(u)
            for i in arcs.out(u):
                if usable[lid[i]] and comp[dst[i]] == c:
                    got[c] = 1
                    break
        return got


def reachable(arcs: Arcs, inside, usable, start: int, tick=None) -> bytearray:
    """Per state, whether `start` reaches it by edges `usable` among the states `inside`."""
    dst, lid = arcs.dst, arcs.lid
    seen = bytearray(arcs.n)
    if not inside[start]:
        return seen
    seen[start] = 1
    todo = [start]
    k = 0
    while todo:
        for i in arcs.out(todo.pop()):
            w = dst[i]
            if not seen[w] and inside[w] and usable[lid[i]]:
                seen[w] = 1
                todo.append(w)
                k += 1
                if tick is not None:
                    tick(k)
    return seen


def lasso_cycle(arcs: Arcs, cs: Components, states, usable, required, depth, tick=None):
    """The cycle `Explored.lasso` shows, found on the arrays: among the components `cs` of the
    edges `usable` (those of the `states`, listed in increasing order), the one with the least
    state that holds an edge inside it whose label is `required` (any edge when None); the
    least such edge (a, b) by its states, its least required label; the component's entry (the
    state of least breadth-first `depth`, then the least); the cycle entry -> a -> b -> entry
    through shortest paths inside the component. Returns (entry, [(state, label)] of the cycle
    after the entry, the component's states) or None."""
    comp, dst, lid = cs.comp, arcs.dst, arcs.lid
    best: dict[int, tuple[int, int]] = {}  # component -> its least (a, b) with a required label
    first: list[int] = []  # the components in the order of their least state
    seen = bytearray(cs.count)
    for u in states:
        c = comp[u]
        if c < 0:
            continue
        if not seen[c]:
            seen[c] = 1
            first.append(c)
        if c in best:
            continue  # (u ascending: the first u with such an edge is the least)
        if tick is not None:
            tick(u)
        b = -1
        for i in arcs.out(u):
            w = dst[i]
            if comp[w] == c and usable[lid[i]] and (required is None or required[lid[i]]) and (b < 0 or w < b):
                b = w
        if b >= 0:
            best[c] = (u, b)
    chosen = next((c for c in first if c in best), None)
    if chosen is None:
        return None
    a, b = best[chosen]
    key = min(lid[i] for i in arcs.out(a) if dst[i] == b and usable[lid[i]] and (required is None or required[lid[i]]))
    nodes = [u for u in states if comp[u] == chosen]
    entry = min(nodes, key=lambda s: (depth[s], s))

    def succ(v):
        return [dst[i] for i in arcs.out(v) if usable[lid[i]] and comp[dst[i]] == chosen]

    def pred(v):
        src = arcs.src
        return [src[i] for i in arcs.into(v) if usable[lid[i]] and comp[src[i]] == chosen]

    cycle = shortest_path(succ, pred, entry, a) + shortest_path(succ, pred, b, entry)
    steps = []
    for u, v in zip(cycle, cycle[1:]):
        steps.append((v, key if (u, v) == (a, b) else
                      min(lid[i] for i in arcs.out(u) if dst[i] == v and usable[lid[i]])))
    return entry, steps, nodes


def shortest_path(succ, pred, source: int, target: int) -> list[int]:
    """The states of a shortest path from `source` to `target`: forward and backward
    breadth-first search, expanding the smaller fringe, stopping where they meet. `succ(v)` and
    `pred(v)` list the states after and before v in the order networkx kept them (a state may
    come twice: the second time finds nothing new)."""
    if source == target:
        return [source]
    before: dict[int, int | None] = {source: None}
    after: dict[int, int | None] = {target: None}
    forward, backward = [source], [target]
    meet = None
    while forward and backward and meet is None:
        if len(forward) <= len(backward):
            level, forward = forward, []
            for v in level:
                for w in succ(v):
                    if w not in before:
                        forward.append(w)
                        before[w] = v
                    if w in after:
                        meet = w
                        break
                if meet is not None:
                    break
        else:
            level, backward = backward, []
            for v in level:
                for w in pred(v):
                    if w not in after:
                        after[w] = v
                        backward.append(w)
                    if w in before:
                        meet = w
                        break
                if meet is not None:
                    break
    if meet is None:
        raise ValueError(f"no path from state {source} to state {target}")  # inside one component: a bug
    path: list[int] = []
    w: int | None = meet
    while w is not None:
        path.append(w)
        w = before[w]
    path.reverse()
    w = after[path[-1]]
    while w is not None:
        path.append(w)
        w = after[w]
    return path
