"""Helpers the specification tests share: check a spec text, list its errors, explore its one
instance, measure the CPU time a run took."""
from __future__ import annotations

import resource
import time

from checker import engine
from checker.engine import load_instances
from checker.explicit.explore import Limits, explore
from checker.explicit.machine import Machine


def _check(tmp_path, text: str):
    spec = tmp_path / "s.rw"
    spec.write_text(text, encoding="utf-8")
    return engine.check([str(spec)]), spec


def _errors(tmp_path, text: str) -> list[tuple[str, str]]:
    res, _ = _check(tmp_path, text)
    return [(d.code, d.message) for d in res.diagnostics]


def _graph(spec):
    (inst,) = load_instances(str(spec))
    return inst, explore(Machine(inst), Limits(max_states=10_000, max_seconds=30))


def cpu_time() -> float:
    """The CPU time of this process and of its finished children (worker processes): the time
    limits are CPU time, so a test measures what a run took the same way, and holds on a loaded
    machine, where wall time stretches."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def burn_cpu(seconds: float) -> None:
    """Spend `seconds` of this thread's CPU time: how a test makes work slow for a limit that
    counts CPU time (a sleep spends none)."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass
