"""Helpers the specification tests of lowered constructs (phases, matches) share: check a spec
text, list its errors, explore its one instance."""
from __future__ import annotations

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
