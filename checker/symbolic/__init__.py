"""The symbolic engine: the semantics of the typed IR over Z3 terms, written independently of
the explicit engine (the two never import each other; `checker.frontend` is all they share).

The passes, each a module, in the order they build on one another:
- `terms`: values as terms, `SymSet`, the symbolic state of a step and `merge`;
- `encode` (with its mixins `statements` and `builtins`): expressions and statements as terms;
- `outcomes`: outcome resolution and triggers after a step's body;
- `setup`: the setup rules: contradictions with minimal unsat cores, `possible` properties,
  every setup, whether a concrete initial state is one;
- `replay`: a counterexample re-executed one concrete step at a time;
- `bmc`: the transition relation unrolled for bounded model checking (the differential tests
  compare it with the explorer);
- `horn`: the setup and one transition as constrained Horn clauses, solved by Spacer with
  unbounded integers (the proofs of checker.analyses.unbounded);
- `ranking`: linear ranking functions over one transition, found by CEGIS with Spacer's
  invariants as support: forced loops, livelocks and unbounded procedures proved absent.
"""
