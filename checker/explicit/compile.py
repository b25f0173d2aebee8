"""The concrete semantics: typed IR compiled to Python closures for one instance.

The resolve pass has already looked every name up and checked every type, so this module only
decides how each node computes its value. `Machine` (checker.explicit.machine) runs the
closures; the symbolic engine (checker.symbolic) implements the same semantics independently,
and every reported trace is replayed there.

Values: booleans are bools, numbers ints, players/teams/members their index (-1 for none),
sets of players, teams or members bit masks, sets of numbers frozensets. A closure takes a
`Ctx`: the variable slots, the players and teams out of the game as the current evaluation
sees them, and the outcome facts of the step.
"""
from __future__ import annotations

from ..frontend import builtins as bi
from ..frontend import dispatch
from ..frontend import typed as T
from ..frontend.instances import Instance


class EvalError(Exception):
    """An expression has no value: division by zero, an index outside its range, none as a player."""

    def __init__(self, msg, span):
        super().__init__(msg)
        self.span = span


class Overflow(Exception):
    def __init__(self, var: str, value, span):
        super().__init__(f"{var} := {value}")
        self.var, self.value, self.span = var, value, span


class Ctx:
    """One evaluation: the values being read or written and the outcome facts of this step."""
    __slots__ = ("vals", "out", "tout", "lp", "lt", "wp", "wt", "draw", "fin", "hits", "over", "out0", "tout0",
                 "dp", "dt", "xp", "xt")

    def __init__(self, vals, out=0, tout=0):
        self.vals = vals
        self.out = out
        self.tout = tout
        self.lp = self.lt = self.wp = self.wt = 0
        self.dp = self.dt = self.xp = self.xt = 0  # players/teams who draw, or leave with no result, in this step
        self.draw = False
        self.fin = False  # the game ends without a winner (`finish`); a state read: it ended so
        self.hits: list[int] = []
        self.over = False  # the state read has ended (only properties of states read this)
        self.out0, self.tout0 = out, tout  # who was out when the step began: lost_now() is lost since


# ---- why a player or team is out (outcome shapes for some players, docs/language.md "Outcomes")
# The mask of players (teams) out of the game keeps, above its first `width` bits (who is out),
# why each one left without losing: bits width..2*width-1 drew, the next `width` bits won while
# the game went on (`after_win plays_on`), the next left with no result (`leave`). One out with
# none of these lost. The state keeps its shape, and whatever asks who is in the game reads the
# low bits as before; only lost(), won() and drew() read the rest.
DREW, WON, LEFT = 1, 2, 3


def result_mask(out: int, width: int, why: int) -> int:
    """The players (teams) out of the game for this reason: DREW, WON or LEFT."""
    return (out >> (why * width)) & ((1 << width) - 1)


def lost_mask(out: int, width: int) -> int:
    """The players (teams) out of the game by a loss."""
    low = out & ((1 << width) - 1)
    if out == low:  # nobody left without losing: the common case
        return low
    return low & ~(result_mask(out, width, DREW) | result_mask(out, width, WON) | result_mask(out, width, LEFT))


def with_results(out: int, width: int, lost: int, drew: int, won: int, left: int) -> int:
    """`out` with these players (teams) gone, each for its reason (`won` only where winners
    leave while the game goes on)."""
    return (out | lost | drew | won | left | (drew << width) | (won << (2 * width))
            | (left << (3 * width)))


def popcount(x: int) -> int:
    return bin(x).count("1")


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


def mask_of(values) -> int:
    """The set of players, teams or members with these indexes; none (-1) adds nothing."""
    m = 0
    for v in values:
        if v >= 0:
            m |= 1 << v
    return m


def best_of(pairs, sign: int):
    """The first value whose score times `sign` is greatest, of (value, score) pairs; None if
    there are none (argmax: sign 1, argmin: -1)."""
    best, best_value = None, None
    for v, x in pairs:
        x = x * sign
        if best is None or x > best_value:  # strictly better: ties keep the first
            best, best_value = v, x
    return best


def after_in(x, vals, span, ty, show):
    """The value after x's first place in vals, round the end. An x that is not there (`none`,
    unless it is listed) has no value after it: an evaluation error, never the first value,
    which would be a wrong value (docs/language.md: none where a value is needed)."""
    for i, w in enumerate(vals):
        if w == x:
            return vals[(i + 1) % len(vals)]
    raise EvalError(f"{after_shown(ty, x, show)} is not one of the values after() lists", span)


def after_shown(ty, x, show) -> str:
    """x as after()'s error shows it: in the spec's words (`show` is Instance.show)."""
    if ty.kind == "bool":
        return "true" if x else "false"
    if ty.kind == "int" and ty.step is not None:  # the engines hold a count of steps
        return f"{x} steps of {ty.step.text}"
    return show(ty, x)


def _le(a, b):
    return a <= b


_COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
            "<=": _le, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


class Compiler:
    def __init__(self, inst: Instance):
        self.inst = inst
        self.n = inst.nplayers
        self.all = (1 << self.n) - 1
        self.members = [inst.members_mask(t) for t in range(inst.nteams)]
        self.cells: dict[int, list] = {}  # binder uid -> the cell its closures read

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

    def e_Call(self, e):
        return _BUILTIN[e.func](self, e, [self.expr(a) for a in e.args])

    # ------------------------------------------------------------ built-ins (checker.frontend.builtins)
    def b_team(self, e, args):
        (p,), to = args, self.inst.team_of
        return lambda c: to[p(c)]

    def b_seat(self, e, args):
        return args[0]

    def b_player_at(self, e, args):
        (i,), n = args, self.n
        return lambda c: i(c) % n

    def b_left(self, e, args):
        (p, k), n = args, self.n
        return lambda c: (p(c) + k(c)) % n

    def b_right(self, e, args):
        (p, k), n = args, self.n
        return lambda c: (p(c) - k(c)) % n

    def b_next(self, e, args):
        (p,), n = args, self.n
        return lambda c: (p(c) + 1) % n

    def b_across(self, e, args):
        (p,), n = args, self.n
        return lambda c: (p(c) + n // 2) % n

    def b_dist(self, e, args):
        (p, q), n = args, self.n
        return lambda c: min((q(c) - p(c)) % n, (p(c) - q(c)) % n)

    def b_dist_left(self, e, args):
        (p, q), n = args, self.n
        return lambda c: (q(c) - p(c)) % n

    def b_members(self, e, args):
        (t,), mem = args, self.members
        return lambda c: mem[t(c)]

    def b_opponents(self, e, args):
        (p,), a = args, self.all
        if self.inst.has_teams:
            mem, to = self.members, self.inst.team_of
            return lambda c: a & ~mem[to[p(c)]]
        return lambda c: a & ~(1 << p(c))

    def b_teammates(self, e, args):
        (p,) = args
        if self.inst.has_teams:
            mem, to = self.members, self.inst.team_of
            return lambda c: mem[to[p(c)]] & ~(1 << p(c))
        return lambda c: p(c) and 0  # no teammates, but the argument is evaluated (it may fail)

    def b_next_in_game(self, e, args):
        (p,), n = args, self.n
        return lambda c: ring_step(p(c), 1, 1, c.out, n)

    def b_prev_in_game(self, e, args):
        (p,), n = args, self.n
        return lambda c: ring_step(p(c), 1, -1, c.out, n)

    def b_left_in_game(self, e, args):
        (p, k), n = args, self.n
        return lambda c: ring_step(p(c), k(c), 1, c.out, n)

    def b_dist_in_game(self, e, args):
        (p, q), n = args, self.n
        return lambda c: dist_in_game(p(c), q(c), c.out, n)

    def b_in_game_player(self, e, args):
        (f,) = args
        return lambda c: not (c.out >> f(c)) & 1

    def b_in_game_team(self, e, args):
        (f,), mem = args, self.members
        return lambda c: not (c.tout >> f(c)) & 1 and (mem[f(c)] & ~c.out) != 0

    def b_lost_player(self, e, args):
        (f,), n = args, self.n
        return lambda c: ((lost_mask(c.out, n) | c.lp) >> f(c)) & 1 == 1

    def b_lost_team(self, e, args):
        (f,), nt = args, self.inst.nteams
        return lambda c: ((lost_mask(c.tout, nt) | c.lt) >> f(c)) & 1 == 1

    def b_lost_now_player(self, e, args):
        (f,) = args
        return lambda c: ((c.out | c.lp) & ~c.out0) >> f(c) & 1 == 1

    def b_lost_now_team(self, e, args):
        (f,) = args
        return lambda c: ((c.tout | c.lt) & ~c.tout0) >> f(c) & 1 == 1

    def b_won_player(self, e, args):
        (f,), n = args, self.n
        return lambda c: ((c.wp | result_mask(c.out, n, WON)) >> f(c)) & 1 == 1

    def b_won_team(self, e, args):
        (f,), nt = args, self.inst.nteams
        return lambda c: ((c.wt | result_mask(c.tout, nt, WON)) >> f(c)) & 1 == 1

    def b_drew_player(self, e, args):
        (f,), n = args, self.n
        return lambda c: ((c.dp | result_mask(c.out, n, DREW)) >> f(c)) & 1 == 1

    def b_drew_team(self, e, args):
        (f,), nt = args, self.inst.nteams
        return lambda c: ((c.dt | result_mask(c.tout, nt, DREW)) >> f(c)) & 1 == 1

    def b_size(self, e, args):
        (f,) = args
        if e.args[0].type.elem.kind == "int":
            return lambda c: len(f(c))
        return lambda c: popcount(f(c))

    def b_abs(self, e, args):
        (f,) = args
        return lambda c: abs(f(c))

    def b_min(self, e, args):
        return lambda c: min(f(c) for f in args)

    def b_max(self, e, args):
        return lambda c: max(f(c) for f in args)

    def b_after(self, e, args):
        x, fs = args[0], args[1:]
        span, ty, show = e.span, e.args[0].type, self.inst.show
        return lambda c: after_in(x(c), [f(c) for f in fs], span, ty, show)

    def b_players(self, e, args):
        a = self.all
        return lambda c: a

    def b_remaining(self, e, args):
        a = self.all
        return lambda c: a & ~c.out

    def b_teams(self, e, args):
        a = (1 << self.inst.nteams) - 1
        return lambda c: a

    def b_game_over(self, e, args):
        return lambda c: c.over

    def b_game_drawn(self, e, args):
        return lambda c: c.over and c.draw

    def b_game_finished(self, e, args):
        return lambda c: c.over and c.fin

    def b_game_won(self, e, args):
        return lambda c: c.over and bool(c.wp or c.wt)

    def b_nplayers(self, e, args):
        v = self.n
        return lambda c: v

    def b_nteams(self, e, args):
        v = self.inst.nteams
        return lambda c: v

    def b_team_size(self, e, args):
        v = self.n // self.inst.nteams if self.inst.nteams else 1
        return lambda c: v

    # ------------------------------------------------------------ statements
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

    def s_Assign(self, s):
        var = self.inst.var(s.var)
        g = self.expr(s.value)
        vt, n, nt, name, span = var.type, self.n, self.inst.nteams, var.name, s.span
        if s.index is not None:
            fi = self.expr(s.index)
            off, base, count = var.offset - var.index_base, var.index_base, var.count
            keys = var.index_keys(self.inst)

            def assign_at(c):
                v = g(c)
                i = fi(c)
                if not 0 <= i - base < count:
                    raise EvalError(f"index {i} of {name} is outside its range", span)
                if not vt.contains(v, n, nt):  # the value the document would see (`in steps of`)
                    raise Overflow(f"{name}[{keys[i - base]}]", v * var.step if var.step != 1 else v, span)
                c.vals[off + i] = v
            return assign_at
        off = var.offset

        def assign(c):
            v = g(c)
            if not vt.contains(v, n, nt):
                raise Overflow(name, v * var.step if var.step != 1 else v, span)
            c.vals[off] = v
        return assign

    def s_If(self, s, rid=None):
        """`rid`: the rule the `if` is tagged with, hit when a branch runs (an `else` with
        statements is a branch; no branch taken, nothing of the rule applied)."""
        branches = [(self.expr(cond), self.stmts(body)) for cond, body in s.branches]
        other = self.stmts(s.otherwise)
        if rid is None:
            def run(c):
                for f, b in branches:
                    if f(c):
                        b(c)
                        return
                other(c)
            return run
        has_else = bool(s.otherwise)

        def run_tagged(c):
            for f, b in branches:
                if f(c):
                    c.hits.append(rid)
                    b(c)
                    return
            if has_else:
                c.hits.append(rid)
                other(c)
        return run_tagged

    def s_Forall(self, s):
        dom, cell, body = self.domain(s.domain), self.cell(s.binder), self.stmts(s.body)

        def run(c):
            for v in list(dom(c)):
                cell[0] = v
                body(c)
        return run

    def s_Block(self, s):
        return self.stmts(s.body)

    def s_LetStmt(self, s):
        cell, f = self.cell(s.binder), self.expr(s.value)

        def bind(c):
            cell[0] = f(c)
        return bind

    def s_OutcomeStmt(self, s):
        if s.kind == "draw" and s.subject is None:
            def draw(c):
                c.draw = True
            return draw
        if s.kind == "finish":
            def finish(c):
                c.fin = True
            return finish
        f = self.expr(s.subject)
        team = s.subject.type.kind == "team"
        attr = {"lose": "l", "win": "w", "draw": "d", "leave": "x"}[s.kind] + ("t" if team else "p")

        def outcome(c):
            setattr(c, attr, getattr(c, attr) | (1 << f(c)))
        return outcome


_EXPR = dispatch.by_kind(Compiler, "e_", T.EXPR_KINDS)
_STMT = dispatch.by_kind(Compiler, "s_", T.STMT_KINDS)
_BUILTIN = dispatch.by_builtin(Compiler, "b_", bi.BY_KEY)


def handled_builtins() -> set[str]:
    """The built-in keys this engine implements (a test compares them with the table)."""
    return set(_BUILTIN)
