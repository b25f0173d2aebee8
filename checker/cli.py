"""The command line: a thin layer over `checker.engine`.

Exit codes: 0 clean, 1 findings, 2 bad input or usage, 3 incomplete (a limit was hit and no
unexpected finding was made, or the run was interrupted), 4 the engines disagree on a
counterexample (a bug in rulewright: no verdict of the run can be trusted, so it beats findings
and incomplete). Findings beat incomplete because they are definite; an interrupted run exits 3
even with findings, because the findings it shows are not all there are.

Ctrl-C and SIGTERM (an outer `timeout`) stop the run; the findings of the instances already
checked are printed. Running out of memory is a limit hit too (exit 3), never an internal error.
"""
from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import re
import signal
import sys
from pathlib import Path

from .analyses import coverage as cov
from .frontend.diagnostics import SpecError, render_all
from .explicit.explore import explore
from .analyses.findings import KINDS
from .limits import Budget, LimitHit, Limits, default_memory_mib, limit_problem, watchdog
from .outputs.trace import to_itf
from .remote import ClusterError
from .runner import PoolError

EXIT_CLEAN, EXIT_FINDINGS, EXIT_BAD_INPUT, EXIT_INCOMPLETE, EXIT_ENGINES_DISAGREE = 0, 1, 2, 3, 4


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # usage errors exit 2, like bad input, without a traceback
        self.print_usage(sys.stderr)
        print(f"rulewright: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="rulewright", description="Model-check the rules of multiplayer card game formats.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    c = sub.add_parser("check", help="check spec files or folders and report findings")
    c.add_argument("paths", nargs="+", help="spec files (*.rw) or folders")
    c.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    _limit_args(c, states=200_000, seconds=120.0)
    c.add_argument("--itf", metavar="DIR", help="write each counterexample as ITF JSON into DIR")
    c.add_argument("--no-replay", action="store_true", help="skip the Z3 replay of counterexamples")
    c.add_argument("--stats", action="store_true", help="add per-instance sizes and timings (not deterministic)")
    _include_root(c)
    _run_args(c)

    g = sub.add_parser("graph", help="print an instance's state graph as DOT")
    g.add_argument("spec")
    g.add_argument("--instance", default="", help="substring of the instance label (default: the first)")
    _limit_args(g, states=5_000, seconds=60.0)
    _include_root(g)

    v = sub.add_parser("coverage", help="per document: formalized, out of scope and missing rule ids")
    v.add_argument("paths", nargs="+")
    _include_root(v)

    sub.add_parser("kinds", help="list the finding kinds")
    return p


def _limit_args(p: argparse.ArgumentParser, states: int, seconds: float) -> None:
    memory = default_memory_mib()
    p.add_argument("--max-states", type=_limit(int, "--max-states"), default=states,
                   help=f"per instance (default {states})")
    p.add_argument("--max-seconds", type=_limit(float, "--max-seconds"), default=seconds,
                   help=f"for the whole run, shared fairly among its instances (default {seconds:g})")
    p.add_argument("--max-memory", type=_limit(float, "--max-memory"), default=memory, metavar="MIB",
                   help=f"memory of the whole run in MiB (default {memory}: 4096, or 3/4 of the machine's if less)")


def _limit(kind, name: str):
    """An argparse type: a number of `kind` that is finite and greater than 0."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a {'whole ' if kind is int else ''}number, not {text!r}")
        problem = limit_problem(name, value)
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return value
    return parse


def _limits(args) -> Limits:
    return Limits(args.max_states, args.max_seconds, args.max_memory)


def _run_args(p: argparse.ArgumentParser) -> None:
    """Where the instances run and which of them (checker.runner, engine.Selection)."""
    p.add_argument("--jobs", type=_jobs, default=None, metavar="N",
                   help="check instances in N local processes (default: one per core; 1: in this process)")
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="check instances on a Dask scheduler, e.g. tcp://host:8786 (pip install 'rulewright[cluster]')")
    p.add_argument("--only", action="append", default=[], metavar="FORMAT[/READING]",
                   help="check only this format, or one reading of it (/READING: a reading of a file "
                        "without formats); repeatable")
    p.add_argument("--param", action="append", default=[], type=_param, metavar="NAME=VALUE",
                   help="check only the instances with this parameter value; repeatable")


def _run_options(args) -> dict:
    from .engine import Selection
    from .progress import Progress, wanted
    from .runner import default_jobs

    params: dict[str, list[int]] = {}
    for name, value in args.param:
        params.setdefault(name, []).append(value)
    return dict(jobs=args.jobs or default_jobs(), cluster=args.cluster,
                select=Selection(tuple(args.only), tuple((n, tuple(v)) for n, v in params.items())),
                progress=Progress() if wanted() else None)


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--jobs must be a whole number, not {text!r}")
    if value < 1:
        raise argparse.ArgumentTypeError(f"--jobs must be at least 1, not {value}")
    return value


def _param(text: str) -> tuple[str, int]:
    name, eq, value = text.partition("=")
    try:
        if not eq or not name.strip():
            raise ValueError
        return name.strip(), int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--param takes NAME=VALUE with a whole number, such as N=4; not {text!r}")


def _include_root(p: argparse.ArgumentParser) -> None:
    p.add_argument("--include-root", metavar="DIR", type=_folder,
                   help="the folder tree specs and their includes must stay in (default: the folder of "
                        "each file named, or the folder walked)")


def _folder(text: str) -> str:
    if not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"not a folder: {text}")
    return text


def _terminate(signum, frame):
    raise KeyboardInterrupt  # SIGTERM (an outer timeout) stops the run the way Ctrl-C does


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    old_term = signal.getsignal(signal.SIGTERM)
    try:
        signal.signal(signal.SIGTERM, _terminate)
    except ValueError:  # not the main thread: leave SIGTERM alone
        old_term = None
    try:
        return _run(args)
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)


def _run(args) -> int:
    try:
        if args.command == "check":
            return cmd_check(args)
        if args.command == "graph":
            return cmd_graph(args)
        if args.command == "coverage":
            return cmd_coverage(args)
        if args.command == "kinds":
            for k, (sev, desc) in KINDS.items():
                print(f"{k:22} {sev:8} {desc}")
            return EXIT_CLEAN
    except SpecError as exc:
        print(render_all(exc.diagnostics), file=sys.stderr)
        return EXIT_BAD_INPUT
    except (ClusterError, PoolError) as exc:
        print(f"rulewright: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("rulewright: interrupted", file=sys.stderr)
        return EXIT_INCOMPLETE
    except (MemoryError, LimitHit) as exc:  # outside any instance (each keeps its own): still a limit, not a bug
        gc.collect()
        why = "memory ran out" if isinstance(exc, MemoryError) else str(exc)
        print(f"rulewright: incomplete: {why}", file=sys.stderr)
        return EXIT_INCOMPLETE
    except Exception as exc:  # a bug in rulewright: say so plainly; RULEWRIGHT_DEBUG=1 shows the traceback
        if os.environ.get("RULEWRIGHT_DEBUG"):
            raise
        print(f"rulewright: internal error: {exc.__class__.__name__}: {exc}\n"
              "  this is a bug in rulewright, not in your spec; rerun with RULEWRIGHT_DEBUG=1 and report the traceback",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_BAD_INPUT


def cmd_check(args) -> int:
    from . import engine
    from .outputs import report

    res = engine.check(args.paths, _limits(args), replay=not args.no_replay, include_root=args.include_root,
                       **_run_options(args))
    if args.format == "json":
        sys.stdout.write(report.as_json(res, args.stats))
    elif args.format == "sarif":
        sys.stdout.write(report.as_sarif(res))
    else:
        sys.stdout.write(report.text(res, args.stats))
    if args.itf:
        write_itf(res, Path(args.itf))
    return res.exit_code()


def itf_name(f) -> str:
    """A file name that is the same in every run and differs for every finding of a run: a
    readable part (model, kind, first rules) and a hash of the finding's fingerprint (model and
    its grouping signature: kind, rules and key), which the grouping makes unique per run."""
    base = f"{f.model}-{f.kind}-{'-'.join(f.rules[:3])}"
    fingerprint = json.dumps([f.model, *f.signature()], ensure_ascii=False)
    digest = hashlib.sha256(fingerprint.encode("utf-8")).hexdigest()[:10]
    return re.sub(r"[^A-Za-z0-9._-]+", "_", base).strip("_")[:120] + f"-{digest}.itf.json"


def write_itf(res, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for f in res.findings:
        if f.trace:
            (folder / itf_name(f)).write_text(json.dumps(to_itf(f), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def cmd_graph(args) -> int:
    from . import engine
    from .explicit.explore import describe_label
    from .explicit.machine import Machine

    res = engine.Result()
    root = Path(args.include_root) if args.include_root else Path(args.spec).parent
    plan = engine.front_end_file(args.spec, root, res)
    plans = [plan] if plan is not None else []
    if res.diagnostics:
        raise SpecError(res.diagnostics)
    insts = [i for plan in plans for i in plan.instances if args.instance in i.label]
    if not insts:
        print(f"rulewright: no instance of {args.spec} matches {args.instance!r}", file=sys.stderr)
        return EXIT_BAD_INPUT
    limits = _limits(args)
    budget = Budget(limits)
    with watchdog(budget):
        graph = explore(Machine(insts[0]), limits, budget)
    inst = insts[0]
    lines = [f'digraph "{_esc(inst.label)}" {{', "  rankdir=LR;", "  node [shape=box, fontsize=9];"]
    for sid, state in enumerate(graph.states):
        desc = _state_label(graph, state)
        shape = ', style=bold' if sid in graph.init_ids else ''
        if state[-1]:
            shape += ', peripheries=2'
        lines.append(f'  s{sid} [label="{desc}"{shape}];')
    for s, d, lid in graph.edges:
        text, rules = describe_label(graph, lid)
        label = text + (f" [{', '.join(rules)}]" if rules else "")
        style = ", style=dashed" if graph.is_leave(lid) else ""
        lines.append(f'  s{s} -> s{d} [label="{_esc(label)}"{style}];')
    lines.append("}")
    print("\n".join(lines))
    if not graph.complete:
        print(f"rulewright: graph incomplete ({graph.stop_reason})", file=sys.stderr)
        return EXIT_INCOMPLETE
    return EXIT_CLEAN


def _state_label(graph, state) -> str:
    from .analyses.traces import show, state_values
    return "\\n".join(_esc(f"{k}={show(v)}") for k, v in state_values(graph, state))  # \n: a line break in the label


def _esc(s: str) -> str:
    """Text inside a DOT double-quoted string: a backslash would escape the next character (a
    trailing one the closing quote) and Graphviz reads \\n, \\l, \\N... in labels. A line break
    becomes a line break of the label; other control characters become `?`."""
    s = s.replace("\\", "\\\\").replace('"', '\\"')
    return re.sub(r"[\x00-\x1f\x7f]", lambda m: "\\n" if m[0] == "\n" else "?", s)


def cmd_coverage(args) -> int:
    from .engine import collect_files
    from .frontend.parser import parse_file

    files, diags = collect_files(args.paths, args.include_root)
    if diags:
        print(render_all(diags), file=sys.stderr)
        return EXIT_BAD_INPUT
    specs = [parse_file(f, root) for f, root in files]
    covs = cov.coverage(specs)
    print(cov.render(covs))
    return EXIT_FINDINGS if any(c.missing for c in covs) else EXIT_CLEAN
