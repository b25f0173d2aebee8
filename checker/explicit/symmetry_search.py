"""Symmetry reduction, the search: rotations of packed states and the reduced graph.

The reduced search keeps, per orbit, the first state of it that breadth-first search meets (a
real state, not the canonical one), in a dict keyed by the canonical form: one can show that
this keeps exactly the states of the full search that are the first of their orbit, in the full
search's order, with the full search's parent of each. Every shortest trace, every "first state
with property P" and so every counterexample of a check on single states is the full search's
own, unchanged. An edge keeps the rotation h from the representative it points at to the real
successor (successor = rotate(representative, h)); per state, its orbit size counts the states
it stands for.

Which instances are reduced, and by which rotations, is checker.explicit.symmetry's (`detect`,
and `setup_step` here when the setup is not symmetric under all of them); the checks that need
more than the orbit sizes are checker.explicit.symmetry_quotient's.
"""
from __future__ import annotations

import time
from array import array

from ..frontend.ends import RUNNING, Ended, Gap, is_gap
from ..limits import Budget, LimitHit, Limits
from .explore import LIVE_EVERY, Graph
from .machine import Room

EXTRA = 1 << 40  # state ids of de-canonicalized trace states (not part of the reduced graph)
GAP_KEY = Gap("")  # a gap's end marker in a canonical key: its text dropped (the rest of the state determines it)


class Unreduced(Exception):
    """The unreduced graph's exact finding cannot be told from the quotient (a check on it), or
    the steps are not shown to commute with the rotations (the reduced search, where triggers
    run in an order a rotation changes): the instance is explored again without reduction
    (docs/checks.md, "Symmetry")."""


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
            if v.parts:  # several indices: a rotation moves every player index of every slot (a bit, or a field)
                self.ops.append(("slots", f.width, f.mask, f.low, v.count, pval, _slot_moves(v.parts, n)))
            elif f.kind == "scalar":
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
        """`canon_slow` specialized to this layout (generated source made only of made-up names
        and int literals, as in checker.explicit.codegen, and the end markers' types): the
        primary mask's rotations in one list of shifts; where one is least, each entry rotated
        once; where several tie (no marker yet: every state of a free-for-all before anyone
        left), each of those rotations written out and compared as `canon_slow` compares them.
        A variable of several indices, or one per seat holding players, keeps `canon_slow`."""
        if any(op[0] == "slots" or op[0] == "fields" and op[5] for op in self.ops):
            return None
        n, k = self.n, self.nf
        names = [f"x{i}" for i in range(k)]

        def rot(x):
            return f"((({x} << r) | ({x} >> {n} - r)) & {self.full})"
        parts = []
        for i, op in enumerate(self.ops):
            x = names[i]
            if op[0] in ("bits", "set"):
                parts.append(rot(x))
            elif op[0] == "pl":
                parts.append(f"({x} if {x} < 0 else ({x} + r) % {n})")
            elif op[0] == "fields" and op[6]:  # one field per seat: the fields move r seats
                w = op[1]
                total = (1 << (w * n)) - 1
                parts.append(f"((({x} << ({w} * r)) | ({x} >> ({w} * ({n} - r)))) & {total})")
            else:
                parts.append(x)
        parts += [rot("out"), "tout",
                  f"(end if not end else GAP_KEY if end.__class__ is Gap else Ended({rot('end.players')}, end.teams, end.draw))"]
        key = f"({''.join(x + ', ' for x in parts)})"
        p = names[self.primary] if self.primary < k else "out"
        src = "\n".join([
            "def canon(state):",
            f"    {''.join(x + ', ' for x in names)}out, tout, end = state",
            f"    d = {p} | ({p} << {n})",
            f"    vals = [(d >> s) & {self.full} for s in SHIFTS]",
            "    low = min(vals)",
            "    if vals.count(low) == 1:",
            f"        r = vals.index(low) * {self.step}",
            f"        return {key}, ({n} - r) % {n}, 1",
            "    best = None",
            "    for i, v in enumerate(vals):",
            "        if v != low:",
            "            continue",
            f"        r = i * {self.step}",
            f"        got = {key}",
            "        if best is None or got < best:",
            "            best, at, stab = got, r, 1",
            "        elif got == best:",
            "            stab += 1",
            f"    return best, ({n} - at) % {n}, stab",
        ])
        ns = {"__builtins__": {"min": min, "enumerate": enumerate}, "SHIFTS": tuple(n - r for r in self.rs),
              "Ended": Ended, "Gap": Gap, "GAP_KEY": GAP_KEY}
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
            elif kind == "slots":  # slot i's value moves to slot moves[r][i] (and is rotated if a player)
                _, w, mask, low, count, pval, moves = op
                to, y = moves[r], 0
                for i in range(count):
                    v = ((x >> (i * w)) & mask) + low
                    if pval and v >= 0:
                        v = (v + r) % n
                    y |= (v - low) << (to[i] * w)
                out.append(y)
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
            out.append(RUNNING)
        elif is_gap(end):
            out.append(GAP_KEY)
        else:
            wp = end.players
            out.append(Ended(((wp << r) | (wp >> (n - r))) & self.full if r else wp, end.teams, end.draw))
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


def _slot_moves(parts, n: int) -> list[tuple[int, ...]]:
    """Per rotation r of the n seats, where each slot of a variable of several indices goes:
    its player indices move r seats, its number indices stay (the first index the most
    significant, as checker/frontend/resolver/indices.py lays the slots out)."""
    sizes = [n if p.kind == "player" else p.high - p.low + 1 for p in parts]
    count = 1
    for size in sizes:
        count *= size
    moves = []
    for r in range(n):
        to = []
        for slot in range(count):
            digits, rest = [], slot
            for size in reversed(sizes):
                digits.append(rest % size)
                rest //= size
            digits.reverse()
            new = 0
            for p, size, dgt in zip(parts, sizes, digits):
                new = new * size + ((dgt + r) % n if p.kind == "player" else dgt)
            to.append(new)
        moves.append(tuple(to))
    return moves


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
        # whether the reachable states are known closed under the rotations (the initial states
        # are, or the complete search showed it: `offsets_closed`): only then is what one
        # player meets here met by every player it rotates to (`player_orbits`)
        self.closed = False
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
    asymmetric setup that the play does not rotate all the way round): explore without it.
    Raises Unreduced when a step met does not commute with the rotations after all (triggers
    whose seat order matters: `Machine.watch_order`; the initial states are not watched, each
    setup is resolved for itself and their rotations are compared below)."""
    start = time.perf_counter()
    budget = budget or Budget(limits)
    g = ReducedGraph(machine, rot)
    g.budget_check = budget.check
    try:
        initial, g.setup_errors = machine.initial_states(limits.max_states, budget)
    except LimitHit as exc:
        g.complete = False
        g.stop_reason = str(exc)
        g.seconds = time.perf_counter() - start
        return g
    init_keys = _add_initial_states(g, initial)
    closed_init = g.closed = all(len(offs) >= g.orbit[s] for s, offs in init_keys.items())
    if not closed_init and (g.conflicts or g.setup_errors):
        return None  # what the setup reports of one state would not hold of its rotations
    machine.watch_trigger_order(True)
    try:
        _search(g, machine, limits, budget, on_states)
    finally:
        machine.watch_trigger_order(False)
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
    g.closed = True
    g.seconds = time.perf_counter() - start
    return g


def _add_initial_states(g: ReducedGraph, initial: list) -> dict:
    """The initial states' representatives added to `g`; returns, per representative, the
    rotations of it (offsets) that are initial states."""
    rot = g.rot
    canon, n, order = rot.canon, rot.n, rot.order
    init_keys: dict = {}
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
    return init_keys


def _search(g: ReducedGraph, machine, limits: Limits, budget: Budget, on_states) -> None:
    """The breadth-first search from the representatives already in `g`, one state per orbit
    (the first met), until every one is expanded or a limit stops it (`g.complete` False)."""
    rot = g.rot
    canon, n, order = rot.canon, rot.n, rot.order
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
        if machine.order_sensitive:  # a step met does not commute with the rotations
            raise Unreduced(machine.order_sensitive)
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


def _nothing() -> None:
    pass
