"""One table of the language's semantics, evaluated by every engine: three columns.

Each row is an expression or a statement in the surface language, the model and the state it
is evaluated in, and the value the language (docs/language.md) gives it. The front end types
the text once; the closures (a `Compiler` closure on a `Ctx`), the generated successors (the
Python source a `Generator` writes for the node, run on the packed state in the namespace the
compiled machine gives its own code) and the Z3 engine (an `Encoder` term on `state_to_sym` of
the same state) each evaluate that one typed node, and all three must give the row's value.
The Z3 engine runs each row twice: building terms as bounded model checking does, and folding
them to Python literals on a state of Python literals as the replay of a trace does
(`Encoder(fold=True)`, `state_to_sym(..., folded=True)`); the generated successors
likewise run each row as the explorer generates it ("folded": closed subexpressions computed
once, at generation, by the closures) and with that folding off ("terms"), so that the
generator's own handlers compute constant rows too:


- expressions: a bool, an int, a player, team or enumeration member by name, "none", a set
  of names (or of numbers), or ERROR: the explicit closure raises EvalError and Z3's error
  condition simplifies to true (for every other row it must simplify to false);
- statements (rows whose text has a `;`): the changes to the state, the outcome facts of the
  step (`lost`, `won`, `draw`, `finish`) and the tagged statements that applied (`rules`: traces cite
  them, dead-rule judges by them), or ERROR / OVERFLOW: the explicit body raises EvalError /
  Overflow and Z3's error / overflow condition simplifies to true.

An expression row is typed as the left side of `invariant probe: (E) == (E)`, a statement row
as the body of `action probe do S end`, so every row goes through the whole front end.
"""
from __future__ import annotations

import z3
import pytest

from checker.engine import load_instances
from checker.explicit.codegen import BODY_FACTS, Generator, written_vars
from checker.explicit.codegen_runtime import namespace
from checker.explicit.compile import Compiler, Ctx, EvalError, Overflow
from checker.explicit.compiled import CompiledMachine
from checker.frontend import builtins as bi
from checker.frontend import typed as T
from checker.frontend.ends import has_ended
from checker.symbolic.encode import Encoder
from checker.symbolic.outcomes import CITED_KINDS, settle
from checker.symbolic.replay import statement_hits
from checker.symbolic.terms import SymSet, concrete, state_to_sym

ERROR = "error"
OVERFLOW = "overflow"
NONE = "none"

# ---------------------------------------------------------------- the models

MODELS = {
    # four players without teams, seated P1 P2 P3 P4 clockwise
    "solo": """
param N in 4..4
players N
var flag: bool = true
var x: 0..9 = 3
var turn: player = P1
var maybe: player? = none
var life(p: player): 0..20 = 10
var pick(k: 1..3): 0..9 = k
var dmg(p: player, k: 1..2): 0..9 = seat(p) * 2 + k
var marks: set player = {}
var phase: {main, combat, ending} = main
routine bump(k: 0..9) do
  x := k;
end
""",
    # teams A and B of two, seated alternately: A1 B1 A2 B2
    "teams": """
teams A, B size 2
var who: team = A
var pts(t: team): 0..5 = 0
var turn: player = A1
var maybe: player? = none
""",
}

# ---------------------------------------------------------------- the states
# Every variable not named keeps its initial value. `out`: players out of the game; `tout`: teams
# out; `lost` / `won`: outcome facts of the step being resolved (players or teams), which
# lost() and won() read.

STATES = {
    "solo": {
        # flag=true x=3 turn=P1 maybe=none life=10 each pick=1,2,3 marks={} phase=main, all in
        "start": {},
        "mid": {"flag": False, "x": 7, "turn": "P4", "maybe": "P2",
                "life": {"P1": 0, "P2": 5, "P3": 10, "P4": 20}, "pick": {1: 9, 2: 0, 3: 4},
                "marks": {"P1", "P3"}, "phase": "combat", "out": {"P2"}},
        "lonely": {"out": {"P2", "P3", "P4"}},
        "facts": {"out": {"P3"}, "lost": {"P1"}, "won": {"P4"}},
        # out without losing (docs/language.md, "Outcomes"): P1 drew, P2 won while the game went
        # on, P3 left with no result; P4 plays on and draws in this step
        "results": {"out": {"P1", "P2", "P3"}, "drew_out": {"P1"}, "won_out": {"P2"}, "left_out": {"P3"},
                    "drew": {"P4"}},
    },
    "teams": {
        # who=A pts=0,0 turn=A1 maybe=none, all in
        "start": {},
        "B1 out": {"who": "B", "pts": {"A": 2, "B": 5}, "turn": "B2", "maybe": "A2", "out": {"B1"}},
        "A gone": {"out": {"A1", "A2"}},  # both A players are out; team A has not lost
        "A lost": {"out": {"A1", "A2"}, "tout": {"A"}},
        "facts": {"lost": {"B"}, "won": {"A", "A1"}},
        "A drew": {"out": {"A1", "A2"}, "tout": {"A"}, "drew_out": {"A1", "A2", "A"}},
    },
}

# ---------------------------------------------------------------- the table
# (model, state, text, expected); a fifth item marks a known disagreement: xfail with that reason.

ROWS = [
    # Const, PlayerName, TeamName, Param
    ("solo", "start", "true", True),
    ("solo", "start", "42", 42),
    ("solo", "start", "none", NONE),
    ("solo", "start", "combat", "combat"),
    ("solo", "start", "P3", "P3"),
    ("teams", "start", "B", "B"),
    ("solo", "start", "N * 2", 8),
    # VarRef: scalar, indexed by player, team and number; an index outside its range
    ("solo", "start", "x", 3),
    ("solo", "mid", "flag", False),
    ("solo", "mid", "turn", "P4"),
    ("solo", "start", "maybe", NONE),
    ("solo", "mid", "maybe", "P2"),
    ("solo", "mid", "phase", "combat"),
    ("solo", "mid", "marks", {"P1", "P3"}),
    ("solo", "mid", "life[P4]", 20),
    ("solo", "start", "pick[2]", 2),
    ("solo", "start", "pick[x]", 3),
    ("solo", "mid", "pick[1]", 9),
    ("solo", "start", "pick[0]", ERROR),
    ("solo", "start", "pick[4]", ERROR),
    ("solo", "mid", "pick[x]", ERROR),  # x is 7
    # a variable of two indices (docs/language.md, "Several indices"): P1's are 1 2, P4's 7 8
    ("solo", "start", "dmg[P1, 1]", 1),
    ("solo", "start", "dmg[P3, 2]", 6),
    ("solo", "start", "dmg[turn, 2] + dmg[P4, 1]", 9),
    ("solo", "start", "dmg[P4, x - 1]", 8),
    ("solo", "start", "dmg[P1, 3]", ERROR),  # the second index outside 1..2 lands in no slot
    ("solo", "start", "dmg[P2, 0]", ERROR),
    ("solo", "start", "dmg[maybe, 1]", ERROR),
    ("solo", "start", "sum(p in players: dmg[p, 2])", 20),
    ("teams", "B1 out", "pts[who]", 5),
    ("teams", "B1 out", "pts[A]", 2),
    # Not, Neg, and the precedence the docs give
    ("solo", "mid", "not flag", True),
    ("solo", "start", "not 1 == 2", True),  # `not` is looser than comparisons
    ("solo", "start", "-x", -3),
    ("solo", "start", "- -x", 3),
    ("solo", "start", "2 + 3 * 4", 14),
    ("solo", "start", "2 - 3 - 4", -5),
    ("solo", "start", "12 / 2 / 3", 2),
    ("solo", "start", "true or false and false", True),
    # Logic, and short-circuit: the right side is evaluated only where it decides
    ("solo", "start", "true and x == 3", True),
    ("solo", "start", "true implies false", False),
    ("solo", "start", "not flag or x == 3", True),
    ("solo", "start", "false and 1 / 0 == 0", False),
    ("solo", "start", "true or 1 / 0 == 0", True),
    ("solo", "start", "false implies 1 / 0 == 0", True),
    ("solo", "start", "true and 1 / 0 == 0", ERROR),
    ("solo", "start", "false or 1 / 0 == 0", ERROR),
    ("solo", "start", "true implies 1 / 0 == 0", ERROR),
    ("solo", "start", "1 / 0 == 0 and false", ERROR),
    ("solo", "mid", "flag and pick[x] == 0", False),  # x is 7: the index is never read
    # Compare
    ("solo", "start", "x < 4", True),
    ("solo", "start", "x <= 2", False),
    ("solo", "start", "x > 3", False),
    ("solo", "start", "x >= 3", True),
    ("solo", "start", "x != 3", False),
    ("solo", "start", "turn == P1", True),
    ("solo", "mid", "phase == combat", True),
    ("solo", "mid", "flag == false", True),
    ("solo", "start", "maybe == none", True),
    ("solo", "mid", "maybe != none", True),
    ("solo", "mid", "marks == {P3, P1}", True),
    ("solo", "start", "{1, 2} == {2, 1, 1}", True),
    ("solo", "start", "{1, 2} != {1}", True),
    ("teams", "B1 out", "who != A", True),
    # Arith: / and % round down, as Python does; by zero is an error
    ("solo", "start", "7 / 2", 3),
    ("solo", "start", "-7 / 2", -4),
    ("solo", "start", "-7 % 2", 1),
    ("solo", "start", "7 / -2", -4),
    ("solo", "start", "7 % -2", -1),
    ("solo", "start", "-7 / -2", 3),
    ("solo", "start", "-7 % -2", -1),
    ("solo", "start", "-6 / 3", -2),
    ("solo", "start", "x * x - 10", -1),
    ("solo", "start", "x % 0", ERROR),
    ("solo", "start", "x / (x - 3)", ERROR),
    # SetOp
    ("solo", "mid", "marks + {P2}", {"P1", "P2", "P3"}),
    ("solo", "mid", "players - remaining", {"P2"}),
    ("solo", "mid", "remaining - {P1, P4}", {"P3"}),
    ("solo", "start", "{1, 2} + {2, 3}", {1, 2, 3}),
    ("solo", "start", "{1, 2, 3} - {2, 5}", {1, 3}),
    ("solo", "start", "{main} + {ending}", {"main", "ending"}),
    ("teams", "start", "teams - {A}", {"B"}),
    # Member
    ("solo", "mid", "P2 in remaining", False),
    ("solo", "mid", "P2 not in remaining", True),
    ("solo", "start", "2 in {1, 2}", True),
    ("solo", "start", "3 not in {1, 2}", True),
    ("solo", "start", "x in {1, 1 + 2}", True),
    ("solo", "mid", "phase in {combat, ending}", True),
    ("solo", "mid", "turn in opponents(P1)", True),
    ("solo", "start", "maybe in players", False),  # none is in no set
    ("solo", "start", "maybe in {player_at(x / 0)}", ERROR),  # ... but the set is still evaluated
    ("solo", "start", "maybe not in {player_at(x / 0)}", ERROR),
    ("teams", "start", "B in teams - {B}", False),
    # Ite: the branch not taken is not evaluated
    ("solo", "start", "if flag then 1 else 1 / 0 end", 1),
    ("solo", "mid", "if flag then 1 / 0 else 2 end", 2),
    ("solo", "start", "if x / 0 == 0 then 1 else 2 end", ERROR),
    ("solo", "start", "if flag then maybe else P2 end", NONE),
    ("solo", "mid", "if flag then P1 else if x > 5 then P3 else P4 end end", "P3"),
    ("solo", "start", "if flag then marks else players end", set()),
    ("solo", "start", "size(if flag then {1, 2} else {3} end)", 2),
    ("solo", "mid", "3 in (if flag then {1, 2} else {3} end)", True),
    # SetLit: `none` items add nothing
    ("solo", "start", "{maybe, P1}", {"P1"}),
    ("solo", "mid", "{maybe, P1}", {"P1", "P2"}),
    ("solo", "start", "{P1, none}", {"P1"}),
    ("solo", "start", "none in {none, P1}", False),
    ("solo", "start", "maybe not in {P1, none}", True),
    ("solo", "start", "{}", set()),
    ("teams", "start", "{B, A, B}", {"A", "B"}),
    # Quant: forall stops at the first false element, exists at the first true one
    ("solo", "start", "forall p in players: life[p] == 10", True),
    ("solo", "mid", "forall p in players: life[p] == 10", False),
    ("solo", "mid", "exists p in remaining: life[p] == 0", True),
    ("solo", "mid", "exists p in remaining: life[p] == 5", False),
    ("solo", "start", "forall k in 1..3: k != 2 and 6 / (3 - k) > 0", False),
    ("solo", "start", "forall k in 1..3: 6 / (3 - k) > 0", ERROR),
    ("solo", "start", "exists k in 1..3: 6 / (3 - k) == 6", True),
    ("solo", "start", "exists k in 1..3: 6 / (3 - k) == 7", ERROR),
    ("solo", "start", "forall p in {}: false", True),
    ("solo", "start", "exists k in 3..1: true", False),
    ("solo", "start", "forall m in {main, combat}: m != ending", True),
    ("solo", "start", "flag and forall p in players: exists q in players: q == next(p)", True),
    ("teams", "A gone", "forall p in members(A): lost(p)", True),
    # Aggregate: count, sum, min, max (min and max of nothing are 0)
    ("solo", "mid", "count(p in players: life[p] >= 10)", 2),
    ("solo", "mid", "sum(p in remaining: life[p])", 30),
    ("solo", "mid", "min(p in players: life[p])", 0),
    ("solo", "mid", "max(p in remaining: life[p])", 20),
    ("solo", "start", "min(k in 1..0: k)", 0),
    ("solo", "start", "max(p in {}: seat(p))", 0),
    ("solo", "start", "min(k in 2..4: k)", 2),
    ("solo", "start", "max(k in 2..4: 0 - k)", -2),
    ("solo", "start", "sum(k in 1..3: k * k)", 14),
    ("solo", "start", "sum(k in {1, 1, 2}: k)", 3),
    ("solo", "start", "count(k in 1..3: 6 / (3 - k) > 0)", ERROR),  # every element is evaluated
    ("solo", "start", "count(p in players: exists q in opponents(p): dist(p, q) == 2)", 4),
    ("teams", "B1 out", "sum(t in teams: pts[t])", 7),
    ("teams", "A gone", "count(t in teams: in_game(t))", 1),
    # min / max of two or more numbers (the aggregate keywords, called with values)
    ("solo", "start", "min(x, 5)", 3),
    ("solo", "mid", "max(x, 5)", 7),
    ("solo", "start", "min(x, 5, 1 - x)", -2),
    ("solo", "mid", "max(life[P1], life[P2], life[P3])", 10),
    ("solo", "start", "max(k in 1..3: min(k, 2))", 2),
    ("solo", "start", "min(x, 1 / 0)", ERROR),
    # SetComp: `{e | x in S: cond}`, e of the elements that pass; cond first, e only where it holds
    ("solo", "mid", "{next_in_game(p) | p in marks}", {"P3", "P4"}),
    ("solo", "mid", "{p | p in players: life[p] >= 10}", {"P3", "P4"}),
    ("solo", "mid", "{life[p] | p in remaining}", {0, 10, 20}),
    ("solo", "start", "{k * k | k in 1..3: k != 2}", {1, 9}),
    ("solo", "start", "{maybe | p in players}", set()),  # none adds nothing, as in a set literal
    ("solo", "mid", "{maybe | p in players}", {"P2"}),
    ("solo", "mid", "{m | m in {main, combat, ending}: m != phase}", {"main", "ending"}),
    ("teams", "start", "{team(p) | p in players: seat(p) < 2}", {"A", "B"}),
    ("solo", "start", "{6 / (3 - k) | k in 1..3}", ERROR),
    ("solo", "start", "{6 / (3 - k) | k in 1..3: k < 3}", {3, 6}),
    ("solo", "start", "{p | p in {}}", set()),
    ("solo", "mid", "size({seat(p) / 2 | p in players})", 2),
    ("solo", "mid", "P4 in {next_in_game(p) | p in marks}", True),
    # Narrow: a `player?` where a player is needed; none there is an error
    ("solo", "start", "next(maybe)", ERROR),
    ("solo", "mid", "next(maybe)", "P3"),
    ("solo", "start", "life[maybe]", ERROR),
    ("solo", "mid", "life[maybe]", 5),
    ("solo", "start", "seat(maybe) == 0", ERROR),
    ("solo", "mid", "in_game(maybe)", False),
    ("solo", "start", "maybe == none or in_game(maybe)", True),
    # the end of the game: a state being played is neither over nor drawn
    ("solo", "start", "game_over", False),
    ("solo", "start", "game_drawn", False),
    ("solo", "start", "game_finished", False),
    ("solo", "start", "game_won", False),
    # out without losing: a draw for some players, a win while the game goes on, leaving
    ("solo", "results", "lost(P1) or lost(P2) or lost(P3)", False),
    ("solo", "results", "in_game(P1) or in_game(P2) or in_game(P3)", False),
    ("solo", "results", "drew(P1)", True),
    ("solo", "results", "drew(P4)", True),  # draws in this step
    ("solo", "results", "drew(P2) or drew(P3)", False),
    ("solo", "results", "won(P2)", True),
    ("solo", "results", "won(P1) or won(P3)", False),
    ("solo", "results", "remaining", {"P4"}),
    ("solo", "results", "next_in_game(P1)", "P4"),
    ("solo", "start", "drew(P1)", False),
    ("teams", "A drew", "drew(A) and drew(A1)", True),
    ("teams", "A drew", "lost(A) or lost(A2) or in_game(A)", False),
    ("teams", "A drew", "drew(B)", False),
    ("teams", "A lost", "drew(A)", False),
    # argmax / argmin: the first best element; none of no players, an error of no numbers
    ("solo", "start", "argmax(p in players: life[p])", "P1"),
    ("solo", "start", "argmin(k in 1..3: (k - 2) * (k - 2))", 2),
    ("solo", "start", "argmax(p in {}: 1)", NONE),
    ("solo", "start", "argmin(k in 1..0: k)", ERROR),
    # ... only where it is evaluated: Z3's terms record its error under the path that reaches it
    ("solo", "mid", "flag and argmin(k in 1..0: k) == 1", False),
    ("solo", "start", "if flag then 1 else argmax(k in 1..0: k) end", 1),
    # seating
    ("solo", "start", "seat(P3)", 2),
    ("solo", "start", "player_at(5)", "P2"),
    ("solo", "start", "player_at(-1)", "P4"),
    ("solo", "start", "left(P1, 5)", "P2"),
    ("solo", "start", "left(P3, -1)", "P2"),
    ("solo", "start", "right(P1, 1)", "P4"),
    ("solo", "start", "right(P2, 6)", "P4"),
    ("solo", "start", "next(P4)", "P1"),
    ("solo", "start", "across(P2)", "P4"),
    ("solo", "start", "dist(P1, P4)", 1),
    ("solo", "start", "dist(P1, P3)", 2),
    ("solo", "start", "dist_left(P1, P4)", 3),
    ("solo", "start", "dist_left(P4, P1)", 1),
    ("solo", "start", "opponents(P2)", {"P1", "P3", "P4"}),
    ("solo", "start", "teammates(P2)", set()),
    ("solo", "start", "teammates(maybe)", ERROR),
    ("solo", "start", "size(teammates(player_at(1 / 0)))", ERROR),
    ("teams", "start", "teammates(maybe)", ERROR),
    ("teams", "start", "team(B2)", "B"),
    ("teams", "start", "seat(A2)", 2),
    ("teams", "start", "across(A1)", "A2"),
    ("teams", "start", "dist(A1, B2)", 1),
    ("teams", "start", "members(B)", {"B1", "B2"}),
    ("teams", "start", "opponents(A1)", {"B1", "B2"}),
    ("teams", "start", "teammates(B1)", {"B2"}),
    # seating among the players in the game (P2 out in "mid"; only P1 in, in "lonely")
    ("solo", "mid", "next_in_game(P1)", "P3"),
    ("solo", "mid", "next_in_game(P4)", "P1"),
    ("solo", "mid", "prev_in_game(P3)", "P1"),
    ("solo", "start", "prev_in_game(P1)", "P4"),
    ("solo", "lonely", "next_in_game(P1)", "P1"),
    ("solo", "lonely", "prev_in_game(P1)", "P1"),
    ("solo", "lonely", "next_in_game(P3)", "P1"),
    ("solo", "mid", "left_in_game(P4, 2)", "P3"),
    ("solo", "mid", "left_in_game(P1, 3)", "P1"),  # p counts when passed
    ("solo", "mid", "left_in_game(P1, 7)", "P3"),  # round the table twice
    ("solo", "lonely", "left_in_game(P1, 2)", "P1"),
    ("solo", "start", "dist_in_game(P1, P3)", 2),
    ("solo", "mid", "dist_in_game(P1, P3)", 1),
    ("solo", "mid", "dist_in_game(P4, P3)", 1),
    ("solo", "mid", "dist_in_game(P2, P4)", 2),
    ("solo", "lonely", "dist_in_game(P1, P1)", 0),
    # statuses and outcome facts
    ("solo", "mid", "in_game(P2)", False),
    ("solo", "mid", "in_game(P1)", True),
    ("solo", "mid", "lost(P2)", True),
    ("solo", "start", "lost(P3)", False),
    ("solo", "facts", "lost(P1)", True),  # lost in this step
    ("solo", "facts", "lost(P3)", True),  # lost earlier
    ("solo", "facts", "in_game(P1)", True),  # in the game until the step's losses apply
    ("solo", "facts", "won(P4)", True),
    ("solo", "facts", "won(P1)", False),
    ("teams", "B1 out", "lost(B1)", True),
    ("teams", "B1 out", "in_game(B)", True),
    ("teams", "A gone", "in_game(A)", False),  # no player of A is in the game
    ("teams", "A gone", "lost(A)", False),
    ("teams", "A lost", "lost(A)", True),
    ("teams", "A lost", "in_game(B)", True),
    ("teams", "facts", "lost(B)", True),
    ("teams", "facts", "won(A)", True),
    ("teams", "facts", "won(B)", False),
    ("teams", "facts", "won(A1)", True),
    # values
    ("solo", "mid", "size(marks)", 2),
    ("solo", "start", "size({1, 1, 2})", 2),
    ("solo", "mid", "size(remaining)", 3),
    ("solo", "start", "size({maybe, P1, P1})", 1),
    ("solo", "start", "abs(0 - 5)", 5),
    ("solo", "start", "abs(x)", 3),
    ("solo", "start", "after(phase, main, combat, ending)", "combat"),
    ("solo", "start", "after(ending, main, combat, ending)", "main"),
    ("solo", "start", "after(1, 1, 2, 1)", 2),  # after x's first place
    ("solo", "start", "after(maybe, none, P2)", "P2"),  # none listed: found like any value
    ("teams", "B1 out", "after(who, A, B)", "A"),
    # a value after() does not list has nothing after it: an error, never the first value
    ("solo", "start", "after(x, 1, 2)", ERROR),
    ("solo", "mid", "after(turn, P1, P3)", ERROR),
    ("solo", "start", "after(maybe, P1, P2)", ERROR),
    ("solo", "mid", "after(maybe, P1, P2)", "P1"),
    ("solo", "start", "maybe == none or after(maybe, P1, P2) == P1", True),
    ("solo", "start", "if maybe != none then after(maybe, P1, P2) else P3 end", "P3"),
    # built-in names
    ("solo", "start", "players", {"P1", "P2", "P3", "P4"}),
    ("solo", "mid", "remaining", {"P1", "P3", "P4"}),
    ("solo", "start", "nplayers", 4),
    ("solo", "start", "nteams", 0),
    ("solo", "start", "team_size", 1),
    ("teams", "start", "teams", {"A", "B"}),
    ("teams", "start", "nteams", 2),
    ("teams", "start", "team_size", 2),
    ("teams", "A lost", "remaining", {"B1", "B2"}),

    # ------------------------------------------------------------ statements
    # Assign: in order, each seeing the ones before; a value outside the type overflows
    ("solo", "start", "x := x + 1;", {"x": 4}),
    ("solo", "start", "x := 9;", {"x": 9}),
    ("solo", "start", "x := 10;", OVERFLOW),
    ("solo", "start", "x := x - 4;", OVERFLOW),
    ("solo", "start", "x := 1 / 0;", ERROR),
    # simultaneous assignment: every value and index is computed before any place is written
    ("solo", "start", "x, flag := 9, x == 9;", {"x": 9, "flag": False}),
    ("solo", "mid", "x, pick[1] := pick[1], x;", {"x": 9, "pick[1]": 7}),
    ("solo", "mid", "life[P1], life[P4] := life[P4], life[P1];", {"life[P1]": 20, "life[P4]": 0}),
    ("solo", "start", "turn, life[turn] := next(turn), 1;", {"turn": "P2", "life[P1]": 1}),
    ("solo", "mid", "life[turn], life[maybe] := 1, 2;", {"life[P4]": 1, "life[P2]": 2}),
    ("solo", "mid", "life[turn], life[P4] := 1, 2;", {"life[P4]": 2}),  # one place twice: the later wins
    ("solo", "start", "x, flag := 10, false;", OVERFLOW),
    ("solo", "start", "x, flag := 1 / 0, false;", ERROR),
    ("solo", "start", "life[maybe], x := 1, 2;", ERROR),
    ("solo", "start", "[S1] x, flag := 1, false;", {"x": 1, "flag": False, "rules": {"S1"}}),
    ("solo", "mid", "marks := {next_in_game(p) | p in marks};", {"marks": {"P3", "P4"}}),
    ("solo", "start", "marks := {next(p) | p in marks + {P1, P4}};", {"marks": {"P1", "P2"}}),
    # local names and routines: a value bound once, a block run where it is called
    ("solo", "start", "let y = x; x := 0; x := y + 1;", {"x": 4}),
    ("solo", "start", "bump(x + 1);", {"x": 4}),
    ("solo", "start", "bump(x); bump(x + 2);", {"x": 5}),
    ("solo", "start", "bump(1 / 0);", ERROR),
    ("solo", "start", "x := 1; x := x + 1;", {"x": 2}),
    ("solo", "start", "turn := next(turn); turn := next(turn);", {"turn": "P3"}),
    ("solo", "start", "life[P2] := 0;", {"life[P2]": 0}),
    ("solo", "start", "life[turn] := life[turn] - 3;", {"life[P1]": 7}),
    ("solo", "start", "life[P1] := 21;", OVERFLOW),
    ("solo", "start", "pick[3] := 9;", {"pick[3]": 9}),
    ("solo", "start", "pick[x] := 0;", {"pick[3]": 0}),
    ("solo", "start", "pick[4] := 1;", ERROR),
    ("solo", "start", "pick[x - 3] := 0;", ERROR),
    ("solo", "start", "life[maybe] := 1;", ERROR),
    ("solo", "mid", "life[maybe] := 1;", {"life[P2]": 1}),
    ("solo", "start", "maybe := turn;", {"maybe": "P1"}),
    ("solo", "mid", "maybe := none;", {"maybe": NONE}),
    ("solo", "start", "turn := maybe;", ERROR),
    ("solo", "mid", "marks := marks + {P4};", {"marks": {"P1", "P3", "P4"}}),
    ("solo", "start", "flag := not flag;", {"flag": False}),
    ("solo", "start", "dmg[P2, 2] := 0;", {"dmg[P2, 2]": 0}),
    ("solo", "mid", "dmg[turn, 1] := x;", {"dmg[P4, 1]": 7}),
    ("solo", "start", "dmg[P2, 3] := 0;", ERROR),
    ("solo", "start", "dmg[P1, 1], dmg[P1, 2] := dmg[P1, 2], dmg[P1, 1];", {"dmg[P1, 1]": 2, "dmg[P1, 2]": 1}),
    ("solo", "start", "dmg[P1, 2] := dmg[P1, 2] + 8;", OVERFLOW),
    ("solo", "mid", "phase := after(phase, main, combat, ending);", {"phase": "ending"}),
    ("solo", "start", "maybe := after(maybe, P1, P2);", ERROR),
    ("solo", "start", "if maybe != none then maybe := after(maybe, P1, P2); end", {}),
    ("teams", "start", "pts[who] := pts[who] + 5;", {"pts[A]": 5}),
    ("teams", "B1 out", "pts[who] := pts[who] + 1;", OVERFLOW),
    ("teams", "start", "who := team(next(turn));", {"who": "B"}),
    # If / elif / else: conditions in order, the first that holds runs
    ("solo", "start", "if x > 5 then x := 1; elif x > 2 then x := 2; else x := 3; end", {"x": 2}),
    ("solo", "mid", "if x > 5 then x := 1; elif x > 2 then x := 2; else x := 3; end", {"x": 1}),
    ("solo", "start", "if x > 5 then x := 1; elif x > 4 then x := 2; else x := 3; end", {"x": 3}),
    ("solo", "start", "if true then x := 1; elif 1 / 0 == 0 then x := 2; end", {"x": 1}),
    ("solo", "start", "if false then x := 1; elif 1 / 0 == 0 then x := 2; end", ERROR),
    ("solo", "start", "if false then x := 1 / 0; end", {}),
    ("solo", "start", "if flag then x := 10; end", OVERFLOW),
    ("solo", "mid", "if flag then x := 10; end", {}),
    ("solo", "start", "if maybe == none then lose turn; else win maybe; end", {"lost": {"P1"}}),
    ("solo", "mid", "if maybe == none then lose turn; else win maybe; end", {"won": {"P2"}}),
    # Forall: the domain is taken once; each pass sees the passes before
    ("solo", "start", "forall p in players do life[p] := life[p] + 1; end",
     {"life[P1]": 11, "life[P2]": 11, "life[P3]": 11, "life[P4]": 11}),
    ("solo", "start", "forall k in 1..3 do x := x + k; end", {"x": 9}),
    ("solo", "mid", "forall k in 1..3 do x := x + k; end", OVERFLOW),
    ("solo", "mid", "forall p in remaining do life[p] := 1; end", {"life[P1]": 1, "life[P3]": 1, "life[P4]": 1}),
    ("solo", "mid", "forall p in marks do marks := marks - {p} + {next(p)}; end", {"marks": {"P2", "P4"}}),
    ("solo", "start", "forall k in 1..3 do pick[k + 1] := 0; end", ERROR),
    ("solo", "start", "forall p in {} do x := 1 / 0; end", {}),
    ("teams", "start", "forall t in teams do pts[t] := size(members(t)); end", {"pts[A]": 2, "pts[B]": 2}),
    # OutcomeStmt: facts of the step, for outcome resolution
    ("solo", "start", "lose P2;", {"lost": {"P2"}}),
    ("solo", "start", "win turn;", {"won": {"P1"}}),
    ("solo", "start", "draw;", {"draw": True}),
    ("solo", "start", "lose maybe;", ERROR),
    ("solo", "start", "lose P1; win P2; draw;", {"lost": {"P1"}, "won": {"P2"}, "draw": True}),
    # finish: the game ends with no winner and no draw; it is a fact of its own, not a draw
    ("solo", "start", "finish;", {"finish": True}),
    ("solo", "start", "lose P3; finish;", {"lost": {"P3"}, "finish": True}),
    ("solo", "start", "if x > 5 then finish; else draw; end", {"draw": True}),
    # a draw for some players only, and leaving with no result: facts of their own
    ("solo", "start", "draw P2;", {"drew": {"P2"}}),
    ("solo", "start", "draw P2; lose P3;", {"drew": {"P2"}, "lost": {"P3"}}),
    ("solo", "start", "leave turn;", {"left": {"P1"}}),
    ("solo", "start", "leave maybe;", ERROR),
    ("teams", "start", "draw who; leave B;", {"drew": {"A"}, "left": {"B"}}),
    ("solo", "start", "forall p in opponents(turn) do lose p; end", {"lost": {"P2", "P3", "P4"}}),
    ("teams", "start", "lose A;", {"lost": {"A"}}),
    ("teams", "B1 out", "win team(turn); lose turn;", {"won": {"B"}, "lost": {"B2"}}),
    # tagged statements: a tagged `if` applies when a branch runs (an `else` is one), any other
    # tagged statement whenever it runs
    ("solo", "start", "[S1] if x > 5 then x := 1; end", {}),
    ("solo", "mid", "[S1] if x > 5 then x := 1; end", {"x": 1, "rules": {"S1"}}),
    ("solo", "start", "[S1] if x > 5 then x := 1; else x := 2; end", {"x": 2, "rules": {"S1"}}),
    ("solo", "start", "[S1] if x > 5 then x := 1; elif x > 4 then x := 2; end", {}),
    ("solo", "start", "if x > 5 then [S1] x := 1; elif x > 2 then [S2] x := 2; end", {"x": 2, "rules": {"S2"}}),
    ("solo", "start", "forall k in 1..3 do [S1] if k == 2 then x := k; end end", {"x": 2, "rules": {"S1"}}),
    ("solo", "start", "forall k in 1..3 do [S1] if k == 5 then x := k; end end", {}),
    ("solo", "start", "[S1] forall p in {} do x := 1; end", {"rules": {"S1"}}),
    ("solo", "start", "[S1] let y = x; x := y + 1;", {"x": 4, "rules": {"S1"}}),
    ("solo", "start", "[S1] if flag then [S2] lose turn; end", {"lost": {"P1"}, "rules": {"S1", "S2"}}),
    # lost_now: lost in the step being settled, not before (the "facts" state: P3 was out when the
    # step began, P1 lost in it); lost() is both
    ("solo", "facts", "lost_now(P1)", True),
    ("solo", "facts", "lost_now(P3)", False),
    ("solo", "facts", "lost(P3) and not lost_now(P3)", True),
    ("solo", "facts", "lost_now(P2)", False),
    ("solo", "facts", "count(p in players: lost_now(p))", 1),
    ("solo", "mid", "lost_now(P2)", False),
    ("teams", "facts", "lost_now(B)", True),
    ("teams", "A lost", "lost_now(A)", False),
    ("teams", "facts", "lost_now(A)", False),
    # a label (`name: statement`, for `replace` in a reading) changes nothing the statement does;
    # tags before or after it belong to the statement
    ("solo", "start", "set_x: x := 1;", {"x": 1}),
    ("solo", "start", "[S1] set_x: x := 1;", {"x": 1, "rules": {"S1"}}),
    ("solo", "start", "set_x: [S1] if x > 5 then x := 1; else x := 2; end", {"x": 2, "rules": {"S1"}}),
    ("solo", "start", "forall k in 1..3 do pick: [S1] if k == 2 then x := k; end end", {"x": 2, "rules": {"S1"}}),
    ("solo", "start", "if x > 2 then inner: [S2] lose turn; end", {"lost": {"P1"}, "rules": {"S2"}}),
]

# ---- lets that name a place (docs/language.md, "A let that names a variable"): an assignment to
# `score(p)` assigns the variable the let names, its index read where the assignment stands
MODELS["teams"] += "let score(p: player) = pts[team(p)]\nlet mine = pts[team(turn)]\n"
ROWS += [
    ("teams", "start", "score(turn) := score(turn) + 2;", {"pts[A]": 2}),
    ("teams", "B1 out", "score(turn) := 0;", {"pts[B]": 0}),
    ("teams", "B1 out", "mine := mine - 1;", {"pts[B]": 4}),
    ("teams", "start", "score(A1), score(B1) := score(B1) + 1, score(A1) + 2;", {"pts[A]": 1, "pts[B]": 2}),
    ("teams", "start", "turn := B1; score(turn) := 3;", {"turn": "B1", "pts[B]": 3}),
    ("teams", "start", "score(maybe) := 1;", ERROR),
    ("teams", "B1 out", "score(turn) := 6;", OVERFLOW),
]

# ---- numbers in steps (docs/language.md, "Large numbers"): `gold` is the document's 0..3000
# in steps of 1000, held as 0..3; the resolve pass divides every constant that meets it by 1000,
# so both engines read (and these rows give) the numbers in steps
MODELS["solo"] += "var gold: 0..3000 in steps of 1000 = 2000\n"
ROWS += [
    ("solo", "start", "gold == 2000", True),
    ("solo", "start", "gold > 1000 and gold < 3000", True),
    ("solo", "start", "gold / 1000", 2),
    ("solo", "start", "gold / 2000", 1),
    ("solo", "start", "(gold + 1000) % 2000 == 1000", True),
    ("solo", "start", "gold * x == 6000", True),
    ("solo", "start", "-gold == 0 - 2000", True),
    ("solo", "start", "max(gold, 3000) == 3000 and min(gold, 0) == 0 and abs(-gold) == 2000", True),
    ("solo", "start", "(if flag then gold else 0 end) == 2000", True),
    ("solo", "start", "sum(k in 1..3: gold) == 6000", True),
    ("solo", "start", "gold / (gold - 2000)", ERROR),
    ("solo", "start", "gold == x * 1000 - 1000", True),  # a plain number times a multiple of the step
    ("solo", "start", "gold < (if flag then 1000 * x else 0 end)", True),
    ("solo", "start", "gold := x * 1000;", {"gold": 3}),
    ("solo", "mid", "gold := x * 1000;", OVERFLOW),  # x is 7
    ("solo", "start", "gold := gold + 1000;", {"gold": 3}),
    ("solo", "start", "gold := 0;", {"gold": 0}),
    ("solo", "start", "gold := gold * 2;", OVERFLOW),
    ("solo", "start", "gold := gold - 3000;", OVERFLOW),
]


# ---------------------------------------------------------------- phases (docs/language.md, "Phases")
# A statement row is an action's body, and every action's body ends with the phase chain: after
# the row's statements, the current phase ends if its condition holds (its `when ... ends`
# blocks, the next phase, that phase's `when ... starts` blocks), then the next one may end too,
# each phase at most once per step.

MODELS["phased"] = """
players 2
var passes: 0..2 = 0
var skip: bool = false
var log: 0..9 = 1
phases step [P] {
  main [M] ends when passes == 2
  combat [C] ends when skip
  ending [E] ends when true
}
when main starts [WS] do log := log + 1; end
when ending ends [WE] do log := log * 2; end
"""
STATES["phased"] = {
    "main": {},  # step=main passes=0 skip=false log=1
    "combat": {"step": "combat"},
    "ending": {"step": "ending"},
}
ROWS += [
    ("phased", "combat", "step", "combat"),
    ("phased", "combat", "step == combat", True),
    ("phased", "main", "passes := 1;", {"passes": 1}),  # main's condition does not hold: no phase ends
    ("phased", "main", "passes := 2;", {"passes": 2, "step": "combat", "rules": {"M"}}),
    # a chain: main ends, combat ends at once, ending ends (log 1 * 2), main starts (+ 1); main's
    # condition still holds, but main already ended in this step: it stays (each phase ends once)
    ("phased", "main", "passes := 2; skip := true;",
     {"passes": 2, "skip": True, "step": "main", "log": 3, "rules": {"M", "C", "E", "WE", "WS"}}),
    ("phased", "combat", "skip := true;", {"skip": True, "step": "main", "log": 3, "rules": {"C", "E", "WE", "WS"}}),
    # the phase ends after the step's statements: `when ending ends` doubles the 0 they wrote
    ("phased", "ending", "log := 0;", {"log": 1, "step": "main", "rules": {"E", "WE", "WS"}}),
    ("phased", "ending", "log := 5;", OVERFLOW),  # a `when` block is part of the step: 5 * 2 overflows
]

# ---------------------------------------------------------------- a match of games (docs/language.md)
# A statement row is a game action's body: after its statements (and phases), the game's results
# are judged in the order declared, the first that holds decides, and only while a game is played;
# the game's variables then hold their initial values again (the next game's), the match's persist.

MODELS["matched"] = """
players 2
var life(p: player): 0..1 = 1
match {
  var wins(p: player): 0..2 = 0
  var draws: 0..2 = 0
  game drawn [D] when life[P1] == 0 and life[P2] == 0 do draws := draws + 1; end
  game won by player p [W] when life[next(p)] == 0 do wins[p] := wins[p] + 1; end
}
"""
STATES["matched"] = {
    "playing": {},  # life 1 each, no wins, a game is played
    "between": {"between_games": True, "wins": {"P1": 1, "P2": 0}},
}
ROWS += [
    ("matched", "playing", "life[P2] := 0;", {"between_games": True, "wins[P1]": 1, "rules": {"W"}}),
    ("matched", "playing", "life[P1] := 0;", {"between_games": True, "wins[P2]": 1, "rules": {"W"}}),
    # both would win, but `game drawn` is declared first: it decides
    ("matched", "playing", "life[P1] := 0; life[P2] := 0;", {"between_games": True, "draws": 1, "rules": {"D"}}),
    ("matched", "between", "life[P2] := 0;", {"life[P2]": 0}),  # between games no result is judged
    ("matched", "between", "between_games", True),
]

def _params():
    out = []
    for row in ROWS:
        model, state, text, expected, *why = row
        marks = [pytest.mark.xfail(strict=True, reason=why[0])] if why else []
        out.append(pytest.param(model, state, text, expected, marks=marks, id=f"{model}|{state}|{text}"))
    return out


def is_statement(text: str) -> bool:
    return ";" in text


# ---------------------------------------------------------------- typing a row

@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    folder = tmp_path_factory.mktemp("probes")
    _probes: dict = {}

    def typed(model: str, text: str):
        """(instance, typed node) for an expression row, (instance, statements) for a statement row."""
        key = (model, text)
        if key not in _probes:
            path = folder / f"probe{len(_probes)}.rw"
            if is_statement(text):
                path.write_text(MODELS[model] + f"action probe do {text} end\n", encoding="utf-8")
                (inst,) = load_instances(str(path))
                _probes[key] = inst, inst.model.actions[0].body
            elif "lost_now" in text:  # reads the step being settled: only outcome rules and triggers may
                path.write_text(MODELS[model] + f"outcome probe: draw when ({text}) == ({text})\n", encoding="utf-8")
                (inst,) = load_instances(str(path))
                _probes[key] = inst, inst.model.outcomes[0].cond.left
            else:
                path.write_text(MODELS[model] + f"invariant probe: ({text}) == ({text})\n", encoding="utf-8")
                (inst,) = load_instances(str(path))
                _probes[key] = inst, inst.model.invariants[0].cond.left
        return _probes[key]
    return typed


# ---------------------------------------------------------------- states and values in words

def _index_of(inst, ty_kind, name):
    if ty_kind == "player":
        return -1 if name == NONE else inst.players.index(name)
    if ty_kind == "team":
        return inst.teams.index(name)
    raise AssertionError(ty_kind)


def _encode(inst, var, value):
    """A slot value from its description."""
    k = var.type.kind
    if k in ("bool", "int"):
        return value
    if k in ("player", "team"):
        return _index_of(inst, k, value)
    if k == "enum":
        return var.type.members.index(value)
    if k == "set":
        return sum(1 << inst.players.index(p) for p in value)
    raise AssertionError(k)


def make_state(inst, model: str, state: str):
    """(slot tuple, out mask, team-out mask, facts) of a named state."""
    desc = STATES[model][state]
    slots = []
    for var in inst.vars:
        keys = var.index_keys(inst) if var.indexed else [None]
        given = desc.get(var.name)
        for j, key in enumerate(keys):
            if given is None:
                slots.append(_initial(inst, var, j))
                continue
            if key is None:
                slots.append(_encode(inst, var, given))
            else:
                lookup = int(key) if var.indexed == "int" else key
                slots.append(_encode(inst, var, given[lookup]))
    out = sum(1 << inst.players.index(p) for p in desc.get("out", ()))
    tout = sum(1 << inst.teams.index(t) for t in desc.get("tout", ()))
    # why players (teams) are out without having lost: the bits above who is out
    for why, key in enumerate(("drew_out", "won_out", "left_out"), 1):
        pm, tm = _masks(inst, desc.get(key, ()))
        out |= pm << (why * inst.nplayers)
        tout |= tm << (why * inst.nteams)
    return tuple(slots), out, tout, {k: set(desc.get(k, ())) for k in ("lost", "won", "drew")}


def _initial(inst, var, j):
    """A variable's initial value in slot j (the models' initial values are constant or the index)."""
    c = Ctx([])
    comp = Compiler(inst)
    if var.info.index is not None:
        comp.cell(var.info.index.binder)[0] = j + var.index_base
    return comp.expr(var.info.init)(c)


def _masks(inst, names):
    """(players mask, teams mask) of a set of player and team names."""
    p = sum(1 << inst.players.index(x) for x in names if x in inst.players)
    t = sum(1 << inst.teams.index(x) for x in names if x in inst.teams)
    return p, t


def in_words(inst, ty, v):
    """A value of type `ty` as the table writes it."""
    if ty.kind in ("bool", "int"):
        return v
    if ty.kind in ("player", "none"):
        return NONE if v == -1 else inst.players[v]
    if ty.kind == "team":
        return inst.teams[v]
    if ty.kind == "enum":
        return ty.members[v]
    if ty.kind == "set":
        if ty.elem.kind == "int":
            return set(v)
        names = inst.players if ty.elem.kind == "player" else inst.teams if ty.elem.kind == "team" else ty.elem.members
        return {names[i] for i in range(len(names)) if v >> i & 1}
    raise AssertionError(ty)


def _z3_plain(v):
    """A Z3 value of a concrete state as the explicit engine's value (sets as masks/frozensets)."""
    if isinstance(v, SymSet):
        bits = [concrete(c) for c in v.elems]
        assert None not in bits, f"set membership not concrete: {v.elems}"
        if v.kind == "int":
            vals = [concrete(x) for x in v.values]
            return frozenset(x for x, b in zip(vals, bits) if b)
        return sum(1 << i for i, b in enumerate(bits) if b)
    c = concrete(v)
    assert c is not None, f"not a concrete value: {z3.simplify(v)}"
    return c


def state_in_words(inst, vals) -> dict:
    """Every slot by name (`x`, `life[P2]`), its value in words."""
    out = {}
    for var in inst.vars:
        keys = var.index_keys(inst) if var.indexed else [None]
        for j, key in enumerate(keys):
            v = vals[var.offset + j]
            name = var.name if key is None else f"{var.name}[{key}]"
            if var.type.kind == "set":
                out[name] = {p for i, p in enumerate(inst.players) if v >> i & 1}
            elif var.type.kind in ("int", "bool"):
                out[name] = v
            else:
                out[name] = inst.show_value(var, v)
    return out


def expected_after(inst, pre, expected: dict) -> dict:
    """The whole post state and facts the row describes: the pre state with its changes."""
    want = state_in_words(inst, pre)
    facts = {"lost": set(), "won": set(), "draw": False, "finish": False, "rules": set(), "drew": set(), "left": set()}
    for k, v in expected.items():
        if k in facts:
            facts[k] = v
        else:
            assert k in want, f"no slot {k}"
            want[k] = v
    return {**want, **facts}


# ---------------------------------------------------------------- the engines

def explicit_ctx(inst, slots, out, tout, facts):
    c = Ctx(list(slots), out, tout)
    c.lp, c.lt = _masks(inst, facts["lost"])
    c.wp, c.wt = _masks(inst, facts["won"])
    c.dp, c.dt = _masks(inst, facts["drew"])
    return c


def symbolic_state(inst, slots, out, tout, facts, fold=False):
    """The state as the Z3 engine reads it: Z3 literals, or Python ones where it folds (as the
    replay's states are)."""
    st = state_to_sym(inst, tuple(slots) + (out, tout, ()), folded=fold)
    lit = bool if fold else (lambda b: z3.BoolVal(bool(b)))
    for attr, names in (("l", facts["lost"]), ("w", facts["won"]), ("d", facts["drew"])):
        pm, tm = _masks(inst, names)
        setattr(st, attr + "p", [lit(pm >> i & 1) for i in range(inst.nplayers)])
        setattr(st, attr + "t", [lit(tm >> i & 1) for i in range(inst.nteams)])
    return st


def eval_expression(inst, node, slots, out, tout, facts, fold=False):
    """(explicit value or ERROR, Z3 value or ERROR), each in words."""
    try:
        mine = in_words(inst, node.type, Compiler(inst).expr(node)(explicit_ctx(inst, slots, out, tout, facts)))
    except EvalError:
        mine = ERROR
    enc = Encoder(inst, fold)
    value, err = enc.checked(lambda: enc.expr(node, symbolic_state(inst, slots, out, tout, facts, fold), {}))
    failed = concrete(err)
    assert failed in (True, False), f"Z3's error condition is not concrete: {err}"
    theirs = ERROR if failed else in_words(inst, node.type, _z3_plain(value))
    return mine, theirs


def eval_statements(inst, body, slots, out, tout, facts, fold=False):
    """(explicit post state or ERROR / OVERFLOW, Z3 post state or ERROR / OVERFLOW)."""
    c = explicit_ctx(inst, slots, out, tout, facts)
    try:
        Compiler(inst).stmts(body)(c)
        mine = {**state_in_words(inst, c.vals),
                "lost": _names(inst, c.lp, c.lt), "won": _names(inst, c.wp, c.wt), "draw": c.draw,
                "finish": c.fin, "rules": _tags(inst, c.hits),
                "drew": _names(inst, c.dp, c.dt), "left": _names(inst, c.xp, c.xt)}
    except Overflow:
        mine = OVERFLOW
    except EvalError:
        mine = ERROR
    enc = Encoder(inst, fold)
    st = enc.stmts(body, symbolic_state(inst, slots, out, tout, facts, fold), {})
    error, overflow = concrete(st.error), concrete(st.overflow)
    assert error in (True, False) and overflow in (True, False), "Z3's failure conditions are not concrete"
    if error:
        theirs = ERROR
    elif overflow:
        theirs = OVERFLOW
    else:
        vals = []
        for var in inst.vars:
            vals += [_z3_plain(t) for t in st.vals[var.name]]
        bits = {f: sum(1 << i for i, b in enumerate(getattr(st, f)) if concrete(b))
                for f in ("lp", "lt", "wp", "wt", "dp", "dt", "xp", "xt")}
        theirs = {**state_in_words(inst, vals), "lost": _names(inst, bits["lp"], bits["lt"]),
                  "won": _names(inst, bits["wp"], bits["wt"]), "draw": bool(concrete(st.draw)),
                  "finish": bool(concrete(st.fin)), "rules": _tags(inst, statement_hits(inst, st)),
                  "drew": _names(inst, bits["dp"], bits["dt"]), "left": _names(inst, bits["xp"], bits["xt"])}
    return mine, theirs, error, overflow


# ---- the generated successors (checker.explicit.codegen), the third column
# The explorer's fast machine runs no closures: it runs source a `Generator` writes per
# instance, on packed states. The smallest honest harness: the row's node compiled by a
# Generator into one function of the packed state (the same locals `x<entry>`, `out`, `tout`
# an action's function unpacks), executed in the namespace `codegen_runtime.namespace` gives a
# compiled machine's code; the state packed, and a statement's post state unpacked, by the
# compiled machine's own generated `pack` and `unpack`. The step's outcome facts are what a
# body reads (`BODY_FACTS`: locals, set here from the row's state); a guard reads literal 0s,
# the same values wherever a state has no facts of the step, and the facts rows need a body.
# What an action's function adds around its body (binding loops, the guard's shortcuts, the
# resolution key) is tests/test_compiled.py's: it explores every spec with both machines.

class Unfolded(Generator):
    """The generator with the folding of closed subexpressions to literals turned off: the
    handlers (`x_Arith`, `b_left`...) then compute what the closures would have folded."""

    def fold(self, e):
        return None


def generated_only(node) -> str:
    """Why the generated successors never run `node`, or "" where they may. lost_now()
    (builtins.STEP_ONLY) is read only by outcome rules and triggers, which the closures run
    when a step is settled (CompiledMachine hands settling to Machine.settle): the generator
    has no handler for it, by design (codegen's `_BUILTIN` exempts it)."""
    if any(isinstance(n, T.Call) and n.func in bi.STEP_ONLY for n in T.walk(node)):
        return "reads lost_now(), which only the settling of a step (the closures) evaluates"
    return ""


def _generated_function(inst, gen, lines: list[str]):
    """`probe(state, lp, lt, wp, wt, dp, dt)`: `lines` after the packed state's unpacking."""
    header = ", ".join([f"x{f.entry}" for f in gen.fields] + ["out", "tout", "_end"])
    src = "\n".join(["def probe(state, lp, lt, wp, wt, dp, dt):", f"    {header}, = state"] + lines)
    ns = namespace(inst, gen, {}, None)
    exec(compile(src, "<semantics table: generated>", "exec"), ns)  # noqa: S102 - the generator's own source
    return ns["probe"]


def _generated_args(inst, m, slots, out, tout, facts) -> tuple:
    packed = m.pack(tuple(slots) + (out, tout, ()))
    lp, lt = _masks(inst, facts["lost"])
    wp, wt = _masks(inst, facts["won"])
    dp, dt = _masks(inst, facts["drew"])
    return packed, lp, lt, wp, wt, dp, dt


def generated_expression(inst, node, slots, out, tout, facts, fold=True):
    """The generated code's value of an expression, or ERROR, in words."""
    m = CompiledMachine(inst)
    gen = Generator(inst) if fold else Unfolded(inst)
    gen.facts = BODY_FACTS
    probe = _generated_function(inst, gen, [f"    return {gen.expr(node)}"])
    try:
        return in_words(inst, node.type, probe(*_generated_args(inst, m, slots, out, tout, facts)))
    except EvalError:
        return ERROR


def generated_statements(inst, body, slots, out, tout, facts, fold=True):
    """The generated body's post state and facts, or ERROR / OVERFLOW: the body as an action's
    function runs it, on copies `y<entry>` of the entries it writes, its hits in `hits`."""
    m = CompiledMachine(inst)
    gen = Generator(inst) if fold else Unfolded(inst)
    written = written_vars(body)
    gen.written = {f"x{f.entry}": f"y{f.entry}" for f in gen.fields if f.var.name in written}
    gen.facts = BODY_FACTS
    gen.places = {}
    lines = [f"    {y} = {x}" for x, y in gen.written.items()]
    lines += ["    hits = []", "    xp = xt = 0", "    draw = fin = False"]
    lines += gen.stmts(body, "    ")
    post = "".join(gen.written.get(f"x{f.entry}", f"x{f.entry}") + ", " for f in gen.fields)
    lines.append(f"    return ({post}out, tout, _end), hits, lp, lt, wp, wt, dp, dt, xp, xt, draw, fin")
    probe = _generated_function(inst, gen, lines)
    try:
        post, hits, lp, lt, wp, wt, dp, dt, xp, xt, draw, fin = probe(*_generated_args(inst, m, slots, out, tout, facts))
    except Overflow:
        return OVERFLOW
    except EvalError:
        return ERROR
    return {**state_in_words(inst, m.unpack(post)[:-3]), "lost": _names(inst, lp, lt), "won": _names(inst, wp, wt),
            "draw": draw, "finish": fin, "rules": _tags(inst, hits), "drew": _names(inst, dp, dt),
            "left": _names(inst, xp, xt)}


def _tags(inst, rids) -> set:
    return {t for r in rids for t in inst.model.rules[r].tags}


def _names(inst, pmask, tmask):
    return {p for i, p in enumerate(inst.players) if pmask >> i & 1} | {t for i, t in enumerate(inst.teams) if tmask >> i & 1}


# ---------------------------------------------------------------- the tests

@pytest.mark.parametrize("fold", [False, True], ids=["terms", "folded"])
@pytest.mark.parametrize("model, state, text, expected", _params())
def test_every_engine_gives_the_documented_value(probe, model, state, text, expected, fold):
    inst, node = probe(model, text)
    slots, out, tout, facts = make_state(inst, model, state)
    # the generated successors' column, where they may run the row (`generated_only` says why not)
    skip_generated = generated_only(node)
    if not is_statement(text):
        explicit, symbolic = eval_expression(inst, node, slots, out, tout, facts, fold)
        assert same(explicit, expected), f"explicit engine: {explicit!r}"
        if not skip_generated:
            generated = generated_expression(inst, node, slots, out, tout, facts, fold)
            assert same(generated, expected), f"generated successors: {generated!r}"
        assert same(symbolic, expected), f"Z3 engine: {symbolic!r}"
        return
    explicit, symbolic, error, overflow = eval_statements(inst, node, slots, out, tout, facts, fold)
    generated = None if skip_generated else generated_statements(inst, node, slots, out, tout, facts, fold)
    if expected in (ERROR, OVERFLOW):
        assert explicit == expected, f"explicit engine: {explicit!r}"
        assert skip_generated or generated == expected, f"generated successors: {generated!r}"
        assert (error if expected == ERROR else overflow) is True, f"Z3 engine: error={error} overflow={overflow}"
        return
    want = expected_after(inst, slots, expected)
    assert explicit == want, f"explicit engine: {explicit!r}"
    assert skip_generated or generated == want, f"generated successors: {generated!r}"
    assert symbolic == want, f"Z3 engine: {symbolic!r}"


def test_the_generated_column_skips_only_the_rows_it_never_runs(probe):
    # every row the generated successors skip reads lost_now(), and every row that reads it is
    # skipped: the third column leaves out nothing else, silently or not
    skipped = {text for model, _, text, *_ in ROWS if generated_only(probe(model, text)[1])}
    assert skipped == {text for _, _, text, *_ in ROWS if "lost_now" in text}


def same(got, want) -> bool:
    """Equal and of the same kind: true is not 1."""
    return got == want and isinstance(got, bool) == isinstance(want, bool)


def _typed_trees(probe):
    for model, state, text, *_ in ROWS:
        yield probe(model, text)[1]


def test_every_builtin_of_the_table_is_a_row(probe):
    used = {n.func for tree in _typed_trees(probe) for n in T.walk(tree) if isinstance(n, T.Call)}
    assert {b.key for b in bi.TABLE} - used == set()


def test_every_typed_node_kind_is_in_a_row(probe, signal_probe):
    seen = {type(n) for tree in _typed_trees(probe) for n in T.walk(tree)}
    # a `signal` does nothing until the step settles: its rows are the settled steps' (SIGNAL_ROWS)
    seen |= {type(n) for _, text, _ in SIGNAL_ROWS for n in T.walk(signal_probe(text).model.actions[0].body)}
    assert set(T.KINDS) - seen == set()


def test_the_table_has_at_least_100_rows_over_every_model_and_state():
    assert len(ROWS) >= 100
    assert {m for m, *_ in ROWS} == set(MODELS)
    assert all(s in STATES[m] for m, s, *_ in ROWS)
    assert {s for m, s, *_ in ROWS if m == "solo"} == set(STATES["solo"])
    assert {s for m, s, *_ in ROWS if m == "teams"} == set(STATES["teams"])


# ---------------------------------------------------------------- steps with triggers
# A statement row run as a whole step: the body, then outcome resolution and the triggers'
# rounds (docs/language.md, "Events and triggers"). Each engine settles the step (the explicit
# `Machine.settle`, Z3's `outcomes.settle`) and must give the row's state: the changed
# variables, who is `out`, the `end` ("running", or who won) and the tags of the triggers and
# tagged statements that ran (`rules`), or OVERFLOW when a trigger's assignment is out of type.
# The generated successors never settle a step themselves: outcome rules and triggers are run
# by the closures (`Machine.settle`, which the compiled machine calls through `resolve`). Their
# column here is the compiled machine's own step, whose body is generated code and whose
# settling is the closures': it checks the body and the hand-over (the packed state, the
# resolution's key, the variables the triggers wrote coming back packed), not settling again.

EVENTS_MODEL = """
players 4
var turn: player = P1
var life(p: player): 0..3 = 1
var log: 0..999 = 0
outcome dead: lose player p when life[p] == 0
outcome last: win player p when in_game(p) and forall q in opponents(p): lost(q)
trigger skip [T1] on lose player p when turn == p do turn := next_in_game(p); end
trigger record [T2] on lose player p do log := log * 10 + seat(p) + 1; end
trigger crown [T3] on win player p do [T4] life[p] := life[p] + 2; end
"""

EVENT_STATES = {"start": set(), "P3 out": {"P3"}}

STEP_ROWS = [
    # the turn passes to a player the step eliminates: the trigger hands it on, seeing him out
    ("start", "turn := P2; life[P2] := 0;", {"turn": "P3", "life[P2]": 0, "log": 2, "out": {"P2"}, "rules": {"T1", "T2"}}),
    # two eliminations: one event each, in seat order
    ("start", "life[P3] := 0; life[P2] := 0;", {"life[P2]": 0, "life[P3]": 0, "log": 23, "out": {"P2", "P3"}, "rules": {"T2"}}),
    ("start", "turn := P2; life[P2] := 0; life[P3] := 0;",
     {"turn": "P4", "life[P2]": 0, "life[P3]": 0, "log": 23, "out": {"P2", "P3"}, "rules": {"T1", "T2"}}),
    # a loss stated by a statement is an event too
    ("start", "lose P4;", {"log": 4, "out": {"P4"}, "rules": {"T2"}}),
    # the last player standing wins: the win fires its trigger, whose tagged statement runs
    ("P3 out", "life[P2] := 0; life[P4] := 0;",
     {"life[P2]": 0, "life[P4]": 0, "log": 24, "out": {"P2", "P3", "P4"}, "end": "P1", "life[P1]": 3,
      "rules": {"T2", "T3", "T4"}}),
    # nothing lost, nothing won: no trigger runs
    ("start", "turn := P3;", {"turn": "P3"}),
    # a trigger's assignment out of its type fails the step
    ("P3 out", "life[P1] := 2; life[P2] := 0; life[P4] := 0;", OVERFLOW),
]


def _step_probe(folder, model: str):
    """The instance of `model` with one action, `probe`, whose body is the row's statements."""
    cache: dict = {}

    def typed(text: str):
        if text not in cache:
            path = folder / f"step{len(cache)}.rw"
            path.write_text(model + f"action probe do {text} end\n", encoding="utf-8")
            (inst,) = load_instances(str(path))
            cache[text] = inst
        return cache[text]
    return typed


@pytest.fixture(scope="module")
def event_probe(tmp_path_factory):
    return _step_probe(tmp_path_factory.mktemp("events"), EVENTS_MODEL)


def _settled_explicit(inst, out):
    from checker.explicit.machine import Machine
    m = Machine(inst)
    slots = [_initial(inst, var, j) for var in inst.vars for j in range(var.count)]
    c = Ctx(slots, out, 0)
    try:
        m.actions[0].body(c)
        end, _ = m.settle(c)
    except Overflow:
        return OVERFLOW
    won = {p for i, p in enumerate(inst.players) if has_ended(end) and end.players >> i & 1}
    return {**state_in_words(inst, c.vals), "out": _names(inst, c.out, 0), "end": ",".join(sorted(won)) or "running",
            "rules": _tags(inst, [r for r in c.hits if inst.model.rules[r].kind in CITED_KINDS])}


def _settled_symbolic(inst, out, fold):
    slots = [_initial(inst, var, j) for var in inst.vars for j in range(var.count)]
    enc = Encoder(inst, fold)
    st = enc.stmts(inst.model.actions[0].body, state_to_sym(inst, tuple(slots) + (out, 0, ()), folded=fold), {})
    st, ended, _ = settle(enc, st)
    if concrete(st.overflow):
        return OVERFLOW
    vals = []
    for var in inst.vars:
        vals += [_z3_plain(t) for t in st.vals[var.name]]
    pout = sum(1 << i for i, b in enumerate(st.out) if concrete(b))
    won = {p for i, p in enumerate(inst.players) if concrete(st.wp[i])} if concrete(ended) else set()
    return {**state_in_words(inst, vals), "out": _names(inst, pout, 0), "end": ",".join(sorted(won)) or "running",
            "rules": _tags(inst, statement_hits(inst, st))}


def _settled_generated(inst, out):
    """The compiled machine's one step out of the state (see above: its settling is the closures')."""
    m = CompiledMachine(inst)
    slots = [_initial(inst, var, j) for var in inst.vars for j in range(var.count)]
    (step,) = m.successors(m.pack(tuple(slots) + (out, 0, ())))
    if step.__class__ is not tuple:  # a failing step
        return OVERFLOW if step.error_kind == "overflow" else ERROR
    (_, _, hits), target, _ = step
    vals = m.unpack(target)
    end = vals[-1]
    won = {p for i, p in enumerate(inst.players) if has_ended(end) and end.players >> i & 1}
    return {**state_in_words(inst, vals[:-3]), "out": _names(inst, vals[-3], 0), "end": ",".join(sorted(won)) or "running",
            "rules": _tags(inst, [r for r in hits if inst.model.rules[r].kind in CITED_KINDS])}


# Leaving by any way but a win, and a player's own draw, are events too: `on leave player p`
# ("if a player leaves the game", MTG 800.4a) and `on draw player p`.
LEAVE_MODEL = """
players 4
var turn: player = P1
var life(p: player): 0..3 = 1
var gone: 0..9999 = 0
var tied: 0..9999 = 0
outcome dead: lose player p when life[p] == 0
outcome last: win player p when in_game(p) and forall q in opponents(p): lost(q)
trigger skip [T1] on leave player p when turn == p do turn := next_in_game(p); end
trigger gone_log [T2] on leave player p do gone := gone * 10 + seat(p) + 1; end
trigger tie_log [T3] on draw player p do tied := tied * 10 + seat(p) + 1; end
"""

LEAVE_ROWS = [
    # a player's own draw: the draw event, then the leave event (the turn moves on past him)
    ("start", "turn := P2; draw P2;", {"turn": "P3", "gone": 2, "tied": 2, "out": {"P2"}, "rules": {"T1", "T2", "T3"}}),
    # leaving with no result is a leave event
    ("start", "leave P3;", {"gone": 3, "out": {"P3"}, "rules": {"T2"}}),
    # a loss is one too; several leave in seat order, whatever the way
    ("start", "leave P4; life[P2] := 0;", {"life[P2]": 0, "gone": 24, "out": {"P2", "P4"}, "rules": {"T2"}}),
    ("start", "draw P3; draw P2;", {"gone": 23, "tied": 23, "out": {"P2", "P3"}, "rules": {"T2", "T3"}}),
    # leaving gives way to a loss of the same step: one event
    ("start", "leave P2; lose P2;", {"gone": 2, "out": {"P2"}, "rules": {"T2"}}),
    # the winner does not leave: only the losers' events fire
    ("P3 out", "life[P2] := 0; life[P4] := 0;",
     {"life[P2]": 0, "life[P4]": 0, "gone": 24, "out": {"P2", "P3", "P4"}, "end": "P1", "rules": {"T2"}}),
    ("start", "turn := P3;", {"turn": "P3"}),
]


@pytest.fixture(scope="module")
def leave_probe(tmp_path_factory):
    return _step_probe(tmp_path_factory.mktemp("leaving"), LEAVE_MODEL)


# `once`: a trigger runs at most once per step, for the first subject (in firing order) its
# condition holds for, also across rounds
ONCE_MODEL = """
players 4
var life(p: player): 0..3 = 1
var first: 0..4 = 0
var log: 0..9999 = 0
outcome dead: lose player p when life[p] == 0
outcome last: win player p when in_game(p) and forall q in opponents(p): lost(q)
trigger note_first [T1] on lose player p once when seat(p) > 1 do first := seat(p) + 1; end
trigger note_all [T2] on lose player p do log := log * 10 + seat(p) + 1; end
trigger domino [T3] on lose player p when p == P4 do life[P3] := 0; end
"""

ONCE_ROWS = [
    # three losses in one round: asked for P2 (no), runs for P3, not asked for P4
    ("start", "life[P2] := 0; life[P3] := 0; life[P4] := 0;",
     {"life[P2]": 0, "life[P3]": 0, "life[P4]": 0, "first": 3, "log": 234, "out": {"P2", "P3", "P4"}, "end": "P1",
      "rules": {"T1", "T2", "T3"}}),
    # its condition never holds: it never runs
    ("start", "life[P2] := 0;", {"life[P2]": 0, "log": 2, "out": {"P2"}, "rules": {"T2"}}),
    # it ran in the first round: the loss of the next round does not run it again
    ("start", "life[P4] := 0;", {"life[P3]": 0, "life[P4]": 0, "first": 4, "log": 43, "out": {"P3", "P4"},
                                  "rules": {"T1", "T2", "T3"}}),
]


@pytest.fixture(scope="module")
def once_probe(tmp_path_factory):
    return _step_probe(tmp_path_factory.mktemp("once"), ONCE_MODEL)


@pytest.mark.parametrize("fold", [False, True], ids=["terms", "folded"])
@pytest.mark.parametrize("state, text, expected", STEP_ROWS, ids=[f"{s}|{t}" for s, t, _ in STEP_ROWS])
def test_every_engine_settles_a_step_with_triggers_as_documented(event_probe, state, text, expected, fold):
    _settled_by_every_engine(event_probe(text), state, expected, fold)


def _settled_by_every_engine(inst, state, expected, fold):
    """The three engines settle the row's step from `state` into `expected` (the changes)."""
    out = _masks(inst, EVENT_STATES[state])[0]
    explicit, symbolic = _settled_explicit(inst, out), _settled_symbolic(inst, out, fold)
    generated = _settled_generated(inst, out)
    if expected == OVERFLOW:
        assert explicit == OVERFLOW and generated == OVERFLOW and symbolic == OVERFLOW, (explicit, generated, symbolic)
        return
    slots = [_initial(inst, var, j) for var in inst.vars for j in range(var.count)]
    want = {**state_in_words(inst, slots), "out": set(EVENT_STATES[state]), "end": "running", "rules": set()}
    want.update(expected)
    assert explicit == want, f"explicit engine: {explicit!r}"
    assert generated == want, f"generated successors: {generated!r}"
    assert symbolic == want, f"Z3 engine: {symbolic!r}"


@pytest.mark.parametrize("fold", [False, True], ids=["terms", "folded"])
@pytest.mark.parametrize("state, text, expected", LEAVE_ROWS, ids=[f"{s}|{t}" for s, t, _ in LEAVE_ROWS])
def test_every_engine_fires_leave_and_draw_events_as_documented(leave_probe, state, text, expected, fold):
    _settled_by_every_engine(leave_probe(text), state, expected, fold)


@pytest.mark.parametrize("fold", [False, True], ids=["terms", "folded"])
@pytest.mark.parametrize("state, text, expected", ONCE_ROWS, ids=[f"{s}|{t}" for s, t, _ in ONCE_ROWS])
def test_every_engine_runs_a_once_trigger_at_most_once_per_step(once_probe, state, text, expected, fold):
    _settled_by_every_engine(once_probe(text), state, expected, fold)


# ---- declared events (docs/language.md, "Declared events"): `signal` raises one; its triggers run
# when the step settles, after the outcome events of the same round, by seat, each (event,
# subject) once per step; an event a trigger raises fires in the next round
SIGNAL_MODEL = """
players 4
var life(p: player): 0..3 = 1
var log: 0..9999 = 0
var rounds: 0..9 = 0
event takes(q: player)
event tick
outcome dead: lose player p when life[p] == 0
outcome last: win player p when in_game(p) and forall q in opponents(p): lost(q)
trigger heard [T1] on takes(q) do log := log * 10 + seat(q) + 1; end
trigger chain [T2] on takes(q) when q == P2 do signal takes(P3); end
trigger ticked [T3] on tick do rounds := rounds + 1; end
trigger after_loss [T4] on lose player p do signal tick; log := log * 10 + 9; end
"""

SIGNAL_ROWS = [
    ("start", "signal takes(P4);", {"log": 4, "rules": {"T1"}}),
    # several subjects of one event: by seat, whatever the order raised
    ("start", "signal takes(P4); signal takes(P1);", {"log": 14, "rules": {"T1"}}),
    # a trigger's signal fires in the next round
    ("start", "signal takes(P2);", {"log": 23, "rules": {"T1", "T2"}}),
    # ... unless that (event, subject) already fired in this step: once per subject and step
    ("start", "signal takes(P2); signal takes(P3);", {"log": 23, "rules": {"T1", "T2"}}),
    ("start", "signal tick; signal tick;", {"rounds": 1, "rules": {"T3"}}),
    # the outcome events of a round fire before its declared events
    ("start", "life[P2] := 0; signal tick;", {"life[P2]": 0, "log": 9, "rounds": 1, "out": {"P2"}, "rules": {"T3", "T4"}}),
    ("start", "life[P2] := 0;", {"life[P2]": 0, "log": 9, "rounds": 1, "out": {"P2"}, "rules": {"T3", "T4"}}),
    # an event about a player out of the game fires all the same (a trigger's condition may ask)
    ("P3 out", "signal takes(P3);", {"log": 3, "rules": {"T1"}}),
    ("start", "rounds := 2;", {"rounds": 2}),
    # a trigger's assignment out of its type fails the step
    ("start", "rounds := 9; signal tick;", OVERFLOW),
]


@pytest.fixture(scope="module")
def signal_probe(tmp_path_factory):
    return _step_probe(tmp_path_factory.mktemp("signals"), SIGNAL_MODEL)


@pytest.mark.parametrize("fold", [False, True], ids=["terms", "folded"])
@pytest.mark.parametrize("state, text, expected", SIGNAL_ROWS, ids=[f"{s}|{t}" for s, t, _ in SIGNAL_ROWS])
def test_every_engine_fires_declared_events_as_documented(signal_probe, state, text, expected, fold):
    _settled_by_every_engine(signal_probe(text), state, expected, fold)


# ---- after a round of triggers that ran, the state-based rules and the phase chain run again
# (docs/language.md, "The order of a step"): a trigger's effect ends a phase in the same step
# ("once a player is eliminated, the game ends when the current phase ends", SWU 12.7.1)
SETTLE_MODEL = """
players 3
var life(p: player): 0..1 = 1
var eliminated: bool = false
var log: 0..99 = 0
phases step { main [F1] ends when eliminated
              cleanup }
when main ends [F2] do log := log + 1; end
state_based tidy [S1] when eliminated and log == 0 do log := log + 10; end
trigger flag [T1] on lose player p do eliminated := true; end
outcome dead: lose player p when life[p] == 0
outcome over: win player p when step == cleanup and in_game(p)
"""

SETTLE_ROWS = [
    # the elimination's trigger sets the flag: the state-based rule and the phase see it in this step
    ("start", "life[P2] := 0;", {"life[P2]": 0, "eliminated": True, "log": 11, "step": "cleanup", "out": {"P2"},
                                 "end": "P1,P3", "rules": {"T1", "S1", "F1", "F2"}}),
    # the flag set by the statements: as before, within the step
    ("start", "eliminated := true;", {"eliminated": True, "log": 11, "step": "cleanup", "end": "P1,P2,P3",
                                      "rules": {"S1", "F1", "F2"}}),
    ("start", "log := 5;", {"log": 5}),
]


@pytest.fixture(scope="module")
def settle_probe(tmp_path_factory):
    return _step_probe(tmp_path_factory.mktemp("settle"), SETTLE_MODEL)


@pytest.mark.parametrize("fold", [False, True], ids=["terms", "folded"])
@pytest.mark.parametrize("state, text, expected", SETTLE_ROWS, ids=[f"{s}|{t}" for s, t, _ in SETTLE_ROWS])
def test_every_engine_settles_phases_again_after_the_triggers_of_a_round(settle_probe, state, text, expected, fold):
    _settled_by_every_engine(settle_probe(text), state, expected, fold)


# ---- state-based rules (docs/language.md, "State-based rules"): after the step's statements, in
# the order written, each at most once, before the phases end and the outcomes are settled
STATE_MODEL = """
players 3
var life(p: player): 0..3 = 2
var poison(p: player): 0..2 = 0
var log: 0..999 = 0
phases weather { calm [S3] ends when log > 0
                 storm }
outcome dead: lose player p when life[p] == 0
outcome last: win player p when in_game(p) and forall q in opponents(p): lost(q)
state_based venom [S1] when exists p in players: poison[p] == 2 do
  forall p in players do
    if poison[p] == 2 then poison[p] := 0; life[p] := life[p] - 1; end
  end
  log := log * 10 + 1;
end
state_based weak [S2] when life[P1] == 1 do log := log * 10 + 2; poison[P3] := 2; end
"""

STATE_ROWS = [
    # a rule's condition holds after the statements: it runs, and its effect ends a phase in that step
    ("start", "poison[P2] := 2;", {"poison[P2]": 0, "life[P2]": 1, "log": 1, "weather": "storm", "rules": {"S1", "S3"}}),
    # a rule written later sees what an earlier one did, in the same step
    ("start", "poison[P1] := 2;", {"poison[P1]": 0, "life[P1]": 1, "log": 12, "poison[P3]": 2, "weather": "storm",
                                   "rules": {"S1", "S2", "S3"}}),
    # ... an earlier one does not run again for what a later one did (poison[P3] stays 2)
    ("start", "life[P1] := 1;", {"life[P1]": 1, "log": 2, "poison[P3]": 2, "weather": "storm", "rules": {"S2", "S3"}}),
    # the outcomes are settled after the rules: the poison's last life is a loss in this step
    ("start", "poison[P2] := 2; life[P2] := 1;", {"poison[P2]": 0, "life[P2]": 0, "log": 1, "weather": "storm",
                                                   "out": {"P2"}, "rules": {"S1", "S3"}}),
    # no condition holds: nothing runs, the phase stays
    ("start", "poison[P2] := 1;", {"poison[P2]": 1}),
]


@pytest.fixture(scope="module")
def state_probe(tmp_path_factory):
    return _step_probe(tmp_path_factory.mktemp("state"), STATE_MODEL)


@pytest.mark.parametrize("fold", [False, True], ids=["terms", "folded"])
@pytest.mark.parametrize("state, text, expected", STATE_ROWS, ids=[f"{s}|{t}" for s, t, _ in STATE_ROWS])
def test_every_engine_runs_state_based_rules_after_the_statements_and_before_the_phases(state_probe, state, text,
                                                                                         expected, fold):
    _settled_by_every_engine(state_probe(text), state, expected, fold)
