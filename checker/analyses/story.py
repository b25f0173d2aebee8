"""What each step of a counterexample did, and what blocks the players of a deadlocked state.

A trace as the explorer records it names the action and the rule ids its step hit, and keeps
every variable. That is enough to replay it, not to read it: a 12-player state printed whole
hides the one entry that changed, and ten cited rules do not say which one made a player lose.
This module tells the story of a shown trace, as pure functions of an `Explored` graph:

- `entry_changes`: per step, only the entries that changed (`life[P2]: 3 -> 1`, a set's members
  added and removed), computed from the two states' ITF values;
- `what_ran`: per step, the action with its arguments, then each routine, tagged statement,
  phase block, trigger (with the subject it ran for) and outcome rule in the order they ran,
  and which outcome each outcome rule decided ("P2 loses by `hp_zero`"). The explorer records
  only rule ids (the search must not pay for a story nobody reads), so a step that hit a rule
  with a subject (an outcome rule for players or teams, a trigger) or with a cause is run
  again here through the reference closures with a hit list that also notes the subject bound
  when each rule is hit; a step whose re-run does not give the recorded state (it cannot happen
  unless an engine is wrong) falls back to the recorded ids without subjects. Other steps (most
  of a long trace: a hit that changes a total) are told from the recorded ids alone;
- `blockers`: for a deadlocked state, each player still in the game and what blocks them: not
  active (and who is), or, for the active ones, each game action and the part of its `when`
  condition that is false.

`tell` attaches all of it to the findings of one instance, after the checks: it only re-runs
steps of traces already chosen, a few closures' calls per step.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..explicit.compile import DREW, LEFT, WON, Ctx, EvalError, result_mask
from ..explicit.explore import describe_action
from ..explicit.machine import Machine
from ..explicit.values import lost_mask
from ..frontend import typed as T
from ..frontend.ends import has_ended
from ..frontend.syntax import Span
from .causes import conjuncts, source_text
from .findings import Finding, TraceStep
from .traces import show, state_values

SHOWN = 4  # bindings named per failing condition before "and N more"


@dataclass(frozen=True)
class Change:
    """One entry that a step changed: `life[P2]` from `old` to `new`; for a set, the members
    `added` and `removed` (old and new then empty)."""
    name: str
    old: str = ""
    new: str = ""
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    @property
    def what(self) -> str:
        """`0 -> 1`, or a set's `+P3, -P1`."""
        if self.added or self.removed:
            return ", ".join([f"+{m}" for m in self.added] + [f"-{m}" for m in self.removed])
        return f"{self.old} -> {self.new}"

    def __str__(self) -> str:
        return f"{self.name}: {self.what}"


@dataclass(frozen=True)
class Fired:
    """A rule that applied in a step, in the order it did: `kind` is the rule's (action,
    statement, routine, phase, state, trigger, outcome), `subject` the player or team a trigger ran for
    or an outcome rule decided about ("" if none), `decided` what the outcome rule decided for
    it ("loses", "wins", "draws", "ends the game"...; "" for other rules, and for an outcome
    rule whose fact a precedence or a `cannot` rule overrode: it applied but decided nothing)."""
    kind: str
    name: str
    tags: tuple[str, ...]
    span: Span
    subject: str = ""
    decided: str = ""
    by: str = ""  # who acted in the step, for a trigger `on ... by q` (the cause it ran with)
    event: str = ""  # a trigger on a declared event: the event's name, which it ran on

    def text(self, place: bool = True) -> str:
        """`trigger skip for P3 [K5] at x.rw:31` (without ` at ...` where the place is given apart)."""
        kind = {"statement": "tagged statement", "state": "state-based rule"}.get(self.kind, self.kind)
        name = f" {self.name}" if self.kind != "statement" else ""
        if self.kind == "phase" and not self.name.startswith("when "):
            name += " ends"  # a phase is cited by the step that ends it; `when X ends` blocks name themselves
        if self.event:  # `trigger release on takes_marker(P6)`: the declared event it heard
            who = f" on {self.event}" + (f"({self.subject})" if self.subject else "")
        else:
            who = f" for {self.subject}" if self.subject else ""
        who += f" by {self.by}" if self.by else ""
        tags = f" [{', '.join(self.tags)}]" if self.tags else ""
        return f"{kind}{name}{who}{tags}" + (f" at {_line(self.span)}" if place else "")

    def __str__(self) -> str:
        return self.text()

    def outcome(self) -> str:
        """`P2 loses by `hp_zero` [102.3a]`, or "" if it decided nothing."""
        if not self.decided:
            return ""
        tags = f" [{', '.join(self.tags)}]" if self.tags else ""
        who = f"{self.subject} " if self.subject else ""
        return f"{who}{self.decided} by `{self.name}`{tags}"


@dataclass(frozen=True)
class Blocker:
    """What blocks one player of a deadlocked state: `action` ("" when they are not active) and
    `why`, located at `span` (the `active` declaration, or the false part of the guard)."""
    player: str
    action: str
    why: str
    span: Span | None = None

    def text(self, place: bool = True) -> str:
        where = f" at {_line(self.span)}" if place and self.span is not None and self.span.line > 0 else ""
        return f"{self.player}: " + (f"{self.action}: " if self.action else "") + self.why + where

    def __str__(self) -> str:
        return self.text()


def _line(span: Span) -> str:
    return f"{span.file}:{span.line}"


# ---------------------------------------------------------------- what changed

def entry_changes(before: tuple, after: tuple) -> tuple[Change, ...]:
    """The entries that changed between two states given as ITF values ((name, value) pairs,
    `traces.state_values`): each entry of a map, each scalar, a set's members in and out."""
    old = dict(before)
    out: list[Change] = []
    for name, new in after:
        was = old.get(name)
        if was == new:
            continue
        if isinstance(new, dict) and "#map" in new and isinstance(was, dict) and "#map" in was:
            prev = {show(k): v for k, v in was["#map"]}
            for k, v in new["#map"]:
                key = show(k)
                if prev.get(key) != v:
                    out.extend(_change(f"{name}[{key}]", prev.get(key), v))
            continue
        out.extend(_change(name, was, new))
    return tuple(out)


def _change(name: str, was, new) -> list[Change]:
    if isinstance(new, dict) and "#set" in new and (was is None or isinstance(was, dict) and "#set" in was):
        before = [show(m) for m in (was or {"#set": []})["#set"]]
        after = [show(m) for m in new["#set"]]
        return [Change(name, added=tuple(m for m in after if m not in before),
                       removed=tuple(m for m in before if m not in after))]
    return [Change(name, "" if was is None else show(was), show(new))]


# ---------------------------------------------------------------- what ran

class _Hits(list):
    """A step's hit list that also notes, for each rule with a subject (an outcome rule for
    players or teams, a trigger), the subject bound in its cell when it was hit."""

    def __init__(self, cells: dict):
        super().__init__()
        self.cells = cells
        self.subjects: list = []

    def append(self, rid) -> None:
        super().append(rid)
        cell = self.cells.get(rid)
        self.subjects.append(None if cell is None else cell[0])


def _cells(m: Machine) -> dict:
    """rule id -> (the cell its subject is bound in, "player" or "team"); a `cannot` rule has
    none (it is cited once for all the subjects it forbade)."""
    out = {}
    for r in m.loss_rules + m.win_rules:
        if r.cell is not None:
            out[r.rid] = (r.cell, r.subject)
    for ts in m.triggers.values():
        for t in ts:
            if t.cell is not None:
                out[t.rid] = (t.cell, t.decl.subject)
    return out


def rerun(m: Machine, before: tuple, ai: int, binding: tuple):
    """Run action `ai` with `binding` from the slots `before` through the closures, outcome
    resolution included: (the slots after, [(rule id, subject index or None)], the context)."""
    k = m.inst.nslots
    a = m.actions[ai]
    for cell, v in zip(a.cells, binding):
        cell[0] = v
    c = Ctx(list(before[:k]), before[k], before[k + 1])
    cells = _cells(m)
    hits = _Hits({rid: cell for rid, (cell, _) in cells.items()})
    c.hits = hits
    hits.append(a.rid)
    a.run(c)
    end, _ = m.settle(c)
    return tuple(c.vals) + (c.out, c.tout, end), list(zip(hits, hits.subjects)), c


def what_ran(x, step: TraceStep, before_sid: int, again: bool = False) -> tuple[Fired, ...]:
    """The rules step `step` (reached from state `before_sid`) applied, in order, with subjects
    and what each outcome rule decided. `again`: run the step again through the closures even
    where the recorded ids tell the whole story (the tests compare the two)."""
    g, m = x.graph, x.machine
    if step.lid < 0:  # the setup: its outcome rules as the explorer recorded them
        return _plain(m, g.init_hits.get(step.sid, ()))
    ai, binding, hits = g.labels[step.lid]
    kinds = _cells(m)
    caused = {t.rid for ts in m.triggers.values() for t in ts if t.cause is not None}
    before = m.values(g.state_of(before_sid))
    if again or any(rid in kinds or rid in caused for rid in hits):
        try:
            after, ran, c = rerun(m, before, ai, binding)
        except EvalError:
            return _plain(m, hits)
        if after != tuple(m.values(g.state_of(step.sid))) or [rid for rid, _ in ran] != list(hits):
            return _plain(m, hits)  # not the recorded step (an engine is wrong, the replay will say)
        actor = c.actor
    else:
        # No rule of the step has a subject or a cause: the recorded ids are the whole story,
        # and running the step again (outcome resolution over every player, the costly part
        # of a long trace's story) would only confirm them. The replay checks the step.
        after, ran, actor = tuple(m.values(g.state_of(step.sid))), [(rid, None) for rid in hits], -1
    heard = {t.rule: t.signal for t in m.inst.model.triggers if t.signal}  # rule id -> declared event
    inst = m.inst
    decided = _decided(m, before, after)
    out: list[Fired] = []
    seen = set()
    for i, (rid, x_) in enumerate(ran):
        r = m.rules[rid]
        subject = ""
        if x_ is not None and rid in kinds:
            subject = inst.players[x_] if kinds[rid][1] == "player" else inst.teams[x_]
        if (rid, subject) in seen:  # a rule cited again (a fixpoint's later round) ran once
            continue
        seen.add((rid, subject))
        name = r.name
        if r.kind == "action" and i == 0:
            name = describe_action(m, ai, binding)
        verb = _verb(m, rid, x_, decided) if r.kind == "outcome" else ""
        by = inst.players[actor] if rid in caused and actor >= 0 else ""
        out.append(Fired(r.kind, name, r.tags, r.span, subject, verb, by, heard.get(rid, "")))
    return tuple(out)


def _plain(m: Machine, hits) -> tuple[Fired, ...]:
    rules = m.rules
    return tuple(Fired(rules[r].kind, rules[r].name, rules[r].tags, rules[r].span) for r in dict.fromkeys(hits))


def _decided(m: Machine, before: tuple, after: tuple) -> dict:
    """What the step settled, by kind: the players and teams who lost, drew, left or won in it,
    and whether the game ended (in a draw)."""
    k, n, nt = m.inst.nslots, m.n, m.nt
    out0, tout0, out1, tout1, end = before[k], before[k + 1], after[k], after[k + 1], after[-1]
    new = {}
    for key, (o0, o1, w) in (("player", (out0, out1, n)), ("team", (tout0, tout1, nt))):
        new[("lose", key)] = lost_mask(o1, w) & ~lost_mask(o0, w)
        for why, verb in ((DREW, "draw"), (WON, "win"), (LEFT, "leave")):
            new[(verb, key)] = result_mask(o1, w, why) & ~result_mask(o0, w, why)
    ended = has_ended(end) and not has_ended(before[-1])
    if ended:
        new[("win", "player")] |= end.players
        new[("win", "team")] |= end.teams
    new["draw"] = ended and end.draw
    new["ended"] = ended
    return new


VERBS = {"lose": "loses", "win": "wins", "draw": "draws", "leave": "leaves with no result"}


def _verb(m: Machine, rid: int, x_, decided: dict) -> str:
    """What outcome rule `rid` decided for subject `x_` in the step ("" if it decided nothing
    that stood: a precedence dropped it, or it is a `cannot` rule)."""
    rule = next((r for r in m.outcomes if r.rid == rid), None)
    if rule is None or rule.kind.startswith("cannot_"):
        return ""
    if rule.subject is None:  # a draw of the whole game, or a finish
        if rule.kind == "draw":
            return "the game is a draw" if decided["draw"] else ""
        return "the game ends" if decided["ended"] else ""
    if x_ is None:
        return ""
    got = decided.get((rule.kind, rule.subject), 0)
    return VERBS.get(rule.kind, "") if got >> x_ & 1 else ""


# ---------------------------------------------------------------- what blocks a deadlock

def blockers(x, sid: int) -> tuple[Blocker, ...]:
    """For each player still in the game in state `sid`, what keeps them from acting: not
    active (and who is), or each game action and the part of its guard that is false there."""
    m, inst = x.machine, x.inst
    slots = m.values(x.graph.state_of(sid))
    k = inst.nslots
    reader = Machine.reader(m, slots)
    in_game = [p for p in range(inst.nplayers) if not slots[k] >> p & 1]
    active = in_game if m.active is None else [p for p in in_game if m.active_in(reader, p)]
    out: list[Blocker] = []
    waiting = [p for p in in_game if p not in active]
    if waiting:
        decl, cell, _ = m.active
        wait = ("waits for " + ", ".join(inst.players[p] for p in active) if active
                else "no player in the game is active")
        # the players for whom the same part of the `active` condition is false, together
        groups: dict = {}
        parts = [(e, m.comp.expr(e)) for e in conjuncts(decl.cond)]
        for p in waiting:
            cell[0] = p
            e, verb = _first_false(parts, reader) or (decl.cond, "is false")
            groups.setdefault((id(e), verb), (e, verb, []))[2].append(inst.players[p])
        for e, verb, players in groups.values():
            text = source_text(e.span) or "active"
            out.append(Blocker(", ".join(players), "", f"not active (`{text}` {verb}{_reads(x, e, sid)}); {wait}",
                               e.span if e.span.line > 0 else decl.span))
    if active:
        names = ", ".join(inst.players[p] for p in active) + " (active)" if m.active is not None else "every player"
        for a in (a for a in m.actions if not a.leave):
            for why, span in _guard_failures(m, a, reader):
                out.append(Blocker(names, a.decl.name, why, span))
    return tuple(out)


def _reads(x, cond, sid: int) -> str:
    """`: turn = P2, out of the game`: the variables a condition reads, as the state has them."""
    names = list(dict.fromkeys(n.name for n in T.walk(cond) if isinstance(n, T.VarRef)))
    values = dict(state_values(x.graph, x.graph.state_of(sid)))
    out = {show(m) for m in values.get("out_of_game", {"#set": []})["#set"]}
    # a player's name the condition compares with may be one out of the game: say so
    # scalars only: a map of every player's entry says less than the condition itself
    shown = [f"{n} = {show(values[n])}" + (", out of the game" if show(values[n]) in out else "")
             for n in names if n in values and not (isinstance(values[n], dict) and "#map" in values[n])]
    return ": " + "; ".join(shown) if shown else ""


def _first_false(parts, reader):
    """(the first part of a conjunction that is false, "is false"), or "has no value" for a
    part that fails to evaluate; None when every part holds."""
    for e, f in parts:
        try:
            if not f(reader):
                return e, "is false"
        except EvalError:
            return e, "has no value"
    return None


def _guard_failures(m: Machine, a, reader) -> list[tuple[str, Span | None]]:
    """Why action `a` is not possible in the state `reader` reads: the first false part of its
    guard for each binding, the bindings that fail at the same part named together."""
    parts = [(e, m.comp.expr(e)) for e in conjuncts(a.decl.guard)]
    groups: dict = {}
    total = 0
    try:
        bindings = list(m.bindings(a.binders, reader))
    except EvalError as exc:
        return [(f"its parameters have no value here: {exc}", exc.span)]
    if not bindings:
        return [("no arguments to take it with (its parameters' domains are empty)", a.decl.span)]
    for binding in bindings:
        total += 1
        Machine.bind(a.binders, binding)
        failed = _first_false(parts, reader)
        if failed is None:  # the guard holds: only the step itself failed (reported as such)
            continue
        groups.setdefault((id(failed[0]), failed[1]), (failed, []))[1].append(binding)
    out = []
    whole = len(parts) > 1
    for (e, verb), bs in groups.values():
        text = source_text(e.span) or "a condition the spec's lowering added"
        if not a.binders:
            who = ""
        elif len(bs) == total:
            who = " for every " + ", ".join(b.binder.name for b in a.binders) if total > 1 else \
                  f" ({describe_action(m, m.actions.index(a), bs[0])})"
        else:
            named = [describe_action(m, m.actions.index(a), b) for b in bs[:SHOWN]]
            more = f" and {len(bs) - SHOWN} more" if len(bs) > SHOWN else ""
            who = f" ({', '.join(named)}{more})"
        part = "the part `" if whole else "`"
        out.append((f"{part}{text}` {verb}{who}", e.span if e.span.line > 0 else a.decl.span))
    return out


# ---------------------------------------------------------------- attached to findings

def tell(x, findings: list[Finding]) -> None:
    """Attach the story to the findings of one instance: each trace step's changed entries and
    the rules it ran, and for a deadlock what blocks each player of its last state."""
    for f in findings:
        if not f.trace:
            continue
        prev = None
        for i, st in enumerate(f.trace):
            if st.state and prev is not None and prev.state:
                st.entries = entry_changes(prev.state, st.state)
            if st.sid >= 0 and (st.lid < 0 or prev is not None and prev.sid >= 0):
                st.ran = what_ran(x, st, prev.sid if prev is not None else -1)
            prev = st
        if f.kind == "deadlock" and f.trace[-1].sid >= 0:
            f.blocked = blockers(x, f.trace[-1].sid)
