"""The check pipeline: files -> specs -> typed models -> instances -> graphs -> findings.

The front end runs first on every file, format, reading and parameter value: if any of it has an
error, every error is reported and nothing is explored. Then, per instance: the Z3
contradiction check, exploration, the generic checks, and a Z3 replay of each counterexample.
A counterexample the replay rejects is not a finding: the engines disagree, and the run says
so with its own exit code. Findings that recur across parameter values are grouped (the
smallest instance's trace is kept); `expect` declarations mark reviewed findings; readings of
one format are compared.

Limits (checker.limits) apply per instance to all of its work: the contradiction check,
exploration (which stops at EXPLORE_SHARE of the time, so the checks can look at what it
reached), the checks; the replays of a file's findings get the time its instances left over,
so a run never takes longer than its instances times the time limit. A limit hit, or memory
running out, makes the instance incomplete and keeps what it reached. An interrupt (Ctrl-C, or
SIGTERM through the CLI) keeps the findings of the instances already checked.
"""
from __future__ import annotations

import gc
from dataclasses import dataclass, field
from pathlib import Path

from .analyses.checks import run_checks_within
from .analyses.expectations import Expectation, apply as apply_expectations
from .analyses.findings import KINDS, MEASURES, Finding, assign_fingerprints
from .analyses.lint import lint
from .explicit.explore import Graph, explore
from .explicit.compiled import machine_for
from .explicit.machine import Machine
from .limits import Budget, LimitHit, Limits, watchdog
from .frontend import syntax as ir
from .frontend.diagnostics import Diagnostic, SpecError
from .frontend.instances import Instance, instantiate
from .frontend.parser import parse_file, parse_source
from .frontend.resolve import resolve_spec
from .frontend.typed import model_name
from .symbolic import z3backend


@dataclass
class InstanceResult:
    label: str
    model: str
    states: int
    transitions: int
    seconds: float
    complete: bool
    stop_reason: str = ""


@dataclass
class Disagreement:
    """A counterexample the explorer found and the independent replay rejects."""
    finding: Finding
    replay: str  # what the replay saw instead


@dataclass
class Result:
    files: list[str] = field(default_factory=list)
    specs: list[ir.SpecFile] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    disagreements: list[Disagreement] = field(default_factory=list)
    instances: list[InstanceResult] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)  # why, per instance
    interrupted: str = ""  # how far an interrupted run got; "" if it ran to its end
    checked: int = 0  # instances whose checks finished
    fail_on: str = "warning"  # the least severity of an unexpected finding that fails the run (--fail-on)

    @property
    def unexpected(self) -> list[Finding]:
        return [f for f in self.findings if not f.expected and f.severity != "info"]

    @property
    def failing(self) -> list[Finding]:
        """The unexpected findings severe enough to fail the run."""
        return [f for f in self.unexpected if f.severity == "error" or self.fail_on == "warning"]

    def exit_code(self) -> int:
        """2 bad input; 4 the engines disagree (no verdict can be trusted); 3 interrupted (the
        findings shown are not all there are); 1 findings; 3 incomplete; 0 clean."""
        if self.diagnostics:
            return 2
        if self.disagreements:
            return 4
        if self.interrupted:
            return 3
        if self.failing:
            return 1
        if self.incomplete:
            return 3
        return 0


def collect_files(paths: list[str], include_root: str | None = None) -> tuple[list[tuple[str, Path]], list[Diagnostic]]:
    """(spec file, the folder tree it and its includes must stay in) for each spec named or found.

    A file named on the command line is rooted at its own folder, one found by walking a folder
    at that folder; `include_root` replaces both.
    """
    files, diags = [], []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = sorted(str(f) for f in path.rglob("*.rw"))
            files.extend((f, Path(include_root or path)) for f in found)
            if not found:
                diags.append(Diagnostic("E002", f"no spec files (*.rw) in {p}", ir.Span(p, 0, 0, 0, 0),
                                        "give spec files or folders that contain them"))
        elif path.exists() or path.is_symlink():  # a dangling or looping symlink: parse_file says which
            files.append((str(path), Path(include_root or path.parent)))
        else:
            diags.append(Diagnostic("E002", f"no such file or folder: {p}", ir.Span(p, 0, 0, 0, 0),
                                    "give spec files (*.rw) or folders that contain them"))
    return files, diags


@dataclass
class Plan:
    """One file through the front end: its models and every instance of them."""
    spec: ir.SpecFile
    instances: list[Instance]


def front_end(paths: list[str], res: Result, include_root: str | None = None) -> list[Plan]:
    """Parse, resolve and instantiate everything; errors go to res.diagnostics, all of them."""
    files, diags = collect_files(paths, include_root)
    res.diagnostics.extend(diags)
    res.files = [f for f, _ in files]
    plans = [front_end_file(path, root, res) for path, root in files]
    return [p for p in plans if p is not None]


def front_end_file(path: str, root, res: Result, text: str | None = None) -> Plan | None:
    """One spec file through parsing, resolution and instantiation; errors go to res.diagnostics.
    With `text`, that is the file's content (an editor's unsaved buffer); includes come from disk."""
    try:
        spec = parse_file(path, root) if text is None else parse_source(text, path, root)
    except SpecError as exc:
        res.diagnostics.extend(exc.diagnostics)
        return None
    res.specs.append(spec)
    models, diags = resolve_spec(spec, KINDS, MEASURES)
    res.diagnostics.extend(diags)
    instances: list[Instance] = []
    if not diags:
        for m in models:
            insts, more = instantiate(m)
            res.diagnostics.extend(more)
            instances.extend(insts)
    return Plan(spec, instances)


EXPLORE_SHARE = 0.8  # of an instance's time and memory; the rest is the checks'
CONTRADICTION_SHARE, CONTRADICTION_SECONDS = 0.25, 10.0  # at most, for the Z3 contradiction check


def check(paths: list[str], limits: Limits = Limits(), replay: bool = True,
          graphs: dict | None = None, include_root: str | None = None) -> Result:
    res = Result()
    plans = front_end(paths, res, include_root)
    if res.diagnostics:
        return res  # every static error at once, before anything is explored
    total = sum(len(plan.instances) for plan in plans)
    try:
        for plan in plans:
            _check_spec(plan, limits, replay, res, graphs)
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM through the CLI: report what was finished
        res.interrupted = (f"the run was interrupted after {res.checked} of {total} instance(s); "
                           "the findings of the others are missing")
    res.findings.sort(key=_order)
    return res


def _order(f: Finding):
    kinds = list(KINDS)
    return (f.model, kinds.index(f.kind), f.rules, f.message, f.instance)


def _check_spec(plan: Plan, limits: Limits, replay: bool, res: Result, graphs) -> None:
    """Check every instance of one file, then group, replay and apply expectations. On an
    interrupt, the instances already checked are grouped and kept (not replayed) and the
    interrupt goes on up."""
    spec, instances = plan.spec, plan.instances
    linted = lint(spec)
    assign_fingerprints(linted)
    res.findings.extend(linted)
    raw: list[Finding] = []
    done: list[Instance] = []
    replayable: dict[int, tuple[Machine, Graph]] = {}  # id(finding) -> where its trace was found
    spare = 0.0  # seconds the instances left unused: the replays' time
    interrupted = False
    try:
        for inst in instances:
            found, left = _check_instance(inst, limits, replay, res, graphs, replayable)
            raw.extend(found)
            done.append(inst)
            res.checked += 1
            spare += left
    except KeyboardInterrupt:
        interrupted = True
    grouped = _group(raw, done)
    _say_where_dead(grouped, done, raw, res)
    budget = Budget(limits, seconds=spare)
    kept = []
    for f in grouped:  # replayed once per reported finding, after grouping
        if id(f) in replayable:
            if not interrupted:
                try:
                    f.replay = _replay_within(budget, *replayable[id(f)], f, res)
                except KeyboardInterrupt:
                    interrupted = True
            if interrupted:
                f.replay = "not run: the run was interrupted"
            if f.replay.startswith("FAILED"):
                res.disagreements.append(Disagreement(f, f.replay.removeprefix("FAILED: ")))
                continue
        kept.append(f)
    # an interrupted file cannot tell an unmet expectation or a difference between readings
    assign_fingerprints(kept)
    kept.extend(_apply_expectations(done, kept, report_unmet=not interrupted))
    if not interrupted:
        differ = _compare_readings(instances, kept)
        assign_fingerprints(differ)
        kept.extend(differ)
    res.findings.extend(kept)
    if interrupted:
        raise KeyboardInterrupt


def _replay_within(budget: Budget, machine: Machine, graph: Graph, f: Finding, res: Result) -> str:
    try:
        budget.check()
        with watchdog(budget):
            return replay_finding(machine, graph, f)
    except LimitHit as exc:
        res.incomplete.append(f"{f.instance}: the Z3 replay of the {f.kind} finding was not run ({exc})")
        return f"not replayed: {exc}"


def _check_instance(inst: Instance, limits: Limits, replay: bool, res: Result, graphs,
                    replayable: dict) -> tuple[list[Finding], float]:
    """The findings of one instance and the seconds of its time limit it left unused."""
    budget = Budget(limits)
    out: list[Finding] = []
    try:
        with watchdog(budget):
            _explore_and_check(inst, limits, budget, replay, res, graphs, replayable, out)
    except LimitHit as exc:  # spent where no cooperative check stopped it: keep what was found
        res.incomplete.append(f"{inst.label}: stopped ({exc}); findings that need more were not checked")
    except MemoryError:  # an allocation failed, maybe half way through the graph: trust none of it
        for f in out:  # ids of dropped findings may be reused by later ones
            replayable.pop(id(f), None)
        gc.collect()
        res.incomplete.append(f"{inst.label}: memory ran out (MemoryError); nothing of this instance is reported")
        return [], 0.0
    return out, max(0.0, budget.remaining())


def _explore_and_check(inst: Instance, limits: Limits, budget: Budget, replay: bool, res: Result, graphs,
                       replayable: dict, out: list[Finding]) -> None:
    model = inst.model_name
    out.extend(_contradiction(inst, budget, res))
    machine = machine_for(inst)
    graph = explore(machine, limits, budget.share(EXPLORE_SHARE))
    if graphs is not None:
        graphs[inst.label] = graph
    res.instances.append(InstanceResult(inst.label, model, len(graph.states), len(graph.edges), graph.seconds,
                                        graph.complete, graph.stop_reason))
    if not graph.complete:
        res.incomplete.append(f"{inst.label}: exploration stopped ({graph.stop_reason}) after "
                              f"{len(graph.states):,} states; findings that need the whole graph were not checked")
    if not graph.init_ids and not graph.setup_errors and graph.complete and not any(f.kind == "contradiction" for f in out):
        m = inst.model
        out.append(Finding("contradiction", "no initial state satisfies the setup rules",
                           tuple(t for d in m.inits + m.constraints for t in d.tags),
                           (inst.spec.span,), inst.label, model, key="no initial state", subject=("no initial state",)))
    found, stopped = run_checks_within(graph, budget)
    if stopped:
        res.incomplete.append(f"{inst.label}: the checks stopped ({stopped})")
    found = _fold_into_contradiction(out, found, graph)
    for f in found:
        if replay and f.trace:
            replayable[id(f)] = (machine, graph)
        out.append(f)


# What an instance without any initial state shows of every rule and property: nothing is
# reachable, so each is "dead" or "never reached". One finding (the contradiction) says it all.
FOLLOW_ON = ("dead-rule", "unreachable-outcome", "unreachable-property", "never-active")


def _fold_into_contradiction(out: list[Finding], found: list[Finding], graph: Graph) -> list[Finding]:
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
        contra[0].context["folded"] = counts
    return [f for f in found if f.kind not in FOLLOW_ON]


def _contradiction(inst: Instance, budget: Budget, res: Result) -> list[Finding]:
    """The Z3 contradiction check within its part of the instance's time (building the formulas
    included: a quantifier over 0..10^8 is built term by term); "unknown" makes it incomplete."""
    seconds = min(CONTRADICTION_SECONDS, CONTRADICTION_SHARE * budget.seconds)
    part = budget.part(seconds, f"the contradiction check's {seconds:g}s ran out")
    try:
        part.check()
        with watchdog(part):
            verdict = z3backend.contradiction(inst, max(1, int(part.remaining() * 1000)))
    except z3backend.Unsupported as exc:
        verdict = ("unknown", f"not encodable: {exc}")
    except LimitHit as exc:
        verdict = ("unknown", str(exc))
    if verdict and verdict[0] == "unknown":
        res.incomplete.append(f"{inst.label}: the contradiction check is incomplete (Z3: {verdict[1]})")
        return []
    if not verdict:
        return []
    core = verdict[1]
    rules = [t for d, _ in core for t in d.tags]
    what = "; ".join(sorted({w for _, w in core}))
    subject = tuple(sorted({w.strip("`") for _, w in core}))  # the constraints (by name) that conflict
    return [Finding("contradiction", f"no setup satisfies all of: {what}", tuple(dict.fromkeys(rules)),
                    tuple(d.span for d, _ in core), inst.label, inst.model_name, key=what, subject=subject)]


def replay_finding(machine: Machine, graph: Graph, f: Finding) -> str:
    """The finding's trace re-executed by the symbolic engine: "confirmed", "not replayed: why",
    or "FAILED: what the replay saw"."""
    if "setup_error" in f.context:
        e = f.context["setup_error"]
        problem = z3backend.replay_setup(machine.inst, e.values, e.where, e.kind)
        if problem.startswith("not replayed"):
            return problem
        return f"FAILED: {problem}" if problem else "confirmed"
    steps = []
    path = [st for st in f.trace if st.sid >= 0]
    for a, b in zip(path, path[1:]):
        action, binding, hits = graph.labels[b.lid]
        steps.append(z3backend.ReplayStep(graph.values(a.sid), action, binding, graph.values(b.sid), hits=hits))
    if "failing_step" in f.context:
        src, step = f.context["failing_step"]
        steps.append(z3backend.ReplayStep(graph.values(src), step.action, step.binding, None, step.error_kind, step.where))
    problem = z3backend.replay(machine.inst, steps)
    if not problem and "failing_condition" in f.context:
        cond, state = f.context["failing_condition"]
        if not z3backend.fails_in(machine.inst, state, cond):
            problem = "the condition can be evaluated in the last state of the replay"
    if problem.startswith("not replayed"):
        return problem
    return f"FAILED: {problem}" if problem else "confirmed"


def _group(raw: list[Finding], instances: list[Instance]) -> list[Finding]:
    """One finding per (model, signature), listing every parameter instance it occurs in."""
    order = {inst.label: i for i, inst in enumerate(instances)}
    groups: dict[tuple, Finding] = {}
    for f in sorted(raw, key=lambda f: order.get(f.instance, 0)):
        key = (f.model,) + f.signature()
        if key in groups:
            groups[key].instances.append(f.instance)
            groups[key].size += f.size  # a size is counted over every instance the finding occurs in
        else:
            f.instances = [f.instance]
            groups[key] = f
    return list(groups.values())


def _say_where_dead(grouped: list[Finding], done: list[Instance], raw: list[Finding], res: Result) -> None:
    """A rule dead for some parameter values only says for which, and for which it applies.

    Instances whose exploration was incomplete, or whose setup is contradictory, say nothing
    about the rule either way and are left out of both lists."""
    complete = {i.label for i in res.instances if i.complete}
    void = {f.instance for f in raw if f.kind == "contradiction"}
    for f in grouped:
        if f.kind != "dead-rule":
            continue
        applies = [i.label for i in done if i.model_name == f.model and i.label in complete
                   and i.label not in void and i.label not in f.instances]
        if not applies:
            continue  # dead in every instance that could tell
        f.message = f"{f.message} when {_params_of(f.instances)}"
        f.detail = f"it does apply when {_params_of(applies)}"


def _params_of(labels: list[str]) -> str:
    return "; ".join(label.rsplit(" | ", 1)[-1] for label in labels)


def _apply_expectations(instances, findings: list[Finding], report_unmet: bool = True) -> list[Finding]:
    """Mark what each model's `expect`s accept (checker.analyses.expectations); the unmet ones."""
    models: dict[str, Instance] = {}
    for inst in instances:
        models.setdefault(inst.model_name, inst)
    expectations = [Expectation(model, e.kind, e.tags, e.subject, e.measures, e.fingerprint, e.note, e.span)
                    for model, inst in models.items() for e in inst.model.expects]  # kinds checked by resolve
    unmet = apply_expectations(findings, expectations, report_unmet)
    assign_fingerprints(unmet)
    return unmet


def _compare_readings(instances, findings: list[Finding]) -> list[Finding]:
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


def load_instances(path: str) -> list[Instance]:
    """Every instance of one spec file, through the whole front end; SpecError with every
    diagnostic if the file has errors (for tests, benchmarks and the graph command)."""
    res = Result()
    plans = front_end([path], res)
    if res.diagnostics:
        raise SpecError(res.diagnostics)
    return [i for plan in plans for i in plan.instances]
