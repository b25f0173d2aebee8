"""What the editor shows, computed without any LSP library: problems in a document and the
quoted rule behind a rule id.

- `tree_for`: the folder tree a document's includes must stay in: the workspace folder that
  holds it (includes are confined to what the user opened, not to the document's folder).
- `front_end_problems`: syntax, name and type errors of the text being typed (the front end on
  the in-memory text; includes are read from disk, inside the document's tree).
- `check_problems_within`: the findings of a check of the saved file, run in a separate
  process that is killed when its time is up, so the server can never hang on a big spec.
  Each finding's counterexample story (the triggers and outcome rules its steps ran, what
  blocks the players of a deadlock) comes as related places (`Related`).
- `rule_at`: the rule id under the cursor, in a `[...]` tag or as an entry of `document {}`.

An include file (any document that is not a `*.rw` spec, such as a `.rwi`) is no spec: alone
it declares no players. It is checked through the specs of its tree that include it, directly
or through other includes (checker.frontend.includers), with its text in place of the file's,
and what they report inside it is shown, naming the spec it came through. When no spec
includes it, one information diagnostic says so (and syntax errors, which are its own).

Positions here are the spec's own: 1-based lines and columns counted in characters. The
server converts them to what the client counts (checker.lsp.server).
"""
from __future__ import annotations

import multiprocessing
import os
import re
from dataclasses import dataclass, replace

from ..analyses.findings import Finding
from ..engine import Result, check, front_end_file
from ..frontend.diagnostics import Diagnostic, SpecError
from ..frontend.includers import includers as find_includers, is_spec
from ..frontend.parser import parse_text
from ..limits import Limits
from ..outputs.report import decisions_text

# A check on save explores each instance within these limits, and the whole check within
# SAVE_SECONDS: an editor wants an answer in seconds, `rulewright check` gives the full one.
SAVE_LIMITS = Limits(max_states=20_000, max_seconds=5.0)
SAVE_SECONDS = 60.0


@dataclass(frozen=True)
class Related:
    """A place a problem's story points to (LSP relatedInformation): a rule a step of its
    counterexample ran, the guard that blocks a player of a deadlock."""
    file: str
    line: int  # 1-based, in characters, as Span counts
    col: int
    end_line: int
    end_col: int
    message: str


RELATED = 40  # places per problem: an editor's hover is no place for a 200-step story


@dataclass(frozen=True)
class Problem:
    line: int  # 1-based, in characters, as Span counts
    col: int
    end_line: int
    end_col: int
    severity: str  # error | warning | info | hint
    code: str
    message: str
    related: tuple[Related, ...] = ()


def _problem_at(span, file: str, severity: str, code: str, message: str) -> Problem:
    """A problem at `span` if it lies in `file`; else at the top of the document, naming where it is."""
    if span is None or span.file != file or span.line < 1:
        where = f" ({span})" if span is not None and span.line >= 1 else ""
        return Problem(1, 1, 1, 1, severity, code, message + where)
    end_line, end_col = span.end_line, span.end_col
    if (end_line, end_col) <= (span.line, span.col):
        end_line, end_col = span.line, span.col + 1
    return Problem(span.line, span.col, end_line, end_col, severity, code, message)


def _from_diagnostic(d: Diagnostic, file: str) -> Problem:
    message = d.message + (f" (in {d.context})" if d.context else "") + (f"; {d.hint}" if d.hint else "")
    return _problem_at(d.span, file, d.severity, d.code, message)


def tree_for(path: str, folders: list[str]) -> str:
    """The tree the includes of the document at `path` must stay in: the outermost workspace
    folder that holds it (the widest one tree the user opened); when workspace folders are open
    but none holds it, the document alone, which may include nothing (its neighbours lie
    outside what the user opened); with no workspace folder at all (a single file opened), its
    own folder, as `rulewright check FILE` has it."""
    doc = os.path.abspath(path)
    holding = [f for f in map(os.path.abspath, folders) if os.path.commonpath([doc, f]) == f]
    if holding:
        return min(holding, key=len)
    return doc if folders else os.path.dirname(doc)


def front_end_problems(path: str, text: str, root: str | None = None,
                       includers: list[str] | None = None) -> tuple[list[Problem], dict[str, str] | None]:
    """(the front end's errors in `text`, the document's rule ids with their quotes) for the
    document at `path`; the ids are None when the text does not parse. An include file is run
    through `includers`, the specs that include it (None: look for them under `root`)."""
    root = root if root is not None else os.path.dirname(path) or "."
    if not is_spec(path):
        return _include_file_problems(path, text, root, includers)
    res = Result()
    plan = front_end_file(path, root, res, text=text)
    problems = [_from_diagnostic(d, path) for d in res.diagnostics]
    ids = {d.id: d.quote for d in plan.spec.ids} if plan is not None else None
    return problems, ids


# specs run through the front end per change of an include file: typing must stay answered
MAX_INCLUDERS = 8


def includers_in(path: str, root: str) -> list[str]:
    """The specs under `root` that include the file at `path` (none when `root` is the file alone)."""
    return find_includers([path], root) if os.path.isdir(root) else []


def _include_file_problems(path: str, text: str, root: str,
                           includers: list[str] | None) -> tuple[list[Problem], dict[str, str] | None]:
    if includers is None:
        includers = includers_in(path, root)
    if not includers:
        return _not_included(path, text), None
    here = _Here(path)
    shown: dict[Problem, list[str]] = {}
    outside: list[tuple[str, Diagnostic]] = []
    ids = None
    for spec in includers[:MAX_INCLUDERS]:
        res = Result()
        plan = front_end_file(spec, root, res, buffers={here.real: text})
        if plan is not None and ids is None:
            ids = {d.id: d.quote for d in plan.spec.ids}
        for d in res.diagnostics:
            if here(d.span.file):
                shown.setdefault(_from_diagnostic(d, d.span.file), []).append(os.path.basename(spec))
            else:
                outside.append((spec, d))
    problems = [replace(p, message=f"{p.message} (through {', '.join(specs)})") for p, specs in shown.items()]
    if outside:
        spec, d = outside[0]
        n = sum(1 for s, _ in outside if s == spec)
        problems.append(Problem(1, 1, 1, 1, "info", d.code,
                                f"{os.path.basename(spec)}, which includes this file, has {n} error(s) in other files "
                                f"with this text, the first at {d.span}: {d.message}"))
    if len(includers) > MAX_INCLUDERS:
        problems.append(Problem(1, 1, 1, 1, "info", "includers",
                                f"checked as you type through {MAX_INCLUDERS} of the {len(includers)} specs that "
                                f"include this file; the check on save uses them all"))
    return problems, ids


def _not_included(path: str, text: str) -> list[Problem]:
    """An include file no spec includes: its syntax errors (its own, whatever includes it) and
    one note, not the errors of a spec without players."""
    note = Problem(1, 1, 1, 1, "info", "not-included",
                   "no spec (*.rw) in the workspace includes this file, so it is not checked: an include file "
                   "is checked as part of each spec that includes it")
    try:
        parse_text(text, path)
    except SpecError as exc:
        return [_from_diagnostic(d, path) for d in exc.diagnostics] + [note]
    return [note]


class _Here:
    """Whether a span's file is the document: an include's spans name it as the including file
    wrote it (`specs/sub/../common.rwi`), so real paths are compared."""

    def __init__(self, path: str):
        self.real = os.path.realpath(path)
        self.seen: dict[str, bool] = {}

    def __call__(self, file: str) -> bool:
        if file not in self.seen:
            self.seen[file] = os.path.realpath(file) == self.real  # a file the parser read, inside the tree
        return self.seen[file]


def finding_problem(f: Finding, file: str) -> Problem:
    severity = "info" if f.expected or f.follows else f.severity  # a consequence is told under its cause
    message = f"{f.kind}: {'expected ' if f.expected else ''}{f.message}"
    if f.follows_fingerprint:
        message += f" (it follows from the finding {f.follows_fingerprint})"
    if f.rules:
        message += f" [{', '.join(f.rules)}]"
    where = f.instances or [f.instance]
    message += f" (in {where[0]}" + (f" and {len(where) - 1} more instance(s))" if len(where) > 1 else ")")
    if f.trace:
        message += f"; counterexample of {len(f.trace)} step(s), `rulewright check` shows it"
    span = next((s for s in f.spans if s.file == file), f.spans[0] if f.spans else None)
    return replace(_problem_at(span, file, severity, f.kind, message), related=finding_related(f))


def finding_related(f: Finding) -> tuple[Related, ...]:
    """The story of a finding's counterexample as places (checker.analyses.story): each rule a
    step ran after its action, with what it decided, then what blocks each player of a deadlock."""
    out: list[Related] = []
    for st in f.trace or ():
        for r in st.ran:
            if r.kind == "action" or r.span.line < 1:
                continue  # the step's action is the trace itself; a rule without a place has none to show
            outcome = r.outcome()
            out.append(_related(r.span, f"step {st.number} ({st.action}): {r.text(place=False)}"
                                + (f"; {outcome}" if outcome else "")))
    out += [_related(b.span, f"what blocks {b.text(place=False)}") for b in f.blocked if b.span is not None and b.span.line >= 1]
    return tuple(out[:RELATED])


def _related(span, message: str) -> Related:
    end_line, end_col = span.end_line, span.end_col
    if (end_line, end_col) <= (span.line, span.col):
        end_line, end_col = span.line, span.col + 1
    return Related(span.file, span.line, span.col, end_line, end_col, message)


def check_problems(path: str, root: str | None = None, limits: Limits = SAVE_LIMITS) -> list[Problem]:
    """The findings (and the front end's errors) of a check of the file at `path`, as problems.
    An include file is checked through the specs under `root` that include it; what they report
    inside it is shown."""
    if is_spec(path):
        res = check([path], limits, include_root=root)
        out = [_from_diagnostic(d, path) for d in res.diagnostics]
        out.extend(finding_problem(f, path) for f in res.findings)
    else:
        root = root if root is not None else os.path.dirname(path) or "."
        specs = includers_in(path, root)
        if not specs:
            return []  # the front end's note says why, as the writer types
        res = check(specs, limits, include_root=root)
        here = _Here(path)
        out = [_from_diagnostic(d, d.span.file) for d in res.diagnostics if here(d.span.file)]
        for f in res.findings:
            span = next((s for s in f.spans if here(s.file)), None)
            if span is not None:
                p = finding_problem(f, span.file)
                out.append(replace(p, message=f"{p.message} (through {os.path.basename(f.model.split(' | ')[0])})"))
    for d in res.disagreements:
        out.append(_problem_at(d.finding.spans[0] if d.finding.spans else None, path, "error", "engines-disagree",
                               f"the engines disagree on a {d.finding.kind} counterexample: {d.replay}"))
    decided = [line for i in res.instances for line in decisions_text(i, verbose=False)]
    if decided:  # where the symbolic engine took over: what it decided (the findings are above)
        out.append(Problem(1, 1, 1, 1, "info", "decided", decided[0]
                           + (f" and {len(decided) - 1} more instance(s)" if len(decided) > 1 else "")))
    if res.incomplete:
        out.append(Problem(1, 1, 1, 1, "info", "incomplete",
                           f"the check on save is incomplete (limits {limits.max_states:,} states, "
                           f"{limits.max_seconds:g}s per instance): {res.incomplete[0]}"
                           + (f" and {len(res.incomplete) - 1} more" if len(res.incomplete) > 1 else "")))
    return out


def _worker(conn, path: str, root: str | None, limits: Limits) -> None:
    os.dup2(2, 1)  # stdout is the editor's channel: nothing the check prints may land there
    try:
        conn.send(("ok", check_problems(path, root, limits)))
    except BaseException as exc:  # a bug or a limit outside any instance: a message, not a dead worker
        conn.send(("error", f"{exc.__class__.__name__}: {exc}"))
    finally:
        conn.close()


def check_problems_within(path: str, root: str | None = None, limits: Limits = SAVE_LIMITS,
                          seconds: float = SAVE_SECONDS) -> list[Problem]:
    """`check_problems` in a process of its own, killed after `seconds`."""
    ctx = multiprocessing.get_context("spawn")
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_worker, args=(send, path, root, limits), daemon=True)
    proc.start()
    send.close()
    try:
        if receive.poll(seconds):
            try:
                status, value = receive.recv()
            except EOFError:
                status, value = "error", "the check stopped without an answer"
        else:
            status, value = "timeout", ""
    finally:
        receive.close()
        if proc.is_alive():
            proc.kill()
        proc.join(5)
    if status == "ok":
        return value
    if status == "timeout":
        text = f"the check on save did not finish within {seconds:g}s; run `rulewright check` for its findings"
    else:
        text = f"the check on save failed: {value}"
    return [Problem(1, 1, 1, 1, "info", "incomplete", text)]


_ID_CHARS = re.compile(r"[0-9A-Za-z.]+")


def rule_at(line_text: str, col: int, ids: dict[str, str]) -> str | None:
    """The rule id at 0-based character `col` of a line: in a `[...]` tag (of a declaration, a
    statement, an `expect`...) or as an entry of the `document {}` block (`607.7b: "..."`)."""
    for m in _ID_CHARS.finditer(line_text):
        if m.start() <= col <= m.end():
            word = m.group().strip(".")
            if word not in ids:
                return None
            before = line_text[:m.start()]
            in_tag = before.rfind("[") > before.rfind("]")
            entry = before.strip() == "" and line_text[m.end():].lstrip().startswith(":")
            return word if in_tag or entry else None
    return None


def hover_text(rule: str, quote: str) -> str:
    return f"**{rule}**\n\n> {quote}" if quote else f"**{rule}** (the document block gives no quote)"
