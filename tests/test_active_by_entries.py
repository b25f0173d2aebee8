"""The checks that read a condition in every state (`active` for starvation and never-active,
invariants, procedures, `reachable` properties) evaluate it once for states that agree on what
it reads (checker.analyses.explored: `is_active`, `holds_in`, with the entries the compiled
machine names): the same findings as the closures, which evaluate it in every state, an
evaluation error of the condition included."""
import json

from checker.cli import main
from checker.engine import load_instances
from checker.explicit.compiled import CompiledMachine

# `active` reads whose turn it is and d, not the totals; where d is 0 it has no value
ACTIVE_FAILS_LATE = """
players 2
var turn: player = P1
var d: 0..2 = 2
var life(p: player): 0..12 = 12
active p when turn == p and 4 / d > 1
action hit(q: players) progress when q != turn and life[q] > 0 do life[q] := life[q] - 1; turn := next(turn); end
action pass progress do turn := next(turn); end
action soften progress when d > 0 and life[P1] < 6 do d := d - 1; end
outcome out_of_life: lose player p when life[p] <= 0
"""


def report_with(successors: str, spec, monkeypatch, capsys) -> str:
    """The JSON report of `check` with the compiled successors or the closures (which remember
    nothing), symmetry off."""
    monkeypatch.setenv("RULEWRIGHT_SYMMETRY", "off")
    monkeypatch.setenv("RULEWRIGHT_SUCCESSORS", successors)
    main(["check", str(spec), "--jobs", "1", "--output-format", "json"])
    return capsys.readouterr().out


def test_active_read_once_per_turn_reports_what_the_closures_report_its_failure_included(tmp_path, monkeypatch,
                                                                                         capsys):
    spec = tmp_path / "s.rw"
    spec.write_text(ACTIVE_FAILS_LATE, encoding="utf-8")
    m = CompiledMachine(load_instances(str(spec))[0])
    assert [m.fields[i].var.name for i in m.active_entries()] == ["turn", "d"]  # not the totals
    reports = [report_with(engine, spec, monkeypatch, capsys) for engine in ("compiled", "closures")]
    assert reports[0] == reports[1]
    errors = [f for f in json.loads(reports[0])["findings"] if f["kind"] == "evaluation-error"]
    assert errors and "division by zero" in errors[0]["message"]


# The invariant, the procedure and the properties read d and whose turn it is, not the totals;
# where d is 0 the invariant has no value; `d == 3` and softened_on_p1 for q = P2 are never
# reached (every state is read, for each binding).
CONDITIONS_READ_FEW = """
players 2
var turn: player = P1
var d: 0..2 = 2
var life(p: player): 0..12 = 12
action hit(q: players) progress when q != turn and life[q] > 0 do life[q] := life[q] - 1; turn := next(turn); end
action pass progress do turn := next(turn); end
action soften progress when d > 0 and life[P1] < 6 do d := d - 1; end
outcome out_of_life: lose player p when life[p] <= 0
invariant halves: 4 / d >= 2
invariant second_keeps_two: turn == P1 or d >= 1
procedure softened: d < 2
reachable softened_on_p1(q: player): turn == q and q == P1 and d == 1
reachable beyond_range: d == 3 and turn == P1
"""


def test_invariants_procedures_and_properties_read_once_per_turn_report_what_the_closures_report(
        tmp_path, monkeypatch, capsys):
    spec = tmp_path / "s.rw"
    spec.write_text(CONDITIONS_READ_FEW, encoding="utf-8")
    m = CompiledMachine(load_instances(str(spec))[0])
    conds = [d.cond for d, _ in m.invariants] + [d.cond for d, _ in m.procedures] + [d.cond for d, _, _ in m.reachables]
    assert {tuple(m.fields[i].var.name for i in m.entries_read(c)) for c in conds} == {("d",), ("turn", "d")}
    reports = [report_with(engine, spec, monkeypatch, capsys) for engine in ("compiled", "closures")]
    assert reports[0] == reports[1]
    kinds = sorted(f["kind"] for f in json.loads(reports[0])["findings"])
    assert {"evaluation-error", "invariant", "unbounded-procedure"} <= set(kinds), kinds
    assert kinds.count("unreachable-property") == 2
