"""Symmetry reduction: rotations of the seating ring, detected from the typed IR.

What it is for. A ring of 43 seats whose rules treat every seat alike has 43 rotated copies of
almost every state; exploring one state per orbit (set of rotations of a state) divides the
work by about the number of seats. docs/checks.md ("Symmetry") says which checks stay exact and
why. This module detects the symmetry; checker.explicit.symmetry_search holds the canonical
forms and the reduced search, checker.explicit.symmetry_quotient the quotient versions of the
checks that need more than weights. All of it is reached through this module, as before the
split (the engine and the checks call `symmetry.X`).

Detection (`detect`) is conservative. The group is the rotations p -> p + r (mod n) of the
seats, used only when the model has no teams and nothing a step, a trigger, an outcome rule,
an `ends` condition, an invariant, a procedure, the `active` condition or a `reachable`
property reads can tell seats apart: no player or team literal, no `seat()`, `player_at()` or
`after()`, no argmin/argmax over players (ties break by seat order), no `forall ... do`
statement over players whose turns can see each other (they run in seat order; `_pointwise`),
no choice (static) variable, only the built-ins known to commute with rotation (`left`,
`next_in_game`, `dist`, `remaining`...). Triggers that one step fires for several players run
by seat too, and from a rotated state in a rotated seat order: that is not decided here but
during the reduced search, which runs every such round in each order a rotation gives it and
gives way to the full search where the orders end differently (checker.explicit.outcomes,
`watch_order`). Initial values, `init` and `constraint` may break the symmetry (a ring may put
markers on seats 0, 4, 8, ...): they only pick the initial states, and the search proves
afterwards that the reachable set is closed under rotation anyway (`offsets_closed`), or the
instance is explored without reduction.

Why the reduced search's states and parents are the full search's: checker.explicit.symmetry_search.
"""
from __future__ import annotations

import os

from ..frontend import typed as T
# the search and the quotient's checks, reached as symmetry.X by the engine, the checks and the tests
from .symmetry_quotient import Unreduced, all_rotations, lasso, player_orbits  # noqa: F401
from .symmetry_search import EXTRA, ReducedGraph, Rotation, explore_reduced, offsets_closed, setup_step  # noqa: F401

# built-ins that commute with a rotation of the seats (without teams); anything else refuses
ROTATION_SAFE = frozenset({
    "left", "right", "next", "across", "dist", "dist_left", "opponents", "teammates",
    "next_in_game", "prev_in_game", "left_in_game", "dist_in_game",
    "in_game_player", "lost_player", "won_player", "size", "abs", "min", "max",
    "players", "remaining", "nplayers", "nteams", "team_size", "game_over", "game_drawn", "game_finished",
})


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
    # not (yet) shown to commute with a rotation: draws, departures and wins of some players
    # keep their reasons in bits above the seats' bits of `out`, which the canonical form does
    # not rotate; loop_draws changes what the cycle checks report. (Triggers run by seat: the
    # reduced search compares the seat orders a rotation gives them, `Machine.watch_order`.)
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
    for t in m.triggers:
        roots += [t.cond, t.body]
    roots += [d.cond for d in m.ends + m.invariants + m.procedures]
    if m.active is not None:
        roots.append(m.active.cond)
    if m.opponents is not None:  # read by the player-without-outcome check on every ended state
        roots.append(m.opponents.cond)
    for d in m.reachables:
        roots += [dom for _, dom in d.params] + [d.cond]
    for root in roots:
        for node in T.walk(root, _below):
            if isinstance(node, T.OutcomeStmt) and (node.kind == "leave" or node.kind == "draw" and node.subject is not None):
                return 0, "outcomes for some players while the game goes on"
            why = _breaks_rotation(node)
            if why:
                return 0, why
    return n, ""


def _below(n) -> tuple:
    """`T.children`, but a variable of several indices is read and written through the writer's
    index expressions, not the slot number the front end computes from them with seat(): a
    rotation moves every index of its slots (`Rotation`), as it moves a player-indexed one's."""
    if isinstance(n, T.VarRef) and n.indices:
        return n.indices
    if isinstance(n, T.Assign) and n.indices:
        return n.indices + (n.value,)
    return T.children(n)


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
