"""Outcome resolution over terms: after a step's body, the outcome rules in the explorer's
strata (losses and leaving, then wins, then draws of the whole game), the precedences, whether
the outcomes conflict, who leaves and why, whether the game ended or must be over (a gap); then
the triggers' rounds (`settle`). The same semantics as `checker.explicit.machine`, written
independently.

Every function takes the `encode.Encoder` of the instance and the `SymState` after the body,
which it changes in place; the errors met go to the state's `error` condition.

Each outcome rule's rule id goes into the state's `hits` under the condition that it applies
in the step, as the explorer cites it (`checker.explicit.outcomes`): it derives a fact; in the
first round of its stratum it holds for a subject another rule already gave its fact (it
applies all the same); a "cannot" rule forbids a fact a statement derived, or one a loss or
win rule would derive. Dead rules are judged by it (checker.symbolic.bmc `applies`).

Beside them, the state's `noted` holds the keys of the explorer's `Machine.decided` (which
declarations decide something: checker.analyses.declaration_checks) under the condition that a
round of the step's resolution notes them: ("precedence", WINNER, LOSER) where a precedence of
kinds drops a fact, or where CANNOT_RULE forbids a subject for whom RULE holds (`precedence
RULE over CANNOT_RULE`); ("same_step",) where an earlier loser's win stands. ("cannot", NAME)
asks whether the step would end otherwise without the rule: a second settling, built only when
asked (checker.symbolic.bmc `notes`, `ends_otherwise_without`).
"""
from __future__ import annotations

import z3

from ..frontend import typed as T
from .encode import Encoder
from . import terms as _terms  # (_terms.TRUE and FALSE are rebound per instance: fresh_context)
from .terms import FACT, SymState, and_, is_false, ite, lost, merge, not_, or2, or_, or_all, simp, sum_, sym_if

TRIGGER_EVENTS = ("lose_player", "lose_team", "draw_player", "draw_team", "leave_player", "leave_team",
                  "win_player", "win_team", "draw", "finish")  # the order they fire (the explorer's EVENTS)
# the kinds of rules (typed.Rule.kind) whose applying a step's `SymState.hits` records: tagged
# statements, routines, phases and a match's game results (they run as statements, statements.py),
# triggers and outcome rules (here). The replay compares them with the explorer's, step by
# step; a rule of another kind is never in `hits`, so nothing may be concluded from its absence.
CITED_KINDS = ("statement", "routine", "phase", "state", "game", "trigger", "outcome")



# ---------------------------------------------------------------- a step's settling: resolution and triggers

def settle(enc: Encoder, st: SymState, step: bool = True):
    """The explorer's settle (docs/language.md, "Events and triggers"), written over terms:
    resolve, then rounds of triggers and resolution while the round before ran a trigger. A
    round is a condition (`go`): under it the events of the round before fire their
    triggers, each (event, subject) once per step, in the explorer's order. Returns (state,
    ended, gap): the last round's end, as the explorer's; the state's `conflict` is whether
    any round that ran had an outcome conflict (the explorer reports the first: which one
    is its message, not a question of the semantics). After a round's triggers ran, in a
    step (`step`; not a setup), the state-based rules and the phase chain run again."""
    st.out0, st.tout0 = list(st.out), list(st.tout)
    st, ended, gap = resolve(enc, st)
    model = enc.model
    if not model.triggers:
        return st, ended, gap
    draw = st.draw_fact  # the step's draw so far, without the end's draw of a game everyone left
    on: dict[str, list] = {}
    for t in model.triggers:
        on.setdefault(t.key, []).append(t)
    n, nt = enc.n, enc.nt
    # declared events heard by some trigger, in the order declared: they fire after the outcome events
    signals = [(e.key, *enc.signals[e.name]) for e in model.events if e.key in on]
    order = TRIGGER_EVENTS + tuple(key for key, _, _ in signals)
    fired: dict = {}
    spent: dict = {}  # per `once` trigger: where it ran in this step (a term)
    seen = {"win_player": [enc.F] * n, "win_team": [enc.F] * nt, "draw": [enc.F], "finish": [enc.F]}
    go = enc.T
    # a round that runs a trigger fired an (event, subject) that had not fired (each fires once
    # a step), so there are at most as many rounds as pairs with triggers: over symbolic states,
    # where a round is seen to be the last only when Z3 finds that it runs no trigger under any
    # values (`never`), a tighter bound is fewer rounds of terms to build
    pairs = sum(n if e.endswith("_player") else nt if e.endswith("_team") else 1 for e in on)  # (declared events too)
    for _ in range(pairs):
        now = {"lose_player": st.lp, "lose_team": st.lt, "draw_player": st.dp, "draw_team": st.dt,
               "leave_player": _departures(st.lp, st.dp, st.xp, st.wp),
               "leave_team": _departures(st.lt, st.dt, st.xt, st.wt),
               "win_player": st.wp, "win_team": st.wt, "draw": [draw], "finish": [st.fin]}
        for key, at, size in signals:
            now[key] = [st.sg.get(at + j, enc.F) for j in range(size)]
        events = _events(order, on, now, seen, fired, go, enc.F)
        if not events:
            break
        for event, x, happens in events:
            fired[(event, x)] = simp(or_(fired.get((event, x), enc.F), happens))
        seen = {"win_player": list(st.wp), "win_team": list(st.wt), "draw": [draw], "finish": [st.fin]}
        cur, ran = _run_triggers(enc, st, draw, on, events, spent)
        if enc.never(ran):  # as the explorer: nothing ran, nothing changes (but a condition may have failed)
            st.error = simp(or_(st.error, cur.error))
            break
        chained = cur
        if step and model.after_triggers:  # a trigger's effect may end a phase in this step
            chained = enc.stmts(model.after_triggers, cur.copy(), {})
            chained.error = simp(or_(cur.error, and_(ran, chained.error)))  # (its errors: where a trigger ran)
        res, ended2, gap2 = resolve(enc, chained.copy())
        kept = st.copy()
        kept.error = simp(or_(st.error, cur.error))
        st = merge(ran, res, kept)
        draw = sym_if(ran, res.draw_fact, draw)
        ended, gap = sym_if(ran, ended2, ended), sym_if(ran, gap2, gap)
        go = ran
    return st, ended, gap


def _departures(lost, drew, left, won) -> list:
    """Who leaves in the round by any way but a win: a loss, a draw of their own, or leaving
    with no result (that gives way to a win of the same step, as in the explorer)."""
    return [or_all([a, b, and_(c, not_(d))]) for a, b, c, d in zip(lost, drew, left, won)]


def _events(order, on, now, seen, fired, go, false) -> list:
    """[(event, subject, when it happens)] of a round: the events with triggers, in the order
    they fire (`order`), that the round before made happen and that have not fired yet this step."""
    events = []
    for event in order:
        if event not in on:
            continue
        for x, fact in enumerate(now[event]):
            before = seen[event][x] if event in seen else false
            happens = simp(and_(go, fact, not_(before), not_(fired.get((event, x), false))))
            if not is_false(happens):
                events.append((event, x, happens))
    return events


def _run_triggers(enc: Encoder, st: SymState, draw, on, events, spent: dict):
    """The triggers of a round's events run on the state without this step's losses, draws of
    some and leaving (those are the next resolution's): (the state after them, whether any ran).
    A `once` trigger runs only where it has not run in this step (`spent`, which this adds to)."""
    n, nt = enc.n, enc.nt
    cur = st.copy()
    cur.draw = draw
    cur.lp, cur.lt = [enc.F] * n, [enc.F] * nt
    cur.dp, cur.dt, cur.xp, cur.xt = [enc.F] * n, [enc.F] * nt, [enc.F] * n, [enc.F] * nt
    cur.sg = {}  # an event a trigger raises fires in the next round
    ran = enc.F
    for event, x, happens in events:
        for t in on[event]:
            env = {t.binder.uid: x} if t.binder is not None else {}
            # (a `once` trigger that ran is not even asked, as in the explorer: no error of its condition)
            asked = simp(and_(happens, not_(spent.get(t.name, enc.F)))) if t.once else happens
            if t.cause is not None:  # `by q`: q is who acts; a step in which nobody acts runs it not
                env[t.cause.uid] = cur.actor
                asked = simp(and_(asked, cur.actor >= 0))
            if is_false(asked):
                continue
            cond = enc.errors_into(cur, lambda t=t, env=env, cur=cur: enc.expr(t.cond, cur, env), asked)
            fire = simp(and_(asked, cond))
            if is_false(fire):
                continue
            if t.once:
                spent[t.name] = simp(or_(spent.get(t.name, enc.F), fire))
            body = enc.stmts(t.body, cur, env)
            if body is cur:  # an empty body: the trigger's hit is under `fire`, not on `cur` itself
                body = cur.copy()
            body.hits[t.rule] = enc.T
            cur = merge(fire, body, cur)
            ran = simp(or_(ran, fire))
    return cur, ran

# ---------------------------------------------------------------- one resolution

def resolve(enc: Encoder, st: SymState):
    """Outcome resolution in the explorer's strata; returns (state, ended, gap) with the
    errors met added to st.error and this round's outcome conflict to st.conflict."""
    model = enc.model
    # the first stratum: losses, draws of some players, leaving with no result
    losses = [r for r in model.outcomes if r.kind in ("lose", "leave") or r.kind == "draw" and r.subject]
    wins = [r for r in model.outcomes if r.kind == "win"]
    draws = [r for r in model.outcomes if r.kind in ("draw", "finish") and not r.subject]  # one stratum, as in the explorer
    out0, tout0 = list(st.out), list(st.tout)
    saved_path, saved_errs = enc.path, enc.errs
    enc.path, enc.errs = enc.T, []
    blocked, masks = _blocked(enc, st, losses + wins)
    again = None  # who lost earlier and may win (`precedence lose over win same_step`)
    if model.past_losers_win:
        again = ([lost(o, *r) for o, r in zip(out0, zip(st.rd, st.rw, st.rx))],
                 [lost(o, *r) for o, r in zip(tout0, zip(st.trd, st.trw, st.trx))])
    reasons0 = tuple(list(getattr(st, r)) for r in SymState.RESULTS)
    _strata(enc, st, (losses, wins, draws), blocked, again, out0, tout0, reasons0)
    if masks:
        _cite_forbidding(enc, st, masks, out0, tout0, reasons0)
    st.out, st.tout = list(out0), list(tout0)
    for r, before in zip(SymState.RESULTS, reasons0):
        setattr(st, r, before)
    _facts_of_those_in(st, out0, tout0, again)
    for w, l, who in model.precedence:
        facts = _proposed(st)
        _precedence(st, w, l, who)
        _some_draw_precedence(st, w, l)
        # it picked (the explorer notes it) where it dropped a fact: facts only lose members here
        _note(enc, st, T.precedence_key(w, l, who), or_all([and_(a, not_(b)) for a, b in zip(facts, _proposed(st))
                                                     if not _same(a, b)]))
    if again is not None:  # a win of an earlier loser stands (`same_step`)
        _note(enc, st, ("same_step",), or_all([and_(w, g) for w, g in zip(st.wp + st.wt, again[0] + again[1])]))
    # judged where the explorer judges it: on the facts the precedences left, before `_end`
    # adds to st.draw the draw of a game everyone has left (the end's, no fact of the step; it
    # comes only where nobody won and nothing ended the step, so it could not conflict anyway)
    st.conflict = simp(or_(st.conflict, _conflict(enc, st)))
    ended, gap = _end(enc, st)
    st.error = simp(or_(st.error, or_all(enc.errs)))
    enc.path, enc.errs = saved_path, saved_errs
    return st, ended, gap


def _blocked(enc: Encoder, st: SymState, rules) -> tuple[dict, dict]:
    """(loss or win rule name -> the subjects the "cannot" rules forbid it, per subject;
    "cannot" rule name -> the subjects it forbids)."""
    blocked: dict = {}
    masks: dict = {}
    cannot = _cannot_rules(enc.model)
    if cannot:
        masks = _forbid(enc, st, cannot)
        for r in rules:
            ks = _forbidding(enc.model, r)
            if ks:
                blocked[r.name] = [or_all([masks[k.name][x] for k in ks]) for x in range(len(masks[ks[0].name]))]
    return blocked, masks


def _cannot_rules(model) -> list:
    return [r for r in model.outcomes if r.kind.startswith("cannot_")]


def _forbidding(model, r) -> list:
    """The "cannot" rules that forbid loss or win rule `r`'s facts (all but those it has precedence over)."""
    exempt = set(model.exempt)
    return [k for k in _cannot_rules(model) if k.kind == "cannot_" + r.kind and k.subject == r.subject
            and (r.name, k.name) not in exempt]


def _proposed(st: SymState) -> list:
    """The facts a precedence may drop."""
    return st.lp + st.lt + st.wp + st.wt + st.dp + st.dt + [st.draw]


def _note(enc: Encoder, st: SymState, key: tuple, cond) -> None:
    """The explorer notes `key` in `Machine.decided` where `cond` holds (besides where it already did)."""
    if not is_false(cond):
        st.noted[key] = simp(or_(st.noted.get(key, enc.F), cond))


def _exempt(model) -> list:
    """(rule, "cannot" rule) for each `precedence RULE over CANNOT_RULE`: the pairs whose facts match."""
    exempt = set(model.exempt)
    return [(r, k) for r in model.outcomes if r.kind in ("lose", "win") for k in _cannot_rules(model)
            if k.kind == "cannot_" + r.kind and k.subject == r.subject and (r.name, k.name) in exempt]


def _hit(enc: Encoder, st: SymState, rid: int, cond) -> None:
    """Rule `rid` applies in the step where `cond` holds (besides where it already did)."""
    if not is_false(cond):
        st.hits[rid] = simp(or_(st.hits.get(rid, enc.F), cond))


def _holds(enc: Encoder, st: SymState, r, x):
    """Whether rule `r` holds for subject `x` (None: a rule without one), for citing only: a
    condition without a value is no error of the step there, only a rule not cited."""
    env = {} if x is None else {r.binder.uid: x}
    value, err = enc.checked(lambda: enc.expr(r.cond, st, env))
    return and_(value, not_(err))


def _cite_forbidding(enc: Encoder, st: SymState, masks: dict, out0, tout0, reasons0) -> None:
    """The explorer's `_cite_forbidding`: after the strata, a "cannot" rule applies where it
    forbids a subject for whom a loss or win rule it forbids holds, each rule judged on the
    statuses its stratum sees (a loss rule: those when the step began; a win rule: those
    after the step's losses)."""
    model = enc.model
    rules = [r for r in model.outcomes if r.kind in ("lose", "win")]
    kept = (list(st.out), list(st.tout), [list(getattr(st, f)) for f in SymState.RESULTS])
    views = {"lose": lambda: _before_losses(st, out0, tout0, reasons0),
             "win": lambda: _after_losses(st, out0, tout0, reasons0)}
    for k in _cannot_rules(model):
        cites = []
        for r in rules:
            if k in _forbidding(model, r):
                views[r.kind]()
                cites += [and_(m, _holds(enc, st, r, x)) for x, m in enumerate(masks[k.name]) if not is_false(m)]
        _hit(enc, st, k.rule, or_all(cites))
    # the explorer's `_note_exempt`: `precedence RULE over CANNOT_RULE` decides where CANNOT_RULE
    # forbids a subject RULE gave its fact to and for whom RULE holds (its fact stands by it alone)
    for r, k in _exempt(model):
        views[r.kind]()
        facts = getattr(st, FACT[r.kind] + ("t" if r.subject == "team" else "p"))
        _note(enc, st, ("precedence", r.name, k.name),
              or_all([and_(m, f, _holds(enc, st, r, x)) for x, (m, f) in enumerate(zip(masks[k.name], facts))
                      if not is_false(m)]))
    st.out, st.tout = kept[0], kept[1]
    for f, before in zip(SymState.RESULTS, kept[2]):
        setattr(st, f, before)


def _before_losses(st: SymState, out0, tout0, reasons0) -> None:
    st.out, st.tout = list(out0), list(tout0)
    for f, before in zip(SymState.RESULTS, reasons0):
        setattr(st, f, list(before))


def _after_losses(st: SymState, out0, tout0, reasons0) -> None:
    """Who is out once the step's losses, draws of some and departures are settled, each for
    its reason (who drew or left in this step did not lose): what the win rules see."""
    st.out = [or_all([a, b, c, d]) for a, b, c, d in zip(out0, st.lp, st.dp, st.xp)]
    st.tout = [or_all([a, b, c, d]) for a, b, c, d in zip(tout0, st.lt, st.dt, st.xt)]
    st.rd = [or2(r, and_(d, not_(o))) for r, d, o in zip(reasons0[0], st.dp, out0)]
    st.rx = [or2(r, and_(x, not_(o))) for r, x, o in zip(reasons0[2], st.xp, out0)]
    st.trd = [or2(r, and_(d, not_(o))) for r, d, o in zip(reasons0[3], st.dt, tout0)]
    st.trx = [or2(r, and_(x, not_(o))) for r, x, o in zip(reasons0[5], st.xt, tout0)]


def _strata(enc: Encoder, st: SymState, strata, blocked, again, out0, tout0, reasons0) -> None:
    """The fixpoints of the three strata, in rounds while a loss rule reads won() and the
    round before derived something (the explorer's rounds); st.out and the reasons are left
    as the last round made them. The rounds stop where Z3 finds that a round's losses derive
    nothing under any values (`never`): each round's terms read the last round's, so a round
    that changes nothing but is not seen to is several times the size of the one before."""
    losses, wins, draws = strata
    loss_reads_won = any(r.reads_won for r in losses)
    go = enc.T  # whether this round runs
    # at most the first round and one per loss fact: a round after the first goes on only where
    # it derived a loss fact, and the round that derives none matters (its errors) only where
    # it evaluates a rule, on a subject whose fact no round derived
    for round_ in range(_slots(enc, losses) + 1 if loss_reads_won else 1):
        st.out, st.tout = list(out0), list(tout0)
        first = round_ == 0
        changed = _fixpoint(enc, st, losses, go, blocked, first=first)
        if round_ > 0:
            go = simp(and_(go, changed))
            if enc.never(go):
                break
        _after_losses(st, out0, tout0, reasons0)
        now = None if again is None else ([and_(g, not_(x)) for g, x in zip(again[0], st.lp)],
                                          [and_(g, not_(x)) for g, x in zip(again[1], st.lt)])
        _fixpoint(enc, st, wins, go, blocked, now, first=first)
        _fixpoint(enc, st, draws, go, first=first)


def _facts_of_those_in(st: SymState, out0, tout0, again) -> None:
    """Drop the step's facts of subjects already out when it began (except who lost earlier
    and may win)."""
    st.lp = [and_(a, not_(o)) for a, o in zip(st.lp, out0)]
    keep_p = [not_(o) for o in out0] if again is None else [or_(not_(o), g) for o, g in zip(out0, again[0])]
    keep_t = [not_(o) for o in tout0] if again is None else [or_(not_(o), g) for o, g in zip(tout0, again[1])]
    st.wp = [and_(a, k) for a, k in zip(st.wp, keep_p)]
    st.lt = [and_(a, not_(o)) for a, o in zip(st.lt, tout0)]
    st.wt = [and_(a, k) for a, k in zip(st.wt, keep_t)]
    for f, o0 in (("dp", out0), ("xp", out0), ("dt", tout0), ("xt", tout0)):
        setattr(st, f, [and_(a, not_(o)) for a, o in zip(getattr(st, f), o0)])


def _precedence(st: SymState, w: str, l: str, who: str | None = None) -> None:
    """`precedence w over l [for who]`: the facts of l that w's facts (or the draw) drop."""
    if (w, l) == ("lose", "win"):
        if who != "teams":
            st.wp = [and_(a, not_(b)) for a, b in zip(st.wp, st.lp)]
        if who != "players":
            st.wt = [and_(a, not_(b)) for a, b in zip(st.wt, st.lt)]
    elif (w, l) == ("win", "lose"):
        if who != "teams":
            st.lp = [and_(a, not_(b)) for a, b in zip(st.lp, st.wp)]
        if who != "players":
            st.lt = [and_(a, not_(b)) for a, b in zip(st.lt, st.wt)]
    elif (w, l) == ("draw", "win"):
        st.wp = [and_(a, not_(st.draw)) for a in st.wp]
        st.wt = [and_(a, not_(st.draw)) for a in st.wt]
    elif (w, l) == ("win", "draw"):
        st.draw = and_(st.draw, not_(or_all(st.wp + st.wt)))
    elif (w, l) == ("draw", "lose"):
        st.lp = [and_(a, not_(st.draw)) for a in st.lp]
        st.lt = [and_(a, not_(st.draw)) for a in st.lt]
    elif (w, l) == ("lose", "draw"):
        st.draw = and_(st.draw, not_(or_all(st.lp + st.lt)))


def _some_draw_precedence(st: SymState, w: str, l: str) -> None:
    """The explorer's `_some_draw_precedence`: player by player, for the draws of some players."""
    pairs = {("lose", "draw"): (("dp", "lp"), ("dt", "lt")), ("draw", "lose"): (("lp", "dp"), ("lt", "dt")),
             ("win", "draw"): (("dp", "wp"), ("dt", "wt")), ("draw", "win"): (("wp", "dp"), ("wt", "dt"))}
    for dropped, by in pairs.get((w, l), ()):
        setattr(st, dropped, [and_(a, not_(b)) for a, b in zip(getattr(st, dropped), getattr(st, by))])


def _conflict(enc: Encoder, st: SymState):
    """Whether the round's facts conflict (the explorer's `_conflict` and `_results_conflict`):
    a player or team who both wins and loses, draws and loses, or draws and wins; the game
    both drawn and won; a finish with a draw or a win; or, unless `winners many`, winners on
    more than one side (a team and its members are one side)."""
    won = st.wp + st.wt
    cases = [and_(a, b) for a, b in zip(won, st.lp + st.lt)]
    cases += [and_(d, b) for d, b in zip(st.dp + st.dt, st.lp + st.lt)]
    cases += [and_(d, b) for d, b in zip(st.dp + st.dt, won)]
    cases += [and_(st.draw, or_all(won)), and_(st.fin, or_(st.draw, or_all(won)))]
    if not enc.model.winners_many:
        inst = enc.inst
        sides = won if not inst.has_teams else \
            [or_all([st.wt[t]] + [st.wp[p] for p in range(enc.n) if inst.team_of[p] == t]) for t in range(enc.nt)]
        cases.append(sum_([ite(w, 1, 0) for w in sides]) >= 2)
    return or_all(cases)


def _end(enc: Encoder, st: SymState):
    """Who leaves with the step's results, then (ended, gap): whether the step ended the game,
    and whether it did not although the game must be over."""
    model = enc.model
    plays_on = not model.after_win_ends
    ended = _apply_results(st, plays_on)
    # why the game must be over, in the explorer's order: each test only where the ones before failed
    everyone_out = and_(*st.out)
    # everyone has left and someone won or drew on the way out: the game is over (a draw if nobody won)
    someone_won = or_all(st.rw + st.trw)
    closed = and_(not_(ended), everyone_out, or_(someone_won, or_all(st.rd + st.trd)))
    # the draw of a game everyone has left is the end's, not a draw fact of the step: no
    # `on draw` trigger fires for it, and a further round does not start from it (as the
    # explorer's end marker); `settle` reads the fact from `draw_fact`
    st.draw_fact = st.draw
    st.draw = or_(st.draw, and_(closed, not_(someone_won)))
    ended = or_(ended, closed)
    reasons = [everyone_out]
    for d in model.ends:
        with enc.under(and_(not_(ended), *[not_(r) for r in reasons])):
            reasons.append(enc.expr(d.cond, st, {}))
    sides = enc.nt if enc.inst.has_teams else enc.n
    if model.last_side_ends and sides >= 2:
        if enc.inst.has_teams:
            alive = [and_(not_(st.tout[t]), or_all([not_(st.out[p]) for p in range(enc.n)
                                                        if enc.inst.team_of[p] == t])) for t in range(enc.nt)]
        else:
            alive = [not_(o) for o in st.out]
        reasons.append(sum_([ite(a, 1, 0) for a in alive]) <= 1)
    gap = and_(not_(ended), or_all(reasons))
    return ended, gap


# ---------------------------------------------------------------- the strata's rules

def _forbid(enc: Encoder, st: SymState, cannot):
    """Stratum 0, as the explorer's: per "cannot" rule, the subjects (in the game when the
    step began) it forbids a loss or a win; the step's statement facts for them are dropped.
    Returns {rule name: [forbidden, per subject]}."""
    masks = {}
    for k in cannot:
        team = k.subject == "team"
        done = st.tout if team else st.out
        fails = enc.can_fail(k.cond)
        mask = []
        for x in range(len(done)):
            with enc.under(not_(done[x]) if fails else enc.T):
                cond = enc.expr(k.cond, st, {k.binder.uid: x})
            mask.append(simp(and_(not_(done[x]), cond)))
        masks[k.name] = mask
        attr = ("l" if k.kind == "cannot_lose" else "w") + ("t" if team else "p")
        _hit(enc, st, k.rule, or_all([and_(f, m) for f, m in zip(getattr(st, attr), mask)]))  # it drops a fact
        setattr(st, attr, [and_(f, not_(m)) for f, m in zip(getattr(st, attr), mask)])
    return masks


def _fixpoint(enc: Encoder, st: SymState, rules, ran, blocked=None, again=None, first: bool = False):
    """The explorer's fixpoint. Facts only grow, so a pass after one that derived nothing
    derives nothing either: `ran` (whether the explorer runs a pass at all) only gates
    where evaluation errors count. Each subject is tried while it lacks the fact and is in
    the game. In the first round, the rules whose facts others derived are cited after it
    (`_cite_redundant`). Returns whether any fact was derived."""
    if not rules:
        return enc.F
    todo = rules
    derived = []
    for _ in range(_slots(enc, rules) + 1):
        before = st.lp + st.wp + st.lt + st.wt + st.dp + st.dt + st.xp + st.xt + [st.draw, st.fin]
        fired = []
        for r in todo:
            if r.subject is None:  # a draw of the whole game or a finish
                fired.append(_game_rule(enc, st, r, ran))
            else:
                fired += _subject_rule(enc, st, r, ran, blocked, again)
        step = simp(or_all(fired))
        derived.append(step)
        ran = simp(and_(ran, step))
        # the same facts out as in: nothing can change in a further pass
        after = st.lp + st.wp + st.lt + st.wt + st.dp + st.dt + st.xp + st.xt + [st.draw, st.fin]
        if is_false(ran) or all(_same(a, b) for a, b in zip(before, after)):
            break
        todo = [r for r in todo if _reads_own(r)]
        if not todo:
            break
    if first:
        _cite_redundant(enc, st, rules)
    return simp(or_all(derived))


def _cite_redundant(enc: Encoder, st: SymState, rules) -> None:
    """The explorer's `_cite_redundant`: a rule that holds for a subject in the game whose fact
    another rule (or a statement) derived first applies all the same."""
    for r in rules:
        if r.subject is None:
            _hit(enc, st, r.rule, and_(getattr(st, "draw" if r.kind == "draw" else "fin"), _holds(enc, st, r, None)))
            continue
        team = r.subject == "team"
        facts = getattr(st, FACT[r.kind] + ("t" if team else "p"))
        done = st.tout if team else st.out
        _hit(enc, st, r.rule, or_all([and_(f, not_(d), _holds(enc, st, r, x))
                                      for x, (f, d) in enumerate(zip(facts, done)) if not is_false(f)]))


def _game_rule(enc: Encoder, st: SymState, r, ran):
    """One pass of a rule without a subject (a draw of the whole game, a finish): when it fires."""
    fails = enc.can_fail(r.cond)
    attr = "draw" if r.kind == "draw" else "fin"
    enabled = not_(getattr(st, attr))
    with enc.under(and_(ran, enabled) if fails else enc.T):
        cond = enc.expr(r.cond, st, {})
    fire = simp(and_(enabled, cond))
    setattr(st, attr, simp(or_(getattr(st, attr), fire)))
    _hit(enc, st, r.rule, fire)
    return fire


def _subject_rule(enc: Encoder, st: SymState, r, ran, blocked, again) -> list:
    """One pass of a rule over its subjects: when it fires, for each subject it is tried on."""
    fails = enc.can_fail(r.cond)
    team = r.subject == "team"
    attr = FACT[r.kind] + ("t" if team else "p")
    done = st.tout if team else st.out
    if again is not None and r.kind == "win":  # who lost earlier may win (same_step)
        done = [and_(d, not_(g)) for d, g in zip(done, again[team])]
    facts = getattr(st, attr)
    forbidden = (blocked or {}).get(r.name) or [enc.F] * len(facts)
    fired = []
    for x in range(len(facts)):
        enabled = simp(and_(not_(done[x]), not_(facts[x]), not_(forbidden[x])))
        if is_false(enabled):
            continue
        with enc.under(and_(ran, enabled) if fails else enc.T):
            cond = enc.expr(r.cond, st, {r.binder.uid: x})
        fired.append(simp(and_(enabled, cond)))
        # without the "lacks the fact" part the facts come out the same when nothing changed
        facts[x] = simp(or_(facts[x], and_(not_(done[x]), not_(forbidden[x]), cond)))
    _hit(enc, st, r.rule, or_all(fired))
    return fired


def _apply_results(st: SymState, plays_on: bool):
    """The explorer's `_apply_results`: leaving gives way to a result of the same step;
    everyone with an outcome leaves, each for its reason. Returns whether the step ended
    the game by an outcome."""
    st.xp = [and_(x, not_(or_all([a, b, c]))) for x, a, b, c in zip(st.xp, st.lp, st.wp, st.dp)]
    st.xt = [and_(x, not_(or_all([a, b, c]))) for x, a, b, c in zip(st.xt, st.lt, st.wt, st.dt)]
    false = False if st.folded else _terms.FALSE
    wp = st.wp if plays_on else [false] * len(st.wp)
    wt = st.wt if plays_on else [false] * len(st.wt)
    st.out = [or_all([o, a, b, c, d]) for o, a, b, c, d in zip(st.out, st.lp, st.dp, st.xp, wp)]
    st.tout = [or_all([o, a, b, c, d]) for o, a, b, c, d in zip(st.tout, st.lt, st.dt, st.xt, wt)]
    st.rd = [or2(a, b) for a, b in zip(st.rd, st.dp)]
    st.rx = [or2(a, b) for a, b in zip(st.rx, st.xp)]
    st.rw = [or2(a, b) for a, b in zip(st.rw, wp)]
    st.trd = [or2(a, b) for a, b in zip(st.trd, st.dt)]
    st.trx = [or2(a, b) for a, b in zip(st.trx, st.xt)]
    st.trw = [or2(a, b) for a, b in zip(st.trw, wt)]
    return or_all([st.draw, st.fin] + ([] if plays_on else st.wp + st.wt))


def _same(a, b) -> bool:
    """Whether two facts are the same term (or the same folded literal)."""
    if isinstance(a, z3.ExprRef) and isinstance(b, z3.ExprRef):
        return a.eq(b)
    return a is b or type(a) is type(b) and a == b


def _slots(enc: Encoder, rules) -> int:
    """How many facts `rules` can derive: one per subject of each fact list they write (rules
    that write the same list share its subjects), one per game fact. A pass or round that
    changes something derives one more, so there are at most this many such passes."""
    lists = {FACT[r.kind] + r.subject[0] if r.subject else r.kind: _width(enc, r) for r in rules}
    return sum(lists.values())


def _width(enc: Encoder, r) -> int:
    return enc.n if r.subject == "player" else enc.nt if r.subject == "team" else 1


def _reads_own(r: T.OutcomeRule) -> bool:
    """Whether a rule reads the facts its own stratum derives (a loss rule lost(), a win rule
    won()): only those can change within a fixpoint once every rule has been applied once."""
    departs = r.kind in ("lose", "leave") or r.kind == "draw" and r.subject
    own = ("won_player", "won_team") if r.kind == "win" else \
        ("lost_player", "lost_team", "lost_now_player", "lost_now_team", "drew_player", "drew_team") if departs else ()
    return any(isinstance(n, T.Call) and n.func in own for n in T.walk(r.cond))
