"""Hydra's game (spec/force-of-will-floor-rules.rw, format `hydra`) at 8,000 life with damage as
an amount, the version issue 22 asks spec/ to hold and that is not there yet: what the default
run decides of it, and at what CPU cost, beside the version in spec/ (life in steps of 8,000).

    python bench/amounts.py --runs 1
    python bench/amounts.py --runs 1 --forced-loop-units 45

The spec/ folder is copied to a temporary folder, and in the copy the game's life is written to
the unit (`0..8000 = 8000`), `damage_one_opponent` takes an amount `n: 1..8000` and
`each_player_loses_life` an amount `n: 1..4000` (each player's loss, so twice that from the
team's life), each taking the team's life to 0 at most. Nothing else changes. Where spec/ no
longer reads as this script expects, it says so and stops (update the rewriting below).

Each side is `rulewright check force-of-will-floor-rules.rw --only hydra --jobs 1`, once per
run in a fresh child process; the table shows the median CPU seconds (user + system) and, per
reading, the checks left undecided. `--forced-loop-units` and `--starvation-units` set the
ranking searches' caps (checker.symbolic.ranking SECONDS and STARVATION_SECONDS) in the child,
to measure what deciding the rest would cost. Nothing is asserted.
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
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import peers  # noqa: E402

SPEC = "force-of-will-floor-rules.rw"
# (what spec/ says, what the copy says instead): each must occur once in the `hydra` format
REWRITES = (
    ("var life(t: team) [A11.2.p1]: 0..8000 in steps of 8000 = 8000",
     "var life(t: team) [A11.2.p1]: 0..8000 = 8000"),
    ("""  action damage_one_opponent(q: players) [A11.2.p4, A11.2.p5, A11.2.p6, A11.2.p7, A11.2.p14] progress
    when phase == main_phase and team(q) != turn and life[team(q)] > 0 do
    life[team(q)] := life[team(q)] - 8000;""",
     """  action damage_one_opponent(q: players, n: 1..8000) [A11.2.p4, A11.2.p5, A11.2.p6, A11.2.p7, A11.2.p14] progress
    when phase == main_phase and team(q) != turn and life[team(q)] > 0 do
    life[team(q)] := if n >= life[team(q)] then 0 else life[team(q)] - n end;"""),
    ("""  action each_player_loses_life [A11.2.p14] progress
    when phase == main_phase and life[A] > 0 and life[B] > 0 do
    life[A] := life[A] - 8000;
    life[B] := life[B] - 8000;""",
     """  action each_player_loses_life(n: 1..4000) [A11.2.p14] progress
    when phase == main_phase and life[A] > 0 and life[B] > 0 do
    life[A] := if 2 * n >= life[A] then 0 else life[A] - 2 * n end;
    life[B] := if 2 * n >= life[B] then 0 else life[B] - 2 * n end;"""),
)
# the child: the caps set, then the command line
CHILD = ("import sys\nfrom checker.symbolic import ranking\n"
         "ranking.SECONDS, ranking.STARVATION_SECONDS = {forced}, {starving}\n"
         "from checker.cli import main\nsys.exit(main(sys.argv[1:]))\n")


def with_amounts(folder: Path) -> Path:
    """spec/ copied into `folder`, the game in the copy written with amounts; its spec file."""
    shutil.copytree(ROOT / "spec", folder / "spec")
    path = folder / "spec" / SPEC
    text = path.read_text(encoding="utf-8")
    start = text.index("format hydra [")
    end = text.index("\nformat ", start + 1)
    game = text[start:end]
    for old, new in REWRITES:
        if game.count(old) != 1:
            sys.exit(f"bench/amounts.py: the `hydra` format of spec/{SPEC} no longer reads:\n{old}\n"
                     "update REWRITES to the spec's words")
        game = game.replace(old, new)
    path.write_text(text[:start] + game + text[end:], encoding="utf-8")
    return path


def run(spec: Path, forced: float, starving: float, max_seconds: float) -> dict:
    code = CHILD.format(forced=forced, starving=starving)
    out, _, _, cpu = peers._peak_and_cpu(
        [sys.executable, "-c", code, "check", spec.name, "--only", "hydra", "--jobs", "1",
         "--output-format", "json", "--max-seconds", str(max_seconds)],
        cwd=str(spec.parent), ok=(0, 1, 3))
    result = json.loads(out)
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
    return {"cpu": cpu, "findings": len(errors), "undecided": undecided}


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
    with tempfile.TemporaryDirectory() as tmp:
        sides = {"spec/ (steps of 8,000)": ROOT / "spec" / SPEC, "amounts (to the unit)": with_amounts(Path(tmp))}
        for side, spec in sides.items():
            rows = [run(spec, forced, starving, args.max_seconds) for _ in range(args.runs)]
            cpu = statistics.median(r["cpu"] for r in rows)
            print(f"{side:<24} {cpu:>8.1f} s  {rows[0]['findings']} finding(s)", flush=True)
            for reading, left in rows[0]["undecided"].items():
                print(f"    {reading:<44} undecided: {', '.join(left) or 'nothing'}")


if __name__ == "__main__":
    main()
