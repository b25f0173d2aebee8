"""Expressions that read neither the state nor a binder: their values are known before any
search, and the generated successors, their guards and the resolution keys use them as
literals. One definition here, so the three agree on what counts as closed."""
from __future__ import annotations

from ..frontend import builtins as bi
from ..frontend import typed as T
from .compile import Compiler
from .values import Ctx, EvalError

_OPEN = (T.VarRef, T.BinderRef, T.Quant, T.Aggregate, T.SetComp)


def is_closed(e) -> bool:
    """Reads neither the state nor a binder, and has no loop (a sum over 0..10^9 is for the
    budget to stop, at run time, not for compiling)."""
    return not any(isinstance(n, _OPEN) or isinstance(n, T.Call) and bi.BY_KEY[n.func].reads for n in T.walk(e))


def closed_value(comp: Compiler, e):
    """The value of a closed expression (`is_closed`), computed by the closure engine; None if
    evaluating it fails: then it fails where it is evaluated, as in the closures."""
    try:
        return comp.expr(e)(Ctx(()))
    except (EvalError, RecursionError):
        return None
