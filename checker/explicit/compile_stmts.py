"""The closures of statements, one `s_<Kind>` per statement kind of the typed IR.

A part of `Compiler` (checker.explicit.compile), apart from the expressions because statements
write where expressions only read: assignments check the type of what they write (`Overflow`),
tagged statements record the rules they apply, outcome statements set the step's facts.
`Compiler` inherits `StatementClosures` and keeps the dispatch (`stmts`, `stmt` and the `_STMT`
table, built from the combined class) with the tables; the handlers here call back into it
(`self.expr`, `self.stmts`, `self.domain`, `self.cell`).
"""
from __future__ import annotations

from .values import EvalError, Overflow


class StatementClosures:
    """`s_<Kind>(s)`: the closure of one statement, run on a `Ctx`."""

    def s_Assign(self, s):
        var = self.inst.var(s.var)
        g = self.expr(s.value)
        vt, n, nt, name, span = var.type, self.n, self.inst.nteams, var.name, s.span
        if s.index is not None:
            fi = self.expr(s.index)
            off, base, count = var.offset - var.index_base, var.index_base, var.count
            keys = var.index_keys(self.inst)

            def assign_at(c):
                v = g(c)
                i = fi(c)
                if not 0 <= i - base < count:
                    raise EvalError(f"index {i} of {name} is outside its range", span)
                if not vt.contains(v, n, nt):  # the value the document would see (`in steps of`)
                    raise Overflow(f"{name}[{keys[i - base]}]", v * var.step if var.step != 1 else v, span)
                c.vals[off + i] = v
            return assign_at
        off = var.offset

        def assign(c):
            v = g(c)
            if not vt.contains(v, n, nt):
                raise Overflow(name, v * var.step if var.step != 1 else v, span)
            c.vals[off] = v
        return assign

    def s_If(self, s, rid=None):
        """`rid`: the rule the `if` is tagged with, hit when a branch runs (an `else` with
        statements is a branch; no branch taken, nothing of the rule applied)."""
        branches = [(self.expr(cond), self.stmts(body)) for cond, body in s.branches]
        other = self.stmts(s.otherwise)
        if rid is None:
            def run(c):
                for f, b in branches:
                    if f(c):
                        b(c)
                        return
                other(c)
            return run
        has_else = bool(s.otherwise)

        def run_tagged(c):
            for f, b in branches:
                if f(c):
                    c.hits.append(rid)
                    b(c)
                    return
            if has_else:
                c.hits.append(rid)
                other(c)
        return run_tagged

    def s_Forall(self, s):
        dom, cell, body = self.domain(s.domain), self.cell(s.binder), self.stmts(s.body)

        def run(c):
            for v in list(dom(c)):
                cell[0] = v
                body(c)
        return run

    def s_Block(self, s):
        return self.stmts(s.body)

    def s_LetStmt(self, s):
        cell, f = self.cell(s.binder), self.expr(s.value)

        def bind(c):
            cell[0] = f(c)
        return bind

    def s_OutcomeStmt(self, s):
        if s.kind == "draw" and s.subject is None:
            def draw(c):
                c.draw = True
            return draw
        if s.kind == "finish":
            def finish(c):
                c.fin = True
            return finish
        f = self.expr(s.subject)
        team = s.subject.type.kind == "team"
        attr = {"lose": "l", "win": "w", "draw": "d", "leave": "x"}[s.kind] + ("t" if team else "p")

        def outcome(c):
            setattr(c, attr, getattr(c, attr) | (1 << f(c)))
        return outcome

    def s_SignalStmt(self, s):
        at = self.signals[s.event][0]
        if s.subject is None:
            bit = 1 << at

            def signal(c):
                c.sg |= bit
            return signal
        f = self.expr(s.subject)

        def signal_of(c):
            c.sg |= 1 << (at + f(c))
        return signal_of
