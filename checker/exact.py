"""`rulewright check --exact`: does a declared rounding change a verdict? (the note
`abstraction-differs`, docs/checks.md).

`in steps of 5 rounding up` counts an amount finer than the step (a blast of 1) as a multiple of
it: the writer's claim that the rounding decides nothing the document's numbers would not. After
the run, every model that rounds an amount is checked again with those variables counted in ones
(the same spec, the rounding variables' `in steps of` dropped, so every amount is the document's),
instance by instance, and the findings of each instance (kinds and rules) are compared with the
rounded model's. Where they differ, an `abstraction-differs` note names what the rounding hid or
made. An exact instance is usually far larger: one that stops at a limit is compared with
nothing, and the note says so (never a verdict). Only instances the run checked to their end
are compared.

The exact instances run in this process, one after the other, after the run itself.
"""
from __future__ import annotations

import os
from dataclasses import replace

from .analyses.findings import KINDS, MEASURES, Finding
from .frontend import syntax as sx
from .frontend.instances import instantiate
from .frontend.resolve import resolve_spec

KIND = "abstraction-differs"


def exact_spec(spec: sx.SpecFile) -> sx.SpecFile | None:
    """The spec with every rounding variable counted in ones (its `in steps of` dropped); None
    if no variable rounds."""
    changed = [False]

    def decls(ds):
        return tuple(one(d) for d in ds)

    def one(d):
        if isinstance(d, sx.VarDecl) and d.rounding:
            changed[0] = True
            return replace(d, step=None, rounding="")
        if isinstance(d, sx.ReadingDecl):
            return replace(d, decls=decls(d.decls))
        if isinstance(d, sx.AmbiguityDecl):
            return replace(d, readings=tuple(one(r) for r in d.readings))
        return d

    out = replace(spec, decls=decls(spec.decls),
                  formats=tuple(replace(f, decls=decls(f.decls)) for f in spec.formats))
    return out if changed[0] else None


def compare(plans, res, limits, labels: set[str], check_instance, Task) -> list[Finding]:
    """The `abstraction-differs` notes of the instances `labels` (those the run chose) whose model
    rounds an amount. `res` is the run's engine.Result, its findings grouped; `check_instance`
    and `Task` are the engine's (passed in: the engine imports this module, not the reverse)."""
    complete = {i.label for i in res.instances if i.complete}
    verdicts: dict[str, dict] = {}  # instance label -> what each finding says -> its message
    for f in res.findings:
        for label in f.instances or [f.instance]:
            if _verdict(f):
                verdicts.setdefault(label, {})[_what(f)] = f.message
    out: list[Finding] = []
    for plan in plans:
        rounded = [i for i in plan.instances if i.model.roundings and i.label in labels and i.label in complete]
        spec = exact_spec(plan.spec) if rounded else None
        if spec is None:
            continue
        models, diags = resolve_spec(spec, KINDS, MEASURES)
        exact = {}
        if not diags:
            for m in models:
                insts, more = instantiate(m)
                diags += more
                exact.update((i.label, i) for i in insts)
        for k, inst in enumerate(rounded):
            twin = exact.get(inst.label)
            if twin is None:
                why = diags[0].message if diags else "no such instance"
                out.append(_note(inst, f"not compared: the model in ones does not build ({why})"))
                continue
            task = Task(plan.spec.path, str(plan.root), os.getcwd(), k, twin.label, "", limits,
                        "the exact model's time limit", False)
            outcome = check_instance(twin, task)
            if outcome.incomplete or outcome.instance is None or not outcome.instance.complete:
                why = outcome.incomplete[0].removeprefix(twin.label + ": ") if outcome.incomplete else "a limit"
                out.append(_note(inst, f"not compared: the model in ones was not checked to its end ({why})"))
                continue
            theirs = {_what(f): f.message for f in outcome.findings if _verdict(f)}
            mine = verdicts.get(inst.label, {})
            if mine.keys() == theirs.keys():
                continue
            only_exact = [(k, theirs[k]) for k in sorted(theirs.keys() - mine.keys())]
            only_rounded = [(k, mine[k]) for k in sorted(mine.keys() - theirs.keys())]
            out.append(_note(inst, _differ(only_exact, only_rounded),
                             tuple(dict.fromkeys(t for (_, r, _), _ in only_exact + only_rounded for t in r))))
    return out


def _what(f: Finding) -> tuple:
    """What a finding says, as two models of one instance can share it: kind, rules, and what
    it is about (its key, or its message), as findings are grouped (`Finding.signature`)."""
    return (f.kind, f.rules, f.key or f.message)


def _verdict(f: Finding) -> bool:
    """A finding about the rules (not a note, not an expectation's bookkeeping)."""
    return KINDS[f.kind][0] != "info" and f.kind != "expectation-unmet"


def _differ(only_exact, only_rounded) -> str:
    def show(items):
        return "; ".join(f"{k}" + (f" [{', '.join(r)}]" if r else "") + f" ({message})" for (k, r, _), message in items)
    told = ([f"only the model in ones finds {show(only_exact)}"] if only_exact else []) + \
        ([f"only the rounded model finds {show(only_rounded)}"] if only_rounded else [])
    return "the rounding changes a verdict: " + "; and ".join(told)


def _note(inst, message: str, rules: tuple = ()) -> Finding:
    spans = tuple(span for _, _, _, span, _ in inst.model.roundings)
    return Finding(KIND, message, rules, spans[:1], inst.label, inst.model_name, key=inst.label,
                   subject=tuple(sorted({v.name for v in inst.vars if v.info.type.step is not None
                                         and v.info.type.step.rounding})))
