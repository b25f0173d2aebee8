"""Encoding: the typed IR's expressions as Z3 terms over a `SymState`, the `Encoder` every
later pass (setup, replay, bmc) builds its formulas with, and outcome resolution with the
triggers' rounds after a step's body. Statements and the built-in functions are its mixins
(`statements.py`, `builtins.py`), kept apart only for size: one class, one set of paths and
errors.

Quantifiers range over concrete candidates with a membership condition, so every binder is a
Python int and the seating functions are evaluated exactly. Evaluation errors (division by
zero, an index outside its range, none as a player) are conditions collected under the path
that reaches them: `and`, `or`, `implies`, `if` and the quantifiers evaluate as far as the
explorer does and no further.
"""
from __future__ import annotations

from contextlib import contextmanager, nullcontext

import z3

from ..frontend import builtins as bi
from ..frontend import typed as T
from ..frontend.instances import Instance
from .builtins import Builtins
from .statements import Statements
from .terms import (FACT, FALSE, TRUE, SymSet, SymState, Unsupported, concrete, decided, lost, merge, or2, or_all,
                    sym_if, to_term)


class Encoder(Statements, Builtins):
    """The semantics of one instance over terms: `expr` gives an expression's term, `stmts` a
    body's state after it (statements.py), `b_<key>` each built-in (builtins.py); the errors
    met go into `errs` under the current `path`."""

    def __init__(self, inst: Instance, fold: bool = False):
        self.inst = inst
        # `fold`: every input is concrete (the replay of a trace), so comparisons, arithmetic and
        # conditions are simplified to literals as they are built, and a branch, operand or
        # element that a decided condition rules out is not encoded at all. The result is the
        # same; only the terms built for nothing are not (they were most of a replay's time).
        self.fold = fold
        self.model = inst.model
        self.n = inst.nplayers
        self.nt = inst.nteams
        self.static: dict[str, list] = {}  # static choice name -> its terms
        self.path = TRUE  # the condition under which the expression being encoded is evaluated
        self.errs: list = []  # error conditions met so far (each already under its path)
        self._fails: dict[int, bool] = {}  # id(node) -> can_fail(node); the model outlives the encoder

    # ------------------------------------------------------------ errors and paths
    def fail(self, cond) -> None:
        self.errs.append(z3.And(self.path, cond))

    def can_fail(self, e) -> bool:
        """Whether evaluating `e` can meet an evaluation error; paths are only built for those."""
        key = id(e)
        if key not in self._fails:
            self._fails[key] = any(
                isinstance(n, T.Narrow) or isinstance(n, T.Arith) and n.op in ("/", "%")
                or isinstance(n, T.VarRef) and n.index is not None and n.index.type.kind == "int"
                or isinstance(n, T.Call) and n.func == "after"
                or isinstance(n, T.Aggregate) and n.kind in ("argmin", "argmax")  # of no values
                for n in T.walk(e))
        return self._fails[key]

    @contextmanager
    def under(self, cond):
        saved = self.path
        self.path = z3.And(saved, cond) if not z3.is_true(saved) else cond
        try:
            yield
        finally:
            self.path = saved

    def checked(self, fn, path=TRUE):
        """(fn's result, the error condition it met), with a fresh error list under `path`."""
        saved_path, saved_errs = self.path, self.errs
        self.path, self.errs = path, []
        try:
            value = fn()
            return value, z3.simplify(or_all(self.errs)) if self.errs else FALSE  # most meet none
        finally:
            self.path, self.errs = saved_path, saved_errs

    def lit(self, x):
        """x as a literal where the encoder folds (see __init__); unchanged otherwise."""
        return z3.simplify(x) if self.fold and isinstance(x, z3.ExprRef) else x

    # ------------------------------------------------------------ expressions
    def expr(self, e, st: SymState, env: dict):
        return getattr(self, "z_" + type(e).__name__)(e, st, env)

    def z_Const(self, e, st, env):
        return to_term(e.value)

    def z_PlayerName(self, e, st, env):
        return z3.IntVal(self.inst.players.index(e.name))

    def z_TeamName(self, e, st, env):
        return z3.IntVal(self.inst.teams.index(e.name))

    def z_Param(self, e, st, env):
        return z3.IntVal(self.inst.params[e.name])

    def z_BinderRef(self, e, st, env):
        return to_term(env[e.uid])

    def index_base(self, name) -> int:
        var = self.inst.var(name) or self.inst.static_choices.get(name)
        return var.index_base

    def slots(self, name, st):
        if name in self.static:
            return self.static[name]
        if st is None or name not in st.vals:
            raise Unsupported(f"variable {name} outside a state")
        return st.vals[name]

    def z_VarRef(self, e, st, env):
        base = self.slots(e.name, st)
        if e.index is None:
            return base[0]
        i = self.expr(e.index, st, env) - self.index_base(e.name)
        ci = concrete(i)
        if isinstance(ci, int) and not isinstance(ci, bool):
            if not 0 <= ci < len(base):
                self.fail(TRUE)
                return base[0]
            return base[ci]
        self.fail(z3.Or(i < 0, i >= len(base)))
        out = base[-1]
        for j in range(len(base) - 2, -1, -1):
            out = sym_if(i == j, base[j], out)
        return out

    def z_Narrow(self, e, st, env):
        v = self.expr(e.operand, st, env)
        self.fail(v < 0)
        return v

    def z_Not(self, e, st, env):
        return self.lit(z3.Not(self.expr(e.operand, st, env)))

    def z_Neg(self, e, st, env):
        return -self.expr(e.operand, st, env)

    def z_Logic(self, e, st, env):
        a = self.lit(self.expr(e.left, st, env))
        if self.fold and decided(a) is not None:
            # `false and b`, `true or b`, `false implies b`: the explorer does not evaluate b either
            if decided(a) is (e.op == "or"):
                return TRUE if e.op == "implies" else a
            return self.lit(self.expr(e.right, st, env))  # `true and b`, `false or b`, `true implies b`
        if self.can_fail(e.right):  # the right side is evaluated only where the explorer evaluates it
            with self.under(z3.Not(a) if e.op == "or" else a):
                b = self.expr(e.right, st, env)
        else:
            b = self.expr(e.right, st, env)
        if e.op == "and":
            return z3.And(a, b)
        if e.op == "or":
            return z3.Or(a, b)
        return z3.Implies(a, b)

    def z_Compare(self, e, st, env):
        a, b = self.expr(e.left, st, env), self.expr(e.right, st, env)
        if isinstance(a, SymSet):
            if a.kind == "int":
                same = z3.And(*[self.member(v, a) == self.member(v, b) for v in list(a.values) + list(b.values)])
            else:
                same = z3.And(*[x == y for x, y in zip(a.elems, b.elems)]) if a.elems else TRUE
            return same if e.op == "==" else z3.Not(same)
        a, b = to_term(a), to_term(b)
        return self.lit({"==": lambda: a == b, "!=": lambda: a != b, "<": lambda: a < b, "<=": lambda: a <= b,
                         ">": lambda: a > b, ">=": lambda: a >= b}[e.op]())

    def z_Arith(self, e, st, env):
        a, b = self.expr(e.left, st, env), self.expr(e.right, st, env)
        op = e.op
        if op == "+":
            return self.lit(a + b)
        if op == "-":
            return self.lit(a - b)
        if op == "*":
            return self.lit(a * b)
        self.fail(b == 0)
        q = floordiv(a, b)
        return self.lit(z3.If(b == 0, z3.IntVal(0), q if op == "/" else a - b * q))

    def z_SetOp(self, e, st, env):
        a, b = self.expr(e.left, st, env), self.expr(e.right, st, env)
        if a.kind == "int":
            return self._int_setop(e.op, a, b)
        if e.op == "union":
            return SymSet([z3.Or(x, y) for x, y in zip(a.elems, b.elems)], a.kind)
        return SymSet([z3.And(x, z3.Not(y)) for x, y in zip(a.elems, b.elems)], a.kind)

    def _int_setop(self, op, a: SymSet, b: SymSet) -> SymSet:
        values = list(a.values) + list(b.values)
        if op == "union":
            return SymSet(list(a.elems) + list(b.elems), "int", values)
        elems = [z3.And(c, z3.Not(self.member(v, b))) for v, c in zip(a.values, a.elems)]
        return SymSet(elems, "int", list(a.values))

    def member(self, x, s: SymSet):
        if s.kind == "int":
            return or_all([z3.And(c, x == v) for c, v in zip(s.elems, s.values)])
        return or_all([z3.And(c, x == i) for i, c in enumerate(s.elems)])

    def z_Member(self, e, st, env):
        r = self.member(self.expr(e.elem, st, env), self.expr(e.set, st, env))
        return z3.Not(r) if e.negated else r

    def z_Ite(self, e, st, env):
        c = self.lit(self.expr(e.cond, st, env))
        if self.fold and decided(c) is not None:
            return self.expr(e.then if decided(c) else e.other, st, env)
        if not self.can_fail(e):
            return sym_if(c, self.expr(e.then, st, env), self.expr(e.other, st, env))
        with self.under(c):
            a = self.expr(e.then, st, env)
        with self.under(z3.Not(c)):
            b = self.expr(e.other, st, env)
        return sym_if(c, a, b)

    def width(self, elem) -> int:
        return self.n if elem.kind == "player" else self.nt if elem.kind == "team" else len(elem.members)

    def z_SetLit(self, e, st, env):
        items = [self.expr(x, st, env) for x in e.items]
        elem = e.type.elem
        if elem.kind == "int":
            return SymSet([TRUE] * len(items), "int", items)
        return SymSet([or_all([v == i for v in items]) for i in range(self.width(elem))], elem.kind)

    def z_SetComp(self, e, st, env):
        picked = []  # (element value, condition under which it is in the set)
        for v, c in self.candidates(e.domain, st, env):
            inner = {**env, e.binder.uid: v}
            with self.under(c):  # as the explorer: cond only for elements of the domain, elem only where cond holds
                cond = self.expr(e.cond, st, inner)
            take = z3.And(c, cond)
            with self.under(take):
                x = self.expr(e.elem, st, inner)
            picked.append((x, take))
        elem = e.type.elem
        if elem.kind == "int":
            return SymSet([t for _, t in picked], "int", [to_term(x) for x, _ in picked])
        return SymSet([or_all([z3.And(t, x == i) for x, t in picked]) for i in range(self.width(elem))], elem.kind)

    def candidates(self, d, st, env):
        """[(value, condition)] for a domain, in the explorer's order."""
        if isinstance(d, T.RangeDom):
            lo, hi = concrete(self.expr(d.low, st, env)), concrete(self.expr(d.high, st, env))
            if lo is None or hi is None:
                raise Unsupported("range with bounds that depend on the state")
            return [(v, TRUE) for v in range(lo, hi + 1)]
        s = self.expr(d.set, st, env)
        if s.kind == "int":
            pairs = [(concrete(v), c) for v, c in zip(s.values, s.elems)]
            if any(v is None for v, _ in pairs):
                raise Unsupported("a set of numbers that depends on the state")
            merged: dict[int, list] = {}
            for v, c in pairs:
                merged.setdefault(v, []).append(c)
            return [(v, or_all(cs)) for v, cs in sorted(merged.items())]
        return [(i, c) for i, c in enumerate(s.elems)]

    def z_Quant(self, e, st, env):
        parts = []
        reached = TRUE  # the explorer stops at the first element that decides the quantifier
        fails = self.can_fail(e.body)
        for v, c in self.candidates(e.domain, st, env):
            c = self.lit(c)
            if self.fold and decided(c) is False:  # not an element: not evaluated
                continue
            if self.fold and decided(c):  # an element: the errors of its body are under the path reached
                with self.under(reached) if fails else nullcontext():
                    body = self.lit(self.expr(e.body, st, {**env, e.binder.uid: v}))
                if decided(body) is (e.kind == "exists") and decided(reached):  # it decides the quantifier
                    return body
                parts.append(body)
                if fails:
                    reached = self.lit(z3.And(reached, body if e.kind == "forall" else z3.Not(body)))
                continue
            if not fails:
                body = self.expr(e.body, st, {**env, e.binder.uid: v})
                parts.append(z3.Implies(c, body) if e.kind == "forall" else z3.And(c, body))
                continue
            with self.under(z3.And(reached, c)):
                body = self.expr(e.body, st, {**env, e.binder.uid: v})
            if e.kind == "forall":
                parts.append(z3.Implies(c, body))
                reached = z3.And(reached, z3.Implies(c, body))
            else:
                parts.append(z3.And(c, body))
                reached = z3.And(reached, z3.Not(z3.And(c, body)))
        if e.kind == "forall":
            return self.lit(z3.And(*parts)) if parts else TRUE
        return self.lit(or_all(parts))

    def z_Aggregate(self, e, st, env):
        cands = self.candidates(e.domain, st, env)
        vals = []
        fails = self.can_fail(e.body)
        for v, c in cands:
            if fails:
                with self.under(c):
                    vals.append((self.expr(e.body, st, {**env, e.binder.uid: v}), c))
            else:
                vals.append((self.expr(e.body, st, {**env, e.binder.uid: v}), c))
        if e.kind == "count":
            terms = [z3.If(z3.And(c, b), 1, 0) for b, c in vals]
            return z3.Sum(terms) if terms else z3.IntVal(0)
        if e.kind == "sum":
            terms = [z3.If(c, b, 0) for b, c in vals]
            return z3.Sum(terms) if terms else z3.IntVal(0)
        if e.kind in ("argmin", "argmax"):
            best, best_value, have = z3.IntVal(-1), None, FALSE
            for (val, c), (v, _) in zip(vals, cands):
                x = val if e.kind == "argmax" else -val
                take = z3.And(c, z3.Or(z3.Not(have), x > best_value)) if best_value is not None else c
                best = z3.If(take, z3.IntVal(v), best)
                best_value = x if best_value is None else z3.If(take, x, best_value)
                have = z3.Or(have, c)
            if e.type.kind != "player":
                self.fail(z3.Not(have))
            return best
        acc, have = None, FALSE  # min / max: 0 for an empty domain, as the explorer does
        for val, c in vals:
            if acc is None:
                acc = z3.If(c, val, 0)
            else:
                better = (val < acc) if e.kind == "min" else (val > acc)
                acc = z3.If(z3.And(c, z3.Or(z3.Not(have), better)), val, acc)
            have = z3.Or(have, c)
        return z3.IntVal(0) if acc is None else z3.If(have, acc, 0)

    def z_Call(self, e, st, env):
        args = [self.expr(a, st, env) for a in e.args]
        return getattr(self, "b_" + e.func)(e, args, st)

    # ------------------------------------------------------------ outcomes
    def _forbid(self, st: SymState, cannot):
        """Stratum 0, as the explorer's: per "cannot" rule, the subjects (in the game when the
        step began) it forbids a loss or a win; the step's statement facts for them are dropped.
        Returns {rule name: [forbidden, per subject]}."""
        masks = {}
        for k in cannot:
            team = k.subject == "team"
            done = st.tout if team else st.out
            fails = self.can_fail(k.cond)
            mask = []
            for x in range(len(done)):
                with self.under(z3.Not(done[x]) if fails else TRUE):
                    cond = self.expr(k.cond, st, {k.binder.uid: x})
                mask.append(z3.simplify(z3.And(z3.Not(done[x]), cond)))
            masks[k.name] = mask
            attr = ("l" if k.kind == "cannot_lose" else "w") + ("t" if team else "p")
            setattr(st, attr, [z3.And(f, z3.Not(m)) for f, m in zip(getattr(st, attr), mask)])
        return masks

    def _fixpoint(self, st: SymState, rules, ran, blocked=None, again=None):
        """The explorer's fixpoint. Facts only grow, so a pass after one that derived nothing
        derives nothing either: `ran` (whether the explorer runs a pass at all) only gates
        where evaluation errors count. Each subject is tried while it lacks the fact and is in
        the game. Returns whether any fact was derived."""
        if not rules:
            return FALSE
        todo = rules
        derived = []
        for _ in range(self._ground(rules) + 1):
            before = st.lp + st.wp + st.lt + st.wt + st.dp + st.dt + st.xp + st.xt + [st.draw, st.fin]
            fired = []
            for r in todo:
                fails = self.can_fail(r.cond)
                if r.subject is None:  # a draw of the whole game or a finish
                    attr = "draw" if r.kind == "draw" else "fin"
                    enabled = z3.Not(getattr(st, attr))
                    with self.under(z3.And(ran, enabled) if fails else TRUE):
                        cond = self.expr(r.cond, st, {})
                    fire = z3.simplify(z3.And(enabled, cond))
                    fired.append(fire)
                    setattr(st, attr, z3.simplify(z3.Or(getattr(st, attr), fire)))
                    continue
                team = r.subject == "team"
                attr = FACT[r.kind] + ("t" if team else "p")
                done = st.tout if team else st.out
                if again is not None and r.kind == "win":  # who lost earlier may win (same_step)
                    done = [z3.And(d, z3.Not(g)) for d, g in zip(done, again[team])]
                facts = getattr(st, attr)
                forbidden = (blocked or {}).get(r.name) or [FALSE] * len(facts)
                for x in range(len(facts)):
                    enabled = z3.simplify(z3.And(z3.Not(done[x]), z3.Not(facts[x]), z3.Not(forbidden[x])))
                    if z3.is_false(enabled):
                        continue
                    with self.under(z3.And(ran, enabled) if fails else TRUE):
                        cond = self.expr(r.cond, st, {r.binder.uid: x})
                    fired.append(z3.simplify(z3.And(enabled, cond)))
                    # without the "lacks the fact" part the facts come out the same when nothing changed
                    facts[x] = z3.simplify(z3.Or(facts[x], z3.And(z3.Not(done[x]), z3.Not(forbidden[x]), cond)))
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

    @staticmethod
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

    def _ground(self, rules) -> int:
        return sum(self.n if r.subject == "player" else self.nt if r.subject == "team" else 1 for r in rules)

    def settle(self, st: SymState):
        """Outcome resolution with the triggers' rounds (see `_settle`); (state, ended, gap)."""
        return _settle(self, st)

    def resolve(self, st: SymState):
        """Outcome resolution in the explorer's strata; returns (state, ended, gap) with the
        errors met added to st.error."""
        model = self.model
        # the first stratum: losses, draws of some players, leaving with no result
        losses = [r for r in model.outcomes if r.kind in ("lose", "leave") or r.kind == "draw" and r.subject]
        wins = [r for r in model.outcomes if r.kind == "win"]
        draws = [r for r in model.outcomes if r.kind in ("draw", "finish") and not r.subject]  # one stratum, as in the explorer
        loss_reads_won = any(r.reads_won for r in losses)
        out0, tout0 = list(st.out), list(st.tout)
        saved_path, saved_errs = self.path, self.errs
        self.path, self.errs = TRUE, []
        blocked = {}  # loss or win rule -> the subjects the "cannot" rules forbid it
        cannot = [r for r in model.outcomes if r.kind.startswith("cannot_")]
        if cannot:
            masks = self._forbid(st, cannot)
            exempt = set(model.exempt)
            for r in losses + wins:
                ks = [k for k in cannot if k.kind == "cannot_" + r.kind and k.subject == r.subject
                      and (r.name, k.name) not in exempt]
                if ks:
                    blocked[r.name] = [or_all([masks[k.name][x] for k in ks]) for x in range(len(masks[ks[0].name]))]
        again = None  # who lost earlier and may win (`precedence lose over win same_step`)
        if model.past_losers_win:
            again = ([lost(o, *r) for o, r in zip(out0, zip(st.rd, st.rw, st.rx))],
                     [lost(o, *r) for o, r in zip(tout0, zip(st.trd, st.trw, st.trx))])
        reasons0 = tuple(list(getattr(st, r)) for r in SymState.RESULTS)
        go = TRUE  # whether this round runs
        for round_ in range(self._ground(losses) + 1 if loss_reads_won else 1):
            st.out, st.tout = list(out0), list(tout0)
            changed = self._fixpoint(st, losses, go, blocked)
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
            self._fixpoint(st, wins, go, blocked, now)
            self._fixpoint(st, draws, go)
        st.out, st.tout = list(out0), list(tout0)
        for r, before in zip(SymState.RESULTS, reasons0):
            setattr(st, r, before)
        st.lp = [z3.And(a, z3.Not(o)) for a, o in zip(st.lp, out0)]
        keep_p = [z3.Not(o) for o in out0] if again is None else [z3.Or(z3.Not(o), g) for o, g in zip(out0, again[0])]
        keep_t = [z3.Not(o) for o in tout0] if again is None else [z3.Or(z3.Not(o), g) for o, g in zip(tout0, again[1])]
        st.wp = [z3.And(a, k) for a, k in zip(st.wp, keep_p)]
        st.lt = [z3.And(a, z3.Not(o)) for a, o in zip(st.lt, tout0)]
        st.wt = [z3.And(a, k) for a, k in zip(st.wt, keep_t)]
        for f, o0 in (("dp", out0), ("xp", out0), ("dt", tout0), ("xt", tout0)):
            setattr(st, f, [z3.And(a, z3.Not(o)) for a, o in zip(getattr(st, f), o0)])
        for w, l in model.precedence:
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
            _some_draw_precedence(st, w, l)
        plays_on = not model.after_win_ends
        ended = self._apply_results(st, plays_on)
        # why the game must be over, in the explorer's order: each test only where the ones before failed
        everyone_out = z3.And(*st.out)
        # everyone has left and someone won or drew on the way out: the game is over (a draw if nobody won)
        someone_won = or_all(st.rw + st.trw)
        closed = z3.And(z3.Not(ended), everyone_out, z3.Or(someone_won, or_all(st.rd + st.trd)))
        # the draw of a game everyone has left is the end's, not a draw fact of the step: no
        # `on draw` trigger fires for it, and a further round does not start from it (as the
        # explorer's end marker); `_settle` reads the fact from `draw_fact`
        st.draw_fact = st.draw
        st.draw = z3.Or(st.draw, z3.And(closed, z3.Not(someone_won)))
        ended = z3.Or(ended, closed)
        reasons = [everyone_out]
        for d in model.ends:
            with self.under(z3.And(z3.Not(ended), *[z3.Not(r) for r in reasons])):
                reasons.append(self.expr(d.cond, st, {}))
        sides = self.nt if self.inst.has_teams else self.n
        if model.last_side_ends and sides >= 2:
            if self.inst.has_teams:
                alive = [z3.And(z3.Not(st.tout[t]), or_all([z3.Not(st.out[p]) for p in range(self.n)
                                                         if self.inst.team_of[p] == t])) for t in range(self.nt)]
            else:
                alive = [z3.Not(o) for o in st.out]
            reasons.append(z3.Sum([z3.If(a, 1, 0) for a in alive]) <= 1)
        gap = z3.And(z3.Not(ended), or_all(reasons))
        st.error = z3.simplify(z3.Or(st.error, or_all(self.errs)))
        self.path, self.errs = saved_path, saved_errs
        return st, ended, gap


TRIGGER_EVENTS = ("lose_player", "lose_team", "win_player", "win_team", "draw", "finish")  # the order they fire


def _settle(enc: Encoder, st: SymState):
    """The explorer's settle (docs/language.md, "Events and triggers"), written over terms:
    resolve, then rounds of triggers and resolution while the round before ran a trigger. A
    round is a condition (`go`): under it the events of the round before fire their
    triggers, each (event, subject) once per step, in the explorer's order."""
    st.out0, st.tout0 = list(st.out), list(st.tout)
    st, ended, gap = enc.resolve(st)
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
        events = []
        for event in TRIGGER_EVENTS:
            if event not in on:
                continue
            for x, fact in enumerate(now[event]):
                before = seen[event][x] if event in seen else FALSE
                happens = z3.simplify(z3.And(go, fact, z3.Not(before), z3.Not(fired.get((event, x), FALSE))))
                if not z3.is_false(happens):
                    events.append((event, x, happens))
        if not events:
            break
        for event, x, happens in events:
            fired[(event, x)] = z3.simplify(z3.Or(fired.get((event, x), FALSE), happens))
        seen = {"win_player": list(st.wp), "win_team": list(st.wt), "draw": [draw], "finish": [st.fin]}
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
        if z3.is_false(ran):  # as the explorer: nothing ran, nothing changes (but a condition may have failed)
            st.error = z3.simplify(z3.Or(st.error, cur.error))
            break
        res, ended2, gap2 = enc.resolve(cur.copy())
        kept = st.copy()
        kept.error = z3.simplify(z3.Or(st.error, cur.error))
        st = merge(ran, res, kept)
        draw = sym_if(ran, res.draw_fact, draw)
        ended, gap = sym_if(ran, ended2, ended), sym_if(ran, gap2, gap)
        go = ran
    return st, ended, gap



def _some_draw_precedence(st: SymState, w: str, l: str) -> None:
    """The explorer's `_some_draw_precedence`: player by player, for the draws of some players."""
    pairs = {("lose", "draw"): (("dp", "lp"), ("dt", "lt")), ("draw", "lose"): (("lp", "dp"), ("lt", "dt")),
             ("win", "draw"): (("dp", "wp"), ("dt", "wt")), ("draw", "win"): (("wp", "dp"), ("wt", "dt"))}
    for dropped, by in pairs.get((w, l), ()):
        setattr(st, dropped, [z3.And(a, z3.Not(b)) for a, b in zip(getattr(st, dropped), getattr(st, by))])


def _reads_own(r: T.OutcomeRule) -> bool:
    """Whether a rule reads the facts its own stratum derives (a loss rule lost(), a win rule
    won()): only those can change within a fixpoint once every rule has been applied once."""
    own = {"lose": ("lost_player", "lost_team", "lost_now_player", "lost_now_team"),
           "win": ("won_player", "won_team")}.get(r.kind, ())


    departs = r.kind in ("lose", "leave") or r.kind == "draw" and r.subject
    own = ("won_player", "won_team") if r.kind == "win" else \
        ("lost_player", "lost_team", "drew_player", "drew_team") if departs else ()
    return any(isinstance(n, T.Call) and n.func in own for n in T.walk(r.cond))


def handled_builtins() -> set[str]:
    """The built-in keys this engine implements (a test compares them with the table)."""
    return {k for k in bi.BY_KEY if hasattr(Encoder, "b_" + k)}


def floordiv(a, b):
    """Python's floor division. Z3's integer division is Euclidean (the remainder is never
    negative), which agrees with Python for positive divisors but not for negative ones."""
    euclid = a / b
    return z3.If(z3.And(b < 0, a % b != 0), euclid - 1, euclid)
