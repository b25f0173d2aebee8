"""Witnesses with concrete values by bounded model checking: a path to a bad frame, and a lasso
that shows a cycle check's defect, where the explorer could not finish.

Spacer (checker.symbolic.horn) proves or refutes a bad frame's reachability whatever the
numbers, but answers unknown when its share of work runs out, and a ranking function
(checker.symbolic.ranking) only ever rules cycles out. Both leave undecided what a short play
shows. Here the frames of checker.symbolic.bmc are unrolled one more at a time, each step
recording which action it took, and Z3 is asked for the shortest play that shows:

- **a bad frame** (`path_to`): the same conditions Spacer is asked (a win, a property, a rule
  applying), at the last frame of the play;
- **a lasso** (`lasso`): a play to a frame equal to an earlier one, the steps between them
  (the loop) meeting the cycle check's conditions, which are the explorer's own
  (checker.analyses.cycle_checks):
  - unbounded-procedure: every frame of the loop running and inside the procedure, every step
    a game action (not `leave`), one of them `progress`;
  - livelock: every frame running, every step a game action that is not `progress`;
  - starvation of player p: every frame running with p in the game and not active, every step
    a game action, one of them `progress`;
  - any cycle (for never-active): every step a game action.
  (Forced loops are no lasso: "no play from here ends" is about every path, which one path
  cannot show.)

Nothing is decided from the solver alone: the caller (checker.analyses.unbounded `beyond`) has
the explorer walk each play, its checks report the finding on the walked graph, and the Z3
replay re-checks it as any other; a play the explorer cannot follow, or a loop its cycle
checks do not confirm, is an engine disagreement. No play within the bound or the work given
says nothing (a longer one may exist): the check stays undecided.

One unrolling serves every question of an instance (`Unrolling`): the step into frame i+1
holds only under an activation literal, so a question about frame k leaves the frames after
it free (a frame that has a successor is one where the game goes on: the later frames must
not constrain it).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import z3

from ..frontend import typed as T
from ..frontend.instances import Instance
from . import horn
from . import terms as _terms  # (_terms.TRUE and FALSE are rebound per instance: fresh_context)
from .bmc import BMC, FirstStep, _Frame
from .terms import SymState, Unsupported, equal, or_all, solve, to_term

FOUND, NONE, UNKNOWN = "found", "none", "unknown"
# At most this many steps from a setup to the bad frame or the end of the loop: rules texts'
# loops are a round of turns (a player's turn each, at most a few steps apiece) after a short
# way in; the cost of a step grows with the frames (every earlier frame is a place the loop
# may start).
MAX_STEPS = 24
SECONDS = 10.0  # at most this much of Z3's work per cycle check (per procedure, per player)
# at most this much per bad frame Spacer left undecided, and for all of them in one instance
# (most such questions have no short play: a win thousands of steps deep)
PATH_SECONDS = 2.0
PATHS_SECONDS = 10.0


@dataclass(frozen=True)
class Loop:
    """What a cycle check's lasso must meet: `region(bmc, frame)` holds in every frame of the
    loop, each of its steps takes an action that is `allowed`, and one at least an action
    that is `required` (None: any step will do). Where a condition has no value the frame is
    outside the region (the ranking functions count it inside: a proof must cover it, a lasso
    must be a cycle the explorer's checks confirm)."""
    region: Callable
    allowed: Callable[[T.Action], bool]
    required: Callable[[T.Action], bool] | None = None


@dataclass(frozen=True)
class Witness:
    """What a search found: `found` with the frames of the play (each laid out as the
    explorer's `Machine.values`, as Spacer's paths are: checker.symbolic.horn
    `explorer_layout`); for a lasso, the last equals the one at `loop_start`. `none` when there
    is none of `max_steps` steps or fewer; `unknown` with why where the work or Z3 stopped first."""
    verdict: str
    path: tuple = ()
    loop_start: int = 0
    why: str = ""
    seconds: float = 0.0


def procedure(d: T.Condition) -> Loop:
    def inside(u: BMC, f: _Frame):
        value, err = u.enc.checked(lambda: u.enc.expr(d.cond, u.read(f), {}))
        return z3.And(to_term(value), z3.Not(to_term(err)))
    return Loop(inside, lambda a: not a.leave, lambda a: a.progress)


def livelock() -> Loop:
    return Loop(lambda u, f: _terms.TRUE, lambda a: not a.leave and not a.progress)


def starvation(inst: Instance, p: int) -> Loop:
    a = inst.model.active

    def waits(u: BMC, f: _Frame):
        value, err = u.enc.checked(lambda: u.enc.expr(a.cond, u.read(f), {a.binder.uid: p}))
        return z3.And(z3.Not(to_term(f.st.out[p])), z3.Not(to_term(value)), z3.Not(to_term(err)))
    return Loop(waits, lambda a: not a.leave, lambda a: a.progress)


def any_cycle() -> Loop:
    """never-active's question: game moves (not `leave`) that come back to a state, what the
    explorer's `Explored.has_cycle` reads on its graph (a game that can go on forever has no
    complete play in which a player is skipped to the end)."""
    return Loop(lambda u, f: _terms.TRUE, lambda a: not a.leave)


class Unrolling(BMC):
    """BMC's frames for every question of one instance, each step saying which option it took
    (`taken[i]`: (action, its selector) per option of the step from frame i), so that a loop's steps can
    be asked to be game actions, or `progress` ones; the step from frame i holds under
    `active[i]` (the module's docstring)."""

    def __init__(self, inst: Instance, first: FirstStep | None = None):
        self.taken: list[list] = []
        self.active: list = []
        super().__init__(inst, first)

    def extend(self):
        f = self.frames[-1]
        g = _Frame(self.inst, len(self.frames))
        chosen = []
        for k, (action, step) in enumerate(self.steps(f, g)):
            b = z3.Bool(f"take_{k}@{f.i}")
            self.solver.add(z3.Implies(b, step))
            chosen.append((action, b))
        on = z3.Bool(f"step@{f.i}")
        self.solver.add(z3.Implies(on, z3.And(z3.Not(f.ended), z3.Not(f.gap), or_all([b for _, b in chosen]))))
        self.frames.append(g)
        self.taken.append(chosen)
        self.active.append(on)

    def upto(self, k: int) -> None:
        while len(self.frames) <= k:
            self.extend()


def path_to(u: Unrolling, bad, seconds: float = PATH_SECONDS, max_steps: int = MAX_STEPS) -> Witness:
    """The shortest play to a frame where `bad(bmc, frame)` holds (Spacer's questions: horn)."""
    def at(k: int):
        return bad(u, u.frames[k])
    return _search(u, at, lambda k, m: 0, seconds, max_steps, first=0)


def lasso(u: Unrolling, loop: Loop, seconds: float = SECONDS, max_steps: int = MAX_STEPS) -> Witness:
    """The shortest lasso (fewest steps in all) of `loop`."""
    # per frame i: it is in the region and its step takes an allowed action (`ok`), or a
    # required one (`need`); the loop from j to k asks ok[j..k-1] and one of need[j..k-1]
    ok, need = [], []

    def at(k: int):
        f, chosen = u.frames[k - 1], u.taken[k - 1]
        ok.append(z3.And(loop.region(u, f), or_all([b for a, b in chosen if loop.allowed(a)])))
        need.append(_terms.TRUE if loop.required is None else
                    or_all([b for a, b in chosen if loop.allowed(a) and loop.required(a)]))
        return or_all([z3.And(_same(u.frames[j], u.frames[k]), *ok[j:k], or_all(need[j:k])) for j in range(k)])

    def start(k: int, path: tuple) -> int:
        return next(j for j in range(k) if path[j] == path[k])
    return _search(u, at, start, seconds, max_steps, first=1)


def _search(u: Unrolling, at: Callable, loop_start: Callable, seconds: float, max_steps: int, first: int) -> Witness:
    """Ask, for k = first .. max_steps, for a play of k steps where `at(k)` holds, within
    `seconds` of Z3's work (horn.Work: resource units, so the answer does not depend on the
    machine's load). What the encoding cannot express is `unknown`, saying so, never an
    error of the run."""
    began = time.process_time()
    work = horn.Work(seconds)

    def result(verdict: str, **kw) -> Witness:
        return Witness(verdict, seconds=time.process_time() - began, **kw)
    try:
        for k in range(first, max_steps + 1):
            if work.left() <= 0:
                return result(UNKNOWN, why=f"its share of work ran out before {k} steps")
            u.upto(k)
            s = u.solver
            s.push()
            s.add(at(k))
            horn.limit(s, max(0.001, work.left()))
            r = solve(s, *u.active[:k])
            if r == z3.sat:
                m = s.model()
                path = tuple(_layout(u, m, u.frames[i]) for i in range(k + 1))
                s.pop()
                return result(FOUND, path=path, loop_start=loop_start(k, path))
            why = s.reason_unknown() if r == z3.unknown else ""
            s.pop()
            if r == z3.unknown:
                said = "its share of work ran out" if why in ("canceled", "max. resource limit exceeded") else why
                return result(UNKNOWN, why=f"Z3 could not tell within {k} steps ({said})")
        return result(NONE, why=f"no play of {max_steps} steps or fewer shows it")
    except Unsupported as exc:
        return result(UNKNOWN, why=f"not encoded for the symbolic engine: {exc}")
    except z3.Z3Exception as exc:
        return result(UNKNOWN, why=f"Z3: {exc}")


def _same(a: _Frame, b: _Frame):
    """Frames a and b hold the same state: values, who is out, each player's result, and the
    end marker (whether the game ended, and its winners), which the explorer's states hold too:
    without it, a step that ends the game with a win and changes no variable came back to the
    running frame it left, a loop the explorer has no cycle for."""
    eqs = [equal(x, y) for k in a.st.vals for x, y in zip(a.st.vals[k], b.st.vals[k])]
    eqs += [x == y for x, y in zip(a.st.out + a.st.tout, b.st.out + b.st.tout)]
    for r in SymState.RESULTS:
        eqs += [to_term(x) == to_term(y) for x, y in zip(getattr(a.st, r), getattr(b.st, r))]
    eqs += [x == y for x, y in zip(a.wp + a.wt, b.wp + b.wt)]
    eqs += [a.ended == b.ended, a.draw == b.draw]
    return z3.And(*eqs)


def _layout(u: BMC, m: z3.ModelRef, f: _Frame) -> tuple:
    """Frame f's values in the model, laid out as the explorer's (horn.explorer_layout)."""
    terms = [t for _, t in horn.value_slots(u.inst, f.st)] + list(f.st.out) + list(f.st.tout)
    return horn.explorer_layout(u.inst, [m.eval(to_term(t), model_completion=True) for t in terms])
