"""What the symbolic engine decided about one question of an instance the explorer could not
finish (checker.analyses.unbounded, checker.analyses.unbounded_rules): a `Decision`, and how
an answer of Spacer (checker.symbolic.horn) becomes one, or the evidence of a finding.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..limits import Budget
from ..symbolic import horn
from ..symbolic.terms import Unsupported

SPACER = "symbolic (Spacer)"
QUERY_SECONDS = 40.0  # at most this much work per question (Z3's units: horn.WORK_PER_SECOND), whatever the budget left


@dataclass(frozen=True)
class Decision:
    check: str  # a finding kind
    subject: str  # what about ("" for the whole instance): an invariant, "P1 wins", a rule
    verdict: str  # proved | found | unknown
    engine: str
    detail: str = ""  # the invariant of a proof, why a question was not answered


def decision(kind: str, subject: str, a: horn.Answer) -> Decision:
    """The decision of Spacer's answer `a`: proved, or unknown with why (a bad frame Spacer
    finds reachable is shown only by a path, which it does not give)."""
    if a.verdict == horn.PROVED:
        return Decision(kind, subject, "proved", SPACER, f"from {a.setup}: {a.invariant}")
    if a.verdict == horn.REACHABLE:
        return Decision(kind, subject, horn.UNKNOWN, SPACER,
                        f"reachable from {a.setup}, but no path to it was found to show")
    return Decision(kind, subject, horn.UNKNOWN, SPACER, a.why)


def proof_detail(a: horn.Answer) -> str:
    """A proved answer as the detail of the finding it proves."""
    return f"proved by the symbolic engine (Spacer) from {a.setup}; the invariant: {a.invariant}"


@dataclass(frozen=True)
class Questions:
    """Spacer's questions about one instance, each within QUERY_SECONDS and the instance's
    budget. What the encoding cannot express (`Unsupported`) is an answer too: unknown, saying
    so, never an error of the run. `walk(kind, subject, answer, key)`: the decision on a bad
    frame Spacer found a path to, once the explorer walked it (checker.analyses.unbounded
    `beyond`; None: paths are not walked)."""
    prover: horn.Prover
    budget: Budget
    walk: Callable | None = None

    def seconds(self) -> float:
        return min(QUERY_SECONDS, max(0.0, self.budget.cpu_left()))

    def ask(self, bad) -> horn.Answer:
        """Whether a frame where `bad` holds is reachable (`horn.Prover.ask`)."""
        seconds = self.seconds()
        if seconds <= 0:
            return horn.Answer(horn.UNKNOWN, why="the instance's time was spent")
        try:
            return self.prover.ask(bad, seconds, wall=max(0.0, self.budget.remaining()))
        except Unsupported as exc:
            return horn.Answer(horn.UNKNOWN, why=f"not encoded for the symbolic engine: {exc}")

    def judge(self, kind: str, subject: str, a: horn.Answer, key: tuple | None = None) -> Decision:
        """The decision on answer `a`: a path Spacer found is walked by the explorer first (with
        `key`, what its end must show: a rule applied, a property reached)."""
        if self.walk is not None and a.verdict == horn.REACHABLE and a.path:
            return self.walk(kind, subject, a, key)
        return decision(kind, subject, a)

    def at_setup(self, cond, candidates: bool = False) -> horn.Answer:
        """Whether some setup meets `cond` (`horn.Prover.at_setup`)."""
        seconds = self.seconds()
        if seconds <= 0:
            return horn.Answer(horn.UNKNOWN, why="the instance's time was spent")
        try:
            verdict = self.prover.at_setup(cond, seconds, candidates)
        except Unsupported as exc:
            return horn.Answer(horn.UNKNOWN, why=f"not encoded for the symbolic engine: {exc}")
        return horn.Answer(verdict, why="" if verdict != horn.UNKNOWN else "Z3 could not tell in time",
                           setup=horn.SETUP)
