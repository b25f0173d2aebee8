"""The command line: a thin layer over `checker.engine`.

Exit codes: 0 clean, 1 findings, 2 bad input or usage, 3 incomplete (a limit was hit and no
unexpected finding was made, or the run was interrupted), 4 the engines disagree on a
counterexample (a bug in rulewright: no verdict of the run can be trusted, so it beats findings
and incomplete). Findings beat incomplete because they are definite; an interrupted run exits 3
even with findings, because the findings it shows are not all there are.

Ctrl-C and SIGTERM (an outer `timeout`) stop the run; the findings of the instances already
checked are printed. Running out of memory is a limit hit too (exit 3), never an internal error.
Output cut short by its reader (`rulewright graph X | head`) is not an error either.

Defaults for `check` and `baseline` may come from a `[tool.rulewright]` table in the nearest
pyproject.toml (the working directory or a folder above it; checker.config reads it as
carefully as a spec); the command line wins.
"""
from __future__ import annotations

import argparse
import difflib
import gc
import hashlib
import json
import os
import re
import signal
import sys
from pathlib import Path

from .analyses import coverage as cov
from .config import ConfigError, find_config
from .frontend.diagnostics import SpecError, render_all
from .explicit.explore import explore
from .analyses.findings import KINDS
from .limits import RUN_SECONDS, WALL_FACTOR, Budget, LimitHit, Limits, default_memory_mib, limit_problem, watchdog
from .outputs import formats, report
from .outputs.trace import to_itf
from .remote import ClusterError
from .runner import PoolError

EXIT_CLEAN, EXIT_FINDINGS, EXIT_BAD_INPUT, EXIT_INCOMPLETE, EXIT_ENGINES_DISAGREE = 0, 1, 2, 3, 4
ALL_DIFFERENCES = 20  # `diff --all-differences` without a cap: distinct differences per instance


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # usage errors exit 2, like bad input, without a traceback
        self.print_usage(sys.stderr)
        print(f"rulewright: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def build_parser(config: dict | None = None) -> argparse.ArgumentParser:
    p = _Parser(prog="rulewright", description="Model-check the rules of multiplayer card game formats.")
    p.add_argument("--version", action="version", version=f"rulewright {report.TOOL_VERSION}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    c = sub.add_parser("check", help="check spec files or folders and report findings")
    c.add_argument("paths", nargs="+", help="spec files (*.rw) or folders")
    _limit_args(c, states=200_000, seconds=RUN_SECONDS)
    c.add_argument("--itf", metavar="DIR", help="write each counterexample as ITF JSON into DIR")
    c.add_argument("--no-replay", action="store_true", help="skip the Z3 replay of counterexamples")
    c.add_argument("--stats", action="store_true", help="add per-instance sizes and timings (not deterministic)")
    c.add_argument("--exact", action="store_true",
                   help="check the models that round an amount to a step (`in steps of 5 rounding up`) again with "
                        "those numbers in ones, and note where a verdict differs (abstraction-differs)")
    _include_root(c)
    _report_args(c)
    _run_args(c)
    c.add_argument("--includers-in", metavar="DIR", type=_folder,
                   help="the paths are changed files: check those that are specs (*.rw) and every spec under DIR "
                        "that includes one of them, directly or through other includes (an include file is not "
                        "checked on its own); for pre-commit hooks and CI")

    b = sub.add_parser("baseline", help="write (or refresh) a baseline file of the findings a check makes")
    b.add_argument("paths", nargs="+", help="spec files (*.rw) or folders")
    b.add_argument("-o", "--output", required=True, metavar="FILE", help="the baseline file to write")
    _limit_args(b, states=200_000, seconds=RUN_SECONDS)
    b.add_argument("--no-replay", action="store_true", help="skip the Z3 replay of counterexamples")
    _include_root(b)
    if config:
        _apply_config(config, {"check": c, "baseline": b})

    g = sub.add_parser("graph", help="print an instance's state graph as DOT")
    g.add_argument("spec")
    g.add_argument("--instance", default="", help="substring of the instance label (default: the first)")
    _limit_args(g, states=5_000, seconds=60.0)
    _include_root(g)

    v = sub.add_parser("coverage", help="per document: formalized, out of scope and missing rule ids")
    v.add_argument("paths", nargs="+")
    _include_root(v)

    d = sub.add_parser("diff", help="compare the behaviour of two versions of a spec",
                       description="Compare two versions of a spec, each a file or REV:path (a git revision's file), "
                                   "and report per instance the plays, setups and outcomes one allows and the other "
                                   "does not, and the findings added, fixed or changed.")
    d.add_argument("old", help="the accepted version: a file or REV:path (for example main:spec/x.rw)")
    d.add_argument("new", help="the edited version: a file or REV:path")
    d.add_argument("--accept", metavar="FILE", action="append", default=[],
                   help='a JSON file of accepted differences: {"accepted": [fingerprints]} (repeatable)')
    d.add_argument("--output-format", choices=("text", "json"), default="text")
    d.add_argument("--no-replay", action="store_true", help="skip the Z3 replay of plays and counterexamples")
    d.add_argument("--all-differences", nargs="?", const=ALL_DIFFERENCES, default=0, type=_positive_int, metavar="CAP",
                   help="report every distinct difference of an instance, each with its own play, not only each "
                        f"version's first; at most CAP per instance (default {ALL_DIFFERENCES})")
    _limit_args(d, states=200_000, seconds=RUN_SECONDS)

    a = sub.add_parser("affected", help="list the specs a change of some files calls for checking",
                       description="Print, one per line, each FILE that is a spec (*.rw) and every spec under DIR "
                                   "that includes one of the FILEs, directly or through other includes: the specs "
                                   "to check or diff when include files (*.rwi) changed.")
    a.add_argument("files", nargs="*", metavar="FILE", help="changed files (specs, include files, deleted files)")
    a.add_argument("--in", dest="tree", default=".", type=_folder, metavar="DIR",
                   help="the folder tree whose specs are searched (default: the working folder)")
    m = sub.add_parser("migrate", help="rewrite specs for this version of the language: reserved words, expectations",
                       description="Rename the names that are now reserved words, and rewrite the [rules] and "
                                   "fingerprint of each `expect` whose finding now cites other rules (docs/usage.md, "
                                   "\"Migrating specs\"). Prints a unified diff per file; writes nothing without --write. "
                                   "Exit codes: 0 nothing to do, 1 changes proposed (or written), 2 bad input, "
                                   "3 nothing to change but a limit kept something from being told.")
    m.add_argument("paths", nargs="+", help="spec files (*.rw) or folders")
    m.add_argument("--write", action="store_true", help="write the changes into the files (each atomically)")
    _limit_args(m, states=200_000, seconds=RUN_SECONDS)
    m.add_argument("--no-replay", action="store_true", help="skip the Z3 replay of counterexamples")
    m.add_argument("--jobs", type=_jobs, default=None, metavar="N",
                   help="check instances in N local processes (default: one per core; 1: in this process)")
    _include_root(m)
    sub.add_parser("kinds", help="list the finding kinds")
    sub.add_parser("lsp", help="run the language server on stdin/stdout (for editors)")
    return p


# ---------------------------------------------------------------- reporting flags and config

def _report_args(c: argparse.ArgumentParser) -> None:
    """How `check` reports: format, verbosity, which kinds, what fails the run, a baseline."""
    names = ", ".join(formats.FORMATS)
    c.add_argument("--output-format", type=_output_format, default="text", metavar="FORMAT",
                   help=f"one of: {names} (default text)")
    c.add_argument("--format", type=_output_format, dest="deprecated_format", metavar="FORMAT",
                   help="deprecated alias of --output-format (`format` also names a block of the language)")
    v = c.add_mutually_exclusive_group()
    v.add_argument("-v", "--verbose", action="store_true", help="also print reviewed findings and notes in full")
    v.add_argument("-q", "--quiet", action="store_true", help="print the summary only (text output)")
    c.add_argument("--select", type=_kinds("--select"), metavar="KINDS",
                   help="report only these finding kinds (comma-separated; see `rulewright kinds`)")
    c.add_argument("--ignore", type=_kinds("--ignore"), metavar="KINDS", help="do not report these finding kinds")
    c.add_argument("--fail-on", type=_fail_on, default=("warning", False), metavar="LEVEL[,incomplete]",
                   help="the least severity of an unexpected finding that makes the exit code 1: error or warning "
                        "(default warning); with `,incomplete`, a run not checked to its end exits 3 even with "
                        "findings, so 1 always means fully checked (what a CI should set)")
    c.add_argument("--baseline", metavar="FILE", help="accept the findings a baseline file (`rulewright baseline`) lists")


def _fail_on(text: str) -> tuple[str, bool]:
    """--fail-on: (least failing severity, whether incomplete beats findings)."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    levels = [p for p in parts if p in ("error", "warning")]
    wrong = [p for p in parts if p not in ("error", "warning", "incomplete")]
    if wrong or len(levels) > 1 or not parts:
        raise argparse.ArgumentTypeError(f"--fail-on must be one of: error, warning, incomplete, or a level and "
                                         f"incomplete separated by a comma (warning,incomplete), not {text!r}")
    return (levels[0] if levels else "warning"), "incomplete" in parts


def _output_format(text: str) -> str:
    if text not in formats.FORMATS:
        raise argparse.ArgumentTypeError(f"unknown output format {text!r}; one of: {', '.join(formats.FORMATS)}")
    return text


def _kinds(flag: str):
    def parse(text) -> list[str]:
        kinds = [k.strip() for k in (text.split(",") if isinstance(text, str) else text) if k.strip()]
        for k in kinds:
            if k not in KINDS:
                close = difflib.get_close_matches(k, KINDS, n=1)
                raise argparse.ArgumentTypeError(f"{flag}: {k!r} is not a finding kind"
                                                 + (f" (did you mean {close[0]!r}?)" if close else "; see `rulewright kinds`"))
        return kinds
    return parse


# [tool.rulewright] key -> the option it sets a default for, and which commands have it
CONFIG_KEYS: dict[str, tuple[str, tuple[str, ...]]] = {
    "output-format": ("--output-format", ("check",)),
    "select": ("--select", ("check",)),
    "ignore": ("--ignore", ("check",)),
    "fail-on": ("--fail-on", ("check",)),
    "baseline": ("--baseline", ("check",)),
    "max-states": ("--max-states", ("check", "baseline")),
    "max-seconds": ("--max-seconds", ("check", "baseline")),
    "max-wall-seconds": ("--max-wall-seconds", ("check", "baseline")),
    "max-memory": ("--max-memory", ("check", "baseline")),
    "no-replay": ("--no-replay", ("check", "baseline")),
}


def _apply_config(config: dict, parsers: dict[str, argparse.ArgumentParser]) -> None:
    """Defaults from [tool.rulewright], checked with the same rules as the command line."""
    path = config.get("__path__", "pyproject.toml")
    for key, value in config.items():
        if key == "__path__":
            continue
        if key not in CONFIG_KEYS:
            raise ConfigError(f"{path}: [tool.rulewright] has no setting {key!r}; known: {', '.join(CONFIG_KEYS)}")
        flag, commands = CONFIG_KEYS[key]
        for name in commands:
            p = parsers[name]
            action = next(a for a in p._actions if flag in a.option_strings)
            if isinstance(action, argparse._StoreTrueAction):
                if not isinstance(value, bool):
                    raise ConfigError(f"{path}: [tool.rulewright] {key} must be true or false")
                p.set_defaults(**{action.dest: value})
                continue
            if isinstance(value, list) and key in ("select", "ignore"):
                value = ",".join(map(str, value))
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                raise ConfigError(f"{path}: [tool.rulewright] {key} must be a string or a number")
            try:
                parsed = action.type(str(value)) if action.type else str(value)
            except argparse.ArgumentTypeError as exc:
                raise ConfigError(f"{path}: [tool.rulewright] {key}: {exc}")
            if action.choices and parsed not in action.choices:
                raise ConfigError(f"{path}: [tool.rulewright] {key} must be one of: {', '.join(action.choices)}")
            p.set_defaults(**{action.dest: parsed})


def _report_options(args, res) -> tuple[str, report.Options]:
    """Apply --select/--ignore, --fail-on and --baseline to the result; the output format and options."""
    fmt = args.output_format
    if args.deprecated_format:
        print("rulewright: warning: --format is deprecated; use --output-format", file=sys.stderr)
        fmt = args.deprecated_format
    if args.baseline:
        from .baseline import apply_baseline
        from .analyses.merging import report_order
        for warning in apply_baseline(res, args.baseline):
            print(f"rulewright: warning: {warning}", file=sys.stderr)
        res.findings.sort(key=report_order)
    if args.select:
        res.findings = [f for f in res.findings if f.kind in args.select]
    if args.ignore:
        res.findings = [f for f in res.findings if f.kind not in args.ignore]
    res.fail_on, res.fail_on_incomplete = args.fail_on
    verbosity = 1 if args.verbose else -1 if args.quiet else 0
    return fmt, report.Options(stats=args.stats, verbosity=verbosity)


def _emit(text: str) -> None:
    """Write to stdout; a reader that stops early (`| head`) ends the output quietly."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()


def _silence_stdout() -> None:
    # what is still buffered would fail again when Python exits: point stdout at /dev/null
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


# ---------------------------------------------------------------- limits

def _limit_args(p: argparse.ArgumentParser, states: int, seconds: float) -> None:
    memory = default_memory_mib()
    p.add_argument("--max-states", type=_limit(int, "--max-states"), default=states,
                   help=f"per instance (default {states})")
    p.add_argument("--max-seconds", type=_limit(float, "--max-seconds"), default=seconds,
                   help=f"CPU seconds per worker for the whole run, shared fairly among its instances "
                        f"(default {seconds:g}; the same verdicts on a busy machine as on an idle one)")
    p.add_argument("--max-wall-seconds", type=_limit(float, "--max-wall-seconds"), default=None, metavar="SECONDS",
                   help=f"wall-clock bound of the whole run (default {WALL_FACTOR:g} times --max-seconds)")
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
    return Limits(args.max_states, args.max_seconds, args.max_memory, args.max_wall_seconds)


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
    p.add_argument("--engine", choices=("auto", "explicit", "symbolic"), default=None,
                   help="auto (default): the explorer, and where it stops at its state limit, the symbolic "
                        "engine (Z3 Spacer proofs, directed plays) for the safety checks; "
                        "explicit: the explorer only; symbolic: the explorer looks first at a few states, "
                        "then the symbolic engine decides (docs/checks.md)")
    p.add_argument("--symmetry", choices=("auto", "off"), default=None,
                   help="symmetry reduction: auto (default) explores one state per rotation of the seats "
                        "where the rules treat every seat alike; off explores every state (docs/checks.md)")


# What --engine and --symmetry set for this run (read by the checks, in this process and in the
# workers it starts); `main` puts them back as it found them, so a caller that runs two commands
# in one process (the tests, the language server) does not carry the first one's choice over.
SETTINGS = ("RULEWRIGHT_ENGINE", "RULEWRIGHT_SYMMETRY")


def _restore(settings: dict[str, str | None]) -> None:
    for name, value in settings.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def _run_options(args) -> dict:
    from .engine import Selection
    from .progress import Progress, wanted
    from .runner import default_jobs

    if args.symmetry:  # read by checker.explicit.symmetry, in this process and in the workers it starts
        os.environ["RULEWRIGHT_SYMMETRY"] = args.symmetry
    if args.engine:  # read by checker.analyses.unbounded, as the symmetry setting is
        os.environ["RULEWRIGHT_ENGINE"] = args.engine
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


def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return n


def _folder(text: str) -> str:
    if not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"not a folder: {text}")
    return text


def _terminate(signum, frame):
    raise KeyboardInterrupt  # SIGTERM (an outer timeout) stops the run the way Ctrl-C does


def main(argv: list[str] | None = None) -> int:
    try:
        where, table = find_config()
        args = build_parser({**table, "__path__": str(where)} if table else None).parse_args(argv)
    except ConfigError as exc:
        print(f"rulewright: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except SpecError as exc:  # a pyproject.toml or a file it names that is refused unread
        print(render_all(exc.diagnostics), file=sys.stderr)
        return EXIT_BAD_INPUT
    old_term = signal.getsignal(signal.SIGTERM)
    try:
        signal.signal(signal.SIGTERM, _terminate)
    except ValueError:  # not the main thread: leave SIGTERM alone
        old_term = None
    settings = {name: os.environ.get(name) for name in SETTINGS}
    try:
        return _run(args)
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
        _restore(settings)


def _run(args) -> int:
    try:
        if args.command == "check":
            return cmd_check(args)
        if args.command == "graph":
            return cmd_graph(args)
        if args.command == "coverage":
            return cmd_coverage(args)
        if args.command == "lsp":
            from .lsp.server import serve
            return serve()
        if args.command == "baseline":
            return cmd_baseline(args)
        if args.command == "diff":
            return cmd_diff(args)
        if args.command == "affected":
            return cmd_affected(args)
        if args.command == "migrate":
            return cmd_migrate(args)
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
    except BrokenPipeError:  # the reader went away (`| head`): nothing to report to
        _silence_stdout()
        return EXIT_CLEAN
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
    from contextlib import ExitStack

    from . import engine
    from .files import OutputFolder

    paths = args.paths
    if args.includers_in:
        from .frontend.includers import affected
        paths = affected(args.paths, args.includers_in)
        if not paths:
            print(f"rulewright: nothing to check: no spec is named, and none under {args.includers_in} includes "
                  "the files named", file=sys.stderr)
            return EXIT_CLEAN
    with ExitStack() as stack:
        # opened before the run, so a folder with a symlink in the way fails at once, not after it
        itf = stack.enter_context(OutputFolder(args.itf)) if args.itf else None
        res = engine.check(paths, _limits(args), replay=not args.no_replay, include_root=args.include_root,
                           exact=args.exact, **_run_options(args))
        fmt, options = _report_options(args, res)
        _emit(formats.FORMATS[fmt](res, options))
        if itf is not None:
            write_itf(res, itf)
    return res.exit_code()


def cmd_migrate(args) -> int:
    from .migrate import migrate, write
    from .runner import default_jobs

    out = migrate(args.paths, _limits(args), replay=not args.no_replay, include_root=args.include_root,
                  jobs=args.jobs or default_jobs())
    if out.diagnostics:
        print(render_all(out.diagnostics), file=sys.stderr)
        print("rulewright: nothing migrated: fix the errors above first", file=sys.stderr)
        return EXIT_BAD_INPUT
    _emit("".join(c.diff() for c in out.changes))
    for n in out.notes:
        print(f"{n.where}: {n.message}", file=sys.stderr)
    if args.write and out.changes:
        write(out.changes)
        print(f"rulewright: wrote {len(out.changes)} file(s)", file=sys.stderr)
    elif out.changes:
        print(f"rulewright: {len(out.changes)} file(s) to change; --write writes them", file=sys.stderr)
    return out.exit_code()


def cmd_affected(args) -> int:
    from .frontend.includers import affected

    specs = affected(args.files, args.tree)
    for s in specs:
        if not s.isprintable():  # a line break would make one name two lines of the list
            print(f"rulewright: error: a spec path holds a line break or another control character: {s!r}; "
                  "rename the file", file=sys.stderr)
            return EXIT_BAD_INPUT
    _emit("".join(f"{s}\n" for s in specs))
    return EXIT_CLEAN


def cmd_baseline(args) -> int:
    from . import engine
    from .baseline import render

    res = engine.check(args.paths, _limits(args), replay=not args.no_replay, include_root=args.include_root)
    if res.diagnostics:
        print(render_all(res.diagnostics), file=sys.stderr)
        return EXIT_BAD_INPUT
    code = res.exit_code()
    if code == EXIT_ENGINES_DISAGREE:
        print(report.text(res, verbosity=-1), file=sys.stderr, end="")
        print("rulewright: no baseline written: the engines disagree", file=sys.stderr)
        return code
    text = render(res.findings, args.output)
    Path(args.output).write_text(text, encoding="utf-8")
    n = text.count('"fingerprint"')
    print(f"rulewright: wrote {n} finding(s) to {args.output}", file=sys.stderr)
    for why in res.incomplete:
        print(f"incomplete: {why}", file=sys.stderr)
    if res.interrupted or res.incomplete:
        print("rulewright: the baseline is incomplete: findings a longer run would make are missing", file=sys.stderr)
        return EXIT_INCOMPLETE
    return EXIT_CLEAN


def itf_name(f) -> str:
    """A file name that is the same in every run and differs for every finding of a run: a
    readable part (the model's file name, format and reading, kind, first rules) and the finding's
    fingerprint, unique per run. No folders and no leading dot: a spec named `../x.rw` gives
    `x.rw-...`, never a hidden file."""
    model = f.model.split(" | ")
    base = "-".join([Path(model[0]).name, *model[1:], f.kind, *f.rules[:3]])
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", base).lstrip("._-")[:120].rstrip("._-")
    digest = f.fingerprint or hashlib.sha256(json.dumps([f.model, *f.signature()]).encode()).hexdigest()[:12]
    return f"{readable or 'finding'}-{digest}.itf.json"


def write_itf(res, folder) -> None:
    """One ITF file per counterexample, into a checker.files.OutputFolder (no symlink followed)."""
    for f in res.findings:
        if f.trace:
            folder.write(itf_name(f), json.dumps(to_itf(f), indent=2, ensure_ascii=False) + "\n")


def cmd_graph(args) -> int:
    from . import engine
    from .explicit.compiled import machine_for

    limits = _limits(args)
    budget = Budget(limits)  # of the whole command: the front end, exploring and drawing
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
    inst = insts[0]
    with watchdog(budget):  # exploring leaves some of the time to drawing, as a check leaves it to its checks
        graph = explore(machine_for(inst), limits, budget.share(engine.EXPLORE_SHARE))
    lines, stopped = _dot(graph, inst.label, budget)
    _emit("\n".join(lines) + "\n")
    if not graph.complete or stopped:
        why = "; ".join(w for w in (graph.stop_reason, stopped and f"drawing stopped ({stopped})") if w)
        print(f"rulewright: graph incomplete ({why})", file=sys.stderr)
        return EXIT_INCOMPLETE
    return EXIT_CLEAN


def _dot(graph, label: str, budget: Budget) -> tuple[list[str], str]:
    """The graph as DOT lines, and why drawing it stopped ("" if it did not): the budget is
    read every 64 states and edges (a state can have a million edges), and what was drawn
    stays a whole graph: its states, then the edges between them."""
    from .explicit.explore import describe_label

    lines = [f'digraph "{_esc(label)}" {{', "  rankdir=LR;", "  node [shape=box, fontsize=9];"]
    stopped = ""
    try:
        with watchdog(budget):
            for sid, state in enumerate(graph.states):
                if not sid & 63:
                    budget.check()
                desc = _state_label(graph, state)
                shape = ', style=bold' if sid in graph.init_ids else ''
                if state[-1]:
                    shape += ', peripheries=2'
                lines.append(f'  s{sid} [label="{desc}"{shape}];')
            for k, (s, d, lid) in enumerate(graph.edges):
                if not k & 63:
                    budget.check()
                text, rules = describe_label(graph, lid)
                label_text = text + (f" [{', '.join(rules)}]" if rules else "")
                style = ", style=dashed" if graph.is_leave(lid) else ""
                lines.append(f'  s{s} -> s{d} [label="{_esc(label_text)}"{style}];')
    except LimitHit as exc:  # raised before a line was added: the lines so far are whole
        stopped = str(exc)
    lines.append("}")
    return lines, stopped


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


def cmd_diff(args) -> int:
    from contextlib import ExitStack

    from .diff import diff, load_accepted
    from .frontend.revision import RevisionError, materialize, split
    from .outputs import diff_report

    accepted: dict[str, str] = {}
    try:
        for f in args.accept:
            accepted.update(load_accepted(f))
    except ValueError as exc:
        print(f"rulewright: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    display: dict[str, str] = {}
    with ExitStack() as stack:
        sides = []
        for arg in (args.old, args.new):
            rev = split(arg)
            if rev is None:
                if not Path(arg).is_file():
                    print(f"rulewright: error: not a spec file: {arg} (name a spec file or REV:path)", file=sys.stderr)
                    return EXIT_BAD_INPUT
                sides.append((arg, None, arg))
                continue
            try:
                m = materialize(*rev)
            except RevisionError as exc:
                print(f"rulewright: error: {arg}: {exc}", file=sys.stderr)
                return EXIT_BAD_INPUT
            stack.callback(m.close)
            display[m.path] = m.shown
            display[m.prefix] = m.shown.rsplit("/", 1)[0] + "/" if "/" in m.shown else m.shown.split(":")[0] + ":"
            sides.append((m.path, m.root, m.shown))
        res = diff(sides[0], sides[1], _limits(args), replay=not args.no_replay, accepted=accepted,
                   every=args.all_differences)
        render = diff_report.as_json if args.output_format == "json" else diff_report.text
        sys.stdout.write(render(res, display))
    return res.exit_code()
