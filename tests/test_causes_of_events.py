"""Who caused it (docs/language.md, "Who caused it"): an action names the parameter who acts
(`action attack(p: player, q: player) by p`), and a trigger `on lose player q by c` is bound to
that player; a step in which nobody acts (no `by`, a concession, the setup) runs no such
trigger. tests/fixtures/overflow/bounty-{defect,twin}.rw is the fixture pair; the random specs
of tests/test_differential_specs.py draw `by` on actions and triggers through both engines."""
from checking import _check
from test_differential_specs import compare

BOUNTY = """players 3
var hp(p: player): 0..6 = 2
var turn: player = P1
active p when turn == p
action attack(p: player, q: player) by p progress when p == turn and q != p and in_game(q) do
  hp[q] := hp[q] - 1;
  turn := next_in_game(turn);
end
action concede(p: player) leave when in_game(p) do lose p; end
outcome ko: lose player p when hp[p] == 0
outcome last: win player p when in_game(p) and size(remaining) == 1
trigger bounty [1] on lose player p by q when in_game(q) do hp[q] := min(hp[q] + 5, 6); end
trigger turn_on on leave player p when turn == p do turn := next_in_game(p); end
"""
DOC = 'spec "s" formalizes "s.txt"\ndocument { 1: "the player who eliminates another heals 5" }\n'



def test_the_eliminator_heals_and_the_trace_says_who_acted(tmp_path):
    res = _check(tmp_path, DOC + BOUNTY + "invariant no_bounty: forall p in players: hp[p] <= 2\n")[0]
    (f,) = [f for f in res.findings if f.kind == "invariant"]
    last = f.trace[-1]
    assert last.action == "attack(p=P2, q=P3)"
    assert "trigger bounty for P3 by P2 [1]" in [r.text(place=False) for r in last.ran]
    assert f.replay.status == "confirmed"


def test_a_concession_causes_nothing(tmp_path):
    # P3 concedes with nobody's help: no bounty, although P3 lost
    text = BOUNTY.replace("by p progress", "progress") + "invariant no_bounty: forall p in players: hp[p] <= 2\n"
    res = _check(tmp_path, DOC + text)[0]
    assert "trigger `bounty` never applies in any reachable state" in [f.message for f in res.findings
                                                                       if f.kind == "dead-rule"]
    assert not [f for f in res.findings if f.kind == "invariant"]


def test_the_explorer_and_z3_agree_on_who_caused_it(tmp_path):
    path = tmp_path / "bounty.rw"
    path.write_text(BOUNTY + "outcome rich: win player p when hp[p] >= 5\n", encoding="utf-8")
    mine, theirs = compare(str(path))
    assert mine[:4] == theirs[:4]
    assert any(ended.players for ended in mine[0])  # the bounty's win is reached


def test_every_mistake_with_who_acts_is_reported_at_once(tmp_path):
    text = BOUNTY + """action heal(p: player, n: 1..2) by n progress do end
action shout(p: player) by q progress do end
action leave_now(p: player) by p leave do lose p; end
trigger same on lose player p by p do end
"""
    res = _check(tmp_path, DOC + text)[0]
    assert [(d.code.value, d.message) for d in res.diagnostics] == [
        ("E013", "action heal is taken `by n`, which is no player"),
        ("E010", "action shout is taken `by q`, which is none of its parameters"),
        ("E013", "action leave_now only removes players (`leave`) and is taken `by p`"),
        ("E011", "trigger same names its subject and who acts `p` alike"),
    ]
