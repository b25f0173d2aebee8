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
has are not observed (renaming a variable hides it). A value encoded another way in NEW (numbers
and `let`s against an enumeration, `0..1` against `bool`) is read in NEW's words first
(`graph_diff.Recoding`).

The comparison is a breadth-first search over pairs (the set of OLD states, the set of NEW
states) reached by the same observable trace: a subset construction, so hidden variables that
make a version nondeterministic cannot fake a difference. At each pair, a step (action and
observation after it) that one side can take and the other cannot is a difference; the first
one found for each side is the shortest play that version allows and the other does not. A
setup one version admits and the other does not is the difference of length 0. Outcomes
reachable in one version and not the other are reported besides, with the shortest play that
reaches them. Findings of the two checks are matched by fingerprint (`finding_key`): added,
fixed, changed (another message) or the same finding citing other rules.

An instance neither version has a setup for (a contradiction, or no initial state) has no
play to compare: its contradictions are, by the rules in conflict ("contradiction unchanged",
or a `contradiction` difference, informational). One that only one version has a setup for
differs at the setup.

Each play is replayed by the Z3 engine in the version that allows it (its setup by
`checker.symbolic.setup.setup_admits`, its steps by `checker.symbolic.replay.replay`). A
difference is declared when a `changes [ids] "why"` note of the new version's model cites one
of its rules, or when its fingerprint is in an accepted-differences file.

`--max-seconds` is the whole diff's: each version's check gets SIDE_SHARE of it (what OLD
leaves goes to NEW), the comparisons what is left, shared among the instances as they come
by their size (`_time_share`).
An instance one version did not check, or whose initial states may be no setup's (Z3 could not
tell whether the choices it decides fit), is not compared; one whose exploration or
comparison stopped at a limit is incomplete: a difference found among the fully expanded
states is still real, the absence of one is not claimed, and neither are findings added or
fixed in a model some of whose instances were not seen to the end.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, fields, is_dataclass, replace

from .analyses import findings
from .analyses.findings import Finding
from .analyses.graph_diff import BEHAVIOUR, KINDS, Difference, compare_graphs, model_of, without_path  # noqa: F401 (BEHAVIOUR, KINDS: diff's vocabulary)
from .engine import Result, check as check_spec, front_end
from .files import MAX_BASELINE_BYTES, read_bytes
from .frontend.diagnostics import SpecError
from .explicit.explore import Graph
from .frontend import syntax as sx
from .frontend.instances import Instance
from .limits import Budget, Limits, cpu_seconds

SIDE_SHARE = 0.4  # of the diff's time, each version's check; the comparisons get the rest (a fifth at least)


@dataclass
class DiffResult:
    old: str  # as the user named them
    new: str
    old_check: Result | None = None
    new_check: Result | None = None
    differences: list[Difference] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)
    unused_notes: list[str] = field(default_factory=list)  # `changes` notes that declare nothing
    stale_notes: list[str] = field(default_factory=list)  # notes the old version has already: they declare nothing
    compared: int = 0  # instances compared
    same_contradictions: list[tuple[str, str]] = field(default_factory=list)  # (instance, contradiction) of both
    every: int = 0  # --all-differences: the cap of distinct differences per instance (0: each side's first)
    more: list[tuple[str, int]] = field(default_factory=list)  # (instance, distinct differences past the cap)

    @property
    def diagnostics(self) -> list:
        return [d for r in (self.old_check, self.new_check) if r is not None for d in r.diagnostics]

    @property
    def undeclared(self) -> list[Difference]:
        return [d for d in self.differences if d.behaviour and not d.declared_by]

    @property
    def disagreements(self) -> list[Difference]:
        return [d for d in self.differences if d.replay is not None and d.replay.failed]

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
         accepted: dict[str, str] | None = None, every: int = 0) -> DiffResult:
    """Compare two spec files, each given as (path, include root, name to show), within one
    budget: `limits.max_seconds` bounds both checks and the comparison together. With `every`,
    every distinct difference of an instance is reported, up to `every` of them
    (`graph_diff.compare_graphs`)."""
    res = DiffResult(old[2], new[2], every=every)
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
    g_old = {without_path(label, old[0]): g for label, g in graphs_old.items()}
    g_new = {without_path(label, new[0]): g for label, g in graphs_new.items()}
    unseen = {"OLD": _unseen(res.old_check, old[0], i_old, g_old), "NEW": _unseen(res.new_check, new[0], i_new, g_new)}
    labels = _ordered(i_old, i_new)
    budget = Budget(limits, seconds=max(deadline - cpu_seconds(), 0.001), why=f"the diff's time limit of {total:g}s reached",
                    wall=max(wall_deadline - time.perf_counter(), 0.001))
    raw: list[Difference] = []
    work = [_comparison_work(g_old.get(label), g_new.get(label)) for label in labels]
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
        seconds = _time_share(budget.remaining(), work, k)
        part = budget.part(seconds, f"its share ({seconds:.3g}s) of the diff's time limit of {total:g}s ran out")
        found, why, more = compare_graphs(a, b, limits, replay, part, every)
        res.compared += 1
        if more:
            res.more.append((label, more))
        for d in found:
            d.instances = [label]
            if d.kind == "setup":  # "the other admits no setup": its conflicting rules are the difference's too
                other = contra[1] if d.side == "old" else contra[0]
                if other is not None and not (b if d.side == "old" else a).init_ids:
                    d.rules = tuple(dict.fromkeys(d.rules + other.rules))
        raw.extend(found)
        if why:
            res.incomplete.append(f"{label or 'the model'}: {why}")
    partly_seen = {without_path(i.model_name, path) for which, insts, path in (("OLD", i_old, old[0]), ("NEW", i_new, new[0]))
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
    return {without_path(inst.label, side[0]): inst for plan in plans for inst in plan.instances}


def _unseen(r: Result, path: str, insts: dict[str, Instance], graphs: dict[str, Graph]) -> set[str]:
    """The instances a version's check did not see to the end: not checked, explored only in
    part, or stopped in some other phase (a line of its incomplete list names them)."""
    out = {label for label in insts if graphs.get(label) is None or not graphs[label].complete}
    for line in r.incomplete:
        line = without_path(line, path)
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


def _comparison_work(a: Graph | None, b: Graph | None) -> int:
    """How much comparing an instance's two graphs costs, roughly: their states, where `compare`
    compares them (0 where it does not)."""
    if a is None or b is None or _not_comparable(a, b) or (_no_setup(a) and _no_setup(b)):
        return 0
    return max(1, len(a.states) + len(b.states))


def _time_share(remaining: float, work: list[int], k: int) -> float:
    """The CPU seconds instance k may spend comparing, of the `remaining` ones: its part of what
    the instances from k on weigh (`work`, `_comparison_work`), and at least an equal part of
    those that take time. With equal parts only, a 29,000-state instance followed by light ones
    got no more than each of them and, on a loaded machine, ran out of it ("incomplete") while
    they left theirs unused; the floor keeps a light one's fixed costs (a replay by Z3) paid.
    A share bounds the instance and is not set aside: what it leaves goes to the next."""
    weighing = [w for w in work[k:] if w]
    if not work[k]:
        return 0.0
    return remaining * max(work[k] / sum(weighing), 1 / len(weighing))


def _no_setup(g: Graph) -> bool:
    """No setup at all: no initial state, and every one was looked for."""
    return g.complete and not g.init_ids


def _contradiction_of(r: Result, path: str, label: str) -> Finding | None:
    """The contradiction a version's check found in an instance, if any."""
    for f in r.findings:
        if f.kind == "contradiction" and label in {without_path(i, path) for i in (f.instances or [f.instance])}:
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
    return Difference("contradiction", "both", model_of(g), f"contradiction changed: OLD: {said[0]}; NEW: {said[1]}",
                      rules, ("contradiction", what(contra[0])[0], what(contra[1])[0]), instances=[label])


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
    return Difference("instance", side, without_path(m.name, m.path), f"only {side.upper()} has the instance {label or 'the model'}",
                      tags, (label,), instances=[label])


# ---------------------------------------------------------------- findings

def finding_differences(old: Result, old_path: str, new: Result, new_path: str,
                        unseen: set[str] = frozenset()) -> list[Difference]:
    """Findings added, fixed or changed, matched by fingerprint (`finding_key`: not by line,
    nor by the file's name); none in the `unseen` models (some instance of them was not checked
    to the end in one version: what it did not find there is not known to be absent). A finding
    of both versions that cites other rules (its tags moved into a trigger) is the same finding,
    now citing others; one that says something else is changed."""
    def table(r: Result, path: str) -> dict[str, Finding]:
        return {finding_key(f, path): f for f in r.findings if without_path(f.model, path) not in unseen}

    def text(f: Finding, path: str) -> str:
        return f.message.replace(path + " | ", "").replace(path, "")

    to, tn = table(old, old_path), table(new, new_path)
    out = []
    for key in list(to) + [k for k in tn if k not in to]:
        fo, fn = to.get(key), tn.get(key)
        f = fn or fo
        model, kind = without_path(f.model, new_path if fn else old_path), f.kind
        if fo is None:
            out.append(_finding_difference("added", "new", model, kind, key, None, fn, new_path,
                                           f"{kind} added: {text(fn, new_path)}"))
        elif fn is None:
            out.append(_finding_difference("fixed", "old", model, kind, key, fo, None, old_path,
                                           f"{kind} fixed: {text(fo, old_path)}"))
        else:
            said = [] if text(fo, old_path) == text(fn, new_path) else \
                [f"was {text(fo, old_path)!r}, now {text(fn, new_path)!r}"]
            if fo.rules != fn.rules:
                cites = f"now cites {', '.join(fn.rules) or 'no rule'} (cited {', '.join(fo.rules) or 'no rule'})"
                out.append(_finding_difference("recited", "both", model, kind, key, fo, fn, new_path,
                                               f"{kind}: same finding, {'; '.join([cites] + said)}"))
            elif said:
                out.append(_finding_difference("changed", "both", model, kind, key, fo, fn, new_path,
                                               f"{kind} changed: {said[0]}"))
    return out


def finding_key(f: Finding, path: str) -> str:
    """A finding's fingerprint with its model named without the file (`old.rw` and `new.rw`, or a
    revision's copy, name the same model): what matches a finding of OLD with one of NEW. The
    hash is `findings.base_fingerprint`'s (whatever it hashes: kind, model, subject), with the
    `-2`, `-3` that tell apart findings that share one."""
    base = findings.base_fingerprint(f)
    suffix = f.fingerprint[len(base):] if f.fingerprint.startswith(base) else ""
    return findings.base_fingerprint(replace(f, model=without_path(f.model, path))) + suffix


def _finding_difference(how, side, model, kind, key, f_old, f_new, path, summary) -> Difference:
    f = f_new or f_old
    d = Difference("finding", side, model, summary, f.rules, (how, kind, key), trace=f.trace, replay=f.replay,
                   findings=(f_old, f_new))
    d.instances = [without_path(i, path) for i in (f.instances or [f.instance])]
    return d


# ---------------------------------------------------------------- declared changes

def _declare(res: DiffResult, i_old: dict[str, Instance], i_new: dict[str, Instance], accepted: dict[str, str]) -> None:
    """Mark each difference declared by an accepted fingerprint or a `changes` note of its model.

    A note declares a difference whose rules it cites. A difference need not cite the rule that
    caused it (an edited `let` is read by a guard whose action cites other rules), so when the
    notes of a model cite a rule of every declaration edited in that model, every difference of
    the model is declared: all of its edits are. One undeclared edit keeps that from applying.

    A note declares only against a version that lacks it: one the old version already carries
    (`note_identity`: the same rules and text, wherever it stands) was written for a change
    accepted since, and would otherwise declare every later change of the same rules.
    """
    old_models = {without_path(i.model.name, i.model.path): i.model for i in i_old.values()}
    old_notes = {name: {note_identity(n) for n in m.changes} for name, m in old_models.items()}
    anywhere_old = set().union(*old_notes.values()) if old_notes else set()
    notes: dict[str, tuple] = {}
    covered: dict[str, bool] = {}
    every: list = []
    fresh_somewhere: set = set()
    stale: list = []
    for i in i_new.values():
        m = i.model
        name = without_path(m.name, m.path)
        if name in notes:
            continue
        # a model the old version lacks is compared with the notes of all its models
        before = old_notes.get(name, anywhere_old)
        mine = []
        for n in m.changes:
            if note_identity(n) in before:
                if n not in stale:
                    stale.append(n)
            else:
                mine.append(n)
                fresh_somewhere.add(n)
        notes[name] = tuple(mine)
        every.extend(n for n in mine if n not in every)
        cited = {t for n in mine for t in n.tags}
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
    res.stale_notes = [f"`{_note_text(n)}` at {n.span} was already in the old version: it declares nothing; "
                       "remove it once its change is accepted" for n in stale if n not in fresh_somewhere]


def note_identity(n: sx.ChangesDecl) -> tuple:
    """What makes a `changes` note the same in two versions: its rules (in any order) and its
    text, not where it stands (moved lines, another include)."""
    return (tuple(sorted(set(n.tags))), " ".join(n.reason.split()))


def _note_text(n: sx.ChangesDecl) -> str:
    why = " ".join(n.reason.split())
    return f'changes [{", ".join(n.tags)}] "{why if len(why) <= 40 else why[:37] + "..."}"'


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
    try:  # read like a baseline: a regular file of bounded size (a named pipe or /dev/zero would hang)
        data = read_bytes(path, MAX_BASELINE_BYTES, f"the accepted fingerprints {path}",
                          "--accept names a regular JSON file of at most 16 MiB")
    except SpecError as exc:
        raise ValueError(exc.diagnostics[0].message if exc.diagnostics else f"cannot read {path}") from None
    try:
        doc = json.loads(data.decode("utf-8"))
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
