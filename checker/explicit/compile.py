"""The concrete semantics: IR expressions and statements compiled to Python closures.

`Machine(instance)` is what the explorer runs: `initial_states()` and `successors(state)`.
Names are resolved and types checked while compiling, so a spec with an undefined name or a
type error fails with a diagnostic before any state is explored. The Z3 backend
(`checker.z3backend`) implements the same semantics independently; traces found here are
replayed there before they are reported.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass

from ..frontend import syntax as ir
from ..frontend.diagnostics import Diagnostic, SpecError
from ..frontend.instances import Instance, VarType

BOOL, INT, PLAYER, TEAM, SET, TSET, NONE = "bool", "int", "player", "team", "set", "tset", "none"
BUILTIN_FUNCS = {"team", "seat", "player_at", "left", "right", "next", "across", "dist", "dist_left",
                 "next_in_game", "prev_in_game", "left_in_game", "dist_in_game", "after", "in_game",
                 "lost", "won", "size", "abs", "members", "opponents", "teammates"}
BUILTIN_NAMES = {"players", "remaining", "teams", "nplayers", "nteams", "team_size", "player", "team"}


class Overflow(Exception):
    def __init__(self, var: str, value, span: ir.Span):
        super().__init__(f"{var} := {value}")
        self.var, self.value, self.span = var, value, span


class Ctx:
    """One evaluation: the values being read or written and the outcome facts of this step."""
    __slots__ = ("vals", "out", "tout", "lp", "lt", "wp", "wt", "draw", "hits")

    def __init__(self, vals, out=0, tout=0):
        self.vals = vals
        self.out = out
        self.tout = tout
        self.lp = self.lt = self.wp = self.wt = 0
        self.draw = False
        self.hits: list[int] = []


def err(code, msg, span, hint=""):
    return SpecError(Diagnostic(code, msg, span, hint))


def popcount(x: int) -> int:
    return bin(x).count("1")


@dataclass
class Rule:
    """A declaration or tagged statement the trace can cite."""
    kind: str
    name: str
    tags: tuple[str, ...]
    span: ir.Span


class Compiler:
    def __init__(self, inst: Instance, const_params: dict | None = None, const_only: bool = False):
        self.inst = inst
        self.params = dict(const_params if const_params is not None else inst.params)
        self.const_only = const_only
        self.rules: list[Rule] = []
        self.n = inst.nplayers
        self.all = (1 << self.n) - 1
        self.members = [inst.members_mask(t) for t in range(inst.nteams)]
        self.let_depth = 0

    def binder(self, name: str, span) -> None:
        """A new name bound by a quantifier, parameter or rule must not hide a global one."""
        inst = self.inst
        hidden = ("team" if name in inst.teams else "player" if name in inst.players
                  else "variable" if inst.var(name) or name in inst.static_choices else "parameter" if name in self.params
                  else "enumeration member" if name in inst.enum_of_member else None)
        if hidden:
            raise err("E011", f"`{name}` is bound here as a new name, which hides the {hidden} {name}", span,
                      f"use a fresh name and compare it, e.g. `lose team t when t == {name} and ...`")

    def rule(self, kind, name, tags, span) -> int:
        self.rules.append(Rule(kind, name, tuple(tags), span))
        return len(self.rules) - 1

    # ------------------------------------------------------------ expressions
    def expr(self, e, scope: dict, pol: int = 0, outcome_ctx: bool = False):
        """Compile `e`; returns (closure, type). `pol` is +1 where lost()/won() may appear."""
        m = getattr(self, "e_" + type(e).__name__)
        return m(e, scope, pol, outcome_ctx)

    def e_Num(self, e, scope, pol, oc):
        v = e.value
        return (lambda c: v), INT

    def e_Bool(self, e, scope, pol, oc):
        v = e.value
        return (lambda c: v), BOOL

    def e_NoneLit(self, e, scope, pol, oc):
        return (lambda c: -1), NONE

    def e_Name(self, e, scope, pol, oc):
        name = e.name
        if name in scope:
            cell, t = scope[name]
            return (lambda c: cell[0]), t
        inst = self.inst
        if name in inst.lets:
            let = inst.lets[name]
            if let.params:
                raise err("E012", f"{name} is a function of {len(let.params)} argument(s); call it as {name}(...)", e.span)
            return self._inline_let(let, (), scope, pol, oc, e.span)
        var = inst.var(name)
        if var is not None and not self.const_only:
            if var.indexed:
                raise err("E012", f"{name} holds one value per {var.indexed}; read it as {name}[...]", e.span,
                          f"for example {name}[p]")
            off = var.offset
            return (lambda c: c.vals[off]), _vt(var.type)
        if name in self.params:
            v = self.params[name]
            return (lambda c: v), INT
        if name in ("players", "player"):
            a = self.all
            return (lambda c: a), SET
        if name == "remaining":
            a = self.all
            return (lambda c: a & ~c.out), SET
        if name in ("teams", "team"):
            a = (1 << inst.nteams) - 1
            return (lambda c: a), TSET
        if name == "nplayers":
            v = self.n
            return (lambda c: v), INT
        if name == "nteams":
            v = inst.nteams
            return (lambda c: v), INT
        if name == "team_size":
            v = (self.n // inst.nteams) if inst.nteams else 1
            return (lambda c: v), INT
        if name in inst.players:
            v = inst.players.index(name)
            return (lambda c: v), PLAYER
        if name in inst.teams:
            v = inst.teams.index(name)
            return (lambda c: v), TEAM
        if name in inst.enum_of_member:
            vt = inst.enum_of_member[name]
            v = vt.members.index(name)
            return (lambda c: v), ("enum", vt.members)
        if var is not None and self.const_only:
            raise err("E013", f"{name} is a state variable; this place needs a constant", e.span,
                      "use parameters and lets here")
        raise self.undefined(name, e.span, scope)

    def undefined(self, name, span, scope):
        known = list(scope) + list(self.inst.lets) + [v.name for v in self.inst.vars] + list(self.params) \
            + list(self.inst.players) + list(self.inst.teams) + list(self.inst.enum_of_member) + sorted(BUILTIN_NAMES)
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"did you mean `{close[0]}`?" if close else "declare it with `var`, `param`, `let`, or bind it in a quantifier"
        return err("E010", f"`{name}` is not defined", span, hint)

    def e_Index(self, e, scope, pol, oc):
        var = self.inst.var(e.name)
        if var is None:
            if e.name in self.inst.lets:
                raise err("E012", f"{e.name} is a let; call it with parentheses", e.span, f"{e.name}(...)")
            raise self.undefined(e.name, e.span, scope)
        if self.const_only:
            raise err("E013", f"{e.name} is a state variable; this place needs a constant", e.span)
        if not var.indexed:
            raise err("E012", f"{e.name} is a single value, not one per player or team", e.span, f"write `{e.name}` without [...]")
        f, t = self.expr(e.index, scope, 0, oc)
        want = _vt(var.index_type)
        if t != want:
            raise err("E013", f"{e.name} is indexed by {_show(want)}, but this index is a {_show(t)}", e.index.span)
        off, base, count, span = var.offset - var.index_base, var.index_base, var.count, e.span

        def read(c):
            i = f(c)
            if not 0 <= i - base < count:
                raise EvalError(f"index {i} of {e.name} is outside its range", span)
            return c.vals[off + i]
        return read, _vt(var.type)

    def e_Unary(self, e, scope, pol, oc):
        if e.op == "not":
            f, t = self.expr(e.operand, scope, -pol, oc)
            self.want(t, BOOL, e.operand)
            return (lambda c: not f(c)), BOOL
        f, t = self.expr(e.operand, scope, 0, oc)
        self.want(t, INT, e.operand)
        return (lambda c: -f(c)), INT

    def e_Binary(self, e, scope, pol, oc):
        op = e.op
        if op in ("and", "or"):
            f, tf = self.expr(e.left, scope, pol, oc)
            g, tg = self.expr(e.right, scope, pol, oc)
            self.want(tf, BOOL, e.left)
            self.want(tg, BOOL, e.right)
            if op == "and":
                return (lambda c: f(c) and g(c)), BOOL
            return (lambda c: f(c) or g(c)), BOOL
        if op == "implies":
            f, tf = self.expr(e.left, scope, -pol, oc)
            g, tg = self.expr(e.right, scope, pol, oc)
            self.want(tf, BOOL, e.left)
            self.want(tg, BOOL, e.right)
            return (lambda c: (not f(c)) or g(c)), BOOL
        f, tf = self.expr(e.left, scope, 0, oc)
        g, tg = self.expr(e.right, scope, 0, oc)
        if op in ("in", "notin"):
            elem = _elem_of(tg)
            if elem is None:
                raise err("E013", f"the right side of `in` must be a set, not a {_show(tg)}", e.right.span)
            if not _compatible(tf, elem):
                raise err("E013", f"a {_show(tf)} cannot be a member of a set of {_show(elem)}s", e.span)
            if tg == "iset":
                fn = lambda c: f(c) in g(c)
            else:
                fn = lambda c: (lambda x: x >= 0 and (g(c) >> x) & 1 == 1)(f(c))
            if op == "notin":
                return (lambda c: not fn(c)), BOOL
            return fn, BOOL
        if op in ("==", "!="):
            if not _compatible(tf, tg):
                raise err("E013", f"cannot compare a {_show(tf)} with a {_show(tg)}", e.span)
            if op == "==":
                return (lambda c: f(c) == g(c)), BOOL
            return (lambda c: f(c) != g(c)), BOOL
        if op in ("<", "<=", ">", ">="):
            self.want(tf, INT, e.left)
            self.want(tg, INT, e.right)
            import operator
            o = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}[op]
            return (lambda c: o(f(c), g(c))), BOOL
        if op in ("+", "-") and tf in (SET, TSET) and tf == tg:
            if op == "+":
                return (lambda c: f(c) | g(c)), tf
            return (lambda c: f(c) & ~g(c)), tf
        self.want(tf, INT, e.left)
        self.want(tg, INT, e.right)
        if op == "+":
            return (lambda c: f(c) + g(c)), INT
        if op == "-":
            return (lambda c: f(c) - g(c)), INT
        if op == "*":
            return (lambda c: f(c) * g(c)), INT
        if op in ("/", "%"):
            span = e.span

            def div(c, f=f, g=g, op=op):
                d = g(c)
                if d == 0:
                    raise EvalError("division by zero", span)
                return f(c) // d if op == "/" else f(c) % d
            return div, INT
        raise AssertionError(op)

    def e_Ite(self, e, scope, pol, oc):
        f, tf = self.expr(e.cond, scope, 0, oc)
        g, tg = self.expr(e.then, scope, pol, oc)
        h, th = self.expr(e.other, scope, pol, oc)
        self.want(tf, BOOL, e.cond)
        if not _compatible(tg, th):
            raise err("E013", f"the branches of this `if` have different types: {_show(tg)} and {_show(th)}", e.span)
        return (lambda c: g(c) if f(c) else h(c)), (tg if tg != NONE else th)

    def e_SetLit(self, e, scope, pol, oc):
        parts = [self.expr(x, scope, 0, oc) for x in e.items]
        if not parts:
            return (lambda c: 0), SET
        types = {t for _, t in parts}
        t0 = parts[0][1]
        if any(not _compatible(t, t0) for t in types):
            raise err("E013", "a set literal mixes values of different types", e.span)
        fs = [f for f, _ in parts]
        if t0 in (PLAYER, TEAM) or (isinstance(t0, tuple) and t0[0] == "enum"):
            st = SET if t0 == PLAYER else TSET if t0 == TEAM else ("eset", t0[1])

            def mk(c):
                m = 0
                for f in fs:
                    v = f(c)
                    if v >= 0:
                        m |= 1 << v
                return m
            return mk, st
        if t0 == INT:
            return (lambda c: frozenset(f(c) for f in fs)), "iset"
        raise err("E013", f"sets of {_show(t0)} are not supported", e.span)

    def domain(self, d, scope, oc):
        """(closure giving an iterable of values, element type)."""
        if isinstance(d, ir.RangeDomain):
            lo, tl = self.expr(d.low, scope, 0, oc)
            hi, th = self.expr(d.high, scope, 0, oc)
            self.want(tl, INT, d.low)
            self.want(th, INT, d.high)
            return (lambda c: range(lo(c), hi(c) + 1)), INT
        f, t = self.expr(d.expr, scope, 0, oc)
        elem = _elem_of(t)
        if elem is None:
            raise err("E013", f"cannot range over a {_show(t)}", d.span, "use a range `lo..hi` or a set such as `players`")
        if t == "iset":
            return (lambda c: sorted(f(c))), INT
        width = self.n if t == SET else self.inst.nteams if t == TSET else len(t[1])
        bits = [(i, 1 << i) for i in range(width)]

        def members(c):
            mask = f(c)  # once, not once per element
            return [i for i, b in bits if mask & b]
        return members, elem

    def e_Quant(self, e, scope, pol, oc):
        self.binder(e.var, e.span)
        dom, et = self.domain(e.domain, scope, oc)
        cell = [None]
        body, tb = self.expr(e.body, {**scope, e.var: (cell, et)}, pol, oc)
        self.want(tb, BOOL, e.body)
        if e.kind == "forall":
            def fa(c):
                for v in dom(c):
                    cell[0] = v
                    if not body(c):
                        return False
                return True
            return fa, BOOL

        def ex(c):
            for v in dom(c):
                cell[0] = v
                if body(c):
                    return True
            return False
        return ex, BOOL

    def e_Aggregate(self, e, scope, pol, oc):
        self.binder(e.var, e.span)
        dom, et = self.domain(e.domain, scope, oc)
        cell = [None]
        body, tb = self.expr(e.body, {**scope, e.var: (cell, et)}, 0, oc)
        kind = e.kind
        if kind == "count":
            self.want(tb, BOOL, e.body)
        else:
            self.want(tb, INT, e.body)

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
        return agg, INT

    def e_Call(self, e, scope, pol, oc):
        name = e.func
        if name in self.inst.lets:
            let = self.inst.lets[name]
            if len(let.params) != len(e.args):
                raise err("E012", f"{name} takes {len(let.params)} argument(s), given {len(e.args)}", e.span)
            return self._inline_let(let, e.args, scope, pol, oc, e.span)
        if name not in BUILTIN_FUNCS:
            close = difflib.get_close_matches(name, sorted(BUILTIN_FUNCS) + list(self.inst.lets), n=1)
            raise err("E010", f"there is no function `{name}`", e.span,
                      f"did you mean `{close[0]}`?" if close else "see the table of built-in functions in docs/language.md")
        if self.const_only and name in ("in_game", "lost", "won", "next_in_game", "prev_in_game", "left_in_game", "dist_in_game"):
            raise err("E013", f"{name}() depends on the state; this place needs a constant", e.span)
        args = [self.expr(a, scope, pol if name in ("lost", "won") else 0, oc) for a in e.args]
        return getattr(self, "f_" + name)(e, args, pol, oc)

    def _inline_let(self, let, args, scope, pol, oc, span):
        if self.let_depth > 30:
            raise err("E012", f"{let.name} calls itself; lets may not be recursive", span)
        new_scope = {}
        compiled = []
        for prm, a in zip(let.params, args):
            f, t = self.expr(a, scope, 0, oc)
            cell = [None]
            new_scope[prm.name] = (cell, t)
            compiled.append((cell, f))
        self.let_depth += 1
        try:
            body, tb = self.expr(let.body, new_scope, pol, oc)
        finally:
            self.let_depth -= 1
        if not compiled:
            return body, tb

        def call(c):
            vals = [f(c) for _, f in compiled]
            for (cell, _), v in zip(compiled, vals):
                cell[0] = v
            return body(c)
        return call, tb

    def nargs(self, e, args, k, *types):
        if len(args) != k:
            raise err("E012", f"{e.func}() takes {k} argument(s), given {len(args)}", e.span)
        for (f, t), want, a in zip(args, types, e.args):
            if want is not None and not (t == want or (t == NONE and want == PLAYER)):
                raise err("E013", f"argument of {e.func}() must be a {_show(want)}, not a {_show(t)}", a.span)
        return [f for f, _ in args]

    def f_team(self, e, args, pol, oc):
        (p,) = self.nargs(e, args, 1, PLAYER)
        if not self.inst.has_teams:
            raise err("E013", "team() needs teams, and this format has none", e.span, "declare `teams ... size ...`")
        to = self.inst.team_of
        return (lambda c: to[p(c)]), TEAM

    def f_seat(self, e, args, pol, oc):
        (p,) = self.nargs(e, args, 1, PLAYER)
        return p, INT

    def f_player_at(self, e, args, pol, oc):
        (i,) = self.nargs(e, args, 1, INT)
        n = self.n
        return (lambda c: i(c) % n), PLAYER

    def f_left(self, e, args, pol, oc):
        p, k = self.nargs(e, args, 2, PLAYER, INT)
        n = self.n
        return (lambda c: (p(c) + k(c)) % n), PLAYER

    def f_right(self, e, args, pol, oc):
        p, k = self.nargs(e, args, 2, PLAYER, INT)
        n = self.n
        return (lambda c: (p(c) - k(c)) % n), PLAYER

    def f_next(self, e, args, pol, oc):
        (p,) = self.nargs(e, args, 1, PLAYER)
        n = self.n
        return (lambda c: (p(c) + 1) % n), PLAYER

    def f_across(self, e, args, pol, oc):
        (p,) = self.nargs(e, args, 1, PLAYER)
        n = self.n
        if n % 2:
            raise err("E013", f"across() needs an even number of players; this instance has {n}", e.span,
                      "use left(p, k) or right(p, k) for odd tables")
        return (lambda c: (p(c) + n // 2) % n), PLAYER

    def f_dist(self, e, args, pol, oc):
        p, q = self.nargs(e, args, 2, PLAYER, PLAYER)
        n = self.n
        return (lambda c: min((q(c) - p(c)) % n, (p(c) - q(c)) % n)), INT

    def f_dist_left(self, e, args, pol, oc):
        p, q = self.nargs(e, args, 2, PLAYER, PLAYER)
        n = self.n
        return (lambda c: (q(c) - p(c)) % n), INT

    def f_next_in_game(self, e, args, pol, oc):
        (p,) = self.nargs(e, args, 1, PLAYER)
        n = self.n
        return (lambda c: ring_step(p(c), 1, 1, c.out, n)), PLAYER

    def f_prev_in_game(self, e, args, pol, oc):
        (p,) = self.nargs(e, args, 1, PLAYER)
        n = self.n
        return (lambda c: ring_step(p(c), 1, -1, c.out, n)), PLAYER

    def f_left_in_game(self, e, args, pol, oc):
        p, k = self.nargs(e, args, 2, PLAYER, INT)
        n = self.n
        return (lambda c: ring_step(p(c), k(c), 1, c.out, n)), PLAYER

    def f_dist_in_game(self, e, args, pol, oc):
        p, q = self.nargs(e, args, 2, PLAYER, PLAYER)
        n = self.n
        return (lambda c: dist_in_game(p(c), q(c), c.out, n)), INT

    def f_after(self, e, args, pol, oc):
        if len(args) < 2:
            raise err("E012", "after(x, a, b, ...) needs the value and at least one list element", e.span)
        (x, tx), rest = args[0], args[1:]
        for (f, t), a in zip(rest, e.args[1:]):
            if not _compatible(t, tx):
                raise err("E013", f"after(): list element is a {_show(t)}, the value a {_show(tx)}", a.span)
        fs = [f for f, _ in rest]

        def after(c):
            v = x(c)
            vals = [f(c) for f in fs]
            for i, w in enumerate(vals):
                if w == v:
                    return vals[(i + 1) % len(vals)]
            return vals[0]
        return after, tx

    def f_in_game(self, e, args, pol, oc):
        if len(args) != 1:
            raise err("E012", "in_game() takes 1 argument", e.span)
        f, t = args[0]
        if t == PLAYER:
            return (lambda c: not (c.out >> f(c)) & 1), BOOL
        if t == TEAM:
            mem = self.members
            return (lambda c: not (c.tout >> f(c)) & 1 and (mem[f(c)] & ~c.out) != 0), BOOL
        raise err("E013", f"in_game() takes a player or a team, not a {_show(t)}", e.args[0].span)

    def _polarity(self, e, pol, oc):
        if oc and pol != 1:
            raise err("E014", f"{e.func}() may only be used positively in an outcome rule (not under `not`, "
                              "not left of `implies`, not in a comparison)", e.span,
                      "state the rule positively, or test the player's built-in status with in_game()")

    def f_lost(self, e, args, pol, oc):
        self._polarity(e, pol, oc)
        if len(args) != 1:
            raise err("E012", "lost() takes 1 argument", e.span)
        f, t = args[0]
        if t == PLAYER:
            return (lambda c: ((c.out | c.lp) >> f(c)) & 1 == 1), BOOL
        if t == TEAM:
            return (lambda c: ((c.tout | c.lt) >> f(c)) & 1 == 1), BOOL
        raise err("E013", f"lost() takes a player or a team, not a {_show(t)}", e.args[0].span)

    def f_won(self, e, args, pol, oc):
        self._polarity(e, pol, oc)
        if len(args) != 1:
            raise err("E012", "won() takes 1 argument", e.span)
        f, t = args[0]
        if t == PLAYER:
            return (lambda c: (c.wp >> f(c)) & 1 == 1), BOOL
        if t == TEAM:
            return (lambda c: (c.wt >> f(c)) & 1 == 1), BOOL
        raise err("E013", f"won() takes a player or a team, not a {_show(t)}", e.args[0].span)

    def f_size(self, e, args, pol, oc):
        if len(args) != 1 or args[0][1] not in (SET, TSET, "iset") and not (isinstance(args[0][1], tuple)):
            raise err("E013", "size() takes one set", e.span)
        f, t = args[0]
        if t == "iset":
            return (lambda c: len(f(c))), INT
        return (lambda c: popcount(f(c))), INT

    def f_abs(self, e, args, pol, oc):
        (f,) = self.nargs(e, args, 1, INT)
        return (lambda c: abs(f(c))), INT

    def f_members(self, e, args, pol, oc):
        (t,) = self.nargs(e, args, 1, TEAM)
        mem = self.members
        return (lambda c: mem[t(c)]), SET

    def f_opponents(self, e, args, pol, oc):
        (p,) = self.nargs(e, args, 1, PLAYER)
        a = self.all
        if self.inst.has_teams:
            mem, to = self.members, self.inst.team_of
            return (lambda c: a & ~mem[to[p(c)]]), SET
        return (lambda c: a & ~(1 << p(c))), SET

    def f_teammates(self, e, args, pol, oc):
        (p,) = self.nargs(e, args, 1, PLAYER)
        if self.inst.has_teams:
            mem, to = self.members, self.inst.team_of
            return (lambda c: mem[to[p(c)]] & ~(1 << p(c))), SET
        return (lambda c: 0), SET

    def want(self, t, want, node):
        if t != want and not (want == PLAYER and t == NONE):
            raise err("E013", f"expected a {_show(want)} here, found a {_show(t)}", node.span)

    # ------------------------------------------------------------ statements
    def stmts(self, body, scope):
        fs = [self.stmt(s, scope) for s in body]

        def run(c):
            for f in fs:
                f(c)
        return run

    def stmt(self, s, scope):
        rid = self.rule("statement", type(s).__name__, s.tags, s.span) if s.tags else None
        f = getattr(self, "s_" + type(s).__name__)(s, scope)
        if rid is None:
            return f

        def tagged(c):
            c.hits.append(rid)
            f(c)
        return tagged

    def s_Assign(self, s, scope):
        var = self.inst.var(s.target)
        if var is None:
            if any(isinstance(d, ir.VarDecl) and d.name == s.target for d in self.inst.decls):
                raise err("E013", f"{s.target} is a choice made before play and never changes", s.span)
            raise self.undefined(s.target, s.span, scope)
        if var.decl.is_choice:
            raise err("E013", f"{s.target} is a choice made before play and never changes", s.span,
                      "declare it with `var` if the game changes it")
        g, tv = self.expr(s.value, scope)
        want = _vt(var.type)
        if not _compatible(tv, want) or (tv == NONE and not var.type.optional):
            raise err("E013", f"{s.target} holds a {_show(want)}; this value is a {_show(tv)}", s.value.span)
        vt, n, nt, name, span = var.type, self.n, self.inst.nteams, var.name, s.span
        if var.indexed:
            if s.index is None:
                raise err("E012", f"{name} holds one value per {var.indexed}; assign {name}[...]", s.span)
            fi, ti = self.expr(s.index, scope)
            if ti != _vt(var.index_type):
                raise err("E013", f"{name} is indexed by {_show(_vt(var.index_type))}, but this index is a {_show(ti)}",
                          s.index.span)
            off, base, count = var.offset - var.index_base, var.index_base, var.count
            keys = var.index_keys(self.inst)

            def assign_at(c):
                v = g(c)
                i = fi(c)
                if not 0 <= i - base < count:
                    raise EvalError(f"index {i} of {name} is outside its range", span)
                if not vt.contains(v, n, nt):
                    raise Overflow(f"{name}[{keys[i - base]}]", v, span)
                c.vals[off + i] = v
            return assign_at
        if s.index is not None:
            raise err("E012", f"{name} is a single value; assign it without [...]", s.span)
        off = var.offset

        def assign(c):
            v = g(c)
            if not vt.contains(v, n, nt):
                raise Overflow(name, v, span)
            c.vals[off] = v
        return assign

    def s_If(self, s, scope):
        branches = []
        for cond, body in s.branches:
            f, t = self.expr(cond, scope)
            self.want(t, BOOL, cond)
            branches.append((f, self.stmts(body, scope)))
        other = self.stmts(s.otherwise, scope)

        def run(c):
            for f, b in branches:
                if f(c):
                    b(c)
                    return
            other(c)
        return run

    def s_ForallStmt(self, s, scope):
        self.binder(s.var, s.span)
        dom, et = self.domain(s.domain, scope, False)
        cell = [None]
        body = self.stmts(s.body, {**scope, s.var: (cell, et)})

        def run(c):
            for v in list(dom(c)):
                cell[0] = v
                body(c)
        return run

    def s_OutcomeStmt(self, s, scope):
        if s.kind == "draw":
            def draw(c):
                c.draw = True
            return draw
        f, t = self.expr(s.subject, scope)
        if t not in (PLAYER, TEAM):
            raise err("E013", f"`{s.kind}` needs a player or a team, not a {_show(t)}", s.subject.span)
        attr = ("lp" if s.kind == "lose" else "wp") if t == PLAYER else ("lt" if s.kind == "lose" else "wt")

        def outcome(c):
            setattr(c, attr, getattr(c, attr) | (1 << f(c)))
        return outcome


class EvalError(Exception):
    def __init__(self, msg, span):
        super().__init__(msg)
        self.span = span


def ring_step(p: int, k: int, direction: int, out: int, n: int) -> int:
    """The k-th player still in the game from p going left (+1) or right (-1); p if none."""
    q, found = p, 0
    for _ in range(n * max(k, 1)):
        q = (q + direction) % n
        if q == p and found == 0:
            break
        if not (out >> q) & 1:
            found += 1
            if found == k:
                return q
    return p


def dist_in_game(p: int, q: int, out: int, n: int) -> int:
    ring = [s for s in range(n) if not (out >> s) & 1 or s in (p, q)]
    i, j = ring.index(p), ring.index(q)
    d = (j - i) % len(ring)
    return min(d, len(ring) - d)


def _vt(t: VarType):
    if t.kind == "enum":
        return ("enum", t.members)
    return t.kind


def _elem_of(t):
    if t == SET:
        return PLAYER
    if t == TSET:
        return TEAM
    if t == "iset":
        return INT
    if isinstance(t, tuple) and t[0] == "eset":
        return ("enum", t[1])
    return None


def _compatible(a, b) -> bool:
    if a == b:
        return True
    return {a, b} == {PLAYER, NONE}


def _show(t) -> str:
    if isinstance(t, tuple):
        return "{" + ", ".join(t[1]) + "}" + (" value" if t[0] == "enum" else " set")
    return {"set": "set of players", "tset": "set of teams", "iset": "set of numbers", "none": "none",
            "int": "number", "bool": "boolean"}.get(t, t)


def const_eval(inst: Instance, e: ir.Expr, params: dict):
    comp = Compiler(inst, params, const_only=True)
    f, _ = comp.expr(e, {})
    try:
        return f(Ctx(()))
    except EvalError as exc:
        raise err("E017", str(exc), exc.span)
