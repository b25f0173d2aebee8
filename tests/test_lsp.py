"""`rulewright lsp`, driven as an editor drives it: a scripted client session.

The server runs as `python -m checker lsp` in a subprocess; the test speaks JSON-RPC to it over
stdin/stdout (Content-Length framing) and reads what it publishes.
"""
from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from checker.lsp.problems import check_problems_within, front_end_problems, rule_at

ROOT = Path(__file__).resolve().parent.parent

SPEC = """\
spec "Tiny race" formalizes "tiny-race.txt"

document {
  R1: "Two players take turns; on a turn the active player scores 1 point."
  R2: "A player with 2 points wins."
}

players [R1] 2
var turn [R1]: player = P1
var points(p: player) [R1]: 0..2 = 0

active p [R1] when p == turn

action score [R1] progress do
  points[turn] := points[turn] + 1;
  turn := next(turn);
end

outcome victory [R2]: win player p when points[p] >= 2
"""


class Client:
    """A minimal LSP client: requests, notifications, and the messages the server sends."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, "-m", "checker", "lsp"], cwd=ROOT,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.inbox: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.inbox.put(json.loads(out.read(length)))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method: str, params: dict, timeout: float = 30) -> dict:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == self.next_id and "method" not in m, timeout)

    def notify(self, method: str, params: dict) -> None:
        self.send({"method": method, "params": params})

    def wait(self, test, timeout: float = 30) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("the server did not send the message expected")
            message = self.inbox.get(timeout=left)
            if test(message):
                return message

    def diagnostics(self, uri: str, timeout: float = 30) -> list[dict]:
        """The next diagnostics published for `uri`."""
        m = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri,
                      timeout)
        return m["params"]["diagnostics"]

    def close(self):
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.proc.wait(10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def session(tmp_path):
    spec = tmp_path / "race.rw"
    spec.write_text(SPEC, encoding="utf-8")
    client = Client()
    try:
        reply = client.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}})
        caps = reply["result"]["capabilities"]
        assert caps["hoverProvider"] and caps["textDocumentSync"]["save"]
        client.notify("initialized", {})
        uri = spec.as_uri()
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "rulewright",
                                                                "version": 1, "text": SPEC}})
        assert client.diagnostics(uri) == [], "a clean spec has no diagnostics"
        yield client, uri, spec
    finally:
        client.close()


def change(client: Client, uri: str, version: int, text: str) -> None:
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                             "contentChanges": [{"text": text}]})


def test_a_typo_is_published_as_the_writer_types_and_cleared_after_the_fix(session):
    client, uri, _ = session
    change(client, uri, 2, SPEC.replace("turn := next(turn);", "turn := next(trun);"))
    (d,) = client.diagnostics(uri)
    assert d["code"] == "E010" and "`trun`" in d["message"]
    line = SPEC.splitlines().index("  turn := next(turn);")
    assert d["range"]["start"] == {"line": line, "character": SPEC.splitlines()[line].index("turn);")}
    assert d["severity"] == 1
    change(client, uri, 3, SPEC)
    assert client.diagnostics(uri) == []


def test_a_syntax_error_is_published_at_its_line(session):
    client, uri, _ = session
    change(client, uri, 2, SPEC.replace("players [R1] 2", "playrs [R1] 2"))
    (d,) = client.diagnostics(uri)
    assert d["code"] == "E001" and d["range"]["start"]["line"] == SPEC.splitlines().index("players [R1] 2")


def test_hover_on_a_rule_tag_or_a_document_entry_shows_the_quoted_rule(session):
    client, uri, _ = session
    lines = SPEC.splitlines()
    tag = lines.index("outcome victory [R2]: win player p when points[p] >= 2")
    reply = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": {"line": tag, "character": lines[tag].index("R2") + 1}})
    assert "A player with 2 points wins." in reply["result"]["contents"]["value"]
    entry = next(i for i, line in enumerate(lines) if line.startswith("  R1:"))
    reply = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": {"line": entry, "character": 2}})
    assert "Two players take turns" in reply["result"]["contents"]["value"]
    reply = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": {"line": tag, "character": 2}})
    assert reply["result"] is None  # `outcome` is no rule id


def test_the_findings_of_the_check_on_save_are_published(session):
    client, uri, spec = session
    dead = SPEC + "action never [R1] progress when points[P1] == 3 do turn := P1; end\n"
    spec.write_text(dead, encoding="utf-8")
    change(client, uri, 2, dead)
    assert client.diagnostics(uri) == []  # nothing wrong with the text as such
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    found = client.diagnostics(uri, timeout=60)
    (d,) = [d for d in found if d["code"] == "dead-rule"]
    assert d["range"]["start"]["line"] == len(SPEC.splitlines()) and d["severity"] == 2
    assert "action `never` never applies" in d["message"]


# ---------------------------------------------------------------- the parts, without the protocol

def test_the_front_end_runs_on_the_text_given_not_on_the_file(tmp_path):
    path = tmp_path / "race.rw"
    path.write_text(SPEC, encoding="utf-8")
    problems, ids = front_end_problems(str(path), SPEC.replace("points[p] >= 2", "pionts[p] >= 2"))
    assert [p.code for p in problems] == ["E010"]
    assert ids == {"R1": "Two players take turns; on a turn the active player scores 1 point.",
                   "R2": "A player with 2 points wins."}


def test_an_include_of_the_text_stays_inside_the_documents_folder(tmp_path):
    (tmp_path / "inner").mkdir()
    path = tmp_path / "inner" / "race.rw"
    (tmp_path / "outside.rw").write_text("players 2\n", encoding="utf-8")
    text = SPEC.replace("players [R1] 2", 'include "../outside.rw"\nplayers [R1] 2')
    problems, _ = front_end_problems(str(path), text)
    assert [p.code for p in problems] == ["E004"] and "outside the folder tree" in problems[0].message


def test_a_rule_id_is_one_in_a_tag_or_a_document_entry_only():
    ids = {"607.7b": "quote", "R1": "q"}
    assert rule_at("  [607.7b] if p == turn then", 5, ids) == "607.7b"
    assert rule_at('  607.7b: "quote"', 3, ids) == "607.7b"
    assert rule_at("  x := 607.7b;", 8, ids) is None
    assert rule_at("expect deadlock [R1, R2]", 18, ids) == "R1"


def test_a_check_on_save_that_takes_too_long_is_stopped_and_says_so():
    started = time.monotonic()
    (p,) = check_problems_within(str(ROOT / "spec" / "force-of-will-floor-rules.rw"), seconds=0.5)
    assert p.code == "incomplete" and "did not finish within 0.5s" in p.message
    assert time.monotonic() - started < 15


# ---------------------------------------------------------------- workspace folders and include files

COMMON = "var x: 0..1 = 0\naction tick when x == 0 do x := 1; end\n"


@pytest.fixture
def workspace(tmp_path):
    """tmp/ws/specs/sub/main.rw includes tmp/ws/shared/common.rwi; tmp/ws/shared/orphan.rwi is
    included by nothing; tmp/outside/loose.rw includes its neighbour tmp/outside/secret.rwi."""
    ws = tmp_path / "ws"
    (ws / "specs" / "sub").mkdir(parents=True)
    (ws / "shared").mkdir()
    (ws / "specs" / "sub" / "main.rw").write_text('players 2\ninclude "../../shared/common.rwi"\n', encoding="utf-8")
    (ws / "shared" / "common.rwi").write_text(COMMON, encoding="utf-8")
    (ws / "shared" / "orphan.rwi").write_text("var y: bool = false\n", encoding="utf-8")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "loose.rw").write_text('players 2\ninclude "secret.rwi"\n', encoding="utf-8")
    (tmp_path / "outside" / "secret.rwi").write_text("var x: 0..1 = 0\n", encoding="utf-8")
    return tmp_path


def started(init: dict) -> Client:
    client = Client()
    client.request("initialize", {"processId": None, "capabilities": {}, **init})
    client.notify("initialized", {})
    return client


def opened(client: Client, path: Path, text: str | None = None) -> list[dict]:
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "rulewright", "version": 1,
                                                            "text": path.read_text(encoding="utf-8") if text is None else text}})
    return client.diagnostics(uri)


@pytest.mark.parametrize("how", ["rootUri", "workspaceFolders"])
def test_includes_may_reach_anywhere_in_the_workspace_folder_not_only_the_documents_folder(workspace, how):
    ws = workspace / "ws"
    init = ({"rootUri": ws.as_uri()} if how == "rootUri"
            else {"rootUri": None, "workspaceFolders": [{"uri": ws.as_uri(), "name": "ws"}]})
    client = started(init)
    try:
        assert opened(client, ws / "specs" / "sub" / "main.rw") == []
    finally:
        client.close()


def test_a_document_outside_every_workspace_folder_reads_none_of_its_neighbours(workspace):
    client = started({"rootUri": None, "workspaceFolders": [{"uri": (workspace / "ws").as_uri(), "name": "ws"}]})
    try:
        (d,) = opened(client, workspace / "outside" / "loose.rw")
        assert d["code"] == "E004" and d["range"]["start"]["line"] == 1
        assert "is not read" in d["message"] and "workspace folder" in d["message"]
    finally:
        client.close()


def test_an_include_file_is_checked_through_the_specs_that_include_it(workspace):
    ws = workspace / "ws"
    common = ws / "shared" / "common.rwi"
    client = started({"rootUri": ws.as_uri()})
    try:
        assert opened(client, common) == [], "no `declares no players`: the spec including it has players"
        change(client, common.as_uri(), 2, COMMON.replace("x := 1", "z := 1"))
        (d,) = client.diagnostics(common.as_uri())
        assert d["code"] == "E010" and "`z`" in d["message"] and "through main.rw" in d["message"]
        assert d["range"]["start"] == {"line": 1, "character": COMMON.splitlines()[1].index("x := 1")}
    finally:
        client.close()


def test_an_include_file_no_spec_includes_gets_one_note_and_no_false_errors(workspace):
    ws = workspace / "ws"
    client = started({"rootUri": ws.as_uri()})
    try:
        (d,) = opened(client, ws / "shared" / "orphan.rwi")
        assert d["code"] == "not-included" and d["severity"] == 3 and "no spec" in d["message"]
    finally:
        client.close()


def test_the_check_on_save_of_an_include_file_shows_the_findings_located_in_it(workspace):
    from checker.lsp.problems import check_problems
    ws = workspace / "ws"
    (p,) = check_problems(str(ws / "shared" / "common.rwi"), str(ws))
    assert p.code == "deadlock" and p.line == 2 and "through main.rw" in p.message
    assert check_problems(str(ws / "shared" / "orphan.rwi"), str(ws)) == []


def test_the_tree_of_a_document_is_the_outermost_workspace_folder_holding_it(tmp_path):
    from checker.lsp.problems import tree_for
    doc = str(tmp_path / "ws" / "specs" / "x.rw")
    assert tree_for(doc, [str(tmp_path / "ws" / "specs"), str(tmp_path / "ws")]) == str(tmp_path / "ws")
    assert tree_for(doc, [str(tmp_path / "other")]) == doc  # alone: it may include nothing
    assert tree_for(doc, []) == str(tmp_path / "ws" / "specs")  # a single file opened: its folder, as `check FILE`
