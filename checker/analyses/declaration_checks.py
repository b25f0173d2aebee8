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
(checker.analyses.merging). Beyond the explorer's state limit, checker.analyses.unbounded_declarations
asks the same questions of the symbolic engine (`declarations`, `dead_declaration`).

Part of the ordered tuple `checker.analyses.checks.CHECKS`.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..frontend import syntax as sx
from ..frontend import typed as T
from .explored import Explored
from .findings import Finding

# what a precedence between two kinds would need to meet in a step to decide anything
_CLASH = {
    frozenset(("lose", "win")): "a player or team who both wins and loses",
    frozenset(("draw", "win")): "a draw of the game with a win, or a player or team who both draws and wins",
    frozenset(("draw", "lose")): "a draw of the game with a loss, or a player or team who both draws and loses",
}


@dataclass(frozen=True)
class Declaration:
    """One declaration the check judges: it decides once the explorer notes any of `keys`
    (`Machine.decided`); the check speaks of it only where each rule of `rules` (rule ids)
    applies somewhere, since a rule that never applies is dead-rule's to report. `finding`'s
    parts say the explorer's finding: its message, tags, span, key and subject."""
    subject: str
    keys: tuple[tuple, ...]
    rules: tuple[int, ...]
    message: str
    tags: tuple[str, ...]
    span: object
    key: str


def declarations(model: T.Model) -> list[Declaration]:
    """Every `precedence` and "cannot" rule of a model, in the order the check reports them."""
    by_name = {r.name: r for r in model.outcomes}
    out = []
    for d in model.decls:
        if not isinstance(d, sx.PrecedenceDecl):
            continue
        text = (f"precedence {d.winner} over {d.loser}" + (f" for {d.who}" if d.who else "")
                + (" same_step" if d.same_step else ""))
        keys: tuple[tuple, ...] = (T.precedence_key(d.winner, d.loser, d.who),)
        if d.winner in by_name:  # a rule over a "cannot" rule (the resolve pass checked the pair)
            rule, cannot = by_name[d.winner], by_name[d.loser]
            rules = (rule.rule, cannot.rule)
            verb = "lose" if rule.kind == "lose" else "win"
            why = f"no reachable step has `{d.winner}` hold for a {rule.subject} whom `{d.loser}` forbids to {verb}"
        else:
            rules = ()
            keys += (("same_step",),) if d.same_step else ()
            why = "no reachable step has " + _CLASH.get(frozenset((d.winner, d.loser)), f"both a {d.winner} and a {d.loser}")
            if d.same_step:
                why += ", nor a player or team who lost in an earlier step and wins"
        out.append(Declaration(text, keys, rules, f"`{text}` never decides: {why}", d.tags, d.span,
                               f"{text}:{d.span.line}"))
    for k in model.outcomes:
        if not k.kind.startswith("cannot_"):
            continue
        what = "losses" if k.kind == "cannot_lose" else "wins"
        out.append(Declaration(k.name, (("cannot", k.name),), (k.rule,),
                               f"outcome rule `{k.name}` forbids {what}, but no reachable step would end otherwise "
                               "without it", k.tags, k.span, f"cannot:{k.name}"))
    return out


def dead_declaration(d: Declaration, label: str, model_name: str, detail: str = "", engine: str = "") -> Finding:
    """The finding that declaration `d` never decides (of the instance `label` of `model_name`)."""
    return Finding("dead-declaration", d.message, tuple(dict.fromkeys(d.tags)), (d.span,), label, model_name,
                   detail=detail, key=d.key, subject=(d.subject,), engine=engine)


def check_dead_declarations(x: Explored) -> list[Finding]:
    g, m = x.graph, x.machine
    if not g.complete:
        return []
    decided, hit = m.decided, g.hit_rules
    return [dead_declaration(d, x.inst.label, x.inst.model_name) for d in declarations(m.model)
            if not any(k in decided for k in d.keys) and all(r in hit for r in d.rules)]
