"""Names: the tables of what a model declares, scopes, and the resolver's bookkeeping.

Looking a name up is `ExprsMixin.x_Name` (binders, lets, variables, parameters, built-ins,
players, teams, enumeration members, in that order); this mixin holds what that order
consults: the declared names and whether a new one may be declared, who is a player or a team
in this model, the binders (numbered once per model: the engines key bound values by their
numbers), the citable rules, and the diagnostics, each naming the format and reading.
"""
from __future__ import annotations

import difflib
import re

from .. import builtins as bi
from .. import syntax as sx
from .. import typed as T
from ..diagnostics import Code, Diagnostic
from ..keywords import aggregate_words, reserved_words
from ..types import Ty, enum
from .context import ERROR


class NamesMixin:
    """Declared names, scopes, binders, rules and diagnostics."""

    # ------------------------------------------------------------ diagnostics and declarations
    def error(self, code, message, span, hint="") -> None:
        self.diags.append(Diagnostic(code, message, span, hint, context=self.context))

    def _unique(self, table, d, what) -> bool:
        if d.name in table:
            self.error(Code.DEFINED_TWICE, f"{what} {d.name} is declared twice", d.span,
                       f"the first declaration is at {table[d.name].span}")
            return False
        table[d.name] = d
        return True

    def _once(self, decls) -> None:
        """E011 for a declaration of a model that another of the same kind and name already is
        (two `action pass`, two `players`). A format or reading replaces a declaration beneath it
        (checker.frontend.compose); within one block both stayed, and a `remove` or a reading
        then changed both. Variables, lets, routines, parameters and triggers are checked where
        they are declared; phases, by their variable."""
        seen: dict[str, sx.Decl] = {}
        for d in decls:
            key = sx.decl_name(d)
            if key is None or isinstance(d, _DECLARED_ELSEWHERE):
                continue
            if key in seen:
                self.error(Code.DEFINED_TWICE, f"{_declaration(d)} is declared twice", d.span,
                           f"the first declaration is at {seen[key].span}; a format or a reading replaces a "
                           "declaration of the file, but one block declares it once")
            else:
                seen[key] = d

    def declare_var(self, d: sx.VarDecl) -> bool:
        """Declare variable `d` (in the order variables are numbered), unless its name is taken."""
        if not self._unique(self.var_decls, d, "variable"):
            return False
        self.var_order[d.name] = len(self.var_order)
        return True

    def _inline_enums(self, decls) -> list[sx.TEnum]:
        """Set literals of fresh names in a binder's domain (`how: {hold, conquer}`): enumerations
        that no variable declares, written where a parameter ranges over them."""
        found = []
        for n in sx.walk(list(decls)):
            dom = n.domain if isinstance(n, (sx.Param, sx.Quant, sx.Aggregate, sx.SetComp, sx.ForallStmt)) else None
            if not (isinstance(dom, sx.SetDomain) and isinstance(dom.expr, sx.SetLit) and dom.expr.items
                    and all(isinstance(x, sx.Name) for x in dom.expr.items)):
                continue
            names = tuple(x.name for x in dom.expr.items)
            if any(self._known(x) for x in names):
                continue
            found.append(sx.TEnum(names, dom.span))
        return found

    def _known(self, name: str) -> bool:
        return (name in self.lets or name in self.var_decls or name in self.params or name in bi.NAMES
                or name in self.enum_of_member or self.player_or_team(name) is not None)

    def _enum(self, t: sx.TEnum) -> Ty:
        ty = enum(t.members)
        for m in t.members:
            other = self.enum_of_member.get(m)
            if other is not None and other != ty:
                self.error(Code.DEFINED_TWICE, f"enumeration member {m} belongs to two different enumerations", t.span,
                           "give members of different enumerations different names")
            self.enum_of_member.setdefault(m, ty)
        return ty

    def fresh(self, name, ty, span) -> T.Binder:
        self.uid += 1
        return T.Binder(self.uid, name, ty, span)

    def rule(self, kind, name, tags, span) -> int:
        """The id of a citable rule; a routine's statements, run from several actions, are one rule."""
        r = T.Rule(kind, name, tuple(tags), span)
        for i, known in enumerate(self.rules):
            if known == r and known.span == span:
                return i
        self.rules.append(r)
        return len(self.rules) - 1

    # ------------------------------------------------------------ names
    def player_or_team(self, name: str) -> str | None:
        """Whether `name` names a player or a team of this model (for some parameter values)."""
        td = self.teams_decl
        if td is None:
            return "player" if re.fullmatch(r"P[1-9][0-9]*", name) else None
        if td.names is not None:
            if name in td.names:
                return "team"
            m = re.fullmatch(r"(.*?)([1-9][0-9]*)", name)
            return "player" if m and m.group(1) in td.names else None
        if re.fullmatch(r"[A-Z]", name):
            return "team"
        return "player" if re.fullmatch(r"[A-Z][1-9][0-9]*", name) else None

    def not_reserved(self, name, span, what="a variable, parameter, let or binder", words=True) -> None:
        """Refuse a declared name that the language already spells: a built-in (its uses would
        read the built-in, or fail to parse as an aggregate) or, with `words`, a reserved word.
        Soft keywords (`over`, `one`, ...) are names like any other (keywords.py)."""
        builtin = _builtin(name)
        if builtin:
            self.error(Code.DEFINED_TWICE, f"`{name}` is a built-in name ({builtin}) and cannot name {what}", span,
                       f"rename it, e.g. `{name}_`")
        elif words and name in reserved_words():
            self.error(Code.DEFINED_TWICE, f"`{name}` is a keyword of the language and cannot name {what}", span,
                       f"rename it, e.g. `{name}_` (docs/language.md lists the reserved words)")

    def binder(self, name, ty, span, scope) -> T.Binder:
        """A new name bound by a quantifier, parameter or rule must not hide a global one."""
        self.not_reserved(name, span)
        hidden = ("team" if self.player_or_team(name) == "team" else "player" if self.player_or_team(name) == "player"
                  else "variable" if name in self.var_decls else "parameter" if name in self.params
                  else "enumeration member" if name in self.enum_of_member else "let" if name in self.lets
                  else None)  # an inner binder may reuse an outer one's name: the inner one is meant there
        if hidden:
            self.error(Code.DEFINED_TWICE, f"`{name}` is bound here as a new name, which hides the {hidden} {name}", span,
                       f"use a fresh name and compare it, e.g. `t == {name}`" if hidden in ("team", "player")
                       else "use a fresh name")
        return self.fresh(name, ty, span)

    def undefined(self, name, span, scope):
        known = list(scope) + list(self.lets) + list(self.var_decls) + list(self.params) \
            + list(self.enum_of_member) + sorted(bi.NAMES) + sorted(bi.FUNCTIONS)
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"did you mean `{close[0]}`?" if close else "declare it with `var`, `param`, `let`, or bind it in a quantifier"
        if name in aggregate_words():  # the word parses as a name where no `(` follows it
            self.error(Code.UNDEFINED, f"`{name}` is an aggregate, not a value", span,
                       f"write `{name}(x in DOMAIN: ...)`")
            return T.Const(0, ERROR, span)
        self.error(Code.UNDEFINED, f"`{name}` is not defined", span, hint)
        return T.Const(0, ERROR, span)


def _builtin(name: str) -> str:
    """What the built-in `name` is, in a few words, or "" if it is none."""
    if name in aggregate_words():
        return f"the aggregate `{name}(x in D: ...)`"
    if name in bi.NAMES:
        return bi.NAMES[name].meaning
    if name in bi.FUNCTIONS:
        return f"a function: {bi.FUNCTIONS[name][0].meaning}"
    return ""


_DECLARED_ELSEWHERE = (sx.LetDecl, sx.ParamDecl, sx.VarDecl, sx.RoutineDecl, sx.TriggerDecl, sx.PhasesDecl, sx.MatchDecl)
_WORDS = {"ActionDecl": "action", "OutcomeDecl": "outcome rule", "InitDecl": "init", "ConstraintDecl": "constraint",
          "ProcedureDecl": "procedure", "EndsDecl": "ends condition", "InvariantDecl": "invariant",
          "ReachableDecl": "reachable property", "PossibleDecl": "possible property",
          "StateBasedDecl": "state-based rule", "EventDecl": "event"}


def _declaration(d) -> str:
    """A declaration in the words that declare it: "action pass", "`players`", "`precedence lose over win`"."""
    kind = type(d).__name__
    if kind in _WORDS:
        return f"{_WORDS[kind]} {d.name}"
    if isinstance(d, sx.PrecedenceDecl):
        return f"`precedence {d.winner} over {d.loser}{' for ' + d.who if d.who else ''}`"
    # a declaration without a name is its keyword: the class's name (LastSideDecl: `last_side`)
    return "`" + re.sub(r"(?<!^)(?=[A-Z])", "_", kind.removesuffix("Decl")).lower() + "`"
