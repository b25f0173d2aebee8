"""The test tiers (tests/conftest.py): `pytest -q` is the fast tier, `--all` every tier."""
from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import ROOT, slow_tier_ids


@pytest.mark.slow
def test_every_test_the_slow_tier_lists_exists():
    # a renamed test would leave its old id here and join the fast tier without a word
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "--all", "-p", "no:cacheprovider"],
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    collected = {line for line in out.stdout.splitlines() if "::" in line}
    assert collected, out.stdout + out.stderr
    assert sorted(slow_tier_ids() - collected) == []


def test_the_fast_tier_leaves_out_the_slow_tests_and_all_runs_them():
    def count(*args):
        out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                              "tests/test_tiers.py", *args], capture_output=True, text=True, cwd=ROOT, timeout=120)
        return sum("::" in line for line in out.stdout.splitlines())
    assert count() == 1 and count("--all") == 2 and count("-m", "slow") == 1
