"""The limits on one instance's work (states, seconds, memory) and the budget that enforces them.

Every phase of an instance reads one `Budget`: the contradiction check (its Z3 timeout is the
time left), setup enumeration, exploration, the checks and the replays. They read it where
stopping leaves everything they keep consistent (between states, between bindings, between
checks), so a limit hit is an incomplete result holding what was reached, never an error.

Some work has no such point: one evaluation of a spec's expression (a quantifier over
0..10^10, quantifiers nested over a thousand players) or the Python side of building a Z3
formula. For that, `watchdog` arms a timer (SIGALRM, main thread only) that raises `LimitHit`
shortly after the deadline, or when memory runs over, but only in code that keeps nothing
half-written (`_SAFE`); elsewhere it waits for the next tick. `LimitHit` is a BaseException, as
KeyboardInterrupt is, so no `except Exception` on the way up can swallow it.
"""
from __future__ import annotations

import math
import os
import resource
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass


class LimitHit(BaseException):
    """A state, time or memory limit was reached; the message says which."""


def physical_memory_mib() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (ValueError, OSError, AttributeError):
        return None


def default_memory_mib() -> int:
    """4 GiB, or three quarters of the machine's memory if that is less: the run must never be
    the thing that makes the machine swap or the kernel kill something else."""
    phys = physical_memory_mib()
    return min(4096, phys * 3 // 4) if phys else 4096


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def rss_mib() -> float:
    """The memory this process holds now (resident set), in MiB; the peak where /proc is missing."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[1]) * _PAGE / 2**20
    except (OSError, ValueError, IndexError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
        return peak / (2**20 if os.uname().sysname == "Darwin" else 2**10)


WALL_FACTOR = 3.0  # the wall-clock bound, unless given, is this many times the time limit
# CPU seconds per worker for a whole run, by default. 120 until 2026-12-02: the bundled specs at
# the documents' numbers (a team game at 8,000 life with damage of any amount among them) take
# about 180 s of CPU in one worker, and a default that cannot check them says "incomplete" on a
# one-core machine. A run that needs less ends sooner: it is a cap, not a duration.
RUN_SECONDS = 300.0


@dataclass(frozen=True)
class Limits:
    """`max_seconds` is CPU time: the time the checking itself takes, the same on a loaded
    machine as on an idle one, so a busy CI runner gives the verdicts an idle laptop gives.
    `max_wall_seconds` bounds the wall clock as well (None: WALL_FACTOR times max_seconds), so
    a run on a machine starved of CPU still ends."""
    max_states: int = 200_000
    max_seconds: float = RUN_SECONDS
    max_memory: float = default_memory_mib()  # MiB, for the whole process
    max_wall_seconds: float | None = None
    # steps (edges) after which the breadth-first search expands no more states (0: no such
    # limit); set only for the explorer's first stage under --engine auto, for models with
    # thousands of steps per state (checker.analyses.unbounded.explorer_steps)
    max_steps: int = 0

    @property
    def wall_seconds(self) -> float:
        return WALL_FACTOR * self.max_seconds if self.max_wall_seconds is None else self.max_wall_seconds


def limit_problem(name: str, value: float) -> str:
    """Why a limit's value is unusable ("" if it is fine): nan and inf would turn a limit off,
    zero and negative values make every run incomplete before it starts."""
    if math.isnan(value) or math.isinf(value):
        return f"{name} must be a finite number, not {value}"
    if value <= 0:
        return f"{name} must be greater than 0, not {value:g}"
    return ""


def cpu_seconds() -> float:
    """The CPU time of the calling thread: an instance is checked by one thread (a worker
    process's main thread, or this process's), Z3's solving included, so this is what the
    instance itself cost, whatever else the machine runs."""
    return time.thread_time()


class Budget:
    """The CPU time, wall-clock bound and memory limit of one instance's work (or of a part of it).

    `check()` is cheap (a wall-clock read) and meant for loops: it reads the thread's CPU time
    and the memory only every 50 ms of wall time (CPU time cannot advance faster than the wall
    clock). `share(f)` is the same budget ending after a fraction f of the time and at a
    fraction f of the memory, so exploration can leave the rest to the checks; `part(s, why)` is
    a budget of at most s CPU seconds from now, for a phase with its own say (the contradiction
    check)."""

    MEMORY_EVERY = 0.05

    def __init__(self, limits: Limits, seconds: float | None = None, memory: float | None = None,
                 why: str = "", wall: float | None = None):
        self.limits = limits
        self.start = cpu_seconds()
        self.wall_start = time.perf_counter()
        self.seconds = limits.max_seconds if seconds is None else seconds
        self.wall = limits.wall_seconds if wall is None else wall
        self.memory = limits.max_memory if memory is None else memory
        self.wall_deadline = self.wall_start + self.wall
        self.why = why or f"time limit of {limits.max_seconds:g}s reached"
        self._next = self.wall_start  # the first check reads the clocks and the memory

    def _derived(self, seconds: float, wall: float, memory: float, why: str, start: float, wall_start: float) -> "Budget":
        b = Budget(self.limits, seconds, memory, why, wall)
        b.start, b.wall_start, b.wall_deadline = start, wall_start, min(wall_start + wall, self.wall_deadline)
        b._next = min(b._next, time.perf_counter())
        return b

    def share(self, fraction: float) -> "Budget":
        return self._derived(self.seconds * fraction, self.wall * fraction, self.memory * fraction, self.why,
                             self.start, self.wall_start)

    def part(self, seconds: float, why: str) -> "Budget":
        if seconds >= self.cpu_left():
            return self
        # A part counts CPU time only; its wall-clock bound is the whole budget's. A part's own
        # bound of a few times its seconds was met by a moment of a busy machine when the part
        # was short (the directed search's 0.4 s), and the phase then stopped for the load, not
        # for its work: a report that changed with the machine's load.
        now = time.perf_counter()
        return self._derived(seconds, max(0.0, self.wall_deadline - now), self.memory, why, cpu_seconds(), now)

    def cpu_left(self) -> float:
        return self.start + self.seconds - cpu_seconds()

    def remaining(self) -> float:
        """The wall-clock seconds a call that cannot be interrupted (Z3's solver, which only
        knows wall-clock timeouts) may take: the CPU time left, stretched by how much slower than
        its CPU time this budget's work has gone so far (the machine's load, at most
        WALL_FACTOR), and never past the wall-clock bound."""
        now, cpu = time.perf_counter(), cpu_seconds()
        used_cpu, used_wall = cpu - self.start, now - self.wall_start
        stretch = min(WALL_FACTOR, max(1.0, used_wall / used_cpu)) if used_cpu > 0.05 else 1.0
        return min(self.wall_deadline - now, (self.start + self.seconds - cpu) * stretch)

    def check(self) -> None:
        now = time.perf_counter()
        if now >= self._next:
            self._check(now)

    def _check(self, now: float) -> None:
        why = self.over(now=now)
        if why:
            raise LimitHit(why)
        # the CPU time left cannot run out sooner than the same wall time from now
        self._next = min(self.wall_deadline, now + min(self.MEMORY_EVERY, max(0.0, self.cpu_left())))

    def over(self, grace: float = 0.0, now: float | None = None) -> str:
        """Why the budget is spent, allowing `grace` seconds past the limits ("" if it is not)."""
        now = time.perf_counter() if now is None else now
        if cpu_seconds() >= self.start + self.seconds + grace:
            return self.why
        if now >= self.wall_deadline + grace:
            return ("the run's wall-clock bound passed before its CPU time was spent "
                    "(the machine is busy; --max-wall-seconds raises the bound)")
        if rss_mib() > self.memory:
            return f"memory limit of {self.limits.max_memory:g} MiB reached"
        return ""


# The modules where the watchdog may raise: they evaluate, search or encode with locals only
# (or caches written in one step), and whatever they were building is dropped with the
# exception. Graph bookkeeping (explicit/explore.py) and the engine's own records are not here:
# there the watchdog waits, and the cooperative checks stop them cleanly. Only the project's own
# code is: not z3's Python (ctypes wraps an exception raised while it converts an argument into
# an ArgumentError, an internal error found by bench/fuzz.py, and one raised in a callback is
# only printed), and not networkx's (a limit that hit while its modules were being imported
# left a half-imported networkx that broke every later instance of the process; the checks
# find their paths with checker.analyses.paths instead). The whole symbolic engine is: every
# one of its passes only builds terms from locals (`("symbolic", "")` is its directory).
# (The closures are compile.py and its parts, whose closures run in the search: the built-ins,
# the statements and the values they compute with; the generated code's helpers are
# codegen_runtime.py.) The directed search (explicit/directed.py) keeps only its frontier of its
# own and writes its graph through explore.py's `expand` and `renumbered`; its heuristic
# (explicit/distance.py) evaluates with locals.
_SAFE = tuple(os.path.join("checker", *parts) for parts in (
    ("explicit", "compile.py"), ("explicit", "compile_builtins.py"), ("explicit", "compile_stmts.py"),
    ("explicit", "values.py"), ("explicit", "machine.py"), ("explicit", "outcomes.py"), ("explicit", "compiled.py"),
    ("explicit", "codegen_runtime.py"), ("explicit", "directed.py"), ("explicit", "distance.py"), ("symbolic", ""),
    ("analyses", "checks.py"), ("analyses", "traces.py"), ("analyses", "paths.py"),
    ("analyses", "explored.py"), ("analyses", "state_checks.py"), ("analyses", "cycle_checks.py"),
    ("analyses", "graph_checks.py"), ("analyses", "story.py"), ("analyses", "causes.py"), ("analyses", "consequences.py"),
    ("analyses", "declaration_checks.py"), ("analyses", "phase_checks.py")))
TICK = 0.1  # seconds between the watchdog's looks
RETRY = 0.005  # once the budget is spent, how soon to look again for a frame it may raise in
GRACE = 0.5  # how far past the deadline it lets the cooperative checks stop things first


GENERATED = "<rulewright: compiled"  # how the compiled successors' code names its file: safe too


def _safe(frame) -> bool:
    """Whether LimitHit may be raised in `frame`: code of a _SAFE module (or generated), not a
    finalizer, not a constructor (a Z3 term subclass stopped before its base's __init__ had
    set its context is collected by Z3's finalizer, which then fails: "Exception ignored in
    AstRef.__del__", seen in the fuzz test), and not while any module is being imported, even
    one of ours: an import stopped half way leaves its module, or the package that was
    importing it, broken for the rest of the process."""
    code = frame.f_code
    if code.co_name in ("__del__", "__init__", "<module>") or not (
            any(part in code.co_filename for part in _SAFE) or code.co_filename.startswith(GENERATED)):
        return False
    f = frame.f_back
    while f is not None:
        if f.f_code.co_filename.startswith("<frozen importlib"):
            return False
        f = f.f_back
    return True


@contextmanager
def watchdog(budget: Budget):
    """Raise LimitHit inside long evaluations once the budget is spent (see the module's
    docstring). Does nothing outside the main thread, where signals cannot be handled."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return
    armed = [True]
    quiet_until = [0.0]

    def tick(signum, frame):
        if not armed[0] or time.perf_counter() < quiet_until[0]:
            return
        why = budget.over(GRACE)
        if not why:
            return
        if frame is None or not _safe(frame):
            signal.setitimer(signal.ITIMER_REAL, RETRY, TICK)  # soon, maybe in a safe frame then
            return
        # quiet for a while: the handler that catches this must not be interrupted in turn
        quiet_until[0] = time.perf_counter() + 1.0
        raise LimitHit(why)

    old = signal.signal(signal.SIGALRM, tick)
    old_timer = signal.setitimer(signal.ITIMER_REAL, TICK, TICK)
    try:
        yield
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if old_timer[0] or old_timer[1]:  # a watchdog around this one: it goes on watching
            signal.setitimer(signal.ITIMER_REAL, *old_timer)


def ignore_ctrl_c() -> None:
    """In a worker process: Ctrl-C is the parent's to handle: ignored here, and by Z3, which otherwise catches SIGINT
    during a check whatever the process's own disposition, and answers unknown."""
    import z3
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    z3.set_param("ctrl_c", False)
