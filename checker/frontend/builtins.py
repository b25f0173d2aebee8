"""The built-in functions and names: one table that the resolve pass types against and that
both engines implement (`checker.explicit.compile` and `checker.symbolic.builtins`; a test
checks that every entry is handled by both).

A surface name may have several entries (`in_game` of a player or of a team); the resolve pass
picks the entry from the argument types, so no engine ever guesses what it was given. Nullary
entries are the built-in names (`players`, `remaining`, ...).
"""
from __future__ import annotations

from dataclasses import dataclass

from .types import BOOL, INT, PLAYER, PLAYERS, TEAM, TEAMS, Ty


@dataclass(frozen=True)
class Builtin:
    key: str  # what the typed IR's Call names, unique
    name: str  # what the writer types
    params: tuple[Ty | str, ...]  # "any" (same type as the first), "set" (any set), "*" (repeat the last)
    result: Ty | str  # "first": the type of the first argument
    meaning: str
    reads: str = ""  # "status": who is out; "outcome": this step's outcome facts; "end": the end of the game
    needs_teams: bool = False


TABLE: tuple[Builtin, ...] = (
    # seating: fixed for an instance
    Builtin("team", "team", (PLAYER,), TEAM, "p's team", needs_teams=True),
    Builtin("seat", "seat", (PLAYER,), INT, "p's seat number, 0 for the first seat"),
    Builtin("player_at", "player_at", (INT,), PLAYER, "the player in seat i (taken round the table)"),
    Builtin("left", "left", (PLAYER, INT), PLAYER, "the player k seats to p's left"),
    Builtin("right", "right", (PLAYER, INT), PLAYER, "the player k seats to p's right"),
    Builtin("next", "next", (PLAYER,), PLAYER, "the player to p's left"),
    Builtin("across", "across", (PLAYER,), PLAYER, "the player directly across (an even number of players)"),
    Builtin("dist", "dist", (PLAYER, PLAYER), INT, "seats between p and q, the shorter way"),
    Builtin("dist_left", "dist_left", (PLAYER, PLAYER), INT, "seats from p to q going left"),
    Builtin("members", "members", (TEAM,), PLAYERS, "the players of team t", needs_teams=True),
    Builtin("opponents", "opponents", (PLAYER,), PLAYERS, "players not on p's team (all others without teams)"),
    Builtin("teammates", "teammates", (PLAYER,), PLAYERS, "p's teammates, p excluded (none without teams)"),
    # seating among the players still in the game
    Builtin("next_in_game", "next_in_game", (PLAYER,), PLAYER,
            "the nearest player still in the game to p's left (p itself if alone)", reads="status"),
    Builtin("prev_in_game", "prev_in_game", (PLAYER,), PLAYER,
            "the nearest player still in the game to p's right (p itself if alone)", reads="status"),
    Builtin("left_in_game", "left_in_game", (PLAYER, INT), PLAYER,
            "the k-th player still in the game to p's left, round the table as often as needed", reads="status"),
    Builtin("dist_in_game", "dist_in_game", (PLAYER, PLAYER), INT,
            "seats between p and q counting only players in the game, the shorter way", reads="status"),
    # statuses and outcomes
    Builtin("in_game_player", "in_game", (PLAYER,), BOOL, "p has not lost", reads="status"),
    Builtin("in_game_team", "in_game", (TEAM,), BOOL, "t has not lost and has a player in the game",
            reads="status", needs_teams=True),
    Builtin("lost_player", "lost", (PLAYER,), BOOL, "p has lost, earlier or in this step", reads="outcome"),
    Builtin("lost_team", "lost", (TEAM,), BOOL, "t has lost, earlier or in this step", reads="outcome",
            needs_teams=True),
    Builtin("won_player", "won", (PLAYER,), BOOL, "p has won", reads="outcome"),
    # "lost in this step", not earlier: outcome rules and triggers only (docs/language.md,
    # "Events and triggers")
    Builtin("lost_now_player", "lost_now", (PLAYER,), BOOL, "p has lost in this step (not earlier)", reads="outcome"),
    Builtin("lost_now_team", "lost_now", (TEAM,), BOOL, "t has lost in this step (not earlier)", reads="outcome",
            needs_teams=True),
    Builtin("won_team", "won", (TEAM,), BOOL, "t has won", reads="outcome", needs_teams=True),
    # a draw for some players only: they left the game with a draw (earlier or in this step)
    Builtin("drew_player", "drew", (PLAYER,), BOOL, "p has drawn, earlier or in this step", reads="outcome"),
    Builtin("drew_team", "drew", (TEAM,), BOOL, "t has drawn, earlier or in this step", reads="outcome",
            needs_teams=True),
    # values
    Builtin("size", "size", ("set",), INT, "the number of elements of a set"),
    Builtin("abs", "abs", (INT,), INT, "the absolute value"),
    Builtin("min", "min", (INT, INT, "*"), INT, "the smallest of two or more numbers"),
    Builtin("max", "max", (INT, INT, "*"), INT, "the largest of two or more numbers"),
    Builtin("after", "after", ("any", "any", "*"), "first",
            "the element after x in the list a, b, ... (the first after the last; x not listed is an evaluation error)"),
    # built-in names
    Builtin("players", "players", (), PLAYERS, "every player"),
    Builtin("remaining", "remaining", (), PLAYERS, "the players still in the game", reads="status"),
    Builtin("teams", "teams", (), TEAMS, "every team", needs_teams=True),
    Builtin("nplayers", "nplayers", (), INT, "the number of players"),
    Builtin("nteams", "nteams", (), INT, "the number of teams (0 without teams)"),
    Builtin("team_size", "team_size", (), INT, "the number of players per team (1 without teams)"),
    Builtin("game_over", "game_over", (), BOOL, "the game has ended, or must be over (never in a step or an outcome rule)",
            reads="end"),
    Builtin("game_drawn", "game_drawn", (), BOOL, "the game has ended in a draw", reads="end"),
    Builtin("game_finished", "game_finished", (), BOOL,
            "the game has ended by `finish`: without a winner and without a draw", reads="end"),
    Builtin("game_won", "game_won", (), BOOL, "the game has ended with a winner", reads="end"),
)

BY_KEY: dict[str, Builtin] = {b.key: b for b in TABLE}
FUNCTIONS: dict[str, list[Builtin]] = {}
NAMES: dict[str, Builtin] = {}
for _b in TABLE:
    if _b.params:
        FUNCTIONS.setdefault(_b.name, []).append(_b)
    else:
        NAMES[_b.name] = _b
# `p: player` and `t: team` read as "every player" and "every team" in a binder's domain
NAMES["player"] = BY_KEY["players"]
NAMES["team"] = BY_KEY["teams"]
# the built-ins that read the step being settled: outcome rules and triggers only (the resolver
# refuses them elsewhere), so an engine that runs neither need not implement them
STEP_ONLY = frozenset(b.key for b in TABLE if b.name == "lost_now")
