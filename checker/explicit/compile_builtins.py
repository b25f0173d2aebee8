"""The closures of the built-in functions (checker.frontend.builtins), one `b_<key>` each.

A part of `Compiler` (checker.explicit.compile), apart because the built-ins are a table of
their own that grows one entry at a time: `Compiler` inherits `BuiltinClosures`, and its
`_BUILTIN` dispatch table is built from the combined class, so a missing `b_<key>` still stops
the import. A method receives the call node and its arguments already compiled (closures of a
`Ctx`), and reads the instance's constants that `Compiler.__init__` sets (`n`, `all`,
`members`, `inst`).
"""
from __future__ import annotations

from .values import DREW, WON, after_in, dist_in_game, lost_mask, popcount, result_mask, ring_step


class BuiltinClosures:
    """`b_<key>(e, args)`: the closure of one call of the built-in `key`."""

    def b_team(self, e, args):
        (p,), to = args, self.inst.team_of
        return lambda c: to[p(c)]

    def b_seat(self, e, args):
        return args[0]

    def b_player_at(self, e, args):
        (i,), n = args, self.n
        return lambda c: i(c) % n

    def b_left(self, e, args):
        (p, k), n = args, self.n
        return lambda c: (p(c) + k(c)) % n

    def b_right(self, e, args):
        (p, k), n = args, self.n
        return lambda c: (p(c) - k(c)) % n

    def b_next(self, e, args):
        (p,), n = args, self.n
        return lambda c: (p(c) + 1) % n

    def b_across(self, e, args):
        (p,), n = args, self.n
        return lambda c: (p(c) + n // 2) % n

    def b_dist(self, e, args):
        (p, q), n = args, self.n
        return lambda c: min((q(c) - p(c)) % n, (p(c) - q(c)) % n)

    def b_dist_left(self, e, args):
        (p, q), n = args, self.n
        return lambda c: (q(c) - p(c)) % n

    def b_members(self, e, args):
        (t,), mem = args, self.members
        return lambda c: mem[t(c)]

    def b_opponents(self, e, args):
        (p,), a = args, self.all
        if self.inst.has_teams:
            mem, to = self.members, self.inst.team_of
            return lambda c: a & ~mem[to[p(c)]]
        return lambda c: a & ~(1 << p(c))

    def b_teammates(self, e, args):
        (p,) = args
        if self.inst.has_teams:
            mem, to = self.members, self.inst.team_of
            return lambda c: mem[to[p(c)]] & ~(1 << p(c))
        return lambda c: p(c) and 0  # no teammates, but the argument is evaluated (it may fail)

    def b_next_in_game(self, e, args):
        (p,), n = args, self.n
        return lambda c: ring_step(p(c), 1, 1, c.out, n)

    def b_prev_in_game(self, e, args):
        (p,), n = args, self.n
        return lambda c: ring_step(p(c), 1, -1, c.out, n)

    def b_left_in_game(self, e, args):
        (p, k), n = args, self.n
        return lambda c: ring_step(p(c), k(c), 1, c.out, n)

    def b_dist_in_game(self, e, args):
        (p, q), n = args, self.n
        return lambda c: dist_in_game(p(c), q(c), c.out, n)

    def b_in_game_player(self, e, args):
        (f,) = args
        return lambda c: not (c.out >> f(c)) & 1

    def b_in_game_team(self, e, args):
        (f,), mem = args, self.members
        return lambda c: not (c.tout >> f(c)) & 1 and (mem[f(c)] & ~c.out) != 0

    def b_lost_player(self, e, args):
        (f,), n = args, self.n
        return lambda c: ((lost_mask(c.out, n) | c.lp) >> f(c)) & 1 == 1

    def b_lost_team(self, e, args):
        (f,), nt = args, self.inst.nteams
        return lambda c: ((lost_mask(c.tout, nt) | c.lt) >> f(c)) & 1 == 1

    def b_lost_now_player(self, e, args):
        (f,) = args
        return lambda c: ((c.out | c.lp) & ~c.out0) >> f(c) & 1 == 1

    def b_lost_now_team(self, e, args):
        (f,) = args
        return lambda c: ((c.tout | c.lt) & ~c.tout0) >> f(c) & 1 == 1

    def b_won_player(self, e, args):
        (f,), n = args, self.n
        return lambda c: ((c.wp | result_mask(c.out, n, WON)) >> f(c)) & 1 == 1

    def b_won_team(self, e, args):
        (f,), nt = args, self.inst.nteams
        return lambda c: ((c.wt | result_mask(c.tout, nt, WON)) >> f(c)) & 1 == 1

    def b_drew_player(self, e, args):
        (f,), n = args, self.n
        return lambda c: ((c.dp | result_mask(c.out, n, DREW)) >> f(c)) & 1 == 1

    def b_drew_team(self, e, args):
        (f,), nt = args, self.inst.nteams
        return lambda c: ((c.dt | result_mask(c.tout, nt, DREW)) >> f(c)) & 1 == 1

    def b_size(self, e, args):
        (f,) = args
        if e.args[0].type.elem.kind == "int":
            return lambda c: len(f(c))
        return lambda c: popcount(f(c))

    def b_abs(self, e, args):
        (f,) = args
        return lambda c: abs(f(c))

    def b_min(self, e, args):
        return lambda c: min(f(c) for f in args)

    def b_max(self, e, args):
        return lambda c: max(f(c) for f in args)

    def b_after(self, e, args):
        x, fs = args[0], args[1:]
        span, ty, show = e.span, e.args[0].type, self.inst.show
        return lambda c: after_in(x(c), [f(c) for f in fs], span, ty, show)

    def b_players(self, e, args):
        a = self.all
        return lambda c: a

    def b_remaining(self, e, args):
        a = self.all
        return lambda c: a & ~c.out

    def b_teams(self, e, args):
        a = (1 << self.inst.nteams) - 1
        return lambda c: a

    def b_game_over(self, e, args):
        return lambda c: c.over

    def b_game_drawn(self, e, args):
        return lambda c: c.over and c.draw

    def b_game_finished(self, e, args):
        return lambda c: c.over and c.fin

    def b_game_won(self, e, args):
        return lambda c: c.over and bool(c.wp or c.wt)

    def b_nplayers(self, e, args):
        v = self.n
        return lambda c: v

    def b_nteams(self, e, args):
        v = self.inst.nteams
        return lambda c: v

    def b_team_size(self, e, args):
        v = self.n // self.inst.nteams if self.inst.nteams else 1
        return lambda c: v
