"""Test tiers and the working folder every test runs in.

`pytest -q` runs the fast tier: every module of checker/ and every finding kind, in under two
minutes on a 2-core machine. Tests marked `slow` (random differential specs, both engines over
every spec, worker pools, limits that wait, installs, the browser) run with `--all` (what
`.ci/run` does) or when a marker expression names them (`-m slow`). Besides the marks in the
test files, tests/slow-tier.txt lists measured slow cases by node id (single parameters of a
parametrized test, which a decorator cannot reach).
"""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SLOW_TIER = Path(__file__).resolve().parent / "slow-tier.txt"


def slow_tier_ids() -> set[str]:
    lines = SLOW_TIER.read_text(encoding="utf-8").splitlines()
    return {line for line in lines if line and not line.startswith("#")}


def pytest_addoption(parser):
    parser.addoption("--all", action="store_true", default=False,
                     help="run every tier: the fast tests and those marked slow (what .ci/run runs)")


def pytest_collection_modifyitems(config, items):
    listed = slow_tier_ids()
    for item in items:
        if item.nodeid in listed:
            item.add_marker(pytest.mark.slow)
    if config.getoption("--all") or config.getoption("markexpr"):
        return  # every tier, or the tiers a marker expression asks for
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]


def pytest_report_header(config):
    if not (config.getoption("--all") or config.getoption("markexpr")):
        return "the fast tier: tests marked slow are left out (--all runs every tier)"
    return None


@pytest.fixture(autouse=True)
def _repo_root_cwd(monkeypatch):
    # reports print paths as given; run from the repository root so they are stable
    monkeypatch.chdir(ROOT)
