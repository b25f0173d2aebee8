"""The checks over the whole graph: what no reachable state or play shows (an outcome no one
can reach, a rule that never applies, a `reachable` property never reached, a player never
active) and what only a whole play shows (a game that ends with players still in it without
an outcome, a complete play that skips a player). Claims about every state run only on a
completely explored graph.

Part of the ordered tuple `checker.analyses.checks.CHECKS`.
"""
from __future__ import annotations

from ..explicit import symmetry
from ..frontend.ends import has_ended
from .explored import Explored
from .findings import Finding
from .traces import build_trace


def winners(g) -> tuple[int, int]:
    """(players, teams) as bit masks: who wins in some end state of the graph `g`, complete or
    not. On a graph reduced by rotations, a state where P1 wins stands for one where P2 wins..."""
    wp = wt = 0
    for s in g.states:
        end = s[-1]
        if has_ended(end):
            wp |= end.players
            wt |= end.teams
    if g.__class__ is symmetry.ReducedGraph:
        wp = symmetry.all_rotations(g, wp)
    return wp, wt


def check_unreachable_outcome(x: Explored) -> list[Finding]:
    g, m = x.graph, x.machine
    if not g.complete:
        return []
    inst = x.inst
    wp, wt = winners(g)
    out = []
    for r in m.outcomes:
        if r.kind != "win":
            continue
        names, mask = (inst.players, wp) if r.subject == "player" else (inst.teams, wt)
        never = [names[i] for i in range(len(names)) if not mask >> i & 1]
        if never:
            who = ", ".join(never)
            out.append(x.finding("unreachable-outcome",
                                 f"{'team ' if r.subject == 'team' else ''}{who} can never win (rule `{r.decl.name}`)",
                                 r.decl.tags, [r.decl.span],
                                 detail=f"checked all {x.nstates:,} reachable states", key=f"{r.decl.name}:{len(never)}",
                                 subject=[r.decl.name], size=len(never)))
    return out


def check_dead_rules(x: Explored) -> list[Finding]:
    g, m = x.graph, x.machine
    if not g.complete:
        return []
    out = []
    for rid, rule in enumerate(m.rules):
        if rid in g.hit_rules:
            continue
        message, key, subject = dead_rule(rule)
        out.append(x.finding("dead-rule", message, rule.tags, [rule.span], key=key, subject=[subject]))
    return out


def dead_rule(rule) -> tuple[str, str, str]:
    """(message, key, subject) of the dead-rule finding of `rule` (a `typed.Rule`), whichever
    engine shows it dead."""
    if rule.kind == "phase":  # a phase that never ends, or a `when PHASE ends/starts` block that never runs
        message = (f"`{rule.name}` never runs in any reachable state" if rule.name.startswith("when ")
                   else f"phase `{rule.name}` never ends in any reachable state")
    else:
        message = f"{rule_label(rule)} never applies in any reachable state"
    return (message, f"{rule.kind}:{rule.name}:{rule.span.line}",
            rule.name if rule.kind != "statement" else f"{rule.name} statement")


def rule_label(rule) -> str:
    """A rule in a few words: "action `attack`", "tagged statement at 12:3", "phase `main`"."""
    what = {"action": "action", "outcome": "outcome rule", "statement": "tagged statement", "routine": "routine",
            "trigger": "trigger", "phase": "phase", "state": "state-based rule", "game": "game result"}[rule.kind]
    if rule.kind == "statement":
        return f"{what} at {rule.span.line}:{rule.span.col}"
    return f"`{rule.name}`" if rule.kind == "phase" and rule.name.startswith("when ") else f"{what} `{rule.name}`"


def check_reachable_properties(x: Explored) -> list[Finding]:
    if not x.graph.complete:
        return []
    out = []
    for d, binders, reached in property_bindings(x):
        missing = [binding_text(x.inst, [b.binder for b in binders], binding) for binding, ok in reached if not ok]
        if missing:
            out.append(unreachable_property(x.inst, d, bool(binders), missing, f"checked all {x.nstates:,} reachable states"))
    return out


def property_bindings(x: Explored) -> list[tuple[object, list, list[tuple[tuple, bool]]]]:
    """Per `reachable` property: (its declaration, its machine binders, [(binding, whether some
    state of the graph satisfies it)]), complete graph or not."""
    g, m = x.graph, x.machine
    out = []
    for d, binders, f in m.reachables:
        reached = []
        for binding in m.bindings(binders, m.reader(g.states[0]) if g.states else None):
            ok = False
            # on a reduced graph, the property holds for `binding` in a rotation of a state iff
            # it holds for the binding rotated back in the state itself
            tries = [binding] if not x.reduced else \
                list(dict.fromkeys(g.rot.rotate_binding_of(binders, binding, r) for r in g.rot.rs))
            for i in range(len(g.states)):
                x.tick(i)
                for b in tries:
                    m.bind(binders, b)
                    if x.holds_in(d.cond, f, i, b):
                        ok = True
                        break
                if ok:
                    break
            reached.append((binding, ok))
        out.append((d, binders, reached))
    return out


def binding_text(inst, binders, binding) -> str:
    """`p=P1, q=P2`: a binding of `binders` (typed.Binder) in the spec's words."""
    return ", ".join(f"{b.name}={inst.show(b.type, v)}" for b, v in zip(binders, binding))


def unreachable_property(inst, d, has_params: bool, missing: list[str], detail: str) -> Finding:
    """The unreachable-property finding of property `d` never reached for the bindings
    `missing` (each as `binding_text` says it), whichever engine shows it."""
    which = f" for {'; '.join(missing)}" if has_params else ""
    return Finding("unreachable-property", f"`{d.name}` is never reached{which}", tuple(dict.fromkeys(d.tags)),
                   (d.span,), inst.label, inst.model_name, detail=detail, key=f"{d.name}:{len(missing)}",
                   subject=(d.name,), size=len(missing))


def check_player_without_outcome(x: Explored) -> list[Finding]:
    """The game ended with a winner while players still in it neither won, lost nor drew.

    The free-for-all convention (docs/checks.md): a win that ends the game is a loss for every
    player still in it who is an opponent of a winner (`opponents`: declared, else the players
    of other teams, or every other player). What is reported is a survivor who is no winner's
    opponent (a winner's ally), or any survivor when the format allows several winners
    (`winners many`: a win there says nothing of the others). Where the convention decided for
    players of two or more sides and no rule says they lose, an `implied-loss` note says so:
    with two sides every rules text we know means it, with more it is the text's omission at
    most."""
    g, inst, m = x.graph, x.inst, x.machine
    implied = None
    for sid, state in enumerate(g.states):
        end = state[-1]
        if not has_ended(end) or end.draw:
            continue
        wp, wt, _ = end
        if not (wp or wt):  # ended by `finish`: nobody is meant to have an outcome
            continue
        left = [p for p in range(inst.nplayers) if not (state[-3] >> p) & 1 and not (wp >> p) & 1
                and not (inst.has_teams and (wt >> inst.team_of[p]) & 1)]
        side = (lambda p: inst.team_of[p]) if inst.has_teams else (lambda p: p)
        winners = [p for p in range(inst.nplayers) if (wp >> p) & 1 or (inst.has_teams and (wt >> inst.team_of[p]) & 1)]
        if m.winners_many:
            allies, beaten = left, []
        else:
            beaten = [q for q in left if any(m.is_opponent(state, w, q) for w in winners)]
            allies = [q for q in left if q not in beaten]
        if implied is None and len({side(q) for q in beaten}) >= 2:
            implied = (sid, beaten)
        if not allies:
            continue
        who = ", ".join(inst.players[p] for p in allies)
        rules = list(x.last_rules(sid))
        spans = _win_spans(x, rules)
        why = ""
        if not m.winners_many:  # the declaration that made them allies decided too
            why = " (allies of the winner: by the free-for-all convention only the winner's opponents lose)"
            if (o := x.inst.model.opponents) is not None:
                rules += [t for t in o.tags if t not in rules]
                spans.append(o.span)
        return [x.finding("player-without-outcome",
                          f"the game ends ({inst.describe_end(end)}) but {who} "
                          f"{'are' if len(allies) > 1 else 'is'} still in it with no outcome{why}",
                          rules, spans, x.trace_to(sid), key="without-outcome")]
    if implied is None:
        return []
    sid, beaten = implied
    rules = x.last_rules(sid)
    who = ", ".join(inst.players[p] for p in beaten)
    return [x.finding("implied-loss",
                      f"the game ends ({inst.describe_end(g.states[sid][-1])}) with {who} still in it: read as losing, "
                      "as the winner's opponents (the free-for-all convention); no rule says so",
                      rules, _win_spans(x, rules), x.trace_to(sid), key="implied-loss")]


def _win_spans(x: Explored, rules) -> list:
    """The win rules the last step applied (at most two), else the first win rule, else the spec."""
    wins = [r for r in x.machine.outcomes if r.kind == "win"]
    return [r.decl.span for r in wins if any(t in rules for t in r.decl.tags)][:2] \
        or [r.decl.span for r in wins][:1] or [x.inst.spec.span]


def check_never_active(x: Explored) -> list[Finding]:
    """Players never active in any reachable state; in a finite game, players who stay in the
    game yet are never active on some complete play."""
    g, m, inst = x.graph, x.machine, x.inst
    if m.active is None or not g.complete:
        return []
    d = m.active[0]
    running = x.running
    never = []
    for p in range(inst.nplayers):
        x.tick()
        if not any(x.is_active(i, p) for i in running):
            never.append(p)
    if x.reduced:  # a player active somewhere: every rotation of them too
        active = symmetry.player_orbits(g, set(range(inst.nplayers)) - set(never))
        never = [p for p in never if p not in active]
    out = []
    if never and running:
        out.append(x.finding("never-active", f"{', '.join(inst.players[p] for p in never)} "
                             f"{'are' if len(never) > 1 else 'is'} never active in any reachable state",
                             d.tags, [d.span], detail=f"checked all {x.nstates:,} reachable states",
                             key="never", size=len(never)))
    if x.has_cycle():
        return out  # with cycles, the starvation check speaks about plays that never end
    if x.reduced and len(never) < inst.nplayers:  # (a quotient is acyclic exactly when the full graph is)
        raise symmetry.Unreduced("the complete plays of a finite game are searched on the full graph")
    succ: dict[int, list] = {}
    game = x._game  # (a flag per label: no call per edge)
    for s, t, lid in g.edges:
        if game[lid]:
            succ.setdefault(s, []).append((t, lid))
    for p in range(inst.nplayers):
        if p in never:
            continue
        found = _skipped_play(x, p, succ)
        if found is None:
            continue
        trace = build_trace(g, found)
        out.append(x.finding("never-active", f"{inst.players[p]} stays in the game to its end but is never active "
                             "on this complete play, while another player is active twice",
                             list(d.tags) + [r for st in trace for r in st.rules],
                             [d.span] + x.action_spans(trace)[:1], trace, key="complete-play",
                             subject=["complete play"], size=1))
        break  # one trace shows the defect
    return out


def _skipped_play(x: Explored, p: int, succ, limit: int = 200_000):
    """The shortest complete play (game actions from an initial state to an ended game) on which
    p stays in the game and is never active while some other player becomes active a second
    time: the turn went round without p. A game that ends before the turn has come round at
    all (a first-turn win) skips nobody. Returns [(state, label)] or None."""
    g, inst = x.graph, x.inst

    def active(i):
        return frozenset(q for q in range(inst.nplayers) if x.is_active(i, q))

    def waiting(i):
        return not (g.states[i][-3] >> p) & 1 and not g.states[i][-1] and p not in active(i)

    # a search node: (state, players who have been active, whether one became active again)
    start = [(i, active(i), False) for i in g.init_ids if waiting(i)]
    parent = {node: None for node in start}
    queue = list(start)
    while queue and len(parent) < limit:
        nxt = []
        for j, node in enumerate(queue):
            x.tick(j)
            s, seen, again = node
            now = active(s)
            for t, lid in sorted(succ.get(s, ())):
                state = g.states[t]
                if state[-1]:
                    if again and has_ended(state[-1]) and not (state[-3] >> p) & 1:
                        path, cur = [(t, lid)], node
                        while parent[cur] is not None:
                            prev, plid = parent[cur]
                            path.append((cur[0], plid))
                            cur = prev
                        path.append((cur[0], -1))
                        return list(reversed(path))
                    continue
                if not waiting(t):
                    continue
                later = active(t)
                child = (t, seen | later, again or bool((later - now) & seen))
                if child not in parent:
                    parent[child] = (node, lid)
                    nxt.append(child)
        queue = nxt
    return None

