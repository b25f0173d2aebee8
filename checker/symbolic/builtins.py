"""The built-in functions of the language (the table in `checker.frontend.builtins`) over
terms: seating, teams, who is in or out of the game and why, sets and arithmetic helpers.

A mixin of `encode.Encoder`, kept apart only for size. Every `b_<key>` takes the call node, its
arguments' terms and the state; `encode.handled_builtins` lists the keys found here, which a
test compares with the table. A seat is a Python int wherever it can be: a term that is not
a literal is lifted by cases over the seats (`lift1`), so the seating is computed exactly.
"""
from __future__ import annotations

from .terms import SymSet, Unsupported, and_, concrete, ite, lost, not_, or2, or_all, sum_, sym_if


class Builtins:
    """`b_<key>` for every built-in key; reads the encoder's `n`, `nt`, `inst`, `fail`, `lit` and
    its constants (`T`, `F`, `num`, `boolean`)."""

    def lift1(self, x, domain, fn):
        """fn(x) for a seat or index `x`: called once on a literal, else by cases over `domain`."""
        c = concrete(x)
        if isinstance(c, int) and not isinstance(c, bool):
            return fn(c)
        vals = list(domain)
        out = fn(vals[-1])
        for v in reversed(vals[:-1]):
            out = sym_if(x == v, fn(v), out)
        return out

    def lift2(self, x, y, fn):
        return self.lift1(x, range(self.n), lambda a: self.lift1(y, range(self.n), lambda b: fn(a, b)))

    def pick(self, index, options):
        """options[index] for a player or team index (valid by typing)."""
        return self.lift1(index, range(len(options)), lambda i: options[i])

    def b_team(self, e, a, st):
        return self.lift1(a[0], range(self.n), lambda p: self.num(self.inst.team_of[p]))

    def b_seat(self, e, a, st):
        return a[0]

    def b_player_at(self, e, a, st):
        return a[0] % self.n

    def b_left(self, e, a, st):
        return (a[0] + a[1]) % self.n

    def b_right(self, e, a, st):
        return (a[0] - a[1]) % self.n

    def b_next(self, e, a, st):
        return (a[0] + 1) % self.n

    def b_across(self, e, a, st):
        return (a[0] + self.n // 2) % self.n

    def b_dist(self, e, a, st):
        d1, d2 = (a[1] - a[0]) % self.n, (a[0] - a[1]) % self.n
        return ite(d1 < d2, d1, d2)

    def b_dist_left(self, e, a, st):
        return (a[1] - a[0]) % self.n

    def b_members(self, e, a, st):
        to = self.inst.team_of
        return SymSet([self.lift1(a[0], range(self.nt), lambda t, p=p: self.boolean(to[p] == t)) for p in range(self.n)],
                      "player")

    def b_opponents(self, e, a, st):
        to = self.inst.team_of
        if self.inst.has_teams:
            return SymSet([self.lift1(a[0], range(self.n), lambda q, p=p: self.boolean(to[p] != to[q]))
                           for p in range(self.n)], "player")
        return SymSet([a[0] != p for p in range(self.n)], "player")

    def b_teammates(self, e, a, st):
        to = self.inst.team_of
        if self.inst.has_teams:
            return SymSet([self.lift1(a[0], range(self.n), lambda q, p=p: self.boolean(to[p] == to[q] and p != q))
                           for p in range(self.n)], "player")
        return SymSet([self.F] * self.n, "player")

    def b_next_in_game(self, e, a, st):
        return self.lift1(a[0], range(self.n), lambda p: self.ring_step(st, p, 1, 1))

    def b_prev_in_game(self, e, a, st):
        return self.lift1(a[0], range(self.n), lambda p: self.ring_step(st, p, 1, -1))

    def b_left_in_game(self, e, a, st):
        k = concrete(a[1])
        if k is None:
            raise Unsupported("left_in_game with a distance that depends on the state")
        return self.lift1(a[0], range(self.n), lambda p: self.ring_step(st, p, k, 1))

    def b_dist_in_game(self, e, a, st):
        return self.lift2(a[0], a[1], lambda p, q: self.dist_in_game(st, p, q))

    def b_in_game_player(self, e, a, st):
        return not_(self.pick(a[0], st.out))

    def b_in_game_team(self, e, a, st):
        to = self.inst.team_of
        return self.lift1(a[0], range(self.nt), lambda t: and_(
            not_(st.tout[t]), or_all([not_(st.out[p]) for p in range(self.n) if to[p] == t])))

    # out of the game and none of the reasons to be out without losing: lost
    def b_lost_player(self, e, a, st):
        return self.lift1(a[0], range(self.n), lambda p: or2(lost(st.out[p], st.rd[p], st.rw[p], st.rx[p]), st.lp[p]))

    def b_lost_team(self, e, a, st):
        return self.lift1(a[0], range(self.nt),
                          lambda t: or2(lost(st.tout[t], st.trd[t], st.trw[t], st.trx[t]), st.lt[t]))

    def b_lost_now_player(self, e, a, st):
        return self.lift1(a[0], range(self.n), lambda p: and_(or2(st.out[p], st.lp[p]), not_(st.out0[p])))

    def b_lost_now_team(self, e, a, st):
        return self.lift1(a[0], range(self.nt), lambda t: and_(or2(st.tout[t], st.lt[t]), not_(st.tout0[t])))

    def b_won_player(self, e, a, st):
        return self.lift1(a[0], range(self.n), lambda p: or2(st.wp[p], st.rw[p]))

    def b_won_team(self, e, a, st):
        return self.lift1(a[0], range(self.nt), lambda t: or2(st.wt[t], st.trw[t]))

    def b_drew_player(self, e, a, st):
        return self.lift1(a[0], range(self.n), lambda p: or2(st.dp[p], st.rd[p]))

    def b_drew_team(self, e, a, st):
        return self.lift1(a[0], range(self.nt), lambda t: or2(st.dt[t], st.trd[t]))

    def b_size(self, e, a, st):
        s = a[0]
        if s.kind == "int":
            # distinct values only, as the explorer's frozenset counts them
            firsts = []
            for i, (v, c) in enumerate(zip(s.values, s.elems)):
                dup = or_all([and_(c2, v2 == v) for v2, c2 in zip(s.values[:i], s.elems[:i])])
                firsts.append(ite(and_(c, not_(dup)), 1, 0))
            return sum_(firsts) if firsts else self.num(0)
        return sum_([ite(c, 1, 0) for c in s.elems]) if s.elems else self.num(0)

    def b_abs(self, e, a, st):
        return ite(a[0] < 0, -a[0], a[0])

    def b_min(self, e, a, st):
        out = a[0]
        for x in a[1:]:
            out = ite(x < out, x, out)
        return out

    def b_max(self, e, a, st):
        out = a[0]
        for x in a[1:]:
            out = ite(x > out, x, out)
        return out

    def b_after(self, e, a, st):
        x, rest = a[0], a[1:]
        self.fail(self.lit(and_(*[x != r for r in rest])))  # a value it does not list, as the explorer
        out = rest[0]
        for i in range(len(rest) - 1, -1, -1):
            out = ite(x == rest[i], rest[(i + 1) % len(rest)], out)
        return out

    def b_players(self, e, a, st):
        return SymSet([self.T] * self.n, "player")

    def b_remaining(self, e, a, st):
        return SymSet([not_(o) for o in st.out], "player")

    def b_teams(self, e, a, st):
        return SymSet([self.T] * self.nt, "team")

    def b_game_over(self, e, a, st):
        return st.over

    def b_game_drawn(self, e, a, st):
        return and_(st.over, st.draw)

    def b_game_finished(self, e, a, st):
        return and_(st.over, st.fin)

    def b_game_won(self, e, a, st):
        return and_(st.over, or_all(st.wp + st.wt))

    def b_nplayers(self, e, a, st):
        return self.num(self.n)

    def b_nteams(self, e, a, st):
        return self.num(self.nt)

    def b_team_size(self, e, a, st):
        return self.num(self.n // self.nt if self.nt else 1)

    def ring_step(self, st, p, k, direction):
        """The k-th seat still in the game walking from p, round the table as often as needed
        (p counts when the walk passes it); p if nobody is in the game."""
        n = self.n
        seats = [(p + direction * j) % n for j in range(1, n * max(k, 1) + 1)]
        counts = []
        running = self.num(0)
        for s in seats:
            running = running + ite(st.out[s], 0, 1)
            counts.append(running)
        result = self.num(p)
        for s, cnt in reversed(list(zip(seats, counts))):
            result = ite(and_(not_(st.out[s]), cnt == k), self.num(s), result)
        return result

    def dist_in_game(self, st, p, q):
        n = self.n
        if p == q:
            return self.num(0)
        left_between = [(p + j) % n for j in range(1, (q - p) % n)]
        right_between = [(p - j) % n for j in range(1, (p - q) % n)]
        dl = 1 + sum_([ite(st.out[s], 0, 1) for s in left_between]) if left_between else self.num(1)
        dr = 1 + sum_([ite(st.out[s], 0, 1) for s in right_between]) if right_between else self.num(1)
        return ite(dl < dr, dl, dr)

