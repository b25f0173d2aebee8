"""The Z3 replay alone: run `rulewright check` on the given specs in this process, keep every
trace the engine replays, then replay them all again `--runs` times and print the CPU time of
each pass (the median last). The traces are replayed without the memo the engine shares
between traces of one instance, so every step is counted.

    python bench/replay.py spec/ --runs 3
    RULEWRIGHT_SYMMETRY=off python bench/replay.py ring31.rw   # a 31-step lasso on 31 seats

(ring31.rw: bench/peers/markers.rw with `param N [607.1] in 31..31` and DEPARTURES 0..0.)
"""
from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from checker import cli  # noqa: E402
from checker.symbolic import replay as z3replay  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("specs", nargs="+")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    traces = []
    replay = z3replay.replay

    def keep(inst, steps, memo=None):
        verdict = replay(inst, steps, memo)
        traces.append((inst, steps, verdict))
        return verdict

    z3replay.replay = keep
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            cli.main(["check", *args.specs, "--jobs", "1"])
        except SystemExit:
            pass
    z3replay.replay = replay
    print(f"{len(traces)} trace(s), {sum(len(s) for _, s, _ in traces)} step(s)")
    times = []
    for _ in range(args.runs):
        start = time.process_time()
        for inst, steps, verdict in traces:
            assert replay(inst, steps) == verdict, "a replay changed its verdict"
        times.append(time.process_time() - start)
        print(f"replay pass: {times[-1]:.3f} s CPU")
    print(f"median: {statistics.median(times):.3f} s CPU")


if __name__ == "__main__":
    main()
