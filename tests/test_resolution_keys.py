"""A number that outcome resolution only compares with constants keys the compiled successors'
resolutions by those comparisons (checker.explicit.resolution_keys): a game counted to the
unit needs a few resolutions, not one per total reached, and explores exactly the graph the
closures explore."""
from checker.engine import load_instances
from checker.explicit.compiled import CompiledMachine
from checker.explicit.explore import explore
from checker.explicit.machine import Machine
from checker.explicit.resolution_keys import thresholds
from test_compiled import LIMITS, view

LIFE_TO_THE_UNIT = """
players 3
var life(p: player): 0..12 = 12
var turn: player = P1
active p when turn == p
action hit(q: players, n: 1..3) progress when q != turn and life[q] > 0 do
  life[q] := if life[q] > n then life[q] - n else 0 end;
end
action pass progress do turn := next(turn); end
outcome out_of_life: lose player p when life[p] <= 0
outcome sole_survivor: win player p when forall q in players: q == p or lost(q)
"""

# the same game with a trigger that writes another variable: a resolution's values come back
# with it, the keyed life totals being the step's own
WITH_TRIGGER = LIFE_TO_THE_UNIT + """
var fallen: 0..3 = 0
trigger count_the_fallen on lose player p do fallen := fallen + 1; end
"""


# time is called: the player with the highest life wins (a total compared with its own others)
HIGHEST_WINS = LIFE_TO_THE_UNIT + """
var time_over: bool = false
action call_time progress when not time_over do time_over := true; end
outcome highest_life: win player p when time_over and forall q in players: q == p or life[p] > life[q]
"""


def _instance(tmp_path, text):
    spec = tmp_path / "s.rw"
    spec.write_text(text, encoding="utf-8")
    (inst,) = load_instances(str(spec))
    return inst


def test_a_total_compared_only_with_constants_is_keyed_by_the_comparisons(tmp_path):
    inst = _instance(tmp_path, LIFE_TO_THE_UNIT)
    found = thresholds(inst, Machine(inst).comp)
    assert {name: th.atoms for name, th in found.items()} == {"life": (("<=", 0),)}


def test_totals_compared_with_each_other_are_keyed_by_how_they_compare(tmp_path):
    inst = _instance(tmp_path, HIGHEST_WINS)
    (life,) = thresholds(inst, Machine(inst).comp).values()
    assert life.atoms == (("<=", 0),) and life.ordered
    compiled = CompiledMachine(inst)
    graph = explore(compiled, LIMITS)
    assert len(compiled._resolved_packed) < 300  # out of life or not, who is ahead, by who is out and the time
    assert view(graph) == view(explore(Machine(inst), LIMITS))


def test_life_to_the_unit_needs_a_handful_of_resolutions_and_explores_the_closures_graph(tmp_path):
    for text in (LIFE_TO_THE_UNIT, WITH_TRIGGER):
        inst = _instance(tmp_path, text)
        compiled = CompiledMachine(inst)
        graph = explore(compiled, LIMITS)
        assert graph.complete and len(graph.states) > 2_000
        assert len(compiled._resolved_packed) < 100, text  # out of life or not, for each of 3 players, by who is out
        assert view(graph) == view(explore(Machine(inst), LIMITS))


def test_a_total_read_otherwise_written_by_a_trigger_or_with_few_values_keeps_its_value_in_the_key(tmp_path):
    read_otherwise = LIFE_TO_THE_UNIT.replace("life[p] <= 0", "life[p] <= 0 and life[p] + 1 > 0")
    written = WITH_TRIGGER.replace("fallen := fallen + 1;", "fallen := fallen + 1; life[p] := 0;")
    few_values = LIFE_TO_THE_UNIT.replace("0..12 = 12", "0..2 = 2").replace("n: 1..3", "n: 1..1")
    rounds = (LIFE_TO_THE_UNIT.replace("players 3", "players 2")
              .replace("turn := next(turn);", "turn := next(turn); rounds := (rounds + 1) % 10;")
              + "var rounds: 0..9 = 0\noutcome late: lose player p when seat(p) == rounds % 2 and rounds > 7\n")
    for text, name in ((read_otherwise, "life"), (written, "life"), (few_values, "life"), (rounds, "rounds")):
        inst = _instance(tmp_path, text)
        assert name not in thresholds(inst, Machine(inst).comp), text
        compiled = CompiledMachine(inst)
        assert view(explore(compiled, LIMITS)) == view(explore(Machine(inst), LIMITS))
