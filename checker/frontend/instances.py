"""From a resolved model to concrete instances: one per value of every parameter.

An instance knows its players, seats and teams and lays out the state as a flat tuple; the
engines compile the model's typed IR against it. Everything here is checked before anything is
explored: parameter values, player counts, type bounds, and the player and team names the
model mentions (`P5` may exist for N = 5 and not for N = 4).

State layout: one slot per scalar variable, one per index value for indexed variables, then
three built-in slots: the mask of players out of the game, the mask of teams out, and the end
of the game (checker.frontend.ends: `RUNNING` while it runs, `Ended(winning players mask,
winning teams mask, draw)` once it has ended, `Gap(why)` when it must be over but no outcome
rule decides it). Booleans are bools, integers ints, players and teams their index (-1 for
none), enum values the member's index, player sets bit masks.
"""
from __future__ import annotations

import itertools
import string
from dataclasses import dataclass, field

from . import typed as T
from .consts import ConstError, evaluate
from .diagnostics import Code, Diagnostic
from .ends import Ended
from .types import Ty

MAX_INSTANCES = 1_000
# Sets of players are Python ints in the explorer and lists of Bools in Z3: no word size limits
# them. A cap still stops `players 10^20` before anything is built; with 1,000 players an action
# over pairs has a million bindings per state, which the time limit can still stop between.
MAX_PLAYERS = 1_000
MAX_SLOT_VALUES = 1_000_000  # values of one variable's type; more is no longer explicit-state checking


@dataclass(frozen=True)
class VarType:
    """A variable's type with its bounds evaluated for one instance."""
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
            return ([-1] if self.optional else []) + list(range(nteams))
        if self.kind == "enum":
            return list(range(len(self.members)))
        if self.kind == "set":
            return list(range(1 << nplayers))
        raise AssertionError(self.kind)

    def count(self, nplayers: int, nteams: int) -> int:
        if self.kind == "int":
            return self.high - self.low + 1
        if self.kind == "set":
            return 1 << nplayers
        return len(self.values(nplayers, nteams))

    def contains(self, v, nplayers: int, nteams: int) -> bool:
        if self.kind == "bool":
            return isinstance(v, bool)
        if self.kind == "int":
            return self.low <= v <= self.high
        if self.kind == "player":
            return (self.optional and v == -1) or 0 <= v < nplayers
        if self.kind == "team":
            return (self.optional and v == -1) or 0 <= v < nteams
        if self.kind == "enum":
            return 0 <= v < len(self.members)
        return 0 <= v < (1 << nplayers)


@dataclass(frozen=True)
class Var:
    info: T.VarInfo
    type: VarType
    offset: int
    count: int  # 1 for scalars, else one slot per index value
    index_type: VarType | None = None  # player, team, an integer range or an enumeration
    step: int = 1  # `in steps of K`: a stored value v stands for the document's number v * K
    # `var cmd(p: player, q: player)`: the indices, first to last; index_type is then the slot
    # number (checker/frontend/resolver/indices.py)
    parts: tuple[VarType, ...] = ()

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def indexed(self) -> str | None:
        """What the variable is indexed by: player, team, int or enum (None for scalars)."""
        return self.index_type.kind if self.index_type else None

    @property
    def index_base(self) -> int:
        """The index value stored in the first slot (the low end of an integer range, else 0)."""
        return self.index_type.low if self.index_type and self.index_type.kind == "int" else 0

    def index_keys(self, inst: "Instance") -> list[str]:
        if self.parts:  # `P1, P2`: every pair, the first index the most significant
            keys = [""]
            for part in self.parts:
                keys = [f"{k}, {x}" if k else x for k in keys for x in _keys(part, inst)]
            return keys
        return _keys(self.index_type, inst)


def _keys(t: VarType, inst: "Instance") -> list[str]:
    """The names of the values of an index: players, teams, members, numbers."""
    if t.kind == "player":
        return list(inst.players)
    if t.kind == "team":
        return list(inst.teams)
    if t.kind == "enum":
        return list(t.members)
    return [str(v) for v in range(t.low, t.high + 1)]


@dataclass
class Instance:
    """One concrete model: a format, a reading and a value for every parameter."""
    model: T.Model
    params: dict[str, int]
    players: tuple[str, ...]  # names in seat order; a player's value is its seat index
    teams: tuple[str, ...]
    team_of: tuple[int, ...]  # per seat; -1 without teams
    vars: tuple[Var, ...] = ()
    static_choices: dict[str, Var] = field(default_factory=dict)  # Z3 decides them; offsets unused

    @property
    def spec(self):
        return self.model.spec

    @property
    def format(self) -> str:
        return self.model.format

    @property
    def reading(self) -> str:
        return self.model.reading

    @property
    def label(self) -> str:
        """The model's name and this instance's parameter values."""
        params = ",".join(f"{k}={v}" for k, v in self.params.items())
        return self.model_name + (f" | {params}" if params else "")

    @property
    def model_name(self) -> str:
        return self.model.name

    @property
    def nplayers(self) -> int:
        return len(self.players)

    @property
    def nteams(self) -> int:
        return len(self.teams)

    @property
    def has_teams(self) -> bool:
        return bool(self.teams)

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

    def var_type(self, ty: Ty) -> VarType:
        return VarType(ty.kind, optional=ty.optional, members=ty.members)

    def show_value(self, var: Var, v) -> str:
        k = var.type.kind
        if k == "bool":
            return "true" if v else "false"
        if k == "player":
            return "none" if v == -1 else self.players[v]
        if k == "team":
            return "none" if v == -1 else self.teams[v]
        if k == "enum":
            return var.type.members[v]
        if k == "set":
            return "{" + ", ".join(self.players[p] for p in range(self.nplayers) if v >> p & 1) + "}"
        return str(v)

    def show(self, ty: Ty, v) -> str:
        """A value of type `ty` in the spec's words."""
        if ty.kind == "player":
            return self.players[v] if 0 <= v < self.nplayers else "none"
        if ty.kind == "team":
            return self.teams[v] if 0 <= v < self.nteams else "none"
        if ty.kind == "enum":
            return ty.members[v]
        if isinstance(v, bool):
            return "true" if v else "false"
        return str(v)

    def describe_end(self, end: Ended) -> str:
        """An ended game's outcome in words (`""` for a game still running)."""
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
        return "; ".join(parts) or "the game ends without a winner"


# ---------------------------------------------------------------- instantiation

def instantiate(model: T.Model, max_instances: int = MAX_INSTANCES) -> tuple[list[Instance], list[Diagnostic]]:
    """Every instance of the model, or the errors that stop some of them (each once)."""
    diags: list[Diagnostic] = []
    context = " and ".join(x for x in (f"format {model.format}" if model.format else "",
                                       f"reading {model.reading}" if model.reading else "") if x)

    def fail(code, message, span, hint="", where=context):
        d = Diagnostic(code, message, span, hint, context=where)
        if d not in diags:
            diags.append(d)

    choices: list[list[int]] = []
    known: dict[str, int] = {}
    for p in model.params:
        try:
            if p.is_range:
                lo, hi = (evaluate(x, known) for x in p.values)
                if hi - lo >= max_instances:
                    fail(Code.TOO_MANY_INSTANCES, f"parameter {p.name} takes {hi - lo + 1:,} values, more than the {max_instances:,} "
                         "instances a run checks", p.span, "narrow its range")
                    return [], diags
                vals = list(range(lo, hi + 1))
            else:
                vals = sorted(set(evaluate(x, known) for x in p.values))
        except ConstError as exc:
            fail(Code.EVALUATION, str(exc), exc.span)
            return [], diags
        if not vals:
            fail(Code.OUT_OF_RANGE, f"parameter {p.name} has no values", p.span, "give a non-empty range such as `in 3..6`")
            return [], diags
        known[p.name] = vals[0]  # later parameters' ranges may read earlier ones; the first value stands in
        choices.append(vals)
    total = 1
    for c in choices:
        total *= len(c)
    if total > max_instances:
        fail(Code.TOO_MANY_INSTANCES, f"the parameters give {total:,} instances, more than the {max_instances:,} a run checks",
             model.params[-1].span, "narrow the parameter ranges")
        return [], diags
    out = []
    for combo in itertools.product(*choices) if choices else [()]:
        values = {p.name: v for p, v in zip(model.params, combo)}
        label = ",".join(f"{k}={v}" for k, v in values.items())
        where = context + (" and " if context else "") + label if label else context
        inst = _build(model, values, lambda code, msg, span, hint="": fail(code, msg, span, hint, where))
        if inst is not None:
            out.append(inst)
    return out, diags


def _team_names(model: T.Model, count: int | None) -> tuple[str, ...]:
    if model.team_names is not None:
        return model.team_names
    return tuple(string.ascii_uppercase[i] for i in range(min(count or 0, 26)))


def _build(model: T.Model, params: dict[str, int], fail) -> Instance | None:
    try:
        return _build_or_raise(model, params, fail)
    except ConstError as exc:
        fail(Code.EVALUATION, str(exc), exc.span)
        return None


def _build_or_raise(model: T.Model, params, fail) -> Instance | None:
    seats = _seats(model, params, fail)
    if seats is None:
        return None
    players, teams, team_of = seats
    ok = _names_fit(model, players, teams, fail)
    sizes = {"nplayers": len(players), "nteams": len(teams), "team_size": len(players) // len(teams) if teams else 1}
    inst = Instance(model, params, players, teams, team_of)
    out_vars, vars_ok = _variables(model, inst, params, sizes, fail)
    inst.vars = tuple(out_vars)
    ok = _steps_fit(model, params, sizes, fail) and vars_ok and ok
    return inst if ok else None


def _seats(model: T.Model, params, fail) -> tuple[tuple, tuple, tuple] | None:
    """(players clockwise, teams, each seat's team index) of one instance, or None (and a diagnostic)."""
    anchor = model.spec.span
    if not model.has_teams:
        n = evaluate(model.players, params) if model.players is not None else 0
        if n < 1:
            fail(Code.OUT_OF_RANGE, f"the number of players is {n}", model.players.span if model.players else anchor,
                 "use at least one player")
            return None
        if n > MAX_PLAYERS:
            fail(Code.OUT_OF_RANGE, f"{n} players: at most {MAX_PLAYERS} are supported", model.players.span)
            return None
        return tuple(f"P{i + 1}" for i in range(n)), (), tuple(-1 for _ in range(n))
    count = evaluate(model.team_count, params) if model.team_count is not None else None
    if count is not None and not 1 <= count <= 26:
        fail(Code.OUT_OF_RANGE, f"{count} teams: between 1 and 26 teams are supported", model.team_count.span)
        return None
    names = _team_names(model, count)
    where = model.team_sizes[0].span if model.team_sizes else model.team_size.span
    if model.team_sizes:
        sizes = [evaluate(x, params) for x in model.team_sizes]
        if len(sizes) != len(names):  # (named teams: the resolver checks it; counted ones: here)
            fail(Code.OUT_OF_RANGE, f"{len(names)} team{'s' if len(names) > 1 else ''} but {len(sizes)} size{'s' if len(sizes) > 1 else ''}", where,
                 "give one size per team, in the order the teams are named")
            return None
    else:
        sizes = [evaluate(model.team_size, params)] * len(names)
    if not names or min(sizes) < 1:
        fail(Code.OUT_OF_RANGE, "teams need at least one team and one player each", where)
        return None
    if sum(sizes) > MAX_PLAYERS:
        fail(Code.OUT_OF_RANGE, f"{sum(sizes)} players: at most {MAX_PLAYERS} are supported", where)
        return None
    members = {t: [f"{t}{i + 1}" for i in range(k)] for t, k in zip(names, sizes)}
    if model.seating == "alternate":  # round the teams, one seat each, while a team has players left
        order = [members[t][i] for i in range(max(sizes)) for t in names if i < len(members[t])]
    elif model.seating == "blocks":
        order = [m for t in names for m in members[t]]
    else:
        order = list(model.seating_order)
        expected = sorted(m for t in names for m in members[t])
        if sorted(order) != expected:
            fail(Code.OUT_OF_RANGE, f"the seating list must name each player once: {', '.join(expected)}", anchor,
                 "list every player exactly once, clockwise")
            return None
    team_index = {m: i for i, t in enumerate(names) for m in members[t]}
    team_of = tuple(team_index[p] for p in order)
    players, teams = tuple(order), tuple(names)
    if model.players is not None:
        n = evaluate(model.players, params)
        if n != len(players):
            fail(Code.OUT_OF_RANGE, f"`players` says {n} but the teams have {len(players)} players", model.players.span,
                 "drop `players` or make the counts agree")
            return None
    return players, teams, team_of


def _names_fit(model: T.Model, players: tuple, teams: tuple, fail) -> bool:
    """Whether the players and teams the rules name, and across(), fit this instance."""
    ok = True
    for kind, name, span in model.names_used:
        if name not in (players if kind == "player" else teams):
            shown = ", ".join(players if kind == "player" else teams)
            fail(Code.UNDEFINED, f"`{name}` is not a {kind} of this instance", span, f"its {kind}s are {shown}")
            ok = False
    if model.across_used and len(players) % 2:
        fail(Code.TYPE_MISMATCH, f"across() needs an even number of players; this instance has {len(players)}",
             model.across_used[0], "use left(p, k) or right(p, k) for odd tables")
        ok = False
    return ok


def _variables(model: T.Model, inst: Instance, params, sizes, fail) -> tuple[list[Var], bool]:
    """The explored variables of one instance (its static choices go into `inst`), and whether all are valid."""
    players, teams = inst.players, inst.teams
    ok = True
    out_vars: list[Var] = []
    offset = 0
    for v in model.vars:
        step = evaluate(v.step, params, sizes) if v.step is not None else 1
        if step < 1:  # before the bounds, which are counted in steps
            fail(Code.OUT_OF_RANGE, f"the step of {v.name} is {step}; a step must be at least 1", v.step.span)
            ok = False
            continue
        vt = inst.var_type(v.type)
        if v.low is not None:
            vt = _int_range(v.low, v.high, params, sizes, "range", fail)
        index_type = None
        parts: tuple = ()
        if v.index is not None and v.index.parts:  # several indices: slot numbers 0..N-1 of the parts
            parts = tuple(_int_range(px.low, px.high, params, sizes, "index range", fail) if px.kind == "int"
                          else VarType(px.kind) for px in v.index.parts)
            if None not in parts:
                combos = 1
                for part in parts:
                    combos *= part.count(len(players), len(teams))
                index_type = VarType("int", 0, combos - 1)
        elif v.index is not None:
            ix = v.index
            index_type = (_int_range(ix.low, ix.high, params, sizes, "index range", fail) if ix.kind == "int"
                          else VarType(ix.kind, members=ix.members))
        if vt is None or (v.index is not None and index_type is None):
            ok = False
            continue
        slots = index_type.count(len(players), len(teams)) if index_type else 1
        if vt.count(len(players), len(teams)) > MAX_SLOT_VALUES or slots > MAX_SLOT_VALUES:
            fail(Code.OUT_OF_RANGE, f"{v.name} has more than {MAX_SLOT_VALUES:,} possible values", v.span,
                 "state the document's number and check a smaller range (see docs/language.md, abstraction)")
            ok = False
            continue
        if v.init is not None and v.type.kind in ("int", "bool") and _constant_outside(v.init, vt, params, sizes):
            fail(Code.OUT_OF_RANGE, f"the initial value of {v.name} is outside its type {vt.low}..{vt.high}"
                 if vt.kind == "int" else f"the initial value of {v.name} is outside its type", v.init.span,
                 "widen the type's range or fix the initial value")
            ok = False
            continue
        var = Var(v, vt, offset, slots, index_type, step, parts)
        if v.static:
            inst.static_choices[v.name] = var
            continue
        out_vars.append(var)
        offset += slots
    return out_vars, ok


def _steps_fit(model: T.Model, params, sizes, fail) -> bool:
    """Whether the constants counted in steps (an abstraction) are multiples of their step."""
    ok = True
    for value, step, span, what in model.step_checks:  # constants counted in steps (an abstraction)
        v, k = evaluate(value, params, sizes), evaluate(step, params, sizes)
        if k >= 1 and v % k:
            fail(Code.OUT_OF_RANGE, f"{what} is {v}, which is not a multiple of the step {k}", span,
                 "numbers counted in steps only take multiples of the step (docs/language.md, \"Large numbers\")")
            ok = False
    return ok


def _int_range(low, high, params, sizes, what, fail) -> VarType | None:
    """The integer type low..high of one instance, or None (and a diagnostic) if it is empty."""
    lo, hi = evaluate(low, params, sizes), evaluate(high, params, sizes)
    if hi < lo:
        fail(Code.OUT_OF_RANGE, f"empty {what} {lo}..{hi}", low.span, "the low end must not exceed the high end")
        return None
    return VarType("int", lo, hi)


def _constant_outside(init, vt: VarType, params, sizes) -> bool:
    """A constant initial value outside the variable's type is a mistake in the text, not a
    finding about play; initial values that read the state are checked while exploring."""
    try:
        value = evaluate(init, params, sizes)
    except ConstError:
        return False
    return not vt.contains(value, 0, 0)
