"""Text -> syntax tree: the entry points `parse_text`, `parse_file` and `parse_source`, and the
splicing of included files into the file that includes them.

The grammar lives in grammar/rulewright.lark (`grammar.lark_parser` builds the parser); one
Transformer, `to_syntax.ToIR`, builds `checker.frontend.syntax` nodes. Nothing downstream of
this module sees a lark tree. Syntax errors become `Diagnostic`s with the line, a caret and a
hint (`syntax_errors`).
"""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from lark.exceptions import UnexpectedInput, VisitError

from . import syntax as ir
from .diagnostics import Code, Diagnostic, SpecError, remember_source
from .grammar import check_tree, lark_parser
from .includes import SpecTree
from .syntax_errors import syntax_errors
from .to_syntax import ToIR


def parse_text(text: str, file: str) -> list:
    """Parse one file's text into a list of top-level items (IR nodes and markers)."""
    remember_source(file, text)
    try:
        tree = lark_parser().parse(text)
    except UnexpectedInput as exc:
        raise SpecError(syntax_errors(exc, text, file))  # every error it can recover from
    check_tree(tree, file)  # the Transformer (ToIR) recurses once per level, and int() has a digit limit
    try:
        return ToIR(file).transform(tree)
    except VisitError as exc:  # a transformer bug must still not become a traceback for the user
        raise SpecError(Diagnostic(Code.SYNTAX, f"could not build the IR: {exc.orig_exc}", ir.Span(file, 1, 1, 1, 2),
                                   "this is a rulewright bug; please report it with the spec")) from exc


def parse_file(path: str | Path, root: str | Path | None = None,
               buffers: dict[str, str] | None = None) -> ir.SpecFile:
    """Parse a spec file, splicing in its includes (resolved relative to the including file).

    The file and its includes must lie in the folder tree `root` (default: the file's folder);
    see `includes` for what is refused and why. `buffers` (real path -> text) replaces the
    content of files on disk, as an editor's unsaved include file does.
    """
    p = Path(path)
    files = SpecTree(p.parent if root is None else root, buffers)
    text, real = files.read(p, str(path))
    return _parse_spec(p, str(path), text, (real,), files)


def parse_source(text: str, path: str | Path, root: str | Path | None = None) -> ir.SpecFile:
    """Parse `text` as the content of the spec file `path` (an editor's buffer, saved or not).

    Its includes are read from disk as `parse_file` reads them: relative to `path`, inside the
    folder tree `root` (default: the file's folder), within the same size limits.
    """
    p = Path(path)
    files = SpecTree(p.parent if root is None else root)
    files.charge(len(text.encode("utf-8", "surrogatepass")), str(path), ir.Span(str(path), 0, 0, 0, 0))
    return _parse_spec(p, str(path), text, (os.path.realpath(p),), files)


def _parse_spec(p: Path, shown: str, text: str, stack: tuple[str, ...], files: SpecTree) -> ir.SpecFile:
    items = parse_text(text, shown)
    title, document = p.stem, ""
    ids: list[ir.DocId] = []
    decls: list = []
    formats: list[ir.FormatBlock] = []
    includes: list[str] = []
    header_span = ir.Span(shown, 1, 1, 1, 1)
    for item in items:
        if isinstance(item, tuple) and item[0] == "header":
            title, document, header_span = item[1], item[2], item[3]
        elif isinstance(item, tuple) and item[0] == "document":
            ids.extend(item[1])
        elif isinstance(item, tuple) and item[0] == "include":
            _, rel, span = item
            target = files.include_path(p, rel, span)
            sub_text, real = files.read(target, str(target), (rel, span), stack)
            sub = _parse_spec(target, str(target), sub_text, stack + (real,), files)
            includes.append(sub.path)
            includes.extend(sub.includes)
            ids.extend(sub.ids)
            decls.extend(sub.decls)
            formats.extend(sub.formats)
            if not document:
                document = sub.document
        elif isinstance(item, ir.FormatBlock):
            formats.append(replace(item, decls=_splice(item.decls, p, stack, files, ids, includes, "format")))
        else:
            decls.append(_splice((item,), p, stack, files, ids, includes, "")[0] if _holds_decls(item) else item)
    return ir.SpecFile(shown, title, document, tuple(ids), tuple(decls), tuple(formats), tuple(includes), header_span)


def _holds_decls(item) -> bool:
    return isinstance(item, (ir.ReadingDecl, ir.AmbiguityDecl))


def _splice(decls: tuple, p: Path, stack: tuple[str, ...], files: SpecTree, ids: list, includes: list,
            where: str) -> tuple:
    """`decls` of a format or reading block with every `include` in it replaced by the included
    file's declarations (its document ids join the file's). An included file there holds
    declarations only: a format inside a format, or a reading inside a reading, means nothing."""
    out: list = []
    for d in decls:
        if isinstance(d, tuple) and d and d[0] == "include":
            _, rel, span = d
            target = files.include_path(p, rel, span)
            sub_text, real = files.read(target, str(target), (rel, span), stack)
            sub = _parse_spec(target, str(target), sub_text, stack + (real,), files)
            includes.append(sub.path)
            includes.extend(sub.includes)
            ids.extend(sub.ids)
            if sub.formats:
                raise SpecError(Diagnostic(Code.NESTED_COMPOSITION, f"include {rel!r} declares a format, inside a {where or 'block'}",
                                           span, "a file included in a format or reading holds declarations only"))
            if where == "reading" and any(_holds_decls(x) for x in sub.decls):
                raise SpecError(Diagnostic(Code.NESTED_COMPOSITION, f"include {rel!r} declares a reading or ambiguity, inside a reading",
                                           span, "a file included in a reading holds declarations only"))
            out.extend(sub.decls)
        elif isinstance(d, ir.ReadingDecl):
            out.append(replace(d, decls=_splice(d.decls, p, stack, files, ids, includes, "reading")))
        elif isinstance(d, ir.AmbiguityDecl):
            out.append(replace(d, readings=tuple(_splice(d.readings, p, stack, files, ids, includes, where))))
        else:
            out.append(d)
    return tuple(out)
