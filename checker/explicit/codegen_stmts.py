"""The generated source of statements, one `s_<Kind>` per statement kind of the typed IR.

A part of `Generator` (checker.explicit.codegen), apart from the expressions because statements
carry state of their own while a body is generated: which entries the body writes (`written`:
an assignment writes a copy, `y3` for `x3`, so the state read stays intact) and which places
are already computed on the straight-line path (`places`, reused by the next assignment to the
same place). `Generator` inherits `StatementSource` and keeps the dispatch (`stmts`, `stmt` and
the `_STMT` table, built from the combined class); the handlers here return lines of source,
indented by `pad`.
"""
from __future__ import annotations

import re

from ..frontend import typed as T
from .packing import _lit


class StatementSource:
    """`s_<Kind>(s, pad)`: the lines of source of one statement."""

    def s_Assign(self, s, pad):
        f = self.by_name[s.var]
        v, vt = f.var, f.var.type
        x = self.written.get(f"x{f.entry}")
        assert x is not None, "the body's written entries are collected before it is generated"
        val = self.fresh("v")
        lines = [f"{pad}{val} = {self.expr(s.value)}"]  # the value first, then the index, as the closures do
        if f.kind == "bits" and s.value.__class__ is T.Const:
            lines = []  # a constant: nothing to evaluate first (the statement below writes it)
        k = None
        if s.index is not None:
            k, line = self.place(self.offset(f, s.index, s.span), pad)
            lines += line
        check = self.contains(vt, val)
        if check:
            self.names.append((v, s.span))
            site = len(self.names) - 1
            lines.append(f"{pad}if not ({check}): _overflow({site}, {k if k else -1}, {val})")
        self.wrote(x)
        if f.kind == "scalar":
            lines.append(f"{pad}{x} = {val}")
        elif f.kind == "bits" and s.value.__class__ is T.Const:  # `mk[s] := true`: no test of the value
            lines.append(f"{pad}{x} = {x} | (1 << {k})" if s.value.value else f"{pad}{x} = {x} & ~(1 << {k})")
        elif f.kind == "bits":
            lines.append(f"{pad}{x} = ({x} | (1 << {k})) if {val} else ({x} & ~(1 << {k}))")
        else:
            sh = f"({k} * {f.width})"
            lines.append(f"{pad}{x} = ({x} & ~({f.mask} << {sh})) | (({val} - {_lit(f.low)}) << {sh})")
        return lines

    def place(self, src: str, pad: str) -> tuple[str, list[str]]:
        """(local, lines) for an assignment's place: the local that already holds `src` on this
        path, or a new one. Reusing it is exact: the same source over locals none of which was
        written since gives the same value, and had it failed the step would have ended there."""
        k = self.places.get(src)
        if k is not None:
            return k, []
        k = self.places[src] = self.fresh("k")
        return k, [f"{pad}{k} = {src}"]

    def wrote(self, local: str) -> None:
        """`local` is assigned: a place computed from it is stale."""
        word = re.compile(rf"\b{re.escape(local)}\b")
        self.places = {src: k for src, k in self.places.items() if not word.search(src)}

    def contains(self, vt, val: str) -> str:
        """The source of `VarType.contains` for one type ("" where the type cannot be left)."""
        if vt.kind == "bool":
            return ""  # every boolean expression of generated code gives a bool
        if vt.kind == "int":
            return f"{_lit(vt.low)} <= {val} <= {_lit(vt.high)}"
        if vt.kind in ("player", "team"):
            top = self.n if vt.kind == "player" else self.inst.nteams
            return f"{-1 if vt.optional else 0} <= {val} < {top}"
        if vt.kind == "enum":
            return f"0 <= {val} < {len(vt.members)}"
        return f"0 <= {val} < {1 << self.n}"

    def s_If(self, s, pad):
        """A tagged `if` hits its rule in each branch it runs (an `else` with statements is a
        branch), as `Compiler.s_If` does."""
        hit = [f"{pad}    hits.append({_lit(s.rule)})"] if s.rule is not None else []
        lines = []
        before = self.places  # each branch starts from the places computed before the `if`
        for i, (cond, body) in enumerate(s.branches):
            lines.append(f"{pad}{'if' if i == 0 else 'elif'} {self.expr(cond)}:")
            self.places = dict(before)
            lines += hit + self.stmts(body, pad + "    ")
        if s.otherwise:
            lines.append(f"{pad}else:")
            self.places = dict(before)
            lines += hit + self.stmts(s.otherwise, pad + "    ")
        self.places = {}  # after it, a place may hold either branch's value or none
        return lines

    def s_Forall(self, s, pad):
        lines = [f"{pad}for {self.x_BinderRef(s.binder)} in list({self.domain(s.domain)}):"]
        self.places = {}  # a turn of the loop may write what an earlier place read
        lines += self.stmts(s.body, pad + "    ")
        self.places = {}
        return lines

    def s_Block(self, s, pad):
        return self.stmts(s.body, pad)

    def s_LetStmt(self, s, pad):
        name = self.x_BinderRef(s.binder)
        line = f"{pad}{name} = {self.expr(s.value)}"
        self.wrote(name)
        return [line]

    def s_OutcomeStmt(self, s, pad):
        if s.kind == "draw" and s.subject is None:
            self.wrote("draw")
            return [f"{pad}draw = True"]
        if s.kind == "finish":
            self.wrote("fin")
            return [f"{pad}fin = True"]
        team = s.subject.type.kind == "team"
        fact = {"lose": "l", "win": "w", "draw": "d", "leave": "x"}[s.kind] + ("t" if team else "p")
        line = f"{pad}{fact} |= 1 << {self.expr(s.subject)}"
        self.wrote(fact)
        return [line]

    def s_SignalStmt(self, s, pad):
        at = self.comp.signals[s.event][0]
        self.wrote("sg")
        if s.subject is None:
            return [f"{pad}sg |= {1 << at}"]
        return [f"{pad}sg |= 1 << ({at} + {self.expr(s.subject)})"]
