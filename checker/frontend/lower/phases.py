"""Phases (docs/language.md, "Phases") lowered into plain statements.

A `phases` declaration is a variable of its own enumeration (read as `NAME == main`) that only
the phases' end conditions change. It is lowered once into statements that end every action's
body, so that every engine runs the same definition:

  if NAME == p1 and ENDS(p1) then [p1] (when p1 ends; NAME := p2; when p2 starts)
  elif NAME == p2 and ENDS(p2) then [p2] (...)
  ... end

repeated once per phase that can end: a phase whose condition already holds when it starts
ends in the same step, and since each repetition ends at most one phase and the chain goes
round the cycle in order, no phase ends twice in one step (termination).

Why typed IR, built while the Resolver types the model, and not a syntax-to-syntax pass before
it: the meaning must stay exactly what the engines ran before the lowering moved here.
- The chain is typed once and the same typed nodes end every action's body. Copied as syntax
  into each body, it would be typed once per action: new binders (the engines key bound values
  by their numbers, and `Model.nbinders` counts them), each let expanded again against the
  model's limit on expansions, each error in a `when` block found again.
- The step that ends a phase cites the phase (a block whose rule is the phase's, kind
  `phase`); the language has no statement that says so.
- `NAME := next` is the one assignment the phase variable allows; as syntax it would be
  refused like a writer's (`assigned`).
What is syntax to syntax is the variable a cycle declares (`phase_variable`).
"""
from __future__ import annotations

import difflib

from .. import syntax as sx
from .. import typed as T
from ..resolver.context import ERROR, Ctx
from ..types import BOOL
from ..diagnostics import Code


def phase_variable(d: sx.PhasesDecl) -> sx.VarDecl:
    """The variable of cycle `d`: an enumeration of its phases, starting in the first listed."""
    names = [p.name for p in d.phases]
    return sx.VarDecl(d.name, None, sx.TEnum(tuple(dict.fromkeys(names)), d.span),
                      sx.Name(names[0], d.phases[0].span), d.tags, False, d.span)


def declare(r, decls) -> dict[str, sx.PhasesDecl]:
    """Each `phases` declaration declares its variable (before any name is looked up); the
    cycles by the name of their variable."""
    cycles: dict[str, sx.PhasesDecl] = {}
    for d in decls:
        if not isinstance(d, sx.PhasesDecl):
            continue
        r.not_reserved(d.name, d.span)
        names = [p.name for p in d.phases]
        for i, p in enumerate(d.phases):
            r.not_reserved(p.name, p.span)
            if p.name in names[:i]:
                r.error(Code.DEFINED_TWICE, f"phase {p.name} is declared twice in `phases {d.name}`", p.span,
                        "a cycle lists each phase once; a phase that comes twice is two phases with two names")
        if r.declare_var(phase_variable(d)):
            cycles[d.name] = d
    return cycles


def assigned(r, s: sx.Assign) -> None:
    """A statement of the writer's assigns the current phase: only the end conditions may."""
    d = r.phase_decls[s.target]
    r.error(Code.TYPE_MISMATCH, f"{s.target} is the current phase of `phases {s.target}`; only the phases' "
            "end conditions change it", s.span,
            "state when the phase ends with `ends when ...` in the declaration (an action may set a flag "
            f"that the condition reads); the declaration is at {d.span}")


def lower(r, decls) -> tuple[tuple, tuple]:
    """(the statements that end every action's body, the typed cycles)."""
    blocks = _when_blocks(r, decls)
    chain, cycles = [], []
    for d in r.phase_decls.values():
        cycle, branches = _cycle(r, d, blocks)
        cycles.append(cycle)
        if branches:
            chain += [T.If(tuple(branches), (), None, d.span)] * len(branches)
    return tuple(chain), tuple(cycles)


def _when_blocks(r, decls) -> dict[tuple[str, str], list]:
    """(phase, ends | starts) -> the typed `when` blocks that run then, in the order written."""
    where = {p.name: (d, p) for d in r.phase_decls.values() for p in d.phases}
    blocks: dict[tuple[str, str], list] = {}
    for w in decls:
        if not isinstance(w, sx.WhenPhaseDecl):
            continue
        named = []
        for phase in dict.fromkeys(w.phases):
            found = where.get(phase)
            if found is None:
                close = difflib.get_close_matches(phase, list(where), n=1)
                r.error(Code.UNDEFINED, f"there is no phase `{phase}`", w.span,
                        f"did you mean `{close[0]}`?" if close else
                        "declare the phases with `phases NAME { PHASE ends when CONDITION ... }`")
            elif w.edge == "ends" and found[1].cond is None:
                r.error(Code.TYPE_MISMATCH, f"phase {phase} has no end condition, so `when {phase} ends` would never run",
                        w.span, f"add `ends when CONDITION` to {phase} in `phases {found[0].name}`")
            else:
                named.append(phase)
        # one rule and one body for all the phases it names: dead only if it runs for none of them
        rid = r.rule("phase", f"when {', '.join(w.phases)} {w.edge}", w.tags, w.span)
        block = T.Block(r.stmts(w.body, {}, Ctx()), rid, w.span)
        for phase in named:
            blocks.setdefault((phase, w.edge), []).append(block)
    return blocks


def _cycle(r, d: sx.PhasesDecl, blocks) -> tuple[T.PhaseCycle, list]:
    """The typed cycle `d`, and one branch of the chain per phase that can end."""
    ty = r.var_types.get(d.name, ERROR)
    members = list(dict.fromkeys(p.name for p in d.phases))
    phases = []
    for p in d.phases:
        cond = r.cond(p.cond) if p.cond is not None else None
        rid = r.rule("phase", p.name, p.tags, p.span) if cond is not None else None
        phases.append(T.Phase(p.name, members.index(p.name), cond, rid, p.tags, p.span))
    branches = []
    for i, p in enumerate(phases):
        if p.cond is None or p.index != i:  # (a phase listed twice is an error above)
            continue
        nxt = phases[(i + 1) % len(phases)]
        here = T.VarRef(d.name, None, ty, False, p.span)
        test = T.Logic("and", T.Compare("==", here, T.Const(p.index, ty, p.span), BOOL, p.span),
                       p.cond, BOOL, p.span)  # the condition is read only in its own phase
        body = (*blocks.get((p.name, "ends"), ()),
                T.Assign(d.name, None, T.Const(nxt.index, ty, p.span), None, p.span),
                *blocks.get((nxt.name, "starts"), ()))
        branches.append((test, (T.Block(body, p.rule, p.span),)))
    return T.PhaseCycle(d.name, tuple(phases), d.tags, d.span), branches
