"""Consequences: findings that another finding of the same instance implies.

One cause used to give many findings with nothing relating them: a win no play reaches also
makes its outcome rule dead, every property that needs a win unreachable, and, where nothing
else ends the game, a forced loop; a setup that always fails makes every rule dead over no
state at all. Such a finding is kept, but marked as following from its cause (`follows`: the
cause's signature), shown under it and not counted as a failure of its own (docs/checks.md,
"Consequences"). Only implications that hold by the semantics are drawn:

- every setup fails (no state was explored) and a setup step is reported as failing: every
  other finding of the instance follows from that failure;
- an unreachable outcome rule R: the dead-rule finding of R itself follows from it; if no state
  has a winner at all, so does every unreachable `reachable` property that reads `won`, and
  (when no state has ended either) the forced loop.

Findings merged over several instances follow from a cause only if they do in every instance
(`checker.analyses.merging.group`); one whose cause is missing after merging stands alone
(`link`).
"""
from __future__ import annotations

from dataclasses import fields, is_dataclass

from ..explicit.compile import WON, result_mask
from ..frontend import typed as T
from ..frontend.ends import has_ended
from .findings import Finding

_WIN_READS = ("won_player", "won_team")  # the built-ins that read whether someone has won
_SETUP_FAILURES = ("evaluation-error", "overflow")


def mark(x, findings: list[Finding]) -> None:
    """Mark the findings of one instance that another of its findings implies."""
    g = x.graph
    if not g.states:
        failed = [f for f in findings if f.kind in _SETUP_FAILURES]  # with no state, a failing setup
        if failed:
            for f in findings:
                if f is not failed[0] and f.kind not in _SETUP_FAILURES:
                    f.follows = failed[0].signature()
        return
    unreachable = [f for f in findings if f.kind == "unreachable-outcome"]
    if not unreachable:
        return
    mark_dead_win_rules(findings)
    if _someone_wins(x):
        return
    cause = unreachable[0].signature()
    reads_win = {d.name for d in x.machine.inst.model.reachables if _reads_win(d.cond)}
    ended = any(has_ended(s[-1]) for s in g.states)
    for f in findings:
        if f.kind == "unreachable-property" and f.subject and f.subject[0] in reads_win:
            f.follows = cause
        elif f.kind == "forced-loop" and not ended:
            f.follows = cause


def mark_dead_win_rules(findings: list[Finding]) -> None:
    """The dead-rule finding of an outcome rule follows from the unreachable-outcome of the
    same rule, whichever engine found them (the symbolic engine's too: both by proofs)."""
    by_rule = {name: u for u in findings if u.kind == "unreachable-outcome" for name in u.subject}
    for f in findings:
        if f.kind == "dead-rule" and f.subject and f.subject[0] in by_rule:
            f.follows = by_rule[f.subject[0]].signature()


def link(findings: list[Finding]) -> None:
    """After merging: a finding whose cause is not among the findings of its model stands alone."""
    present = {(f.model,) + f.signature() for f in findings}
    for f in findings:
        if f.follows and (f.model,) + tuple(f.follows) not in present:
            f.follows = ()


def cause_of(f: Finding, findings: list[Finding]) -> Finding | None:
    if not f.follows:
        return None
    want = (f.model,) + tuple(f.follows)
    return next((c for c in findings if (c.model,) + c.signature() == want), None)


def _someone_wins(x) -> bool:
    """Whether a state of the graph has a winner: the game ended with one, or a player won and
    left while it went on."""
    n, k = x.inst.nplayers, x.inst.nslots
    won_on = "won" in (x.machine.results_used or ())
    for sid, s in enumerate(x.graph.states):
        end = s[-1]
        if has_ended(end) and (end.players or end.teams):
            return True
        if won_on and result_mask(x.graph.values(sid)[k], n, WON):
            return True
    return False


def _reads_win(e) -> bool:
    stack = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, T.Call) and n.func in _WIN_READS:
            return True
        if is_dataclass(n) and not isinstance(n, type):
            stack.extend(getattr(n, fl.name) for fl in fields(n) if fl.name not in ("span", "type"))
        elif isinstance(n, (list, tuple)):
            stack.extend(n)
    return False
