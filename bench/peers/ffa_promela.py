#!/usr/bin/env python3
"""Generate the Promela model of the free-for-all life family for one P and L.

  python3 ffa_promela.py 4 10        -> ffa_p4_l10.pml
  python3 ffa_promela.py 4 10 -o m.pml

The same game as ffa.rw and ffa_bfs.py: P players with life L each in a ring; the active player
deals 1..3 damage to an opponent still in the game (life kept at 0) or passes; then the turn
passes to the next player still above 0; with one player left nothing moves (a valid end
state: the loop carries an end label).

One process, one do-loop, one d_step option per (player in turn, target, damage) and one pass
per player in turn, all with constant seats, so that a SPIN state is exactly (life[], turn),
the states of ffa_bfs.py (SPIN adds the one state before the initialising d_step) and each
option one of its transitions.
"""
import argparse


def next_alive(players, turn):
    """Promela statement: turn := the next seat after `turn` still above 0 (else `turn`)."""
    seats = [(turn + k) % players for k in range(1, players)]
    text = f'turn = {turn}'
    for seat in reversed(seats):
        text = f'if :: life[{seat}] > 0 -> turn = {seat} :: else -> {text} fi'
    return text


def model(players, life):
    lines = [f'/* Free-for-all life family: {players} players, life {life} (bench/peers/ffa.rw) */',
             f'#define P {players}',
             f'#define L {life}',
             'byte life[P];  /* 0 = out of the game */',
             'byte turn;     /* the active player, always still in the game */',
             '',
             'active proctype ffa() {',
             '  d_step { ' + '; '.join(f'life[{p}] = L' for p in range(players)) + '; turn = 0 };',
             'end:',
             '  do']
    for t in range(players):
        advance = next_alive(players, t)
        for q in range(players):
            if q == t:
                continue
            for d in (1, 2, 3):
                lines.append(f'  :: d_step {{ turn == {t} && life[{q}] > 0 -> '
                             f'life[{q}] = (life[{q}] > {d} -> life[{q}] - {d} : 0); {advance} }}')
        others = ' || '.join(f'life[{q}] > 0' for q in range(players) if q != t)
        lines.append(f'  :: d_step {{ turn == {t} && ({others}) -> {advance} }}')
    lines += ['  od', '}', '']
    return '\n'.join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('players', type=int)
    ap.add_argument('life', type=int)
    ap.add_argument('-o', help='output file (default ffa_pP_lL.pml)')
    a = ap.parse_args()
    out = a.o or f'ffa_p{a.players}_l{a.life}.pml'
    with open(out, 'w') as f:
        f.write(model(a.players, a.life))
    print(out)


if __name__ == '__main__':
    main()
