"""Which words of the grammar are reserved and which are soft keywords, computed from the grammar.

Every word the grammar spells out in quotes is a keyword (`grammar.keywords()`). Most are
reserved: they start a declaration, a statement or an expression, or join expressions (`and`,
`then`, `end`), so a name spelt like them could not be told apart. A soft keyword is spelt only
in one fixed place of a declaration (`precedence a over b`, `winners one`, `in steps of 100`,
`game won by player p`), and the grammar's `_name` rule accepts it wherever a name may stand,
so a spec may call a variable `over` or a parameter `by`. The parser's tables prove each one
safe: adding them to `_name` adds no LALR conflict (tests/test_syntax_errors.py checks it and
parses every soft keyword in every place a name may stand).

The aggregate words (`count`, `sum`, `min`, `max`, `argmin`, `argmax`) are read as names in an
expression when no `(` follows, so that `var count` is refused where it is declared (a built-in,
`resolver/names.py`) rather than at its first use; they stay reserved.

docs/language.md lists both from these functions.
"""
from __future__ import annotations

from functools import lru_cache

from . import builtins as bi
from .grammar import keywords, lark_parser


def _words_of(rule: str) -> frozenset[str]:
    """The keywords that the grammar rule `rule` accepts as its whole expansion."""
    parser = lark_parser()
    out = set()
    for r in parser.rules:
        if r.origin.name != rule or len(r.expansion) != 1:
            continue
        pattern = parser.get_terminal(r.expansion[0].name).pattern
        if pattern.type == "str" and pattern.value in keywords():
            out.add(pattern.value)
    return frozenset(out)


@lru_cache(maxsize=1)
def aggregate_words() -> tuple[str, ...]:
    """`count`, `sum`, ...: aggregates, built-ins that no declaration may take as its name."""
    return tuple(sorted(_words_of("_agg_word")))


@lru_cache(maxsize=1)
def soft_keywords() -> tuple[str, ...]:
    """Keywords that may name a variable, let, parameter, binder or action, sorted."""
    builtin = set(bi.NAMES) | set(bi.FUNCTIONS) | set(aggregate_words())
    return tuple(sorted(_words_of("_name") - builtin))


@lru_cache(maxsize=1)
def reserved_words() -> tuple[str, ...]:
    """Keywords that can never be a name, sorted."""
    return tuple(sorted(keywords() - set(soft_keywords())))
