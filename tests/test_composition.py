"""Composition without copying: includes in formats and readings, labelled statements that a
reading replaces, readings shared by several formats, removing an inherited declaration, and
ambiguities whose readings combine. Each says once what a copy would have said twice; the
tests state what model each composition yields and what each mistake is told."""
from __future__ import annotations

from checker import engine
from checker.frontend import syntax as sx
from checker.frontend.compose import compose
from checker.frontend.parser import parse_file

BASE = """spec "c" formalizes "c.txt"
document {
  1: "two players"
  2: "a hit costs one life"
  3: "a player at 0 life loses"
  4: "the other wins"
}
players [1] 2
var life(p: player) [2]: 0..2 = 2
var turn [1]: player = P1
action hit(q: player) [2] progress when q != turn and life[q] > 0 do
  cost: [2] life[q] := life[q] - 1;
  pass: turn := next(turn);
end
outcome zero [3]: lose player p when life[p] == 0
outcome last [4]: win player p when in_game(p) and forall q in opponents(p): lost(q)
"""


def _spec(tmp_path, text, name="c.rw", **others):
    for fname, content in others.items():
        (tmp_path / fname.replace("__", ".")).write_text(content, encoding="utf-8")
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _models(path):
    composed, diags = compose(parse_file(path))
    assert diags == []
    return {(f, r): decls for f, r, decls in composed}


def _action(decls, name):
    (a,) = [d for d in decls if isinstance(d, sx.ActionDecl) and d.name == name]
    return a


def _errors(path):
    res = engine.check([path])
    return [(d.code, d.message) for d in res.diagnostics]


# ---------------------------------------------------------------- labels and replace

def test_a_label_names_a_statement_and_is_gone_once_composed(tmp_path):
    (decls,) = _models(_spec(tmp_path, BASE)).values()
    body = _action(decls, "hit").body
    assert [type(s).__name__ for s in body] == ["Assign", "Assign"]
    assert body[0].tags == ("2",)


def test_a_reading_replaces_one_labelled_statement_and_keeps_the_rest(tmp_path):
    path = _spec(tmp_path, BASE + """
reading as_written { }
reading double "a hit costs two life" {
  replace hit.cost do
    [2] life[q] := max(life[q] - 2, 0);
  end
}
""")
    models = _models(path)
    plain, double = _action(models[("", "as_written")], "hit"), _action(models[("", "double")], "hit")
    assert plain.body[1] == double.body[1]  # the turn still passes: nothing else was restated
    assert "max" in repr(double.body[0]) and "max" not in repr(plain.body[0])
    res = engine.check([path])
    assert res.diagnostics == [] and res.disagreements == []


def test_a_label_in_a_nested_block_can_be_replaced_by_several_statements_or_none(tmp_path):
    path = _spec(tmp_path, BASE.replace("  pass: turn := next(turn);",
                                        "  if life[q] > 0 then\n    pass: turn := next(turn);\n  end") + """
reading stays { replace pass do end }
""")
    hit = _action(_models(path)[("", "stays")], "hit")
    assert hit.body[1].branches[0][1] == ()


def test_replacing_an_unknown_label_names_the_labels_there_are(tmp_path):
    path = _spec(tmp_path, BASE + "reading r { replace hit.cots do end }\n")
    ((code, msg),) = _errors(path)
    assert code == "E040" and "no statement is labelled cots in hit" in msg
    (d,) = engine.check([path]).diagnostics
    assert d.hint == "did you mean `cost`?" and d.span.line == 17


def test_replacing_a_label_of_an_unknown_action_is_an_error(tmp_path):
    ((code, msg),) = _errors(_spec(tmp_path, BASE + "reading r { replace hot.cost do end }\n"))
    assert code == "E040" and "no action, routine or trigger hot" in msg


def test_a_label_two_declarations_use_must_be_qualified(tmp_path):
    path = _spec(tmp_path, BASE + "action again [2] when false do\n  cost: turn := turn;\nend\n"
                 "reading r { replace cost do end }\n")
    (d,) = engine.check([path]).diagnostics
    assert d.code == "E040" and "2 declarations" in d.message and d.hint == "write `replace hit.cost`"


def test_a_label_used_twice_in_one_action_is_an_error(tmp_path):
    path = _spec(tmp_path, BASE.replace("pass: turn", "cost: turn"))
    ((code, msg),) = _errors(path)
    assert code == "E011" and msg == "label cost is used twice in hit"


def test_a_label_in_a_routine_is_replaced_for_every_action_that_runs_it(tmp_path):
    path = _spec(tmp_path, BASE.replace("  pass: turn := next(turn);\n", "  end_turn();\n") + """
routine end_turn [1] do
  pass: turn := next(turn);
end
reading as_written { }
reading stays { replace end_turn.pass do end }
""")
    models = _models(path)
    (routine,) = [d for d in models[("", "stays")] if isinstance(d, sx.RoutineDecl)]
    assert routine.body == ()


PHASED = BASE + """
phases step [1] {
  main [1] ends when true
  ending [1] ends when true
}
"""


def test_a_label_in_a_block_without_a_name_is_checked_like_any_other(tmp_path):
    # two `when` blocks with one label: `replace` alone cannot tell them apart, and no owner can
    path = _spec(tmp_path, PHASED + "when main ends [1] do x: turn := turn; end\n"
                 "when ending ends [1] do x: turn := turn; end\nreplace x do end\n")
    (d,) = engine.check([path]).diagnostics
    assert d.code == "E040" and d.message == ("`replace x`: 2 declarations have a statement labelled x "
                                              "(`when main ends`, `when ending ends`)")
    assert d.hint == "give the statements labels of their own"
    path = _spec(tmp_path, PHASED + "when main ends [1] do\n  x: turn := turn;\n  x: turn := turn;\nend\n")
    ((code, msg),) = _errors(path)
    assert (code, msg) == ("E011", "label x is used twice in `when main ends`")


def test_a_reading_of_the_whole_match_overlaps_one_of_its_labelled_statements(tmp_path):
    match = ("match [4] {\n  var wins(p: player) [4]: 0..1 = 0\n"
             "  game won by player p [4] when life[next(p)] == 0 do won_one: wins[p] := 1; end\n}\n")
    path = _spec(tmp_path, BASE.replace("outcome last", "outcome two [4]: win player p when wins[p] == 1\noutcome last")
                 + match + """
ambiguity a [4] "?" { reading x { } reading y { replace won_one do end } }
ambiguity b [4] "?" { reading z { } reading w { """ + match + " } }\n")
    diags = engine.check([path]).diagnostics
    assert [(d.code, d.message) for d in diags] == [
        ("E041", "readings y and w both change match (statement won_one); combined, one would undo the other")]


# ---------------------------------------------------------------- remove

def test_a_format_removes_an_inherited_declaration(tmp_path):
    path = _spec(tmp_path, BASE + """
format duel "as written" { }
format no_hits "a format without hitting" {
  remove action hit
  action wait [1] progress do turn := next(turn); end
}
""")
    models = _models(path)
    names = lambda decls: [d.name for d in decls if isinstance(d, sx.ActionDecl)]  # noqa: E731
    assert names(models[("duel", "")]) == ["hit"] and names(models[("no_hits", "")]) == ["wait"]


def test_removing_what_is_not_there_is_an_error_with_the_closest_name(tmp_path):
    path = _spec(tmp_path, BASE + "format f { remove outcome zeor }\n")
    (d,) = engine.check([path]).diagnostics
    assert d.code == "E040" and "`remove outcome zeor`: there is no such declaration" in d.message
    assert d.hint == "did you mean `zero`?" and d.context == "format f"


def test_remove_of_a_declaration_without_a_name_takes_no_name(tmp_path):
    path = _spec(tmp_path, BASE + "winners many\nformat f { remove winners }\nformat g { remove winners x }\n")
    ((code, msg),) = _errors(path)
    assert code == "E040" and "a winners declaration has no name" in msg


def test_a_removed_choice_is_not_a_removed_variable(tmp_path):
    (d,) = engine.check([_spec(tmp_path, BASE + "format f { remove choice turn }\n")]).diagnostics
    assert d.code == "E040" and "remove choice turn" in d.message
    assert d.hint == "turn is a var: write `remove var turn`"


# ---------------------------------------------------------------- include in a format

def test_an_include_inside_a_format_brings_its_declarations_into_that_format_only(tmp_path):
    path = _spec(tmp_path, BASE + """
format plain { }
format shielded {
  include "shield.rwi"
}
""", shield__rwi='document {\n  5: "a shielded player cannot lose"\n}\n'
                 'outcome shield [5]: cannot lose player p when life[p] == 0 and p == P1\n')
    spec = parse_file(path)
    assert [i.id for i in spec.ids][-1] == "5" and spec.includes == (str(tmp_path / "shield.rwi"),)
    models = _models(path)
    outcomes = lambda decls: [d.name for d in decls if isinstance(d, sx.OutcomeDecl)]  # noqa: E731
    assert outcomes(models[("plain", "")]) == ["zero", "last"]
    assert outcomes(models[("shielded", "")]) == ["zero", "last", "shield"]


def test_one_block_declares_an_action_or_an_outcome_rule_once(tmp_path):
    # a layer replaces what is beneath it; within one block, both declarations used to stay
    # (two `pass` actions, and a `remove action pass` removed both)
    path = _spec(tmp_path, BASE + "outcome zero [3]: lose player p when life[p] < 0\n"
                                  "action hit(q: player) [2] progress when false do end\n")
    assert _errors(path) == [("E011", "outcome rule zero is declared twice"), ("E011", "action hit is declared twice")]


def test_an_included_declaration_and_the_formats_own_are_one_block(tmp_path):
    path = _spec(tmp_path, BASE + 'format f {\n  include "more.rwi"\n  winners many\n}\n', more__rwi="winners many\n")
    (d,) = engine.check([path]).diagnostics
    assert (d.code, d.message, d.span.line) == ("E011", "`winners` is declared twice", 19)
    assert "more.rwi:1:1" in d.hint


def test_a_format_replaces_a_declaration_of_the_file_and_a_precedence_for_players_is_its_own(tmp_path):
    path = _spec(tmp_path, BASE + "precedence lose over win\nprecedence lose over win for players\n"
                                  "format f {\n  action hit(q: player) [2] progress when false do end\n}\n")
    assert _errors(path) == []


VARIANT = """
format classic [1] "the format" {
  action concede [1] leave when in_game(turn) do lose turn; end
}
format quick [2] "a variant of the format: one life, no concession" extends classic {
  var life(p: player) [2]: 0..1 = 1
  remove action concede
  reading as_written { }
  reading slow { var life(p: player) [2]: 0..2 = 2 }
}
format quicker [2] "a variant of the variant" extends quick {
  replace hit.pass do end
}
"""


def test_a_format_that_extends_another_is_that_format_with_its_changes(tmp_path):
    models = _models(_spec(tmp_path, BASE + VARIANT))
    life = lambda decls: [d.init.value for d in decls if isinstance(d, sx.VarDecl) and d.name == "life"]  # noqa: E731
    actions = lambda decls: [d.name for d in decls if isinstance(d, sx.ActionDecl)]  # noqa: E731
    assert sorted(models) == [("classic", ""), ("quick", "as_written"), ("quick", "slow"), ("quicker", "")]
    assert actions(models[("classic", "")]) == ["hit", "concede"] and life(models[("classic", "")]) == [2]
    assert actions(models[("quick", "as_written")]) == ["hit"] and life(models[("quick", "as_written")]) == [1]
    assert life(models[("quick", "slow")]) == [2]
    # a variant of a variant: the declarations of the format it extends, not its readings
    quicker = models[("quicker", "")]
    assert actions(quicker) == ["hit"] and life(quicker) == [1]
    assert [type(s).__name__ for s in _action(quicker, "hit").body] == ["Assign"]  # `pass` replaced by nothing


def test_extending_an_unknown_format_or_a_loop_of_formats_is_an_error(tmp_path):
    path = _spec(tmp_path, BASE + VARIANT + "format b extends c { }\nformat c extends b { }\n"
                                            "format d extends d { }\nformat e extends quik { }\n")
    assert _errors(path) == [
        ("E040", "`format c extends b` closes a loop: b extends c extends b"),
        ("E040", "`format d extends d` closes a loop: d extends d"),
        ("E040", "`format e extends quik`: the file has no format quik")]
    assert "did you mean `quick`?" in engine.check([path]).diagnostics[-1].hint


def test_extends_is_still_a_name(tmp_path):
    path = _spec(tmp_path, BASE + "var extends [1]: 0..1 = 0\nformat f extends g { }\nformat g { }\n")
    assert _errors(path) == []


def test_an_include_inside_a_format_stays_inside_the_spec_tree(tmp_path):
    inner = tmp_path / "specs"
    inner.mkdir()
    (tmp_path / "outside.rwi").write_text("winners many\n", encoding="utf-8")
    path = _spec(inner, BASE + 'format f {\n  include "../outside.rwi"\n}\n')
    (d,) = engine.check([path]).diagnostics
    assert d.code == "E004" and "leads outside the folder tree" in d.message and d.span.line == 18


def test_an_included_file_inside_a_format_may_not_declare_formats(tmp_path):
    path = _spec(tmp_path, BASE + 'format f {\n  include "more.rwi"\n}\n', more__rwi="format g { }\n")
    (d,) = engine.check([path]).diagnostics
    assert d.code == "E042" and "declares a format, inside a format" in d.message


def test_an_include_inside_a_reading(tmp_path):
    path = _spec(tmp_path, BASE + 'reading as_written { }\nreading fast {\n  include "fast.rwi"\n}\n',
                 fast__rwi="var life(p: player) [2]: 0..1 = 1\n")
    models = _models(path)
    (life,) = [d for d in models[("", "fast")] if isinstance(d, sx.VarDecl) and d.name == "life"]
    assert life.init == sx.Num(1)


# ---------------------------------------------------------------- shared readings

SHARED = BASE + """
format duel { }
format long_duel { var life(p: player) [2]: 0..2 = 2 }
format solo { }
reading as_written for duel, long_duel { }
reading double "a hit costs two life" for duel, long_duel {
  replace hit.cost do [2] life[q] := max(life[q] - 2, 0); end
}
"""


def test_a_reading_declared_once_applies_to_the_formats_it_names(tmp_path):
    models = _models(_spec(tmp_path, SHARED))
    assert sorted(models) == [("duel", "as_written"), ("duel", "double"), ("long_duel", "as_written"),
                              ("long_duel", "double"), ("solo", "")]


def test_a_reading_for_an_unknown_format_is_an_error(tmp_path):
    path = _spec(tmp_path, SHARED.replace("for duel, long_duel {", "for duel, long_dual {", 1))
    (d,) = engine.check([path]).diagnostics
    assert d.code == "E040" and d.message == "`for long_dual`: the file has no format long_dual"
    assert d.hint == "did you mean `long_duel`?"


def test_a_reading_inside_a_format_cannot_name_other_formats(tmp_path):
    path = _spec(tmp_path, BASE + "format f { reading r for g { } }\nformat g { }\n")
    ((code, msg),) = _errors(path)
    assert code == "E040" and "inside format f" in msg


# ---------------------------------------------------------------- ambiguities combine

AXES = BASE + """
ambiguity cost [2] "how much does a hit cost?" {
  reading one { }
  reading two { replace hit.cost do [2] life[q] := max(life[q] - 2, 0); end }
}
ambiguity order [1] "who plays after a hit?" {
  reading passes { }
  reading stays { replace hit.pass do end }
}
"""


def test_two_ambiguities_of_two_readings_give_four_models_named_by_their_readings(tmp_path):
    path = _spec(tmp_path, AXES)
    assert sorted(_models(path)) == [("", "one+passes"), ("", "one+stays"), ("", "two+passes"), ("", "two+stays")]
    res = engine.check([path])
    assert res.diagnostics == [] and res.disagreements == []
    assert sorted(i.model.split(" | reading ")[1] for i in res.instances) == \
        ["one+passes", "one+stays", "two+passes", "two+stays"]
    models = sorted({f.model for f in res.findings if f.kind != "readings-differ"})
    assert all("reading " in m for m in models)


def test_each_combination_holds_one_reading_of_each_ambiguity(tmp_path):
    models = _models(_spec(tmp_path, AXES))
    hit = _action(models[("", "two+stays")], "hit")
    assert len(hit.body) == 1 and "max" in repr(hit.body[0])
    hit = _action(models[("", "one+passes")], "hit")
    assert len(hit.body) == 2 and "max" not in repr(hit.body[0])


def test_plain_readings_are_one_more_ambiguity(tmp_path):
    path = _spec(tmp_path, AXES + "reading strict { }\nreading lax { winners many }\n")
    assert len(_models(path)) == 8
    assert ("", "lax+two+stays") in _models(path)


def test_readings_of_two_ambiguities_may_not_change_the_same_declaration(tmp_path):
    path = _spec(tmp_path, AXES.replace("reading stays { replace hit.pass do end }",
                                        "reading stays { replace hit.cost do end }"))
    diags = engine.check([path]).diagnostics
    assert {d.code for d in diags} == {"E041"}
    assert diags[0].message == "readings two and stays both change action hit (statement cost); combined, one would undo the other"


def test_a_whole_declaration_against_one_of_its_statements_overlaps_too(tmp_path):
    path = _spec(tmp_path, AXES.replace("reading stays { replace hit.pass do end }",
                                        "reading stays { action hit(q: player) [2] when false do end }"))
    assert {d.code for d in engine.check([path]).diagnostics} == {"E041"}


def test_an_ambiguity_can_be_shared_by_formats(tmp_path):
    path = _spec(tmp_path, AXES.replace('ambiguity order [1] "who plays after a hit?" {',
                                        'ambiguity order [1] "who plays after a hit?" for duel {')
                 + "format duel { }\nformat other { }\n")
    assert sorted(_models(path)) == [("duel", "one+passes"), ("duel", "one+stays"), ("duel", "two+passes"),
                                     ("duel", "two+stays"), ("other", "one"), ("other", "two")]


def test_only_selects_a_combination(tmp_path):
    path = _spec(tmp_path, AXES)
    res = engine.check([path], select=engine.Selection(only=("/two+stays",)))
    assert [i.model for i in res.instances] == [path + " | reading two+stays"]


def test_a_reading_inside_a_reading_is_an_error(tmp_path):
    ((code, msg),) = _errors(_spec(tmp_path, BASE + "reading r { reading s { } }\n"))
    assert code == "E042" and msg == "a reading (s) inside a reading"


def test_two_readings_of_one_format_may_not_share_a_name(tmp_path):
    path = _spec(tmp_path, AXES.replace("reading stays", "reading one"))
    ((code, msg),) = _errors(path)
    assert code == "E011" and msg == "reading one is declared twice"


def test_a_file_replaces_a_labelled_statement_of_a_file_it_includes(tmp_path):
    shared = BASE.split("players [1] 2\n", 1)[1]
    path = _spec(tmp_path, BASE.split("players [1] 2\n", 1)[0] + 'players [1] 2\ninclude "shared.rwi"\n'
                 "replace hit.pass do end\n", shared__rwi=shared)
    (decls,) = _models(path).values()
    assert len(_action(decls, "hit").body) == 1


def test_every_composition_error_is_reported_at_once_with_the_resolve_errors(tmp_path):
    path = _spec(tmp_path, BASE + "format f {\n  remove action nothing\n  replace hit.nothing do end\n"
                 "  action x [1] when undefined_name do end\n}\n")
    codes = sorted(d.code for d in engine.check([path]).diagnostics)
    assert codes == ["E010", "E040", "E040"]


def test_a_reading_of_an_ambiguity_takes_the_ambiguitys_formats(tmp_path):
    (d,) = engine.check([_spec(tmp_path, AXES.replace("reading passes { }", "reading passes for duel { }"))]).diagnostics
    assert d.code == "E040" and d.message == "`for` on reading passes of ambiguity order"


def test_tags_before_a_label_belong_to_the_statement_and_go_with_it_when_replaced(tmp_path):
    path = _spec(tmp_path, BASE.replace("cost: [2] life[q]", "[2] cost: life[q]") + """
reading as_written { }
reading free { replace hit.cost do end }
""")
    models = _models(path)
    assert _action(models[("", "as_written")], "hit").body[0].tags == ("2",)
    assert len(_action(models[("", "free")], "hit").body) == 1


def test_the_documented_example_of_two_ambiguities_is_four_models(tmp_path):
    import re
    from pathlib import Path
    doc = (Path(__file__).resolve().parent.parent / "docs" / "language.md").read_text(encoding="utf-8")
    (example,) = [b for b in re.findall(r"```rulewright\n(.*?)```", doc, re.S) if '"Two questions"' in b]
    path = _spec(tmp_path, example, name="q.rw")
    assert sorted(r for _, r in _models(path)) == ["all+passes", "all+stays", "one+passes", "one+stays"]


def test_remove_of_an_unknown_kind_says_what_can_be_removed(tmp_path):
    (d,) = engine.check([_spec(tmp_path, BASE + "format f { remove thing x }\n")]).diagnostics
    assert d.code == "E001" and "the kind of declaration to remove" in d.hint
