"""`rulewright migrate`: reviewed specs brought up to a new version of the language.

Three changes break a spec nobody edited: a word becomes reserved (a variable named `over` no
longer resolves), a finding cites other rules than when it was reviewed (its `expect [rules]`,
which names the exact set, now reads "changed since it was reviewed"), and a finding the
explorer showed in the games of a setup that cannot exist is no longer reported. All three are
mechanical to repair, and this module proposes the repair; nothing else.

Per spec (the file and the files it includes, read as `check` reads them: inside its folder
tree only):

1. Renames. When the spec has front-end errors and some of its names are reserved words, each
   such name is renamed in every file of the spec, declaration and uses, to `NAME_` (or
   `NAME_2`, ... the first that no file of the spec spells and that is not reserved). The
   names are the NAME tokens of the parse tree (so never a word inside a comment, a string or
   a rule id); a keyword the parser met where a name was wanted is read as that name. The
   renames are kept only if the spec then goes through the front end without an error.
2. Expectations. The spec (renamed) is checked with the engine, as `check` does. Each
   expectation that accepts no finding is matched to the one finding of its model and kind
   that has its fingerprint, or, failing that, its declarations (`on`; any, if it names none),
   and that it would accept with only its `[rules]` (and fingerprint) replaced: not one that
   grew, which is a change to review, not to rewrite. Its `[rules]` become the finding's, in
   the finding's order, and its fingerprint the finding's. An expectation of a model not
   checked to its end rewrites nothing (the finding it names may lie where the run did not
   look), nor does one shared by several models that would need different rules.
3. Expectations of states that cannot exist. An expectation that names no finding, of a kind
   the run folded into a contradiction of its model (checker.analyses.questions: with no
   initial state every rule is dead and nothing is reached, and one finding says it all), is
   turned into a comment, under a line that says why. Such an `expect` was reviewed when the
   explorer still played the games of a setup no value fits (CHANGELOG, issue 22).

Every edit replaces the text of one span (line:col to line:col) of the parse tree: a name, a
`[...]` tag list, a fingerprint string, or puts `# ` before the lines of an `expect`; comments
and layout are untouched. Nothing is written
but by `write`, which refuses any file outside the spec's tree and replaces each atomically.
"""
from __future__ import annotations

import difflib
import os
import re
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from lark import Token, Tree
from lark.exceptions import UnexpectedInput, UnexpectedToken

from .analyses.expectations import Expectation, accepted, differences
from .analyses.findings import Finding
from .analyses.questions import FOLLOW_ON
from .engine import Result, check, collect_files, front_end, front_end_file
from .frontend.diagnostics import Code, Diagnostic, SpecError
from .frontend.grammar import lark_parser
from .frontend.includers import include_paths
from .frontend.includes import SpecTree
from .frontend.syntax import Span
from .frontend.to_syntax_base import unquote
from .limits import Limits


def reserved_words() -> frozenset[str]:
    """The words no name may be. The parser's checker/frontend/keywords.py publishes them once
    it exists; until then, every quoted word of the grammar, which is what the resolver refuses."""
    try:
        from .frontend.keywords import reserved_words as published  # type: ignore[import-not-found]
    except ImportError:
        from .frontend.grammar import keywords as published
    return frozenset(published())


# ---------------------------------------------------------------- records

@dataclass(frozen=True)
class Edit:
    """Replace the text from (line, col) to (end_line, end_col) (1-based, end exclusive) by `new`."""
    line: int
    col: int
    end_line: int
    end_col: int
    new: str


@dataclass(frozen=True)
class Note:
    """Something migrate saw and did not (or could not) do, at a place of a spec."""
    where: str  # file:line:col
    message: str
    incomplete: bool = False  # a limit kept it from being told


@dataclass(frozen=True)
class Change:
    path: str  # as the spec names it
    root: str  # the folder tree it must stay in
    old: str
    new: str

    def diff(self) -> str:
        """A unified diff; a file that does not end with a line break says so, as diff(1) does."""
        a, b = (self.path, self.path) if os.path.isabs(self.path) else (f"a/{self.path}", f"b/{self.path}")
        lines = list(difflib.unified_diff(_lines(self.old), _lines(self.new), a, b))
        return "".join(lines)


@dataclass
class Migration:
    changes: list[Change] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def exit_code(self) -> int:
        """2 input error, 1 changes proposed (or made), 3 nothing to change but something could
        not be told (a limit), 0 nothing to do."""
        if self.diagnostics:
            return 2
        if self.changes:
            return 1
        return 3 if any(n.incomplete for n in self.notes) else 0


def _lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


# ---------------------------------------------------------------- the files of a spec

@dataclass
class _File:
    shown: str  # the path as the spec names it (normalized)
    root: str
    original: str
    text: str  # with the edits so far


def _read_spec(path: str, root: Path, files: dict[str, _File]) -> list[str]:
    """Read a spec and its includes inside its tree (SpecError for what `check` refuses);
    return their real paths, the spec's first. Files already read keep their edited text."""
    tree = SpecTree(root)
    order: list[str] = []

    def visit(p: Path, shown: str, include: tuple[str, Span] | None, stack: tuple[str, ...]) -> None:
        text, real = tree.read(p, shown, include, stack)
        if real in order:
            return
        order.append(real)
        files.setdefault(real, _File(os.path.normpath(shown), str(root), text, text))
        for rel, at in _includes(files[real].text, shown):
            target = tree.include_path(p, rel, at)
            visit(target, str(target), (rel, at), stack + (real,))

    visit(Path(path), path, None, ())
    return order


def _includes(text: str, shown: str) -> list[tuple[str, Span]]:
    """The includes of a text: (path as written, where), located when the text parses."""
    tree = _tree(text)
    if tree is None:  # the front end will say why; the files it needs are still read first
        return [(rel, Span(shown, 1, 1, 1, 1)) for rel in include_paths(text)]
    return [(unquote(node.children[0]), Span(shown, node.meta.line, node.meta.column, node.meta.end_line,
                                              node.meta.end_column))
            for node in tree.iter_subtrees_topdown() if node.data == "include"]


def _front_end_errors(spec: str, root: Path, files: dict[str, _File], order: list[str]) -> list[Diagnostic]:
    res = Result()
    front_end_file(files[order[0]].shown, root, res, buffers={real: files[real].text for real in order})
    return res.diagnostics


# ---------------------------------------------------------------- renames

def _tree(text: str) -> Tree | None:
    """The parse tree of a text, or None; a reserved word met where the grammar wants a name is
    read as that name (what the spec meant when it was written)."""
    try:
        return lark_parser().parse(text, on_error=_keywords_as_names([]))
    except UnexpectedInput:
        return None


# how many keywords one file may have read as names where the parser took them for keywords
MAX_REPAIRS = 200


def _reserved_names(text: str) -> tuple[list[tuple[Token, str]], set[str]]:
    """The NAME tokens that spell a reserved word, each with its word, and the words the spec
    must mean as names because they do not parse as keywords.

    A reserved word where only a name fits is read as that name by `_tree`. One where the
    keyword fits too (`draw := 1;` starts like the statement `draw x;`) parses as the keyword
    and fails a token later; such a word, just before the place a parse fails, is read as a
    name of the same length (upper case: every keyword is lower case, so the places stay
    where they are) and the parse is tried again. The caller keeps a rename only if the renamed
    spec goes through the front end, so a word taken for a name here by mistake costs nothing."""
    reserved = reserved_words()
    forced: dict[int, str] = {}  # offset -> the reserved word read as a name there
    work = text
    for _ in range(MAX_REPAIRS):
        fed: list[Token] = []
        try:
            tree = lark_parser().parse(work, on_error=_keywords_as_names(fed))
            break
        except UnexpectedInput as exc:
            pos = exc.pos_in_stream if isinstance(exc.pos_in_stream, int) and exc.pos_in_stream >= 0 else len(work)
            m = re.search(r"([a-z_]+)\s*$", work[:pos])
            if m is None or m.group(1) not in reserved or m.start(1) in forced:
                return [], set()
            forced[m.start(1)] = m.group(1)
            work = work[:m.start(1)] + m.group(1).upper() + work[m.end(1):]
    else:
        return [], set()
    names = [(t, forced.get(t.start_pos, str(t))) for t in tree.scan_values(lambda t: isinstance(t, Token))
             if t.type == "NAME" and (t.start_pos in forced or str(t) in reserved)]
    return names, {str(t) for t in fed} | set(forced.values())


def _keywords_as_names(fed: list[Token]):
    """An `on_error` of lark: a reserved word met where the grammar wants a name is that name."""
    reserved = reserved_words()

    def on_error(e) -> bool:
        if isinstance(e, UnexpectedToken) and str(e.token) in reserved and "NAME" in e.interactive_parser.accepts():
            name = Token.new_borrow_pos("NAME", str(e.token), e.token)
            e.interactive_parser.feed_token(name)
            fed.append(name)
            return True
        return False
    return on_error


# the resolver's words for a reserved word used as a name (resolver/names.py, `not_reserved`)
_REFUSED = re.compile(r"`([^`]+)` is a keyword of the language")


def _free_name(word: str, taken: set[str]) -> str:
    candidates = [f"{word}_"] + [f"{word}_{n}" for n in range(2, 1000)]
    return next(c for c in candidates if c not in taken)


def _rename(spec: str, root: Path, files: dict[str, _File], order: list[str], notes: list[Note],
            chosen: dict[str, str]) -> list[Diagnostic]:
    """Rename the reserved words the spec uses as names, if that is what keeps it from the
    front end; the front end's errors that remain (none if it goes through). `chosen` holds the
    new names given in the specs before (a file two specs include is renamed once, and the
    second spec must use the same names), and gets this spec's."""
    errors = _front_end_errors(spec, root, files, order)
    if not errors:
        return []
    found = {real: _reserved_names(files[real].text) for real in order}
    before = {real: files[real].text for real in order}
    taken = set(reserved_words())
    for real in order:
        taken.update(_words(files[real].text))
    # the words the spec uses as names: those the parser met where a name was wanted, and those
    # the resolver refuses as names, which it tells only once the spec parses (so in rounds); a
    # word the grammar reads as a NAME elsewhere (a type such as `player` in `p: player`) is no
    # name of the spec's unless one of these says so
    words: set[str] = {w for _, fed in found.values() for w in fed} | \
        {w for names, _ in found.values() for _, w in names if w in chosen}
    now = errors
    while True:
        more = words | {m.group(1) for d in now for m in [_REFUSED.search(d.message)] if m}
        if more == words and now is not errors:
            for real in order:
                files[real].text = before[real]
            return errors
        words = more
        new_names: dict[str, str] = {}
        for w in sorted(words):
            new_names[w] = chosen.get(w) or _free_name(w, taken | set(new_names.values()) | set(chosen.values()))
        tokens = {real: [(t, w) for t, w in found[real][0] if w in words] for real in order}
        if not any(tokens.values()):
            return errors
        for real in order:
            files[real].text = _apply(before[real], [_token_edit(t, new_names[w]) for t, w in tokens[real]])
        now = _front_end_errors(spec, root, files, order)
        if not now:
            break
    chosen.update(new_names)
    for real in order:
        for w in sorted(words):
            places = [t for t, word in tokens[real] if word == w]
            if places:
                notes.append(Note(f"{files[real].shown}:{places[0].line}:{places[0].column}",
                                  f"`{w}` is a reserved word: renamed to `{new_names[w]}` "
                                  f"({len(places)} place{'s' if len(places) > 1 else ''} in this file)"))
    return []


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


def _token_edit(t: Token, new: str) -> Edit:
    return Edit(t.line, t.column, t.end_line, t.end_column, new)


# ---------------------------------------------------------------- expectations

@dataclass(frozen=True)
class _Proposal:
    expectation: Expectation
    rules: tuple[str, ...]  # what its [rules] must become (its own when it already accepts)
    fingerprint: str


def proposals(findings: list[Finding], expectations: list[Expectation], unchecked: dict[str, str]
              ) -> tuple[list[_Proposal], list[tuple[Expectation, str, bool]], list[tuple[Expectation, str]]]:
    """What each expectation's rules and fingerprint must become for it to accept the finding
    it now names; (expectation, why not, whether a limit is why) for those left alone; and
    (expectation, why) for those of states that cannot exist, to be turned into comments."""
    taken = accepted(findings, expectations)
    done = {id(f) for f in taken.values()}
    out: list[_Proposal] = []
    left: list[tuple[Expectation, str, bool]] = []
    dropped: list[tuple[Expectation, str]] = []
    folded = _folded(findings)
    for i, e in enumerate(expectations):
        if i in taken:
            out.append(_Proposal(e, e.rules, e.fingerprint))
            continue
        if e.model in unchecked:
            left.append((e, f"not rewritten: {unchecked[e.model]}", True))
            continue
        pool = [f for f in findings if id(f) not in done and (f.model, f.kind) == (e.model, e.kind)]
        named = [f for f in pool if e.fingerprint and f.fingerprint == e.fingerprint] or \
                [f for f in pool if not e.subject or set(f.subject) == set(e.subject)]
        fits = [f for f in named if not differences(_as_for(e, f), f)]
        contra = folded.get((e.model, e.kind))
        if not named and contra is not None:
            dropped.append((e, f"no setup exists ({contra}): {e.kind} findings of states that cannot "
                               "exist are no longer reported"))
            continue
        if len(fits) != 1:
            why = ("no finding it could name" if not named else
                   f"the finding it names {'; '.join(differences(_as_for(e, named[0]), named[0]))}: review it"
                   if not fits and len(named) == 1 else
                   f"{len(fits) or len(named)} findings it could name: add `on` or a fingerprint to say which")
            left.append((e, f"not rewritten: {why}", False))
            continue
        f = fits[0]
        done.add(id(f))
        rules = e.rules if set(e.rules) == set(f.rules) else f.rules  # the same set: keep the writer's order
        out.append(_Proposal(e, rules if e.rules else (), f.fingerprint if e.fingerprint else ""))
    return out, left, dropped


def _folded(findings: list[Finding]) -> dict[tuple[str, str], str]:
    """(model, kind) -> the contradiction it was folded into, shown, for the kinds a run folded
    into a contradiction (an instance without any initial state: checker.analyses.questions)."""
    out: dict[tuple[str, str], str] = {}
    for f in findings:
        if f.kind == "contradiction":
            for kind, _ in f.folded:
                if kind in FOLLOW_ON:
                    on = f" on {', '.join(f.subject)}" if f.subject else ""
                    out.setdefault((f.model, kind), f"contradiction [{', '.join(f.rules)}]{on}")
    return out


def _as_for(e: Expectation, f: Finding) -> Expectation:
    """`e` with the rules and fingerprint of `f` (where `e` records them)."""
    return replace(e, rules=f.rules if e.rules else (), fingerprint=f.fingerprint if e.fingerprint else "")


def _expectations(plans) -> list[Expectation]:
    """Every model's expectations, as the engine applies them (from the model's first instance)."""
    models = {}
    for plan in plans:
        for inst in plan.instances:
            models.setdefault(inst.model_name, inst)
    return [Expectation(name, e.kind, e.tags, e.subject, e.measures, e.fingerprint, e.note, e.span)
            for name, inst in models.items() for e in inst.model.expects]


def _expect_node(text: str, at: Span) -> Tree | None:
    """The parse tree of the `expect` declaration that starts at `at` in `text`, if any."""
    tree = _tree(text)
    if tree is None:
        return None
    return next((node for node in tree.iter_subtrees()
                 if node.data == "expect_decl" and (node.meta.line, node.meta.column) == (at.line, at.col)), None)


def _expect_edits(text: str, at: Span, rules: tuple[str, ...], fingerprint: str) -> list[Edit]:
    """The edits of the `expect` declaration that starts at `at`: its [rules] and fingerprint."""
    node = _expect_node(text, at)
    if node is None:
        return []
    edits = []
    for child in node.children:
        if isinstance(child, Tree) and child.data == "tags" and rules:
            m = child.meta
            edits.append(Edit(m.line, m.column, m.end_line, m.end_column, f"[{', '.join(rules)}]"))
        if isinstance(child, Tree) and child.data == "expect_fingerprint" and fingerprint:
            t = child.children[0]
            edits.append(Edit(t.line, t.column, t.end_line, t.end_column, f'"{fingerprint}"'))
    return edits


def _migrate_expectations(spec: str, root: Path, files: dict[str, _File], order: list[str], limits: Limits,
                          replay: bool, jobs: int, notes: list[Note]) -> list[Diagnostic]:
    """Check the spec (its edited text, in a private copy of its tree) and rewrite the rules and
    fingerprints of its expectations."""
    with tempfile.TemporaryDirectory(prefix="rulewright-migrate-") as tmp:
        where: dict[str, str] = {}  # a file of the copy -> the real path of its original
        for real in order:
            rel = os.path.relpath(os.path.abspath(files[real].shown), os.path.abspath(root))
            copy = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(copy), exist_ok=True)
            Path(copy).write_text(files[real].text, encoding="utf-8")
            where[os.path.normpath(copy)] = real
        top = os.path.join(tmp, os.path.relpath(os.path.abspath(files[order[0]].shown), os.path.abspath(root)))
        res = check([top], limits, replay=replay, include_root=tmp, jobs=jobs)
        if res.diagnostics:
            return [_shown(d, where, files) for d in res.diagnostics]
        plans = front_end([top], Result(), include_root=tmp)
        unchecked = dict(res.unchecked_models)
        for d in res.disagreements:
            unchecked.setdefault(d.finding.model, "the engines disagree on a counterexample of its model")
        if res.interrupted:
            unchecked.update({m: res.interrupted for p in plans for m in {i.model_name for i in p.instances}})
        findings = [f for f in res.findings if f.kind != "expectation-unmet"]
        props, left, dropped = proposals(findings, _expectations(plans), unchecked)
    by_span: dict[Span, list[_Proposal]] = {}
    for p in props:
        by_span.setdefault(p.expectation.span, []).append(p)
    blocked = {e.span for e, _, _ in left}
    for e, why, incomplete in left:
        _note(notes, e, where, files, why, incomplete)
    for span, ps in sorted(by_span.items(), key=lambda kv: (kv[0].file, kv[0].line, kv[0].col)):
        e = ps[0].expectation
        if span in blocked or all((p.rules, p.fingerprint) == (p.expectation.rules, p.expectation.fingerprint) for p in ps):
            continue
        if len({frozenset(p.rules) for p in ps}) > 1 or len({p.fingerprint for p in ps}) > 1:
            what = "cite different rules" if len({frozenset(p.rules) for p in ps}) > 1 else "have different fingerprints"
            _note(notes, e, where, files, f"not rewritten: the findings it names in its {len(ps)} models {what}; "
                                          "write an `expect` in each format or reading", False)
            continue
        real = where.get(os.path.normpath(span.file))
        if real is None:
            continue
        new = next(p for p in ps if (p.rules, p.fingerprint) != (p.expectation.rules, p.expectation.fingerprint))
        edits = _expect_edits(files[real].text, span, new.rules, new.fingerprint)
        files[real].text = _apply(files[real].text, edits)
        said = ([f"[{', '.join(new.rules)}]"] if new.rules != e.rules else []) + \
               ([f'fingerprint "{new.fingerprint}"'] if new.fingerprint != e.fingerprint else [])
        notes.append(Note(f"{files[real].shown}:{span.line}:{span.col}",
                          f"expect {e.kind}: now {' '.join(said)}, as the finding it names cites"))
    # last: the comments add lines, and the rewrites above find their `expect` by line
    _comment_out(dropped, {e.span for e, _, _ in left} | {p.expectation.span for p in props}, where, files, notes)
    return []


def _comment_out(dropped: list[tuple[Expectation, str]], blocked: set, where: dict[str, str],
                 files: dict[str, _File], notes: list[Note]) -> None:
    """Turn each expectation of `dropped` into a comment under a line saying why, unless another
    model's copy of it (an expectation of the whole file) still accepts or names a finding. The
    edits of a file are found in its text as it is and applied together (each adds a line)."""
    edits: dict[str, list[Edit]] = {}
    for e, why in sorted(dict((e.span, (e, why)) for e, why in dropped).values(),
                         key=lambda d: (d[0].span.file, d[0].span.line, d[0].span.col)):
        real = where.get(os.path.normpath(e.span.file))
        if e.span in blocked or real is None:
            continue
        mine = _comment_edits(files[real].text, e.span, f"rulewright migrate: {why}")
        if not mine:
            _note(notes, e, where, files, f"not turned into a comment ({why}): it shares its lines with "
                                          "other declarations", False)
            continue
        edits.setdefault(real, []).extend(mine)
        notes.append(Note(f"{files[real].shown}:{e.span.line}:{e.span.col}",
                          f"expect {e.describe()}: turned into a comment: {why}"))
    for real, mine in edits.items():
        files[real].text = _apply(files[real].text, mine)


def _comment_edits(text: str, at: Span, why: str) -> list[Edit]:
    """The edits that put `# ` before each line of the `expect` declaration that starts at `at`,
    under a comment line `why`; none where the declaration does not have its lines to itself."""
    node = _expect_node(text, at)
    if node is None:
        return []
    lines = text.split("\n")
    m = node.meta
    indent = lines[m.line - 1][:m.column - 1]
    rest = lines[m.end_line - 1][m.end_column - 1:].strip()
    if indent.strip() or rest and not rest.startswith("#"):
        return []
    edits = [Edit(m.line, m.column, m.line, m.column, f"# {why}\n{indent}# ")]
    for n in range(m.line + 1, m.end_line + 1):
        line = lines[n - 1]
        col = len(line) - len(line.lstrip()) + 1
        edits.append(Edit(n, col, n, col, "# "))
    return edits


def _note(notes: list[Note], e: Expectation, where: dict[str, str], files: dict[str, _File], why: str,
          incomplete: bool) -> None:
    real = where.get(os.path.normpath(e.span.file))
    shown = files[real].shown if real else e.span.file
    note = Note(f"{shown}:{e.span.line}:{e.span.col}", f"expect {e.describe()}: {why}", incomplete)
    if note not in notes:  # an expectation of the whole file is one per model
        notes.append(note)


def _shown(d: Diagnostic, where: dict[str, str], files: dict[str, _File]) -> Diagnostic:
    """A diagnostic of the private copy, located in the original file."""
    real = where.get(os.path.normpath(d.span.file))
    return replace(d, span=replace(d.span, file=files[real].shown)) if real else d


# ---------------------------------------------------------------- edits

def _offset(starts: list[int], line: int, col: int) -> int:
    return starts[line - 1] + col - 1


def _apply(text: str, edits: list[Edit]) -> str:
    """The text with each edit's span replaced; the spans must not overlap."""
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    spans = sorted(((_offset(starts, e.line, e.col), _offset(starts, e.end_line, e.end_col), e.new) for e in edits),
                   reverse=True)
    for (a, b, _), (c, _, _) in zip(spans[1:], spans):
        assert b <= c, "overlapping edits"
    for a, b, new in spans:
        text = text[:a] + new + text[b:]
    return text


# ---------------------------------------------------------------- the command

def migrate(paths: list[str], limits: Limits = Limits(), replay: bool = True, include_root: str | None = None,
            jobs: int = 1) -> Migration:
    """What migrating these specs changes (nothing is written: see `write`)."""
    out = Migration()
    found, diags = collect_files(paths, include_root)
    out.diagnostics.extend(diags)
    files: dict[str, _File] = {}
    chosen: dict[str, str] = {}  # reserved word -> its new name, the same in every spec of the run
    for spec, root in found:
        try:
            order = _read_spec(spec, root, files)
        except SpecError as exc:
            out.diagnostics.extend(exc.diagnostics)
            continue
        errors = _rename(spec, root, files, order, out.notes, chosen)
        if not errors:
            errors = _migrate_expectations(spec, root, files, order, limits, replay, jobs, out.notes)
        out.diagnostics.extend(errors)
    out.changes = sorted((Change(f.shown, f.root, f.original, f.text) for f in files.values() if f.text != f.original),
                         key=lambda c: c.path)
    return out


def write(changes: list[Change]) -> None:
    """Write each changed file in place, atomically (a temporary file beside it, then a rename),
    keeping its permissions; refuse (SpecError, E009) a file that is outside its spec's tree or
    that changed since it was read before anything is written, and a file that cannot be
    written (those before it stay written: each is whole, old or new)."""
    targets = []
    for c in changes:
        real = os.path.realpath(c.path)
        root = os.path.realpath(c.root)
        if os.path.commonpath([real, root]) != root:
            raise _refused(c, f"{c.path} lies outside the folder tree {c.root!r}", "migrate writes only inside the spec's folder tree")
        try:
            now = Path(real).read_bytes().decode("utf-8", "replace")
        except OSError as exc:
            raise _refused(c, f"{c.path} cannot be read again: {exc.strerror}", "check the file and its permissions")
        if now != c.old:
            raise _refused(c, f"{c.path} changed while it was migrated", "run rulewright migrate again")
        targets.append((c, real))
    for c, real in targets:
        tmp = ""
        try:
            fd, tmp = tempfile.mkstemp(prefix=".migrate-", dir=os.path.dirname(real))
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(c.new)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, os.stat(real).st_mode & 0o7777)
            os.replace(tmp, real)
        except OSError as exc:
            raise _refused(c, f"{c.path} cannot be written: {exc.strerror}", "check the folder's permissions")
        finally:
            if tmp and os.path.exists(tmp):
                os.unlink(tmp)


def _refused(c: Change, message: str, hint: str) -> SpecError:
    return SpecError(Diagnostic(Code.OUTPUT_REFUSED, message + ": not written", Span(c.path, 0, 0, 0, 0), hint))
