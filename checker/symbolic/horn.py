"""Unbounded checking: an instance as constrained Horn clauses, solved by Z3's Spacer (IC3/PDR).

One relation `Reach` over a step's frame (the variables' slots, who is out and why, the end
marker's winners, `ended`, `gap`, `conflict`) says which frames a play can reach; the clauses
are the setup (`Reach(s) <- init(s)`) and the transition relation the bounded model checker
unrolls (`Reach(s') <- Reach(s), step(s, s')`). A question is a bad condition on a frame:
Spacer answers unsat (no reachable frame is bad) with an inductive invariant that proves it,
sat (some is), or unknown (its time ran out). Integers are unbounded: a declared range is not
assumed but checked, as the explorer does, by the step that would leave it (an overflow).

Two setups. Spacer learns bounds step by step from concrete starting values (life 40, then
at most 40 - 3, ...), so a proof from life 8,000 can take 8,000 / 3 rounds. With `generalized`
the integer variables start anywhere in their declared ranges (the other setup rules still
hold): the proof no longer counts, and a property of every such start is one of the real
start. A bad frame reachable only from the generalized setup proves nothing, so such an answer
is asked again from the real setup (`Prover.ask`).

A counterexample is not taken from Spacer (it finds long ones poorly: thousands of steps at
the documents' numbers); the caller looks for a concrete path the explorer can replay
(checker.explicit.directed).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import z3

from ..frontend.instances import Instance
from ..limits import LimitHit
from .bmc import BMC, FirstStep, _Frame
from .terms import (WALL_BOUND, WALL_STOP, SymSet, SymState, clock_check, clock_deadline, cut_short_check, or_all,
                    solve, to_term)

PROVED, REACHABLE, UNKNOWN = "proved", "reachable", "unknown"
# Spacer's settings, tried in turn (see Prover.ask); each is a few lines of its documented
# parameters, nothing tuned to a spec
ATTEMPTS = ({}, {"xform.inline_linear": False}, {"spacer.random_seed": 2}, {"spacer.random_seed": 3},
            {"xform.inline_linear": False, "spacer.random_seed": 5})
FIRST_SLICE = 1.0  # seconds of the first attempts (in Z3's resource units: see WORK_PER_SECOND)
# of a question's work, what the generalized setup may take (its proofs are the fast ones: a
# 4-player game at life 40 with damage counted per pair of players needs 12 of a question's 40
# seconds in one attempt from there, and does not finish from the setup's numbers)
WIDER_SHARE = 0.75
# Spacer's work is counted in Z3's resource units (`rlimit`), not in time: a question gets the
# same answer on an idle and on a loaded machine, so reports do not depend on the load. A CPU
# second of Spacer is 1 to 10 million units (measured 2026-11-28, `fp.statistics()` "rlimit
# count" against time.process_time(): about 1 million on a counter to 1,000 whose invariant
# breaks 900 steps deep, 3.5 to 10 million on the free-for-all at life 8,000); counting the
# slowest keeps a question's CPU time near its seconds.
WORK_PER_SECOND = 1_000_000
# a query also stops after this many times its units' seconds of wall-clock time (a safety
# net on a machine so loaded that the answer would come too late anyway: a limit, terms.cut_short_check)
WALL_SAFETY = 10
# ... and never less than this many seconds (unless the caller's time ends sooner): a call of a
# few thousand units spends more than ten times their time building its state, and what that
# net stops is no answer (terms.cut_short_check), so it must catch a loaded machine, not a short call
WALL_FLOOR = 1.0
SETUP, WIDER = "the setup", "every start in the declared ranges"  # what a proof starts from


@dataclass(frozen=True)
class Answer:
    """What Spacer said about one bad condition: `proved` with the invariant (in the spec's
    names) that excludes it, `reachable`, or `unknown` with why; `setup` is the setup it was
    decided from ("every start in the declared ranges" or "the setup")."""
    verdict: str
    invariant: str = ""
    why: str = ""
    setup: str = ""
    seconds: float = 0.0
    # reachable from the real setup: the states of a path Spacer found to a bad frame, each
    # laid out as the explorer's `Machine.values` (variables' slots, players out, teams out)
    path: tuple = ()
    # the invariant as a term over frame 0's slots (checker.symbolic.ranking checks a condition
    # against it); not part of what the answer says
    formula: z3.ExprRef | None = field(default=None, compare=False, repr=False)
    # who found `path`: "" for Spacer, BMC for a play of bounded model checking
    # (checker.symbolic.witness) where Spacer's work ran out
    found_by: str = ""


BMC_FOUND = "bounded model checking"


class _Clauses(list):
    """Where BMC's constraints go instead of a solver: the clauses are built from them."""

    def add(self, *cs):
        self.extend(cs)


class _Unrolled(BMC):
    """The bounded model checker's first two frames: its setup and one transition, recorded."""

    def __init__(self, inst: Instance, generalized: bool, first: FirstStep):
        self.generalized = generalized
        super().__init__(inst, first)

    def _fresh_solver(self):
        return _Clauses()


def value_slots(inst: Instance, st: SymState) -> list[tuple[str, z3.ExprRef]]:
    """[(name in the spec's words, term)] of every slot of the variables in `st` (a set's: one
    Boolean per player), in the order of `Reach`'s arguments."""
    out = []
    for v in inst.vars:
        keys = v.index_keys(inst) if v.indexed else [""]
        for key, t in zip(keys, st.vals[v.name]):
            name = f"{v.name}[{key}]" if key else v.name
            if isinstance(t, SymSet):
                out += [(f"{inst.players[p]} in {name}", e) for p, e in enumerate(t.elems)]
            else:
                out.append((name, t))
    return out


def slot_names(inst: Instance, f: _Frame) -> list[tuple[str, z3.ExprRef]]:
    """[(name in the spec's words, term)] of every argument of `Reach`, in order."""
    out = value_slots(inst, f.st)
    out += [(f"out({p})", t) for p, t in zip(inst.players, f.st.out)]
    out += [(f"out(team {t})", x) for t, x in zip(inst.teams, f.st.tout)]
    why = {"rd": "drew", "rw": "left as winner", "rx": "left with no result"}
    for r in SymState.RESULTS:
        team = r.startswith("t")
        names = inst.teams if team else inst.players
        out += [(f"{why[r[-2:]]}({'team ' if team else ''}{n})", t) for n, t in zip(names, getattr(f.st, r))]
    out += [(f"won({p})", t) for p, t in zip(inst.players, f.wp)]
    out += [(f"won(team {t})", x) for t, x in zip(inst.teams, f.wt)]
    out += [("drawn", f.draw), ("ended", f.ended), ("gap", f.gap)]
    if hasattr(f, "conflict"):
        out.append(("conflict", f.conflict))
    return out


class Prover:
    """The Horn clauses of one instance, for each setup, and the questions asked of them."""

    def __init__(self, inst: Instance):
        self.inst = inst
        self.first_step = FirstStep()  # shared by both systems and the instance's bounded searches
        self._systems: dict[bool, tuple] = {}
        self._step_vars: dict[bool, list] = {}  # generalized? -> its clauses' variables (_variables)
        # What Spacer proved of every frame 0 of system(False) a play reaches, for the ranking
        # searches (checker.symbolic.ranking): learnt by each and kept for the next, since a
        # fact of every reachable frame holds whatever the question
        self.reachable_facts: list = []
        self.declared_ranges = None  # (ranking `_ranges`, checked once)
        self.fact_shapes: dict = {}  # (ranking `_counts_down`: each fact's shape, by its id, worked out once)

    def system(self, generalized: bool):
        """(unrolled frames, Reach, its arguments in frame 0, in frame 1, setup, step)."""
        if generalized not in self._systems:
            u = _Unrolled(self.inst, generalized, self.first_step)
            init = list(u.solver)
            u.extend()
            step = list(u.solver)[len(init):]
            f0, f1 = u.frames
            a0 = [t for _, t in slot_names(self.inst, f0)]
            a1 = [t for _, t in slot_names(self.inst, f1)]
            reach = z3.Function("Reach", *[a.sort() for a in a0], z3.BoolSort())
            self._systems[generalized] = (u, reach, a0, a1, z3.And(*init), z3.And(*step))
        return self._systems[generalized]

    def _variables(self, generalized: bool, condition) -> list:
        """The clauses' variables: those of the setup and the step, found once per setup (a
        walk of the step is a fifth of a CPU second at four players, and a question is many
        attempts), and those of the bad condition."""
        if generalized not in self._step_vars:
            _, _, _, _, init, step = self.system(generalized)
            self._step_vars[generalized] = _constants(init, step)
        return _constants(*self._step_vars[generalized], condition)

    def frame(self, generalized: bool = False) -> tuple[BMC, _Frame]:
        """The bounded checker and the frame a bad condition is written over (frame 0)."""
        u = self.system(generalized)[0]
        return u, u.frames[0]

    def ask(self, bad, seconds: float) -> Answer:
        """Is a frame where `bad(bmc, frame)` holds reachable? Asked of the generalized setup
        first (fast proofs: they do not count down from the setup's numbers), in one attempt of
        WIDER_SHARE of `seconds`, which proves it, finds a bad frame reachable from some start
        (which says nothing of the setup), or spends its work (Spacer is deterministic: attempts
        of growing slices with the same settings would only do again what the one before did,
        a proof that takes 8 seconds of work taking 8 in an attempt of 30 as well); then of the
        setup itself, in attempts with different settings (`ATTEMPTS`) and a slice that doubles
        each round: how long Spacer takes varies by orders of magnitude with its settings and
        with the order of the terms, and a lucky attempt is short. Unknown once `seconds` of
        work are spent (Z3's units: the answer does not depend on the machine's load). Past
        WALL_SAFETY times `seconds` of wall-clock time or the `terms.clock`'s moment: LimitHit,
        as that is a limit, not an answer."""
        work = Work(seconds)
        left = work.left
        self._deadline = min(_wall_deadline(seconds), clock_deadline())
        last = Answer(UNKNOWN, why="no time to ask", setup=SETUP)
        if left() > seconds * (1 - WIDER_SHARE) and time.monotonic() < self._deadline:
            a = self._query(True, bad, left() - seconds * (1 - WIDER_SHARE))
            if a.verdict == PROVED or a.verdict == REACHABLE and a.setup == SETUP:
                return a
            if a.verdict != REACHABLE:  # (reachable from some start: the real setup decides)
                last = a
        piece = FIRST_SLICE
        while left() > 0:
            for options in ATTEMPTS:
                if time.monotonic() >= self._deadline:
                    clock_check()
                    raise LimitHit(f"a question to Spacer: {WALL_STOP}")
                if left() <= 0:
                    return last
                a = self._query(False, bad, min(piece, left()), options)
                if a.verdict in (PROVED, REACHABLE):
                    return a
                last = a
            piece *= 2
        return last

    _deadline = float("inf")  # (time.monotonic) of the question being asked

    def _limit(self, solver, seconds: float) -> None:
        limit(solver, seconds, self._deadline)

    def ask_wider(self, bad, seconds: float) -> Answer:
        """Is a frame where `bad` holds reachable from some start in the declared ranges? One
        attempt: a proof holds for the setup too; `reachable` says nothing of the setup (a
        quick question, for a caller that has other candidates to ask about)."""
        self._deadline = _wall_deadline(seconds)
        return self._query(True, bad, seconds)

    def at_setup(self, cond, seconds: float, candidates: bool = False) -> str:
        """Whether some setup (an initial state with its settling) meets `cond(bmc)`, a
        condition over the setup's terms (say `setup_hits`): PROVED that none does,
        REACHABLE, or UNKNOWN. `seconds` of work, as `ask` counts it. With `candidates`, of
        every setup the explorer settles, also those whose settling fails (`setup_notes`)."""
        u, _, _, _, init, _ = self.system(False)
        s = z3.Solver()
        limit(s, seconds)
        s.add(u.setup_candidates if candidates else init, to_term(cond(u)))
        r = solve(s)
        return REACHABLE if r == z3.sat else PROVED if r == z3.unsat else UNKNOWN

    def _query(self, generalized: bool, bad, seconds: float, options: dict = {}) -> Answer:
        u, reach, a0, a1, init, step = self.system(generalized)
        f0 = u.frames[0]
        condition = bad(u, f0)
        setup = WIDER if generalized else SETUP
        start = time.process_time()
        if z3.is_false(z3.simplify(condition)):
            return Answer(PROVED, "the condition itself can never hold", setup=setup)
        if generalized:
            # The wider starts keep only what the real setup has: it is not bad itself (asked
            # of the real setup here), so neither is a wider start. Without this, starts the
            # real one is far from (every player at 0 life) made most proofs fail at once.
            ue, _, _, _, init_e, _ = self.system(False)
            s0 = z3.Solver()
            self._limit(s0, seconds)
            s0.add(init_e, bad(ue, ue.frames[0]))
            r0 = solve(s0)
            if r0 == z3.sat:  # the setup itself is bad: the path is its first state
                m0 = s0.model()
                first = tuple(m0.eval(t, model_completion=True) for _, t in slot_names(self.inst, ue.frames[0]))
                return Answer(REACHABLE, setup=SETUP, seconds=time.process_time() - start,
                              path=(explorer_layout(self.inst, first),))
            if r0 == z3.unknown:
                return Answer(UNKNOWN, why=f"Z3: {s0.reason_unknown()}", setup=setup,
                              seconds=time.process_time() - start)
            init = z3.And(init, z3.Not(condition))
        fp = z3.Fixedpoint()
        fp.set(engine="spacer")
        self._limit(fp, seconds)
        for k, v in options.items():
            fp.set(k, v)
        fp.register_relation(reach)
        bad_rel = z3.Function("Bad", z3.BoolSort())
        fp.register_relation(bad_rel)
        for v in self._variables(generalized, condition):
            fp.declare_var(v)
        fp.rule(reach(*a0), init)
        fp.rule(reach(*a1), [reach(*a0), step])
        fp.rule(bad_rel(), [reach(*a0), condition])
        began = time.monotonic()
        try:
            r = fp.query(bad_rel())
        except z3.Z3Exception as exc:  # a timeout cancels the query: no answer, not an error
            # Z3 says "canceled" for its work limit and for the wall-clock bound alike; only
            # the first is an answer, the same on every machine (the other: LimitHit)
            cut_short_check(fp, time.monotonic() - began)
            return Answer(UNKNOWN, why=f"Spacer: {_reason(exc)}", setup=setup, seconds=time.process_time() - start)
        took = time.process_time() - start
        if r == z3.unsat:
            names = [z3.Const(n, t.sort()) for n, t in slot_names(self.inst, f0)]
            formula = None
            try:
                cover = fp.get_cover_delta(-1, reach)
                invariant = show_invariant(cover, names)
                formula = z3.substitute_vars(cover, *a0)
            except z3.Z3Exception as exc:  # the proof stands; only its text is missing
                invariant = f"(Spacer did not give its invariant: {exc})"
            return Answer(PROVED, invariant, setup=setup, seconds=took, formula=formula)
        if r == z3.sat:
            path = () if generalized else _path(self.inst, fp)
            return Answer(REACHABLE, setup=setup, seconds=took, path=path)
        cut_short_check(fp, time.monotonic() - began)
        return Answer(UNKNOWN, why=f"Spacer: {fp.reason_unknown()}", setup=setup, seconds=took)


def _constants(*terms) -> list:
    """The uninterpreted constants of `terms` (the clauses' variables), in a stable order."""
    seen: dict[int, z3.ExprRef] = {}
    todo = list(terms)
    done = set()
    while todo:
        t = todo.pop()
        if t.get_id() in done:
            continue
        done.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            seen[t.get_id()] = t
        todo.extend(t.children())
    return sorted(seen.values(), key=str)


def show_invariant(cover, names: list) -> str:
    """Spacer's invariant (over the relation's arguments as bound variables) in the spec's
    names, simplified, its conjuncts sorted (the text does not depend on the order Spacer
    found them in): `life[P1] > -1 and (out(P2) or life[P2] > 0); never: drew(P1), gap`."""
    body = z3.simplify(z3.substitute_vars(cover, *names), arith_lhs=True)
    parts = body.children() if z3.is_and(body) else [body]
    # the statuses that stay false everywhere (nobody drew, no gap...) are most of an invariant
    # and the least of its reasons: said once at the end
    never = sorted(str(p.children()[0]) for p in parts
                   if z3.is_not(p) and z3.is_const(p.children()[0]) and z3.is_bool(p.children()[0]))
    rest = sorted(show(p, False) for p in parts
                  if not (z3.is_not(p) and z3.is_const(p.children()[0]) and z3.is_bool(p.children()[0])))
    text = " and ".join(rest) or "true"
    return text + (f"; never: {', '.join(never)}" if never else "")


_OPS = {z3.Z3_OP_LE: "<=", z3.Z3_OP_GE: ">=", z3.Z3_OP_LT: "<", z3.Z3_OP_GT: ">", z3.Z3_OP_EQ: "=="}
_NEGATED = {"<=": ">", ">=": "<", "<": ">=", ">": "<=", "==": "!="}


def show(t, top: bool = True) -> str:
    """A Boolean term in the language's syntax (and, or, not, comparisons, + - *)."""
    k = t.decl().kind() if z3.is_app(t) else None
    if z3.is_true(t):
        return "true"
    if z3.is_false(t):
        return "false"
    if k in (z3.Z3_OP_AND, z3.Z3_OP_OR):
        word = " and " if k == z3.Z3_OP_AND else " or "
        parts = sorted(show(c, False) for c in t.children())  # (Z3's order depends on the process's history)
        text = word.join(parts)
        return text if top or len(parts) == 1 else f"({text})"
    if k == z3.Z3_OP_NOT:
        c = t.children()[0]
        ck = c.decl().kind() if z3.is_app(c) else None
        if ck in _OPS and not z3.is_bool(c.children()[0]):
            return f"{_term(c.children()[0])} {_NEGATED[_OPS[ck]]} {_term(c.children()[1])}"
        return f"not {show(c, False)}"
    if k == z3.Z3_OP_IMPLIES:
        a, b = t.children()
        text = f"{show(a, False)} implies {show(b, False)}"
        return text if top else f"({text})"
    if k in _OPS and not z3.is_bool(t.children()[0]):
        return f"{_term(t.children()[0])} {_OPS[k]} {_term(t.children()[1])}"
    if k == z3.Z3_OP_EQ:  # Booleans
        a, b = (show(c, False) for c in t.children())
        text = " == ".join(f"({x})" if " " in x and not x.startswith("(") else x for x in (a, b))
        return text if top else f"({text})"
    return _term(t)


def _term(t) -> str:
    if z3.is_int_value(t):
        return str(t.as_long())
    k = t.decl().kind() if z3.is_app(t) else None
    ops = {z3.Z3_OP_ADD: " + ", z3.Z3_OP_MUL: " * ", z3.Z3_OP_SUB: " - ", z3.Z3_OP_MOD: " mod ", z3.Z3_OP_IDIV: " / "}
    if k in ops:
        parts = [_term(c) for c in t.children()]
        text = ops[k].join(parts)
        if k == z3.Z3_OP_MUL and len(parts) == 2 and parts[0] == "-1":
            return f"-{parts[1]}"
        return f"({text})"
    if k == z3.Z3_OP_UMINUS:
        return f"-{_term(t.children()[0])}"
    if k == z3.Z3_OP_ITE:
        c, a, b = t.children()
        return f"(if {show(c, False)} then {_term(a)} else {_term(b)} end)"
    return str(t)


def holds(cond, env: dict):
    """A bad condition: `cond` (a property, its binders bound by `env`) holds in the frame as
    the checks read it, or has no value there (the explorer's check would stop on it: no
    proof may claim it never holds)."""
    def bad(u: BMC, f: _Frame):
        value, err = u.enc.checked(lambda: u.enc.expr(cond, u.read(f), env))
        return z3.Or(to_term(err), to_term(value))
    return bad


def violated(cond):
    """A bad condition: the invariant `cond` does not hold in the frame as the checks read it,
    or has no value there."""
    def bad(u: BMC, f: _Frame):
        value, err = u.enc.checked(lambda: u.enc.expr(cond, u.read(f), {}))
        return z3.Or(to_term(err), z3.Not(to_term(value)))
    return bad


def applies(rid: int):
    """A bad condition: rule `rid` applies in a step from the frame (`BMC.applies`)."""
    return lambda u, f: u.applies(f, rid)


def notes(key: tuple):
    """A bad condition: a step from the frame notes `key` in `Machine.decided` (`BMC.notes`)."""
    return lambda u, f: u.notes(f, key)


def no_step(u: BMC, f: _Frame):
    """The bounded checker's deadlock, as a bad condition."""
    return u.stuck(f)


def failing_step(u: BMC, f: _Frame):
    """A bad condition: some step from the frame fails (an overflow or an evaluation error; the
    explorer's failing step says which came first)."""
    # (no step is taken from a game that has ended or must be over, as BMC.extend says)
    return z3.And(z3.Not(f.ended), z3.Not(f.gap), or_all([o.fails for o in u._options(f)]))


def _reason(exc: z3.Z3Exception) -> str:
    """What Z3 said, as words (its exceptions carry bytes: b'canceled')."""
    said = exc.value.decode(errors="replace") if isinstance(exc.value, bytes) else str(exc.value)
    return "its share of work ran out" if said in ("canceled", "max. resource limit exceeded") else said


def _path(inst: Instance, fp: z3.Fixedpoint) -> tuple:
    """The states of the path Spacer's answer derives the bad frame from (its `Reach` facts in
    the order they are derived: the setup's first), each in the explorer's layout; () when the
    answer has no ground facts to read."""
    facts: list[tuple] = []
    seen: set[int] = set()

    def walk(proof) -> None:  # premises before the conclusion: a fact after the one it follows from
        if not z3.is_app(proof) or proof.get_id() in seen:
            return
        seen.add(proof.get_id())
        n = proof.num_args()
        for i in range(n - 1):
            walk(proof.arg(i))
        if n and z3.is_app(c := proof.arg(n - 1)) and c.decl().name() == "Reach":
            args = tuple(c.arg(i) for i in range(c.num_args()))
            if all(z3.is_int_value(a) or z3.is_true(a) or z3.is_false(a) for a in args):
                state = explorer_layout(inst, args)
                if not facts or facts[-1] != state:  # (the setup's fact is met twice)
                    facts.append(state)

    try:
        walk(fp.get_answer())
    except (z3.Z3Exception, RecursionError):
        return ()
    return tuple(facts)


def explorer_layout(inst: Instance, values) -> tuple:
    """`Reach`'s arguments (slot_names' order, as Z3 values) as the explorer lays a state out in
    `Machine.values`, as far as it is compared: every variable's slots (a set of players as a
    mask), the players out and the teams out (masks)."""
    py = [v.as_long() if z3.is_int_value(v) else z3.is_true(v) for v in values]
    out, i = [], 0
    for v in inst.vars:
        for _ in range(v.count):
            if v.type.kind == "set":
                out.append(sum(1 << p for p in range(inst.nplayers) if py[i + p]))
                i += inst.nplayers
            else:
                out.append(py[i])
                i += 1
    players = sum(1 << p for p in range(inst.nplayers) if py[i + p])
    i += inst.nplayers
    teams = sum(1 << t for t in range(inst.nteams) if py[i + t])
    return tuple(out) + (players, teams)


def _wall_deadline(seconds: float) -> float:
    """The wall-clock moment (time.monotonic) a question of `seconds` of work must end by: as
    `limit` bounds one call, never less than WALL_FLOOR from now. (A question asked with its
    work all but spent once had its deadline now: its first call met it at once and stopped
    the instance as if the machine were loaded, where the answer is "the work is spent".)"""
    return time.monotonic() + max(WALL_FLOOR, seconds * WALL_SAFETY)


def limit(solver, seconds: float, deadline: float = float("inf")) -> None:
    """At most `seconds` of work for a Z3 solver, fixedpoint or optimizer (as WORK_PER_SECOND
    resource units), and WALL_SAFETY times that of wall-clock time (at least WALL_FLOOR), never
    past `deadline` (time.monotonic()) nor the `terms.clock`'s moment."""
    solver.set("rlimit", max(1, int(seconds * WORK_PER_SECOND)))
    wall = min(max(WALL_FLOOR, seconds * WALL_SAFETY), min(deadline, clock_deadline()) - time.monotonic())
    ms = max(1, int(wall * 1000))
    solver.set("timeout", ms)
    # the bound Z3 was given, whole milliseconds: with the wall's fraction recorded instead, a
    # call stopped at 1 ms of a 1.9 ms wall looked short of it, and its unknown passed for the work's
    setattr(solver, WALL_BOUND, ms / 1000)


class Work:
    """`seconds` of Z3's work (WORK_PER_SECOND resource units to a second), from now: Z3 counts
    the units of every query in the process, so what was done since is the count's growth."""

    def __init__(self, seconds: float):
        self.seconds, self.start = seconds, units_now()

    def left(self) -> float:
        return self.seconds - (units_now() - self.start) / WORK_PER_SECOND


def units_now() -> int:
    """Z3's resource count so far, in this process (a fresh solver's statistics report it)."""
    st = z3.Solver().statistics()
    return st.get_key_value("rlimit count") if "rlimit count" in st.keys() else 0
