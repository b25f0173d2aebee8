"""The symbolic engine: the semantics of the typed IR over Z3 terms, written independently of
the explicit engine (the two never import each other; `checker.frontend` is all they share).

Three uses:
- `contradiction(inst)`: the static constraints, setup rules and types as formulas tracked by
  rule number, so an unsatisfiable set comes back as a minimal core of rules;
- `replay(inst, steps)`: re-executes a counterexample one step at a time from its concrete
  states and confirms each step is enabled and yields the recorded next state, or fails the
  way the explorer says it fails;
- `BMC`: the transition relation unrolled for bounded model checking (the differential tests
  compare it with the explorer).

Values: booleans are Bool, numbers/players/teams/members Int (-1 for none); sets are `SymSet`s:
one Bool per possible element. Quantifiers range over concrete candidates with a membership
condition, so every binder is a Python int and the seating functions are evaluated exactly.
Evaluation errors (division by zero, an index outside its range, none as a player) are
conditions collected under the path that reaches them: `and`, `or`, `implies`, `if` and the
quantifiers evaluate as far as the explorer does and no further.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import z3

from ..frontend import typed as T
from ..frontend.instances import Instance
from .encode import Encoder
from .outcomes import settle
from .terms import FALSE, TRUE, SymSet, SymState, Unsupported, concrete, equal, fresh_value, or2, or_all, state_to_sym


@dataclass(frozen=True)
class ReplayStep:
    """One step of a trace as the explorer saw it: the action, its arguments, the states."""
    pre: tuple
    action: int  # index into the model's actions
    binding: tuple
    post: tuple | None  # None for a step that fails
    error_kind: str = ""  # overflow | evaluation-error, for a failing step
    where: str = ""  # guard | body | outcome
    hits: tuple | None = None  # the rules the explorer recorded; its tagged statements' must agree


def replay(inst: Instance, steps: list[ReplayStep], memo: dict | None = None) -> str:
    """Re-execute a trace with the Z3 encoding; "" if every step checks, else what differs.
    `memo` (step -> what its replay said) lets the traces of one instance share the steps they
    have in common: a step's replay depends on the step alone."""
    enc = Encoder(inst, fold=True)
    try:
        for i, step in enumerate(steps, 1):
            problem = memo.get(step) if memo is not None else None
            if problem is None:
                problem = _replay_step(enc, inst, step)
                if memo is not None:
                    memo[step] = problem
            if problem:
                return f"step {i} ({inst.model.actions[step.action].name}): {problem}"
    except Unsupported as exc:
        return f"not replayed: {exc}"
    return ""


def _replay_step(enc: Encoder, inst: Instance, step: ReplayStep) -> str:
    decl = inst.model.actions[step.action]
    st = state_to_sym(inst, step.pre)
    env: dict = {}
    for j, (b, dom) in enumerate(decl.params):
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
    after = enc.stmts(decl.body, st, env)
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
    if step.hits is not None:  # the tagged statements of the body and of the triggers that ran
        problem = _compare_hits(inst, after, step.hits)
        if problem:
            return problem
    return _compare(inst, after, ended, gap, step.post)


def fails_in(inst: Instance, state: tuple, cond) -> bool:
    """Whether evaluating the condition `cond` (an invariant) in the concrete `state` meets an
    evaluation error here too; won() reads the winners of the state's end marker."""
    st = state_to_sym(inst, state)
    end = state[-1]
    if end and end[0] != "gap":
        st.wp = [z3.BoolVal(bool(end[0] >> p & 1)) for p in range(inst.nplayers)]
        st.wt = [z3.BoolVal(bool(end[1] >> t & 1)) for t in range(inst.nteams)]
        st.draw = z3.BoolVal(bool(end[2]))
        st.fin = z3.BoolVal(not any(end))
    st.over = z3.BoolVal(bool(end))
    enc = Encoder(inst, fold=True)
    _, err = enc.checked(lambda: enc.expr(cond, st, {}))
    return concrete(err) is True


def replay_setup(inst: Instance, values: tuple, where: str, kind: str) -> str:
    """Re-check a setup the explorer could not complete: with the slots it had computed
    (`values`, None where not yet), the failing part (`where`: "initial value of X", "init",
    "constraint" or "outcome") must fail the same way here. "" if it does, else what differs."""
    model = inst.model
    filled = list(values)
    for v in inst.vars:  # slots not computed yet are never read (initial values read earlier variables only)
        for j in range(v.count):
            if filled[v.offset + j] is None:
                filled[v.offset + j] = v.type.values(inst.nplayers, inst.nteams)[0]
    enc = Encoder(inst, fold=True)
    try:
        st = state_to_sym(inst, tuple(filled) + (0, 0, ()))
        if where.startswith("initial value of "):
            var = inst.var(where.removeprefix("initial value of "))
            fails = []
            for j in range(var.count):
                env = {var.info.index.binder.uid: j + var.index_base} if var.info.index else {}
                value, err = enc.checked(lambda: enc.expr(var.info.init, st, env))
                fails.append(err if kind == "evaluation-error" else z3.And(z3.Not(err), z3.Not(enc.in_type(var, value))))
            ok = concrete(or_all(fails)) is True
        elif where in ("init", "constraint"):
            conds = list(model.inits) + ([d for d in model.constraints
                                          if not any(isinstance(n, T.VarRef) and n.static for n in T.walk(d.cond))]
                                         if where == "constraint" else [])
            before, fails = TRUE, []
            for d in conds:  # each is evaluated only while the ones before it held
                value, err = enc.checked(lambda: enc.expr(d.cond, st, {}), before)
                fails.append(err)
                before = z3.And(before, value)
            ok = concrete(or_all(fails)) is True
        else:
            after, _, _ = settle(enc, st)
            ok = concrete(after.overflow if kind == "overflow" else after.error) is True
    except Unsupported as exc:
        return f"not replayed: {exc}"
    return "" if ok else f"the setup does not fail in the replay ({where})"


def statement_hits(inst: Instance, st: SymState) -> set[int]:
    """The tagged statements (and routines) that applied in a concrete step, as rule ids."""
    return {r for r, c in st.hits.items() if concrete(c) is True}


def _compare_hits(inst: Instance, st: SymState, explicit_hits) -> str:
    kinds = ("statement", "routine", "trigger", "phase", "game")  # phases and a match's game results run as statements
    mine = {r for r in explicit_hits if inst.model.rules[r].kind in kinds}
    theirs = statement_hits(inst, st)
    if mine == theirs:
        return ""
    def show(rids):
        return ", ".join(f"{inst.model.rules[r].kind} at {inst.model.rules[r].span.line}:{inst.model.rules[r].span.col}"
                         for r in sorted(rids)) or "none"
    return f"the rules applied differ: the explorer has {show(mine - theirs)}, the replay {show(theirs - mine)}"


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
                return f"{key} is {got} in the replay but {want} in the explorer"
    k = inst.nslots
    n, nt = inst.nplayers, inst.nteams
    out = sum(1 << p for p in range(n) if concrete(st.out[p]))
    if out != post[k] & ((1 << n) - 1):
        return "players out of the game differ"
    for why, (ps, ts) in enumerate(((st.rd, st.trd), (st.rw, st.trw), (st.rx, st.trx)), 1):
        got = (sum(1 << p for p in range(n) if concrete(ps[p])), sum(1 << t for t in range(nt) if concrete(ts[t])))
        if got != ((post[k] >> (why * n)) & ((1 << n) - 1), (post[k + 1] >> (why * nt)) & ((1 << nt) - 1)):
            return "why players or teams are out of the game differs"
    end = post[-1]
    is_end, is_gap = concrete(ended), concrete(gap)
    if bool(end and end[0] != "gap") != bool(is_end):
        return "whether the game ended differs"
    if bool(end and end[0] == "gap") != bool(is_gap):
        return "whether the game must be over differs"
    if end and end[0] != "gap":
        # winners who left while the game went on are winners of the game too
        wp = sum(1 << p for p in range(inst.nplayers) if concrete(or2(st.wp[p], st.rw[p])))
        wt = sum(1 << t for t in range(inst.nteams) if concrete(or2(st.wt[t], st.trw[t])))
        if (wp, wt, bool(concrete(st.draw))) != (end[0], end[1], end[2]):
            return "the winners differ"
    return ""


# ---------------------------------------------------------------- static contradictions

def contradiction(inst: Instance, timeout_ms: int = 10_000):
    """None if setup and constraints are satisfiable; else ("unsat", [(declaration, what)] in a
    minimal core) or ("unknown", reason). `timeout_ms` bounds the whole check, core shrinking
    included: each solver call gets what is left of it."""
    return _setup_core(inst, None, timeout_ms)


def impossible(inst: Instance, cond, timeout_ms: int = 10_000, env: dict | None = None):
    """A `possible` property: None if some setup that satisfies every type, initial value, init
    and constraint also satisfies `cond`; else ("unsat", [(declaration, what)]: a minimal set of
    setup rules that rule `cond` out) or ("unknown", reason). `cond` itself is always asserted,
    never part of the core (it is what is being asked about). `env` binds the property's
    parameters (binder uid -> value)."""
    return _setup_core(inst, cond, timeout_ms, env or {})


def _setup_core(inst: Instance, asked, timeout_ms: int, bound: dict | None = None):
    deadline = time.monotonic() + timeout_ms / 1000

    def left() -> int:
        return max(1, int((deadline - time.monotonic()) * 1000))

    enc = Encoder(inst)
    s = z3.Solver()
    s.set(unsat_core=True)
    tracked = {}
    labels = []

    def track(decl, formula, what):
        label = z3.Bool(f"t{len(tracked)}")
        tracked[label.get_id()] = (decl, what)
        labels.append(label)
        s.add(z3.Implies(label, formula))

    st = _setup_rules(inst, enc, track)
    if asked is not None:  # a `possible` property: asked of every setup, never in a core
        value, err = enc.checked(lambda: enc.expr(asked, st, bound or {}))
        s.add(z3.Not(err), value)
    s.set(timeout=left())
    r = s.check(*labels)
    if r == z3.sat:
        return None
    if r == z3.unknown:
        return ("unknown", s.reason_unknown())
    core = list(s.unsat_core())
    i = 0  # shrink the core to a minimal one: drop members while it stays unsat
    while i < len(core):
        trial = core[:i] + core[i + 1:]
        s.set(timeout=left())  # once time is up, each call answers unknown at once: the core stays as it is
        if s.check(*trial) == z3.unsat:
            core = trial
        else:
            i += 1
    seen, out = set(), []
    core.sort(key=lambda lit: (tracked[lit.get_id()][0].span, tracked[lit.get_id()][1]))  # same order for every instance
    for lit in core:
        item = tracked[lit.get_id()]
        key = (id(item[0]), item[1])
        if key not in seen:
            seen.add(key)
            out.append(item)
    return ("unsat", out)


def _setup_rules(inst: Instance, enc: Encoder, add) -> SymState:
    """What a setup must satisfy, each rule as `add(declaration, formula, what)`: every static
    choice and variable in its type, every variable equal to its initial value (without an
    evaluation error), every `init` and `constraint`. The state holds fresh terms for the
    variables (the static choices are in `enc.static`)."""
    for name, var in inst.static_choices.items():
        if var.type.kind == "set":
            raise Unsupported("set-valued choices")
        terms = [fresh_value(inst, var, f"{name}_{j}") for j in range(var.count)]
        enc.static[name] = terms
        for t in terms:
            add(var.info, enc.in_type(var, t), f"the type of {name}")
    st = SymState({}, [FALSE] * inst.nplayers, [FALSE] * inst.nteams)
    for v in inst.vars:
        terms = [fresh_value(inst, v, f"{v.name}_{j}") for j in range(v.count)]
        st.vals[v.name] = terms
        for j, t in enumerate(terms):
            add(v.info, enc.in_type(v, t), f"the type of {v.name}")
            if v.info.init is not None:
                env = {v.info.index.binder.uid: j + v.index_base} if v.info.index else {}
                value, err = enc.checked(lambda: enc.expr(v.info.init, st, env))
                add(v.info, z3.And(z3.Not(err), equal(t, value)), f"the initial value of {v.name}")
    for d in inst.model.inits + inst.model.constraints:
        value, err = enc.checked(lambda: enc.expr(d.cond, st, {}))
        add(d, z3.And(z3.Not(err), value), f"`{d.name}`")
    return st


def setups(inst: Instance, limit: int, timeout_ms: int = 10_000):
    """The variables' values of every setup Z3 finds (each a tuple of slots, laid out as the
    explorer's states are), the static choices being whatever completes them: what the
    explorer's initial states must be before outcome resolution. None when there are more
    than `limit`, or Z3 cannot tell within `timeout_ms` (the whole enumeration)."""
    deadline = time.monotonic() + timeout_ms / 1000
    enc = Encoder(inst)
    s = z3.Solver()
    st = _setup_rules(inst, enc, lambda decl, formula, what: s.add(formula))
    terms = [t for v in inst.vars for t in st.vals[v.name]]
    out: set[tuple] = set()
    while True:
        s.set(timeout=max(1, int((deadline - time.monotonic()) * 1000)))
        r = s.check()
        if r == z3.unsat:
            return out
        if r == z3.unknown or len(out) >= limit:
            return None
        m = s.model()
        values = tuple(_slot_value(m, t) for t in terms)
        out.add(values)
        s.add(z3.Or(*[z3.Not(equal(t, _slot_term(t, x))) for t, x in zip(terms, values)]) if terms else FALSE)


def _slot_value(m, t):
    """A variable's slot in a model, as the explorer holds it (a set of players is a mask)."""
    if isinstance(t, SymSet):
        return sum(1 << p for p, e in enumerate(t.elems) if z3.is_true(m.eval(e, model_completion=True)))
    v = m.eval(t, model_completion=True)
    return z3.is_true(v) if z3.is_bool(v) else v.as_long()


def _slot_term(t, x):
    """A concrete slot `x` as a term comparable with the variable's term `t`."""
    if isinstance(t, SymSet):
        return SymSet([z3.BoolVal(bool(x >> p & 1)) for p in range(len(t.elems))], t.kind)
    return z3.BoolVal(x) if isinstance(x, bool) else z3.IntVal(x)


def setup_admits(inst: Instance, state: tuple, timeout_ms: int = 10_000) -> str:
    """Re-check that the setup admits the concrete initial `state`: every variable in its type
    and equal to its initial value, every init and constraint holding, for some value of the
    static choices. "" if it does, "not replayed: why" if Z3 cannot tell, else what fails."""
    enc = Encoder(inst)
    model = inst.model
    s = z3.Solver()
    try:
        for name, var in inst.static_choices.items():
            if var.type.kind == "set":
                raise Unsupported("set-valued choices")
            terms = [fresh_value(inst, var, f"{name}_{j}") for j in range(var.count)]
            enc.static[name] = terms
            s.add(*[enc.in_type(var, t) for t in terms])
        st = state_to_sym(inst, state)
        for v in inst.vars:
            for j, t in enumerate(st.vals[v.name]):
                if concrete(enc.in_type(v, t)) is False:
                    return f"{v.name} is outside its type"
                if v.info.init is not None:
                    env = {v.info.index.binder.uid: j + v.index_base} if v.info.index else {}
                    value, err = enc.checked(lambda: enc.expr(v.info.init, st, env))
                    s.add(z3.Not(err), equal(t, value))
        for d in model.inits + model.constraints:
            value, err = enc.checked(lambda: enc.expr(d.cond, st, {}))
            s.add(z3.Not(err), value)
    except Unsupported as exc:
        return f"not replayed: {exc}"
    s.set(timeout=max(1, timeout_ms))
    r = s.check()
    if r == z3.sat:
        return ""
    if r == z3.unknown:
        return f"not replayed: Z3 says unknown ({s.reason_unknown()})"
    return "the setup rules do not admit this initial state"


# ---------------------------------------------------------------- bounded model checking

class _Frame:
    """Fresh symbols for one step of a bounded path."""

    def __init__(self, inst: Instance, i: int):
        vals = {v.name: [fresh_value(inst, v, f"{v.name}_{j}@{i}") for j in range(v.count)] for v in inst.vars}
        n, nt = inst.nplayers, inst.nteams
        results = tuple([z3.Bool(f"{r}_{x}@{i}") for x in range(n if r[0] == "r" else nt)] for r in SymState.RESULTS)
        self.st = SymState(vals, [z3.Bool(f"out_{p}@{i}") for p in range(n)],
                           [z3.Bool(f"tout_{t}@{i}") for t in range(nt)], results)
        self.wp = [z3.Bool(f"wp_{p}@{i}") for p in range(inst.nplayers)]
        self.wt = [z3.Bool(f"wt_{t}@{i}") for t in range(inst.nteams)]
        self.draw = z3.Bool(f"draw@{i}")
        self.ended = z3.Bool(f"ended@{i}")
        self.gap = z3.Bool(f"gap@{i}")

    def equals(self, st: SymState, ended, gap):
        eqs = []
        for k, terms in self.st.vals.items():
            eqs += [equal(a, b) for a, b in zip(terms, st.vals[k])]
        eqs += [a == b for a, b in zip(self.st.out, st.out)]
        eqs += [a == b for a, b in zip(self.st.tout, st.tout)]
        for r in SymState.RESULTS:
            eqs += [a == b for a, b in zip(getattr(self.st, r), getattr(st, r))]
        # the end marker's winners: those of this step and those who left as winners before
        eqs += [a == or2(b, c) for a, b, c in zip(self.wp, st.wp, st.rw)]
        eqs += [a == or2(b, c) for a, b, c in zip(self.wt, st.wt, st.trw)]
        eqs += [self.draw == st.draw, self.ended == ended, self.gap == gap]
        return z3.And(*eqs)


class BMC:
    """The transition relation unrolled step by step, for bounded queries."""

    def __init__(self, inst: Instance):
        self.inst = inst
        self.enc = Encoder(inst)
        self.actions = list(inst.model.actions)
        self.solver = z3.Solver()
        self.frames = [_Frame(inst, 0)]
        self._cache: dict[int, list] = {}  # frame id -> its options (the frames live as long as self)
        self._initial()

    def _initial(self):
        enc, inst = self.enc, self.inst
        raw = SymState({v.name: [fresh_value(inst, v, f"{v.name}_{j}@init") for j in range(v.count)] for v in inst.vars},
                       [FALSE] * inst.nplayers, [FALSE] * inst.nteams)
        s = self.solver
        for v in inst.vars:
            for j, t in enumerate(raw.vals[v.name]):
                s.add(enc.in_type(v, t))
                if v.info.init is not None:
                    env = {v.info.index.binder.uid: j + v.index_base} if v.info.index else {}
                    value, err = enc.checked(lambda: enc.expr(v.info.init, raw, env))
                    s.add(z3.Not(err), equal(t, value))
        for d in inst.model.inits:
            value, err = enc.checked(lambda: enc.expr(d.cond, raw, {}))
            s.add(z3.Not(err), value)
        # constraints on choices the play never reads are the contradiction check's, as in the explorer
        for d in inst.model.constraints:
            if not any(isinstance(n, T.VarRef) and n.static for n in T.walk(d.cond)):
                value, err = enc.checked(lambda: enc.expr(d.cond, raw, {}))
                s.add(z3.Not(err), value)
        # a setup whose outcome rules or triggers fail is no initial state (the explorer's setup error)
        st, ended, gap = settle(enc, raw.copy())
        s.add(z3.Not(st.error), z3.Not(st.overflow), self.frames[0].equals(st, ended, gap))

    def _bindings(self, params, st, env, conds, failures):
        """(env, conditions) for every binding; a domain that can fail adds (the conditions of
        the arguments bound before it, its error) to `failures`, as the explorer records a
        failing step for it, and its own values count only where it has one."""
        if not params:
            yield dict(env), list(conds)
            return
        b, dom = params[0]
        cands, err = self.enc.checked(lambda: self.enc.candidates(dom, st, env))
        if not z3.is_false(err):
            failures.append(z3.And(*conds, err))
            conds = conds + [z3.Not(err)]
        for v, c in cands:
            yield from self._bindings(params[1:], st, {**env, b.uid: v}, conds + [c], failures)

    def _options(self, f: _Frame):
        """(action, enabled, fails, post, ended, gap) for every binding from frame f: `enabled`
        when the step goes through, `fails` when the explorer would record a failing step
        (`post` is None for a parameter's domain that has no value)."""
        if id(f) in self._cache:
            return self._cache[id(f)]
        enc = self.enc
        out = self._cache[id(f)] = []
        for d in self.actions:
            failures: list = []
            for env, conds in self._bindings(d.params, f.st, {}, [], failures):
                guard, guard_err = enc.checked(lambda: enc.expr(d.guard, f.st, env))
                base = SymState(f.st.vals, f.st.out, f.st.tout,  # the same state, no facts of this step yet
                                tuple(getattr(f.st, r) for r in SymState.RESULTS))
                post = enc.stmts(d.body, base, env)
                body_fail = z3.Or(post.error, post.overflow)
                post, ended, gap = settle(enc, post)
                body_fail = z3.Or(body_fail, post.overflow)  # a trigger's assignment may overflow too
                taken = z3.And(*conds, guard, z3.Not(guard_err))
                fails = z3.And(*conds, z3.Or(guard_err, z3.And(guard, z3.Not(guard_err), z3.Or(body_fail, post.error))))
                out.append((d, z3.And(taken, z3.Not(body_fail), z3.Not(post.error)), fails, post, ended, gap))
            out.extend((d, FALSE, bad, None, None, None) for bad in failures)
        return out

    def extend(self):
        """Add the next frame and the transition relation into it."""
        f = self.frames[-1]
        g = _Frame(self.inst, len(self.frames))
        steps = [z3.And(ok, g.equals(post, ended, gap)) for _, ok, _, post, ended, gap in self._options(f) if post is not None]
        self.solver.add(z3.Not(f.ended), z3.Not(f.gap), or_all(steps))
        self.frames.append(g)

    def stuck(self, f: _Frame):
        """No game action goes through and none fails: the explorer's deadlock."""
        opts = self._options(f)
        moves = or_all([ok for d, ok, _, _, _, _ in opts if not d.leave])
        fails = or_all([bad for _, _, bad, _, _, _ in opts])
        return z3.And(z3.Not(f.ended), z3.Not(f.gap), z3.Not(moves), z3.Not(fails))

    def reachable_outcomes(self, depth: int):
        """Every (winning players mask, winning teams mask, draw) reachable within `depth` steps,
        whether a gap is, and whether a deadlock is."""
        outcomes, gaps, deadlock = set(), False, False
        for i in range(depth + 1):
            if i > 0:
                self.extend()
            f = self.frames[i]
            s = self.solver
            s.push()
            s.add(f.ended)
            while s.check() == z3.sat:
                m = s.model()
                wp = sum(1 << p for p, b in enumerate(f.wp) if z3.is_true(m.eval(b, model_completion=True)))
                wt = sum(1 << t for t, b in enumerate(f.wt) if z3.is_true(m.eval(b, model_completion=True)))
                dr = z3.is_true(m.eval(f.draw, model_completion=True))
                outcomes.add((wp, wt, dr))
                s.add(z3.Not(z3.And(*[b == bool(wp >> p & 1) for p, b in enumerate(f.wp)],
                                    *[b == bool(wt >> t & 1) for t, b in enumerate(f.wt)], f.draw == dr)))
            s.pop()
            if not gaps:
                s.push()
                s.add(f.gap)
                gaps = s.check() == z3.sat
                s.pop()
            if not deadlock:
                s.push()
                s.add(self.stuck(f))
                deadlock = s.check() == z3.sat
                s.pop()
        return outcomes, gaps, deadlock
