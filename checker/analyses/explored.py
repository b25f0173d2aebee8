"""`Explored`: an explored graph with the views the checks share, computed once and kept.

The checks (`checker.analyses.checks`) each get one `Explored`: the terminal, running and
cyclic states, the game moves out of a state in the graph's order, who is active where
(remembered: several checks ask the same states for every player), shortest traces with as
few `leave` moves as possible, the lasso of a cycle, and the rules and declarations a finding
cites. On a graph reduced by symmetry it asks `checker.explicit.symmetry` for what needs more
than weights. `phase_citations` is here because checks of every group cite phases.
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass
from functools import cached_property

from ..explicit.explore import Graph, path_from, rules_of
from ..explicit import symmetry
from ..limits import Budget
from .causes import Blocking, Entries
from .findings import Finding, TraceStep
from .paths import Arcs, Components, lasso_cycle, reachable
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
        if not any(self._leave):  # every move is a game move: the states with a move out
            off = self.arcs.out_off
            return {u for u in range(len(self.graph.states)) if off[u] < off[u + 1]}
        game, edges = self._game, self.graph.edges
        return {s for s, lid in zip(edges.src, edges.lid) if game[lid]}

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
            # states that agree on what the condition reads (whose turn it is, not the
            # players' totals) agree on its value: it is evaluated once for them (never an error,
            # which is not remembered and fails again where it did)
            entries = self._active_entries
            if entries is not None:
                state = self.graph.states[sid]
                seen = (p, *[state[i] for i in entries])
                got = self._active_by_entries.get(seen, 0)
                if got:
                    known[sid] = got
                    return got == 2
            # the checks ask player by player, state after state: a packed state is unpacked
            # once, not once per player (up to READERS states are kept)
            reader = self._readers.get(sid)
            if reader is None:
                reader = m.reader(self.graph.states[sid])
                if len(self._readers) < READERS:
                    self._readers[sid] = reader
            got = known[sid] = 2 if m.active_in(reader, p) else 1
            if entries is not None and len(self._active_by_entries) < READERS:
                self._active_by_entries[seen] = got
        return got == 2

    def holds_in(self, cond, f, sid: int, binding: tuple = ()) -> bool:
        """`f`, the closure of condition `cond` (its binders bound to `binding`), in state `sid`.
        States that agree on the entries `cond` reads agree on its value: it is evaluated once
        for them (a procedure's `time == extra` in a game counting totals). An error is not
        remembered: it is raised again where it was."""
        known = self._by_entries.get(id(cond))
        if known is None:  # (the condition is kept with its answers: its id is not reused)
            known = self._by_entries[id(cond)] = (cond, self.entries_read(cond), {})
        _, read, memo = known
        state = self.graph.states[sid]
        if read is None:
            return bool(f(self.machine.reader(state)))
        seen = (binding, *[state[j] for j in read])
        got = memo.get(seen)
        if got is None:
            got = bool(f(self.machine.reader(state)))
            if len(memo) < READERS:
                memo[seen] = got
        return got

    def entries_read(self, cond) -> tuple[int, ...] | None:
        """The entries of a stored state that condition `cond` reads, by which a check may
        remember its value (checker.explicit.compiled: `entries_read`); None: remember nothing."""
        entries = getattr(self.machine, "entries_read", None)
        return entries(cond) if entries is not None else None

    @cached_property
    def _active_entries(self) -> tuple[int, ...] | None:
        """What `is_active` remembers its answers by (None: each state's own)."""
        entries = getattr(self.machine, "active_entries", None)
        return entries() if entries is not None else None

    @cached_property
    def _active_by_entries(self) -> dict:
        return {}

    @cached_property
    def _by_entries(self) -> dict:
        return {}

    @cached_property
    def _active(self) -> dict:
        return {}

    @cached_property
    def _readers(self) -> dict:
        return {}

    @cached_property
    def arcs(self) -> Arcs:
        """The graph's edges indexed by source and by target (checker.analyses.paths): every
        search on cycles walks these arrays, no check copies the graph."""
        return Arcs(self.graph.edges, len(self.graph.states))

    def game_out(self, u: int) -> list[tuple[int, int]]:
        """[(target, label)] of the game moves (not `leave`) out of state u, in the graph's order."""
        a, leave = self.arcs, self._leave
        dst, lid = a.dst, a.lid
        return [(dst[i], lid[i]) for i in a.out(u) if not leave[lid[i]]]

    @cached_property
    def _leave(self) -> bytearray:
        g = self.graph
        return bytearray(g.is_leave(lid) for lid in range(len(g.labels)))

    @cached_property
    def _game(self) -> bytearray:
        """Per label id, whether it is a game move (not `leave`): the edges the cycle checks use."""
        return bytearray(not x for x in self._leave)

    def _labels_where(self, pred) -> bytearray:
        """Per label id: a game move whose label satisfies `pred` (every game move when None)."""
        if pred is None:
            return self._game
        game = self._game
        return bytearray(game[lid] and bool(pred(lid)) for lid in range(len(game)))

    def _flags(self, sids) -> bytearray:
        """The states `sids` as a flag per state."""
        got = bytearray(len(self.graph.states))
        for s in sids:
            got[s] = 1
        return got

    @cached_property
    def running_components(self) -> tuple[Components, bytearray]:
        """The one component pass the cycle checks share: the strongly connected components of
        the game moves among the running states, and per component whether it holds a cycle.
        A cycle among any subset of the running states lies inside one of these components
        (ended states have no moves out: every cycle runs among running states)."""
        arcs, game = self.arcs, self._game
        cs = Components(arcs, self._flags(self.running), game, range(arcs.n), self.tick)
        return cs, cs.cyclic(arcs, game, self.tick)

    @cached_property
    def _on_cycle(self) -> bytearray:
        """Per state, whether it is in `on_cycles`."""
        cs, cyclic = self.running_components
        return bytearray(c >= 0 and cyclic[c] for c in cs.comp)

    @cached_property
    def on_cycles(self) -> set[int]:
        """The running states on some cycle of game moves among running states: a cycle among
        any subset of them runs through these alone, and its component there is the same."""
        on = self._on_cycle
        return {u for u in range(len(on)) if on[u]}

    def has_cycle(self) -> bool:
        """Whether the game moves (not `leave`) can return to a state."""
        return any(self.running_components[1])

    @cached_property
    def depth(self) -> array:
        """Each state's breadth-first distance from the initial states, from the search's
        parents (a parent is always found before its child): the length of the shortest path
        to a state without building the path."""
        pred = self.graph.parent.pred
        depth = array("l", [0]) * len(pred)
        for sid, p in enumerate(pred):
            if p >= 0:
                depth[sid] = depth[p] + 1
        return depth

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
        The cycle goes from the entry of its component (the state nearest an initial state,
        by `depth`) to its least qualifying edge and back, by shortest paths inside the
        component (checker.analyses.paths, on the graph's own arrays); only the one path shown
        is built. Returns (trace, index where the loop starts, the states of the cycle's SCC)
        or None."""
        if self.reduced:
            found = symmetry.lasso(self, nodes, start, allowed, required)
            return found and (build_trace(self.graph, found[0]),) + found[1:3]
        found = self._cycle(nodes, start, allowed, required)
        if found is None:
            return None
        entry, cycle, comp = found
        prefix = self.path_to(entry)
        return build_trace(self.graph, prefix + cycle), len(prefix) - 1, set(comp)

    def has_lasso(self, nodes, allowed=None, required=None) -> bool:
        """Whether `lasso` would find a cycle among `nodes` (without building its trace)."""
        return self._cycle(nodes, None, allowed, required) is not None

    def _cycle(self, nodes, start, allowed, required):
        """`lasso_cycle` among `nodes`: on the shared component pass when its components are
        those of `nodes` (every edge a game move is usable, and each component on a cycle lies
        wholly inside `nodes` or outside), else on a pass of its own."""
        arcs = self.arcs
        usable = self._labels_where(allowed)
        need = None if required is None else self._labels_where(required)
        if not any(usable) or (need is not None and not any(need)):
            return None  # no move to make a cycle of (say, a livelock check where every move is progress)
        states = sorted(nodes)
        on = self._on_cycle  # a cycle among `nodes` runs through states on cycles only
        cycling = [u for u in states if on[u]]
        shared = usable == self._game and self._whole_components(cycling)
        comp = self.running_components[0].comp
        if start is not None and not (shared and on[start] and all(comp[u] == comp[start] for u in cycling)):
            # only the states reached from `start` count (unless all of them are in its own
            # component of the shared pass, where every state reaches every other)
            seen = reachable(arcs, self._flags(states), usable, start, self.tick)
            cycling = [u for u in cycling if seen[u]]
        if shared:
            cs = self.running_components[0]
        else:
            cs = Components(arcs, self._flags(cycling), usable, cycling, self.tick)
        states = cycling
        return lasso_cycle(arcs, cs, states, usable, need, self.depth, self.tick)

    def _whole_components(self, states) -> bool:
        """Whether the states `states` (on cycles) are whole components of the shared pass."""
        comp, size = self.running_components[0].comp, self._sizes
        count: dict[int, int] = {}
        for u in states:
            c = comp[u]
            count[c] = count.get(c, 0) + 1
        return all(size[c] == k for c, k in count.items())

    @cached_property
    def _sizes(self) -> dict[int, int]:
        """The number of states of each component of the shared pass that holds a cycle."""
        comp, on = self.running_components[0].comp, self._on_cycle
        size: dict[int, int] = {}
        for u in range(len(on)):
            if on[u]:
                size[comp[u]] = size.get(comp[u], 0) + 1
        return size

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

