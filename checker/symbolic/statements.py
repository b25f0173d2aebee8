"""Encoding, continued: the typed IR's statements as a change of `SymState`, a mixin of
`encode.Encoder` kept apart only for size.

A statement takes the state before it and returns the state after it; where a condition
decides between two bodies, both are encoded and `merge`d under it, so the result holds every
path at once (the replay of a trace folds the conditions first and encodes only the taken one).
An expression a statement reads can fail: its errors go to the state's `error` condition.
"""
from __future__ import annotations

from ..frontend import typed as T
from ..frontend.instances import Var
from .terms import FACT, SymSet, SymState, and_, concrete, decided, is_false, merge, not_, or_, or_all, sym_if


def value_range(t, nplayers: int, nteams: int) -> tuple[int, int] | None:
    """(lowest, highest) of the integer that stands for a value of type `t` (a player or a
    team by its index, -1 for none where optional; an enum's member by its index); None where
    the type is no single integer (Booleans, sets)."""
    if t.kind == "int":
        return t.low, t.high
    if t.kind == "player":
        return -1 if t.optional else 0, nplayers - 1
    if t.kind == "team":
        return -1 if t.optional else 0, nteams - 1
    if t.kind == "enum":
        return 0, len(t.members) - 1
    return None


class Statements:
    """`stmts` and the statement kinds; reads the encoder's `expr`, `candidates`, `checked`, `lit` and
    `stmt_handler` (its dispatch table, checked complete at import)."""

    def action_body(self, decl, st: SymState, env) -> SymState:
        """The state after an action's statements, with who acts in it (its `by` parameter, the
        cause the triggers `on ... by q` are bound to): what every step of Z3 starts settling."""
        after = self.stmts(decl.body, st, env)
        if decl.actor is not None:
            after.actor = env[decl.actor.uid]
        return after

    def stmts(self, body, st: SymState, env) -> SymState:
        for s in body:
            if isinstance(s, T.LetStmt):  # a local name: later statements of the block read this value
                st = st.copy()
                if s.rule is not None:
                    st.hits[s.rule] = self.T
                value = self.errors_into(st, lambda s=s: self.expr(s.value, st, env))
                env = {**env, s.binder.uid: value}
                continue
            st = self.stmt(s, st, env)
        return st

    def errors_into(self, st: SymState, fn, path=None):
        """Run fn() (which encodes expressions read by a statement); its errors go to st.error."""
        value, err = self.checked(fn, path)
        if not is_false(err):
            st.error = or_(st.error, err)
        return value

    def stmt(self, s, st, env) -> SymState:
        if s.rule is not None and not isinstance(s, T.If):  # a tagged `if` applies when a branch is taken (below)
            st = st.copy()
            st.hits[s.rule] = self.T
        return self.stmt_handler(s)(self, s, st, env)

    def s_Block(self, s: T.Block, st: SymState, env) -> SymState:
        return self.stmts(s.body, st, env)  # names bound inside end with it: stmts() keeps them in its own env

    def s_Assign(self, s: T.Assign, st: SymState, env) -> SymState:
        st = st.copy()
        var = self.inst.var(s.var)
        v = self.errors_into(st, lambda: self.expr(s.value, st, env))
        ok = self.in_type(var, v)
        if s.index is None:
            st.vals[s.var][0] = v
        else:
            i = self.errors_into(st, lambda: self.expr(s.index, st, env)) - var.index_base
            slots = st.vals[s.var]
            ci = concrete(i)
            st.error = or_(st.error, or_(i < 0, i >= len(slots)))
            st.vals[s.var] = [(v if ci == j else old) if ci is not None else sym_if(i == j, v, old)
                              for j, old in enumerate(slots)]
        st.overflow = or_(st.overflow, not_(ok))
        return st

    def s_If(self, s: T.If, st: SymState, env) -> SymState:
        st = st.copy()
        conds, before = [], self.T
        for c, _ in s.branches:  # a condition is only evaluated when the ones before it were false
            value = self.lit(self.errors_into(st, lambda c=c: self.expr(c, st, env), before))
            conds.append(value)
            if decided(value):  # the branches after a condition that holds are never reached
                break
            before = and_(before, not_(value))
        chosen = len(conds) - 1 if conds and decided(conds[-1]) else None
        out = self.stmts(s.otherwise if chosen is None else s.branches[chosen][1], st, env)
        for c, (_, body) in reversed(list(zip(conds[:chosen], s.branches))):
            if decided(c) is not False:  # a branch whose condition is false changes nothing
                out = merge(c, self.stmts(body, st, env), out)
        if s.rule is not None:  # as the explorer: an `else` with statements is a branch too
            taken = self.T if s.otherwise else or_all(conds)
            out.hits[s.rule] = or_(out.hits.get(s.rule, self.F), taken)
        return out

    def s_Forall(self, s: T.Forall, st: SymState, env) -> SymState:
        st = st.copy()
        cands = self.errors_into(st, lambda: self.candidates(s.domain, st, env))
        for v, c in cands:
            c = self.lit(c)
            if decided(c) is not False:
                st = merge(c, self.stmts(s.body, st, {**env, s.binder.uid: v}), st)
        return st

    def s_OutcomeStmt(self, s: T.OutcomeStmt, st: SymState, env) -> SymState:
        st = st.copy()
        if s.kind in ("draw", "finish") and s.subject is None:
            setattr(st, "draw" if s.kind == "draw" else "fin", self.T)
            return st
        x = self.errors_into(st, lambda: self.expr(s.subject, st, env))
        team = s.subject.type.kind == "team"
        attr = FACT[s.kind] + ("t" if team else "p")
        setattr(st, attr, [or_(c, x == j) for j, c in enumerate(getattr(st, attr))])
        return st

    def s_SignalStmt(self, s: T.SignalStmt, st: SymState, env) -> SymState:
        st = st.copy()
        at, size = self.signals[s.event]
        if s.subject is None:
            st.sg[at] = self.T
            return st
        x = self.errors_into(st, lambda: self.expr(s.subject, st, env))
        for j in range(size):
            st.sg[at + j] = or_(st.sg.get(at + j, self.F), x == j)
        return st

    def in_type(self, var: Var, v):
        """The condition that `v` is a value of `var`'s type (sets: always)."""
        span = None if isinstance(v, SymSet) else value_range(var.type, self.n, self.nt)
        if span is None:
            return self.T
        # (an index is bounded by a strict `<`, as it always was: Z3's search, and so the
        # invariants Spacer finds, follow the form of the terms it is given)
        return and_(v >= span[0], v <= span[1] if var.type.kind == "int" else v < span[1] + 1)
