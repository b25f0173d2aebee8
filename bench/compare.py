"""Side by side: this working tree against an earlier revision, runs alternated.

    python bench/compare.py                   # against HEAD~1
    python bench/compare.py --rev 3c21071 --runs 5

Both sides run `python -m checker check` end to end in a fresh process (what a user waits
for) on spec/ and on the scalable ring of bench/run.py, alternating old and new so that load
on the machine hits both alike. Prints the median of each side and the ratio new/old; nothing
is asserted. The old revision is checked out into a temporary git worktree and removed after.
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
sys.path.insert(0, str(ROOT / "bench"))

from run import RING  # noqa: E402


def timed(tree: Path, args: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "checker", "check", *args], cwd=tree, capture_output=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rev", default="HEAD~1")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ring", default="12,16,20")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(old), args.rev], cwd=ROOT, check=True)
        try:
            cases = [("check spec/", ["spec/"])]
            for n in [int(x) for x in args.ring.split(",")]:
                spec = Path(tmp) / f"ring{n}.rw"
                spec.write_text(RING.format(n=n), encoding="utf-8")
                cases.append((f"check ring{n}.rw", [str(spec), "--max-states", "2000000", "--max-seconds", "600"]))
            print(f"{'case':24} {'old median s':>13} {'new median s':>13} {'new/old':>8}   (rev {args.rev}, {args.runs} runs)")
            for name, cmd in cases:
                olds, news = [], []
                for _ in range(args.runs):
                    olds.append(timed(old, cmd))
                    news.append(timed(ROOT, cmd))
                o, n = statistics.median(olds), statistics.median(news)
                print(f"{name:24} {o:13.2f} {n:13.2f} {n / o:8.2f}")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT, check=False)


if __name__ == "__main__":
    main()
