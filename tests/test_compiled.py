"""The compiled successors (checker.explicit.compiled) explore exactly the graph the closures
(checker.explicit.machine) explore: the same states in the same order, the same edges, labels,
rule hits, failing steps, setup errors and conflicts. The closures are the reference; every
bundled spec, test spec and fixture is explored both ways."""
from pathlib import Path

import pytest

from bundled import bundled
from checker.engine import load_instances
from checker.explicit.compiled import CompiledMachine, machine_for
from checker.explicit.explore import Limits, explore
from checker.explicit.machine import Machine
from checker.frontend.diagnostics import SpecError
from checker.outputs import report
from checking import report_differences
from test_backends import _tiered
from test_causes_of_events import BOUNTY

ROOT = Path(__file__).resolve().parent.parent
# a fixture pair's twin and variants in the slow tier, as in test_backends (each adds a second)
SPECS = _tiered(sorted(str(p.relative_to(ROOT)) for p in [*ROOT.glob("spec/*.rw"), *ROOT.glob("tests/specs/*.rw"),
                                                            *ROOT.glob("tests/fixtures/**/*.rw")]))
LIMITS = Limits(max_states=20_000, max_seconds=60)


def view(graph) -> dict:
    """Everything the checks read of a graph, with states as slots."""
    return {
        "states": [graph.values(i) for i in range(len(graph.states))],
        "init": list(graph.init_ids),
        "edges": list(graph.edges),
        "labels": list(graph.labels),
        "parent": list(graph.parent),
        "errors": [(src, st.action, st.binding, st.hits, st.error, st.error_kind, st.where, st.error_span)
                   for src, st in graph.errors],
        "setup_errors": [(e.kind, e.message, e.values, e.where) for e in graph.setup_errors],
        "conflicts": dict(graph.conflicts),
        "init_hits": dict(graph.init_hits),
        "hit_rules": set(graph.hit_rules),
        "complete": graph.complete,
        "expanded": graph.expanded,
    }


def instances(path: str):
    try:
        return load_instances(path)
    except SpecError:
        return []  # fixtures of input errors have nothing to explore


@pytest.mark.parametrize("path", SPECS)
def test_compiled_successors_explore_the_same_graph_as_the_closures(path):
    insts = instances(path)
    if not insts:
        pytest.skip("an input-error fixture")
    for inst in insts[:4]:
        reference = explore(Machine(inst), LIMITS)
        compiled = explore(CompiledMachine(inst), LIMITS)
        if not (reference.complete and compiled.complete):
            n = min(len(reference.states), len(compiled.states), reference.expanded, compiled.expanded)
            assert view(reference)["states"][:n] == view(compiled)["states"][:n], inst.label
            continue
        assert view(compiled) == view(reference), inst.label


def test_a_packed_state_is_a_few_integers_and_unpacks_to_the_slots():
    inst = load_instances("tests/specs/ring_clean.rw")[0]
    m = CompiledMachine(inst)
    (state, _, _), = m.initial_states()[0][:1]
    assert len(state) == len(inst.vars) + 3  # one entry per variable, then out, teams out, end
    slots = m.unpack(state)
    assert len(slots) == inst.nslots + 3
    assert m.pack(slots) == state


def test_a_guard_false_in_every_state_of_an_instance_generates_no_loop(tmp_path):
    spec = tmp_path / "s.rw"
    spec.write_text("param D in 0..1\nplayers 3\nvar x: 0..3 = 0\n"
                    "action a(p: players) when D == 1 and x < 3 do x := x + 1; end\n", encoding="utf-8")
    off, on = load_instances(str(spec))
    assert "false in every state" in CompiledMachine(off).source
    assert "false in every state" not in CompiledMachine(on).source


def test_the_bindings_tried_are_the_seats_that_hold_a_marker(tmp_path):
    spec = tmp_path / "s.rw"
    spec.write_text("players 8\nvar mk(p: player): bool = seat(p) == 0\n"
                    "action pass(p: players) progress when mk[p] do mk[p] := false; mk[next(p)] := true; end\n",
                    encoding="utf-8")
    m = CompiledMachine(load_instances(str(spec))[0])
    assert "while _m" in m.source and "for b" not in m.source.split("def a0")[1].split("def ")[0]
    assert len(explore(m).states) == 8


def test_generated_code_holds_no_text_of_the_spec(tmp_path):
    # names, strings and numbers of a hostile spec never become source text
    spec = tmp_path / "s.rw"
    spec.write_text('players 2\nvar import_os: 0..3 = 0\n'
                    'action __import__ when import_os < 3 do import_os := import_os + 1; end\n', encoding="utf-8")
    m = CompiledMachine(load_instances(str(spec))[0])
    assert "import" not in m.source
    assert len(explore(m).states) == 4


def test_an_instance_too_deep_for_pythons_parser_runs_on_the_closures(tmp_path):
    # 45 reads of a variable indexed by numbers, each inside the index of the next: the compiled
    # source nests about five parentheses per read, more than Python's parser reads (200)
    spec = tmp_path / "s.rw"
    spec.write_text("players 2\nvar v(k: 0..3): 0..3 = 0\nvar x: 0..3 = 0\n"
                    "action a when " + "v[" * 45 + "x" + "]" * 45 + " == 0 and x < 3 do x := x + 1; end\n",
                    encoding="utf-8")
    inst = load_instances(str(spec))[0]
    m = machine_for(inst)
    assert type(m) is Machine
    assert len(explore(m).states) == 4


@pytest.mark.slow
def test_a_run_of_the_fixtures_reports_the_same_with_the_compiled_and_the_reference_successors(monkeypatch, capsys):
    from checker.cli import main

    reports = []
    # the closure successors are never reduced (checker.explicit.symmetry works on packed states);
    # compare the engines on the same unreduced graphs (tests/test_symmetry.py compares on and off)
    monkeypatch.setenv("RULEWRIGHT_SYMMETRY", "off")
    for engine in ("compiled", "closures"):
        monkeypatch.setenv("RULEWRIGHT_SUCCESSORS", engine)
        code = main(["check", "tests/fixtures", "--jobs", "1", "--output-format", "json", "--max-seconds", "600"])
        reports.append((code, capsys.readouterr().out))
    # (on a failure, where they differ first, briefly: a limit met is the usual cause)
    assert report_differences(reports[0][1], reports[1][1]) == []
    assert reports[0] == reports[1]


@pytest.mark.slow
def test_the_bundled_specs_report_the_same_with_the_compiled_and_the_reference_successors():
    # (the unreduced run is shared with tests/test_symmetry.py: tests/bundled.py)
    compiled, closures = (bundled(symmetry="off", successors=engine) for engine in ("compiled", "closures"))
    assert report_differences(report.as_json(compiled), report.as_json(closures)) == []
    assert (compiled.exit_code(), report.as_json(compiled)) == (closures.exit_code(), report.as_json(closures))


# Seat windows and the nearest marked seat (codegen's seat_window and nearest_seat) compile to
# masks; players leave, so the seat functions walk a ring with gaps (codegen_runtime._ring's bit search).
WINDOWS = """param N in 3..5
param W in 0..8
players N
var mk(p: player): bool = seat(p) % 2 == 0
var fin(p: player): bool = false
let near(d: player) = min(k in 0..W: if mk[right(d, k)] then k else 3 end)
action ahead(s: player) when mk[s] and not (exists k in 1..W: mk[left(s, k)]) do
  mk[s] := false;
  mk[next_in_game(s)] := true;
end
action behind(s: player) when mk[s] and not fin[s] and (forall k in 1..W: not mk[right(s, k)]) do
  fin[s] := true;
  mk[left_in_game(s, W)] := true;
end
action full(s: player) when fin[s] and (forall k in 2..W: mk[left(s, k)]) do
  fin[s] := false;
  mk[prev_in_game(s)] := not mk[prev_in_game(s)];
end
action gap(s: player) when in_game(s) and (exists k in 0..W - 1: not mk[right(s, k)]) and fin[s] do
  fin[s] := false;
  mk[left_in_game(s, 2)] := true;
end
action leave(d: player) leave when in_game(d) and size(remaining) > 1 do
  lose d;
  mk[right(d, near(d))] := false;
end
"""


def test_seat_windows_and_nearest_seats_explore_the_same_graph_as_the_closures(tmp_path):
    spec = tmp_path / "windows.rw"
    spec.write_text(WINDOWS, encoding="utf-8")
    insts = load_instances(str(spec))
    assert len(insts) == 3 * 9
    for inst in insts:
        m = CompiledMachine(inst)
        assert "_seats(" in m.source and "_nearest(" in m.source
        reference, compiled = explore(Machine(inst), LIMITS), explore(m, LIMITS)
        assert reference.complete
        assert view(compiled) == view(reference), inst.label


def test_the_seat_helpers_agree_with_their_definitions_at_every_table_size(tmp_path):
    import random

    from checker.explicit.compile import ring_step
    from checker.explicit.codegen_runtime import _ring
    spec = tmp_path / "s.rw"
    spec.write_text("param N in 1..11\nplayers N\nvar x: 0..1 = 0\naction a when x < 1 do x := 1; end\n", encoding="utf-8")
    rnd = random.Random(5)
    for inst in load_instances(str(spec)):
        n = inst.nplayers
        ns = CompiledMachine(inst)._namespace()
        for _ in range(2000):
            lo = rnd.randint(-3, 3) if rnd.random() < .3 else 0
            hi, s, d = rnd.randint(-2, 2 * n + 2), rnd.randrange(n), rnd.choice((1, -1))
            v, c, out, k = rnd.getrandbits(n), rnd.randint(-1, 2 * n), rnd.getrandbits(n), rnd.randint(-2, 3 * n)
            seats = [(s + d * j) % n for j in range(lo, hi + 1)]
            assert ns["_seats"](lo, hi, s, d) == sum(1 << q for q in set(seats))
            assert ns["_nearest"](lo, hi, s, d, v, c) == min([j if (v >> q) & 1 else c
                                                              for j, q in zip(range(lo, hi + 1), seats)], default=0)
            assert _ring(s, k, d, out, n) == ring_step(s, k, d, out, n)


# An assignment's place computed once and reused on the body's straight-line path while nothing
# it reads is written (codegen's `place`): `fin[removed(d)]` and `seen[removed(d)]` share one
# search; once `mk` is written it is searched again; a branch starts from the places before the
# `if`, and after the `if` (or in a loop) they are searched again.
PLACES = """players 5
var mk(p: player): bool = seat(p) % 2 == 0
var fin(p: player): bool = false
var seen(p: player): bool = false
let removed(d: player) = right(d, min(k in 0..4: if mk[right(d, k)] then k else 4 end))
action take(d: player) when mk[d] or fin[d] do
  fin[removed(d)] := true;
  seen[removed(d)] := true;
  mk[removed(d)] := false;
  fin[removed(d)] := false;
  if seen[d] then
    mk[removed(d)] := true;
  end
  seen[removed(d)] := false;
end
action sweep(d: player) when fin[d] do
  forall q in players do
    seen[removed(q)] := not seen[removed(q)];
    mk[removed(q)] := false;
  end
end
"""


def test_a_place_is_computed_once_until_what_it_reads_is_written(tmp_path):
    spec = tmp_path / "places.rw"
    spec.write_text(PLACES, encoding="utf-8")
    (inst,) = load_instances(str(spec))
    m = CompiledMachine(inst)
    take = m.source[m.source.index("def a0("):m.source.index("def a1(")]
    # fin, seen and mk share the first; fin and the branch share the second; after the `if`, a third
    assert take.count("_nearest(") == 3
    reference, compiled = explore(Machine(inst), LIMITS), explore(m, LIMITS)
    assert reference.complete and len(reference.states) > 20
    assert view(compiled) == view(reference)


# the bounty of tests/test_causes_of_events.py (`by q`), with a `once` trigger reading lost_now()
# and one that draws the game
TRIGGERS = BOUNTY + """var seen: 0..3 = 0
trigger tally on lose player p once when lost_now(p) do seen := seen + 1; end
trigger last_one on leave player p when size(remaining) == 1 do draw; end
"""


def test_triggers_run_as_generated_code_and_explore_the_same_graph_as_the_closures(tmp_path):
    """A trigger is one generated function (condition, citation and body) unless it reads
    `lost_now()`, which only the closures evaluate; either way the graph is the reference's,
    the `by` cause, `once` and a trigger's own outcome included."""
    spec = tmp_path / "t.rw"
    spec.write_text(TRIGGERS, encoding="utf-8")
    (inst,) = load_instances(str(spec))
    m = CompiledMachine(inst)
    generated = {t.decl.name: t.run is not None for ts in m.triggers.values() for t in ts}
    assert generated == {"bounty": True, "turn_on": True, "tally": False, "last_one": True}
    assert view(explore(m, LIMITS)) == view(explore(Machine(inst), LIMITS))
