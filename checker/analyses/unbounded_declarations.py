"""Dead declarations of an instance the explorer could not finish.

Whether a `precedence` or a "cannot" rule ever decides anything is a claim about every
reachable step: the explorer makes it only on a complete graph, from the keys its outcome
resolution notes (checker.analyses.declaration_checks, `Machine.decided`). Once it stops at its
state limit (checker.analyses.unbounded), each declaration is a question of its own, answered:

- found: the explorer noted one of its keys while it resolved a step: of its partial graph,
  of the directed search's, or of a path Spacer found and the explorer walked (the machine's
  notes are those of every step it resolved, each from a reachable state);
- proved: no setup the explorer settles and no step from a reachable frame notes a key
  (checker.symbolic.bmc `notes`: what the explorer notes, or more, so a proof is one that the
  declaration never decides). It is the explorer's dead-declaration finding, with Spacer's
  invariant as its evidence;
- left to dead-rule, as the explorer leaves it: a rule the declaration names never applies
  (a dead-rule proof; one whose applying is not decided leaves the declaration unknown);
- unknown, with why: neither. Nothing is called dead without a proof.
"""
from __future__ import annotations

from ..symbolic import horn
from ..symbolic.terms import or_all
from .decision import Decision, Questions, SPACER, proof_detail
from .declaration_checks import Declaration, dead_declaration, declarations
from .findings import Finding
from .graph_checks import rule_label

FOUND = "explicit"  # the engine of what the explorer noted
DEAD_RULE = "dead-rule (a rule it names never applies)"  # a declaration dead-rule speaks for


def decide(inst, q: Questions, noted: set, rules: dict[int, str]) -> tuple[list[Finding], list[Decision]]:
    """Each declaration's question. `noted`: the keys the explorer noted so far (the machine's
    `decided`, read as each question is asked: a walk may add to it); `rules`: each rule id's
    dead-rule verdict (found, proved or unknown). Returns (findings, decisions)."""
    out: list[Finding] = []
    decisions: list[Decision] = []
    for d in declarations(inst.model):
        decision, answer = _decide(inst, q, d, noted, rules)
        decisions.append(decision)
        if answer is not None and decision.verdict == horn.PROVED:
            out.append(dead_declaration(d, inst.label, inst.model_name, proof_detail(answer), SPACER))
    return out, decisions


def _decide(inst, q: Questions, d: Declaration, noted: set, rules: dict[int, str]):
    """(the decision on declaration `d`, Spacer's answer where it asked)."""
    kind = "dead-declaration"
    if any(k in noted for k in d.keys):
        return Decision(kind, d.subject, "found", FOUND), None
    dead = [r for r in d.rules if rules.get(r) == horn.PROVED]
    if dead:
        return Decision(kind, d.subject, horn.PROVED, DEAD_RULE,
                        f"left to dead-rule: {rule_label(inst.model.rules[dead[0]])} never applies"), None
    unsure = [r for r in d.rules if rules.get(r) != "found"]
    if unsure:
        return Decision(kind, d.subject, horn.UNKNOWN, SPACER,
                        f"whether {rule_label(inst.model.rules[unsure[0]])} applies is not decided "
                        "(where it never does, dead-rule reports it instead)"), None
    a = q.at_setup(lambda u: or_all([u.setup_notes(k) for k in d.keys]), candidates=True)
    if a.verdict == horn.REACHABLE:  # the explorer settled every setup, and noted none of the keys
        return Decision(kind, d.subject, horn.UNKNOWN, SPACER,
                        "the symbolic engine counts a setup as deciding it (it may count more than the explorer "
                        "notes)"), None
    if a.verdict == horn.PROVED:
        a = q.ask(lambda u, f: or_all([u.notes(f, k) for k in d.keys]))
    return q.judge(kind, d.subject, a, ("declaration",) + d.keys), a
