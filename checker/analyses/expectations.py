"""Reviewed findings: which findings an `expect` (or a baseline entry) accepts.

An expectation accepts exactly one finding, and only the one it names: same model and kind,
and, for each part it records, the same exact set of rules, the same declarations (`on`), the
same fingerprint, and a size and a number of instances no larger than recorded. Sharing a
rule tag is not enough: a new defect that cites one of the reviewed rules is a new finding.

A finding an expectation names by model, kind and declarations (and, if it records rules, at
least one rule in common) but does not accept is *changed*: it grew (more stuck states, more
instances) or cites other rules. It is reported in full, as unexpected, saying what changed;
the expectation is not reported again as unmet. An expectation that names nothing is unmet.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..frontend.syntax import Span
from .findings import Finding


@dataclass(frozen=True)
class Expectation:
    model: str
    kind: str
    rules: tuple[str, ...] = ()  # the exact set of rules cited; () accepts any
    subject: tuple[str, ...] = ()  # the declarations the finding is about; () accepts any
    measures: tuple[tuple[str, int], ...] = ()  # (unit, largest accepted), unit "instances" or MEASURES[kind]
    fingerprint: str = ""
    note: str = ""
    span: Span = Span("", 0, 0, 0, 0)
    origin: str = "expect"  # "expect" (in the spec) or "baseline entry"

    def describe(self) -> str:
        parts = [self.kind]
        if self.rules:
            parts.append(f"[{', '.join(self.rules)}]")
        if self.subject:
            parts.append("on " + ", ".join(self.subject))
        parts.extend(f"{n} {unit}" for unit, n in self.measures)
        if self.fingerprint:
            parts.append(f"fingerprint {self.fingerprint}")
        return " ".join(parts)


@dataclass(frozen=True)
class NotChecked:
    """An expectation (or baseline entry) no finding meets, about a model that was not checked
    to its end: it is neither met nor unmet, and says why it could not be told."""
    expectation: Expectation
    why: str


def measured(f: Finding, unit: str) -> int:
    return len(f.instances or [f.instance]) if unit == "instances" else f.size


def differences(e: Expectation, f: Finding) -> list[str]:
    """What keeps `e` from accepting `f` (same model and kind assumed); [] if it accepts it."""
    out = []
    if e.rules and set(e.rules) != set(f.rules):
        new = [r for r in f.rules if r not in e.rules]
        gone = [r for r in e.rules if r not in f.rules]
        said = []
        if new:
            said.append(f"cites {', '.join(new)}, which the {e.origin} does not list")
        if gone:
            said.append(f"no longer cites {', '.join(gone)}")
        out.append(" and ".join(said))
    if e.subject and set(e.subject) != set(f.subject):
        out.append(f"is about {', '.join(f.subject) or 'no declaration'}, not {', '.join(e.subject)}")
    if e.fingerprint and e.fingerprint != f.fingerprint:
        out.append(f"has fingerprint {f.fingerprint}, not {e.fingerprint}")
    for unit, n in e.measures:
        now = measured(f, unit)
        if now > n:
            out.append(f"has {now} {unit} where {n} were reviewed")
    return out


def _names(e: Expectation, f: Finding) -> bool:
    """Whether `e` speaks of `f` at all: the same model, kind and declarations, and a rule in common."""
    if (e.model, e.kind) != (f.model, f.kind):
        return False
    if e.subject and f.subject and set(e.subject) != set(f.subject):
        return False
    return not e.rules or bool(set(e.rules) & set(f.rules)) or (e.fingerprint != "" and e.fingerprint == f.fingerprint)


def _specificity(e: Expectation) -> tuple:
    return (bool(e.fingerprint), bool(e.subject), len(e.rules), len(e.measures))


def accepted(findings: list[Finding], expectations: list[Expectation]) -> dict[int, Finding]:
    """The finding each expectation accepts, by the expectation's index (those that accept none
    are left out); each finding is accepted by one expectation at most."""
    done: set[int] = set()  # ids of findings taken by an expectation
    out: dict[int, Finding] = {}
    # the most specific expectations choose first, so a loose one cannot take what a precise one names
    for i in sorted(range(len(expectations)), key=lambda i: _specificity(expectations[i]), reverse=True):
        e = expectations[i]
        for f in findings:
            if id(f) not in done and (f.model, f.kind) == (e.model, e.kind) and not differences(e, f):
                out[i] = f
                done.add(id(f))
                break
    return out


def apply(findings: list[Finding], expectations: list[Expectation], unchecked: dict[str, str] | None = None
          ) -> tuple[list[Finding], list[NotChecked]]:
    """Mark the findings the expectations accept (`expected`, `reviewed`) or name but do not
    accept (`changed`); return an expectation-unmet finding per expectation left over, except
    for the expectations of the models in `unchecked` (model -> why it was not checked to its
    end), which are not checked: the finding they name may lie where the run did not look."""
    unchecked = unchecked or {}
    taken = accepted(findings, expectations)
    for i, f in taken.items():
        f.expected, f.reviewed = True, expectations[i].note
    done = {id(f) for f in taken.values()}  # ids of findings taken by an expectation
    unmet, not_checked = [], []
    for e in (e for i, e in enumerate(expectations) if i not in taken):
        named = [f for f in findings if id(f) not in done and not f.expected and _names(e, f)]
        if named:
            f = max(named, key=lambda f: len(set(e.rules) & set(f.rules)))  # max keeps the first of equals
            done.add(id(f))
            what = "; ".join(differences(e, f))
            f.changed = f"changed since it was reviewed ({e.origin} at {e.span}: {e.describe()}): it {what}"
            continue
        if e.model in unchecked:
            not_checked.append(NotChecked(e, unchecked[e.model]))
        else:
            unmet.append(Finding(
                "expectation-unmet", f"{e.origin} `{e.describe()}` meets no finding", e.rules, (e.span,),
                e.model, e.model, key=f"{e.describe()}@{e.span}", subject=e.subject,
                detail=f"its note: {e.note}" if e.note else ""))
    return unmet, not_checked
