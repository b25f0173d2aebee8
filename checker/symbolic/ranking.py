"""Ranking functions: the cycle checks decided without enumerating states.

Where the explorer stops at its state limit (life 8,000), the cycle checks of
checker.analyses.cycle_checks cannot look for a cycle in a graph that is not there. A
*ranking function* shows that no such cycle exists, whatever the numbers: a linear function
of the state, r = c0 + c1*x1 + ... over the variables' slots (a Boolean, an element of a set
or a status counts 0 or 1), that is never below 0 where it is read and that the steps of a
would-be cycle lower. What each check needs of it, over every reachable frame:

- **livelock** (a cycle of game actions without a `progress` action, among running states):
  every game action that is not `progress`, from a running frame to a running frame, is taken
  only where r >= 0 and lowers r by at least 1. Then no play takes such steps forever, so no
  cycle is made of them.
- **forced-loop** (running states from which no sequence of game actions ends the game): in
  every running frame r >= 0 and some game action goes through and either ends the game (or
  reaches a gap: the explorer counts both as an end) or lowers r by at least 1. From any
  running state, following such actions reaches an end within r steps: no state is doomed.
  The states with no game action at all fail this (a deadlock is no end), so a game with one
  is never proved here; the deadlock check reports it.
- **unbounded-procedure** (a cycle through a `progress` action among the running states inside
  a procedure): every game action from such a frame to such a frame is taken only where
  r >= 0, never raises r, and lowers it by at least 1 if it is `progress`. Around a cycle r
  comes back to where it was, so no step of it lowers r: no progress on it.

- **starvation** (a player in the game and not active in every state of a cycle with a
  `progress` action), per player p: every game action from a running frame where p waits to
  one where p still waits is taken only where r >= 0, never raises r, and lowers it by at
  least 1 if it is `progress`: around such a cycle r comes back, so none of its steps makes
  progress. The function follows the turn round the table, which no linear function of a
  turn's index does (seat order wraps): here r may also weigh whether each player-valued slot
  holds each player (`[turn == P3]`), a distance to p's seat. The players are asked in seat
  order; the first one not proved leaves the check undecided. The last player's proof is
  checked first (teammates wait at the same times: their functions are often one).
  A game without an `active` condition, where nobody waits, has nothing to check.
The frames are the symbolic engine's (checker.symbolic.bmc: one step from frame 0, the same
semantics as the explorer's states), so a proof holds for the explorer's graph, however big.

Where no function fits, a ranking in two parts is tried (lexicographic): the slots no step of
the claim raises (or none lowers) on reachable frames keep their values round any cycle, so
the steps that change one are on none, and a second function need only rank the steps that
keep them all (a drawn game replayed sets life back up; the count of games played never
falls). For forced loops such a step counts as a step towards the end instead: the slots move
one way within their declared ranges.

The coefficients are found by counterexample-guided search (CEGIS): the smallest candidate
(sum of |ci|, each in -BOUND..BOUND) that fits the frames learnt so far is checked by Z3 against
every frame that satisfies what is known of the reachable ones (`support`); a frame that
breaks it is learnt from, the next candidate must fit it too. (The constant c0 only keeps
r >= 0: where the frames offered would raise it one total at a time, it is lifted at once to
where r >= 0 over the declared ranges, then lowered by halves to the smallest that proves.
Where the smallest candidate is not found in time, any that fits is tried.) Most frames in
the declared ranges are ones no play reaches (a player at 0 life still in the game), and learning from
those can rule out the function that works; so Z3 is asked first for a start (the setup with
its integers anywhere in their ranges, the outcome rules applied), and a frame that is no start
is first ruled out where nothing leads into it (`_no_way_in`: two plain queries, IC3's
relative induction over the facts known so far), else learnt from and put to Spacer
(checker.symbolic.horn, from every start in the ranges) once no function fits the frames
learnt from (DEFER_SPACER): if it proves no play reaches it, its inductive invariant joins
`support` and the frame is no longer learnt from. The prover keeps those
invariants for the instance's later claims (what every reachable frame satisfies holds
whatever the claim): one that excludes such a frame joins a later claim's support without a
question to Spacer. (Not all of them at once: a support larger than the claim needs made
the candidates' checks slower, and a search that had proved its claim ran out of work.)
Spacer's invariant covers the frame it was asked about and little more ("between games, life
> 2"), and the next frame Z3 offers is the next total down: unless WIDENED_BOUNDS is 0, each
bound of such an invariant is moved to an end of its slot's declared
range where it still holds of every reachable frame ("between games, life > 7,999":
`_widened`, checked by Z3), so one question rules out the whole count.

A candidate is proved only by Z3's unsat over `support` and the full conditions, never by the
samples; `support` holds only what every reachable frame satisfies: the declared ranges (the
transition relation fails every step that leaves them: checked here once, by Z3, that the
setup and every step keep them), and Spacer's invariants (each checked by Z3 to exclude what
it was asked about). A proof says which of Spacer's facts it needed (an unsat core).
Anything else (no function with small coefficients fits, Z3 unknown, the time spent) is
`unknown` with why: never a proof, and never a finding (the explorer or a directed search
shows a cycle; this module only rules them out).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import z3

from ..frontend.instances import Instance
from . import horn
from .bmc import for_some
from .statements import value_range
from . import terms as _terms  # (_terms.TRUE and FALSE are rebound per instance: fresh_context)
from .terms import SymSet, SymState, Unsupported, or_all, solve, to_term

PROVED, UNKNOWN = "proved", "unknown"
BOUND = 2  # each coefficient of a variable's slot is in -BOUND..BOUND (readable, and a small search)
# Work is counted as horn counts it (Z3's resource units, horn.WORK_PER_SECOND to a second, so
# that the answer does not depend on the machine's load)
SPACER_SLICE = 3.0  # seconds of work Spacer gets for one frame
CHECK_SLICE = 2.0  # seconds of work of one plain Z3 query (a candidate checked, coefficients found)
# of the check, once per instance, that the setup and every step keep the declared ranges: a
# question over the whole step relation, which every later search leans on (a team game of a
# dozen actions with 8,000 life counted to the unit: 5.4 s of units, 0.35 s of CPU; with less,
# no range was assumed, and no function fit)
RANGES_SLICE = 20.0
# of one question which slots some step moves (`_never_moving`): a disjunction over every step
# and slot, for which Z3 counts its units faster (the same game's starvation: 5.2 s of units,
# 0.3 s of CPU)
MOVE_SLICE = 10.0
# of each check that a fact Spacer proved, one bound moved to an end of its range, still holds
# (`_widened`): a step of the same game, between games, life > 7,999, is decided with 10 s of
# units (0.3 s of CPU), not with 5
WIDEN_SLICE = 30.0
# Bounds of one fact tried, at most (0 turns moving them off). A team game counted to the
# unit at 8,000 needs it (docs/speed.md). Its first version took Z3's work from the question
# that asked and moved bounds of every fact: in the free-for-all of four at life 10, its
# declared ranges taken away, questions proved before ran out of work. So bounds move only
# once Spacer's facts count down (`_counts_down`), and the checks spend an allowance of the
# instance's own (WIDEN_ALLOWANCE) that is given back to the question.
WIDENED_BOUNDS = 4
NO_WAY_IN = True  # a frame no step leads into is ruled out by plain queries before Spacer is asked (_no_way_in)
# A frame that breaks a candidate, that no start breaks and that `_no_way_in` does not rule
# out, is learnt from at once and put to Spacer only once no function fits the frames learnt
# from, or once all but PENDING_SHARE of the search's work is spent (`_search`). Most such
# frames are reachable, or beyond what Spacer decides in its slice: asking first spent 3 units
# on each undecided one and about 0.5 on each reachable one, more than the search had for the
# rest (a team game at 8,000 with damage of any amount: forced-loop needed about 20 units with
# questions first, 7 without; docs/speed.md). Off (False): asked when met.
DEFER_SPACER = True
PENDING_SHARE = 0.25
WIDEN_ALLOWANCE = 60.0  # units per instance for moving bounds, apart from the questions' work
KINDS = ("livelock", "forced-loop", "unbounded-procedure")  # what a ranking function can prove absent
CHECKS = KINDS + ("starvation",)  # the cycle checks `cycle_checks` answers for (starvation only where vacuous)
# At most this much work per check (per procedure), whatever the budget left. 10 until
# 2026-12-02: a team game at 8,000 with damage of any amount proved forced-loop in 7 units
# written one way and more than 10 written another (the same terms, built in another order:
# the frames Z3 gives back, and so the candidates, differ); 20 decides both.
SECONDS = 20.0
STARVATION_SECONDS = 30.0  # per player: a distance round the table takes more frames to learn


@dataclass(frozen=True)
class Ranking:
    """What was decided of one cycle check: `proved`, with the function in the spec's names
    and what it shows (`detail`), or `unknown` with why."""
    verdict: str
    function: str = ""
    detail: str = ""
    why: str = ""
    seconds: float = 0.0
    # how it was proved, for a like claim to try first (`_prove`'s `hint`): the coefficients
    # (with the constant first), and for a ranking in two parts the slots kept first
    # ((feature index, 1: never rises / -1: never falls))
    coefficients: tuple = ()
    kept: tuple = ()


@dataclass(frozen=True)
class _Step:
    """One action with one binding from frame 0: it `goes` through, to a frame whose features
    are `post`; `target`: for a universal claim, the step ends in the region (it could be on a
    cycle there); for an existential one, it ends the game. `strict`: it must lower r by 1."""
    action: str
    goes: z3.BoolRef
    post: tuple
    target: z3.BoolRef
    strict: int
    args: tuple = ()  # the step's arguments taken as symbols (bmc.SYMBOLIC_ARGUMENT)


@dataclass(frozen=True)
class _Claim:
    """The conditions on r: from every reachable frame where `region` holds, every step
    (universal) or some step (existential) meets them (the module's docstring)."""
    kind: str
    region: z3.BoolRef
    steps: tuple[_Step, ...]
    existential: bool
    says: str  # what a proof shows, with {r} and {actions} to fill in
    none: str = ""  # what it means that no step is ranked (a universal claim holds then)
    seats: bool = False  # r may also weigh each seat a player-valued slot can hold (`features`)


def cycle_checks(prover: horn.Prover, skip: set[str], seconds) -> list[tuple[str, str, Ranking]]:
    """[(check, subject, its decision)] for each cycle check a ranking function may prove
    absent in the prover's instance (a procedure's check per procedure: its name is the
    subject), and those that have nothing to find (no `active` condition: no starvation),
    except the kinds in `skip` (found already). `seconds(cap=SECONDS)`: the work one question
    gets, asked as it starts (the caller's `cap`, whatever time is left: a question the time
    left cannot see through stops the instance rather than answer less)."""
    model = prover.inst.model
    out = []
    if "livelock" not in skip:
        if not any(a.progress for a in model.actions):
            out.append(("livelock", "", _vacuous("no action is marked `progress`: the check does not apply")))
        else:
            out.append(("livelock", "", _prove(prover, lambda: _livelock(prover), seconds())))
    if "forced-loop" not in skip:
        if model.loop_draws:
            out.append(("forced-loop", "", _vacuous("`loop_draws`: a loop no game action can leave is the declared draw")))
        else:
            out.append(("forced-loop", "", _prove(prover, lambda: _forced_loop(prover), seconds())))
    if "unbounded-procedure" not in skip:
        if not model.procedures:
            out.append(("unbounded-procedure", "", _vacuous("no procedure is declared")))
        for d in model.procedures:
            out.append(("unbounded-procedure", d.name, _prove(prover, lambda: _procedure(prover, d), seconds())))
    if "starvation" not in skip:
        if model.active is None:
            out.append(("starvation", "", _vacuous("no `active` condition is declared: nobody is ever waiting")))
        else:
            hint = None  # the last player's proof, tried first: teammates' proofs are often one
            for p, name in enumerate(prover.inst.players):
                r = _prove(prover, lambda: _starvation(prover, p), seconds(STARVATION_SECONDS), hint)
                out.append(("starvation", name, r))
                if r.verdict != PROVED:
                    break  # one player undecided leaves the check undecided: the others' time is kept
                hint = r if r.coefficients else hint
    return out


def _vacuous(why: str) -> Ranking:
    return Ranking(PROVED, "", why)


# ---------------------------------------------------------------- the claims of each check

def _options(prover: horn.Prover):
    """(bmc, frame 0, the options (`bmc.Option`) of the steps that go through)."""
    u, f = prover.frame()
    return u, f, [o for o in u._options(f) if o.post is not None]


def _running(f) -> z3.BoolRef:
    return z3.And(z3.Not(f.ended), z3.Not(f.gap))


def _livelock(prover: horn.Prover) -> _Claim:
    u, f, opts = _options(prover)
    steps = tuple(_Step(o.action.name, o.ok, features(prover.inst, o.post), z3.And(z3.Not(o.ended), z3.Not(o.gap)), 1)
                  for o in opts if not o.action.leave and not o.action.progress)
    return _Claim("livelock", _running(f), steps, False,
                  "{r} is never below 0 where a game action that is not `progress` can be taken, and each such "
                  "action ({actions}) lowers it by at least 1: no play repeats them forever",
                  "every game action is marked `progress`: no cycle can lack one")


def _forced_loop(prover: horn.Prover) -> _Claim:
    u, f, opts = _options(prover)
    steps = tuple(_Step(o.action.name, o.ok, features(prover.inst, o.post), z3.Or(o.ended, o.gap), 1, o.args)
                  for o in opts if not o.action.leave)
    return _Claim("forced-loop", _running(f), steps, True,
                  "{r} is never below 0 while the game runs, and in every running state some game action ends "
                  "the game or lowers it by at least 1 (the actions that lower it: {actions}): an end can "
                  "always be reached")


def _procedure(prover: horn.Prover, d) -> _Claim:
    u, f, opts = _options(prover)
    enc = u.enc

    def inside(st):
        # where the condition has no value the explorer cannot say either: counted as inside,
        # so the claim covers every frame it might be
        value, err = enc.checked(lambda: enc.expr(d.cond, st, {}))
        return z3.Or(value, err)

    steps = tuple(_Step(o.action.name, o.ok, features(prover.inst, o.post),
                        z3.And(z3.Not(o.ended), z3.Not(o.gap), inside(o.post)), 1 if o.action.progress else 0)
                  for o in opts if not o.action.leave)
    return _Claim("unbounded-procedure", z3.And(_running(f), inside(f.st)), steps, False,
                  f"within procedure `{d.name}`, {{r}} is never below 0 where a game action can be taken, no game "
                  "action raises it and each `progress` action ({actions}) lowers it by at least 1: no cycle "
                  "of it makes progress", "no game action can be taken")


def _starvation(prover: horn.Prover, p: int) -> _Claim:
    """Player p waits (in the game, not active) on no cycle with a `progress` action: while p
    waits, no game action raises r and each `progress` action lowers it (around a cycle where
    p waits throughout r comes back, so no step of it makes progress)."""
    u, f, opts = _options(prover)
    enc, a = u.enc, prover.inst.model.active

    def waits(st):
        # where `active` has no value the explorer cannot say either: counted as waiting, so
        # the claim covers every frame it might be
        value, err = enc.checked(lambda: enc.expr(a.cond, st, {a.binder.uid: p}))
        return z3.And(z3.Not(to_term(st.out[p])), z3.Or(z3.Not(to_term(value)), to_term(err)))

    steps = tuple(_Step(o.action.name, o.ok, features(prover.inst, o.post, True),
                        z3.And(z3.Not(o.ended), z3.Not(o.gap), waits(o.post)), 1 if o.action.progress else 0)
                  for o in opts if not o.action.leave)
    who = prover.inst.players[p]
    return _Claim("starvation", z3.And(_running(f), waits(f.st)), steps, False,
                  f"while {who} waits, {{r}} is never below 0 where a game action leaves {who} waiting, no such action "
                  f"raises it and each `progress` one ({{actions}}) lowers it by at least 1: {who} waits on no cycle "
                  "that makes progress", "no game action can be taken", seats=True)


def features(inst: Instance, st: SymState, seats: bool = False) -> tuple:
    """The terms a ranking function weighs, as integers: every slot of the variables (a
    Boolean or a set's element 0 or 1) and who is out; with `seats`, also whether each
    player-valued slot holds each player ([turn == P2]: 0 or 1), so that r can follow a turn
    round the table (the distance from the turn to a seat is no linear function of the turn's
    index, as seat order wraps)."""
    return tuple(_as_int(t) for _, t in _slots(inst, st, seats))


def _slots(inst: Instance, st: SymState, seats: bool = False) -> list[tuple[str, object]]:
    return (horn.value_slots(inst, st) + [(f"out({p})", t) for p, t in zip(inst.players, st.out)]
            + [(f"out(team {t})", x) for t, x in zip(inst.teams, st.tout)] + (_seat_slots(inst, st) if seats else []))


def _seat_slots(inst: Instance, st: SymState) -> list[tuple[str, object]]:
    out = []
    for v in inst.vars:
        if v.type.kind != "player":
            continue
        keys = v.index_keys(inst) if v.indexed else [""]
        for key, t in zip(keys, st.vals[v.name]):
            name = f"{v.name}[{key}]" if key else v.name
            out += [(f"[{name} == {p}]", to_term(t) == k) for k, p in enumerate(inst.players)]
    return out


def _bounds(inst: Instance, st: SymState, seats: bool) -> list[int]:
    """Each feature's coefficient bound: BOUND, and for a seat (`_seat_slots`) the number of
    players (a distance round the table is up to one less)."""
    return [max(BOUND, inst.nplayers) if n.startswith("[") and " == " in n else BOUND for n, _ in _slots(inst, st, seats)]


def _as_int(t):
    t = to_term(t)
    return z3.If(t, 1, 0) if z3.is_bool(t) else t


# ---------------------------------------------------------------- the search

def _prove(prover: horn.Prover, claim: Callable[[], _Claim], seconds: float, hint: Ranking | None = None) -> Ranking:
    """The ranking of `claim()`; what the encoding cannot express is an answer too (unknown,
    saying so), never an error of the run. Where no function fits, the slots the claim's
    steps never move one way are kept first (`_lexicographic`). `hint`: a like claim's proof
    over the same features (another player's), checked first as it is; where a linear one
    fails, the search goes on from the state that broke it; where one in two parts fails,
    the search starts afresh with the work left."""
    start = time.process_time()
    try:
        work, asked, samples = _Work(seconds), claim(), []
        if hint is not None and hint.kept:
            again = _lexicographic(prover, asked, work, start,
                                   _unknown("the last player's ranking in two parts does not fit", start), [], hint)
            if again.verdict == PROVED or work.left <= 0:
                return again
        first = _search(prover, asked, work, start, samples,
                        hint.coefficients if hint is not None and not hint.kept else None)
        if first.verdict == PROVED or not first.why.startswith(NO_FIT) or work.left <= 0:
            return first
        return _lexicographic(prover, asked, work, start, first, samples)
    except z3.Z3Exception as exc:
        return Ranking(UNKNOWN, why=f"Z3: {exc}", seconds=time.process_time() - start)
    except Unsupported as exc:
        return Ranking(UNKNOWN, why=f"not encoded for the symbolic engine: {exc}", seconds=time.process_time() - start)


class _Work:
    """A question's work, counted in Z3's resource units (horn.Work), each query given at most
    its slice of what is left (`take`)."""

    def __init__(self, seconds: float):
        self.work = horn.Work(seconds)

    @property
    def left(self) -> float:
        return self.work.left()

    def take(self, share: float) -> float:
        return max(0.0, min(share, self.left))

    def give_back(self, units: int) -> None:
        """Z3's units spent since on work that another budget counts: the instance's
        allowance for moving bounds (`_widened`), its range check (`_ranges`)."""
        self.work.start += units


def _search(prover: horn.Prover, claim: _Claim, work: _Work, start: float, samples: list | None = None,
            first: tuple | None = None) -> Ranking:
    """CEGIS (the module's docstring). `support`: what every reachable frame satisfies, as
    far as known: the declared ranges, then Spacer's invariants that showed a frame that
    broke a candidate to be one no play reaches (such a frame is dropped, not learnt from).
    The frames learnt from are added to `samples`. `first`: the candidate checked first. A
    candidate checked again (a frame that broke it ruled out) reuses what `_broken` eliminated."""
    u, f = prover.frame()
    inst = prover.inst
    if not claim.steps and not claim.existential:
        return Ranking(PROVED, "", claim.none)
    x = features(inst, f.st, claim.seats)
    bounds = _bounds(inst, f.st, claim.seats)
    support = [_ranges(prover, work)]
    # Which frame that breaks a candidate is learnt from matters: most frames in the declared
    # ranges are ones no play reaches (a player at 0 life still in the game), and each costs a
    # question to Spacer. So Z3 is asked first for a start in the declared ranges (the setup
    # with any values of the integers, the outcome rules applied: the frames Spacer's wider
    # questions start from, learnt from without asking), then for a frame where nobody left
    # or drew, then for any.
    mark = z3.Bool("ranking!start")
    starts = z3.Implies(mark, prover.system(True)[4])
    plain = [z3.Not(b) for r in SymState.RESULTS for b in getattr(f.st, r)] + [z3.Not(f.conflict)]
    samples = [] if samples is None else samples
    ranges = _feature_ranges(prover, x)
    creeping: set = set()  # the other coefficients of the candidates that broke for r < 0
    pending: list = []  # (sample, model) of the frames learnt from that Spacer was not asked about
    late = work.left * PENDING_SHARE  # (work left below which they are asked about as they come)
    lowering: dict = {}  # (_broken's, for the candidates of this search)

    def check(c):  # (bad, the solver, Z3's answer, which assumptions it is sat under)
        bad = _broken(claim, x, c, lowering)
        s = _solver(work.take(CHECK_SLICE))
        s.add(*support, bad, starts)
        return (bad, s, *_first_sat(s, [[mark, *plain], plain, []]))

    while work.left > 0:
        if first is not None:
            c, first = first, None
        else:
            c = _learn(claim, x, bounds, samples, work.take(CHECK_SLICE))
        if pending and (c is None or work.left < late):
            # a frame no play reaches may be what rules out the function that works
            dropped = _unreached(prover, support, pending, work)
            pending = []
            if dropped:
                samples[:] = [sm for sm in samples if all(sm is not d for d in dropped)]
                continue
        if c is None:
            seats = f" (of a seat: -{max(BOUND, inst.nplayers)}..{max(BOUND, inst.nplayers)})" if claim.seats else ""
            return _unknown(f"{NO_FIT} with coefficients in -{BOUND}..{BOUND}{seats} fits the states tried", start)
        if c == "unknown":
            return _unknown("Z3 could not find coefficients in time", start)
        bad, s, r, which = check(c)
        # The constant is there only for r >= 0. Learnt from the frames where r < 0 one at a
        # time, it may creep up by one total at a time (life 4,110, then 4,111, ...; or by
        # turns, for two candidates that weigh each team's life): the second such frame for
        # the same other coefficients lifts it at once to where r >= 0 over the declared
        # ranges (not the first: a constant learnt in one step is the smallest). A proof then
        # takes the smallest constant that still proves it.
        if r == z3.sat and ranges and _is_negative(s.model(), _rank(c, x)):
            lifted = _lifted(c, ranges)
            if c[1:] in creeping and lifted != c:
                failing, c = c[0], lifted
                bad, s, r, which = check(c)
                if r == z3.unsat:
                    c, bad = _lowered(check, c, bad, failing, work)
            creeping.add(c[1:])
        if r == z3.unsat:
            return _proved(inst, f, claim, c, support, bad, start)
        if r == z3.unknown:
            if work.left <= 0:  # the check had what was left of the question's work, not a slice
                break
            why = s.reason_unknown()  # (Z3's words for its work limit: horn._reason)
            return _unknown("Z3 could not check a candidate within this question's work"
                            if why in ("canceled", "max. resource limit exceeded") else f"Z3: {why}", start)
        m = s.model()
        if which > 0:  # no start breaks it: a frame no play may reach, which may be ruled out
            facts = _ruled_out(prover, support, m, work, spacer=not DEFER_SPACER)
            if facts:
                support += facts
                first = c  # (no frame learnt: the same candidate is checked again, with the facts)
                continue
            if DEFER_SPACER:  # (learnt from now, put to Spacer later: DEFER_SPACER)
                pending.append((_sample(claim, x, m), m))
                samples.append(pending[-1][0])
                continue
        # a start, reachable from one, or not decided: a frame to learn from
        samples.append(_sample(claim, x, m))
    return _unknown("the time for this question was spent", start)


NO_FIT = "no linear function of the variables"


def _feature_ranges(prover: horn.Prover, x: tuple) -> list[tuple[int, int]] | None:
    """Each feature's (lowest, highest) value by its declared type (a Boolean, a seat or who
    is out: 0..1); None where one is not known. A guide for the constant (`_lifted`): a
    candidate is proved by Z3 over `support`, whatever it is."""
    inst, f = prover.inst, prover.frame()[1]
    known = {}
    for v in inst.vars:
        span = value_range(v.type, inst.nplayers, inst.nteams)
        for term in f.st.vals[v.name]:
            if span is not None and isinstance(term, z3.ArithRef):
                known[term.get_id()] = span
    out = []
    for t in x:
        if z3.is_app_of(t, z3.Z3_OP_ITE) and z3.is_bool(t.arg(0)):
            out.append((0, 1))  # (`_as_int` of a Boolean)
        elif t.get_id() in known:
            out.append(known[t.get_id()])
        else:
            return None
    return out


def _lifted(c: tuple[int, ...], ranges: list[tuple[int, int]]) -> tuple[int, ...]:
    """`c` with its constant raised, if need be, so that r >= 0 wherever each feature is in
    its range."""
    lowest = sum(min(k * lo, k * hi) for k, (lo, hi) in zip(c[1:], ranges))
    return (max(c[0], -lowest),) + tuple(c[1:])


def _lowered(check, c: tuple[int, ...], bad, failing: int, work: _Work) -> tuple:
    """(c, its `bad`) with the smallest constant above `failing` that still proves the claim
    (by halves: a larger constant only makes r >= 0 easier), the proved `c` (whose `bad` is
    given) where Z3 cannot tell or the work is spent."""
    low, high = failing, c[0]  # low fails, high proves
    while high - low > 1 and work.left > 0:
        mid = (low + high) // 2
        b, _, r, _ = check((mid,) + c[1:])
        if r == z3.unsat:
            high, bad = mid, b
        elif r == z3.sat:
            low = mid
        else:
            break
    return (high,) + c[1:], bad


def _is_negative(m: z3.ModelRef, r) -> bool:
    v = m.eval(r, model_completion=True)
    return z3.is_int_value(v) and v.as_long() < 0


def _lexicographic(prover: horn.Prover, claim: _Claim, work: _Work, start: float, first: Ranking,
                   samples: list, hint: Ranking | None = None) -> Ranking:
    """A claim no linear function proves, proved in two parts (a lexicographic ranking): the
    slots that no step of the claim raises (or none lowers), over every frame `support`
    allows, can only change one way. Universal claims (no cycle of such steps makes progress):
    round a cycle each comes back to its value, so the steps that change one are on none, and
    a function need only rank the steps that keep them all. The existential one (an end can
    always be reached): a step that changes one moves them, bounded by their ranges, the one
    way they go, so it counts as a step towards the end as one that ends the game does. What a
    replayed game needs: it sets life back up, but counts the games played, which never falls.
    The first search's `samples` show steps that moved some slots already: those are not
    asked about again. With `hint` (a like claim's proof in two parts), only its kept slots
    are asked about, and its second function is checked first."""
    u, f = prover.frame()
    inst = prover.inst
    x = features(inst, f.st, claim.seats)
    support = [_ranges(prover, work), *prover.reachable_facts]
    if claim.existential and support[0] is _terms.TRUE:
        return first  # (a slot that only falls bounds the steps that lower it only within its declared range)
    if hint is None:
        seen_rising, seen_falling = _seen_moving(claim, samples, 1), _seen_moving(claim, samples, -1)
    else:  # (every slot but the hint's kept ones counts as seen moving: not asked about)
        every = set(range(len(x)))
        seen_rising = every - {i for i, sign in hint.kept if sign > 0}
        seen_falling = every - {i for i, sign in hint.kept if sign < 0}
    never_rise = _never_moving(prover, claim, x, support, 1, work, seen_rising)
    never_fall = _never_moving(prover, claim, x, support, -1, work, seen_falling)
    # (+1: never rises, -1: never falls; a slot that never moves either way is no help)
    kept = sorted([(i, 1) for i in never_rise - never_fall] + [(i, -1) for i in never_fall - never_rise])
    if not kept or work.left <= 0:
        return first
    unit = [0] * (len(x) + 1)
    names = []
    for i, sign in kept:
        one = list(unit)
        one[i + 1] = 1
        names.append(f"{show_rank(inst, tuple(one), f.st, claim.seats)} never {'rises' if sign > 0 else 'falls'}")
    if claim.existential:
        says = (f"a ranking in two parts: {', '.join(names)} where the game goes on, and each is bounded, so a "
                "step that changes one counts as a step towards the end; otherwise, " + claim.says)
        keeping = replace(claim, says=says, steps=tuple(
            replace(s, target=z3.Or(s.target, *[s.post[i] != x[i] for i, _ in kept])) for s in claim.steps))
    else:
        says = (f"a ranking in two parts: {', '.join(names)} on the steps below, so round a cycle of them each "
                f"keeps its value, and a step that changes one is on none; on the steps that keep them, " + claim.says)
        keeping = replace(claim, says=says, steps=tuple(
            replace(s, goes=z3.And(s.goes, *[s.post[i] == x[i] for i, _ in kept])) for s in claim.steps))
    second = _search(prover, keeping, work, start, None, hint.coefficients if hint is not None else None)
    if second.verdict != PROVED:
        return _unknown(f"{first.why}; nor one of the steps that keep {', '.join(names)}: {second.why}", start)
    return replace(second, kept=tuple(kept))


def _seen_moving(claim: _Claim, samples: list, sign: int) -> set[int]:
    """The features (indices) that a step of the claim raises (`sign` 1) or lowers (-1) in
    one of the search's samples, to where the step counts (`_never_moving`'s `lands`)."""
    seen = set()
    for sm in samples:
        for goes, target, post in sm.steps:
            if goes and (target != claim.existential):
                seen |= {i for i, (a, b) in enumerate(zip(sm.x, post)) if sign * b > sign * a}
    return seen


def _never_moving(prover: horn.Prover, claim: _Claim, x: tuple, support: list, sign: int, work: _Work,
                  seen: set[int] = frozenset()) -> set[int]:
    """The features (indices into `x`) that no step of the claim raises (`sign` 1) or lowers
    (-1) from a reachable frame of its region: all of them, less those `seen` moving that way
    (in the first search's samples) and those a step Z3 finds moves, asked again until none
    does (a handful of questions, not one per feature). A frame Spacer shows no play reaches
    is ruled out instead (its facts join `support`, which grows); none where Z3 cannot tell.
    Leaving a feature out is safe, whatever the frame that showed it moving: the answer only
    claims what Z3 then proves of every reachable frame, and a smaller set claims less."""
    def lands(s: _Step):  # where the step goes on to: the region (universal), or a frame where the game goes on
        return z3.Not(s.target) if claim.existential else s.target

    left = set(range(len(x))) - seen
    # One solver for all the questions, each asked under its own literal: Z3 takes in the step
    # relation once. (A fresh solver per question spent about 5 units on that alone, sat or
    # unsat alike: a team game at 8,000 life took 17 units for one player's "never falls",
    # now 3; docs/speed.md.)
    q, told, asked = z3.Solver(), 0, 0
    q.add(claim.region)
    while left and work.left > 0:
        moves = {i: [sign * s.post[i] > sign * x[i] for s in claim.steps] for i in left}
        horn.limit(q, work.take(MOVE_SLICE))  # (Z3's work limit counts from each check)
        q.add(*support[told:])  # (the facts learnt since the last question)
        told, asked = len(support), asked + 1
        question = z3.Bool(f"ranking!moves{asked}")
        q.add(z3.Implies(question, or_all([z3.And(s.goes, lands(s), or_all([moves[i][k] for i in left]))
                                           for k, s in enumerate(claim.steps)])))
        r = solve(q, question)
        if r == z3.unsat:
            return left
        if r != z3.sat:
            return set()
        m = q.model()
        facts = _ruled_out(prover, support, m, work)
        if facts:
            support += facts
            continue

        def holds(t) -> bool:
            return z3.is_true(m.eval(t, model_completion=True))
        went = [k for k, s in enumerate(claim.steps) if holds(z3.And(s.goes, lands(s)))]
        moved = {i for i in left if any(holds(moves[i][k]) for k in went)}
        if not moved:  # (the model does not say which step moved what: nothing to go on)
            return set()
        left -= moved
    return left if work.left > 0 else set()


def _first_sat(s: z3.Solver, tries: list[list]) -> tuple:
    """(Z3's answer, the index of the first assumptions of `tries` it is sat under); the last
    try's answer where none is (it has no assumptions: its unsat is the solver's)."""
    for i, assumptions in enumerate(tries):
        r = solve(s, *assumptions)
        if r == z3.sat or i == len(tries) - 1:
            return r, i
    return z3.unknown, len(tries) - 1


def _unknown(why: str, start: float) -> Ranking:
    return Ranking(UNKNOWN, why=why, seconds=time.process_time() - start)


def _solver(seconds: float) -> z3.Solver:
    s = z3.Solver()
    horn.limit(s, seconds)
    return s


def _unreached(prover: horn.Prover, support: list, pending: list, work: _Work) -> list:
    """The samples of `pending` ((sample, model of its frame) pairs, learnt from before Spacer
    was asked) whose frames are now shown to be ones no play reaches; the facts that show it
    join `support`."""
    out = []
    for sample, m in pending:
        if work.left <= 0:
            break
        facts = _ruled_out(prover, support, m, work)
        if facts:
            support += facts
            out.append(sample)
    return out


def _ruled_out(prover: horn.Prover, support: list, m: z3.ModelRef, work: _Work, spacer: bool = True) -> list:
    """Facts of every reachable frame that, with `support`, exclude the frame of the model `m`
    (frame 0's values in it): ones learnt for earlier questions of the instance, else one that
    shows nothing leads into it (`_no_way_in`), else (with `spacer`) the invariant Spacer
    proves now; each new one kept for the later questions. [] where no play is shown not to
    reach it."""
    a0 = prover.system(False)[2]  # (frame 0's slots, as horn.slot_names lists them)
    values = [m.eval(t, model_completion=True) for t in a0]
    point = z3.And([t == v for t, v in zip(a0, values)])
    known = _known_excluding(prover, support, point, work)
    if known:
        return known
    fact = _no_way_in(prover, support, values, work) if NO_WAY_IN else None
    if fact is not None:
        prover.reachable_facts.append(fact)
        return [fact]
    if not spacer:
        return []
    a = prover.ask_wider(lambda _u, _f: z3.And(*support, point), work.take(SPACER_SLICE))
    if a.verdict == horn.PROVED and a.formula is not None and \
            _excludes(z3.And(*support, a.formula), point, work.take(CHECK_SLICE)):
        fact = _widened(prover, support, a.formula, work)
        prover.reachable_facts.append(fact)
        return [fact]
    return []


def _no_way_in(prover: horn.Prover, support: list, values: list, work: _Work):
    """A fact of every reachable frame that excludes the frame whose slots hold `values` (in
    horn.slot_names' order), where nothing leads into it: not(l1 and ... and lk), the li
    literals over the frame's slots that it meets, such that
    no setup meets them all, and no step from a frame where `support` holds and some li fails
    leads to a frame that meets them all (IC3's relative induction: so no play reaches one, as
    the first step into one would start from a frame that breaks `support`, which no reachable
    one does). None where the frame has a way in (or Z3 cannot tell): then it is Spacer's
    question. Many frames that break a candidate are ones only the outcome rules keep out (a
    team at 0 life still in the game), or a step's own effects (nothing leaves a player between
    games below the starting life): two plain queries say so, where Spacer's question costs
    five to fifty times as much and proves a fact that covers the frame and little more.

    The li: the frame's values (`slot == value`) that Z3's minimized unsat cores of the two
    queries need, then each integer slot's value widened to all but one end of its declared
    range where that still holds (`life < 8000` between games, not `life == 4110`: a search
    whose frames count a total down would otherwise ask once per value)."""
    u, _, a0, a1, init, step = prover.system(False)
    setup, stepped = z3.Solver(), z3.Solver()
    setup.add(init)
    stepped.add(*support, step)
    for s in (setup, stepped):
        s.set("core.minimize", True)
    marks: dict[int, z3.BoolRef] = {}  # a literal's id -> its assumption in both solvers
    after: dict[int, z3.BoolRef] = {}  # a literal's id -> the same over frame 1
    cubes: list = []  # one assumption per cube asked about: "the step starts outside it"

    def mark(lit):
        if lit.get_id() not in marks:
            k = marks[lit.get_id()] = z3.Bool(f"ranking!in{len(marks)}")
            setup.add(z3.Implies(k, lit))
            stepped.add(z3.Implies(k, after[lit.get_id()]))
        return marks[lit.get_id()]

    def literal(i: int, make):  # make(slot) over frame 0, and the same over frame 1 (no substitution)
        lit = make(a0[i])
        after[lit.get_id()] = make(a1[i])
        return lit

    def core(cube: list) -> list | None:  # the literals both queries need, None unless both unsat
        # (a step from a frame in the cube may lead into it: that is no way in)
        outside = z3.Bool(f"ranking!outside{len(cubes)}")
        cubes.append(outside)
        stepped.add(z3.Implies(outside, z3.Not(z3.And(cube))))
        needed: set[int] = set()
        for s, extra in ((setup, []), (stepped, [outside])):
            horn.limit(s, work.take(CHECK_SLICE))
            if work.left <= 0 or solve(s, *extra, *[mark(lit) for lit in cube]) != z3.unsat:
                return None
            needed |= {k.get_id() for k in s.unsat_core()}
        return [lit for lit in cube if mark(lit).get_id() in needed]

    point = [literal(i, lambda t, v=v: t == v) for i, v in enumerate(values)]
    slot = {lit.get_id(): i for i, lit in enumerate(point)}  # a literal's id -> its slot's index
    cube = core(point)
    if cube is None:
        return None
    ranges = _slot_ranges(prover)
    for k, lit in enumerate(list(cube)):
        i = slot[lit.get_id()]
        v = values[i]
        if a0[i].get_id() not in ranges or not z3.is_int_value(v):
            continue
        lo, hi = ranges[a0[i].get_id()]
        tries = ([lambda t: t <= hi - 1] if v.as_long() < hi else []) + ([lambda t: t >= lo + 1] if v.as_long() > lo else [])
        for make in tries:
            wider = literal(i, make)
            if core(cube[:k] + [wider] + cube[k + 1:]) is not None:
                cube[k] = wider
                break
    return z3.Not(z3.And(cube))


def _widened(prover: horn.Prover, support: list, fact, work: _Work):
    """Spacer's `fact`, each bound `t <= c` on an integer variable's slot moved to an end of
    the slot's declared range where the fact is then stronger and still holds of every
    reachable frame (it holds at the setup, and a step from a frame where it and `support`
    hold keeps it): `between games, life > 7,999` where Spacer, asked about one frame, proved
    `between games, life > 2`. Spacer's proof covers the frame it was asked about and little
    more, so a search whose frames count a total down would ask it once per value (8,000
    questions); the check of one fact is three plain queries. A bound no end can replace, or
    whose checks run out of work, stays as Spacer gave it. Only with WIDENED_BOUNDS above 0, and
    only once the facts count down (`_counts_down`)."""
    if not WIDENED_BOUNDS:
        return fact
    ranges = _slot_ranges(prover)
    if not _counts_down(prover, fact, ranges):
        return fact
    left = getattr(prover, "widening_left", WIDEN_ALLOWANCE)
    if left <= 0:
        return fact
    before = horn.units_now()
    own = _Work(left)  # the instance's allowance, not the question's work
    u, _, a0, a1, init, step = prover.system(False)
    fact = _widen_with(fact, ranges, support, init, step, list(zip(a0, a1)), own)
    spent = horn.units_now() - before
    prover.widening_left = left - spent / horn.WORK_PER_SECOND
    work.give_back(spent)
    return fact


def _widen_with(fact, ranges: dict, support: list, init, step, to_next: list, work: _Work):
    """`fact` with each of its first WIDENED_BOUNDS bounds moved to the first end of its range
    (t == high, t == low, t >= low) where it still holds of every reachable frame."""
    for atom in _bounds_of(fact, ranges)[:WIDENED_BOUNDS]:
        t, c = atom.arg(0), atom.arg(1).as_long()
        lo, hi = ranges[t.get_id()]
        # `not t <= hi - 1` is t == hi; `t <= lo` is t == lo; `not t <= lo - 1`, t >= lo
        for end in (hi - 1, lo, lo - 1):
            if end == c or work.left <= 0:
                continue
            wider = z3.substitute(fact, (atom, t <= end))
            if _holds_always(wider, fact, support, init, step, to_next, work):
                fact = wider
                break
    return fact


def _counts_down(prover: horn.Prover, fact, ranges: dict) -> bool:
    """Whether `fact` is an earlier fact of the instance but for the numbers of its bounds (and
    the order of its disjuncts or conjuncts): Spacer's facts count a total down, and moving
    their bounds pays; elsewhere it is not tried, and costs nothing."""
    mine = _shape(fact, ranges)
    if mine is None:
        return False
    shapes = prover.fact_shapes  # (the facts stay on the prover: their ids are not reused)
    for g in prover.reachable_facts:
        if g.get_id() not in shapes:
            shapes[g.get_id()] = _shape(g, ranges)
    return any(shapes[g.get_id()] == mine for g in prover.reachable_facts)


def _shape(fact, ranges: dict) -> str | None:
    """`fact` with every bound's number set to 0, its top disjuncts or conjuncts sorted, as
    text; None if it has no bound to move."""
    bounds = _bounds_of(fact, ranges)
    if not bounds:
        return None
    f = z3.substitute(fact, *[(b, b.arg(0) <= 0) for b in bounds])
    if z3.is_or(f) or z3.is_and(f):
        return ("or " if z3.is_or(f) else "and ") + " ".join(sorted(c.sexpr() for c in f.children()))
    return f.sexpr()


def _slot_ranges(prover: horn.Prover) -> dict[int, tuple[int, int]]:
    """The declared range (low, high) of every integer slot of frame 0, by the term's id."""
    f = prover.frame()[1]
    out = {}
    for v in prover.inst.vars:
        if v.type.kind == "int":
            for t in f.st.vals[v.name]:
                if isinstance(t, z3.ArithRef):
                    out[t.get_id()] = (v.type.low, v.type.high)
    return out


def _bounds_of(fact, ranges: dict) -> list:
    """The atoms `t <= c` of `fact` (t an integer slot of frame 0 with a declared range wider
    than two values, c a number), each once, in the order Z3 walks them."""
    out, seen, todo = [], set(), [fact]
    while todo:
        e = todo.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        if z3.is_le(e) and z3.is_int_value(e.arg(1)) and e.arg(0).get_id() in ranges:
            lo, hi = ranges[e.arg(0).get_id()]
            if hi - lo > 1:
                out.append(e)
            continue
        todo.extend(e.children())
    return out


def _holds_always(wider, fact, support: list, init, step, to_next: list, work: _Work) -> bool:
    """Whether `wider` implies `fact` and holds of every reachable frame: at the setup, and
    after a step from a frame where it and `support` hold (Z3's unsat each time, within its
    slice of `work`)."""
    for premises in ([wider, z3.Not(fact)], [init, z3.Not(wider)],
                     [*support, wider, step, z3.Not(z3.substitute(wider, *to_next))]):
        s = _solver(work.take(WIDEN_SLICE))
        s.add(*premises)
        if solve(s) != z3.unsat:
            return False
    return True


def _known_excluding(prover: horn.Prover, support: list, point, work: _Work) -> list:
    """Facts earlier searches of the instance learnt from Spacer (`reachable_facts`), not in
    `support`, that exclude `point` with it: those of Z3's unsat core, asked once for all of
    them; [] where they do not."""
    known = [g for g in prover.reachable_facts if all(g is not s for s in support)]
    if not known:
        return []
    return _core(support, point, known, max(0.1, work.take(CHECK_SLICE)), "known") or []


def _ranges(prover: horn.Prover, work: _Work | None = None):
    """Every variable's slot in its declared range, over frame 0, if that holds on every
    reachable frame: the setup and each step keep it (checked; else _terms.TRUE, nothing
    assumed). Checked once per prover, within RANGES_SLICE: a fact of the instance, not of the
    question that happens to ask first, so its units are given back to that question's `work`
    (they were 5 of a forced-loop check's 10 where livelock had nothing to rank)."""
    if prover.declared_ranges is None:
        before = horn.units_now()
        prover.declared_ranges = _checked_ranges(prover)
        if work is not None:
            work.give_back(horn.units_now() - before)
    return prover.declared_ranges


def _checked_ranges(prover: horn.Prover):
    u, reach, a0, a1, init, step = prover.system(False)
    f0, f1 = u.frames[0], u.frames[1]

    def within(g):
        return z3.And(*[u.enc.in_type(v, t) for v in prover.inst.vars for t in g.st.vals[v.name]], _terms.TRUE)

    for premise, frame in ((init, f0), (z3.And(within(f0), step), f1)):
        s = _solver(RANGES_SLICE)
        s.add(premise, z3.Not(within(frame)))
        if solve(s) != z3.unsat:
            return _terms.TRUE
    return within(f0)


def _rank(c, terms) -> z3.ArithRef:
    """c0 + c1*t1 + ...: coefficients numbers (a candidate) or unknowns (the search for one)."""
    c0, cs = c[0], c[1:]
    return z3.Sum([to_term(c0)] + [k * t for k, t in zip(cs, terms) if not (isinstance(k, int) and k == 0)])


def _broken(claim: _Claim, x: tuple, c: tuple[int, ...], lowering: dict | None = None) -> z3.BoolRef:
    """The frames of the region where the candidate `c` breaks the claim's conditions.
    `lowering`: for an existential claim, "some step ends the game or lowers r" by the
    coefficients but the constant (which cancels out of "lowers"), kept for the next candidate
    with the same ones: eliminating the steps' arguments from it cost three times the query
    (0.2 units a candidate on a team game at 8,000 life, most of them rechecked as they were
    after a frame that broke them was ruled out, or with another constant)."""
    r = _rank(c, x)
    if claim.existential:  # (some value of a step's symbolic arguments: quantified, then eliminated)
        lowering = {} if lowering is None else lowering
        if c[1:] not in lowering:
            c_, r_ = (0, *c[1:]), _rank((0, *c[1:]), x)
            lowering[c[1:]] = or_all([for_some(s.args, z3.And(s.goes, z3.Or(s.target, _rank(c_, s.post) <= r_ - 1)))
                                      for s in claim.steps])
        return z3.And(claim.region, z3.Or(r < 0, z3.Not(lowering[c[1:]])))
    fails = [z3.And(s.goes, s.target, z3.Or(r < 0, _rank(c, s.post) > r - s.strict)) for s in claim.steps]
    return z3.And(claim.region, or_all(fails))


def _excludes(invariant, bad, seconds: float) -> bool:
    s = _solver(max(0.1, min(CHECK_SLICE, seconds)))
    s.add(invariant, bad)
    return solve(s) == z3.unsat


@dataclass(frozen=True)
class _Sample:
    """A frame that broke a candidate, as numbers: its features, and per step whether it goes
    (and to the target) and the features after it."""
    x: tuple[int, ...]
    steps: tuple[tuple[bool, bool, tuple[int, ...]], ...]


def _sample(claim: _Claim, x: tuple, m: z3.ModelRef) -> _Sample:
    def num(t):
        return m.eval(t, model_completion=True).as_long()

    def yes(t):
        return z3.is_true(m.eval(t, model_completion=True))

    steps = []
    for s in claim.steps:
        if s.args and claim.existential:  # the arguments are not in the model: some that go, if any
            m = _with_arguments(s, x, m)
        goes = yes(s.goes)
        steps.append((goes, goes and yes(s.target), tuple(num(t) for t in s.post) if goes else ()))
    return _Sample(tuple(num(t) for t in x), tuple(steps))


def _with_arguments(s: _Step, x: tuple, m: z3.ModelRef) -> z3.ModelRef:
    """A model of the frame `m` describes (its features) where step `s` goes, for some values
    of its symbolic arguments; `m` itself where none is found quickly (the sample then says the
    step does not go: learning is a guide, a proof is checked in full)."""
    solver = _solver(CHECK_SLICE / 10)
    solver.add(s.goes, *[t == m.eval(t, model_completion=True) for t in x])
    return solver.model() if solve(solver) == z3.sat else m


def _learn(claim: _Claim, x: tuple, bounds: list[int], samples: list[_Sample], seconds: float):
    """Coefficients (c0, c1, ...) that meet the claim's conditions on every sample, the
    smallest (sum of |ci|, then |c0|); None if none within `bounds` does, "unknown" if Z3
    could not tell. Each ci is written pi - ni with both at least 0, so that the objective is
    linear (an optimum has one of them 0): far faster than minimizing absolute values. Where
    the optimum is not found in time, any coefficients that fit do (a guide: a candidate is
    proved by Z3 over `support`; samples with totals in the thousands made the optimum hard)."""
    o = z3.Optimize()
    horn.limit(o, seconds)
    pos = [z3.Int(f"ranking!p{i}") for i in range(len(x) + 1)]
    neg = [z3.Int(f"ranking!n{i}") for i in range(len(x) + 1)]
    cs = [p - n for p, n in zip(pos, neg)]
    for i, (p, n) in enumerate(zip(pos, neg)):
        o.add(p >= 0, n >= 0, *([p <= bounds[i - 1], n <= bounds[i - 1]] if i else []))
    for sm in samples:
        r = _rank(cs, sm.x)
        if claim.existential:
            o.add(r >= 0, or_all([z3.BoolVal(True) if target else _rank(cs, post) <= r - 1
                                  for (goes, target, post) in sm.steps if goes]))
        else:
            for (goes, target, post), s in zip(sm.steps, claim.steps):
                if goes and target:
                    o.add(r >= 0, _rank(cs, post) <= r - s.strict)
    fits = o.assertions()
    o.minimize(z3.Sum(pos[1:] + neg[1:]))
    o.minimize(pos[0] + neg[0])
    r = solve(o)
    if r == z3.unsat:
        return None
    if r == z3.sat:
        m = o.model()
    else:
        any_fit = _solver(seconds)
        any_fit.add(fits)
        r = solve(any_fit)
        if r == z3.unsat:
            return None
        if r != z3.sat:
            return "unknown"
        m = any_fit.model()
    return tuple(m.eval(c, model_completion=True).as_long() for c in cs)


# ---------------------------------------------------------------- a proof, in words

def _proved(inst: Instance, f, claim: _Claim, c: tuple[int, ...], support: list, bad, start: float) -> Ranking:
    """The proof of `c` (`bad`: the frames that would break it, none of which satisfies
    `support`), with the actions named in the claim's words: for an existential claim those
    that can lower r; else the actions ranked. The invariants it rests on are said, as far
    as it needs them."""
    x = features(inst, f.st, claim.seats)
    text = show_rank(inst, c, f.st, claim.seats)
    r = _rank(c, x)
    if claim.existential:
        # One solver, each step asked under its own literal: Z3 takes in the support once (a
        # fresh solver per step cost a team game at 8,000 life 23 units for these names alone)
        names, q = [], z3.Solver()
        q.add(*support, claim.region)
        for k, s in enumerate(claim.steps):
            if s.action in names:
                continue
            lowers = z3.Bool(f"ranking!lowers{k}")
            q.add(z3.Implies(lowers, z3.And(s.goes, z3.Not(s.target), _rank(c, s.post) <= r - 1)))
            horn.limit(q, CHECK_SLICE)
            if solve(q, lowers) != z3.unsat:  # sat, or unknown: named rather than left out
                names.append(s.action)
    else:
        names = list(dict.fromkeys(s.action for s in claim.steps if s.strict))
    detail = claim.says.format(r=text, actions=", ".join(names) or "none")
    needed = _needed(support, bad)
    if needed:
        detail += ("; checked on every state in the declared ranges where these facts Spacer proved of every "
                   f"reachable state hold: {_conjuncts(inst, f, needed)}")
    elif support[0] is not _terms.TRUE:
        detail += "; checked on every state in the declared ranges"
    return Ranking(PROVED, text, detail, seconds=time.process_time() - start, coefficients=tuple(c))


def _needed(support: list, bad) -> list:
    """The conjuncts of Spacer's invariants (support[1:]) that a proof needs: an unsat core
    (all of them if Z3 does not give one)."""
    parts = [p for g in support[1:] for p in (g.children() if z3.is_and(g) else [g])]
    if not parts:
        return []
    core = _core([support[0]], bad, parts, CHECK_SLICE)
    return parts if core is None else core


def _core(base: list, bad, facts: list, seconds: float, name: str = "") -> list | None:
    """The facts that exclude `bad` together with `base`, as Z3's unsat core picks them (each
    fact under an assumption literal `ranking!{name}{i}`); None where they do not (sat, or
    Z3 could not tell)."""
    marks = [z3.Bool(f"ranking!{name}{i}") for i in range(len(facts))]
    s = _solver(seconds)
    s.add(*base, bad, *[z3.Implies(k, p) for k, p in zip(marks, facts)])
    if solve(s, *marks) != z3.unsat:
        return None
    core = {k.get_id() for k in s.unsat_core()}
    return [p for k, p in zip(marks, facts) if k.get_id() in core]


def _conjuncts(inst: Instance, f, formulas: list) -> str:
    """Spacer's invariants over frame 0 in the spec's names, each conjunct once, sorted."""
    names = [(t, z3.Const(n, t.sort())) for n, t in horn.slot_names(inst, f)]
    parts = set()
    for g in formulas:
        g = z3.simplify(z3.substitute(g, *names), arith_lhs=True)
        parts.update(horn.show(p, False) for p in (g.children() if z3.is_and(g) else [g]))
    return " and ".join(sorted(parts))


def show_rank(inst: Instance, c: tuple[int, ...], st: SymState, seats: bool = False) -> str:
    """`life[P1] + life[P2] - 2*turn + 3`, the function in the spec's names: a set whose
    elements weigh alike as its `size(...)`, any other Boolean slot or status as `[x]` (1
    where it holds, 0 elsewhere)."""
    weights = dict(zip((n for n, _ in _slots(inst, st, seats)), c[1:]))
    words: list[tuple[int, str]] = []
    for v in inst.vars:
        keys = v.index_keys(inst) if v.indexed else [""]
        for key, t in zip(keys, st.vals[v.name]):
            name = f"{v.name}[{key}]" if key else v.name
            if isinstance(t, SymSet):
                ks = [weights[f"{p} in {name}"] for p in inst.players]
                if len(set(ks)) == 1:
                    words.append((ks[0], f"size({name})"))
                else:
                    words += [(k, f"[{p} in {name}]") for k, p in zip(ks, inst.players)]
            else:
                words.append((weights[name], f"[{name}]" if v.type.kind == "bool" else name))
    words += [(weights[n], f"[{n}]") for n, _ in _slots(inst, st) if n.startswith("out(")]
    words += [(weights[n], n) for n, _ in (_seat_slots(inst, st) if seats else [])]
    parts = [("-" if k < 0 else "+", w if abs(k) == 1 else f"{abs(k)}*{w}") for k, w in words if k]
    if c[0] or not parts:
        parts.append(("-" if c[0] < 0 else "+", str(abs(c[0]))))
    text = " ".join(f"{sign} {w}" for sign, w in parts)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]
