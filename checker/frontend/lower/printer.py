"""What the lowerings produced, as spec-like text: a typed model's variables and actions
(their bodies with the phase chain and the game's results), its phase cycles and its match.

For reading and for golden files (tests/golden/lower/), not for parsing back: blocks are
written `do ... end` with the rule they cite in a comment, binders by their names (two may
share one; the parameter of `next_game` that starts a variable at each of its values bears the
variable's name, as the engines show it: `level := level;`), and every expression with the
parentheses its operators need. Rule ids are
printed, so a change in how rules are numbered shows as a change of the text.
"""
from __future__ import annotations

from .. import builtins as bi
from .. import typed as T

INDENT = "  "

# how tightly an operator binds, as in the grammar (higher binds tighter)
_IMPLIES, _OR, _AND, _NOT, _COMPARE, _SUM, _PRODUCT, _UNARY, _ATOM = range(1, 10)
_LOGIC = {"implies": _IMPLIES, "or": _OR, "and": _AND}
_SETOP = {"union": "+", "diff": "-"}


def render(model: T.Model) -> str:
    """The lowered model `model` as spec-like text."""
    lines = [f"# {model.name}"]
    lines += [_var(v) for v in model.vars]
    for c in model.phases:
        lines.append(f"# phases {c.name}{_tags(c.tags)}:")
        for p in c.phases:
            ends = f" ends when {expr(p.cond)}{_rule(model, p.rule)}" if p.cond is not None else " (never ends)"
            lines.append(f"#   {p.name}{_tags(p.tags)}{ends}")
    if model.match is not None:
        m = model.match
        lines.append(f"# match{_tags(m.tags)}: match variables {', '.join(m.match_vars)}; "
                     f"game variables {', '.join(m.game_vars) or '(none)'}")
        lines += [f"#   game {kind}{_rule(model, rid)}" for kind, rid in m.results]
    for a in model.actions:
        lines.append("")
        lines += _action(model, a)
    return "\n".join(lines) + "\n"


def _tags(tags) -> str:
    return f" [{', '.join(tags)}]" if tags else ""


def _rule(model: T.Model, rid: int | None) -> str:
    """`  # rule N: KIND "NAME" [tags]`, the rule a node cites (nothing when it cites none)."""
    if rid is None:
        return ""
    r = model.rules[rid]
    return f'  # rule {rid}: {r.kind} "{r.name}"{_tags(r.tags)}'


def _var(v: T.VarInfo) -> str:
    index = ""
    if v.index is not None:
        i = v.index
        dom = (f"{expr(i.low)}..{expr(i.high)}" if i.kind == "int" else
               "{" + ", ".join(i.members) + "}" if i.kind == "enum" else i.kind)
        index = f"({i.binder.name}: {dom})"
    ty = v.type
    if ty.kind == "int":
        shown = f"{expr(v.low)}..{expr(v.high)}" if v.low is not None else "number"
        shown += f" in steps of {expr(v.step)}" if v.step is not None else ""
    elif ty.kind in ("player", "team"):
        shown = ty.kind + ("?" if ty.optional else "")
    elif ty.kind == "set":
        shown = f"set {ty.elem.kind}"
    elif ty.kind == "enum":
        shown = "{" + ", ".join(ty.members) + "}"
    else:
        shown = ty.kind  # bool (or error)
    keyword = "choice" if v.is_choice else "var"
    init = "" if v.is_choice else f" = {expr(v.init)}" if v.init is not None else " = any"
    return f"{keyword} {v.name}{index}{_tags(v.tags)}: {shown}{init}"


def _action(model: T.Model, a: T.Action) -> list[str]:
    params = f"({', '.join(f'{b.name}: {_param_domain(d)}' for b, d in a.params)})" if a.params else ""
    flags = (" progress" if a.progress else "") + (" leave" if a.leave else "")
    lines = [f"action {a.name}{params}{flags} when {expr(a.guard)} do{_rule(model, a.rule)}"]
    lines += _stmts(model, a.body, 1)
    lines.append("end")
    return lines


def _param_domain(d) -> str:
    """A parameter's domain as a declaration writes it: `p: player` ranges over `players`."""
    if isinstance(d, T.SetDom) and isinstance(d.set, T.Call) and d.set.func in ("players", "teams") and not d.set.args:
        return d.set.func[:-1]
    return _domain(d)


def _stmts(model: T.Model, body, depth: int) -> list[str]:
    out = []
    for s in body:
        out += _stmt(model, s, depth)
    return out


def _stmt(model: T.Model, s, depth: int) -> list[str]:
    pad, rule = INDENT * depth, _rule(model, s.rule)
    match s:
        case T.Assign():
            place = s.var + (f"[{expr(s.index)}]" if s.index is not None else "")
            return [f"{pad}{place} := {expr(s.value)};{rule}"]
        case T.LetStmt():
            return [f"{pad}let {s.binder.name} = {expr(s.value)};{rule}"]
        case T.OutcomeStmt():
            return [f"{pad}{s.kind}{' ' + expr(s.subject) if s.subject is not None else ''};{rule}"]
        case T.SignalStmt():
            return [f"{pad}signal {s.event}{'(' + expr(s.subject) + ')' if s.subject is not None else ''};{rule}"]
        case T.Block():
            return [f"{pad}do{rule}", *_stmts(model, s.body, depth + 1), f"{pad}end"]
        case T.Forall():
            return [f"{pad}forall {s.binder.name} in {_domain(s.domain)} do{rule}",
                    *_stmts(model, s.body, depth + 1), f"{pad}end"]
        case T.If():
            out = []
            for i, (cond, body) in enumerate(s.branches):
                out.append(f"{pad}{'if' if i == 0 else 'elif'} {expr(cond)} then{rule if i == 0 else ''}")
                out += _stmts(model, body, depth + 1)
            if s.otherwise:
                out.append(f"{pad}else")
                out += _stmts(model, s.otherwise, depth + 1)
            return out + [f"{pad}end"]
    raise AssertionError(f"not a typed statement: {s!r}")


def _domain(d) -> str:
    if isinstance(d, T.RangeDom):
        return f"{_at(d.low, _SUM)}..{_at(d.high, _SUM)}"
    return expr(d.set)


def expr(e) -> str:
    """A typed expression as the spec would write it."""
    match e:
        case T.Const():
            return _const(e)
        case T.PlayerName() | T.TeamName() | T.Param() | T.BinderRef():
            return e.name
        case T.VarRef():
            return e.name + (f"[{expr(e.index)}]" if e.index is not None else "")
        case T.Narrow():  # a `player?` read where a player is needed: the spec writes it plainly
            return expr(e.operand)
        case T.Not():
            return f"not {_at(e.operand, _NOT)}"
        case T.Neg():
            return f"-{_at(e.operand, _UNARY)}"
        case T.Logic():
            level = _LOGIC[e.op]
            if e.op == "implies":  # (right-associative)
                return f"{_at(e.left, level + 1)} implies {_at(e.right, level)}"
            return f"{_at(e.left, level)} {e.op} {_at(e.right, level + 1)}"
        case T.Compare():
            return f"{_at(e.left, _SUM)} {e.op} {_at(e.right, _SUM)}"
        case T.Member():
            return f"{_at(e.elem, _SUM)} {'not in' if e.negated else 'in'} {_at(e.set, _SUM)}"
        case T.Arith() | T.SetOp():
            op = _SETOP.get(e.op, e.op)
            level = _SUM if op in ("+", "-") else _PRODUCT
            return f"{_at(e.left, level)} {op} {_at(e.right, level + 1)}"
        case T.Ite():
            return f"if {expr(e.cond)} then {expr(e.then)} else {expr(e.other)} end"
        case T.SetLit():
            return "{" + ", ".join(expr(x) for x in e.items) + "}"
        case T.SetComp():
            return f"{{{expr(e.elem)} | {e.binder.name} in {_domain(e.domain)}: {expr(e.cond)}}}"
        case T.Quant():
            return f"{e.kind} {e.binder.name} in {_domain(e.domain)}: {expr(e.body)}"
        case T.Aggregate():
            return f"{e.kind}({e.binder.name} in {_domain(e.domain)}: {expr(e.body)})"
        case T.Call():
            b = bi.BY_KEY[e.func]
            return b.name if not b.params else f"{b.name}({', '.join(expr(a) for a in e.args)})"
    raise AssertionError(f"not a typed expression: {e!r}")


def _level(e) -> int:
    match e:
        case T.Quant():  # its body runs as far as it can: it stands alone or in parentheses
            return 0
        case T.Logic():
            return _LOGIC[e.op]
        case T.Not():
            return _NOT
        case T.Compare() | T.Member():
            return _COMPARE
        case T.Arith() | T.SetOp():
            return _SUM if _SETOP.get(e.op, e.op) in ("+", "-") else _PRODUCT
        case T.Neg():
            return _UNARY
        case T.Narrow():
            return _level(e.operand)
    return _ATOM


def _at(e, level: int) -> str:
    """`e` where an operand binding at least as tightly as `level` stands."""
    text = expr(e)
    return f"({text})" if _level(e) < level else text


def _const(e: T.Const) -> str:
    ty = e.type
    if ty.kind == "bool":
        return "true" if e.value else "false"
    if ty.kind in ("none", "player", "team"):  # the only constant of a player or team type is none
        return "none"
    if ty.kind == "enum":
        return ty.members[e.value]
    if ty.kind == "error":
        return "<error>"
    return str(e.value)
