"""V:TES's pool as the document counts it (a starting pool of 30, six gained for an ousted prey,
one lost to a bleed or a "burn 1 pool" effect) beside spec/'s abstraction (each of the three
counted as one unit, `pool: 0..2`): what the default run decides of each, and at what CPU cost.
The last of spec/'s shrunk numbers (issue 22), measured here until the symbolic engine decides
it; the spec's own header says why it cannot be written `in steps of`.

    python bench/vtes_pool.py --only casual/as_written
    python bench/vtes_pool.py --only tournament/as_written --max-seconds 900

Each side is `rulewright check F --only ... --jobs 1` in a fresh child process, F spec/'s file
(the abstraction) or a copy of it with REWRITES applied (the document's numbers, in a temporary
folder beside a copy of its source text); the table shows the CPU seconds (user + system), the
findings, the longest trace, and per instance the checks left undecided. Nothing is asserted;
tests/test_bench_vtes_pool.py checks that the rewrites still apply to spec/ and give a spec that
loads.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import amounts  # noqa: E402
import peers  # noqa: E402

SPEC = ROOT / "spec" / "vtes-ending-the-game-and-tournament-scoring.rw"
# (spec/'s text, the document's): each must occur exactly once in spec/
REWRITES = (
    # every Methuselah starts with 30; no one holds more than 30 and six per prey ousted
    ("var pool(p: player) [RB2.2.a]: 0..2 = 1",
     "var pool(p: player) [RB2.2.a]: 0..30 + 6 * (nplayers - 1) = 30"),
    # six pool for an ousted prey; the bank never runs out, so nothing caps it (RB2.2.b)
    ("pool[hunter] := min(2, pool[hunter] + 1);", "pool[hunter] := pool[hunter] + 6;"),
)


def document_numbers(text: str) -> str:
    """spec/'s text with REWRITES applied; ValueError naming a rewrite that no longer applies."""
    for old, new in REWRITES:
        if text.count(old) != 1:
            raise ValueError(f"spec/ no longer holds exactly one `{old}`: update bench/vtes_pool.py REWRITES")
        text = text.replace(old, new)
    return text


def write_copy(folder: Path) -> Path:
    """The copy at the document's numbers in `folder`, beside its source text."""
    (folder / "sources").mkdir(parents=True, exist_ok=True)
    source = SPEC.parent / "sources" / (SPEC.stem + ".txt")
    shutil.copy(source, folder / "sources" / source.name)
    path = folder / SPEC.name
    path.write_text(document_numbers(SPEC.read_text(encoding="utf-8")), encoding="utf-8")
    return path


def run(path: Path, only: str, max_seconds: float) -> dict:
    out, _, _, cpu = peers._peak_and_cpu(
        [sys.executable, "-m", "checker", "check", path.name, "--only", only, "--jobs", "1",
         "--output-format", "json", "--max-seconds", str(max_seconds)],
        cwd=str(path.parent), ok=(0, 1, 3))
    result = json.loads(out)
    # (a finding's trace is ITF: its states, the setup first)
    steps = [len((f.get("trace") or {}).get("states", ())) - 1 for f in result["findings"]]
    return {"cpu": cpu, "longest": max(steps, default=0), **amounts.summary(result)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="casual/as_written", help="the format/reading to check (rulewright --only)")
    ap.add_argument("--max-seconds", type=float, default=600.0)
    args = ap.parse_args()
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} on {os.cpu_count()} cores; one run each, CPU seconds; --only {args.only}")
    with tempfile.TemporaryDirectory() as tmp:
        sides = {"spec/ (1 unit each)": SPEC, "30 / 6 / 1 pool": write_copy(Path(tmp))}
        for side, path in sides.items():
            r = run(path, args.only, args.max_seconds)
            print(f"{side:<22} {r['cpu']:>8.1f} s  {r['findings']} finding(s), longest trace {r['longest']} steps",
                  flush=True)
            for label, left in r["undecided"].items():
                print(f"    {label:<48} undecided: {', '.join(left) or 'nothing'}")


if __name__ == "__main__":
    main()
