"""Causes: the bad states of one kind, grouped by what a writer would call one cause.

A check that finds bad states (stuck, undecided, conflicting) used to report the shortest and
count the rest, so a second, unrelated cause stayed hidden behind the first. Here every bad
state gets a cause, computed from the state itself and the steps into it, never from the
search's order, so a graph reduced by symmetry groups its states as the full graph does
(docs/checks.md, "One finding per cause"):

- a deadlock: the conditions, as written, that stop the actions that got furthest through
  their guards there (`Blocking`);
- an outcome gap: its `ends` reason (the check's), and the ways out of the game other than a
  loss that some player took (`exits`): a concession is another situation than a loss;
- an outcome conflict: the action of the step into it (of the shortest steps into the state,
  the least by name: `Entries`).

Each group is one finding with its own shortest trace and count, in the order of the groups'
shortest states; at most MAX_CAUSES per kind and instance, then "... and N more".
"""
from __future__ import annotations

from ..explicit.compile import DREW, LEFT, WON, EvalError, lost_mask, result_mask
from ..frontend.ends import is_gap
from ..frontend import typed as T
from ..frontend.diagnostics import source_line
from ..frontend.syntax import Span

MAX_CAUSES = 5  # findings of one kind per instance; the rest are counted in the last one's detail

NO_BINDING = -1  # an action none of whose parameters has a value to take
GUARD_HOLDS = -2  # the guard holds for some binding (the step failed, or was not taken)


def conjuncts(e) -> list:
    """`a and b and c` as [a, b, c] (any other expression as itself)."""
    if isinstance(e, T.Logic) and e.op == "and":
        return conjuncts(e.left) + conjuncts(e.right)
    return [e]


class Blocking:
    """Why each game action cannot run in a state: compiled once per machine."""

    def __init__(self, machine):
        self.machine = machine
        comp = machine.comp
        # (action index, action, [(conjunct, compiled)]) of the game actions (not `leave`)
        self.parts = [(ai, a, [(c, comp.expr(c)) for c in conjuncts(a.decl.guard)])
                      for ai, a in enumerate(machine.actions) if not a.leave]

    def blocks(self, state) -> tuple:
        """((action name, index of the blocking conjunct), ...): for each game action, of its
        bindings the one that gets furthest through its guard, and the conjunct that stops it
        there (the condition a writer would change to let the game go on)."""
        m = self.machine
        reader = m.reader(state)
        out = []
        for _, a, parts in self.parts:
            first: set[int] = set()  # the first failing conjunct of each binding
            try:
                for binding in m.bindings(a.binders, reader):
                    for cell, v in zip(a.cells, binding):
                        cell[0] = v
                    for i, (_, f) in enumerate(parts):
                        if not f(reader):
                            first.add(i)
                            break
                    else:
                        first.add(GUARD_HOLDS)
            except EvalError:
                first.add(GUARD_HOLDS)  # the step fails there: the checks report the failure itself
            out.append((a.decl.name, max(first) if first else NO_BINDING))
        return tuple(out)

    def blocking(self, state) -> list[tuple[str, object, list[str]]]:
        """[(condition as written, its span, the actions it stops)]: the conditions that stop the
        actions that got furthest through their guards (an action whose first test fails, say
        `step == combat` outside combat, is not what stops this game; the one that nearly runs
        is), in the order of their text."""
        blocks = self.blocks(state)
        deepest = max((i for _, i in blocks), default=NO_BINDING)
        if deepest < 0:
            return []
        by: dict[str, tuple[object, list[str]]] = {}
        for ai, (name, i) in enumerate(blocks):
            if i == deepest:
                text = self.condition(ai, i)
                by.setdefault(text, (self.parts[ai][2][i][0].span, []))[1].append(f"`{name}`")
        return [(text, span, names) for text, (span, names) in sorted(by.items())]

    def cause(self, state) -> tuple[str, ...]:
        """The blocking conditions as written: what groups deadlocks into causes."""
        return tuple(text for text, _, _ in self.blocking(state))

    def condition(self, ai: int, i: int) -> str:
        c = self.parts[ai][2][i][0]
        return source_text(c.span) or f"condition {i + 1} of `{self.parts[ai][1].decl.name}`"

    def describe(self, blocking) -> list[str]:
        """One line per blocking condition: the actions it stops, with where it is written."""
        return [f"`{t}` is false ({span}), which stops {', '.join(names)}" for t, span, names in blocking]


TEXT = 80  # characters of a condition's source shown


def source_text(span) -> str:
    """The spec's text under `span` on one line (at most TEXT characters), or "" where the
    source is not at hand (a condition a lowering wrote has no text of its own)."""
    if span is None or span.line <= 0:
        return ""
    parts = []
    for n in range(span.line, max(span.end_line, span.line) + 1):
        line = source_line(Span(span.file, n, 1, n, 1))
        if line is None:
            return ""
        start = span.col - 1 if n == span.line else 0
        end = span.end_col - 1 if n == span.end_line and span.end_col > 0 else len(line)
        parts.append(line[start:end].strip())
    text = " ".join(p for p in parts if p)
    return text if len(text) <= TEXT else text[:TEXT - 3] + "..."


def outcome_shape(x, sid: int) -> tuple:
    """Where the players stand in state `sid`, counted: (status, how many) over in the game, won,
    lost, drew and left with no result. Counts, not names, so that the same situation for other
    players (a rotation of it) is the same cause."""
    inst = x.inst
    n, nt, k = inst.nplayers, inst.nteams, inst.nslots
    vals = x.graph.values(sid)
    out, tout, end = vals[k], vals[k + 1], vals[-1]
    wp, wt = (end[0], end[1]) if end and not is_gap(end) else (0, 0)
    # (status, players' mask, teams' mask), first match wins
    rows = [("won", wp, wt)] + [(name, result_mask(out, n, why), result_mask(tout, nt, why))
                                for why, name in ((DREW, "drew"), (WON, "won"), (LEFT, "left with no result"))]
    rows.append(("lost", lost_mask(out, n), lost_mask(tout, nt)))
    counts: dict[str, int] = {}
    for p in range(n):
        st = next((name for name, pm, tm in rows
                   if (pm >> p) & 1 or (inst.has_teams and (tm >> inst.team_of[p]) & 1)), "in the game")
        counts[st] = counts.get(st, 0) + 1
    return tuple(sorted(counts.items()))


def exits(shape: tuple) -> tuple[str, ...]:
    """The ways out of the game other than a loss that some player took: how many lost or
    stay in varies with the play, a concession or a draw is another situation."""
    return tuple(st for st, _ in shape if st not in ("lost", "in the game"))


class Entries:
    """The shortest steps into states, for grouping by "the step that led in"."""

    def __init__(self, x):
        self.x = x

    def of(self, targets) -> dict[int, tuple]:
        """For each target state: (action name, rules it applied) of the least shortest step into it."""
        x, g = self.x, self.x.graph
        want = set(targets)
        depth = x.depth  # breadth-first distances, from the search's parents
        best: dict[int, tuple] = {}
        for i, (u, v, lid) in enumerate(g.edges):
            x.tick(i)
            if v not in want or depth[u] + 1 != depth[v]:
                continue
            ai = g.labels[lid][0]
            key = (x.machine.actions[ai].decl.name, x.rules_of_label(lid))
            if v not in best or key < best[v]:
                best[v] = key
        for v in want:
            if v not in best:  # an initial state
                best[v] = ("setup", x.last_rules(v))
        return best


def group(sids, key_of) -> list[tuple[object, list[int]]]:
    """[(cause, its states)] in the order of each cause's first (shortest) state."""
    groups: dict[object, list[int]] = {}
    for s in sorted(sids):
        groups.setdefault(key_of(s), []).append(s)
    return list(groups.items())
