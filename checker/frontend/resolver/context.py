"""What every part of the resolve pass shares: where an expression stands (`Ctx`), the
placeholder type after an error, and the limits on expanding lets."""
from __future__ import annotations

from dataclasses import dataclass

from ..types import ERROR, Ty  # noqa: F401 (ERROR: the resolver modules import it from here)

MAX_LET_NESTING = 32  # lets expanded inside each other (each level is a level of every engine's recursion)
MAX_EXPANDED_DEPTH = 160  # levels of one expression with its lets expanded (every engine recurses per level)
MAX_LET_USES = 20_000  # uses of lets expanded in one model (lets that use lets twice grow exponentially)




@dataclass(frozen=True)
class Ctx:
    """Where an expression stands."""
    const: str = ""  # "" state may be read; "params": parameters only; "sizes": also nplayers & co
    phase: str = ""  # lose | win | draw | finish | cannot_lose | cannot_win inside an outcome rule's condition
    init_of: int = -1  # inside the initial value of variable number init_of: only earlier ones
    play: bool = True  # False where only the setup is read (init, constraint, initial values)
    step: bool = False  # inside an outcome rule or a trigger: lost_now() has a step to refer to
