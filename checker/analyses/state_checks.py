"""The checks on single states: a reachable state that is wrong by itself (conflicting
outcomes, a game that must end without an outcome rule, no game action possible, a step that
overflows or cannot be evaluated, an invariant that does not hold). Each reports the shortest
such state, with the trace to it.

Part of the ordered tuple `checker.analyses.checks.CHECKS`.
"""
from __future__ import annotations

from ..explicit.compile import EvalError
from ..explicit.explore import describe_action, rules_of
from ..frontend.ends import is_gap
from ..symbolic.outcomes import CITED_KINDS
from .causes import MAX_CAUSES, exits, group, outcome_shape
from .explored import Explored, phase_citations
from .findings import Finding, TraceStep

# the rules that run as statements in a step (all the cited kinds but outcome rules): where an
# outcome conflict's facts were stated
_STATEMENTS = tuple(k for k in CITED_KINDS if k != "outcome")


def check_outcome_conflict(x: Explored) -> list[Finding]:
    """One finding per cause (`causes`: the step into the state and the rules it applied)."""
    g = x.graph
    if not g.conflicts:
        return []
    entry = x.entries.of(g.conflicts)
    out = []
    groups = group(g.conflicts, lambda s: entry[s][0])
    for cause, sids in groups[:MAX_CAUSES]:
        sid = sids[0]
        msg = g.conflicts[sid]
        rules = x.last_rules(sid)
        # at the outcome rules that fired in the last step, then the statements and action that decided the rest
        spans = x.fired_spans(sid, ("outcome",)) + x.fired_spans(sid, _STATEMENTS) + x.step_action_span(sid)
        out.append(x.finding("outcome-conflict", msg, rules, spans or [x.inst.spec.span], x.trace_to(sid),
                             detail=_counted(x, sids, "reachable state(s) with conflicting outcomes", groups),
                             key=_key("conflict", cause), cause=_entry_subject(cause), size=x.weight(sids)))
    return _more(out, x, groups)


def check_outcome_gap(x: Explored) -> list[Finding]:
    """One finding per cause: the `ends` rule (or built-in reason) that says the game must end,
    and the step into the state with the rules it applied."""
    g = x.graph
    gaps = [i for i, s in enumerate(g.states) if is_gap(s[-1])]
    if not gaps:
        return []
    out = []
    groups = group(gaps, lambda s: (_gap_reason(x, g.states[s][-1].why), exits(outcome_shape(x, s))))
    for cause, sids in groups[:MAX_CAUSES]:
        sid = sids[0]
        why = g.states[sid][-1].why
        # at the rule that says the game must end, the outcome rules that fired in the last step, and its action
        spans = [d.span for d, _ in x.machine.ends if f"`{d.name}`" in why] + x.fired_spans(sid, ("outcome",))
        spans = list(dict.fromkeys(spans + x.step_action_span(sid))) or [x.inst.spec.span]
        rules = list(x.last_rules(sid)) + _decl_rules(d for d, _ in x.machine.ends if f"`{d.name}`" in why)
        what = "the match" if x.inst.model.match is not None else "the game"  # a match's outcome rules are the match's
        out.append(x.finding("outcome-gap", f"{what} must end ({why}) but no outcome rule applies", rules, spans,
                             x.trace_to(sid), detail=_counted(x, sids, "such state(s)", groups),
                             key=_key(cause[0], cause[1]), subject=[cause[0]], cause=[f"some {st}" for st in cause[1]],
                             size=x.weight(sids)))
    return _more(out, x, groups)


def _gap_reason(x: Explored, why: str) -> str:
    """The `ends` declaration that says the game must end, or the built-in reason without the player's name."""
    named = [d.name for d, _ in x.machine.ends if f"`{d.name}`" in why]
    if named:
        return named[0]
    return "no player left" if why.startswith("no player") else "no side left" if why.startswith("no side") else "one side left"


def check_deadlock(x: Explored) -> list[Finding]:
    """One finding per cause: the condition that blocks each game action there (`causes.Blocking`)."""
    g = x.graph
    failed = {s for s, _ in g.errors}  # a step that fails is reported as such, not as a deadlock
    stuck = [i for i in x.running if i not in x.has_game_move and i not in failed]
    if not stuck:
        return []
    blocking = x.blocking
    causes = {}
    for i, s in enumerate(stuck):
        x.tick(i)
        causes[s] = blocking.cause(g.state_of(s))
    out = []
    groups = group(stuck, causes.__getitem__)
    for cause, sids in groups[:MAX_CAUSES]:
        sid = sids[0]
        only_leave = any(s == sid for s, _, lid in g.edges)
        note = " (players can only leave the game from here)" if only_leave else ""
        # who is active among the players still in the game (a player out of it waits for nothing)
        active = [p for p in range(x.inst.nplayers) if x.in_game(sid, p) and x.is_active(sid, p)]
        who = ", ".join(x.inst.players[p] for p in active) or "nobody"
        trace = x.trace_to(sid)
        stops = blocking.blocking(g.state_of(sid))
        phase_rules, phase_spans = phase_citations(x, [sid])
        start_rules, start_spans = _between_games(x, sid)
        phase_rules += start_rules
        if start_spans:  # a match: the players are between games and no game can start
            note = f"; the players are between games and no next game can start{note}"
        # at the phase it is stuck in (or the games that cannot start), the condition that stops
        # the game (not a rule that did not fire), who is active, and the last action
        spans = start_spans + phase_spans + [sp for _, sp, _ in stops if sp.line > 0][:1] \
            + ([m.active[0].span] if (m := x.machine).active else []) + x.action_spans(trace)[:1]
        what = "the match" if x.inst.model.match is not None else "the game"
        blocked = "\n".join("  blocked: " + line for line in blocking.describe(stops))
        detail = _counted(x, sids, "deadlocked state(s)", groups) + ("\n" + blocked if blocked else "")
        out.append(x.finding("deadlock", f"no game action is possible and {what} has not ended{note}; active: {who}",
                             list(x.last_rules(sid)) + phase_rules, spans, trace, detail=detail,
                             key=_key("deadlock", cause), cause=_blocking_subject(cause), size=x.weight(sids)))
    return _more(out, x, groups)


# ---------------------------------------------------------------- one finding per cause

def _more(out: list[Finding], x: Explored, groups) -> list[Finding]:
    """The findings of the first MAX_CAUSES causes; the last says how many more there are."""
    rest = groups[MAX_CAUSES:]
    if rest:
        f = out[-1]
        f.detail += (f"\n... and {len(rest)} more cause(s) of this kind "
                     f"({x.weight([s for _, sids in rest for s in sids])} state(s)); fix these first")
    return out


def _counted(x: Explored, sids, what: str, groups) -> str:
    """"N states; the shortest is shown", and which cause of how many when there are several."""
    if len(groups) == 1:
        return f"{x.weight(sids)} {what}; the shortest is shown"
    n = next(i for i, (_, g) in enumerate(groups) if g is sids) + 1
    return f"{x.weight(sids)} {what} with this cause (cause {n} of {len(groups)}); the shortest is shown"


def _key(base: str, cause) -> str:
    return f"{base} / {cause!r}"


def _blocking_subject(cause) -> list[str]:
    return [f"blocked by {c}" for c in cause]


def _entry_subject(action: str) -> list[str]:
    """The step into the state, as a subject: the action's name (the rules it applied vary with edits)."""
    return [f"after {action}"]


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
    """Each invariant at the first state (by id) where it fails or cannot be evaluated. The
    states are read once for all invariants (one reader per state, not one per invariant and
    state: unpacking a state is most of a cheap invariant's cost), and an invariant is not
    evaluated again in a state that agrees with one where it held on every entry it reads
    (`Explored.entries_read`: a rule about whose turn it is, in a game counting totals)."""
    g, m = x.graph, x.machine
    invariants = m.invariants
    first: list = [None] * len(invariants)  # per invariant: (state id, the error or None)
    pending = list(range(len(invariants)))
    entries = [x.entries_read(d.cond) for d, _ in invariants]
    held: list[set] = [set() for _ in invariants]  # per invariant: the entries' values where it held
    for sid, state in enumerate(g.states):
        if not pending:
            break
        x.tick(sid)
        c = None
        left = []
        for i in pending:
            read = entries[i]
            if read is not None:
                seen = tuple([state[j] for j in read])
                if seen in held[i]:
                    left.append(i)
                    continue
            if c is None:
                c = m.reader(state)
            try:
                holds = invariants[i][1](c)
            except EvalError as exc:  # the property has no value here
                first[i] = (sid, exc)
                continue
            if holds:
                left.append(i)
                if read is not None:
                    held[i].add(seen)
            else:
                first[i] = (sid, None)
        pending = left
    out = []
    for (d, _), got in zip(invariants, first):
        if got is None:
            continue
        sid, exc = got
        if exc is not None:  # say where, with the way there
            trace = x.trace_to(sid)
            trace[-1].note = f"invariant `{d.name}` cannot be evaluated: {exc}"
            f = x.finding("evaluation-error", f"invariant `{d.name}` cannot be evaluated: {exc}",
                          list(d.tags), [exc.span, d.span], trace, key=f"invariant:{d.name}", subject=[d.name], size=1)
            f.context = {"failing_condition": (d.cond, g.values(sid))}
            out.append(f)
        else:
            out.append(x.finding("invariant", f"invariant `{d.name}` does not hold",
                                 list(d.tags) + list(x.last_rules(sid)), [d.span],
                                 x.trace_to(sid), key=d.name, subject=[d.name]))
    return out


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
