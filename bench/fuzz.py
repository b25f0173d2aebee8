"""A fuzz campaign against the CLI: specs generated from the grammar and mutations of the
bundled specs and fixtures, each run through `checker.cli.main` with small limits.

    python bench/fuzz.py --inputs 100000 --workers 2          # a long campaign
    python bench/fuzz.py --inputs 2000 --seed 7 --out fuzz-out  # another seed, another folder
    python bench/fuzz.py --inputs 1000000 --cluster tcp://scheduler:8786 --batch 200  # on a Dask cluster

Input i of seed s is always the same text (`make_input(s, i)`), so a campaign can be resumed
(`--start`) and any input rebuilt from its number. Workers are processes that run inputs
in-process (no interpreter start per input) and report each result on a line; one silent for
longer than `--hang` seconds is killed and its input counted as a hang. At the end: counts per
exit code, and every input that broke a promise is saved to the --out folder with what it
printed. The promises (the same as tests/test_fuzz.py checks): no "internal error" or
traceback, an exit code in {0, 1, 2, 3, 4}, every diagnostic located (line > 0).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMITS = ["--max-states", "300", "--max-seconds", "0.5", "--max-memory", "1500", "--jobs", "1"]  # in-process: no worker pool per input


# ---------------------------------------------------------------- the corpus

def corpus() -> list[str]:
    """The texts mutations start from: the bundled specs, the test specs and the fixtures."""
    paths = sorted([*ROOT.glob("spec/*.rw"), *ROOT.glob("tests/specs/*.rw"), *ROOT.glob("tests/fixtures/**/*.rw"),
                    *ROOT.glob("tests/hostile/R0*.rw"), *ROOT.glob("tests/hostile/R1[0-4]*.rw")])
    return [p.read_text(encoding="utf-8") for p in paths]


# ---------------------------------------------------------------- specs from the grammar

class Gen:
    """A random spec, mostly well typed (so it gets past the front end and into the engines),
    with a few deliberate slips (a wrong type, an unknown name, a stray number)."""

    def __init__(self, r: random.Random):
        self.r = r
        self.teams = r.random() < 0.3
        self.vars: list[tuple[str, str, str]] = []  # (name, type, index kind or "")
        self.params: list[str] = []
        self.enum = ["red", "green", "blue"][: r.randint(1, 3)]
        self.binders: list[tuple[str, str]] = []
        self.n = 0
        self.big = False  # 200 players: no variable of type `set player` (2^200 values)

    def name(self, prefix="v") -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def num(self) -> str:
        r = self.r.random()
        if r < 0.75:
            return str(self.r.randint(0, 4))
        if r < 0.9:
            return str(self.r.randint(0, 40))
        return self.r.choice(["0", "1000000", "999999999999", "100000000", "65536", "63"])

    def tags(self) -> str:
        if self.r.random() < 0.5:
            return ""
        return " [" + ", ".join(self.r.choice(["1", "2", "2.1", "3a", "X9"]) for _ in range(self.r.randint(1, 2))) + "]"

    # expressions of a wanted type: bool, int, player, team, players, enum
    def expr(self, ty: str, depth: int = 0) -> str:
        r = self.r
        if r.random() < 0.005:  # a slip: any type
            ty = r.choice(["bool", "int", "player", "team", "players"])
        leaf = depth > 3 or r.random() < 0.35
        binders = [b for b, t in self.binders if t == ty]
        vars_ = [(v, ix) for v, t, ix in self.vars if t == ty]
        if ty == "bool":
            if leaf:
                return self.leaf(["true", "false"] + binders, vars_, depth)
            k = r.randrange(11)
            if k == 0:
                return f"not {self.expr('bool', depth + 1)}"
            if k == 1:
                return f"({self.expr('bool', depth + 1)} {r.choice(['and', 'or', 'implies'])} {self.expr('bool', depth + 1)})"
            if k == 2:
                return f"{self.expr('int', depth + 1)} {r.choice(['==', '!=', '<', '<=', '>', '>='])} {self.expr('int', depth + 1)}"
            if k == 3:
                return f"{self.expr('player', depth + 1)} {r.choice(['==', '!='])} {self.expr('player', depth + 1)}"
            if k == 4:
                return f"{self.expr('player', depth + 1)} {r.choice(['in', 'not in'])} {self.expr('players', depth + 1)}"
            if k == 5:
                return f"{r.choice(['in_game', 'lost', 'won'])}({self.expr('player', depth + 1)})"
            if k == 6 and self.teams:
                return f"{r.choice(['in_game', 'lost', 'won'])}({self.expr('team', depth + 1)})"
            if k == 7:
                return self.quantified(depth)
            if k == 8:
                return f"if {self.expr('bool', depth + 1)} then {self.expr('bool', depth + 1)} else {self.expr('bool', depth + 1)} end"
            if k == 9:
                return f"{self.expr('int', depth + 1)} in {{{self.expr('int', depth + 1)}, {self.num()}}}"
            return r.choice(["true", "false"])
        if ty == "int":
            if leaf:
                return self.leaf([self.num(), self.num()] + binders + self.params + ["nplayers", "nteams", "team_size"],
                                 vars_, depth)
            k = r.randrange(9)
            if k <= 2:
                return f"({self.expr('int', depth + 1)} {r.choice(['+', '-', '*', '/', '%'])} {self.expr('int', depth + 1)})"
            if k == 3:
                return f"-{self.expr('int', depth + 1)}"
            if k == 4:
                return f"abs({self.expr('int', depth + 1)})"
            if k == 5:
                return f"size({self.expr('players', depth + 1)})"
            if k == 6:
                if r.random() < 0.3:
                    return f"seat({self.expr('player', depth + 1)})"
                return f"{r.choice(['dist', 'dist_left', 'dist_in_game'])}({self.expr('player', depth + 1)}, " \
                       f"{self.expr('player', depth + 1)})"
            if k == 7:
                b = self.name("k")
                dom = self.domain(depth)
                self.binders.append((b, dom[1]))
                agg = r.choice(['count', 'sum', 'min', 'max'])
                body = self.expr("bool" if agg == "count" else "int", depth + 1)
                self.binders.pop()
                return f"{agg}({b} in {dom[0]}: {body})"
            return f"if {self.expr('bool', depth + 1)} then {self.expr('int', depth + 1)} else {self.expr('int', depth + 1)} end"
        if ty == "player":
            if leaf:
                vars_ += [(v, ix) for v, t, ix in self.vars if t == "player?"]
                names = ["A1", "B1", r.choice(["A2", "B2"])] if self.teams else ["P1", "P2", "P1"]
                if r.random() < 0.05:
                    names.append(r.choice(["none", "P3", "P9", "C1"]))
                return self.leaf(names + binders, vars_, depth)
            k = r.randrange(5)
            if k == 0:
                return f"{r.choice(['next', 'next_in_game', 'prev_in_game', 'across'])}({self.expr('player', depth + 1)})"
            if k == 1:
                return f"{r.choice(['left', 'right', 'left_in_game'])}({self.expr('player', depth + 1)}, {self.expr('int', depth + 1)})"
            if k == 2:
                return f"player_at({self.expr('int', depth + 1)})"
            if k == 3:
                return f"after({self.expr('player', depth + 1)}, {'A1, B1' if self.teams else 'P1, P2'})"
            return f"if {self.expr('bool', depth + 1)} then {self.expr('player', depth + 1)} else {self.expr('player', depth + 1)} end"
        if ty == "team":
            opts = ["A", "B"] + binders + [v for v, ix in vars_ if not ix] if self.teams else ["A"]
            if not leaf and r.random() < 0.5:
                return f"team({self.expr('player', depth + 1)})"
            return r.choice(opts)
        if ty == "players":
            if leaf:
                lit = ["{A1}", "{A1, B1}"] if self.teams else ["{P1}", "{P1, P2}"]
                return r.choice(["players", "remaining", "{}"] + lit + [v for v, ix in vars_ if not ix])
            k = r.randrange(4)
            if k == 0:
                return f"{r.choice(['opponents', 'teammates'])}({self.expr('player', depth + 1)})"
            if k == 1 and self.teams:
                return f"members({self.expr('team', depth + 1)})"
            if k == 2:
                return f"{{{self.expr('player', depth + 1)}, {self.expr('player', depth + 1)}}}"
            return r.choice(["players", "remaining"])
        if ty == "enum":
            return r.choice(self.enum + [v for v, ix in vars_ if not ix])
        return self.num()

    def leaf(self, plain: list[str], vars_: list[tuple[str, str]], depth: int) -> str:
        """One of the plain leaves or a variable (indexed ones with an index expression)."""
        k = self.r.randrange(len(plain) + len(vars_))
        if k < len(plain):
            return plain[k]
        v, ix = vars_[k - len(plain)]
        return v if not ix else f"{v}[{self.index(ix, depth + 2)}]"

    def index(self, ix: str, depth: int) -> str:
        return self.expr({"player": "player", "team": "team", "int": "int", "enum": "enum"}[ix], depth + 1)

    def domain(self, depth: int) -> tuple[str, str]:
        r = self.r.random()
        if r < 0.4:
            return "players", "player"
        if r < 0.5:
            return self.expr("players", depth + 1), "player"
        if r < 0.6 and self.teams:
            return "teams", "team"
        if r < 0.9:
            return f"{self.expr('int', depth + 2)}..{self.expr('int', depth + 2)}", "int"
        return f"0..{self.r.choice(['3', '10', '100000', '10000000000'])}", "int"

    def quantified(self, depth: int) -> str:
        b = self.name("q")
        dom = self.domain(depth)
        self.binders.append((b, dom[1]))
        body = self.expr("bool", depth + 1)
        self.binders.pop()
        return f"({self.r.choice(['forall', 'exists'])} {b} in {dom[0]}: {body})"

    def stmt(self, depth: int = 0) -> str:
        r = self.r
        k = r.randrange(10)
        if k <= 4 and self.vars:
            v, ty, ix = r.choice(self.vars)
            want = {"set": "players", "player?": "player", "int": "int"}.get(ty, ty)
            target = v if not ix else f"{v}[{self.index(ix, depth)}]"
            return f"{target} := {self.expr(want, depth + 1)};"
        if k == 5 and depth < 2:
            body = " ".join(self.stmt(depth + 1) for _ in range(r.randint(0, 2)))
            other = f" else {self.stmt(depth + 1)}" if r.random() < 0.5 else ""
            return f"if {self.expr('bool', depth + 1)} then {body}{other} end"
        if k == 6 and depth < 2:
            b = self.name("f")
            dom = self.domain(depth)
            self.binders.append((b, dom[1]))
            body = " ".join(self.stmt(depth + 1) for _ in range(r.randint(0, 2)))
            self.binders.pop()
            return f"forall {b} in {dom[0]} do {body} end"
        if k == 7:
            return f"lose {self.expr('team' if self.teams and r.random() < 0.3 else 'player', depth + 1)};"
        if k == 8:
            return f"win {self.expr('player', depth + 1)};"
        if k == 9 and r.random() < 0.3:
            return "draw;"
        return f"{r.choice(['[1] ', ''])}lose {self.expr('player', depth + 1)};"

    def vtype(self) -> tuple[str, str]:
        r = self.r.random()
        if r < 0.2:
            return "bool", "bool"
        if r < 0.55:
            lo = self.r.choice(["0", "0", "-2", "1"])
            hi = self.r.choice(["1", "2", "3", "5", "N" if self.params else "4"] * 4 + ["1000000", "100000000"])
            return f"{lo}..{hi}", "int"
        if r < 0.7:
            return "player", "player"
        if r < 0.77:
            return "player?", "player?"
        if r < 0.85 and self.teams:
            return "team", "team"
        if r < 0.92 and not self.big:
            return "set player", "set"
        return "{" + ", ".join(self.enum) + "}", "enum"

    def spec(self) -> str:
        r = self.r
        out = []
        if r.random() < 0.4:
            out.append('spec "Fuzz" formalizes "fuzz.txt"')
            out.append("document { 1 2 2.1 3a " + r.choice(["X9", "1", ""]) + " }")
        if r.random() < 0.3:
            self.params.append("N")
            out.append(f"param N{self.tags()} in {r.choice(['2..3', '{2, 4}', '1..2', '3..3', '0..2'])}")
        if self.teams:
            out.append(f"teams{self.tags()} A, B size {r.choice(['2', '2', '2', '1', 'N' if self.params else '2'])}")
            if r.random() < 0.4:
                out.append(f"seating {r.choice(['alternate', 'blocks'])}")
        else:
            count = r.choice(['2', '3', '3', '4', 'N' if self.params else '2'] * 4 + ['1', '0', '200'])
            self.big = count == "200"
            out.append(f"players{self.tags()} {count}")
        for _ in range(r.randint(1, 4)):
            name = self.name("v")
            text, ty = self.vtype()
            ix, index = "", ""
            if r.random() < 0.35:
                ix = r.choice(["player", "player", "int", "team" if self.teams else "player", "enum"])
                index = {"player": "(p: player)", "team": "(t: team)", "int": f"(i: 0..{r.choice(['1', '2', '3'])})",
                         "enum": "(e: {" + ", ".join(self.enum) + "})"}[ix]
            init = ""
            if r.random() < 0.85:
                want = {"set": "players", "player?": "player", "int": "int"}.get(ty, ty)
                init = " = " + ("any" if r.random() < 0.2 else self.expr(want, 2))
            out.append(f"var {name}{index}{self.tags()}: {text}{init}")
            self.vars.append((name, ty, ix))
        if r.random() < 0.3:
            out.append(f"let l{self.n} = {self.expr('int', 1)}")
        for _ in range(r.randint(1, 3)):
            params, names = "", []
            if r.random() < 0.6:
                ps = []
                for _ in range(r.randint(1, 2)):
                    b = self.name("a")
                    dom = self.domain(1)
                    ps.append(f"{b}: {dom[0]}")
                    names.append((b, dom[1]))
                params = "(" + ", ".join(ps) + ")"
            self.binders.extend(names)
            flags = r.choice(["", "", " progress", " leave"])
            guard = f" when {self.expr('bool')}" if r.random() < 0.8 else ""
            body = " ".join(self.stmt() for _ in range(r.randint(0, 3)))
            if body and r.random() < 0.2:  # a labelled statement, for `replace` below
                body = "lbl: " + body
            self.binders = self.binders[:len(self.binders) - len(names)]
            out.append(f"action {self.name('act')}{params}{self.tags()}{flags}{guard} do {body} end")
        for _ in range(r.randint(0, 3)):
            subj = "team" if self.teams and r.random() < 0.3 else "player"
            b = self.name("o")
            head = r.choice([f"lose {subj} {b}", f"win {subj} {b}", "draw"])
            self.binders.append((b, subj) if head != "draw" else ("", ""))
            cond = self.expr("bool")
            self.binders.pop()
            out.append(f"outcome {self.name('out')}{self.tags()}: {head} when {cond}")
        extras = [
            lambda: f"invariant {self.name('inv')}{self.tags()}: {self.expr('bool')}",
            lambda: f"init {self.name('ini')}{self.tags()}: {self.expr('bool')}",
            lambda: f"constraint {self.name('con')}{self.tags()}: {self.expr('bool')}",
            lambda: self._active(),
            lambda: f"procedure {self.name('proc')}: {self.expr('bool')}",
            lambda: f"ends {self.name('end')}: {self.expr('bool')}",
            lambda: f"reachable {self.name('reach')}: {self.expr('bool')}",
            lambda: f"precedence {r.choice(['lose', 'win', 'draw'])} over {r.choice(['lose', 'win', 'draw'])}",
            lambda: f"winners {r.choice(['one', 'many'])}",
            lambda: f"last_side {r.choice(['ends', 'plays_on'])}",
            lambda: f"expect {r.choice(['deadlock', 'invariant', 'dead-rule', 'no-such-kind'])}{self.tags()}",
            lambda: f"choice {self.name('ch')}: {r.choice(['bool', '0..3', 'player'])}",
            lambda: 'out_of_scope [3a] "not modelled"',
            lambda: f"reading r{self.n} {{ invariant {self.name('rinv')}: {self.expr('bool')} }}",
            lambda: f"format f{self.n} {{ winners many }}",
            # composition: ambiguities, replace, remove, shared readings (docs/language.md)
            lambda: f"ambiguity q{self.n} {{ reading a{self.n} {{ }} reading b{self.n} {{ winners many }} }}",
            lambda: f"reading r{self.n} {{ replace lbl do {self.stmt()} end }}",
            lambda: f"reading r{self.n} {{ remove {r.choice(['action act1', 'winners', 'var v0', 'outcome out2'])} }}",
            lambda: f"reading r{self.n} for f{self.n} {{ }}",
        ]
        for _ in range(r.randint(0, 4)):
            out.append(r.choice(extras)())
        if r.random() < 0.02:
            r.shuffle(out)  # declarations in any order (the header then lands elsewhere: E001)
        return "\n".join(out) + "\n"

    def _active(self) -> str:
        b = self.name("ap")
        self.binders.append((b, "player"))
        cond = self.expr("bool")
        self.binders.pop()
        return f"active {b} when {cond}"


# ---------------------------------------------------------------- mutations

TOKENS = ["(", ")", "[", "]", "{", "}", ":", ";", ",", "..", ":=", "==", "+", "-", "*", "/", "%", "not", "and",
          "or", "implies", "in", "forall", "exists", "if", "then", "else", "end", "do", "when", "none", "true",
          "false", "players", "player", "team", "any", "var", "action", "outcome", "lose", "win", "draw",
          "invariant", "let", "param", "0", "1", "-1", "999999999999999999", "P1", "P9", "A1", '"x"', "#", "\n",
          "include \"x.rwi\"", "count(", "sum(", "min(", "max(", "size(", "next(", "team(", "opponents(", "?", "."]
NUMBERS = ["0", "1", "2", "3", "-1", "7", "63", "64", "100", "1000", "1000000", "999999999", "1000000000000",
           "999999999999999999"]


def mutate(r: random.Random, text: str) -> str:
    lines = text.split("\n")
    for _ in range(r.randint(1, 4)):
        k = r.randrange(7)
        i = r.randrange(len(lines)) if lines else 0
        if not lines:
            lines = [""]
        if k == 0 and len(lines) > 1:
            del lines[i]
        elif k == 1:
            lines.insert(r.randrange(len(lines) + 1), lines[i])
        elif k == 2:
            j = r.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif k == 3:  # change a number
            nums = list(re.finditer(r"\d+", lines[i]))
            if nums:
                m = r.choice(nums)
                lines[i] = lines[i][:m.start()] + r.choice(NUMBERS) + lines[i][m.end():]
        elif k == 4:  # replace an identifier by another of the file, a keyword or a built-in
            words = list(re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", lines[i]))
            if words:
                m = r.choice(words)
                pool = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text) + TOKENS
                lines[i] = lines[i][:m.start()] + r.choice(pool) + lines[i][m.end():]
        elif k == 5:  # a random token somewhere
            pos = r.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:pos] + " " + r.choice(TOKENS) + " " + lines[i][pos:]
        else:  # cut a line short
            lines[i] = lines[i][:r.randrange(len(lines[i]) + 1)]
    return "\n".join(lines)


def make_input(seed: int, i: int, texts: list[str]) -> str:
    """Input i of a campaign: a generated spec, a mutated one, or a generated one mutated."""
    r = random.Random(f"{seed}:{i}")
    k = r.random()
    if k < 0.4:
        return Gen(r).spec()
    if k < 0.55:
        return mutate(r, Gen(r).spec())
    return mutate(r, r.choice(texts))


# ---------------------------------------------------------------- running one input

def run_one(text: str, folder: Path) -> dict:
    """Run the CLI on one spec, in this process; what it returned and printed, and the broken
    promises (an empty list when all hold)."""
    from checker.cli import main
    path = folder / "fuzz.rw"
    path.write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["check", str(path), "--format", "json", *LIMITS])
        except SystemExit as exc:
            code = exc.code
    took = time.perf_counter() - start
    return {"code": code, "seconds": round(took, 3), "problems": problems(code, out.getvalue(), err.getvalue()),
            "stdout": out.getvalue(), "stderr": err.getvalue()}


def problems(code, stdout: str, stderr: str) -> list[str]:
    found = []
    if "internal error" in stderr or "Traceback" in stderr + stdout:
        found.append("internal error: " + (stderr.strip().splitlines() or ["?"])[0][:200])
    if code not in (0, 1, 2, 3, 4):
        found.append(f"exit code {code!r}")
    if stdout.strip().startswith("{"):
        try:
            doc = json.loads(stdout)
        except ValueError:
            found.append("the JSON report does not parse")
        else:
            for d in doc["diagnostics"]:
                if d["line"] <= 0:
                    found.append(f"diagnostic not located: {d['code']} {d['message'][:120]}")
            if doc["exit_code"] != code:
                found.append(f"the report says exit {doc['exit_code']}, the run exited {code}")
    elif not found and not (code == 3 and "rulewright: incomplete" in stderr):
        found.append("no JSON report")
    return found


# ---------------------------------------------------------------- workers and the campaign

def worker(seed: int, inputs: list[int]) -> None:
    """Run the given inputs of a seed; one JSON line per input on stdout ("start", then "done")."""
    texts = corpus()
    emit = sys.__stdout__
    with tempfile.TemporaryDirectory() as tmp:
        for i in inputs:
            print(json.dumps({"start": i}), file=emit, flush=True)
            result = run_one(make_input(seed, i, texts), Path(tmp))
            del result["stdout"]
            print(json.dumps({"done": i, **result}), file=emit, flush=True)


class Tally:
    """What a campaign has seen so far, input by input, whichever way the inputs were run."""

    def __init__(self, args, texts: list[str]):
        self.args, self.texts = args, texts
        self.out_dir = Path(args.out)
        self.counts: Counter = Counter()
        self.bad: list[tuple[int, list[str]]] = []
        self.slow: list[tuple[float, int]] = []
        self.disagree: list[int] = []
        self.done = 0
        self.t0 = time.perf_counter()

    def absorb(self, msg: dict) -> None:
        """One "done" line of a worker."""
        i, seed = msg["done"], self.args.seed
        self.done += 1
        self.counts[msg["code"]] += 1
        if msg["seconds"] > 20:
            self.slow.append((msg["seconds"], i))
        if msg["problems"]:
            self.bad.append((i, msg["problems"]))
            save(self.out_dir, seed, i, make_input(seed, i, self.texts), msg)
        elif msg["code"] == 4:  # allowed, but a bug in rulewright all the same: kept to look at
            self.disagree.append(i)
            save(self.out_dir / "disagree", seed, i, make_input(seed, i, self.texts), msg)
        if self.done % self.args.report == 0:
            print(f"{self.done:,} inputs, {time.perf_counter() - self.t0:,.0f}s: "
                  f"{dict(sorted(self.counts.items(), key=lambda kv: str(kv[0])))}, {len(self.bad)} broken", flush=True)

    def lost(self, i: int, why: str) -> None:
        """The input a worker was on when it hung or died."""
        self.done += 1
        self.counts["hang" if why == "hang" else "died"] += 1
        self.bad.append((i, [why]))
        save(self.out_dir, self.args.seed, i, make_input(self.args.seed, i, self.texts), {"code": None})

    def summary(self, where: str) -> int:
        args = self.args
        took = time.perf_counter() - self.t0
        print(f"\n{self.done:,} inputs (seed {args.seed}, {args.start}..{args.start + args.inputs - 1}) in {took:,.0f}s {where}")
        print("exit codes: " + ", ".join(f"{k}: {v:,}" for k, v in sorted(self.counts.items(), key=str)))
        print(f"broken promises: {len(self.bad)}" + (f" (saved to {self.out_dir}/)" if self.bad else ""))
        for i, why in self.bad:
            print(f"  input {i}: {'; '.join(why)}")
        if self.disagree:
            print(f"engines disagree (exit 4) on {len(self.disagree)} input(s), saved to {self.out_dir}/disagree/: "
                  + ", ".join(map(str, self.disagree[:20])))
        if self.slow:
            print("slowest: " + ", ".join(f"input {i} {s:.0f}s" for s, i in sorted(self.slow, reverse=True)[:10]))
        return 1 if self.bad else 0


def worker_command(seed: int, batch: list[int]) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--worker", "--seed", str(seed),
            "--list", ",".join(map(str, batch))]


def campaign(args) -> int:
    tally = Tally(args, corpus())
    todo = list(range(args.start, args.start + args.inputs))
    chunks = [todo[w::args.workers] for w in range(args.workers)]
    procs: dict = {}

    def spawn(w: int):
        rest = chunks[w]
        if not rest:
            return
        batch, chunks[w] = rest[:args.batch], rest[args.batch:]
        p = subprocess.Popen(worker_command(args.seed, batch), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT)
        os.set_blocking(p.stdout.fileno(), False)
        procs[w] = {"proc": p, "current": None, "seen": time.perf_counter(), "buf": "", "left": set(batch)}

    for w in range(args.workers):
        spawn(w)
    while procs:
        time.sleep(0.05)
        for w, st in list(procs.items()):
            p = st["proc"]
            try:
                chunk = os.read(p.stdout.fileno(), 1 << 16).decode("utf-8", "replace")
            except BlockingIOError:
                chunk = ""
            if chunk:
                st["seen"] = time.perf_counter()
                st["buf"] += chunk
            *lines, st["buf"] = st["buf"].split("\n")
            for line in lines:
                msg = json.loads(line)
                if "start" in msg:
                    st["current"] = msg["start"]
                    continue
                st["left"].discard(msg["done"])
                st["current"] = None
                tally.absorb(msg)
            hung = time.perf_counter() - st["seen"] > args.hang
            if p.poll() is not None or hung:
                if hung:
                    p.kill()
                    p.wait()
                lost = st["current"]
                if lost is not None:  # the input it was on: a hang or a crash of the process
                    st["left"].discard(lost)
                    tally.lost(lost, "hang" if hung else f"worker died (exit {p.returncode})")
                chunks[w] = sorted(st["left"]) + chunks[w]  # anything not reached goes back
                del procs[w]
                spawn(w)
    return tally.summary(f"with {args.workers} worker(s)")


# ---------------------------------------------------------------- the campaign on a Dask cluster

def run_batch(command: list[str], cwd: str, hang: float) -> list[dict]:
    """On a cluster worker: run one worker process over a batch, as a local campaign does, and
    return its messages. Silence longer than `hang` kills it; the input it was on comes back as
    {"lost": i, "why": ...} and the inputs it did not reach are simply missing (the client
    sends them again). Shipped to the workers by value, so bench/ need not be importable
    there; the worker command needs the same checkout at the same path (as `--cluster` does
    for `rulewright check`)."""
    import select
    p = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd)
    msgs, buf, current = [], b"", None
    while True:
        ready, _, _ = select.select([p.stdout], [], [], hang)
        if not ready:
            p.kill()
            p.wait()
            return msgs + ([{"lost": current, "why": "hang"}] if current is not None else [])
        chunk = os.read(p.stdout.fileno(), 1 << 16)
        if not chunk:
            break
        *lines, buf = (buf + chunk).split(b"\n")
        for line in lines:
            msg = json.loads(line)
            current = msg["start"] if "start" in msg else None
            if "done" in msg:
                msgs.append(msg)
    code = p.wait()
    if current is not None:
        msgs.append({"lost": current, "why": f"worker died (exit {code})"})
    return msgs


def campaign_on_cluster(args) -> int:
    """The same campaign with batches as Dask tasks (`--cluster ADDRESS`): a mutation and
    generation run too large for one machine."""
    try:
        import cloudpickle
        import distributed
    except ImportError:
        print("--cluster needs Dask's distributed scheduler: pip install 'rulewright[cluster]'", file=sys.stderr)
        return 2
    if __name__ != "__main__":  # imported (the tests): send run_batch by value all the same
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
    tally = Tally(args, corpus())
    todo = list(range(args.start, args.start + args.inputs))
    with distributed.Client(args.cluster, set_as_default=False) as client:
        queue = distributed.as_completed(loop=client.loop)
        for k in range(0, len(todo), args.batch):
            batch = todo[k:k + args.batch]
            fut = client.submit(run_batch, worker_command(args.seed, batch), str(ROOT), args.hang, pure=False)
            fut.batch = batch
            queue.add(fut)
        for fut in queue:
            left = set(fut.batch)
            for msg in fut.result():
                if "lost" in msg:
                    left.discard(msg["lost"])
                    tally.lost(msg["lost"], msg["why"])
                else:
                    left.discard(msg["done"])
                    tally.absorb(msg)
            if left:  # not reached before a hang or a crash: another task
                again = client.submit(run_batch, worker_command(args.seed, sorted(left)), str(ROOT), args.hang, pure=False)
                again.batch = sorted(left)
                queue.add(again)
        slots = sum(client.nthreads().values())
    return tally.summary(f"on a cluster of {slots} worker thread(s)")


def save(out_dir: Path, seed: int, i: int, text: str, msg: dict) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"s{seed}-{i}.rw").write_text(text, encoding="utf-8")
    (out_dir / f"s{seed}-{i}.txt").write_text(json.dumps(msg, indent=2), encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cluster", metavar="ADDRESS", help="run the batches on a Dask scheduler instead of local processes")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="the first input's number (to resume a campaign)")
    ap.add_argument("--out", default="fuzz-out", help="where broken inputs are saved")
    ap.add_argument("--batch", type=int, default=1000, help="inputs per worker process before a fresh one")
    ap.add_argument("--hang", type=float, default=120, help="seconds of silence after which a worker is killed")
    ap.add_argument("--report", type=int, default=1000, help="print progress every N inputs")
    ap.add_argument("--show", type=int, metavar="I", help="print input I of the seed and exit")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--list", help=argparse.SUPPRESS)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.show is not None:
        print(make_input(args.seed, args.show, corpus()), end="")
        return 0
    if args.worker:
        worker(args.seed, [int(i) for i in args.list.split(",")])
        return 0
    return campaign_on_cluster(args) if args.cluster else campaign(args)


if __name__ == "__main__":
    sys.exit(main())
