"""The behavioural difference of two versions of a spec (`rulewright diff OLD NEW`).

Both versions go through the whole check (`engine.check`, which keeps each instance's graph);
instances are matched by their label without the file's path (format, reading, parameters).

Same behaviour, per instance, means the same observable traces: the sequences
`setup o0, a1 o1, a2 o2, ...` a play can produce, where `ai` is an action with its arguments as
text (`attack(q=P3)`; rule tags are not behaviour, renumbering a rule changes nothing) and `oi`
the observation of a state: the values of the variables both versions declare under the same
name, who is out of the game and why (drew, won while the game went on, left with no result:
observed when either version can give that reason, an empty set in the version that cannot),
and whether the game runs, must end, or ended with which outcome. Variables only one version
has are not observed (renaming a variable hides it).

The comparison is a breadth-first search over pairs (the set of OLD states, the set of NEW
states) reached by the same observable trace: a subset construction, so hidden variables that
make a version nondeterministic cannot fake a difference. At each pair, a step (action and
observation after it) that one side can take and the other cannot is a difference; the first
one found for each side is the shortest play that version allows and the other does not. A
setup one version admits and the other does not is the difference of length 0. Outcomes
reachable in one version and not the other are reported besides, with the shortest play that
reaches them. Findings of the two checks are matched by model, kind and rules: added, fixed or
changed (same kind and rules, another message).

An instance neither version has a setup for (a contradiction, or no initial state) has no
play to compare: its contradictions are, by the rules in conflict ("contradiction unchanged",
or a `contradiction` difference, informational). One that only one version has a setup for
differs at the setup.

Each play is replayed by the Z3 engine in the version that allows it (its setup by
`checker.symbolic.setup.setup_admits`, its steps by `checker.symbolic.replay.replay`). A
difference is declared when a `changes [ids] "why"` note of the new version's model cites one
of its rules, or when its fingerprint is in an accepted-differences file.

`--max-seconds` is the whole diff's: each version's check gets SIDE_SHARE of it (what OLD
leaves goes to NEW), the comparisons what is left, shared among the instances as they come.
An instance one version did not check, or whose initial states may be no setup's (Z3 could not
tell whether the choices it decides fit), is not compared; one whose exploration or
comparison stopped at a limit is incomplete: a difference found among the fully expanded
states is still real, the absence of one is not claimed, and neither are findings added or
fixed in a model some of whose instances were not seen to the end.
"""
from __future__ import annotations

import hashlib
import json
import time
from collections import deque
from dataclasses import dataclass, field, fields, is_dataclass, replace

from .engine import Result, check as check_spec, front_end
from .frontend import syntax as sx
from .explicit.explore import Graph, describe_action, rules_of
from .frontend.instances import Instance
from .limits import Budget, LimitHit, Limits, cpu_seconds, watchdog
from .symbolic import replay as z3replay
from .symbolic import setup as z3setup
from .analyses.findings import Finding, TraceStep
from .analyses.traces import RESULT_ROWS, build_trace, show, state_values

BUILTIN_OBSERVED = ("out_of_game", "teams_out", "game")
KINDS = {  # kind: what it says (behaviour kinds make `diff` fail unless declared)
    "setup": "a starting state one version admits and the other does not",
    "play": "a step one version allows after a play both allow, and the other does not",
    "outcome": "an outcome reachable in one version and not in the other",
    "instance": "an instance (format, reading, parameter values) only one version has",
    "finding": "a finding added, fixed or changed (informational: `check` judges findings)",
    "contradiction": "an instance neither version has a setup for, whose conflicting rules changed "
                     "(informational: neither allows any play)",
}
BEHAVIOUR = ("setup", "play", "outcome", "instance")
SIDE_SHARE = 0.4  # of the diff's time, each version's check; the comparisons get the rest (a fifth at least)


@dataclass
class Difference:
    kind: str  # one of KINDS
    side: str  # "old" or "new": the version that allows or has it; "both" for a changed finding
    model: str  # the model without the file's path: "turns | reading allies_across" ("" for a plain file)
    summary: str  # one line in the rules' vocabulary
    rules: tuple[str, ...]
    identity: tuple  # what makes two instances' differences the same, and the fingerprint
    instances: list[str] = field(default_factory=list)
    trace: list[TraceStep] | None = None  # in the version that allows it
    other: str = ""  # what the other version does instead
    replay: str = ""  # "confirmed", "not replayed: ...", "FAILED: ..."
    declared_by: str = ""  # the `changes` note or accepted-differences file that declares it
    findings: tuple = ()  # (old, new) Finding or None, for finding differences
    trace_obs: tuple = ()  # the observed values of the last state of `trace`
    old_trace: list[TraceStep] | None = None  # side "both": OLD's play (`trace` is NEW's)
    old_replay: str = ""

    @property
    def fingerprint(self) -> str:
        text = json.dumps([self.kind, self.side, self.model, *self.identity], ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    @property
    def behaviour(self) -> bool:
        return self.kind in BEHAVIOUR


@dataclass
class DiffResult:
    old: str  # as the user named them
    new: str
    old_check: Result | None = None
    new_check: Result | None = None
    differences: list[Difference] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)
    unused_notes: list[str] = field(default_factory=list)  # `changes` notes that declare nothing
    compared: int = 0  # instances compared
    same_contradictions: list[tuple[str, str]] = field(default_factory=list)  # (instance, contradiction) of both

    @property
    def diagnostics(self) -> list:
        return [d for r in (self.old_check, self.new_check) if r is not None for d in r.diagnostics]

    @property
    def undeclared(self) -> list[Difference]:
        return [d for d in self.differences if d.behaviour and not d.declared_by]

    @property
    def disagreements(self) -> list[Difference]:
        return [d for d in self.differences if d.replay.startswith("FAILED")]

    def exit_code(self) -> int:
        """2 bad input; 4 a replay rejects a play (a bug in rulewright); 1 undeclared behaviour
        change; 3 a limit was hit (and no undeclared change was found); 0 the same behaviour."""
        if self.diagnostics:
            return 2
        if self.disagreements:
            return 4
        if self.undeclared:
            return 1
        if self.incomplete:
            return 3
        return 0


# ---------------------------------------------------------------- the whole comparison

def diff(old: tuple[str, str, str], new: tuple[str, str, str], limits: Limits = Limits(), replay: bool = True,
         accepted: dict[str, str] | None = None) -> DiffResult:
    """Compare two spec files, each given as (path, include root, name to show), within one
    budget: `limits.max_seconds` bounds both checks and the comparison together."""
    res = DiffResult(old[2], new[2])
    total = limits.max_seconds
    # CPU time, as for `check` (checker.limits): both versions are checked in this thread
    deadline = cpu_seconds() + total
    wall_deadline = time.perf_counter() + limits.wall_seconds
    graphs_old: dict[str, Graph] = {}
    graphs_new: dict[str, Graph] = {}
    shares = {}
    shares["OLD"] = _share(limits, deadline, wall_deadline, SIDE_SHARE)
    res.old_check = check_spec([old[0]], shares["OLD"], replay, graphs_old, old[1])
    if res.old_check.diagnostics:
        return res
    shares["NEW"] = _share(limits, deadline, wall_deadline, SIDE_SHARE / (1 - SIDE_SHARE))  # its share, and what OLD left
    res.new_check = check_spec([new[0]], shares["NEW"], replay, graphs_new, new[1])
    if res.new_check.diagnostics:
        return res
    for which, r in (("OLD", res.old_check), ("NEW", res.new_check)):
        part = f"{which}'s part ({shares[which].max_seconds:g}s) of the diff's time limit of {total:g}s"
        res.incomplete.extend(f"{which}: {_strip(_in_diff(why, shares[which].max_seconds, part), r)}"
                              for why in r.incomplete)
        if r.interrupted:
            res.incomplete.append(f"{which}: {r.interrupted}")
    # every instance of each version, checked or not (the front end is deterministic: the
    # checks' labels are these)
    i_old, i_new = _instances(old), _instances(new)
    g_old = {_rel(label, old[0]): g for label, g in graphs_old.items()}
    g_new = {_rel(label, new[0]): g for label, g in graphs_new.items()}
    unseen = {"OLD": _unseen(res.old_check, old[0], i_old, g_old), "NEW": _unseen(res.new_check, new[0], i_new, g_new)}
    labels = _ordered(i_old, i_new)
    budget = Budget(limits, seconds=max(deadline - cpu_seconds(), 0.001), why=f"the diff's time limit of {total:g}s reached",
                    wall=max(wall_deadline - time.perf_counter(), 0.001))
    raw: list[Difference] = []
    for k, label in enumerate(labels):
        if label not in i_old or label not in i_new:
            raw.append(_instance_difference(label, i_old.get(label) or i_new[label], "new" if label not in i_old else "old"))
            continue
        a, b = g_old.get(label), g_new.get(label)
        why = _not_comparable(a, b)
        if why:
            res.incomplete.append(f"{label or 'the model'}: not compared: {why}")
            continue
        contra = (_contradiction_of(res.old_check, old[0], label), _contradiction_of(res.new_check, new[0], label))
        if _no_setup(a) and _no_setup(b):  # no play in either: their contradictions are what can differ
            d = _contradiction_difference(label, a, contra)
            res.compared += 1
            if d is None:
                res.same_contradictions.append((label, contra[1].message if contra[1] else "no initial state"))
            else:
                raw.append(d)
            continue
        left = len(labels) - k  # (at most: instances only one version has take no time)
        seconds = budget.remaining() / left
        part = budget.part(seconds, f"its share ({seconds:.3g}s) of the diff's time limit of {total:g}s ran out")
        found, why = compare_graphs(a, b, limits, replay, part)
        res.compared += 1
        for d in found:
            d.instances = [label]
            if d.kind == "setup":  # "the other admits no setup": its conflicting rules are the difference's too
                other = contra[1] if d.side == "old" else contra[0]
                if other is not None and not (b if d.side == "old" else a).init_ids:
                    d.rules = tuple(dict.fromkeys(d.rules + other.rules))
        raw.extend(found)
        if why:
            res.incomplete.append(f"{label or 'the model'}: {why}")
    partly_seen = {_rel(i.model_name, path) for which, insts, path in (("OLD", i_old, old[0]), ("NEW", i_new, new[0]))
                   for label, i in insts.items() if label in unseen[which]}
    res.differences = _group(raw) + finding_differences(res.old_check, old[0], res.new_check, new[0], partly_seen)
    _declare(res, i_old, i_new, accepted or {})
    return res


def _share(limits: Limits, deadline: float, wall_deadline: float, fraction: float) -> Limits:
    """The limits of one version's check: `fraction` of the diff's CPU time left, within the
    wall-clock time left (the states and memory limits are the same: per instance, and of the
    whole process)."""
    left = deadline - cpu_seconds()
    return replace(limits, max_seconds=round(max(left * fraction, 0.001), 3),
                   max_wall_seconds=round(max(wall_deadline - time.perf_counter(), 0.001), 3))


def _in_diff(why: str, seconds: float, part: str) -> str:
    """A check's message about its time limit, said as its part of the diff's."""
    return why.replace(f"the run's time limit of {seconds:g}s", part).replace(f"time limit of {seconds:g}s", part)


def _instances(side: tuple[str, str, str]) -> dict[str, Instance]:
    """Every instance of a version by its label without the file's path (its check may not
    have got to all of them)."""
    plans = front_end([side[0]], Result(), side[1])
    return {_rel(inst.label, side[0]): inst for plan in plans for inst in plan.instances}


def _unseen(r: Result, path: str, insts: dict[str, Instance], graphs: dict[str, Graph]) -> set[str]:
    """The instances a version's check did not see to the end: not checked, explored only in
    part, or stopped in some other phase (a line of its incomplete list names them)."""
    out = {label for label in insts if graphs.get(label) is None or not graphs[label].complete}
    for line in r.incomplete:
        line = _rel(line, path)
        out.update(label for label in insts if line.startswith(f"{label}: "))
    return out


def _not_comparable(a: Graph | None, b: Graph | None) -> str:
    """Why two graphs of an instance cannot be compared at all ("" if they can)."""
    for which, g in (("OLD", a), ("NEW", b)):
        if g is None:
            return f"{which} did not check it"
        if g.setup_unknown:
            return f"Z3 could not tell whether {which} has a setup at all ({g.setup_unknown.rsplit(': ', 1)[-1]})"
        if not g.init_ids and not g.complete:
            return f"{which} stopped before its initial states were known ({g.stop_reason})"
    return ""


def _no_setup(g: Graph) -> bool:
    """No setup at all: no initial state, and every one was looked for."""
    return g.complete and not g.init_ids


def _contradiction_of(r: Result, path: str, label: str) -> Finding | None:
    """The contradiction a version's check found in an instance, if any."""
    for f in r.findings:
        if f.kind == "contradiction" and label in {_rel(i, path) for i in (f.instances or [f.instance])}:
            return f
    return None


def _contradiction_difference(label: str, g: Graph, contra: tuple) -> Difference | None:
    """Two versions without a setup: None when the same rules conflict, else the change."""
    def what(f: Finding | None) -> tuple:
        return (f.subject, f.rules) if f is not None else ((), ())
    if what(contra[0]) == what(contra[1]):
        return None
    said = [f.message if f is not None else "no initial state (every setup fails)" for f in contra]
    rules = tuple(dict.fromkeys(r for f in contra if f is not None for r in f.rules))
    return Difference("contradiction", "both", _model(g), f"contradiction changed: OLD: {said[0]}; NEW: {said[1]}",
                      rules, ("contradiction", what(contra[0])[0], what(contra[1])[0]), instances=[label])


def _rel(label: str, path: str) -> str:
    """A label or model name without the file's path: `turns | reading r | V=2`."""
    return label[len(path):].removeprefix(" | ") if label.startswith(path) else label


def _strip(text: str, r: Result) -> str:
    for f in r.files:
        text = text.replace(f + " | ", "").replace(f, "")
    return "the model" + text if text.startswith(": ") else text  # (a file without formats or parameters)


def _ordered(a: dict, b: dict) -> list[str]:
    return list(a) + [k for k in b if k not in a]


def _group(raw: list[Difference]) -> list[Difference]:
    """One difference per (kind, side, model, identity), listing every instance it occurs in
    (the first instance's play is kept: instances come smallest parameter values first)."""
    groups: dict[tuple, Difference] = {}
    for d in raw:
        key = (d.kind, d.side, d.model, d.identity)
        if key in groups:
            groups[key].instances.extend(d.instances)
        else:
            groups[key] = d
    return list(groups.values())


def _instance_difference(label: str, inst: Instance, side: str) -> Difference:
    m = inst.model
    tags = tuple(dict.fromkeys(t for f in m.spec.formats if f.name == m.format for t in f.tags))
    return Difference("instance", side, _rel(m.name, m.path), f"only {side.upper()} has the instance {label or 'the model'}",
                      tags, (label,), instances=[label])


# ---------------------------------------------------------------- two graphs of one instance

class _View:
    """One version's graph as observable steps: (action text, observation id) -> targets."""

    def __init__(self, g: Graph, observed: set[str], intern: dict):
        self.g = g
        self.obs_names = observed
        self._intern = intern
        self._obs: dict[int, int] = {}
        self._text: dict[int, str] = {}
        self._succ: dict[int, list] = {}
        for s, d, lid in g.edges:
            self._succ.setdefault(s, []).append((lid, d))

    def obs(self, sid: int) -> int:
        o = self._obs.get(sid)
        if o is None:
            shown = {k: show(v) for k, v in state_values(self.g, self.g.states[sid]) if k in self.obs_names}
            for name in self.obs_names & REASONS:  # a reason this version never gives: nobody is out for it
                shown.setdefault(name, show({"#set": []}))
            # sorted by name: the order of declarations is not behaviour (a moved variable is the same state)
            values = tuple(sorted(shown.items()))
            o = self._obs[sid] = self._intern.setdefault(values, len(self._intern))
        return o

    def text(self, lid: int) -> str:
        t = self._text.get(lid)
        if t is None:
            action, binding, _ = self.g.labels[lid]
            t = self._text[lid] = describe_action(self.g.machine, action, binding)
        return t

    def expanded(self, sid: int) -> bool:
        return self.g.complete or sid < self.g.expanded

    def steps(self, sids) -> dict[tuple, list[tuple[int, int, int]]]:
        """(action text, observation after) -> [(source, label, target)] from any of `sids`."""
        out: dict[tuple, list] = {}
        for s in sorted(sids):
            for lid, d in self._succ.get(s, ()):
                out.setdefault((self.text(lid), self.obs(d)), []).append((s, lid, d))
        return out


REASONS = {name for _, name, _ in RESULT_ROWS}


def observed_names(a: Graph, b: Graph) -> set[str]:
    """The variables both versions declare, the built-in statuses, and why players are out for
    every reason either version can give."""
    names = lambda g: {v.name for v in g.machine.inst.vars} | set(BUILTIN_OBSERVED)  # noqa: E731
    used = a.machine.results_used | b.machine.results_used
    return (names(a) & names(b)) | {name for _, name, key in RESULT_ROWS if key in used}


def compare_graphs(a: Graph, b: Graph, limits: Limits, replay: bool = True,
                   budget: Budget | None = None) -> tuple[list[Difference], str]:
    """The differences of one instance's two graphs (OLD `a`, NEW `b`) within `budget` (by
    default one of `limits`), and why the comparison is incomplete ("" if it is not)."""
    budget = budget or Budget(limits)
    intern: dict = {}
    names = observed_names(a, b)
    va, vb = _View(a, names, intern), _View(b, names, intern)
    views = {"old": va, "new": vb}
    unobs = {v: k for k, v in intern.items()}  # filled lazily below
    stopped = [which for which, g in (("OLD", a), ("NEW", b)) if not g.complete]  # (each check says why)
    incomplete = (f"{' and '.join(stopped)} stopped exploring at a limit: only the states explored to the end are "
                  "compared" if stopped else "")
    found: dict[str, Difference] = {}
    out: list[Difference] = []
    try:
        with watchdog(budget):
            # setups: group the initial states by what they show
            init: dict[int, list[set]] = {}
            if (a.init_ids or a.complete) and (b.init_ids or b.complete):
                for side, v in (("old", va), ("new", vb)):
                    for sid in v.g.init_ids:
                        init.setdefault(v.obs(sid), [set(), set()])[side == "new"].add(sid)
            queue: deque = deque()
            parent: dict[tuple, tuple | None] = {}
            for o, (sa, sb) in init.items():
                if sa and sb:
                    node = (frozenset(sa), frozenset(sb))
                    if node not in parent:
                        parent[node] = None
                        queue.append(node)
                    continue
                side = "old" if sa else "new"
                if side not in found:
                    found[side] = _setup_difference(views, side, min(sa or sb), init, intern)
            nodes = 0
            while queue and len(found) < 2:
                budget.check()
                nodes += 1
                if nodes > limits.max_states:
                    incomplete = f"the comparison stopped after {limits.max_states:,} pairs of state sets"
                    break
                node = queue.popleft()
                if not all(va.expanded(s) for s in node[0]) or not all(vb.expanded(s) for s in node[1]):
                    continue  # beyond what a stopped exploration saw: nothing is known there
                sa, sb = va.steps(node[0]), vb.steps(node[1])
                unobs.update({v: k for k, v in intern.items() if v not in unobs})
                for key in sorted(set(sa) | set(sb), key=lambda k: (k[0], unobs[k[1]])):
                    if key in sa and key in sb:
                        child = (frozenset(d for _, _, d in sa[key]), frozenset(d for _, _, d in sb[key]))
                        if child not in parent:
                            parent[child] = (node, key)
                            queue.append(child)
                        continue
                    side = "old" if key in sa else "new"
                    if side not in found:
                        other = sb if side == "old" else sa
                        found[side] = _play_difference(views, side, node, key, (sa if side == "old" else sb)[key],
                                                       other, parent, unobs)
            out.extend(_merged(found))
            if a.init_ids and b.init_ids:  # (without a setup on one side, the setup difference says it all)
                out.extend(_outcome_differences(va, vb, names))
            for d in out:
                if d.trace is not None:
                    d.replay = _replay(views["new" if d.side == "both" else d.side].g, d.trace, budget) if replay else "not run"
                if d.old_trace is not None:
                    d.old_replay = _replay(va.g, d.old_trace, budget) if replay else "not run"
    except LimitHit as exc:
        out.extend(found[s] for s in ("old", "new") if s in found and found[s] not in out)
        return out, f"the comparison stopped ({exc})"
    return out, incomplete


def _merged(found: dict[str, Difference]) -> list[Difference]:
    """The two sides' first differences, as one when they are the same play (or setup) whose
    last step leads to different values: `end_turn` gives the turn to B1 in OLD, to A2 in NEW."""
    o, n = found.get("old"), found.get("new")
    if not (o and n and o.kind == n.kind and o.identity[1] == n.identity[1]
            and [s.action for s in o.trace] == [s.action for s in n.trace]):
        return [d for d in (o, n) if d]
    diff = _differing(o.trace_obs, n.trace_obs)
    if o.kind == "setup":
        summary = f"the setup differs: OLD starts with {_values(diff, 1)}, NEW with {_values(diff, 2)}"
    else:
        before = "; ".join(st.action for st in n.trace[1:-1])
        summary = (f"after setup{'; ' + before if before else ''}, {n.trace[-1].action} leads to {_values(diff, 1)} "
                   f"in OLD but to {_values(diff, 2)} in NEW")
    rules = tuple(dict.fromkeys(o.rules + n.rules))
    return [Difference(o.kind, "both", n.model, summary, rules, (o.identity[0], o.identity[1], tuple(k for k, _, _ in diff)),
                       trace=n.trace, old_trace=o.trace)]


def _differing(x: tuple, y: tuple) -> list[tuple[str, str, str]]:
    """(name, value in x, value in y) for every observed value that differs."""
    dy = dict(y)
    return [(k, v, dy[k]) for k, v in x if k in dy and dy[k] != v]


def _values(items: list[tuple[str, str, str]], which: int) -> str:
    """The values of one side (1: the first, 2: the second) of `_differing`'s triples."""
    return "; ".join(f"{i[0]} = {i[which]}" for i in items) or "the same values"


def _model(g: Graph) -> str:
    m = g.machine.inst.model
    return _rel(m.name, m.path)


def _setup_difference(views, side: str, sid: int, init: dict, intern: dict) -> Difference:
    v = views[side]
    other = views["new" if side == "old" else "old"]
    unobs = {i: k for k, i in intern.items()}
    mine = unobs[v.obs(sid)]
    theirs = [o for o, sets in init.items() if sets[side == "old"]]  # what the other side starts with
    inst = v.g.machine.inst
    if theirs:
        closest = min(theirs, key=lambda o: (len(_differing(mine, unobs[o])), o))
        diff = _differing(mine, unobs[closest])
        instead = f"{other_name(side)} starts with {_values(diff, 2)} instead"
    else:
        diff, instead = [], f"{other_name(side)} admits no setup"
    changed = {k for k, _, _ in diff}
    rules = [t for var in inst.vars if var.name in changed for t in var.info.tags]
    rules += [t for vw in (v, other) for d in vw.g.machine.inst.model.inits for t in d.tags]
    rules += list(rules_of(v.g.machine, v.g.init_hits.get(sid, ())))
    shown = _values(diff, 1) if diff else "; ".join(f"{k} = {x}" for k, x in mine if k != "game")
    trace = build_trace(v.g, [(sid, -1)])
    return Difference("setup", side, _model(v.g), f"{side.upper()} can start with {shown}; {instead}",
                      tuple(dict.fromkeys(rules)), ("setup", (), tuple(k for k, _, _ in diff)), trace=trace,
                      other=instead, trace_obs=mine)


def other_name(side: str) -> str:
    return "NEW" if side == "old" else "OLD"


def _play_difference(views, side: str, node: tuple, key: tuple, edges: list, other_steps: dict, parent: dict,
                     unobs: dict) -> Difference:
    v = views[side]
    _, lid, target = min(edges, key=lambda e: (e[2], e[1]))
    # walk back through the pairs of sets to a concrete path of this side's graph
    path = [(target, lid)]
    cur, keys = node, []
    while parent[cur] is not None:
        prev, k = parent[cur]
        keys.append(k)
        cur = prev
    keys.reverse()
    sets = [cur[side == "new"]]
    for k in keys:
        step = v.steps(sets[-1])[k]
        sets.append(frozenset(d for _, _, d in step))
    want = min(e[0] for e in edges if e[2] == target and e[1] == lid)
    for i in range(len(keys) - 1, -1, -1):
        candidates = [(s, l) for s, l, d in v.steps(sets[i])[keys[i]] if d == want]
        s, l = min(candidates)
        path.append((want, l))
        want = s
    path.append((want, -1))
    path.reverse()
    trace = build_trace(v.g, path)
    action, after = key
    same = sorted((unobs[k[1]], sts) for k, sts in other_steps.items() if k[0] == action)
    mine = unobs[after]
    rules = list(trace[-1].rules)
    if same:
        theirs, sts = min(same, key=lambda x: (len(_differing(mine, x[0])), x[0]))
        diff = _differing(mine, theirs)
        o = views["new" if side == "old" else "old"]
        rules += [t for _, l, _ in sts[:1] for t in rules_of(o.g.machine, o.g.labels[l][2])]
        inst = v.g.machine.inst
        rules += [t for var in inst.vars if var.name in {k for k, _, _ in diff} for t in var.info.tags]
        instead = f"{other_name(side)}: {action} leads to {_values(diff, 2)} instead"
        what = f"{action} leading to {_values(diff, 1)}"
    else:
        instead = f"{other_name(side)} does not allow {action} there"
        diff, what = [], action
    before = "; ".join(st.action for st in trace[1:-1])
    summary = f"after setup{'; ' + before if before else ''}, {side.upper()} allows {what}; {instead}"
    identity = ("play", tuple(st.action for st in trace[1:]), tuple(k for k, _, _ in diff))
    return Difference("play", side, _model(v.g), summary, tuple(dict.fromkeys(rules)), identity, trace=trace,
                      other=instead, trace_obs=mine)


def _outcome_differences(va: _View, vb: _View, names) -> list[Difference]:
    def outcomes(v: _View) -> dict[str, int]:
        inst = v.g.machine.inst
        seen: dict[str, int] = {}
        for sid, st in enumerate(v.g.states):
            end = st[-1]
            if end and end[0] != "gap":
                seen.setdefault(inst.describe_end(end), sid)
        return seen
    oa, ob = outcomes(va), outcomes(vb)
    out = []
    for side, mine, theirs, v, other in (("old", oa, ob, va, vb), ("new", ob, oa, vb, va)):
        if not other.g.complete:
            continue  # the other side may reach it beyond where it stopped
        for what, sid in mine.items():
            if what not in theirs:
                trace = build_trace(v.g, v.g.path_to(sid))
                out.append(Difference("outcome", side, _model(v.g),
                                      f"only {side.upper()} can end with: {what}", tuple(trace[-1].rules),
                                      ("outcome", what), trace=trace, other=f"{other_name(side)} never ends so"))
    return out


def _replay(g: Graph, trace: list[TraceStep], budget: Budget) -> str:
    """The play re-executed by the Z3 engine: its setup, then every step."""
    inst = g.machine.inst
    try:
        budget.check()
        problem = z3setup.setup_admits(inst, g.values(trace[0].sid), max(1, int(budget.remaining() * 1000)))
        if not problem:
            steps = [z3replay.ReplayStep(g.values(x.sid), *g.labels[y.lid][:2], g.values(y.sid))
                     for x, y in zip(trace, trace[1:])]
            problem = z3replay.replay(inst, steps)
        else:
            problem = problem if problem.startswith("not replayed") else f"setup: {problem}"
    except LimitHit as exc:
        return f"not replayed: {exc}"
    if problem.startswith("not replayed"):
        return problem
    return f"FAILED: {problem}" if problem else "confirmed"


# ---------------------------------------------------------------- findings

def finding_differences(old: Result, old_path: str, new: Result, new_path: str,
                        unseen: set[str] = frozenset()) -> list[Difference]:
    """Findings added, fixed or changed, matched by model, kind and rules (not by line); none
    in the `unseen` models (some instance of them was not checked to the end in one version:
    what it did not find there is not known to be absent)."""
    def table(r: Result, path: str) -> dict[tuple, list[Finding]]:
        t: dict[tuple, list[Finding]] = {}
        for f in r.findings:
            if _rel(f.model, path) not in unseen:
                t.setdefault((_rel(f.model, path), f.kind, f.rules), []).append(f)
        return t

    def text(f: Finding, path: str) -> str:
        return f.message.replace(path + " | ", "").replace(path, "")

    to, tn = table(old, old_path), table(new, new_path)
    out = []
    for key in list(to) + [k for k in tn if k not in to]:
        fo = {text(f, old_path): f for f in to.get(key, [])}
        fn = {text(f, new_path): f for f in tn.get(key, [])}
        gone = [m for m in fo if m not in fn]
        came = [m for m in fn if m not in fo]
        model, kind, rules = key
        for m_old, m_new in zip(gone, came):
            out.append(_finding_difference("changed", "both", model, kind, rules, fo[m_old], fn[m_new], new_path,
                                           f"{kind} changed: was {m_old!r}, now {m_new!r}"))
        for m in gone[len(came):]:
            out.append(_finding_difference("fixed", "old", model, kind, rules, fo[m], None, old_path, f"{kind} fixed: {m}"))
        for m in came[len(gone):]:
            out.append(_finding_difference("added", "new", model, kind, rules, None, fn[m], new_path, f"{kind} added: {m}"))
    return out


def _finding_difference(how, side, model, kind, rules, f_old, f_new, path, summary) -> Difference:
    f = f_new or f_old
    d = Difference("finding", side, model, summary, rules, (how, kind, rules), trace=f.trace, replay=f.replay,
                   findings=(f_old, f_new))
    d.instances = [_rel(i, path) for i in (f.instances or [f.instance])]
    return d


# ---------------------------------------------------------------- declared changes

def _declare(res: DiffResult, i_old: dict[str, Instance], i_new: dict[str, Instance], accepted: dict[str, str]) -> None:
    """Mark each difference declared by an accepted fingerprint or a `changes` note of its model.

    A note declares a difference whose rules it cites. A difference need not cite the rule that
    caused it (an edited `let` is read by a guard whose action cites other rules), so when the
    notes of a model cite a rule of every declaration edited in that model, every difference of
    the model is declared: all of its edits are. One undeclared edit keeps that from applying.
    """
    notes: dict[str, tuple] = {}
    covered: dict[str, bool] = {}
    every: list = []
    old_models = {_rel(i.model.name, i.model.path): i.model for i in i_old.values()}
    for i in i_new.values():
        m = i.model
        name = _rel(m.name, m.path)
        if name in notes:
            continue
        notes[name] = m.changes
        every.extend(n for n in m.changes if n not in every)
        cited = {t for n in m.changes for t in n.tags}
        edits = edited_declarations(old_models[name], m) if name in old_models else []
        covered[name] = bool(edits) and all(set(tags) & cited for tags in edits)
    used: set = set()
    for d in res.differences:
        if d.fingerprint in accepted:
            d.declared_by = f"accepted in {accepted[d.fingerprint]}"
            continue
        mine = notes.get(d.model, every if d.kind == "instance" else ())
        for n in mine:
            if not d.rules or set(n.tags) & set(d.rules):
                d.declared_by = f"changes [{', '.join(n.tags)}] at {n.span}"
                used.add(n)
                break
        else:
            if covered.get(d.model):
                d.declared_by = "the changes notes of this model, which cite every declaration it edits"
                used.update(notes[d.model])
    res.unused_notes = [f"changes [{', '.join(n.tags)}] at {n.span} declares no difference"
                        for n in every if n not in used]


def edited_declarations(old, new) -> list[tuple[str, ...]]:
    """The rule tags (every tag inside) of each declaration of one model that only one version
    has, compared without positions; `expect` and `changes` are not behaviour."""
    def shapes(model) -> dict:
        out: dict = {}
        for d in model.decls:
            if not isinstance(d, (sx.ExpectDecl, sx.ChangesDecl)):
                out.setdefault(_shape(d), d)
        return out
    a, b = shapes(old), shapes(new)
    edited = [b[k] for k in b if k not in a] + [a[k] for k in a if k not in b]
    return [tuple(dict.fromkeys(t for n in sx.walk(d) for t in (getattr(n, "tags", ()) or ()))) for d in edited]


def _shape(x):
    """A syntax node as nested tuples, without its spans: equal for the same text anywhere."""
    if is_dataclass(x) and not isinstance(x, sx.Span):
        return (type(x).__name__,) + tuple(_shape(getattr(x, f.name)) for f in fields(x) if f.name != "span")
    if isinstance(x, (list, tuple)):
        return tuple(_shape(y) for y in x)
    return x


def load_accepted(path: str) -> dict[str, str]:
    """Fingerprint -> where it was accepted, from a JSON file: {"accepted": ["fp", ...]} or
    {"accepted": [{"fingerprint": "fp", "why": "..."}]}. ValueError says what is wrong."""
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} is not JSON: {exc}") from None
    items = doc.get("accepted") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        raise ValueError(f'{path}: expected {{"accepted": [fingerprints]}}')
    out = {}
    for it in items:
        fp = it.get("fingerprint") if isinstance(it, dict) else it
        if not isinstance(fp, str):
            raise ValueError(f"{path}: every accepted entry is a fingerprint string or has one")
        out[fp] = path
    return out
