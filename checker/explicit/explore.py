"""Explicit-state exploration: breadth first from every initial state.

The search keeps plain tuples, lists and a dict (networkx would make it about 10x slower);
`Graph.to_networkx()` hands the finished graph to networkx (for tests and tools; the checks walk plain lists). Breadth-first
order makes every parent chain a shortest trace. A state, time or memory limit stops the
search and marks the graph incomplete; checks then report only what the explored part proves.
The budget is read before every state and, inside one state, every few bindings
(`Machine.successors`), and so is the state limit (`Room`): a state whose successors were not
all computed, or whose new successors would take the graph past the limit, is left unexpanded,
so the graph is consistent wherever the search stopped. One state's expansion (`expand`) is
shared with the best-first search of checker.explicit.directed, which hands its graph to the
checks through `renumbered`.
"""
from __future__ import annotations

import math
import time
from array import array
from dataclasses import dataclass, field

from ..limits import Budget, LimitHit, Limits
from .machine import Machine, Room

__all__ = ["Graph", "Limits", "explore", "seed", "expand", "renumbered", "sccs", "describe_label", "describe_action",
           "rules_of"]


class Edges:
    """(src, dst, label id) triples kept in three integer arrays: 12 bytes an edge instead of a
    tuple of three Python ints (about 100), which is most of a large graph's memory."""
    __slots__ = ("src", "dst", "lid")

    def __init__(self):
        self.src, self.dst, self.lid = array("l"), array("l"), array("l")

    def append(self, edge) -> None:
        s, d, lid = edge
        self.src.append(s)
        self.dst.append(d)
        self.lid.append(lid)

    def __len__(self) -> int:
        return len(self.src)

    def __iter__(self):
        return zip(self.src, self.dst, self.lid)

    def __getitem__(self, i: int) -> tuple:
        return self.src[i], self.dst[i], self.lid[i]


class Parents:
    """Per state: (predecessor, label id) on a shortest path, or None for an initial state."""
    __slots__ = ("pred", "lid")

    def __init__(self):
        self.pred, self.lid = array("l"), array("l")

    def append(self, parent) -> None:
        p, lid = parent if parent is not None else (-1, -1)
        self.pred.append(p)
        self.lid.append(lid)

    def __len__(self) -> int:
        return len(self.pred)

    def __getitem__(self, i: int):
        p = self.pred[i]
        return None if p < 0 else (p, self.lid[i])

    def __iter__(self):
        return (None if p < 0 else (p, lid) for p, lid in zip(self.pred, self.lid))


@dataclass
class Graph:
    machine: Machine
    states: list = field(default_factory=list)  # the machine's states: packed for a CompiledMachine
    index: dict = field(default_factory=dict)
    init_ids: list = field(default_factory=list)
    edges: Edges = field(default_factory=Edges)
    labels: list = field(default_factory=list)  # (action index, binding, hits)
    label_index: dict = field(default_factory=dict)
    parent: Parents = field(default_factory=Parents)
    errors: list = field(default_factory=list)  # (src, Step) for steps that failed (overflow, ...)
    setup_errors: list = field(default_factory=list)  # SetupError for initial states that failed
    conflicts: dict = field(default_factory=dict)  # state id -> message
    init_hits: dict = field(default_factory=dict)
    expanded: int = 0
    complete: bool = True
    stop_reason: str = ""
    seconds: float = 0.0
    hit_rules: set = field(default_factory=set)
    # why the initial states may be no setup's ("" when they are the setups): Z3 could not tell
    # whether the choices it alone decides have a value that fits (set by the engine)
    setup_unknown: str = ""
    # what budget (time, memory) stopped the search that made this graph before its own bounds
    # did ("" when none): what such a search left out depends on the machine's speed
    limit_hit: str = ""

    def label(self, action: int, binding: tuple, hits: tuple) -> int:
        key = (action, binding, hits)
        lid = self.label_index.get(key)
        if lid is None:
            lid = len(self.labels)
            self.labels.append(key)
            self.label_index[key] = lid
        return lid

    def add(self, state, parent) -> tuple[int, bool]:
        sid = self.index.get(state)
        if sid is not None:
            return sid, False
        sid = len(self.states)
        self.states.append(state)
        self.index[state] = sid
        self.parent.append(parent)
        return sid, True

    def state_of(self, sid: int) -> tuple:
        """State `sid` as the machine packs it (a reduced graph also has states off its index)."""
        return self.states[sid]

    def values(self, sid: int) -> tuple:
        """State `sid` as slots: the variables' values, the players out, the teams out, the end."""
        return self.machine.values(self.states[sid])

    def is_leave(self, lid: int) -> bool:
        return self.machine.actions[self.labels[lid][0]].leave

    def is_progress(self, lid: int) -> bool:
        return self.machine.actions[self.labels[lid][0]].progress

    def path_to(self, sid: int) -> list[tuple[int, int]]:
        """[(state, label that led to it)] from an initial state to `sid`; label -1 for the first."""
        return path_from(self.parent, sid)

    def to_networkx(self, game_only: bool = True, readable: bool = True):
        """The finished graph; each edge keeps its label ids and (if `readable`) its actions and rules."""
        import networkx as nx  # only where a graph is handed over: the search and most checks need none

        g = nx.DiGraph()
        g.add_nodes_from(range(len(self.states)))
        for s, d, lid in self.edges:
            if game_only and self.is_leave(lid):
                continue
            if g.has_edge(s, d):
                g[s][d]["labels"].append(lid)
            else:
                g.add_edge(s, d, labels=[lid])
        for s, d, data in (g.edges(data=True) if readable else ()):
            described = [describe_label(self, lid) for lid in data["labels"]]
            data["actions"] = [a for a, _ in described]
            data["rules"] = sorted({r for _, rules in described for r in rules})
        return g


def path_from(parent, sid: int) -> list[tuple[int, int]]:
    """[(state, label that led to it)] from an initial state to `sid` along `parent` (per state:
    (predecessor, label) or None); label -1 for the first."""
    out = []
    cur = sid
    while True:
        par = parent[cur]
        if par is None:
            out.append((cur, -1))
            break
        out.append((cur, par[1]))
        cur = par[0]
    out.reverse()
    return out


LIVE_EVERY = 4096  # states expanded between two calls of `on_states`
STEP_LIMIT = "step limit"  # (a stop reason: Limits.max_steps)


def explore(machine: Machine, limits: Limits = Limits(), budget: Budget | None = None, on_states=None) -> Graph:
    """Every state reachable within the limits; `budget` (by default one of `limits`) may end
    before the time limit does, to leave the rest of it to the checks. `on_states(n)` hears how
    many states the graph holds every LIVE_EVERY expansions (the progress line)."""
    start = time.perf_counter()
    budget = budget or Budget(limits)
    g = Graph(machine)
    if seed(g, limits, budget):
        room = Room(g.index, limits.max_states, budget.check)
        queue_pos = 0
        most, steps = limits.max_steps or math.inf, g.edges.dst
        while queue_pos < len(g.states) and len(steps) < most and expand(g, queue_pos, budget, room, limits.max_states):
            queue_pos += 1
            if on_states is not None and not queue_pos % LIVE_EVERY:
                on_states(len(g.states))
        if g.complete and queue_pos < len(g.states):  # stopped by max_steps
            g.complete = False
            g.stop_reason = f"{STEP_LIMIT} of {most:,} reached"
        g.expanded = queue_pos
    g.seconds = time.perf_counter() - start
    return g


def seed(g: Graph, limits: Limits, budget: Budget) -> bool:
    """Put the machine's initial states into the empty graph `g`; False (and `g` incomplete,
    saying why) when a limit stopped their enumeration."""
    try:
        initial, g.setup_errors = g.machine.initial_states(limits.max_states, budget)
    except LimitHit as exc:
        g.complete = False
        g.stop_reason = str(exc)
        return False
    for state, hits, conflict in initial:
        sid, new = g.add(state, None)
        if new:
            g.init_ids.append(sid)
            g.init_hits[sid] = hits
            g.hit_rules.update(hits)
            if conflict:
                g.conflicts.setdefault(sid, conflict)
    return True


def expand(g: Graph, sid: int, budget: Budget, room: Room, max_states: int, done=None, keep=None) -> bool:
    """Expand state `sid`: its steps become edges of `g`, their new targets states of `g` (ids
    from the old `len(g.states)` on, parent `sid`), and `sid` is appended to `done` if given.
    False, with `g` incomplete and the state left as it was, when a limit stops it first.

    With `keep` (a walk along a given path: checker.explicit.directed `follow`), only the steps
    to a target `keep(target)` accepts become edges, and one game move besides where none of
    those is one (so that no check takes the state for a deadlock); the rules every step
    applied and its failing steps are recorded all the same.

    Every search over the machine's states expands with this (breadth first, `explore`, and
    best first, checker.explicit.directed), so a step is recorded one way whatever the order.
    It is here, outside the watchdog's modules (checker.limits), because it writes the graph: a
    limit stops it only where its budget is read, between states or inside `successors`, and a
    state is in `done` exactly when its steps are all in the graph."""
    states = g.states
    if len(states) > max_states:  # (only more initial states than that)
        g.complete = False
        g.stop_reason = room.why
        return False
    state = states[sid]
    try:
        budget.check()
        room.left = max_states - len(states)
        steps = () if state[-1] else g.machine.successors(state, budget, room)  # an ended game has no successors
    except LimitHit as exc:  # this state stays unexpanded: everything before it is whole
        g.complete = False
        g.stop_reason = str(exc)
        return False
    if keep is not None:
        steps = _kept(g, steps, keep)
    # the hot loop: every method it calls per edge is bound once here
    index_get, label_get, conflicts = g.index.get, g.label_index.get, g.conflicts
    add_src, add_dst, add_lid = g.edges.src.append, g.edges.dst.append, g.edges.lid.append
    for step in steps:
        if step.__class__ is tuple:  # a compiled step that went through: (label key, target, conflict)
            key, target, conflict = step
            lid = label_get(key)
            if lid is None:
                lid = g.label(*key)
                g.hit_rules.update(key[2])
            tid = index_get(target)
            if tid is None:
                tid, _ = g.add(target, (sid, lid))
            add_src(sid)
            add_dst(tid)
            add_lid(lid)
            if conflict and tid not in conflicts:
                conflicts[tid] = conflict
            continue
        g.hit_rules.update(step.hits)
        if step.target is None:
            g.errors.append((sid, step))
            continue
        lid = g.label(step.action, step.binding, step.hits)
        tid, new = g.add(step.target, (sid, lid))
        g.edges.append((sid, tid, lid))
        if step.conflict and tid not in conflicts:
            conflicts[tid] = step.conflict
    if done is not None:
        done.append(sid)
    return True


def _kept(g: Graph, steps, keep) -> list:
    """The steps `expand` records under `keep` (its docstring): those to a target `keep`
    accepts and every failing step, plus the first game move where none of those is one; the
    rules the others applied go to `g.hit_rules` here."""
    actions = g.machine.actions
    out, spare, game = [], None, False
    for step in steps:
        compiled = step.__class__ is tuple
        target = step[1] if compiled else step.target
        action = step[0][0] if compiled else step.action
        if target is None or keep(target):
            out.append(step)
            game = game or target is not None and not actions[action].leave
            continue
        g.hit_rules.update(step[0][2] if compiled else step.hits)
        if spare is None and not actions[action].leave:
            spare = step
    if not game and spare is not None:
        out.append(spare)
    return out


def renumbered(g: Graph, order) -> tuple[Graph, array]:
    """(`g` with its states renumbered, each old id's new one): the states of `order` first, in
    that order, then the others in their order in `g`; edges, parents, labels, errors,
    conflicts and initial states follow. `g.expanded` becomes len(order).

    A search that expands states in another order than their ids' (checker.explicit.directed)
    hands the checks its graph this way, with `order` its expanded states in the order it
    expanded them: the checks read states 0..expanded-1 as the expanded ones
    (`Explored.running`), and every parent as expanded before its child, so of a smaller id
    (`Explored.depth`). The edges keep their order: appended state after state as each was
    expanded, they stay grouped by source in the new ids too. (Here, with the graph's other
    bookkeeping, where the watchdog never stops it half way.)"""
    n = len(g.states)
    new = array("l", [-1]) * n
    old = array("l", order)
    for i, sid in enumerate(old):
        new[sid] = i
    old.extend(sid for sid in range(n) if new[sid] < 0)
    for i in range(len(order), n):
        new[old[i]] = i
    out = Graph(g.machine)
    out.states = [g.states[sid] for sid in old]
    out.index = {state: i for i, state in enumerate(out.states)}
    out.init_ids = [new[sid] for sid in g.init_ids]
    out.init_hits = {new[sid]: hits for sid, hits in g.init_hits.items()}
    out.edges.src = array("l", (new[s] for s in g.edges.src))
    out.edges.dst = array("l", (new[d] for d in g.edges.dst))
    out.edges.lid = array("l", g.edges.lid)
    out.labels, out.label_index = list(g.labels), dict(g.label_index)
    pred, lid = g.parent.pred, g.parent.lid
    out.parent.pred = array("l", (new[pred[sid]] if pred[sid] >= 0 else -1 for sid in old))
    out.parent.lid = array("l", (lid[sid] for sid in old))
    out.errors = [(new[sid], step) for sid, step in g.errors]
    out.setup_errors = list(g.setup_errors)
    out.conflicts = dict(sorted((new[sid], why) for sid, why in g.conflicts.items()))  # by state, as explore keeps them
    out.hit_rules = set(g.hit_rules)
    out.expanded = len(order)
    out.complete, out.stop_reason, out.seconds = g.complete, g.stop_reason, g.seconds
    out.setup_unknown = g.setup_unknown
    return out, new


def sccs(adj: dict) -> list[set]:
    """The strongly connected components of the graph `adj` (node -> its successors; a
    successor need not be a key): Tarjan's algorithm without recursion, so a long chain of
    states does not hit Python's recursion limit. Both the checks and the symmetry reduction's
    quotient use it (networkx's views cost more than the search on large graphs)."""
    index: dict = {}
    low: dict = {}
    stack: list = []
    on: set = set()
    out: list[set] = []
    nodes = dict.fromkeys(adj)
    for succ in adj.values():
        nodes.update(dict.fromkeys(succ))
    for root in nodes:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        work = [(root, iter(adj.get(root, ())))]
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(adj.get(w, ()))))
                    break
                if w in on and index[w] < low[v]:
                    low[v] = index[w]
            else:
                work.pop()
                if work:
                    u = work[-1][0]
                    if low[v] < low[u]:
                        low[u] = low[v]
                if low[v] == index[v]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.add(w)
                        if w == v:
                            break
                    out.append(comp)
    return out


def describe_label(graph: Graph, lid: int) -> tuple[str, tuple[str, ...]]:
    action_i, binding, hits = graph.labels[lid]
    m = graph.machine
    return describe_action(m, action_i, binding), rules_of(m, hits)


def describe_action(m: Machine, action_i: int, binding: tuple) -> str:
    """`attack(p=P1, q=P2)`: an action and its arguments in the spec's words."""
    a = m.actions[action_i]
    args = [f"{b.binder.name}={m.show(b.binder.type, v)}" for b, v in zip(a.binders, binding)]
    return a.decl.name + (f"({', '.join(args)})" if args else "")


def rules_of(machine, hits) -> tuple[str, ...]:
    seen: list[str] = []
    for rid in hits:
        for t in machine.rules[rid].tags:
            if t not in seen:
                seen.append(t)
    return tuple(seen)
