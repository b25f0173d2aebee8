"""The resolve pass: syntax -> typed IR, for every format and reading of a file.

Names are looked up (binders, lets, variables, parameters, built-ins, players, teams,
enumeration members, in that order), types are checked and recorded, lets are inlined, the
polarity of `lost`/`won` in outcome rules is checked against the strata of outcome resolution,
and `expect` kinds are checked. Errors are collected, never raised: a model with errors still
comes back (with placeholder nodes) so that every error of every model is reported at once,
each naming its format and reading. Nothing here evaluates a parameter: that is
`checker.frontend.instances`.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import replace

from . import builtins as bi
from . import syntax as sx
from . import typed as T
from .compose import compose
from .diagnostics import Diagnostic
from .grammar import keywords
from .types import BOOL, INT, INTS, NONE, OPT_PLAYER, PLAYER, PLAYERS, TEAM, TEAMS, Step, Ty, accepts, enum, join, set_of
from .lower import match as lower_match
from .lower import phases as lower_phases
from .resolver.context import ERROR, MAX_EXPANDED_DEPTH, MAX_LET_NESTING, MAX_LET_USES, STEP_ONLY, Ctx
from .steps import StepsMixin, const_text



# ---------------------------------------------------------------- formats and readings

def variants(spec: sx.SpecFile) -> list[tuple[str, str, tuple]]:
    """(format, reading, declarations) for every model the file defines (see `compose`)."""
    return compose(spec)[0]


def resolve_spec(spec: sx.SpecFile, finding_kinds, measures=None) -> tuple[list[T.Model], list[Diagnostic]]:
    """Every model of the file, typed, and every error found in any of them (each once).
    `measures` maps a finding kind to the unit its size is counted in (what `expect` may record)."""
    models, diags, seen = [], [], set()
    composed, composing = compose(spec)
    diags.extend(composing)
    for fmt, reading, decls in composed:
        r = Resolver(spec, fmt, reading, decls, tuple(finding_kinds), dict(measures or {}))
        models.append(r.run())
        for d in r.diags:
            key = (d.code, d.message, d.span)
            if key not in seen:  # the same mistake in a shared declaration is reported once
                seen.add(key)
                diags.append(d)
    return models, diags


# ---------------------------------------------------------------- the resolver

class Resolver(StepsMixin):
    def __init__(self, spec, fmt, reading, decls, kinds, measures=None):
        self.spec, self.fmt, self.reading, self.decls, self.kinds = spec, fmt, reading, decls, kinds
        self.measures = measures or {}
        self.context = " and ".join(x for x in (f"format {fmt}" if fmt else "", f"reading {reading}" if reading else "") if x)
        self.diags: list[Diagnostic] = []
        self.rules: list[T.Rule] = []
        self.uid = 0
        self.names_used: list[tuple[str, str, sx.Span]] = []
        self.across_used: list[sx.Span] = []
        self.inlining: list[str] = []
        self.inlined = 0  # uses of lets expanded so far, in the whole model
        self.depth = 0  # expressions being resolved inside each other, lets expanded
        self.told_depth = False
        self.lets: dict[str, sx.LetDecl] = {}
        self.routines: dict[str, sx.RoutineDecl] = {}
        self.params: dict[str, sx.ParamDecl] = {}
        self.var_decls: dict[str, sx.VarDecl] = {}
        self.var_order: dict[str, int] = {}
        self.enum_of_member: dict[str, Ty] = {}
        self.var_types: dict[str, Ty] = {}
        self.step_checks: list[tuple] = []  # constants counted in steps, checked per instance
        self.match_decl = lower_match.declare(self, decls)  # first: a game's initial values may read them
        self.phase_chain: tuple = ()  # the lowered ends of every step (`run` sets them)
        self.game_end: tuple = ()
        for d in decls:
            if isinstance(d, (sx.LetDecl, sx.ParamDecl, sx.VarDecl, sx.RoutineDecl)):
                self.not_reserved(d.name, d.span)
            if isinstance(d, sx.LetDecl):
                self._unique(self.lets, d, "let")
            elif isinstance(d, sx.RoutineDecl):
                self._unique(self.routines, d, "routine")
            elif isinstance(d, sx.ParamDecl):
                self._unique(self.params, d, "parameter")
            elif isinstance(d, sx.VarDecl):
                self.declare_var(d)
        self.phase_decls = lower_phases.declare(self, decls)
        teams = [d for d in decls if isinstance(d, sx.TeamsDecl)]
        self.teams_decl = teams[-1] if teams else None
        seating = [d for d in decls if isinstance(d, sx.SeatingDecl)]
        self.seating = seating[-1] if seating else None
        self.has_teams = self.teams_decl is not None
        self.dynamic = _dynamic_names(decls, self.lets)
        for d in self.var_decls.values():  # enum types first: any declaration may name a member
            for t in (d.type, d.index[1] if d.index else None):
                if isinstance(t, sx.TEnum):
                    self._enum(t)
        for t in self._inline_enums(decls):  # `how: {hold, conquer}` declares its members where it stands
            self._enum(t)

    # ------------------------------------------------------------ diagnostics
    def error(self, code, message, span, hint="") -> None:
        self.diags.append(Diagnostic(code, message, span, hint, context=self.context))

    def _unique(self, table, d, what) -> bool:
        if d.name in table:
            self.error("E011", f"{what} {d.name} is declared twice", d.span,
                       f"the first declaration is at {table[d.name].span}")
            return False
        table[d.name] = d
        return True

    def declare_var(self, d: sx.VarDecl) -> bool:
        """Declare variable `d` (in the order variables are numbered), unless its name is taken."""
        if not self._unique(self.var_decls, d, "variable"):
            return False
        self.var_order[d.name] = len(self.var_order)
        return True

    def _inline_enums(self, decls) -> list[sx.TEnum]:
        """Set literals of fresh names in a binder's domain (`how: {hold, conquer}`): enumerations
        that no variable declares, written where a parameter ranges over them."""
        found = []
        for n in sx.walk(list(decls)):
            dom = n.domain if isinstance(n, (sx.Param, sx.Quant, sx.Aggregate, sx.SetComp, sx.ForallStmt)) else None
            if not (isinstance(dom, sx.SetDomain) and isinstance(dom.expr, sx.SetLit) and dom.expr.items
                    and all(isinstance(x, sx.Name) for x in dom.expr.items)):
                continue
            names = tuple(x.name for x in dom.expr.items)
            if any(self._known(x) for x in names):
                continue
            found.append(sx.TEnum(names, dom.span))
        return found

    def _known(self, name: str) -> bool:
        return (name in self.lets or name in self.var_decls or name in self.params or name in bi.NAMES
                or name in self.enum_of_member or self.player_or_team(name) is not None)

    def _enum(self, t: sx.TEnum) -> Ty:
        ty = enum(t.members)
        for m in t.members:
            other = self.enum_of_member.get(m)
            if other is not None and other != ty:
                self.error("E011", f"enumeration member {m} belongs to two different enumerations", t.span,
                           "give members of different enumerations different names")
            self.enum_of_member.setdefault(m, ty)
        return ty

    def fresh(self, name, ty, span) -> T.Binder:
        self.uid += 1
        return T.Binder(self.uid, name, ty, span)

    def rule(self, kind, name, tags, span) -> int:
        """The id of a citable rule; a routine's statements, run from several actions, are one rule."""
        r = T.Rule(kind, name, tuple(tags), span)
        for i, known in enumerate(self.rules):
            if known == r and known.span == span:
                return i
        self.rules.append(r)
        return len(self.rules) - 1

    # ------------------------------------------------------------ names
    def player_or_team(self, name: str) -> str | None:
        """Whether `name` names a player or a team of this model (for some parameter values)."""
        td = self.teams_decl
        if td is None:
            return "player" if re.fullmatch(r"P[1-9][0-9]*", name) else None
        if td.names is not None:
            if name in td.names:
                return "team"
            m = re.fullmatch(r"(.*?)([1-9][0-9]*)", name)
            return "player" if m and m.group(1) in td.names else None
        if re.fullmatch(r"[A-Z]", name):
            return "team"
        return "player" if re.fullmatch(r"[A-Z][1-9][0-9]*", name) else None

    def not_reserved(self, name, span) -> None:
        if name in keywords() or name in bi.NAMES or name in bi.FUNCTIONS:
            what = "a keyword of the language" if name in keywords() else "a built-in name"
            self.error("E011", f"`{name}` is {what} and cannot name a variable, parameter, let or binder", span,
                       f"choose another name, such as `{name}_now` or `is_{name}`")

    def binder(self, name, ty, span, scope) -> T.Binder:
        """A new name bound by a quantifier, parameter or rule must not hide a global one."""
        self.not_reserved(name, span)
        hidden = ("team" if self.player_or_team(name) == "team" else "player" if self.player_or_team(name) == "player"
                  else "variable" if name in self.var_decls else "parameter" if name in self.params
                  else "enumeration member" if name in self.enum_of_member else "let" if name in self.lets
                  else None)  # an inner binder may reuse an outer one's name: the inner one is meant there
        if hidden:
            self.error("E011", f"`{name}` is bound here as a new name, which hides the {hidden} {name}", span,
                       f"use a fresh name and compare it, e.g. `t == {name}`" if hidden in ("team", "player")
                       else "use a fresh name")
        return self.fresh(name, ty, span)

    def undefined(self, name, span, scope):
        known = list(scope) + list(self.lets) + list(self.var_decls) + list(self.params) \
            + list(self.enum_of_member) + sorted(bi.NAMES) + sorted(bi.FUNCTIONS)
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"did you mean `{close[0]}`?" if close else "declare it with `var`, `param`, `let`, or bind it in a quantifier"
        self.error("E010", f"`{name}` is not defined", span, hint)
        return T.Const(0, ERROR, span)

    # ------------------------------------------------------------ expressions
    def ex(self, e, scope: dict, ctx: Ctx, pol: int = 1):
        """Resolve `e`. `pol` is +1 where the expression counts positively, -1 under `not` or left
        of `implies`, 0 where both (comparisons, aggregates, `if` conditions)."""
        method = getattr(self, "x_" + type(e).__name__)
        if self.depth >= MAX_EXPANDED_DEPTH:  # only lets get here: the parser refuses deeper text
            if not self.told_depth:
                self.told_depth = True
                self.error("E006", f"with its lets expanded, this expression nests deeper than {MAX_EXPANDED_DEPTH} levels",
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
                self.error("E012", f"{name} is a function of {len(let.params)} argument(s); call it as {name}(...)", e.span)
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
        self.error("E013", f"{what} is not a constant; this place needs one", span,
                   "use numbers, parameters and lets of them here (and nplayers, nteams, team_size in a type)")
        return T.Const(0, ERROR, span)

    def var_ref(self, name, index, span, scope, ctx):
        d = self.var_decls[name]
        ty = self.var_types.get(name, ERROR)
        if ctx.const:
            self.error("E013", f"{name} is a state variable; this place needs a constant", span,
                       "use parameters and lets here")
            return T.Const(0, ERROR, span)
        if ctx.init_of >= 0 and self.var_order[name] >= ctx.init_of:
            self.error("E013", f"the initial value reads {name}, which is declared "
                       + ("by this declaration" if self.var_order[name] == ctx.init_of else "later"), span,
                       f"declare {name} before the variable whose initial value reads it")
            return T.Const(0, ERROR, span)
        static = d.is_choice and name not in self.dynamic
        if d.index is None:
            if index is not None:
                self.error("E012", f"{name} is a single value, not one per player or team", span, f"write `{name}` without [...]")
                return T.Const(0, ERROR, span)
            return T.VarRef(name, None, ty, static, span)
        if index is None:
            kind = d.index[1] if isinstance(d.index[1], str) else "value"
            self.error("E012", f"{name} holds one value per {kind}; read it as {name}[...]", span, f"for example {name}[p]")
            return T.Const(0, ERROR, span)
        i = self.ex(index, scope, ctx, 0)
        i = self.coerce(i, self.index_type(d), f"the index of {name}")
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
                self.error("E012", f"{e.name} is a let; call it with parentheses", e.span, f"{e.name}(...)")
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
            self.error("E013", f"{what or 'this'} must be a {ty.kind}, and `none` is not one", x.span,
                       f"declare the variable `{ty.kind}?`, or test for none first")
        elif what:
            self.error("E013", f"{what} must be a {ty}, not a {x.type}", x.span)
        else:
            self.error("E013", f"expected a {ty} here, found a {x.type}", x.span)
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
                self.error("E013", f"the right side of `in` must be a set, not a {b.type}", e.right.span)
                return T.Const(0, ERROR, e.span)
            if join(a.type, b.type.elem) is None:
                self.error("E013", f"a {a.type} cannot be a member of a {b.type}", e.span)
                return T.Const(0, ERROR, e.span)
            return T.Member(a, b, op == "notin", BOOL, e.span)
        if self.step_of(a) is not None or self.step_of(b) is not None:
            return self.stepped_binary(op, a, b, e.span)
        if op in ("==", "!="):
            if join(a.type, b.type) is None:
                self.error("E013", f"cannot compare a {a.type} with a {b.type}", e.span)
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
            self.error("E013", f"the branches of this `if` have different types: {a.type} and {b.type}", e.span)
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
                self.error("E013", "a set literal mixes values of different types", e.span)
                return T.Const(0, ERROR, e.span)
        if ty.kind not in ("player", "team", "enum", "int"):
            self.error("E013", f"sets of {ty} are not supported", e.span, "sets hold players, teams, numbers or members")
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
            self.error("E013", f"sets of {ty} are not supported", e.elem.span,
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
            self.error("E013", f"cannot range over a {s.type}", d.span, "use a range `lo..hi` or a set such as `players`")
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

    def x_Call(self, e, scope, ctx, pol):
        name = e.func
        if name in self.lets:
            let = self.lets[name]
            if len(let.params) != len(e.args):
                self.error("E012", f"{name} takes {len(let.params)} argument(s), given {len(e.args)}", e.span)
                return T.Const(0, ERROR, e.span)
            return self.inline(let, e.args, scope, ctx, pol, e.span)
        if name in ("count", "sum", "argmin", "argmax"):  # `count(a, b)`: the keywords parse as calls
            self.error("E012", f"{name} is an aggregate over a domain, not a function of values", e.span,
                       f"write `{name}(x in DOMAIN: ...)`; of a list of numbers only `min(a, b, ...)` and "
                       "`max(a, b, ...)` are written as functions")
            return T.Const(0, ERROR, e.span)
        if name not in bi.FUNCTIONS:
            if name in bi.NAMES:
                self.error("E012", f"{name} is a built-in name, not a function", e.span, f"write `{name}` without (...)")
                return T.Const(0, ERROR, e.span)
            close = difflib.get_close_matches(name, sorted(bi.FUNCTIONS) + list(self.lets), n=1)
            self.error("E010", f"there is no function `{name}`", e.span,
                       f"did you mean `{close[0]}`?" if close else "see the table of built-in functions in docs/language.md")
            return T.Const(0, ERROR, e.span)
        entries = bi.FUNCTIONS[name]
        args = [self.ex(a, scope, ctx, 0) for a in e.args]
        if any(a.type == ERROR for a in args):
            return T.Const(0, ERROR, e.span)
        if name in ("min", "max", "abs") and any(self.step_of(a) is not None for a in args):
            return self.stepped_call(name, args, e.span)
        entry = _pick(entries, args)
        if entry is None:
            arity = {len(b.params) for b in entries}
            if not any(len(b.params) == len(args) or "*" in b.params and len(args) >= len(b.params) - 1 for b in entries):
                want = "at least 2" if any("*" in b.params for b in entries) else " or ".join(str(n) for n in sorted(arity))
                self.error("E012", f"{name}() takes {want} argument(s), given {len(args)}", e.span)
            else:
                shown = " or ".join(f"a {p}" for b in entries for p in b.params[:1] if isinstance(p, Ty))
                bad = next((a for a in args if a.type.kind == "none"), args[0])
                self.error("E013", f"argument of {name}() must be {shown or 'a value of the listed type'}, not a {bad.type}"
                           if len(entries) > 1 or len(args) == 1 else f"the arguments of {name}() do not fit: "
                           + ", ".join(str(a.type) for a in args), bad.span,
                           "see the table of built-in functions in docs/language.md")
            return T.Const(0, ERROR, e.span)
        return self.call(entry, args, e.span, ctx, pol)

    def call(self, entry: bi.Builtin, args, span, ctx, pol=1):
        if entry.needs_teams and not self.has_teams:
            self.error("E013", f"{entry.name}() needs teams, and this format has none" if entry.params
                       else f"`{entry.name}` needs teams, and this format has none", span, "declare `teams ... size ...`")
            return T.Const(0, ERROR, span)
        if ctx.const and not (entry.key in ("abs", "min", "max") or ctx.const == "sizes" and entry.key in ("nplayers", "nteams", "team_size")):
            return self.not_const(entry.name + ("()" if entry.params else ""), span)
        if entry.reads == "outcome":
            self.check_polarity(entry, span, ctx, pol)
        if entry.key in STEP_ONLY and not ctx.step:
            self.error("E014", f"{entry.name}() means \"lost in the step being settled\", and only outcome rules "
                       "and triggers see a step", span,
                       "use lost(x) (lost now or earlier) here, or state the rule as an outcome rule or a trigger")
            return T.Const(False, BOOL, span)
        if entry.reads == "end" and ctx.phase:
            self.error("E014", f"`{entry.name}` reads the end of the game, which the outcome rules decide", span,
                       "use lost(), won() and the state in outcome rules")
            return T.Const(False, BOOL, span)
        if entry.key == "across":
            self.across_used.append(span)
        params = entry.params
        fitted = []
        for i, a in enumerate(args):
            p = params[min(i, len(params) - 1)] if params[-1] != "*" else (params[i] if i < len(params) - 1 else params[-2])
            if isinstance(p, Ty):
                a = self.coerce(a, p, f"argument {i + 1} of {entry.name}()")
            fitted.append(a)
        if entry.result == "first":
            if fitted[0].type.kind == "set":
                self.error("E013", f"{entry.name}() steps through a list of single values, not sets", span,
                           "list players, teams, numbers or members")
                return T.Const(0, ERROR, span)
            ty = fitted[0].type
            for a in fitted[1:]:
                ty = join(ty, a.type) or ty
            if ty.kind == "none":
                ty = OPT_PLAYER
            fitted = [self.coerce(a, ty, "") if ty.kind == "player" else a for a in fitted]
            if entry.key == "after":
                self.after_listed(fitted)
        else:
            ty = entry.result
        return T.Call(entry.key, tuple(fitted), ty, span)

    def after_listed(self, args) -> None:
        """`after(x, a, b, ...)` of literals where x is none of a, b, ...: it would fail in every
        state (an evaluation error, docs/language.md), so say so before anything is explored."""
        def literal(a):
            if isinstance(a, T.Const):
                return ("const", a.value)
            if isinstance(a, (T.PlayerName, T.TeamName)):
                return ("name", a.name)
            return None
        keys = [literal(a) for a in args]
        if None in keys or keys[0] in keys[1:]:
            return
        x = args[0]
        if not isinstance(x, T.Const):
            shown = x.name
        elif x.type.kind in ("player", "team"):  # the only constant of these types is none
            shown = "none"
        else:
            shown = x.type.members[x.value] if x.type.kind == "enum" else str(x.value).lower()
        self.error("E013", f"after({shown}, ...): {shown} is not one of the values listed, so it has no value after it",
                   args[0].span, "after(x, a, b, ...) is the value that follows x in the list a, b, ...; list x, "
                   "or test first where x may be another value (`x != none and ...`)")

    def check_polarity(self, entry, span, ctx, pol):
        if not ctx.phase or ctx.phase == "trigger":  # a trigger runs once: no fixpoint to depend on
            return
        reads_lost = entry.key.startswith("lost")
        if ctx.phase.startswith("cannot"):
            self.error("E014", f"a \"cannot\" rule may not read {entry.name}(): it says who cannot win or lose "
                       "before this step's outcomes are derived", span,
                       "state it on the game's state; in_game(x) says whether x was in the game when the step began")
            return
        if entry.key.startswith("drew") and not ctx.phase.startswith("cannot"):
            # draws of some players are derived with the losses: read like lost()
            reads_lost = True
        if ctx.phase in ("draw", "finish") or (ctx.phase == "win" and reads_lost):
            return
        if pol == 1:
            if ctx.phase == "lose" and not reads_lost:
                self.reads_won = True
            return
        rule = "a loss rule" if ctx.phase == "lose" else "a win rule"
        hint = ("in a loss rule, in_game(x) says that x was in the game when this step began; "
                "state the rule positively otherwise" if reads_lost else
                "state the rule positively; a rule that needs `not won(...)` belongs in a draw or loss rule")
        self.error("E014", f"{entry.name}() may only be used positively in {rule} (not under `not`, not left of "
                   "`implies`, not in a comparison or a count): the rule would depend on its own conclusion", span, hint)

    def inline(self, let, args, scope, ctx, pol, span):
        if let.name in self.inlining:
            self.error("E012", f"{let.name} calls itself; lets may not be recursive", span)
            return T.Const(0, ERROR, span)
        # a let is expanded where it is used: a chain of lets each using the one before nests
        # as deep as the chain, and lets that use the one before twice double at each link
        if len(self.inlining) >= MAX_LET_NESTING:
            self.error("E006", f"{let.name} is used inside {MAX_LET_NESTING} other lets", span,
                       f"rulewright expands lets where they are used, at most {MAX_LET_NESTING} deep; "
                       "use a variable or a local `let` in an action for intermediate values")
            return T.Const(0, ERROR, span)
        self.inlined += 1
        if self.inlined > MAX_LET_USES:
            if self.inlined == MAX_LET_USES + 1:
                self.error("E008", f"the lets expand to more than {MAX_LET_USES:,} uses", span,
                           "a let that uses another let several times doubles the expression at each step; "
                           "use a variable or a local `let` in an action for intermediate values")
            return T.Const(0, ERROR, span)
        inner = {}
        for prm, a in zip(let.params, args):
            value = self.peek(a, scope, ctx)  # the argument's type, checked once where it is written
            _, et = self.domain(prm.domain, {}, Ctx())
            if ERROR not in (et, value.type) and accepts(et, value.type) == "no":
                self.error("E013", f"argument {prm.name} of {let.name} must be a {et}, not a {value.type}", a.span)
            inner[prm.name] = ("arg", a, scope)
        self.inlining.append(let.name)
        try:
            return self.ex(let.body, inner, ctx, pol)
        finally:
            self.inlining.pop()

    def peek(self, e, scope, ctx):
        """Resolve `e` for its type and errors only: the nodes and binders it makes are dropped
        (a let's argument is resolved again, with fresh binders, wherever the let reads it)."""
        uid, names, across = self.uid, len(self.names_used), len(self.across_used)
        value = self.ex(e, scope, replace(ctx, phase=""), 0)
        self.uid = uid
        del self.names_used[names:], self.across_used[across:]
        return value

    # ------------------------------------------------------------ statements
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
        raise AssertionError(s)

    def run_routine(self, s, scope, ctx, rid):
        """A routine run here: its parameters are local names bound to the arguments (evaluated
        once, where the call stands), then its statements, which see globals and parameters only."""
        r = self.routines.get(s.name)
        if r is None:
            close = difflib.get_close_matches(s.name, list(self.routines), n=1)
            self.error("E010", f"there is no routine `{s.name}`", s.span,
                       f"did you mean `{close[0]}`?" if close else "declare it with `routine NAME(params) do ... end`")
            return T.Block((), rid, s.span)
        if len(r.params) != len(s.args):
            self.error("E012", f"{s.name} takes {len(r.params)} argument(s), given {len(s.args)}", s.span)
            return T.Block((), rid, s.span)
        key = "routine " + r.name
        if key in self.inlining:
            self.error("E012", f"routine {r.name} runs itself; routines may not be recursive", s.span)
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
            self.error("E012", f"{len(s.places)} places are assigned {len(s.values)} values", s.span,
                       "write one value per place, in the same order: `a, b := b, a;`")
            return T.Block((), rid, s.span)
        seen: dict = {}
        for p in s.places:
            key = (_place_name(p), getattr(p, "index", None), getattr(p, "args", None))
            if key in seen:
                self.error("E012", f"{_place_text(p)} is assigned twice in one statement", p.span,
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
            self.error("E012", f"{s.target} is a variable; assign it as {s.target}[...]" if self.var_decls[s.target].index
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
            self.error("E013", f"{target} is a choice made before play and never changes", s.span,
                       "declare it with `var` if the game changes it")
        ty = self.var_types.get(target, ERROR)
        value = self.coerce(self.ex(s.value, scope, ctx, 0), ty, f"the value assigned to {target}")
        index = None
        if d.index is not None:
            if index_sx is None:
                self.error("E012", f"{target} holds one value per {d.index[1] if isinstance(d.index[1], str) else 'index'}; "
                           f"assign {target}[...]", s.span)
            else:
                index = self.coerce(self.ex(index_sx, index_scope, ctx, 0), self.index_type(d), f"the index of {target}")
        elif index_sx is not None:
            self.error("E012", f"{target} is a single value; assign it without [...]", s.span)
        return T.Assign(target, index, value, rid, s.span)

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
                self.error("E012", f"{s.target} does not name a variable, so it cannot be assigned", s.span,
                           "a let names a place when its value is a variable `x`, an indexed variable `x[e]` "
                           "or another such let")
                return None
            if index is not None:
                self.error("E012", f"{name} is a let; assign it as {name}(...), the way it is read", s.span)
                return None
            if name in seen:
                self.error("E012", f"{name} calls itself; lets may not be recursive", s.span)
                return None
            seen.append(name)
            given = tuple(args or ())
            if len(let.params) != len(given):
                self.error("E012", f"{name} takes {len(let.params)} argument(s), given {len(given)}", s.span)
                return None
            inner = {}
            for prm, a in zip(let.params, given):
                value = self.peek(a, where, ctx)
                _, et = self.domain(prm.domain, {}, Ctx())
                if ERROR not in (et, value.type) and accepts(et, value.type) == "no":
                    self.error("E013", f"argument {prm.name} of {name} must be a {et}, not a {value.type}", a.span)
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
                self.error("E012", f"{s.target} is a let whose value is not a variable, so it cannot be assigned",
                           s.span, f"its value is computed (at {body.span}); a let names a place when its value is "
                           "a variable `x`, an indexed variable `x[e]` or another such let")
                return None
            where = inner
        if args is not None:
            self.error("E012", f"{name} is a variable; assign it as {name}[...]" if self.var_decls[name].index
                       else f"{name} is a variable; assign it as {name}", s.span)
            return None
        return name, index, where

    # ------------------------------------------------------------ declarations
    def const(self, e, what="sizes"):
        return self.want(self.ex(e, {}, Ctx(const=what), 0), INT)

    def cond(self, e, scope=None, ctx=Ctx()):
        return self.want(self.ex(e, scope or {}, ctx, 1), BOOL)

    def run(self) -> T.Model:
        decls = self.decls
        of = lambda cls: [d for d in decls if isinstance(d, cls)]  # noqa: E731
        params = []
        for d in of(sx.ParamDecl):
            if isinstance(d.values, sx.RangeDomain):
                vals, is_range = (self.const(d.values.low, "params"), self.const(d.values.high, "params")), True
            else:
                vals, is_range = tuple(self.const(x, "params") for x in d.values.expr.items), False
            abstracts = self.const(d.abstracts, "params") if d.abstracts is not None else None
            params.append(T.ParamInfo(d.name, vals, is_range, d.tags, d.span, abstracts=abstracts))
        players_d = of(sx.PlayersDecl)
        if not players_d and self.teams_decl is None:
            self.error("E016", "the model declares no players", self.spec.span, "add `players N` or `teams A, B size S`")
        players = self.const(players_d[-1].count, "params") if players_d else None
        td = self.teams_decl
        team_count = self.const(td.count, "params") if td is not None and td.count is not None else None
        team_size = self.const(td.size, "params") if td is not None else None
        # variable types before anything reads a variable
        for d in self.var_decls.values():
            self.var_types[d.name] = self.type_of(d)
        vars_ = tuple(self.var_info(d) for d in self.var_decls.values())
        for r in self.routines.values():  # a routine no action runs is still a rule, and dead
            self.rule("routine", r.name, r.tags, r.span)
        self.phase_chain, cycles = lower_phases.lower(self, decls)
        self.game_end, match = lower_match.game_results(self, vars_)
        actions = tuple(self.action(d) for d in of(sx.ActionDecl)) + lower_match.actions(self, vars_)
        outcomes = tuple(o for o in (self.outcome(d) for d in of(sx.OutcomeDecl)) if o is not None)
        active = None
        for d in of(sx.ActiveDecl):
            b = self.binder(d.var, PLAYER, d.span, {})
            active = T.Active(b, self.cond(d.cond, {d.var: ("binder", b)}), d.tags, d.span)
        setup = Ctx(play=False)
        conds = lambda cls, ctx=Ctx(): tuple(T.Condition(d.name, self.cond(d.cond, None, ctx), d.tags, d.span)  # noqa: E731
                                             for d in of(cls))
        reachables = []
        for d in of(sx.ReachableDecl):
            ps, scope = self.params_of(d.params, {})
            reachables.append(T.Reachable(d.name, ps, self.cond(d.cond, scope), d.tags, d.span))
        for d in of(sx.ExpectDecl):
            if d.kind not in self.kinds:
                close = difflib.get_close_matches(d.kind, self.kinds, n=1)
                self.error("E020", f"`{d.kind}` is not a finding kind", d.span,
                           f"did you mean `{close[0]}`?" if close else "one of: " + ", ".join(self.kinds))
            else:
                self.check_expect(d)
        winners = of(sx.WinnersDecl)
        last_side = of(sx.LastSideDecl)
        after_win = of(sx.AfterWinDecl)
        for d in of(sx.PrecedenceDecl):
            if d.same_step and (d.winner, d.loser) != ("lose", "win"):
                self.error("E013", f"`precedence {d.winner} over {d.loser} same_step`: only `lose over win` has a "
                           "scope", d.span, "a loss in an earlier step is the only fact that can outlast a step; "
                           "drop `same_step`")
        kinds = ("lose", "win", "draw")
        exempt = []
        by_name = {o.name: o for o in outcomes}
        for d in of(sx.PrecedenceDecl):
            if d.winner in kinds and d.loser in kinds:
                if d.winner == d.loser:
                    self.error("E013", f"`precedence {d.winner} over {d.loser}` says nothing", d.span)
                continue
            # a rule over a "cannot" rule: the rule's facts stand where the "cannot" rule holds
            rule, cannot = by_name.get(d.winner), by_name.get(d.loser)
            if (rule is None or cannot is None or not cannot.kind.startswith("cannot_")
                    or cannot.kind != "cannot_" + rule.kind or cannot.subject != rule.subject):
                self.error("E013", f"`precedence {d.winner} over {d.loser}` names neither two outcome kinds nor "
                           "an outcome rule and a \"cannot\" rule about the same outcome", d.span,
                           "write `precedence lose over win`, or `precedence RULE over CANNOT_RULE` where RULE is "
                           "a `lose player` rule and CANNOT_RULE a `cannot lose player` rule (or win, or team)")
                continue
            exempt.append((rule.name, cannot.name))
        possibles = []  # before nbinders is read: its binders count
        for d in of(sx.PossibleDecl):
            ps, scope = self.params_of(d.params, {})
            possibles.append(T.Reachable(d.name, ps, self.cond(d.cond, scope, setup), d.tags, d.span))
        for d in possibles:  # a setup has no statuses yet: who is in the game is play, not setup
            for b, dom in d.params:  # the bindings are fixed before any setup: players, teams, ranges, members
                if any(isinstance(n, (T.VarRef, T.BinderRef)) or isinstance(n, T.Call) and bi.BY_KEY[n.func].reads
                       for n in T.walk(dom)):
                    self.error("E013", f"the parameter {b.name} of `possible {d.name}` ranges over a domain that "
                               "depends on the game", b.span, "use players, teams, a range or a set of members")
            for n in T.walk(d.cond):
                if isinstance(n, T.Call) and bi.BY_KEY[n.func].reads:
                    self.error("E013", f"`possible {d.name}` reads {bi.BY_KEY[n.func].name}, which play decides, "
                               "not the setup", n.span, "a `possible` property reads what constraints read: "
                               "choices, parameters and the initial values of variables")
                    break
        seating = self.seating
        triggers = self.triggers(of(sx.TriggerDecl))  # before the model takes the rules: triggers are rules
        return T.Model(
            path=self.spec.path, format=self.fmt, reading=self.reading, spec=self.spec, decls=decls,
            params=tuple(params), players=players,
            team_names=td.names if td is not None else None, team_count=team_count, team_size=team_size,
            seating=seating.kind if seating else "alternate", seating_order=seating.order if seating else (),
            vars=vars_, actions=actions, outcomes=outcomes,
            precedence=tuple((d.winner, d.loser) for d in of(sx.PrecedenceDecl)
                             if d.winner in kinds and d.loser in kinds),
            exempt=tuple(exempt),
            winners_many=bool(winners and winners[-1].many),
            last_side_ends=not (last_side and last_side[-1].plays_on),
            after_win_ends=not (after_win and after_win[-1].plays_on),
            past_losers_win=any(d.same_step and (d.winner, d.loser) == ("lose", "win") for d in of(sx.PrecedenceDecl)),
            loop_draws=bool(of(sx.LoopDrawsDecl)),
            active=active,
            inits=conds(sx.InitDecl, setup), constraints=conds(sx.ConstraintDecl, setup),
            procedures=conds(sx.ProcedureDecl), ends=conds(sx.EndsDecl), invariants=conds(sx.InvariantDecl),
            reachables=tuple(reachables), expects=tuple(of(sx.ExpectDecl)), rules=tuple(self.rules),
            changes=tuple(of(sx.ChangesDecl)), phases=cycles, match=match,
            triggers=triggers,
            names_used=tuple(self.names_used), across_used=tuple(self.across_used), nbinders=self.uid,
            possibles=tuple(possibles), step_checks=tuple(self.step_checks))

    def check_expect(self, d: sx.ExpectDecl) -> None:
        """The sizes an `expect` records must be in its kind's unit (or instances), each once;
        a fingerprint is what `rulewright check` prints (12 hex digits, maybe `-2`...)."""
        units = ["instances"] + ([self.measures[d.kind]] if d.kind in self.measures else [])
        seen = set()
        for unit, _ in d.measures:
            if unit not in units:
                self.error("E021", f"a {d.kind} finding is not measured in `{unit}`", d.span,
                           "it may record: " + ", ".join(f"`N {u}`" for u in units))
            elif unit in seen:
                self.error("E021", f"`{unit}` is recorded twice", d.span, "record each size once")
            seen.add(unit)
        if d.fingerprint and not re.fullmatch(r"[0-9a-f]{12}(-[0-9]+)?", d.fingerprint):
            self.error("E021", f"`{d.fingerprint}` is not a fingerprint", d.span,
                       "copy it from the report: 12 hexadecimal digits, as `fingerprint \"3f2a9c0d1b7e\"`")

    def type_of(self, d: sx.VarDecl) -> Ty:
        t = d.type
        if d.step is not None:
            if not isinstance(t, sx.TRange):
                self.error("E013", f"{d.name} is not a number range, so it cannot be counted in steps", d.step.span,
                           "`in steps of K` follows a range: `var life(p: player): 0..8000 in steps of 1000 = 8000`")
            else:
                step = Step(self.const(d.step), const_text(d.step))
                if isinstance(step.value, T.Const) and step.value.type == INT and step.value.value < 1:
                    self.error("E013", f"the step of {d.name} is {step.value.value}; a step must be at least 1",
                               d.step.span, "count in steps of 1 or more: `in steps of 1000`")
                    return ERROR
                return Ty("int", step=step)
        if isinstance(t, sx.TBool):
            return BOOL
        if isinstance(t, sx.TRange):
            return INT
        if isinstance(t, sx.TPlayer):
            return OPT_PLAYER if t.optional else PLAYER
        if isinstance(t, sx.TTeam):
            if not self.has_teams:
                self.error("E013", f"{d.name} has type team but the format has no teams", t.span, "declare `teams ... size ...`")
                return ERROR
            return Ty("team", optional=True) if t.optional else TEAM
        if isinstance(t, sx.TSet):
            return PLAYERS
        if isinstance(t, sx.TEnum):
            return enum(t.members)
        raise AssertionError(t)

    def var_info(self, d: sx.VarDecl) -> T.VarInfo:
        ty = self.var_types[d.name]
        low = high = None
        if isinstance(d.type, sx.TRange):
            low, high = self.const(d.type.low), self.const(d.type.high)
            if ty.kind == "int" and ty.step is not None:  # the checked range: the bounds counted in steps
                low = self.to_step(low, ty, f"the low end of {d.name}'s range")
                high = self.to_step(high, ty, f"the high end of {d.name}'s range")
        index = None
        scope = {}
        if d.index is not None:
            bname, k = d.index
            ity = self.index_type(d)
            if k == "team" and not self.has_teams:
                self.error("E013", f"{d.name} is indexed by team but the format has no teams", d.span,
                           "declare `teams ... size ...` or index by player")
                ity = ERROR
            b = self.binder(bname, ity, d.span, {})
            scope = {bname: ("binder", b)}
            if isinstance(k, sx.TRange):
                index = T.Index("int", b, self.const(k.low), self.const(k.high))
            elif isinstance(k, sx.TEnum):
                index = T.Index("enum", b, members=k.members)
            else:
                index = T.Index(k, b)
        init = None
        if d.init is not None:
            value = self.ex(d.init, scope, Ctx(init_of=self.var_order[d.name], play=False), 0)
            init = self.coerce(value, ty, f"the initial value of {d.name}")
        static = d.is_choice and d.name not in self.dynamic
        return T.VarInfo(d.name, ty, low, high, index, init, d.tags, d.is_choice, static, d.span,
                         step=ty.step.value if ty.kind == "int" and ty.step is not None else None)

    def params_of(self, params, scope):
        out = []
        scope = dict(scope)
        for prm in params:
            dom, et = self.domain(prm.domain, scope, Ctx())
            b = self.binder(prm.name, et, prm.span, scope)
            out.append((b, dom))
            scope[prm.name] = ("binder", b)
        return tuple(out), scope

    def action(self, d: sx.ActionDecl) -> T.Action:
        ps, scope = self.params_of(d.params, {})
        guard = self.cond(d.guard, scope)
        rid = self.rule("action", d.name, d.tags, d.span)
        # phases end after the step's statements; then, in a match, the game's result is judged
        guard, body = lower_match.end_of_step(self, d, guard, self.stmts(d.body, scope, Ctx()))
        return T.Action(d.name, ps, guard, body, d.progress, d.leave, rid, d.span)

    def outcome(self, d: sx.OutcomeDecl):
        scope = {}
        binder = None
        if d.subject_kind:
            if d.subject_kind == "team" and not self.has_teams:
                self.error("E013", "a team outcome needs teams, and this format has none", d.span, "declare `teams ... size ...`")
                return None
            binder = self.binder(d.var, PLAYER if d.subject_kind == "player" else TEAM, d.span, {})
            scope = {d.var: ("binder", binder)}
        self.reads_won = False
        # a draw of some players and leaving share the losses' stratum, and their polarity rules
        departs = d.kind in ("lose", "leave") or d.kind == "draw" and d.subject_kind is not None
        cond = self.cond(d.cond, scope, Ctx(phase="lose" if departs else d.kind, step=True))
        rid = self.rule("outcome", d.name, d.tags, d.span)
        return T.OutcomeRule(d.name, d.kind, d.subject_kind, binder, cond, departs and self.reads_won,
                             rid, d.tags, d.span)


    # ------------------------------------------------------------ triggers
    def triggers(self, decls) -> tuple:
        """Each `trigger` typed; its condition and body read the state and the step's outcomes
        as they stand when it runs (lost_now() allowed, game_over not: the end is not settled)."""
        out, seen = [], {}
        for d in decls:
            if self._unique(seen, d, "trigger"):
                t = self.trigger(d)
                if t is not None:
                    out.append(t)
        return tuple(out)

    def trigger(self, d: sx.TriggerDecl):
        scope, binder = {}, None
        if d.subject_kind:
            if d.subject_kind == "team" and not self.has_teams:
                self.error("E013", "a trigger on a team's outcome needs teams, and this format has none", d.span,
                           "declare `teams ... size ...`, or trigger on `lose player p`")
                return None
            binder = self.binder(d.var, PLAYER if d.subject_kind == "player" else TEAM, d.span, {})
            scope = {d.var: ("binder", binder)}
        ctx = Ctx(phase="trigger", step=True)
        cond = self.cond(d.cond, scope, ctx)
        rid = self.rule("trigger", d.name, d.tags, d.span)
        body = self.stmts(d.body, scope, ctx)
        return T.Trigger(d.name, d.event, d.subject_kind, binder, cond, body, rid, d.tags, d.span)


def _place_text(p) -> str:
    return _place_name(p) + ("[...]" if isinstance(p, sx.Index) else "(...)" if isinstance(p, sx.Call) else "")


def _place_name(p) -> str:
    """The name a place of a simultaneous assignment starts with (a variable, or a let: `score(p)`)."""
    return p.func if isinstance(p, sx.Call) else p.name


def _pick(entries, args):
    """The built-in entry whose parameters the argument types fit (a `player?` fits a player)."""
    for b in entries:
        ps = b.params
        if "*" in ps:
            if len(args) < len(ps) - 1:
                continue
        elif len(ps) != len(args):
            continue
        ok = True
        first = args[0].type if args else None
        for i, a in enumerate(args):
            p = ps[i] if i < len(ps) and ps[i] != "*" else ps[-2]
            if p == "set":
                ok = a.type.kind == "set"
            elif p == "any":
                ok = join(first, a.type) is not None
            else:
                # `none` picks a player entry, so the error says that none is not a player
                ok = accepts(p, a.type) in ("", "narrow") or a.type.kind == "none" and p.kind in ("player", "team")
            if not ok:
                break
        if ok:
            return b
    return None


def _dynamic_names(decls, lets) -> set[str]:
    """Names read by anything that runs during play (lets followed through), and the choices a
    constraint ties to them.

    A choice nothing of the play reads is left to Z3 (static): the explorer neither enumerates
    it nor evaluates the constraints that read it. A constraint that reads such a choice and
    also a variable (or a choice the play reads) constrains the explored state through it
    (`x == c and c == 0`), so the explorer would start from states no setup admits: its
    choices are explored too, until no constraint ties a static choice to an explored name.
    What stays static is then independent of the explored state, and the contradiction check
    alone decides whether some value of it satisfies its constraints."""
    roots = [d for d in decls if isinstance(d, (sx.ActionDecl, sx.OutcomeDecl, sx.TriggerDecl, sx.ActiveDecl,
                                                sx.ProcedureDecl, sx.EndsDecl, sx.InvariantDecl, sx.ReachableDecl,
                                                sx.InitDecl, sx.PhasesDecl, sx.WhenPhaseDecl,
                                                sx.MatchDecl))]  # (these run in play too)
    roots += [d.init for d in decls if isinstance(d, sx.VarDecl) and d.init is not None]
    found = _names_read(roots, lets)
    choices = {d.name for d in decls if isinstance(d, sx.VarDecl) and d.is_choice}
    variables = {d.name for d in decls if isinstance(d, sx.VarDecl) and not d.is_choice}
    constraints = [_names_read([d.cond], lets) for d in decls if isinstance(d, sx.ConstraintDecl)]
    grown = True
    while grown:
        grown = False
        explored = variables | (choices & found)
        for names in constraints:
            if names & explored and names & choices - found:
                found |= names & choices
                grown = True
    return found


def _names_read(roots, lets) -> set[str]:
    """Every name the nodes `roots` read or assign, through the lets they call."""
    found: set[str] = set()
    todo = list(roots)
    seen_lets: set[str] = set()
    while todo:
        node = todo.pop()
        for n in sx.walk(node):
            if isinstance(n, sx.Assign):
                found.add(n.target)
                if n.target in lets and n.target not in seen_lets:  # a let place: the variable it names
                    seen_lets.add(n.target)
                    todo.append(lets[n.target].body)
            name = n.name if isinstance(n, (sx.Name, sx.Index)) else n.func if isinstance(n, sx.Call) else None
            if name is None:
                continue
            found.add(name)
            if name in lets and name not in seen_lets:
                seen_lets.add(name)
                todo.append(lets[name].body)
    return found
