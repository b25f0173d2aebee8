"""State-based rules (docs/language.md, "State-based rules") lowered into plain statements.

A rule a text says is checked whenever a step is over is neither an outcome nor an event:
written into every action, it is copied, and an action that forgets it drops the rule. A
`state_based` declaration says it once; like a phase's end, it is lowered once into typed
statements that end every action's body, before the phase chain, so the closures, the
compiled successors and Z3 run one definition:

  if COND1 then [rule1] BODY1 end
  if COND2 then [rule2] BODY2 end
  ... (the phase chain)

Each rule is judged once per step, in the order written, in the state the statements (and the
rules before it) left; a rule whose body makes another's condition hold lets that one run in
the same step only if it is written after. Why once and in order rather than "until none
applies": a bound the writer can read, and a step that always ends. Why before the
phases: a rule's effect may end a phase in the same step (its end condition reads it), which
is what "state-based" means for a phase that ends "when no player has ...".
"""
from __future__ import annotations

from .. import syntax as sx
from .. import typed as T
from ..resolver.context import Ctx


def lower(r, decls: list[sx.StateBasedDecl]) -> tuple:
    """The statements that run each state-based rule, in the order written, each a rule of
    kind `state` (cited when its body runs; a `dead-rule` when it never does)."""
    out = []
    for d in decls:
        rid = r.rule("state", d.name, d.tags, d.span)
        cond = r.cond(d.cond, {}, Ctx())
        body = T.Block(r.stmts(d.body, {}, Ctx()), rid, d.span)
        out.append(T.If(((cond, (body,)),), (), None, d.span))
    return tuple(out)
