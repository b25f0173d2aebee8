"""The value types of the language, as the resolve pass assigns them and every engine reads them.

A type never depends on a parameter's value: `0..N` is `int` here; the bounds of a variable's
range are expressions the instance evaluates (`checker.frontend.instances`).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Step:
    """`in steps of K` (docs/language.md, "Large numbers"): numbers the model counts in steps of
    K. `value` is K as a typed constant expression (steps written alike are the same step);
    `text` is how the spec wrote it, for messages."""
    value: object
    text: str = field(default="", compare=False)
    # `rounding down|up|nearest`: an amount no multiple of the step is rounded (the writer's
    # claim, reported under every finding); "": it is an error. Numbers of steps alike but
    # rounded otherwise do not mix.
    rounding: str = ""


@dataclass(frozen=True)
class Ty:
    kind: str  # bool | int | player | team | enum | set | none
    optional: bool = False  # `player?`: a player or none
    members: tuple[str, ...] = ()  # enum members, in declaration order
    elem: Ty | None = None  # the element type of a set
    step: Step | None = None  # an int counted in steps of K (the engines read it in steps)

    def __str__(self) -> str:
        if self.kind == "int" and self.step is not None:
            return f"number in steps of {self.step.text}" + (f" rounding {self.step.rounding}" if self.step.rounding else "")
        if self.kind in ("player", "team") and self.optional:
            return f"{self.kind} or none"
        if self.kind == "enum":
            return "{" + ", ".join(self.members) + "} value"
        if self.kind == "set":
            return f"set of {_plural(self.elem)}"
        return {"int": "number", "bool": "boolean"}.get(self.kind, self.kind)


def _plural(t: Ty | None) -> str:
    if t is None:
        return "values"
    if t.kind == "enum":
        return "{" + ", ".join(t.members) + "} values"
    return {"int": "numbers", "player": "players", "team": "teams"}.get(t.kind, str(t) + "s")


BOOL = Ty("bool")
INT = Ty("int")
PLAYER = Ty("player")
OPT_PLAYER = Ty("player", optional=True)
TEAM = Ty("team")
OPT_TEAM = Ty("team", optional=True)
NONE = Ty("none")  # the type of the literal `none`; becomes `player?` where it meets a player
PLAYERS = Ty("set", elem=PLAYER)
TEAMS = Ty("set", elem=TEAM)
INTS = Ty("set", elem=INT)
ERROR = Ty("error")  # the resolver's placeholder after an error: fits anywhere, so one mistake gives one message


def enum(members: tuple[str, ...]) -> Ty:
    return Ty("enum", members=tuple(members))


def set_of(elem: Ty) -> Ty:
    return Ty("set", elem=Ty(elem.kind, members=elem.members))  # a set never holds `none`


def join(a: Ty, b: Ty) -> Ty | None:
    """The type both values fit in (`if` branches, `==`), or None if they never compare."""
    if a == b:
        return a
    kinds = {a.kind, b.kind}
    if kinds <= {"player", "none"}:
        return OPT_PLAYER
    if kinds <= {"team", "none"}:
        return OPT_TEAM
    return None


def accepts(target: Ty, value: Ty) -> str:
    """Can a value of type `value` go where `target` is wanted? "" yes, "narrow" if only at run
    time (a `player?` where a player is needed, or a `team?` where a team is: none is then an
    evaluation error), "no" if never."""
    if target == value:
        return ""
    if target.kind in ("player", "team"):
        if value.kind == "none":
            return "" if target.optional else "no"
        if value.kind == target.kind:
            return "" if target.optional or not value.optional else "narrow"
    return "no"
