"""The `ToIR` methods for a file's structure (header, document ids, includes, formats), its
composition (readings, ambiguities, `replace`, `remove`) and the declarations that set a game
up: parameters, players, teams, seating, state variables and their types, and the named
conditions (`init`, `constraint`, `procedure`, `ends`, `invariant`, `possible`, `active`).

One of the mixins `checker.frontend.to_syntax.ToIR` is made of: lark finds a method by the name
of its grammar rule, whichever mixin defines it.
"""
from __future__ import annotations

from lark import Token, v_args

from . import syntax as ir
from .to_syntax_base import SyntaxBuilder, Tags, unquote


@v_args(meta=True)
class Declarations(SyntaxBuilder):
    # --- file structure
    def start(self, meta, children):
        return list(children)

    def spec_header(self, meta, children):
        return ("header", unquote(children[0]), unquote(children[1]), self.sp(meta))

    def document(self, meta, children):
        return ("document", tuple(children))

    def id_entry(self, meta, children):
        quote = unquote(children[1]) if len(children) > 1 and children[1] is not None else ""
        return ir.DocId(str(children[0]), quote, _tok_span(self.file, children[0]))

    def include(self, meta, children):
        return ("include", unquote(children[0]), self.sp(meta))

    def _titled(self, children):
        """(name, tags, title, the `for` formats, the declarations) of a format, reading or ambiguity block."""
        tags, rest = self._split(children[1:])
        title = ""
        if rest and isinstance(rest[0], Token) and rest[0].type == "STRING":
            title = unquote(rest.pop(0))
        formats = rest.pop(0)[1] if rest and isinstance(rest[0], tuple) and rest[0][0] in ("for", "extends") else ()
        return str(children[0]), tags, title, formats, tuple(rest)

    def format_block(self, meta, children):
        name, tags, title, base, decls = self._titled(children)  # (a format has no `for`; `extends F` stands there)
        return ir.FormatBlock(name, title, decls, tags, self.sp(meta), base[0] if base else "")

    def format_base(self, meta, children):
        return ("extends", (str(children[0]),))

    def reading(self, meta, children):
        name, tags, title, formats, decls = self._titled(children)
        return ir.ReadingDecl(name, title, decls, tags, self.sp(meta), formats)

    # --- composition
    def reading_for(self, meta, children):
        return ("for", tuple(str(c) for c in children))

    def ambiguity(self, meta, children):
        name, tags, title, formats, decls = self._titled(children)
        return ir.AmbiguityDecl(name, title, decls, tags, self.sp(meta), formats)

    def replace_decl(self, meta, children):
        owner, label = children[0]
        return ir.ReplaceDecl(owner, label, tuple(c for c in children[1:] if c is not None), self.sp(meta))

    def replace_target(self, meta, children):
        names = [str(c) for c in children if c is not None]
        return ("", names[0]) if len(names) == 1 else (names[0], names[1])

    def remove_decl(self, meta, children):
        name = children[1] if len(children) > 1 and children[1] is not None else ""
        return ir.RemoveDecl(str(children[0]), str(name), self.sp(meta))

    def labelled_stmt(self, meta, children):
        return ir.Labelled(str(children[0]), children[1], (), self.sp(meta))

    def tagged_labelled_stmt(self, meta, children):
        return ir.Labelled(str(children[1]), children[2], tuple(children[0]), self.sp(meta))

    # --- parameters, players
    def param_decl(self, meta, children):
        tags, rest = self._split(children[1:])
        abstracts = next((c[1] for c in rest[1:] if isinstance(c, tuple) and c[:1] == ("abstracts",)), None)
        budget = any(c == ("budget",) for c in rest[1:])
        return ir.ParamDecl(str(children[0]), rest[0], tags, self.sp(meta), abstracts=abstracts, budget=budget)

    def param_budget(self, meta, children):
        return ("budget",)

    def param_abstracts(self, meta, children):
        return ("abstracts", children[0])

    def in_steps(self, meta, children):
        return ("step", children[0], children[1] if len(children) > 1 and children[1] is not None else "")

    def step_rounding(self, meta, children):
        return str(children[1])

    def range_lit(self, meta, children):
        return ir.RangeDomain(children[0], children[1], self.sp(meta))

    def set_lit(self, meta, children):
        return ir.SetDomain(ir.SetLit(tuple(children), self.sp(meta)), self.sp(meta))

    def let_decl(self, meta, children):
        name = str(children[0])
        params = ()
        tags, rest = self._split(children[1:])
        if len(rest) == 2:
            params, body = rest
        else:
            body = rest[0]
        return ir.LetDecl(name, tuple(params), body, tags, self.sp(meta))

    def players_decl(self, meta, children):
        tags, rest = self._split(children)
        return ir.PlayersDecl(rest[0], tags, self.sp(meta))

    def teams_decl(self, meta, children):
        tags, rest = self._split(children)
        names, count = rest[0]
        size, sizes = rest[1]
        return ir.TeamsDecl(names, count, size, tags, self.sp(meta), sizes)

    def one_size(self, meta, children):
        return (children[0], ())

    def team_sizes(self, meta, children):
        return (None, tuple(children))

    def named_teams(self, meta, children):
        return (tuple(str(c) for c in children), None)

    def counted_teams(self, meta, children):
        return (None, children[0])

    def seating_decl(self, meta, children):
        tags, rest = self._split(children)
        kind, order = rest[0]
        return ir.SeatingDecl(kind, order, tags, self.sp(meta))

    def seat_alternate(self, meta, children):
        return ("alternate", ())

    def seat_blocks(self, meta, children):
        return ("blocks", ())

    def seat_list(self, meta, children):
        return ("list", tuple(str(c) for c in children))

    # --- state
    def _var(self, meta, children, is_choice):
        name = str(children[0])
        index, more = None, ()
        tags = ()
        typ = None
        init: object = ir.Num(0)
        has_init = False
        step, rounding = None, ""
        for c in children[1:]:
            if isinstance(c, Tags):
                tags = tuple(c)
            elif isinstance(c, tuple) and len(c) == 2 and c[0] == "index":
                index, more = c[1][0], c[1][1:]
            elif isinstance(c, tuple) and len(c) == 3 and c[0] == "step":
                step, rounding = c[1], c[2]
            elif typ is None and isinstance(c, (ir.TBool, ir.TRange, ir.TPlayer, ir.TTeam, ir.TSet, ir.TEnum)):
                typ = c
            elif c is not None:
                init = c
                has_init = True
        if is_choice:
            init_expr = None
        elif not has_init:
            init_expr = _default_init(typ, self.sp(meta))
        else:
            init_expr = None if init == "any" else init
        return ir.VarDecl(name, index, typ, init_expr, tags, is_choice, self.sp(meta), step=step, rounding=rounding,
                          more_indices=more)

    def var_decl(self, meta, children):
        return self._var(meta, children, False)

    def choice_decl(self, meta, children):
        return self._var(meta, children, True)

    def index(self, meta, children):
        # (binder, domain) per index: `(p: player, q: player)` has two
        return ("index", tuple((str(b), dom) for b, dom in zip(children[::2], children[1::2])))

    def idx_player(self, meta, children):
        return "player"

    def idx_team(self, meta, children):
        return "team"

    def idx_range(self, meta, c):
        return ir.TRange(c[0], c[1], self.sp(meta))

    def idx_enum(self, meta, c):
        return ir.TEnum(tuple(str(x) for x in c), self.sp(meta))

    def init_value(self, meta, children):
        return children[0]

    def any_value(self, meta, children):
        return "any"

    def t_bool(self, meta, c):
        return ir.TBool(self.sp(meta))

    def t_range(self, meta, c):
        return ir.TRange(c[0], c[1], self.sp(meta))

    def t_player(self, meta, c):
        return ir.TPlayer(False, self.sp(meta))

    def t_opt_player(self, meta, c):
        return ir.TPlayer(True, self.sp(meta))

    def t_team(self, meta, c):
        return ir.TTeam(False, self.sp(meta))

    def t_opt_team(self, meta, c):
        return ir.TTeam(True, self.sp(meta))

    def t_set(self, meta, c):
        return ir.TSet(self.sp(meta))

    def t_enum(self, meta, c):
        return ir.TEnum(tuple(str(x) for x in c), self.sp(meta))

    def _named_cond(self, cls, meta, children):
        tags, rest = self._split(children[1:])
        return cls(str(children[0]), rest[0], tags, self.sp(meta))

    def init_decl(self, meta, c):
        return self._named_cond(ir.InitDecl, meta, c)

    def constraint_decl(self, meta, c):
        return self._named_cond(ir.ConstraintDecl, meta, c)

    def procedure_decl(self, meta, c):
        return self._named_cond(ir.ProcedureDecl, meta, c)

    def ends_decl(self, meta, c):
        return self._named_cond(ir.EndsDecl, meta, c)

    def invariant_decl(self, meta, c):
        return self._named_cond(ir.InvariantDecl, meta, c)

    def possible_decl(self, meta, c):
        params = next((tuple(x) for x in c[1:] if isinstance(x, list) and not isinstance(x, Tags)), ())
        tags, rest = self._split([x for x in c[1:] if not (isinstance(x, list) and not isinstance(x, Tags))])
        return ir.PossibleDecl(str(c[0]), rest[0], tags, self.sp(meta), params=params)

    def active_decl(self, meta, children):
        tags, rest = self._split(children[1:])
        return ir.ActiveDecl(str(children[0]), rest[0], tags, self.sp(meta))

    def opponents_decl(self, meta, children):
        tags, rest = self._split(children[2:])
        return ir.OpponentsDecl(str(children[0]), str(children[1]), rest[0], tags, self.sp(meta))


def _tok_span(file: str, tok: Token) -> ir.Span:
    return ir.Span(file, tok.line, tok.column, tok.end_line or tok.line, tok.end_column or tok.column + len(tok))


def _default_init(typ, span):
    if isinstance(typ, ir.TBool):
        return ir.Bool(False, span)
    if isinstance(typ, ir.TRange):
        return typ.low
    if isinstance(typ, ir.TSet):
        return ir.SetLit((), span)
    if isinstance(typ, (ir.TPlayer, ir.TTeam)) and typ.optional:
        return ir.NoneLit(span)
    if isinstance(typ, ir.TEnum):
        return ir.Name(typ.members[0], span)
    return None  # players and teams have no natural default: any
