"""The Z3 backend: the same semantics as `checker.compile`, written independently, over Z3 terms.

Three uses:
- `contradiction(inst)`: the static constraints, setup rules and types as formulas tracked by
  rule number, so an unsatisfiable set comes back as a minimal core of rules;
- `replay(machine, trace)`: re-executes a counterexample one step at a time from its concrete
  states and confirms each step is enabled and yields the recorded next state;
- `bmc(...)`: the transition relation unrolled for bounded model checking (used by the
  differential tests against the explorer).

Values: booleans are Bool, numbers/players/teams/enum members Int; sets are Python lists of
Bool, one per possible element. Quantifiers range over concrete candidates with a membership
condition, so every binder is a Python int and functions of the seating are evaluated exactly.
"""
from __future__ import annotations

from dataclasses import dataclass

import z3

from ..frontend import syntax as ir
from ..frontend.instances import Instance, Var


class Unsupported(Exception):
    pass


@dataclass
class SymSet:
    elems: list  # Bool per element
    kind: str  # player | team | enum | int
    values: list | None = None  # for int sets: the candidate values


def _concrete(x):
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return x
    s = z3.simplify(x)
    if z3.is_int_value(s):
        return s.as_long()
    if z3.is_true(s):
        return True
    if z3.is_false(s):
        return False
    return None


def sym_if(cond, a, b):
    """If cond then a else b, for terms and for sets (element by element)."""
    if a is b:
        return a
    if isinstance(a, SymSet):
        return SymSet([z3.If(cond, x, y) for x, y in zip(a.elems, b.elems)], a.kind, a.values)
    return z3.If(cond, _tz(a), _tz(b))


def ite_chain(index, options: list):
    """options[index] for a symbolic index."""
    c = _concrete(index)
    if isinstance(c, int) and not isinstance(c, bool):
        return options[c] if 0 <= c < len(options) else options[-1]
    out = options[-1]
    for i in range(len(options) - 2, -1, -1):
        out = sym_if(index == i, options[i], out)
    return out


def _tz(x):
    if isinstance(x, bool):
        return z3.BoolVal(x)
    if isinstance(x, int):
        return z3.IntVal(x)
    return x


class SymState:
    def __init__(self, vals, out, tout):
        self.vals = vals  # name -> list of terms
        self.out = out
        self.tout = tout
        n, nt = len(out), len(tout)
        self.lp = [z3.BoolVal(False)] * n
        self.wp = [z3.BoolVal(False)] * n
        self.lt = [z3.BoolVal(False)] * nt
        self.wt = [z3.BoolVal(False)] * nt
        self.draw = z3.BoolVal(False)
        self.overflow = z3.BoolVal(False)

    def copy(self):
        s = SymState({k: list(v) for k, v in self.vals.items()}, list(self.out), list(self.tout))
        s.lp, s.wp, s.lt, s.wt = list(self.lp), list(self.wp), list(self.lt), list(self.wt)
        s.draw, s.overflow = self.draw, self.overflow
        return s


def merge(cond, a: SymState, b: SymState) -> SymState:
    """If cond then a else b, slot by slot."""
    def m(x, y):
        return sym_if(cond, x, y)
    s = SymState({k: [m(x, y) for x, y in zip(a.vals[k], b.vals[k])] for k in a.vals},
                 [m(x, y) for x, y in zip(a.out, b.out)], [m(x, y) for x, y in zip(a.tout, b.tout)])
    s.lp = [m(x, y) for x, y in zip(a.lp, b.lp)]
    s.wp = [m(x, y) for x, y in zip(a.wp, b.wp)]
    s.lt = [m(x, y) for x, y in zip(a.lt, b.lt)]
    s.wt = [m(x, y) for x, y in zip(a.wt, b.wt)]
    s.draw = m(a.draw, b.draw)
    s.overflow = m(a.overflow, b.overflow)
    return s


class Encoder:
    def __init__(self, inst: Instance):
        self.inst = inst
        self.n = inst.nplayers
        self.nt = inst.nteams
        self.members = [[inst.team_of[p] == t for p in range(self.n)] for t in range(self.nt)]
        self.outcomes = [d for d in inst.decls if isinstance(d, ir.OutcomeDecl)]
        self.precedence = [(d.winner, d.loser) for d in inst.decls if isinstance(d, ir.PrecedenceDecl)]
        self.must_end = [d for d in inst.decls if isinstance(d, ir.EndsDecl)]
        self.static = {}  # static choice name -> list of terms
        self.kinds: dict[str, str] = {}  # binder name -> player | team | enum | int, from its domain

    # ------------------------------------------------------------ expressions
    def expr(self, e, st: SymState, env: dict):
        return getattr(self, "x_" + type(e).__name__)(e, st, env)

    def x_Num(self, e, st, env):
        return z3.IntVal(e.value)

    def x_Bool(self, e, st, env):
        return z3.BoolVal(e.value)

    def x_NoneLit(self, e, st, env):
        return z3.IntVal(-1)

    def x_Name(self, e, st, env):
        name, inst = e.name, self.inst
        if name in env:
            return env[name]
        if name in inst.lets:
            return self.expr(inst.lets[name].body, st, {})
        if st is not None and name in st.vals:
            return st.vals[name][0]
        if name in self.static:
            return self.static[name][0]
        if name in inst.params:
            return z3.IntVal(inst.params[name])
        if name in ("players", "player"):
            return SymSet([z3.BoolVal(True)] * self.n, "player")
        if name == "remaining":
            return SymSet([z3.Not(o) for o in st.out], "player")
        if name in ("teams", "team"):
            return SymSet([z3.BoolVal(True)] * self.nt, "team")
        if name == "nplayers":
            return z3.IntVal(self.n)
        if name == "nteams":
            return z3.IntVal(self.nt)
        if name == "team_size":
            return z3.IntVal(self.n // self.nt if self.nt else 1)
        if name in inst.players:
            return z3.IntVal(inst.players.index(name))
        if name in inst.teams:
            return z3.IntVal(inst.teams.index(name))
        if name in inst.enum_of_member:
            return z3.IntVal(inst.enum_of_member[name].members.index(name))
        raise Unsupported(f"name {name}")

    def index_base(self, name) -> int:
        var = self.inst.var(name)
        if var is not None:
            return var.index_base
        t = self.inst.static_choices.get(name, (None, None, None))[2]
        return t.low if t is not None and t.kind == "int" else 0

    def x_Index(self, e, st, env):
        base = st.vals[e.name] if st is not None and e.name in st.vals else self.static.get(e.name)
        if base is None:
            raise Unsupported(f"index {e.name}")
        return ite_chain(self.expr(e.index, st, env) - self.index_base(e.name), base)

    def x_Unary(self, e, st, env):
        v = self.expr(e.operand, st, env)
        return z3.Not(v) if e.op == "not" else -v

    def x_Binary(self, e, st, env):
        op = e.op
        a = self.expr(e.left, st, env)
        if op == "and":
            return z3.And(a, self.expr(e.right, st, env))
        if op == "or":
            return z3.Or(a, self.expr(e.right, st, env))
        if op == "implies":
            return z3.Implies(a, self.expr(e.right, st, env))
        b = self.expr(e.right, st, env)
        if op in ("in", "notin"):
            r = self.member(a, b)
            return z3.Not(r) if op == "notin" else r
        if isinstance(a, SymSet) and isinstance(b, SymSet):
            if op == "+":
                return SymSet([z3.Or(x, y) for x, y in zip(a.elems, b.elems)], a.kind)
            if op == "-":
                return SymSet([z3.And(x, z3.Not(y)) for x, y in zip(a.elems, b.elems)], a.kind)
            if op == "==":
                return z3.And(*[x == y for x, y in zip(a.elems, b.elems)]) if a.elems else z3.BoolVal(True)
            if op == "!=":
                return z3.Not(z3.And(*[x == y for x, y in zip(a.elems, b.elems)])) if a.elems else z3.BoolVal(False)
        ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "==": lambda: a == b,
               "!=": lambda: a != b, "<": lambda: a < b, "<=": lambda: a <= b, ">": lambda: a > b,
               ">=": lambda: a >= b}
        if op in ops:
            return ops[op]()
        if op == "/":
            # Python floor division, which the explorer uses
            return z3.If(b == 0, z3.IntVal(0), _floordiv(a, b))
        if op == "%":
            return z3.If(b == 0, z3.IntVal(0), a - b * _floordiv(a, b))
        raise Unsupported(op)

    def member(self, x, s):
        if isinstance(s, SymSet):
            if s.kind == "int":
                return z3.Or(*[z3.And(c, x == v) for c, v in zip(s.elems, s.values)]) if s.elems else z3.BoolVal(False)
            return z3.Or(*[z3.And(c, x == i) for i, c in enumerate(s.elems)]) if s.elems else z3.BoolVal(False)
        raise Unsupported("membership")

    def x_Ite(self, e, st, env):
        c = self.expr(e.cond, st, env)
        return sym_if(c, self.expr(e.then, st, env), self.expr(e.other, st, env))

    def x_SetLit(self, e, st, env):
        items = [self.expr(x, st, env) for x in e.items]
        if not items:
            return SymSet([z3.BoolVal(False)] * self.n, "player")
        kind = self._kind_of_literal(e.items[0])
        if kind == "int":
            return SymSet([z3.BoolVal(True)] * len(items), "int", items)
        width = self.n if kind == "player" else self.nt if kind == "team" else len(self.inst.enum_of_member[e.items[0].name].members)
        return SymSet([z3.Or(*[v == i for v in items]) for i in range(width)], kind)

    def _kind_of_literal(self, item):
        inst = self.inst
        if isinstance(item, ir.Name):
            if item.name in self.kinds:
                return self.kinds[item.name]
            if item.name in inst.players:
                return "player"
            if item.name in inst.teams:
                return "team"
            if item.name in inst.enum_of_member:
                return "enum"
            var = inst.var(item.name)
            if var is not None:
                return {"player": "player", "team": "team", "enum": "enum"}.get(var.type.kind, "int")
        if isinstance(item, ir.Call) and item.func in ("team",):
            return "team"
        if isinstance(item, ir.Call) and item.func in ("left", "right", "next", "across", "player_at", "next_in_game",
                                                        "prev_in_game", "left_in_game", "after"):
            return "player"
        if isinstance(item, ir.Index):
            var = inst.var(item.name)
            if var is not None:
                return {"player": "player", "team": "team", "enum": "enum"}.get(var.type.kind, "int")
        return "int"

    def bind_kind(self, name, d, st, env):
        """Remember what kind of value binder `name` takes, from its domain."""
        if isinstance(d, ir.RangeDomain):
            self.kinds[name] = "int"
        else:
            s = self.expr(d.expr, st, env)
            self.kinds[name] = s.kind if isinstance(s, SymSet) else "int"

    def candidates(self, d, st, env):
        """[(value, condition)] for a domain."""
        if isinstance(d, ir.RangeDomain):
            lo, hi = _concrete(self.expr(d.low, st, env)), _concrete(self.expr(d.high, st, env))
            if lo is None or hi is None:
                raise Unsupported("range with symbolic bounds")
            return [(v, z3.BoolVal(True)) for v in range(lo, hi + 1)]
        s = self.expr(d.expr, st, env)
        if not isinstance(s, SymSet):
            raise Unsupported("domain")
        if s.kind == "int":
            return [(_concrete(v), c) for v, c in zip(s.values, s.elems)]
        return [(i, c) for i, c in enumerate(s.elems)]

    def x_Quant(self, e, st, env):
        self.bind_kind(e.var, e.domain, st, env)
        parts = []
        for v, c in self.candidates(e.domain, st, env):
            body = self.expr(e.body, st, {**env, e.var: v})
            parts.append(z3.Implies(c, body) if e.kind == "forall" else z3.And(c, body))
        if e.kind == "forall":
            return z3.And(*parts) if parts else z3.BoolVal(True)
        return z3.Or(*parts) if parts else z3.BoolVal(False)

    def x_Aggregate(self, e, st, env):
        self.bind_kind(e.var, e.domain, st, env)
        cands = self.candidates(e.domain, st, env)
        if e.kind == "count":
            terms = [z3.If(z3.And(c, self.expr(e.body, st, {**env, e.var: v})), 1, 0) for v, c in cands]
            return z3.Sum(terms) if terms else z3.IntVal(0)
        if e.kind == "sum":
            terms = [z3.If(c, self.expr(e.body, st, {**env, e.var: v}), 0) for v, c in cands]
            return z3.Sum(terms) if terms else z3.IntVal(0)
        # min / max: fold over members; 0 for an empty domain, as the explorer does
        acc = None
        have = z3.BoolVal(False)
        for v, c in cands:
            val = self.expr(e.body, st, {**env, e.var: v})
            if acc is None:
                acc = z3.If(c, val, 0)
            else:
                better = (val < acc) if e.kind == "min" else (val > acc)
                acc = z3.If(z3.And(c, z3.Or(z3.Not(have), better)), val, acc)
            have = z3.Or(have, c)
        return z3.IntVal(0) if acc is None else z3.If(have, acc, 0)

    def x_Call(self, e, st, env):
        f = e.func
        inst = self.inst
        if f in inst.lets:
            let = inst.lets[f]
            args = [self.expr(a, st, env) for a in e.args]
            for prm, a in zip(let.params, e.args):
                self.kinds[prm.name] = self._kind_of_literal(a)
            return self.expr(let.body, st, {p.name: a for p, a in zip(let.params, args)})
        args = [self.expr(a, st, env) for a in e.args]
        n = self.n
        if f == "team":
            return self.lift1(args[0], range(n), lambda p: z3.IntVal(inst.team_of[p]))
        if f in ("seat",):
            return args[0]
        if f == "player_at":
            return args[0] % n
        if f == "left":
            return (args[0] + args[1]) % n
        if f == "right":
            return (args[0] - args[1]) % n
        if f == "next":
            return (args[0] + 1) % n
        if f == "across":
            return (args[0] + n // 2) % n
        if f == "dist":
            d1, d2 = (args[1] - args[0]) % n, (args[0] - args[1]) % n
            return z3.If(d1 < d2, d1, d2)
        if f == "dist_left":
            return (args[1] - args[0]) % n
        if f in ("next_in_game", "prev_in_game", "left_in_game"):
            k = 1 if f != "left_in_game" else _concrete(args[1])
            if k is None:
                raise Unsupported("symbolic k")
            direction = -1 if f == "prev_in_game" else 1
            return self.lift1(args[0], range(n), lambda p: self.ring_step(st, p, k, direction))
        if f == "dist_in_game":
            return self.lift2(args[0], args[1], lambda p, q: self.dist_in_game(st, p, q))
        if f == "after":
            x, rest = args[0], args[1:]
            out = rest[0]
            for i in range(len(rest) - 1, -1, -1):
                out = z3.If(x == rest[i], rest[(i + 1) % len(rest)], out)
            return out
        if f == "in_game":
            if self._is_team(e.args[0]):
                return self.lift1(args[0], range(self.nt), lambda t: z3.And(
                    z3.Not(st.tout[t]), z3.Or(*[z3.Not(st.out[p]) for p in range(n) if inst.team_of[p] == t])))
            return z3.Not(ite_chain(args[0], st.out))
        if f == "lost":
            if self._is_team(e.args[0]):
                return ite_chain(args[0], [z3.Or(a, b) for a, b in zip(st.tout, st.lt)])
            return ite_chain(args[0], [z3.Or(a, b) for a, b in zip(st.out, st.lp)])
        if f == "won":
            return ite_chain(args[0], st.wt if self._is_team(e.args[0]) else st.wp)
        if f == "size":
            s = args[0]
            return z3.Sum([z3.If(c, 1, 0) for c in s.elems]) if s.elems else z3.IntVal(0)
        if f == "abs":
            return z3.If(args[0] < 0, -args[0], args[0])
        if f == "members":
            return SymSet([self.lift1(args[0], range(self.nt), lambda t, p=p: z3.BoolVal(inst.team_of[p] == t))
                           for p in range(n)], "player")
        if f == "opponents":
            if inst.has_teams:
                return SymSet([self.lift1(args[0], range(n), lambda q, p=p: z3.BoolVal(inst.team_of[p] != inst.team_of[q]))
                               for p in range(n)], "player")
            return SymSet([args[0] != p for p in range(n)], "player")
        if f == "teammates":
            if inst.has_teams:
                return SymSet([self.lift1(args[0], range(n), lambda q, p=p: z3.BoolVal(inst.team_of[p] == inst.team_of[q] and p != q))
                               for p in range(n)], "player")
            return SymSet([z3.BoolVal(False)] * n, "player")
        raise Unsupported(f)

    def _is_team(self, arg) -> bool:
        inst = self.inst
        if isinstance(arg, ir.Name):
            if arg.name in inst.teams:
                return True
            if arg.name in self.kinds:
                return self.kinds[arg.name] == "team"
            var = inst.var(arg.name)
            return var is not None and var.type.kind == "team"
        if isinstance(arg, ir.Call):
            return arg.func == "team"
        if isinstance(arg, ir.Index):
            var = inst.var(arg.name)
            return var is not None and var.type.kind == "team"
        return False

    def lift1(self, x, domain, fn):
        c = _concrete(x)
        if isinstance(c, int) and not isinstance(c, bool):
            return fn(c)
        vals = list(domain)
        out = fn(vals[-1])
        for v in reversed(vals[:-1]):
            out = z3.If(x == v, fn(v), out)
        return out

    def lift2(self, x, y, fn):
        return self.lift1(x, range(self.n), lambda a: self.lift1(y, range(self.n), lambda b: fn(a, b)))

    def ring_step(self, st, p, k, direction):
        """The k-th seat still in the game walking from p, round the table as often as needed
        (p counts when the walk passes it); p if nobody is in the game."""
        n = self.n
        seats = [(p + direction * j) % n for j in range(1, n * max(k, 1) + 1)]
        counts = []
        running = z3.IntVal(0)
        for s in seats:
            running = running + z3.If(st.out[s], 0, 1)
            counts.append(running)
        result = z3.IntVal(p)
        for s, cnt in reversed(list(zip(seats, counts))):
            result = z3.If(z3.And(z3.Not(st.out[s]), cnt == k), z3.IntVal(s), result)
        return result

    def dist_in_game(self, st, p, q):
        n = self.n
        if p == q:
            return z3.IntVal(0)
        # seats strictly between p and q going left, and going right, counting players in game
        left_between = [(p + j) % n for j in range(1, (q - p) % n)]
        right_between = [(p - j) % n for j in range(1, (p - q) % n)]
        dl = 1 + z3.Sum([z3.If(st.out[s], 0, 1) for s in left_between]) if left_between else z3.IntVal(1)
        dr = 1 + z3.Sum([z3.If(st.out[s], 0, 1) for s in right_between]) if right_between else z3.IntVal(1)
        return z3.If(dl < dr, dl, dr)

    # ------------------------------------------------------------ statements
    def stmts(self, body, st: SymState, env) -> SymState:
        for s in body:
            st = self.stmt(s, st, env)
        return st

    def stmt(self, s, st, env) -> SymState:
        if isinstance(s, ir.Assign):
            st = st.copy()
            var = self.inst.var(s.target)
            v = self.expr(s.value, st, env)
            ok = self.in_type(var, v)
            if s.index is None:
                st.vals[s.target][0] = v
            else:
                i = self.expr(s.index, st, env) - self.index_base(s.target)
                slots = st.vals[s.target]
                st.vals[s.target] = [sym_if(i == j, v, old) if _concrete(i) is None
                                     else (v if _concrete(i) == j else old) for j, old in enumerate(slots)]
            st.overflow = z3.Or(st.overflow, z3.Not(ok))
            return st
        if isinstance(s, ir.If):
            conds = [self.expr(cond, st, env) for cond, _ in s.branches]
            out = self.stmts(s.otherwise, st, env)
            for c, (_, body) in reversed(list(zip(conds, s.branches))):
                out = merge(c, self.stmts(body, st, env), out)
            return out
        if isinstance(s, ir.ForallStmt):
            self.bind_kind(s.var, s.domain, st, env)
            for v, c in self.candidates(s.domain, st, env):
                after = self.stmts(s.body, st, {**env, s.var: v})
                st = merge(c, after, st)
            return st
        if isinstance(s, ir.OutcomeStmt):
            st = st.copy()
            if s.kind == "draw":
                st.draw = z3.BoolVal(True)
                return st
            x = self.expr(s.subject, st, env)
            team = self._is_team(s.subject)
            attr = ("lt" if s.kind == "lose" else "wt") if team else ("lp" if s.kind == "lose" else "wp")
            cur = getattr(st, attr)
            setattr(st, attr, [z3.Or(c, x == j) for j, c in enumerate(cur)])
            return st
        raise Unsupported(type(s).__name__)

    def in_type(self, var: Var, v):
        t = var.type
        if isinstance(v, SymSet):
            return z3.BoolVal(True)
        if t.kind == "int":
            return z3.And(v >= t.low, v <= t.high)
        if t.kind == "player":
            return z3.And(v >= (-1 if t.optional else 0), v < self.n)
        if t.kind == "team":
            return z3.And(v >= 0, v < self.nt)
        if t.kind == "enum":
            return z3.And(v >= 0, v < len(t.members))
        return z3.BoolVal(True)

    # ------------------------------------------------------------ outcomes
    def resolve(self, st: SymState) -> tuple[SymState, object, object]:
        """Fixpoint of the outcome rules, then precedence; returns (state, ended, gap)."""
        outcomes, precedence, must_end = self.outcomes, self.precedence, self.must_end
        n, nt = self.n, self.nt
        ground = sum(n if r.subject_kind == "player" else nt if r.subject_kind == "team" else 1 for r in outcomes)
        for _ in range(ground + 1):
            before = st.lp + st.wp + st.lt + st.wt + [st.draw]
            for r in outcomes:
                if r.kind == "draw":
                    st.draw = z3.simplify(z3.Or(st.draw, self.expr(r.cond, st, {})))
                    continue
                width = n if r.subject_kind == "player" else nt
                done = st.out if r.subject_kind == "player" else st.tout
                attr = ("lp" if r.kind == "lose" else "wp") if r.subject_kind == "player" else ("lt" if r.kind == "lose" else "wt")
                self.kinds[r.var] = r.subject_kind
                new = []
                for x in range(width):
                    cond = self.expr(r.cond, st, {r.var: x})
                    new.append(z3.Or(getattr(st, attr)[x], z3.And(z3.Not(done[x]), cond)))
                setattr(st, attr, [z3.simplify(v) for v in new])
            # the same facts in, the same facts out: the fixpoint is reached
            if all(a.eq(b) for a, b in zip(before, st.lp + st.wp + st.lt + st.wt + [st.draw])):
                break
        st.lp = [z3.And(a, z3.Not(o)) for a, o in zip(st.lp, st.out)]
        st.wp = [z3.And(a, z3.Not(o)) for a, o in zip(st.wp, st.out)]
        st.lt = [z3.And(a, z3.Not(o)) for a, o in zip(st.lt, st.tout)]
        st.wt = [z3.And(a, z3.Not(o)) for a, o in zip(st.wt, st.tout)]
        for w, l in precedence:
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
                st.draw = z3.And(st.draw, z3.Not(z3.Or(*(st.wp + st.wt))))
            elif (w, l) == ("draw", "lose"):
                st.lp = [z3.And(a, z3.Not(st.draw)) for a in st.lp]
                st.lt = [z3.And(a, z3.Not(st.draw)) for a in st.lt]
            elif (w, l) == ("lose", "draw"):
                st.draw = z3.And(st.draw, z3.Not(z3.Or(*(st.lp + st.lt))))
        st.out = [z3.Or(a, b) for a, b in zip(st.out, st.lp)]
        st.tout = [z3.Or(a, b) for a, b in zip(st.tout, st.lt)]
        ended = z3.Or(st.draw, *st.wp, *st.wt)
        gap_conds = [z3.And(*st.out)] + [self.expr(d.cond, st, {}) for d in must_end]
        gap = z3.And(z3.Not(ended), z3.Or(*gap_conds))
        return st, ended, gap


def _fresh_value(inst, v, name):
    if v.type.kind == "set":
        return SymSet([z3.Bool(f"{name}.{p}") for p in range(inst.nplayers)], "player")
    return (z3.Bool if v.type.kind == "bool" else z3.Int)(name)


def _eq(a, b):
    if isinstance(a, SymSet):
        return z3.And(*[x == y for x, y in zip(a.elems, b.elems)]) if a.elems else z3.BoolVal(True)
    return a == _tz(b)


def _floordiv(a, b):
    """Python's floor division. Z3's integer division is Euclidean (the remainder is never
    negative), which agrees with Python for positive divisors but not for negative ones."""
    euclid = a / b
    return z3.If(z3.And(b < 0, a % b != 0), euclid - 1, euclid)


# ---------------------------------------------------------------- concrete states <-> Z3

def state_to_sym(inst: Instance, state: tuple) -> SymState:
    vals = {}
    for v in inst.vars:
        slots = state[v.offset:v.offset + v.count]
        if v.type.kind == "set":
            vals[v.name] = [SymSet([z3.BoolVal(bool(x >> p & 1)) for p in range(inst.nplayers)], "player") for x in slots]
            continue
        vals[v.name] = [z3.BoolVal(x) if isinstance(x, bool) else z3.IntVal(x) for x in slots]
    k = inst.nslots
    out = [z3.BoolVal(bool(state[k] >> p & 1)) for p in range(inst.nplayers)]
    tout = [z3.BoolVal(bool(state[k + 1] >> t & 1)) for t in range(inst.nteams)]
    return SymState(vals, out, tout)


def replay(machine, graph, path) -> str:
    """Re-execute a path [(state id, label id)] with the Z3 encoding; "" if every step checks."""
    inst = machine.inst
    enc = Encoder(inst)
    try:
        for (prev_sid, _), (sid, lid) in zip(path, path[1:]):
            pre = graph.states[prev_sid]
            post = graph.states[sid]
            action_i, binding, _ = graph.labels[lid]
            decl = machine.actions[action_i].decl
            st = state_to_sym(inst, pre)
            env = {}
            for prm, v in zip(decl.params, binding):
                enc.bind_kind(prm.name, prm.domain, st, env)
                env[prm.name] = z3.IntVal(v)
            # the binding must be in the parameter's domain
            for prm, v in zip(decl.params, binding):
                ok = any(_concrete(c) is True and val == v for val, c in enc.candidates(prm.domain, st, env))
                if not ok:
                    return f"step to state {sid}: {decl.name} argument {prm.name} outside its domain"
            guard = _concrete(enc.expr(decl.guard, st, env))
            if guard is not True:
                return f"step to state {sid}: the guard of {decl.name} does not hold"
            after = enc.stmts(decl.body, st, env)
            if _concrete(after.overflow) is not False:
                return f"step to state {sid}: {decl.name} overflows"
            after, ended, gap = enc.resolve(after)
            problem = _compare(inst, after, ended, gap, post)
            if problem:
                return f"step to state {sid} ({decl.name}): {problem}"
    except Unsupported as exc:
        return f"not replayed: {exc}"
    return ""


def _compare(inst, st: SymState, ended, gap, post) -> str:
    for v in inst.vars:
        for j in range(v.count):
            got = st.vals[v.name][j]
            if isinstance(got, SymSet):
                bits = [_concrete(b) for b in got.elems]
                got = None if None in bits else sum(1 << p for p, b in enumerate(bits) if b)
            else:
                got = _concrete(got)
            want = post[v.offset + j]
            if got != want:
                return f"{v.name}[{j}] is {got} in the replay but {want} in the explorer"
    k = inst.nslots
    out = sum(1 << p for p in range(inst.nplayers) if _concrete(st.out[p]))
    if out != post[k]:
        return "players out of the game differ"
    end = post[-1]
    is_end = _concrete(ended)
    is_gap = _concrete(gap)
    if bool(end and end[0] != "gap") != bool(is_end):
        return "whether the game ended differs"
    if bool(end and end[0] == "gap") != bool(is_gap):
        return "whether the game must end differs"
    if end and end[0] != "gap":
        wp = sum(1 << p for p in range(inst.nplayers) if _concrete(st.wp[p]))
        wt = sum(1 << t for t in range(inst.nteams) if _concrete(st.wt[t]))
        if (wp, wt, bool(_concrete(st.draw))) != (end[0], end[1], end[2]):
            return "the winners differ"
    return ""


# ---------------------------------------------------------------- static contradictions

def contradiction(inst: Instance, timeout_ms: int = 10_000):
    """None if setup and constraints are satisfiable; else ("unsat", [decls in the core]) or ("unknown", reason)."""
    enc = Encoder(inst)
    s = z3.Solver()
    s.set(unsat_core=True, timeout=timeout_ms)
    tracked = {}
    labels = []

    def track(decl, formula, what):
        label = z3.Bool(f"t{len(tracked)}")
        tracked[label.get_id()] = (decl, what)
        labels.append(label)
        s.add(z3.Implies(label, formula))

    def fresh(name, kind):
        return z3.Bool(name) if kind == "bool" else z3.Int(name)

    for name, (decl, vt, index_type) in inst.static_choices.items():
        count = len(index_type.values(inst.nplayers, inst.nteams)) if index_type else 1
        if vt.kind == "set":
            raise Unsupported("set-valued choices")
        terms = [fresh(f"{name}_{j}", vt.kind) for j in range(count)]
        enc.static[name] = terms
        fake = Var(decl, vt, 0, count)
        for t in terms:
            track(decl, enc.in_type(fake, t), f"the type of {name}")
    st = SymState({}, [z3.BoolVal(False)] * inst.nplayers, [z3.BoolVal(False)] * inst.nteams)
    for v in inst.vars:
        terms = [_fresh_value(inst, v, f"{v.name}_{j}") for j in range(v.count)]
        st.vals[v.name] = terms
        for j, t in enumerate(terms):
            track(v.decl, enc.in_type(v, t), f"the type of {v.name}")
            if v.decl.init is not None:
                env = {v.decl.index[0]: z3.IntVal(j + v.index_base)} if v.decl.index else {}
                if v.decl.index:
                    enc.kinds[v.decl.index[0]] = v.indexed
                track(v.decl, _eq(t, enc.expr(v.decl.init, st, env)), f"the initial value of {v.name}")
    for d in inst.decls:
        if isinstance(d, (ir.InitDecl, ir.ConstraintDecl)):
            track(d, enc.expr(d.cond, st, {}), f"`{d.name}`")
    r = s.check(*labels)
    if r == z3.sat:
        return None
    if r == z3.unknown:
        return ("unknown", s.reason_unknown())
    core = list(s.unsat_core())
    # shrink the core to a minimal one: drop members while it stays unsat
    i = 0
    while i < len(core):
        trial = core[:i] + core[i + 1:]
        if s.check(*trial) == z3.unsat:
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


# ---------------------------------------------------------------- bounded model checking

class _Frame:
    """Fresh symbols for one step of a bounded path."""

    def __init__(self, inst: Instance, i: int):
        vals = {v.name: [_fresh_value(inst, v, f"{v.name}_{j}@{i}") for j in range(v.count)] for v in inst.vars}
        self.st = SymState(vals, [z3.Bool(f"out_{p}@{i}") for p in range(inst.nplayers)],
                           [z3.Bool(f"tout_{t}@{i}") for t in range(inst.nteams)])
        self.wp = [z3.Bool(f"wp_{p}@{i}") for p in range(inst.nplayers)]
        self.wt = [z3.Bool(f"wt_{t}@{i}") for t in range(inst.nteams)]
        self.draw = z3.Bool(f"draw@{i}")
        self.ended = z3.Bool(f"ended@{i}")
        self.gap = z3.Bool(f"gap@{i}")

    def equals(self, st: SymState, ended, gap):
        eqs = []
        for k, terms in self.st.vals.items():
            eqs += [_eq(a, b) for a, b in zip(terms, st.vals[k])]
        eqs += [a == b for a, b in zip(self.st.out, st.out)]
        eqs += [a == b for a, b in zip(self.st.tout, st.tout)]
        eqs += [a == b for a, b in zip(self.wp, st.wp)]
        eqs += [a == b for a, b in zip(self.wt, st.wt)]
        eqs += [self.draw == st.draw, self.ended == ended, self.gap == gap]
        return z3.And(*eqs)


class BMC:
    """The transition relation unrolled step by step, for bounded queries."""

    def __init__(self, inst: Instance):
        self.inst = inst
        self.enc = Encoder(inst)
        self.actions = [d for d in inst.decls if isinstance(d, ir.ActionDecl)]
        self.solver = z3.Solver()
        self.frames = [_Frame(inst, 0)]
        self._initial()

    def _initial(self):
        enc, inst = self.enc, self.inst
        raw = SymState({v.name: [_fresh_value(inst, v, f"{v.name}_{j}@init") for j in range(v.count)] for v in inst.vars},
                       [z3.BoolVal(False)] * inst.nplayers, [z3.BoolVal(False)] * inst.nteams)
        s = self.solver
        for v in inst.vars:
            for j, t in enumerate(raw.vals[v.name]):
                s.add(enc.in_type(v, t))
                if v.decl.init is not None:
                    env = {v.decl.index[0]: z3.IntVal(j + v.index_base)} if v.decl.index else {}
                    if v.decl.index:
                        enc.kinds[v.decl.index[0]] = v.indexed
                    s.add(_eq(t, enc.expr(v.decl.init, raw, env)))
        for d in inst.decls:
            if isinstance(d, ir.InitDecl):
                s.add(enc.expr(d.cond, raw, {}))
            # constraints on choices the play never reads are the contradiction check's, as in the explorer
            if isinstance(d, ir.ConstraintDecl) and not ir.mentions(d.cond, inst.static_choices):
                s.add(enc.expr(d.cond, raw, {}))
        st, ended, gap = enc.resolve(raw.copy())
        s.add(self.frames[0].equals(st, ended, gap))

    def _options(self, f: _Frame, game_only: bool):
        """(guard, post state, ended, gap) for every action binding from frame f."""
        enc = self.enc
        out = []
        for d in self.actions:
            if game_only and d.leave:
                continue
            for env, conds in self._bindings(d.params, f.st, {}, []):
                guard = z3.And(*conds, enc.expr(d.guard, f.st, env))
                out.append((d, env, guard))
        return out

    def _bindings(self, params, st, env, conds):
        if not params:
            yield dict(env), list(conds)
            return
        p = params[0]
        self.enc.bind_kind(p.name, p.domain, st, env)
        for v, c in self.enc.candidates(p.domain, st, env):
            yield from self._bindings(params[1:], st, {**env, p.name: z3.IntVal(v)}, conds + [c])

    def enabled(self, f: _Frame):
        return z3.Or(*[g for _, _, g in self._options(f, True)]) if self.actions else z3.BoolVal(False)

    def extend(self):
        """Add the next frame and the transition relation into it."""
        f = self.frames[-1]
        g = _Frame(self.inst, len(self.frames))
        steps = []
        for d, env, guard in self._options(f, False):
            base = SymState(f.st.vals, f.st.out, f.st.tout)  # the same state, with no facts of this step yet
            for prm in d.params:
                self.enc.bind_kind(prm.name, prm.domain, f.st, env)
            post = self.enc.stmts(d.body, base, env)
            post, ended, gap = self.enc.resolve(post)
            steps.append(z3.And(guard, z3.Not(post.overflow), g.equals(post, ended, gap)))
        self.solver.add(z3.Not(f.ended), z3.Not(f.gap), z3.Or(*steps) if steps else z3.BoolVal(False))
        self.frames.append(g)

    def reachable_outcomes(self, depth: int):
        """Every (winning players mask, winning teams mask, draw) and gap reachable within `depth` steps,
        and whether a deadlock is reachable within `depth` steps."""
        outcomes, gaps, deadlock = set(), False, False
        for i in range(depth + 1):
            if i > 0:
                self.extend()
            f = self.frames[i]
            s = self.solver
            s.push()
            s.add(f.ended)
            while s.check() == z3.sat:
                m = s.model()
                wp = sum(1 << p for p, b in enumerate(f.wp) if z3.is_true(m.eval(b, model_completion=True)))
                wt = sum(1 << t for t, b in enumerate(f.wt) if z3.is_true(m.eval(b, model_completion=True)))
                dr = z3.is_true(m.eval(f.draw, model_completion=True))
                outcomes.add((wp, wt, dr))
                s.add(z3.Not(z3.And(*[b == bool(wp >> p & 1) for p, b in enumerate(f.wp)],
                                    *[b == bool(wt >> t & 1) for t, b in enumerate(f.wt)], f.draw == dr)))
            s.pop()
            if not gaps:
                s.push()
                s.add(f.gap)
                gaps = s.check() == z3.sat
                s.pop()
            if not deadlock:
                s.push()
                s.add(z3.Not(f.ended), z3.Not(f.gap), z3.Not(self.enabled(f)))
                deadlock = s.check() == z3.sat
                s.pop()
        return outcomes, gaps, deadlock
