"""The resolve pass: syntax -> typed IR, for every format and reading of a file.

Names are looked up (binders, lets, variables, parameters, built-ins, players, teams,
enumeration members, in that order), types are checked and recorded, lets are inlined, the
polarity of `lost`/`won` in outcome rules is checked against the strata of outcome resolution,
and `expect` kinds are checked. Errors are collected, never raised: a model with errors still
comes back (with placeholder nodes) so that every error of every model is reported at once,
each naming its format and reading. Nothing here evaluates a parameter: that is
`checker.frontend.instances`.

`resolve_spec` is the entry point. `Resolver` is assembled from one mixin per concern
(`checker.frontend.resolver`: names, expressions, calls, statements, declarations, the whole
model; `checker.frontend.steps`: numbers counted in steps); phases and matches are lowered into
plain statements by `checker.frontend.lower`, which the resolver calls.
"""
from __future__ import annotations

from . import syntax as sx
from . import typed as T
from .compose import compose
from .diagnostics import Diagnostic
from .lower import match as lower_match
from .lower import phases as lower_phases
from .resolver.calls import OPPONENTS_LET, CallsMixin
from .resolver.decls import DeclsMixin
from .resolver.dynamic import dynamic_names
from .resolver.exprs import ExprsMixin
from .resolver.indices import IndicesMixin
from .resolver.model import ModelMixin
from .resolver.names import NamesMixin
from .resolver.stmts import StmtsMixin
from .steps import StepsMixin
from .tags import undefined_tags
from .types import Ty


# ---------------------------------------------------------------- formats and readings

def variants(spec: sx.SpecFile) -> list[tuple[str, str, tuple]]:
    """(format, reading, declarations) for every model the file defines (see `compose`)."""
    return compose(spec)[0]


def resolve_spec(spec: sx.SpecFile, finding_kinds, measures=None) -> tuple[list[T.Model], list[Diagnostic]]:
    """Every model of the file, typed, and every error found in any of them (each once).
    `measures` maps a finding kind to the unit its size is counted in (what `expect` may record)."""
    models, diags, seen = [], [], set()
    diags.extend(undefined_tags(spec))  # once per file, whatever its formats and readings
    composed, composing = compose(spec)
    diags.extend(composing)
    for fmt, reading, decls in composed:
        r = Resolver(spec, fmt, reading, decls, tuple(finding_kinds), dict(measures or {}))
        models.append(r.run())
        for d in r.diags:
            key = (d.code, d.message, d.span)
            if key not in seen:  # the same mistake in a shared declaration is reported once
                seen.add(key)
                diags.append(d)
    return models, diags


# ---------------------------------------------------------------- the resolver

class Resolver(ModelMixin, DeclsMixin, StmtsMixin, CallsMixin, ExprsMixin, IndicesMixin, NamesMixin, StepsMixin):
    """One model (a format and reading of a file) through the resolve pass: `run` types it.
    The state every mixin shares is set here; the names are declared before anything is typed,
    so that any declaration may read any other."""

    def __init__(self, spec, fmt, reading, decls, kinds, measures=None):
        self.spec, self.fmt, self.reading, self.decls, self.kinds = spec, fmt, reading, decls, kinds
        self.measures = measures or {}
        self.context = " and ".join(x for x in (f"format {fmt}" if fmt else "", f"reading {reading}" if reading else "") if x)
        self.diags: list[Diagnostic] = []
        self.rules: list[T.Rule] = []
        self.uid = 0
        self.names_used: list[tuple[str, str, sx.Span]] = []
        self.across_used: list[sx.Span] = []
        self.inlining: list[str] = []
        self.inlined = 0  # uses of lets expanded so far, in the whole model
        self.depth = 0  # expressions being resolved inside each other, lets expanded
        self.told_depth = False
        self.lets: dict[str, sx.LetDecl] = {}
        self.routines: dict[str, sx.RoutineDecl] = {}
        self.params: dict[str, sx.ParamDecl] = {}
        self.var_decls: dict[str, sx.VarDecl] = {}
        self.var_order: dict[str, int] = {}
        self.enum_of_member: dict[str, Ty] = {}
        self.var_types: dict[str, Ty] = {}
        self.step_checks: list[tuple] = []  # constants counted in steps, checked per instance
        self.index_bounds: dict = {}  # (variable, k) -> typed (low, high) of index k of several (resolver/indices.py)
        self.roundings: list[tuple] = []  # (amount, step, mode, span, what): amounts a declared rounding counts
        self.match_decl = lower_match.declare(self, decls)  # first: a game's initial values may read them
        self.phase_chain: tuple = ()  # the lowered ends of every step (`run` sets them)
        self.game_end: tuple = ()
        self._once(decls)
        for d in decls:
            if isinstance(d, (sx.LetDecl, sx.ParamDecl, sx.VarDecl, sx.RoutineDecl)):
                self.not_reserved(d.name, d.span)
            elif isinstance(d, sx.ActionDecl):  # an action is named in traces beside the built-ins;
                self.not_reserved(d.name, d.span, "an action", words=False)  # `action leave` is fine
            if isinstance(d, sx.LetDecl):
                self._unique(self.lets, d, "let")
            elif isinstance(d, sx.RoutineDecl):
                self._unique(self.routines, d, "routine")
            elif isinstance(d, sx.ParamDecl):
                self._unique(self.params, d, "parameter")
            elif isinstance(d, sx.VarDecl):
                self.declare_var(d)
        self.phase_decls = lower_phases.declare(self, decls)
        teams = [d for d in decls if isinstance(d, sx.TeamsDecl)]
        self.teams_decl = teams[-1] if teams else None
        seating = [d for d in decls if isinstance(d, sx.SeatingDecl)]
        self.seating = seating[-1] if seating else None
        self.has_teams = self.teams_decl is not None
        opponents = [d for d in decls if isinstance(d, sx.OpponentsDecl)]
        self.opponents_decl = opponents[-1] if opponents else None
        if self.opponents_decl is not None:  # `opponents(x)` expands through it (calls.py)
            d = self.opponents_decl
            player = sx.SetDomain(sx.Name("player", d.span), d.span)
            self.lets[OPPONENTS_LET] = sx.LetDecl(OPPONENTS_LET, (sx.Param(d.var, player, d.span), sx.Param(d.other, player, d.span)),
                                                  d.cond, d.tags, d.span)
        self.dynamic = dynamic_names(decls, self.lets)
        for d in self.var_decls.values():  # enum types first: any declaration may name a member
            for t in (d.type,) + tuple(k for _, k in ((d.index,) + d.more_indices if d.index else ())):
                if isinstance(t, sx.TEnum):
                    self._enum(t)
        for t in self._inline_enums(decls):  # `how: {hold, conquer}` declares its members where it stands
            self._enum(t)
