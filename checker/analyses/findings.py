"""Finding kinds (one line each) and the Finding record every check returns.

A finding's *fingerprint* names it across runs and edits: a hash of its kind, model, the
declarations it is about (`subject`) and its cause (`cause`: what sets it apart from other
findings of its kind, checker.analyses.causes), never line numbers, state counts or the rules
it cites, so moving a rule, finding a shorter trace or moving tags into a trigger keeps it.
A finding with neither declarations nor a cause of its own (a forced loop, a starvation) hashes
the set of rules it cites instead, as all fingerprints did before issue 21. The model is named
by its file's name alone (`stable_model`), so a fingerprint is the same from any working folder
and however the path was spelt (`spec/x.rw`, `./x.rw`, `../repo/spec/x.rw`), in a checkout, a
CI runner or an unpacked archive. Its *size* (how many stuck states, starved players...; the
unit per kind is in MEASURES) is kept apart, so a baseline can tell a finding that grew from
the one reviewed.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import PurePath

from ..frontend.syntax import Span
from .verdicts import Replay

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
    "dead-declaration": ("warning", "a precedence that never picks, or a cannot rule that never changes how a step ends"),
    "invariant": ("error", "a reachable state violates a declared invariant"),
    "unreachable-property": ("error", "a state the spec says is reachable is not"),
    "vacuous-property": ("warning", "an invariant speaks of a phase that no reachable state is in, so what it says "
                                    "of that phase is never tested"),
    "overflow": ("error", "a step gives a variable a value outside its declared type"),
    "evaluation-error": ("error", "a step or the setup evaluates an expression that has no value (division by zero, "
                                  "an index outside its range, none where a player is needed)"),
    "duplicate-id": ("error", "a rule id is listed twice in the document block"),
    "impossible-property": ("error", "a setup the spec says is possible (a permission) is ruled out by its other rules"),
    "readings-differ": ("info", "two readings of one rule lead to different findings"),
    "abstraction-differs": ("info", "`check --exact`: a model that rounds an amount to a step (`in steps of 5 rounding "
                                    "up`) finds otherwise when those numbers are counted in ones"),
    "budget-differs": ("info", "the largest value of a `budget` parameter finds otherwise than the next smaller: "
                               "the budget standing for \"any number\" may hide or make findings"),
    "implied-loss": ("info", "a win ends the game and the winner's opponents still in it are read as losing (the "
                             "free-for-all convention), though no rule says so"),
    "expectation-unmet": ("error", "an `expect` declaration (or baseline entry) that no finding meets"),
}

# What a finding's `size` counts, per kind (summed over the parameter instances it occurs in).
# Kinds not listed have no size; an `expect` may record the size of those listed.
MEASURES: dict[str, str] = {
    "outcome-conflict": "states",  # reachable states with conflicting outcomes
    "outcome-gap": "states",  # ended states no outcome rule decides
    "deadlock": "states",  # stuck states
    "forced-loop": "states",  # states that cannot reach an end
    "overflow": "steps",  # failing steps (and setups)
    "evaluation-error": "steps",
    "starvation": "players",  # players who can be starved
    "never-active": "players",
    "unreachable-outcome": "sides",  # players or teams who never win
    "unreachable-property": "cases",  # bindings of the property's parameters never reached
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
    # the story of the step (checker.analyses.story, told only for the traces of findings):
    entries: tuple = ()  # story.Change per entry that changed (life[P2]: 3 -> 1)
    ran: tuple = ()  # story.Fired per rule that applied, in order, with subjects and outcomes


EXPLORER = "explicit"  # the engine of a finding whose `engine` is "": the explorer's own search


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
    replay: Replay | None = None  # the Z3 replay of the trace (None: not replayed, nor needed)
    expected: bool = False
    instances: list[str] = field(default_factory=list)
    detail: str = ""  # extra lines for the report
    key: str = ""  # what makes two instances' findings "the same"
    context: dict = field(default_factory=dict)  # what the replay needs beyond the trace (a failing step)
    subject: tuple[str, ...] = ()  # the declarations the finding is about (an invariant's name...), if any
    # the cause that sets it apart from other findings of its kind and model (`causes`): the
    # conditions that block a deadlock, where the players stand in an outcome gap
    cause: tuple[str, ...] = ()
    follows: tuple = ()  # the signature of the finding of the same model this one follows from (consequences.py)
    follows_fingerprint: str = ""  # that finding's fingerprint, once fingerprints are assigned
    size: int = 0  # what MEASURES[kind] counts; 0 when the kind has no measure
    fingerprint: str = ""  # set by `assign_fingerprints` once a file's findings are grouped
    changed: str = ""  # why a finding an expectation names is not the one it accepts
    reviewed: str = ""  # the note of the expectation that accepts it (cites the write-up)
    # the abstractions of the instances it was found in (`in steps of`, `abstracts`): the
    # writer's claims the finding rests on, e.g. "life in steps of 1,000; V=2 for the document's 11"
    abstraction: str = ""
    blocked: tuple = ()  # a deadlock: story.Blocker per player still in the game, what blocks them
    # a contradiction: the follow-on findings folded into it, (kind, count) (questions.py)
    folded: tuple[tuple[str, int], ...] = ()
    # which engine decided it, where not the explorer's own search ("" = EXPLORER): a directed
    # search's play, a Spacer proof (checker.analyses.unbounded)
    engine: str = ""
    # per instance of `instances` (merging.group), the engine that found it there: a finding of
    # several parameter values may be the explorer's in one and a directed search's in another
    engines: list = field(default_factory=list)

    @property
    def severity(self) -> str:
        return KINDS[self.kind][0]

    def signature(self) -> tuple:
        return (self.kind, self.rules, self.key or self.message)


def stable_model(model: str) -> str:
    """A model's name as fingerprints see it: its file relative to the spec's own folder (the
    file's name), then its format and reading as reports name them."""
    path, sep, rest = model.partition(" | ")
    return PurePath(path).name + sep + rest


def base_fingerprint(f: Finding) -> str:
    """12 hex digits of a hash of kind, model (`stable_model`), subject and cause; with neither a
    subject nor a cause, of the set of rules cited instead."""
    if f.subject or f.cause:
        doc = json.dumps([f.kind, stable_model(f.model), list(f.subject), list(f.cause)], ensure_ascii=False)
    else:
        doc = json.dumps([f.kind, stable_model(f.model), [], sorted(set(f.rules))], ensure_ascii=False)
    return hashlib.sha256(doc.encode("utf-8")).hexdigest()[:12]


def assign_fingerprints(findings: list[Finding]) -> None:
    """Give each finding its fingerprint; findings that would share one (two tagged statements
    with the same tags, dead in one model) get `-2`, `-3`... in the order of their first span,
    then message, so the names stay unique in a run and the same across runs."""
    by: dict[str, list[Finding]] = {}
    for f in findings:
        by.setdefault(base_fingerprint(f), []).append(f)
    for fp, group in by.items():
        group.sort(key=lambda f: (tuple((s.file, s.line, s.col) for s in f.spans), f.message, f.instance))
        for i, f in enumerate(group):
            f.fingerprint = fp if i == 0 else f"{fp}-{i + 1}"
    by_signature = {(f.model,) + f.signature(): f.fingerprint for f in findings}
    for f in findings:  # a consequence names its cause by the cause's fingerprint (consequences.py)
        if f.follows:
            f.follows_fingerprint = by_signature.get((f.model,) + tuple(f.follows), "")
