"""A match of games (docs/language.md, "A match of games") lowered into plain actions.

`match { ... }` becomes, so that every engine runs one definition:
- a match variable `between_games` (false while a game is played);
- every action declared outside the match is a game action: its guard also says
  `not between_games`;
- every step (after its statements and the phase chain) judges the game's results in the
  order declared, while a game is played: the first `game won by`/`game drawn` whose
  condition holds (a `won by` for the first player, or team, in seat order) runs its block,
  gives every game variable with an initial value that value again (in the order declared,
  after the block: "the loser plays first" reads the new match variables) and sets
  `between_games`; the outcome rules, which are the match's, then see the new match
  variables and a fresh game in the same step, never the last game's stale state;
- a generated action `next_game`, enabled between games (and when `game starts` says so),
  runs the `game starts` block, gives each game variable that starts at `any` each of its
  values (a parameter of the step) and clears `between_games`.

Why typed IR, built while the Resolver types the model, and not a syntax-to-syntax pass before
it: the meaning must stay exactly what the engines ran before the lowering moved here.
- A game variable starts again from its *typed* initial value, the very nodes the variable's
  declaration was typed to (in the context of an initial value, with its index binder);
  written again as syntax into every result's block it would be typed again in a statement's
  context, with new binders and its errors found twice.
- Starting a variable at each of its values needs its type (a boolean is a number 0..1
  compared with 1, a range its bounds counted in steps, an enumeration its members) and names
  the step's parameter after the variable, which as syntax would be refused for hiding it.
- The judged results end every step as one typed sequence, shared by all actions, and each
  result's block cites the result's rule (kind `game`), which the syntax cannot say.
What is syntax to syntax is the variables a match declares (`match_variables`).
"""
from __future__ import annotations

from .. import builtins as bi
from .. import syntax as sx
from .. import typed as T
from ..resolver.context import Ctx
from ..types import BOOL, INT, PLAYER, TEAM, set_of
from ..diagnostics import Code

FLAG = "between_games"
NEXT_GAME = "next_game"


def match_variables(m: sx.MatchDecl) -> tuple[sx.VarDecl, ...]:
    """The variables of match `m`: `between_games`, then the match's own, in the order declared."""
    flag = sx.VarDecl(FLAG, None, sx.TBool(m.span), sx.Bool(False, m.span), m.tags, False, m.span)
    return (flag,) + m.vars


def declare(r, decls) -> sx.MatchDecl | None:
    """The model's match, its variables declared (before any other: a game's initial values may
    read them)."""
    matches = [d for d in decls if isinstance(d, sx.MatchDecl)]
    for d in matches[:-1]:
        r.error(Code.DEFINED_TWICE, "a model is one match: `match` is declared twice", d.span,
                f"the other declaration is at {matches[-1].span}")
    if not matches:
        return None
    for d in match_variables(matches[-1]):
        r.not_reserved(d.name, d.span)
        r.declare_var(d)
    return matches[-1]


def between(span) -> T.VarRef:
    return T.VarRef(FLAG, None, BOOL, False, span)


def end_of_step(r, d: sx.ActionDecl, guard, body) -> tuple:
    """(guard, body) of action `d` whose own statements are `body`: then the phase chain, then
    the game's results; a game action runs only in a game, a match action moves phases only
    in one."""
    m = r.match_decl
    if d.match_action and m is None:
        r.error(Code.TYPE_MISMATCH, f"action {d.name} is marked `match`, but the model is no match of games", d.span,
                "declare the match with `match { ... }`, or drop the flag")
    if m is not None and not d.match_action and not any(d is a for a in m.actions):
        guard = T.Logic("and", T.Not(between(d.span), BOOL, d.span), guard, BOOL, d.span)  # a game action
    elif m is not None and r.phase_chain:
        return guard, body + (T.If(((T.Not(between(d.span), BOOL, d.span), r.phase_chain),), (), None, d.span),) \
            + r.game_end
    return guard, body + r.phase_chain + r.game_end


def after_triggers(r) -> tuple:
    """The state-based rules and the phase chain as they run again after a round of triggers
    (docs/language.md, "The order of a step"); in a match, only while a game is played."""
    if r.match_decl is not None and r.phase_chain:
        span = r.phase_chain[0].span
        return (T.If(((T.Not(between(span), BOOL, span), r.phase_chain),), (), None, span),)
    return r.phase_chain


def game_results(r, vars_) -> tuple[tuple, T.MatchInfo | None]:
    """(the statements that end every step, judging the game's result; the typed match)."""
    m = r.match_decl
    if m is None:
        return (), None
    if not m.results:
        r.error(Code.TYPE_MISMATCH, "a match needs the results of a game: no `game won by ...` or `game drawn` is declared",
                m.span, "write `game won by player p when CONDITION do ... end` inside `match { }`")
    for d in (x for x in r.decls if isinstance(x, sx.InitDecl)):
        r.error(Code.TYPE_MISMATCH, "`init` cannot restrict the games of a match: every game starts from the initial values",
                d.span, "state the game's setup with initial values (`= any` lets a game start from each value)")
    stmts, results = [], []
    match_vars = tuple(d.name for d in match_variables(m))
    fresh = [s for v in vars_ if v.name not in match_vars and not v.is_choice and v.init is not None
             for s in restart(r, v, [], m.span)]
    for res in m.results:
        judged = _result(r, res, fresh, results)
        if judged is not None:
            stmts.append(judged)
    game_vars = tuple(v.name for v in vars_ if v.name not in match_vars and not v.is_choice)
    return tuple(stmts), T.MatchInfo(match_vars, game_vars, tuple(results), m.tags, m.span)


def _result(r, res: sx.GameResultDecl, fresh, results: list):
    """`game won by ...` / `game drawn` judged at the end of a step (None after an error);
    its kind and rule are added to `results`."""
    scope, binder = {}, None
    if res.kind == "won":
        if res.subject_kind == "team" and not r.has_teams:
            r.error(Code.TYPE_MISMATCH, "`game won by team` needs teams, and this format has none", res.span)
            return None
        binder = r.binder(res.var, PLAYER if res.subject_kind == "player" else TEAM, res.span, {})
        scope = {res.var: ("binder", binder)}
    rid = r.rule("game", f"game {res.kind}" + (f" by {res.subject_kind}" if binder else ""), res.tags, res.span)
    results.append((res.kind, rid))
    cond = r.cond(res.cond, scope)
    done = T.Assign(FLAG, None, T.Const(True, BOOL, res.span), None, res.span)
    test = T.Logic("and", T.Not(between(res.span), BOOL, res.span), cond, BOOL, res.span)
    block = T.Block(r.stmts(res.body, scope, Ctx()) + tuple(fresh) + (done,), rid, res.span)
    judged = T.If(((test, (block,)),), (), None, res.span)
    if binder is not None:  # the first player (team) in seat order whose condition holds
        every = r.call(bi.NAMES["players" if res.subject_kind == "player" else "teams"], (), res.span, Ctx())
        judged = T.Forall(binder, T.SetDom(every, res.span), (judged,), None, res.span)
    return judged


def actions(r, vars_) -> tuple:
    """The match's own actions, and `next_game`."""
    m = r.match_decl
    if m is None:
        return ()
    out = [r.action(d) for d in m.actions]
    if len(m.starts) > 1:
        r.error(Code.DEFINED_TWICE, "`game starts` is declared twice", m.starts[1].span, f"the first is at {m.starts[0].span}")
    start = m.starts[0] if m.starts else None
    span = start.span if start else m.span
    params, body = [], []
    guard = between(span)
    if start is not None:
        if start.cond is not None:
            guard = T.Logic("and", guard, r.cond(start.cond), BOOL, span)
        body.extend(r.stmts(start.body, {}, Ctx()))
    match_vars = {d.name for d in match_variables(m)}
    for v in vars_:
        if v.name in match_vars or v.is_choice or v.init is not None:  # (those restart when the game ends)
            continue
        body.extend(restart(r, v, params, span))
    body.append(T.Assign(FLAG, None, T.Const(False, BOOL, span), None, span))
    if any(a.name == NEXT_GAME for a in out) or any(d.name == NEXT_GAME for d in r.decls
                                                    if isinstance(d, sx.ActionDecl)):
        r.error(Code.DEFINED_TWICE, "`next_game` names the step that starts the next game of the match", span,
                "give the action another name")
    rid = r.rule("action", NEXT_GAME, start.tags if start else m.tags, span)
    out.append(T.Action(NEXT_GAME, tuple(params), guard, tuple(body), True, False, rid, span))
    return tuple(out)


def restart(r, v: T.VarInfo, params: list, span) -> list:
    """Statements that give game variable `v` its initial value again (a parameter of the
    step, added to `params`, for a value that starts at `any`)."""
    if v.init is not None:
        return [_again(r, v, span)]
    ty = v.type
    if v.index is not None or ty.kind == "set" or ty.optional:
        r.error(Code.TYPE_MISMATCH, f"game variable {v.name} starts at `any`, which a new game cannot repeat for this type",
                v.span, "give it an initial value, or declare it inside `match { }` if it belongs to the match")
        return []
    p = r.fresh(v.name, INT if ty.kind == "bool" else ty, v.span)
    if ty.kind == "bool":
        dom = T.RangeDom(T.Const(0, INT, span), T.Const(1, INT, span), span)
        value = T.Compare("==", T.BinderRef(p.uid, p.name, INT, span), T.Const(1, INT, span), BOOL, span)
    elif ty.kind in ("player", "team"):
        dom = T.SetDom(r.call(bi.NAMES["players" if ty.kind == "player" else "teams"], (), span, Ctx()), span)
        value = T.BinderRef(p.uid, p.name, ty, span)
    elif ty.kind == "int":
        dom, value = T.RangeDom(v.low, v.high, span), T.BinderRef(p.uid, p.name, ty, span)
    else:
        dom = T.SetDom(T.SetLit(tuple(T.Const(i, ty, span) for i in range(len(ty.members))), set_of(ty), span), span)
        value = T.BinderRef(p.uid, p.name, ty, span)
    params.append((p, dom))
    return [T.Assign(v.name, None, value, None, span)]


def _again(r, v: T.VarInfo, span):
    """`v := INIT`, or for every index `v[i] := INIT` with the declaration's own index binder."""
    value = v.init
    if v.index is None:
        return T.Assign(v.name, None, value, None, span)
    b = v.index.binder
    if v.index.kind in ("player", "team"):
        dom = T.SetDom(r.call(bi.NAMES["players" if v.index.kind == "player" else "teams"], (), span, Ctx()), span)
    elif v.index.kind == "int":
        dom = T.RangeDom(v.index.low, v.index.high, span)
    else:
        dom = T.SetDom(T.SetLit(tuple(T.Const(i, b.type, span) for i in range(len(v.index.members))),
                                set_of(b.type), span), span)
    return T.Forall(b, dom, (T.Assign(v.name, T.BinderRef(b.uid, b.name, b.type, span), value, None, span),),
                    None, span)
