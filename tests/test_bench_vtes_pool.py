"""bench/vtes_pool.py measures V:TES's pool at the document's numbers on a rewritten copy of
spec/ (issue 22): a rewrite that silently stopped applying would measure spec/'s abstraction
twice. These tests only load the copy; the benchmark's runs take minutes and assert nothing."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import vtes_pool  # noqa: E402

from checker.engine import load_instances  # noqa: E402


def test_the_copy_counts_the_pool_as_the_document_does(tmp_path):
    path = vtes_pool.write_copy(tmp_path)
    insts = load_instances(str(path))
    assert len(insts) == len(load_instances(str(vtes_pool.SPEC)))
    for inst in insts:
        pool = inst.var("pool").type
        # 30 to start, six for each of the others as prey: 48 at four players, 54 at five
        assert (pool.low, pool.high) == (0, 30 + 6 * (inst.nplayers - 1))
    text = path.read_text(encoding="utf-8")
    for old, new in vtes_pool.REWRITES:
        assert new in text and old not in text


def test_a_rewrite_that_no_longer_applies_is_said_not_measured():
    with pytest.raises(ValueError, match="update bench/vtes_pool.py REWRITES"):
        vtes_pool.document_numbers("var pool(p: player) [RB2.2.a]: 0..3 = 1\n")
