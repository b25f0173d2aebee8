"""Random small specs, checked by both engines to depth 3: they must agree.

A hypothesis strategy writes specs in the surface language: 2-4 players, with or without teams,
a few small variables, 1-4 actions whose guards and bodies come from a small grammar of
expressions and statements (outcome statements included), outcome rules of every kind (loss
rules read lost()/won() only positively, win rules won() only positively, as the front end
requires), sometimes an `ends`, an `init`, a precedence, `winners many` or `last_side plays_on`,
and invariants. Specs the front end refuses are assumed away.

For each spec the explorer's graph (states at BFS depth <= 3) and Z3's bounded model checking
(frames 0..3) must agree on: the end outcomes reachable, whether an outcome gap is reachable,
whether a deadlock is reachable, whether an outcome conflict is met within 3 steps, and, per
invariant, whether a state violating it is reachable and whether a state where it cannot be
evaluated is reachable.

The grammar includes min/max of values, set comprehensions and simultaneous assignments,
triggers on outcome events and lost_now() in outcome rules and triggers, and a reading that
replaces a labelled statement or removes an action (composition happens before either engine
sees the model, so both must agree on the composed one), numbers counted in steps (`var gold:
0..30 in steps of 10`, which the front end lowers to plain numbers, so the engines must agree on
the lowered model), lets that name a place (`hp0_at(p) := ...`) and `possible` properties
(Z3's verdict against the explored initial states), cycles of phases with end conditions and
`when PHASE ends/starts` blocks, `state_based` rules, and matches of games.
Left out of the grammar so far, because the engines disagreed there when this module was
written (each disagreement is fixed and pinned by a test now; the constructs can come back in):
- sets of numbers (an `if` between two of them disagreed; fixed, tests/test_semantics_table.py);
- teammates() without teams (disagreed on errors in its argument; fixed);
- anything that can fail to evaluate inside an outcome rule's condition (`/`, `%`, a `player?`
  where a player is needed, an index into a range): the explorer's dead-rule bookkeeping used
  to evaluate such conditions where the semantics does not (fixed, see the last tests of this
  module); the grammar may take them in now.
Also left out: what Z3 does not encode on a symbolic state (ranges with state-dependent bounds,
left_in_game with a state-dependent distance).

An example whose Z3 side takes over Z3_SECONDS is not compared (assumed away, as a refused spec
is): building the terms of triggers over symbolic states grows with every round of settling, and
one spec in a few hundred (a match, teams and two triggers) took 20-40 s with a single state;
without the bound a rare example could hold CI for many minutes.
"""
from __future__ import annotations

import z3
import pytest
from hypothesis import HealthCheck, assume, given, note, settings, strategies as st

from checker.engine import load_instances
from checker.explicit.compile import EvalError
from checker.explicit.explore import Limits, explore
from checker.explicit.machine import Machine
from checker.frontend.diagnostics import SpecError
from checker.limits import Budget, LimitHit, watchdog
from checker.symbolic.bmc import BMC
from checker.symbolic.setup import impossible
from checker.symbolic.terms import SymState, concrete

from test_backends import _depths, _explorer_view

DEPTH = 3
EXAMPLES = 150
Z3_SECONDS = 30


# ---------------------------------------------------------------- the spec grammar

class Writer:
    """Draws one spec. `pol` is +1 where a boolean counts positively, -1 under `not` or left of
    `implies`, 0 inside comparisons, counts and `if` conditions."""

    def __init__(self, draw):
        self.draw = draw
        self.fresh = 0
        layout = draw(st.sampled_from(["solo2", "solo3", "solo4", "teams2x1", "teams2x2", "teams3x1", "sizes1+2"]))
        if layout == "sizes1+2":  # teams of different sizes, seated alternately while a team has players
            self.header = "teams count 2 sizes 1, 2\n"
            self.teams = ["A", "B"]
            self.players = ["A1", "B1", "B2"]
        elif layout.startswith("solo"):
            n = int(layout[-1])
            self.header = f"players {n}\n"
            self.players = [f"P{i}" for i in range(1, n + 1)]
            self.teams = []
        else:
            count, size = int(layout[5]), int(layout[7])
            self.header = f"teams count {count} size {size}\n"
            self.teams = ["A", "B", "C"][:count]
            self.players = [f"{t}{i}" for i in range(1, size + 1) for t in self.teams]
        self.phase = ""  # the kind of the outcome rule being written, "" elsewhere
        self.safe = False  # write nothing that can fail to evaluate (in outcome rules: see the last tests)
        self.vars = {}  # name -> kind: int | bool | opt | player | hp (per player) | slot (per number) | set | team

    # ---------------------------------------------------------- helpers
    def pick(self, options):
        return self.draw(st.sampled_from(options))

    def chance(self, p=0.5) -> bool:
        return self.draw(st.floats(0, 1)) < p

    def binder(self) -> str:
        self.fresh += 1
        return f"q{self.fresh}"

    def allowed(self, func, pol) -> bool:
        """May lost()/won() stand here (the polarity rules of docs/language.md, Outcomes)?"""
        phase = self.phase
        if phase == "cannot":  # "cannot" rules read no outcome facts
            return False
        if phase in ("", "draw", "finish", "trigger"):
            return True
        if phase == "win" and func in ("lost", "drew"):  # drew() is settled with the losses
            return True
        return pol == 1

    def of_kind(self, kind):
        return [v for v, k in self.vars.items() if k == kind]

    # ---------------------------------------------------------- expressions
    def player(self, d, sc):
        leaves = list(self.players) + sc.get("player", [])
        leaves += self.of_kind("player")
        if not self.safe:
            leaves += self.of_kind("opt")  # a player? where a player is needed: narrowed, none fails
        if d <= 0 or self.chance(0.5):
            return self.pick(leaves)
        form = self.pick(["next", "next_in_game", "prev_in_game", "left_in_game", "left", "player_at", "after", "ite"])
        p = self.player(d - 1, sc)
        if form in ("next", "next_in_game", "prev_in_game"):
            return f"{form}({p})"
        if form == "left_in_game":
            return f"left_in_game({p}, {self.pick([1, 2, 3])})"
        if form == "left":
            return f"left({p}, {self.int_(d - 1, sc, 0)})"
        if form == "player_at":
            return f"player_at({self.int_(d - 1, sc, 0)})"
        if form == "after":
            return f"after({p}, {self.pick(self.players)}, {self.pick(self.players)})"
        return f"(if {self.bool_(d - 1, sc, 0)} then {p} else {self.player(d - 1, sc)} end)"

    def team(self, d, sc):
        leaves = list(self.teams) + sc.get("team", []) + self.of_kind("team")
        if d <= 0 or self.chance(0.5):
            return self.pick(leaves)
        return f"team({self.player(d - 1, sc)})"

    def set_(self, d, sc):
        leaves = ["players", "remaining", "{}"] + self.of_kind("set")
        if d <= 0 or self.chance(0.4):
            return self.pick(leaves)
        forms = ["opponents", "lit", "union", "diff", "comp"] + (["members", "teammates"] if self.teams else [])
        form = self.pick(forms)
        if form in ("opponents", "teammates"):
            return f"{form}({self.player(d - 1, sc)})"
        if form == "members":
            return f"members({self.team(d - 1, sc)})"
        if form == "lit":
            items = [self.player(d - 1, sc)] + [self.pick(self.players + self.of_kind("opt") + ["none"])
                                                 for _ in range(self.pick([0, 1]))]
            return "{" + ", ".join(items) + "}"
        if form == "comp":  # a set comprehension, sometimes with a filter
            b = self.binder()
            inner = {**sc, "player": sc.get("player", []) + [b]}
            cond = f": {self.bool_(d - 1, inner, 0)}" if self.chance(0.5) else ""
            return f"{{{self.player(d - 1, inner)} | {b} in {self.set_(d - 1, sc)}{cond}}}"
        op = "+" if form == "union" else "-"
        return f"({self.set_(d - 1, sc)} {op} {self.set_(d - 1, sc)})"

    def int_(self, d, sc, pol):
        leaves = [str(self.pick([0, 1, 2, 3]))] + self.of_kind("int") + sc.get("int", [])
        if d <= 0 or self.chance(0.35):
            return self.pick(leaves)
        forms = ["add", "sub", "abs", "size", "seat", "dist", "dist_in_game", "count", "sum", "min", "max", "ite",
                 "min2", "max2"]
        forms += ["hp"] * bool(self.of_kind("hp"))
        if not self.safe:
            forms += ["div", "mod"] + ["slot"] * bool(self.of_kind("slot")) + ["ratio"] * bool(self.of_kind("gold"))
            forms += ["pair"] * bool(self.of_kind("pair"))
        form = self.pick(forms)
        sub = lambda: self.int_(d - 1, sc, 0)  # noqa: E731
        if form in ("add", "sub"):
            return f"({sub()} {'+' if form == 'add' else '-'} {sub()})"
        if form in ("div", "mod"):  # a small divisor, often zero: an evaluation error
            return f"({sub()} {'/' if form == 'div' else '%'} {self.pick(['0', '1', '2'] + self.of_kind('int'))})"
        if form == "abs":
            return f"abs({sub()})"
        if form in ("min2", "max2"):
            return f"{form[:3]}({', '.join(sub() for _ in range(self.pick([2, 3])))})"
        if form == "size":
            return f"size({self.set_(d - 1, sc)})"
        if form == "seat":
            return f"seat({self.player(d - 1, sc)})"
        if form in ("dist", "dist_in_game"):
            return f"{form}({self.player(d - 1, sc)}, {self.player(d - 1, sc)})"
        if form in ("count", "sum", "min", "max"):
            b = self.binder()
            inner = {**sc, "player": sc.get("player", []) + [b]}
            body = self.bool_(d - 1, inner, 0) if form == "count" else self.int_(d - 1, inner, 0)
            return f"{form}({b} in {self.set_(d - 1, sc)}: {body})"
        if form == "ite":
            return f"(if {self.bool_(d - 1, sc, 0)} then {sub()} else {sub()} end)"
        if form == "hp":
            return f"{self.pick(self.of_kind('hp'))}[{self.player(d - 1, sc)}]"
        if form == "pair":  # two indices; the second outside 1..2 is an error
            return f"{self.pick(self.of_kind('pair'))}[{self.player(d - 1, sc)}, {sub()}]"
        if form == "ratio":  # numbers in the same steps divide into a plain number (by zero: an error)
            return f"({self.gold_(d - 1, sc)} / {self.pick(self.of_kind('gold') + ['10', '20'])})"
        return f"{self.pick(self.of_kind('slot'))}[{sub()}]"  # an index outside 1..2 is an error

    def bool_(self, d, sc, pol):
        leaves = ["true", "false"] + self.of_kind("bool")
        leaves += [f"in_game({self.player(0, sc)})", f"{self.player(0, sc)} in {self.set_(0, sc)}"]
        leaves += [f"{v} == none" for v in self.of_kind("opt")]
        for func in ("lost", "won", "drew"):
            if self.allowed(func, pol):
                leaves.append(f"{func}({self.player(0, sc)})")
                if self.teams:
                    leaves.append(f"{func}({self.team(0, sc)})")
        if self.phase not in ("", "cannot") and self.allowed("lost", pol):  # lost in this step: rules and triggers
            leaves.append(f"lost_now({self.player(0, sc)})")
            if self.teams:
                leaves.append(f"lost_now({self.team(0, sc)})")
        if self.teams:
            leaves.append(f"in_game({self.team(0, sc)})")
        if d <= 0 or self.chance(0.3):
            return self.pick(leaves)
        form = self.pick(["not", "and", "or", "implies", "cmp", "eq_player", "forall", "exists", "member"]
                         + ["cmp_gold"] * bool(self.of_kind("gold")))
        if form == "cmp_gold":
            op = self.pick(["==", "!=", "<", "<=", ">", ">="])
            return f"{self.gold_(d - 1, sc)} {op} {self.gold_(d - 1, sc)}"
        if form == "not":
            return f"not ({self.bool_(d - 1, sc, -pol)})"
        if form in ("and", "or"):
            return f"({self.bool_(d - 1, sc, pol)} {form} {self.bool_(d - 1, sc, pol)})"
        if form == "implies":
            return f"({self.bool_(d - 1, sc, -pol)} implies {self.bool_(d - 1, sc, pol)})"
        if form == "cmp":
            op = self.pick(["==", "!=", "<", "<=", ">", ">="])
            return f"{self.int_(d - 1, sc, 0)} {op} {self.int_(d - 1, sc, 0)}"
        if form == "eq_player":
            return f"{self.player(d - 1, sc)} {self.pick(['==', '!='])} {self.player(d - 1, sc)}"
        if form == "member":
            return f"{self.player(d - 1, sc)} {self.pick(['in', 'not in'])} {self.set_(d - 1, sc)}"
        b = self.binder()
        inner = {**sc, "player": sc.get("player", []) + [b]}
        return f"({form} {b} in {self.set_(d - 1, sc)}: {self.bool_(d - 1, inner, pol)})"

    def gold_(self, d, sc):
        """A number in steps of 10 (a `gold` variable's), in the document's numbers."""
        leaves = self.of_kind("gold") + ["0", "10", "20"]
        if d <= 0 or self.chance(0.4):
            return self.pick(leaves)
        form = self.pick(["add", "sub", "min2", "max2", "ite", "times", "neg", "count_of"])
        if form == "count_of":  # a plain number times a multiple of the step
            return f"({self.int_(d - 1, sc, 0)} * {self.pick(['10', '20'])})"
        sub = lambda: self.gold_(d - 1, sc)  # noqa: E731
        if form in ("add", "sub"):
            return f"({sub()} {'+' if form == 'add' else '-'} {sub()})"
        if form in ("min2", "max2"):
            return f"{form[:3]}({sub()}, {sub()})"
        if form == "ite":
            return f"(if {self.bool_(d - 1, sc, 0)} then {sub()} else {sub()} end)"
        if form == "neg":
            return f"(-{self.pick(self.of_kind('gold'))})"
        return f"({self.pick(self.of_kind('gold'))} * {self.int_(d - 1, sc, 0)})"

    def setup_bool(self, d):
        """A condition on the setup only (what a `possible` reads): variables and constants."""
        leaves = ["true", "false"] + self.of_kind("bool")
        leaves += [f"{v} {self.pick(['==', '<=', '>='])} {self.pick([0, 1, 2])}" for v in self.of_kind("int")]
        leaves += [f"{v} == {self.pick(self.players)}" for v in self.of_kind("player")]
        leaves += [f"{v} >= {self.pick(['10', '20'])}" for v in self.of_kind("gold")]
        if d <= 0 or self.chance(0.4):
            return self.pick(leaves)
        form = self.pick(["and", "or", "not"])
        if form == "not":
            return f"not ({self.setup_bool(d - 1)})"
        return f"({self.setup_bool(d - 1)} {form} {self.setup_bool(d - 1)})"

    # ---------------------------------------------------------- statements
    def stmt(self, d, sc):
        forms = ["assign"] * 3 + ["lose", "win", "draw", "finish", "at_once", "draw_some", "leave"] + (
            ["if", "forall"] if d > 0 else []) + (["signal"] * 2 if getattr(self, "events", None) else [])
        form = self.pick(forms)
        if form == "signal":
            name, subject = self.pick(self.events)
            if subject is None:
                return f"signal {name};"
            return f"signal {name}({self.team(1, sc) if subject == 'team' else self.player(1, sc)});"
        if form == "assign":
            return self.assign(sc)
        if form == "at_once":  # two places at once: `a, b := x, y;` (values read the state before)
            one, two = self.assign(sc), self.assign(sc)
            (p1, v1), (p2, v2) = one[:-1].split(" := ", 1), two[:-1].split(" := ", 1)
            if p1 == p2:
                return one
            return f"{p1}, {p2} := {v1}, {v2};"
        if form in ("lose", "win", "draw_some", "leave"):
            word = "draw" if form == "draw_some" else form  # a draw of one player or team, not of the game
            if self.teams and self.chance(0.3):
                return f"{word} {self.team(1, sc)};"
            return f"{word} {self.player(1, sc)};"
        if form in ("draw", "finish"):
            return form + ";"
        if form == "if":
            text = f"if {self.bool_(1, sc, 0)} then {self.stmts(d - 1, sc)}"
            if self.chance(0.3):
                text += f" elif {self.bool_(1, sc, 0)} then {self.stmts(d - 1, sc)}"
            if self.chance(0.5):
                text += f" else {self.stmts(d - 1, sc)}"
            return text + " end"
        b = self.binder()
        inner = {**sc, "player": sc.get("player", []) + [b]}
        return f"forall {b} in {self.set_(1, sc)} do {self.stmts(d - 1, inner)} end"

    def assign(self, sc):
        name = self.pick(sorted(self.vars))
        kind = self.vars[name]
        if kind == "int":
            return f"{name} := {self.int_(2, sc, 0)};"
        if kind == "bool":
            return f"{name} := {self.bool_(1, sc, 0)};"
        if kind == "opt":
            return f"{name} := {self.pick([self.player(1, sc), 'none'])};"
        if kind == "player":
            return f"{name} := {self.player(1, sc)};"
        if kind == "hp":
            if self.chance(0.3):  # through the let that names the place
                return f"{name}_at({self.player(1, sc)}) := {self.int_(1, sc, 0)};"
            return f"{name}[{self.player(1, sc)}] := {self.int_(1, sc, 0)};"
        if kind == "gold":
            return f"{name} := {self.gold_(2, sc)};"
        if kind == "slot":
            return f"{name}[{self.int_(1, sc, 0)}] := {self.int_(1, sc, 0)};"
        if kind == "pair":
            return f"{name}[{self.player(1, sc)}, {self.int_(1, sc, 0)}] := {self.int_(1, sc, 0)};"
        if kind == "team":
            return f"{name} := {self.team(1, sc)};"
        return f"{name} := {self.set_(1, sc)};"

    def stmts(self, d, sc):
        return " ".join(self.stmt(d, sc) for _ in range(self.pick([1, 1, 2])))

    # ---------------------------------------------------------- the spec
    def spec(self) -> str:
        out = [self.header]
        decls = {
            "int": lambda v: f"var {v}: 0..{self.pick([1, 2, 3])} = {self.pick([0, 1])}",
            "bool": lambda v: f"var {v}: bool = {self.pick(['true', 'false'])}",
            "opt": lambda v: f"var {v}: player? = {self.pick(['none'] + self.players)}",
            "player": lambda v: f"var {v}: player = {self.pick(self.players[:2] + ['any'])}",
            "hp": lambda v: f"var {v}(p: player): 0..1 = 1\nlet {v}_at(p: player) = {v}[p]",
            "gold": lambda v: f"var {v}: 0..30 in steps of 10 = {self.pick(['0', '10', '20', '30'])}",
            "slot": lambda v: f"var {v}(k: 1..2): 0..2 = {self.pick(['0', 'k'])}",
            # a variable of two indices (docs/language.md, "Several indices")
            "pair": lambda v: f"var {v}(p: player, k: 1..2): 0..2 = {self.pick(['0', 'k', 'seat(p) % 3', 'k * seat(p) % 3'])}",
            "set": lambda v: f"var {v}: set player = {self.pick(['{}', '{' + self.players[0] + '}'])}",
        }
        if self.teams:
            decls["team"] = lambda v: f"var {v}: team = {self.pick(self.teams + ['any'])}"
        prefix = {"int": "cnt", "bool": "flg", "opt": "opt", "player": "who", "hp": "hp", "slot": "slot", "pair": "pair", "set": "grp",
                  "team": "side", "gold": "gold"}
        for i, kind in enumerate(self.draw(st.lists(st.sampled_from(sorted(decls)), min_size=1, max_size=3))):
            name = f"{prefix[kind]}{i}"
            line = decls[kind](name)
            if kind == "int" and self.of_kind("int") and self.chance(0.3):  # an initial value read from another
                line = f"var {name}: 0..2 = {self.pick(self.of_kind('int'))} + {self.pick([0, 1, 2])}"
            out.append(line)
            self.vars[name] = kind
        match = self.chance(0.25)  # a match of games (its own `init` is refused)
        if self.chance(0.2) and not match:
            out.append(f"init start: {self.bool_(1, {}, 0)}")
        for i in range(self.pick([0, 0, 1, 2])):
            out.append(f"possible pos{i}: {self.setup_bool(2)}")
        # declared events (docs/language.md, "Declared events"): raised by `signal`, heard by triggers
        self.events = []
        for i in range(self.pick([0, 0, 0, 1, 2])):
            subject = self.pick(["player", None] + (["team"] if self.teams else []))
            self.events.append((f"ev{i}", subject))
            out.append(f"event ev{i}" + (f"(q: {subject})" if subject else ""))
        replaced, actions = None, 0
        for i in range(self.draw(st.integers(1, 4))):
            params, sc = [], {"player": []}
            for _ in range(self.pick([0, 0, 1, 1, 2])):
                b = self.binder()
                if self.chance(0.2):
                    params.append(f"{b}: 1..2")
                    sc.setdefault("int", []).append(b)
                    continue
                params.append(f"{b}: {self.pick(['player', 'remaining', self.set_(1, sc)])}")  # may read the one before
                sc["player"].append(b)
            head = f"({', '.join(params)})" if params else ""
            flag = self.pick(["progress", "progress", "", "leave"])
            if sc["player"] and flag != "leave" and self.chance(0.4):  # who acts: the cause of its events
                flag = f"by {self.pick(sc['player'])} {flag}"
            guard = f" when {self.bool_(2, sc, 0)}" if self.chance(0.8) else ""
            body = self.stmts(2, sc)
            if i == 0 and self.chance(0.3):  # a labelled statement that a reading replaces (below)
                body, replaced = "l0: " + body, sc
            out.append(f"action a{i}{head} {flag}{guard} do {body} end")
            actions = i + 1
        if self.chance(0.3):
            out += self.phases()
        if match:
            out += self.match()
        kinds = ["lose player", "win player", "draw", "finish", "cannot lose player", "cannot win player",
                 "draw player", "leave player"] + (
            ["lose team", "win team", "cannot lose team", "draw team", "leave team"] if self.teams else [])
        rules = []
        for i in range(self.draw(st.integers(0, 3))):
            kind = self.pick(kinds)
            self.phase, self.safe = kind.split()[0], True
            if kind.split()[0] in ("draw", "leave") and kind not in ("draw",):
                self.phase = "lose"  # a draw of some players and leaving: the losses' stratum and polarity
            if kind in ("draw", "finish"):
                out.append(f"outcome o{i}: {kind} when {self.bool_(3, {}, 1)}")
            else:
                b = self.binder()
                out.append(f"outcome o{i}: {kind} {b} when {self.bool_(3, {kind.split()[-1]: [b]}, 1)}")
                rules.append((f"o{i}", kind))
            self.phase, self.safe = "", False
        events = ["lose player", "win player", "draw player", "leave player", "draw", "finish"] + (
            ["lose team", "win team", "draw team", "leave team"] if self.teams else [])
        events += [f"signal {name} {subject or ''}".strip() for name, subject in self.events] * 2
        # triggers on outcome events (docs/language.md)
        for i in range(self.pick([0, 0, 1, 2])):
            event = self.pick(events)
            self.phase = "trigger"
            if event in ("draw", "finish"):
                sc, head = {}, event
            elif event.startswith("signal "):  # a declared event: `on ev0(q)`, `on ev1`
                _, name, *subject = event.split()
                if not subject:
                    sc, head = {}, name
                else:
                    b = self.binder()
                    sc, head = {subject[0]: [b]}, f"{name}({b})"
            else:
                b = self.binder()
                sc, head = {event.split()[-1]: [b]}, f"{event} {b}"
            by = ""
            if self.chance(0.3):  # `by c`: who acts in the step; no trigger where nobody does
                c = self.binder()
                sc, by = {**sc, "player": sc.get("player", []) + [c]}, f" by {c}"
            when = f" when {self.bool_(2, sc, 0)}" if self.chance(0.6) else ""
            once = " once" if self.chance(0.3) else ""
            out.append(f"trigger tr{i} on {head}{by}{once}{when} do {self.stmts(1, sc)} end")
            self.phase = ""
        # state-based rules (docs/language.md): after every step's statements, before its phases
        for i in range(self.pick([0, 0, 0, 1, 2])):
            when = f" when {self.bool_(2, {}, 0)}" if self.chance(0.7) else ""
            out.append(f"state_based sb{i}{when} do {self.stmts(1, {'player': []})} end")
        pairs = [("lose", "win"), ("win", "lose"), ("draw", "win"), ("win", "draw"), ("draw", "lose"), ("lose", "draw")]
        for w, l in self.draw(st.lists(st.sampled_from(pairs), max_size=2, unique=True)):
            scope = " same_step" if (w, l) == ("lose", "win") and self.chance(0.3) else ""
            if not scope and {w, l} == {"lose", "win"} and self.chance(0.4):  # for players or teams only
                scope = self.pick([" for players"] + ([" for teams"] if self.teams else []))
            out.append(f"precedence {w} over {l}{scope}")
        exempt = [(a, b) for a, ka in rules for b, kb in rules if kb == "cannot " + ka]
        if exempt and self.chance(0.5):
            out.append("precedence {} over {}".format(*self.pick(exempt)))
        if self.chance(0.3):
            out.append("winners many")
        if self.chance(0.2):
            out.append("last_side plays_on")
        if self.chance(0.2):
            out.append("after_win plays_on")
        if self.chance(0.2):
            out.append(f"ends stop: {self.bool_(1, {}, 0)}")
        for i in range(self.draw(st.integers(0, 2))):
            out.append(f"invariant inv{i}: {self.bool_(3, {}, 0)}")
        # composition: the one reading checked replaces the labelled statement, or removes an action
        if replaced is not None:
            out.append(f"reading r0 {{ replace a0.l0 do {self.stmts(1, replaced)} end }}")
        elif actions > 1 and self.chance(0.15):
            out.append(f"reading r0 {{ remove action a{actions - 1} }}")
        return "\n".join(out) + "\n"

    def match(self) -> list[str]:
        """A match around the game: a match variable, game results in random order and shape,
        sometimes a `game starts` condition; their blocks from the same grammar of statements."""
        self.vars["games"] = "int"
        out = ["match {", "  var games: 0..2 = 0"]
        for _ in range(self.pick([1, 2])):
            if self.chance(0.6):
                b = self.binder()
                body = f"games := if games < 2 then games + 1 else 2 end; {self.stmts(1, {'player': [b]})}"
                out.append(f"  game won by player {b} when {self.bool_(2, {'player': [b]}, 0)} do {body} end")
            else:
                out.append(f"  game drawn when {self.bool_(2, {}, 0)} do {self.stmts(1, {'player': []})} end")
        if self.chance(0.5):
            out.append(f"  game starts when {self.bool_(1, {}, 0)} do {self.stmts(1, {'player': []})} end")
        return out + ["}"]

    def phases(self) -> list[str]:
        """A cycle of 1-3 phases with end conditions (the first always has one) and `when` blocks
        from the same grammar of expressions and statements; sometimes an invariant reads the phase."""
        names = [f"ph{k}" for k in range(self.pick([1, 2, 3]))]
        ending = [n for k, n in enumerate(names) if k == 0 or self.chance(0.8)]
        entries = [f"{n} ends when {self.bool_(2, {}, 0)}" if n in ending else n for n in names]
        out = ["phases cyc { " + " ".join(entries) + " }"]
        for n in names:
            for edge in ("ends", "starts"):
                if (edge == "starts" or n in ending) and self.chance(0.4):
                    out.append(f"when {n} {edge} do {self.stmts(1, {'player': []})} end")
        if self.chance(0.5):
            out.append(f"invariant in_phase: cyc != {self.pick(names)} or {self.bool_(2, {}, 0)}")
        return out


@st.composite
def specs(draw):
    return Writer(draw).spec()


# ---------------------------------------------------------------- the two views

def explorer_view(machine, graph):
    outcomes, gaps, dead, conflict = _explorer_view(graph, DEPTH)
    depth = _depths(graph)
    within = [i for i in range(len(graph.states)) if depth[i] <= DEPTH]
    invariants = []
    for d, f in machine.invariants:
        violated = errors = False
        for i in within:
            try:
                violated |= not f(machine.reader(graph.states[i]))
            except EvalError:
                errors = True
        invariants.append((d.name, violated, errors))
    return outcomes, gaps, dead, conflict, invariants


def z3_invariants(inst):
    """Per invariant: is a state violating it, or one where it cannot be evaluated, in a BMC frame
    0..DEPTH? Each frame is queried before the next is added, as reachable_outcomes does (adding a
    frame constrains the ones before it to have a successor)."""
    bmc = BMC(inst)
    enc, solver = bmc.enc, bmc.solver
    found = {d.name: [False, False] for d in inst.model.invariants}
    for i in range(DEPTH + 1):
        if i > 0:
            bmc.extend()
        f = bmc.frames[i]
        # as the explorer reads a state: the winners of its end, why players are out
        st = SymState(f.st.vals, f.st.out, f.st.tout, tuple(getattr(f.st, r) for r in SymState.RESULTS))
        st.wp, st.wt, st.draw = f.wp, f.wt, f.draw
        for d in inst.model.invariants:
            value, err = enc.checked(lambda: enc.expr(d.cond, st, {}))
            for j, query in enumerate((z3.And(z3.Not(err), z3.Not(value)), err)):
                if found[d.name][j] or concrete(query) is False:
                    continue
                solver.push()
                solver.add(query)
                found[d.name][j] = solver.check() == z3.sat
                solver.pop()
    return [(d.name, *found[d.name]) for d in inst.model.invariants]


def compare(path):
    """(explorer's view, Z3's view) of a spec; None if the front end refuses it or Z3's side
    takes over Z3_SECONDS."""
    try:
        insts = load_instances(path)
    except SpecError:
        return None
    inst = insts[0]
    machine = Machine(inst)
    graph = explore(machine, Limits(max_states=20_000, max_seconds=20))
    if not graph.complete:
        return None
    mine = explorer_view(machine, graph) + (explorer_possibles(machine, graph),)
    try:  # the checker's own watchdog: it stops the encoding only where nothing is half-built
        with watchdog(Budget(Limits(max_seconds=Z3_SECONDS))):
            outcomes, gaps, dead, conflict = BMC(inst).reachable_outcomes(DEPTH)
            z_invariants = z3_invariants(inst)
    except LimitHit:
        return None
    z_possibles = [(d.name, impossible(inst, d.cond) is None) for d in inst.model.possibles]
    # the explored initial states are settled, triggers included, and a setup whose settling
    # fails (an evaluation error in an outcome rule: a finding of its own) is none of them:
    # `possible` asks about the bare setups, which Z3 has
    if inst.model.triggers or graph.setup_errors:
        mine = mine[:-1] + (z_possibles,)
    return mine, (outcomes, gaps, dead, conflict, z_invariants, z_possibles)


def explorer_possibles(machine, graph):
    """Per `possible`: does an explored initial state satisfy it?"""
    out = []
    for d in machine.model.possibles:
        f = machine.comp.expr(d.cond)
        holds = False
        for i in graph.init_ids:
            try:
                holds = holds or bool(f(machine.reader(graph.states[i])))
            except EvalError:
                pass
        out.append((d.name, holds))
    return out


# ---------------------------------------------------------------- the tests

@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(text=specs())
def test_random_specs_reach_the_same_outcomes_gaps_deadlocks_and_invariant_violations(tmp_path_factory, text):
    note(text)
    path = tmp_path_factory.mktemp("spec") / "s.rw"
    path.write_text(text, encoding="utf-8")
    views = compare(str(path))
    assume(views is not None)
    (outcomes, gaps, dead, conflict, invariants, possibles), \
        (z_outcomes, z_gaps, z_dead, z_conflict, z_invariants, z_possibles) = views
    assert z_outcomes == outcomes
    assert z_gaps == gaps
    assert z_dead == dead
    assert z_conflict == conflict
    assert z_invariants == invariants
    assert z_possibles == possibles


# ---------------------------------------------------------------- known disagreements

# Both players lose by `first`; `second` reads a `player?` that is none, but it is never needed:
# "Losses, until nothing new follows" (docs/language.md, Outcomes), and nothing new can follow for
# a player who has already lost. So the step ends with no player in the game: an outcome gap.
REDUNDANT_RULE = """players 2
var opt: player? = none
var go: bool = false
action start progress when not go do go := true; end
outcome first: lose player p when go
outcome second: lose player p when go and in_game(opt)
"""


def test_z3_does_not_evaluate_a_loss_rule_for_a_player_who_has_already_lost(tmp_path):
    path = tmp_path / "redundant.rw"
    path.write_text(REDUNDANT_RULE, encoding="utf-8")
    _, (outcomes, gaps, dead, _, _, _) = compare(str(path))
    assert (outcomes, gaps, dead) == (set(), True, False)


def test_the_explorer_does_not_evaluate_a_loss_rule_for_a_player_who_has_already_lost(tmp_path):
    path = tmp_path / "redundant.rw"
    path.write_text(REDUNDANT_RULE, encoding="utf-8")
    (outcomes, gaps, dead, _, _, _), _ = compare(str(path))
    assert (outcomes, gaps, dead) == (set(), True, False)


# A trigger overflows while the setup settles (both players lose at once, the second count is 2):
# the explorer records a failing setup and has no initial state; Z3's first frame must be
# unsatisfiable too, not an initial state holding the out-of-type value (the random specs found
# Z3 reporting a gap in such a frame, with a match around the game).
SETUP_TRIGGER_OVERFLOW = """players 2
var n: 0..1 = 0
action a progress when true do n := 1; end
outcome everyone: lose player p when true
trigger count on lose player p do n := n + 1; end
"""


def test_a_setup_whose_trigger_overflows_has_no_initial_state_in_either_engine(tmp_path):
    path = tmp_path / "setup_overflow.rw"
    path.write_text(SETUP_TRIGGER_OVERFLOW, encoding="utf-8")
    inst = load_instances(str(path))[0]
    graph = explore(Machine(inst), Limits(max_states=1_000, max_seconds=20))
    assert [e.kind for e in graph.setup_errors] == ["overflow"] and not graph.states
    assert BMC(inst).solver.check() == z3.unsat


# Every player draws in the setup, so the game is over because everyone has left with a draw
# (docs/language.md, "Outcomes for some players"): that end is no `draw` event, and the trigger
# (which would overflow) does not run in either engine. Z3 used to count the end's draw as a draw
# of the step, run the trigger and lose the initial state (the random specs found it).
EVERYONE_DREW = """players 2
var n: 0..1 = 0
action a progress when true do n := 1; end
outcome all_draw: draw player p when true
trigger count on draw do n := n + 2; end
"""


def test_a_game_everyone_left_with_a_draw_fires_no_draw_trigger_in_either_engine(tmp_path):
    path = tmp_path / "everyone_drew.rw"
    path.write_text(EVERYONE_DREW, encoding="utf-8")
    mine, theirs = compare(str(path))
    assert mine[:3] == theirs[:3] == ({(0, 0, True)}, False, False)


# found by the random specs: the only setup fails while it settles (`ends` reads a player that is
# none), so the explorer has no initial state, while `possible` asks about the bare setups
FAILING_SETTLE = """players 2
var opt: player? = none
possible any: true
action a progress do opt := P1; end
ends stop: not (in_game(opt))
"""


def test_a_possible_property_is_asked_of_the_bare_setups_even_where_settling_them_fails(tmp_path):
    path = tmp_path / "settle.rw"
    path.write_text(FAILING_SETTLE, encoding="utf-8")
    views = compare(str(path))
    assert views is not None
    mine, theirs = views
    assert mine[-1] == theirs[-1] == [("any", True)]


# found by the random specs: a draw of some players whose rule reads `lost_now` of a team that
# a later rule makes lose in the same stratum. The explorer applies it again once the loss is
# derived (it reads what its stratum derives); Z3 did not count `lost_now` as such a read, so the
# players never drew and the setup was a gap instead of a draw.
DRAW_AFTER_A_LOSS_OF_THE_STEP = """teams count 2 size 2
var n: 0..1 = 0
action a progress do n := 1; end
outcome drawn: draw player p when lost_now(B)
outcome beaten: lose team t when true
"""


def test_a_rule_that_reads_lost_now_is_applied_again_after_its_stratum_derives_a_loss_in_either_engine(tmp_path):
    path = tmp_path / "lost_now.rw"
    path.write_text(DRAW_AFTER_A_LOSS_OF_THE_STEP, encoding="utf-8")
    mine, theirs = compare(str(path))
    assert mine[:3] == theirs[:3] == ({(0, 0, True)}, False, False)
