"""Who is left without an outcome when a game ends, over a frame of the symbolic engine: the
questions of `player-without-outcome` and `implied-loss` (checker.analyses.graph_checks
`check_player_without_outcome` makes them on the explorer's states, and this says the same
thing as a bad condition for Spacer).

The free-for-all convention (docs/checks.md): a win that ends the game is a loss for every
player still in it who is an opponent of a winner. A survivor who is no winner's opponent (an
ally), or any survivor when the format allows several winners, is left without an outcome; a
convention that decides for players of two or more sides is an implied loss.
"""
from __future__ import annotations

from dataclasses import dataclass

import z3

from .bmc import BMC, _Frame
from .terms import to_term


@dataclass(frozen=True)
class EndedSides:
    """Frame f's end with a winner, and per player: still in the game with no outcome
    (`left`), a winner (`winner`), an opponent of a winner (`beaten`, among the left)."""
    u: BMC
    f: _Frame
    won: object  # the game ended with a winner (not a draw, not by `finish`)
    left: list
    beaten: list
    unsure: object  # the `opponents` declaration has no value for a winner and a player left

    def _or_unsure(self, bad):
        # where the explorer's check would stop on an evaluation error, no proof may be drawn
        return z3.Or(bad, z3.And(self.won, self.unsure))

    def without_outcome(self):
        """Some player left is no winner's opponent (any player left, under `winners many`)."""
        inst = self.u.inst
        if inst.model.winners_many:
            return z3.And(self.won, z3.Or(*self.left))
        return self._or_unsure(z3.And(self.won, z3.Or(*[z3.And(left, z3.Not(beaten))
                                                       for left, beaten in zip(self.left, self.beaten)])))

    def implied_loss(self):
        """The convention decides for players of two sides or more (never under `winners many`)."""
        inst = self.u.inst
        if inst.model.winners_many:
            return z3.BoolVal(False)
        side = inst.team_of if inst.has_teams else list(range(inst.nplayers))
        pairs = [z3.And(self.beaten[p], self.beaten[q]) for p in range(inst.nplayers)
                 for q in range(p + 1, inst.nplayers) if side[p] != side[q]]
        return self._or_unsure(z3.And(self.won, z3.Or(*pairs)) if pairs else z3.BoolVal(False))


def ended_sides(u: BMC, f: _Frame) -> EndedSides:
    inst = u.inst
    n = inst.nplayers
    team = inst.team_of if inst.has_teams else None
    winner = [z3.Or(f.wp[p], f.wt[team[p]]) if team is not None else f.wp[p] for p in range(n)]
    left = [z3.And(z3.Not(f.st.out[p]), z3.Not(winner[p])) for p in range(n)]
    won = z3.And(f.ended, z3.Not(f.draw), z3.Or(*f.wp, *f.wt))
    opp = {(w, q): _opponent(u, f, w, q) for w in range(n) for q in range(n)}
    beaten = [z3.And(left[q], z3.Or(*[z3.And(winner[w], opp[w, q][0]) for w in range(n)])) for q in range(n)]
    unsure = z3.Or(*[z3.And(winner[w], left[q], opp[w, q][1]) for w in range(n) for q in range(n)])
    return EndedSides(u, f, won, left, beaten, unsure)


def _opponent(u: BMC, f: _Frame, p: int, q: int) -> tuple[object, object]:
    """(whether q is an opponent of p in frame f, whether that has no value there), as
    explicit.machine `is_opponent` says: by the `opponents` declaration, else a player of
    another team (or any other player)."""
    inst = u.inst
    o = inst.model.opponents
    if o is None:
        return z3.BoolVal(q != p and (not inst.has_teams or inst.team_of[p] != inst.team_of[q])), z3.BoolVal(False)
    value, err = u.enc.checked(lambda: u.enc.expr(o.cond, u.read(f), {o.player.uid: p, o.other.uid: q}))
    return to_term(value), to_term(err)
