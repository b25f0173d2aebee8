"""Symmetry reduction: rotations of the seating ring, detected from the typed IR.

What it is for. A ring of 43 seats whose rules treat every seat alike has 43 rotated copies of
almost every state; exploring one state per orbit (set of rotations of a state) divides the
work by about the number of seats. docs/checks.md ("Symmetry") says which checks stay exact and
why; this module holds all of it: detection, canonical forms, the reduced search, and the
quotient versions of the checks that need more than weights.

Detection (`detect`) is conservative. The group is the rotations p -> p + r (mod n) of the
seats, used only when the model has no teams and nothing a step, an outcome rule, an `ends`
condition, an invariant, a procedure, the `active` condition or a `reachable` property reads
can tell seats apart: no player or team literal, no `seat()`, `player_at()` or `after()`, no
argmin/argmax over players (ties break by seat order), no `forall ... do` statement over
players whose turns can see each other (they run in seat order; `_pointwise`), no choice
(static) variable, only the
built-ins known to commute with rotation (`left`, `next_in_game`, `dist`, `remaining`...).
Initial values, `init` and `constraint` may break the symmetry (607.7a puts markers on seats
0, 4, 8, ...): they only pick the initial states, and the search proves afterwards that the
reachable set is closed under rotation anyway (`offsets_closed`), or the instance is explored
without reduction.

The reduced search keeps, per orbit, the first state of it that breadth-first search meets (a
real state, not the canonical one), in a dict keyed by the canonical form: one can show that
this keeps exactly the states of the full search that are the first of their orbit, in the full
search's order, with the full search's parent of each. Every shortest trace, every "first state
with property P" and so every counterexample of a check on single states is the full search's
own, unchanged. An edge keeps the rotation h from the representative it points at to the real
successor (successor = rotate(representative, h)); per state, its orbit size counts the states
it stands for.
"""
from __future__ import annotations

import os
import time
from array import array

from ..frontend import typed as T
from ..limits import Budget, LimitHit, Limits
from .explore import LIVE_EVERY, Graph, rules_of, sccs
from .machine import Room

# built-ins that commute with a rotation of the seats (without teams); anything else refuses
ROTATION_SAFE = frozenset({
    "left", "right", "next", "across", "dist", "dist_left", "opponents", "teammates",
    "next_in_game", "prev_in_game", "left_in_game", "dist_in_game",
    "in_game_player", "lost_player", "won_player", "size", "abs", "min", "max",
    "players", "remaining", "nplayers", "nteams", "team_size", "game_over", "game_drawn", "game_finished",
})

EXTRA = 1 << 40  # state ids of de-canonicalized trace states (not part of the reduced graph)


class Unreduced(Exception):
    """A check cannot give the unreduced graph's exact finding from the quotient: the instance
    is explored again without reduction (docs/checks.md, "Symmetry")."""


def mode() -> str:
    """`auto` (detect and use) or `off`, from RULEWRIGHT_SYMMETRY (`--symmetry` sets it)."""
    return "off" if os.environ.get("RULEWRIGHT_SYMMETRY", "auto") == "off" else "auto"


# ---------------------------------------------------------------- detection

def detect(inst) -> tuple[int, str]:
    """(n, "") when the rotations of the n seats are a symmetry of the instance's transitions
    and of everything the checks read; (0, why not) otherwise."""
    m = inst.model
    n = inst.nplayers
    if n < 2:
        return 0, "fewer than two players"
    if m.has_teams:
        return 0, "the model has teams"
    # not (yet) shown to commute with a rotation: triggers fire in seat order; draws, departures
    # and wins of some players keep their reasons in bits above the seats' bits of `out`, which
    # the canonical form does not rotate; loop_draws changes what the cycle checks report
    if m.triggers:
        return 0, "the model has triggers (they run in seat order)"
    if not m.after_win_ends or m.loop_draws:
        return 0, "after_win plays_on or loop_draws"
    for r in m.outcomes:
        if r.kind == "leave" or r.kind == "draw" and r.subject is not None:
            return 0, "outcomes for some players while the game goes on"
    for v in inst.vars:
        if v.type.kind == "team" or v.indexed == "team":
            return 0, f"variable {v.name} is about teams"
    roots: list = []
    for a in m.actions:
        roots += [d for _, d in a.params] + [a.guard, a.body]
    roots += [r.cond for r in m.outcomes]
    roots += [d.cond for d in m.ends + m.invariants + m.procedures]
    if m.active is not None:
        roots.append(m.active.cond)
    for d in m.reachables:
        roots += [dom for _, dom in d.params] + [d.cond]
    for root in roots:
        for node in T.walk(root):
            if isinstance(node, T.OutcomeStmt) and (node.kind == "leave" or node.kind == "draw" and node.subject is not None):
                return 0, "outcomes for some players while the game goes on"
            why = _breaks_rotation(node)
            if why:
                return 0, why
    return n, ""


def _is_seat(ty) -> bool:
    return ty is not None and (ty.kind in ("player", "team") or ty.kind == "set" and ty.elem is not None
                               and ty.elem.kind in ("player", "team"))


def _breaks_rotation(node) -> str:
    match node:
        case T.PlayerName() | T.TeamName():
            return f"the rules name {node.name}"
        case T.Const() if node.type.kind in ("player", "team") and node.value != -1:
            return "a constant player"
        case T.Call() if node.func not in ROTATION_SAFE:
            return f"the rules read {node.func}()"
        case T.Aggregate() if node.kind in ("argmin", "argmax") and _is_seat(node.binder.type):
            return f"{node.kind} over players breaks ties by seat"
        case T.Forall() if _is_seat(node.binder.type) and not _pointwise(node):
            return "a `forall ... do` over players runs in seat order"
        case T.VarRef() if node.static:
            return f"the rules read the choice {node.name}"
        case T.Compare() if node.op in ("<", "<=", ">", ">=") and _is_seat(node.left.type):
            return "players are compared by seat"
    return ""


def _pointwise(loop: T.Forall) -> bool:
    """Whether the order of a `forall p in ... do` cannot matter: each turn of it writes only
    places indexed by its own p (`life[p] := life[p] - 1`), reads the variables it writes only
    there, and reads no outcome of the step (`lose p;` adds p to the losers whatever the order,
    but `lost(q)` would see the turns before)."""
    uid = loop.binder.uid

    def own(index) -> bool:
        return isinstance(index, T.BinderRef) and index.uid == uid

    written = set()
    for node in T.walk(loop.body):
        if isinstance(node, T.Assign):
            if not own(node.index):
                return False
            written.add(node.var)
        elif isinstance(node, T.Call) and node.func in ("lost_player", "won_player", "lost_team", "won_team"):
            return False
    return all(own(node.index) for node in T.walk(loop.body) if isinstance(node, T.VarRef) and node.name in written)


# ---------------------------------------------------------------- rotations of packed states

class Rotation:
    """The rotations of the n seats by multiples of `step` (a divisor of n; 1: all of them),
    acting on the packed states of a CompiledMachine."""

    def __init__(self, machine, n: int, step: int = 1):
        self.machine = machine
        self.n = n
        self.step = step
        self.rs = range(0, n, step)  # the group's rotations
        self.order = len(self.rs)
        self.full = (1 << n) - 1
        self.ops = []  # per packed entry: (kind, width, mask, low, count, player values)
        for f in machine.fields:
            v = f.var
            pval = v.type.kind == "player"
            if f.kind == "scalar":
                self.ops.append(("pl" if pval else "set" if v.type.kind == "set" else "", 0, 0, 0, 1, pval))
            elif f.kind == "bits":
                self.ops.append(("bits" if v.indexed == "player" else "", 1, 1, 0, v.count, False))
            else:
                self.ops.append(("fields", f.width, f.mask, f.low, v.count, pval, v.indexed == "player"))
        self.nf = len(self.ops)
        # the entry compared first: the first per-seat bit mask, else the players out
        self.primary = next((i for i, op in enumerate(self.ops) if op[0] in ("bits", "set")), self.nf)
        self.canon = self._fast() or self.canon_slow

    def _fast(self):
        """`canon_slow` specialized to this layout, for the common case of one least rotation of
        the primary mask: one list of n shifts, then each entry rotated once (generated source
        made only of made-up names and int literals, as in checker.explicit.codegen)."""
        if self.primary == self.nf or any(op[0] == "fields" for op in self.ops):
            return None
        n, k = self.n, self.nf
        names = [f"x{i}" for i in range(k)]

        def rot(x):
            return f"(({x} << r) | ({x} >> {n} - r)) & {self.full}"
        parts = []
        for i, op in enumerate(self.ops):
            x = names[i]
            if i == self.primary:
                parts.append("low")
            elif op[0] in ("bits", "set"):
                parts.append(rot(x))
            elif op[0] == "pl":
                parts.append(f"({x} if {x} < 0 else ({x} + r) % {n})")
            else:
                parts.append(x)
        parts += [rot("out"), "tout",
                  f"(end if not end else ('gap',) if end[0] == 'gap' else ({rot('end[0]')}, end[1], end[2]))"]
        p = names[self.primary]
        src = "\n".join([
            "def canon(state):",
            f"    {''.join(x + ', ' for x in names)}out, tout, end = state",
            f"    d = {p} | ({p} << {n})",
            f"    vals = [(d >> s) & {self.full} for s in SHIFTS]",
            "    low = min(vals)",
            "    if vals.count(low) != 1:",
            "        return slow(state)",
            f"    r = vals.index(low) * {self.step}",
            f"    return ({''.join(x + ', ' for x in parts)}), ({n} - r) % {n}, 1",
        ])
        ns = {"__builtins__": {"min": min}, "SHIFTS": tuple(n - r for r in self.rs), "slow": self.canon_slow}
        exec(compile(src, "<rulewright: canonical rotation>", "exec"), ns)  # noqa: S102 - ints and made-up names only
        return ns["canon"]

    def rot_mask(self, x: int, r: int) -> int:
        n = self.n
        return ((x << r) | (x >> (n - r))) & self.full if r else x

    def rot_player(self, p: int, r: int) -> int:
        return p if p < 0 else (p + r) % self.n

    def apply(self, state: tuple, r: int) -> tuple:
        """The packed state rotated by r seats, its end marker as a key (a gap's text dropped:
        the rest of the state determines it)."""
        out = []
        n = self.n
        for x, op in zip(state, self.ops):
            kind = op[0]
            if not kind or not r:
                out.append(x)
            elif kind == "bits" or kind == "set":
                out.append(((x << r) | (x >> (n - r))) & self.full)
            elif kind == "pl":
                out.append(x if x < 0 else (x + r) % n)
            else:
                _, w, mask, low, count, pval, by_player = op
                if by_player:
                    total = (1 << (w * n)) - 1
                    x = ((x << (w * r)) | (x >> (w * (n - r)))) & total
                if pval:
                    y = 0
                    for i in range(count):
                        v = ((x >> (i * w)) & mask) + low
                        if v >= 0:
                            v = (v + r) % n
                        y |= (v - low) << (i * w)
                    x = y
                out.append(x)
        k = self.nf
        out.append(((state[k] << r) | (state[k] >> (n - r))) & self.full if r else state[k])
        out.append(state[k + 1])
        end = state[k + 2]
        if not end:
            out.append(())
        elif end[0] == "gap":
            out.append(("gap",))
        else:
            out.append((((end[0] << r) | (end[0] >> (n - r))) & self.full if r else end[0], end[1], end[2]))
        return tuple(out)

    def canon_slow(self, state: tuple) -> tuple[tuple, int, int]:
        """(canonical key, rho, stabilizer size): the least rotation of the state, with
        state = rotate(canonical, rho) (up to a gap's text), and how many rotations fix it."""
        n, full = self.n, self.full
        x = state[self.primary]
        d = x | (x << n)
        vals = {r: (d >> (n - r)) & full for r in self.rs}
        low = min(vals.values())
        cands = [r for r in self.rs if vals[r] == low]
        if len(cands) == 1:
            r = cands[0]
            return self.apply(state, r), (n - r) % n, 1
        best, at, stab = None, 0, 0
        for r in cands:
            key = self.apply(state, r)
            if best is None or key < best:
                best, at, stab = key, r, 1
            elif key == best:
                stab += 1
        return best, (n - at) % n, stab

    def rotate_binding(self, action, binding: tuple, r: int) -> tuple:
        return self.rotate_binding_of(action.binders, binding, r)

    def rotate_binding_of(self, binders, binding: tuple, r: int) -> tuple:
        """The arguments rotated by r seats (players move, numbers and members stay)."""
        if not r:
            return binding
        return tuple(self.rot_player(v, r) if b.binder.type.kind == "player" else v
                     for b, v in zip(binders, binding))


# ---------------------------------------------------------------- the reduced graph

class ReducedGraph(Graph):
    """One real state per orbit; `orbit[sid]` counts the states it stands for, `rho[sid]`
    says which rotation of the canonical form it is, `volt` per edge the rotation from the
    target representative to the real successor."""

    def __init__(self, machine, rot: Rotation):
        super().__init__(machine)
        self.rot = rot
        self.orbit = array("l")
        self.rho = array("l")
        self.volt = array("l")
        self.extra: list = []  # real states of de-canonicalized traces, ids EXTRA + i
        self.budget_check = _nothing
        self.symmetry = (f"rotations of {rot.n} seats" if rot.step == 1 else
                         f"rotations of {rot.n} seats by multiples of {rot.step} (those that map the setup onto itself)")

    def weight(self, sids) -> int:
        """How many real states the representatives `sids` stand for."""
        orbit = self.orbit
        return sum(orbit[s] for s in sids)

    @property
    def nreal(self) -> int:
        return sum(self.orbit)

    @property
    def nreal_edges(self) -> int:
        orbit = self.orbit
        return sum(orbit[s] for s in self.edges.src)

    def values(self, sid: int) -> tuple:
        if sid >= EXTRA:
            return self.machine.values(self.extra[sid - EXTRA])
        return super().values(sid)

    def state_of(self, sid: int) -> tuple:
        return self.extra[sid - EXTRA] if sid >= EXTRA else self.states[sid]


def explore_reduced(machine, rot: Rotation, limits: Limits = Limits(), budget: Budget | None = None,
                    on_states=None) -> ReducedGraph | None:
    """The reduced breadth-first search (the module doc says why its states and parents are the
    full search's); None when the reachable states are not closed under rotation (an
    asymmetric setup that the play does not rotate all the way round): explore without it."""
    start = time.perf_counter()
    budget = budget or Budget(limits)
    g = ReducedGraph(machine, rot)
    g.budget_check = budget.check
    canon = rot.canon
    try:
        initial, g.setup_errors = machine.initial_states(limits.max_states, budget)
    except LimitHit as exc:
        g.complete = False
        g.stop_reason = str(exc)
        g.seconds = time.perf_counter() - start
        return g
    init_keys: dict = {}  # canonical key -> the rotations (offsets) of its representative that are initial
    n, order = rot.n, rot.order
    for state, hits, conflict in initial:
        key, rho, stab = canon(state)
        sid = g.index.get(key)
        if sid is None:
            sid = len(g.states)
            g.states.append(state)
            g.index[key] = sid
            g.parent.append(None)
            g.orbit.append(order // stab)
            g.rho.append(rho)
            g.init_ids.append(sid)
            g.init_hits[sid] = hits
            if conflict:
                g.conflicts.setdefault(sid, conflict)
        g.hit_rules.update(hits)
        init_keys.setdefault(sid, set()).add((rho - g.rho[sid]) % n)
        if conflict and sid not in g.conflicts:
            g.conflicts[sid] = conflict
    closed_init = all(len(offs) >= g.orbit[s] for s, offs in init_keys.items())
    if not closed_init and (g.conflicts or g.setup_errors):
        return None  # what the setup reports of one state would not hold of its rotations
    states, index_get, label_get = g.states, g.index.get, g.label_index.get
    add_src, add_dst, add_lid, add_volt = g.edges.src.append, g.edges.dst.append, g.edges.lid.append, g.volt.append
    successors, conflicts, max_states = machine.successors, g.conflicts, limits.max_states
    orbit, rhos = g.orbit, g.rho
    room = Room(g.index, max_states, budget.check, key=lambda target: canon(target)[0])  # the index holds canonical forms
    queue_pos = 0
    while queue_pos < len(states):
        if len(states) > max_states:  # (only more initial states than that)
            g.complete = False
            g.stop_reason = room.why
            break
        sid = queue_pos
        state = states[sid]
        try:
            budget.check()
            room.left = max_states - len(states)
            steps = () if state[-1] else successors(state, budget, room)
        except LimitHit as exc:
            g.complete = False
            g.stop_reason = str(exc)
            break
        queue_pos += 1
        if on_states is not None and not queue_pos % LIVE_EVERY:
            on_states(len(states))
        for step in steps:
            if step.__class__ is not tuple:
                g.hit_rules.update(step.hits)
                g.errors.append((sid, step))
                continue
            key, target, conflict = step
            lid = label_get(key)
            if lid is None:
                lid = g.label(*key)
                g.hit_rules.update(key[2])
            ckey, rho, stab = canon(target)
            tid = index_get(ckey)
            if tid is None:
                tid = len(states)
                states.append(target)
                g.index[ckey] = tid
                g.parent.append((sid, lid))
                orbit.append(order // stab)
                rhos.append(rho)
            add_src(sid)
            add_dst(tid)
            add_lid(lid)
            add_volt((rho - rhos[tid]) % n)
            if conflict and tid not in conflicts:
                conflicts[tid] = conflict
    g.expanded = queue_pos
    if not closed_init and not g.complete:
        # a limit stopped the search before closure could be shown: every representative is a
        # real reachable state (its parents are real steps), so what it found stands, but an
        # orbit's other states may not be reachable: each counts as one state (a lower bound,
        # as every count of an incomplete search is), never the orbit's size
        g.orbit = [1] * len(g.states)
        g.symmetry += " (stopped before the states were shown closed under it: one state counted per orbit)"
        g.seconds = time.perf_counter() - start
        return g
    if not closed_init and not offsets_closed(g, init_keys):
        return None
    g.seconds = time.perf_counter() - start
    return g


def offsets_closed(g: ReducedGraph, init_keys: dict) -> bool:
    """Whether every rotation of every initial state is reachable, so that the reachable set is
    closed under rotation (the orbit sizes then count it exactly). Per representative, the set
    of rotations of it that are reachable is a bit mask over 0..n-1, propagated along the edges
    (a rotation a of u reaches the rotation a + h of the target) to a fixpoint."""
    rot = g.rot
    n = rot.n
    if rot.step != 1:
        return False
    reach = [0] * len(g.states)
    succ: dict[int, list] = {}
    for (s, d, _), h in zip(g.edges, g.volt):
        succ.setdefault(s, []).append((d, h))
    todo = []
    for sid, offs in init_keys.items():
        for a in offs:
            reach[sid] |= 1 << a
        todo.append(sid)
    check = g.budget_check
    while todo:
        u = todo.pop()
        if not len(todo) & 1023:
            check()
        mu = reach[u]
        for v, h in succ.get(u, ()):
            new = reach[v] | rot.rot_mask(mu, h)
            if new != reach[v]:
                reach[v] = new
                todo.append(v)
    for sid in init_keys:
        m = reach[sid]
        period = g.orbit[sid]  # the rotations by multiples of the orbit's size fix the state
        covered = 0
        for a in range(n):
            if m >> a & 1:
                covered |= 1 << (a % period)
        if covered != (1 << period) - 1:
            return False
    return True


# ---------------------------------------------------------------- checks on the quotient

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
    g = x.graph
    rot = g.rot
    n = rot.n
    leave = [g.is_leave(lid) for lid in range(len(g.labels))]
    adj: dict = {}  # node -> {successor: [labels]}: plain dicts, networkx is ten times slower here
    volt: dict = {}  # (u, v, label) -> the edge's rotation
    for (u, v, lid), h in zip(g.edges, g.volt):
        if leave[lid] or (allowed is not None and not allowed(lid)):
            continue
        if not per_player:
            if u in nodes and v in nodes:
                adj.setdefault(u, {}).setdefault(v, []).append(lid)
                volt[u, v, lid] = h
            continue
        for q in range(n):  # (u, q) -> (v, q - h): the same real player seen from the target's representative
            if nodes(u, q):
                w = (v, (q - h) % n)
                if nodes(*w):
                    adj.setdefault((u, q), {}).setdefault(w, []).append(lid)
    if start is not None:
        if start not in adj:
            return None
        keep, todo = {start}, [start]
        while todo:
            for w in adj.get(todo.pop(), ()):
                if w not in keep:
                    keep.add(w)
                    todo.append(w)
        adj = {u: {v: ls for v, ls in out.items() if v in keep} for u, out in adj.items() if u in keep}
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
    if not found:
        return None
    if len({u for _, u, _, _ in found}) > 1:
        raise Unreduced("cycles that cite different rules")
    found.sort(key=lambda t: t[0])
    _, _, comp, inside = found[0]
    edges = sorted((a, b, ls) for a, out in inside.items() for b, ls in out.items()
                   if required is None or any(required(lid) for lid in ls))
    a, b, ls = edges[0]
    key_lid = min(lid for lid in ls if required is None or required(lid))
    depth = _depths(g)
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
    return path, loop_start, comp, entry, set().union(*(c for _, _, c, _ in found))


def _depths(g) -> list:
    """Each state's distance from the initial states (its parent is always found before it)."""
    depth = [0] * len(g.states)
    pred = g.parent.pred
    for sid in range(len(depth)):
        p = pred[sid]
        if p >= 0:
            depth[sid] = depth[p] + 1
    return depth


def _nothing() -> None:
    pass


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
    """The players the group moves `players` to (with every rotation: all of them)."""
    n = g.rot.n
    return {(p + r) % n for p in players for r in g.rot.rs}


def setup_step(machine, n: int, max_states: int = 2_000_000, budget=None) -> int:
    """The least step k (a divisor of n, below n) whose rotations map the set of initial states
    onto itself, or 0: reducing by those keeps the reachable set closed (docs/checks.md)."""
    rot = Rotation(machine, n)
    try:
        states = [s for s, _, _ in machine.initial_states(max_states, budget)[0]]
    except LimitHit:
        return 0
    keys = {rot.apply(s, 0) for s in states}
    for k in range(1, n):
        if n % k == 0 and all(rot.apply(s, k) in keys for s in states):
            return k
    return 0
