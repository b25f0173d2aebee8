"""The lark parse tree -> `checker.frontend.syntax` nodes: `ToIR`, one Transformer.

Lark calls the method named after each grammar rule, bottom-up, so the Transformer must be
one class; it is put together from mixins, one per part of the language, each in its own
module:

- `to_syntax_decls.Declarations`: the file's structure, composition, and the declarations
  that set a game up (parameters, players, state, named conditions);
- `to_syntax_rules.Rules`: actions, outcome rules, triggers, phases, matches, expectations;
- `to_syntax_stmts.Statements`: statements;
- `to_syntax_exprs.Expressions`: expressions.

Their shared base, `to_syntax_base.SyntaxBuilder`, holds the file name and the tag-list
helpers. No two mixins define the same method: which one comes first never matters.
"""
from __future__ import annotations

from lark import v_args

from .to_syntax_decls import Declarations
from .to_syntax_exprs import Expressions
from .to_syntax_rules import Rules
from .to_syntax_stmts import Statements


@v_args(meta=True)
class ToIR(Declarations, Rules, Statements, Expressions):
    """Builds the syntax nodes of one file (`file` names it in every span)."""
