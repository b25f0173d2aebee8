"""Bounded model checking: the transition relation unrolled step by step over fresh symbols,
from every initial state the setup rules admit. The differential tests compare what it
reaches within a bound (outcomes, gaps, deadlocks, outcome conflicts) with the explorer's graph.
"""
from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import z3

from ..frontend import typed as T
from ..frontend.instances import Instance
from .encode import Encoder
from .outcomes import CITED_KINDS, settle
from . import terms as _terms  # (_terms.TRUE and FALSE are rebound per instance: fresh_context)
from .terms import SymSet, SymState, Unsupported, equal, fresh_value, or2, or_all, solve, to_term


class _Frame:
    """Fresh symbols for one step of a bounded path. `conflict` is whether the step into the
    frame (the setup's settling for frame 0) had an outcome conflict: the explorer records it
    on the step's target and goes on from there as from any state (expanded unless the game
    ended or must be over), so it constrains nothing else here."""

    def __init__(self, inst: Instance, i: int):
        self.i = i
        vals = {v.name: [fresh_value(inst, v, f"{v.name}_{j}@{i}") for j in range(v.count)] for v in inst.vars}
        n, nt = inst.nplayers, inst.nteams
        results = tuple([z3.Bool(f"{r}_{x}@{i}") for x in range(n if r[0] == "r" else nt)] for r in SymState.RESULTS)
        self.st = SymState(vals, [z3.Bool(f"out_{p}@{i}") for p in range(n)],
                           [z3.Bool(f"tout_{t}@{i}") for t in range(nt)], results)
        self.wp = [z3.Bool(f"wp_{p}@{i}") for p in range(inst.nplayers)]
        self.wt = [z3.Bool(f"wt_{t}@{i}") for t in range(inst.nteams)]
        self.draw = z3.Bool(f"draw@{i}")
        self.ended = z3.Bool(f"ended@{i}")
        self.gap = z3.Bool(f"gap@{i}")
        self.conflict = z3.Bool(f"conflict@{i}")

    def symbols(self) -> list:
        """Every symbol of the frame, in one order for all frames (`BMC.steps` renames them)."""
        out = []
        for terms in self.st.vals.values():
            for t in terms:
                out += t.elems if isinstance(t, SymSet) else [t]
        out += self.st.out + self.st.tout
        for r in SymState.RESULTS:
            out += getattr(self.st, r)
        return out + self.wp + self.wt + [self.draw, self.ended, self.gap, self.conflict]

    def equals(self, st: SymState, ended, gap):
        eqs = []
        for k, terms in self.st.vals.items():
            eqs += [equal(a, b) for a, b in zip(terms, st.vals[k])]
        eqs += [a == b for a, b in zip(self.st.out, st.out)]
        eqs += [a == b for a, b in zip(self.st.tout, st.tout)]
        for r in SymState.RESULTS:
            eqs += [a == b for a, b in zip(getattr(self.st, r), getattr(st, r))]
        # the end marker's winners: those of this step and those who left as winners before
        eqs += [a == or2(b, c) for a, b, c in zip(self.wp, st.wp, st.rw)]
        eqs += [a == or2(b, c) for a, b, c in zip(self.wt, st.wt, st.trw)]
        eqs += [self.draw == st.draw, self.ended == ended, self.gap == gap, self.conflict == st.conflict]
        return z3.And(*eqs)


class Option(NamedTuple):
    """One action and binding from a frame (`BMC._options`): `taken` when its guard holds (the
    explorer then applies the action, whether or not its body fails), `ok` when the step goes
    through, `fails` when the explorer records a failing step; `post` is the state after it
    (None for a parameter's domain that has no value), whose `hits` say when each tagged
    statement, trigger and outcome rule applies in the step."""
    action: T.Action
    ok: object
    fails: object
    post: SymState | None
    ended: object
    gap: object
    taken: object
    body: SymState | None = None  # the state after the body, before its settling (`notes`)
    args: tuple = ()  # the symbols of the arguments taken as one symbol each (SYMBOLIC_ARGUMENT)

    def some(self, cond):
        """`cond` for some value of the option's symbolic arguments: quantifier-free (Z3's
        quantifier elimination) so that it may be negated inside a Horn clause or a check;
        Unsupported where Z3 cannot eliminate them."""
        return for_some(self.args, cond)


def _argument_at(name: str, i: int, j: int) -> str:
    """The name `BMC._bindings` gives the symbol of a step's argument from frame j, from its
    name from frame i ("{action}@{i}.{binder}")."""
    action, rest = name.split(f"@{i}.", 1)
    return f"{action}@{j}.{rest}"


# An integer parameter whose declared range has more values than this is one symbol per step,
# constrained to its range, rather than one option per value: rules texts take amounts from
# big ranges ("set a player's life to x", X damage), and enumerating them builds an option
# for each (a range of 10^8 exhausted the memory before any question was asked).
SYMBOLIC_ARGUMENT = 64
QE_SECONDS = 10


def for_some(args: tuple, cond):
    """`cond` for some value of the symbols `args`, without a quantifier (`eliminated`)."""
    return cond if not args else eliminated(z3.Exists(list(args), cond))


def eliminated(formula):
    """`formula` (an existential over integers) without its quantifier, by Z3's `qe` tactic;
    Unsupported where one remains or it takes over QE_SECONDS. (A wall-clock bound, the only
    one the tactic takes: it takes milliseconds on the guards of rules texts, so only a
    pathological spec meets it, and a verdict never hangs on it.)"""
    try:
        goals = z3.TryFor(z3.Tactic("qe"), QE_SECONDS * 1000)(formula)
    except z3.Z3Exception as exc:
        raise Unsupported(f"Z3 could not eliminate an argument's quantifier ({exc})") from None
    # (Z3's own probe: a walk of the result's terms in Python cost more than the elimination)
    if any(_HAS_QUANTIFIERS(g) for g in goals):
        raise Unsupported("Z3 could not eliminate an argument's quantifier")
    return z3.And(*[z3.And(*g) for g in goals]) if len(goals) else _terms.FALSE


_HAS_QUANTIFIERS = z3.Probe("has-quantifiers")


class FirstStep:
    """The step from frame 0, encoded once for every `BMC` of one instance that is handed it
    (the horn Prover's two systems and the instance's `witness.Unrolling`): a frame's symbols
    are named by its index alone, so frame 0 is the same terms in each, and so are its options
    (`BMC._options`: bindings, body, triggers, outcome rules; a second of CPU per encoding for
    a team game with amounts) and the step's formulas, which every later step renames
    (`BMC.steps`). The setup is not shared: the generalized one differs."""

    def __init__(self):
        self.options: list | None = None  # frame 0's options
        self.renamed: tuple | None = None  # the step from frame 0: (from, into, actions, formulas, arguments)


class BMC:
    """The transition relation unrolled step by step, for bounded queries."""

    def __init__(self, inst: Instance, first: FirstStep | None = None):
        self.inst = inst
        self.enc = Encoder(inst)
        self.actions = list(inst.model.actions)
        self.solver = self._fresh_solver()
        self.frames = [_Frame(inst, 0)]
        self._cache: dict[int, list] = {}  # frame id -> its options, frame 0 aside (`first`); frames live as long as self
        self._notes: dict[tuple, object] = {}  # (frame id or None for the setup, key) -> `notes` (asked per attempt)
        self.first = FirstStep() if first is None else first
        self._initial()

    generalized = False  # the integer variables start anywhere in their ranges (checker.symbolic.horn)

    def _fresh_solver(self):
        return z3.Solver()

    def _initial(self):
        enc, inst = self.enc, self.inst
        raw = SymState({v.name: [fresh_value(inst, v, f"{v.name}_{j}@init") for j in range(v.count)] for v in inst.vars},
                       [_terms.FALSE] * inst.nplayers, [_terms.FALSE] * inst.nteams)
        pre = []  # what the explorer asks of a setup before settling it
        for v in inst.vars:
            for j, t in enumerate(raw.vals[v.name]):
                pre.append(enc.in_type(v, t))
                if v.info.init is not None and not (self.generalized and v.type.kind in ("int", "player")):
                    env = {v.info.index.binder.uid: j + v.index_base} if v.info.index else {}
                    value, err = enc.checked(lambda: enc.expr(v.info.init, raw, env))
                    pre += [z3.Not(err), equal(t, value)]
        for d in inst.model.inits:
            value, err = enc.checked(lambda: enc.expr(d.cond, raw, {}))
            pre += [z3.Not(err), value]
        # constraints on choices the play never reads are the contradiction check's, as in the explorer
        for d in inst.model.constraints:
            if not any(isinstance(n, T.VarRef) and n.static for n in T.walk(d.cond)):
                value, err = enc.checked(lambda: enc.expr(d.cond, raw, {}))
                pre += [z3.Not(err), value]
        s = self.solver
        s.add(*pre)
        # a setup whose outcome rules or triggers fail is no initial state (the explorer's setup error)
        st, ended, gap = settle(enc, raw.copy(), step=False)
        s.add(z3.Not(st.error), z3.Not(st.overflow), self.frames[0].equals(st, ended, gap))
        self.setup_hits = st.hits  # the rules the setup's settling applies (outcome rules, triggers)
        # the explorer settles every setup its init and constraints admit, and notes what the
        # settling decided (`Machine.decided`) even where it then fails: `setup_notes` is asked
        # of these candidates, not of the initial states
        self.setup_candidates = z3.And(*pre) if pre else _terms.TRUE
        self._setup = Option(None, None, None, st, ended, gap, _terms.TRUE, raw)

    def _bindings(self, params, st, env, conds, failures, where: str = "", args: tuple = ()):
        """(env, conditions, symbolic arguments) for every binding; a domain that can fail adds
        (the conditions of the arguments bound before it, its error) to `failures`, as the
        explorer records a failing step for it, and its own values count only where it has
        one. An integer range wider than SYMBOLIC_ARGUMENT is one symbol (named after `where`
        and the binder), in its range."""
        if not params:
            yield dict(env), list(conds), args
            return
        b, dom = params[0]
        wide = self._wide(dom, st, env)
        if wide is not None:
            lo, hi = wide
            v = z3.Int(f"{where}.{b.name}")
            yield from self._bindings(params[1:], st, {**env, b.uid: v}, conds + [v >= lo, v <= hi], failures,
                                      where, args + (v,))
            return
        cands, err = self.enc.checked(lambda: self.enc.candidates(dom, st, env))
        if not z3.is_false(err):
            failures.append(z3.And(*conds, err))
            conds = conds + [z3.Not(err)]
        for v, c in cands:
            yield from self._bindings(params[1:], st, {**env, b.uid: v}, conds + [c], failures, where, args)

    def _wide(self, dom, st, env):
        """(low, high) of an integer range with more than SYMBOLIC_ARGUMENT values whose bounds
        are numbers (no state, no error): taken as one symbol; None for any other domain."""
        bounds = self.enc.range_bounds(dom, st, env) if isinstance(dom, T.RangeDom) else None
        return bounds if bounds is not None and bounds[1] - bounds[0] + 1 > SYMBOLIC_ARGUMENT else None

    def _options(self, f: _Frame) -> list[Option]:
        """An `Option` for every action and binding from frame f."""
        if f.i == 0 and self.first.options is not None:
            return self.first.options
        if id(f) in self._cache:
            return self._cache[id(f)]
        enc = self.enc
        out = []
        for d in self.actions:
            failures: list = []
            for env, conds, args in self._bindings(d.params, f.st, {}, [], failures, f"{d.name}@{f.i}"):
                guard, guard_err = enc.checked(lambda: enc.expr(d.guard, f.st, env))
                base = SymState(f.st.vals, f.st.out, f.st.tout,  # the same state, no facts of this step yet
                                tuple(getattr(f.st, r) for r in SymState.RESULTS))
                post = enc.action_body(d, base, env)
                body_fail = z3.Or(post.error, post.overflow)
                body = post.copy()  # (settle changes its state in place)
                post, ended, gap = settle(enc, post)
                body_fail = z3.Or(body_fail, post.overflow)  # a trigger's assignment may overflow too
                taken = z3.And(*conds, guard, z3.Not(guard_err))
                fails = z3.And(*conds, z3.Or(guard_err, z3.And(guard, z3.Not(guard_err), z3.Or(body_fail, post.error))))
                out.append(Option(d, z3.And(taken, z3.Not(body_fail), z3.Not(post.error)), fails, post, ended, gap, taken,
                                  body, args))
            out.extend(Option(d, _terms.FALSE, bad, None, None, None, _terms.FALSE) for bad in failures)
        # kept only once whole: an encoding cut short (Unsupported, a limit) must not leave a
        # frame with some of its options for the next question
        if f.i == 0:
            self.first.options = out
        else:
            self._cache[id(f)] = out
        return out

    def steps(self, f: _Frame, g: _Frame) -> list[tuple[T.Action, object]]:
        """(action, the condition that the step from frame f into frame g takes it) for every
        option from f with a state after it. Only the step from frame 0 is encoded, once per
        `FirstStep`; every later one is its formulas with the frames' symbols, and the step's
        argument symbols, put in by Z3's substitution. A step's encoding (bindings, body,
        triggers, outcome rules) is a function of its frame's symbols alone, and it cost seconds
        per frame for a team game with triggers; the substitution costs milliseconds."""
        if self.first.renamed is None:
            f0, g0 = (f, g) if f.i == 0 else (_Frame(self.inst, 0), _Frame(self.inst, 1))
            opts = [o for o in self._options(f0) if o.post is not None]
            formulas = [z3.And(o.ok, g0.equals(o.post, o.ended, o.gap)) for o in opts]
            self.first.renamed = (f0, g0, [o.action for o in opts], formulas,
                                  sorted({a.get_id(): a for o in opts for a in o.args}.values(), key=str))
        f0, g0, actions, formulas, args = self.first.renamed
        if f.i == 0:
            return list(zip(actions, formulas))
        pairs = list(zip(f0.symbols(), f.symbols())) + list(zip(g0.symbols(), g.symbols()))
        pairs += [(a, z3.Int(_argument_at(str(a), f0.i, f.i))) for a in args]
        return [(d, z3.substitute(x, *pairs)) for d, x in zip(actions, formulas)]

    def extend(self):
        """Add the next frame and the transition relation into it."""
        f = self.frames[-1]
        g = _Frame(self.inst, len(self.frames))
        self.solver.add(z3.Not(f.ended), z3.Not(f.gap), or_all([x for _, x in self.steps(f, g)]))
        self.frames.append(g)

    def stuck(self, f: _Frame):
        """No game action goes through and none fails: the explorer's deadlock."""
        opts = self._options(f)
        moves = or_all([o.some(o.ok) for o in opts if not o.action.leave])
        fails = or_all([o.some(o.fails) for o in opts])
        return z3.And(z3.Not(f.ended), z3.Not(f.gap), z3.Not(moves), z3.Not(fails))

    def applies(self, f: _Frame, rid: int):
        """The condition that rule `rid` (an index of the model's `rules`) applies in some step
        from frame f, as the explorer records it in `hit_rules`: an action whose guard holds
        (in a game that goes on), a tagged statement, routine, phase, trigger or outcome rule
        that the step's body or its settling applies. Where the body or the settling fails,
        the explorer records what applied up to the failure, and this condition may hold for
        more: an over-approximation, so a proof that it never holds is one that the rule
        never applies. (The setup's settling is `setup_hits`.) None for a kind of rule the
        encoding does not record (outcomes.CITED_KINDS): no answer can be drawn from it."""
        kind = self.inst.model.rules[rid].kind
        if kind == "action":
            cases = [o.taken for o in self._options(f) if o.action.rule == rid]
        elif kind in CITED_KINDS:
            cases = [z3.And(o.taken, to_term(o.post.hits[rid])) for o in self._options(f)
                     if o.post is not None and rid in o.post.hits]
        else:
            return None
        return z3.And(z3.Not(f.ended), z3.Not(f.gap), or_all(cases))

    def notes(self, f: _Frame, key: tuple):
        """The condition that some step from frame f notes `key` (a key of the explorer's
        `Machine.decided`: checker.explicit.outcomes) while its settling resolves. As `applies`,
        a step that fails half way counts with all it would note, so the condition may hold
        for more than the explorer notes, never for less: a proof that it never holds is one
        that the explorer never notes the key. (The setup's settling is `setup_notes`.)"""
        if (id(f), key) not in self._notes:
            cases = [z3.And(o.taken, to_term(self._noted(o, key))) for o in self._options(f) if o.post is not None]
            self._notes[id(f), key] = z3.And(z3.Not(f.ended), z3.Not(f.gap), or_all(cases))
        return self._notes[id(f), key]

    def setup_notes(self, key: tuple):
        """The condition that the settling of a setup candidate (`setup_candidates`) notes `key`."""
        if (None, key) not in self._notes:
            self._notes[None, key] = to_term(self._noted(self._setup, key))
        return self._notes[None, key]

    def _noted(self, o: Option, key: tuple):
        if key[0] != "cannot":
            return o.post.noted.get(key, _terms.FALSE)
        k = next(r for r in self.inst.model.outcomes if r.name == key[1])
        cited = o.post.hits.get(k.rule, _terms.FALSE)
        return _terms.FALSE if z3.is_false(z3.simplify(to_term(cited))) else z3.And(to_term(cited), self.ends_otherwise_without(k, o))

    def ends_otherwise_without(self, k: T.OutcomeRule, o: Option):
        """Whether the step of option `o` would end otherwise without "cannot" rule `k` (the
        explorer's `_ends_otherwise_without`: other values, statuses, end marker or conflict, or
        a failure): its body's state settled again without `k`. Where both settlings have a
        conflict or a gap it counts as otherwise (the explorer compares their messages, which
        are no terms here): more than the explorer may count, never less."""
        enc = self.enc
        model = enc.model
        enc.model = replace(model, outcomes=tuple(r for r in model.outcomes if r is not k))
        try:
            alt, ended, gap = settle(enc, o.body.copy())
        finally:
            enc.model = model
        st = o.post
        same = [equal(a, b) for name in st.vals for a, b in zip(st.vals[name], alt.vals[name])]
        pairs = list(zip(st.out + st.tout, alt.out + alt.tout))
        for r in SymState.RESULTS:
            pairs += list(zip(getattr(st, r), getattr(alt, r)))
        pairs.append((o.ended, ended))
        # the end marker's winners and draw, where the game ended (a game that goes on has none)
        pairs += [(z3.And(to_term(o.ended), to_term(a)), z3.And(to_term(ended), to_term(b)))
                  for a, b in zip([or2(w, r) for w, r in zip(st.wp + st.wt, st.rw + st.trw)] + [st.draw],
                                  [or2(w, r) for w, r in zip(alt.wp + alt.wt, alt.rw + alt.trw)] + [alt.draw])]
        same += [to_term(a) == to_term(b) for a, b in pairs]
        return z3.Or(to_term(alt.error), to_term(alt.overflow), to_term(st.conflict), to_term(alt.conflict),
                     to_term(o.gap), to_term(gap), z3.Not(z3.And(*same)))

    def read(self, f: _Frame) -> SymState:
        """Frame f's state as the checks read it (the explorer's `Machine.reader`): `won()` sees
        the winners of its end marker, `game_over` whether it ended or must be over."""
        st = f.st.copy()
        st.wp = [z3.And(f.ended, w) for w in f.wp]
        st.wt = [z3.And(f.ended, w) for w in f.wt]
        st.draw = z3.And(f.ended, f.draw)
        st.fin = z3.And(f.ended, z3.Not(z3.Or(f.draw, *f.wp, *f.wt)))
        st.over = z3.Or(f.ended, f.gap)
        return st

    def reachable_outcomes(self, depth: int):
        """Every (winning players mask, winning teams mask, draw) reachable within `depth` steps,
        whether a gap is, whether a deadlock is, and whether an outcome conflict is. All in one
        pass: each frame is asked before the next is added, since adding one constrains the
        frame before it to have a successor (a conflict that ends the game would be lost)."""
        outcomes, gaps, deadlock, conflict = set(), False, False, False
        for i in range(depth + 1):
            if i > 0:
                self.extend()
            f = self.frames[i]
            s = self.solver
            s.push()
            s.add(f.ended)
            while solve(s) == z3.sat:
                m = s.model()
                wp = sum(1 << p for p, b in enumerate(f.wp) if z3.is_true(m.eval(b, model_completion=True)))
                wt = sum(1 << t for t, b in enumerate(f.wt) if z3.is_true(m.eval(b, model_completion=True)))
                dr = z3.is_true(m.eval(f.draw, model_completion=True))
                outcomes.add((wp, wt, dr))
                s.add(z3.Not(z3.And(*[b == bool(wp >> p & 1) for p, b in enumerate(f.wp)],
                                    *[b == bool(wt >> t & 1) for t, b in enumerate(f.wt)], f.draw == dr)))
            s.pop()
            gaps = gaps or self._possible(f.gap)
            deadlock = deadlock or self._possible(self.stuck(f))
            conflict = conflict or self._possible(f.conflict)
        return outcomes, gaps, deadlock, conflict

    def _possible(self, cond) -> bool:
        """Whether `cond` holds on some path of the frames added so far."""
        s = self.solver
        s.push()
        s.add(cond)
        found = solve(s) == z3.sat
        s.pop()
        return found
