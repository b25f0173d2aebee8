"""Syntax errors in the spec's words: the `Diagnostic` (E001) for lark's `UnexpectedInput`,
with the line, a caret and a hint.

`_friendly` names typical mistakes (a missing `;`, `=` for `:=`, a missing `end`, ...) from the
unexpected token and what the parser expected instead; anything else lists what was expected.
"""
from __future__ import annotations

from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from .diagnostics import Code, Diagnostic
from .grammar import lark_parser
from .syntax import Span


def syntax_error(exc: UnexpectedInput, text: str, file: str) -> Diagnostic:
    """The diagnostic for `exc`, raised by the parser on `text` (the file `file`)."""
    message, hint = _friendly(exc, text)
    line = getattr(exc, "line", 1) or 1
    col = getattr(exc, "column", 1) or 1
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
        lines = text.splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
    tok = getattr(exc, "token", None)
    width = len(str(tok)) if tok is not None and getattr(tok, "type", "") != "$END" else 1
    return Diagnostic(Code.SYNTAX, message, Span(file, line, col, line, col + max(width, 1)), hint)


# The mistakes `_friendly` names, and the hint each gets.
_HINTS: dict[str, str] = {
    'missing semicolon': 'end each assignment and each lose/win/draw/finish statement with `;`',
    '`=` used for assignment': 'inside `do ... end` assign with `:=`, e.g. `turn := next(turn);`',
    'rule tags before the keyword': 'write the rule tags after the keyword and name: `action pass [408.1c] ...`',
    'missing `end`': 'close every `do`, `then` and `else` block with `end`',
    'missing `do`': 'an action is `action NAME(params) [tags] when GUARD do STATEMENTS end`',
    'missing `:` after the name': 'write `outcome NAME [tags]: lose player p when ...` (and likewise `init`, `constraint`, `invariant`)',
    '`=` used for comparison': "compare with `==`; `=` only introduces a declaration's value",
    'unterminated string': 'close the string with `"` on the same line',
}


def _friendly(exc: UnexpectedInput, text: str) -> tuple[str, str]:
    """Name the mistake from the unexpected token and what the parser expected instead."""
    expected = set(getattr(exc, "expected", None) or ())
    pretty = {_pretty_terminal(t) for t in expected}
    tok = getattr(exc, "token", None)
    ttype = getattr(tok, "type", "")
    if isinstance(exc, UnexpectedCharacters):
        ch = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else ""
        if ch == '"':
            return _label("unterminated string")
        return (f"unexpected character {ch!r}", "check for a stray character; comments start with `#`")
    if "SEMICOLON" in expected and ttype != "SEMICOLON" and "ACTION" not in expected:
        return _label("missing semicolon")
    if ttype == "EQUAL":
        if "`:=`" in pretty:
            return _label("`=` used for assignment")
        return _label("`=` used for comparison")
    if ttype == "LSQB" and "`action`" in pretty and "`==`" not in pretty:
        return _label("rule tags before the keyword")
    if expected and expected <= {"COLON", "LSQB"}:
        return _label("missing `:` after the name")
    if expected and expected <= {"ON", "LSQB"}:  # after `trigger NAME`: a trigger has a name, then its event
        return ("a trigger needs a name, then `on` and its event",
                "write `trigger NAME [tags] on lose player p when ... do ... end`")
    if ttype == "$END" or isinstance(exc, UnexpectedEOF):
        if "END" in expected:
            return _label("missing `end`")
        return ("unexpected end of file", "a block or declaration is not finished; is an `end` or `}` missing?")
    if "DO" in expected and ttype not in ("DO",):
        return _label("missing `do`")
    if isinstance(exc, UnexpectedToken):
        shown = sorted(pretty)
        listed = ", ".join(shown[:8]) + (", ..." if len(shown) > 8 else "")
        got = f"`{tok}`"
        return (f"unexpected {got}", f"expected one of: {listed}")
    return ("syntax error", "")


def _label(message: str) -> tuple[str, str]:
    return (message, _HINTS.get(message, ""))


def _pretty_terminal(name: str) -> str:
    try:
        pattern = lark_parser().get_terminal(name).pattern
        if pattern.type == "str":
            return f"`{pattern.value}`"
    except Exception:
        pass
    return {"NAME": "a name", "NUMBER": "a number", "STRING": "a string", "RULE_ID": "a rule id",
            "$END": "end of file",
            "REMOVABLE": "the kind of declaration to remove (`action`, `outcome`, `var`, `winners`, ...)"}.get(name, name.lower())
