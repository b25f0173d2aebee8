"""Successors compiled to Python source, per instance, from the typed IR.

`checker.explicit.compile` builds a tree of closures that any instance can run; this module
writes, for one instance, one Python function per action in which players, seats, parameters
and the state layout are constants: a guard is one expression instead of a closure call per
node, bindings are nested `for` loops, and a binding whose guard needs a marker only iterates
the seats that hold one. The two are the same semantics (tests/test_compiled.py compares them
on every fixture and bundled spec); `compile.py` stays the reference and the fallback.

A state is packed (checker.explicit.packing says how). `Generator` is three parts: the
expressions here, the built-ins (`BuiltinSource`, codegen_builtins) and the statements
(`StatementSource`, codegen_stmts); the dispatch (`expr`, `stmt`) and its tables stay here,
built from the combined class and checked complete at import.

Why generating source is safe with hostile specs: the source holds only identifiers this module
makes up (`x3`, `b12`, helper names), integer and boolean literals, and operators. No name,
string or number of the spec is pasted into it as text: names go to error messages through
tables (`VARS`, `SPANS`) the generated code indexes, and every literal is checked to be an int
or a bool before it is written. Nothing is read from or written to disk.
"""
from __future__ import annotations

from ..frontend import builtins as bi
from ..frontend import dispatch
from ..frontend import typed as T
from ..frontend.instances import Instance
from .codegen_builtins import BuiltinSource
from .codegen_stmts import StatementSource
from .closed_exprs import closed_value, is_closed
from .compile import Compiler
from .packing import Field, _lit, layout


class CannotCompile(Exception):
    """The instance is run by the closure engine instead (too deeply nested for Python's parser)."""


GUARD_FACTS = {"lp": "0", "lt": "0", "wp": "0", "wt": "0", "dp": "0", "dt": "0"}
BODY_FACTS = {"lp": "lp", "lt": "lt", "wp": "wp", "wt": "wt", "dp": "dp", "dt": "dt"}


class Generator(BuiltinSource, StatementSource):
    """Python source for one instance's expressions and statements (a walker: `x_<Kind>` per
    expression kind, `s_<Kind>` per statement kind, `b_<key>` per built-in)."""

    def __init__(self, inst: Instance):
        self.inst = inst
        self.n = inst.nplayers
        self.all = (1 << self.n) - 1
        self.fields = layout(inst)
        self.by_name = {f.var.name: f for f in self.fields}
        self.spans: list = []  # (span, message) for errors raised by generated code (after(): (span, type))
        self.names: list = []  # per assignment site: what an overflow message calls the variable
        self.written: dict[str, str] = {}  # entry local name -> the local the body writes, while a body is generated
        # the places a body has computed on its straight-line path (source -> the local holding
        # it), while nothing they read has been written since: `fin[removed(d)] := false;
        # mk[removed(d)] := false;` searches for the nearest marker once (see `place`)
        self.places: dict[str, str] = {}
        self.tmp = 0
        self.comp = Compiler(inst)  # folds closed expressions to literals
        self._closed: dict[int, bool] = {}
        # what the step's outcome facts are called: literals in a guard (nothing has happened
        # yet), locals in a body (`lose p;` sets them)
        self.facts = GUARD_FACTS

    # ---------------------------------------------------------- names
    def entry(self, f: Field) -> str:
        base = f"x{f.entry}"
        return self.written.get(base, base)

    def fresh(self, stem: str = "t") -> str:
        self.tmp += 1
        return f"_{stem}{self.tmp}"

    def span_id(self, span, message: str) -> int:
        self.spans.append((span, message))
        return len(self.spans) - 1

    # ---------------------------------------------------------- expressions
    def expr(self, e) -> str:
        folded = self.fold(e)
        if folded is not None:
            return folded
        return _EXPR[type(e)](self, e)

    def fold(self, e) -> str | None:
        """The literal of an expression that reads neither the state nor a binder (`N - 1`,
        `DEPARTURES == 1`), computed once here by the closure engine; None if it has no
        constant value or its value is not a number or a boolean (or it fails: then it fails
        where it is evaluated, as in the closures)."""
        if isinstance(e, (T.Const, T.BinderRef, T.VarRef, T.Quant, T.Aggregate, T.SetComp)) or not self.closed(e):
            return None
        v = closed_value(self.comp, e)
        return _lit(v) if v.__class__ in (int, bool) else None

    def closed(self, e) -> bool:
        key = id(e)
        got = self._closed.get(key)
        if got is None:
            got = self._closed[key] = is_closed(e)
        return got

    def x_Const(self, e):
        return _lit(e.value)

    def x_PlayerName(self, e):
        return _lit(self.inst.players.index(e.name))

    def x_TeamName(self, e):
        return _lit(self.inst.teams.index(e.name))

    def x_Param(self, e):
        return _lit(self.inst.params[e.name])

    def x_BinderRef(self, e):
        return f"b{_lit(e.uid)}"

    def x_VarRef(self, e):
        f = self.by_name.get(e.name)
        if f is None:  # a choice Z3 decides (never read in play; the closures handle the rest)
            raise CannotCompile(f"{e.name} is not part of the explored state")
        x = self.entry(f)
        if e.index is None:
            return x
        k = self.offset(f, e.index, e.span)
        if f.kind == "bits":
            return f"(({x} >> {k}) & 1 == 1)"
        return f"((({x} >> ({k} * {f.width})) & {f.mask}) + {_lit(f.low)})"

    def offset(self, f: Field, index, span) -> str:
        """Source for `index - base`, checked to be inside the variable's range unless its type
        already says so (an index of the variable's own player, team or enumeration type)."""
        v = f.var
        src = self.expr(index)
        it = index.type
        if v.indexed in ("player", "team", "enum") and it.kind == v.indexed and not it.optional:
            return src
        sid = self.span_id(span, v.name)
        return f"_ix({src}, {_lit(v.index_base)}, {_lit(v.count)}, {sid})"

    def x_Narrow(self, e):
        sid = self.span_id(e.span, f"none where a {e.type.kind} is needed")
        return f"_narrow({self.expr(e.operand)}, {sid})"

    def x_Not(self, e):
        return f"(not {self.expr(e.operand)})"

    def x_Neg(self, e):
        return f"(-{self.expr(e.operand)})"

    def x_Logic(self, e):
        a, b = self.expr(e.left), self.expr(e.right)
        if e.op == "and":
            return f"({a} and {b})"
        if e.op == "or":
            return f"({a} or {b})"
        return f"((not {a}) or {b})"

    def x_Compare(self, e):
        return f"({self.expr(e.left)} {e.op} {self.expr(e.right)})"

    def x_Arith(self, e):
        a, b = self.expr(e.left), self.expr(e.right)
        if e.op in ("+", "-", "*"):
            return f"({a} {e.op} {b})"
        if b.lstrip("-").isdigit() and int(b) != 0:  # a constant divisor other than 0: never fails
            return f"({a} {'//' if e.op == '/' else '%'} {b})"
        sid = self.span_id(e.span, "division by zero")
        return f"{'_div' if e.op == '/' else '_mod'}({a}, {b}, {sid})"

    def x_SetOp(self, e):
        a, b = self.expr(e.left), self.expr(e.right)
        if e.op == "union":
            return f"({a} | {b})"
        return f"({a} - {b})" if e.type.elem.kind == "int" else f"({a} & ~{b})"

    def x_Member(self, e):
        x, s = self.expr(e.elem), self.expr(e.set)
        src = f"({x} in {s})" if e.set.type.elem.kind == "int" else f"_member({x}, {s})"
        return f"(not {src})" if e.negated else src

    def x_Ite(self, e):
        return f"({self.expr(e.then)} if {self.expr(e.cond)} else {self.expr(e.other)})"

    def x_SetLit(self, e):
        items = ", ".join(self.expr(x) for x in e.items)
        if e.type.elem.kind == "int":
            return f"frozenset(({items},))" if e.items else "frozenset()"
        one = e.items[0] if len(e.items) == 1 else None
        if one is not None and not one.type.optional and one.type.kind != "none" and not isinstance(one, T.Aggregate):
            return f"(1 << {items})"  # `{p}`: p is never none here
        return f"_mask_of(({items},))" if e.items else "0"

    def x_SetComp(self, e):
        b, dom = self.x_BinderRef(e.binder), self.domain(e.domain)
        cond, elem = self.expr(e.cond), self.expr(e.elem)
        items = f"[{elem} for {b} in {dom} if {cond}]"
        return f"frozenset({items})" if e.type.elem.kind == "int" else f"_mask_of({items})"

    def domain(self, d) -> str:
        """Source for a binder's values, ascending (the order the closure engine uses)."""
        if isinstance(d, T.RangeDom):
            return f"range({self.expr(d.low)}, {self.expr(d.high)} + 1)"
        s = self.expr(d.set)
        elem = d.set.type.elem
        if elem.kind == "int":
            return f"sorted({s})"
        width = self.n if elem.kind == "player" else self.inst.nteams if elem.kind == "team" else len(elem.members)
        return f"_bits({s}, {_lit(width)})"

    def x_Quant(self, e):
        fast = self.seat_window(e)
        if fast:
            return fast
        b, dom, body = self.x_BinderRef(e.binder), self.domain(e.domain), self.expr(e.body)
        return f"{'all' if e.kind == 'forall' else 'any'}({body} for {b} in {dom})"

    def x_Aggregate(self, e):
        fast = self.count_of_bits(e) or self.nearest_seat(e)
        if fast:
            return fast
        b, dom, body = self.x_BinderRef(e.binder), self.domain(e.domain), self.expr(e.body)
        if e.kind == "count":
            return f"_count([{body} for {b} in {dom}])"
        if e.kind == "sum":
            return f"sum([{body} for {b} in {dom}])"
        if e.kind in ("min", "max"):
            return f"{e.kind}([{body} for {b} in {dom}], default=0)"
        sid = self.span_id(e.span, f"{e.kind} over no values")
        sign = 1 if e.kind == "argmax" else -1
        return (f"_arg([({b}, {body}) for {b} in {dom}], {sign}, "
                f"{_lit(e.type.kind == 'player')}, {sid})")

    # ---------------------------------------------------------- seat windows (a block of its own)
    def window_read(self, binder, body):
        """(field, source of s, direction, negated) when `body` is `v[left(s, k)]` or
        `v[right(s, k)]` (or its negation), v a boolean variable indexed by player and k the
        `binder`, s an expression that cannot fail and does not read k; else None."""
        neg = isinstance(body, T.Not)
        x = body.operand if neg else body
        if not (isinstance(x, T.VarRef) and isinstance(x.index, T.Call) and x.index.func in ("left", "right")):
            return None
        f = self.by_name.get(x.name)
        if f is None or f.kind != "bits" or f.var.indexed != "player" or f.var.index_base != 0 or f.var.count != self.n:
            return None
        seat, k = x.index.args
        if not (isinstance(k, T.BinderRef) and k.uid == binder.uid):
            return None
        if not isinstance(seat, (T.BinderRef, T.PlayerName, T.Const)) or getattr(seat, "uid", None) == binder.uid:
            return None  # s is evaluated before the domain is known to be empty: it must not fail
        return f, self.expr(seat), 1 if x.index.func == "left" else -1, neg

    def seat_window(self, e) -> str:
        """`exists k in lo..hi: v[left(s, k)]` (and forall, right, not v[...]): the seats
        s+lo..s+hi are one mask (`_seats`), tested against v with one `&` instead of a loop over k.
        lo and hi are evaluated first, as the loop's range is; s cannot fail."""
        if not isinstance(e.domain, T.RangeDom):
            return ""
        got = self.window_read(e.binder, e.body)
        if got is None:
            return ""
        f, seat, direction, neg = got
        lo, hi = self.expr(e.domain.low), self.expr(e.domain.high)
        m = f"_seats({lo}, {hi}, {seat}, {direction})"
        v = self.entry(f)
        if e.kind == "exists":  # some seat holds (or, negated, lacks) the mark
            return f"(not _covers({v}, {m}))" if neg else f"({v} & {m} != 0)"
        # every seat holds (lacks) it; an empty window holds
        return f"({v} & {m} == 0)" if neg else f"_covers({v}, {m})"

    def nearest_seat(self, e) -> str:
        """`min(k in lo..hi: if v[left(s, k)] then k else c)`, c a constant (the distance to the
        nearest marked seat that way, or c): the first marked seat, found seat after seat, and c
        where some seat of the window is unmarked (`_nearest`). lo and hi are evaluated first."""
        if e.kind != "min" or not isinstance(e.domain, T.RangeDom) or not isinstance(e.body, T.Ite):
            return ""
        then, other = e.body.then, e.body.other
        if not (isinstance(then, T.BinderRef) and then.uid == e.binder.uid):
            return ""
        c = _lit(other.value) if isinstance(other, T.Const) and other.value.__class__ is int else self.fold(other)
        got = self.window_read(e.binder, e.body.cond)
        if c is None or c in ("True", "False") or got is None or got[3]:
            return ""
        f, seat, direction, _ = got
        lo, hi = self.expr(e.domain.low), self.expr(e.domain.high)
        return f"_nearest({lo}, {hi}, {seat}, {direction}, {self.entry(f)}, {c})"

    def count_of_bits(self, e) -> str:
        """`count(p in S: v[p])` for a boolean variable indexed like S's elements: the number of
        set bits of `v & S` (one C call instead of a loop over the seats)."""
        if e.kind != "count" or not isinstance(e.domain, T.SetDom):
            return ""
        body, elem = e.body, e.domain.set.type.elem
        if not (isinstance(body, T.VarRef) and isinstance(body.index, T.BinderRef) and body.index.uid == e.binder.uid):
            return ""
        f = self.by_name.get(body.name)
        if f is None or f.kind != "bits" or f.var.indexed != elem.kind or elem.kind not in ("player", "team", "enum"):
            return ""
        return f"({self.entry(f)} & {self.expr(e.domain.set)}).bit_count()"

    def x_Call(self, e):  # the handlers, `b_<key>`: codegen_builtins
        return _BUILTIN[e.func](self, e, [self.expr(a) for a in e.args])

    # ---------------------------------------------------------- statements (the handlers: codegen_stmts)
    def stmts(self, body, pad: str) -> list[str]:
        lines = []
        for s in body:
            lines += self.stmt(s, pad)
        return lines or [pad + "pass"]

    def stmt(self, s, pad: str) -> list[str]:
        if isinstance(s, T.If):  # a tagged `if` applies when one of its branches is taken
            return self.s_If(s, pad)
        lines = [f"{pad}hits.append({_lit(s.rule)})"] if s.rule is not None else []
        return lines + _STMT[type(s)](self, s, pad)


# lost_now() is exempt: outcome rules run in the closures, and a trigger that reads it too
# (checker.explicit.compiled generates the others: `CompiledMachine._trigger_source`)
_EXPR = dispatch.by_kind(Generator, "x_", T.EXPR_KINDS)
_STMT = dispatch.by_kind(Generator, "s_", T.STMT_KINDS)
_BUILTIN = dispatch.by_builtin(Generator, "b_", bi.BY_KEY, exempt=bi.STEP_ONLY)


def written_vars(body) -> set[str]:
    return {n.var for n in T.walk(list(body)) if isinstance(n, T.Assign)}
