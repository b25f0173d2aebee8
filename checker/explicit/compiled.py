"""The explorer's fast machine: compiled successors on packed states (checker.explicit.codegen).

`CompiledMachine` is a `Machine` whose states are packed and whose `successors` run one
generated function per action. Everything the checks do rarely (initial states, outcome
resolution on a cache miss, properties of a state) is inherited from `Machine` and runs on
the unpacked slots, so there is one implementation of those; only the triggers that
resolution runs are generated functions too (on those slots: `_trigger_source`), because a
model with triggers spends most of its search in them. `unpack(state)` gives the slot
tuple `Machine` uses; the two machines explore the same graphs, state for state and edge for
edge, in the same order (tests/test_compiled.py).

`machine_for(inst)` picks the compiled machine and falls back to the closures when an instance
cannot be compiled (nesting too deep for Python's own parser); the fallback is silent because
it changes the speed, never a result.
"""
from __future__ import annotations

import os
import re

from ..frontend import builtins as bi
from ..frontend import typed as T
from ..frontend.ends import RUNNING
from ..frontend.instances import Instance
from ..limits import GENERATED
from .codegen import BODY_FACTS, GUARD_FACTS, CannotCompile, Generator, written_vars
from .closed_exprs import closed_value, is_closed
from .codegen_runtime import namespace
from .compile import Compiler, Ctx, EvalError, Overflow
from .machine import Machine, Room, _nothing, _size, _static_domain
from .packing import Field, _lit
from .resolution_keys import key_function, thresholds

PAD = "    "


# Compiled code by source: instances of a spec often generate the same source (readings that
# differ only in outcome rules, say), and compiling is most of building a machine. The code
# reads everything instance-specific from the namespace it is executed in.
CODE_CACHE = 256
_CODE: dict[str, object] = {}


class CompiledMachine(Machine):
    packed = True

    def __init__(self, inst: Instance):
        super().__init__(inst)
        gen = self.gen = Generator(inst)
        self.fields = gen.fields
        self._resolved_packed: dict = {}
        # where no outcome rule or `ends` reads a variable, resolving a step depends on the
        # statuses and facts alone, and far fewer resolutions are computed
        conds = [r.cond for r in inst.model.outcomes] + [d.cond for d in inst.model.ends]
        self._outcomes_read_vars = any(isinstance(n, T.VarRef) for c in conds for n in T.walk(c))
        # triggers read and write the variables: their values go in and come out of resolution
        self._triggers_change_vars = bool(inst.model.triggers)
        self._outcomes_read_vars = self._outcomes_read_vars or self._triggers_change_vars
        # and where they do, on the variables they read alone: a step that changes only others
        # (a life total no rule reads) finds the resolution of an earlier one (with triggers,
        # every variable: a trigger may read or write any)
        read = {n.name for c in conds for n in T.walk(c) if isinstance(n, T.VarRef)}
        self._outcome_entries = [f.entry for f in self.fields
                                 if self._triggers_change_vars or f.var.name in read]
        # a number resolution only compares with constants is keyed by those comparisons
        # (checker.explicit.resolution_keys): field entry -> the name of its key function
        limits = thresholds(inst, self.comp) if self._outcomes_read_vars else {}
        self._keyed = {f.entry: f"_key{f.entry}" for f in self.fields
                       if f.entry in self._outcome_entries and f.var.name in limits}
        self._key_functions = {self._keyed[f.entry]: key_function(limits[f.var.name], f)
                               for f in self.fields if f.entry in self._keyed}
        sources = [self._action_source(ai, a) for ai, a in enumerate(self.actions)]
        triggers = self._trigger_sources()
        sources += [src for _, _, src in triggers]
        sources.append(self._unpack_source())
        sources.append(self._pack_source())
        src = "\n\n".join(sources) + "\n"
        self.source = src
        ns = self._namespace()
        code = _CODE.get(src)
        if code is None:
            try:
                code = compile(src, f"{GENERATED} successors of {len(self.actions)} action(s)>", "exec")
            except (SyntaxError, RecursionError, MemoryError) as exc:  # Python's parser has its own nesting limit
                raise CannotCompile(str(exc)) from None
            if len(_CODE) >= CODE_CACHE:
                _CODE.clear()
            _CODE[src] = code
        exec(code, ns)  # noqa: S102 - source made only of generated names and int literals (codegen's doc)
        self._action_fns = [ns[f"a{ai}"] for ai in range(len(self.actions))]
        for t, name, _ in triggers:
            t.run = ns[name]
        self.unpack = ns["unpack"]
        self._last_packed, self._last_values = None, ()
        self.pack = ns["pack"]

    # ------------------------------------------------------------ the generated code's world (codegen_runtime)
    def _namespace(self) -> dict:
        return {**namespace(self.inst, self.gen, self._resolved_packed, self._resolve_packed), **self._key_functions}

    # ------------------------------------------------------------ generated sources
    def _state_names(self) -> str:
        return ", ".join([f"x{f.entry}" for f in self.fields] + ["out", "tout", "_end"])

    def _action_source(self, ai: int, a) -> str:
        """The function `a<ai>(state, steps, check)`, appending every step of action `a` out of
        a packed state to `steps` in the closures' order: its bindings' loops, the guard, the
        body and the outcome resolution, each written by a method below."""
        gen = self.gen
        decl = a.decl
        lines = [f"def a{ai}(state, steps, check):", f"{PAD}{self._state_names()}, = state"]
        statics = [_static_values(self.comp, d) for _, d in decl.params]
        all_static = all(s is not None for s in statics)
        conjuncts = _conjuncts(decl.guard)
        if all_static and any(_folds_false(self.comp, c) for c in _safe_prefix(conjuncts)):
            return "\n".join(lines + [f"{PAD}return  # its guard is false in every state of this instance"])
        lines.append(f"{PAD}failed = []")
        lines.append(f"{PAD}count = 0")
        pad = PAD
        names = [gen.x_BinderRef(b) for b, _ in decl.params]
        # conjuncts that read no argument and cannot fail, before any that may: tested once per
        # state (the state is the same for every binding), and not again per binding
        hoisted = _hoistable(decl, conjuncts) if all_static else []
        if hoisted:
            gen.facts = GUARD_FACTS
            lines.append(f"{PAD}if not (" + " and ".join(f"({gen.expr(c)})" for c in hoisted) + "):")
            lines.append(f"{PAD}{PAD}return")
        # a step whose body derives no outcome fact, where outcome rules read no variable, is
        # resolved alike for every binding: looked up once per state
        same_resolution = not self._outcome_entries and not _derives_facts(decl.body) and a.actor is None
        if same_resolution:
            lines += [f"{PAD}key = ((), out, tout, 0, 0, 0, 0, False, False, 0, 0, 0, 0, 0, -1)", f"{PAD}known = RESOLVED.get(key)"]
        if not decl.params:  # one binding, (); a loop all the same, so that `continue` means "next"
            lines.append(f"{pad}for _ in (0,):")
            pad += PAD
        if all_static and any(_size(v) == 0 for v in statics):
            return "\n".join(lines + [f"{PAD}return  # a parameter's domain is empty in this instance"])
        implied: list = list(hoisted)  # guard conjuncts every binding the masks give satisfies
        loops, pad = self._binding_loops(decl, statics, all_static, conjuncts, names, implied, pad)
        lines += loops
        binding = "(" + "".join(f"{x}, " for x in names) + ")"
        lines += self._guard_test(ai, decl, conjuncts, implied, binding, pad)
        body, fixed_hits, post, seen = self._body_lines(ai, a, binding, pad, same_resolution)
        lines += body
        lines += self._resolution_lines(ai, binding, pad, same_resolution, fixed_hits, post, seen)
        lines += [f"{PAD}for pre, exc in failed:",
                  f"{PAD}{PAD}steps.append(Step({ai}, pre, None, (), str(exc), exc.span, 'evaluation-error', 'domain'))"]
        return "\n".join(lines)

    def _binding_loops(self, decl, statics: list, all_static: bool, conjuncts: list, names: list, implied: list,
                       pad: str) -> tuple[list[str], str]:
        """(lines, the pad inside them): one loop per parameter, outermost first. `statics`: each
        domain's values where no state can change them, else None. Where every domain is fixed,
        a parameter whose guard requires a marker loops over the set bits of a mask (its
        conjuncts join `implied`); a fixed domain over its values; any other over its domain
        evaluated in the state, an error of which is recorded in `failed` for the bindings
        before it."""
        gen, lines = self.gen, []
        for i, (b, d) in enumerate(decl.params):
            prefix = "(" + "".join(f"{x}, " for x in names[:i]) + ")"
            values = statics[i]
            if i > 0:  # the budget is read in every loop: an outer one may turn long over empty inner ones
                lines += [f"{pad}count += 1", f"{pad}if not count & 255:", f"{pad}{PAD}check()"]
            marks = _marker_filter(gen, b, values, conjuncts) if all_static else None
            if marks is not None:
                mask_src, base = marks
                implied.extend(_marker_terms(gen, b, values, conjuncts))
                m, low = gen.fresh("m"), gen.fresh("low")
                lines += [f"{pad}{m} = {mask_src}", f"{pad}while {m}:", f"{pad}{PAD}{low} = {m} & -{m}",
                          f"{pad}{PAD}{m} ^= {low}", f"{pad}{PAD}{names[i]} = {low}.bit_length() - 1 + {_lit(base)}"]
            elif values is not None:
                dom = f"range({_lit(values.start)}, {_lit(values.stop)})" if isinstance(values, range) else \
                    "(" + "".join(f"{_lit(v)}, " for v in values) + ")"
                lines.append(f"{pad}for {names[i]} in {dom}:")
            else:
                dv = gen.fresh("d")
                lines += [f"{pad}try:", f"{pad}{PAD}{dv} = list({gen.domain(d)})",
                          f"{pad}except EvalError as exc:",
                          f"{pad}{PAD}failed.append(({prefix}, exc))", f"{pad}{PAD}{dv} = ()",
                          f"{pad}for {names[i]} in {dv}:"]
            pad += PAD
            # conjuncts that read this argument and none after it, tested here, once for all
            # the inner bindings (`attack(p, d)`'s `turn == p` before 8,000 values of d)
            level = _hoistable(decl, conjuncts, i, implied) if all_static and i < len(decl.params) - 1 else []
            if level:
                gen.facts = GUARD_FACTS
                lines += [f"{pad}if not (" + " and ".join(f"({gen.expr(c)})" for c in level) + "):",
                          f"{pad}{PAD}continue"]
                implied.extend(level)
        return lines, pad

    def _guard_test(self, ai: int, decl, conjuncts: list, implied: list, binding: str, pad: str) -> list[str]:
        """The budget's read, then the guard of one binding: `continue` where it is false, a
        failing step where it fails."""
        gen = self.gen
        gen.facts = GUARD_FACTS
        # the conjuncts a mask already guarantees are not evaluated again: they come before any
        # conjunct that may fail (the mask's safe prefix), so no error is skipped either
        rest = [c for c in conjuncts if not any(c is t for t in implied)]
        guard = gen.expr(decl.guard) if not implied else \
            "(" + " and ".join(f"({gen.expr(c)})" for c in rest) + ")" if rest else "True"
        # the budget is read every 256 bindings (the loop's own count) and before each
        # outcome resolution computed, not per step taken
        lines = [f"{pad}if not count & 255:", f"{pad}{PAD}check()", f"{pad}count += 1"]
        if guard != "True":
            lines += [f"{pad}try:", f"{pad}{PAD}if not {guard}:", f"{pad}{PAD}{PAD}continue",
                      f"{pad}except EvalError as exc:",
                      f"{pad}{PAD}steps.append(Step({ai}, {binding}, None, (), str(exc), exc.span, 'evaluation-error', 'guard'))",
                      f"{pad}{PAD}continue"]
        return lines

    def _body_lines(self, ai: int, a, binding: str, pad: str,
                    same_resolution: bool) -> tuple[list[str], bool, list[str], str]:
        """(lines, whether the hits are the same in every step, the post state's entries (names
        of locals: x<entry>, or y<entry> if the body writes it), the entries outcome resolution
        reads): the body on copies of the entries it writes, a failing
        step where it overflows or fails."""
        gen, decl = self.gen, a.decl
        lines = []
        written = written_vars(decl.body)
        gen.written = {}
        for f in self.fields:
            if f.var.name in written:
                gen.written[f"x{f.entry}"] = f"y{f.entry}"
                lines.append(f"{pad}y{f.entry} = x{f.entry}")
        gen.facts = BODY_FACTS
        gen.places = {}
        body = gen.stmts(decl.body, pad + PAD)
        lines += [f"{pad}try:"] + body
        gen.facts = GUARD_FACTS
        # a body without tagged statements has the same hits in every step: a constant tuple;
        # one that neither derives nor reads an outcome fact needs no fact locals
        text = "\n".join(body)
        fixed_hits = "hits.append" not in text
        start = [f"{pad}hits = ({_lit(a.rid)},)" if fixed_hits else f"{pad}hits = [{_lit(a.rid)}]"]
        if not same_resolution or re.search(r"\b(lp|lt|wp|wt|draw|fin|dp|dt|xp|xt|sg)\b", text):
            start += [f"{pad}lp = lt = wp = wt = dp = dt = xp = xt = sg = 0", f"{pad}draw = fin = False"]
        lines[0:0] = start
        lines += [f"{pad}except Overflow as exc:",
                  f"{pad}{PAD}steps.append(Step({ai}, {binding}, None, tuple(hits), "
                  f"f'{{exc.var}} would become {{exc.value}}, outside its type', exc.span, 'overflow', 'body'))",
                  f"{pad}{PAD}continue",
                  f"{pad}except EvalError as exc:",
                  f"{pad}{PAD}steps.append(Step({ai}, {binding}, None, tuple(hits), str(exc), exc.span, 'evaluation-error', 'body'))",
                  f"{pad}{PAD}continue"]
        post = [gen.written.get(f"x{f.entry}", f"x{f.entry}") for f in self.fields]
        seen = "".join((f"{self._keyed[e]}({gen.written.get(f'x{e}', f'x{e}')})" if e in self._keyed
                        else gen.written.get(f"x{e}", f"x{e}")) + ", " for e in self._outcome_entries)
        gen.written = {}
        return lines, fixed_hits, post, seen

    def _resolution_lines(self, ai: int, binding: str, pad: str, same_resolution: bool, fixed_hits: bool,
                          post: list[str], seen: str) -> list[str]:
        """The step's outcome resolution, looked up in RESOLVED or computed by `resolve` (the
        closures' `settle`), and the step appended to `steps`."""
        post_t = f"({', '.join(post)},)" if post else "()"
        a = self.actions[ai]
        actor = self.gen.x_BinderRef(a.decl.actor) if a.actor is not None else "-1"  # who acts, for `by q`
        if same_resolution:
            lines = [f"{pad}done = known"]
        else:
            lines = [f"{pad}key = (({seen}), out, tout, lp, lt, wp, wt, draw, fin, dp, dt, xp, xt, sg, {actor})",
                     f"{pad}done = RESOLVED.get(key)"]
        lines += [f"{pad}if done is None:",
                  f"{pad}{PAD}check()  # before each resolution computed: outcome rules over every player are the costly part",
                  f"{pad}{PAD}done = resolve(key, hits, {post_t})",
                  f"{pad}{PAD}if done.__class__ is not tuple:  # [the error, the hits up to it, its kind, message]",
                  f"{pad}{PAD}{PAD}steps.append(Step({ai}, {binding}, None, tuple(done[1]), done[3], done[0].span, done[2], 'outcome'))",
                  f"{pad}{PAD}{PAD}continue"]
        if same_resolution:
            lines += [f"{pad}{PAD}known = done"]
        if self._triggers_change_vars and self._keyed:  # the keyed fields (never written by triggers) are the step's own
            parts = [post[i] if f.entry in self._keyed else f"done[5][{i}]" for i, f in enumerate(self.fields)]
            target = "(" + "".join(p + ", " for p in parts) + "done[0], done[1], done[2])"
        elif self._triggers_change_vars:  # with triggers, the variables after them come with the resolution
            target = "done[5] + (done[0], done[1], done[2])"
        else:
            target = "(" + "".join(p + ", " for p in post) + "done[0], done[1], done[2])"
        label_hits = "hits + done[4]" if fixed_hits else "tuple(hits) + done[4]"
        lines += [f"{pad}steps.append((({ai}, {binding}, {label_hits}), {target}, done[3]))"]
        return lines

    def _unpack_source(self) -> str:
        parts = []
        for f in self.fields:
            x = f"x{f.entry}"
            parts.append(x if f.kind == "scalar" else f"*{_unpack_expr(f, x)}")
        return "\n".join(["def unpack(state):", f"{PAD}{self._state_names()}, = state",
                          f"{PAD}return ({''.join(p + ', ' for p in parts)}out, tout, _end)"])

    def _pack_source(self) -> str:
        parts, at = [], 0
        for f in self.fields:
            parts.append(_pack_expr(f, at, "s"))
            at += f.var.count
        return "\n".join(["def pack(s):",
                          f"{PAD}return ({''.join(p + ', ' for p in parts)}s[{at}], s[{at + 1}], s[{at + 2}])"])

    # ------------------------------------------------------------ triggers
    def _trigger_sources(self) -> list[tuple]:
        """(trigger, function name, source) for each trigger the generator can write: a step
        with triggers spends most of its time running them, and the closures cost a call per
        node. A trigger that reads `lost_now()` or a choice Z3 decides keeps its closures."""
        out = []
        for ts in self.triggers.values():
            for t in ts:
                name = f"t{len(out)}"
                try:
                    src = self._trigger_source(name, t.decl)
                except CannotCompile:
                    continue
                finally:
                    self.gen.written, self.gen.places, self.gen.facts = {}, {}, GUARD_FACTS
                if src is not None:
                    out.append((t, name, src))
        return out

    def _trigger_source(self, name: str, decl: T.Trigger) -> str | None:
        """The function `NAME(c, x)` that runs trigger `decl` for subject x on the resolution's
        context `c` (its slots unpacked, as the closures read them), as `_run_triggers` runs a
        trigger's closures: False if its condition is false; else it cites the trigger, runs the
        body and writes what the body changed back to `c`, and returns True. Only the variables
        the trigger reads or writes are packed, and only those it writes are unpacked again."""
        gen = self.gen
        nodes = list(T.walk([decl.cond, list(decl.body)]))
        if any(isinstance(n, T.Call) and n.func in bi.STEP_ONLY for n in nodes):
            return None
        used = {n.name for n in nodes if isinstance(n, T.VarRef)} | written_vars(decl.body)
        fields, at = [], 0
        for f in self.fields:
            if f.var.name in used:
                fields.append((f, at))
            at += f.var.count
        lines = [f"def {name}(c, subject):", f"{PAD}v = c.vals", f"{PAD}out, tout = c.out, c.tout",
                 f"{PAD}{FACTS} = {_FACTS_OF_C}"]
        if decl.binder is not None:
            lines.append(f"{PAD}{gen.x_BinderRef(decl.binder)} = subject")
        if decl.cause is not None:  # `by q`: who acts in the step (`_run_triggers` skips the trigger without one)
            lines.append(f"{PAD}{gen.x_BinderRef(decl.cause)} = c.actor")
        # the variables the condition reads first: most of the time it is false and the rest is not needed
        tested = {n.name for n in T.walk(decl.cond) if isinstance(n, T.VarRef)}
        lines += [f"{PAD}x{f.entry} = {_pack_expr(f, at, 'v')}" for f, at in fields if f.var.name in tested]
        gen.facts = BODY_FACTS  # the trigger sees this step's wins, draw and finish, and what earlier triggers derived
        lines += [f"{PAD}if not {gen.expr(decl.cond)}:", f"{PAD}{PAD}return False",
                  f"{PAD}hits = c.hits", f"{PAD}hits.append({_lit(decl.rule)})"]
        lines += [f"{PAD}x{f.entry} = {_pack_expr(f, at, 'v')}" for f, at in fields if f.var.name not in tested]
        written = written_vars(decl.body)
        gen.written = {f"x{f.entry}": f"y{f.entry}" for f, _ in fields if f.var.name in written}
        lines += [f"{PAD}{y} = {x}" for x, y in gen.written.items()]
        gen.places = {}
        lines += gen.stmts(decl.body, PAD)
        for f, at in fields:
            if f.var.name in written:
                lines.append(f"{PAD}{_unpack_into(f, at, 'v', f'y{f.entry}')}")
        lines += [f"{PAD}{_FACTS_OF_C} = {FACTS}", f"{PAD}return True"]
        return "\n".join(lines)

    # ------------------------------------------------------------ the machine's interface
    def initial_states(self, max_states: int = 2_000_000, budget=None):
        states, errors = super().initial_states(max_states, budget)
        return [(self.pack(s), hits, conflict) for s, hits, conflict in states], errors

    def successors(self, state: tuple, budget=None, room: Room | None = None) -> list:
        """Every step out of `state`, as `Machine.successors` gives them, in the same order; a
        step that goes through is a tuple ((action, binding, hits), target, conflict), its first
        part the graph's label key, one that fails a `Step`. The generated code reads `check`
        (the budget, or `room`, which reads it too) every 256 bindings and before each
        resolution computed."""
        if room is None:
            steps: list = []
            check = budget.check if budget is not None else _nothing
        else:
            steps, check = room.open(), room.check
        for fn in self._action_fns:
            fn(state, steps, check)
        if room is not None and len(steps) > room.left:  # the last steps, after the last read
            room.count()
        return steps

    def forget_resolutions(self) -> None:
        super().forget_resolutions()
        self._resolved_packed.clear()  # (in place: the generated successors hold it as RESOLVED)

    def _resolve_packed(self, key, hits, vals):
        seen, out, tout, lp, lt, wp, wt, draw, fin, dp, dt, xp, xt, sg, actor = key
        c = Ctx(list(self.unpack(vals + (out, tout, RUNNING))[:-3]) if self._outcomes_read_vars else [], out, tout)
        c.lp, c.lt, c.wp, c.wt, c.draw, c.fin = lp, lt, wp, wt, draw, fin
        c.dp, c.dt, c.xp, c.xt, c.sg, c.actor = dp, dt, xp, xt, sg, actor
        c.hits = list(hits)
        before = len(c.hits)
        try:
            end, conflict = self.settle(c)
        except Overflow as exc:  # a trigger's assignment
            return [exc, c.hits, "overflow", f"{exc.var} would become {exc.value}, outside its type"]
        except EvalError as exc:
            return [exc, c.hits, "evaluation-error", str(exc)]
        done = (c.out, c.tout, end, conflict, tuple(c.hits[before:]))
        if self._triggers_change_vars:
            done += (self.pack(tuple(c.vals) + (0, 0, RUNNING))[:-3],)
        self._resolved_packed[key] = done
        return done

    def active_entries(self) -> tuple[int, ...] | None:
        """The entries of a packed state the `active` condition reads, for checks that remember
        its value by them (checker.analyses.explored: `is_active`); None: no `active`, or see
        `entries_read`."""
        if self.active is None:
            return None
        return self.entries_read(self.active[0].cond)

    def entries_read(self, cond) -> tuple[int, ...] | None:
        """The entries of a packed state condition `cond` reads (its variables' fields, and who
        is out and the end marker if it reads a status): states that agree on them agree on its
        value. None: it reads a choice made before play, or the whole state."""
        names, statuses = set(), False
        for n in T.walk(cond):
            if isinstance(n, T.VarRef):
                if n.static:
                    return None
                names.add(n.name)
            elif isinstance(n, T.Call) and bi.BY_KEY[n.func].reads:
                statuses = True
        entries = [i for i, f in enumerate(self.fields) if f.var.name in names]
        if len(entries) == len(self.fields):  # it reads the whole state: nothing to share
            return None
        if statuses:
            k = len(self.fields)
            entries += [k, k + 1, k + 2]
        return tuple(entries)

    def values(self, state: tuple) -> tuple:
        """The slots of a packed state. The checks read one state for every player in turn
        (`is_active`), so the last state unpacked is kept."""
        if state is not self._last_packed:
            self._last_packed, self._last_values = state, self.unpack(state)
        return self._last_values

    def reader(self, state: tuple) -> Ctx:
        """A context for reading a packed state (`is_active` and the checks read through it)."""
        return super().reader(self.values(state))


def machine_for(inst: Instance) -> Machine:
    """The compiled machine, or the closures' where the instance cannot be compiled (or where
    RULEWRIGHT_SUCCESSORS=closures asks for the reference, to compare whole runs)."""
    if os.environ.get("RULEWRIGHT_SUCCESSORS") == "closures":
        return Machine(inst)
    try:
        return CompiledMachine(inst)
    except CannotCompile:
        return Machine(inst)


# a step's outcome facts as a trigger's generated code names them (locals) and as its context holds them
FACTS = "lp, lt, wp, wt, dp, dt, xp, xt, sg, draw, fin"
_FACTS_OF_C = ", ".join("c." + x for x in FACTS.split(", "))


def _pack_expr(f: Field, at: int, slots: str) -> str:
    """Source for field `f`'s packed value from the slots `slots`, its first at `at`."""
    count = f.var.count
    if f.kind == "scalar":
        return f"{slots}[{at}]"
    if f.kind == "bits":
        return f"_packbits({slots}[{at}:{at + count}])"
    return f"_packfields({slots}[{at}:{at + count}], {_lit(f.width)}, {_lit(f.low)})"


def _unpack_expr(f: Field, x: str) -> str:
    """Source for the list of slots of non-scalar field `f` held packed in `x`."""
    if f.kind == "bits":
        return f"_unbits({x}, {_lit(f.var.count)})"
    return f"_unfields({x}, {_lit(f.var.count)}, {_lit(f.width)}, {_lit(f.mask)}, {_lit(f.low)})"


def _unpack_into(f: Field, at: int, slots: str, x: str) -> str:
    """A statement writing packed value `x` of field `f` back to the list of slots `slots`."""
    if f.kind == "scalar":
        return f"{slots}[{at}] = {x}"
    return f"{slots}[{at}:{at + f.var.count}] = {_unpack_expr(f, x)}"


# ---------------------------------------------------------------- compile-time analysis of guards

def _conjuncts(e) -> list:
    if isinstance(e, T.Logic) and e.op == "and":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _may_fail(e) -> bool:
    """Whether evaluating `e` may raise an evaluation error (conservative)."""
    for n in T.walk(e):
        if isinstance(n, T.Narrow) or isinstance(n, T.Arith) and n.op in ("/", "%"):
            return True
        if isinstance(n, T.VarRef) and n.index is not None and (n.index.type.kind == "int" or n.index.type.optional):
            return True
        if isinstance(n, T.Aggregate) and n.kind in ("argmin", "argmax"):
            return True
        if isinstance(n, T.Call) and n.func == "after":  # a value it does not list
            return True
    return False


def _safe_prefix(conjuncts: list) -> list:
    """The conjuncts a guard evaluates before the first one that may fail, that one included:
    skipping a binding for which one of them is false skips no error."""
    out = []
    for c in conjuncts:
        out.append(c)
        if _may_fail(c):
            break
    return out


def _folds_false(comp: Compiler, e) -> bool:
    """A conjunct that reads neither the state nor a binder and is false (`DEPARTURES == 1` with
    DEPARTURES 0): the action never applies in this instance."""
    if not is_closed(e):
        return False
    v = closed_value(comp, e)
    return v is not None and not v


def _static_values(comp: Compiler, d):
    """A domain's values when no state can change them (a range stays a range), else None."""
    if not _static_domain(d):
        return None
    try:
        dom = comp.domain(d)(Ctx(()))
    except EvalError:
        return None
    return dom if isinstance(dom, range) else list(dom)


def _marker_filter(gen: Generator, b: T.Binder, values, conjuncts: list, used: list | None = None):
    """(source of a mask, base) when the guard's safe prefix requires `v[b]` (or `not v[b]`) of
    boolean variables indexed like b: the bindings worth trying are then the set bits of the
    mask (the seats holding a marker), not every value of b's domain."""
    terms, base = [], None
    for c in _safe_prefix(conjuncts):
        if (isinstance(c, T.Call) and c.func == "in_game_player" and isinstance(c.args[0], T.BinderRef)
                and c.args[0].uid == b.uid and (base is None or base == 0) and all(0 <= v < gen.n for v in values)):
            base = 0
            terms.append("~out")  # the players still in the game
            if used is not None:
                used.append(c)
            continue
        neg = isinstance(c, T.Not)
        x = c.operand if neg else c
        if not (isinstance(x, T.VarRef) and isinstance(x.index, T.BinderRef) and x.index.uid == b.uid):
            continue
        f: Field | None = gen.by_name.get(x.name)
        if f is None or f.kind != "bits":
            continue
        vb = f.var.index_base
        if base is not None and vb != base:
            continue
        if not all(0 <= v - vb < f.var.count for v in values):
            continue
        base = vb
        terms.append(f"~x{f.entry}" if neg else f"x{f.entry}")
        if used is not None:
            used.append(c)
    if not terms:
        return None
    dom_mask = 0
    for v in values:
        dom_mask |= 1 << (v - base)
    return f"({' & '.join(terms)} & {_lit(dom_mask)})", base


def _hoistable(decl, conjuncts: list, i: int = -1, implied: list = ()) -> list:
    """The guard's conjuncts, before the first that may fail, that read argument i and none
    after it (i = -1: no argument), cannot fail themselves and are not tested already
    (`implied`): false for one value of the first i + 1 arguments, false whatever the rest."""
    here = decl.params[i][0].uid if i >= 0 else None
    later = {b.uid for b, _ in decl.params[i + 1:]}
    out = []
    for c in conjuncts:
        if _may_fail(c):
            break
        uids = {n.uid for n in T.walk(c) if isinstance(n, T.BinderRef)}
        if (here is None or here in uids) and not uids & later and not any(c is t for t in implied):
            out.append(c)
    return out


def _derives_facts(body) -> bool:
    """Whether a body has an outcome statement (lose, win, draw, finish) or raises an event."""
    return any(isinstance(n, (T.OutcomeStmt, T.SignalStmt)) for n in T.walk(list(body)))


def _marker_terms(gen: Generator, b: T.Binder, values, conjuncts: list) -> list:
    """The guard conjuncts `_marker_filter` turned into b's mask (each is true for every value
    of b the mask gives)."""
    used: list = []
    _marker_filter(gen, b, values, conjuncts, used)
    return used
