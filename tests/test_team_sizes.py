"""Teams of different sizes (docs/language.md, "Parameters, players, teams, seating"):
`teams archenemy, heroes sizes 1, 3` is one player against three (MTG 904.1), seated as
declared; every engine reads the seats it gives. The fixture pair is
tests/fixtures/outcome-gap/sizes-{defect,twin}.rw."""
from checker import engine

TABLE = """players_decl_stands_here
var turn: player = any
active p when turn == p
action pass progress do turn := next(turn); end
"""


def _instances(tmp_path, head: str, seating: str = ""):
    path = tmp_path / "t.rw"
    path.write_text(TABLE.replace("players_decl_stands_here", head + ("\n" + seating if seating else "")), encoding="utf-8")
    return engine.load_instances(str(path))


def _errors(tmp_path, head: str, more: str = ""):
    path = tmp_path / "t.rw"
    path.write_text(TABLE.replace("players_decl_stands_here", head) + more, encoding="utf-8")
    return [(d.code, d.message) for d in engine.check([str(path)]).diagnostics]


def test_one_against_three_sit_round_the_teams_while_a_team_has_players(tmp_path):
    (inst,) = _instances(tmp_path, "teams archenemy, heroes sizes 1, 3")
    assert inst.players == ("archenemy1", "heroes1", "heroes2", "heroes3")
    assert inst.team_of == (0, 1, 1, 1)


def test_teams_of_different_sizes_sit_in_blocks_or_as_listed(tmp_path):
    (inst,) = _instances(tmp_path, "teams count 3 sizes 2, 1, 2", "seating alternate")
    assert inst.players == ("A1", "B1", "C1", "A2", "C2")
    (inst,) = _instances(tmp_path, "teams count 3 sizes 2, 1, 2", "seating blocks")
    assert inst.players == ("A1", "A2", "B1", "C1", "C2")
    (inst,) = _instances(tmp_path, "teams a, b sizes 1, 2", "seating b1, a1, b2")
    assert inst.players == ("b1", "a1", "b2") and inst.team_of == (1, 0, 1)


def test_sizes_may_be_parameters(tmp_path):
    insts = _instances(tmp_path, "param H in 2..3\nteams villain, heroes sizes 1, H")
    assert [len(i.players) for i in insts] == [3, 4]


def test_one_size_per_named_team_and_no_team_size(tmp_path):
    assert _errors(tmp_path, "teams a, b sizes 1, 2, 3") == [
        ("E015", "2 teams are named but 3 sizes are given")]
    assert _errors(tmp_path, "teams a, b sizes 1, 3", "var n: 0..9 = team_size\n") == [
        ("E013", "`team_size` is not one number: the teams are declared with `sizes`")]


def test_counted_teams_need_as_many_sizes_and_every_team_a_player(tmp_path):
    assert _errors(tmp_path, "teams count 3 sizes 1, 2") == [("E015", "3 teams but 2 sizes")]
    assert _errors(tmp_path, "teams a, b sizes 0, 2") == [("E015", "teams need at least one team and one player each")]


def test_sizes_is_still_a_name(tmp_path):
    assert _errors(tmp_path, "teams a, b sizes 1, 2", "var sizes: 0..1 = 0\n") == []
