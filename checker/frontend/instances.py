"""From a parsed spec to concrete model instances.

`instantiate(spec)` yields one `Instance` per format x reading x parameter combination. An
instance knows its players, seats and teams, lays out the state as a flat tuple, and holds the
spec's declarations after readings and formats have replaced what they replace. Turning the
expressions into executable closures is `checker.compile`'s job; this module decides *what*
the model is, not how it runs.

State layout: one slot per scalar variable, one per player or team for indexed variables,
then three built-in slots: the mask of players out of the game, the mask of teams out, and the
end of the game (`()` while it runs, else `(winning players mask, winning teams mask, draw)`).
Booleans are bools, integers ints, players and teams their index (-1 for none), enum values
the member's index, player sets bit masks.
"""
from __future__ import annotations

import itertools
import string
from dataclasses import dataclass, field

from . import syntax as ir
from .diagnostics import Diagnostic, SpecError


@dataclass(frozen=True)
class VarType:
    kind: str  # bool | int | player | team | enum | set
    low: int = 0
    high: int = 1
    optional: bool = False
    members: tuple[str, ...] = ()

    def values(self, nplayers: int, nteams: int) -> list:
        if self.kind == "bool":
            return [False, True]
        if self.kind == "int":
            return list(range(self.low, self.high + 1))
        if self.kind == "player":
            return ([-1] if self.optional else []) + list(range(nplayers))
        if self.kind == "team":
            return list(range(nteams))
        if self.kind == "enum":
            return list(range(len(self.members)))
        if self.kind == "set":
            return list(range(1 << nplayers))
        raise AssertionError(self.kind)

    def contains(self, v, nplayers: int, nteams: int) -> bool:
        if self.kind == "bool":
            return isinstance(v, bool)
        if self.kind == "int":
            return self.low <= v <= self.high
        if self.kind == "player":
            return (self.optional and v == -1) or 0 <= v < nplayers
        if self.kind == "team":
            return 0 <= v < nteams
        if self.kind == "enum":
            return 0 <= v < len(self.members)
        return 0 <= v < (1 << nplayers)


@dataclass(frozen=True)
class Var:
    decl: ir.VarDecl
    type: VarType
    offset: int
    count: int  # 1 for scalars, else one slot per index value
    index_type: VarType | None = None  # player, team, an integer range or an enumeration

    @property
    def name(self) -> str:
        return self.decl.name

    @property
    def indexed(self) -> str | None:
        """What the variable is indexed by: player, team, int or enum (None for scalars)."""
        return self.index_type.kind if self.index_type else None

    @property
    def index_base(self) -> int:
        """The index value stored in the first slot (the low end of an integer range, else 0)."""
        return self.index_type.low if self.index_type and self.index_type.kind == "int" else 0

    def index_keys(self, inst: "Instance") -> list[str]:
        t = self.index_type
        if t.kind == "player":
            return list(inst.players)
        if t.kind == "team":
            return list(inst.teams)
        if t.kind == "enum":
            return list(t.members)
        return [str(v) for v in range(t.low, t.high + 1)]


def model_name(path: str, fmt: str = "", reading: str = "") -> str:
    """How reports name a model: its file, then its format and reading if it has them."""
    return path + (f" | {fmt}" if fmt else "") + (f" | reading {reading}" if reading else "")


@dataclass
class Instance:
    """One concrete model: a format, a reading and a value for every parameter."""
    spec: ir.SpecFile
    format: str
    reading: str
    params: dict[str, int]
    players: tuple[str, ...]  # names in seat order; a player's value is its seat index
    teams: tuple[str, ...]
    team_of: tuple[int, ...]  # per seat; -1 without teams
    decls: tuple[ir.Decl, ...]
    vars: tuple[Var, ...] = ()
    enum_of_member: dict[str, VarType] = field(default_factory=dict)
    lets: dict[str, ir.LetDecl] = field(default_factory=dict)
    # choices only constraints mention: Z3 decides them, the explorer never enumerates them
    static_choices: dict[str, tuple[ir.VarDecl, VarType, VarType | None]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The model's name and this instance's parameter values."""
        params = ",".join(f"{k}={v}" for k, v in self.params.items())
        return self.model_name + (f" | {params}" if params else "")

    @property
    def model_name(self) -> str:
        """The model this instance belongs to: instances of one model differ only in parameters."""
        return model_name(self.spec.path, self.format, self.reading)

    @property
    def nplayers(self) -> int:
        return len(self.players)

    @property
    def nteams(self) -> int:
        return len(self.teams)

    @property
    def has_teams(self) -> bool:
        return bool(self.teams)

    def of(self, cls) -> list:
        return [d for d in self.decls if isinstance(d, cls)]

    @property
    def nslots(self) -> int:
        return sum(v.count for v in self.vars)

    # built-in slots follow the variables
    @property
    def OUT(self) -> int:
        return self.nslots

    @property
    def TOUT(self) -> int:
        return self.nslots + 1

    @property
    def END(self) -> int:
        return self.nslots + 2

    def var(self, name: str) -> Var | None:
        for v in self.vars:
            if v.name == name:
                return v
        return None

    def members_mask(self, t: int) -> int:
        return sum(1 << p for p, tt in enumerate(self.team_of) if tt == t)

    def show_value(self, var: Var, v) -> str:
        k = var.type.kind
        if k == "bool":
            return "true" if v else "false"
        if k == "player":
            return "none" if v == -1 else self.players[v]
        if k == "team":
            return self.teams[v]
        if k == "enum":
            return var.type.members[v]
        if k == "set":
            return "{" + ", ".join(self.players[p] for p in range(self.nplayers) if v >> p & 1) + "}"
        return str(v)

    def describe_end(self, end) -> str:
        if not end:
            return ""
        wp, wt, draw = end
        parts = []
        if draw:
            parts.append("the game is a draw")
        names = [self.teams[t] for t in range(self.nteams) if wt >> t & 1]
        names += [self.players[p] for p in range(self.nplayers) if wp >> p & 1]
        if names:
            parts.append(" and ".join(names) + (" win" if len(names) > 1 else " wins"))
        return "; ".join(parts)


# ---------------------------------------------------------------- merging formats and readings

def _merge(base: tuple, override: tuple) -> tuple:
    """Declarations of `override` replace those of `base` with the same kind and name."""
    keys = {ir.decl_name(d) for d in override if ir.decl_name(d)}
    kept = [d for d in base if ir.decl_name(d) is None or ir.decl_name(d) not in keys]
    return tuple(kept) + tuple(override)


def variants(spec: ir.SpecFile) -> list[tuple[str, str, tuple]]:
    """(format, reading, declarations) for every model the file defines."""
    out = []
    formats = spec.formats or (ir.FormatBlock("", "", (), ()),)
    for fmt in formats:
        merged = _merge(tuple(d for d in spec.decls if not isinstance(d, ir.ReadingDecl)),
                        tuple(d for d in fmt.decls if not isinstance(d, ir.ReadingDecl)))
        readings = [d for d in spec.decls if isinstance(d, ir.ReadingDecl)]
        readings += [d for d in fmt.decls if isinstance(d, ir.ReadingDecl)]
        if not readings:
            out.append((fmt.name, "", merged))
        for r in readings:
            out.append((fmt.name, r.name, _merge(merged, r.decls)))
    return out


# ---------------------------------------------------------------- instantiation

def _team_names(decl: ir.TeamsDecl, count: int | None) -> tuple[str, ...]:
    if decl.names is not None:
        return decl.names
    return tuple(string.ascii_uppercase[i] for i in range(count or 0))


def instantiate(spec: ir.SpecFile, max_instances: int = 64) -> list[Instance]:
    from ..explicit.compile import const_eval  # compile imports model; keep the cycle at call time

    instances: list[Instance] = []
    for fmt, reading, decls in variants(spec):
        params = [d for d in decls if isinstance(d, ir.ParamDecl)]
        choices: list[list[int]] = []
        for p in params:
            probe = Instance(spec, fmt, reading, {}, (), (), (), decls)
            if isinstance(p.values, ir.RangeDomain):
                lo = const_eval(probe, p.values.low, {})
                hi = const_eval(probe, p.values.high, {})
                vals = list(range(lo, hi + 1))
            else:
                vals = [const_eval(probe, e, {}) for e in p.values.expr.items]
            if not vals:
                raise SpecError(Diagnostic("E015", f"parameter {p.name} has no values", p.span,
                                           "give a non-empty range such as `in 3..6`"))
            choices.append(vals)
        combos = list(itertools.product(*choices)) if params else [()]
        for combo in combos:
            values = {p.name: v for p, v in zip(params, combo)}
            instances.append(_build(spec, fmt, reading, decls, values))
    return instances


def _build(spec, fmt, reading, decls, params) -> Instance:
    from ..explicit.compile import const_eval

    probe = Instance(spec, fmt, reading, params, (), (), (), decls)
    probe.lets = {d.name: d for d in decls if isinstance(d, ir.LetDecl)}
    players_d = [d for d in decls if isinstance(d, ir.PlayersDecl)]
    teams_d = [d for d in decls if isinstance(d, ir.TeamsDecl)]
    seating_d = [d for d in decls if isinstance(d, ir.SeatingDecl)]
    anchor = spec.span
    if not players_d and not teams_d:
        raise SpecError(Diagnostic("E016", "the model declares no players", anchor,
                                   "add `players N` or `teams A, B size S`"))
    if teams_d:
        td = teams_d[-1]
        count = const_eval(probe, td.count, params) if td.count is not None else None
        size = const_eval(probe, td.size, params)
        names = _team_names(td, count)
        if size < 1 or not names:
            raise SpecError(Diagnostic("E015", "teams need at least one team and one player each", td.span, ""))
        members = {t: [f"{t}{i + 1}" for i in range(size)] for t in names}
        kind = seating_d[-1].kind if seating_d else "alternate"
        if kind == "alternate":
            order = [members[t][i] for i in range(size) for t in names]
        elif kind == "blocks":
            order = [m for t in names for m in members[t]]
        else:
            order = list(seating_d[-1].order)
            expected = sorted(m for t in names for m in members[t])
            if sorted(order) != expected:
                raise SpecError(Diagnostic("E015", f"the seating list must name each player once: {', '.join(expected)}",
                                           seating_d[-1].span, "list every player exactly once, clockwise"))
        team_index = {m: i for i, t in enumerate(names) for m in members[t]}
        team_of = tuple(team_index[p] for p in order)
        players, teams = tuple(order), tuple(names)
        if players_d:
            n = const_eval(probe, players_d[-1].count, params)
            if n != len(players):
                raise SpecError(Diagnostic("E015", f"`players` says {n} but the teams have {len(players)} players",
                                           players_d[-1].span, "drop `players` or make the counts agree"))
    else:
        n = const_eval(probe, players_d[-1].count, params)
        if n < 1:
            raise SpecError(Diagnostic("E015", f"the number of players is {n}", players_d[-1].span, "use at least one player"))
        players, teams, team_of = tuple(f"P{i + 1}" for i in range(n)), (), tuple(-1 for _ in range(n))
    inst = Instance(spec, fmt, reading, params, players, teams, team_of, decls)
    inst.lets = probe.lets
    # variables
    out_vars: list[Var] = []
    offset = 0
    seen: dict[str, ir.VarDecl] = {}
    dynamic = _dynamic_names(decls, inst.lets)
    for d in decls:
        if not isinstance(d, ir.VarDecl):
            continue
        if d.name in seen:
            raise SpecError(Diagnostic("E011", f"variable {d.name} is declared twice", d.span,
                                       f"the first declaration is at {seen[d.name].span}"))
        seen[d.name] = d
        vt = _var_type(inst, d.type, params)
        if vt.kind == "enum":
            for m in vt.members:
                if m in inst.enum_of_member and inst.enum_of_member[m] != vt:
                    raise SpecError(Diagnostic("E011", f"enumeration member {m} belongs to two different enumerations",
                                               d.type.span, "give members of different enumerations different names"))
                inst.enum_of_member[m] = vt
        if vt.kind == "team" and not teams:
            raise SpecError(Diagnostic("E013", f"{d.name} has type team but the format has no teams", d.type.span,
                                       "declare `teams ... size ...`"))
        if d.index and d.index[1] == "team" and not teams:
            raise SpecError(Diagnostic("E013", f"{d.name} is indexed by team but the format has no teams", d.span,
                                       "declare `teams ... size ...` or index by player"))
        index_type = None
        if d.index:
            index_type = VarType(d.index[1]) if isinstance(d.index[1], str) else _var_type(inst, d.index[1], params)
            if index_type.kind == "enum":
                for m in index_type.members:
                    if m in inst.enum_of_member and inst.enum_of_member[m] != index_type:
                        raise SpecError(Diagnostic("E011", f"enumeration member {m} belongs to two different enumerations",
                                                   d.span, "give members of different enumerations different names"))
                    inst.enum_of_member[m] = index_type
        if d.is_choice and d.name not in dynamic:
            inst.static_choices[d.name] = (d, vt, index_type)
            continue
        count = len(index_type.values(len(players), len(teams))) if index_type else 1
        out_vars.append(Var(d, vt, offset, count, index_type))
        offset += count
    inst.vars = tuple(out_vars)
    return inst


def _var_type(inst: Instance, t: ir.Type, params) -> VarType:
    from ..explicit.compile import const_eval

    if isinstance(t, ir.TBool):
        return VarType("bool")
    if isinstance(t, ir.TRange):
        lo, hi = const_eval(inst, t.low, params), const_eval(inst, t.high, params)
        if hi < lo:
            raise SpecError(Diagnostic("E015", f"empty range {lo}..{hi}", t.span, "the low end must not exceed the high end"))
        return VarType("int", lo, hi)
    if isinstance(t, ir.TPlayer):
        return VarType("player", optional=t.optional)
    if isinstance(t, ir.TTeam):
        return VarType("team")
    if isinstance(t, ir.TSet):
        return VarType("set")
    if isinstance(t, ir.TEnum):
        return VarType("enum", members=t.members)
    raise AssertionError(t)


def _dynamic_names(decls, lets) -> set[str]:
    """Names read by anything that runs during play (lets followed through)."""
    roots = [d for d in decls if isinstance(d, (ir.ActionDecl, ir.OutcomeDecl, ir.ActiveDecl, ir.ProcedureDecl,
                                                ir.EndsDecl, ir.InvariantDecl, ir.ReachableDecl, ir.InitDecl))]
    roots += [d.init for d in decls if isinstance(d, ir.VarDecl) and d.init is not None]
    found: set[str] = set()
    todo = list(roots)
    seen_lets: set[str] = set()
    while todo:
        node = todo.pop()
        for n in ir.walk(node):
            name = getattr(n, "name", None) if isinstance(n, (ir.Name, ir.Index)) else getattr(n, "func", None) if isinstance(n, ir.Call) else None
            if isinstance(n, ir.Assign):
                found.add(n.target)
            if name is None:
                continue
            found.add(name)
            if name in lets and name not in seen_lets:
                seen_lets.add(name)
                todo.append(lets[name].body)
    return found
