"""Statements: blocks, assignments (simultaneous ones, and to a let that names a place),
conditionals, loops, outcomes, local lets and routines run where they are called.

A routine is typed again wherever it runs (its parameters bound to that call's arguments);
its statements are one rule wherever they run.
"""
from __future__ import annotations

import difflib

from .. import syntax as sx
from .. import typed as T
from ..lower import phases as lower_phases
from ..types import BOOL, OPT_PLAYER, PLAYER, TEAM, accepts
from .context import ERROR, Ctx
from .indices import per_what
from ..diagnostics import Code


class StmtsMixin:
    """Statements typed in order, each block with its own local names."""

    def stmts(self, body, scope, ctx):
        out = []
        for s in body:
            if isinstance(s, sx.LocalLet):  # the name is known to the statements after it in this block
                rid = self.rule("statement", "LocalLet", s.tags, s.span) if s.tags else None
                value = self.ex(s.value, scope, ctx, 0)
                ty = OPT_PLAYER if value.type.kind == "none" else value.type
                value = self.coerce(value, ty, "") if ty == OPT_PLAYER else value
                b = self.binder(s.name, ty, s.span, scope)
                scope = {**scope, s.name: ("binder", b)}
                out.append(T.LetStmt(b, value, rid, s.span))
                continue
            out.append(self.stmt(s, scope, ctx))
        return tuple(out)

    def stmt(self, s, scope, ctx):
        rid = self.rule("statement", type(s).__name__, s.tags, s.span) if s.tags else None
        if isinstance(s, sx.Assign):
            return self.assign(s, scope, ctx, rid)
        if isinstance(s, sx.MultiAssign):
            return self.multi_assign(s, scope, ctx, rid)
        if isinstance(s, sx.If):
            branches = tuple((self.want(self.ex(c, scope, ctx, 0), BOOL), self.stmts(b, scope, ctx)) for c, b in s.branches)
            return T.If(branches, self.stmts(s.otherwise, scope, ctx), rid, s.span)
        if isinstance(s, sx.ForallStmt):
            dom, et = self.domain(s.domain, scope, ctx)
            b = self.binder(s.var, et, s.span, scope)
            return T.Forall(b, dom, self.stmts(s.body, {**scope, s.var: ("binder", b)}, ctx), rid, s.span)
        if isinstance(s, sx.RunStmt):
            return self.run_routine(s, scope, ctx, rid)
        if isinstance(s, sx.OutcomeStmt):
            if s.kind in ("draw", "finish") and s.subject is None:
                return T.OutcomeStmt(s.kind, None, rid, s.span)
            x = self.ex(s.subject, scope, ctx, 0)
            if x.type != ERROR:
                x = self.coerce(x, TEAM if x.type.kind == "team" else PLAYER, f"the subject of `{s.kind}`")
            return T.OutcomeStmt(s.kind, x, rid, s.span)
        if isinstance(s, sx.SignalStmt):
            return self.signal(s, scope, ctx, rid)
        raise AssertionError(s)

    def signal(self, s, scope, ctx, rid):
        """`signal E(x);`: E declared (`event E(q: player)`), with a subject of its kind, or
        without one for an event declared without."""
        e = self.events.get(s.event)
        if e is None:
            close = difflib.get_close_matches(s.event, list(self.events), n=1)
            self.error(Code.UNDEFINED, f"there is no event `{s.event}`", s.span,
                       f"did you mean `{close[0]}`?" if close else f"declare it with `event {s.event}(q: player)`")
            return T.Block((), rid, s.span)
        if (s.subject is None) != (e.subject is None):
            want = f"a {e.subject}: `signal {e.name}(x);`" if e.subject else f"no subject: `signal {e.name};`"
            self.error(Code.ARGUMENTS, f"event `{e.name}` is raised with {want}", s.span,
                       f"as it is declared at {e.span}")
            return T.Block((), rid, s.span)
        x = None
        if s.subject is not None:
            x = self.ex(s.subject, scope, ctx, 0)
            if x.type != ERROR:
                x = self.coerce(x, TEAM if e.subject == "team" else PLAYER, f"the subject of event `{e.name}`")
        return T.SignalStmt(e.name, x, rid, s.span)

    def run_routine(self, s, scope, ctx, rid):
        """A routine run here: its parameters are local names bound to the arguments (evaluated
        once, where the call stands), then its statements, which see globals and parameters only."""
        r = self.routines.get(s.name)
        if r is None:
            close = difflib.get_close_matches(s.name, list(self.routines), n=1)
            self.error(Code.UNDEFINED, f"there is no routine `{s.name}`", s.span,
                       f"did you mean `{close[0]}`?" if close else "declare it with `routine NAME(params) do ... end`")
            return T.Block((), rid, s.span)
        if len(r.params) != len(s.args):
            self.error(Code.ARGUMENTS, f"{s.name} takes {len(r.params)} argument(s), given {len(s.args)}", s.span)
            return T.Block((), rid, s.span)
        key = "routine " + r.name
        if key in self.inlining:
            self.error(Code.ARGUMENTS, f"routine {r.name} runs itself; routines may not be recursive", s.span)
            return T.Block((), rid, s.span)
        body, inner = [], {}
        for prm, a in zip(r.params, s.args):
            _, et = self.domain(prm.domain, {}, Ctx())
            value = self.coerce(self.ex(a, scope, ctx, 0), et, f"argument {prm.name} of {r.name}") if et != ERROR \
                else self.ex(a, scope, ctx, 0)
            b = self.binder(prm.name, value.type if et == ERROR else et, prm.span, {})
            body.append(T.LetStmt(b, value, None, a.span))
            inner[prm.name] = ("binder", b)
        self.inlining.append(key)
        try:
            body.extend(self.stmts(r.body, inner, ctx))
        finally:
            self.inlining.pop()
        block = T.Block(tuple(body), self.rule("routine", r.name, r.tags, r.span), s.span)
        return block if rid is None else T.Block((block,), rid, s.span)

    def multi_assign(self, s, scope, ctx, rid):
        """`a, b[i] := x, y;` is a block that binds every value and index to a local name, in
        the order written (each value, then its index, as a single assignment does), and then
        writes the places in the order written: no value reads a place written by this statement."""
        if len(s.places) != len(s.values):
            self.error(Code.ARGUMENTS, f"{len(s.places)} places are assigned {len(s.values)} values", s.span,
                       "write one value per place, in the same order: `a, b := b, a;`")
            return T.Block((), rid, s.span)
        seen: dict = {}
        for p in s.places:
            key = (_place_name(p), getattr(p, "index", None), getattr(p, "args", None))
            if key in seen:
                self.error(Code.ARGUMENTS, f"{_place_text(p)} is assigned twice in one statement", p.span,
                           "a simultaneous assignment writes each place once")
                return T.Block((), rid, s.span)
            seen[key] = p
        lets, writes = [], []
        for p, v in zip(s.places, s.values):
            one = self.assign(sx.Assign(_place_name(p), getattr(p, "index", None), v, (), p.span,
                                        args=p.args if isinstance(p, sx.Call) else None), scope, ctx, None)
            vb = self.fresh(one.var + "'", one.value.type, v.span)
            lets.append(T.LetStmt(vb, one.value, None, v.span))
            index = None
            if one.index is not None:
                kb = self.fresh(one.var + "'index", one.index.type, p.span)
                lets.append(T.LetStmt(kb, one.index, None, p.span))
                index = T.BinderRef(kb.uid, kb.name, kb.type, p.span)
            writes.append(T.Assign(one.var, index, T.BinderRef(vb.uid, vb.name, vb.type, v.span), None, p.span))
        return T.Block(tuple(lets + writes), rid, s.span)

    def assign(self, s, scope, ctx, rid):
        target, index_sx, index_scope = s.target, s.index, scope
        if s.target in self.var_decls and s.args is not None:
            self.error(Code.ARGUMENTS, f"{s.target} is a variable; assign it as {s.target}[...]" if self.var_decls[s.target].index
                       else f"{s.target} is a variable; assign it as {s.target}", s.span)
            return T.Assign(s.target, None, T.Const(0, ERROR, s.span), rid, s.span)
        if s.target not in self.var_decls and (s.args is not None or s.target in self.lets):
            place = self.let_place(s, scope, ctx)  # `score(p) := e`: the variable the let names
            if place is None:
                return T.Assign(s.target, None, T.Const(0, ERROR, s.span), rid, s.span)
            target, index_sx, index_scope = place
        d = self.var_decls.get(target)
        if d is None:
            self.undefined(target, s.span, scope)
            return T.Assign(target, None, T.Const(0, ERROR, s.span), rid, s.span)
        if target in self.phase_decls:
            lower_phases.assigned(self, s)
        if d.is_choice:
            self.error(Code.TYPE_MISMATCH, f"{target} is a choice made before play and never changes", s.span,
                       "declare it with `var` if the game changes it")
        ty = self.var_types.get(target, ERROR)
        value = self.coerce(self.ex(s.value, scope, ctx, 0), ty, f"the value assigned to {target}")
        index, indices = None, ()
        if d.index is not None:
            if index_sx is None:
                self.error(Code.ARGUMENTS, f"{target} holds one value per {per_what(d)}; assign {target}[...]", s.span)
            else:
                index = self.index_of(d, index_sx, index_scope, ctx)
                if isinstance(index, tuple):  # several indices: the slot number and the writer's indices
                    index, indices = index
        elif index_sx is not None:
            self.error(Code.ARGUMENTS, f"{target} is a single value; assign it without [...]", s.span)
        return T.Assign(target, index, value, rid, s.span, indices=indices)

    # ------------------------------------------------------------ lets that name a place
    def let_place(self, s, scope, ctx):
        """The variable, index (syntax) and the scope that index is read in, for an assignment
        to a let: `let score(p: player) = points[team(p)]` makes `score(turn) := ...` assign
        `points[team(turn)]`. The let's parameters are bound to the arguments where the
        assignment stands, as wherever a let is read; a let whose value is another such let is
        followed. None (and an error) when the let does not name a variable."""
        name, index, args, where, seen = s.target, s.index, s.args, scope, []
        while name not in self.var_decls or name in where:
            let = self.lets.get(name) if name not in where else None
            if let is None and name not in where and not seen:
                self.undefined(name, s.span, scope)
                return None
            if let is None:
                self.error(Code.ARGUMENTS, f"{s.target} does not name a variable, so it cannot be assigned", s.span,
                           "a let names a place when its value is a variable `x`, an indexed variable `x[e]` "
                           "or another such let")
                return None
            if index is not None:
                self.error(Code.ARGUMENTS, f"{name} is a let; assign it as {name}(...), the way it is read", s.span)
                return None
            if name in seen:
                self.error(Code.ARGUMENTS, f"{name} calls itself; lets may not be recursive", s.span)
                return None
            seen.append(name)
            given = tuple(args or ())
            if len(let.params) != len(given):
                self.error(Code.ARGUMENTS, f"{name} takes {len(let.params)} argument(s), given {len(given)}", s.span)
                return None
            inner = {}
            for prm, a in zip(let.params, given):
                value = self.peek(a, where, ctx)
                _, et = self.domain(prm.domain, {}, Ctx())
                if ERROR not in (et, value.type) and accepts(et, value.type) == "no":
                    self.error(Code.TYPE_MISMATCH, f"argument {prm.name} of {name} must be a {et}, not a {value.type}", a.span)
                    return None
                inner[prm.name] = ("arg", a, where)
            body = let.body
            if isinstance(body, sx.Name):
                name, index, args = body.name, None, None
            elif isinstance(body, sx.Index):
                name, index, args = body.name, body.index, None
            elif isinstance(body, sx.Call) and body.func in self.lets:
                name, index, args = body.func, None, body.args
            else:
                self.error(Code.ARGUMENTS, f"{s.target} is a let whose value is not a variable, so it cannot be assigned",
                           s.span, f"its value is computed (at {body.span}); a let names a place when its value is "
                           "a variable `x`, an indexed variable `x[e]` or another such let")
                return None
            where = inner
        if args is not None:
            self.error(Code.ARGUMENTS, f"{name} is a variable; assign it as {name}[...]" if self.var_decls[name].index
                       else f"{name} is a variable; assign it as {name}", s.span)
            return None
        return name, index, where


def _place_text(p) -> str:
    return _place_name(p) + ("[...]" if isinstance(p, sx.Index) else "(...)" if isinstance(p, sx.Call) else "")


def _place_name(p) -> str:
    """The name a place of a simultaneous assignment starts with (a variable, or a let: `score(p)`)."""
    return p.func if isinstance(p, sx.Call) else p.name
