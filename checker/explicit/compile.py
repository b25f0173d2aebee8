"""The concrete semantics: typed IR compiled to Python closures for one instance.

The resolve pass has already looked every name up and checked every type, so this module only
decides how each node computes its value. `Machine` (checker.explicit.machine) runs the
closures; the symbolic engine (checker.symbolic) implements the same semantics independently,
and every reported trace is replayed there.

Values and the `Ctx` a closure takes are described in checker.explicit.values. `Compiler` is
three parts: the expressions here, the built-ins (`BuiltinClosures`, compile_builtins) and the
statements (`StatementClosures`, compile_stmts). The dispatch (`expr`, `stmt`) and its tables
stay here, built from the combined class and checked complete at import.
"""
from __future__ import annotations

from ..frontend import builtins as bi
from ..frontend import dispatch
from ..frontend import typed as T
from ..frontend.instances import Instance
from .compile_builtins import BuiltinClosures
from .compile_stmts import StatementClosures
# the values and run-time helpers, importable from here as they always were (machine, outcomes,
# traces, checks, the engine and the tests read them as compile.X)
from .values import (DREW, LEFT, WON, Ctx, EvalError, Overflow, after_in, after_shown,  # noqa: F401
                     best_of, dist_in_game, lost_mask, mask_of, popcount, result_mask, ring_step,
                     with_results)


def _le(a, b):
    return a <= b


_COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
            "<=": _le, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


class Compiler(BuiltinClosures, StatementClosures):
    """The closures of one instance's expressions and statements (a walker: `e_<Kind>` per
    expression kind here, `b_<key>` per built-in and `s_<Kind>` per statement kind in its parts)."""

    def __init__(self, inst: Instance):
        self.inst = inst
        self.n = inst.nplayers
        self.all = (1 << self.n) - 1
        self.members = [inst.members_mask(t) for t in range(inst.nteams)]
        self.cells: dict[int, list] = {}  # binder uid -> the cell its closures read
        self.signals = T.signal_slots(inst.model.events, inst.nplayers, inst.nteams)

    def cell(self, b: T.Binder) -> list:
        return self.cells.setdefault(b.uid, [None])

    # ------------------------------------------------------------ expressions
    def expr(self, e):
        return _EXPR[type(e)](self, e)

    def e_Const(self, e):
        v = e.value
        return lambda c: v

    def e_PlayerName(self, e):
        v = self.inst.players.index(e.name)
        return lambda c: v

    def e_TeamName(self, e):
        v = self.inst.teams.index(e.name)
        return lambda c: v

    def e_Param(self, e):
        v = self.inst.params[e.name]
        return lambda c: v

    def e_BinderRef(self, e):
        cell = self.cells.setdefault(e.uid, [None])
        return lambda c: cell[0]

    def e_VarRef(self, e):
        var = self.inst.var(e.name)
        if e.index is None:
            off = var.offset
            return lambda c: c.vals[off]
        f = self.expr(e.index)
        off, base, count, span, name = var.offset - var.index_base, var.index_base, var.count, e.span, e.name

        def read(c):
            i = f(c)
            if not 0 <= i - base < count:
                raise EvalError(f"index {i} of {name} is outside its range", span)
            return c.vals[off + i]
        return read

    def e_Narrow(self, e):
        f, span, msg = self.expr(e.operand), e.span, f"none where a {e.type.kind} is needed"

        def narrow(c):
            v = f(c)
            if v < 0:
                raise EvalError(msg, span)
            return v
        return narrow

    def e_Not(self, e):
        f = self.expr(e.operand)
        return lambda c: not f(c)

    def e_Neg(self, e):
        f = self.expr(e.operand)
        return lambda c: -f(c)

    def e_Logic(self, e):
        f, g = self.expr(e.left), self.expr(e.right)
        if e.op == "and":
            return lambda c: f(c) and g(c)
        if e.op == "or":
            return lambda c: f(c) or g(c)
        return lambda c: (not f(c)) or g(c)

    def e_Compare(self, e):
        f, g = self.expr(e.left), self.expr(e.right)
        if e.op == "==":  # the common cases without a call through the table
            return lambda c: f(c) == g(c)
        if e.op == "!=":
            return lambda c: f(c) != g(c)
        o = _COMPARE[e.op]
        return lambda c: o(f(c), g(c))

    def e_Arith(self, e):
        f, g, op = self.expr(e.left), self.expr(e.right), e.op
        if op == "+":
            return lambda c: f(c) + g(c)
        if op == "-":
            return lambda c: f(c) - g(c)
        if op == "*":
            return lambda c: f(c) * g(c)
        span = e.span

        def div(c):
            a, d = f(c), g(c)
            if d == 0:
                raise EvalError("division by zero", span)
            return a // d if op == "/" else a % d
        return div

    def e_SetOp(self, e):
        f, g = self.expr(e.left), self.expr(e.right)
        if e.type.elem.kind == "int":
            return (lambda c: f(c) | g(c)) if e.op == "union" else (lambda c: f(c) - g(c))
        return (lambda c: f(c) | g(c)) if e.op == "union" else (lambda c: f(c) & ~g(c))

    def e_Member(self, e):
        f, g = self.expr(e.elem), self.expr(e.set)
        if e.set.type.elem.kind == "int":
            fn = lambda c: f(c) in g(c)  # noqa: E731
        else:
            def fn(c):  # the set is evaluated even for none (it may fail), as in the Z3 engine
                x, s = f(c), g(c)
                return x >= 0 and (s >> x) & 1 == 1
        if e.negated:
            return lambda c: not fn(c)
        return fn

    def e_Ite(self, e):
        f, g, h = self.expr(e.cond), self.expr(e.then), self.expr(e.other)
        return lambda c: g(c) if f(c) else h(c)

    def e_SetLit(self, e):
        fs = [self.expr(x) for x in e.items]
        if e.type.elem.kind == "int":
            return lambda c: frozenset(f(c) for f in fs)

        return lambda c: mask_of([f(c) for f in fs])

    def e_SetComp(self, e):
        dom, cell, cond, elem = self.domain(e.domain), self.cell(e.binder), self.expr(e.cond), self.expr(e.elem)
        if e.type.elem.kind == "int":
            def ints(c):
                out = set()
                for v in dom(c):
                    cell[0] = v
                    if cond(c):
                        out.add(elem(c))
                return frozenset(out)
            return ints

        def mask(c):
            elems = []
            for v in dom(c):
                cell[0] = v
                if cond(c):
                    elems.append(elem(c))
            return mask_of(elems)  # none adds nothing, as in a set literal
        return mask

    def domain(self, d):
        """A closure giving the values of a binder's domain, in ascending order."""
        if isinstance(d, T.RangeDom):
            lo, hi = self.expr(d.low), self.expr(d.high)
            return lambda c: range(lo(c), hi(c) + 1)
        f = self.expr(d.set)
        elem = d.set.type.elem
        if elem.kind == "int":
            return lambda c: sorted(f(c))
        width = self.n if elem.kind == "player" else self.inst.nteams if elem.kind == "team" else len(elem.members)
        bits = [(i, 1 << i) for i in range(width)]

        def members(c):
            mask = f(c)  # once, not once per element
            return [i for i, b in bits if mask & b]
        return members

    def e_Quant(self, e):
        dom, cell, body = self.domain(e.domain), self.cell(e.binder), self.expr(e.body)
        if e.kind == "forall":
            def fa(c):
                for v in dom(c):
                    cell[0] = v
                    if not body(c):
                        return False
                return True
            return fa

        def ex(c):
            for v in dom(c):
                cell[0] = v
                if body(c):
                    return True
            return False
        return ex

    def e_Aggregate(self, e):
        dom, cell, body, kind = self.domain(e.domain), self.cell(e.binder), self.expr(e.body), e.kind
        if kind in ("argmin", "argmax"):
            sign, span, empty_ok = (1 if kind == "argmax" else -1), e.span, e.type.kind == "player"

            def scores(c):
                for v in dom(c):
                    cell[0] = v
                    yield v, body(c)

            def arg(c):
                best = best_of(scores(c), sign)
                if best is None:
                    if empty_ok:
                        return -1
                    raise EvalError(f"{kind} over no values", span)
                return best
            return arg

        def agg(c):
            vals = []
            for v in dom(c):
                cell[0] = v
                vals.append(body(c))
            if kind == "count":
                return sum(1 for x in vals if x)
            if kind == "sum":
                return sum(vals)
            if not vals:
                return 0
            return min(vals) if kind == "min" else max(vals)
        return agg

    def e_Call(self, e):  # the handlers, `b_<key>`: compile_builtins
        return _BUILTIN[e.func](self, e, [self.expr(a) for a in e.args])

    # ------------------------------------------------------------ statements (the handlers: compile_stmts)
    def stmts(self, body):
        fs = [self.stmt(s) for s in body]

        def run(c):
            for f in fs:
                f(c)
        return run

    def stmt(self, s):
        rid = s.rule
        if isinstance(s, T.If):  # a tagged `if` applies when one of its branches is taken, not when it is evaluated
            return self.s_If(s, rid)
        f = _STMT[type(s)](self, s)
        if rid is None:
            return f

        def tagged(c):
            c.hits.append(rid)
            f(c)
        return tagged


_EXPR = dispatch.by_kind(Compiler, "e_", T.EXPR_KINDS)
_STMT = dispatch.by_kind(Compiler, "s_", T.STMT_KINDS)
_BUILTIN = dispatch.by_builtin(Compiler, "b_", bi.BY_KEY)


def handled_builtins() -> set[str]:
    """The built-in keys this engine implements (a test compares them with the table)."""
    return set(_BUILTIN)
