"""Replay: a counterexample of the explorer re-executed over terms, one concrete step at a
time, by the independent encoding (`Encoder(fold=True)`: every input is a literal, a Python
bool or int, so a step costs the operations its rules perform and no Z3 term is built where a
value is known: terms.py). Each step
must be enabled and give the recorded next state, or fail where and how the explorer says it
fails; a setup the explorer could not complete must fail the same way. Anything else is a
disagreement of the two engines, which the run reports as such, never as a finding.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..frontend import typed as T
from ..frontend.ends import RUNNING, Ended, has_ended, is_gap
from ..frontend.instances import Instance
from .encode import Encoder
from .outcomes import CITED_KINDS, settle
from .terms import SymSet, SymState, and_, concrete, not_, or2, or_all, state_to_sym


@dataclass(frozen=True)
class ReplayStep:
    """One step of a trace as the explorer saw it: the action, its arguments, the states."""
    pre: tuple
    action: int  # index into the model's actions
    binding: tuple
    post: tuple | None  # None for a step that fails
    error_kind: str = ""  # overflow | evaluation-error, for a failing step
    where: str = ""  # guard | body | outcome
    hits: tuple | None = None  # the rules the explorer recorded; all but the action's must agree


def replay(inst: Instance, steps: list[ReplayStep], memo: dict | None = None) -> str:
    """Re-execute a trace with the Z3 encoding; "" if every step checks, else what differs;
    raises Unsupported when the encoding cannot replay a step (the trace is not replayed).
    `memo` (step -> what its replay said) lets the traces of one instance share the steps they
    have in common: a step's replay depends on the step alone."""
    enc = Encoder(inst, fold=True)
    for i, step in enumerate(steps, 1):
        problem = memo.get(step) if memo is not None else None
        if problem is None:
            problem = _replay_step(enc, inst, step)
            if memo is not None:
                memo[step] = problem
        if problem:
            return f"step {i} ({inst.model.actions[step.action].name}): {problem}"
    return ""


def _replay_step(enc: Encoder, inst: Instance, step: ReplayStep) -> str:
    decl = inst.model.actions[step.action]
    st = state_to_sym(inst, step.pre, folded=True)
    env: dict = {}
    for j, (b, dom) in enumerate(decl.params):
        bounds = enc.range_bounds(dom, st, env) if isinstance(dom, T.RangeDom) else None
        if bounds is not None and j < len(step.binding):  # (a range is not listed: it may be 10^8 wide)
            if not bounds[0] <= step.binding[j] <= bounds[1]:
                return f"argument {b.name} outside its domain"
            env[b.uid] = step.binding[j]
            continue
        cands, err = enc.checked(lambda: enc.candidates(dom, st, env))
        if step.where == "domain" and j == len(step.binding):  # the explorer found no value for this domain
            return "" if concrete(err) is True else f"the replay can evaluate the domain of {b.name}"
        if j >= len(step.binding) or not any(concrete(c) is True and val == step.binding[j] for val, c in cands):
            return f"argument {b.name} outside its domain"
        env[b.uid] = step.binding[j]
    guard, guard_err = enc.checked(lambda: enc.expr(decl.guard, st, env))
    failing = step.post is None
    if concrete(guard_err) is True:
        return "" if failing and step.where == "guard" else "the guard cannot be evaluated in the replay"
    if failing and step.where == "guard":
        return "the explorer could not evaluate the guard, the replay can"
    if concrete(guard) is not True:
        return "the guard does not hold"
    after = enc.action_body(decl, st, env)
    body_fail = {"overflow": concrete(after.overflow) is True, "evaluation-error": concrete(after.error) is True}
    if failing and step.where == "body":
        return "" if body_fail[step.error_kind] else f"the replay finds no {step.error_kind} in the body"
    if any(body_fail.values()):
        return "the body fails in the replay (" + ", ".join(k for k, v in body_fail.items() if v) + ")"
    after, ended, gap = settle(enc, after)
    if failing:  # in the outcome rules or a trigger
        bad = after.overflow if step.error_kind == "overflow" else after.error
        return "" if concrete(bad) is True else f"the replay finds no {step.error_kind} in the outcome rules or triggers"
    if concrete(after.error) is True or concrete(after.overflow) is True:
        return "the outcome rules or triggers fail in the replay"
    if step.hits is not None:  # what the body, the triggers that ran and the outcome resolution applied
        problem = _compare_hits(inst, after, step.hits)
        if problem:
            return problem
    return _compare(inst, after, ended, gap, step.post)


def fails_in(inst: Instance, state: tuple, cond) -> bool:
    """Whether evaluating the condition `cond` (an invariant) in the concrete `state` meets an
    evaluation error here too; won() reads the winners of the state's end marker."""
    st = state_to_sym(inst, state, folded=True)
    end = state[-1]
    if has_ended(end):
        st.wp = [bool(end.players >> p & 1) for p in range(inst.nplayers)]
        st.wt = [bool(end.teams >> t & 1) for t in range(inst.nteams)]
        st.draw = bool(end.draw)
        st.fin = not any(end)
    st.over = bool(end)
    enc = Encoder(inst, fold=True)
    _, err = enc.checked(lambda: enc.expr(cond, st, {}))
    return concrete(err) is True


def replay_setup(inst: Instance, values: tuple, where: str, kind: str) -> str:
    """Re-check a setup the explorer could not complete: with the slots it had computed
    (`values`, None where not yet), the failing part (`where`: "initial value of X", "init",
    "constraint" or "outcome") must fail the same way here. "" if it does, else what differs;
    raises Unsupported when the encoding cannot tell."""
    model = inst.model
    filled = list(values)
    for v in inst.vars:  # slots not computed yet are never read (initial values read earlier variables only)
        for j in range(v.count):
            if filled[v.offset + j] is None:
                filled[v.offset + j] = v.type.values(inst.nplayers, inst.nteams)[0]
    enc = Encoder(inst, fold=True)
    st = state_to_sym(inst, tuple(filled) + (0, 0, RUNNING), folded=True)
    if where.startswith("initial value of "):
        var = inst.var(where.removeprefix("initial value of "))
        fails = []
        for j in range(var.count):
            env = {var.info.index.binder.uid: j + var.index_base} if var.info.index else {}
            value, err = enc.checked(lambda: enc.expr(var.info.init, st, env))
            fails.append(err if kind == "evaluation-error" else and_(not_(err), not_(enc.in_type(var, value))))
        ok = concrete(or_all(fails)) is True
    elif where in ("init", "constraint"):
        conds = list(model.inits) + ([d for d in model.constraints
                                      if not any(isinstance(n, T.VarRef) and n.static for n in T.walk(d.cond))]
                                     if where == "constraint" else [])
        before, fails = True, []
        for d in conds:  # each is evaluated only while the ones before it held
            value, err = enc.checked(lambda: enc.expr(d.cond, st, {}), before)
            fails.append(err)
            before = and_(before, value)
        ok = concrete(or_all(fails)) is True
    else:
        after, _, _ = settle(enc, st, step=False)
        ok = concrete(after.overflow if kind == "overflow" else after.error) is True
    return "" if ok else f"the setup does not fail in the replay ({where})"


def statement_hits(inst: Instance, st: SymState) -> set[int]:
    """The rules that applied in a concrete step, as rule ids: tagged statements, routines,
    phases, triggers and outcome rules (the action itself is the step's)."""
    return {r for r, c in st.hits.items() if concrete(c) is True}


def _compare_hits(inst: Instance, st: SymState, explicit_hits) -> str:
    mine = {r for r in explicit_hits if inst.model.rules[r].kind in CITED_KINDS}
    theirs = {r for r in statement_hits(inst, st) if inst.model.rules[r].kind in CITED_KINDS}
    if mine == theirs:
        return ""
    def show(rids):
        return ", ".join(f"{inst.model.rules[r].kind} at {inst.model.rules[r].span.line}:{inst.model.rules[r].span.col}"
                         for r in sorted(rids)) or "none"
    return f"the rules applied differ: the explorer has {show(mine - theirs)}, the replay {show(theirs - mine)}"


def _shown(inst: Instance, var, value) -> str:
    """A value the replay or the explorer holds, in the spec's words (as the traces show it):
    a disagreement is read by someone who knows the rules, not Z3's encoding."""
    if value is None:
        return "undetermined (no single value)"
    try:
        return inst.show_value(var, value)
    except (IndexError, TypeError):  # a value outside the type: the disagreement itself, shown raw
        return f"{value} (outside the type of {var.name})"


def _players(inst: Instance, mask: int) -> str:
    return "{" + ", ".join(inst.players[p] for p in range(inst.nplayers) if mask >> p & 1) + "}"


def _compare(inst, st: SymState, ended, gap, post) -> str:
    for v in inst.vars:
        for j in range(v.count):
            got = st.vals[v.name][j]
            if isinstance(got, SymSet):
                bits = [concrete(b) for b in got.elems]
                got = None if None in bits else sum(1 << p for p, b in enumerate(bits) if b)
            else:
                got = concrete(got)
            want = post[v.offset + j]
            if got != want:
                key = v.name if not v.indexed else f"{v.name}[{v.index_keys(inst)[j]}]"
                return (f"{key} is {_shown(inst, v, got)} in the replay but {_shown(inst, v, want)} "
                        "in the explorer")
    k = inst.nslots
    n, nt = inst.nplayers, inst.nteams
    out = sum(1 << p for p in range(n) if concrete(st.out[p]))
    if out != post[k] & ((1 << n) - 1):
        return (f"players out of the game differ: {_players(inst, out)} in the replay, "
                f"{_players(inst, post[k] & ((1 << n) - 1))} in the explorer")
    for why, (ps, ts) in enumerate(((st.rd, st.trd), (st.rw, st.trw), (st.rx, st.trx)), 1):
        got = (sum(1 << p for p in range(n) if concrete(ps[p])), sum(1 << t for t in range(nt) if concrete(ts[t])))
        if got != ((post[k] >> (why * n)) & ((1 << n) - 1), (post[k + 1] >> (why * nt)) & ((1 << nt) - 1)):
            return "why players or teams are out of the game differs"
    end = post[-1]
    z3_ended, z3_gap = concrete(ended), concrete(gap)
    if has_ended(end) != bool(z3_ended):
        return "whether the game ended differs"
    if is_gap(end) != bool(z3_gap):
        return "whether the game must be over differs"
    if has_ended(end):
        # winners who left while the game went on are winners of the game too
        wp = sum(1 << p for p in range(inst.nplayers) if concrete(or2(st.wp[p], st.rw[p])))
        wt = sum(1 << t for t in range(inst.nteams) if concrete(or2(st.wt[t], st.trw[t])))
        if Ended(wp, wt, bool(concrete(st.draw))) != end:
            return "the winners differ"
    return ""
