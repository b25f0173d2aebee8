"""Hostile input (issue 8, front end): includes confined to the spec's folder tree, no parser
cache to unpickle, the renderer shows only text the parser accepted, and deep nesting, huge
numbers and invalid UTF-8 refused with a located error instead of an internal one."""

import os
import pickle
import tempfile
from pathlib import Path

from checker.frontend import parser


# ---------------------------------------------------------------- no cache to unpickle

class _Payload:
    """Unpickling this makes a folder at `marker`: proof that the pickle ran."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (str(self.marker),))


def test_a_pickle_planted_where_lark_caches_its_tables_is_never_loaded(tmp_path, monkeypatch):
    from lark import Lark
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    grammar_text = parser._grammar_path().read_text(encoding="utf-8")
    # how rulewright used to build its parser: lark names the cache file after the grammar's hash
    old = dict(parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=True, cache=True)
    Lark(grammar_text, **old)
    (planted,) = tmp_path.glob(".lark_cache_*")
    header = planted.read_bytes().split(b"\n", 1)[0]
    marker = tmp_path / "payload-ran"

    def plant():
        planted.write_bytes(header + b"\n" + pickle.dumps(_Payload(marker)))

    plant()
    Lark(grammar_text, **old)  # control: the old way runs the planted payload
    assert marker.exists()
    marker.rmdir()
    plant()  # again: lark rewrote the cache after the payload failed to load as tables
    before = {p: p.read_bytes() for p in tmp_path.iterdir()}

    parser._lark.cache_clear()
    try:
        parser.parse_text("players 2\nvar x: bool = false\n", "t.rw")
    finally:
        parser._lark.cache_clear()
    assert not marker.exists()
    assert {p: p.read_bytes() for p in tmp_path.iterdir()} == before  # and nothing is written there either
