"""The safety checks of an instance the explorer could not finish, decided without enumerating
its states: Spacer proves that a bad frame is unreachable (checker.symbolic.horn), and a
directed search finds a concrete path to one that the explorer's own checks then report and
the Z3 replay re-checks (checker.explicit.directed). Whatever neither settles is said to be
undecided, never clean.

Each question ends in a `Decision` (checker.analyses.decision): which check, about what, the
verdict (proved, found, unknown), which engine decided it and why (the invariant Spacer found,
in the spec's names). A proof of an unreachable victory, property or rule is itself a finding
(unreachable-outcome, unreachable-property, dead-rule), with the invariant as its evidence.

Asked here: the safety checks (a player left without an outcome among them: a question about
a frame's end, checker.symbolic.sides) and each side's victory; each rule and `reachable`
property (checker.analyses.unbounded_rules); each `precedence` and "cannot" rule
(checker.analyses.unbounded_declarations). Of the cycle checks, forced loops, livelocks,
unbounded procedures and starvation are proved absent by a ranking function where one is found
(checker.symbolic.ranking); never shown present here. Never-active is decided from the
explored states where they show every player active and a cycle. An instance with every check
decided and none unknown is complete (`not_decided`); otherwise what is left is said.
"""
from __future__ import annotations

import os
from dataclasses import replace

import z3

from ..frontend import consts
from ..frontend import syntax as sx
from ..frontend import typed as T
from ..frontend.instances import Instance
from ..explicit import directed, symmetry
from ..explicit.compile import EvalError
from ..explicit.explore import STEP_LIMIT, Graph
from ..limits import Budget, LimitHit, watchdog
from ..symbolic import horn, ranking, terms, witness
from ..symbolic.sides import ended_sides
from ..symbolic.terms import Unsupported
from . import consequences, unbounded_declarations, unbounded_rules
from .checks import run_checks_within
from .explored import Explored
from .decision import SPACER, Decision, Questions, proof_detail
from .findings import Finding
from .verdicts import Replay
from .graph_checks import rule_label, winners
from .phase_checks import in_phase, phase_mentions, phases_entered, vacuous_property

DIRECTED = "explicit (directed search)"  # the engine of a finding a directed search shows
RANKING = "symbolic (ranking)"


# the checks of single states and what Spacer is asked for each (a bad frame)
SAFETY = (
    ("outcome-conflict", lambda u, f: getattr(f, "conflict", None)),
    ("outcome-gap", lambda u, f: f.gap),
    ("deadlock", horn.no_step),
    ("overflow", horn.failing_step),  # with evaluation-error: one question, a failing step
    ("player-without-outcome", lambda u, f: ended_sides(u, f).without_outcome()),
    ("implied-loss", lambda u, f: ended_sides(u, f).implied_loss()),
)
UNDECIDED = ("forced-loop", "livelock", "unbounded-procedure", "starvation", "never-active",
             "player-without-outcome", "dead-rule", "dead-declaration")


def decide(inst: Instance, found: list[Finding], reached: dict, budget: Budget, walk=None
           ) -> tuple[list[Finding], list[Decision]]:
    """`_decide` within `budget`, also where no watchdog of the caller's stops it: the encoding
    of a step (every round of triggers settled over symbolic states, each term simplified) asks
    no budget itself, and took 563 s of CPU on a 30 s budget for eight seats whose triggers
    raise events. A limit hit (the budget, or a Z3 call cut short by the time left: an answer
    is the one its work gives, or none; `terms.clock`) ends it: what it decided by then is kept,
    each part whole (a check, or every subject of one), and each check it did not reach is
    said stopped."""
    out: list[Finding] = []
    decisions: list[Decision] = []
    try:
        with watchdog(budget), terms.clock(budget):
            _decide(inst, found, reached, budget, walk, out, decisions)
    except LimitHit as exc:
        kinds, said = {f.kind for f in found}, {d.check for d in decisions}
        m, left = inst.model, undecided(inst)
        whole = [kind for kind, _ in SAFETY] + [kind for kind in ranking.CHECKS if kind in left]
        about = (["invariant"] * bool(m.invariants) + ["unreachable-outcome"] * any(r.kind == "win" for r in m.outcomes)
                 + [kind for kind in ("vacuous-property", "dead-rule", "dead-declaration", "unreachable-property")
                    if kind in left])
        # a check of the whole instance the explorer found is decided; one of subjects is not
        # (what was found of it leaves the other subjects open). (never-active: `beyond`'s.)
        decisions += [Decision(kind, "", "found", "explicit") if kind in kinds and kind in whole else
                      Decision(kind, "", horn.UNKNOWN, SPACER, f"the symbolic engine stopped ({exc})")
                      for kind in whole + about if kind not in said]
    return out, decisions


def _decide(inst: Instance, found: list[Finding], reached: dict, budget: Budget, walk,
            out: list[Finding], decisions: list[Decision]) -> None:
    """Ask Spacer what the partial graphs did not show. `found`: the findings the explorer's
    checks made on them; `reached`: what they reached ({"wins": players mask, "team_wins":
    teams mask, "rules": rule ids applied, "properties": (name, binding) pairs reached,
    "decided": the keys the explorer noted, `Machine.decided`}; the rules, properties and
    declarations a key lacks are all asked). `walk(kind, subject, answer, key)`: the
    decision on a question Spacer found a path for, once the explorer walked it (None: not
    walked; `Questions.judge`). Adds the new findings to `out` and the decisions to
    `decisions`, a part at a time (`decide`)."""
    q = Questions(horn.Prover(inst), budget, walk)
    ask, judge = q.ask, q.judge
    kinds = {f.kind for f in found}
    for kind, bad in SAFETY:
        if kind == "implied-loss" and not _proved(decisions, "player-without-outcome"):
            continue  # the explorer's check says a player without an outcome first, and then only that
        if kind in kinds or (kind == "overflow" and "evaluation-error" in kinds):
            decisions.append(Decision(kind, "", "found", "explicit"))
            continue
        why = _not_encoded(q.prover, bad)
        if why:
            decisions.append(Decision(kind, "", horn.UNKNOWN, SPACER, why))
            continue
        decisions.append(judge(kind, "", ask(bad)))
    part: list[Decision] = []
    for d in inst.model.invariants:
        if any(f.kind in ("invariant", "evaluation-error") and d.name in f.subject for f in found):
            part.append(Decision("invariant", d.name, "found", "explicit"))
            continue
        part.append(judge("invariant", d.name, ask(horn.violated(d.cond))))
    decisions += part
    part, proofs = [], []
    answers: dict[tuple[bool, int], horn.Answer | None] = {}  # (team?, who) -> Spacer's answer; None: reached
    for r in inst.model.outcomes:
        if r.kind != "win":
            continue
        team = r.subject == "team"
        names = inst.teams if team else inst.players
        mask = reached.get("team_wins" if team else "wins", 0)
        never = []
        for x, name in enumerate(names):
            if (team, x) not in answers:  # asked once per side, whatever the number of win rules
                who = f"{'team ' if team else ''}{name} wins"
                if mask >> x & 1:
                    answers[team, x] = None
                    part.append(Decision("unreachable-outcome", who, "found", "explicit"))
                else:
                    answers[team, x] = ask(_wins(x, team))
                    part.append(judge("unreachable-outcome", who, answers[team, x]))
            a = answers[team, x]
            if a is not None and a.verdict == horn.PROVED:
                never.append((name, a))
        if never:  # as the explorer says it: per win rule, the sides that never win
            who = ", ".join(n for n, _ in never)
            proofs.append(Finding("unreachable-outcome",
                                  f"{'team ' if team else ''}{who} can never win (rule `{r.name}`)",
                                  tuple(dict.fromkeys(r.tags)), (r.span,), inst.label, inst.model_name,
                                  detail=proof_detail(never[0][1]), key=f"{r.name}:{len(never)}",
                                  subject=(r.name,), size=len(never), engine=SPACER))
    decisions += part
    out += proofs
    part, proofs = [], []
    for d, cyc, p in phase_mentions(inst.model):
        subject = f"{d.name} (phase {p.name})"
        if (cyc.name, p.index) in reached.get("phases", set()):
            part.append(Decision("vacuous-property", subject, "found", "explicit"))
            continue
        a = ask(horn.holds(in_phase(inst, cyc, p), {}))
        part.append(judge("vacuous-property", subject, a))
        if a.verdict == horn.PROVED:
            proofs.append(replace(vacuous_property(inst, d, cyc, p, proof_detail(a)), engine=SPACER))
    decisions += part
    out += proofs
    decisions += _cycles(q, kinds, lambda cap=ranking.SECONDS: q.work(cap))
    decisions += _a_cycle(q, reached, decisions)
    decisions += _nothing_to_check(inst)
    more, asked = unbounded_rules.decide(inst, q, reached)
    decisions += asked
    out += more
    verdicts = _rule_verdicts(inst, reached.get("rules", set()), asked)
    more, asked = unbounded_declarations.decide(inst, q, reached.get("decided", set()), verdicts)
    decisions += asked
    out += more


def _rule_verdicts(inst: Instance, hit: set, decisions: list[Decision]) -> dict[int, str]:
    """Each rule id's dead-rule verdict: found where a graph applied it, else its decision's."""
    by_label = {d.subject: d.verdict for d in decisions if d.check == "dead-rule"}
    return {rid: "found" if rid in hit else by_label.get(rule_label(r), horn.UNKNOWN)
            for rid, r in enumerate(inst.model.rules)}


def _cycles(q: Questions, kinds: set[str], seconds) -> list[Decision]:
    """The cycle checks a ranking function proves absent (checker.symbolic.ranking); those
    the explorer's partial graphs found are found. Where no ranking function is found, a
    lasso with concrete values (checker.symbolic.witness), walked by the explorer, may show the
    defect present; else the check stays undecided, saying why on both counts."""
    found = [Decision(k, "", "found", "explicit") for k in ranking.CHECKS if k in kinds]
    out = []
    for k, subject, r in ranking.cycle_checks(q.prover, kinds, seconds):
        if r.verdict == horn.PROVED:
            out.append(Decision(k, subject, r.verdict, RANKING, r.detail))
            continue
        loop = _loop(q.prover.inst, k, subject) if q.walk is not None else None  # (a lasso is shown by a walk)
        try:
            shown = witness.lasso(q.unrolling(), loop, seconds(witness.SECONDS)) if loop is not None else None
        except Unsupported as exc:
            shown = witness.Witness(witness.UNKNOWN, why=f"not encoded for bounded model checking: {exc}")
        if shown is not None and shown.verdict == witness.FOUND and q.walk is not None:
            out.append(q.walk(k, subject, horn.Answer(horn.REACHABLE, path=shown.path, setup=horn.SETUP,
                                                      found_by=horn.BMC_FOUND), lassoed=True))
            continue
        why = r.why if shown is None else f"{r.why}; {shown.why}"
        out.append(Decision(k, subject, r.verdict, RANKING, why))
    return found + out


def _loop(inst: Instance, kind: str, subject: str) -> witness.Loop | None:
    """What a lasso of cycle check `kind` about `subject` must meet (None: no lasso shows it)."""
    if kind == "livelock":
        return witness.livelock()
    if kind == "unbounded-procedure":
        return next((witness.procedure(d) for d in inst.model.procedures if d.name == subject), None)
    if kind == "starvation" and subject in inst.players:
        return witness.starvation(inst, inst.players.index(subject))
    return None


NOTHING = "the spec (nothing to check)"  # the engine of a check whose subject the spec does not declare


def _nothing_to_check(inst: Instance) -> list[Decision]:
    """The checks over whole plays that have nothing to look at in this instance: never-active
    without an `active` condition, dead-declaration without a `precedence` or "cannot" rule
    (the explorer's checks then find nothing either, on any graph)."""
    m = inst.model
    out = []
    if m.active is None:
        out.append(Decision("never-active", "", "proved", NOTHING, "no `active` condition is declared"))
    if not any(isinstance(d, sx.PrecedenceDecl) for d in m.decls) and not any(
            r.kind.startswith("cannot_") for r in m.outcomes):
        out.append(Decision("dead-declaration", "", "proved", NOTHING, "no `precedence` and no \"cannot\" rule"))
    return out


def _every_player_active(inst: Instance, explored: tuple[set[int], list[bool]], lassos: list, found: list[Finding],
                         budget: Budget) -> list[Decision]:
    """never-active, decided where the explored states show it cannot be: every player is
    active in one of them, and the game moves among them make a cycle, so the full graph has
    one too and the check of complete plays (for finite games only) does not apply.
    `explored`: `_active_and_cycles` of the explorer's partial graph (read once per instance);
    `lassos`: the graphs of the lassos walked (each a part of the full graph). Else nothing: a
    player never seen active, or a game that may be finite, is left undecided."""
    if not _asks_never_active(inst, found):
        return []
    more, cycles = _active_and_cycles(inst, lassos, budget)
    seen, cycles = explored[0] | more, explored[1] + cycles
    if not any(cycles) or seen != set(range(inst.nplayers)):
        return []
    if cycles[0]:
        return [Decision("never-active", "", "proved", "explicit",
                         "every player is active in an explored state, and the game moves among them make a cycle "
                         "(so no complete play of a finite game is to be searched)")]
    return [Decision("never-active", "", "proved", LASSO_WALKED,
                     "every player is active in an explored state, and the game moves make a cycle: a lasso of "
                     "the bounded model checker, walked by the explorer (so no complete play of a finite game "
                     "is to be searched)")]


def _asks_never_active(inst: Instance, found: list[Finding]) -> bool:
    """Whether never-active is the symbolic engine's to decide: an `active` condition, and
    the explorer found neither a player never active nor an evaluation error."""
    return inst.model.active is not None and not any(f.kind in ("never-active", "evaluation-error") for f in found)


def _active_and_cycles(inst: Instance, graphs: list, budget: Budget) -> tuple[set[int], list[bool]]:
    """The players active in a running state of some graph, and per graph whether its game
    moves make a cycle (a graph a limit stops reading counts neither)."""
    players = set(range(inst.nplayers))
    seen: set[int] = set()
    cycles = []
    for graph in graphs:
        x = Explored(graph, budget)
        try:
            cycle = x.has_cycle()
            here = {p for p in players if any(x.is_active(i, p) for i in x.running)}
            if x.reduced:  # a player active somewhere: every rotation of them too
                here = symmetry.player_orbits(graph, here)
        except (EvalError, LimitHit):  # (the explorer's checks say an evaluation error where they meet it)
            cycle, here = False, set()
        cycles.append(cycle)
        seen |= here
    return seen, cycles


# the work of never-active's one lasso per instance: more than a cycle check's (witness.SECONDS),
# as it is asked only where the explorer saw every player active, and a team game's turn round
# is six steps, each over every option of four players
CYCLE_SECONDS = 30.0


def _a_cycle(q: Questions, reached: dict, decisions: list[Decision]) -> list[Decision]:
    """Where never-active waits only for a cycle (every player was seen active, but no game
    moves in the explorer's states come back to one: `reached["cycle wanted"]`), a lasso of
    any game moves (witness.any_cycle), walked by the explorer; `beyond` reads its graph. A
    lasso walked for another check is a cycle already. Returns never-active's decision where
    none can be made (no lasso found, or one the explorer did not confirm), else none."""
    if not reached.get("cycle wanted") or q.walk is None or any(
            d.engine == LASSO_WALKED and d.verdict == "found" for d in decisions):
        return []
    try:
        shown = witness.lasso(q.unrolling(), witness.any_cycle(), q.work(CYCLE_SECONDS))
    except Unsupported as exc:
        shown = witness.Witness(witness.UNKNOWN, why=f"not encoded for bounded model checking: {exc}")
    if shown.verdict != witness.FOUND:
        return [Decision("never-active", "", horn.UNKNOWN, LASSO_WALKED,
                         f"every player is active in an explored state, but no cycle of game moves is among them, "
                         f"and the bounded model checker showed none: {shown.why}")]
    walked = q.walk("never-active", "", horn.Answer(horn.REACHABLE, path=shown.path, setup=horn.SETUP,
                                                    found_by=horn.BMC_FOUND), lassoed=True)
    return [walked] if walked.verdict == horn.UNKNOWN else []


def _proved(decisions: list[Decision], kind: str) -> bool:
    return any(d.check == kind and d.verdict == "proved" for d in decisions)


def _not_encoded(prover: horn.Prover, bad) -> str:
    """Why the bad condition cannot be asked of this instance ("" when it can)."""
    try:
        if bad(*prover.frame()) is None:
            return "not encoded for the symbolic engine"
    except Unsupported as exc:
        return f"not encoded for the symbolic engine: {exc}"
    return ""


def _wins(x: int, team: bool):
    def bad(u, f):
        return z3.And(f.ended, (f.wt if team else f.wp)[x])
    return bad


def undecided_line(inst: Instance, graph, staged: bool = False, decisions: list[Decision] = ()) -> str:
    """The incomplete line of an instance the symbolic engine took over: what stays unchecked,
    the kinds no decision is about (one the symbolic engine could not decide has a line of its
    own, with why); `staged` when auto stopped the explorer at AUTO_STAGE (explorer_states),
    which the line says why."""
    left = not_decided(inst, decisions)
    open_ = [d.check for d in decisions if d.verdict == horn.UNKNOWN and not d.subject]
    took = ("the symbolic engine took over the safety checks (some not decided, below)" if open_
            else "the symbolic engine decided the safety checks")
    return (f"{inst.label}: exploration stopped ({stop_why(inst, graph, staged)}) after {len(graph.states):,} states; "
            f"{took}" + (f"; not checked: {', '.join(left)}" if left else ""))


def stop_why(inst: Instance, graph, staged: bool) -> str:
    """Why the explorer stopped before the symbolic engine took over."""
    if not staged:
        return graph.stop_reason
    steps = step_bound(inst)
    first = f"{len(graph.edges):,} steps" if graph.stop_reason.startswith(STEP_LIMIT) else f"{AUTO_STAGE:,} states"
    return (f"the first {first} under --engine auto: the declared ranges allow about "
            f"10^{len(str(state_bound(inst))) - 1}"
            + (f" states, with up to {steps:,} steps from each" if steps > STEPS_PER_STATE else ""))


def not_decided(inst: Instance, decisions: list[Decision]) -> list[str]:
    """The kinds of `undecided(inst)` no decision is about. None left, and no decision unknown:
    the instance is decided in full (every check the explorer would make on the complete
    graph was proved, found, or has nothing to check)."""
    decided = {d.check for d in decisions}
    return [k for k in undecided(inst) if k not in decided]


def undecided(inst: Instance) -> tuple[str, ...]:
    """The checks the symbolic engine leaves to a complete exploration unless it decides them:
    over plays and cycles, and whether a rule ever applies or a `reachable` property is ever
    reached. `beyond` asks each rule and property binding (unbounded_rules), so those two are
    left out of the line once it has decisions about them, each not decided with a line of
    its own; they stay in it where a limit cut the symbolic engine short."""
    return (UNDECIDED + (("unreachable-property",) if inst.model.reachables else ())
            + (("vacuous-property",) if phase_mentions(inst.model) else ()))


# ---------------------------------------------------------------- choosing and running the engine

ENGINES = ("auto", "explicit", "symbolic")
SYMBOLIC_PREFIX = 2_000  # states the explorer looks at first under --engine symbolic (quick findings)
AUTO_STAGE = 50_000  # under auto, where the ranges allow more states than the limit: see explorer_states
# under auto or symbolic, the explorer's checks on its unfinished graph get this share of the time
# left; the directed search and Spacer keep the rest (a cycle check on a big partial graph can
# take all of it, and what it would find there the symbolic engine does not decide)
PARTIAL_CHECKS_SHARE = 0.4


def engine_mode() -> str:
    """auto, explicit or symbolic, from RULEWRIGHT_ENGINE (`--engine` sets it, as `--symmetry`
    sets its own: the worker processes read the same environment)."""
    value = os.environ.get("RULEWRIGHT_ENGINE", "auto")
    return value if value in ENGINES else "auto"


def explorer_states(inst: Instance, max_states: int) -> int:
    """How many states the explorer may look at before the symbolic engine takes over.

    - explicit: all of `max_states`;
    - symbolic: SYMBOLIC_PREFIX (quick findings; the directed search has the whole limit);
    - auto: all of them when the declared ranges leave room for no more (`state_bound`: the
      explorer then finishes), else AUTO_STAGE first. A model the explorer finishes within the
      stage is checked in full as before; one that goes on past it has more states than the
      limit can usually hold (life 20 among 4 players is 778k), and the symbolic engine decides
      its safety checks sooner than a search that would stop at the limit anyway. The choice
      depends on the instance and the limit only, never on time: reports stay the same."""
    mode = engine_mode()
    if mode == "symbolic":
        return min(max_states, SYMBOLIC_PREFIX)
    if mode == "explicit" or state_bound(inst) <= max_states and step_bound(inst) <= STEPS_PER_STATE:
        return max_states
    return min(max_states, AUTO_STAGE)


def explorer_steps(inst: Instance) -> int:
    """Under auto, after how many steps the explorer expands no more states in its first stage
    (0: no such limit): STAGE_STEPS where a state may have more than STEPS_PER_STATE steps. The
    stage's state limit alone would not do: after the first expansions most of such steps lead
    to states already seen, so AUTO_STAGE states would be billions of steps. (A count of steps,
    not of expansions: `step_bound` over-estimates, and a domain that turns out empty leaves a
    model the explorer finishes at once.)"""
    return STAGE_STEPS if engine_mode() == "auto" and step_bound(inst) > STEPS_PER_STATE else 0


STAGE_STEPS = 1_000_000


def directed_expansions(inst: Instance, max_states: int) -> int:
    """The directed search's expansions: the state limit, fewer where each state has more than
    STEPS_PER_STATE steps (about a hundredth of as many steps in all; at least DIRECTED_FEWEST). Spacer's
    paths, walked, reach the goals such a search would spend its time on."""
    steps = step_bound(inst)
    return max_states if steps <= STEPS_PER_STATE else max(DIRECTED_FEWEST, max_states * STEPS_PER_STATE // steps // 100)


# (100 took 9.6 million steps where each state has 96,002, a damage of any amount among four
# players: more than the search's share of the time, which left the instance incomplete)
DIRECTED_FEWEST = 10


# Under auto, more steps than this from a state (an amount taken from a range of thousands:
# "set a player's life to x") sends the explorer to the stage too, however few the states:
# 10^5 states of 10^4 steps each are 10^9 steps, which no exploration finishes in its time.
STEPS_PER_STATE = 1_000


def step_bound(inst: Instance) -> int:
    """At most about this many steps from one state: per action, the product of its
    parameters' domains (a range whose bounds are numbers counts its values; any other
    domain the players or teams, whichever are more)."""
    other = max(inst.nplayers, inst.nteams, 1)
    total = 0
    for d in inst.model.actions:
        n = 1
        for _, dom in d.params:
            width = _width(inst, dom)
            n *= other if width is None else max(1, width)
        total += n
    return total


def _width(inst: Instance, dom) -> int | None:
    """The number of values of a range whose bounds are constants, else None."""
    if not isinstance(dom, T.RangeDom):
        return None
    sizes = {"nplayers": inst.nplayers, "nteams": inst.nteams,
             "team_size": inst.nplayers // inst.nteams if inst.nteams else 1}
    try:
        low, high = (consts.evaluate(e, inst.params, sizes) for e in (dom.low, dom.high))
    except consts.ConstError:
        return None
    numbers = all(isinstance(v, int) and not isinstance(v, bool) for v in (low, high))
    return high - low + 1 if numbers else None


def state_bound(inst: Instance) -> int:
    """At most this many states: every value of every variable, every set of players and teams
    out, and an end marker per side or a draw (an over-estimate: few values are reachable)."""
    bound = 1
    for v in inst.vars:
        t = v.type
        n = {"bool": 2, "int": t.high - t.low + 1, "player": inst.nplayers + t.optional,
             "team": inst.nteams + t.optional, "enum": len(t.members), "set": 2 ** inst.nplayers}[t.kind]
        bound *= max(1, n) ** v.count
    return bound * 2 ** (inst.nplayers + inst.nteams) * (inst.nplayers + inst.nteams + 2)


def takes_over(graph) -> bool:
    """Whether the symbolic engine decides what the explorer left: it stopped at its state
    limit (a time or memory limit leaves nothing to decide with)."""
    return engine_mode() != "explicit" and not graph.complete and (
        "state limit" in graph.stop_reason or graph.stop_reason.startswith(STEP_LIMIT))


def reached(graph) -> dict:
    """What a (partial) graph shows reachable: winners in its end markers, the rules it applied."""
    wp, wt = winners(graph)
    return {"wins": wp, "team_wins": wt, "rules": set(graph.hit_rules)}


DIRECTED_SHARE = 0.4  # of the instance's time left: the directed search's; Spacer has the rest
# the directed search holds up to this many times the state limit: it expands few states (at
# most the limit) but keeps every successor it saw, and a state has dozens
DIRECTED_ROOM = 5


def beyond(inst: Instance, machine, graph, found: list[Finding], limits, budget: Budget
           ) -> tuple[list[tuple[Finding, object]], list[Decision], list[str]]:
    """The symbolic engine's part, once the explorer stopped at its state limit with `graph`
    and its checks made `found`: a directed search for what the graph did not reach (wins,
    broken invariants, then rules applying and properties reached), the explorer's checks on
    what it found, then Spacer for the rest.
    Returns (more findings, each with the graph its trace is in; the decisions; what stays
    undecided)."""
    seen = reached(graph)
    seen["properties"] = unbounded_rules.reached_properties(graph, budget)
    seen["phases"] = _phases_entered(graph, budget)
    # the keys the explorer noted while it resolved steps: the machine's own set, which the
    # directed search and the walks of Spacer's paths add to (each step from a reachable state)
    seen["decided"] = machine.decided
    goals = _goals(inst, machine, found, seen)
    # then what shows a rule applying or a property reached (after the wins and invariants: the
    # expansions are shared in that order, and a goal met early leaves more to those after it)
    keyed = unbounded_rules.goals(machine, graph, seen)
    goals += [g for g, _ in keyed]
    more: list[tuple[Finding, object]] = []
    cut = ""  # why the directed search stopped short of its own bound: the instance is incomplete
    expansions = directed_expansions(inst, limits.max_states)
    if goals:
        share = budget.part(max(0.0, budget.cpu_left()) * DIRECTED_SHARE, "the directed search's share ran out")
        try:
            # from the explorer's graph where it is a small one of this machine, else afresh: the
            # search has the state limit to itself
            start = graph if type(graph) is Graph and graph.machine is machine and len(graph.states) <= SYMBOLIC_PREFIX else None
            room = replace(limits, max_states=limits.max_states * DIRECTED_ROOM)
            g2, met = directed.explore_directed(machine, goals, room, share, start=start,
                                                max_expansions=expansions)
        except LimitHit as exc:
            g2, cut = None, str(exc)  # the search keeps what it found unless stopped outside it: nothing then
        if g2 is not None:
            cut = g2.limit_hit
            known = {f.signature() for f in found}
            extra, _ = run_checks_within(g2, budget)
            for f in extra:
                if f.kind in DIRECTED_KINDS and f.signature() not in known:
                    f.detail = (f.detail + "\n" if f.detail else "") + DIRECTED_NOTE
                    f.engine = DIRECTED
                    more.append((f, g2))
            r2 = reached(g2)
            seen = {"wins": seen["wins"] | r2["wins"], "team_wins": seen["team_wins"] | r2["team_wins"],
                    "rules": seen["rules"] | r2["rules"], "properties": seen["properties"], "decided": seen["decided"],
                    "phases": seen["phases"] | _phases_entered(g2, budget)}
            unbounded_rules.credit(seen, [k for _, k in keyed], met[len(goals) - len(keyed):])
    known = {f.signature() for f in found + [f for f, _ in more]}
    # (where never-active is not asked, the graph is not read: as one that shows nobody active and no cycle)
    explored = _active_and_cycles(inst, [graph], budget) if _asks_never_active(inst, found) else (set(), [False])
    # never-active then waits for nothing but a cycle (`_a_cycle`)
    seen["cycle wanted"] = explored[0] == set(range(inst.nplayers)) and not explored[1][0]

    lassos = []  # the graphs of the lassos walked (never-active reads their cycles)

    def walk(kind: str, subject: str, a: horn.Answer, key: tuple | None = None, lassoed: bool = False) -> Decision:
        """The explorer walks the path the symbolic engine found; its checks report what is at its end. With
        `key` (a rule or a property binding: unbounded_rules), its end must show that. A lasso
        (`lassoed`: checker.symbolic.witness) comes back to an earlier state: the explorer's
        cycle checks must report the cycle of `kind` on the walked graph, else the engines
        disagree."""
        g, last, fitted = directed.follow(machine, list(a.path), replace(limits, max_states=limits.max_states * DIRECTED_ROOM),
                                          budget)
        engine, path = ((LASSO_WALKED, "the symbolic engine's lasso") if lassoed else
                        (BMC_WALKED, "the bounded model checker's path") if a.found_by else (WALKED, "Spacer's path"))
        if last is None:
            if "; stopped: " in g.stop_reason:  # a limit, not the explorer
                return Decision(kind, subject, horn.UNKNOWN, engine, f"{path} was not walked to its end ({g.stop_reason})")
            more.append((_disagreement(inst, kind, subject, a, fitted), None))
            return Decision(kind, subject, horn.UNKNOWN, engine, f"the engines disagree on {path} at step {fitted}")
        extra, _ = run_checks_within(g, budget)
        shown = False
        for f in extra:
            if (f.kind in DIRECTED_KINDS or lassoed and f.kind == kind) and f.signature() not in known:
                known.add(f.signature())
                f.detail = (f.detail + "\n" if f.detail else "") + (
                    LASSO_NOTE if lassoed else BMC_NOTE if a.found_by else WALKED_NOTE)
                f.engine = engine
                more.append((f, g))
                shown = shown or f.kind == kind
        if lassoed:
            lassos.append(g)
            if kind == "never-active":  # the lasso of any game moves (`_a_cycle`): a cycle is all it shows
                shown = Explored(g, budget).has_cycle()
            if not shown:
                more.append((_disagreement(inst, kind, subject, a, fitted, "its cycle checks find no such cycle "
                                                                            "on the lasso it walked"), None))
                return Decision(kind, subject, horn.UNKNOWN, engine, "the engines disagree on the symbolic engine's lasso")
        why = unbounded_rules.not_shown(machine, g, last, key) if key is not None else ""
        return Decision(kind, subject, horn.UNKNOWN, SPACER, why) if why else Decision(kind, subject, "found", engine)

    # (a limit hit keeps the directed search's findings and what Spacer decided by then)
    proved, decisions = decide(inst, found + [f for f, _ in more], seen, budget, walk)
    decisions += _every_player_active(inst, explored, lassos, found, budget)
    more += [(f, None) for f in proved]
    consequences.mark_dead_win_rules(found + [f for f, _ in more])  # as the explorer's checks mark them
    # Spacer may decide what the search did not reach, but which engine shows it would then
    # depend on the machine's speed: a report is the same on a busy machine or it is incomplete
    lines = [f"{inst.label}: the directed search stopped ({cut}) before its {expansions:,} expansions"] if cut else []
    for d in decisions:
        if d.verdict == horn.UNKNOWN:
            lines.append(f"{inst.label}: {d.check}{' (' + d.subject + ')' if d.subject else ''} not decided: {d.detail}")
    return more, decisions, lines


def _phases_entered(graph, budget: Budget) -> set[tuple[str, int]]:
    """The phases some state of a partial graph is in (phase_checks), where an invariant speaks
    of one (else no pass over the states is owed); none where the budget runs out (Spacer is
    then asked)."""
    if not phase_mentions(graph.machine.inst.model):
        return set()
    try:
        return phases_entered(Explored(graph, budget))
    except LimitHit:
        return set()


WALKED = "symbolic (Spacer), walked by the explorer"
WALKED_NOTE = "found by the symbolic engine (Spacer) and walked step by step by the explorer: a way there, not the shortest"
BMC_WALKED = "symbolic (bounded model checking), walked by the explorer"
BMC_NOTE = ("found by the symbolic engine (bounded model checking, where Spacer did not decide: the fewest steps "
            "in all) and walked step by step by the explorer")
LASSO_WALKED = "symbolic (bounded model checking, a lasso), walked by the explorer"
LASSO_NOTE = ("found by the symbolic engine (a lasso of bounded model checking, the fewest steps in all) and walked "
              "step by step by the explorer")


def _disagreement(inst: Instance, kind: str, subject: str, a: horn.Answer, fitted: int, why: str = "") -> Finding:
    """The symbolic engine's path to a bad frame that the explorer has no step for (or, `why`,
    a lasso whose cycle the explorer's checks do not find): a bug in rulewright, reported as a
    finding whose replay failed (the run says ENGINES DISAGREE and exits 4)."""
    what = f"{kind}{' (' + subject + ')' if subject else ''}"
    because = (f"{why}; the lasso, frame by frame: {_frames_text(inst, a.path)}" if why else
               f"the explorer has no step to state {fitted} of Spacer's {len(a.path)}: "
               f"{_frames_text(inst, a.path[min(fitted, len(a.path) - 1):][:1])}")
    return Finding(kind, f"Spacer found a path to {what} that the explorer cannot follow" if not why else
                   f"the symbolic engine found a lasso of {what} that the explorer's checks do not confirm", (), (inst.spec.span,),
                   inst.label, inst.model_name, key=f"walk:{what}", subject=(subject,) if subject else (),
                   engine=SPACER, replay=Replay("failed", because))


def _frames_text(inst: Instance, frames) -> str:
    """Frames laid out as the explorer's states (horn.explorer_layout), in the spec's names: the
    first in full, each later one by what changed (a bug report's evidence, never a finding's)."""
    names = [f"{v.name}[{key}]" if key else v.name
             for v in inst.vars for key in (v.index_keys(inst) if v.indexed else [""])]
    names += ["players out (mask)", "teams out (mask)"]
    shown, before = [], None
    for i, frame in enumerate(frames):
        pairs = [f"{n}={x}" for n, x, old in zip(names, frame, before or [None] * len(frame)) if before is None or x != old]
        shown.append(f"{i}: {', '.join(pairs) or 'as before'}")
        before = frame
    return "; ".join(shown)


# what a directed search's graph may show (the kinds about single states: a path there is one)
DIRECTED_KINDS = ("outcome-conflict", "outcome-gap", "deadlock", "overflow", "evaluation-error", "invariant",
                  "player-without-outcome", "implied-loss")
DIRECTED_NOTE = "found by a directed search (the explorer stopped at its state limit): a way there, not the shortest"


def _goals(inst: Instance, machine, found: list[Finding], seen: dict) -> list:
    """The directed search's goals: the wins the graph did not reach, the invariants it did not break."""
    goals = []
    for r in inst.model.outcomes:
        if r.kind != "win":
            continue
        team = r.subject == "team"
        mask = seen["team_wins" if team else "wins"]
        for x in range(inst.nteams if team else inst.nplayers):
            if not mask >> x & 1:
                goals.append(directed.team_wins(machine, x) if team else directed.player_wins(machine, x))
    for d in inst.model.invariants:
        if not any(f.kind in ("invariant", "evaluation-error") and d.name in f.subject for f in found):
            goals.append(directed.invariant_fails(machine, d.name))
    return list({g.description: g for g in goals}.values())  # once per side, whatever the number of win rules
