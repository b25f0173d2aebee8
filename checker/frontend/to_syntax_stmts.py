"""The `ToIR` methods for statements: assignments, `if`, `forall`, local `let`, `run`, and the
outcome statements (`lose`, `win`, `draw`, `finish`, `leave`).

One of the mixins `checker.frontend.to_syntax.ToIR` is made of: lark finds a method by the name
of its grammar rule, whichever mixin defines it.
"""
from __future__ import annotations

from dataclasses import replace

from lark import v_args

from . import syntax as ir
from .to_syntax_base import SyntaxBuilder


@v_args(meta=True)
class Statements(SyntaxBuilder):
    def run_stmt(self, meta, c):
        return ir.RunStmt(str(c[0]), tuple(x for x in c[1:] if x is not None), (), self.sp(meta))

    def tagged_stmt(self, meta, children):
        tags, stmt = tuple(children[0]), children[1]
        return _with_tags(stmt, tags)

    def assign(self, meta, children):
        places = [c for c in children if isinstance(c, tuple) and c and c[0] == "place"]
        values = tuple(c for c in children if not (isinstance(c, tuple) and c and c[0] == "place"))
        if len(places) == 1 and len(values) == 1:
            _, name, index, _ = places[0]
            if isinstance(index, list):  # a let place `score(p)`
                return ir.Assign(name, None, values[0], (), self.sp(meta), args=tuple(index))
            return ir.Assign(name, index, values[0], (), self.sp(meta))
        targets = tuple(ir.Call(name, tuple(index), span) if isinstance(index, list)
                        else ir.Name(name, span) if index is None else ir.Index(name, index, span)
                        for _, name, index, span in places)
        return ir.MultiAssign(targets, values, (), self.sp(meta))

    def place(self, meta, children):
        index = ir.indices(children[1:], self.sp(meta)) if len(children) > 1 else None
        return ("place", str(children[0]), index, self.sp(meta))

    def let_place(self, meta, children):
        # the arguments travel as a list, which tells a let place from `x[i]` (one expression)
        return ("place", str(children[0]), list(children[1:]), self.sp(meta))

    def if_stmt(self, meta, children):
        cond = children[0]
        body, branches, otherwise = [], [], ()
        for c in children[1:]:
            if isinstance(c, tuple) and c and c[0] == "elif":
                branches.append((c[1], c[2]))
            elif isinstance(c, tuple) and c and c[0] == "else":
                otherwise = c[1]
            elif c is not None:
                body.append(c)
        return ir.If(((cond, tuple(body)),) + tuple(branches), otherwise, (), self.sp(meta))

    def elif_part(self, meta, children):
        return ("elif", children[0], tuple(c for c in children[1:] if c is not None))

    def else_part(self, meta, children):
        return ("else", tuple(c for c in children if c is not None))

    def forall_stmt(self, meta, children):
        return ir.ForallStmt(str(children[0]), children[1], tuple(c for c in children[2:] if c is not None), (), self.sp(meta))

    def local_let(self, meta, c):
        return ir.LocalLet(str(c[0]), c[1], (), self.sp(meta))

    def lose_stmt(self, meta, c):
        return ir.OutcomeStmt("lose", c[0], (), self.sp(meta))

    def win_stmt(self, meta, c):
        return ir.OutcomeStmt("win", c[0], (), self.sp(meta))

    def draw_stmt(self, meta, c):
        return ir.OutcomeStmt("draw", None, (), self.sp(meta))

    def finish_stmt(self, meta, c):
        return ir.OutcomeStmt("finish", None, (), self.sp(meta))

    # outcomes for some players while the game goes on
    def draw_some_stmt(self, meta, c):
        return ir.OutcomeStmt("draw", c[0], (), self.sp(meta))

    def leave_stmt(self, meta, c):
        return ir.OutcomeStmt("leave", c[0], (), self.sp(meta))

    def signal_stmt(self, meta, c):
        return ir.SignalStmt(str(c[0]), c[1] if len(c) > 1 else None, (), self.sp(meta))


def _with_tags(stmt, tags):
    return replace(stmt, tags=tuple(stmt.tags) + tuple(tags))
