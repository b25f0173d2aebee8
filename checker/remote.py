"""Checking instances on a Dask distributed cluster (`rulewright check --cluster ADDRESS`).

Why Dask rather than Ray: Dask's scheduler and workers are pure Python and install with pip
(`pip install 'rulewright[cluster]'` adds `dask[distributed]`, a few MB), a `LocalCluster`
starts in-process for tests and CI, and a task is a plain function call on picklable
arguments, which is all a run needs (no actors, object store or GPU scheduling). Ray brings a
large native runtime for none of that.

A Dask worker runs tasks in threads, where rulewright's watchdog (a timer signal) cannot work
and where the memory budget would read the memory of every thread's instance at once. So each
worker thread hands its task to a child process of its own (started once, kept for the next
task): the instance is checked in that child's main thread with the limits of a local run.
Dask's worker processes are daemons, which `multiprocessing` may not start children from, so
the child is a plain subprocess speaking length-prefixed pickles on its stdin and stdout.

Live progress: the child reports its explorer's state counts as frames before its answer; the
worker thread forwards them as Dask events on a topic of this run's own, to which the client
subscribes, and the counts land in the same table (checker.live) a local run's progress line
reads.

Every worker needs rulewright installed (the same version) and the spec files at the same
paths as where the run was started (a shared file system or the same checkout): a worker
rebuilds each instance from the files and refuses one that reads differently there.
"""
from __future__ import annotations

import os
import pickle
import uuid
import struct
import subprocess
import sys
import threading


class ClusterError(Exception):
    """--cluster cannot be used: Dask is not installed or the scheduler cannot be reached."""


class WorkerLost(Exception):
    """The child process checking an instance died (killed, out of memory, a crash in Z3)."""


class Cluster:
    """The pool interface of checker.runner over a Dask client."""

    def __init__(self, address: str, run_task, timeout: float = 10.0, cells=None):
        try:
            import distributed
        except ImportError:
            raise ClusterError("--cluster needs Dask's distributed scheduler, which is not installed: "
                               "pip install 'rulewright[cluster]'") from None
        self._distributed = distributed
        self.run_task = run_task
        try:  # a malformed address is refused before a Client exists (a failed one complains at exit)
            from distributed.comm.addressing import parse_address
            from distributed.comm.registry import get_backend
            get_backend(parse_address(address)[0])
        except (ValueError, TypeError) as exc:
            raise ClusterError(f"not a Dask scheduler address: {address} ({exc})") from None
        try:
            self.client = distributed.Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        self.slots = max(1, sum(self.client.nthreads().values()))
        self.topic = None
        if cells is not None:  # live state counts, as Dask events on a topic of this run's own
            self.topic = f"rulewright-live-{uuid.uuid4().hex}"
            self.client.subscribe_topic(self.topic, lambda event: _store(cells, event[1]))
        self.lost = (WorkerLost, distributed.KilledWorker)
        self._futures: list = []
        self._completed = distributed.as_completed(loop=self.client.loop)

    def submit(self, task):
        fut = self.client.submit(_call_in_child, self.run_task, task, self.topic, pure=False)
        self._futures.append(fut)
        self._completed.add(fut)
        return fut

    def wait_first(self, futures):
        return {next(self._completed)}

    @staticmethod
    def finished_ok(fut) -> bool:
        return fut.status == "finished"

    def recover(self) -> None:
        pass  # the scheduler replaces dead workers itself; the next task starts a new child

    def abandon(self) -> None:
        self.client.cancel([f for f in self._futures if not f.done()], force=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.topic is not None:
            self.client.unsubscribe_topic(self.topic)
        self.client.close()


def _store(cells, event) -> None:
    position, states = event
    if 0 <= position < len(cells):
        cells[position] = states


# ---------------------------------------------------------------- on a Dask worker

_local = threading.local()


def _call_in_child(fn, task, topic=None):
    """Run fn(task) in this worker thread's child process (started on first use); the child's
    live state counts go out as events on `topic` (when the client asked for them)."""
    child = getattr(_local, "child", None)
    if child is None or child.poll() is not None:
        child = _local.child = subprocess.Popen([sys.executable, "-m", "checker.remote"],
                                                stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        _send(child.stdin, (fn, task, topic is not None))
        while True:
            frame = _receive(child.stdout)
            if frame[0] != "live":
                break
            _publish(topic, frame[1:])
        _, ok, value = frame
    except (OSError, EOFError, struct.error) as exc:
        child.kill()
        child.wait()
        _local.child = None
        raise WorkerLost(f"exit code {child.returncode}") from exc
    if not ok:
        raise RuntimeError(value)  # a bug in rulewright, with the child's traceback
    return value


def _publish(topic, event) -> None:
    try:
        import distributed
        distributed.get_worker().log_event(topic, event)
    except (ImportError, ValueError):  # not on a Dask worker (a test calling this directly)
        pass


class _LiveFrames:
    """checker.live's table in the child: each count written goes to the parent as a frame."""

    def __init__(self, outbox):
        self.outbox = outbox

    def __len__(self) -> int:
        return 1 << 62

    def __setitem__(self, position: int, states: int) -> None:
        _send(self.outbox, ("live", position, states))


def _send(stream, value) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def _receive(stream):
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError("the child process closed its output")
    (size,) = struct.unpack("<Q", head)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the child process closed its output")
    return pickle.loads(data)


def _child_main() -> None:
    """The child: read (fn, task, live) triples, answer ("done", True, result) or ("done", False,
    traceback text), after ("live", position, states) frames when `live` is asked for."""
    import traceback
    from checker import live as live_table
    from checker.limits import ignore_ctrl_c  # (here: the child imports only what it runs)
    ignore_ctrl_c()
    inbox = sys.stdin.buffer
    outbox = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout = sys.stderr  # whatever prints must not corrupt the answers
    while True:
        try:
            fn, task, live = _receive(inbox)
        except EOFError:
            return
        live_table.install(_LiveFrames(outbox) if live else None)
        try:
            answer = ("done", True, fn(task))
        except Exception:
            answer = ("done", False, traceback.format_exc())
        _send(outbox, answer)


if __name__ == "__main__":
    _child_main()
