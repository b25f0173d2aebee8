"""Outcome shapes beyond win, lose and draw (docs/language.md, "Outcomes").

`finish` ends a game that has no winner: a draft, deck building, a pre-game. It is neither a
draw nor a gap: the game is over with no winner, no loser and no draw, and `game_finished`
tells it apart from a drawn game."""
from __future__ import annotations

from checker import engine
from checker.engine import load_instances
from checker.explicit.explore import Limits, explore
from checker.explicit.machine import Machine
from checker.frontend.ends import has_ended
from checker.analyses.verdicts import CONFIRMED

DRAFT = """players 3
var picks(p: player): 0..2 = 0
var turn: player = P1
active p when p == turn
action pick progress when picks[turn] < 2 do
  picks[turn] := picks[turn] + 1;
  turn := next(turn);
end
"""


def _check(tmp_path, text: str, name: str = "s.rw"):
    spec = tmp_path / name
    spec.write_text(text, encoding="utf-8")
    return engine.check([str(spec)]), spec


def _ends(spec) -> set:
    (inst,) = load_instances(str(spec))
    g = explore(Machine(inst), Limits(max_states=10_000, max_seconds=30))
    return {inst.describe_end(s[-1]) if has_ended(s[-1]) else "gap" for s in g.states if s[-1]}


def test_a_draft_that_finishes_ends_without_a_winner_and_is_clean(tmp_path):
    res, spec = _check(tmp_path, DRAFT + "outcome drafted: finish when forall p in players: picks[p] == 2\n"
                       "reachable over: game_finished\ninvariant not_a_draw: not game_drawn\n")
    assert res.diagnostics == [] and res.disagreements == [] and res.findings == []
    assert _ends(spec) == {"the game ends without a winner"}


def test_a_finish_statement_ends_the_game_in_the_step_that_runs_it(tmp_path):
    text = DRAFT.replace("  turn := next(turn);\n", "  turn := next(turn);\n"
                         "  if forall p in players: picks[p] == 2 then finish; end\n")
    res, spec = _check(tmp_path, text + "reachable over: game_finished\n")
    assert res.diagnostics == [] and res.findings == []
    assert _ends(spec) == {"the game ends without a winner"}


def test_without_finish_the_same_draft_deadlocks_at_its_end(tmp_path):
    # the draft cannot go on, and nothing ends it: what writers used to paper over with a draw
    res, _ = _check(tmp_path, DRAFT)
    assert [f.kind for f in res.findings] == ["deadlock"]


def test_players_who_lose_in_the_finishing_step_stay_lost_and_no_gap_follows(tmp_path):
    # every player leaves as the procedure finishes: "no player is left" is no gap, the game is over
    res, spec = _check(tmp_path, """players 2
var done: bool = false
action close progress when not done do
  done := true;
  lose P1;
  lose P2;
  finish;
end
invariant over_when_done: not done or game_finished
""")
    assert res.diagnostics == [] and res.disagreements == [] and res.findings == []
    assert _ends(spec) == {"the game ends without a winner"}


def test_a_finish_together_with_a_win_is_an_outcome_conflict(tmp_path):
    res, _ = _check(tmp_path, """players 2
var x: 0..1 = 0
action go progress when x == 0 do x := 1; end
outcome ends: finish when x == 1
outcome champion: win player p when x == 1 and p == P1
""")
    (f,) = [f for f in res.findings if f.kind == "outcome-conflict"]
    assert "ends without a winner and is won" in f.message and f.replay == CONFIRMED


def test_a_drawn_game_is_not_a_finished_one(tmp_path):
    res, _ = _check(tmp_path, """players 2
var x: 0..1 = 0
action go progress when x == 0 do x := 1; draw; end
reachable finished: game_finished
""")
    (f,) = res.findings
    assert f.kind == "unreachable-property" and "finished" in f.message


def test_finish_is_read_in_outcome_rules_freely_like_a_draw(tmp_path):
    # a finish rule may read lost() and won() under `not`: its stratum comes after the wins
    res, _ = _check(tmp_path, DRAFT + "outcome drafted: finish when not won(P1) and "
                    "forall p in players: picks[p] == 2 and not lost(p)\n")
    assert res.diagnostics == [] and res.findings == []


# ---------------------------------------------------------------- "can't lose" and "can't win"

SHIELD = """players 2
var life(p: player): 0..1 = 1
var shield(p: player): bool = false
var conceded(p: player): bool = false
action hit(q: player) progress when in_game(q) and life[q] > 0 do life[q] := 0; end
action protect(q: player) progress when in_game(q) and not shield[q] do shield[q] := true; end
action concede(q: player) leave when in_game(q) do conceded[q] := true; end
outcome dead: lose player p when life[p] == 0
outcome gave_up: lose player p when conceded[p]
outcome last: win player p when in_game(p) and forall q in opponents(p): lost(q)
outcome no_loss: cannot lose player p when shield[p]
last_side plays_on
"""


def _graph(spec):
    (inst,) = load_instances(str(spec))
    return inst, explore(Machine(inst), Limits(max_states=10_000, max_seconds=30))


def _state(inst, g, **values):
    """The first reachable state whose variables have these values (players by name)."""
    for i, s in enumerate(g.states):
        slots = {v.name: [inst.show_value(v, s[v.offset + j]) for j in range(v.count)] for v in inst.vars}
        if all(slots[k] == v for k, v in values.items()):
            return i, s
    raise AssertionError(f"no state with {values}")


def test_a_player_who_cannot_lose_stays_in_the_game_at_zero_life(tmp_path):
    spec = tmp_path / "shield.rw"
    spec.write_text(SHIELD, encoding="utf-8")
    inst, g = _graph(spec)
    _, s = _state(inst, g, life=["0", "1"], shield=["true", "false"], conceded=["false", "false"])
    assert s[inst.nslots] == 0 and s[-1] == ()  # P1 is still in, and the game goes on
    _, s = _state(inst, g, life=["0", "1"], shield=["false", "false"], conceded=["false", "false"])
    assert s[inst.nslots] == 0b01 and inst.describe_end(s[-1]) == "P2 wins"


def test_the_loss_a_cannot_rule_forbids_is_never_derived_so_no_other_rule_reads_it(tmp_path):
    # "last" reads lost(q): with P1 shielded at 0 life, P2 does not win
    spec = tmp_path / "shield.rw"
    spec.write_text(SHIELD, encoding="utf-8")
    inst, g = _graph(spec)
    life, shield, conceded = (inst.vars[i].offset for i in range(3))
    shielded_at_zero = [st for st in g.states if st[shield] and st[life] == 0 and not st[conceded]]
    assert shielded_at_zero
    for st in shielded_at_zero:
        assert not (has_ended(st[-1]) and st[-1].players >> 1 & 1), "P2 won against a shielded P1"


def test_a_rule_with_precedence_over_a_cannot_rule_still_applies(tmp_path):
    # conceding loses even under "can't lose": the writer says so with a precedence
    spec = tmp_path / "shield.rw"
    spec.write_text(SHIELD + "precedence gave_up over no_loss\n"
                    "invariant concession_counts: forall p in players: conceded[p] implies lost(p)\n", encoding="utf-8")
    res = engine.check([str(spec)])
    assert res.diagnostics == [] and res.disagreements == []
    assert not [f for f in res.findings if f.kind == "invariant"]
    spec.write_text(SHIELD + "invariant concession_counts: forall p in players: conceded[p] implies lost(p)\n",
                    encoding="utf-8")
    (f,) = [f for f in engine.check([str(spec)]).findings if f.kind == "invariant"]
    assert f.replay == CONFIRMED


def test_a_cannot_rule_also_forbids_the_loss_a_statement_derives(tmp_path):
    res, _ = _check(tmp_path, """players 2
var shield: bool = false
action protect progress when not shield do shield := true; end
action strike progress when shield do lose P1; end
outcome no_loss: cannot lose player p when shield and p == P1
reachable p1_lost: lost(P1)
last_side plays_on
""")
    # (the strike loops forever: a forced loop, which is beside the point here)
    (f,) = [f for f in res.findings if f.kind == "unreachable-property"]
    assert "p1_lost" in f.message


def test_a_cannot_win_rule_turns_a_last_player_standing_into_a_gap(tmp_path):
    # "the other team loses while this one can't win": the game must end, and nothing decides it
    res, _ = _check(tmp_path, """players 2
var cursed: bool = false
var out: bool = false
action curse progress when not cursed do cursed := true; end
action knock_out progress when not out do out := true; end
outcome ko: lose player p when out and p == P2
outcome last: win player p when in_game(p) and forall q in opponents(p): lost(q)
outcome no_win: cannot win player p when cursed
""")
    (f,) = [f for f in res.findings if f.kind == "outcome-gap"]
    assert f.replay == CONFIRMED and "only P1 is left" in f.message


def test_a_cannot_rule_may_not_read_this_steps_outcomes(tmp_path):
    res, _ = _check(tmp_path, "players 2\noutcome w: cannot win player p when exists q in players: lost(q)\n")
    (d,) = res.diagnostics
    assert d.code == "E014" and "cannot" in d.message


def test_precedence_over_a_cannot_rule_must_name_a_rule_about_the_same_outcome(tmp_path):
    res, _ = _check(tmp_path, "players 2\nvar x: bool = false\n"
                    "outcome a: win player p when x\noutcome b: cannot lose player p when x\n"
                    "precedence a over b\n")
    (d,) = res.diagnostics
    assert d.code == "E013" and "same outcome" in d.message
