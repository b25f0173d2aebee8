"""The checks on cycles: game actions that can repeat forever (a loop no game action can end,
a livelock without progress, a procedure without bound, a player never active on a cycle).
Each reports a lasso: the shortest way to the cycle, then the cycle.

Part of the ordered tuple `checker.analyses.checks.CHECKS`.
"""
from __future__ import annotations

from ..explicit.explore import describe_label
from ..explicit import symmetry
from .explored import Explored, phase_citations
from .findings import Finding
from .traces import build_trace


def doomed_states(x: Explored) -> list[int]:
    """Running states with a game move from which no sequence of game actions ends the game."""
    arcs, game = x.arcs, x._game
    src, lid = arcs.src, arcs.lid
    # one backward search from every ended state at once, over the edges indexed by target
    can_end = x._flags(x.terminal)
    todo = list(x.terminal)
    while todo:
        for i in arcs.into(todo.pop()):
            p = src[i]
            if not can_end[p] and game[lid[i]]:
                can_end[p] = 1
                todo.append(p)
    moves = x.has_game_move
    return [i for i in x.running if not can_end[i] and i in moves]


def check_forced_loop(x: Explored) -> list[Finding]:
    g = x.graph
    if not g.complete:
        return []
    if x.machine.model.loop_draws:
        # `loop_draws`: a loop no game action can leave is the draw the rules declare, not a
        # defect; a loop a player can leave by a game action was never a forced loop
        return []
    doomed = doomed_states(x)
    if not doomed:
        return []
    found = x.lasso(set(doomed), doomed[0])
    if found is None:
        return []
    trace, loop_start, comp = found
    phase_rules, phase_spans = phase_citations(x, sorted(comp))
    cyc_rules = [r for st in trace[loop_start + 1:] for r in st.rules] + phase_rules
    arcs, is_leave = x.arcs, x._leave
    leave = any(is_leave) and any(is_leave[arcs.lid[i]] for s in doomed for i in arcs.out(s))
    how = "only leaving the game (a `leave` action) ends it" if leave else "nothing ends it"
    return [x.finding("forced-loop", f"from here no game action can end the game; {how}", cyc_rules,
                      phase_spans + x.action_spans(trace, loop_start + 1), trace, loop_start,
                      detail=f"{x.weight(doomed)} state(s) cannot reach an end of the game; the shortest is shown",
                      key="forced-loop", size=x.weight(doomed))]


def check_livelock(x: Explored) -> list[Finding]:
    g, m = x.graph, x.machine
    if not any(a.progress for a in m.actions):
        return []
    running = set(x.running)
    if m.model.loop_draws and g.complete:  # a loop no game action can leave is a draw by rule
        running -= set(doomed_states(x))
    found = x.lasso(running, allowed=lambda lid: not g.is_progress(lid))
    if found is None:
        return []
    trace, loop_start, _ = found
    rules = [r for st in trace[loop_start + 1:] for r in st.rules]
    return [x.finding("livelock", "game actions can repeat forever without any progress action",
                      rules, x.action_spans(trace, loop_start + 1), trace, loop_start, key="livelock")]


def check_unbounded_procedure(x: Explored) -> list[Finding]:
    g, m = x.graph, x.machine
    out = []
    for d, f in m.procedures:
        inside = {i for i in x.running if x.holds_in(d.cond, f, i)}
        if not inside:
            continue
        found = x.lasso(inside, required=g.is_progress)
        if found is None:
            continue
        trace, loop_start, comp = found
        exits = sorted({lid for s in comp for t, lid in x.game_out(s) if t not in comp})
        if exits:
            how = "players can leave it by " + ", ".join(sorted({describe_label(g, l)[0].split("(")[0] for l in exits}))
        else:
            how = "no game action leaves it"
        phase_rules, phase_spans = phase_citations(x, sorted(comp))
        out.append(x.finding("unbounded-procedure", f"procedure `{d.name}` can repeat without bound; {how}",
                             list(d.tags) + [r for st in trace[loop_start + 1:] for r in st.rules] + phase_rules,
                             [d.span] + phase_spans,
                             trace, loop_start, key=d.name, subject=[d.name]))
    return out


def check_starvation(x: Explored) -> list[Finding]:
    """A player who stays in the game but is never active on some cycle through a progress
    action. All players are decided from the one component pass the cycle checks share
    (`Explored.running_components`): a player waiting (in the game, not active) in every state
    of a component that holds a progress move inside is starved there, with no search of their
    own; a player waiting in part of one is searched among the states where they wait; a
    player who waits on no cycle at all is not. The trace is the lasso of the first player
    starved, as their own search finds it."""
    g, m = x.graph, x.machine
    if m.active is None:
        return []
    if x.reduced:
        return _starvation_reduced(x)
    inst = x.inst
    waits, whole = _waiting(x)
    out = []
    starved = []
    for p in range(inst.nplayers):
        x.tick()
        nodes = waits[p]
        if not nodes:
            continue
        if out and whole >> p & 1:
            starved.append(inst.players[p])  # waiting all round a component with progress in it
            continue
        if out:
            if x.has_lasso(nodes, required=g.is_progress):
                starved.append(inst.players[p])
            continue  # one trace per instance shows the defect; the detail names every starved player
        found = x.lasso(nodes, required=g.is_progress)
        if found is None:
            continue
        starved.append(inst.players[p])
        trace, loop_start, _ = found
        d = m.active[0]
        rules = list(d.tags) + [r for st in trace[loop_start + 1:] for r in st.rules]
        out.append(x.finding("starvation", f"{inst.players[p]} stays in the game but is never active on this cycle",
                             rules, [d.span] + x.action_spans(trace, loop_start + 1)[:1], trace, loop_start,
                             key="starvation"))
    if out and len(starved) > 1:
        out[0].detail = f"players who can be starved this way: {', '.join(starved)}"
    if out:
        out[0].size = len(starved)
    return out


def _waiting(x: Explored) -> tuple[list[list[int]], int]:
    """(per player, the states on cycles where they wait: in the game, not active; a bit mask
    of the players who wait in every state of some component holding a progress move inside).
    A cycle among the states where a player waits lies among the states on cycles. The
    `active` condition is evaluated player after player over the running states, the order the
    searches per player asked it in: a condition without a value fails where it failed."""
    g, inst = x.graph, x.inst
    states, running = g.states, x.running
    cs, cyclic = x.running_components
    comp = cs.comp
    on = bytearray(len(comp))
    for u in x.on_cycles:
        on[u] = 1
    waits: list[list[int]] = []
    for p in range(inst.nplayers):
        x.tick()
        nodes = [i for i in running if not (states[i][-3] >> p) & 1 and not x.is_active(i, p)]
        waits.append([i for i in nodes if on[i]])
    arcs, game = x.arcs, x._game
    progress = x._labels_where(g.is_progress)
    dst, lid = arcs.dst, arcs.lid
    size: dict[int, int] = {}
    moving = bytearray(cs.count)  # components with a progress move inside
    for u in sorted(x.on_cycles):
        c = comp[u]
        size[c] = size.get(c, 0) + 1
        if not moving[c]:
            x.tick(u)
            for i in arcs.out(u):
                if progress[lid[i]] and game[lid[i]] and comp[dst[i]] == c:
                    moving[c] = 1
                    break
    whole = 0
    for p, nodes in enumerate(waits):
        count: dict[int, int] = {}
        for u in nodes:
            count[comp[u]] = count.get(comp[u], 0) + 1
        if any(moving[c] and k == size[c] for c, k in count.items()):
            whole |= 1 << p
    return waits, whole


def _starvation_reduced(x: Explored) -> list[Finding]:
    """Starvation on a reduced graph: the player is carried along each edge (pairs of a state
    and a seat relative to it), so a cycle found is a real cycle on which that one player is
    never active; the players who can be starved are the rotations of those on such cycles."""
    g, m, inst = x.graph, x.machine, x.inst
    running = set(x.running)

    def waiting(sid, q):
        return sid in running and not (g.states[sid][-3] >> q) & 1 and not m.is_active(g.states[sid], q)

    found = symmetry.lasso(x, waiting, required=g.is_progress, per_player=True)
    if found is None:
        return []
    path, loop_start, _, entry, nodes = found
    trace = build_trace(g, path)
    starved = sorted(symmetry.player_orbits(g, {q for _, q in nodes}))
    d = m.active[0]
    rules = list(d.tags) + [r for st in trace[loop_start + 1:] for r in st.rules]
    f = x.finding("starvation", f"{inst.players[entry[1]]} stays in the game but is never active on this cycle",
                  rules, [d.span] + x.action_spans(trace, loop_start + 1)[:1], trace, loop_start, key="starvation")
    if len(starved) > 1:
        f.detail = f"players who can be starved this way: {', '.join(inst.players[p] for p in starved)}"
    f.size = len(starved)
    return [f]

