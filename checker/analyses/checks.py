"""The generic checks, in the order they run (`CHECKS`), and the functions that run them.

Each check is a plain function `Explored -> list[Finding]` (`checker.analyses.explored`),
grouped by what it looks at: checks on single states (`state_checks`), checks on cycles
(`cycle_checks`) and checks over the whole graph (`graph_checks`).

Nothing here knows a format, a game or a rule number: everything comes from the spec. Progress
is judged by the game's own actions; moves flagged `leave` (conceding, leaving) are left out of
the deadlock, loop and starvation checks, because a player who may always concede does not make
a stuck game live. Checks that claim something about *every* path (loops that cannot end,
unreachable outcomes, dead rules) only run on a completely explored graph.

The checks read the instance's budget between checks and inside their long loops; when it is
spent, the findings made so far are kept and the rest of the checks are skipped.
"""
from __future__ import annotations

from ..explicit.compile import EvalError
from ..explicit.explore import Graph
from ..limits import Budget, LimitHit
from .cycle_checks import check_forced_loop, check_livelock, check_starvation, check_unbounded_procedure
from .declaration_checks import check_dead_declarations
from .explored import Explored
from .findings import Finding
from .phase_checks import check_vacuous_properties
from . import consequences, story
from .graph_checks import (check_dead_rules, check_never_active, check_player_without_outcome,
                           check_reachable_properties, check_unreachable_outcome)
from .state_checks import (check_deadlock, check_evaluation_errors, check_invariants, check_outcome_conflict,
                           check_outcome_gap, check_overflow)


# In this order: the findings come in it, and a spent budget skips the rest of it.
CHECKS = (
    check_outcome_conflict,
    check_outcome_gap,
    check_player_without_outcome,
    check_deadlock,
    check_overflow,
    check_evaluation_errors,
    check_invariants,
    check_forced_loop,
    check_livelock,
    check_unbounded_procedure,
    check_starvation,
    check_never_active,
    check_unreachable_outcome,
    check_reachable_properties,
    check_vacuous_properties,
    check_dead_rules,
    check_dead_declarations,
)


def run_checks(graph: Graph) -> list[Finding]:
    return run_checks_within(graph, None)[0]


def run_checks_within(graph: Graph, budget: Budget | None) -> tuple[list[Finding], str]:
    """(findings, "") after every check, or (the findings made so far, why the checks stopped
    and which were not run) once the budget is spent."""
    x = Explored(graph, budget)
    out: list[Finding] = []
    for i, check in enumerate(CHECKS):
        try:
            x.tick()
            out.extend(check(x))
        except EvalError as exc:  # a condition without a value (say in `active`): the other checks still run
            what = check.__name__.removeprefix("check_").replace("_", " ")
            out.append(x.finding("evaluation-error", f"{exc} (while the {what} check evaluated a condition)",
                                 (), [exc.span], key=f"{check.__name__}:{exc}", subject=[what]))
        except LimitHit as exc:
            skipped = ", ".join(c.__name__.removeprefix("check_").replace("_", "-") for c in CHECKS[i:])
            return out, f"{exc}; not checked: {skipped}"
    consequences.mark(x, out)
    try:  # a pass after the checks: what each shown step did, what blocks a deadlock (re-run, not searched)
        story.tell(x, out)
    except LimitHit:
        pass  # the budget ran out while telling it: the findings stand, without their story
    return out, ""
