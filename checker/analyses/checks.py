"""The generic checks. Each is a plain function `Explored -> list[Finding]`; `CHECKS` runs them in order.

Nothing here knows a format, a game or a rule number: everything comes from the spec. Progress
is judged by the game's own actions; moves flagged `leave` (conceding, leaving) are left out of
the deadlock, loop and starvation checks, because a player who may always concede does not make
a stuck game live. Checks that claim something about *every* path (loops that cannot end,
unreachable outcomes, dead rules) only run on a completely explored graph.

The checks read the instance's budget between checks and inside their long loops; when it is
spent, the findings made so far are kept and the rest of the checks are skipped.
"""
from __future__ import annotations

from ..explicit.compile import EvalError
from ..explicit.explore import Graph, describe_action, describe_label, rules_of
from ..explicit import symmetry
from ..limits import Budget, LimitHit
from .explored import Explored, phase_citations
from .findings import Finding, TraceStep
from .traces import build_trace


def _between_games(x: Explored, sid: int) -> tuple[list[str], list]:
    """In a match stuck between games: (the tags of `game starts`, where it is), else ([], [])."""
    m = x.inst.model
    if m.match is None or not x.graph.values(sid)[x.inst.var("between_games").offset]:
        return [], []
    start = [a.decl for a in x.machine.actions if a.decl.name == "next_game"]
    return [t for a in start for t in m.rules[a.rule].tags], [a.span for a in start]


def _decl_rules(decls) -> list[str]:
    out = []
    for d in decls:
        out.extend(d.tags)
    return out


# ---------------------------------------------------------------- checks on single states

def check_outcome_conflict(x: Explored) -> list[Finding]:
    g = x.graph
    if not g.conflicts:
        return []
    sid = min(g.conflicts)
    msg = g.conflicts[sid]
    rules = x.last_rules(sid)
    # at the outcome rules that fired in the last step, then the statements and action that decided the rest
    spans = x.fired_spans(sid, ("outcome",)) + x.fired_spans(sid, ("statement", "routine", "trigger", "phase", "game")) + x.step_action_span(sid)
    return [x.finding("outcome-conflict", msg, rules, spans or [x.inst.spec.span], x.trace_to(sid),
                      detail=f"{x.weight(g.conflicts)} reachable state(s) with conflicting outcomes; the shortest is shown",
                      key="conflict", size=x.weight(g.conflicts))]


def check_outcome_gap(x: Explored) -> list[Finding]:
    g = x.graph
    gaps = [i for i, s in enumerate(g.states) if s[-1] and s[-1][0] == "gap"]
    if not gaps:
        return []
    sid = gaps[0]
    why = g.states[sid][-1][1]
    # at the rule that says the game must end, the outcome rules that fired in the last step, and its action
    spans = [d.span for d, _ in x.machine.ends if f"`{d.name}`" in why] + x.fired_spans(sid, ("outcome",))
    spans = list(dict.fromkeys(spans + x.step_action_span(sid))) or [x.inst.spec.span]
    rules = list(x.last_rules(sid)) + _decl_rules(d for d, _ in x.machine.ends if f"`{d.name}`" in why)
    # the `ends` declaration that says so, or the built-in reason without the player's name
    builtin = "no player left" if why.startswith("no player") else "no side left" if why.startswith("no side") else "one side left"
    subject = [d.name for d, _ in x.machine.ends if f"`{d.name}`" in why] or [builtin]
    what = "the match" if x.inst.model.match is not None else "the game"  # a match's outcome rules are the match's
    return [x.finding("outcome-gap", f"{what} must end ({why}) but no outcome rule applies", rules, spans,
                      x.trace_to(sid), detail=f"{x.weight(gaps)} such state(s); the shortest is shown", key=why,
                      subject=subject, size=x.weight(gaps))]


def check_deadlock(x: Explored) -> list[Finding]:
    g = x.graph
    failed = {s for s, _ in g.errors}  # a step that fails is reported as such, not as a deadlock
    stuck = [i for i in x.running if i not in x.has_game_move and i not in failed]
    if not stuck:
        return []
    sid = stuck[0]
    only_leave = any(s == sid for s, _, lid in g.edges)
    note = " (players can only leave the game from here)" if only_leave else ""
    active = [p for p in range(x.inst.nplayers) if x.is_active(sid, p)]
    who = ", ".join(x.inst.players[p] for p in active) or "nobody"
    trace = x.trace_to(sid)
    phase_rules, phase_spans = phase_citations(x, [sid])
    start_rules, start_spans = _between_games(x, sid)
    phase_rules += start_rules
    if start_spans:  # a match: the players are between games and no game can start
        note = f"; the players are between games and no next game can start{note}"
    spans = start_spans + phase_spans + ([m.active[0].span] if (m := x.machine).active else []) + x.action_spans(trace)[:1]
    what = "the match" if x.inst.model.match is not None else "the game"
    return [x.finding("deadlock", f"no game action is possible and {what} has not ended{note}; active: {who}",
                      list(x.last_rules(sid)) + phase_rules, spans, trace,
                      detail=f"{x.weight(stuck)} deadlocked state(s); the shortest is shown", key="deadlock", size=x.weight(stuck))]


def _failing_steps(x: Explored, kind: str) -> list[Finding]:
    """The shortest step that fails with `kind` (overflow or evaluation-error), from the setup
    or from a reachable state; the failing step is the trace's last and is replayed too."""
    g, m = x.graph, x.machine
    setup = [e for e in g.setup_errors if e.kind == kind]
    steps = [(src, st) for src, st in g.errors if st.error_kind == kind]
    nsteps = x.weight([src for src, _ in steps])  # a failing step of a state fails in each of its rotations
    if setup:
        e = setup[0]
        trace = [TraceStep(0, "setup", (), (), (), f"fails ({e.where}): {e.message}")]
        f = x.finding(kind, e.message, (), [e.span], trace, key=e.message.split(" is ")[0],
                      detail=f"{len(setup) + nsteps} failing setup(s) or step(s); a failing setup is shown",
                      subject=[e.message.split(" is ")[0]], size=len(setup) + nsteps)
        f.context = {"setup_error": e}
        return [f]
    if not steps:
        return []
    src, step = min(steps, key=lambda e: e[0])
    trace = x.trace_to(src)
    name = describe_action(m, step.action, step.binding)
    trace.append(TraceStep(len(trace), name, rules_of(m, step.hits), (), (), f"fails ({step.where}): {step.error}"))
    spans = [step.error_span] if step.error_span else [m.actions[step.action].decl.span]
    f = x.finding(kind, step.error, rules_of(m, step.hits), spans, trace,
                  detail=f"{nsteps} failing step(s); the shortest is shown", key=step.error.split(" would")[0],
                  subject=[name.split("(")[0]], size=nsteps)
    f.context = {"failing_step": (src, step)}
    return [f]


def check_overflow(x: Explored) -> list[Finding]:
    return _failing_steps(x, "overflow")


def check_evaluation_errors(x: Explored) -> list[Finding]:
    return _failing_steps(x, "evaluation-error")


def check_invariants(x: Explored) -> list[Finding]:
    out = []
    g, m = x.graph, x.machine
    for d, f in m.invariants:
        for sid, state in enumerate(g.states):
            x.tick(sid)
            try:
                holds = f(m.reader(state))
            except EvalError as exc:  # the property has no value here: say where, with the way there
                trace = x.trace_to(sid)
                trace[-1].note = f"invariant `{d.name}` cannot be evaluated: {exc}"
                f = x.finding("evaluation-error", f"invariant `{d.name}` cannot be evaluated: {exc}",
                              list(d.tags), [exc.span, d.span], trace, key=f"invariant:{d.name}", subject=[d.name], size=1)
                f.context = {"failing_condition": (d.cond, g.values(sid))}
                out.append(f)
                break
            if not holds:
                out.append(x.finding("invariant", f"invariant `{d.name}` does not hold",
                                     list(d.tags) + list(x.last_rules(sid)), [d.span],
                                     x.trace_to(sid), key=d.name, subject=[d.name]))
                break
    return out


# ---------------------------------------------------------------- checks on cycles

def doomed_states(x: Explored) -> list[int]:
    """Running states with a game move from which no sequence of game actions ends the game."""
    g = x.graph
    # one backward search from every ended state at once
    preds: dict[int, list[int]] = {}
    for s, d, lid in g.edges:
        if not g.is_leave(lid):
            preds.setdefault(d, []).append(s)
    can_end: set[int] = set(x.terminal)
    todo = list(can_end)
    while todo:
        for p in preds.get(todo.pop(), ()):
            if p not in can_end:
                can_end.add(p)
                todo.append(p)
    return [i for i in x.running if i not in can_end and i in x.has_game_move]


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
    doomed_set = set(doomed)
    leave = any(g.is_leave(lid) for s, _, lid in g.edges if s in doomed_set)
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
        inside = {i for i in x.running if f(m.reader(g.states[i]))}
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
    g, m = x.graph, x.machine
    if m.active is None:
        return []
    inst = x.inst
    out = []
    starved = []
    if x.reduced:
        return _starvation_reduced(x)
    for p in range(inst.nplayers):
        x.tick()
        nodes = {i for i in x.running if not (g.states[i][-3] >> p) & 1 and not x.is_active(i, p)}
        nodes &= x.on_cycles  # a cycle among them is one among the running states (the rest is no help)
        if not nodes:
            continue
        found = x.lasso(nodes, required=g.is_progress)
        if found is None:
            continue
        starved.append(inst.players[p])
        if out:
            continue  # one trace per instance shows the defect; the detail names every starved player
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


# ---------------------------------------------------------------- checks over the whole graph

def check_unreachable_outcome(x: Explored) -> list[Finding]:
    g, m = x.graph, x.machine
    if not g.complete:
        return []
    inst = x.inst
    wp = wt = 0
    for s in g.states:
        end = s[-1]
        if end and end[0] != "gap":
            wp |= end[0]
            wt |= end[1]
    if x.reduced:  # a rotation of a state where P1 wins is one where P2 wins...
        wp = symmetry.all_rotations(g, wp)
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
        what = {"action": "action", "outcome": "outcome rule", "statement": "tagged statement", "routine": "routine",
                "trigger": "trigger", "phase": "phase", "game": "game result"}[rule.kind]
        label = f"`{rule.name}`" if rule.kind != "statement" else f"at {rule.span.line}:{rule.span.col}"
        message = f"{what} {label} never applies in any reachable state"
        if rule.kind == "phase":  # a phase that never ends, or a `when PHASE ends/starts` block that never runs
            message = (f"`{rule.name}` never runs in any reachable state" if rule.name.startswith("when ")
                       else f"phase `{rule.name}` never ends in any reachable state")
        out.append(x.finding("dead-rule", message,
                             rule.tags, [rule.span], key=f"{rule.kind}:{rule.name}:{rule.span.line}",
                             subject=[rule.name if rule.kind != "statement" else f"{rule.name} statement"]))
    return out


def check_reachable_properties(x: Explored) -> list[Finding]:
    g, m = x.graph, x.machine
    if not g.complete:
        return []
    out = []
    for d, binders, f in m.reachables:
        missing = []
        for binding in m.bindings(binders, m.reader(g.states[0]) if g.states else None):
            ok = False
            # on a reduced graph, the property holds for `binding` in a rotation of a state iff
            # it holds for the binding rotated back in the state itself
            tries = [binding] if not x.reduced else \
                list(dict.fromkeys(g.rot.rotate_binding_of(binders, binding, r) for r in g.rot.rs))
            for i, state in enumerate(g.states):
                x.tick(i)
                for b in tries:
                    m.bind(binders, b)
                    if f(m.reader(state)):
                        ok = True
                        break
                if ok:
                    break
            if not ok:
                missing.append(", ".join(f"{b.binder.name}={m.show(b.binder.type, v)}" for b, v in zip(binders, binding)))
        if missing:
            which = f" for {'; '.join(missing)}" if binders else ""
            out.append(x.finding("unreachable-property", f"`{d.name}` is never reached{which}", d.tags, [d.span],
                                 detail=f"checked all {x.nstates:,} reachable states", key=f"{d.name}:{len(missing)}",
                                 subject=[d.name], size=len(missing)))
    return out


def check_player_without_outcome(x: Explored) -> list[Finding]:
    """The game ended with a winner while players still in it neither won, lost nor drew.

    With two sides a win for one is a loss for the other (every rules text we have read means
    so); what is reported is a win that leaves two or more sides without an outcome, or any
    side when the format allows several winners (`winners many`)."""
    g, inst, m = x.graph, x.inst, x.machine
    for sid, state in enumerate(g.states):
        end = state[-1]
        if not end or end[0] == "gap" or end[2]:
            continue
        wp, wt, _ = end
        if not (wp or wt):  # ended by `finish`: nobody is meant to have an outcome
            continue
        left = [p for p in range(inst.nplayers) if not (state[-3] >> p) & 1 and not (wp >> p) & 1
                and not (inst.has_teams and (wt >> inst.team_of[p]) & 1)]
        sides = {inst.team_of[p] if inst.has_teams else p for p in left}
        if len(sides) < (1 if m.winners_many else 2):
            continue
        who = ", ".join(inst.players[p] for p in left)
        rules = x.last_rules(sid)
        spans = [r.decl.span for r in m.outcomes if r.kind == "win" and any(t in rules for t in r.decl.tags)][:2] \
            or [r.decl.span for r in m.outcomes if r.kind == "win"][:1] or [inst.spec.span]
        return [x.finding("player-without-outcome",
                          f"the game ends ({inst.describe_end(end)}) but {who} "
                          f"{'are' if len(left) > 1 else 'is'} still in it with no outcome",
                          rules, spans, x.trace_to(sid), key="without-outcome")]
    return []


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
    for s, t, lid in g.edges:
        if not g.is_leave(lid):
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
    g, m, inst = x.graph, x.machine, x.inst

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
                    if again and state[-1][0] != "gap" and not (state[-3] >> p) & 1:
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


CHECKS = (
    check_outcome_conflict,
    check_outcome_gap,
    check_player_without_outcome,
    check_deadlock,
    check_overflow,
    check_evaluation_errors,
    check_invariants,
    check_forced_loop,
    check_livelock,
    check_unbounded_procedure,
    check_starvation,
    check_never_active,
    check_unreachable_outcome,
    check_reachable_properties,
    check_dead_rules,
)


def run_checks(graph: Graph) -> list[Finding]:
    return run_checks_within(graph, None)[0]


def run_checks_within(graph: Graph, budget: Budget | None) -> tuple[list[Finding], str]:
    """(findings, "") after every check, or (the findings made so far, why the checks stopped
    and which were not run) once the budget is spent."""
    x = Explored(graph, budget)
    out: list[Finding] = []
    for i, check in enumerate(CHECKS):
        try:
            x.tick()
            out.extend(check(x))
        except EvalError as exc:  # a condition without a value (say in `active`): the other checks still run
            what = check.__name__.removeprefix("check_").replace("_", " ")
            out.append(x.finding("evaluation-error", f"{exc} (while the {what} check evaluated a condition)",
                                 (), [exc.span], key=f"{check.__name__}:{exc}", subject=[what]))
        except LimitHit as exc:
            skipped = ", ".join(c.__name__.removeprefix("check_").replace("_", "-") for c in CHECKS[i:])
            return out, f"{exc}; not checked: {skipped}"
    return out, ""
