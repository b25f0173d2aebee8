"""`rulewright lsp`: a language server over stdio (pygls).

- As the writer types (didOpen, didChange): the front end runs on the editor's text and its
  syntax, name and type errors are published at once.
- On save (didSave): the saved file is checked with small limits in a separate process with a
  time limit (checker.lsp.problems), and its findings are published beside the front end's
  errors until the next save. The check runs off the event loop: typing stays answered.
- Hover on a rule id, in a `[...]` tag or in the `document {}` block: the quoted rule text.

A document's includes must stay in the workspace folder that holds it (checker.lsp.problems,
`tree_for`): the client's workspaceFolders, or its rootUri when it sends none. An include file
(`.rwi`) is checked through the specs of that folder that include it; which specs those are is
looked up when it is opened and again after every save (a save may add or drop an include),
not at every keystroke.

The server keeps, per document, the last rule ids that parsed, so hover still works while the
text being typed has an error.
"""
from __future__ import annotations

import asyncio
import os
from importlib import metadata

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from ..frontend.includers import is_spec
from .problems import Problem, check_problems_within, front_end_problems, hover_text, includers_in, rule_at, tree_for

_SEVERITY = {"error": lsp.DiagnosticSeverity.Error, "warning": lsp.DiagnosticSeverity.Warning,
             "info": lsp.DiagnosticSeverity.Information, "hint": lsp.DiagnosticSeverity.Hint}


class RulewrightServer(LanguageServer):
    def __init__(self):
        super().__init__("rulewright", _version(), text_document_sync_kind=lsp.TextDocumentSyncKind.Full)
        self.typed: dict[str, list[Problem]] = {}  # uri -> the front end's errors in the text being typed
        self.found: dict[str, list[Problem]] = {}  # uri -> the findings of the last check on save
        self.ids: dict[str, dict[str, str]] = {}  # uri -> rule id -> quote, from the last text that parsed
        self.saves: dict[str, int] = {}  # uri -> number of the latest save (an older check's result is dropped)
        self.includers: dict[str, list[str]] = {}  # uri of an include file -> the specs that include it

    def tree(self, path: str) -> str:
        """The tree a document's includes must stay in (problems.tree_for)."""
        folders = [p for p in (to_fs_path(f.uri) for f in self.workspace.folders.values()) if p]
        if not folders and self.workspace.root_path:
            folders = [self.workspace.root_path]
        return tree_for(path, folders)

    def analyse(self, uri: str) -> None:
        doc = self.workspace.get_text_document(uri)
        if not doc.path:
            return
        root = self.tree(doc.path)
        includers = None
        if not is_spec(doc.path):
            if uri not in self.includers:
                self.includers[uri] = includers_in(doc.path, root)
            includers = self.includers[uri]
        problems, ids = front_end_problems(doc.path, doc.source, root, includers)
        self.typed[uri] = problems
        if ids is not None:
            self.ids[uri] = ids
        self.publish(uri)

    def publish(self, uri: str) -> None:
        doc = self.workspace.get_text_document(uri)
        lines = list(doc.lines) or [""]
        diags = [self.to_lsp(p, lines, doc) for p in self.typed.get(uri, []) + self.found.get(uri, [])]
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diags,
                                                                             version=doc.version))

    @staticmethod
    def to_lsp(p: Problem, lines: list[str], doc) -> lsp.Diagnostic:
        def pos(line: int, col: int) -> lsp.Position:
            i = min(max(line - 1, 0), len(lines) - 1)
            text = lines[i].rstrip("\r\n")
            server_pos = lsp.Position(line=i, character=min(max(col - 1, 0), len(text)))
            return doc.position_codec.position_to_client_units(lines, server_pos)
        start, end = pos(p.line, p.col), pos(p.end_line, p.end_col)
        if (end.line, end.character) <= (start.line, start.character):
            end = lsp.Position(line=start.line, character=start.character + 1)
        # the story's places (rules a step ran, what blocks a deadlock), in the spec's columns
        related = [lsp.DiagnosticRelatedInformation(
            location=lsp.Location(uri=from_fs_path(os.path.abspath(r.file)), range=lsp.Range(
                start=lsp.Position(line=r.line - 1, character=max(r.col - 1, 0)),
                end=lsp.Position(line=r.end_line - 1, character=max(r.end_col - 1, 0)))),
            message=r.message) for r in p.related] or None
        return lsp.Diagnostic(range=lsp.Range(start=start, end=end), message=p.message,
                              severity=_SEVERITY.get(p.severity, lsp.DiagnosticSeverity.Error),
                              code=p.code, source="rulewright", related_information=related)


def _version() -> str:
    try:
        return metadata.version("rulewright")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


server = RulewrightServer()


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: RulewrightServer, params: lsp.DidOpenTextDocumentParams) -> None:
    ls.analyse(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: RulewrightServer, params: lsp.DidChangeTextDocumentParams) -> None:
    ls.analyse(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE, lsp.SaveOptions(include_text=False))
async def did_save(ls: RulewrightServer, params: lsp.DidSaveTextDocumentParams) -> None:
    uri = params.text_document.uri
    doc = ls.workspace.get_text_document(uri)
    if not doc.path:
        return
    ls.saves[uri] = number = ls.saves.get(uri, 0) + 1
    ls.includers.clear()  # the saved file may include other files now, or no longer
    for other in list(ls.typed):
        if other != uri and not is_spec(ls.workspace.get_text_document(other).path or ".rw"):
            ls.analyse(other)  # an open include file is seen through the specs as saved
    found = await asyncio.get_running_loop().run_in_executor(None, check_problems_within, doc.path,
                                                             ls.tree(doc.path))
    if ls.saves.get(uri) != number:
        return  # saved again meanwhile: that check's findings are the ones to show
    ls.found[uri] = found
    ls.analyse(uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: RulewrightServer, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    for table in (ls.typed, ls.found, ls.ids, ls.saves, ls.includers):
        table.pop(uri, None)
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def hover(ls: RulewrightServer, params: lsp.HoverParams) -> lsp.Hover | None:
    uri = params.text_document.uri
    ids = ls.ids.get(uri)
    if not ids:
        return None
    doc = ls.workspace.get_text_document(uri)
    lines = list(doc.lines)
    if not 0 <= params.position.line < len(lines):
        return None
    at = doc.position_codec.position_from_client_units(lines, params.position)
    rule = rule_at(lines[at.line].rstrip("\r\n"), at.character, ids)
    if rule is None:
        return None
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=hover_text(rule, ids[rule])))


def serve() -> int:
    server.start_io()
    return 0
