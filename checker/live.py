"""Live state counts of the instances under way, for the progress line.

The explorer reports how many states it holds every few thousand states; the progress line
adds the counts of the instances running to those of the finished ones, so a long instance is
seen to move. In-process the table is a list; with worker processes it is a shared array of
integers (one per instance of the run, indexed by the instance's position) handed to each
worker when it starts; a cluster worker's child process sends its counts to the client as
frames and Dask events (checker.remote). Nothing is reported where no table was installed.
"""
from __future__ import annotations

_cells = None


def install(cells) -> None:
    global _cells
    _cells = cells


def report(position: int, states: int) -> None:
    cells = _cells
    if cells is not None and 0 <= position < len(cells):
        cells[position] = states


def reporter(position: int):
    """The explorer's callback for the instance at `position` (None where nobody reads it)."""
    if _cells is None:
        return None
    return lambda states: report(position, states)
