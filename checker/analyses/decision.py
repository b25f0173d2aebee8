"""What the symbolic engine decided about one question of an instance the explorer could not
finish (checker.analyses.unbounded, checker.analyses.unbounded_rules): a `Decision`, and how
an answer of Spacer (checker.symbolic.horn) becomes one, or the evidence of a finding.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..limits import Budget
from ..symbolic import horn, witness
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
    """Spacer's questions about one instance, each within QUERY_SECONDS of Z3's work whatever
    the instance's budget has left: an answer must not depend on the time left, so a question
    the budget cannot see through stops the instance (LimitHit, from the budget or from the
    `terms.clock` its Z3 calls stop by) instead of answering less. What the encoding cannot
    express (`Unsupported`) is an answer too: unknown, saying so, never an error of the run.
    `walk(kind, subject, answer, key)`: the decision on a bad frame Spacer found a path to,
    once the explorer walked it (checker.analyses.unbounded `beyond`; None: paths are not
    walked)."""
    prover: horn.Prover
    budget: Budget
    walk: Callable | None = None
    _unrolled: list = field(default_factory=list)  # the instance's one witness.Unrolling, once asked for
    _played_work: list = field(default_factory=list)  # the work the bounded searches of `ask` spent so far

    def unrolling(self) -> witness.Unrolling:
        """The frames every bounded search of this instance extends (checker.symbolic.witness)."""
        if not self._unrolled:
            try:
                self._unrolled.append(witness.Unrolling(self.prover.inst, self.prover.first_step))
            except Unsupported as exc:
                self._unrolled.append(exc)  # (said once per question, not encoded again)
        if isinstance(self._unrolled[0], Unsupported):
            raise self._unrolled[0]
        return self._unrolled[0]

    def work(self, seconds: float = QUERY_SECONDS) -> float:
        """The work of the next question, `seconds` of Z3's units; LimitHit if the budget is spent."""
        self.budget.check()
        return seconds

    def ask(self, bad) -> horn.Answer:
        """Whether a frame where `bad` holds is reachable (`horn.Prover.ask`)."""
        seconds = self.work()
        try:
            a = self.prover.ask(bad, seconds)
        except Unsupported as exc:
            return horn.Answer(horn.UNKNOWN, why=f"not encoded for the symbolic engine: {exc}")
        if a.verdict == horn.PROVED and a.formula is not None:
            # Spacer's invariant holds of every frame a play reaches, whatever was asked: the
            # ranking searches draw on it (checker.symbolic.ranking `reachable_facts`) before
            # asking Spacer again about a frame it already rules out
            self.prover.reachable_facts.append(a.formula)
        return self._played(bad, a) if a.verdict == horn.UNKNOWN or a.verdict == horn.REACHABLE and not a.path else a

    def _played(self, bad, a: horn.Answer) -> horn.Answer:
        """Where Spacer did not decide (or found a bad frame with no path to show), a short
        play to it found by bounded model checking (checker.symbolic.witness), else `a` saying
        that none was found either."""
        if self.walk is None:
            return a  # (a play is shown only once the explorer walked it)
        spent = sum(self._played_work)
        seconds = min(self.work(witness.PATH_SECONDS), witness.PATHS_SECONDS - spent)
        if seconds <= 0:
            return replace(a, why=f"{a.why}; bounded model checking: the instance's share of it was spent")
        work = horn.Work(seconds)
        try:
            w = witness.path_to(self.unrolling(), bad, seconds)
        except Unsupported as exc:
            return replace(a, why=f"{a.why}; not encoded for bounded model checking: {exc}")
        finally:
            self._played_work.append(seconds - work.left())
        if w.verdict == witness.FOUND:
            return horn.Answer(horn.REACHABLE, setup=horn.SETUP, path=w.path, found_by=horn.BMC_FOUND)
        return replace(a, why=f"{a.why}; bounded model checking: {w.why}" if a.why else f"bounded model checking: {w.why}")

    def judge(self, kind: str, subject: str, a: horn.Answer, key: tuple | None = None) -> Decision:
        """The decision on answer `a`: a path Spacer found is walked by the explorer first (with
        `key`, what its end must show: a rule applied, a property reached)."""
        if self.walk is not None and a.verdict == horn.REACHABLE and a.path:
            return self.walk(kind, subject, a, key)
        return decision(kind, subject, a)

    def at_setup(self, cond, candidates: bool = False) -> horn.Answer:
        """Whether some setup meets `cond` (`horn.Prover.at_setup`)."""
        seconds = self.work()
        try:
            verdict = self.prover.at_setup(cond, seconds, candidates)
        except Unsupported as exc:
            return horn.Answer(horn.UNKNOWN, why=f"not encoded for the symbolic engine: {exc}")
        return horn.Answer(verdict, why="" if verdict != horn.UNKNOWN else "Z3 could not tell in time",
                           setup=horn.SETUP)
