"""Dispatch tables of the typed IR's walkers: per node kind and per built-in, the method of an
engine that handles it, checked complete when the engine's module is imported.

Each engine (the closures of checker.explicit.compile, the generated successors of
checker.explicit.codegen, the Z3 encoder of checker.symbolic) is a walker with one method per
kind, named by a prefix (`e_Not`, `x_Not`, `z_Not`; `s_Assign`; `b_left`). Building its table
with these functions means a kind added to the IR without a handler in every engine stops the
import with the names missing, instead of an AttributeError on the first spec that uses it
(tests/test_front_end.py shows it by removing a handler).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable


class Unhandled(TypeError):
    """An engine lacks a handler for a node kind or built-in: a bug in rulewright, found at import."""


def _methods(cls: type, prefix: str, names: list[str]) -> list[Callable]:
    """cls's method `prefix + name` for each name; Unhandled, naming every one missing."""
    missing = [n for n in names if not callable(getattr(cls, prefix + n, None))]
    if missing:
        raise Unhandled(f"{cls.__name__} has no {', '.join(prefix + m for m in missing)}")
    return [getattr(cls, prefix + n) for n in names]


def by_kind(cls: type, prefix: str, kinds: Iterable[type]) -> dict[type, Callable]:
    """{node kind: cls's method `prefix + kind name`} for every kind; Unhandled if one is missing."""
    kinds = tuple(kinds)
    return dict(zip(kinds, _methods(cls, prefix, [k.__name__ for k in kinds])))


def by_builtin(cls: type, prefix: str, keys: Iterable[str], exempt: Iterable[str] = ()) -> dict[str, Callable]:
    """{built-in key: cls's method `prefix + key`} for every key not `exempt`; Unhandled if one is missing."""
    keys = [k for k in keys if k not in frozenset(exempt)]
    return dict(zip(keys, _methods(cls, prefix, keys)))
