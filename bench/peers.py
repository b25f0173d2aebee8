"""Side by side: rulewright's explorer, a plain Python BFS and SPIN on the same model, the
turn-marker ring of the 2004 MTG multiplayer draft (607.7a-c), at growing n.

    python bench/peers.py                                  # small n, 3 runs, SPIN if installed
    python bench/peers.py --departures 12,13 --fixed 35,43 --runs 3
    python bench/peers.py --skip-spec --no-spin --fixed 27 --departures ""
    python bench/peers.py --departures 10 --fixed 16 --check   # and `rulewright check --param N=10 ...`
    python bench/peers.py --departures "" --fixed 43 --symmetry    # and the reduced search, and check, with symmetry
    python bench/peers.py --departures "" --fixed 61,62,63,64 --symmetry-only   # the reduced sides alone
    python bench/peers.py --family ffa --players 3,4 --life 5,10 --runs 3   # the free-for-all life family
    python bench/peers.py --family melee --runs 3    # a grand melee written with triggers, symmetry on/off

`--family ffa` and `--family melee` time rulewright's exploration alone, its whole `check`, the
plain BFS and SPIN with `spin -a` + gcc in CPU seconds (bench/families.py says how); the rest of
this text is about the ring (the default, `--family ring`).

The model's three forms are in bench/peers/ (copied from the project's shared peers folder):
`markers.rw` (rulewright), `markers_bfs.py` (a breadth-first search over bitmask tuples) and
`gen_promela.py` (writes the Promela model; SPIN installs with `apt-get install -y spin`).
Each measurement runs in a fresh child process whose own peak memory (ru_maxrss, from wait4) is
reported; the sides are alternated within each run so that load on the machine hits them
alike, and the median of --runs runs is printed. Times: rulewright's `explore()` alone (no
front end, checks or replays), the BFS's search, pan's own elapsed time (not `spin -a` + gcc).
Then the median wall time of `rulewright check spec/` in a fresh process, with --jobs 1 and
with the default (one worker per core).

The state and transition counts must agree with the BFS (SPIN counts one state more: its state
before initialisation); a disagreement is printed as a loud MISMATCH line. Nothing is asserted.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEERS = Path(__file__).resolve().parent / "peers"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def _peak_of(cmd: list[str], cwd: str | None = None, timeout: float = 3600, ok=(0,)) -> tuple[str, float, float]:
    """Run cmd as a direct child and read its peak memory from wait4 (Linux: KiB)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err, text=True)
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
            time.sleep(0.01)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text, problem = out.read(), err.read()
    if proc.returncode not in ok:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {problem.strip()[-500:]}")
    peak = usage.ru_maxrss / (2**20 if sys.platform == "darwin" else 2**10)
    LAST_CPU[0] = usage.ru_utime + usage.ru_stime
    return text, wall, peak


# CPU seconds (user + system) of the last process `_peak_of` ran: on a machine shared with other
# work the wall time measures the load as much as the program; the CPU time much less so
LAST_CPU = [0.0]


# ---------------------------------------------------------------- the three sides

ENGINE = "compiled"  # --engine: compiled successors (the default engine) or the reference closures


def rulewright(n: int, departures: bool, max_seconds: float) -> dict:
    out, _, peak = _peak_of([sys.executable, __file__, "--one", str(n), str(int(departures)), str(max_seconds), ENGINE])
    row = json.loads(out.strip().splitlines()[-1])
    row["peak"] = peak
    return row


def _one(n: int, departures: int, max_seconds: float, engine: str) -> None:
    """In a child: explore the ring of n seats and print its sizes as JSON."""
    from checker.engine import load_instances
    from checker.explicit.compiled import CompiledMachine
    from checker.explicit.explore import explore
    from checker.explicit.machine import Machine
    from checker.limits import Limits

    text = (PEERS / "markers.rw").read_text(encoding="utf-8")
    text = re.sub(r"(param N \[[^\]]*\] in )\S+", rf"\g<1>{n}..{n}", text)
    text = re.sub(r"(param DEPARTURES \[[^\]]*\] in )\S+", rf"\g<1>{departures}..{departures}", text)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "markers.rw"
        path.write_text(text, encoding="utf-8")
        (inst,) = load_instances(str(path))
    start = time.perf_counter()
    machine = CompiledMachine(inst) if engine == "compiled" else Machine(inst)
    graph = explore(machine, Limits(max_states=50_000_000, max_seconds=max_seconds))
    seconds = time.perf_counter() - start
    edges = getattr(graph, "nedges", None)
    if edges is None:
        edges = len(graph.edges)
    print(json.dumps({"states": len(graph.states), "transitions": edges, "seconds": seconds,
                      "complete": graph.complete, "stop": graph.stop_reason}))


def rulewright_symmetry(n: int, departures: bool, max_seconds: float) -> dict:
    out, _, peak = _peak_of([sys.executable, __file__, "--one-sym", str(n), str(int(departures)), str(max_seconds)])
    row = json.loads(out.strip().splitlines()[-1])
    row["peak"] = peak
    return row


def _ring_spec(n: int, departures: int, folder: str) -> Path:
    text = (PEERS / "markers.rw").read_text(encoding="utf-8")
    text = re.sub(r"(param N \[[^\]]*\] in )\S+", rf"\g<1>{n}..{n}", text)
    text = re.sub(r"(param DEPARTURES \[[^\]]*\] in )\S+", rf"\g<1>{departures}..{departures}", text)
    path = Path(folder) / "markers.rw"
    path.write_text(text, encoding="utf-8")
    return path


def _one_sym(n: int, departures: int, max_seconds: float) -> None:
    """In a child: the reduced search of the ring as `rulewright check` runs it (rotations, or
    those that map the setup onto itself), then every check on it; its sizes as JSON (the
    states and transitions it stands for, counted by the orbit sizes)."""
    from checker.analyses.checks import run_checks_within
    from checker.engine import load_instances
    from checker.explicit import symmetry
    from checker.explicit.compiled import CompiledMachine
    from checker.limits import Limits

    with tempfile.TemporaryDirectory() as tmp:
        (inst,) = load_instances(str(_ring_spec(n, departures, tmp)))
    start, cpu = time.perf_counter(), time.process_time()
    machine = CompiledMachine(inst)
    limits = Limits(max_states=50_000_000, max_seconds=max_seconds)
    k, why = symmetry.detect(inst)
    graph = symmetry.explore_reduced(machine, symmetry.Rotation(machine, k), limits) if k else None
    if graph is None and k:
        step = symmetry.setup_step(machine, k)
        graph = symmetry.explore_reduced(machine, symmetry.Rotation(machine, k, step), limits) if step else None
    if graph is None:
        print(json.dumps({"states": 0, "transitions": 0, "seconds": 0, "complete": False, "stop": f"not reduced: {why}"}))
        return
    seconds, search_cpu = time.perf_counter() - start, time.process_time() - cpu
    try:
        found, stopped = run_checks_within(graph, None)
        checked, checked_cpu, how = time.perf_counter() - start, time.process_time() - cpu, graph.symmetry
    except symmetry.Unreduced as exc:
        checked, checked_cpu, how = None, None, f"checks need the full graph: {exc}"
    print(json.dumps({"states": graph.nreal, "transitions": graph.nreal_edges, "seconds": seconds,
                      "cpu": search_cpu, "checked_cpu": checked_cpu,
                      "complete": graph.complete, "stop": graph.stop_reason, "reps": len(graph.states),
                      "checked": checked, "symmetry": how}))


def bfs(n: int, departures: bool) -> dict:
    cmd = [sys.executable, str(PEERS / "markers_bfs.py"), "-n", str(n)] + (["--elim"] if departures else [])
    out, _, peak = _peak_of(cmd)
    m = re.search(r"states=(\d+) transitions=(\d+) .*search_s=([\d.]+)", out)
    return {"states": int(m[1]), "transitions": int(m[2]), "seconds": float(m[3]), "peak": peak, "complete": True}


def build_spin(n: int, departures: bool, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    pml = folder / "model.pml"
    subprocess.run([sys.executable, str(PEERS / "gen_promela.py"), str(n), "-o", str(pml)]
                   + (["--elim", "--lazy"] if departures else []), check=True, capture_output=True)
    subprocess.run(["spin", "-a", pml.name], cwd=folder, check=True, capture_output=True)
    subprocess.run(["gcc", "-O2", "-DSAFETY", "-o", "pan", "pan.c"], cwd=folder, check=True, capture_output=True)
    return folder / "pan"


def spin(pan: Path) -> dict:
    # -m: pan's depth-first search stops at depth 10,000 by default and silently stores fewer
    # states (809,083 of 968,705 on the 43-seat ring, where the search reaches depth 537,656)
    out, wall, peak = _peak_of([str(pan), "-c0", "-n", "-m100000000"], cwd=str(pan.parent))
    states = int(re.search(r"([\d.e+]+) states, stored", out)[1].split(".")[0])
    trans = re.search(r"([\d.e+]+) transitions \(= stored\+matched\)", out)
    elapsed = re.search(r"pan: elapsed time ([\d.e+-]+) seconds", out)
    return {"states": states, "transitions": int(float(trans[1])) if trans else None,
            "seconds": float(elapsed[1]) if elapsed else wall, "peak": peak, "cpu": LAST_CPU[0],
            "complete": "max search depth too small" not in out}


# ---------------------------------------------------------------- the table

def median_row(rows: list[dict]) -> dict:
    row = dict(rows[0])
    row["seconds"] = statistics.median(r["seconds"] for r in rows)
    row["peak"] = statistics.median(r["peak"] for r in rows)
    return row


def show(model: str, n: int, tool: str, row: dict, ours: dict | None) -> str:
    rate = f"{row['states'] / row['seconds']:>11,.0f}" if row["seconds"] else f"{'-':>11}"
    ratio = ""
    if ours is not None and tool != "rulewright" and ours["seconds"]:
        ratio = f"{ours['seconds'] / row['seconds']:8.1f}x" if row["seconds"] else "       -"
    done = "" if row.get("complete", True) else f"  INCOMPLETE ({row.get('stop', '')})"
    trans = f"{row['transitions']:>12,}" if row.get("transitions") is not None else f"{'-':>12}"
    return (f"{model:11} {n:>3} {tool:11} {row['states']:>11,} {trans} {row['seconds']:>9.2f} {rate} "
            f"{row['peak']:>8.0f} {ratio:>9}{done}")


def check_counts(model: str, n: int, ours: dict, peer: dict, spin_row: dict | None) -> list[str]:
    out = []
    if ours.get("complete", True) and (ours["states"], ours["transitions"]) != (peer["states"], peer["transitions"]):
        out.append(f"!!! MISMATCH {model} n={n}: rulewright {ours['states']:,} states / {ours['transitions']:,} "
                   f"transitions, plain BFS {peer['states']:,} / {peer['transitions']:,}")
    if spin_row is not None and spin_row["states"] != peer["states"] + 1:
        out.append(f"!!! MISMATCH {model} n={n}: SPIN {spin_row['states']:,} states, expected the BFS's "
                   f"{peer['states']:,} + 1 (its state before initialisation)")
    return out


def _show_symmetry(model: str, n: int, rows: dict, departures: bool, args, tmp: str) -> None:
    """The reduced search's row (its time against SPIN's and the full search's), the time of
    every check on it, and `rulewright check` on the ring end to end (with --symmetry auto)."""
    got = rows["rw symmetry"]
    sym = median_row(got)
    print(show(model, n, "rw symmetry", sym, None) + f"  ({sym.get('reps', 0):,} orbits; {sym.get('symmetry', '')})")
    checked = [r["checked"] for r in got if r.get("checked") is not None]
    cpu = statistics.median(r["cpu"] for r in got)
    print(f"{'':15} reduced search: {cpu:.2f} CPU seconds", flush=True)
    for tool in ("SPIN", "rulewright"):
        if rows[tool]:
            other = median_row(rows[tool])["seconds"]
            print(f"{'':15} reduced search / {tool}: {sym['seconds'] / other:.2f}x" if other else "", flush=True)
    if checked:
        print(f"{model:11} {n:>3} {'sym checks':11} search and every check: median {statistics.median(checked):.2f}s, "
              f"{statistics.median(r['checked_cpu'] for r in got if r.get('checked_cpu') is not None):.2f} CPU seconds",
              flush=True)
    spec = _ring_spec(n, int(departures), tempfile.mkdtemp(dir=tmp))
    ends, cpus = [], []
    for _ in range(args.runs):
        ends.append(_peak_of([sys.executable, "-m", "checker", "check", str(spec), "--jobs", "1", "--symmetry", "auto",
                              "--engine", "explicit",  # the explorer's whole run, not handed over
                              "--max-seconds", str(args.max_seconds), "--max-states", "50000000"], cwd=str(ROOT),
                             ok=(0, 1, 3)))
        cpus.append(LAST_CPU[0])
    print(f"{model:11} {n:>3} {'sym check':11} `rulewright check` end to end: median "
          f"{statistics.median(w for _, w, _ in ends):.2f}s ({statistics.median(cpus):.2f} CPU seconds), "
          f"peak {statistics.median(m for _, _, m in ends):.0f} MiB", flush=True)
    if not got[0].get("complete", True):
        print(f"{'':15} {got[0].get('stop', '')}")


def _peak_and_cpu(cmd: list[str], cwd: str | None = None, ok=(0,)) -> tuple[str, float, float, float]:
    """`_peak_of` with the child's CPU seconds: (output, wall seconds, peak MiB, CPU seconds)."""
    text, wall, peak = _peak_of(cmd, cwd=cwd, ok=ok)
    return text, wall, peak, LAST_CPU[0]


def _families(args, use_spin: bool) -> None:
    """The free-for-all life family or the grand melee with triggers (bench/families.py)."""
    import families

    load = os.getloadavg()
    print(f"load average {load[0]:.1f} on {os.cpu_count()} cores (CPU times are quoted: load changes the wall "
          f"times more)", flush=True)
    if args.family == "ffa":
        problems = families.run_ffa([int(p) for p in args.players.split(",") if p.strip()],
                                    [int(v) for v in args.life.split(",") if v.strip()],
                                    args.runs, use_spin, args.max_seconds, _peak_and_cpu)
    else:
        problems = families.run_melee(args.runs, use_spin, args.max_seconds, _peak_and_cpu)
    if problems:
        print(f"!!! {len(problems)} mismatch(es) with the peers: see above")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--departures", default="8,10", help="ring sizes with departures (comma-separated)")
    ap.add_argument("--fixed", default="16,20,24", help="ring sizes with fixed players (comma-separated)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--max-seconds", type=float, default=600.0, help="rulewright's time limit per exploration")
    ap.add_argument("--no-spin", action="store_true")
    ap.add_argument("--skip-spec", action="store_true")
    ap.add_argument("--check", action="store_true",
                    help="also time `rulewright check markers.rw --param N=n --param DEPARTURES=d` end to end "
                         "(front end, exploration, every check, the Z3 replays) for n in the spec's 8..16")
    ap.add_argument("--engine", choices=("compiled", "closures"), default="compiled",
                    help="rulewright's successors: compiled (what `check` runs) or the reference closures")
    ap.add_argument("--symmetry", action="store_true",
                    help="also run the reduced search (rotations of the ring) and every check on it, and "
                         "`rulewright check` end to end on the ring of n seats")
    ap.add_argument("--symmetry-only", action="store_true",
                    help="only the reduced sides and SPIN (for rings too large for the others)")
    ap.add_argument("--family", choices=("ring", "ffa", "melee"), default="ring",
                    help="ring: the turn-marker ring (the options above); ffa: the free-for-all life family "
                         "(--players, --life); melee: the 12-seat grand melee written with triggers")
    ap.add_argument("--players", default="3,4", help="--family ffa: numbers of players (comma-separated)")
    ap.add_argument("--life", default="5,10", help="--family ffa: starting life totals (comma-separated)")
    ap.add_argument("--one", nargs=4, help=argparse.SUPPRESS)
    ap.add_argument("--one-sym", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        _one(int(args.one[0]), int(args.one[1]), float(args.one[2]), args.one[3])
        return
    if args.one_sym:
        _one_sym(int(args.one_sym[0]), int(args.one_sym[1]), float(args.one_sym[2]))
        return
    args.symmetry = args.symmetry or args.symmetry_only
    global ENGINE
    ENGINE = args.engine
    use_spin = not args.no_spin and shutil.which("spin") and shutil.which("gcc")
    if not args.no_spin and not use_spin:
        print("(SPIN not installed: apt-get install -y spin; its column is left out)")
    if args.family != "ring":
        _families(args, bool(use_spin))
        return
    cases = [("departures", int(n), True) for n in args.departures.split(",") if n.strip()]
    cases += [("fixed", int(n), False) for n in args.fixed.split(",") if n.strip()]
    print(f"{'model':11} {'n':>3} {'tool':11} {'states':>11} {'transitions':>12} {'seconds':>9} {'states/s':>11} "
          f"{'peak MiB':>8} {'rw/this':>9}   (median of {args.runs} runs, sides alternated)")
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        for model, n, departures in cases:
            only = args.symmetry_only
            pan = build_spin(n, departures, Path(tmp) / f"{model}{n}") if use_spin else None
            rows: dict[str, list[dict]] = {"rulewright": [], "plain BFS": [], "SPIN": [], "rw symmetry": []}
            for _ in range(args.runs):
                if not only:
                    rows["rulewright"].append(rulewright(n, departures, args.max_seconds))
                    rows["plain BFS"].append(bfs(n, departures))
                if pan is not None:
                    rows["SPIN"].append(spin(pan))
                if args.symmetry:
                    rows["rw symmetry"].append(rulewright_symmetry(n, departures, args.max_seconds))
            if args.symmetry:
                _show_symmetry(model, n, rows, departures, args, tmp)
            if only:
                if rows["SPIN"]:
                    print(show(model, n, "SPIN", median_row(rows["SPIN"]), None), flush=True)
                continue
            ours = median_row(rows["rulewright"])
            for tool, got in rows.items():
                if got and tool != "rw symmetry":
                    print(show(model, n, tool, median_row(got), ours), flush=True)
            if args.check and 8 <= n <= 16:
                ends = [_peak_of([sys.executable, "-m", "checker", "check", str(PEERS / "markers.rw"), "--jobs", "1",
                                  "--param", f"N={n}", "--param", f"DEPARTURES={int(departures)}", "--engine", "explicit",
                                  "--max-seconds", str(args.max_seconds), "--max-states", "50000000"], cwd=str(ROOT),
                                 ok=(0, 1, 3)) for _ in range(args.runs)]
                print(f"{model:11} {n:>3} {'check':11} end to end: median {statistics.median(w for _, w, _ in ends):.2f}s, "
                      f"peak {statistics.median(m for _, _, m in ends):.0f} MiB", flush=True)
            found = check_counts(model, n, ours, median_row(rows["plain BFS"]),
                                 median_row(rows["SPIN"]) if rows["SPIN"] else None)
            for line in found:
                print(line, flush=True)
            problems.extend(found)
    if not args.skip_spec and (ROOT / "spec").exists():
        # imported only now: on Linux a child's peak memory includes what this process held
        # when it forked, so nothing big may be loaded here before the measurements
        from run import time_check_spec
        for name, extra in (("--jobs 1", ["--jobs", "1"]), ("default jobs", [])):
            times = time_check_spec(args.runs, extra)
            print(f"rulewright check spec/ ({name}): median {statistics.median(times):.2f}s over {args.runs} runs "
                  f"(min {min(times):.2f}s, max {max(times):.2f}s)")
    if problems:
        print(f"!!! {len(problems)} count mismatch(es) with the peers: see above")


if __name__ == "__main__":
    main()
