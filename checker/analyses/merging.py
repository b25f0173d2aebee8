"""Findings of many instances made into one report: grouped across parameter values (the
smallest instance's trace kept), dead rules said where they are dead, readings of one format
compared, and the abstraction an instance counts in (`in steps of`) merged for a group."""
from __future__ import annotations

from ..frontend.instances import Instance
from ..frontend.typed import model_name
from .findings import EXPLORER, KINDS, Finding


def finding_key(f: Finding) -> tuple:
    return (f.model,) + f.signature()


def report_order(f: Finding):
    kinds = list(KINDS)
    return (f.model, kinds.index(f.kind), f.rules, f.message, f.instance)


def group(raw: list[Finding], instances: list[Instance]) -> list[Finding]:
    """One finding per (model, signature), listing every parameter instance it occurs in."""
    order = {inst.label: i for i, inst in enumerate(instances)}
    groups: dict[tuple, Finding] = {}
    for f in sorted(raw, key=lambda f: order.get(f.instance, 0)):
        key = (f.model,) + f.signature()
        if key in groups:
            groups[key].instances.append(f.instance)
            groups[key].engines.append(f.engine or EXPLORER)
            groups[key].size += f.size  # a size is counted over every instance the finding occurs in
            groups[key].abstraction = _merge_abstractions(groups[key].abstraction, f.abstraction)
            if groups[key].follows != f.follows:  # a consequence only if it is one in every instance
                groups[key].follows = ()
        else:
            f.instances = [f.instance]
            f.engines = [f.engine or EXPLORER]
            groups[key] = f
    return list(groups.values())


def say_where_dead(grouped: list[Finding], done: list[Instance], raw: list[Finding], res) -> None:
    """A rule dead for some parameter values only says for which, and for which it applies.

    `res` is the run's checker.engine.Result. Instances whose exploration was incomplete, or
    whose setup is contradictory, say nothing about the rule either way and are left out of
    both lists."""
    complete = {i.label for i in res.instances if i.complete}
    void = {f.instance for f in raw if f.kind == "contradiction"}
    for f in grouped:
        if f.kind not in ("dead-rule", "dead-declaration"):
            continue
        applies = [i.label for i in done if i.model_name == f.model and i.label in complete
                   and i.label not in void and i.label not in f.instances]
        if not applies:
            continue  # dead in every instance that could tell
        f.message = f"{f.message} when {_params_of(f.instances)}"
        f.detail = f"it does apply when {_params_of(applies)}"


def _params_of(labels: list[str]) -> str:
    return "; ".join(label.rsplit(" | ", 1)[-1] for label in labels)


def compare_readings(instances, findings: list[Finding]) -> list[Finding]:
    by_format: dict[tuple, dict[str, set]] = {}
    for inst in instances:
        if inst.reading:
            by_format.setdefault((inst.spec.path, inst.format), {}).setdefault(inst.reading, set())
    if not by_format:
        return []
    for f in findings:
        for (path, fmt), readings in by_format.items():
            for r in readings:
                if f.model == model_name(path, fmt, r):
                    readings[r].add((f.kind, f.rules))
    out = []
    for (path, fmt), readings in by_format.items():
        names = sorted(readings)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                only_a = sorted(readings[a] - readings[b])
                only_b = sorted(readings[b] - readings[a])
                if not only_a and not only_b:
                    continue
                def show(items):
                    return ", ".join(f"{k} [{', '.join(r)}]" for k, r in items) or "nothing"
                msg = f"reading {a} has {show(only_a)} that reading {b} does not; {b} has {show(only_b)}"
                rules = tuple(dict.fromkeys(t for _, r in only_a + only_b for t in r))
                model = model_name(path, fmt)
                out.append(Finding("readings-differ", msg, rules, (), model, model, key=f"{a}/{b}", subject=(a, b)))
    return out


def compare_budgets(instances, findings: list[Finding]) -> list[Finding]:
    """Per model with a `budget` parameter (docs/language.md, "Any number of times"): the
    findings (kind and rules) of each instance at the budget's largest value against those of
    the instance at the next smaller value with the same other parameters. Where they differ,
    the budget decides something "any number" would not: a note names what changed."""
    by_model: dict[str, dict[tuple, Instance]] = {}
    for inst in instances:
        if any(p.budget for p in inst.model.params):
            by_model.setdefault(inst.model_name, {})[tuple(sorted(inst.params.items()))] = inst
    if not by_model:
        return []
    found: dict[str, set] = {}
    for f in findings:
        if KINDS[f.kind][0] == "info" or f.kind == "expectation-unmet":
            continue  # verdicts on the rules only
        for label in f.instances or [f.instance]:
            found.setdefault(label, set()).add((f.kind, f.rules))
    out = []
    for model, insts in by_model.items():
        first = next(iter(insts.values()))
        for p in (p for p in first.model.params if p.budget):
            values = sorted({i.params[p.name] for i in insts.values()})
            if len(values) < 2:
                continue
            top, below = values[-1], values[-2]
            for key, inst in insts.items():
                if inst.params[p.name] != top:
                    continue
                other = insts.get(tuple(sorted({**inst.params, p.name: below}.items())))
                if other is None:
                    continue
                more = sorted(found.get(inst.label, set()) - found.get(other.label, set()))
                fewer = sorted(found.get(other.label, set()) - found.get(inst.label, set()))
                if not more and not fewer:
                    continue
                def show(items):
                    return ", ".join(f"{k} [{', '.join(r)}]" for k, r in items) or "nothing"
                rest = "; ".join(f"{k}={v}" for k, v in inst.params.items() if k != p.name)
                told = ([f"finds {show(more)} that {p.name}={below} does not"] if more else []) + \
                    ([f"does not find {show(fewer)} that {p.name}={below} does"] if fewer else [])
                msg = (f"budget {p.name}={top} " + " and ".join(told) + (f" (with {rest})" if rest else "")
                       + f": \"any number\" may find otherwise than {p.name}={top}; check a larger budget")
                rules = tuple(dict.fromkeys(list(p.tags) + [t for _, r in more + fewer for t in r]))
                out.append(Finding("budget-differs", msg, rules, (p.span,), inst.label, model,
                                   key=f"{p.name}={top}/{below}" + (f" {rest}" if rest else ""), subject=(p.name,)))
    return out


def _within(inner, outer) -> bool:
    return inner.file == outer.file and (outer.line, outer.col) <= (inner.line, inner.col) \
        and (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)


def touches(inst: Instance, finding, span) -> bool:
    """Whether an amount written at `span` bears on `finding`: it stands in no rule (an initial
    value, a let: every step may read it), or in a rule the finding's trace ran or that its
    places point into. A finding of no trace and no place is touched by every amount."""
    if finding is None:
        return True
    m = inst.model
    # the rules a trace runs, and the properties a finding is about (its place points into them)
    owners = [r.span for r in m.rules] + [d.span for d in (*m.invariants, *m.reachables, *m.procedures, *m.ends)]
    rules = [r for r in owners if _within(span, r)]
    if not rules:
        return True
    ran = {fired.span for step in finding.trace or () for fired in step.ran}
    places = tuple(finding.spans)
    if not ran and not places:
        return True
    return any(r in ran or any(_within(p, r) or _within(r, p) for p in places) for r in rules)


def abstraction_of(inst: Instance, finding=None) -> str:
    """The abstractions an instance is checked under, in the spec's words with this instance's
    numbers: "life in steps of 1,000; V=2 for the document's 11" ("" for none). They are the
    writer's claims (docs/language.md, "Large numbers"), which the checker does not prove.
    Amounts a declared rounding counted as a multiple of their step are listed where they bear
    on `finding` (`touches`; all of them for no finding)."""
    from ..frontend.consts import evaluate
    from ..frontend.steps import round_to_step
    parts = []
    for p in inst.model.params:
        if p.abstracts is not None:
            parts.append(f"{p.name}={inst.params.get(p.name)} for the document's {_number(evaluate(p.abstracts, inst.params))}")
    for v in list(inst.vars) + list(inst.static_choices.values()):
        if v.info.step is not None and v.step != 1:  # (a step of 1 counts as written: no abstraction)
            lo, hi = v.type.low * v.step, v.type.high * v.step
            mode = v.info.type.step.rounding if v.info.type.step is not None else ""
            rounding = f" rounding {mode}" if mode else ""
            parts.append(f"{v.name} in steps of {_number(v.step)}{rounding} ({_number(lo)}..{_number(hi)} checked as "
                         f"{v.type.low}..{v.type.high})")
    rounded = []
    sizes = {"nplayers": inst.nplayers, "nteams": inst.nteams,
             "team_size": inst.nplayers // inst.nteams if inst.nteams else 1}
    for amount, step, mode, span, _ in inst.model.roundings:  # amounts the declared rounding changed here
        n, k = evaluate(amount, inst.params, sizes), evaluate(step, inst.params, sizes)
        if k >= 1 and n % k and touches(inst, finding, span):
            rounded.append(f"{_number(n)} at line {span.line} as {_number(round_to_step(n, k, mode) * k)}")
    if rounded:
        parts.append("amounts counted as a multiple of their step: " + ", ".join(rounded))
    return "; ".join(parts)


def _merge_abstractions(a: str, b: str) -> str:
    """The abstractions of a finding found in several instances: per declaration (the name that
    starts each part), every distinct text in instance order, joined by " / "."""
    parts: dict[str, list[str]] = {}
    for text in (a, b):
        for part in (p for group in text.split("; ") for p in group.split(" / ") if p):
            name = part.split("=", 1)[0].split(" ", 1)[0]
            if part not in parts.setdefault(name, []):
                parts[name].append(part)
    return "; ".join(" / ".join(texts) for texts in parts.values())


def _number(n: int) -> str:
    return f"{n:,}" if abs(n) >= 10_000 else str(n)
