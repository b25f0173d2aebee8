"""Outcome resolution over terms: after a step's body, the outcome rules in the explorer's
strata (losses and leaving, then wins, then draws of the whole game), the precedences, who
leaves and why, whether the game ended or must be over (a gap); then the triggers' rounds
(`settle`). The same semantics as `checker.explicit.machine`, written independently.

Every function takes the `encode.Encoder` of the instance and the `SymState` after the body,
which it changes in place; the errors met go to the state's `error` condition.
"""
from __future__ import annotations

import z3

from ..frontend import typed as T
from .encode import Encoder
from .terms import FACT, FALSE, TRUE, SymState, lost, merge, or2, or_all, sym_if

TRIGGER_EVENTS = ("lose_player", "lose_team", "win_player", "win_team", "draw", "finish")  # the order they fire



# ---------------------------------------------------------------- a step's settling: resolution and triggers

def settle(enc: Encoder, st: SymState):
    """The explorer's settle (docs/language.md, "Events and triggers"), written over terms:
    resolve, then rounds of triggers and resolution while the round before ran a trigger. A
    round is a condition (`go`): under it the events of the round before fire their
    triggers, each (event, subject) once per step, in the explorer's order. Returns (state,
    ended, gap)."""
    st.out0, st.tout0 = list(st.out), list(st.tout)
    st, ended, gap = resolve(enc, st)
    model = enc.model
    if not model.triggers:
        return st, ended, gap
    draw = st.draw_fact  # the step's draw so far, without the end's draw of a game everyone left
    on: dict[str, list] = {}
    for t in model.triggers:
        on.setdefault(t.event + ("_" + t.subject if t.subject else ""), []).append(t)
    n, nt = enc.n, enc.nt
    fired: dict = {}
    seen = {"win_player": [FALSE] * n, "win_team": [FALSE] * nt, "draw": [FALSE], "finish": [FALSE]}
    go = TRUE
    # a round that runs a trigger fired an (event, subject) that had not fired (each fires once
    # a step), so there are at most as many rounds as pairs with triggers: over symbolic states,
    # where no round is seen to be the last, a tighter bound is fewer rounds of terms to build
    pairs = sum(n if e.endswith("_player") else nt if e.endswith("_team") else 1 for e in on)
    for _ in range(pairs):
        now = {"lose_player": st.lp, "lose_team": st.lt, "win_player": st.wp, "win_team": st.wt,
               "draw": [draw], "finish": [st.fin]}
        events = _events(on, now, seen, fired, go)
        if not events:
            break
        for event, x, happens in events:
            fired[(event, x)] = z3.simplify(z3.Or(fired.get((event, x), FALSE), happens))
        seen = {"win_player": list(st.wp), "win_team": list(st.wt), "draw": [draw], "finish": [st.fin]}
        cur, ran = _run_triggers(enc, st, draw, on, events)
        if z3.is_false(ran):  # as the explorer: nothing ran, nothing changes (but a condition may have failed)
            st.error = z3.simplify(z3.Or(st.error, cur.error))
            break
        res, ended2, gap2 = resolve(enc, cur.copy())
        kept = st.copy()
        kept.error = z3.simplify(z3.Or(st.error, cur.error))
        st = merge(ran, res, kept)
        draw = sym_if(ran, res.draw_fact, draw)
        ended, gap = sym_if(ran, ended2, ended), sym_if(ran, gap2, gap)
        go = ran
    return st, ended, gap


def _events(on, now, seen, fired, go) -> list:
    """[(event, subject, when it happens)] of a round: the events with triggers, in the order
    they fire, that the round before made happen and that have not fired yet this step."""
    events = []
    for event in TRIGGER_EVENTS:
        if event not in on:
            continue
        for x, fact in enumerate(now[event]):
            before = seen[event][x] if event in seen else FALSE
            happens = z3.simplify(z3.And(go, fact, z3.Not(before), z3.Not(fired.get((event, x), FALSE))))
            if not z3.is_false(happens):
                events.append((event, x, happens))
    return events


def _run_triggers(enc: Encoder, st: SymState, draw, on, events):
    """The triggers of a round's events run on the state without this step's losses, draws of
    some and leaving (those are the next resolution's): (the state after them, whether any ran)."""
    n, nt = enc.n, enc.nt
    cur = st.copy()
    cur.draw = draw
    cur.lp, cur.lt = [FALSE] * n, [FALSE] * nt
    cur.dp, cur.dt, cur.xp, cur.xt = [FALSE] * n, [FALSE] * nt, [FALSE] * n, [FALSE] * nt
    ran = FALSE
    for event, x, happens in events:
        for t in on[event]:
            env = {t.binder.uid: x} if t.binder is not None else {}
            cond = enc.errors_into(cur, lambda t=t, env=env, cur=cur: enc.expr(t.cond, cur, env), happens)
            fire = z3.simplify(z3.And(happens, cond))
            if z3.is_false(fire):
                continue
            body = enc.stmts(t.body, cur, env)
            if body is cur:  # an empty body: the trigger's hit is under `fire`, not on `cur` itself
                body = cur.copy()
            body.hits[t.rule] = TRUE
            cur = merge(fire, body, cur)
            ran = z3.simplify(z3.Or(ran, fire))
    return cur, ran

# ---------------------------------------------------------------- one resolution

def resolve(enc: Encoder, st: SymState):
    """Outcome resolution in the explorer's strata; returns (state, ended, gap) with the
    errors met added to st.error."""
    model = enc.model
    # the first stratum: losses, draws of some players, leaving with no result
    losses = [r for r in model.outcomes if r.kind in ("lose", "leave") or r.kind == "draw" and r.subject]
    wins = [r for r in model.outcomes if r.kind == "win"]
    draws = [r for r in model.outcomes if r.kind in ("draw", "finish") and not r.subject]  # one stratum, as in the explorer
    out0, tout0 = list(st.out), list(st.tout)
    saved_path, saved_errs = enc.path, enc.errs
    enc.path, enc.errs = TRUE, []
    blocked = _blocked(enc, st, losses + wins)
    again = None  # who lost earlier and may win (`precedence lose over win same_step`)
    if model.past_losers_win:
        again = ([lost(o, *r) for o, r in zip(out0, zip(st.rd, st.rw, st.rx))],
                 [lost(o, *r) for o, r in zip(tout0, zip(st.trd, st.trw, st.trx))])
    reasons0 = tuple(list(getattr(st, r)) for r in SymState.RESULTS)
    _strata(enc, st, (losses, wins, draws), blocked, again, out0, tout0, reasons0)
    st.out, st.tout = list(out0), list(tout0)
    for r, before in zip(SymState.RESULTS, reasons0):
        setattr(st, r, before)
    _facts_of_those_in(st, out0, tout0, again)
    for w, l in model.precedence:
        _precedence(st, w, l)
        _some_draw_precedence(st, w, l)
    ended, gap = _end(enc, st)
    st.error = z3.simplify(z3.Or(st.error, or_all(enc.errs)))
    enc.path, enc.errs = saved_path, saved_errs
    return st, ended, gap


def _blocked(enc: Encoder, st: SymState, rules) -> dict:
    """Loss or win rule name -> the subjects the "cannot" rules forbid it (per subject)."""
    model = enc.model
    blocked = {}
    cannot = [r for r in model.outcomes if r.kind.startswith("cannot_")]
    if cannot:
        masks = _forbid(enc, st, cannot)
        exempt = set(model.exempt)
        for r in rules:
            ks = [k for k in cannot if k.kind == "cannot_" + r.kind and k.subject == r.subject
                  and (r.name, k.name) not in exempt]
            if ks:
                blocked[r.name] = [or_all([masks[k.name][x] for k in ks]) for x in range(len(masks[ks[0].name]))]
    return blocked


def _strata(enc: Encoder, st: SymState, strata, blocked, again, out0, tout0, reasons0) -> None:
    """The fixpoints of the three strata, in rounds while a loss rule reads won() and the
    round before derived something (the explorer's rounds); st.out and the reasons are left
    as the last round made them."""
    losses, wins, draws = strata
    loss_reads_won = any(r.reads_won for r in losses)
    go = TRUE  # whether this round runs
    for round_ in range(_ground(enc, losses) + 1 if loss_reads_won else 1):
        st.out, st.tout = list(out0), list(tout0)
        changed = _fixpoint(enc, st, losses, go, blocked)
        if round_ > 0:
            go = z3.simplify(z3.And(go, changed))
            if z3.is_false(go):
                break
        st.out = [or_all([a, b, c, d]) for a, b, c, d in zip(out0, st.lp, st.dp, st.xp)]
        st.tout = [or_all([a, b, c, d]) for a, b, c, d in zip(tout0, st.lt, st.dt, st.xt)]
        # each for its reason: who drew or left in this step did not lose
        st.rd = [or2(r, z3.And(d, z3.Not(o))) for r, d, o in zip(reasons0[0], st.dp, out0)]
        st.rx = [or2(r, z3.And(x, z3.Not(o))) for r, x, o in zip(reasons0[2], st.xp, out0)]
        st.trd = [or2(r, z3.And(d, z3.Not(o))) for r, d, o in zip(reasons0[3], st.dt, tout0)]
        st.trx = [or2(r, z3.And(x, z3.Not(o))) for r, x, o in zip(reasons0[5], st.xt, tout0)]
        now = None if again is None else ([z3.And(g, z3.Not(x)) for g, x in zip(again[0], st.lp)],
                                          [z3.And(g, z3.Not(x)) for g, x in zip(again[1], st.lt)])
        _fixpoint(enc, st, wins, go, blocked, now)
        _fixpoint(enc, st, draws, go)


def _facts_of_those_in(st: SymState, out0, tout0, again) -> None:
    """Drop the step's facts of subjects already out when it began (except who lost earlier
    and may win)."""
    st.lp = [z3.And(a, z3.Not(o)) for a, o in zip(st.lp, out0)]
    keep_p = [z3.Not(o) for o in out0] if again is None else [z3.Or(z3.Not(o), g) for o, g in zip(out0, again[0])]
    keep_t = [z3.Not(o) for o in tout0] if again is None else [z3.Or(z3.Not(o), g) for o, g in zip(tout0, again[1])]
    st.wp = [z3.And(a, k) for a, k in zip(st.wp, keep_p)]
    st.lt = [z3.And(a, z3.Not(o)) for a, o in zip(st.lt, tout0)]
    st.wt = [z3.And(a, k) for a, k in zip(st.wt, keep_t)]
    for f, o0 in (("dp", out0), ("xp", out0), ("dt", tout0), ("xt", tout0)):
        setattr(st, f, [z3.And(a, z3.Not(o)) for a, o in zip(getattr(st, f), o0)])


def _precedence(st: SymState, w: str, l: str) -> None:
    """`precedence w over l`: the facts of l that w's facts (or the draw) drop."""
    if (w, l) == ("lose", "win"):
        st.wp = [z3.And(a, z3.Not(b)) for a, b in zip(st.wp, st.lp)]
        st.wt = [z3.And(a, z3.Not(b)) for a, b in zip(st.wt, st.lt)]
    elif (w, l) == ("win", "lose"):
        st.lp = [z3.And(a, z3.Not(b)) for a, b in zip(st.lp, st.wp)]
        st.lt = [z3.And(a, z3.Not(b)) for a, b in zip(st.lt, st.wt)]
    elif (w, l) == ("draw", "win"):
        st.wp = [z3.And(a, z3.Not(st.draw)) for a in st.wp]
        st.wt = [z3.And(a, z3.Not(st.draw)) for a in st.wt]
    elif (w, l) == ("win", "draw"):
        st.draw = z3.And(st.draw, z3.Not(or_all(st.wp + st.wt)))
    elif (w, l) == ("draw", "lose"):
        st.lp = [z3.And(a, z3.Not(st.draw)) for a in st.lp]
        st.lt = [z3.And(a, z3.Not(st.draw)) for a in st.lt]
    elif (w, l) == ("lose", "draw"):
        st.draw = z3.And(st.draw, z3.Not(or_all(st.lp + st.lt)))


def _some_draw_precedence(st: SymState, w: str, l: str) -> None:
    """The explorer's `_some_draw_precedence`: player by player, for the draws of some players."""
    pairs = {("lose", "draw"): (("dp", "lp"), ("dt", "lt")), ("draw", "lose"): (("lp", "dp"), ("lt", "dt")),
             ("win", "draw"): (("dp", "wp"), ("dt", "wt")), ("draw", "win"): (("wp", "dp"), ("wt", "dt"))}
    for dropped, by in pairs.get((w, l), ()):
        setattr(st, dropped, [z3.And(a, z3.Not(b)) for a, b in zip(getattr(st, dropped), getattr(st, by))])


def _end(enc: Encoder, st: SymState):
    """Who leaves with the step's results, then (ended, gap): whether the step ended the game,
    and whether it did not although the game must be over."""
    model = enc.model
    plays_on = not model.after_win_ends
    ended = _apply_results(st, plays_on)
    # why the game must be over, in the explorer's order: each test only where the ones before failed
    everyone_out = z3.And(*st.out)
    # everyone has left and someone won or drew on the way out: the game is over (a draw if nobody won)
    someone_won = or_all(st.rw + st.trw)
    closed = z3.And(z3.Not(ended), everyone_out, z3.Or(someone_won, or_all(st.rd + st.trd)))
    # the draw of a game everyone has left is the end's, not a draw fact of the step: no
    # `on draw` trigger fires for it, and a further round does not start from it (as the
    # explorer's end marker); `settle` reads the fact from `draw_fact`
    st.draw_fact = st.draw
    st.draw = z3.Or(st.draw, z3.And(closed, z3.Not(someone_won)))
    ended = z3.Or(ended, closed)
    reasons = [everyone_out]
    for d in model.ends:
        with enc.under(z3.And(z3.Not(ended), *[z3.Not(r) for r in reasons])):
            reasons.append(enc.expr(d.cond, st, {}))
    sides = enc.nt if enc.inst.has_teams else enc.n
    if model.last_side_ends and sides >= 2:
        if enc.inst.has_teams:
            alive = [z3.And(z3.Not(st.tout[t]), or_all([z3.Not(st.out[p]) for p in range(enc.n)
                                                        if enc.inst.team_of[p] == t])) for t in range(enc.nt)]
        else:
            alive = [z3.Not(o) for o in st.out]
        reasons.append(z3.Sum([z3.If(a, 1, 0) for a in alive]) <= 1)
    gap = z3.And(z3.Not(ended), or_all(reasons))
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
            with enc.under(z3.Not(done[x]) if fails else TRUE):
                cond = enc.expr(k.cond, st, {k.binder.uid: x})
            mask.append(z3.simplify(z3.And(z3.Not(done[x]), cond)))
        masks[k.name] = mask
        attr = ("l" if k.kind == "cannot_lose" else "w") + ("t" if team else "p")
        setattr(st, attr, [z3.And(f, z3.Not(m)) for f, m in zip(getattr(st, attr), mask)])
    return masks


def _fixpoint(enc: Encoder, st: SymState, rules, ran, blocked=None, again=None):
    """The explorer's fixpoint. Facts only grow, so a pass after one that derived nothing
    derives nothing either: `ran` (whether the explorer runs a pass at all) only gates
    where evaluation errors count. Each subject is tried while it lacks the fact and is in
    the game. Returns whether any fact was derived."""
    if not rules:
        return FALSE
    todo = rules
    derived = []
    for _ in range(_ground(enc, rules) + 1):
        before = st.lp + st.wp + st.lt + st.wt + st.dp + st.dt + st.xp + st.xt + [st.draw, st.fin]
        fired = []
        for r in todo:
            if r.subject is None:  # a draw of the whole game or a finish
                fired.append(_game_rule(enc, st, r, ran))
            else:
                fired += _subject_rule(enc, st, r, ran, blocked, again)
        step = z3.simplify(or_all(fired))
        derived.append(step)
        ran = z3.simplify(z3.And(ran, step))
        # the same facts out as in: nothing can change in a further pass
        after = st.lp + st.wp + st.lt + st.wt + st.dp + st.dt + st.xp + st.xt + [st.draw, st.fin]
        if z3.is_false(ran) or all(a.eq(b) for a, b in zip(before, after)):
            break
        todo = [r for r in todo if _reads_own(r)]
        if not todo:
            break
    return z3.simplify(or_all(derived))


def _game_rule(enc: Encoder, st: SymState, r, ran):
    """One pass of a rule without a subject (a draw of the whole game, a finish): when it fires."""
    fails = enc.can_fail(r.cond)
    attr = "draw" if r.kind == "draw" else "fin"
    enabled = z3.Not(getattr(st, attr))
    with enc.under(z3.And(ran, enabled) if fails else TRUE):
        cond = enc.expr(r.cond, st, {})
    fire = z3.simplify(z3.And(enabled, cond))
    setattr(st, attr, z3.simplify(z3.Or(getattr(st, attr), fire)))
    return fire


def _subject_rule(enc: Encoder, st: SymState, r, ran, blocked, again) -> list:
    """One pass of a rule over its subjects: when it fires, for each subject it is tried on."""
    fails = enc.can_fail(r.cond)
    team = r.subject == "team"
    attr = FACT[r.kind] + ("t" if team else "p")
    done = st.tout if team else st.out
    if again is not None and r.kind == "win":  # who lost earlier may win (same_step)
        done = [z3.And(d, z3.Not(g)) for d, g in zip(done, again[team])]
    facts = getattr(st, attr)
    forbidden = (blocked or {}).get(r.name) or [FALSE] * len(facts)
    fired = []
    for x in range(len(facts)):
        enabled = z3.simplify(z3.And(z3.Not(done[x]), z3.Not(facts[x]), z3.Not(forbidden[x])))
        if z3.is_false(enabled):
            continue
        with enc.under(z3.And(ran, enabled) if fails else TRUE):
            cond = enc.expr(r.cond, st, {r.binder.uid: x})
        fired.append(z3.simplify(z3.And(enabled, cond)))
        # without the "lacks the fact" part the facts come out the same when nothing changed
        facts[x] = z3.simplify(z3.Or(facts[x], z3.And(z3.Not(done[x]), z3.Not(forbidden[x]), cond)))
    return fired


def _apply_results(st: SymState, plays_on: bool):
    """The explorer's `_apply_results`: leaving gives way to a result of the same step;
    everyone with an outcome leaves, each for its reason. Returns whether the step ended
    the game by an outcome."""
    st.xp = [z3.And(x, z3.Not(or_all([a, b, c]))) for x, a, b, c in zip(st.xp, st.lp, st.wp, st.dp)]
    st.xt = [z3.And(x, z3.Not(or_all([a, b, c]))) for x, a, b, c in zip(st.xt, st.lt, st.wt, st.dt)]
    wp = st.wp if plays_on else [FALSE] * len(st.wp)
    wt = st.wt if plays_on else [FALSE] * len(st.wt)
    st.out = [or_all([o, a, b, c, d]) for o, a, b, c, d in zip(st.out, st.lp, st.dp, st.xp, wp)]
    st.tout = [or_all([o, a, b, c, d]) for o, a, b, c, d in zip(st.tout, st.lt, st.dt, st.xt, wt)]
    st.rd = [or2(a, b) for a, b in zip(st.rd, st.dp)]
    st.rx = [or2(a, b) for a, b in zip(st.rx, st.xp)]
    st.rw = [or2(a, b) for a, b in zip(st.rw, wp)]
    st.trd = [or2(a, b) for a, b in zip(st.trd, st.dt)]
    st.trx = [or2(a, b) for a, b in zip(st.trx, st.xt)]
    st.trw = [or2(a, b) for a, b in zip(st.trw, wt)]
    return or_all([st.draw, st.fin] + ([] if plays_on else st.wp + st.wt))


def _ground(enc: Encoder, rules) -> int:
    return sum(enc.n if r.subject == "player" else enc.nt if r.subject == "team" else 1 for r in rules)


def _reads_own(r: T.OutcomeRule) -> bool:
    """Whether a rule reads the facts its own stratum derives (a loss rule lost(), a win rule
    won()): only those can change within a fixpoint once every rule has been applied once."""
    own = {"lose": ("lost_player", "lost_team", "lost_now_player", "lost_now_team"),
           "win": ("won_player", "won_team")}.get(r.kind, ())


    departs = r.kind in ("lose", "leave") or r.kind == "draw" and r.subject
    own = ("won_player", "won_team") if r.kind == "win" else \
        ("lost_player", "lost_team", "drew_player", "drew_team") if departs else ()
    return any(isinstance(n, T.Call) and n.func in own for n in T.walk(r.cond))
