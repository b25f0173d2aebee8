"""`Explored`: an explored graph with the views the checks share, computed once and kept.

The checks (`checker.analyses.checks`) each get one `Explored`: the terminal, running and
cyclic states, the game moves out of a state in the graph's order, who is active where
(remembered: several checks ask the same states for every player), shortest traces with as
few `leave` moves as possible, the lasso of a cycle, and the rules and declarations a finding
cites. On a graph reduced by symmetry it asks `checker.explicit.symmetry` for what needs more
than weights. `phase_citations` is here because checks of every group cite phases.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ..explicit.explore import Graph, path_from, rules_of
from ..explicit.explore import sccs as _sccs
from ..explicit import symmetry
from ..limits import Budget
from .causes import Blocking, Entries
from .findings import Finding, TraceStep
from .paths import Component, shortest_path
from .traces import build_trace, preferred_parents


READERS = 200_000  # states whose reading context Explored.is_active keeps


@dataclass
class Explored:
    graph: Graph
    budget: Budget | None = None

    def tick(self, i: int = 0) -> None:
        """Read the budget every 1024th `i` (LimitHit when it is spent)."""
        if self.budget is not None and not i & 1023:
            self.budget.check()

    @property
    def machine(self):
        return self.graph.machine

    # symmetry reduction (checker.explicit.symmetry): a state of a reduced graph stands for its
    # orbit; sizes count real states, and the checks below that need more ask `symmetry`
    @property
    def reduced(self) -> bool:
        return isinstance(self.graph, symmetry.ReducedGraph)

    def weight(self, sids) -> int:
        """How many real states the states `sids` of the graph stand for."""
        return self.graph.weight(sids) if self.reduced else len(sids)

    @property
    def nstates(self) -> int:
        return self.graph.nreal if self.reduced else len(self.graph.states)

    @property
    def inst(self):
        return self.graph.machine.inst

    @cached_property
    def terminal(self) -> set[int]:
        return {i for i, s in enumerate(self.graph.states) if s[-1]}

    @cached_property
    def has_game_move(self) -> set[int]:
        """States with at least one transition that is not a `leave` move."""
        g = self.graph
        return {s for s, _, lid in g.edges if not g.is_leave(lid)}

    @cached_property
    def running(self) -> list[int]:
        """Expanded states in which the game goes on."""
        g = self.graph
        return [i for i in range(g.expanded) if not g.states[i][-1]]

    def finding(self, kind, message, rules, spans, trace=None, loop_start=None, detail="", key="",
                subject=(), size=0, cause=()) -> Finding:
        inst = self.inst
        return Finding(kind, message, tuple(dict.fromkeys(rules)), tuple(spans), inst.label, inst.model_name,
                       trace, loop_start, detail=detail, key=key or message, subject=tuple(subject), size=size,
                       cause=tuple(cause))

    @cached_property
    def blocking(self) -> Blocking:
        """Why each game action cannot run in a state (the cause of a deadlock)."""
        return Blocking(self.machine)

    @cached_property
    def entries(self) -> Entries:
        """The shortest steps into states (the cause of an outcome gap or conflict)."""
        return Entries(self)

    def in_game(self, sid: int, p: int) -> bool:
        return not (self.graph.state_of(sid)[-3] >> p) & 1

    def is_active(self, sid: int, p: int) -> bool:
        """`machine.is_active` of state `sid`, remembered: starvation, never-active and the
        complete plays ask it of the same states for every player. Evaluated lazily, in the
        order each check asks, so a condition that fails fails where it did."""
        m = self.machine
        if m.active is None:
            return False
        known = self._active.get(p)
        if known is None:
            known = self._active[p] = bytearray(len(self.graph.states))  # 0 unknown, 1 no, 2 yes
        got = known[sid]
        if not got:
            # the checks ask player by player, state after state: a packed state is unpacked
            # once, not once per player (up to READERS states are kept)
            reader = self._readers.get(sid)
            if reader is None:
                reader = m.reader(self.graph.states[sid])
                if len(self._readers) < READERS:
                    self._readers[sid] = reader
            got = known[sid] = 2 if m.active_in(reader, p) else 1
        return got == 2

    @cached_property
    def _active(self) -> dict:
        return {}

    @cached_property
    def _readers(self) -> dict:
        return {}

    @cached_property
    def _by_src(self) -> tuple[list, list | None]:
        """(offsets, order): the edges leaving state s are the graph's edges order[i] for i in
        offsets[s]..offsets[s + 1] - 1, in the graph's order (order None: the search appended
        them state after state, as it does, so edge i is order[i])."""
        g = self.graph
        n = len(g.states)
        off = [0] * (n + 1)
        ordered, prev = True, -1
        for s in g.edges.src:
            off[s + 1] += 1
            if s < prev:
                ordered = False
            prev = s
        for i in range(n):
            off[i + 1] += off[i]
        if ordered:
            return off, None
        order, at = [0] * len(g.edges), off[:]
        for i, s in enumerate(g.edges.src):
            order[at[s]] = i
            at[s] += 1
        return off, order

    def game_out(self, u: int) -> list[tuple[int, int]]:
        """[(target, label)] of the game moves (not `leave`) out of state u, in the graph's
        order: the cycle searches walk these plain lists (a networkx view is an order of
        magnitude slower to walk, and building the networkx graph costs more than the search)."""
        got = self._outs.get(u)
        if got is not None:
            return got
        g = self.graph
        off, order = self._by_src
        dst, lid, leave = g.edges.dst, g.edges.lid, self._leave
        idx = range(off[u], off[u + 1]) if order is None else order[off[u]:off[u + 1]]
        got = [(dst[i], lid[i]) for i in idx if not leave[lid[i]]]
        if len(self._outs) < READERS:  # every player's search walks them again
            self._outs[u] = got
        return got

    @cached_property
    def _outs(self) -> dict:
        return {}

    @cached_property
    def _leave(self) -> list[bool]:
        g = self.graph
        return [g.is_leave(lid) for lid in range(len(g.labels))]

    @cached_property
    def on_cycles(self) -> set[int]:
        """The running states on some cycle of game moves among running states: a cycle among
        any subset of them runs through these alone, and its component there is the same."""
        running = set(self.running)
        adj = {u: [v for v, _ in self.game_out(u) if v in running] for u in running}
        return {v for c in _sccs(adj) if len(c) > 1 or next(iter(c)) in adj[next(iter(c))] for v in c}

    def has_cycle(self) -> bool:
        """Whether the game moves (not `leave`) can return to a state."""
        adj = {u: [v for v, _ in self.game_out(u)] for u in range(len(self.graph.states))}
        return any(len(c) > 1 or next(iter(c)) in adj[next(iter(c))] for c in _sccs(adj))

    @cached_property
    def parents(self) -> list:
        return preferred_parents(self.graph)

    def path_to(self, sid: int) -> list[tuple[int, int]]:
        """A shortest path to `sid` with as few `leave` moves as any other shortest path."""
        g = self.graph
        path = g.path_to(sid)
        if any(lid >= 0 and g.is_leave(lid) for _, lid in path):
            if self.reduced:  # the fewest-leave parents need edges into each state itself
                raise symmetry.Unreduced("a shortest trace that takes a leave move")
            return path_from(self.parents, sid)
        return path

    def trace_to(self, sid: int) -> list[TraceStep]:
        return build_trace(self.graph, self.path_to(sid))

    def lasso(self, nodes, start=None, allowed=None, required=None):
        """The first cycle (by smallest state) among `nodes`, with the shortest path to it.

        Only transitions whose label satisfies `allowed` are used, and the cycle must use one
        whose label satisfies `required`; with `start`, only cycles reachable from it count.
        Returns (trace, index where the loop starts, the states of the cycle's SCC) or None."""
        if self.reduced:
            found = symmetry.lasso(self, nodes, start, allowed, required)
            return found and (build_trace(self.graph, found[0]),) + found[1:3]
        out = {u: [(v, lid) for v, lid in self.game_out(u) if v in nodes and (allowed is None or allowed(lid))]
               for u in nodes}
        adj = {u: [v for v, _ in vs] for u, vs in out.items()}
        if start is not None:
            if start not in adj:
                return None
            keep = _reachable(adj, start)
            adj = {u: [v for v in adj[u] if v in keep] for u in keep}
        # the components are the same sets whatever finds them; the cycle inside the chosen one
        # is found as networkx found it before (checker.analyses.paths: its paths depend on the
        # graph's order of edges)
        for comp in sorted(_sccs(adj), key=min):
            if len(comp) == 1 and not any(v in comp for v in adj[next(iter(comp))]):
                continue  # a single state without a self-loop is no cycle
            labels: dict[tuple[int, int], list[int]] = {}
            for u in comp:
                for v, lid in out[u]:
                    if v in comp:
                        labels.setdefault((u, v), []).append(lid)
            edges = [(a, b, [lid for lid in ls if required is None or required(lid)])
                     for (a, b), ls in sorted(labels.items())]
            edges = [e for e in edges if e[2]]
            if not edges:
                continue
            cs = self._cycle_graph(comp, nodes, allowed)
            a, b, key_labels = edges[0]
            entry = min(comp, key=lambda s: (len(self.graph.path_to(s)), s))
            # path initial -> entry (BFS parents), then entry -> a -> b -> entry inside the SCC
            prefix = self.path_to(entry)
            cycle = shortest_path(cs, entry, a) + shortest_path(cs, b, entry)
            path = list(prefix)
            for u, v in zip(cycle, cycle[1:]):
                path.append((v, min(key_labels) if (u, v) == (a, b) else min(cs.labels(u, v))))
            return build_trace(self.graph, path), len(prefix) - 1, comp
        return None

    def _cycle_graph(self, comp: set, nodes, allowed) -> Component:
        """The component `comp` as the networkx graph the searches built before (so that its
        shortest paths are the same): the game moves inside it (those `allowed`) with their
        labels, states and edges added in the graph's order of edges."""
        g, leave = self.graph, self._leave
        cs = Component(sorted(comp) if allowed is None else ())
        for u, v, lid in g.edges:
            if leave[lid] or u not in nodes or v not in nodes or (allowed is not None and not allowed(lid)):
                continue
            if allowed is not None:
                for w in (u, v):
                    if w in comp:
                        cs.add_node(w)
            if u in comp and v in comp:
                cs.add_edge(u, v, lid)
        return cs

    def action_spans(self, trace, start: int = 0) -> list:
        """Spans of the action declarations used from step `start` of a trace on, last first."""
        spans = []
        for st in reversed(trace[start:]):
            if st.lid >= 0:
                span = self.machine.actions[self.graph.labels[st.lid][0]].decl.span
                if span not in spans:
                    spans.append(span)
        return spans or [self.inst.spec.span]

    def rules_of_label(self, lid: int) -> tuple[str, ...]:
        return rules_of(self.machine, self.graph.labels[lid][2])

    def last_hits(self, sid: int) -> tuple[int, ...]:
        """The rule ids applied by the last step of the trace to `sid` (the setup's for an initial state)."""
        lid = self.path_to(sid)[-1][1]
        return self.graph.init_hits.get(sid, ()) if lid < 0 else self.graph.labels[lid][2]

    def last_rules(self, sid: int) -> tuple[str, ...]:
        return rules_of(self.machine, self.last_hits(sid))

    def fired_spans(self, sid: int, kinds: tuple[str, ...]) -> list:
        """Where the rules of `kinds` that the last step to `sid` applied are declared, in the order they applied."""
        rules = self.machine.rules
        return list(dict.fromkeys(rules[r].span for r in self.last_hits(sid) if rules[r].kind in kinds))

    def step_action_span(self, sid: int) -> list:
        """The declaration of the action that took the last step to `sid` ([] for an initial state)."""
        lid = self.path_to(sid)[-1][1]
        return [] if lid < 0 else [self.machine.actions[self.graph.labels[lid][0]].decl.span]


def _reachable(adj: dict, start: int) -> set:
    seen = {start}
    todo = [start]
    while todo:
        for v in adj[todo.pop()]:
            if v not in seen:
                seen.add(v)
                todo.append(v)
    return seen


def phase_citations(x: Explored, sids) -> tuple[list[str], list]:
    """(rule tags, declarations) of the phases the states `sids` are in, for a finding about a
    game that stays stuck there: a phase whose end condition never holds is where to look."""
    rules, spans = [], []
    for cyc in x.inst.model.phases:
        off = x.inst.var(cyc.name).offset
        current = {x.graph.values(sid)[off] for sid in sids}
        for p in cyc.phases:
            if p.index in current and p.span not in spans:
                rules.extend(p.tags)
                spans.append(p.span)
    return rules, spans

