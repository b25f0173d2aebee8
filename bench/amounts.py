"""Hydra's game (spec/force-of-will-floor-rules.rw, format `hydra`) at 8,000 life with damage as
an amount (`--param HITS=8000`, as the document counts) beside the same game with life in steps
of 8,000 (`HITS=1`, kept in spec/ to compare against): what the default run decides of each, and
at what CPU cost.

    python bench/amounts.py --runs 1
    python bench/amounts.py --runs 1 --forced-loop-units 10

Each side is `rulewright check force-of-will-floor-rules.rw --only hydra --param HITS=... --jobs
1` on spec/, once per run in a fresh child process; the table shows the median CPU seconds (user
+ system) and, per reading, the checks left undecided. `--forced-loop-units` and
`--starvation-units` set the ranking searches' caps (checker.symbolic.ranking SECONDS and
STARVATION_SECONDS) in the child, to measure what deciding the rest would cost or what a lower
cap loses. Nothing is asserted. (Until 2026-12-02 spec/ held only the steps of 8,000, and this
script wrote the game with amounts into a copy.)
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import peers  # noqa: E402

SPEC = "force-of-will-floor-rules.rw"
# the child: the caps set, then the command line
CHILD = ("import sys\nfrom checker.symbolic import ranking\n"
         "ranking.SECONDS, ranking.STARVATION_SECONDS = {forced}, {starving}\n"
         "from checker.cli import main\nsys.exit(main(sys.argv[1:]))\n")


def run(hits: int, forced: float, starving: float, max_seconds: float) -> dict:
    code = CHILD.format(forced=forced, starving=starving)
    out, _, _, cpu = peers._peak_and_cpu(
        [sys.executable, "-c", code, "check", SPEC, "--only", "hydra", "--param", f"HITS={hits}", "--jobs", "1",
         "--output-format", "json", "--max-seconds", str(max_seconds)],
        cwd=str(ROOT / "spec"), ok=(0, 1, 3))
    return {"cpu": cpu, **summary(json.loads(out))}


def summary(result: dict) -> dict:
    """A JSON report's findings (errors and warnings) and, per instance (its label past the
    spec's name), the checks left undecided."""
    undecided = {}
    for inst in result["instances"]:
        label = inst["instance"]
        left = set()
        for line in result["incomplete"]:  # "label: X not decided: why", "label: ...; not checked: X, Y"
            if not line.startswith(label + ": "):
                continue
            said = line[len(label) + 2:]
            if " not decided: " in said:
                left.add(said.split(" not decided: ")[0])
            if "; not checked: " in said:
                left.update(said.split("; not checked: ")[-1].split(", "))
        undecided[label.split(" | ", 1)[-1]] = sorted(left)
    errors = [f for f in result["findings"] if f.get("severity") != "info"]  # (notes are information only)
    return {"findings": len(errors), "undecided": undecided}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--forced-loop-units", type=float, default=None, help="ranking.SECONDS in the child")
    ap.add_argument("--starvation-units", type=float, default=None, help="ranking.STARVATION_SECONDS in the child")
    ap.add_argument("--max-seconds", type=float, default=2000.0)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from checker.symbolic import ranking
    forced = args.forced_loop_units or ranking.SECONDS
    starving = args.starvation_units or ranking.STARVATION_SECONDS
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} on {os.cpu_count()} cores; medians of {args.runs} run(s), CPU seconds; "
          f"ranking caps {forced:g} per check, {starving:g} per player")
    for side, hits in {"HITS=1 (steps of 8,000)": 1, "HITS=8000 (to the unit)": 8000}.items():
        rows = [run(hits, forced, starving, args.max_seconds) for _ in range(args.runs)]
        cpu = statistics.median(r["cpu"] for r in rows)
        print(f"{side:<24} {cpu:>8.1f} s  {rows[0]['findings']} finding(s)", flush=True)
        for reading, left in rows[0]["undecided"].items():
            print(f"    {reading:<44} undecided: {', '.join(left) or 'nothing'}")


if __name__ == "__main__":
    main()
