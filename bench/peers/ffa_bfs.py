#!/usr/bin/env python3
"""Plain breadth-first search of the free-for-all life family, the baseline of ffa.rw.

  python3 ffa_bfs.py -p 4 -l 10     -> players=4 life=10 states=53240 transitions=488800 ...

P players with life L each sit in a ring; the active player deals 1..3 damage to an opponent
still in the game (life is kept at 0: at 0 or less a player is out) or passes; then the turn
passes to the next player still above 0. With one player left the game is over: no moves.

A state is (lives, turn), a tuple of P small integers and a seat, hashed once. A transition is
one (move, successor) pair, counted even when two moves reach the same state (3 damage and 2
to a player at life 1), as rulewright and SPIN count them. Nothing else: no labels kept, no
checks, so that the time is the search's alone.
"""
import argparse
import sys
import time
from collections import deque


def successors(players, state):
    """The successors of one state, in a fixed order: attacks by target and damage, then the pass."""
    lives, turn = state
    alive = [p for p in range(players) if lives[p] > 0]
    if len(alive) <= 1:
        return []

    def next_alive(lv):
        seat = turn
        for _ in range(players - 1):
            seat = (seat + 1) % players
            if lv[seat] > 0:
                return seat
        return turn

    out = []
    for q in alive:
        if q == turn:
            continue
        for d in (1, 2, 3):
            lv = lives[:q] + (max(0, lives[q] - d),) + lives[q + 1:]
            out.append((lv, next_alive(lv)))
    out.append((lives, next_alive(lives)))
    return out


def bfs(players, life):
    """Plain BFS from the initial state. Returns (states, transitions, terminal states)."""
    init = ((life,) * players, 0)
    seen = {init}
    queue = deque([init])
    transitions = terminal = 0
    while queue:
        succ = successors(players, queue.popleft())
        transitions += len(succ)
        if not succ:
            terminal += 1
        for t in succ:
            if t not in seen:
                seen.add(t)
                queue.append(t)
    return len(seen), transitions, terminal


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('-p', '--players', type=int, required=True)
    ap.add_argument('-l', '--life', type=int, required=True)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    states, trans, terminal = bfs(args.players, args.life)
    dt = time.perf_counter() - t0
    print(f'players={args.players} life={args.life} states={states} transitions={trans} '
          f'terminal={terminal} search_s={dt:.4f} states_per_s={states / dt if dt else 0:.0f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
