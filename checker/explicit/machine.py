"""A compiled instance: initial states, successors and outcome resolution.

A state is a tuple: the variables' slots, then the mask of players out, the mask of teams out,
and the end marker: `()` while the game runs, `(winning players, winning teams, draw)` once it
has ended, or `("gap", why)` when the game must be over but no outcome rule decides it.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from ..frontend import syntax as ir
from .compile import BOOL, NONE, PLAYER, TEAM, Compiler, Ctx, EvalError, Overflow, _compatible, _show, _vt, err
from ..frontend.instances import Instance


@dataclass
class Action:
    decl: ir.ActionDecl
    rid: int
    binders: list  # (name, cell, domain closure, static values or None, element type)
    guard: object
    body: object
    progress: bool
    leave: bool

    def __post_init__(self):
        self.cells = [b[1] for b in self.binders]  # bound in the hot loop, so kept at hand


@dataclass
class OutcomeRule:
    decl: ir.OutcomeDecl
    rid: int
    kind: str
    subject: str | None
    cell: list
    cond: object
    reads_outcomes: bool = True  # mentions lost()/won(): must be re-applied when facts change
    fact: str = ""  # the Ctx field holding its facts: lp/wp for players, lt/wt for teams (a field: read in the hot loop)

    def __post_init__(self):
        if self.kind != "draw":
            self.fact = ("l" if self.kind == "lose" else "w") + ("p" if self.subject == "player" else "t")


@dataclass
class Step:
    """One transition out of a state."""
    action: int
    binding: tuple
    target: tuple | None
    hits: tuple
    error: str = ""
    error_span: ir.Span | None = None
    conflict: str = ""


class Machine:
    def __init__(self, inst: Instance):
        self.inst = inst
        self._products: dict[int, list] = {}  # binder list id -> its product (the lists live as long as self)
        comp = self.comp = Compiler(inst)
        self.n = inst.nplayers
        self.all = (1 << self.n) - 1
        decls = inst.decls
        self.actions: list[Action] = []
        for d in decls:
            if isinstance(d, ir.ActionDecl):
                self.actions.append(self._action(d))
        self.outcomes: list[OutcomeRule] = []
        for d in decls:
            if isinstance(d, ir.OutcomeDecl):
                cell = [None]
                scope = {}
                if d.var:
                    comp.binder(d.var, d.span)
                if d.subject_kind:
                    if d.subject_kind == "team" and not inst.has_teams:
                        raise err("E013", "a team outcome needs teams, and this format has none", d.span)
                    scope[d.var] = (cell, PLAYER if d.subject_kind == "player" else TEAM)
                f, t = comp.expr(d.cond, scope, 1, True)
                comp.want(t, BOOL, d.cond)
                rid = comp.rule("outcome", d.name, d.tags, d.span)
                self.outcomes.append(OutcomeRule(d, rid, d.kind, d.subject_kind, cell, f,
                                                 _reads_outcomes(d.cond, inst.lets)))
        self.precedence = [(d.winner, d.loser) for d in decls if isinstance(d, ir.PrecedenceDecl)]
        winners = [d for d in decls if isinstance(d, ir.WinnersDecl)]
        self.winners_many = bool(winners and winners[-1].many)
        self.active = None
        for d in decls:
            if isinstance(d, ir.ActiveDecl):
                comp.binder(d.var, d.span)
                cell = [None]
                f, t = comp.expr(d.cond, {d.var: (cell, PLAYER)})
                comp.want(t, BOOL, d.cond)
                self.active = (d, cell, f)
        self.procedures = [(d, self._cond(d.cond)) for d in decls if isinstance(d, ir.ProcedureDecl)]
        self.ends = [(d, self._cond(d.cond)) for d in decls if isinstance(d, ir.EndsDecl)]
        self.invariants = [(d, self._cond(d.cond)) for d in decls if isinstance(d, ir.InvariantDecl)]
        self.inits = [(d, self._cond(d.cond)) for d in decls if isinstance(d, ir.InitDecl)]
        self.reachables = []
        for d in decls:
            if isinstance(d, ir.ReachableDecl):
                binders, scope = self._binders(d.params, {})
                f, t = comp.expr(d.cond, scope)
                comp.want(t, BOOL, d.cond)
                self.reachables.append((d, binders, f))
        # constraints that only mention the explored state are checked here; those about
        # choices that never reach the dynamics are Z3's (checker.z3backend)
        self.constraints = [(d, self._cond(d.cond)) for d in decls
                            if isinstance(d, ir.ConstraintDecl) and not ir.mentions(d.cond, inst.static_choices)]
        self.var_inits = []
        for v in inst.vars:
            d = v.decl
            if d.init is None:
                self.var_inits.append((v, None, None))
                continue
            cell = [None]
            scope = {d.index[0]: (cell, _vt(v.index_type))} if d.index else {}
            f, t = comp.expr(d.init, scope)
            if not _compatible(t, _vt(v.type)) or (t == NONE and not v.type.optional):
                raise err("E013", f"{d.name} holds a {_show(_vt(v.type))}; its initial value is a {_show(t)}", d.init.span)
            self.var_inits.append((v, cell, f))
        self.rules = comp.rules
        self._resolved: dict[tuple, tuple] = {}
        self._credited: set[int] = set()
        self._outcome_rids = {r.rid for r in self.outcomes}

    def _cond(self, e):
        f, t = self.comp.expr(e, {})
        self.comp.want(t, BOOL, e)
        return f

    def _binders(self, params, scope):
        binders = []
        scope = dict(scope)
        for prm in params:
            self.comp.binder(prm.name, prm.span)
            dom, et = self.comp.domain(prm.domain, scope, False)
            cell = [None]
            static = None
            if not any(isinstance(n, ir.Name) and (n.name in scope or self.inst.var(n.name) or n.name == "remaining")
                       or isinstance(n, (ir.Index, ir.Call)) for n in ir.walk(prm.domain)):
                static = list(dom(Ctx(())))
            binders.append((prm.name, cell, dom, static, et))
            scope[prm.name] = (cell, et)
        return binders, scope

    def _action(self, d: ir.ActionDecl) -> Action:
        comp = self.comp
        binders, scope = self._binders(d.params, {})
        guard, t = comp.expr(d.guard, scope)
        comp.want(t, BOOL, d.guard)
        rid = comp.rule("action", d.name, d.tags, d.span)
        body = comp.stmts(d.body, scope)
        return Action(d, rid, binders, guard, body, d.progress, d.leave)

    # ------------------------------------------------------------ bindings
    def bindings(self, binders, c):
        if not binders:
            yield ()
            return
        if all(b[3] is not None for b in binders):
            # every domain is fixed: the product is the same in every state, so build it once
            key = id(binders)
            if key not in self._products:
                self._products[key] = list(itertools.product(*[b[3] for b in binders]))
            yield from self._products[key]
            return

        def rec(i, acc):
            if i == len(binders):
                yield tuple(acc)
                return
            _, cell, dom, static, _ = binders[i]
            for v in (static if static is not None else list(dom(c))):
                cell[0] = v
                acc.append(v)
                yield from rec(i + 1, acc)
                acc.pop()
        yield from rec(0, [])

    @staticmethod
    def bind(binders, values):
        for (_, cell, _, _, _), v in zip(binders, values):
            cell[0] = v

    # ------------------------------------------------------------ states
    def initial_states(self) -> list[tuple[tuple, tuple, str]]:
        """(state, hits of outcome rules, conflict) for every initial state, in a fixed order."""
        inst = self.inst
        partial = [[]]
        n, nt = inst.nplayers, inst.nteams
        for v, cell, f in self.var_inits:
            nxt = []
            for vals in partial:
                c = Ctx(vals + [None] * (inst.nslots - len(vals)))
                if f is None:
                    options = v.type.values(n, nt)
                    for combo in itertools.product(options, repeat=v.count):
                        nxt.append(vals + list(combo))
                    continue
                row = []
                for i in range(v.count):
                    if cell is not None:
                        cell[0] = i + v.index_base
                    try:
                        val = f(c)
                    except EvalError as exc:
                        raise err("E017", str(exc), exc.span)
                    if not v.type.contains(val, n, nt):
                        raise err("E015", f"the initial value of {v.name} is {val}, outside its type", v.decl.span,
                                  "widen the type's range or fix the initial value")
                    row.append(val)
                nxt.append(vals + row)
            partial = nxt
            if len(partial) > 2_000_000:
                raise err("E015", "more than 2,000,000 initial states", v.decl.span, "restrict `any` values with `init`")
        out = []
        for vals in partial:
            c = Ctx(vals)
            try:
                if not all(f(c) for _, f in self.inits) or not all(f(c) for _, f in self.constraints):
                    continue
            except EvalError as exc:
                raise err("E017", str(exc), exc.span)
            c = Ctx(list(vals))
            end, conflict = self.resolve(c)
            out.append((tuple(c.vals) + (c.out, c.tout, end), tuple(c.hits), conflict))
        return out

    def successors(self, state: tuple) -> list[Step]:
        inst = self.inst
        k = inst.nslots
        reader = Ctx(state, state[k], state[k + 1])
        steps: list[Step] = []
        for ai, a in enumerate(self.actions):
            cells = a.cells
            for binding in list(self.bindings(a.binders, reader)):
                for cell, v in zip(cells, binding):  # the guard and then the body read these cells
                    cell[0] = v
                try:
                    if not a.guard(reader):
                        continue
                except EvalError as exc:
                    steps.append(Step(ai, binding, None, (), str(exc), exc.span))
                    continue
                c = Ctx(list(state[:k]), state[k], state[k + 1])
                c.hits.append(a.rid)
                try:
                    a.body(c)
                except Overflow as exc:
                    steps.append(Step(ai, binding, None, tuple(c.hits), f"{exc.var} would become {exc.value}, outside its type", exc.span))
                    continue
                except EvalError as exc:
                    steps.append(Step(ai, binding, None, tuple(c.hits), str(exc), exc.span))
                    continue
                vals = tuple(c.vals)
                key = (vals, c.out, c.tout, c.lp, c.lt, c.wp, c.wt, c.draw)
                done = self._resolved.get(key)
                if done is None:
                    before = len(c.hits)
                    try:
                        end, conflict = self.resolve(c)
                    except EvalError as exc:
                        steps.append(Step(ai, binding, None, tuple(c.hits), str(exc), exc.span))
                        continue
                    # resolution depends on nothing but the key: many transitions share one result
                    done = (c.out, c.tout, end, conflict, tuple(c.hits[before:]))
                    self._resolved[key] = done
                out, tout, end, conflict, more_hits = done
                steps.append(Step(ai, binding, vals + (out, tout, end), tuple(c.hits) + more_hits, conflict=conflict))
        return steps

    def resolve(self, c: Ctx) -> tuple[tuple, str]:
        """Apply the outcome rules to a fixpoint, then precedence; returns (end marker, conflict)."""
        inst = self.inst
        # the first pass applies every rule; later passes only the rules that read lost()/won(),
        # the only thing a pass can change
        changed = True
        rules = self.outcomes
        dependent = [r for r in rules if r.reads_outcomes]
        n, nt = self.n, inst.nteams
        while changed:
            changed = False
            for r in rules:
                if r.kind == "draw":
                    if not c.draw and r.cond(c):
                        c.draw = True
                        c.hits.append(r.rid)
                        changed = True
                    continue
                attr = r.fact
                done, width = (c.out, n) if r.subject == "player" else (c.tout, nt)
                for x in range(width):
                    if (done >> x) & 1 or (getattr(c, attr) >> x) & 1:
                        continue
                    r.cell[0] = x
                    if r.cond(c):
                        setattr(c, attr, getattr(c, attr) | (1 << x))
                        c.hits.append(r.rid)
                        changed = True
            rules = dependent
        self._credit_redundant(c)
        # facts about players or teams already out are not news
        c.lp &= ~c.out
        c.lt &= ~c.tout
        c.wp &= ~c.out
        c.wt &= ~c.tout
        for winner, loser in self.precedence:
            if (winner, loser) == ("lose", "win"):
                c.wp &= ~c.lp
                c.wt &= ~c.lt
            elif (winner, loser) == ("win", "lose"):
                c.lp &= ~c.wp
                c.lt &= ~c.wt
            elif (winner, loser) == ("draw", "win") and c.draw:
                c.wp = c.wt = 0
            elif (winner, loser) == ("win", "draw") and (c.wp or c.wt):
                c.draw = False
            elif (winner, loser) == ("draw", "lose") and c.draw:
                c.lp = c.lt = 0
            elif (winner, loser) == ("lose", "draw") and (c.lp or c.lt):
                c.draw = False
        conflict = self._conflict(c)
        c.out |= c.lp
        c.tout |= c.lt
        if c.wp or c.wt or c.draw:
            return (c.wp, c.wt, c.draw), conflict
        if c.out == self.all:
            return ("gap", "no player is left in the game"), conflict
        for d, f in self.ends:
            if f(c):
                return ("gap", f"`{d.name}` says the game must be over"), conflict
        return (), conflict

    def _credit_redundant(self, c: Ctx) -> None:
        """A rule whose fact another rule derived first still applies: credit it once, so it is not
        reported as dead. Each rule is checked only until it has been credited."""
        for r in self.outcomes:
            if r.rid in self._credited:
                continue
            if r.kind == "draw":
                if c.draw and r.cond(c):
                    c.hits.append(r.rid)
                continue
            facts = getattr(c, r.fact)
            done, width = (c.out, self.n) if r.subject == "player" else (c.tout, self.inst.nteams)
            for x in range(width):
                if (facts >> x) & 1 and not (done >> x) & 1:
                    r.cell[0] = x
                    if r.cond(c):
                        c.hits.append(r.rid)
                        break
        self._credited.update(h for h in c.hits if h in self._outcome_rids)

    def _conflict(self, c: Ctx) -> str:
        inst = self.inst
        both_p = c.wp & c.lp
        both_t = c.wt & c.lt
        if both_p:
            return f"{_names_of(inst.players, both_p)} both win and lose"
        if both_t:
            return f"team {_names_of(inst.teams, both_t)} both wins and loses"
        if c.draw and (c.wp or c.wt):
            return "the game is both drawn and won"
        if not self.winners_many:
            sides = set()
            for p in range(self.n):
                if c.wp >> p & 1:
                    sides.add(("t", inst.team_of[p]) if inst.has_teams else ("p", p))
            for t in range(inst.nteams):
                if c.wt >> t & 1:
                    sides.add(("t", t))
            if len(sides) > 1:
                names = []
                for kind, x in sorted(sides):
                    names.append(inst.teams[x] if kind == "t" else inst.players[x])
                return f"{' and '.join(names)} both win, but the format allows one winner"
        return ""

    # ------------------------------------------------------------ state queries
    def reader(self, state: tuple) -> Ctx:
        """A context for reading a state; `won()` sees the winners recorded in its end marker."""
        k = self.inst.nslots
        c = Ctx(state, state[k], state[k + 1])
        end = state[-1]
        if end and end[0] != "gap":
            c.wp, c.wt, c.draw = end
        return c

    def is_active(self, state: tuple, p: int) -> bool:
        if self.active is None:
            return False
        _, cell, f = self.active
        cell[0] = p
        return bool(f(self.reader(state)))

    def show(self, t, v) -> str:
        """A value of compile-time type `t` in the spec's words."""
        inst = self.inst
        if t == PLAYER:
            return inst.players[v] if 0 <= v < inst.nplayers else "none"
        if t == TEAM:
            return inst.teams[v]
        if isinstance(t, tuple):
            return t[1][v]
        if isinstance(v, bool):
            return "true" if v else "false"
        return str(v)


def _reads_outcomes(expr, lets, seen=None) -> bool:
    seen = set() if seen is None else seen
    for n in ir.walk(expr):
        if isinstance(n, ir.Call):
            if n.func in ("lost", "won"):
                return True
            if n.func in lets and n.func not in seen:
                seen.add(n.func)
                if _reads_outcomes(lets[n.func].body, lets, seen):
                    return True
        elif isinstance(n, ir.Name) and n.name in lets and n.name not in seen:
            seen.add(n.name)
            if _reads_outcomes(lets[n.name].body, lets, seen):
                return True
    return False


def _names_of(names, mask) -> str:
    return ", ".join(names[i] for i in range(len(names)) if mask >> i & 1)



