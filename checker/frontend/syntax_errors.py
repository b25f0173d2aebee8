"""Syntax errors in the spec's words: the `Diagnostic` (E001) for lark's `UnexpectedInput`,
with the line, a caret and a hint.

`_unclosed` names a block left open (a missing `end` or `}`) with the line that opened it and
the declaration it runs into, read from the parser's stack at the error; `_friendly` names
other typical mistakes (a missing `;`, `=` for `:=`, ...) from the unexpected token and what the
parser expected instead; anything else lists what was expected.
"""
from __future__ import annotations

import re
from functools import lru_cache

from lark import Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from .diagnostics import Code, Diagnostic
from .grammar import keywords, lark_parser
from .syntax import Span


def syntax_error(exc: UnexpectedInput, text: str, file: str) -> Diagnostic:
    """The diagnostic for `exc`, raised by the parser on `text` (the file `file`)."""
    unclosed = _unclosed(exc, text, file)
    if unclosed is not None:
        return unclosed
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
    expected = _expected(exc)
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


def _expected(exc: UnexpectedInput) -> set[str]:
    """The terminals the parser accepts where it stopped. The lexer's own list would also name
    NAME, which grammar.py lets the lexer try everywhere."""
    state = getattr(getattr(getattr(exc, "interactive_parser", None), "parser_state", None), "position", None)
    table = lark_parser().parser.parser.parser.parse_table
    if state in table.states:
        return {k for k in table.states[state] if k.isupper() or k == "$END"}  # not the rules' gotos
    return set(getattr(exc, "expected", None) or getattr(exc, "allowed", None) or ())


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


# ---- a block left open -------------------------------------------------------------------------
# The tokens that open a block, the word that closes it, and the keywords that may head it. On
# the parser's value stack at an error, every token not yet reduced belongs to an unfinished
# construct: an opener still there is a block still open.
_CLOSER = {"DO": "end", "THEN": "end", "ELSE": "end", "LBRACE": "}"}
_HEADS = {
    "DO": ("action", "routine", "trigger", "state_based", "forall", "game", "replace"),
    "THEN": ("if", "elif"),
    "ELSE": ("if",),
    "LBRACE": ("document", "format", "reading", "ambiguity", "phases", "match"),
}
# between a block's head and its `{` stand only its name, tags, title, `for` list and `extends`
_BEFORE_BRACE = ("tags", "reading_for", "format_base", "_name")


@lru_cache(maxsize=1)
def declaration_words() -> frozenset[str]:
    """The reserved keywords a top-level item starts with (`action`, `outcome`, `var`, ...), read
    from the parser's table: what it accepts at the start of a file."""
    from .keywords import soft_keywords  # keywords.py reads the built-in names too: import late
    table = lark_parser().parser.parser.parser.parse_table
    start = table.states[table.start_states["start"]]
    words = set()
    for name in start:
        try:
            pattern = lark_parser().get_terminal(name).pattern
        except KeyError:
            continue
        if pattern.type == "str" and pattern.value in keywords():
            words.add(pattern.value)
    return frozenset(words - set(soft_keywords()))  # `spec` may name a variable


def _unclosed(exc: UnexpectedInput, text: str, file: str) -> Diagnostic | None:
    """"`end` missing: the `action a` opened at f:3:1 is not closed before `outcome o` (line 9)",
    when the innermost open block runs into a declaration or the end of the file."""
    found = _open_block(exc, text)
    if found is None:
        return None
    head, opener, culprit = found
    closer = _CLOSER[opener.type]
    what = _describe(head, opener, text)
    where = f"{file}:{head.line}:{head.column}"
    if culprit is None:
        lines = text.splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
        return Diagnostic(Code.SYNTAX, f"`{closer}` missing: the `{what}` opened at {where} is not closed before "
                          "the end of the file", Span(file, line, col, line, col + 1), _close_hint(closer, what))
    shown = _words_at(culprit, text) if culprit.type != "RBRACE" else "}"
    return Diagnostic(Code.SYNTAX, f"`{closer}` missing: the `{what}` opened at {where} is not closed before "
                      f"`{shown}` (line {culprit.line})",
                      Span(file, culprit.line, culprit.column, culprit.line, culprit.column + len(shown)),
                      _borrowed_end(exc, head, text) or _close_hint(closer, what))


def _borrowed_end(exc: UnexpectedInput, head: Token, text: str) -> str:
    """When an inner `if` or `forall` took the `end` that lines up with the open block's head
    (the inner block's own `end` is what is missing), say so: a hint, "" otherwise."""
    stack = list(getattr(getattr(getattr(exc, "interactive_parser", None), "parser_state", None), "value_stack", ()) or ())
    lines = text.split("\n")
    for x in stack:
        if not isinstance(x, Tree):
            continue
        for t in x.iter_subtrees_topdown():
            meta = t.meta
            if t.data not in ("if_stmt", "forall_stmt") or getattr(meta, "empty", True) or meta.line <= head.line:
                continue
            line = lines[meta.end_line - 1] if 0 < meta.end_line <= len(lines) else ""
            col = meta.end_column - len("end")
            if line[col - 1:meta.end_column - 1] == "end" and col == head.column != meta.column:
                kind = "if" if t.data == "if_stmt" else "forall"
                return (f"the `end` on line {meta.end_line} lines up with the `{str(head)}` but closes the `{kind}` "
                        f"of line {meta.line}: is that `{kind}`'s own `end` missing?")
    return ""


def _open_block(exc: UnexpectedInput, text: str) -> tuple[Token, Token, Token | None] | None:
    """(head, opener, culprit) of the innermost open block when it runs into a declaration (the
    culprit, first on its line) or the end of the file (culprit None); else None."""
    ip = getattr(exc, "interactive_parser", None)
    stack = list(getattr(getattr(ip, "parser_state", None), "value_stack", ()) or ())
    tok = getattr(exc, "token", None)
    at_end = isinstance(exc, UnexpectedEOF) or getattr(tok, "type", "") == "$END"
    opened = _open_blocks(stack, text)
    if not opened:
        return None
    head, opener, i = opened[-1]
    after = [t for x in stack[i + 1:] for t in _tokens(x)]
    if isinstance(tok, Token) and not at_end:
        after.append(tok)
    culprit = next((t for t in after if str(t) in declaration_words() and _first_on_line(t, text)), None)
    if culprit is None and isinstance(tok, Token) and tok.type == "RBRACE" and _CLOSER[opener.type] == "end" \
            and any(o.type == "LBRACE" for _, o, _ in opened[:-1]):
        culprit = tok  # `game won ... do ... }`: the enclosing `{` block closes before this one
    if culprit is None and not at_end:
        return None
    return head, opener, culprit


# ---- more than one error per file --------------------------------------------------------------
MAX_SYNTAX_ERRORS = 20


def syntax_errors(exc: UnexpectedInput, text: str, file: str) -> list[Diagnostic]:
    """Every syntax error the parser can recover from, the first being `exc`'s.

    Two repairs only, each of which keeps every line and column after it where it was: a block
    left open before a declaration is closed at the end of the line above it (`end` or `}`), and
    after any other error the text up to the next unindented declaration is blanked out (not
    inside a `{` block, whose `}` would then stand alone). Anything else stops at the error."""
    out = [syntax_error(exc, text, file)]
    while len(out) < MAX_SYNTAX_ERRORS:
        try:
            repaired = _repair(exc, text, out[-1])
        except Exception:  # the first error is the one that matters: a repair never hides it
            break
        if repaired is None:
            break
        try:
            lark_parser().parse(repaired)
            break
        except UnexpectedInput as again:
            d = syntax_error(again, repaired, file)
            if (d.span.line, d.span.col) <= (out[-1].span.line, out[-1].span.col):
                break  # no progress: the repair did not take
            out.append(d)
            exc, text = again, repaired
    return out


def _repair(exc: UnexpectedInput, text: str, d: Diagnostic) -> str | None:
    lines = text.split("\n")
    found = _open_block(exc, text)
    if found is not None:
        head, opener, culprit = found
        if culprit is None:
            return None
        k = culprit.line - 2  # the line above the declaration: at or after the opener's
        if k < opener.line - 1:
            return None
        lines[k] = _append_before_comment(lines[k], _CLOSER[opener.type])
        return "\n".join(lines)
    stack = list(getattr(getattr(getattr(exc, "interactive_parser", None), "parser_state", None), "value_stack", ()) or ())
    if any(o.type == "LBRACE" for _, o, _ in _open_blocks(stack, text)):
        return None
    for k in range(d.span.line, len(lines)):
        first = re.match(r"[a-z_]+", lines[k])
        if first and first.group(0) in declaration_words():
            return "\n".join(re.sub(r"[^\s]", " ", line) for line in lines[:k]) + "\n" + "\n".join(lines[k:])
    return None


def _append_before_comment(line: str, word: str) -> str:
    """`line` with ` word` added before its comment, if any (a `#` outside a string)."""
    m = re.match(r'([^#"]|"([^"\\\n]|\\["\\])*")*', line)
    cut = m.end() if m else len(line)
    return line[:cut].rstrip() + f" {word} " + line[cut:] if cut < len(line) else line + f" {word}"


def _close_hint(closer: str, what: str) -> str:
    if closer == "}":
        return f"close the `{what}` block with `}}` before the next declaration"
    return f"close the `{what}` block with `end` (every `do`, `then` and `else` block ends with `end`)"


def _tokens(x) -> list[Token]:
    """The tokens of a stack entry, in reading order (the ids of an unclosed `document` block
    are already reduced into trees)."""
    if isinstance(x, Token):
        return [x]
    if isinstance(x, Tree):
        return sorted(x.scan_values(lambda v: isinstance(v, Token)), key=lambda t: t.start_pos or 0)
    return []


def _open_blocks(stack: list, text: str) -> list[tuple[Token, Token, int]]:
    """(head keyword, opening token, its index on the stack) of every block still open, outermost
    first. An opener without a head (a `{` of a set) is left out."""
    out = []
    for i, x in enumerate(stack):
        if not (isinstance(x, Token) and x.type in _CLOSER):
            continue
        head = _head(stack, i)
        if head is not None:
            out.append((head, x, i))
    return out


def _head(stack: list, i: int) -> Token | None:
    opener = stack[i]
    heads = _HEADS[opener.type]
    if opener.type == "LBRACE":
        j = i - 1
        while j >= 0 and (isinstance(stack[j], Tree) and stack[j].data in _BEFORE_BRACE
                          or isinstance(stack[j], Token) and stack[j].type in ("NAME", "STRING")):
            j -= 1
        t = stack[j] if j >= 0 else None
        return t if isinstance(t, Token) and str(t) in heads else None
    guard_when = None
    for j in range(i - 1, -1, -1):
        t = stack[j]
        if isinstance(t, Token) and t.type in _CLOSER:  # an enclosing block: none of ours before it
            break
        if isinstance(t, Token) and str(t) in heads:
            return t
        if isinstance(t, Token) and str(t) == "when":
            guard_when = t  # `when main ends do`, a phase's block, unless an action owns the `when`
    return guard_when if opener.type == "DO" else None


def _describe(head: Token, opener: Token, text: str) -> str:
    """`action attack`, `forall p`, `if x == 1`, `when main ends`, `format F`: the head's words,
    without parameters, tags or guard."""
    start = head.start_pos
    end = opener.start_pos if opener.start_pos is not None and opener.start_pos > start else start + len(head)
    words = " ".join(text[start:end].split())
    cuts = [k for k in (words.find(c, len(str(head))) for c in ("(", "[", " when ", " on ", " in ", '"', " for "))
            if k > 0]
    words = words[:min(cuts)] if cuts else words
    words = words.strip()
    return words if len(words) <= 40 else words[:37] + "..."


def _first_on_line(tok: Token, text: str) -> bool:
    start = getattr(tok, "start_pos", None)
    if start is None:
        return False
    line_start = text.rfind("\n", 0, start) + 1
    return text[line_start:start].strip() == ""


def _words_at(tok: Token, text: str) -> str:
    """The keyword and the name after it (`outcome no_life`), whole, as the text spells them."""
    m = re.match(r"[A-Za-z_][A-Za-z0-9_]*([ \t]+[A-Za-z_][A-Za-z0-9_]*)?", text[tok.start_pos:])
    return m.group(0) if m else str(tok)
