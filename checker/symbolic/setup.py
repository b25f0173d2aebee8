"""Setups: what the setup rules (types, initial values, `init`s, `constraint`s) admit, asked
of Z3 before and beside exploration: whether any setup exists (`contradiction`, a minimal
unsat core of rules when none does), whether one satisfies a `possible` property
(`impossible`), every setup (`setups`, compared with the explorer's initial states), and
whether a concrete initial state is one (`setup_admits`, for `diff`).
"""
from __future__ import annotations

import time

import z3

from ..frontend.instances import Instance
from .encode import Encoder
from . import terms as _terms  # (_terms.TRUE and FALSE are rebound per instance: fresh_context)
from .terms import SymSet, SymState, Unsupported, concrete, equal, fresh_value, solve, state_to_sym


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
    r = solve(s, *labels)
    if r == z3.sat:
        return None
    if r == z3.unknown:
        return ("unknown", s.reason_unknown())
    core = list(s.unsat_core())
    i = 0  # shrink the core to a minimal one: drop members while it stays unsat
    while i < len(core):
        trial = core[:i] + core[i + 1:]
        s.set(timeout=left())  # once time is up, each call answers unknown at once: the core stays as it is
        if solve(s, *trial) == z3.unsat:
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
    st = SymState({}, [_terms.FALSE] * inst.nplayers, [_terms.FALSE] * inst.nteams)
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
        r = solve(s)
        if r == z3.unsat:
            return out
        if r == z3.unknown or len(out) >= limit:
            return None
        m = s.model()
        values = tuple(_slot_value(m, t) for t in terms)
        out.add(values)
        s.add(z3.Or(*[z3.Not(equal(t, _slot_term(t, x))) for t, x in zip(terms, values)]) if terms else _terms.FALSE)


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
    static choices. "" if it does, else what fails; raises Unsupported if Z3 cannot tell (the
    encoding cannot say, or Z3 answers unknown)."""
    enc = Encoder(inst)
    model = inst.model
    s = z3.Solver()
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
    s.set(timeout=max(1, timeout_ms))
    r = solve(s)
    if r == z3.sat:
        return ""
    if r == z3.unknown:
        raise Unsupported(f"Z3 says unknown ({s.reason_unknown()})")
    return "the setup rules do not admit this initial state"
