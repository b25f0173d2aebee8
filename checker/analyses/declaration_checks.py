"""Declarations that never decide anything (`dead-declaration`): a `precedence` that never picks
and a `cannot lose` / `cannot win` rule that never changes how a step ends. Reversing or
deleting such a declaration changes no behaviour, so nothing else would say it is wrong.

What "decides" means (docs/checks.md, "Dead declarations"), per reachable step:
- `precedence A over B` between outcome kinds: both sides are proposed in the step, for the same
  player or team (or a draw of the game against any win or loss), once the facts about players
  already out are dropped, and the precedence drops one of them; `lose over win same_step` also
  decides where a player or team who lost in an earlier step wins (only it lets that win stand);
- `precedence RULE over CANNOT_RULE`: CANNOT_RULE forbids a player or team for whom RULE holds,
  so RULE's fact stands only by the precedence;
- a "cannot" rule: it forbids a fact (so dead-rule counts it as applying) and, resolved without
  it, the step would end otherwise: other statuses, values, end or conflict.

The explorer notes the declarations that decided while it resolves each step
(checker.explicit.outcomes, `Machine.decided`): no graph is walked again. The notes are keys
about declarations, never about players, so a search reduced by rotations of the seating ring
notes the same set as the full one (a rotated step decides by the same declarations). A
declaration or rule already reported by dead-rule is left to it. Like dead-rule, this runs only
on a completely explored graph, and a finding found in some instances only says for which
(checker.analyses.merging).

Part of the ordered tuple `checker.analyses.checks.CHECKS`.
"""
from __future__ import annotations

from ..frontend import syntax as sx
from .explored import Explored
from .findings import Finding

# what a precedence between two kinds would need to meet in a step to decide anything
_CLASH = {
    frozenset(("lose", "win")): "a player or team who both wins and loses",
    frozenset(("draw", "win")): "a draw of the game with a win, or a player or team who both draws and wins",
    frozenset(("draw", "lose")): "a draw of the game with a loss, or a player or team who both draws and loses",
}


def check_dead_declarations(x: Explored) -> list[Finding]:
    g, m = x.graph, x.machine
    if not g.complete:
        return []
    decided, hit = m.decided, g.hit_rules
    by_name = {r.decl.name: r for r in m.outcomes}
    out = []
    for d in m.model.decls:
        if not isinstance(d, sx.PrecedenceDecl):
            continue
        text = f"precedence {d.winner} over {d.loser}" + (" same_step" if d.same_step else "")
        if d.winner in by_name:  # a rule over a "cannot" rule (the resolve pass checked the pair)
            rule, cannot = by_name[d.winner], by_name[d.loser]
            if ("precedence", d.winner, d.loser) in decided or rule.rid not in hit or cannot.rid not in hit:
                continue  # decided, or a rule it names never applies: dead-rule says so
            verb = "lose" if rule.kind == "lose" else "win"
            why = f"no reachable step has `{d.winner}` hold for a {rule.subject} whom `{d.loser}` forbids to {verb}"
        else:
            if ("precedence", d.winner, d.loser) in decided or d.same_step and ("same_step",) in decided:
                continue
            why = "no reachable step has " + _CLASH.get(frozenset((d.winner, d.loser)), f"both a {d.winner} and a {d.loser}")
            if d.same_step:
                why += ", nor a player or team who lost in an earlier step and wins"
        out.append(x.finding("dead-declaration", f"`{text}` never decides: {why}", d.tags, [d.span],
                             key=f"{text}:{d.span.line}", subject=[text]))
    for k in m.cannot_rules:
        name = k.decl.name
        if k.rid not in hit or ("cannot", name) in decided:
            continue  # never forbids anything (a dead-rule), or some step ends otherwise without it
        what = "losses" if k.kind == "cannot_lose" else "wins"
        out.append(x.finding("dead-declaration",
                             f"outcome rule `{name}` forbids {what}, but no reachable step would end otherwise "
                             "without it", k.decl.tags, [k.decl.span], key=f"cannot:{name}", subject=[name]))
    return out
