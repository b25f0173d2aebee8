"""A directed search: a path to a goal (a win, a property, a broken invariant) without
exploring everything.

Rules texts use big numbers (life 8,000): a win lies thousands of steps deep, behind more
states than a breadth-first search can hold. The symbolic engine proves what cannot happen
without states at all; where it cannot prove a goal unreachable, what is wanted is a concrete
witness, a path of the explorer's own states from an initial state to one meeting the goal.
This search finds one by expanding, of the states it has found, the one nearest the goal
first: best first, nearest by the goal's distance (checker.explicit.distance), then deepest
first, then by the order found (a heap of (distance, -depth, id): no randomness, the same path
every run). Deepest first among equals: moves that do not change the distance (training, an
opponent's turn) are many, and shallowest first expanded all of their combinations before
going one step further (a plateau of millions of states where a path needs one of them). Nothing here knows a format, a game or a rule: the goals are the spec's own conditions.

Goals are taken one after another, over one graph: for each, the states not yet expanded are
ordered by its distance, and expanded until a state meets it or its share of the expansions
is spent (the expansions left, shared evenly among the goals left, so a goal reached early
leaves more to the others). A state that meets a later goal may already be in the graph when
that goal's turn comes. A partial breadth-first graph (`start`) may be the first frontier.

States are expanded exactly as breadth first (`checker.explicit.explore.expand`, one function
for both): failing steps go to `errors`, conflicts to `conflicts`, and the budget and state
limit stop the search where they stop `explore`, keeping what was found. The graph handed back
is a partial graph the checks (checker.analyses.checks) can read: `complete` False, its
`stop_reason` saying it was a directed search, renumbered (`explore.renumbered`) so that its
expanded states come first in the order they were expanded and every parent comes before its
child; `path_to(found)` is the path. Paths are not shortest: the checks' traces on such a
graph are ways there, not the shortest ones.

Timing (time.process_time(), on a 2-core machine shared with other work): the
free-for-all at P = 4, L = 8,000 (bench/peers/ffa.rw; 24,000 life to take from each player's
opponents) finds a path to each player's win, the four goals in one search, in 5.0 CPU
seconds (2026-11-30; 7.1 before resolutions were keyed by thresholds, checker.explicit.
resolution_keys; 19,529 of 114,934 states expanded; paths of 10,070, 11,846, 11,846 and
9,489 steps);
P1's win alone takes 2.0 s (10,071 of 74,072; before the keyed resolutions). Most of it now is
the goals' distances (each new goal re-orders the whole frontier), the rest the steps. From
the repository's root:
    python -c "import sys,time,tempfile; sys.path[:0]=['.','bench']; from pathlib import Path; \\
    from families import ffa_spec; from checker.engine import load_instances; \\
    from checker.explicit.compiled import machine_for; \\
    from checker.explicit.directed import explore_directed, win_goals; \\
    (i,)=load_instances(str(ffa_spec(4, 8000, Path(tempfile.mkdtemp())))); m=machine_for(i); \\
    t=time.process_time(); g,f=explore_directed(m, win_goals(m)); \\
    print(time.process_time()-t, [len(g.path_to(s)) - 1 for s in f], g.stop_reason)"
"""
from __future__ import annotations

import heapq
import math
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..frontend import typed as T
from ..frontend.types import BOOL, PLAYER, TEAM
from ..limits import Budget, LimitHit, Limits
from .compile import EvalError
from .distance import MISS, OUT, distances
from .explore import Graph, expand, renumbered, seed
from .machine import Machine, Room


KNOWN = 200_000  # distances a goal keeps, by the entries its condition reads


@dataclass(frozen=True)
class Goal:
    """What the search looks for: `holds(state)` where it is met, and `distance(state)`, 0.0
    exactly there and more the further a state seems from it (it orders the search only).
    `settled(graph)`, where given, says that the graph searched so far already shows what the
    goal is for (a rule it applied on the way to an earlier goal): it is then not pursued."""
    description: str
    holds: Callable[[tuple], bool]
    distance: Callable[[tuple], float]
    settled: Callable[[Graph], bool] | None = None


def condition_goal(machine: Machine, description: str, cond, negated: bool = False, bindings=None,
                   cells: tuple = (), chain: tuple = (), running: bool = False, fixed: bool = False) -> Goal:
    """The goal "`cond` holds (or, `negated`, fails) for some binding": `bindings(ctx)` gives
    the tuples of values of the binders `cond` leaves free, whose cells are `cells` (one
    binding, (), when None). An evaluation error is a binding that does not meet it. With
    `running`, only a state where the game goes on meets it. `chain`: the outcome rules whose
    binders `cond` reads (a rule's own condition), which its distance must not unfold again.
    `fixed`: `bindings` reads nothing of the state (the same tuples in every state)."""
    f = machine.comp.expr(cond)
    far = distances(machine).of(cond, negated, chain)
    choices = bindings or (lambda c: ((),))
    reader = machine.reader

    def met(c) -> bool:
        try:
            return bool(f(c)) != negated
        except EvalError:
            return False

    def bound(c):
        for values in choices(c):
            for cell, v in zip(cells, values):
                cell[0] = v
            yield

    def holds(state) -> bool:
        if running and state[-1]:
            return False
        c = reader(state)
        return any(met(c) for _ in bound(c))

    def distance(state) -> float:
        if running and state[-1]:
            return OUT
        if read is None:
            return far_from(state)
        seen = tuple([state[i] for i in read])
        d = known.get(seen)
        if d is None:
            d = far_from(state)
            if len(known) < KNOWN:
                known[seen] = d
        return d

    def far_from(state) -> float:
        c = reader(state)
        best = math.inf
        for _ in bound(c):
            d = far(c)  # (the cells are this binding's until the next one is bound)
            if d == 0.0 and met(c):  # the heuristic is 0 where the condition holds; `met` has the last word
                return 0.0
            best = min(best, d)
        return max(best, MISS) if best < math.inf else MISS  # not met: never 0, whatever the heuristic says

    # States that agree on every entry the condition and the outcome rules its distance unfolds
    # read (a win read off the totals, not whose turn it is or the phase) are as far from it:
    # the distance is computed once for them (the search places hundreds of thousands).
    entries = getattr(machine, "entries_read", None)
    read = entries([cond] + [r.decl.cond for r in machine.outcomes]) \
        if entries is not None and (bindings is None or fixed) else None
    known: dict = {}
    return Goal(description, holds, distance)


def player_wins(machine: Machine, p: int) -> Goal:
    """Player `p` (a seat) has won: the end marker names them a winner, or they won and left
    while the game goes on (`won(p)`); the distance unfolds the spec's `win` rules."""
    return _wins(machine, "won_player", PLAYER, p, machine.inst.players[p])


def team_wins(machine: Machine, t: int) -> Goal:
    """Team `t` has won (`won(t)`)."""
    return _wins(machine, "won_team", TEAM, t, f"team {machine.inst.teams[t]}")


def _wins(machine: Machine, func: str, ty, i: int, who: str) -> Goal:
    return condition_goal(machine, f"{who} wins", T.Call(func, (T.Const(i, ty),), BOOL))


def reachable_goal(machine: Machine, name: str, binding: tuple | None = None) -> Goal:
    """`reachable NAME` holds: for `binding` of its parameters, or for any when None."""
    d, bounds, _ = next(r for r in machine.reachables if r[0].name == name)
    cells = tuple(b.cell for b in bounds)
    if binding is not None:
        args = ", ".join(f"{b.binder.name}={machine.show(b.binder.type, v)}" for b, v in zip(bounds, binding))
        return condition_goal(machine, f"`{name}` is reached" + (f" for {args}" if args else ""), d.cond,
                              bindings=lambda c: (binding,), cells=cells, fixed=True)
    return condition_goal(machine, f"`{name}` is reached", d.cond, bindings=_bindings_of(machine, bounds), cells=cells)


def invariant_fails(machine: Machine, name: str) -> Goal:
    """Invariant NAME does not hold (one without a value is not a failure here)."""
    d = next(d for d, _ in machine.invariants if d.name == name)
    return condition_goal(machine, f"invariant `{name}` fails", d.cond, negated=True)


def rule_fires(machine: Machine, name: str) -> Goal:
    """The action NAME can be taken (its guard holds for some arguments in a game that goes on),
    or the outcome rule NAME's condition holds for some subject. Settled once a step of the
    graph applied the rule."""
    for a in machine.actions:
        if a.decl.name == name:
            goal = condition_goal(machine, f"action `{name}` can be taken", a.decl.guard,
                                  bindings=_bindings_of(machine, a.binders), cells=tuple(a.cells), running=True)
            return replace(goal, settled=lambda g, rid=a.rid: rid in g.hit_rules)
    r = next(r for r in machine.outcomes if r.decl.name == name)
    if r.cell is None:  # a draw or finish of the whole game
        goal = condition_goal(machine, f"rule `{name}` applies", r.decl.cond, chain=(r.rid,))
    else:
        subjects = [(s,) for s in r.subjects]
        goal = condition_goal(machine, f"rule `{name}` applies", r.decl.cond, bindings=lambda c: subjects,
                              cells=(r.cell,), chain=(r.rid,), fixed=True)
    return replace(goal, settled=lambda g, rid=r.rid: rid in g.hit_rules)


def _bindings_of(machine: Machine, bounds: list):
    """The bindings of the machine's own binders `bounds` in a state (a domain without a value there gives none)."""
    return lambda c: machine.bindings(bounds, c, [])


def win_goals(machine: Machine) -> list[Goal]:
    """A win of every player, or of every team, where some `win` rule or statement names one."""
    model = machine.model
    kinds = {r.subject for r in model.outcomes if r.kind == "win"}
    bodies = [a.body for a in model.actions] + [t.body for t in model.triggers]
    kinds |= {n.subject.type.kind for n in T.walk(bodies)
              if isinstance(n, T.OutcomeStmt) and n.kind == "win" and n.subject is not None}
    inst = machine.inst
    return ([player_wins(machine, p) for p in range(inst.nplayers)] if "player" in kinds else []) + \
           ([team_wins(machine, t) for t in range(inst.nteams)] if "team" in kinds else [])


def explore_directed(machine: Machine, goals: list[Goal], limits: Limits = Limits(), budget: Budget | None = None,
                     start: Graph | None = None, max_expansions: int | None = None) -> tuple[Graph, list[int | None]]:
    """(the graph searched, for each goal the id there of a state meeting it or None).

    `max_expansions` (by default the state limit) is shared among the goals; the state limit
    and the budget (by default one of `limits`) end the whole search, keeping what was found.
    `start`: a graph `explore` made of this machine (not one reduced by symmetry), whose
    unexpanded states are the first frontier; it is copied, not changed."""
    began = time.perf_counter()
    budget = budget or Budget(limits)
    if start is not None:
        if type(start) is not Graph or start.machine is not machine:
            raise ValueError("the directed search starts from a breadth-first graph of the same machine")
        g, _ = renumbered(start, range(start.expanded))  # a copy, the same ids
        g.complete, g.stop_reason = True, ""
        done = list(range(start.expanded))
        stopped = ""
    else:
        g, done = Graph(machine), []
        stopped = "" if seed(g, limits, budget) else g.stop_reason
    search = _Search(g, done, limits.max_states, budget)
    found: list[int | None] = [None] * len(goals)
    left = limits.max_states if max_expansions is None else max_expansions
    for i, goal in enumerate(goals):
        if stopped:
            break
        if goal.settled is not None and goal.settled(g):
            continue
        try:
            found[i] = search.pursue(goal, left // (len(goals) - i))
            stopped = search.stopped
        except LimitHit as exc:  # the budget read between states, or the watchdog in a condition
            stopped = str(exc)
        left -= search.spent
    out, new = renumbered(g, done)
    reached = sum(f is not None for f in found)
    out.complete = False
    out.stop_reason = (f"a directed search, not every state: {reached} of {len(goals)} goal(s) reached, "
                       f"{len(done):,} of {len(out.states):,} states expanded"
                       + (f"; stopped: {stopped}" if stopped else ""))
    out.seconds = time.perf_counter() - began
    # (the room, the state limit, is the search's own bound; any other stop is its budget's)
    out.limit_hit = stopped if stopped != search.room.why else ""
    return out, [None if f is None else new[f] for f in found]


class _Search:
    """The search's own records beside the graph: each state's depth and whether it is
    expanded. The graph is written only by `expand`, which also appends to `done`: whatever
    stops the search (a limit read here, or the watchdog in a condition), `g` and `done` agree."""

    def __init__(self, g: Graph, done: list, max_states: int, budget: Budget):
        self.g, self.done, self.max_states, self.budget = g, done, max_states, budget
        self.room = Room(g.index, max_states, budget.check)
        pred = g.parent.pred
        self.depth = array("l", [0]) * len(pred)
        for sid, p in enumerate(pred):  # a parent has a smaller id (breadth first, or renumbered)
            if p >= 0:
                self.depth[sid] = self.depth[p] + 1
        self.expanded = bytearray(len(pred))
        for sid in done:
            self.expanded[sid] = 1
        self.stopped = ""
        self.spent = 0

    def _expand(self, sid: int) -> bool:
        if expand(self.g, sid, self.budget, self.room, self.max_states, self.done):
            self.expanded[sid] = 1
            return True
        self.stopped = self.g.stop_reason
        return False

    def pursue(self, goal: Goal, share: int) -> int | None:
        """A state meeting `goal`, after at most `share` expansions (`spent` says how many); None
        when none was found, `stopped` saying why if a limit ended the search."""
        states = self.g.states
        self.spent = 0
        heap: list = []
        for sid in range(len(states)):  # the frontier, ordered by this goal; one in the graph may meet it
            met = self._place(sid, goal, heap)
            if met is not None:
                return sid if met else None
        while heap and self.spent < share:
            _, deeper, sid = heapq.heappop(heap)
            first = len(states)
            if not self._expand(sid):
                return None
            self.spent += 1
            new = len(states) - first
            self.depth.extend([1 - deeper] * new)
            self.expanded.extend(bytes(new))
            for tid in range(first, len(states)):
                met = self._place(tid, goal, heap)
                if met is not None:
                    return tid if met else None
        return None

    def _place(self, sid: int, goal: Goal, heap: list) -> bool | None:
        """Sorts state `sid` into the search for `goal`: True when it meets the goal, False when a
        limit ended the search, None when it is queued by its distance or needs nothing more."""
        self.budget.check()
        state = self.g.states[sid]
        if self.expanded[sid] or state[-1]:
            # an ended game is expanded at once (no step out of it), never queued
            if not self.expanded[sid] and not self._expand(sid):
                return False
            return True if goal.holds(state) else None
        d = goal.distance(state)
        if d == 0.0:
            return True
        heapq.heappush(heap, (d, -self.depth[sid], sid))
        return None


def follow(machine: Machine, frames: list[tuple], limits: Limits = Limits(), budget: Budget | None = None
           ) -> tuple[Graph, int | None, int]:
    """The symbolic engine's counterexample walked by the explorer: `frames` are the values each
    state of the path must have, in order (the variables' slots, then the players out and the
    teams out, as masks: `Machine.values` laid out). (the graph walked, the id there of a state
    fitting the last frame or None, how many frames were fitted).

    Every state fitting a frame is expanded (so the checks see its steps: a deadlock, a failing
    step, a conflict on the next state), and the next frame is looked for among its successors.
    Of the steps of a state before the last, only those to a state fitting a frame of the path
    become edges (`expand`'s `keep`, with a game move besides where none of them is one): a
    damage of any amount among 8,000 is 8,000 successors a state, which the walk does not need
    and the checks would read. The last state's steps are all there (unless it was met before,
    in a loop: then those that fit a frame).
    None with fewer frames fitted than given means the explorer has no such step (the engines
    disagree, which the caller must say), unless a limit stopped the walk (the stop reason
    then ends with "stopped: " and why). The graph is handed back as the directed search's is
    (renumbered, `complete` False, its stop reason saying what it was)."""
    budget = budget or Budget(limits)
    began = time.perf_counter()
    g, done = Graph(machine), []
    walked: set[int] = set()  # (done, as a set: a path may be long)
    fitted, last, stopped = 0, None, ""
    k = machine.inst.nslots
    # who is out, as masks: the slots hold more above them (why a player is out), which the
    # states of several fitting ones may differ in (all are followed)
    players, teams = (1 << machine.inst.nplayers) - 1, (1 << machine.inst.nteams) - 1

    def frame_of(state: tuple) -> tuple:
        values = machine.values(state)
        return tuple(values[:k]) + (values[k] & players, values[k + 1] & teams)

    def fits(sid: int, frame: tuple) -> bool:
        return frame_of(g.states[sid]) == frame

    # the steps kept of a state before the last: to a state fitting some frame of the path (not
    # only the next: a state met twice, in a loop, is expanded once, and its edges must hold
    # the steps both times need)
    wanted = set(frames)

    def keep(state: tuple) -> bool:
        return frame_of(state) in wanted

    try:
        if not seed(g, limits, budget):
            raise LimitHit(g.stop_reason)
        room = Room(g.index, limits.max_states, budget.check)
        current = [sid for sid in g.init_ids if fits(sid, frames[0])]
        fitted = 1 if current else 0
        for frame in frames[1:]:
            after: list[int] = []
            for sid in current:
                if sid in walked:
                    targets = _targets(g, sid)
                else:
                    first = len(g.edges.dst)
                    if not expand(g, sid, budget, room, limits.max_states, done, keep=keep):
                        raise LimitHit(g.stop_reason)
                    walked.add(sid)
                    targets = list(g.edges.dst[first:])
                after += [t for t in dict.fromkeys(targets) if t not in after and fits(t, frame)]
            if not after:
                break
            current, fitted = after, fitted + 1
        if current and fitted == len(frames):
            last = current[0]
            if last not in walked:  # its own steps: a deadlock or a failing step is seen there
                expand(g, last, budget, room, limits.max_states, done)
    except LimitHit as exc:
        stopped = str(exc)  # what was walked stays; `fitted` says how far
    out, new = renumbered(g, done)
    out.complete = False
    out.stop_reason = (f"a path the symbolic engine found, walked by the explorer: {fitted} of {len(frames)} step(s)"
                       + (f"; stopped: {stopped}" if stopped else ""))
    out.seconds = time.perf_counter() - began
    return out, None if last is None else new[last], fitted


def _targets(g: Graph, sid: int) -> list[int]:
    """The targets of the edges out of an expanded state (a state fitted twice, in a loop)."""
    return [d for s, d in zip(g.edges.src, g.edges.dst) if s == sid]
