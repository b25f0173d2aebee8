"""Helpers the specification tests share: check a spec text, list its errors, explore its one
instance, measure the CPU time a run took, say briefly where two reports differ."""
from __future__ import annotations

import json
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


def report_differences(one: str, two: str, shown: int = 8) -> list[str]:
    """Where two JSON reports differ, a line per instance, finding or top-level key, each naming
    the fields that differ (and the first decision that does): a CI log keeps only the end of a
    failure, where a diff of two whole reports named no instance."""
    a, b = json.loads(one), json.loads(two)
    out = [f"{key}: {a.get(key)!r:.200} != {b.get(key)!r:.200}" for key in sorted(a.keys() | b.keys())
           if key not in ("findings", "instances") and a.get(key) != b.get(key)]

    def by(doc, what, key):
        return {key(x): x for x in doc.get(what, [])}
    for what, key in (("instances", lambda i: i["instance"]), ("findings", lambda f: (f["kind"], f.get("fingerprint")))):
        xs, ys = by(a, what, key), by(b, what, key)
        for k in sorted(xs.keys() | ys.keys(), key=str):
            x, y = xs.get(k), ys.get(k)
            if x == y:
                continue
            if x is None or y is None:
                out.append(f"{what} {k}: only in the {'second' if x is None else 'first'} report")
                continue
            fields = sorted(f for f in x.keys() | y.keys() if x.get(f) != y.get(f))
            first = next((f"{d!r:.300} != {e!r:.300}" for d, e in zip(x.get("decisions", []), y.get("decisions", []))
                          if d != e), "")
            out.append(f"{what} {k}: differs in {', '.join(fields)}" + (f" (first decision: {first})" if first else ""))
    return out[:shown] + ([f"... and {len(out) - shown} more"] if len(out) > shown else [])
