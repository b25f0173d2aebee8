"""Finding kinds (one line each) and the Finding record every check returns."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..frontend.syntax import Span

KINDS: dict[str, tuple[str, str]] = {
    # kind: (severity, one-line description)
    "contradiction": ("error", "the static constraints and setup rules admit no state for some parameter values"),
    "outcome-conflict": ("error", "a reachable state in which the rules give incompatible outcomes"),
    "outcome-gap": ("error", "a reachable state where the game must end but no outcome rule decides it"),
    "player-without-outcome": ("error", "the game ends with a winner while a player still in it has no outcome"),
    "deadlock": ("error", "a reachable state where the game has not ended and no game action is possible"),
    "forced-loop": ("error", "reachable states from which no game action can ever end the game"),
    "livelock": ("error", "a cycle of game actions none of which makes progress"),
    "unbounded-procedure": ("warning", "a procedure (time limit, sudden death) that can run without bound"),
    "starvation": ("error", "a player still in the game who, on some cycle of play, never becomes active"),
    "never-active": ("error", "a player never active in any reachable state, or (in a finite game) on some complete play"),
    "unreachable-outcome": ("error", "a declared victory that no play reaches"),
    "dead-rule": ("warning", "a rule that never applies in any reachable state"),
    "invariant": ("error", "a reachable state violates a declared invariant"),
    "unreachable-property": ("error", "a state the spec says is reachable is not"),
    "overflow": ("error", "a step gives a variable a value outside its declared type"),
    "evaluation-error": ("error", "a step or the setup evaluates an expression that has no value (division by zero, "
                                  "an index outside its range, none where a player is needed)"),
    "duplicate-id": ("error", "a rule id is listed twice in the document block"),
    "undefined-rule": ("error", "a tag names a rule id the document block does not list"),
    "readings-differ": ("info", "two readings of one rule lead to different findings"),
    "expectation-unmet": ("error", "an `expect` declaration that no finding meets"),
}


@dataclass
class TraceStep:
    number: int
    action: str  # "setup" for the initial state
    rules: tuple[str, ...]
    changes: tuple[tuple[str, str], ...]  # (variable, new value) that changed
    state: tuple[tuple[str, object], ...]  # every variable, as ITF-ready values
    note: str = ""
    sid: int = -1  # explored state and label, so the replay can re-run the step
    lid: int = -1


@dataclass
class Finding:
    kind: str
    message: str
    rules: tuple[str, ...]
    spans: tuple[Span, ...]
    instance: str
    model: str
    trace: list[TraceStep] | None = None
    loop_start: int | None = None  # trace index where the repeating part starts
    replay: str = ""  # "confirmed", "not replayed: ...", or a failure
    expected: bool = False
    instances: list[str] = field(default_factory=list)
    detail: str = ""  # extra lines for the report
    key: str = ""  # what makes two instances' findings "the same"
    context: dict = field(default_factory=dict)  # what the replay needs beyond the trace (a failing step)

    @property
    def severity(self) -> str:
        return KINDS[self.kind][0]

    def signature(self) -> tuple:
        return (self.kind, self.rules, self.key or self.message)
