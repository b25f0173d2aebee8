"""One front end: every static error before anything is explored, a typed IR both engines
read, and engines that never disagree silently."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx
import pytest

from checker import engine
from checker.cli import main
from checker.explicit import codegen
from checker.explicit import compile as explicit
from checker.frontend import builtins, dispatch, typed
from checker.frontend.diagnostics import Code
from checker.outputs import report
from checker.symbolic import encode
from checker.analyses.verdicts import CONFIRMED

ROOT = Path(__file__).resolve().parent.parent

THREE_NAMES_TWO_FORMATS = """
spec "static" formalizes "static.txt"
players 2
var x: 0..3 = 0
expect deadlok "a misspelt kind"
format one {
  action a when y > 0 do x := 1; end
}
format two {
  action b when z > 0 do x := w; end
}
"""


def test_every_static_error_of_every_format_comes_at_once_and_nothing_is_explored(tmp_path, capsys):
    spec = tmp_path / "static.rw"
    spec.write_text(THREE_NAMES_TWO_FORMATS, encoding="utf-8")
    res = engine.check([str(spec)])
    assert res.exit_code() == 2
    assert res.instances == []  # nothing explored
    got = sorted((d.code, d.span.line, d.span.col, d.context) for d in res.diagnostics)
    assert got == [("E010", 7, 17, "format one"), ("E010", 10, 17, "format two"), ("E010", 10, 31, "format two"),
                   ("E020", 5, 1, "format one")]
    assert main(["check", str(spec)]) == 2
    err = capsys.readouterr()
    text = err.out + err.err
    assert "`y` is not defined (in format one)" in text and "`w` is not defined (in format two)" in text
    assert "did you mean `deadlock`?" in text


def test_an_error_in_one_file_stops_every_file_before_exploration(tmp_path):
    good = tmp_path / "good.rw"
    good.write_text("players 2\nvar x: 0..1 = 0\naction a progress when x == 0 do x := 1; end\n", encoding="utf-8")
    bad = tmp_path / "bad.rw"
    bad.write_text("players 2\naction a when nope do end\n", encoding="utf-8")
    res = engine.check([str(good), str(bad)])
    assert res.exit_code() == 2 and res.instances == []


def test_a_player_name_that_exists_only_for_some_parameter_values_is_reported_per_instance(tmp_path):
    spec = tmp_path / "p.rw"
    spec.write_text("param N in 3..4\nplayers N\nvar t: player = P4\n", encoding="utf-8")
    res = engine.check([str(spec)])
    (d,) = res.diagnostics
    assert d.code == "E010" and "`P4` is not a player of this instance" in d.message and "N=3" in d.context


def test_an_initial_value_may_only_read_variables_declared_before_it(tmp_path):
    spec = tmp_path / "p.rw"
    spec.write_text("players 2\nvar a: player = b\nvar b: player = P1\n", encoding="utf-8")
    (d,) = engine.check([str(spec)]).diagnostics
    assert d.code == "E013" and "declared later" in d.message


def test_none_is_not_a_player_where_the_type_shows_it(tmp_path):
    spec = tmp_path / "p.rw"
    spec.write_text("players 2\nvar t: player = P1\naction a do t := next(none); end\n", encoding="utf-8")
    (d,) = engine.check([str(spec)]).diagnostics
    assert d.code == "E013" and "`none` is not one" in d.message


def test_an_inner_binder_may_reuse_an_outer_name_and_both_engines_agree(tmp_path):
    # issue 6: a team binder outside and a player binder of the same name inside
    spec = tmp_path / "p.rw"
    spec.write_text("""teams A, B size 2
var hits: 0..3 = 0
action knock progress when in_game(A1) do lose A1; end
action go progress when hits < 3 and (exists t in teams: t == A and (exists t in players: in_game(t)) and in_game(t)) do
  hits := hits + 1;
end
invariant small: hits < 2
""", encoding="utf-8")
    res = engine.check([str(spec)])
    assert res.diagnostics == [] and res.disagreements == []
    (inv,) = [f for f in res.findings if f.kind == "invariant"]
    assert inv.replay == CONFIRMED


# ---------------------------------------------------------------- one IR, three engines

# The engines: (name, walker class, prefix of expression handlers, built-ins it may leave out)
ENGINES = [("closures", explicit.Compiler, "e_", frozenset()),
           ("generated successors", codegen.Generator, "x_", builtins.STEP_ONLY),
           ("Z3", encode.Encoder, "z_", frozenset())]


@pytest.mark.parametrize("kind", [k.__name__ for k in typed.EXPR_KINDS])
@pytest.mark.parametrize("engine_name, walker, prefix, _", ENGINES, ids=[e[0] for e in ENGINES])
def test_every_expression_kind_is_handled_by_every_engine(kind, engine_name, walker, prefix, _):
    assert callable(getattr(walker, prefix + kind, None)), f"{engine_name} has no {prefix}{kind}"


def test_every_statement_kind_is_handled_by_every_engine():
    names = {k.__name__ for k in typed.STMT_KINDS}
    assert names <= {n[2:] for n in dir(explicit.Compiler) if n.startswith("s_")}
    assert names <= {n[2:] for n in dir(codegen.Generator) if n.startswith("s_")}
    assert names - {"LetStmt"} <= {n[2:] for n in dir(encode.Encoder) if n.startswith("s_")}
    assert "T.LetStmt" in (ROOT / "checker/symbolic/statements.py").read_text()  # Z3's block walker binds it


def test_every_built_in_is_implemented_by_every_engine():
    for _, walker, _, exempt in ENGINES:
        assert {k for k in builtins.BY_KEY if callable(getattr(walker, "b_" + k, None))} | exempt == set(builtins.BY_KEY)
    assert explicit.handled_builtins() == set(builtins.BY_KEY)
    assert encode.handled_builtins() == set(builtins.BY_KEY)


@pytest.mark.parametrize("walker, prefix", [(explicit.Compiler, "e_"), (codegen.Generator, "x_"), (encode.Encoder, "z_")])
def test_an_engine_missing_a_handler_stops_at_its_dispatch_table(walker, prefix):
    for kind in typed.EXPR_KINDS:
        crippled = type("Crippled", (walker,), {prefix + kind.__name__: None})
        with pytest.raises(dispatch.Unhandled, match=prefix + kind.__name__):
            dispatch.by_kind(crippled, prefix, typed.EXPR_KINDS)
    crippled = type("Crippled", (walker,), {"b_left": None})
    with pytest.raises(dispatch.Unhandled, match="b_left"):
        dispatch.by_builtin(crippled, "b_", builtins.BY_KEY)


def test_every_typed_node_kind_has_children_for_walks():
    for kind in typed.KINDS:
        assert kind.__name__ in (ROOT / "checker/frontend/typed.py").read_text()


# ---------------------------------------------------------------- layout

def _imports(path: Path) -> set[str]:
    """The checker modules `path` imports (module level or inside functions), as dotted names."""
    pkg = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = pkg.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            if base.startswith("checker"):
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    out.add(full if (ROOT / Path(*full.split("."))).with_suffix(".py").exists() else base)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("checker"))
    return out


def _import_graph() -> nx.DiGraph:
    g = nx.DiGraph()
    for path in (ROOT / "checker").rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        g.add_node(name)
        for target in _imports(path):
            if target != name:
                g.add_edge(name, target)
    return g


def test_there_are_no_import_circles():
    cycles = [c for c in nx.simple_cycles(_import_graph()) if not any(n.endswith("__init__") for n in c)]
    assert cycles == []


def test_the_explicit_and_symbolic_engines_never_import_each_other_and_the_front_end_imports_neither():
    g = _import_graph()
    for a, b in g.edges:
        assert not (a.startswith("checker.explicit") and b.startswith("checker.symbolic")), (a, b)
        assert not (a.startswith("checker.symbolic") and b.startswith("checker.explicit")), (a, b)
        if a.startswith("checker.frontend"):
            assert b.startswith("checker.frontend") or b == "checker", (a, b)


def test_every_error_code_is_named_from_the_one_table():
    # a code written as a literal could be missing from the table (E018 once was: its SARIF
    # results pointed at the rule of syntax errors)
    literals = []
    for path in (ROOT / "checker").rglob("*.py"):
        if path.name == "diagnostics.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(r"E\d{3}", node.value):
                literals.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert literals == []
    assert len({c.value for c in Code}) == len(Code) and all(c.description for c in Code)


# The pipeline's floors, lowest first: a module imports only from its own floor or below.
FLOORS = [("checker.frontend",), ("checker.explicit", "checker.symbolic"), ("checker.analyses",),
          ("checker.engine",), ("checker.diff", "checker.migrate"), ("checker.outputs", "checker.lsp"), ("checker.cli",)]


def _floor(module: str) -> int | None:
    for i, names in enumerate(FLOORS):
        if any(module == n or module.startswith(n + ".") for n in names):
            return i
    return None  # limits, files, runner...: helpers beside the pipeline


def test_no_import_runs_back_up_the_pipeline():
    back = [(a, b) for a, b in _import_graph().edges
            if _floor(a) is not None and _floor(b) is not None and _floor(b) > _floor(a)]
    assert back == []


def test_each_transformer_method_is_defined_once_and_reads_the_node_position():
    # ToIR is one lark Transformer put together from mixins: a rule's method defined in two of
    # them would depend on their order, and lark's v_args wraps only the methods a class defines
    # itself, so a mixin without the decorator would get its children without `meta`
    from checker.frontend.to_syntax import ToIR
    parts = [c for c in ToIR.__mro__ if c.__module__.startswith("checker.frontend.to_syntax")]
    assert len(parts) > 2
    where: dict[str, list[str]] = {}
    for part in parts:
        for name, value in vars(part).items():
            if not name.startswith("_") and callable(value):
                where.setdefault(name, []).append(part.__name__)
                assert getattr(value, "visit_wrapper", None) is not None, (part.__name__, name)
    assert {n: ps for n, ps in where.items() if len(ps) > 1} == {}
    assert {"start", "action_decl", "assign", "ite", "tags"} <= set(where)


# ---------------------------------------------------------------- disagreement is never silent

def test_a_counterexample_the_replay_rejects_is_a_disagreement_with_its_own_exit_code(monkeypatch, capsys):
    # a deliberately wrong symbolic `left`: the replay must refuse the explorer's trace
    monkeypatch.setitem(encode._BUILTIN, "left", lambda self, e, a, st: (a[0] + a[1] + 1) % self.n)
    res = engine.check(["tests/fixtures/never-active/play-defect.rw"])
    assert res.disagreements and not any(f.kind == "never-active" for f in res.findings)
    assert res.exit_code() == 4
    text = report.text(res)
    assert "ENGINES DISAGREE" in text and "The replay's view: step" in text
    # in the spec's values, as the traces show them, not Z3's numbers
    assert re.search(r"turn is P\d in the replay but P\d in the explorer", text), text
    assert "result: the engines disagree" in text
