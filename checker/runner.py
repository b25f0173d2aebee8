"""Where a run's instances are checked: in this process, in a pool of local processes, or on a
Dask cluster, with the run's time limit shared fairly among them.

The instances of a run are independent. Each is handed to a worker as a task it can rebuild
the instance from by itself (the caller's `make_task`; see checker.engine.Task), at the moment
a worker is free, with its share of the time that is left: the time left times the number of
workers over the number of instances not finished (all of it once no more are waiting than
there are free workers), so the share is re-divided as instances finish early; an instance cut
short by its share gets a second try with what the others left over. Whatever order
results come back in, the caller merges them in instance order: the report does not depend on
the number of workers.

Local workers are processes (not threads: the watchdog's timer signal and the memory budget
both need a process of their own). On Linux, while this process runs no other thread, they are
forked from it when the pool starts (before the progress line's thread): a worker then starts
with rulewright imported and with the files this process already parsed (the caller's
`seed`), where a fresh one spent about a second of the run importing and parsing them again.
Elsewhere, or once a thread runs, the "forkserver" method where there is one (a fork of a
server that already imported rulewright, and no fork of a process that runs threads), else
"spawn". They ignore SIGINT: Ctrl-C reaches the
whole process group, and only this process decides what to keep. On an interrupt, the results
already back are kept, the rest is cancelled and the workers are terminated.
"""
from __future__ import annotations

import concurrent.futures as cf
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Callable

from . import live
from .limits import Limits, ignore_ctrl_c


class PoolError(Exception):
    """Worker processes cannot be started here (a process limit, a main module that cannot be
    imported again); `--jobs 1` checks in this process."""



@dataclass(frozen=True)
class Share:
    """One instance's part of the run's limits."""
    seconds: float  # CPU time
    memory: float  # MiB, for the process that checks it
    why: str  # what hitting the time limit says
    wall: float = math.inf  # the wall-clock seconds the run has left when it starts


class Shares:
    """The run's CPU time, divided among instances as they start (see the module's docstring).

    The run has `max_seconds` of CPU time per slot. An instance starting now gets what is left
    divided among the instances not started yet (it included), at most `max_seconds`: the ones
    running hold their whole share until they finish, then give back what they did not use. The
    run's wall-clock bound (`Limits.wall_seconds`) is the outer bound of every share."""

    def __init__(self, limits: Limits, slots: int, memory: float):
        self.total = limits.max_seconds
        self.slots = max(1, slots)
        self.memory = memory
        self.left = self.total * self.slots
        self.wall = limits.wall_seconds
        self.deadline = time.perf_counter() + self.wall
        self.spent_why = ""  # why next() gave nothing

    def next(self, waiting: int, running: int = 0) -> Share | None:
        """The share of an instance starting now, with `waiting` instances (it included) not yet
        started and `running` under way; None once the run's time is spent. The caller hands
        the share back with `settle` when the instance is done."""
        seconds = self.offer(waiting)
        if seconds <= 0:
            return None
        wall = round(self.deadline - time.perf_counter(), 3)  # whole milliseconds: messages stay short
        self.left -= seconds
        if seconds >= self.total:
            return Share(seconds, self.memory, f"time limit of {self.total:g}s reached", wall)
        return Share(seconds, self.memory,
                     f"its share ({seconds:.3g}s) of the run's time limit of {self.total:g}s ran out", wall)

    def offer(self, waiting: int) -> float:
        """The CPU seconds next() would give now (0 once the run's time or wall clock is spent)."""
        wall = round(self.deadline - time.perf_counter(), 3)
        left = round(self.left, 3)
        if wall <= 0 or left <= 0:
            self.spent_why = (f"the run's wall-clock bound of {self.wall:g}s passed" if wall <= 0
                              else f"the run's time limit of {self.total:g}s was spent")
            return 0.0
        return round(min(self.total, left / max(1, waiting)), 3)

    def settle(self, share: Share, used: float | None) -> None:
        """An instance with `share` is done after `used` CPU seconds (None: unknown, its worker
        died): what it did not use goes back to the run."""
        if used is not None:
            self.left += max(0.0, share.seconds - used)


def default_jobs() -> int:
    """The cores this process may run on (a container's or taskset's limit, not the machine's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def run(labels: list[str], make_task: Callable, run_here: Callable, run_task: Callable, done: Callable,
        missed: Callable, limits: Limits, jobs: int = 1, cluster: str | None = None, progress=None) -> None:
    """Check instances 0..len(labels)-1: `make_task(k, share)` builds instance k's task when it
    starts, `run_here(task)` checks it in this process, `run_task(task)` (a module-level
    function, sent by reference) in a worker; `done(k, outcome)` receives each result (a
    later one replaces the earlier, see `_schedule`), `missed(k, why)` each instance not checked
    (the run's time ran out before it started, or its worker process died). KeyboardInterrupt
    goes on up after the results already back were handed to `done`."""
    n = len(labels)
    cells = _live_cells(n, jobs, cluster) if progress is not None else None
    live.install(cells)
    local = None
    if not cluster and min(jobs, n) > 1:
        local = _LocalPool(min(jobs, n), run_task, cells)  # forks now, before the progress line's thread
    if progress is not None:
        progress.begin(n, cells)
    try:
        if cluster:
            from . import remote
            with remote.Cluster(cluster, run_task, cells=cells) as pool:
                _schedule(pool, labels, make_task, done, missed, Shares(limits, pool.slots, limits.max_memory), progress)
        elif min(jobs, n) <= 1:
            pool = _InProcess(run_here)
            _schedule(pool, labels, make_task, done, missed, Shares(limits, 1, limits.max_memory), progress)
        else:
            workers = min(jobs, n)
            with local as pool:
                # every worker holds its own instance: the run's memory is shared among them
                _schedule(pool, labels, make_task, done, missed, Shares(limits, workers, limits.max_memory / workers),
                          progress)
    finally:
        live.install(None)
        if progress is not None:
            progress.end()


def _live_cells(n: int, jobs: int, cluster: str | None):
    """Where the explorers report their live state counts: a list in this process (also filled
    by a cluster's events, checker.remote), an array the worker processes share."""
    if cluster or min(jobs, n) <= 1:
        return [0] * n
    return _context().Array("q", n, lock=False)  # each instance's cell is written by one worker only


def _context():
    if sys.platform == "linux" and threading.active_count() == 1:
        return multiprocessing.get_context("fork")  # see the module's docstring
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if ctx.get_start_method() == "forkserver":
        ctx.set_forkserver_preload(["checker.engine"])
    return ctx


RETRY_GAIN = 2.0  # another try must have at least this many times the last one's time


def _schedule(pool, labels, make_task, done, missed, shares: Shares, progress) -> None:
    """Every instance once with its fair share; then, with the time the run has left, another
    try for those whose share ran out (outcome.short_of_time) if that gives each at least
    RETRY_GAIN times its last share, and so on while it does. The first round guarantees every
    instance its fair share; the others keep a run that fits in its limit from reporting an
    instance incomplete only because it started early, before the others had shown how little
    they need. (Each round at least doubles a share, and the run's time is finite: the rounds end.)"""
    last: dict[int, float] = {}  # instance -> the share of its latest try
    retry = _round(pool, labels, range(len(labels)), make_task, done, missed, shares, progress, last)
    while retry:
        seconds = shares.offer(len(retry))
        again = [k for k in retry if seconds > 0 and RETRY_GAIN * last[k] <= seconds]
        if not again:
            break
        retry = _round(pool, labels, again, make_task, done, None, shares, progress, last)


def _round(pool, labels, order, make_task, done, missed, shares: Shares, progress, last: dict) -> list[int]:
    """Check the instances of `order`, as many at a time as the pool has slots; the ones whose
    share of the time ran out, to try again."""
    waiting = deque(order)
    running: dict = {}  # future -> instance
    given: dict = {}  # instance -> its share, handed back when it is done
    retry = []
    # A worker that dies breaks the whole pool: every instance running beside it is lost too,
    # through no fault of its own. Each lost instance is tried once more, alone (nothing else
    # running), so a second loss is its own and only then is it reported as not checked.
    suspects: deque = deque()
    tried_alone: set = set()
    try:
        while waiting or running or suspects:
            if suspects and not running:
                k = suspects.popleft()
                tried_alone.add(k)
                share = shares.next(len(waiting) + 1, 0)
                if share is None:
                    if missed is not None:
                        missed(k, _too_late(shares))
                    continue
                if progress is not None:
                    progress.started(k, labels[k])
                given[k] = share
                running[pool.submit(make_task(k, share))] = k
            while waiting and len(running) < pool.slots and not suspects and not tried_alone & set(running.values()):
                share = shares.next(len(waiting), len(running))
                if share is None:
                    if missed is not None:
                        for k in waiting:
                            missed(k, _too_late(shares))
                    waiting.clear()
                    break
                k = waiting.popleft()
                last[k] = share.seconds
                if progress is not None:
                    progress.started(k, labels[k])
                given[k] = share
                running[pool.submit(make_task(k, share))] = k
            if not running:
                break
            for fut in sorted(pool.wait_first(list(running)), key=running.get):
                k = running.pop(fut)
                try:
                    outcome = fut.result()
                except pool.lost as exc:  # the worker process died (killed, out of memory...)
                    pool.recover()
                    outcome = None
                    shares.settle(given[k], None)
                    if k not in tried_alone:
                        suspects.append(k)
                        continue
                    if missed is not None:  # (on a second try, the first one's outcome stands)
                        missed(k, f"not checked: the worker process checking it stopped ({exc or exc.__class__.__name__})")
                if outcome is not None:
                    shares.settle(given[k], outcome.cpu_seconds)
                    done(k, outcome)
                    if outcome.short_of_time:
                        retry.append(k)
                if progress is not None:
                    progress.finished(k, outcome)
                if outcome is not None and outcome.interrupted:
                    raise KeyboardInterrupt
    except KeyboardInterrupt:
        for fut, k in sorted(running.items(), key=lambda item: item[1]):  # back already: keep them
            if pool.finished_ok(fut):
                done(k, fut.result())
        pool.abandon()
        raise
    return sorted(retry)


def _too_late(shares: Shares) -> str:
    return f"not checked: {shares.spent_why} before it could start"


class _InProcess:
    """The pool interface, checking each instance right here when it is submitted."""
    slots = 1
    lost = ()

    def __init__(self, run_here: Callable):
        self.run_here = run_here

    def submit(self, task):
        fut = cf.Future()
        fut.set_result(self.run_here(task))
        return fut

    @staticmethod
    def wait_first(futures):
        return set(futures)

    @staticmethod
    def finished_ok(fut) -> bool:
        return True

    def recover(self) -> None:
        pass

    def abandon(self) -> None:
        pass


class _LocalPool:
    """A ProcessPoolExecutor with the start method, signal handling and recovery the run needs."""

    lost = (BrokenProcessPool,)

    def __init__(self, workers: int, run_task: Callable, cells=None):
        self.slots = workers
        self.run_task = run_task
        self.cells = cells
        self._executor = self._new()
        self._abandoned = False
        if self.method == "fork":
            # a forking pool starts all its workers at the first submit: now, while this
            # process runs no other thread (a failure shows again at the first real submit)
            try:
                self._executor.submit(_ready).result()
            except Exception:  # noqa: BLE001
                pass

    def _new(self) -> cf.ProcessPoolExecutor:
        self.method = (ctx := _context()).get_start_method()
        return cf.ProcessPoolExecutor(self.slots, mp_context=ctx, initializer=_worker_init,
                                      initargs=(self.cells,))

    def submit(self, task):
        for attempt in (1, 2):  # a worker that died since the last result broke the pool: one new pool
            try:
                return self._executor.submit(self.run_task, task)
            except BrokenProcessPool as exc:
                problem = exc
                self.recover()
            except (OSError, EOFError) as exc:
                problem = exc
                break
        self.abandon()
        raise PoolError(f"cannot start worker processes ({problem.__class__.__name__}: {problem}); "
                        "--jobs 1 checks in this process")

    def wait_first(self, futures):
        return cf.wait(futures, return_when=cf.FIRST_COMPLETED).done

    @staticmethod
    def finished_ok(fut) -> bool:
        return fut.done() and not fut.cancelled() and fut.exception() is None

    def recover(self) -> None:
        """A worker died: the pool is broken for good; the instances still running in it are
        lost too (their futures fail the same way), the ones not started go to a new pool."""
        if getattr(self._executor, "_broken", False):
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = self._new()

    def abandon(self) -> None:
        """Cancel what has not started and stop the workers now (an interrupt)."""
        self._abandoned = True
        processes = list((getattr(self._executor, "_processes", None) or {}).values())  # no public way before 3.14
        manager = getattr(self._executor, "_executor_manager_thread", None)  # (shutdown forgets it)
        self._executor.shutdown(wait=False, cancel_futures=True)
        for p in processes:
            if p.is_alive():
                p.terminate()
        # The pool's thread sees its workers gone and closes its wake-up pipe; at exit, Python
        # wakes that thread through the same pipe. Before 3.12.1 the two race: a pipe closed
        # between the check and the write printed a traceback (OSError: Bad file descriptor)
        # after the interrupted run's report. Waiting for the thread here ends the race.
        if manager is not None and manager.is_alive():
            manager.join(timeout=2.0)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self._abandoned:
            self._executor.shutdown(wait=True, cancel_futures=True)


def _ready() -> None:
    """The task that makes a forking pool start its workers."""


def _worker_init(cells=None) -> None:
    ignore_ctrl_c()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked worker inherits the CLI's handler
    live.install(cells)
