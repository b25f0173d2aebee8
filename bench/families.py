"""The free-for-all life family and the grand melee written with triggers, side by side with
their peers (issue 19): run through `python bench/peers.py --family ffa|melee` (see its help).

    python bench/peers.py --family ffa --players 3,4 --life 5,10 --runs 3
    python bench/peers.py --family melee --runs 3

For each size, every run times each side once, in a fresh child process, the sides one after
the other (alternated, so that load on the machine hits them alike), and the table shows the
median of --runs runs of each side's CPU seconds (user + system of the child and the children
it waited for, from wait4: a machine shared with other work changes the wall time much more
than the CPU time) and peak memory:

- `rw explore`: rulewright's `explore()` of the whole state space alone (the spec loaded first,
  not timed; the machine's construction and the search timed, in the child's process time);
- `rw check`: the whole `rulewright check --jobs 1` process, as a user runs it (start-up, front
  end, exploration, every check, the Z3 replays), with `--symmetry auto` (the default) and, for
  the melee, `--symmetry off`;
- `plain BFS`: the whole process of the peer's breadth-first search (Python start-up included);
- `SPIN`: `spin -a` + `gcc -O2` + `pan` of the generated Promela model, each run from scratch
  (`pan alone`: the search only).

Ratios are each row's CPU time over the plain BFS's and over SPIN's whole (spin -a + gcc + pan).
The counts must agree: rulewright's exploration and `check` (its `--stats`, the states and
transitions the reduced search stands for) with the BFS, SPIN with the BFS plus its state
before initialisation (and, for the free-for-all, two transitions more: the initialising step
and the stored initial state); a disagreement is a loud MISMATCH line. For the melee the
findings of `check` with symmetry on and off (and of the same game written with copies,
markers.rw) are compared by kind, rules and size. Nothing is asserted.
"""
from __future__ import annotations

import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEERS = Path(__file__).resolve().parent / "peers"


# ---------------------------------------------------------------- the models at one size

def ffa_spec(players: int, life: int, folder: Path) -> Path:
    """A copy of ffa.rw with one value of P and L (any size, not only the declared ones)."""
    text = (PEERS / "ffa.rw").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^(param P \[[^\]]*\] in ).*$", rf"\g<1>{players}..{players}", text)
    text = re.sub(r"(?m)^(param L \[[^\]]*\] in ).*$", rf"\g<1>{{{life}}}", text)
    path = folder / f"ffa_p{players}_l{life}.rw"
    path.write_text(text, encoding="utf-8")
    return path


def ring_spec(n: int, departures: int, folder: Path) -> Path:
    """A copy of markers.rw (the ring written with copies) at one size."""
    text = (PEERS / "markers.rw").read_text(encoding="utf-8")
    text = re.sub(r"(param N \[[^\]]*\] in )\S+", rf"\g<1>{n}..{n}", text)
    text = re.sub(r"(param DEPARTURES \[[^\]]*\] in )\S+", rf"\g<1>{departures}..{departures}", text)
    path = folder / f"markers_n{n}_d{departures}.rw"
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------- the sides

def explore_child(spec: str) -> None:
    """In a child: rulewright's exploration of the spec's one instance, its sizes as JSON."""
    sys.path.insert(0, str(ROOT))
    from checker.engine import load_instances
    from checker.explicit.compiled import CompiledMachine
    from checker.explicit.explore import explore
    from checker.limits import Limits

    (inst,) = load_instances(spec)
    cpu, wall = time.process_time(), time.perf_counter()
    graph = explore(CompiledMachine(inst), Limits(max_states=50_000_000, max_seconds=3600))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    edges = getattr(graph, "nedges", None)
    print(json.dumps({"states": len(graph.states), "transitions": len(graph.edges) if edges is None else edges,
                      "cpu": cpu, "wall": wall, "complete": graph.complete}))


def rw_explore(spec: Path, peak_of) -> dict:
    out, _, peak, cpu = peak_of([sys.executable, __file__, "--explore", str(spec)])
    row = json.loads(out.strip().splitlines()[-1])
    return row | {"peak": peak, "process_cpu": cpu}


def rw_check(spec: Path, symmetry: str, peak_of, max_seconds: float) -> dict:
    out, _, peak, cpu = peak_of([sys.executable, "-m", "checker", "check", str(spec), "--jobs", "1", "--stats",
                                 "--output-format", "json", "--symmetry", symmetry, "--max-states", "50000000",
                                 "--engine", "explicit",  # the explorer's whole run, not handed over
                                 "--max-seconds", str(max_seconds)], cwd=str(ROOT), ok=(0, 1, 3))
    result = json.loads(out)
    (inst,) = result["instances"]
    findings = sorted((f["kind"], tuple(f["rules"]), f["size"]["count"] if f.get("size") else None, f["replay"])
                      for f in result["findings"])
    return {"states": inst["states"], "transitions": inst["transitions"], "complete": inst["complete"],
            "symmetry": inst.get("symmetry", ""), "findings": findings, "exit": result["exit_code"],
            "cpu": cpu, "peak": peak}


def bfs(cmd: list[str], peak_of) -> dict:
    out, _, peak, cpu = peak_of([sys.executable, *cmd])
    m = re.search(r"states=(\d+) transitions=(\d+) .*search_s=([\d.]+)", out)
    return {"states": int(m[1]), "transitions": int(m[2]), "search": float(m[3]), "cpu": cpu, "peak": peak}


def spin(generate: list[str], folder: Path, depth: int, peak_of) -> dict:
    """Generate the model (not timed: it is Python), then time `spin -a`, gcc and pan. `depth`
    bounds pan's depth-first search (-m; its default 10,000 silently stores fewer states on a
    deep model): a bound on the number of states, no more, since pan allocates its stack
    up front (-m100000000 costs gigabytes and seconds of system time)."""
    folder.mkdir(parents=True, exist_ok=True)
    pml = folder / "model.pml"
    subprocess.run([sys.executable, *generate, "-o", str(pml)], check=True, capture_output=True)
    _, _, _, spin_cpu = peak_of(["spin", "-a", pml.name], cwd=str(folder))
    _, _, _, gcc_cpu = peak_of(["gcc", "-O2", "-DSAFETY", "-o", "pan", "pan.c"], cwd=str(folder))
    out, _, peak, pan_cpu = peak_of(["./pan", "-c0", "-n", f"-m{depth}"], cwd=str(folder))
    states = int(re.search(r"([\d.e+]+) states, stored", out)[1].split(".")[0])
    trans = re.search(r"([\d.e+]+) transitions \(= stored\+matched\)", out)
    return {"states": states, "transitions": int(float(trans[1])) if trans else None, "pan": pan_cpu,
            "build": spin_cpu + gcc_cpu, "cpu": spin_cpu + gcc_cpu + pan_cpu, "peak": peak,
            "complete": "max search depth too small" not in out}


# ---------------------------------------------------------------- the table

def _med(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def _line(label: str, side: str, cpu: float, peak: float | None, bfs_cpu: float | None, spin_cpu: float | None,
          note: str = "") -> str:
    vs_bfs = f"{cpu / bfs_cpu:8.1f}x" if bfs_cpu else f"{'-':>9}"
    vs_spin = f"{cpu / spin_cpu:8.1f}x" if spin_cpu else f"{'-':>9}"
    mem = f"{peak:>8.0f}" if peak is not None else f"{'-':>8}"
    return f"{label:14} {side:22} {cpu:>9.2f} {mem} {vs_bfs} {vs_spin}  {note}".rstrip()


def header(runs: int) -> str:
    return (f"{'model':14} {'side':22} {'CPU s':>9} {'peak MiB':>8} {'vs BFS':>9} {'vs SPIN':>9}  "
            f"(medians of {runs} alternated runs; CPU = user + system; SPIN = spin -a + gcc + pan)")


def _counts(label: str, side: str, row: dict, peer: dict, extra_states: int = 0,
            extra_transitions: int | None = 0) -> list[str]:
    want = (peer["states"] + extra_states, None if extra_transitions is None else peer["transitions"] + extra_transitions)
    got = (row["states"], None if extra_transitions is None else row["transitions"])
    if row.get("complete", True) and got != want:
        return [f"!!! MISMATCH {label} {side}: {got[0]:,} states / {got[1]} transitions, expected "
                f"{want[0]:,} / {want[1]} from the plain BFS"]
    return []


def _table(label: str, sides: dict[str, list[dict]], peer: dict) -> list[str]:
    """Print one size's rows; return the count mismatches."""
    bfs_cpu = _med(sides["plain BFS"], "cpu")
    spin_rows = sides.get("SPIN") or []
    spin_cpu = _med(spin_rows, "cpu") if spin_rows else None
    problems = []
    print(f"{label:14} {peer['states']:,} states, {peer['transitions']:,} transitions", flush=True)
    for side, rows in sides.items():
        if not rows:
            continue
        note = ""
        if side == "rw explore":
            note = (f"search {_med(rows, 'wall'):.2f} s wall, {peer['states'] / _med(rows, 'cpu'):,.0f} states/CPU s; "
                    f"process {_med(rows, 'process_cpu'):.2f} s")
            problems += _counts(label, side, rows[0], peer)
        elif side.startswith("rw check"):
            note = f"exit {rows[0]['exit']}; symmetry: {rows[0]['symmetry']}"
            if "copies" not in side:
                problems += _counts(label, side, rows[0], peer)
        elif side == "plain BFS":
            note = f"search alone {_med(rows, 'search'):.2f} s wall"
        elif side == "SPIN":
            note = f"spin -a + gcc {_med(rows, 'build'):.2f} s"
        print(_line(label, side, _med(rows, "cpu"), _med(rows, "peak"), bfs_cpu, spin_cpu, note), flush=True)
        if side == "SPIN":
            print(_line(label, "pan alone", _med(rows, "pan"), None, bfs_cpu, spin_cpu), flush=True)
    return problems


def run_ffa(players: list[int], lives: list[int], runs: int, use_spin: bool, max_seconds: float, peak_of) -> list[str]:
    print(header(runs), flush=True)
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        for p in players:
            for life in lives:
                folder = Path(tmp) / f"p{p}l{life}"
                folder.mkdir()
                spec = ffa_spec(p, life, folder)
                sides: dict[str, list[dict]] = {"rw explore": [], "rw check": [], "plain BFS": [], "SPIN": []}
                for run in range(runs):
                    sides["rw explore"].append(rw_explore(spec, peak_of))
                    sides["rw check"].append(rw_check(spec, "auto", peak_of, max_seconds))
                    sides["plain BFS"].append(bfs([str(PEERS / "ffa_bfs.py"), "-p", str(p), "-l", str(life)], peak_of))
                    if use_spin:
                        # every state is (lives, turn): at most (L + 1)^P * P of them
                        sides["SPIN"].append(spin([str(PEERS / "ffa_promela.py"), str(p), str(life)],
                                                  folder / f"spin{run}", (life + 1) ** p * p + 2, peak_of))
                label = f"ffa P={p} L={life}"
                peer = sides["plain BFS"][0]
                problems += _table(label, sides, peer)
                if sides["SPIN"]:
                    # SPIN: one state before initialisation; transitions: the initialising step
                    # and the initial state, which pan counts as stored
                    problems += _counts(label, "SPIN", sides["SPIN"][0], peer, 1, 2)
    for line in problems:
        print(line, flush=True)
    return problems


def run_melee(runs: int, use_spin: bool, max_seconds: float, peak_of) -> list[str]:
    """The 12-seat grand melee with triggers (melee_triggers.rw), symmetry on and off, beside the
    same game written with copies (markers.rw, N = 12, DEPARTURES = 1) and the ring's peers."""
    print(header(runs), flush=True)
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        triggers = PEERS / "melee_triggers.rw"
        copies = ring_spec(12, 1, Path(tmp))
        sides: dict[str, list[dict]] = {name: [] for name in (
            "rw explore", "rw check", "rw check --symmetry off", "rw check copies", "rw check copies sym off",
            "plain BFS", "SPIN")}
        for run in range(runs):
            sides["rw explore"].append(rw_explore(triggers, peak_of))
            sides["rw check"].append(rw_check(triggers, "auto", peak_of, max_seconds))
            sides["rw check --symmetry off"].append(rw_check(triggers, "off", peak_of, max_seconds))
            sides["rw check copies"].append(rw_check(copies, "auto", peak_of, max_seconds))
            sides["rw check copies sym off"].append(rw_check(copies, "off", peak_of, max_seconds))
            sides["plain BFS"].append(bfs([str(PEERS / "markers_bfs.py"), "-n", "12", "--elim"], peak_of))
            if use_spin:
                # 119,605 states: the depth cannot exceed them
                sides["SPIN"].append(spin([str(PEERS / "gen_promela.py"), "12", "--elim", "--lazy"],
                                          Path(tmp) / f"spin{run}", 200_000, peak_of))
        label = "melee 12 trig"
        peer = sides["plain BFS"][0]
        problems += _table(label, sides, peer)
        if sides["SPIN"]:
            # the lazy Promela model has more (self-loop) transitions: states only
            problems += _counts(label, "SPIN", sides["SPIN"][0], peer, 1, None)
        on, off = sides["rw check"][0]["findings"], sides["rw check --symmetry off"][0]["findings"]
        same = sides["rw check copies"][0]["findings"]
        print(f"findings (kind, rules, size, replay) with symmetry auto: {on}", flush=True)
        print(f"  the same with --symmetry off: {'yes' if on == off else 'NO: ' + str(off)}; "
              f"the same as the game written with copies: {'yes' if on == same else 'NO: ' + str(same)}", flush=True)
        if on != off:
            problems.append("!!! MISMATCH melee: the findings differ with symmetry on and off")
    for line in problems:
        print(line, flush=True)
    return problems


if __name__ == "__main__":
    if sys.argv[1:2] == ["--explore"]:
        explore_child(sys.argv[2])
