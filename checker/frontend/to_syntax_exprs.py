"""The `ToIR` methods for expressions: quantifiers, aggregates, logic, comparisons, arithmetic,
literals, names, calls, sets and `if ... then ... else ... end`; and the keywords that become
plain strings.

One of the mixins `checker.frontend.to_syntax.ToIR` is made of: lark finds a method by the name
of its grammar rule, whichever mixin defines it.
"""
from __future__ import annotations

from lark import v_args

from . import syntax as ir
from .to_syntax_base import SyntaxBuilder


class PrecWho(str):
    """`players` or `teams` in `precedence lose over win for players`: told apart from `same_step`."""


@v_args(meta=True)
class Expressions(SyntaxBuilder):
    def dom_range(self, meta, c):
        return ir.RangeDomain(c[0], c[1], self.sp(meta))

    def dom_set(self, meta, c):
        return ir.SetDomain(c[0], self.sp(meta))

    def quant(self, meta, c):
        return str(c[0])

    # rules that only choose a keyword become its text (declarations read some of them too)
    agg = quant
    outcome_kind = quant
    winners_kind = quant
    last_side_kind = quant
    prec_scope = quant
    comp_op = quant

    def prec_who(self, meta, c):
        return PrecWho(c[1])

    def quantified(self, meta, c):
        return ir.Quant(str(c[0]), str(c[1]), c[2], c[3], self.sp(meta))

    def aggregate(self, meta, c):
        return ir.Aggregate(str(c[0]), str(c[1]), c[2], c[3], self.sp(meta))

    def implication(self, meta, c):
        return ir.Binary("implies", c[0], c[1], self.sp(meta))

    def disjunction(self, meta, c):
        return _fold("or", c, self.sp(meta))

    def conjunction(self, meta, c):
        return _fold("and", c, self.sp(meta))

    def not_(self, meta, c):
        return ir.Unary("not", c[0], self.sp(meta))

    def comparison(self, meta, c):
        return ir.Binary(str(c[1]), c[0], c[2], self.sp(meta))

    def not_in(self, meta, c):
        return ir.Binary("notin", c[0], c[1], self.sp(meta))

    def _arith(self, meta, c):
        out = c[0]
        for i in range(1, len(c), 2):
            out = ir.Binary(str(c[i]), out, c[i + 1], self.sp(meta))
        return out

    sum = _arith
    product = _arith

    def neg(self, meta, c):
        return ir.Unary("-", c[0], self.sp(meta))

    def number(self, meta, c):
        return ir.Num(int(c[0]), self.sp(meta))

    def true(self, meta, c):
        return ir.Bool(True, self.sp(meta))

    def false(self, meta, c):
        return ir.Bool(False, self.sp(meta))

    def none(self, meta, c):
        return ir.NoneLit(self.sp(meta))

    def name(self, meta, c):
        return ir.Name(str(c[0]), self.sp(meta))

    def index_expr(self, meta, c):
        return ir.Index(str(c[0]), ir.indices(c[1:], self.sp(meta)), self.sp(meta))

    def call(self, meta, c):
        args = tuple(x for x in c[1:] if x is not None)
        return ir.Call(str(c[0]), args, self.sp(meta))

    def agg_values(self, meta, c):
        # `min(a, b)`: the aggregate keywords also name functions of two or more values
        return ir.Call(str(c[0]), tuple(c[1:]), self.sp(meta))

    def set_comp(self, meta, c):
        return ir.SetComp(c[0], str(c[1]), c[2], c[3] if len(c) > 3 else None, self.sp(meta))

    def set_expr(self, meta, c):
        return ir.SetLit(tuple(x for x in c if x is not None), self.sp(meta))

    def ite(self, meta, c):
        # `if a then x elif b then y else z end` is `if a then x else (if b then y else z end) end`
        out = c[-1]
        for i in range(len(c) - 2, 0, -2):
            out = ir.Ite(c[i - 1], c[i], out, self.sp(meta))
        return out


def _fold(op, items, span):
    out = items[0]
    for x in items[1:]:
        out = ir.Binary(op, out, x, span)
    return out

