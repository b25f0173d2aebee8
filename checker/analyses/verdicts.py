"""A Z3 replay's verdict on a counterexample (Finding.replay) or a play of `diff`
(Difference.replay): confirmed, not replayed (the encoding or the budget could not), not run,
or failed (the engines disagree). Code tests the status, never the words; the reports print
`str(verdict)`, the words they have always printed ("confirmed", "not replayed: why",
"not run: why", "FAILED: what the replay saw"). No verdict at all (the finding has no trace,
or its replay was not needed) is None.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Status = Literal["confirmed", "not-replayed", "not-run", "failed"]
_WORDS = {"confirmed": "confirmed", "not-replayed": "not replayed", "not-run": "not run", "failed": "FAILED"}


@dataclass(frozen=True)
class Replay:
    status: Status
    why: str = ""  # what the replay saw, why it was not replayed or run, how it was confirmed

    def __str__(self) -> str:
        words = _WORDS[self.status]
        if not self.why:
            return words
        # "confirmed by the explorer's initial states"; "FAILED: step 2 (pass): ..."
        return f"{words} {self.why}" if self.status == "confirmed" else f"{words}: {self.why}"

    @property
    def failed(self) -> bool:
        """The replay rejects what the explorer found: a disagreement of the engines."""
        return self.status == "failed"


CONFIRMED = Replay("confirmed")

