"""The lowerings: constructs of the language turned into plain variables, statements and
actions, so that the engines (the closures, the compiled successors, Z3) run one definition
and know nothing of them.

- `match` (docs/language.md, "A match of games"): `between_games`, game actions guarded by
  it, the game's results judged at the end of every step, a generated `next_game`;
- `phases` (docs/language.md, "Phases"): the phase variable, and the chain of phase ends at
  the end of every action's body.

Each lowering is a module of plain functions that the resolve pass calls with the resolver
(`r`), whose services type the parts the writer wrote (conditions, bodies) while the lowering
builds what stands around them. They run in this order, which numbers variables, binders and
rules as the engines have always seen them:
1. `match.declare`: the match's variables, before every other (a game's initial values read them);
2. `phases.declare`: the phase variables, after the variables declared in the model;
3. `phases.lower`: the phase chain, once the variables are typed;
4. `match.game_results`: the game's results, which follow the chain in every step;
5. `match.end_of_step` for each action as it is typed, then `match.actions`: `next_game` last.
Each module's docstring says why it builds typed IR rather than syntax. `printer.render` shows
what they produced, as spec-like text (tests/golden/lower/ holds examples).
"""
