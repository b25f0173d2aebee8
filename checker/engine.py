"""The check pipeline: files -> specs -> typed models -> instances -> graphs -> findings.

The front end runs first on every file, format, reading and parameter value: if any of it has an
error, every error is reported and nothing is explored. Then, per instance: the Z3
contradiction check, exploration, the generic checks, and a Z3 replay of each counterexample.
A counterexample the replay rejects is not a finding: the engines disagree, and the run says
so with its own exit code. Findings that recur across parameter values are grouped (the
smallest instance's trace is kept); `expect` declarations mark reviewed findings; readings of
one format are compared.

Each instance is checked by itself (`check_instance`, in this process or in a worker that
rebuilds it from its `Task`, see checker.runner) and comes back as an `Outcome`; the outcomes
are merged per file in instance order (`_merge_file`), so grouping, expectations and the
comparison of readings see the same input whatever the number of workers.

Limits (checker.limits) apply per instance to all of its work, with its share of the run's
time: the contradiction check, exploration (which stops at EXPLORE_SHARE of the time, so the
checks can look at what it reached), the checks, and the replays of the findings that may be
reported (the first of their group). A limit hit, or memory running out, makes the instance
incomplete and keeps what it reached. An interrupt (Ctrl-C, or SIGTERM through the CLI) keeps
the findings of the instances already checked.
"""
from __future__ import annotations

import gc
import hashlib
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import live, runner
from .analyses.checks import run_checks_within
from .analyses.expectations import Expectation, NotChecked, apply as apply_expectations
from .analyses.findings import KINDS, MEASURES, Finding, assign_fingerprints
from .analyses.lint import lint
from .explicit.explore import Graph, explore
from .explicit.compiled import machine_for
from .explicit import symmetry
from .explicit.machine import Machine, reads_static
from .limits import Budget, LimitHit, Limits, cpu_seconds, watchdog
from .frontend import syntax as ir
from .frontend.diagnostics import Code, Diagnostic, SpecError
from .frontend.instances import Instance, instantiate
from .frontend.parser import parse_file, parse_source
from .frontend.resolve import resolve_spec
from .frontend.typed import VarInfo, model_name
from .symbolic import replay as z3replay
from .symbolic import setup as z3setup
from .symbolic.terms import Unsupported


@dataclass
class InstanceResult:
    label: str
    model: str
    states: int
    transitions: int
    seconds: float
    complete: bool
    stop_reason: str = ""
    symmetry: str = ""  # the reduction used ("rotations of 43 seats"), or why none ("none: ...")


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
    unfinished: dict[str, str] = field(default_factory=dict)  # instance label -> why it was not checked to its end
    not_checked: list[NotChecked] = field(default_factory=list)  # expectations the run could not tell
    unchecked_models: dict[str, str] = field(default_factory=dict)  # model -> why it was not checked to its end
    left_out_models: set[str] = field(default_factory=set)  # models --only/--param selected only a part of
    interrupted: str = ""  # how far an interrupted run got; "" if it ran to its end
    checked: int = 0  # instances whose checks finished
    fail_on: str = "warning"  # the least severity of an unexpected finding that fails the run (--fail-on)
    fail_on_incomplete: bool = False  # --fail-on ...,incomplete: a run not checked to its end exits 3 even with findings

    @property
    def unexpected(self) -> list[Finding]:
        return [f for f in self.findings if not f.expected and f.severity != "info"]

    @property
    def failing(self) -> list[Finding]:
        """The unexpected findings severe enough to fail the run."""
        return [f for f in self.unexpected if f.severity == "error" or self.fail_on == "warning"]

    def exit_code(self) -> int:
        """2 bad input; 4 the engines disagree (no verdict can be trusted); 3 interrupted (the
        findings shown are not all there are); 1 findings; 3 incomplete; 0 clean. With
        `fail_on_incomplete`, incomplete beats findings: 1 then means "checked to the end"."""
        if self.diagnostics:
            return 2
        if self.disagreements:
            return 4
        if self.interrupted or self.fail_on_incomplete and self.is_incomplete:
            return 3
        if self.failing:
            return 1
        if self.is_incomplete:
            return 3
        return 0

    @property
    def is_incomplete(self) -> bool:
        """Whether some part of the run was not checked to its end (a limit, an instance never
        started, an expectation that could not be told)."""
        return bool(self.incomplete or self.unfinished or self.not_checked)


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
                diags.append(Diagnostic(Code.UNREADABLE, f"no spec files (*.rw) in {p}", ir.Span(p, 0, 0, 0, 0),
                                        "give spec files or folders that contain them"))
        elif path.exists() or path.is_symlink():  # a dangling or looping symlink: parse_file says which
            files.append((str(path), Path(include_root or path.parent)))
        else:
            diags.append(Diagnostic(Code.UNREADABLE, f"no such file or folder: {p}", ir.Span(p, 0, 0, 0, 0),
                                    "give spec files (*.rw) or folders that contain them"))
    return files, diags


@dataclass
class Plan:
    """One file through the front end: its models and every instance of them."""
    spec: ir.SpecFile
    instances: list[Instance]
    root: Path = Path(".")  # the folder tree its includes must stay in


def front_end(paths: list[str], res: Result, include_root: str | None = None) -> list[Plan]:
    """Parse, resolve and instantiate everything; errors go to res.diagnostics, all of them."""
    files, diags = collect_files(paths, include_root)
    res.diagnostics.extend(diags)
    res.files = [f for f, _ in files]
    plans = [front_end_file(path, root, res) for path, root in files]
    return [p for p in plans if p is not None]


def front_end_file(path: str, root, res: Result, text: str | None = None,
                   buffers: dict[str, str] | None = None) -> Plan | None:
    """One spec file through parsing, resolution and instantiation; errors go to res.diagnostics.
    With `text`, that is the file's content (an editor's unsaved buffer); includes come from disk,
    or from `buffers` (real path -> text: an editor's unsaved include file)."""
    try:
        spec = parse_file(path, root, buffers) if text is None else parse_source(text, path, root)
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
    return Plan(spec, instances, Path(root))


EXPLORE_SHARE = 0.8  # of an instance's time and memory; the rest is the checks'
CONTRADICTION_SHARE, CONTRADICTION_SECONDS = 0.25, 10.0  # at most, for the Z3 contradiction check


@dataclass(frozen=True)
class Selection:
    """The part of a run to check: `only` holds FORMAT, FORMAT/READING or /READING (the
    reading of a file without formats); `params` the values allowed per parameter. Empty
    selects everything."""
    only: tuple[str, ...] = ()
    params: tuple[tuple[str, tuple[int, ...]], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.only or self.params)

    def selects(self, inst: Instance) -> bool:
        if self.only and not any(_only_matches(o, inst) for o in self.only):
            return False
        return all(inst.params.get(name) in values for name, values in self.params)


def _only_matches(only: str, inst: Instance) -> bool:
    fmt, _, reading = only.partition("/")
    return inst.format == fmt and (not reading or inst.reading == reading)


def check(paths: list[str], limits: Limits = Limits(), replay: bool = True,
          graphs: dict | None = None, include_root: str | None = None, jobs: int = 1,
          cluster: str | None = None, select: Selection = Selection(), progress=None) -> Result:
    """Check every instance of the files. `limits.max_seconds` is the whole run's, shared fairly
    among the instances (checker.runner); `jobs` > 1 checks them in that many local processes,
    `cluster` on a Dask scheduler; the report is the same, byte for byte, either way."""
    res = Result()
    plans = front_end(paths, res, include_root)
    if res.diagnostics:
        return res  # every static error at once, before anything is explored
    chosen = [(plan, i, inst) for plan in plans for i, inst in enumerate(plan.instances)
              if select.selects(inst)]
    if select and not chosen:
        res.diagnostics.append(_nothing_selected(plans, select))
        return res
    outcomes: dict[int, Outcome] = {}  # by position in `chosen`
    missed: dict[int, str] = {}  # why an instance was not checked
    digests = {id(plan): spec_digest(plan.spec) for plan in plans}
    cwd = os.getcwd()

    def make_task(k: int, share) -> Task:
        plan, index, inst = chosen[k]
        # findings earlier instances of the file made (and keep: a second try may replace an
        # outcome cut short) are grouped under the earlier one's, so replaying them here is
        # not needed: it would not be reported either way
        skip = frozenset(_key(f) for j, o in outcomes.items()
                         if j < k and chosen[j][0] is plan and not o.short_of_time for f in o.findings)
        return Task(plan.spec.path, str(plan.root), cwd, index, inst.label, digests[id(plan)],
                    replace(limits, max_seconds=share.seconds, max_memory=share.memory,
                            max_wall_seconds=share.wall), share.why, replay, skip, k)

    def run_here(task: Task) -> Outcome:
        return check_instance(chosen[task.position][2], task, graphs)

    def done(k: int, outcome: Outcome) -> None:
        outcomes[k] = outcome

    # a worker forked from this process (checker.runner) finds the files parsed here already
    seeded = {(plan.spec.path, str(plan.root), cwd): (digests[id(plan)], plan.instances) for plan in plans}
    _plans.update(seeded)
    try:
        runner.run([inst.label for _, _, inst in chosen], make_task, run_here, run_task, done,
                   missed.__setitem__, limits, jobs=jobs if graphs is None else 1,
                   cluster=cluster, progress=progress)
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM through the CLI: report what was finished
        res.interrupted = (f"the run was interrupted after {len(outcomes)} of {len(chosen)} instance(s); "
                           "the findings of the others are missing")
    finally:
        for key in seeded:
            _plans.pop(key, None)
    res.checked = len(outcomes)
    for plan in plans:
        mine = [(k, i) for k, (p, i, _) in enumerate(chosen) if p is plan]
        if mine or not select:  # a file --only or --param left out entirely is not reported on
            _merge_file(plan, mine, outcomes, missed, res)
    res.findings.sort(key=_order)
    return res


def _nothing_selected(plans: list[Plan], select: Selection) -> Diagnostic:
    """What --only and --param could have named instead."""
    lines = []
    for plan in plans:
        models: dict[tuple[str, str], dict[str, set]] = {}
        for inst in plan.instances:
            params = models.setdefault((inst.format, inst.reading), {})
            for name, value in inst.params.items():
                params.setdefault(name, set()).add(value)
        for (fmt, reading), params in models.items():
            name = (fmt + (f"/{reading}" if reading else "")) if fmt else (f"/{reading}" if reading else "(no format)")
            shown = "; ".join(f"{k} = {', '.join(map(str, sorted(v)))}" for k, v in params.items())
            lines.append((f"{plan.spec.path}: " if len(plans) > 1 else "") + name + (f" ({shown})" if shown else ""))
    asked = [f"--only {o}" for o in select.only] + [f"--param {n}={','.join(map(str, v))}" for n, v in select.params]
    return Diagnostic(Code.UNREADABLE, f"no instance matches {' '.join(asked)}", ir.Span(plans[0].spec.path if plans else "", 0, 0, 0, 0),
                      "there are " + ("; ".join(lines) if lines else "no instances"))


def _key(f: Finding) -> tuple:
    return (f.model,) + f.signature()


def _order(f: Finding):
    kinds = list(KINDS)
    return (f.model, kinds.index(f.kind), f.rules, f.message, f.instance)


def _merge_file(plan: Plan, chosen: list[tuple[int, int]], outcomes: dict, missed: dict, res: Result) -> None:
    """One file's outcomes, in instance order whatever order they finished in: grouped, replay
    verdicts applied, expectations and readings compared when everything they speak of was
    checked to its end; an expectation of a model that was not is "not checked"."""
    spec = plan.spec
    linted = lint(spec)
    assign_fingerprints(linted)
    res.findings.extend(linted)
    raw: list[Finding] = []
    done: list[Instance] = []
    notes: dict[int, str] = {}  # id(finding) -> why its replay did not run
    unfinished: dict[str, str] = {}  # instance label -> why it was not checked to its end
    for k, index in chosen:
        inst = plan.instances[index]
        o = outcomes.get(k)
        if o is None:
            why = missed.get(k, "not checked: the run stopped before it")
            unfinished[inst.label] = why
            if k in missed:
                res.incomplete.append(f"{inst.label}: {why}")
            continue
        if o.instance is not None:
            res.instances.append(o.instance)
        res.incomplete.extend(o.incomplete)
        raw.extend(o.findings)
        notes.update((id(o.findings[j]), why) for j, why in o.replay_notes.items())
        done.append(inst)
        reasons = o.incomplete + list(o.replay_notes.values())
        if reasons or o.interrupted:
            unfinished[inst.label] = reasons[0].removeprefix(inst.label + ": ") if reasons else "interrupted"
    res.unfinished.update(unfinished)
    kept = []
    grouped = _group(raw, done)
    _say_where_dead(grouped, done, raw, res)
    for f in grouped:
        if id(f) in notes:
            res.incomplete.append(notes[id(f)])
        if f.replay.startswith("FAILED"):
            res.disagreements.append(Disagreement(f, f.replay.removeprefix("FAILED: ")))
            continue
        kept.append(f)
    # a model not checked to its end (a limit hit, interrupted) cannot tell an unmet expectation:
    # it is not checked; one only a part of which was selected says nothing of it (a deliberate
    # part is no incomplete run); a file not wholly checked cannot compare its readings
    position = {i: k for k, i in chosen}
    unchecked: dict[str, str] = {}  # model -> why
    left_out: set[str] = set()  # models --only or --param selected a part of: a part says nothing of the rest
    for i, inst in enumerate(plan.instances):
        if i not in position:
            left_out.add(inst.model_name)
        elif inst.label in unfinished and inst.model_name not in unchecked:
            unchecked[inst.model_name] = f"{inst.label} was not checked to its end"
    assign_fingerprints(kept)
    models: dict[str, Instance] = {}  # the first chosen instance of each model: its `expect`s
    for _, i in chosen:
        models.setdefault(plan.instances[i].model_name, plan.instances[i])
    unmet, not_checked = _apply_expectations(list(models.values()), kept, unchecked)
    kept.extend(f for f in unmet if f.model not in left_out)
    res.not_checked.extend(not_checked)
    res.unchecked_models.update(unchecked)
    res.left_out_models.update(left_out)
    if not unfinished and len(done) == len(chosen):
        differ = _compare_readings(done, kept)
        assign_fingerprints(differ)
        kept.extend(differ)
    res.findings.extend(kept)


@dataclass
class Task:
    """What a worker needs to rebuild one instance by itself and check it: the file (as named,
    with its include root and the folder it was named from), the instance's place among the
    file's instances, what the front end must give there (its label and a digest of the parsed
    file, so an edit during the run is noticed), and this instance's limits."""
    path: str
    root: str
    cwd: str
    index: int
    label: str
    digest: str
    limits: Limits
    why: str  # what hitting the time limit says
    replay: bool
    skip: frozenset = frozenset()  # finding keys whose replay is not needed
    position: int = 0  # in the run


@dataclass
class Outcome:
    """One instance checked: its findings (replayed), size and what stopped short."""
    findings: list[Finding] = field(default_factory=list)
    instance: InstanceResult | None = None
    incomplete: list[str] = field(default_factory=list)
    replay_notes: dict[int, str] = field(default_factory=dict)  # finding index -> why not replayed
    interrupted: bool = False  # stopped by Ctrl-C during its replays (only in this process)
    short_of_time: bool = False  # incomplete because its share of the run's time ran out
    dropped: bool = False  # memory ran out: nothing of the instance is reported
    cpu_seconds: float = 0.0  # what checking it cost (its share of the run's time is settled with it)


def spec_digest(spec: ir.SpecFile) -> str:
    """A digest of a parsed file, includes spliced in: equal in every process that parses the same text."""
    return hashlib.sha256(repr(spec).encode("utf-8")).hexdigest()


_plans: dict[tuple[str, str, str], tuple[str, list[Instance]]] = {}  # per worker process: files it parsed


def run_task(task: Task) -> Outcome:
    """A worker's entry: rebuild the instance through the (deterministic) front end, once per
    file and process, and check it."""
    if os.getcwd() != task.cwd:
        os.chdir(task.cwd)  # the paths are as the user gave them, relative to where the run started
    key = (task.path, task.root, task.cwd)
    for fresh in (key not in _plans, True):  # a file parsed for an earlier run may have changed since
        if fresh:
            res = Result()
            plan = front_end_file(task.path, Path(task.root), res)
            _plans[key] = (spec_digest(plan.spec) if plan else "", plan.instances if plan else [])
        digest, instances = _plans[key]
        if digest == task.digest and task.index < len(instances) and instances[task.index].label == task.label:
            return check_instance(instances[task.index], task)
        if fresh:
            break
    return Outcome(incomplete=[f"{task.label}: not checked: {task.path} reads differently in the worker "
                               "(edited during the run, or not the same file on a cluster worker)"])


def check_instance(inst: Instance, task: Task, graphs: dict | None = None) -> Outcome:
    """Everything about one instance, within its limits: the contradiction check, exploration,
    the checks, and the Z3 replay of each finding that may be reported (its trace is the first
    of its group). The findings come back without their replay context, ready to travel."""
    limits = task.limits
    budget = Budget(limits, why=task.why)
    o = Outcome()
    try:
        return _check_instance(inst, task, graphs, budget, o)
    finally:
        o.cpu_seconds = cpu_seconds() - budget.start


def _check_instance(inst: Instance, task: Task, graphs, budget: Budget, o: Outcome) -> Outcome:
    limits = task.limits
    found: list[Finding] = []
    replayable: dict[int, tuple[Machine, Graph]] = {}  # id(finding) -> where its trace was found
    try:
        with watchdog(budget):
            _explore_and_check(inst, limits, budget, task.replay, o, graphs, replayable, found, task.position)
    except LimitHit as exc:  # spent where no cooperative check stopped it: keep what was found
        o.incomplete.append(f"{inst.label}: stopped ({exc}); findings that need more were not checked")
    except MemoryError:  # an allocation failed, maybe half way through the graph: trust none of it
        replayable.clear()
        gc.collect()
        o.incomplete.append(f"{inst.label}: memory ran out (MemoryError); nothing of this instance is reported")
        o.dropped = True
        return o
    o.findings = found
    memo: dict = {}  # the Z3 replays of this instance's steps: traces share their first steps
    for j, f in enumerate(found):
        if id(f) not in replayable or _key(f) in task.skip:
            continue
        if o.interrupted:
            f.replay = "not run: the run was interrupted"
            continue
        notes = Outcome()
        try:
            f.replay = _replay_within(budget, *replayable[id(f)], f, notes, memo)
        except KeyboardInterrupt:  # keep this instance's findings; the run stops after it
            o.interrupted = True
            f.replay = "not run: the run was interrupted"
        if notes.incomplete:
            o.replay_notes[j] = notes.incomplete[0]
    under = abstraction_of(inst)
    for f in found:
        f.context = {}  # what the replay needed: big, and not part of any report
        f.abstraction = under
    lines = o.incomplete + list(o.replay_notes.values())
    o.short_of_time = (bool(lines) and task.why.startswith("its share")
                       and not any(w in line for line in lines
                                   for w in ("memory", "state limit", "initial states)", "wall-clock")))
    return o


def _replay_within(budget: Budget, machine: Machine, graph: Graph, f: Finding, res, memo: dict | None = None) -> str:
    try:
        budget.check()
        with watchdog(budget):
            return replay_finding(machine, graph, f, memo)
    except LimitHit as exc:
        res.incomplete.append(f"{f.instance}: the Z3 replay of the {f.kind} finding was not run ({exc})")
        return f"not replayed: {exc}"


def _explore_and_check(inst: Instance, limits: Limits, budget: Budget, replay: bool, res: Outcome, graphs,
                       replayable: dict, out: list[Finding], position: int = -1) -> None:
    model = inst.model_name
    said = len(res.incomplete)
    out.extend(_contradiction(inst, budget, res))
    unknown = res.incomplete[said:] if inst.static_choices else []  # no verdict on the choices left to Z3
    if not any(f.kind == "contradiction" for f in out):  # with no setup at all, nothing is possible
        out.extend(_possibles(inst, budget, res))
    machine = _explorer(inst, out)
    # `rulewright diff` walks the graphs' own edges (checker.diff): it gets full graphs
    graph, reduction = _explore_maybe_reduced(inst, machine, limits, budget, position, graphs is None)
    found, stopped = None, ""
    if graph.__class__ is symmetry.ReducedGraph:
        try:
            found, stopped = run_checks_within(graph, budget)
        except symmetry.Unreduced as exc:  # a check needs the full graph: explore it (docs/checks.md)
            reduction = f"none: {exc}"
            graph = explore(machine, limits, budget.share(EXPLORE_SHARE), on_states=live.reporter(position))
    graph.setup_unknown = "; ".join(unknown)
    if graphs is not None:
        graphs[inst.label] = graph
    reduced = graph.__class__ is symmetry.ReducedGraph
    res.instance = InstanceResult(inst.label, model, graph.nreal if reduced else len(graph.states),
                                  graph.nreal_edges if reduced else len(graph.edges), graph.seconds,
                                  graph.complete, graph.stop_reason, reduction)
    if not graph.complete:
        res.incomplete.append(f"{inst.label}: exploration stopped ({graph.stop_reason}) after "
                              f"{len(graph.states):,} states; findings that need the whole graph were not checked")
    if not graph.init_ids and not graph.setup_errors and graph.complete and not any(f.kind == "contradiction" for f in out):
        m = inst.model
        out.append(Finding("contradiction", "no initial state satisfies the setup rules",
                           tuple(t for d in m.inits + m.constraints for t in d.tags),
                           (inst.spec.span,), inst.label, model, key="no initial state", subject=("no initial state",)))
    _cross_check_possibles(inst, graph, out)
    if not reduced:
        found, stopped = run_checks_within(graph, budget)
    found = _fold_into_contradiction(out, found, graph)
    if stopped:
        res.incomplete.append(f"{inst.label}: the checks stopped ({stopped})")
    for f in found:
        if replay and f.trace:
            replayable[id(f)] = (machine, graph)
        out.append(f)


def _explore_maybe_reduced(inst: Instance, machine: Machine, limits: Limits, budget: Budget, position: int,
                           allowed: bool = True):
    """(graph, the reduction used or why none): the reduced search when the instance has a
    symmetry (checker.explicit.symmetry) and its reachable states are closed under it."""
    why = "off (--symmetry off)" if symmetry.mode() == "off" else "" if allowed else "the full graph is needed"
    n = 0
    if not why:
        n, why = symmetry.detect(inst)
        if n and not machine.packed:
            n, why = 0, "the instance runs on the closure successors"
    if n:
        graph = symmetry.explore_reduced(machine, symmetry.Rotation(machine, n), limits,
                                         budget.share(EXPLORE_SHARE), on_states=live.reporter(position))
        if graph is not None:
            return graph, graph.symmetry
        why = "the reachable states are not closed under rotation"
        # the rotations that map the setup onto itself keep the reachable set closed by themselves
        step = symmetry.setup_step(machine, n, limits.max_states, budget)
        if step:
            graph = symmetry.explore_reduced(machine, symmetry.Rotation(machine, n, step), limits,
                                             budget.share(EXPLORE_SHARE), on_states=live.reporter(position))
            if graph is not None:
                return graph, graph.symmetry
    return explore(machine, limits, budget.share(EXPLORE_SHARE), on_states=live.reporter(position)), f"none: {why}"


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


def _ask_within(part: Budget, ask):
    """Z3's verdict `ask(milliseconds left)` within `part` (building the formulas included: a
    quantifier over 0..10^8 is built term by term); ("unknown", why) when the formulas cannot be
    encoded or the part runs out, so the caller makes the instance incomplete, never clean."""
    try:
        part.check()
        with watchdog(part):
            return ask(max(1, int(part.remaining() * 1000)))
    except Unsupported as exc:
        return ("unknown", f"not encodable: {exc}")
    except LimitHit as exc:
        return ("unknown", str(exc))


def _contradiction(inst: Instance, budget: Budget, res: Outcome) -> list[Finding]:
    """The Z3 contradiction check within its part of the instance's time; "unknown" makes the
    instance incomplete."""
    seconds = min(CONTRADICTION_SECONDS, CONTRADICTION_SHARE * budget.seconds)
    part = budget.part(seconds, f"the contradiction check's {seconds:g}s ran out")
    verdict = _ask_within(part, lambda ms: z3setup.contradiction(inst, ms))
    if verdict and verdict[0] == "unknown":
        res.incomplete.append(f"{inst.label}: the contradiction check is incomplete (Z3: {verdict[1]})")
        return []
    if not verdict:
        return []
    core = verdict[1]
    rules = [t for d, _ in core for t in d.tags]
    what = "; ".join(sorted({w for _, w in core}))
    subject = tuple(sorted({w.strip("`") for _, w in core}))  # the constraints (by name) that conflict
    f = Finding("contradiction", f"no setup satisfies all of: {what}", tuple(dict.fromkeys(rules)),
                tuple(d.span for d, _ in core), inst.label, inst.model_name, key=what, subject=subject)
    # a conflict among the choices Z3 alone decides: the explorer, which does not enumerate
    # them, has initial states all the same, and none of them is a setup's
    f.context["static_choices"] = any(_reads_static_choice(d) for d, _ in core)
    return [f]


def _explorer(inst: Instance, found: list[Finding]) -> Machine:
    """The instance's machine for the explorer, given the contradiction check's findings: where
    the choices Z3 alone decides have no value that satisfies their constraints, no setup
    exists, and the explorer (which does not enumerate them) must start from no state."""
    machine = machine_for(inst)
    machine.no_setup = any(f.kind == "contradiction" and f.context.get("static_choices") for f in found)
    return machine


def _reads_static_choice(d) -> bool:
    """Whether a declaration of a contradiction's core is about a choice Z3 alone decides (its
    type, or a constraint that reads one). Such choices are tied to nothing the explorer
    enumerates (checker.frontend.resolve), so a minimal core with one of them is about them alone."""
    if isinstance(d, VarInfo):
        return d.static
    cond = getattr(d, "cond", None)
    return cond is not None and reads_static(cond)


def _possibles(inst: Instance, budget: Budget, res: Outcome) -> list[Finding]:
    """Each `possible` property asked of Z3 within the contradiction check's part of the time:
    an unsatisfiable one is an `impossible-property` finding naming the setup rules that rule it
    out (a minimal core); "unknown" makes the instance incomplete, never clean."""
    out: list[Finding] = []
    for d in inst.model.possibles:
        seconds = min(CONTRADICTION_SECONDS, CONTRADICTION_SHARE * budget.seconds)
        part = budget.part(seconds, f"the check of `possible {d.name}` ran out of its {seconds:g}s")
        for env, shown in _possible_bindings(inst, d):
            verdict = _ask_within(part, lambda ms, env=env: z3setup.impossible(inst, d.cond, ms, env))
            if verdict and verdict[0] == "unknown":
                res.incomplete.append(f"{inst.label}: `possible {d.name}`{shown} was not decided (Z3: {verdict[1]})")
                continue
            if not verdict:
                continue
            core = verdict[1]
            names = sorted({w for _, w in core})
            why = ("it is ruled out by: " + "; ".join(names)) if names else "it holds in no setup at all"
            rules = list(d.tags) + [t for c, _ in core for t in c.tags]
            # what the finding is about (and for which binding); the rules that rule it out are in its rules
            subject = (d.name,) + ((shown.strip(" ()").removeprefix("for "),) if shown else ())
            out.append(Finding("impossible-property", f"no setup allows `{d.name}`{shown}: {why}",
                               tuple(dict.fromkeys(rules)), (d.span,) + tuple(c.span for c, _ in core), inst.label,
                               inst.model_name, key=f"{d.name}{shown}: {why}", subject=subject))
    return out


def _possible_bindings(inst: Instance, d):
    """(binder uid -> value, " (for t=A, p=A1)") for every binding of a `possible` property's
    parameters (their domains are fixed: the resolve pass allows no state in them); one empty
    binding for a property without parameters."""
    if not d.params:
        yield {}, ""
        return
    m = Machine(inst)
    binders = m._binders(d.params)
    for values in _binding_values(m, binders):
        env = {b.uid: v for (b, _), v in zip(d.params, values)}
        yield env, " (for " + ", ".join(f"{b.name}={inst.show(b.type, v)}" for (b, _), v in zip(d.params, values)) + ")"


def abstraction_of(inst: Instance) -> str:
    """The abstractions an instance is checked under, in the spec's words with this instance's
    numbers: "life in steps of 1,000; V=2 for the document's 11" ("" for none). They are the
    writer's claims (docs/language.md, "Large numbers"), which the checker does not prove."""
    from .frontend.consts import evaluate
    parts = []
    for p in inst.model.params:
        if p.abstracts is not None:
            parts.append(f"{p.name}={inst.params.get(p.name)} for the document's {_number(evaluate(p.abstracts, inst.params))}")
    for v in list(inst.vars) + list(inst.static_choices.values()):
        if v.info.step is not None:
            lo, hi = v.type.low * v.step, v.type.high * v.step
            parts.append(f"{v.name} in steps of {_number(v.step)} ({_number(lo)}..{_number(hi)} checked as "
                         f"{v.type.low}..{v.type.high})")
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


def _cross_check_possibles(inst: Instance, graph: Graph, out: list[Finding]) -> None:
    """The explorer's view of each `possible` property, where it has one: with no choice left
    to Z3 and every initial state enumerated, the explored initial states are exactly the setups,
    so a `possible` holds in one of them exactly when Z3 found a setup for it. A finding Z3 made
    is confirmed (its `replay`) or the engines disagree; a `possible` Z3 satisfied but no initial
    state satisfies is a disagreement too (a finding whose replay failed, as for traces). With
    no setup at all (a contradiction), nothing is asked."""
    # (a reduced search keeps one initial state per orbit: not every setup)
    if (not inst.model.possibles or inst.static_choices or not graph.complete or graph.setup_errors
            or not graph.init_ids or any(f.kind == "contradiction" for f in out)
            or graph.__class__ is not Graph or inst.model.triggers):  # (triggers may change a setup's values)
        for f in out:
            if f.kind == "impossible-property" and not f.replay:
                f.replay = "not replayed: the explorer does not enumerate every setup here"
        return
    from .explicit.compile import EvalError
    ref = Machine(inst)
    inits = [graph.values(sid) for sid in graph.init_ids]
    for d in inst.model.possibles:
        cond = ref.comp.expr(d.cond)
        binders = ref._binders(d.params)
        for values, (_, shown) in zip(_binding_values(ref, binders), _possible_bindings(inst, d)):
            ref.bind(binders, values)
            holds = False
            for slots in inits:
                try:
                    holds = bool(cond(ref.reader(slots)))
                except EvalError:
                    holds = False
                if holds:
                    break
            subject = (d.name,) + ((shown.strip(" ()").removeprefix("for "),) if shown else ())
            mine = [f for f in out if f.kind == "impossible-property" and f.subject == subject]
            if mine:
                mine[0].replay = ("FAILED: the explorer has an initial state that satisfies it" if holds
                                  else "confirmed by the explorer's initial states")
            elif not holds:
                out.append(Finding("impossible-property", f"no setup allows `{d.name}`{shown} (the explorer)",
                                   tuple(d.tags), (d.span,), inst.label, inst.model_name, key=d.name + shown,
                                   subject=subject,
                                   replay="FAILED: Z3 finds a setup that satisfies it; no explored initial state does"))


def _binding_values(machine: Machine, binders) -> list:
    """Every binding of fixed domains (a `possible` property's parameters), in the order
    `_possible_bindings` lists them."""
    from .explicit.compile import Ctx
    return list(machine.bindings(binders, Ctx(()))) if binders else [()]


def replay_finding(machine: Machine, graph: Graph, f: Finding, memo: dict | None = None) -> str:
    """The finding's trace re-executed by the symbolic engine: "confirmed", "not replayed: why",
    or "FAILED: what the replay saw"."""
    if "setup_error" in f.context:
        e = f.context["setup_error"]
        problem = z3replay.replay_setup(machine.inst, e.values, e.where, e.kind)
        if problem.startswith("not replayed"):
            return problem
        return f"FAILED: {problem}" if problem else "confirmed"
    steps = []
    path = [st for st in f.trace if st.sid >= 0]
    for a, b in zip(path, path[1:]):
        action, binding, hits = graph.labels[b.lid]
        steps.append(z3replay.ReplayStep(graph.values(a.sid), action, binding, graph.values(b.sid), hits=hits))
    if "failing_step" in f.context:
        src, step = f.context["failing_step"]
        steps.append(z3replay.ReplayStep(graph.values(src), step.action, step.binding, None, step.error_kind, step.where))
    problem = z3replay.replay(machine.inst, steps, memo)
    if not problem and "failing_condition" in f.context:
        cond, state = f.context["failing_condition"]
        if not z3replay.fails_in(machine.inst, state, cond):
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
            groups[key].abstraction = _merge_abstractions(groups[key].abstraction, f.abstraction)
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


def _apply_expectations(models: list[Instance], findings: list[Finding], unchecked: dict[str, str]
                        ) -> tuple[list[Finding], list[NotChecked]]:
    """Mark what each model's `expect`s accept (checker.analyses.expectations); (the unmet ones,
    the ones of models in `unchecked` that no finding meets)."""
    expectations = [Expectation(inst.model_name, e.kind, e.tags, e.subject, e.measures, e.fingerprint, e.note, e.span)
                    for inst in models for e in inst.model.expects]  # kinds checked by resolve
    unmet, not_checked = apply_expectations(findings, expectations, unchecked)
    assign_fingerprints(unmet)
    return unmet, not_checked


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
