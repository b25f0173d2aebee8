"""The check pipeline: files -> specs -> instances -> explored graphs -> findings -> one result.

For every instance: the Z3 contradiction check, exploration, the generic checks, and a Z3
replay of each counterexample. Findings that recur across parameter values are grouped (the
smallest instance's trace is kept); `expect` declarations mark reviewed findings; readings of
one format are compared.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .frontend import syntax as ir
from .analyses.checks import run_checks
from .explicit.compile import EvalError
from .frontend.diagnostics import Diagnostic, SpecError
from .explicit.explore import Graph, Limits, explore
from .analyses.findings import KINDS, Finding
from .analyses.lint import lint
from .explicit.machine import Machine
from .frontend.instances import Instance, instantiate, model_name
from .frontend.parser import parse_file
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
class Result:
    files: list[str] = field(default_factory=list)
    specs: list[ir.SpecFile] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    instances: list[InstanceResult] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)  # why, per instance

    @property
    def unexpected(self) -> list[Finding]:
        return [f for f in self.findings if not f.expected and f.severity != "info"]

    def exit_code(self) -> int:
        if self.diagnostics:
            return 2
        if self.unexpected:
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


def check(paths: list[str], limits: Limits = Limits(), replay: bool = True,
          graphs: dict | None = None, include_root: str | None = None) -> Result:
    res = Result()
    files, diags = collect_files(paths, include_root)
    res.diagnostics.extend(diags)
    res.files = [f for f, _ in files]
    for path, root in files:
        try:
            spec = parse_file(path, root)
        except SpecError as exc:
            res.diagnostics.extend(exc.diagnostics)
            continue
        res.specs.append(spec)
        try:
            _check_spec(spec, limits, replay, res, graphs)
        except SpecError as exc:
            res.diagnostics.extend(exc.diagnostics)
    res.findings.sort(key=_order)
    return res


def _order(f: Finding):
    kinds = list(KINDS)
    return (f.model, kinds.index(f.kind), f.rules, f.message, f.instance)


def _check_spec(spec: ir.SpecFile, limits: Limits, replay: bool, res: Result, graphs) -> None:
    res.findings.extend(lint(spec))
    raw: list[Finding] = []
    replayable: dict[int, tuple[Machine, Graph]] = {}  # id(finding) -> where its trace was found
    instances = instantiate(spec)
    for inst in instances:
        raw.extend(_check_instance(inst, limits, replay, res, graphs, replayable))
    grouped = _group(raw, instances)
    for f in grouped:  # replayed once per reported finding, after grouping
        if id(f) in replayable:
            f.replay = _replay(*replayable[id(f)], f)
    _apply_expectations(spec, instances, grouped)
    grouped.extend(_compare_readings(instances, grouped))
    res.findings.extend(grouped)


def _check_instance(inst: Instance, limits: Limits, replay: bool, res: Result, graphs,
                    replayable: dict) -> list[Finding]:
    out: list[Finding] = []
    model = inst.model_name
    try:
        verdict = z3backend.contradiction(inst)
    except z3backend.Unsupported as exc:
        verdict = ("unknown", f"not encodable: {exc}")
    if verdict and verdict[0] == "unknown":
        res.incomplete.append(f"{inst.label}: the contradiction check is incomplete (Z3: {verdict[1]})")
    elif verdict:
        core = verdict[1]
        rules = [t for d, _ in core for t in d.tags]
        what = "; ".join(sorted({w for _, w in core}))
        out.append(Finding("contradiction", f"no setup satisfies all of: {what}", tuple(dict.fromkeys(rules)),
                           tuple(d.span for d, _ in core), inst.label, model, key=what))
    machine = Machine(inst)
    graph = explore(machine, limits)
    if graphs is not None:
        graphs[inst.label] = graph
    res.instances.append(InstanceResult(inst.label, model, len(graph.states), len(graph.edges), graph.seconds,
                                        graph.complete, graph.stop_reason))
    if not graph.complete:
        res.incomplete.append(f"{inst.label}: exploration stopped ({graph.stop_reason}) after "
                              f"{len(graph.states):,} states; findings that need the whole graph were not checked")
    if not graph.init_ids and not any(f.kind == "contradiction" for f in out):
        out.append(Finding("contradiction", "no initial state satisfies the setup rules",
                           tuple(t for d in inst.decls if isinstance(d, (ir.InitDecl, ir.ConstraintDecl)) for t in d.tags),
                           (inst.spec.span,), inst.label, model, key="no initial state"))
    try:
        found = run_checks(graph)
    except EvalError as exc:  # e.g. a division by zero in an invariant: the spec's fault, not ours
        raise SpecError(Diagnostic("E017", f"{exc} while checking {inst.label}", exc.span,
                                   "guard the expression so it is defined in every reachable state"))
    for f in found:
        if replay and f.trace:
            replayable[id(f)] = (machine, graph)
        out.append(f)
    return out


def _replay(machine: Machine, graph: Graph, f: Finding) -> str:
    path = [(st.sid, st.lid) for st in f.trace if st.sid >= 0]
    problem = z3backend.replay(machine, graph, path)
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
        else:
            f.instances = [f.instance]
            groups[key] = f
    return list(groups.values())


def _apply_expectations(spec, instances, findings: list[Finding]) -> None:
    models: dict[str, Instance] = {}
    for inst in instances:
        models.setdefault(inst.model_name, inst)
    for model, inst in models.items():
        for e in (d for d in inst.decls if isinstance(d, ir.ExpectDecl)):
            if e.kind not in KINDS:
                raise SpecError(Diagnostic("E020", f"`{e.kind}` is not a finding kind", e.span,
                                           "one of: " + ", ".join(KINDS)))
            hit = False
            for f in findings:
                if f.model == model and f.kind == e.kind and (not e.tags or set(e.tags) & set(f.rules)):
                    f.expected = True
                    hit = True
            if not hit:
                findings.append(Finding("expectation-unmet", f"expected a {e.kind} finding"
                                        + (f" citing {', '.join(e.tags)}" if e.tags else "") + ", but there is none",
                                        e.tags, (e.span,), inst.label, model, key=f"{e.kind}:{e.tags}"))


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
                out.append(Finding("readings-differ", msg, rules, (), model, model, key=f"{a}/{b}"))
    return out
