"""The free-for-all life family at the documents' numbers (issue 22): rulewright's symbolic
engine beside its explorer, the plain Python BFS and SPIN (bench/peers/), per size.

    python bench/symbolic.py --players 2,3,4 --life 5,20,40,8000 --runs 3
    python bench/symbolic.py --players 4 --life 1000000 --runs 1 --no-spin

Each run times each side once in a fresh child process, one side after the other, and the
table shows the median over --runs of its CPU seconds (user + system, from wait4) and peak
memory, with what it decided:

- `rw auto`: `rulewright check --jobs 1`, the default: the explorer, and the symbolic engine
  where the ranges allow more states than the limit and the explorer does not end within its
  first 50,000 states (docs/checks.md);
- `rw symbolic`: `rulewright check --jobs 1 --engine symbolic` (the explorer looks at 2,000
  states, then Spacer and the directed search decide the safety checks): how many questions
  were proved, shown by a play (found), or left undecided;
- `rw explicit`: `rulewright check --jobs 1 --engine explicit` with the default state limit:
  complete or not;
- `plain BFS` and `SPIN`: the peers, only where the whole state space ((L + 1)^P * P states at
  most) is under --peer-states (they enumerate every value: that is what the symbolic engine
  avoids).

Nothing is asserted; the verdicts of the two rulewright sides are printed for comparison
(where the explorer finishes, the symbolic side must not prove away what it finds:
tests/test_unbounded.py asserts that on the fixtures).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import families  # noqa: E402
import peers  # noqa: E402


def rw(spec: Path, engine: str, max_seconds: float) -> dict:
    out, _, peak, cpu = peers._peak_and_cpu(
        [sys.executable, "-m", "checker", "check", str(spec), "--jobs", "1", "--output-format", "json",
         "--engine", engine, "--max-seconds", str(max_seconds)], cwd=str(families.ROOT), ok=(0, 1, 3))
    result = json.loads(out)
    (inst,) = result["instances"]
    verdicts = [d["verdict"] for d in inst.get("decisions", [])]
    return {"cpu": cpu, "peak": peak, "complete": inst["complete"], "states": inst["states"],
            "findings": len(result["findings"]), "proved": verdicts.count("proved"),
            "found": verdicts.count("found"), "unknown": verdicts.count("unknown")}


def verdict(row: dict, engine: str) -> str:
    if engine == "explicit" or engine == "auto" and row["complete"]:
        return f"{'complete' if row['complete'] else 'incomplete'}, {row['states']:,} states, {row['findings']} finding(s)"
    return f"proved {row['proved']}, found {row['found']}, undecided {row['unknown']}, {row['findings']} finding(s)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", default="2,3,4")
    ap.add_argument("--life", default="5,20,40,8000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--max-seconds", type=float, default=600.0)
    ap.add_argument("--peer-states", type=float, default=5e6, help="run the peers only below this many states")
    ap.add_argument("--no-spin", action="store_true")
    args = ap.parse_args()
    if not args.no_spin and shutil.which("spin") is None:
        print("spin not found (apt install spin): SPIN left out")
        args.no_spin = True
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} on {os.cpu_count()} cores; medians of {args.runs} run(s), CPU seconds")
    print(f"{'size':<16} {'side':<12} {'CPU s':>9} {'peak MiB':>9}  verdicts")
    with tempfile.TemporaryDirectory() as tmp:
        for p in (int(x) for x in args.players.split(",") if x.strip()):
            for life in (int(x) for x in args.life.split(",") if x.strip()):
                folder = Path(tmp) / f"p{p}l{life}"
                folder.mkdir()
                spec = families.ffa_spec(p, life, folder)
                small = (life + 1) ** p * p <= args.peer_states
                sides: dict[str, list[dict]] = {"rw auto": [], "rw symbolic": [], "rw explicit": [], "plain BFS": [], "SPIN": []}
                for run in range(args.runs):
                    sides["rw auto"].append(rw(spec, "auto", args.max_seconds))
                    sides["rw symbolic"].append(rw(spec, "symbolic", args.max_seconds))
                    sides["rw explicit"].append(rw(spec, "explicit", args.max_seconds))
                    if small:
                        sides["plain BFS"].append(families.bfs(
                            [str(families.PEERS / "ffa_bfs.py"), "-p", str(p), "-l", str(life)], peers._peak_and_cpu))
                        if not args.no_spin:
                            sides["SPIN"].append(families.spin(
                                [str(families.PEERS / "ffa_promela.py"), str(p), str(life)], folder / f"spin{run}",
                                (life + 1) ** p * p + 2, peers._peak_and_cpu))
                for side, rows in sides.items():
                    if not rows:
                        continue
                    cpu = statistics.median(r["cpu"] for r in rows)
                    peak = statistics.median(r["peak"] for r in rows)
                    what = verdict(rows[0], side.split()[-1]) if side.startswith("rw") else f"{rows[0]['states']:,} states"
                    print(f"{f'P={p} L={life}':<16} {side:<12} {cpu:>9.2f} {peak:>9.0f}  {what}", flush=True)


if __name__ == "__main__":
    main()
