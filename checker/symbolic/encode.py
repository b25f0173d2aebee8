"""Encoding: the typed IR's expressions as Z3 terms over a `SymState`, the `Encoder` every
later pass (outcomes, setup, replay, bmc) builds its formulas with. Statements and the
built-in functions are its mixins (`statements.py`, `builtins.py`), kept apart only for size:
one class, one set of paths and errors.

Quantifiers range over concrete candidates with a membership condition, so every binder is a
Python int and the seating functions are evaluated exactly. Evaluation errors (division by
zero, an index outside its range, none as a player) are conditions collected under the path
that reaches them: `and`, `or`, `implies`, `if` and the quantifiers evaluate as far as the
explorer does and no further.
"""
from __future__ import annotations

import operator
from contextlib import contextmanager, nullcontext

import z3

from ..frontend import builtins as bi
from ..frontend import dispatch
from ..frontend import typed as T
from ..frontend.instances import Instance
from .builtins import Builtins
from .statements import Statements
from . import terms as _terms  # (_terms.TRUE and FALSE are rebound per instance: fresh_context)
from .terms import (SymSet, SymState, Unsupported, and_, concrete, decided, implies, is_false, is_true, ite,
                    int_val, literal, not_, or_, or_all, simp, solve, sum_, sym_if, to_term)

NEVER_RLIMIT = 2_000_000  # Z3's resource units for one `Encoder.never` (its questions take 100,000 at most in spec/)


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
        # Folded values are Python bools and ints (terms.py): `T`, `F` and `num` give the
        # constants of the encoding in the form its values take.
        self.fold = fold
        self.T, self.F = (True, False) if fold else (_terms.TRUE, _terms.FALSE)
        self.num = int if fold else int_val
        self.boolean = bool if fold else z3.BoolVal
        self.model = inst.model
        self.n = inst.nplayers
        self.nt = inst.nteams
        self.static: dict[str, list] = {}  # static choice name -> its terms
        self.signals = T.signal_slots(self.model.events, self.n, self.nt)  # declared event -> (first bit, size)
        self.path = self.T  # the condition under which the expression being encoded is evaluated
        self.errs: list = []  # error conditions met so far (each already under its path)
        self._fails: dict[int, bool] = {}  # id(node) -> can_fail(node); the model outlives the encoder

    # ------------------------------------------------------------ errors and paths
    def fail(self, cond) -> None:
        self.errs.append(and_(self.path, cond))

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
        self.path = and_(saved, cond) if not is_true(saved) else cond
        try:
            yield
        finally:
            self.path = saved

    def checked(self, fn, path=None):
        """(fn's result, the error condition it met), with a fresh error list under `path`
        (none: always)."""
        saved_path, saved_errs = self.path, self.errs
        self.path, self.errs = self.T if path is None else path, []
        try:
            value = fn()
            return value, simp(or_all(self.errs)) if self.errs else self.F  # most meet none
        finally:
            self.path, self.errs = saved_path, saved_errs

    def never(self, cond) -> bool:
        """Whether `cond` holds for no values at all (Z3 says unsat within `NEVER_RLIMIT`, a
        deterministic count of its work; unknown is "it may hold"). Where a round of the
        step's settling can derive something only under such a condition, the rounds after it
        change nothing: stopping there keeps the meaning and spares terms that grow with
        every round."""
        if is_false(cond):
            return True
        if self.fold or not isinstance(cond, z3.ExprRef) or is_true(cond):
            return False
        s = z3.Solver()  # a fresh one: the answer depends on the term alone, not on what was asked before
        s.set("rlimit", NEVER_RLIMIT)
        s.push()  # Z3's incremental core: far fewer resource units than its first-check tactic
        s.add(cond)
        return solve(s) == z3.unsat

    def lit(self, x):
        """x as a literal where the encoder folds (see __init__), a Python one when it simplifies
        to one; unchanged otherwise."""
        if not self.fold or not isinstance(x, z3.ExprRef):
            return x
        if x is _terms.TRUE or x is _terms.FALSE:
            return x is _terms.TRUE
        s = z3.simplify(x)
        if z3.is_true(s) or z3.is_false(s):
            return z3.is_true(s)
        return s.as_long() if z3.is_int_value(s) else s

    # ------------------------------------------------------------ expressions
    def expr(self, e, st: SymState, env: dict):
        return _EXPR[type(e)](self, e, st, env)

    def z_Const(self, e, st, env):
        return e.value if self.fold else to_term(e.value)

    def z_PlayerName(self, e, st, env):
        return self.num(self.inst.players.index(e.name))

    def z_TeamName(self, e, st, env):
        return self.num(self.inst.teams.index(e.name))

    def z_Param(self, e, st, env):
        return self.num(self.inst.params[e.name])

    def z_BinderRef(self, e, st, env):
        return env[e.uid] if self.fold else to_term(env[e.uid])

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
                self.fail(self.T)
                return base[0]
            return base[ci]
        self.fail(or_(i < 0, i >= len(base)))
        out = base[-1]
        for j in range(len(base) - 2, -1, -1):
            out = sym_if(i == j, base[j], out)
        return out

    def z_Narrow(self, e, st, env):
        v = self.expr(e.operand, st, env)
        self.fail(v < 0)
        return v

    def z_Not(self, e, st, env):
        return self.lit(not_(self.expr(e.operand, st, env)))

    def z_Neg(self, e, st, env):
        return -self.expr(e.operand, st, env)

    def z_Logic(self, e, st, env):
        a = self.lit(self.expr(e.left, st, env))
        if self.fold and decided(a) is not None:
            # `false and b`, `true or b`, `false implies b`: the explorer does not evaluate b either
            if decided(a) is (e.op == "or"):
                return self.T if e.op == "implies" else a
            return self.lit(self.expr(e.right, st, env))  # `true and b`, `false or b`, `true implies b`
        if self.can_fail(e.right):  # the right side is evaluated only where the explorer evaluates it
            with self.under(not_(a) if e.op == "or" else a):
                b = self.expr(e.right, st, env)
        else:
            b = self.expr(e.right, st, env)
        if e.op == "and":
            return and_(a, b)
        if e.op == "or":
            return or_(a, b)
        return implies(a, b)

    def z_Compare(self, e, st, env):
        a, b = self.expr(e.left, st, env), self.expr(e.right, st, env)
        if isinstance(a, SymSet):
            if a.kind == "int":
                same = and_(*[self.member(v, a) == self.member(v, b) for v in list(a.values) + list(b.values)])
            else:
                same = and_(*[x == y for x, y in zip(a.elems, b.elems)]) if a.elems else self.T
            return same if e.op == "==" else not_(same)
        if not isinstance(a, z3.ExprRef) and not isinstance(b, z3.ExprRef):  # folded: Python compares
            return _COMPARE[e.op](a, b)
        a, b = to_term(a), to_term(b)
        return self.lit({"==": lambda: a == b, "!=": lambda: a != b, "<": lambda: a < b, "<=": lambda: a <= b,
                         ">": lambda: a > b, ">=": lambda: a >= b}[e.op]())

    def z_Arith(self, e, st, env):
        a, b = self.expr(e.left, st, env), self.expr(e.right, st, env)
        op = e.op
        x, y = literal(a), literal(b)
        if x is not None and y is not None:
            # Numbers only (a `let` of parameters: `8000 / HITS`): computed here, as the explorer
            # does. Left to Z3, `n * (8000 / HITS)` is a product of two terms, which the ranking
            # and Spacer questions then read as nonlinear and cannot decide.
            if op in ("/", "%") and y == 0:
                self.fail(self.T)
                return self.num(0)
            return self.num(_ARITH[op](x, y))
        # `n * HIT` where the hit is 1 (life counted to the unit) is `n`, the term a spec
        # written without steps has: the searches over it then ask Z3 the same questions
        if op == "*" and (x == 1 or y == 1):
            return b if x == 1 else a
        if op in ("+", "-") and y == 0:
            return a
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
            return SymSet([or_(x, y) for x, y in zip(a.elems, b.elems)], a.kind)
        return SymSet([and_(x, not_(y)) for x, y in zip(a.elems, b.elems)], a.kind)

    def _int_setop(self, op, a: SymSet, b: SymSet) -> SymSet:
        values = list(a.values) + list(b.values)
        if op == "union":
            return SymSet(list(a.elems) + list(b.elems), "int", values)
        elems = [and_(c, not_(self.member(v, b))) for v, c in zip(a.values, a.elems)]
        return SymSet(elems, "int", list(a.values))

    def member(self, x, s: SymSet):
        if s.kind == "int":
            return or_all([and_(c, x == v) for c, v in zip(s.elems, s.values)])
        return or_all([and_(c, x == i) for i, c in enumerate(s.elems)])

    def z_Member(self, e, st, env):
        r = self.member(self.expr(e.elem, st, env), self.expr(e.set, st, env))
        return not_(r) if e.negated else r

    def z_Ite(self, e, st, env):
        c = self.lit(self.expr(e.cond, st, env))
        if self.fold and decided(c) is not None:
            return self.expr(e.then if decided(c) else e.other, st, env)
        if not self.can_fail(e):
            return sym_if(c, self.expr(e.then, st, env), self.expr(e.other, st, env))
        with self.under(c):
            a = self.expr(e.then, st, env)
        with self.under(not_(c)):
            b = self.expr(e.other, st, env)
        return sym_if(c, a, b)

    def width(self, elem) -> int:
        return self.n if elem.kind == "player" else self.nt if elem.kind == "team" else len(elem.members)

    def z_SetLit(self, e, st, env):
        items = [self.expr(x, st, env) for x in e.items]
        elem = e.type.elem
        if elem.kind == "int":
            return SymSet([self.T] * len(items), "int", items)
        return SymSet([or_all([v == i for v in items]) for i in range(self.width(elem))], elem.kind)

    def z_SetComp(self, e, st, env):
        picked = []  # (element value, condition under which it is in the set)
        for v, c in self.candidates(e.domain, st, env):
            inner = {**env, e.binder.uid: v}
            with self.under(c):  # as the explorer: cond only for elements of the domain, elem only where cond holds
                cond = self.expr(e.cond, st, inner)
            take = and_(c, cond)
            with self.under(take):
                x = self.expr(e.elem, st, inner)
            picked.append((x, take))
        elem = e.type.elem
        if elem.kind == "int":
            return SymSet([t for _, t in picked], "int", [to_term(x) for x, _ in picked])
        return SymSet([or_all([and_(t, x == i) for x, t in picked]) for i in range(self.width(elem))], elem.kind)

    def range_bounds(self, d, st, env) -> tuple[int, int] | None:
        """(low, high) of a range whose bounds are numbers here and raise no error (the replay
        and the wide arguments take such a range by its bounds, never listing it); else None."""
        (lo, hi), err = self.checked(lambda: (self.expr(d.low, st, env), self.expr(d.high, st, env)))
        lo, hi = concrete(lo), concrete(hi)
        numbers = isinstance(lo, int) and isinstance(hi, int) and not isinstance(lo, bool) and not isinstance(hi, bool)
        return (lo, hi) if numbers and concrete(err) is False else None

    def candidates(self, d, st, env):
        """[(value, condition)] for a domain, in the explorer's order."""
        if isinstance(d, T.RangeDom):
            lo, hi = concrete(self.expr(d.low, st, env)), concrete(self.expr(d.high, st, env))
            if lo is None or hi is None:
                raise Unsupported("range with bounds that depend on the state")
            return [(v, self.T) for v in range(lo, hi + 1)]
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
        reached = self.T  # the explorer stops at the first element that decides the quantifier
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
                    reached = self.lit(and_(reached, body if e.kind == "forall" else not_(body)))
                continue
            if not fails:
                body = self.expr(e.body, st, {**env, e.binder.uid: v})
                parts.append(implies(c, body) if e.kind == "forall" else and_(c, body))
                continue
            with self.under(and_(reached, c)):
                body = self.expr(e.body, st, {**env, e.binder.uid: v})
            if e.kind == "forall":
                parts.append(implies(c, body))
                reached = and_(reached, implies(c, body))
            else:
                parts.append(and_(c, body))
                reached = and_(reached, not_(and_(c, body)))
        if e.kind == "forall":
            return self.lit(and_(*parts)) if parts else self.T
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
            terms = [ite(and_(c, b), 1, 0) for b, c in vals]
            return sum_(terms) if terms else self.num(0)
        if e.kind == "sum":
            terms = [ite(c, b, 0) for b, c in vals]
            return sum_(terms) if terms else self.num(0)
        if e.kind in ("argmin", "argmax"):
            best, best_value, have = self.num(-1), None, self.F
            for (val, c), (v, _) in zip(vals, cands):
                x = val if e.kind == "argmax" else -val
                take = and_(c, or_(not_(have), x > best_value)) if best_value is not None else c
                best = ite(take, self.num(v), best)
                best_value = x if best_value is None else ite(take, x, best_value)
                have = or_(have, c)
            if e.type.kind != "player":
                self.fail(not_(have))
            return best
        acc, have = None, self.F  # min / max: 0 for an empty domain, as the explorer does
        for val, c in vals:
            if acc is None:
                acc = ite(c, val, 0)
            else:
                better = (val < acc) if e.kind == "min" else (val > acc)
                acc = ite(and_(c, or_(not_(have), better)), val, acc)
            have = or_(have, c)
        return self.num(0) if acc is None else ite(have, acc, 0)

    def z_Call(self, e, st, env):
        args = [self.expr(a, st, env) for a in e.args]
        return _BUILTIN[e.func](self, e, args, st)

    @staticmethod
    def stmt_handler(s):
        return _STMT[type(s)]


_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.floordiv, "%": operator.mod}
_EXPR = dispatch.by_kind(Encoder, "z_", T.EXPR_KINDS)
# a `let` statement binds a name for the statements after it, so the block walker (`stmts`) runs it
_STMT = dispatch.by_kind(Encoder, "s_", [k for k in T.STMT_KINDS if k is not T.LetStmt])
_BUILTIN = dispatch.by_builtin(Encoder, "b_", bi.BY_KEY)


_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def handled_builtins() -> set[str]:
    """The built-in keys this engine implements (a test compares them with the table)."""
    return set(_BUILTIN)


def floordiv(a, b):
    """Python's floor division. Z3's integer division is Euclidean (the remainder is never
    negative), which agrees with Python for positive divisors but not for negative ones."""
    euclid = a / b
    return z3.If(z3.And(b < 0, a % b != 0), euclid - 1, euclid)
