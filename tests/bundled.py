"""One `check spec/` per configuration for the whole test session.

A run over the bundled specs costs a minute or more of CPU, and a dozen slow tests read it: the
counterexamples kept in counterexamples/, the SARIF of the bundled specs, symmetry on against
off, the compiled successors against the closures, one worker against two or a Dask cluster.
Text, JSON and SARIF are pure renderings of one `engine.Result` (checker.outputs.report), so
the tests that read the same run share it instead of checking spec/ again each.
"""
from __future__ import annotations

import contextlib
import functools
import os
from pathlib import Path

from checker import engine
from checker.limits import Limits

ROOT = Path(__file__).resolve().parent.parent
# as a person types them from the repository root: the reports print paths as given
SPECS = tuple(sorted(str(p.relative_to(ROOT)) for p in (ROOT / "spec").glob("*.rw")))
# time enough that a loaded machine cannot make one configuration incomplete and not another
LIMITS = Limits(max_seconds=3600)


def bundled(symmetry: str = "auto", successors: str = "compiled", jobs: int = 1) -> engine.Result:
    """The result of checking spec/ with these settings (RULEWRIGHT_SYMMETRY, what
    `--symmetry` sets; RULEWRIGHT_SUCCESSORS=closures, the reference successors), computed
    once per session. Callers read it and never change it."""
    return _bundled(symmetry, successors, jobs)  # one cache key however the caller names them


@functools.lru_cache(maxsize=None)
def _bundled(symmetry: str, successors: str, jobs: int) -> engine.Result:
    settings = {"RULEWRIGHT_SYMMETRY": symmetry, "RULEWRIGHT_SUCCESSORS": successors}
    saved = {name: os.environ.get(name) for name in settings}
    os.environ.update(settings)
    try:
        with contextlib.chdir(ROOT):
            return engine.check(list(SPECS), LIMITS, jobs=jobs)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
