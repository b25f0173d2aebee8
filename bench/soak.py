"""A soak run of the time limit: many `rulewright check` runs over the bundled specs and the test
fixtures, each with a random `--max-seconds`, several at a time on the same cores, compared with
one run without a limit that matters.

    python bench/soak.py --runs 300 --min 1 --max 60 --parallel 1-4          # the issue's soak
    python bench/soak.py --runs 20 --max 5 --parallel 4 --out soak-out       # a short, busy one

The promises it checks (issue 20, "Verdicts a CI can trust"), for every run:
- no internal error and no Python traceback; exit code 0, 1 or 3 (the reference run exits 1);
- no `expectation-unmet` that the reference run does not have (an expectation of an instance
  not checked to its end is "not checked", never unmet);
- every finding either is one of the reference run's (same kind, model, fingerprint and status)
  or belongs only to instances the run reports as not checked to their end; and every finding of
  the reference run it lacks belongs to such an instance.

Each run is a separate process (`python -m checker check ... --output-format json`), started
when a slot is free; the number of slots is redrawn between 1 and 4 (`--parallel 1-4`) every ten
runs, so the machine goes from idle to loaded and back. At the end: counts per exit code, how
many runs were complete, the CPU and wall time of the runs, and every broken promise (with the
run's arguments and output saved under `--out`). Exit 0 when every promise held.
"""
from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATHS = ["spec/", "tests/fixtures"]


def command(seconds: float | None, jobs: int) -> list[str]:
    cmd = [sys.executable, "-m", "checker", "check", *PATHS, "--output-format", "json", "--jobs", str(jobs)]
    if seconds is not None:
        cmd += ["--max-seconds", f"{seconds:g}"]
    return cmd


def key(f: dict) -> tuple:
    """What names a finding across runs: a fingerprint's `-2` suffix depends on which other
    findings share its hash, so the base is compared, with the kind, model and status."""
    return (f["kind"], f["model"], f["fingerprint"].split("-")[0], f["status"])


def problems(doc: dict | None, code: int, output: str, reference: dict) -> list[str]:
    """The promises this run broke ([] if none)."""
    out = []
    if "internal error" in output or "Traceback" in output:
        out.append("internal error or traceback")
    if code not in (0, 1, 3):
        out.append(f"exit code {code}")
    if doc is None:
        return out + ["no JSON report"]
    unfinished = {u["instance"] for u in doc.get("unfinished", [])}

    def excused(f: dict) -> bool:
        return bool(f["instances"]) and all(i in unfinished for i in f["instances"])
    ref = {key(f): f for f in reference["findings"]}
    mine = {key(f): f for f in doc["findings"]}
    for k, f in mine.items():
        if f["kind"] == "expectation-unmet" and k not in ref:
            out.append(f"expectation-unmet not in the reference run: {f['message']}")
        elif k not in ref and not excused(f):
            out.append(f"a finding the reference run does not have, in instances checked to their end: "
                       f"{f['kind']} {f['fingerprint']} {f['instances']}")
    for k, f in ref.items():
        if k not in mine and not excused(f) and not (f["kind"] == "readings-differ" and unfinished):
            # (readings are compared only when every instance of the file was checked to its end)
            out.append(f"a finding of the reference run missing, in instances checked to their end: "
                       f"{f['kind']} {f['fingerprint']} {f['instances']}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--min", type=float, default=1.0, help="smallest --max-seconds")
    ap.add_argument("--max", type=float, default=60.0, help="largest --max-seconds")
    ap.add_argument("--parallel", default="1-4", help="runs at a time: N or LOW-HIGH (redrawn every ten runs)")
    ap.add_argument("--jobs", type=int, default=1, help="--jobs of each run (default 1: the slots share the cores)")
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--out", default="soak-out", help="folder for the runs that broke a promise")
    args = ap.parse_args(argv)
    low, _, high = args.parallel.partition("-")
    low, high = int(low), int(high or low)
    rng = random.Random(args.seed)
    out = Path(args.out)

    print("reference run (no limit that matters) ...", flush=True)
    ref = subprocess.run(command(600, args.jobs), cwd=ROOT, capture_output=True, text=True)
    reference = json.loads(ref.stdout)
    if ref.returncode != 1 or reference.get("unfinished"):
        print(f"the reference run must be complete with findings (exit 1); it exited {ref.returncode}")
        return 2

    codes: Counter = Counter()
    broken: list[tuple[int, list[str]]] = []
    complete = 0
    running: dict = {}  # process -> (run number, seconds)
    started = 0
    slots = rng.randint(low, high)
    start_wall = time.perf_counter()
    while started < args.runs or running:
        while started < args.runs and len(running) < slots:
            seconds = round(rng.uniform(args.min, args.max), 1)
            # files, not pipes: a report of 700 KB fills a pipe nobody reads until the run ends
            files = (tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+"))
            p = subprocess.Popen(command(seconds, args.jobs), cwd=ROOT, stdout=files[0], stderr=files[1], text=True)
            running[p] = (started, seconds, files)
            started += 1
            if started % 10 == 0:
                slots = rng.randint(low, high)
        time.sleep(0.05)
        for p in [p for p in running if p.poll() is not None]:
            n, seconds, files = running.pop(p)
            stdout, stderr = (f.seek(0) or f.read() for f in files)
            for f in files:
                f.close()
            try:
                doc = json.loads(stdout)
            except json.JSONDecodeError:
                doc = None
            codes[p.returncode] += 1
            complete += bool(doc) and not doc.get("unfinished")
            bad = problems(doc, p.returncode, stdout + stderr, reference)
            if bad:
                broken.append((n, bad))
                out.mkdir(exist_ok=True)
                (out / f"run-{n:04d}.txt").write_text(
                    f"--max-seconds {seconds} (exit {p.returncode})\n" + "\n".join(bad) + "\n\n" + stdout + stderr)
            print(f"run {n:4d}: --max-seconds {seconds:5.1f}, {len(running) + 1} at a time, exit {p.returncode}"
                  + (f", BROKEN: {bad[0]}" if bad else ""), flush=True)
    wall = time.perf_counter() - start_wall
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"\n{args.runs} runs in {wall:.0f} s wall, {kids.ru_utime + kids.ru_stime:.0f} s CPU "
          f"(the reference run included); exit codes: {dict(sorted(codes.items()))}; "
          f"{complete} checked to the end, {args.runs - complete} incomplete")
    print(f"broken promises: {len(broken)} run(s)" + (f" (saved under {out}/)" if broken else ""))
    for n, bad in broken[:20]:
        print(f"  run {n}: {'; '.join(bad)[:300]}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
