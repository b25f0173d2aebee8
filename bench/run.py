"""Benchmarks: states, transitions, states per second and wall time.

    python bench/run.py                 # fixtures, the scalable ring, and `rulewright check spec/`
    python bench/run.py --runs 5 --ring 4,8,12,16,20

For each fixture and for a ring of n seats with one turn marker per four players, the explorer
is timed alone (median of --runs runs). `check spec/` is timed end to end, as a user runs it,
in a fresh process each time (median of --runs). Numbers are printed, never asserted.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checker.explicit.explore import Limits, explore  # noqa: E402
from checker.explicit.machine import Machine  # noqa: E402
from checker.engine import load_instances  # noqa: E402
from checker.frontend.parser import parse_file  # noqa: E402

RING = """
spec "Ring of {n} seats" formalizes "bench"
players [1] {n}
var marker(p: player) [1]: bool = seat(p) % 4 == 0
action pass_marker(p: player) [1] progress when marker[p] and not marker[next(p)] do
  marker[p] := false;
  marker[next(p)] := true;
end
active p [1] when marker[p]
"""


def time_explore(path: str, runs: int):
    rows = []
    for inst in load_instances(path):
        times, graph = [], None
        for _ in range(runs):
            machine = Machine(inst)
            t0 = time.perf_counter()
            graph = explore(machine, Limits(max_states=2_000_000, max_seconds=600))
            times.append(time.perf_counter() - t0)
        med = statistics.median(times)
        rows.append((inst.label, len(graph.states), len(graph.edges), len(graph.states) / med if med else 0.0, med))
    return rows


def time_check_spec(runs: int, extra: list[str] = ()) -> list[float]:
    """Wall seconds of `rulewright check spec/` end to end, in a fresh process each run."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "checker", "check", "spec/", *extra], cwd=ROOT, capture_output=True)
        times.append(time.perf_counter() - t0)
    return times


def print_rows(rows):
    for label, states, edges, rate, wall in rows:
        print(f"  {label[:70]:70} {states:>9,} {edges:>10,} {rate:>12,.0f} {wall:>9.3f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--ring", default="4,8,12,16,20")
    ap.add_argument("--skip-spec", action="store_true")
    args = ap.parse_args()
    print(f"  {'instance':70} {'states':>9} {'transitions':>10} {'states/s':>12} {'median s':>9}")
    print("fixtures:")
    for path in sorted(list((ROOT / "tests" / "fixtures").rglob("*.rw")) + list((ROOT / "tests" / "specs").glob("*.rw"))):
        if "bugs" in path.parts:
            continue
        try:
            print_rows(time_explore(str(path.relative_to(ROOT)), args.runs))
        except Exception as exc:  # a fixture with a deliberate input error
            print(f"  {path.relative_to(ROOT)}: skipped ({exc.__class__.__name__})")
    print("ring of n seats, one turn marker per four players:")
    with tempfile.TemporaryDirectory() as tmp:
        for n in [int(x) for x in args.ring.split(",")]:
            spec = Path(tmp) / f"ring{n}.rw"
            spec.write_text(RING.format(n=n), encoding="utf-8")
            print_rows(time_explore(str(spec), args.runs))
    if args.skip_spec or not (ROOT / "spec").exists():
        return
    times = time_check_spec(args.runs)
    print(f"rulewright check spec/: median {statistics.median(times):.2f}s over {args.runs} runs "
          f"(min {min(times):.2f}s, max {max(times):.2f}s)")


if __name__ == "__main__":
    main()
