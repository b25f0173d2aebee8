"""A compiled instance: initial states, successors and outcome resolution.

A state is a tuple: the variables' slots, then the mask of players out, the mask of teams out,
and the end marker (checker.frontend.ends): `RUNNING` (`()`) while the game runs,
`Ended(winning players, winning teams, draw)` once it has ended, or `Gap(why)` when the game
must be over but no outcome rule decides it.

Outcome resolution after each step works in strata (docs/language.md, "Outcomes"):
0. "cannot" rules (`cannot lose player p when ...`) are judged on the state as the step left it
   and the statuses when it began; a loss or win they forbid is never derived, from a statement
   or from a rule, unless `precedence RULE over CANNOT_RULE` exempts that rule;
1. losses to a fixpoint; `in_game` and the seat functions see who was out when the step began;
2. wins to a fixpoint, judged against the statuses after those losses: whoever lost in this
   step is no longer in the game;
3. draws, and `finish` rules (the game ends without a winner);
and again from 1 while a loss rule that reads `won()` has new wins to read. Then facts about
players already out are dropped, `precedence` applies, and losers leave the game.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from ..frontend import builtins as bi
from ..frontend import typed as T
from ..frontend.ends import has_ended
from ..frontend.instances import Instance
from ..limits import LimitHit
from .compile import Compiler, Ctx, EvalError, Overflow
from .outcomes import OutcomeResolution

PRODUCT_CACHE = 100_000  # bindings of fixed domains kept as a list; a larger product is enumerated lazily


@dataclass
class Bound:
    """A parameter of an action or a property, with its compiled domain."""
    binder: T.Binder
    cell: list
    dom: object
    static: list | None  # the domain's values when no state can change them


@dataclass
class Action:
    decl: T.Action
    rid: int
    binders: list[Bound]
    guard: object
    body: object
    progress: bool
    leave: bool
    actor: list | None = None  # the cell of its `by` parameter, where a trigger asks who acts

    def __post_init__(self):
        self.cells = [b.cell for b in self.binders]  # bound in the hot loop, so kept at hand

    def run(self, c) -> None:
        """The action's statements on `c` (its parameters bound in their cells), and who acts in
        the step (its `by` parameter, the cause the triggers `on ... by q` are bound to)."""
        self.body(c)
        if self.actor is not None:
            c.actor = self.actor[0]


@dataclass
class OutcomeRule:
    decl: T.OutcomeRule
    rid: int
    kind: str
    subject: str | None
    cell: list | None
    cond: object
    reads_own: bool  # reads what its stratum derives: re-applied while the stratum derives more
    fact: str = ""  # the Ctx field holding its facts: lp/wp for players, lt/wt for teams; draw, fin
    subjects: range = range(0)  # the players or teams it is tried for
    cannot: tuple = ()  # the "cannot" rules that forbid its facts (all but those it has precedence over)
    blocked: int = 0  # while a step is resolved: the subjects those rules forbid

    def __post_init__(self):
        if self.kind == "draw" and self.subject is None:
            self.fact = "draw"
        elif self.kind == "finish":
            self.fact = "fin"
        elif self.kind in ("draw", "leave"):  # a draw for some players only, or leaving with no result
            self.fact = ("d" if self.kind == "draw" else "x") + ("p" if self.subject == "player" else "t")
        else:  # a "cannot" rule names the facts it forbids
            self.fact = ("l" if self.kind.endswith("lose") else "w") + ("p" if self.subject == "player" else "t")


@dataclass
class Trigger:
    """A trigger, compiled: run for an event of its kind (`event`: one of EVENTS), its subject
    bound in `cell`."""
    decl: T.Trigger
    rid: int
    event: str
    cell: list | None
    cond: object
    body: object
    cause: list | None = None  # `by q`: the cell q is bound in, to who acts in the step
    # the generated function that tests and runs it at once (checker.explicit.compiled), or None:
    # `run(c, subject)` is true when it ran (cited, its body done)
    run: object = None


# The order in which the events of one round fire their triggers (subjects by seat or team)
EVENTS = ("lose_player", "lose_team", "draw_player", "draw_team", "leave_player", "leave_team",
          "win_player", "win_team", "draw", "finish")


@dataclass
class Step:
    """One transition out of a state, or a step that fails (`target` None, `error` set)."""
    action: int
    binding: tuple
    target: tuple | None
    hits: tuple
    error: str = ""
    error_span: object = None
    error_kind: str = ""  # overflow | evaluation-error
    where: str = ""  # guard | body | outcome: where a failing step failed
    conflict: str = ""


@dataclass
class SetupError:
    """An initial state that cannot be computed: the partial values and what failed."""
    kind: str  # overflow | evaluation-error
    message: str
    span: object
    values: tuple  # the slots computed so far (None where not yet)
    where: str  # initial value | init | constraint | outcome


def _static_domain(d) -> bool:
    """A domain no state can change: no variable, no binder, no status read."""
    return not any(isinstance(n, (T.VarRef, T.BinderRef)) or isinstance(n, T.Call) and bi.BY_KEY[n.func].reads
                   for n in T.walk(d))


def reads_own(r: T.OutcomeRule) -> bool:
    """Whether a rule reads the facts its own stratum derives (a loss rule lost(), a win rule
    won()): only those can change within a fixpoint once every rule has been applied once."""
    own = ("won_player", "won_team") if r.kind == "win" else \
        ("lost_player", "lost_team", "lost_now_player", "lost_now_team", "drew_player", "drew_team") if departs(r) else ()
    return any(isinstance(n, T.Call) and n.func in own for n in T.walk(r.cond))


def departs(r: T.OutcomeRule) -> bool:
    """A rule of the first stratum: a loss, a draw of some players, leaving with no result."""
    return r.kind in ("lose", "leave") or r.kind == "draw" and r.subject is not None


def uses_results(model: T.Model) -> frozenset:
    """Why players or teams can leave the game without losing here ("drew": a draw of some
    players, "left": `leave`, "won": winners leave while the game goes on): traces say who left
    for each of those reasons, and only those."""
    kinds = [(r.kind, r.subject) for r in model.outcomes]
    kinds += [(n.kind, n.subject) for a in model.actions for n in T.walk(a.body) if isinstance(n, T.OutcomeStmt)]
    used = {"left" if k == "leave" else "drew" for k, s in kinds if k == "leave" or k == "draw" and s is not None}
    return frozenset(used | ({"won"} if not model.after_win_ends else set()))


def reads_static(e) -> bool:
    return any(isinstance(n, T.VarRef) and n.static for n in T.walk(e))


class Machine(OutcomeResolution):
    def __init__(self, inst: Instance):
        self.inst = inst
        self.model = model = inst.model
        self._products: dict[int, list] = {}  # binder list id -> its product (the lists live as long as self)
        comp = self.comp = Compiler(inst)
        self.n = inst.nplayers
        self.all = (1 << self.n) - 1
        self.actions: list[Action] = []
        # who acts in a step is read by triggers `on ... by q` only: elsewhere it is not kept
        # (a resolution is then shared by the steps of every actor)
        self.uses_cause = any(t.cause is not None for t in model.triggers)
        for a in model.actions:
            binders = self._binders(a.params)
            actor = comp.cell(a.actor) if a.actor is not None and self.uses_cause else None
            self.actions.append(Action(a, a.rule, binders, comp.expr(a.guard), comp.stmts(a.body), a.progress, a.leave,
                                       actor))
        self.outcomes: list[OutcomeRule] = []
        for r in model.outcomes:
            cell = comp.cell(r.binder) if r.binder else None
            self.outcomes.append(OutcomeRule(r, r.rule, r.kind, r.subject, cell, comp.expr(r.cond), reads_own(r)))
        # the first stratum: everyone who leaves the game in this step, by a loss, by a draw of
        # their own or with no result, leaves together; the wins are judged after them
        self.loss_rules = [r for r in self.outcomes if departs(r.decl)]
        self.win_rules = [r for r in self.outcomes if r.kind == "win"]
        # `finish` rules share the draws' stratum: neither has a subject, both end the game
        self.draw_rules = [r for r in self.outcomes if r.kind in ("draw", "finish") and r.subject is None]
        self.cannot_rules = [r for r in self.outcomes if r.kind.startswith("cannot_")]
        self.has_outcome_rules = bool(self.loss_rules or self.win_rules or self.draw_rules)
        exempt = set(model.exempt)
        for r in self.loss_rules + self.win_rules:
            r.cannot = tuple(k for k in self.cannot_rules if k.fact == r.fact and (r.decl.name, k.decl.name) not in exempt)
        self._own = {id(rs): [r for r in rs if r.reads_own] for rs in (self.loss_rules, self.win_rules, self.draw_rules)}
        for r in self.outcomes:
            r.subjects = range(self.n if r.subject == "player" else inst.nteams if r.subject == "team" else 0)
        self.loss_reads_won = any(r.decl.reads_won for r in self.loss_rules)
        self.precedence = list(model.precedence)
        self._init_decided()  # which declarations decide something (checker.explicit.outcomes)
        self.winners_many = model.winners_many
        self.nt = inst.nteams
        self.results_used = uses_results(model)
        self._again = (0, 0)  # while a step is resolved: who lost earlier and may win now (same_step)
        self.active = None
        if model.active is not None:
            self.active = (model.active, comp.cell(model.active.binder), comp.expr(model.active.cond))
        self.opponents = None
        if model.opponents is not None:
            o = model.opponents
            self.opponents = (comp.cell(o.player), comp.cell(o.other), comp.expr(o.cond))
        self.procedures = [(d, comp.expr(d.cond)) for d in model.procedures]
        self.ends = [(d, comp.expr(d.cond)) for d in model.ends]
        self.invariants = [(d, comp.expr(d.cond)) for d in model.invariants]
        self.inits = [(d, comp.expr(d.cond)) for d in model.inits]
        self.reachables = [(d, self._binders(d.params), comp.expr(d.cond)) for d in model.reachables]
        # constraints that only mention the explored state are checked here; those about
        # choices that never reach the dynamics are Z3's (checker.symbolic)
        self.constraints = [(d, comp.expr(d.cond)) for d in model.constraints if not reads_static(d.cond)]
        self.var_inits = []
        for v in inst.vars:
            info = v.info
            if info.init is None:
                self.var_inits.append((v, None, None))
                continue
            cell = comp.cell(info.index.binder) if info.index else None
            self.var_inits.append((v, cell, comp.expr(info.init)))
        self.rules = model.rules
        self.triggers = self._triggers(model)
        # the state-based rules and phases, settled again after each round of triggers that ran
        self.after_triggers = comp.stmts(model.after_triggers) if model.after_triggers else None
        # (event key, first bit, size) of each declared event some trigger hears, in the order declared
        self.signal_events = [(e.key, *self.comp.signals[e.name]) for e in model.events if e.key in self.triggers]
        self.sides = inst.nteams if inst.has_teams else inst.nplayers
        self._resolved: dict[tuple, tuple] = {}
        self._masks: dict[int, int] = {}  # while a step is resolved: "cannot" rule -> the subjects it forbids
        # no setup exists, for a reason outside what the explorer sees: the choices it leaves
        # to Z3 cannot satisfy their constraints (the engine asks); then no state is initial
        self.no_setup = False

    def _binders(self, params) -> list[Bound]:
        out = []
        for b, d in params:
            dom = self.comp.domain(d)
            static = None
            if _static_domain(d):
                try:
                    static = dom(Ctx(()))  # a range stays a range: 0..10^10 must not become a list
                    static = static if isinstance(static, range) else list(static)
                except EvalError:  # (1/0..3): evaluated in each state instead, where it fails as a step
                    static = None
            out.append(Bound(b, self.comp.cell(b), dom, static))
        return out

    # ------------------------------------------------------------ bindings
    def bindings(self, binders: list[Bound], c, failed: list | None = None):
        """Every tuple of arguments in `c`; a domain without a value raises EvalError, or with
        `failed` is recorded there as (the arguments bound before it, the error) and skipped."""
        if not binders:
            yield ()
            return
        if any(b.static is not None and _size(b.static) == 0 for b in binders):
            return  # an empty domain: no binding (itertools.product would first list 0..10^10 of another)
        if all(b.static is not None for b in binders) and math.prod(_size(b.static) for b in binders) <= PRODUCT_CACHE:
            # every domain is fixed: the product is the same in every state, so build it once
            key = id(binders)
            if key not in self._products:
                self._products[key] = list(itertools.product(*[b.static for b in binders]))
            yield from self._products[key]
            return

        def rec(i, acc):
            if i == len(binders):
                yield tuple(acc)
                return
            b = binders[i]
            try:
                values = b.static if b.static is not None else list(b.dom(c))
            except EvalError as exc:  # this domain has no value here; the other arguments' still count
                if failed is None:
                    raise
                failed.append((tuple(acc), exc))
                return
            for v in values:
                b.cell[0] = v
                acc.append(v)
                yield from rec(i + 1, acc)
                acc.pop()
        yield from rec(0, [])

    @staticmethod
    def bind(binders: list[Bound], values):
        for b, v in zip(binders, values):
            b.cell[0] = v

    # ------------------------------------------------------------ states
    def initial_states(self, max_states: int = 2_000_000, budget=None):
        """([(state, hits of outcome rules, conflict)], [SetupError]) in a fixed order; LimitHit
        when there are more than `max_states` or the budget is spent."""
        if self.no_setup:
            return [], []
        check = budget.check if budget is not None else _nothing
        inst = self.inst
        partial = [[]]
        errors: list[SetupError] = []
        n, nt = inst.nplayers, inst.nteams
        for v, cell, f in self.var_inits:
            nxt = []
            for vals in partial:
                if f is None:
                    for combo in itertools.product(v.type.values(n, nt), repeat=v.count):
                        nxt.append(vals + list(combo))
                        if len(nxt) > max_states:
                            raise LimitHit(f"more than {max_states:,} initial states")
                        check()  # each time: one state of a million slots is 8 MB
                    continue
                check()
                c = Ctx(vals + [None] * (inst.nslots - len(vals)))
                row = []
                for i in range(v.count):
                    if cell is not None:
                        cell[0] = i + v.index_base
                    try:
                        val = f(c)
                    except EvalError as exc:
                        errors.append(SetupError("evaluation-error", str(exc), exc.span, tuple(c.vals), f"initial value of {v.name}"))
                        break
                    if not v.type.contains(val, n, nt):
                        key = v.name if not v.indexed else f"{v.name}[{v.index_keys(inst)[i]}]"
                        errors.append(SetupError("overflow", f"the initial value of {key} is {val}, outside its type",
                                                 v.info.span, tuple(c.vals), f"initial value of {v.name}"))
                        break
                    row.append(val)
                else:
                    nxt.append(vals + row)
            partial = nxt
        out = []
        for vals in partial:
            check()
            c = Ctx(vals)
            try:
                where = "init"
                if not all(f(c) for _, f in self.inits):
                    continue
                where = "constraint"
                if not all(f(c) for _, f in self.constraints):
                    continue
                where = "outcome"
                c = Ctx(list(vals))
                end, conflict = self.settle(c, step=False)
            except Overflow as exc:  # a trigger's assignment
                errors.append(SetupError("overflow", f"{exc.var} would become {exc.value}, outside its type",
                                         exc.span, tuple(vals), where))
                continue
            except EvalError as exc:
                errors.append(SetupError("evaluation-error", str(exc), exc.span, tuple(vals), where))
                continue
            out.append((tuple(c.vals) + (c.out, c.tout, end), tuple(c.hits), conflict))
        return out, errors

    def successors(self, state: tuple, budget=None, room: Room | None = None) -> list[Step]:
        """Every step out of `state`; LimitHit if the budget runs out (read before every step
        taken and every 256 bindings: one state of 200 players has 40,000 bindings, and each
        step resolves the outcomes of every player) or, given a `room` (which reads the budget
        for it), its new targets do not fit there."""
        k = self.inst.nslots
        reader = Ctx(state, state[k], state[k + 1])
        if room is None:
            steps: list[Step] = []
            check = budget.check if budget is not None else _nothing
        else:
            steps, check = room.open(), room.check
        for ai, a in enumerate(self.actions):
            cells = a.cells
            failed: list = []
            # lazily: a parameter over 0..10^10 is a time limit to hit, not a list to build
            for i, binding in enumerate(self.bindings(a.binders, reader, failed)):
                if not i & 255:  # guards alone: a quarter of a millisecond or so between reads
                    check()
                for cell, v in zip(cells, binding):  # the guard and then the body read these cells
                    cell[0] = v
                try:
                    if not a.guard(reader):
                        continue
                except EvalError as exc:
                    steps.append(Step(ai, binding, None, (), str(exc), exc.span, "evaluation-error", "guard"))
                    continue
                check()  # before every step taken: its body and outcome resolution are the costly part
                c = Ctx(list(state[:k]), state[k], state[k + 1])
                c.hits.append(a.rid)
                try:
                    a.run(c)
                except Overflow as exc:
                    steps.append(Step(ai, binding, None, tuple(c.hits), f"{exc.var} would become {exc.value}, outside its type",
                                      exc.span, "overflow", "body"))
                    continue
                except EvalError as exc:
                    steps.append(Step(ai, binding, None, tuple(c.hits), str(exc), exc.span, "evaluation-error", "body"))
                    continue
                vals = tuple(c.vals)
                body_hits = tuple(c.hits)  # resolution appends to c.hits; its own are in more_hits
                key = (vals, c.out, c.tout, c.lp, c.lt, c.wp, c.wt, c.draw, c.fin, c.dp, c.dt, c.xp, c.xt, c.sg, c.actor)
                done = self._resolved.get(key)
                if done is None:
                    before = len(c.hits)
                    try:
                        end, conflict = self.settle(c)
                    except Overflow as exc:  # a trigger's assignment
                        steps.append(Step(ai, binding, None, tuple(c.hits), f"{exc.var} would become {exc.value}, outside its type",
                                          exc.span, "overflow", "outcome"))
                        continue
                    except EvalError as exc:
                        steps.append(Step(ai, binding, None, tuple(c.hits), str(exc), exc.span, "evaluation-error", "outcome"))
                        continue
                    # resolution depends on nothing but the key: many transitions share one result
                    # (triggers may change the variables: the values after them are part of it)
                    done = (c.out, c.tout, end, conflict, tuple(c.hits[before:]), tuple(c.vals))
                    self._resolved[key] = done
                out, tout, end, conflict, more_hits, vals = done
                steps.append(Step(ai, binding, vals + (out, tout, end), body_hits + more_hits, conflict=conflict))
            for binding, exc in failed:  # a parameter's domain without a value fails the step, as a guard does
                steps.append(Step(ai, binding, None, (), str(exc), exc.span, "evaluation-error", "domain"))
        if room is not None and len(steps) > room.left:  # the last steps, after the last read
            room.count()
        return steps

    # ------------------------------------------------------------ events and triggers
    def watch_trigger_order(self, on: bool) -> None:
        """Compare every seat order of a round's triggers from now on (`watch_order`,
        checker.explicit.outcomes), or stop. Resolutions cached while not watched whose triggers
        fired for several events were not compared: they are forgotten (computed again, and
        compared, the first time they are needed); those cached while watched are kept (the
        second reduced search of an instance, by fewer rotations, reuses the first's)."""
        if on and self.orders_unchecked:
            self.forget_resolutions()
            self.orders_unchecked = False
        self.watch_order = on

    def forget_resolutions(self) -> None:
        self._resolved.clear()

    def _triggers(self, model) -> dict[str, list[Trigger]]:
        """The triggers of each event kind, in the order written."""
        on: dict[str, list[Trigger]] = {}
        for t in model.triggers:
            event = t.key
            cell = self.comp.cell(t.binder) if t.binder else None
            cause = self.comp.cell(t.cause) if t.cause is not None else None
            on.setdefault(event, []).append(Trigger(t, t.rule, event, cell, self.comp.expr(t.cond), self.comp.stmts(t.body),
                                                    cause))
        return on

    # ------------------------------------------------------------ state queries
    packed = False  # states are slot tuples here; checker.explicit.compiled packs them

    def values(self, state: tuple) -> tuple:
        """The state as slots (the variables' values, players out, teams out, end marker)."""
        return state

    unpack = values

    def pack(self, slots: tuple) -> tuple:
        return slots

    def reader(self, state: tuple) -> Ctx:
        """A context for reading a state; `won()` sees the winners recorded in its end marker."""
        k = self.inst.nslots
        c = Ctx(state, state[k], state[k + 1])
        end = state[-1]
        c.over = bool(end)
        if has_ended(end):
            c.wp, c.wt, c.draw = end
            c.fin = not (c.wp or c.wt or c.draw)
        return c

    def is_active(self, state: tuple, p: int) -> bool:
        if self.active is None:
            return False
        return self.active_in(self.reader(state), p)

    def active_in(self, reader: Ctx, p: int) -> bool:
        """Whether p is active in the state `reader` reads (there is an `active` declaration)."""
        _, cell, f = self.active
        cell[0] = p
        return bool(f(reader))

    def is_opponent(self, state: tuple, p: int, q: int) -> bool:
        """Whether q is an opponent of p in `state`: as the `opponents` declaration says, else a
        player of another team (or, without teams, any other player)."""
        if self.opponents is None:
            return q != p and (not self.inst.has_teams or self.inst.team_of[p] != self.inst.team_of[q])
        cp, cq, f = self.opponents
        cp[0], cq[0] = p, q
        return bool(f(self.reader(state)))

    def show(self, ty, v) -> str:
        return self.inst.show(ty, v)


def _nothing() -> None:
    pass


class Room:
    """The state limit, read while one state's successors are computed.

    A parameter over 0..10^8 gives one state a hundred million successors: reading the limit
    only between states would build them all first. An explorer hands `successors` a Room
    (`left`: the states the graph may still take, set before each state) and reads its budget
    through it (`budget_check`): wherever the successors read the budget they read the room too,
    and once the state has more steps than there is room for, its new targets (not in the
    graph's `index`, by `key` where the graph keys states by another form) are counted, each
    step once. More of them than there is room for raises LimitHit: the state stays unexpanded
    and the graph holds at most `max_states` states besides the initial ones. The search loop
    runs this for every state, so far from the limit it costs one comparison, and the steps'
    list is the room's, emptied for each state, not a new one."""
    __slots__ = ("index", "key", "left", "why", "steps", "budget_check", "at", "new", "check")

    def __init__(self, index: dict, max_states: int, budget_check=None, key=None):
        self.index, self.key, self.left = index, key, max_states
        self.why = f"state limit of {max_states:,} reached"
        self.steps: list = []
        self.budget_check = budget_check or _nothing
        self.at, self.new = 0, None
        self.check = self._check  # bound once, not per state

    def open(self) -> list:
        """The empty list of steps of the next state (`successors` fills it)."""
        if self.new is not None:  # a count was made for the last state
            self.at, self.new = 0, None
        self.steps.clear()
        return self.steps

    def _check(self) -> None:
        self.budget_check()
        if len(self.steps) > self.left:  # fewer steps than room: nothing to count yet
            self.count()

    def count(self) -> None:
        steps, index, key = self.steps, self.index, self.key
        new = self.new if self.new is not None else set()
        for i in range(self.at, len(steps)):
            step = steps[i]
            target = step[1] if step.__class__ is tuple else step.target
            if target is None:  # a step that failed leads nowhere
                continue
            k = target if key is None else key(target)
            if k not in index:
                new.add(k)
        self.at, self.new = len(steps), new
        if len(new) > self.left:
            raise LimitHit(self.why)


def _size(values) -> int:
    """How many values a domain has; len() of a range over more than 2^63 values overflows."""
    return max(0, values.stop - values.start) if isinstance(values, range) else len(values)

