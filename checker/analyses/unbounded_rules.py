"""Dead rules and `reachable` properties of an instance the explorer could not finish.

Whether a rule ever applies, and whether a `reachable` property is ever reached, are claims
about every reachable state: the explorer makes them only on a complete graph
(checker.analyses.graph_checks, `check_dead_rules` and `check_reachable_properties`). Once it
stops at its state limit (checker.analyses.unbounded), each rule and each binding of a
property's parameters is a question of its own, answered:

- found: the explorer's partial graph applied the rule or reached the property, or the
  directed search did. Its goals (checker.explicit.directed): a property that holds, an action
  whose guard holds in a game that goes on (which is the action applying), an outcome rule's
  condition that holds (which only guides the search: the rule counts once a step applies it);
- proved: Spacer proves that no reachable frame satisfies the property (nor leaves it without
  a value); or that no setup applies the rule and no step from a reachable frame does
  (`BMC.applies`: what the explorer records, or more where a step fails half way, so a proof
  is one that the rule never applies). A proof is the explorer's finding (unreachable-property,
  dead-rule: the same message, key and subject) with Spacer's invariant as its evidence;
- unknown, with why: neither. Nothing is called dead or never reached without a proof.
"""
from __future__ import annotations

from dataclasses import replace

import z3

from ..explicit import directed
from ..explicit.compile import EvalError
from ..limits import Budget, LimitHit
from ..symbolic import horn
from ..symbolic.outcomes import CITED_KINDS
from ..symbolic.terms import Unsupported, to_term
from .decision import Decision, Questions, SPACER, proof_detail
from .explored import Explored
from .findings import Finding
from .graph_checks import binding_text, dead_rule, property_bindings, rule_label, unreachable_property

FOUND = "explicit"  # the engine of what a graph shows: the explorer's, or the directed search's
ENCODED = ("action",) + CITED_KINDS  # the kinds of rules whose applying a step's encoding says (BMC.applies)


def reached_properties(graph, budget: Budget | None = None) -> set[tuple[str, tuple]]:
    """The (property name, binding) pairs some state of the (partial) graph satisfies; none
    where the budget runs out or a property has no value in some state (the explorer's check
    reports that as an evaluation error): Spacer is then asked, and proves nothing of a
    property that has no value somewhere."""
    try:
        return {(d.name, binding) for d, _, reached in property_bindings(Explored(graph, budget))
                for binding, ok in reached if ok}
    except (EvalError, LimitHit):
        return set()


def goals(machine, graph, seen: dict) -> list[tuple[directed.Goal, tuple]]:
    """The directed search's goals for what `seen` (checker.analyses.unbounded `reached`) lacks,
    each with what meeting it shows: ("property", name, binding) and ("rule", rule id) are
    reached when the goal is met; ("guide", rule id) only leads towards an outcome rule."""
    out = []
    if graph.states:  # a property's bindings are taken in the first state, as the explorer takes them
        first = machine.reader(graph.states[0])
        for d, binders, _ in machine.reachables:
            for binding in list(machine.bindings(binders, first, [])):  # (a domain without a value: none)
                if (d.name, binding) not in seen["properties"]:
                    out.append((directed.reachable_goal(machine, d.name, binding), ("property", d.name, binding)))
    for rid, rule in enumerate(machine.rules):
        if rid in seen["rules"]:
            continue
        if rule.kind == "action":
            out.append((directed.rule_fires(machine, rule.name), ("rule", rid)))
        elif rule.kind == "outcome" and any(r.rid == rid and not r.kind.startswith("cannot_") for r in machine.outcomes):
            out.append((directed.rule_fires(machine, rule.name), ("guide", rid)))
    return out


def not_shown(machine, graph, sid: int, key: tuple) -> str:
    """"" when state `sid` of a graph the explorer walked to it (and expanded) shows what `key`
    asks: ("rule", rule id) a step of the graph applied the rule; ("property", name, binding)
    the property holds there; ("declaration", KEY...) the explorer noted one of the keys
    (`Machine.decided`, checker.analyses.unbounded_declarations) while it walked there and
    expanded it. Else why Spacer's path may end there all the same."""
    if key[0] == "declaration":
        if any(k in machine.decided for k in key[1:]):
            return ""
        return ("Spacer's path, walked by the explorer, ends where no step decides by it (the encoding may count "
                "more steps as deciding than the explorer notes)")
    if key[0] == "rule":
        if key[1] in graph.hit_rules:
            return ""
        return ("Spacer's path, walked by the explorer, ends where no step applies it (the encoding counts "
                "as applied what a step that fails half way would have applied after the failure)")
    if directed.reachable_goal(machine, key[1], key[2]).holds(graph.states[sid]):
        return ""
    return "Spacer's path, walked by the explorer, ends where it does not hold (it has no value there)"


def credit(seen: dict, keys: list[tuple], found: list) -> None:
    """Add to `seen` what the directed search showed by meeting its goals (`found`: for each
    goal of `keys`, the state meeting it or None)."""
    for key, sid in zip(keys, found):
        if sid is None:
            continue
        if key[0] == "property":
            seen["properties"].add(key[1:])
        elif key[0] == "rule":
            seen["rules"].add(key[1])


def decide(inst, q: Questions, reached: dict) -> tuple[list[Finding], list[Decision]]:
    """The properties' and rules' questions that `reached` does not answer ({"rules": the rule
    ids applied, "properties": the (name, binding) pairs reached}; what a key lacks is asked).
    Returns (findings, decisions)."""
    f1, d1 = _properties(inst, q, reached.get("properties", set()))
    f2, d2 = _rules(inst, q, reached.get("rules", set()))
    return f1 + f2, d1 + d2


def _properties(inst, q: Questions, reached) -> tuple[list[Finding], list[Decision]]:
    out: list[Finding] = []
    decisions: list[Decision] = []
    for d in inst.model.reachables:
        binders = [b for b, _ in d.params]
        try:
            bindings = _bindings(q.prover, d.params)
        except Unsupported as exc:
            decisions.append(Decision("unreachable-property", d.name, horn.UNKNOWN, SPACER,
                                      f"not encoded for the symbolic engine: {exc}"))
            continue
        never = []
        for binding in bindings:
            text = binding_text(inst, binders, binding)
            subject = d.name + (f" for {text}" if text else "")
            if (d.name, binding) in reached:
                decisions.append(Decision("unreachable-property", subject, "found", FOUND))
                continue
            a = q.ask(horn.holds(d.cond, {b.uid: v for b, v in zip(binders, binding)}))
            decisions.append(q.judge("unreachable-property", subject, a, ("property", d.name, binding)))
            if a.verdict == horn.PROVED:
                never.append((text, a))
        if never:  # as the explorer says it: per property, the bindings never reached
            f = unreachable_property(inst, d, bool(binders), [t for t, _ in never], proof_detail(never[0][1]))
            out.append(replace(f, engine=SPACER))
    return out, decisions


def _bindings(prover: horn.Prover, params) -> list[tuple]:
    """Every binding of a property's parameters, in the explorer's order; Unsupported where a
    domain depends on the state or may have no value (the explorer takes it in its first state)."""
    u, f = prover.frame()
    enc = u.enc
    partial: list[tuple[tuple, dict]] = [((), {})]
    for b, dom in params:
        longer = []
        for values, env in partial:
            cands, err = enc.checked(lambda: enc.candidates(dom, f.st, env))
            if not z3.is_false(z3.simplify(to_term(err))):
                raise Unsupported(f"the domain of `{b.name}` may have no value")
            for v, c in cands:
                c = z3.simplify(to_term(c))
                if not (z3.is_true(c) or z3.is_false(c)):
                    raise Unsupported(f"the domain of `{b.name}` depends on the state")
                if z3.is_true(c):
                    longer.append((values + (v,), {**env, b.uid: v}))
        partial = longer
    return [values for values, _ in partial]


def _rules(inst, q: Questions, hit) -> tuple[list[Finding], list[Decision]]:
    out: list[Finding] = []
    decisions: list[Decision] = []
    for rid, rule in enumerate(inst.model.rules):
        label = rule_label(rule)
        if rid in hit:
            decisions.append(Decision("dead-rule", label, "found", FOUND))
            continue
        if rule.kind not in ENCODED:
            decisions.append(Decision("dead-rule", label, horn.UNKNOWN, SPACER,
                                      f"not encoded for the symbolic engine: {rule.kind}"))
            continue
        a = q.at_setup(lambda u: u.setup_hits.get(rid, False))
        if a.verdict == horn.REACHABLE:  # an initial state's settling applies it: a live rule
            decisions.append(Decision("dead-rule", label, "found", "symbolic (Z3)", "a setup applies it"))
            continue
        if a.verdict == horn.PROVED:
            a = q.ask(horn.applies(rid))
        decisions.append(q.judge("dead-rule", label, a, ("rule", rid)))
        if a.verdict == horn.PROVED:
            message, key, subject = dead_rule(rule)
            out.append(Finding("dead-rule", message, tuple(dict.fromkeys(rule.tags)), (rule.span,), inst.label,
                               inst.model_name, detail=proof_detail(a), key=key, subject=(subject,), engine=SPACER))
    return out, decisions
