"""Which names play reads: what the explorer must enumerate, and what it may leave to Z3.

Computed on the syntax before anything is typed (`Resolver.dynamic`), so that a variable
reference knows at once whether it reads a static choice.
"""
from __future__ import annotations

from .. import syntax as sx


def dynamic_names(decls, lets) -> set[str]:
    """Names read by anything that runs during play (lets followed through), and the choices a
    constraint ties to them.

    A choice nothing of the play reads is left to Z3 (static): the explorer neither enumerates
    it nor evaluates the constraints that read it. A constraint that reads such a choice and
    also a variable (or a choice the play reads) constrains the explored state through it
    (`x == c and c == 0`), so the explorer would start from states no setup admits: its
    choices are explored too, until no constraint ties a static choice to an explored name.
    What stays static is then independent of the explored state, and the contradiction check
    alone decides whether some value of it satisfies its constraints."""
    roots = [d for d in decls if isinstance(d, (sx.ActionDecl, sx.OutcomeDecl, sx.TriggerDecl, sx.ActiveDecl,
                                                sx.ProcedureDecl, sx.EndsDecl, sx.InvariantDecl, sx.ReachableDecl,
                                                sx.InitDecl, sx.PhasesDecl, sx.WhenPhaseDecl, sx.OpponentsDecl,
                                                sx.MatchDecl, sx.StateBasedDecl))]  # (these run in play too)
    roots += [d.init for d in decls if isinstance(d, sx.VarDecl) and d.init is not None]
    found = names_read(roots, lets)
    choices = {d.name for d in decls if isinstance(d, sx.VarDecl) and d.is_choice}
    variables = {d.name for d in decls if isinstance(d, sx.VarDecl) and not d.is_choice}
    constraints = [names_read([d.cond], lets) for d in decls if isinstance(d, sx.ConstraintDecl)]
    grown = True
    while grown:
        grown = False
        explored = variables | (choices & found)
        for names in constraints:
            if names & explored and names & choices - found:
                found |= names & choices
                grown = True
    return found


def names_read(roots, lets) -> set[str]:
    """Every name the nodes `roots` read or assign, through the lets they call."""
    found: set[str] = set()
    todo = list(roots)
    seen_lets: set[str] = set()
    while todo:
        node = todo.pop()
        for n in sx.walk(node):
            if isinstance(n, sx.Assign):
                found.add(n.target)
                if n.target in lets and n.target not in seen_lets:  # a let place: the variable it names
                    seen_lets.add(n.target)
                    todo.append(lets[n.target].body)
            name = n.name if isinstance(n, (sx.Name, sx.Index)) else n.func if isinstance(n, sx.Call) else None
            if name is None:
                continue
            found.add(name)
            if name in lets and name not in seen_lets:
                seen_lets.add(name)
                todo.append(lets[name].body)
    return found
