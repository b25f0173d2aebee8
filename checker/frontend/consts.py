"""Constant expressions (parameter values, player counts, type bounds), evaluated per instance.

The resolve pass admits only numbers, parameters, arithmetic, comparisons, `if`, `abs`, `min`, `max` and
(in types) nplayers, nteams and team_size in these places, so this small evaluator covers them.
It walks with an explicit stack of pending work, so no nesting depth can exhaust Python's.
"""
from __future__ import annotations

from . import typed as T

_MAX_DIGITS = 18  # a constant beyond 10^18 is no game's number; refusing it keeps the explorer safe


class ConstError(Exception):
    def __init__(self, message: str, span):
        super().__init__(message)
        self.span = span


def evaluate(e, params: dict[str, int], sizes: dict[str, int] | None = None):
    sizes = sizes or {}
    out: list = []
    todo: list = [("eval", e)]
    while todo:
        tag, node = todo.pop()
        if tag == "apply":
            out.append(_apply(node, out))
            continue
        match node:
            case T.Const(value=v):
                out.append(v)
            case T.Param(name=name):
                if name not in params:
                    raise ConstError(f"parameter {name} has no value here", node.span)
                out.append(params[name])
            case T.Call(func=f, args=()):
                if f not in sizes:
                    raise ConstError(f"{f} is not known yet here", node.span)
                out.append(sizes[f])
            case T.Ite():
                todo.append(("apply", node))
                todo.extend([("eval", node.other), ("eval", node.then), ("eval", node.cond)])
            case _:
                kids = T.children(node)
                # of the calls only abs() is constant: dist(player_at(1), P2) in an initial value
                # is a player's seat arithmetic, left to the engines (it popped an empty stack)
                if not isinstance(node, (T.Neg, T.Not, T.Arith, T.Compare, T.Logic)) \
                        and not (isinstance(node, T.Call) and node.func in ("abs", "min", "max")):
                    raise ConstError("this is not a constant", node.span)
                todo.append(("apply", node))
                todo.extend(("eval", k) for k in reversed(kids))
    return out[0]


def _apply(node, out: list):
    match node:
        case T.Neg():
            return -out.pop()
        case T.Not():
            return not out.pop()
        case T.Call(func="abs"):
            return abs(out.pop())
        case T.Call(func="min" | "max", args=args):
            vals = [out.pop() for _ in args]
            return min(vals) if node.func == "min" else max(vals)
        case T.Ite():
            other, then, cond = out.pop(), out.pop(), out.pop()
            return then if cond else other
    b, a = out.pop(), out.pop()
    match node:
        case T.Arith(op=op):
            if op in ("/", "%") and b == 0:
                raise ConstError("division by zero", node.span)
            v = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                 "/": lambda: a // b, "%": lambda: a % b}[op]()
            if abs(v) >= 10 ** _MAX_DIGITS:
                raise ConstError(f"the value is larger than 10^{_MAX_DIGITS}", node.span)
            return v
        case T.Compare(op=op):
            return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        case T.Logic(op=op):
            return {"and": a and b, "or": a or b, "implies": (not a) or b}[op]
    raise ConstError("this is not a constant", node.span)
