"""A progress line on stderr for a person watching a run in a terminal.

    rulewright: 37/132 instances  48,211 states  6,020 states/s  0:08  spec/x.rw | duel | N=3 (2.1s)

States are those of the finished instances plus what the explorers of the running ones hold
so far (they report every few thousand states, through checker.live, from worker processes
too; not from a cluster); the instance running longest is shown with its time so far. The line is redrawn in place every half second, from a thread that only reads,
and erased at the end, so the report on stdout and any message on stderr start on a clean
line. It is only shown when stderr is a terminal: piped, redirected or captured (tests, CI)
the run prints nothing extra.
"""
from __future__ import annotations

import os
import sys
import threading
import time


def wanted(stream=None) -> bool:
    stream = stream or sys.stderr
    try:
        return stream.isatty() and os.environ.get("TERM", "") != "dumb"
    except (AttributeError, ValueError):
        return False


class Progress:
    EVERY = 0.5  # seconds between redraws

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.lock = threading.Lock()
        self.total = self.done = self.states = 0
        self.running: dict[int, tuple[str, float]] = {}  # instance -> (label, start)
        self.finished_states: dict[int, int] = {}
        self.cells = None  # live state counts of the instances running (checker.live)
        self.start = time.perf_counter()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._width = 0

    def begin(self, total: int, cells=None) -> None:
        """`cells`: per instance, the states its explorer holds so far (checker.live), or None."""
        self.total, self.start, self.cells = total, time.perf_counter(), cells
        self._thread = threading.Thread(target=self._tick, name="rulewright-progress", daemon=True)
        self._thread.start()

    def started(self, k: int, label: str) -> None:
        with self.lock:
            self.running[k] = (label, time.perf_counter())
        self.draw()

    def finished(self, k: int, outcome) -> None:
        with self.lock:
            self.running.pop(k, None)
            if k not in self.finished_states:  # a second try replaces the first
                self.done += 1
            if outcome is not None and outcome.instance is not None:
                self.states += outcome.instance.states - self.finished_states.get(k, 0)
                self.finished_states[k] = outcome.instance.states
            else:
                self.finished_states.setdefault(k, 0)
        self.draw()

    def end(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        with self.lock:
            self._write("\r" + " " * self._width + "\r")

    def line(self, now: float | None = None, columns: int = 100) -> str:
        """The line, at most columns - 1 wide: a long label loses its beginning (its end, the
        format, reading and parameters, tells instances apart)."""
        now = time.perf_counter() if now is None else now
        elapsed = now - self.start
        states = self.states + self._live()
        rate = states / elapsed if elapsed > 0 else 0.0
        m, s = divmod(int(elapsed), 60)
        text = (f"rulewright: {self.done}/{self.total} instances  {states:,} states  "
                f"{rate:,.0f} states/s  {m}:{s:02d}")
        if self.running:
            label, began = min(self.running.values(), key=lambda r: r[1])
            more = f" ({now - began:.1f}s)" + (f" +{len(self.running) - 1}" if len(self.running) > 1 else "")
            room = columns - 1 - len(text) - 2 - len(more)
            if len(label) > room:
                label = "..." + label[-max(0, room - 3):] if room > 3 else ""
            text += f"  {label}{more}"
        return text[:columns - 1]

    def _live(self) -> int:
        """States held by the explorers of the instances running (a finished one counts in full)."""
        if self.cells is None:
            return 0
        total = 0
        for k in self.running:
            try:
                total += int(self.cells[k])
            except (IndexError, ValueError, OSError):
                pass
        return total

    def draw(self) -> None:
        with self.lock:
            try:
                columns = os.get_terminal_size(self.stream.fileno()).columns
            except (OSError, AttributeError, ValueError):
                columns = 0
            columns = columns or 100  # a terminal that does not say (a bare pty) says 0
            text = self.line(columns=max(40, columns))
            pad = max(0, self._width - len(text))
            self._width = len(text)
            self._write("\r" + text + " " * pad)

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def _tick(self) -> None:
        while not self._stop.wait(self.EVERY):
            self.draw()
