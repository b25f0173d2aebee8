"""The questions the engine asks Z3 about an instance beside exploring it: is the setup
contradictory (an unsat core of rules), which `possible` properties can never hold, and does
the explorer agree (`cross_check_possibles`). Each question has its own part of the instance's
budget; an "unknown" answer makes the instance incomplete, never clean. The findings of a
contradictory setup absorb those that only follow from having no initial state
(`fold_into_contradiction`)."""
from __future__ import annotations

from ..explicit.compiled import machine_for
from ..explicit.explore import Graph
from ..explicit.machine import Machine, reads_static
from ..frontend.instances import Instance
from ..frontend.typed import VarInfo
from ..limits import Budget, LimitHit, watchdog
from ..symbolic import setup as z3setup
from ..symbolic.terms import Unsupported
from .findings import Finding
from .replay import binding_values
from .verdicts import Replay

# `res` below is the instance's record (checker.engine.Outcome): its `incomplete` list says
# which questions went unanswered.


CONTRADICTION_SHARE, CONTRADICTION_SECONDS = 0.25, 10.0  # at most, for the Z3 contradiction check


# What an instance without any initial state shows of every rule and property: nothing is
# reachable, so each is "dead" or "never reached". One finding (the contradiction) says it all.
FOLLOW_ON = ("dead-rule", "dead-declaration", "unreachable-outcome", "unreachable-property", "vacuous-property",
             "never-active")


def fold_into_contradiction(out: list[Finding], found: list[Finding], graph: Graph) -> list[Finding]:
    """The checks' findings, less those that only follow from a contradictory setup (no initial
    state at all), which the contradiction finding counts instead."""
    contra = [f for f in out if f.kind == "contradiction"]
    if not contra or graph.init_ids or not graph.complete:
        return found
    folded = [f for f in found if f.kind in FOLLOW_ON]
    if folded:
        counts: dict[str, int] = {}
        for f in folded:
            counts[f.kind] = counts.get(f.kind, 0) + 1
        shown = ", ".join(f"{n} {k}" for k, n in counts.items())
        contra[0].detail = (f"{len(folded)} follow-on finding(s) folded into this one ({shown}): "
                            "with no initial state, no rule applies and no state is reached")
        contra[0].folded = tuple(counts.items())
    return [f for f in found if f.kind not in FOLLOW_ON]


def _ask_within(part: Budget, ask):
    """Z3's verdict `ask(milliseconds left)` within `part` (building the formulas included: a
    quantifier over 0..10^8 is built term by term); ("unknown", why) when the formulas cannot be
    encoded or the part runs out, so the caller makes the instance incomplete, never clean."""
    try:
        part.check()
        with watchdog(part):
            return ask(max(1, int(part.remaining() * 1000)))
    except Unsupported as exc:
        return ("unknown", f"not encodable: {exc}")
    except LimitHit as exc:
        return ("unknown", str(exc))


def _why_unknown(reason: str) -> str:
    """Z3's reason for "unknown", in words: its timeouts are wall-clock, so on a busy machine
    they can run out before the CPU time the limits granted ("canceled" is one of them). Not
    said "wall-clock": that word marks the run's own wall-clock bound, after which trying the
    instance again is pointless (checker.engine `short_of_time`); here it is not."""
    if reason in ("canceled", "timeout"):
        return f"its time ran out ({reason}; Z3 counts elapsed time, which a busy machine stretches)"
    return reason


def contradiction(inst: Instance, budget: Budget, res) -> list[Finding]:
    """The Z3 contradiction check within its part of the instance's time; "unknown" makes the
    instance incomplete."""
    seconds = min(CONTRADICTION_SECONDS, CONTRADICTION_SHARE * budget.seconds)
    part = budget.part(seconds, f"the contradiction check's {seconds:g}s ran out")
    verdict = _ask_within(part, lambda ms: z3setup.contradiction(inst, ms))
    if verdict and verdict[0] == "unknown":
        res.incomplete.append(f"{inst.label}: the contradiction check is incomplete (Z3: {_why_unknown(verdict[1])})")
        return []
    if not verdict:
        return []
    core = verdict[1]
    rules = [t for d, _ in core for t in d.tags]
    what = "; ".join(sorted({w for _, w in core}))
    subject = tuple(sorted({w.strip("`") for _, w in core}))  # the constraints (by name) that conflict
    f = Finding("contradiction", f"no setup satisfies all of: {what}", tuple(dict.fromkeys(rules)),
                tuple(d.span for d, _ in core), inst.label, inst.model_name, key=what, subject=subject)
    # a conflict among the choices Z3 alone decides: the explorer, which does not enumerate
    # them, has initial states all the same, and none of them is a setup's
    f.context["static_choices"] = any(_reads_static_choice(d) for d, _ in core)
    return [f]


def explorer_machine(inst: Instance, found: list[Finding]) -> Machine:
    """The instance's machine for the explorer, given the contradiction check's findings: where
    the choices Z3 alone decides have no value that satisfies their constraints, no setup
    exists, and the explorer (which does not enumerate them) must start from no state."""
    machine = machine_for(inst)
    machine.no_setup = any(f.kind == "contradiction" and f.context.get("static_choices") for f in found)
    return machine


def _reads_static_choice(d) -> bool:
    """Whether a declaration of a contradiction's core is about a choice Z3 alone decides (its
    type, or a constraint that reads one). Such choices are tied to nothing the explorer
    enumerates (checker.frontend.resolve), so a minimal core with one of them is about them alone."""
    if isinstance(d, VarInfo):
        return d.static
    cond = getattr(d, "cond", None)
    return cond is not None and reads_static(cond)


def possibles(inst: Instance, budget: Budget, res) -> list[Finding]:
    """Each `possible` property asked of Z3 within the contradiction check's part of the time:
    an unsatisfiable one is an `impossible-property` finding naming the setup rules that rule it
    out (a minimal core); "unknown" makes the instance incomplete, never clean."""
    out: list[Finding] = []
    for d in inst.model.possibles:
        seconds = min(CONTRADICTION_SECONDS, CONTRADICTION_SHARE * budget.seconds)
        part = budget.part(seconds, f"the check of `possible {d.name}` ran out of its {seconds:g}s")
        for env, shown in _possible_bindings(inst, d):
            verdict = _ask_within(part, lambda ms, env=env: z3setup.impossible(inst, d.cond, ms, env))
            if verdict and verdict[0] == "unknown":
                res.incomplete.append(f"{inst.label}: `possible {d.name}`{shown} was not decided "
                                      f"(Z3: {_why_unknown(verdict[1])})")
                continue
            if not verdict:
                continue
            core = verdict[1]
            names = sorted({w for _, w in core})
            why = ("it is ruled out by: " + "; ".join(names)) if names else "it holds in no setup at all"
            rules = list(d.tags) + [t for c, _ in core for t in c.tags]
            # what the finding is about (and for which binding); the rules that rule it out are in its rules
            subject = (d.name,) + ((shown.strip(" ()").removeprefix("for "),) if shown else ())
            out.append(Finding("impossible-property", f"no setup allows `{d.name}`{shown}: {why}",
                               tuple(dict.fromkeys(rules)), (d.span,) + tuple(c.span for c, _ in core), inst.label,
                               inst.model_name, key=f"{d.name}{shown}: {why}", subject=subject))
    return out


def _possible_bindings(inst: Instance, d):
    """(binder uid -> value, " (for t=A, p=A1)") for every binding of a `possible` property's
    parameters (their domains are fixed: the resolve pass allows no state in them); one empty
    binding for a property without parameters."""
    if not d.params:
        yield {}, ""
        return
    m = Machine(inst)
    binders = m._binders(d.params)
    for values in binding_values(m, binders):
        env = {b.uid: v for (b, _), v in zip(d.params, values)}
        yield env, " (for " + ", ".join(f"{b.name}={inst.show(b.type, v)}" for (b, _), v in zip(d.params, values)) + ")"


def cross_check_possibles(inst: Instance, graph: Graph, out: list[Finding]) -> None:
    """The explorer's view of each `possible` property, where it has one: with no choice left
    to Z3 and every initial state enumerated, the explored initial states are exactly the setups,
    so a `possible` holds in one of them exactly when Z3 found a setup for it. A finding Z3 made
    is confirmed (its `replay`) or the engines disagree; a `possible` Z3 satisfied but no initial
    state satisfies is a disagreement too (a finding whose replay failed, as for traces). With
    no setup at all (a contradiction), nothing is asked."""
    # (a reduced search keeps one initial state per orbit: not every setup)
    if (not inst.model.possibles or inst.static_choices or not graph.complete or graph.setup_errors
            or not graph.init_ids or any(f.kind == "contradiction" for f in out)
            or graph.__class__ is not Graph or inst.model.triggers):  # (triggers may change a setup's values)
        for f in out:
            if f.kind == "impossible-property" and not f.replay:
                f.replay = Replay("not-replayed", "the explorer does not enumerate every setup here")
        return
    from ..explicit.compile import EvalError
    ref = Machine(inst)
    inits = [graph.values(sid) for sid in graph.init_ids]
    for d in inst.model.possibles:
        cond = ref.comp.expr(d.cond)
        binders = ref._binders(d.params)
        for values, (_, shown) in zip(binding_values(ref, binders), _possible_bindings(inst, d)):
            ref.bind(binders, values)
            holds = False
            for slots in inits:
                try:
                    holds = bool(cond(ref.reader(slots)))
                except EvalError:
                    holds = False
                if holds:
                    break
            subject = (d.name,) + ((shown.strip(" ()").removeprefix("for "),) if shown else ())
            mine = [f for f in out if f.kind == "impossible-property" and f.subject == subject]
            if mine:
                mine[0].replay = (Replay("failed", "the explorer has an initial state that satisfies it") if holds
                                  else Replay("confirmed", "by the explorer's initial states"))
            elif not holds:
                out.append(Finding("impossible-property", f"no setup allows `{d.name}`{shown} (the explorer)",
                                   tuple(d.tags), (d.span,), inst.label, inst.model_name, key=d.name + shown,
                                   subject=subject,
                                   replay=Replay("failed", "Z3 finds a setup that satisfies it; no explored initial state does")))
