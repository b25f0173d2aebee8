"""The end marker: a state's last entry, what it says of the game's end.

`RUNNING` (the empty tuple) while the game goes on; `Ended` once it has ended, with who won
and whether it is a draw; `Gap` when it must be over but no outcome rule decides it. Each is a
tuple, so a state stays hashable, picklable and cheap; the end marker is tested by these
helpers, never by its shape or its first entry. Here in the front end because both engines and
the analyses read it, and the instance's state layout (checker.frontend.instances) names it.
Nothing prints or serializes a marker as it is: the reports describe it in words.
"""
from __future__ import annotations

from typing import NamedTuple

RUNNING = ()  # the game goes on (falsy: `if state[-1]` asks whether the game is over)


class Ended(NamedTuple):
    """The game has ended: the winning players' and teams' bit masks and whether it is a draw
    (nobody won and no draw: it ended without a winner, by `finish`)."""
    players: int
    teams: int
    draw: bool


class Gap(NamedTuple):
    """The game must be over, and no outcome rule says how: why it must be."""
    why: str


def has_ended(end) -> bool:
    """Whether the end marker records an outcome (not running, not a gap)."""
    return isinstance(end, Ended)


def is_gap(end) -> bool:
    return isinstance(end, Gap)
