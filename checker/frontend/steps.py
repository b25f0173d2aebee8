"""Numbers counted in steps: the abstraction `var life: 0..8000 in steps of 1000` (docs/language.md,
"Large numbers").

The resolve pass divides every number that meets such a variable by its step, so the typed IR
holds the checked numbers (0..8 here) and neither engine knows of the abstraction: both explore,
and Z3 replays, exactly the model the writer declared. Only operations that are exact on
multiples of the step are allowed; anything else is a resolve error that says why. A constant
that meets a number in steps must be a multiple of the step: checked here for literals, and per
instance (`Model.step_checks`, checked by `checker.frontend.instances`) where it reads a
parameter.
"""
from __future__ import annotations

from . import syntax as sx
from . import typed as T
from .consts import ConstError, evaluate
from .types import BOOL, ERROR, INT, Step, Ty
from .diagnostics import Code



class StepsMixin:
    """Numbers counted in steps (`var life: 0..8000 in steps of 1000`), docs/language.md "Large
    numbers": the resolve pass divides every number that meets such a variable by its step, so
    the engines read plain numbers in steps and never see the abstraction. Only operations that
    are exact on multiples of the step are allowed; anything else is an error here."""

    def step_of(self, x) -> Step | None:
        return x.type.step if x.type.kind == "int" else None

    @staticmethod
    def constant(x) -> bool:
        """A number fixed before play (numbers, parameters, their arithmetic): it can be counted
        in any steps it is a multiple of."""
        return x.type == INT and all(
            isinstance(n, (T.Const, T.Param, T.Arith, T.Neg, T.Ite, T.Compare, T.Logic, T.Not))
            or isinstance(n, T.Call) and n.func in ("abs", "min", "max", "nplayers", "nteams", "team_size")
            for n in T.walk(x))

    def to_step(self, x, ty: Ty, what: str):
        """The constant `x` (in the document's units) counted in the steps of `ty`: x / K, an
        error where x is not a multiple of K (here for literals, per instance for parameters)."""
        if x.type == ERROR:
            return x
        k_expr = ty.step.value
        mode = ty.step.rounding
        try:
            v, k = evaluate(x, {}), evaluate(k_expr, {})
        except ConstError:  # reads a parameter or the table size: checked per instance
            if mode:  # rounded per instance, as the literal below
                self.roundings.append((x, k_expr, mode, x.span, what))
                return T.Arith("/", _rounded_up(x, k_expr, mode), _twice(k_expr) if mode == "nearest" else k_expr,
                               ty, x.span)
            self.step_checks.append((x, k_expr, x.span, what))
            return T.Arith("/", x, k_expr, ty, x.span)
        if k <= 0:
            return T.Const(0, ERROR, x.span)  # the declaration's own check reports it
        if v % k and mode:  # the writer's abstraction: the amount counted as a multiple of the step
            self.roundings.append((x, k_expr, mode, x.span, what))
            return T.Const(round_to_step(v, k, mode), ty, x.span)
        if v % k:
            self.error(Code.TYPE_MISMATCH, f"{what} is {v}, which is not a multiple of the step {k}", x.span,
                       f"numbers in steps of {ty.step.text} only take multiples of it; use a smaller step, "
                       "or say the abstraction differently (docs/language.md, \"Large numbers\")")
            return T.Const(0, ERROR, x.span)
        return T.Const(v // k, ty, x.span)

    def countable(self, x) -> bool:
        """Whether a plain number can be counted in steps exactly, whatever the state: a
        constant, a plain number times a constant (`k * 1000`: damage of k thousand), or sums,
        differences, negations and `if`s of those. (Whether the constants are multiples of the
        step is checked when they are counted.)"""
        if x.type != INT:
            return False
        if self.constant(x):
            return True
        match x:
            case T.Arith(op="+" | "-"):
                return self.countable(x.left) and self.countable(x.right)
            case T.Arith(op="*"):
                return self.constant(x.left) or self.constant(x.right)
            case T.Neg():
                return self.countable(x.operand)
            case T.Ite():
                return self.countable(x.then) and self.countable(x.other)
        return False

    def in_steps(self, x, ty: Ty, what: str):
        """A countable plain number counted in the steps of `ty` (see `countable`)."""
        if self.constant(x):
            return self.to_step(x, ty, what)
        match x:
            case T.Arith(op="+" | "-"):
                return T.Arith(x.op, self.in_steps(x.left, ty, what), self.in_steps(x.right, ty, what), ty, x.span)
            case T.Arith(op="*"):  # (k * c) / K is k * (c / K) when K divides c
                if self.constant(x.right):
                    return T.Arith("*", x.left, self.to_step(x.right, ty, what), ty, x.span)
                return T.Arith("*", self.to_step(x.left, ty, what), x.right, ty, x.span)
            case T.Neg():
                return T.Neg(self.in_steps(x.operand, ty, what), ty, x.span)
            case T.Ite():
                return T.Ite(x.cond, self.in_steps(x.then, ty, what), self.in_steps(x.other, ty, what), ty, x.span)
        raise AssertionError(x)

    def coerce_step(self, x, ty: Ty, what: str):
        """`x` where a number of type `ty` is wanted, one of them in steps."""
        if ty.step is not None and x.type.step is None and self.countable(x):
            return self.in_steps(x, ty, what or "this number")
        if ty.step is None:
            self.error(Code.TYPE_MISMATCH, f"{what or 'this'} must be a plain number, not a {x.type}", x.span,
                       "a number counted in steps (an abstraction) cannot count seats, turns or indexes; "
                       "compare it, add it to numbers in the same steps, or divide it by a multiple of its step")
        elif x.type.step is None:
            self.error(Code.TYPE_MISMATCH, f"{what or 'this'} must be a {ty}, not a number counted in ones", x.span,
                       f"only constants that are multiples of {ty.step.text}, and plain numbers times such a "
                       f"constant (`k * {ty.step.text}`), can become numbers in those steps")
        else:
            self.error(Code.TYPE_MISMATCH, f"{what or 'this'} must be a {ty}, not a {x.type}", x.span,
                       "numbers in different steps do not mix")
        return T.Const(0, ERROR, x.span)

    def same_steps(self, a, b, span, what: str):
        """(a, b) in the same steps (a constant side is counted in the other's steps), or None."""
        sa, sb = self.step_of(a), self.step_of(b)
        if a.type.kind != "int" or b.type.kind != "int":
            self.error(Code.TYPE_MISMATCH, f"{what}: a {a.type} and a {b.type} do not compare", span)
            return None
        if sa == sb:
            return a, b
        if sa is None and self.countable(a):
            a = self.in_steps(a, b.type, "this number")
        elif sb is None and self.countable(b):
            b = self.in_steps(b, a.type, "this number")
        else:
            one, other = (a, b) if sa is not None else (b, a)
            self.error(Code.TYPE_MISMATCH, f"{what}: a {one.type} meets a "
                       + (f"{other.type}" if self.step_of(other) is not None else "number counted in ones"), span,
                       "numbers counted in steps meet only numbers in the same steps, constants that are "
                       "multiples of the step and plain numbers times such a constant (docs/language.md, "
                       "\"Large numbers\")")
            return None
        if ERROR in (a.type, b.type):
            return None
        return a, b

    def stepped_binary(self, op, a, b, span):
        if op in ("and", "or", "implies"):
            raise AssertionError(op)
        if op == "*":
            sa, sb = self.step_of(a), self.step_of(b)
            if sa is not None and sb is not None:
                self.error(Code.TYPE_MISMATCH, "two numbers counted in steps are multiplied: the product is in no steps "
                           "the model declares", span, "multiply a number in steps by a plain number only")
                return T.Const(0, ERROR, span)
            stepped, plain = (a, b) if sa is not None else (b, a)
            plain = self.want(plain, INT)
            return T.Arith("*", a if sa is not None else plain, b if sa is not None else plain, stepped.type, span)
        if a.type.kind == "set" or b.type.kind == "set":
            self.error(Code.TYPE_MISMATCH, f"`{op}` of a {a.type} and a {b.type}", span)
            return T.Const(0, ERROR, span)
        pair = self.same_steps(a, b, span, f"`{op}`")
        if pair is None:
            return T.Const(0, ERROR, span)
        a, b = pair
        if op in ("==", "!=", "<", "<=", ">", ">="):
            return T.Compare(op, a, b, BOOL, span)
        if op == "/":  # (x K) / (y K) is x / y: a plain number
            return T.Arith("/", a, b, INT, span)
        return T.Arith(op, a, b, a.type, span)  # + - %: in the same steps

    def stepped_call(self, name, args, span):
        first = next(a for a in args if self.step_of(a) is not None)
        out = []
        for a in args:
            pair = self.same_steps(first, a, span, f"{name}()")
            if pair is None:
                return T.Const(0, ERROR, span)
            out.append(pair[1])
        return T.Call(name, tuple(out), first.type, span)


def round_to_step(v: int, k: int, mode: str) -> int:
    """v counted in steps of k, rounded: down (the step at or below), up (at or above), nearest
    (the closest; a half goes up)."""
    if mode == "down":
        return v // k
    if mode == "up":
        return -(-v // k)
    return (2 * v + k) // (2 * k)


def _rounded_up(x, k, mode: str):
    """The numerator whose floor division gives round_to_step (x / k down, (x + k - 1) / k up,
    (2x + k) / 2k nearest)."""
    if mode == "down":
        return x
    if mode == "up":
        return T.Arith("+", x, T.Arith("-", k, T.Const(1, INT, x.span), INT, x.span), INT, x.span)
    return T.Arith("+", _twice(x), k, INT, x.span)


def _twice(x):
    return T.Arith("*", T.Const(2, INT, x.span), x, INT, x.span)


def const_text(e) -> str:
    """A constant as the spec wrote it (for messages and reports): numbers, names, operators."""
    match e:
        case sx.Num(value=v):
            return f"{v:,}" if v >= 10_000 else str(v)
        case sx.Name(name=n):
            return n
        case sx.Unary(op=op, operand=x):
            return f"-{const_text(x)}" if op == "-" else f"not {const_text(x)}"
        case sx.Binary(op=op, left=a, right=b):
            return f"{const_text(a)} {op} {const_text(b)}"
        case sx.Call(func=f, args=args):
            return f"{f}(" + ", ".join(const_text(x) for x in args) + ")"
    return "..."
