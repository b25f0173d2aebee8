"""Composition: from one file's formats, readings and ambiguities to the declarations of each
model, so that nothing has to be copied to be said again with a difference.

A model is built in layers: the file's top-level declarations, then one format's, then the
readings checked for that format. Each layer's declarations replace the ones of the same kind
and name beneath them (or are added); `remove KIND NAME` drops one beneath; `replace
OWNER.LABEL do ... end` replaces one labelled statement (`LABEL: stmt`) of a declaration
beneath or beside it. The readings of a format are its own, the file's readings without `for`
and those whose `for` names it; readings not in an `ambiguity` form one group, each
`ambiguity` another, and every combination of one reading per group is a model, named by its
readings joined with `+`. Readings of different groups must change different declarations
(and labels): combined, one would silently undo the other.

A label may stand in every block of statements: an action's, a routine's, a trigger's, a `when
PHASE ends/starts` block's and a match's `game ...` blocks. The last two have no name to qualify
a `replace` with, so their labels are replaced by `replace LABEL` alone, which names one
statement of the whole model.

The result holds only the declarations the resolve pass knows: no reading, ambiguity, replace,
remove or label is left. Errors are collected (E040: names nothing, E041: composed readings
overlap, E042: a reading inside a reading, E011: a label twice in one declaration, or a
reading name twice in one format), never raised.
"""
from __future__ import annotations

import difflib
import itertools
from dataclasses import replace

from . import syntax as sx
from .diagnostics import Code, Diagnostic

# `remove KIND NAME`: the declaration class each keyword names (as `syntax.decl_name` keys it)
REMOVABLE = {
    "var": "VarDecl", "choice": "VarDecl", "let": "LetDecl", "param": "ParamDecl", "init": "InitDecl",
    "constraint": "ConstraintDecl", "action": "ActionDecl", "routine": "RoutineDecl", "outcome": "OutcomeDecl",
    "procedure": "ProcedureDecl", "ends": "EndsDecl", "invariant": "InvariantDecl", "reachable": "ReachableDecl",
    "players": "PlayersDecl", "teams": "TeamsDecl", "seating": "SeatingDecl", "winners": "WinnersDecl",
    "active": "ActiveDecl", "last_side": "LastSideDecl", "trigger": "TriggerDecl", "state_based": "StateBasedDecl", "possible": "PossibleDecl",
    "event": "EventDecl",
    "phases": "PhasesDecl", "opponents": "OpponentsDecl",
}
_UNNAMED = {"players", "teams", "seating", "winners", "active", "last_side", "opponents"}
_COMPOSING = (sx.ReadingDecl, sx.AmbiguityDecl, sx.ReplaceDecl, sx.RemoveDecl)


class _Keys:
    """`syntax.decl_name` of each declaration, computed once per composition: one declaration
    object stands in every model of its file, and each layer asks for the keys of all of them."""

    def __init__(self):
        self.known: dict[int, tuple[object, str | None]] = {}  # id -> (the declaration, kept alive; key)

    def __call__(self, d) -> str | None:
        hit = self.known.get(id(d))
        if hit is None:
            hit = self.known[id(d)] = (d, sx.decl_name(d))
        return hit[1]


class _Errors:
    def __init__(self):
        self.diags: list[Diagnostic] = []
        self.seen: set = set()

    def __call__(self, code, message, span, hint="", context=""):
        if (code, message, span) not in self.seen:  # a shared declaration's mistake, once
            self.seen.add((code, message, span))
            self.diags.append(Diagnostic(code, message, span, hint, context=context))


def compose(spec: sx.SpecFile) -> tuple[list[tuple[str, str, tuple]], list[Diagnostic]]:
    """(format, reading, declarations) for every model of the file, and the composition errors."""
    err, key = _Errors(), _Keys()
    known_formats = {f.name for f in spec.formats}
    for block in [spec.decls] + [f.decls for f in spec.formats]:
        for amb in (d for d in block if isinstance(d, sx.AmbiguityDecl)):
            for r in (r for r in amb.readings if r.formats):
                err(Code.NOTHING_THERE, f"`for` on reading {r.name} of ambiguity {amb.name}", r.span,
                    f"the readings of an ambiguity apply where it does: write `ambiguity {amb.name} ... for ...`")
    for d in spec.decls:
        for name, span in _for_names(d):
            if name not in known_formats:
                close = difflib.get_close_matches(name, sorted(known_formats), n=1)
                err(Code.NOTHING_THERE, f"`for {name}`: the file has no format {name}", span,
                    f"did you mean `{close[0]}`?" if close else
                    ("its formats are " + ", ".join(sorted(known_formats)) if known_formats else "the file declares no format"))
    top, _ = _layer((), spec.decls, err, "", key)
    bases = _bases(spec.formats, top, err, key)
    out = []
    for fmt in spec.formats or (sx.FormatBlock("", "", (), ()),):
        ctx = f"format {fmt.name}" if fmt.name else ""
        for d in fmt.decls:
            for name, span in _for_names(d):
                err(Code.NOTHING_THERE, f"`for {name}` inside format {fmt.name}", span,
                    "a reading inside a format applies to that format only; declare it at the top level to share it")
        base = bases.get(fmt.name, top) if fmt.name else top
        groups = _groups(spec.decls, fmt) + _groups(fmt.decls, fmt)
        _names_once(groups, err, ctx)
        if not groups:
            out.append((fmt.name, "", _finish(base, err, ctx)))
            continue
        # what each reading changes, judged on the format alone: combined readings must be independent
        alone = {id(r): _layer(base, r.decls, err, ctx + (" and " if ctx else "") + f"reading {r.name}", key)[1]
                 for g in groups for r in g}
        for combo in itertools.product(*groups):
            name = "+".join(r.name for r in combo)
            where = ctx + (" and " if ctx else "") + f"reading {name}"
            if len(combo) > 1 and not _independent([(r, alone[id(r)]) for r in combo], err, where):
                continue
            decls = base
            for r in combo:
                _nested(r.decls, err, where)
                decls, _ = _layer(decls, r.decls, err, where, key)
            out.append((fmt.name, name, _finish(decls, err, where)))
    return out, err.diags


def _bases(formats, top: tuple, err, key) -> dict[str, tuple]:
    """Each format's declarations before its readings: the file's top level with the format's
    block applied, or, for `format F extends G`, G's with F's block applied (G's readings stay
    G's). An unknown G, and a chain that comes back to F, are `E040`; such a format is then
    composed on the top level alone, so the rest of its errors are still found."""
    by_name = {f.name: f for f in formats}
    done: dict[str, tuple] = {}

    def of(f: sx.FormatBlock, chain: tuple[str, ...]) -> tuple:
        if f.name in done:
            return done[f.name]
        beneath = top
        if f.base:
            g = by_name.get(f.base)
            if g is None:
                close = difflib.get_close_matches(f.base, sorted(by_name), n=1)
                err(Code.NOTHING_THERE, f"`format {f.name} extends {f.base}`: the file has no format {f.base}", f.span,
                    f"did you mean `{close[0]}`?" if close else "a format extends another format of the same file")
            elif g.name in chain + (f.name,):
                loop = " extends ".join(chain[chain.index(g.name):] + (f.name, g.name)) if g.name in chain else f"{f.name} extends {f.name}"
                err(Code.NOTHING_THERE, f"`format {f.name} extends {f.base}` closes a loop: {loop}", f.span,
                    "a variant extends the format it changes, which extends none of its variants")
            else:
                beneath = of(g, chain + (f.name,))
        done[f.name] = _layer(beneath, f.decls, err, f"format {f.name}", key)[0]
        return done[f.name]

    for f in formats:
        of(f, ())
    return done


def _for_names(d) -> list[tuple[str, sx.Span]]:
    if isinstance(d, (sx.ReadingDecl, sx.AmbiguityDecl)):
        return [(n, d.span) for n in d.formats]
    return []


def _applies(d, fmt: sx.FormatBlock) -> bool:
    return not d.formats or fmt.name in d.formats


def _groups(decls, fmt) -> list[list[sx.ReadingDecl]]:
    """The plain readings (one group, if any), then each ambiguity's readings, in file order."""
    plain = [d for d in decls if isinstance(d, sx.ReadingDecl) and _applies(d, fmt)]
    groups = [plain] if plain else []
    groups += [list(d.readings) for d in decls if isinstance(d, sx.AmbiguityDecl) and _applies(d, fmt) and d.readings]
    return groups


def _names_once(groups, err, ctx: str) -> None:
    """A format's readings have different names, or two models would share one."""
    seen: dict[str, sx.ReadingDecl] = {}
    for r in (r for g in groups for r in g):
        if r.name in seen and seen[r.name] is not r:
            err(Code.DEFINED_TWICE, f"reading {r.name} is declared twice", r.span, f"the first declaration is at {seen[r.name].span}", ctx)
        seen.setdefault(r.name, r)


def _nested(layer: tuple, err, ctx: str) -> None:
    for d in layer:
        if isinstance(d, (sx.ReadingDecl, sx.AmbiguityDecl)):
            what = "a reading" if isinstance(d, sx.ReadingDecl) else "an ambiguity"
            err(Code.NESTED_COMPOSITION, f"{what} ({d.name}) inside a reading", d.span,
                "readings do not nest: declare it beside the reading, in the format or at the top level; "
                "to combine two questions, make each an ambiguity", ctx)


def _layer(beneath: tuple, layer: tuple, err, ctx: str, key_of=sx.decl_name) -> tuple[tuple, set]:
    """`layer` applied to `beneath`: its declarations replace or join, then its removes, then its
    replaces. Also what it touched: declaration keys, and (key, label) for a replaced statement."""
    plain = tuple(d for d in layer if not isinstance(d, _COMPOSING))
    keys = {key_of(d) for d in plain} - {None}
    touched: set = set(keys)
    decls = [d for d in beneath if key_of(d) not in keys] + list(plain) if keys else list(beneath) + list(plain)
    for d in layer:
        if isinstance(d, sx.RemoveDecl):
            key = f"{REMOVABLE[d.kind]}:{d.name}" if d.kind not in _UNNAMED else REMOVABLE[d.kind]
            if d.kind in _UNNAMED and d.name:
                err(Code.NOTHING_THERE, f"`remove {d.kind} {d.name}`: a {d.kind} declaration has no name", d.span,
                    f"write `remove {d.kind}`", ctx)
                continue
            if d.kind not in _UNNAMED and not d.name:
                err(Code.NOTHING_THERE, f"`remove {d.kind}` needs the name of the {d.kind} to remove", d.span,
                    f"write `remove {d.kind} NAME`", ctx)
                continue
            found = [x for x in decls if key_of(x) == key and _kind_matches(x, d.kind)]
            if not found:
                names = [x.name for x in decls if type(x).__name__ == REMOVABLE[d.kind] and _kind_matches(x, d.kind)]
                close = difflib.get_close_matches(d.name, names, n=1)
                other = "choice" if d.kind == "var" else "var"
                err(Code.NOTHING_THERE, f"`remove {d.kind}{' ' + d.name if d.name else ''}`: there is no such declaration to remove",
                    d.span, f"{d.name} is a {other}: write `remove {other} {d.name}`"
                    if any(key_of(x) == key for x in decls) else f"did you mean `{close[0]}`?" if close else
                    "a format removes what the file declares; a reading, what its format has", ctx)
                continue
            decls = [x for x in decls if not any(x is f for f in found)]
            touched.add(key)
    for d in layer:
        if isinstance(d, sx.ReplaceDecl):
            decls, key = _replace(decls, d, err, ctx)
            if key:
                touched.add((key, d.label))
    return tuple(decls), touched


def _kind_matches(d, kind: str) -> bool:
    if isinstance(d, sx.VarDecl):
        return d.is_choice == (kind == "choice")
    return True


# the declarations whose statements may carry labels; the first three have a name that a
# `replace OWNER.LABEL` can qualify a label with
_NAMED = (sx.ActionDecl, sx.RoutineDecl, sx.TriggerDecl, sx.StateBasedDecl)
_HOLDERS = _NAMED + (sx.WhenPhaseDecl, sx.GameResultDecl, sx.GameStartDecl)


def _owners(decls) -> list[tuple[object, object]]:
    """(block holder, the declaration of `decls` it stands in) for every declaration with a body
    of statements: a match's actions and `game ...` blocks stand in the match."""
    out: list[tuple[object, object]] = []
    for d in decls:
        if isinstance(d, _HOLDERS):
            out.append((d, d))
        elif isinstance(d, sx.MatchDecl):
            out += [(h, d) for h in d.actions + d.results + d.starts]
    return out


def _name(h) -> str | None:
    return h.name if isinstance(h, _NAMED) else None


def _called(h) -> str:
    """How a message names a holder: its name, or its words for the unnamed blocks."""
    if isinstance(h, _NAMED):
        return h.name
    if isinstance(h, sx.WhenPhaseDecl):
        return f"`when {', '.join(h.phases)} {h.edge}`"
    if isinstance(h, sx.GameResultDecl):
        return f"`game won by {h.subject_kind} {h.var}`" if h.kind == "won" else "`game drawn`"
    return "`game starts`"


def _put(decls: list, holder, parent, new) -> list:
    """`decls` with `holder` (standing in `parent`) replaced by `new`."""
    if parent is not holder:  # a block of the match: the match is rebuilt around it
        def swap(xs):
            return tuple(new if x is holder else x for x in xs)
        new = replace(parent, actions=swap(parent.actions), results=swap(parent.results), starts=swap(parent.starts))
    return [new if x is parent else x for x in decls]


def _key(holder, parent) -> str:
    """What a replaced statement's holder is called where readings are compared (E041): the
    declaration a reading would replace as a whole, or the words of a block no reading can."""
    return sx.decl_name(parent) or _called(holder)


def _replace(decls: list, d: sx.ReplaceDecl, err, ctx: str) -> tuple[list, str]:
    owners = _owners(decls)
    if d.owner:
        named = [(h, p) for h, p in owners if _name(h) == d.owner]
        if not named:
            close = difflib.get_close_matches(d.owner, sorted({n for h, _ in owners if (n := _name(h))}), n=1)
            err(Code.NOTHING_THERE, f"`replace {d.owner}.{d.label}`: there is no action, routine or trigger {d.owner}", d.span,
                f"did you mean `{close[0]}`?" if close else
                "name the action, routine or trigger that holds the labelled statement", ctx)
            return decls, ""
        owners = named
    holding = [(h, p) for h, p in owners if d.label in labels(h.body)]
    if not holding:
        known = sorted({lb for h, _ in owners for lb in labels(h.body)})
        close = difflib.get_close_matches(d.label, known, n=1)
        where = f" in {d.owner}" if d.owner else ""
        err(Code.NOTHING_THERE, f"`replace {_target(d)}`: no statement is labelled {d.label}{where}", d.span,
            f"did you mean `{close[0]}`?" if close else
            ("its labels are " + ", ".join(known) if known else "label the statement first: `LABEL: statement`"), ctx)
        return decls, ""
    if len(holding) > 1:
        names = [_name(h) for h, _ in holding]
        # a block without a name, or two holders of one name, cannot be told apart by qualifying
        hint = (f"write `replace {names[0]}.{d.label}`" if None not in names and len(set(names)) == len(names)
                else "give the statements labels of their own")
        err(Code.NOTHING_THERE, f"`replace {_target(d)}`: {len(holding)} declarations have a statement labelled {d.label} "
            f"({', '.join(_called(h) for h, _ in holding)})", d.span, hint, ctx)
        return decls, ""
    (owner, parent), = holding
    new = replace(owner, body=_swap(owner.body, d.label, d.body))
    return _put(decls, owner, parent, new), _key(owner, parent)


def _target(d: sx.ReplaceDecl) -> str:
    return f"{d.owner}.{d.label}" if d.owner else d.label


def labels(body) -> dict[str, sx.Span]:
    """The labels of a block of statements (nested blocks included), first use of each."""
    out: dict[str, sx.Span] = {}
    for n in _labelled(body):
        out.setdefault(n.label, n.span)
    return out


def _labelled(body):
    """The labelled statements of a block, nested blocks included, in order (statements only:
    labels never stand inside expressions, and walking those would cost every model)."""
    for s in body:
        while isinstance(s, sx.Labelled):
            yield s
            s = s.stmt
        if isinstance(s, sx.If):
            for _, b in s.branches:
                yield from _labelled(b)
            yield from _labelled(s.otherwise)
        elif isinstance(s, sx.ForallStmt):
            yield from _labelled(s.body)


def _swap(body: tuple, label: str, new: tuple) -> tuple:
    out = []
    for s in body:
        if isinstance(s, sx.Labelled) and s.label == label:
            out.extend(new)
        else:
            out.append(_inside(s, lambda b: _swap(b, label, new)))
    return tuple(out)


def _inside(s, f):
    """`s` with `f` applied to each block of statements directly inside it."""
    if isinstance(s, sx.Labelled):
        return replace(s, stmt=_inside(s.stmt, f))
    if isinstance(s, sx.If):
        return replace(s, branches=tuple((c, f(b)) for c, b in s.branches), otherwise=f(s.otherwise))
    if isinstance(s, sx.ForallStmt):
        return replace(s, body=f(s.body))
    return s


def _unlabel(body: tuple) -> tuple:
    out = []
    for s in body:
        while isinstance(s, sx.Labelled):
            s = replace(s.stmt, tags=tuple(s.stmt.tags) + tuple(s.tags))
        out.append(_inside(s, _unlabel))
    return tuple(out)


def _finish(decls: tuple, err, ctx: str) -> tuple:
    """The model's declarations as the resolve pass reads them: labels checked, then dropped
    from every block of statements (the resolve pass knows no label)."""
    out = []
    for d in decls:
        for h, _ in _owners((d,)):  # a match holds several blocks: d is rebuilt around each in turn
            seen: dict[str, sx.Span] = {}
            for n in _labelled(h.body):
                if n.label in seen:
                    err(Code.DEFINED_TWICE, f"label {n.label} is used twice in {_called(h)}", n.span,
                        f"the first is at {seen[n.label]}; a label names one statement of its block", ctx)
                seen.setdefault(n.label, n.span)
            if seen:
                (d,) = _put([d], h, d, replace(h, body=_unlabel(h.body)))
        out.append(d)
    return tuple(out)


def _independent(changed: list[tuple[sx.ReadingDecl, set]], err, ctx: str) -> bool:
    """Readings of different groups combined in one model must change different things."""
    ok = True
    for (a, ta), (b, tb) in itertools.combinations(changed, 2):
        both = sorted(_overlap(ta, tb) | _overlap(tb, ta))
        if both:
            err(Code.READINGS_CLASH, f"readings {a.name} and {b.name} both change {', '.join(both)}; combined, one would undo the "
                "other", b.span, f"{a.name} is at {a.span}; readings of different ambiguities must change different "
                "declarations (or different labelled statements): put the two in one ambiguity, or split the "
                "declaration so each changes its own part", ctx)
            ok = False
    return ok


def _overlap(x: set, y: set) -> set[str]:
    out = set()
    for t in x:
        key = t[0] if isinstance(t, tuple) else t
        if t in y or key in y:
            out.add(_shown(t))
    return out


def _shown(t) -> str:
    key, label = (t if isinstance(t, tuple) else (t, ""))
    if ":" in key or key.endswith("Decl"):
        kind, _, name = key.partition(":")
        key = f"{kind.removesuffix('Decl').lower()} {name}".strip()
    return key + (f" (statement {label})" if label else "")  # else a block's own words (see _key)
