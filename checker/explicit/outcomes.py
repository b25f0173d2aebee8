"""The explorer's outcome resolution: what a step's facts mean for who lost, won or drew.

A mixin of `Machine` (checker.explicit.machine), kept apart because it is the half of the
machine a new outcome construct enters, and the successors are the other half. It reads the
machine's compiled outcome rules (`self.loss_rules`, `self.win_rules`, ...), its triggers and
the instance; it writes only the step's context `c`.

The strata (docs/language.md, "Outcomes"), after each step:
0. "cannot" rules are judged on the state as the step left it and the statuses when it began;
1. losses to a fixpoint; 2. wins to a fixpoint, against the statuses after those losses;
3. draws and `finish`; again from 1 while a loss rule that reads `won()` has new wins to read.
Then facts about players already out are dropped, `precedence` applies, losers leave the game,
and triggers on the events run, each round resolved again (`settle`).

Beside the outcomes, resolution notes which declarations decided something (`self.decided`, read
by checker.analyses.declaration_checks, docs/checks.md, "Dead declarations"): a `precedence` that
picked between two facts proposed for one subject, and a `cannot` rule without which the step
would have ended otherwise. Every step the explorer takes is resolved here (the generated
successors call `settle` through `CompiledMachine._resolve_packed`, never inline it), and a
resolution the compiled machine caches was noted when it was computed: the set is the instance's.
"""
from __future__ import annotations

from ..frontend.ends import RUNNING, Ended, Gap
from ..frontend.typed import precedence_key
from .compile import DREW, WON, Ctx, EvalError, Overflow, result_mask, with_results
from .compile import lost_mask as bi_lost_mask


class OutcomeResolution:
    """The outcome half of `Machine`: `settle` after every step, `resolve` for one round."""

    def _init_decided(self) -> None:
        """What `decided` starts from (called once the machine's outcome rules are compiled).
        Its keys: ("precedence", WINNER, LOSER) for a precedence of kinds (`precedence_key`) or of a rule over a
        "cannot" rule, ("same_step",) for `lose over win same_step` letting an earlier loser win,
        ("cannot", NAME) for a "cannot" rule."""
        self.decided: set = set()
        self._what_if = False  # while a step is resolved again without a "cannot" rule: nothing is noted
        self._undecided = set(self.precedence)  # the precedences of kinds not yet seen to pick
        exempt = set(self.model.exempt)
        self._exempt = [(r, k, ("precedence", r.decl.name, k.decl.name))
                        for r in self.loss_rules + self.win_rules for k in self.cannot_rules
                        if k.fact == r.fact and (r.decl.name, k.decl.name) in exempt]
        # "cannot" rules not yet seen to change a step's end: only their steps are resolved twice
        self._unproven = list(self.cannot_rules)

    def settle(self, c: Ctx, step: bool = True) -> tuple[tuple, str]:
        """`_settle`, noting each "cannot" rule that this step shows to matter: one that forbade
        a fact (it is cited) and without which the step would end otherwise (other statuses,
        values, end or conflict, or an error). Once a rule is shown to matter it is never
        resolved without again, so the cost is one more resolution per such step until then.
        `step`: False for a setup, where no phase ends (after triggers either)."""
        if not self._unproven or self._what_if:
            return self._settle(c, step)
        before = (list(c.vals), c.out, c.tout, c.lp, c.lt, c.wp, c.wt, c.draw, c.fin, c.dp, c.dt, c.xp, c.xt, c.sg, c.actor)
        start = len(c.hits)
        done = self._settle(c, step)
        cited = set(c.hits[start:])
        for k in [k for k in self._unproven if k.rid in cited]:
            if self._ends_otherwise_without(k, before, (done, c.out, c.tout, c.vals), step):
                self.decided.add(("cannot", k.decl.name))
                self._unproven.remove(k)
        return done

    def _ends_otherwise_without(self, k, before: tuple, after: tuple, step: bool) -> bool:
        """Whether the step that began with the facts `before` would end otherwise than `after`
        without "cannot" rule `k` (machine attributes restored whatever happens)."""
        vals, out, tout, lp, lt, wp, wt, draw, fin, dp, dt, xp, xt, sg, actor = before
        d = Ctx(list(vals), out, tout)
        d.lp, d.lt, d.wp, d.wt, d.draw, d.fin, d.dp, d.dt, d.xp, d.xt, d.sg = lp, lt, wp, wt, draw, fin, dp, dt, xp, xt, sg
        d.actor = actor
        rules = self.loss_rules + self.win_rules
        saved = self.cannot_rules, [r.cannot for r in rules]
        self.cannot_rules = [j for j in self.cannot_rules if j is not k]
        for r in rules:
            r.cannot = tuple(j for j in r.cannot if j is not k)
            if not self.cannot_rules:  # no `_forbid` will run to clear what the last step blocked
                r.blocked = 0
        self._what_if = True
        try:
            done = self._settle(d, step)
        except (EvalError, Overflow):  # the step would fail without it: it matters
            return True
        finally:
            self._what_if = False
            self.cannot_rules = saved[0]
            for r, cannot in zip(rules, saved[1]):
                r.cannot = cannot
        return (done, d.out, d.tout, d.vals) != after

    def _settle(self, c: Ctx, step: bool = True) -> tuple[tuple, str]:
        """The outcomes of a step, triggers included (docs/language.md, "Events and triggers"):
        resolve; then, while the last round settled events that have triggers not yet run for
        them, run those triggers (events by kind and seat, each event's triggers in the order
        written, each once per subject and step), then (in a step, not a setup) the state-based
        rules and the phase chain again, and resolve again, from the statuses the round before
        left. Returns (end marker, conflict): the last round's end, the first conflict."""
        c.out0, c.tout0 = c.out, c.tout  # lost_now(): lost since here
        end, conflict = self.resolve(c)
        if not self.triggers:
            return end, conflict
        fired: set = set()
        spent: set = set()  # the `once` triggers that ran in this step
        wp = wt = 0  # the wins whose events were already seen
        draw = fin = False
        while True:
            events = self._events(c, wp, wt, draw, fin, fired)
            if not events:
                return end, conflict
            fired.update(events)
            wp, wt, draw, fin = c.wp, c.wt, c.draw, c.fin
            # the triggers see the statuses after the round and this step's wins, draw and finish;
            # a loss or a win they state, or an event they raise, is a fact of the next round
            c.lp = c.lt = c.dp = c.dt = c.xp = c.xt = c.sg = 0
            if self.watch_order:
                if not self.order_sensitive and len(events) > 1:  # one event has one order
                    self._compare_seat_orders(c, events, spent)
            elif len(events) > 1:
                self.orders_unchecked = True  # a resolution cached now was not compared
            if not self._run_triggers(c, events, spent):
                return end, conflict  # nothing changed since the round: resolving again would give the same
            if step and self.after_triggers is not None:  # a trigger's effect may end a phase in this step
                self.after_triggers(c)
            end, more = self.resolve(c)
            conflict = conflict or more

    def _run_triggers(self, c: Ctx, events: list, spent: set) -> bool:
        """Run the triggers of `events`, in that order, on `c`; whether any of them ran. A
        `once` trigger that ran in this step (its rule in `spent`, which this adds to) is skipped."""
        ran = False
        for event, x in events:
            for t in self.triggers[event]:
                if t.cause is not None:  # `by q`: a step in which nobody acts runs it not
                    if c.actor < 0:
                        continue
                    t.cause[0] = c.actor
                once = t.decl.once
                if once and t.rid in spent:
                    continue
                if t.cell is not None:  # (also for generated code: a trace's story reads who it ran for here)
                    t.cell[0] = x
                if t.run is not None:  # generated: condition, citation and body in one call
                    if t.run(c, x):
                        if once:
                            spent.add(t.rid)
                        ran = True
                    continue
                if t.cond(c):
                    if once:
                        spent.add(t.rid)
                    c.hits.append(t.rid)
                    t.body(c)
                    ran = True
        return ran

    # While the reduced search runs (checker.explicit.symmetry_search sets `watch_order`): the
    # triggers of one round run by seat, and the same step from a rotated state runs them in a
    # rotated seat order, so the step commutes with the rotation only if that order cannot
    # matter. Where a round fires for two players or more, it is run once in every order a
    # rotation of the seats gives it, on copies, before it is run for real; the first round
    # whose orders end differently (other values, facts, cited rules, or a failure in any of
    # them) is noted in `order_sensitive`, and the reduced search gives way to the full one.
    watch_order = False
    order_sensitive = ""
    orders_unchecked = False  # a round for two events or more ran while not watched

    def _compare_seat_orders(self, c: Ctx, events: list, spent: set) -> None:
        orders = _seat_orders(events, self.n)
        if len(orders) < 2:
            return
        ends = {self._round_in_order(c, order, set(spent)) for order in orders}
        if len(ends) > 1 or None in ends:
            names = sorted({t.decl.name for event, _ in events for t in self.triggers[event]})
            self.order_sensitive = (f"the triggers {', '.join(names)} end otherwise when the players they fire for "
                                    "take their turns in another seat order")

    def _round_in_order(self, c: Ctx, order: list, spent: set) -> tuple | None:
        """What the round's triggers leave when run in `order` on a copy of `c` (None: one failed)."""
        d = Ctx(list(c.vals), c.out, c.tout)
        d.lp, d.lt, d.wp, d.wt, d.draw, d.fin, d.dp, d.dt, d.xp, d.xt, d.sg = (
            c.lp, c.lt, c.wp, c.wt, c.draw, c.fin, c.dp, c.dt, c.xp, c.xt, c.sg)
        d.over, d.out0, d.tout0, d.actor = c.over, c.out0, c.tout0, c.actor
        try:
            self._run_triggers(d, order, spent)
        except (EvalError, Overflow):
            return None
        return (tuple(d.vals), d.out, d.tout, d.lp, d.lt, d.wp, d.wt, d.draw, d.fin, d.dp, d.dt, d.xp, d.xt, d.sg,
                tuple(d.hits))

    def _events(self, c: Ctx, wp: int, wt: int, draw: bool, fin: bool, fired: set) -> list:
        """The events of the round just resolved that have triggers not yet run for them, in
        the order they fire (EVENTS): losses of players by seat, of teams, draws of some players
        and teams, departures of players and teams by any way but a win (a loss, a draw of
        their own, leaving with no result), wins, a draw of the game, a finish; then the declared
        events raised, in the order declared, each by seat or team."""
        on = self.triggers
        out = []
        for event, mask in (("lose_player", c.lp), ("lose_team", c.lt), ("draw_player", c.dp), ("draw_team", c.dt),
                            ("leave_player", c.lp | c.dp | c.xp & ~c.wp), ("leave_team", c.lt | c.dt | c.xt & ~c.wt),
                            ("win_player", c.wp & ~wp), ("win_team", c.wt & ~wt)):
            if event in on:
                out += [(event, x) for x in range(mask.bit_length()) if mask >> x & 1 and (event, x) not in fired]
        for event, now, before in (("draw", c.draw, draw), ("finish", c.fin, fin)):
            if event in on and now and not before and (event, 0) not in fired:
                out.append((event, 0))
        if c.sg:
            for event, at, size in self.signal_events:
                raised = c.sg >> at
                out += [(event, x) for x in range(size) if raised >> x & 1 and (event, x) not in fired]
        return out

    # ------------------------------------------------------------ outcome resolution
    def resolve(self, c: Ctx) -> tuple[tuple, str]:
        """Apply the outcome rules in strata, then precedence; returns (end marker, conflict)."""
        out0, tout0 = c.out, c.tout
        if self.cannot_rules:
            self._forbid(c)
        again = self._past_losers(out0, tout0)
        first = True
        while self.has_outcome_rules:  # (without any, the strata derive nothing: the facts are the step's)
            before = (c.lp, c.lt, c.dp, c.dt, c.xp, c.xt)
            c.out, c.tout = out0, tout0  # loss rules see who was out when the step began
            self._fixpoint(c, self.loss_rules, first)
            if not first and (c.lp, c.lt, c.dp, c.dt, c.xp, c.xt) == before:
                break
            # wins and draws: whoever lost (or drew, or left) now is out, each for its reason
            c.out = with_results(out0, self.n, c.lp, c.dp & ~out0, 0, c.xp & ~out0)
            c.tout = with_results(tout0, self.nt, c.lt, c.dt & ~tout0, 0, c.xt & ~tout0)
            self._again = (again[0] & ~c.lp, again[1] & ~c.lt)
            self._fixpoint(c, self.win_rules, first)
            self._again = (0, 0)
            self._fixpoint(c, self.draw_rules, first)
            first = False
            if not self.loss_reads_won:
                break
        if self.cannot_rules:
            self._cite_forbidding(c, out0, tout0)
            if self._exempt and not self._what_if:
                self._note_exempt(c, out0, tout0)
        c.out, c.tout = out0, tout0
        # facts about players or teams already out are not news
        c.lp &= ~out0
        c.lt &= ~tout0
        c.wp &= ~out0 | again[0]  # (a player who lost earlier may win under `lose over win same_step`)
        c.wt &= ~tout0 | again[1]
        self._drop_known_results(c, out0, tout0)
        for pair in self.precedence:
            winner, loser, who = pair
            watch = pair in self._undecided and not self._what_if  # once it has decided, no more cost
            if watch:
                facts = (c.lp, c.lt, c.wp, c.wt, c.dp, c.dt, c.draw)
            if (winner, loser) == ("lose", "win"):
                if who != "teams":
                    c.wp &= ~c.lp
                if who != "players":
                    c.wt &= ~c.lt
            elif (winner, loser) == ("win", "lose"):
                if who != "teams":
                    c.lp &= ~c.wp
                if who != "players":
                    c.lt &= ~c.wt
            elif (winner, loser) == ("draw", "win") and c.draw:
                c.wp = c.wt = 0
            elif (winner, loser) == ("win", "draw") and (c.wp or c.wt):
                c.draw = False
            elif (winner, loser) == ("draw", "lose") and c.draw:
                c.lp = c.lt = 0
            elif (winner, loser) == ("lose", "draw") and (c.lp or c.lt):
                c.draw = False
            self._some_draw_precedence(c, winner, loser)
            if watch and facts != (c.lp, c.lt, c.wp, c.wt, c.dp, c.dt, c.draw):
                self.decided.add(precedence_key(winner, loser, who))  # it picked: both sides were proposed
                self._undecided.discard(pair)
        if (again[0] or again[1]) and (c.wp & again[0] or c.wt & again[1]) and not self._what_if:
            self.decided.add(("same_step",))  # a win of an earlier loser stands (`same_step`)
        conflict = self._conflict(c) or self._results_conflict(c)
        return self._apply_results(c), conflict

    # ---- outcomes for some players while the game goes on (docs/language.md, "Outcomes") ----
    def _past_losers(self, out0: int, tout0: int) -> tuple[int, int]:
        """Who lost in an earlier step and may still win (`precedence lose over win
        same_step`: "each player on the winning team wins, even one who had lost"); win rules
        are tried for them too. Nobody otherwise."""
        if not self.model.past_losers_win:
            return (0, 0)
        return (bi_lost_mask(out0, self.n), bi_lost_mask(tout0, self.nt))

    @staticmethod
    def _drop_known_results(c: Ctx, out0: int, tout0: int) -> None:
        """Draws and departures of players or teams already out are not news either."""
        c.dp &= ~out0
        c.dt &= ~tout0
        c.xp &= ~out0
        c.xt &= ~tout0

    @staticmethod
    def _some_draw_precedence(c: Ctx, winner: str, loser: str) -> None:
        """A precedence between a draw and a loss or a win settles the draws of some players
        too, player by player: `lose over draw` keeps the loss of a player who would also draw."""
        if (winner, loser) == ("lose", "draw"):
            c.dp &= ~c.lp
            c.dt &= ~c.lt
        elif (winner, loser) == ("draw", "lose"):
            c.lp &= ~c.dp
            c.lt &= ~c.dt
        elif (winner, loser) == ("win", "draw"):
            c.dp &= ~c.wp
            c.dt &= ~c.wt
        elif (winner, loser) == ("draw", "win"):
            c.wp &= ~c.dp
            c.wt &= ~c.dt

    def _results_conflict(self, c: Ctx) -> str:
        """A player or team who both draws and loses, or draws and wins, in one step."""
        inst = self.inst
        for mask, verb in ((c.dp & c.lp, "lose"), (c.dp & c.wp, "win")):
            if mask:
                return f"{_names_of(inst.players, mask)} both draw and {verb}"
        for mask, verb in ((c.dt & c.lt, "lose"), (c.dt & c.wt, "win")):
            if mask:
                return f"team {_names_of(inst.teams, mask)} both draws and {verb}s"
        return ""

    def _apply_results(self, c: Ctx) -> tuple:
        """Everyone with an outcome in this step leaves the game, each for its reason; leaving
        with no result gives way to a result of the same step (a team that leaves and loses
        lost). Returns the end marker."""
        n, nt = self.n, self.nt
        c.xp &= ~(c.lp | c.wp | c.dp)
        c.xt &= ~(c.lt | c.wt | c.dt)
        plays_on = not self.model.after_win_ends
        c.out = with_results(c.out, n, c.lp, c.dp, c.wp if plays_on else 0, c.xp)
        c.tout = with_results(c.tout, nt, c.lt, c.dt, c.wt if plays_on else 0, c.xt)
        if (c.wp or c.wt) and not plays_on or c.draw or c.fin:
            # a finish alone leaves Ended(0, 0, False): an end without a winner, a loser or a draw;
            # winners who left earlier while the game went on are winners of the game too
            return Ended(c.wp | result_mask(c.out, n, WON), c.wt | result_mask(c.tout, nt, WON), c.draw)
        return self._must_end(c)

    def _fixpoint(self, c: Ctx, rules: list, first: bool) -> None:  # rules: the machine's OutcomeRule list
        """Apply `rules` until nothing changes. After the first pass only rules that read what
        their stratum derives can change anything. (The hot loop of every step: facts are kept
        in locals and written back as soon as they change, since later subjects may read them.)"""
        if not rules:
            return
        todo = rules
        while True:
            changed = False
            for r in todo:
                if r.subject is None:  # a draw or a finish
                    if not getattr(c, r.fact) and r.cond(c):
                        setattr(c, r.fact, True)
                        c.hits.append(r.rid)
                        changed = True
                    continue
                attr, cell, cond = r.fact, r.cell, r.cond
                facts = getattr(c, attr)
                done = c.out if r.subject == "player" else c.tout
                if r.kind == "win" and self._again != (0, 0):  # who lost earlier may win (same_step)
                    done &= ~self._again[r.subject != "player"]
                skip = done | facts | r.blocked
                for x in r.subjects:
                    if (skip >> x) & 1:
                        continue
                    cell[0] = x
                    if cond(c):
                        facts |= 1 << x
                        setattr(c, attr, facts)
                        c.hits.append(r.rid)
                        changed = True
            if not changed:
                break
            todo = self._own[id(rules)]
            if not todo:
                break
        if first:
            self._cite_redundant(c, rules)

    def _forbid(self, c: Ctx) -> None:
        """Stratum 0: which subjects each "cannot" rule forbids a loss or a win in this step.
        Facts the step's statements derived for them are dropped (the rule is cited), and each
        loss or win rule skips them unless it has precedence over the "cannot" rule."""
        masks = {}
        for k in self.cannot_rules:
            done = c.out if k.subject == "player" else c.tout
            mask = 0
            for x in k.subjects:
                if not (done >> x) & 1:
                    k.cell[0] = x
                    if k.cond(c):
                        mask |= 1 << x
            masks[id(k)] = mask
            facts = getattr(c, k.fact)
            if facts & mask:
                setattr(c, k.fact, facts & ~mask)
                c.hits.append(k.rid)
        for r in self.loss_rules + self.win_rules:
            r.blocked = 0
            for k in r.cannot:
                r.blocked |= masks[id(k)]
        self._masks = masks

    def _cite_forbidding(self, c: Ctx, out0: int, tout0: int) -> None:
        """A "cannot" rule that forbade a fact some rule would have derived applies in this step:
        cited, so a trace shows why the player did not lose or win and dead-rule does not call
        it dead. Judged after the strata, each rule seeing the statuses its stratum sees."""
        for k in self.cannot_rules:
            mask = self._masks[id(k)]
            if k.rid in c.hits or not mask:
                continue
            for r in self.loss_rules + self.win_rules:
                if k not in r.cannot:
                    continue
                c.out, c.tout = (out0, tout0) if r.kind == "lose" else (
                    with_results(out0, self.n, c.lp, c.dp & ~out0, 0, c.xp & ~out0),
                    with_results(tout0, self.nt, c.lt, c.dt & ~tout0, 0, c.xt & ~tout0))
                if any((mask >> x) & 1 and _holds_at(r, x, c) for x in r.subjects):
                    c.hits.append(k.rid)
                    break

    def _note_exempt(self, c: Ctx, out0: int, tout0: int) -> None:
        """`precedence RULE over CANNOT_RULE` decides in this step when CANNOT_RULE forbids a
        subject for whom RULE holds: RULE's fact stands only by the precedence. Judged as
        `_cite_forbidding` judges, only while the "cannot" rule forbids someone."""
        for r, k, key in self._exempt:
            mask = self._masks[id(k)] & getattr(c, r.fact)
            if not mask or key in self.decided:
                continue
            c.out, c.tout = (out0, tout0) if r.kind == "lose" else (
                with_results(out0, self.n, c.lp, c.dp & ~out0, 0, c.xp & ~out0),
                with_results(tout0, self.nt, c.lt, c.dt & ~tout0, 0, c.xt & ~tout0))
            if any((mask >> x) & 1 and _holds_at(r, x, c) for x in r.subjects):
                self.decided.add(key)

    def _cite_redundant(self, c: Ctx, rules) -> None:
        """A rule whose fact another rule derived first applies all the same: the step cites it
        (once), so traces name every rule that decided the outcome and dead-rule does not call it
        dead. What a step cites depends on the step alone, never on the order of the search."""
        for r in rules:
            if r.rid in c.hits:
                continue
            if r.subject is None:
                if getattr(c, r.fact) and _holds(r.cond, c):
                    c.hits.append(r.rid)
                continue
            facts = getattr(c, r.fact)
            done, width = (c.out, self.n) if r.subject == "player" else (c.tout, self.inst.nteams)
            for x in range(width):
                if (facts >> x) & 1 and not (done >> x) & 1:
                    r.cell[0] = x
                    if _holds(r.cond, c):
                        c.hits.append(r.rid)
                        break

    def _must_end(self, c: Ctx) -> tuple:
        """The end marker of a game no outcome rule ended: RUNNING if it may go on, a Gap if not."""
        if c.out & self.all == self.all:
            # everyone has left: the game is over if someone won or drew on the way out
            won, twon = result_mask(c.out, self.n, WON), result_mask(c.tout, self.nt, WON)
            if won or twon:
                return Ended(won, twon, False)
            if result_mask(c.out, self.n, DREW) or result_mask(c.tout, self.nt, DREW):
                return Ended(0, 0, True)
            return Gap("no player is left in the game")
        for d, f in self.ends:  # the writer's own reasons first: they cite the writer's rules
            if f(c):
                return Gap(f"`{d.name}` says the game must be over")
        if self.model.last_side_ends and self.sides >= 2:
            left = self.sides_in_game(c.out, c.tout)
            if len(left) <= 1:
                return Gap(f"only {left[0]} is left in the game" if left else "no side is left in the game")
        return RUNNING

    def sides_in_game(self, out: int, tout: int) -> list[str]:
        inst = self.inst
        if inst.has_teams:
            return [inst.teams[t] for t in range(inst.nteams)
                    if not (tout >> t) & 1 and inst.members_mask(t) & ~out]
        return [inst.players[p] for p in range(self.n) if not (out >> p) & 1]

    def _conflict(self, c: Ctx) -> str:
        inst = self.inst
        both_p = c.wp & c.lp
        both_t = c.wt & c.lt
        if both_p:
            return f"{_names_of(inst.players, both_p)} both {_verbs(both_p)}"
        if both_t:
            return f"team{'s' if both_t & both_t - 1 else ''} {_names_of(inst.teams, both_t)} both {_verbs(both_t)}"
        if c.draw and (c.wp or c.wt):
            return "the game is both drawn and won"
        if c.fin and (c.draw or c.wp or c.wt):
            return f"the game both ends without a winner and is {'drawn' if c.draw else 'won'}"
        if not self.winners_many:
            sides = set()
            for p in range(self.n):
                if c.wp >> p & 1:
                    sides.add(("t", inst.team_of[p]) if inst.has_teams else ("p", p))
            for t in range(inst.nteams):
                if c.wt >> t & 1:
                    sides.add(("t", t))
            if len(sides) > 1:
                names = []
                for kind, x in sorted(sides):
                    names.append(inst.teams[x] if kind == "t" else inst.players[x])
                return f"{' and '.join(names)} both win, but the format allows one winner"
        return ""


def _holds(cond, c: Ctx) -> bool:
    """Whether a rule's condition holds, for crediting only: the semantics never evaluates it
    there (its fact was already derived), so a condition without a value (a division by zero)
    is no error of the step, only a rule that is not credited."""
    try:
        return bool(cond(c))
    except EvalError:
        return False


def _holds_at(r, x: int, c: Ctx) -> bool:
    """Whether outcome rule `r` holds for subject `x` (crediting only, as `_holds`)."""
    r.cell[0] = x
    return _holds(r.cond, c)


def _names_of(names, mask) -> str:
    return ", ".join(names[i] for i in range(len(names)) if mask >> i & 1)


def _verbs(mask: int) -> str:
    """"wins and loses" for one player or team, "win and lose" for several."""
    return "win and lose" if mask & mask - 1 else "wins and loses"


def _seat_orders(events: list, n: int) -> list[list]:
    """The distinct orders in which the rotations p -> p + r of n seats put a round's `events`
    (the order `_events` gives them: by kind, each kind's players by seat; a kind's players
    ordered by seat in the rotated state are ordered by (p + r) mod n here); the first is
    `events` itself."""
    kinds: dict[str, list[int]] = {}
    for event, x in events:
        kinds.setdefault(event, []).append(x)
    if all(len(xs) < 2 or not event.endswith("_player") for event, xs in kinds.items()):
        return [events]
    orders: list[list] = []
    for r in range(n):
        order = [(event, x) for event, xs in kinds.items()
                 for x in (sorted(xs, key=lambda p: (p + r) % n) if event.endswith("_player") else xs)]
        if order not in orders:
            orders.append(order)
    return orders
