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
comparison of readings see the same input whatever the number of workers. The parts live in
the analyses: the questions asked of Z3 beside exploring (analyses/questions.py), the replay
of counterexamples (analyses/replay.py), grouping and comparing findings (analyses/merging.py).

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
from .analyses import consequences, unbounded
from .analyses.checks import run_checks_within
from .analyses.expectations import Expectation, NotChecked, apply as apply_expectations
from .analyses.findings import KINDS, MEASURES, Finding, assign_fingerprints
from .analyses.lint import lint
from .analyses.merging import (abstraction_of, compare_budgets, compare_readings, finding_key, group, report_order,
                               say_where_dead)
from .analyses.questions import contradiction, cross_check_possibles, explorer_machine, fold_into_contradiction, possibles
from .analyses.replay import replay_within
from .analyses.verdicts import Replay
from .explicit.explore import STEP_LIMIT, Graph, explore
from .explicit import symmetry
from .explicit.machine import Machine
from .limits import Budget, LimitHit, Limits, cpu_seconds, watchdog
from .symbolic import terms
from .frontend import syntax as ir
from .frontend.diagnostics import Code, Diagnostic, SpecError
from .frontend.instances import Instance, instantiate
from .frontend.parser import parse_file, parse_source
from .frontend.resolve import resolve_spec


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
    decisions: list = field(default_factory=list)  # unbounded.Decision: what the symbolic engine decided


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
        return [f for f in self.findings if not f.expected and f.severity != "info" and not f.follows]

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
          cluster: str | None = None, select: Selection = Selection(), progress=None, exact: bool = False) -> Result:
    """Check every instance of the files. `limits.max_seconds` is the whole run's, shared fairly
    among the instances (checker.runner); `jobs` > 1 checks them in that many local processes,
    `cluster` on a Dask scheduler; the report is the same, byte for byte, either way. `exact`:
    the models that round an amount to a step are checked again in ones (checker.exact)."""
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
    cwd, settings = os.getcwd(), run_settings()

    def make_task(k: int, share) -> Task:
        plan, index, inst = chosen[k]
        # findings earlier instances of the file made (and keep: a second try may replace an
        # outcome cut short) are grouped under the earlier one's, so replaying them here is
        # not needed: it would not be reported either way
        skip = frozenset(finding_key(f) for j, o in outcomes.items()
                         if j < k and chosen[j][0] is plan and not o.short_of_time for f in o.findings)
        return Task(plan.spec.path, str(plan.root), cwd, index, inst.label, digests[id(plan)],
                    replace(limits, max_seconds=share.seconds, max_memory=share.memory,
                            max_wall_seconds=share.wall), share.why, replay, skip, k, settings)

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
    if exact and not res.interrupted:
        from . import exact as exact_check
        notes = exact_check.compare(plans, res, limits, {inst.label for _, _, inst in chosen}, check_instance, Task)
        assign_fingerprints(notes)
        res.findings.extend(notes)
    res.findings.sort(key=report_order)
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
    grouped = group(raw, done)
    consequences.link(grouped)  # a consequence whose cause did not survive the merge stands alone
    say_where_dead(grouped, done, raw, res)
    for f in grouped:
        if id(f) in notes:
            res.incomplete.append(notes[id(f)])
        if f.replay is not None and f.replay.failed:
            res.disagreements.append(Disagreement(f, f.replay.why))
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
        differ = compare_readings(done, kept) + compare_budgets(done, kept)
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
    # the run's choices a worker reads from its environment (--engine, --symmetry), as the
    # client made them: a cluster's workers have environments of their own
    settings: tuple[tuple[str, str], ...] = ()


def run_settings() -> tuple[tuple[str, str], ...]:
    """The environment variables that carry --engine and --symmetry, with the values in force."""
    return (("RULEWRIGHT_ENGINE", unbounded.engine_mode()), ("RULEWRIGHT_SYMMETRY", symmetry.mode()))


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
    os.environ.update(task.settings)
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
    terms.fresh_context()  # Z3's choices must not depend on the instances this process checked before
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
    interrupted = Replay("not-run", "the run was interrupted")
    for j, f in enumerate(found):
        if id(f) not in replayable or finding_key(f) in task.skip:
            continue
        if o.interrupted:
            f.replay = interrupted
            continue
        notes = Outcome()
        try:
            f.replay = replay_within(budget, *replayable[id(f)], f, notes, memo)
        except KeyboardInterrupt:  # keep this instance's findings; the run stops after it
            o.interrupted = True
            f.replay = interrupted
        if notes.incomplete:
            o.replay_notes[j] = notes.incomplete[0]
    for f in found:
        f.context = {}  # what the replay needed: big, and not part of any report
        f.abstraction = abstraction_of(inst, f)  # the rounded amounts it touches only
    lines = o.incomplete + list(o.replay_notes.values())
    o.short_of_time = (bool(lines) and task.why.startswith("its share")
                       and not any(w in line for line in lines
                                   for w in ("memory", "state limit", "initial states)", "wall-clock")))
    return o


def _explore_and_check(inst: Instance, limits: Limits, budget: Budget, replay: bool, res: Outcome, graphs,
                       replayable: dict, out: list[Finding], position: int = -1) -> None:
    model = inst.model_name
    # the explorer may stop short for the symbolic engine (unbounded.explorer_states; the
    # directed search keeps the whole limit); `rulewright diff` compares full explorations
    search_limits = limits
    if graphs is None:
        limits = replace(limits, max_states=unbounded.explorer_states(inst, limits.max_states),
                         max_steps=unbounded.explorer_steps(inst))
    said = len(res.incomplete)
    out.extend(contradiction(inst, budget, res))
    undecided = len(res.incomplete) > said  # Z3 could not tell whether any setup exists
    unknown = res.incomplete[said:] if inst.static_choices else []  # no verdict on the choices left to Z3
    if undecided and inst.model.possibles:
        # with no setup at all every property is impossible: that would be the contradiction's
        # consequence, never a finding of its own (a complete run folds it away)
        res.incomplete.append(f"{inst.label}: the `possible` properties were not asked: whether any setup "
                              "exists is not known")
    elif not any(f.kind == "contradiction" for f in out):  # with no setup at all, nothing is possible
        out.extend(possibles(inst, budget, res))
    machine = explorer_machine(inst, out)
    # `rulewright diff` walks the graphs' own edges (checker.diff): it gets full graphs
    graph, reduction = _explore_maybe_reduced(inst, machine, limits, budget, position, graphs is None)
    found, stopped = None, ""

    def hands_over(graph) -> bool:  # to the symbolic engine (never for `rulewright diff`, which
        return graphs is None and unbounded.takes_over(graph) and not unknown  # compares explorations)

    def checks_budget(graph) -> Budget:  # on a graph the symbolic engine takes over, the checks leave it time
        return budget.part(budget.cpu_left() * unbounded.PARTIAL_CHECKS_SHARE,
                           "the checks' share of an unfinished exploration ran out") if hands_over(graph) else budget

    if graph.__class__ is symmetry.ReducedGraph:
        try:
            found, stopped = run_checks_within(graph, checks_budget(graph))
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
    symbolic = hands_over(graph)
    if not graph.complete and not symbolic:
        res.incomplete.append(f"{inst.label}: exploration stopped ({graph.stop_reason}) after "
                              f"{len(graph.states):,} states; findings that need the whole graph were not checked")
    if not graph.init_ids and not graph.setup_errors and graph.complete and not any(f.kind == "contradiction" for f in out):
        m = inst.model
        out.append(Finding("contradiction", "no initial state satisfies the setup rules",
                           tuple(t for d in m.inits + m.constraints for t in d.tags),
                           (inst.spec.span,), inst.label, model, key="no initial state", subject=("no initial state",)))
    cross_check_possibles(inst, graph, out)
    if not reduced:
        found, stopped = run_checks_within(graph, checks_budget(graph))
    found = fold_into_contradiction(out, found, graph)
    if unknown and found:
        # the explorer leaves the choices Z3 decides to Z3 and starts from states that are a
        # setup's only if some value of those choices fits; with no verdict on that, what it
        # found may be about no game at all: incomplete, never a finding (nor a failed expect)
        res.incomplete.append(f"{inst.label}: {len(found)} finding(s) not reported: they hold only if some "
                              "setup exists, which the contradiction check could not tell")
        found = []
    if stopped:
        res.incomplete.append(f"{inst.label}: the checks stopped ({stopped})")
    # the explorer stopped at its state limit: the symbolic engine decides what it can, also
    # when the checks on the unfinished graph ran out of their share of the time
    if symbolic:
        staged = unbounded.engine_mode() == "auto" and (limits.max_states < search_limits.max_states
                                                        or graph.stop_reason.startswith(STEP_LIMIT))
        at = len(res.incomplete)
        res.instance.stop_reason = unbounded.stop_why(inst, graph, staged)
        res.incomplete.append(unbounded.undecided_line(inst, graph, staged))  # said first: a limit may cut what follows
        more, res.instance.decisions, lines = unbounded.beyond(inst, machine, graph, out + found, search_limits, budget)
        res.incomplete[at] = unbounded.undecided_line(inst, graph, staged, res.instance.decisions)
        if not lines and not unbounded.not_decided(inst, res.instance.decisions):
            del res.incomplete[at]  # every check decided by one engine or the other: nothing left unchecked
        found = found + [f for f, _ in more]
        for f, where in more:
            if replay and f.trace and where is not None:
                replayable[id(f)] = (machine, where)
        res.incomplete.extend(lines)
    for f in found:
        if replay and f.trace:
            replayable.setdefault(id(f), (machine, graph))  # (a directed search's findings are in its own graph)
        out.append(f)


def _explore_maybe_reduced(inst: Instance, machine: Machine, limits: Limits, budget: Budget, position: int,
                           allowed: bool = True):
    """(graph, the reduction used or why none): the reduced search when the instance has a
    symmetry (checker.explicit.symmetry) and its reachable states are closed under it."""
    why = "off (--symmetry off)" if symmetry.mode() == "off" else "" if allowed else "the full graph is needed"
    n = 0
    if not why:
        n, why = symmetry.detect(inst)
        if n and limits.max_steps:  # (the reduced search has no such limit)
            n, why = 0, "the explorer's first stage takes a limited number of steps"
        if n and not machine.packed:
            n, why = 0, "the instance runs on the closure successors"
    if n:
        try:
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
        except symmetry.Unreduced as exc:  # a step met does not commute with the rotations (triggers)
            why = str(exc)
    return explore(machine, limits, budget.share(EXPLORE_SHARE), on_states=live.reporter(position)), f"none: {why}"


def _apply_expectations(models: list[Instance], findings: list[Finding], unchecked: dict[str, str]
                        ) -> tuple[list[Finding], list[NotChecked]]:
    """Mark what each model's `expect`s accept (checker.analyses.expectations); (the unmet ones,
    the ones of models in `unchecked` that no finding meets)."""
    expectations = [Expectation(inst.model_name, e.kind, e.tags, e.subject, e.measures, e.fingerprint, e.note, e.span)
                    for inst in models for e in inst.model.expects]  # kinds checked by resolve
    unmet, not_checked = apply_expectations(findings, expectations, unchecked)
    assign_fingerprints(unmet)
    return unmet, not_checked


def load_instances(path: str) -> list[Instance]:
    """Every instance of one spec file, through the whole front end; SpecError with every
    diagnostic if the file has errors (for tests, benchmarks and the graph command)."""
    res = Result()
    plans = front_end([path], res)
    if res.diagnostics:
        raise SpecError(res.diagnostics)
    return [i for plan in plans for i in plan.instances]
