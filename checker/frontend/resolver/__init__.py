"""The parts of the resolve pass (`checker.frontend.resolve`), one concern a module.

`Resolver` (in `checker.frontend.resolve`) is assembled from the mixins here: `names` (the
tables of declared names, scopes, diagnostics, rule ids), `exprs` (expressions and their
types), `calls` (built-in functions, lets expanded where used, outcome polarity), `stmts`
(statements, routines, assignments to places), `decls` (one declaration at a time) and
`model` (the whole model, in the order that numbers binders and rules). The lowerings of
phases and matches live in `checker.frontend.lower`. A mixin reaches the others only through
`self`, so none imports another and the order of the bases does not matter.
"""
