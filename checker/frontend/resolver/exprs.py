"""Expressions: each syntax node typed into its typed IR node (`ex` dispatches on the node's
kind to `x_KIND`), with the checks of its operands' types.

`pol` is the polarity of the place an expression stands in (+1, -1 under `not` or left of
`implies`, 0 where both): outcome rules may read `lost`/`won` only positively
(`CallsMixin.check_polarity`). Calls, lets and built-ins are `checker.frontend.resolver.calls`.
"""
from __future__ import annotations

from .. import builtins as bi
from .. import syntax as sx
from .. import typed as T
from ..types import BOOL, INT, NONE, OPT_PLAYER, PLAYER, PLAYERS, TEAM, Ty, accepts, enum, join, set_of
from .context import ERROR, MAX_EXPANDED_DEPTH, Ctx
from .indices import parts_of, per_what
from ..diagnostics import Code


class ExprsMixin:
    """Expressions typed, one `x_KIND` method per kind of syntax node."""

    def ex(self, e, scope: dict, ctx: Ctx, pol: int = 1):
        """Resolve `e`. `pol` is +1 where the expression counts positively, -1 under `not` or left
        of `implies`, 0 where both (comparisons, aggregates, `if` conditions)."""
        method = getattr(self, "x_" + type(e).__name__)
        if self.depth >= MAX_EXPANDED_DEPTH:  # only lets get here: the parser refuses deeper text
            if not self.told_depth:
                self.told_depth = True
                self.error(Code.TOO_DEEP, f"with its lets expanded, this expression nests deeper than {MAX_EXPANDED_DEPTH} levels",
                           e.span, "rulewright expands lets where they are used; use a variable or a local `let` "
                                   "in an action for intermediate values")
            return T.Const(0, ERROR, e.span)
        self.depth += 1
        try:
            return method(e, scope, ctx, pol)
        finally:
            self.depth -= 1

    def x_Num(self, e, scope, ctx, pol):
        return T.Const(e.value, INT, e.span)

    def x_Bool(self, e, scope, ctx, pol):
        return T.Const(e.value, BOOL, e.span)

    def x_NoneLit(self, e, scope, ctx, pol):
        return T.Const(-1, NONE, e.span)

    def x_Name(self, e, scope, ctx, pol):
        name = e.name
        if name in scope:
            entry = scope[name]
            if entry[0] == "binder":
                b = entry[1]
                return T.BinderRef(b.uid, b.name, b.type, e.span)
            _, arg, arg_scope = entry  # a let's argument, resolved where it is used
            return self.ex(arg, arg_scope, ctx, pol)
        if name in self.lets:
            let = self.lets[name]
            if let.params:
                self.error(Code.ARGUMENTS, f"{name} is a function of {len(let.params)} argument(s); call it as {name}(...)", e.span)
                return T.Const(0, ERROR, e.span)
            return self.inline(let, (), scope, ctx, pol, e.span)
        if name in self.var_decls:
            return self.var_ref(name, None, e.span, scope, ctx)
        if name in self.params:
            return T.Param(name, INT, e.span)
        if name in bi.NAMES:
            return self.call(bi.NAMES[name], (), e.span, ctx)
        kind = self.player_or_team(name)
        if kind == "player":
            self.names_used.append(("player", name, e.span))
            if ctx.const:
                return self.not_const(name, e.span)
            return T.PlayerName(name, PLAYER, e.span)
        if kind == "team":
            self.names_used.append(("team", name, e.span))
            if ctx.const:
                return self.not_const(name, e.span)
            return T.TeamName(name, TEAM, e.span)
        if name in self.enum_of_member:
            ty = self.enum_of_member[name]
            return T.Const(ty.members.index(name), ty, e.span)
        return self.undefined(name, e.span, scope)

    def not_const(self, what, span):
        self.error(Code.TYPE_MISMATCH, f"{what} is not a constant; this place needs one", span,
                   "use numbers, parameters and lets of them here (and nplayers, nteams, team_size in a type)")
        return T.Const(0, ERROR, span)

    def var_ref(self, name, index, span, scope, ctx):
        d = self.var_decls[name]
        ty = self.var_types.get(name, ERROR)
        if ctx.const:
            self.error(Code.TYPE_MISMATCH, f"{name} is a state variable; this place needs a constant", span,
                       "use parameters and lets here")
            return T.Const(0, ERROR, span)
        if ctx.init_of >= 0 and self.var_order[name] >= ctx.init_of:
            self.error(Code.TYPE_MISMATCH, f"the initial value reads {name}, which is declared "
                       + ("by this declaration" if self.var_order[name] == ctx.init_of else "later"), span,
                       f"declare {name} before the variable whose initial value reads it")
            return T.Const(0, ERROR, span)
        static = d.is_choice and name not in self.dynamic
        if d.index is None:
            if index is not None:
                self.error(Code.ARGUMENTS, f"{name} is a single value, not one per player or team", span, f"write `{name}` without [...]")
                return T.Const(0, ERROR, span)
            return T.VarRef(name, None, ty, static, span)
        if index is None:
            self.error(Code.ARGUMENTS, f"{name} holds one value per {per_what(d)}; read it as {name}[...]", span,
                       f"for example {name}[{', '.join(b for b, _ in parts_of(d))}]")
            return T.Const(0, ERROR, span)
        i = self.index_of(d, index, scope, ctx)
        if isinstance(i, tuple):  # several indices: the slot number and the writer's indices
            return T.VarRef(name, i[0], ty, static, span, indices=i[1])
        return T.VarRef(name, i, ty, static, span)

    def index_type(self, d: sx.VarDecl) -> Ty:
        k = d.index[1]
        if k == "player":
            return PLAYER
        if k == "team":
            return TEAM
        if isinstance(k, sx.TEnum):
            return enum(k.members)
        return INT

    def x_Index(self, e, scope, ctx, pol):
        if e.name not in self.var_decls:
            if e.name in self.lets:
                self.error(Code.ARGUMENTS, f"{e.name} is a let; call it with parentheses", e.span, f"{e.name}(...)")
                return T.Const(0, ERROR, e.span)
            return self.undefined(e.name, e.span, scope)
        return self.var_ref(e.name, e.index, e.span, scope, ctx)

    def want(self, x, ty: Ty, what: str = ""):
        """`x` where a value of type `ty` is needed (a player? where a player is: checked at run time)."""
        return self.coerce(x, ty, what)

    def coerce(self, x, ty: Ty, what: str):
        if x.type == ERROR or ty == ERROR:
            return x
        if ty.kind == "int" and x.type.kind == "int" and ty.step != x.type.step:
            return self.coerce_step(x, ty, what)
        ok = accepts(ty, x.type)
        if ok == "":
            return x if x.type.kind != "none" else T.Const(-1, Ty(ty.kind, optional=True), x.span)
        if ok == "narrow":
            return T.Narrow(x, Ty(ty.kind), x.span)
        if x.type.kind == "none" and ty.kind in ("player", "team"):
            self.error(Code.TYPE_MISMATCH, f"{what or 'this'} must be a {ty.kind}, and `none` is not one", x.span,
                       f"declare the variable `{ty.kind}?`, or test for none first")
        elif what:
            self.error(Code.TYPE_MISMATCH, f"{what} must be a {ty}, not a {x.type}", x.span)
        else:
            self.error(Code.TYPE_MISMATCH, f"expected a {ty} here, found a {x.type}", x.span)
        return T.Const(0, ERROR, x.span)

    def x_Unary(self, e, scope, ctx, pol):
        if e.op == "not":
            x = self.want(self.ex(e.operand, scope, ctx, -pol), BOOL)
            return T.Not(x, BOOL, e.span)
        x = self.ex(e.operand, scope, ctx, 0)
        if self.step_of(x) is not None:  # minus a number in steps is in the same steps
            return T.Neg(x, x.type, e.span)
        x = self.want(x, INT)
        return T.Neg(x, INT, e.span)

    def x_Binary(self, e, scope, ctx, pol):
        op = e.op
        if op in ("and", "or", "implies"):
            a = self.want(self.ex(e.left, scope, ctx, -pol if op == "implies" else pol), BOOL)
            b = self.want(self.ex(e.right, scope, ctx, pol), BOOL)
            return T.Logic(op, a, b, BOOL, e.span)
        a = self.ex(e.left, scope, ctx, 0)
        b = self.ex(e.right, scope, ctx, 0)
        if ERROR in (a.type, b.type):
            return T.Const(0, ERROR, e.span)
        if op in ("in", "notin"):
            if b.type.kind != "set":
                self.error(Code.TYPE_MISMATCH, f"the right side of `in` must be a set, not a {b.type}", e.right.span)
                return T.Const(0, ERROR, e.span)
            if join(a.type, b.type.elem) is None:
                self.error(Code.TYPE_MISMATCH, f"a {a.type} cannot be a member of a {b.type}", e.span)
                return T.Const(0, ERROR, e.span)
            return T.Member(a, b, op == "notin", BOOL, e.span)
        if self.step_of(a) is not None or self.step_of(b) is not None:
            return self.stepped_binary(op, a, b, e.span)
        if op in ("==", "!="):
            if join(a.type, b.type) is None:
                self.error(Code.TYPE_MISMATCH, f"cannot compare a {a.type} with a {b.type}", e.span)
                return T.Const(0, ERROR, e.span)
            return T.Compare(op, a, b, BOOL, e.span)
        if op in ("<", "<=", ">", ">="):
            return T.Compare(op, self.want(a, INT), self.want(b, INT), BOOL, e.span)
        if op in ("+", "-") and a.type.kind == "set" and a.type == b.type:
            return T.SetOp("union" if op == "+" else "diff", a, b, a.type, e.span)
        return T.Arith(op, self.want(a, INT), self.want(b, INT), INT, e.span)

    def x_Ite(self, e, scope, ctx, pol):
        c = self.want(self.ex(e.cond, scope, ctx, 0), BOOL)
        a = self.ex(e.then, scope, ctx, pol)
        b = self.ex(e.other, scope, ctx, pol)
        if ERROR in (a.type, b.type):
            return T.Const(0, ERROR, e.span)
        if self.step_of(a) is not None or self.step_of(b) is not None:
            pair = self.same_steps(a, b, e.span, "the branches of this `if`")
            if pair is None:
                return T.Const(0, ERROR, e.span)
            a, b = pair
        ty = join(a.type, b.type)
        if ty is None:
            self.error(Code.TYPE_MISMATCH, f"the branches of this `if` have different types: {a.type} and {b.type}", e.span)
            return T.Const(0, ERROR, e.span)
        if ty.kind in ("player", "team") and ty.optional:
            a, b = self.coerce(a, ty, ""), self.coerce(b, ty, "")
        return T.Ite(c, a, b, ty, e.span)

    def x_SetLit(self, e, scope, ctx, pol):
        items = [self.ex(x, scope, ctx, 0) for x in e.items]
        if not items:
            return T.SetLit((), PLAYERS, e.span)
        if any(x.type == ERROR for x in items):
            return T.Const(0, ERROR, e.span)
        ty = items[0].type
        for x in items[1:]:
            ty = join(ty, x.type)
            if ty is None:
                self.error(Code.TYPE_MISMATCH, "a set literal mixes values of different types", e.span)
                return T.Const(0, ERROR, e.span)
        if ty.kind not in ("player", "team", "enum", "int"):
            self.error(Code.TYPE_MISMATCH, f"sets of {ty} are not supported", e.span, "sets hold players, teams, numbers or members")
            return T.Const(0, ERROR, e.span)
        return T.SetLit(tuple(items), set_of(ty), e.span)

    def x_SetComp(self, e, scope, ctx, pol):
        dom, et = self.domain(e.domain, scope, ctx)
        b = self.binder(e.var, et, e.span, scope)
        inner = {**scope, e.var: ("binder", b)}
        cond = T.Const(True, BOOL, e.span) if e.cond is None else self.want(self.ex(e.cond, inner, ctx, 0), BOOL)
        x = self.ex(e.elem, inner, ctx, 0)
        if ERROR in (x.type, et, cond.type):
            return T.Const(0, ERROR, e.span)
        ty = OPT_PLAYER if x.type.kind == "none" else x.type
        if ty.kind not in ("player", "team", "enum", "int"):
            self.error(Code.TYPE_MISMATCH, f"sets of {ty} are not supported", e.elem.span,
                       "a set comprehension `{e | x in S}` collects players, teams, numbers or members; "
                       "to pick elements of S by a condition write `{x | x in S: condition}`")
            return T.Const(0, ERROR, e.span)
        return T.SetComp(x, b, dom, cond, set_of(ty), e.span)

    def domain(self, d, scope, ctx):
        """(typed domain, element type)."""
        if isinstance(d, sx.RangeDomain):
            lo = self.want(self.ex(d.low, scope, ctx, 0), INT)
            hi = self.want(self.ex(d.high, scope, ctx, 0), INT)
            return T.RangeDom(lo, hi, d.span), INT
        s = self.ex(d.expr, scope, ctx, 0)
        if s.type == ERROR:
            return T.SetDom(s, d.span), ERROR
        if s.type.kind != "set":
            self.error(Code.TYPE_MISMATCH, f"cannot range over a {s.type}", d.span, "use a range `lo..hi` or a set such as `players`")
            return T.SetDom(T.Const(0, ERROR, d.span), d.span), ERROR
        return T.SetDom(s, d.span), s.type.elem

    def x_Quant(self, e, scope, ctx, pol):
        dom, et = self.domain(e.domain, scope, ctx)
        b = self.binder(e.var, et, e.span, scope)
        body = self.want(self.ex(e.body, {**scope, e.var: ("binder", b)}, ctx, pol), BOOL)
        return T.Quant(e.kind, b, dom, body, BOOL, e.span)

    def x_Aggregate(self, e, scope, ctx, pol):
        dom, et = self.domain(e.domain, scope, ctx)
        b = self.binder(e.var, et, e.span, scope)
        raw = self.ex(e.body, {**scope, e.var: ("binder", b)}, ctx, 0)
        if e.kind != "count" and self.step_of(raw) is not None:  # sum, min, max of numbers in steps
            return T.Aggregate(e.kind, b, dom, raw, (OPT_PLAYER if et.kind == "player" else et)
                               if e.kind in ("argmin", "argmax") else raw.type, e.span)
        body = self.want(raw, BOOL if e.kind == "count" else INT)
        if e.kind in ("argmin", "argmax"):
            # the element itself; of no players it is none, of no other values an evaluation error
            ty = OPT_PLAYER if et.kind == "player" else et
            return T.Aggregate(e.kind, b, dom, body, ty, e.span)
        return T.Aggregate(e.kind, b, dom, body, INT, e.span)
