"""The generated source of the built-in functions (checker.frontend.builtins), one `b_<key>` each.

A part of `Generator` (checker.explicit.codegen), apart because the built-ins are a table of
their own that grows one entry at a time: `Generator` inherits `BuiltinSource`, and its
`_BUILTIN` table is built from the combined class, so a missing `b_<key>` still stops the
import (lost_now() excepted: it is read only where the step is settled, by the closures). A
method receives the call node and its arguments as source, and returns source that reads the
state's locals (`out`, `tout`) and the step's facts as `self.facts` names them (literals in a
guard, locals in a body).
"""
from __future__ import annotations

from .packing import _lit
from .values import DREW, WON


class BuiltinSource:
    """`b_<key>(e, a)`: the source of one call of the built-in `key`, `a` its arguments' source."""

    def b_team(self, e, a):
        return f"TEAM_OF[{a[0]}]"

    def b_seat(self, e, a):
        return a[0]

    def b_player_at(self, e, a):
        return f"({a[0]} % {self.n})"

    def b_left(self, e, a):
        return f"(({a[0]} + {a[1]}) % {self.n})"

    def b_right(self, e, a):
        return f"(({a[0]} - {a[1]}) % {self.n})"

    def b_next(self, e, a):
        return f"(({a[0]} + 1) % {self.n})"

    def b_across(self, e, a):
        return f"(({a[0]} + {self.n // 2}) % {self.n})"

    def b_dist(self, e, a):
        return f"_dist({a[0]}, {a[1]})"

    def b_dist_left(self, e, a):
        return f"(({a[1]} - {a[0]}) % {self.n})"

    def b_members(self, e, a):
        return f"MEMBERS[{a[0]}]"

    def b_opponents(self, e, a):
        if self.inst.has_teams:
            return f"({self.all} & ~MEMBERS[TEAM_OF[{a[0]}]])"
        return f"({self.all} & ~(1 << {a[0]}))"

    def b_teammates(self, e, a):
        if self.inst.has_teams:
            return f"_teammates({a[0]})"
        return f"({a[0]} and 0)"

    def b_next_in_game(self, e, a):
        return f"_ring({a[0]}, 1, 1, out, {self.n})"

    def b_prev_in_game(self, e, a):
        return f"_ring({a[0]}, 1, -1, out, {self.n})"

    def b_left_in_game(self, e, a):
        return f"_ring({a[0]}, {a[1]}, 1, out, {self.n})"

    def b_dist_in_game(self, e, a):
        return f"_dist_in_game({a[0]}, {a[1]}, out, {self.n})"

    def b_in_game_player(self, e, a):
        return f"(not (out >> {a[0]}) & 1)"

    def b_in_game_team(self, e, a):
        return f"_team_in_game({a[0]}, out, tout)"

    # statuses: above its low bits the mask of players out says why they left (compile.DREW...)
    def b_lost_player(self, e, a):
        # (nobody out without losing, the common case, needs no call)
        lost = f"(out if out <= {self.all} else _lost(out, {self.n}))"
        return f"((({lost} | {self.facts['lp']}) >> {a[0]}) & 1 == 1)"

    def b_lost_team(self, e, a):
        return f"(((_lost(tout, {self.inst.nteams}) | {self.facts['lt']}) >> {a[0]}) & 1 == 1)"

    def b_won_player(self, e, a):
        return f"((({self.facts['wp']} | _result(out, {self.n}, {WON})) >> {a[0]}) & 1 == 1)"

    def b_won_team(self, e, a):
        return f"((({self.facts['wt']} | _result(tout, {self.inst.nteams}, {WON})) >> {a[0]}) & 1 == 1)"

    def b_drew_player(self, e, a):
        return f"((({self.facts['dp']} | _result(out, {self.n}, {DREW})) >> {a[0]}) & 1 == 1)"

    def b_drew_team(self, e, a):
        return f"((({self.facts['dt']} | _result(tout, {self.inst.nteams}, {DREW})) >> {a[0]}) & 1 == 1)"

    def b_size(self, e, a):
        return f"len({a[0]})" if e.args[0].type.elem.kind == "int" else f"{a[0]}.bit_count()"

    def b_abs(self, e, a):
        return f"abs({a[0]})"

    def b_min(self, e, a):
        return f"min({', '.join(a)})"

    def b_max(self, e, a):
        return f"max({', '.join(a)})"

    def b_after(self, e, a):
        sid = self.span_id(e.span, e.args[0].type)  # the type its error shows the value in
        return f"_after({a[0]}, ({', '.join(a[1:])},), {sid})"

    def b_players(self, e, a):
        return _lit(self.all)

    def b_remaining(self, e, a):
        return f"({self.all} & ~out)"

    def b_teams(self, e, a):
        return _lit((1 << self.inst.nteams) - 1)

    def b_game_over(self, e, a):
        return "False"  # never within a step: an ended game has no successors

    def b_game_drawn(self, e, a):
        return "False"

    def b_game_finished(self, e, a):
        return "False"

    def b_game_won(self, e, a):
        return "False"

    def b_nplayers(self, e, a):
        return _lit(self.n)

    def b_nteams(self, e, a):
        return _lit(self.inst.nteams)

    def b_team_size(self, e, a):
        return _lit(self.n // self.inst.nteams if self.inst.nteams else 1)
