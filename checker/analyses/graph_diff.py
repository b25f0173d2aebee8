"""Two explored graphs of one instance compared by behaviour: the subset construction over
observable traces that `rulewright diff` runs per instance (checker.diff, whose docstring
defines same behaviour), the differences it finds (each version's first, or every distinct one
up to a cap), and the Z3 replay of each play in the version that allows it. Values a version
encodes another way (numbers and `let`s against an enumeration) are read in NEW's words first
(`Recoding`)."""
from __future__ import annotations

import hashlib
import json
from collections import deque
from dataclasses import dataclass, field

from ..explicit.explore import Graph, describe_action, rules_of
from ..frontend import syntax as sx
from ..frontend.ends import has_ended
from ..limits import Budget, LimitHit, Limits, watchdog
from ..symbolic import replay as z3replay
from ..symbolic import setup as z3setup
from ..symbolic.terms import Unsupported
from .findings import TraceStep
from .traces import RESULT_ROWS, build_trace, show, state_values
from .verdicts import CONFIRMED, Replay

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
    replay: Replay | None = None  # the Z3 replay of `trace`
    declared_by: str = ""  # the `changes` note or accepted-differences file that declares it
    findings: tuple = ()  # (old, new) Finding or None, for finding differences
    trace_obs: tuple = ()  # the observed values of the last state of `trace`
    old_trace: list[TraceStep] | None = None  # side "both": OLD's play (`trace` is NEW's)
    old_replay: Replay | None = None

    @property
    def fingerprint(self) -> str:
        text = json.dumps([self.kind, self.side, self.model, *self.identity], ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    @property
    def behaviour(self) -> bool:
        return self.kind in BEHAVIOUR


# ---------------------------------------------------------------- two graphs of one instance

class _Observations(dict):
    """What states show, both versions' alike, interned: (name, value) pairs -> an id, and
    `values[id]` back. Both ways are kept as they grow: the comparison reads an id's values at
    every pair of state sets, and rebuilding the reverse map there was quadratic (two 29,260-state
    graphs compared in 166 s instead of seconds)."""

    def __init__(self):
        super().__init__()
        self.values: list[tuple] = []

    def id_of(self, values: tuple) -> int:
        o = self.get(values)
        if o is None:
            o = self[values] = len(self.values)
            self.values.append(values)
        return o


class _View:
    """One version's graph as observable steps: (action text, observation id) -> targets."""

    def __init__(self, g: Graph, observed: set[str], intern: _Observations, recode: Recoding | None = None):
        self.g = g
        self.obs_names = observed
        self._intern = intern
        self._recode = recode or Recoding()
        self._obs: dict[int, int] = {}
        self._text: dict[int, str] = {}
        self._succ: dict[int, list] = {}
        for s, d, lid in g.edges:
            self._succ.setdefault(s, []).append((lid, d))

    def obs(self, sid: int) -> int:
        o = self._obs.get(sid)
        if o is None:
            shown = {k: show(self._recode.value(k, v)) for k, v in state_values(self.g, self.g.states[sid])
                     if k in self.obs_names}
            for name in self.obs_names & REASONS:  # a reason this version never gives: nobody is out for it
                shown.setdefault(name, show({"#set": []}))
            # sorted by name: the order of declarations is not behaviour (a moved variable is the same state)
            values = tuple(sorted(shown.items()))
            o = self._obs[sid] = self._intern.id_of(values)
        return o

    def text(self, lid: int) -> str:
        t = self._text.get(lid)
        if t is None:
            action, binding, _ = self.g.labels[lid]
            t = self._text[lid] = self._recode.action(self.g.machine, action, binding)
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


# ---------------------------------------------------------------- values that mean the same

RECODABLE = ("bool", "int", "enum")


@dataclass(frozen=True)
class Recoding:
    """OLD's values said in NEW's words, for the variables and action parameters whose encoding
    differs between the versions (`0..2` and `let`s naming the numbers against an enumeration
    `{draft, play, done}`, `0..1` against `bool`): the comparison then sees the same value where
    the two encodings mean the same thing, and a real difference still shows as one.

    `values[name]` maps a variable's OLD value as `show` writes it (and its index, for a variable
    with one value per number or member) to NEW's; `args[(action, binder)]` an argument's;
    `sets[name]` is how a set of players reads as a boolean per player, or the other way."""
    values: dict = field(default_factory=dict)  # var name -> (value map, key map or None, NEW's key order)
    args: dict = field(default_factory=dict)  # (action, binder) -> {OLD text: NEW text}
    sets: dict = field(default_factory=dict)  # var name -> ("to map", NEW's players) or ("to set", ())

    def value(self, name: str, v):
        if name in self.sets:
            how, players = self.sets[name]
            if how == "to map":  # `set player` in OLD, `x(p: player): bool` in NEW
                return {"#map": [[p, p in v["#set"]] for p in players]}
            return {"#set": [k for k, x in v["#map"] if x is True]}
        if name not in self.values:
            return v
        vmap, kmap, order = self.values[name]
        if isinstance(v, dict) and "#map" in v:
            pairs = [[kmap.get(k, k) if kmap else k, vmap.get(show(x), x)] for k, x in v["#map"]]
            pairs.sort(key=lambda kv: order.get(kv[0], len(order)))
            return {"#map": pairs}
        return vmap.get(show(v), v)

    def action(self, m, action_i: int, binding: tuple) -> str:
        if not self.args:
            return describe_action(m, action_i, binding)
        a = m.actions[action_i]
        args = []
        for b, v in zip(a.binders, binding):
            text = m.show(b.binder.type, v)
            args.append(f"{b.binder.name}={self.args.get((a.decl.name, b.binder.name), {}).get(text, text)}")
        return a.decl.name + (f"({', '.join(args)})" if args else "")


def recoding(a: Graph, b: Graph) -> Recoding:
    """How OLD's (`a`) values read in NEW's (`b`) encoding, where the two differ (`Recoding`).

    Two types are two encodings of the same values when they have as many values and differ in
    kind (a number, a boolean, an enumeration) or are enumerations with other members. Their
    values pair by name where one version names the other's numbers (`let play = 1` and the
    member `play`), else in order (the first value with the first: `0` with `false` and with the
    first member). Numbers against numbers are never re-read: `0..2` against `1..3` is an edit."""
    ia, ib = a.machine.inst, b.machine.inst
    names = (_named_numbers(ia.model), _named_numbers(ib.model))
    values: dict = {}
    sets: dict = {}
    theirs = {v.name: v for v in ib.vars}
    for va in ia.vars:
        vb = theirs.get(va.name)
        if vb is None:
            continue
        # `set player` against a boolean per player: the players in the set are those with true
        per_player = [v.indexed == "player" and v.type.kind == "bool" for v in (va, vb)]
        is_set = [v.indexed is None and v.type.kind == "set" for v in (va, vb)]
        if is_set[0] and per_player[1]:
            sets[va.name] = ("to map", tuple(vb.index_keys(ib)))
            continue
        if per_player[0] and is_set[1]:
            sets[va.name] = ("to set", ())
            continue
        # (the types are compared before any value is listed: a set of 40 players has 2^40)
        vmap = kmap = None
        if _recoded(va.type, vb.type, va.type.count(ia.nplayers, ia.nteams), vb.type.count(ib.nplayers, ib.nteams)):
            vmap = _pairing(_texts(ia, va), _texts(ib, vb), names)
        if va.index_type is not None and vb.index_type is not None and \
                _recoded(va.index_type, vb.index_type, va.count, vb.count):
            kmap = _pairing(va.index_keys(ia), vb.index_keys(ib), names)
        if vmap or kmap:
            order = {k: i for i, k in enumerate(vb.index_keys(ib))} if vb.index_type is not None else {}
            values[va.name] = (vmap or {}, kmap, order)
    args: dict = {}
    actions_b = {x.decl.name: x for x in b.machine.actions}
    for xa in a.machine.actions:
        xb = actions_b.get(xa.decl.name)
        if xb is None:
            continue
        for ba in xa.binders:
            bb = next((y for y in xb.binders if y.binder.name == ba.binder.name), None)
            if bb is None or ba.static is None or bb.static is None:
                continue  # a domain that depends on the state has no fixed values to pair
            if not _recoded(ba.binder.type, bb.binder.type, len(ba.static), len(bb.static)):
                continue
            pairs = _pairing([a.machine.show(ba.binder.type, v) for v in ba.static],
                             [b.machine.show(bb.binder.type, v) for v in bb.static], names)
            if pairs:
                args[(xa.decl.name, ba.binder.name)] = pairs
    return Recoding(values, args, sets)


def _texts(inst, var) -> list[str]:
    """Every value of a variable's type as the observation shows it (a number counted in steps
    as the document's number)."""
    raw = var.type.values(inst.nplayers, inst.nteams)
    if var.type.kind == "int":
        return [str(x * var.step) for x in raw]
    return [inst.show_value(var, x) for x in raw]


def _recoded(ta, tb, na: int, nb: int) -> bool:
    """Two types (of the two versions) are two encodings of the same values: as many values
    (`na`, `nb`), and another kind (a number, a boolean, an enumeration) or enumerations with
    other members. Numbers against numbers never are: `0..2` against `1..3` is an edit."""
    if ta.kind not in RECODABLE or tb.kind not in RECODABLE or na != nb or not na:
        return False
    return ta.kind != tb.kind or (ta.kind == "enum" and ta.members != tb.members)


def _pairing(old: list[str], new: list[str], names: tuple[dict, dict]) -> dict[str, str]:
    """{OLD value: NEW value} for two encodings of the same values (`_recoded`), as `show`
    writes them: by the names of `let`s where one version names the other's numbers, else in
    order."""
    for numbers, members, flip in ((old, new, False), (new, old, True)):
        # `let play = 1` in the version with numbers, `play` a member in the other's enumeration
        lets = names[1 if flip else 0]
        by_name = {m: str(lets[m]) for m in members if m in lets}
        if len(by_name) == len(members) and sorted(by_name.values()) == sorted(numbers):
            if flip:  # OLD has the members, NEW the numbers
                return {m: by_name[m] for m in old}
            return {n: m for m, n in by_name.items()}
    return dict(zip(old, new))


def _named_numbers(model) -> dict[str, int]:
    """The constants a model names: `let play = 1` (a parameterless let of a number)."""
    out: dict[str, int] = {}
    for d in model.decls:
        if isinstance(d, sx.LetDecl) and not d.params and isinstance(d.body, sx.Num):
            out[d.name] = d.body.value
    return out


def compare_graphs(a: Graph, b: Graph, limits: Limits, replay: bool = True, budget: Budget | None = None,
                   every: int = 0) -> tuple[list[Difference], str, int]:
    """The differences of one instance's two graphs (OLD `a`, NEW `b`) within `budget` (by
    default one of `limits`), why the comparison is incomplete ("" if it is not), and how many
    distinct differences were left out past the cap.

    By default each side's first difference (the shortest play) is reported. With `every` (the
    cap), every distinct play difference is, up to `every` of them: distinct by side, step (the
    action with its arguments) and what the other version does with it (the names of the values
    that differ, or that it does not allow the step), each with the shortest play to it, in the
    order the breadth-first search meets them; those past the cap are only counted."""
    budget = budget or Budget(limits)
    intern = _Observations()
    names = observed_names(a, b)
    va, vb = _View(a, names, intern, recoding(a, b)), _View(b, names, intern)
    views = {"old": va, "new": vb}
    unobs = intern.values
    stopped = [which for which, g in (("OLD", a), ("NEW", b)) if not g.complete]  # (each check says why)
    incomplete = (f"{' and '.join(stopped)} stopped exploring at a limit: only the states explored to the end are "
                  "compared" if stopped else "")
    found: dict[str, Difference] = {}
    extra: list[Difference] = []  # with `every`: the distinct differences after each side's first
    seen: set[tuple] = set()
    more = 0
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
            while queue and (every or len(found) < 2):
                budget.check()
                nodes += 1
                if nodes > limits.max_states:
                    incomplete = f"the comparison stopped after {limits.max_states:,} pairs of state sets"
                    break
                node = queue.popleft()
                if not all(va.expanded(s) for s in node[0]) or not all(vb.expanded(s) for s in node[1]):
                    continue  # beyond what a stopped exploration saw: nothing is known there
                sa, sb = va.steps(node[0]), vb.steps(node[1])
                here: dict[tuple, tuple] = {}  # with `every`: (side, action) -> the key first met at this node
                for key in sorted(set(sa) | set(sb), key=lambda k: (k[0], unobs[k[1]])):
                    if key in sa and key in sb:
                        child = (frozenset(d for _, _, d in sa[key]), frozenset(d for _, _, d in sb[key]))
                        if child not in parent:
                            parent[child] = (node, key)
                            queue.append(child)
                        continue
                    side = "old" if key in sa else "new"
                    other = sb if side == "old" else sa
                    if not every:
                        if side not in found:
                            found[side] = _play_difference(views, side, node, key, (sa if side == "old" else sb)[key],
                                                           other, parent, unobs)
                        continue
                    distinct = (side, key[0], _what_differs(unobs[key[1]], key[0], other, unobs))
                    if distinct not in seen:
                        seen.add(distinct)
                        here.setdefault((side, key[0]), key)
                for action in sorted({act for _, act in here}):  # both sides' step at one node: one difference
                    if len(extra) >= every:
                        more += 1
                        continue
                    extra.extend(_merged({s: _play_difference(views, s, node, here[(s, action)],
                                                              (sa if s == "old" else sb)[here[(s, action)]],
                                                              sb if s == "old" else sa, parent, unobs)
                                          for s in ("old", "new") if (s, action) in here}))
            out.extend(_merged(found) + extra)
            if a.init_ids and b.init_ids:  # (without a setup on one side, the setup difference says it all)
                out.extend(_outcome_differences(va, vb, names))
            skipped = Replay("not-run")  # --no-replay
            for d in out:
                if d.trace is not None:
                    d.replay = _replay(views["new" if d.side == "both" else d.side].g, d.trace, budget) if replay else skipped
                if d.old_trace is not None:
                    d.old_replay = _replay(va.g, d.old_trace, budget) if replay else skipped
    except LimitHit as exc:
        out.extend(d for d in [found[s] for s in ("old", "new") if s in found] + extra if d not in out)
        return out, f"the comparison stopped ({exc})", more
    return out, incomplete, more


def _what_differs(mine: tuple, action: str, other_steps: dict, unobs: list) -> tuple | None:
    """What the other version does with a step one version takes: the names of the values that
    differ after it (from the closest of its own observations after that action), or None when
    it does not allow the action there."""
    same = sorted(unobs[k[1]] for k in other_steps if k[0] == action)
    if not same:
        return None
    theirs = min(same, key=lambda x: (len(_differing(mine, x)), x))
    return tuple(k for k, _, _ in _differing(mine, theirs))


def _merged(found: dict[str, Difference]) -> list[Difference]:
    """The two sides' first differences, as one when they are the same play (or setup) whose
    last step leads to different values: `end_turn` gives the turn to B1 in OLD, to A2 in NEW."""
    o, n = found.get("old"), found.get("new")
    if not (o and n and o.kind == n.kind and o.identity[1] == n.identity[1]):  # (the same actions, in NEW's words)
        return [d for d in (o, n) if d]
    diff = _differing(o.trace_obs, n.trace_obs)
    if o.kind == "setup":
        summary = f"the setup differs: OLD starts with {_values(diff, 1)}, NEW with {_values(diff, 2)}"
    else:
        before = "; ".join(n.identity[1][:-1])
        summary = (f"after setup{'; ' + before if before else ''}, {n.identity[1][-1]} leads to {_values(diff, 1)} "
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


def model_of(g: Graph) -> str:
    m = g.machine.inst.model
    return without_path(m.name, m.path)


def _setup_difference(views, side: str, sid: int, init: dict, intern: _Observations) -> Difference:
    v = views[side]
    other = views["new" if side == "old" else "old"]
    unobs = intern.values
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
    return Difference("setup", side, model_of(v.g), f"{side.upper()} can start with {shown}; {instead}",
                      tuple(dict.fromkeys(rules)), ("setup", (), tuple(k for k, _, _ in diff)), trace=trace,
                      other=instead, trace_obs=mine)


def other_name(side: str) -> str:
    return "NEW" if side == "old" else "OLD"


def _play_difference(views, side: str, node: tuple, key: tuple, edges: list, other_steps: dict, parent: dict,
                     unobs: list) -> Difference:
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
    # the play as the comparison saw it (OLD's arguments in NEW's words where they are encoded
    # otherwise, `Recoding`): the same play in both versions reads the same
    words = tuple(k[0] for k in keys) + (action,)
    before = "; ".join(words[:-1])
    summary = f"after setup{'; ' + before if before else ''}, {side.upper()} allows {what}; {instead}"
    identity = ("play", words, tuple(k for k, _, _ in diff))
    return Difference("play", side, model_of(v.g), summary, tuple(dict.fromkeys(rules)), identity, trace=trace,
                      other=instead, trace_obs=mine)


def _outcome_differences(va: _View, vb: _View, names) -> list[Difference]:
    def outcomes(v: _View) -> dict[str, int]:
        inst = v.g.machine.inst
        seen: dict[str, int] = {}
        for sid, st in enumerate(v.g.states):
            end = st[-1]
            if has_ended(end):
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
                out.append(Difference("outcome", side, model_of(v.g),
                                      f"only {side.upper()} can end with: {what}", tuple(trace[-1].rules),
                                      ("outcome", what), trace=trace, other=f"{other_name(side)} never ends so"))
    return out


def _replay(g: Graph, trace: list[TraceStep], budget: Budget) -> Replay:
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
            problem = f"setup: {problem}"
    except (LimitHit, Unsupported) as exc:
        return Replay("not-replayed", str(exc))
    return Replay("failed", problem) if problem else CONFIRMED


def without_path(label: str, path: str) -> str:
    """A label or model name without the file's path: `turns | reading r | V=2`."""
    return label[len(path):].removeprefix(" | ") if label.startswith(path) else label
