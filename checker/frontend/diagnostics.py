"""Errors in a user's spec: codes, messages, and the renderer that points at the text.

Every problem with the input becomes a `Diagnostic` with a code from `CODES`, a sentence, the
span it concerns and a hint. `render` prints `file:line:col: error[CODE]: message`, the source
line and carets under the span; it never raises, whatever the span says.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .syntax import Span

class Code(StrEnum):
    """The code of every kind of input problem, with its one-line description (also the text of
    its rule in SARIF output). A Diagnostic's code is one of these; being a str, it prints and
    serializes as "E001"."""

    def __new__(cls, value: str, description: str):
        member = str.__new__(cls, value)
        member._value_ = value
        member.description = description
        return member

    SYNTAX = "E001", "syntax error"
    UNREADABLE = "E002", "file cannot be read"
    INCLUDE = "E003", "include cycle or missing include"
    FILE_REFUSED = "E004", "file refused: outside the folder tree, not a regular file, or too large"
    NOT_UTF8 = "E005", "file is not valid UTF-8"
    TOO_DEEP = "E006", "nested too deeply"
    NUMBER_TOO_LARGE = "E007", "number too large"
    EXPANDS_TOO_FAR = "E008", "definitions expand too far"
    OUTPUT_REFUSED = "E009", "output file cannot be written: a symlink or special file in the way, or no permission"
    UNDEFINED = "E010", "undefined name"
    DEFINED_TWICE = "E011", "name defined twice"
    ARGUMENTS = "E012", "wrong number or kind of arguments"
    TYPE_MISMATCH = "E013", "type mismatch"
    OUTCOME_NEGATED = "E014", "outcome predicate used under negation"
    OUT_OF_RANGE = "E015", "value out of range during setup"
    MISSING_DECLARATION = "E016", "missing declaration"
    EVALUATION = "E017", "evaluation error"
    TOO_MANY_INSTANCES = "E018", "too many instances: the parameters give more than a run checks"
    UNKNOWN_KIND = "E020", "unknown finding kind in expect"
    IMPOSSIBLE_EXPECT = "E021", "an expect records a size or fingerprint it cannot have"
    UNDEFINED_RULE = "E022", "a tag names a rule the document block does not list"
    # composition (checker/frontend/compose.py)
    NOTHING_THERE = "E040", "a replace, remove or `for` names nothing there is"
    READINGS_CLASH = "E041", "readings combined in one model change the same declaration"
    NESTED_COMPOSITION = "E042", "a reading inside a reading, or a format inside a format (through an include)"


CODES: dict[str, str] = {code.value: code.description for code in Code}


@dataclass(frozen=True)
class Diagnostic:
    code: Code
    message: str
    span: Span
    hint: str = ""
    severity: str = "error"
    context: str = ""  # the format, reading or instance the problem was found in


class SpecError(Exception):
    """Raised with one or more diagnostics; the CLI renders them and exits 2."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic):
        self.diagnostics = diagnostics if isinstance(diagnostics, list) else [diagnostics]
        super().__init__("; ".join(d.message for d in self.diagnostics))


# Only text the parser read and accepted (it is in the spec's folder tree) is ever shown: the
# renderer never reads a file itself, or a span naming /etc/shadow would print a line of it.
_source_cache: dict[str, list[str]] = {}


def remember_source(path: str, text: str) -> None:
    # split on "\n" alone, as lark counts lines: splitlines() would also split at \f, \x1c or
    # U+2028 and show the wrong line under a diagnostic
    _source_cache[path] = [line.removesuffix("\r") for line in text.split("\n")]


def source_line(span: Span) -> str | None:
    lines = _source_cache.get(span.file)
    if lines is None:
        return None
    if 1 <= span.line <= len(lines):
        return lines[span.line - 1]
    return None


SHOWN_COLUMNS = 120  # of a source line; a longer one (a 1 MiB line, say) is cut around the span


def caret_block(span: Span) -> str:
    """The source line and carets under the span, or "" if the line is not available."""
    try:
        text = source_line(span)
        if text is None:
            return ""
        start = max(span.col - 1, 0)
        if span.end_line == span.line and span.end_col > span.col:
            width = span.end_col - span.col
        else:
            width = max(len(text) - start, 1)
        width = max(1, min(width, max(len(text) - start, 1)))
        text, start, width = _window(text, start, width)
        gutter = f"{span.line:>5} | "
        return f"{gutter}{printable(text)}\n{' ' * len(gutter)}{' ' * start}{'^' * width}"
    except Exception:  # the renderer must never be the thing that fails
        return ""


def _window(text: str, start: int, width: int) -> tuple[str, int, int]:
    """The part of a long line around the span: (text shown, caret start, caret width)."""
    if len(text) <= SHOWN_COLUMNS:
        return text, start, width
    lo = max(0, min(start - 20, len(text) - SHOWN_COLUMNS))
    hi = lo + SHOWN_COLUMNS
    shown = ("..." if lo else "") + text[lo:hi] + ("..." if hi < len(text) else "")
    return shown, start - lo + (3 if lo else 0), max(1, min(width, hi - start))


def printable(text: str) -> str:
    """`text` with control characters made visible, one column each, so a spec cannot send
    escape sequences to the terminal and the carets stay aligned."""
    return "".join(c if c == "\t" or c.isprintable() else "\ufffd" for c in text)


def render(d: Diagnostic, max_list: int = 0) -> str:
    head = f"{d.span}: {d.severity}[{d.code}]: {printable(d.message)}" + (f" (in {printable(d.context)})" if d.context else "")
    parts = [head]
    block = caret_block(d.span)
    if block:
        parts.append(block)
    if d.hint:
        parts.append(f"      = hint: {printable(d.hint)}")
    return "\n".join(parts)


def render_all(diags: list[Diagnostic], limit: int = 20) -> str:
    shown = [render(d) for d in diags[:limit]]
    if len(diags) > limit:
        shown.append(f"... and {len(diags) - limit} more")
    return "\n\n".join(shown)
