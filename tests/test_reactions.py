"""core/reactions.py and core/engine.py: rules as reactions, and the one loop that walks them.

A clause declares what it reacts to; the walk applies each outcome through `apply` and walks its
reactions at once; a test called for is answered by the first reaction that holds; a cascade that
does not end is stopped naming its rules. The engine's own reactions (`engine.due`,
`engine.carry_over`) are checked through a 40K 6th edition battle, as a club would meet them.
"""

from __future__ import annotations

import pytest
from support.table import Table, kinds, only, unit
from support.wh40k6 import shot_up

from morale.core import outcomes as out
from morale.core.engine import ENGINE
from morale.core.reactions import FIRST, LAST, Reactions, Rulebook, RunawayCascade, walk
from morale.core.rulesets.wh40k import WH40K6
from morale.events.types import ChargeDeclared, PhaseEnded, TableFactRecorded


def limit_pinning(monkeypatch) -> None:
    """Pinning limited to once a phase, as a game may limit a test: the engine's reactions for such
    a limit are gathered afresh (a game that limits none never walks them)."""
    from morale.core import evolve

    monkeypatch.setitem(WH40K6.once_per_phase, "pinning", "wh40k6.pinning.test")
    monkeypatch.setattr(evolve, "_STEPS", {})


def pinned_by(table: Table, unit_id: str) -> list[out.Outcome]:
    return list(table.record(TableFactRecorded(unit=unit_id, fact="hit_by_pinning_weapon", value=True)))


# -- engine.due -----------------------------------------------------------------------------------
def test_engine_due_a_test_no_rule_settles_falls_due_and_waits_for_its_dice():
    table = Table(unit("marines", ld=8), unit("boyz", "orks"))
    caused = shot_up(table, "marines", 3)
    due = only(caused, out.TestDue)
    assert (due.unit, due.test, due.rule, due.target) == ("marines", "morale", "wh40k6.trigger.casualties", 8)
    assert table.due() == ["marines:morale"]


def test_engine_due_a_test_the_rules_settle_at_once_never_falls_due():
    table = Table(unit("marines", ld=8, rules=("fearless",)), unit("boyz", "orks"))
    caused = shot_up(table, "marines", 3)
    result = only(caused, out.TestResolved)
    assert (result.rule, result.passed, result.automatic) == ("wh40k6.special.fearless", True, True)
    assert not [o for o in caused if isinstance(o, out.TestDue)] and table.due() == []


def test_engine_due_a_test_limited_to_once_a_phase_is_not_taken_twice_there(monkeypatch):
    """With Pinning limited to once a phase (as a game may limit a test), a second Pinning hit in the
    phase brings no second test, citing the limit; in the next phase the unit tests again."""
    limit_pinning(monkeypatch)
    table = Table(unit("marines", ld=8), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")
    pinned_by(table, "marines")
    table.roll("marines", "pinning", 1, 1)  # passed: not Gone to Ground
    again = pinned_by(table, "marines")
    skipped = only(again, out.TestNotTaken)
    assert (skipped.test, skipped.rule, skipped.trigger) == ("pinning", "wh40k6.pinning.test", "wh40k6.pinning.test")
    assert table.due() == []
    table.end_phase()
    table.start_next_phase()
    assert only(pinned_by(table, "marines"), out.TestDue).test == "pinning"


def test_engine_due_a_test_limited_to_once_a_phase_counts_as_taken_when_the_rules_settle_it(monkeypatch):
    """A Falling Back unit passes Pinning tests automatically: that pass is its one test of the phase."""
    limit_pinning(monkeypatch)
    table = Table(unit("marines", ld=8), unit("boyz", "orks"))
    shot_up(table, "marines", 3)
    table.roll("marines", "morale", 6, 6)
    table.roll("marines", "fall_back", 3, 3)
    table.start_next_phase()  # orks' assault
    table.end_phase()
    table.start_next_phase()  # turn 2, imperium's movement: the Regroup test is due
    table.record(out_decline("marines"))
    table.roll("marines", "fall_back", 2, 2)
    table.go_to(2, "orks", "shooting")
    first = pinned_by(table, "marines")
    assert only(first, out.TestResolved).rule == "wh40k6.fall_back.shooting"
    assert "pinning_test_taken" in table.unit("marines").phase_marks
    assert only(pinned_by(table, "marines"), out.TestNotTaken).rule == "wh40k6.pinning.test"


def out_decline(unit_id: str):
    from morale.events.types import PlayerDecided

    return PlayerDecided(unit=unit_id, decision="decline_regroup")


# -- engine.carry_over ----------------------------------------------------------------------------
def test_engine_carry_over_what_was_put_off_to_a_phase_end_happens_there_after_its_own_tests():
    """A Falling Back unit a single charge caught fails its Regroup test: it stays until the Assault
    phase ends, and is removed then, once the phase's own tests are decided."""
    table = Table(unit("marines", ld=8), unit("boyz", "orks"))
    shot_up(table, "marines", 3)
    table.roll("marines", "morale", 6, 6)
    table.roll("marines", "fall_back", 3, 3)
    table.start_next_phase()  # orks' assault
    table.record(ChargeDeclared(charger="boyz", targets=("marines",), in_range=("marines",)))
    table.roll("marines", "regroup", 6, 6)
    assert table.state("marines") == "falling_back"
    ended = list(table.end_phase())
    changed = only(ended, out.StateChanged)
    assert (changed.unit, changed.to_state, changed.rule) == ("marines", "dispersed", "wh40k6.assaulted.fail")
    assert table.unit("marines").pending == []


def test_engine_carry_over_a_restriction_lasts_until_the_end_of_its_phase_and_no_longer():
    table = Table(unit("marines", ld=8), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")
    pinned_by(table, "marines")
    table.roll("marines", "pinning", 6, 6)  # failed: Gone to Ground until the end of its next turn
    assert table.unit("marines").restricted("gone_to_ground")
    lifted = []
    while not lifted:
        lifted = [o for o in table.end_phase() if isinstance(o, out.RestrictionLifted)]
        if not lifted:
            table.start_next_phase()
    assert table.battle.point == (2, 0, 3)  # the end of the imperium's own next turn, its Assault phase
    assert lifted[0].restriction == "gone_to_ground" and not table.unit("marines").restrictions


# -- the walk ---------------------------------------------------------------------------------------
def test_a_cascade_reads_as_it_happens_each_outcome_walked_before_the_next():
    """The unit falls back, then its Fall Back move falls due: in that order, each applied when the
    next is decided."""
    table = Table(unit("marines", ld=8), unit("boyz", "orks"))
    shot_up(table, "marines", 3)
    caused = table.roll("marines", "morale", 6, 6)
    assert kinds(caused) == ["TestResolved", "StateChanged", "TestDue"]


def test_a_runaway_cascade_is_stopped_naming_the_rules_that_fed_it():
    book = Rulebook("loop")
    book.react("wh40k6.test.morale", out.Marked, lambda battle, marked: [marked])
    table = Table(unit("marines", ld=8), unit("boyz", "orks"))
    start = out.Marked(unit="marines", rule="wh40k6.test.morale", mark="looping")
    with pytest.raises(RunawayCascade) as stopped:
        walk(table.battle, start, Reactions([ENGINE, book]))
    assert set(stopped.value.chain) == {"wh40k6.test.morale"}
    assert "did not end" in str(stopped.value) and "wh40k6.test.morale" in str(stopped.value)


def test_reactions_walk_engine_first_then_the_game_in_declared_order_then_engine_last():
    heard: list[str] = []

    def hears(name: str):
        return lambda battle, event: heard.append(name) or []

    first, game, last = Rulebook("first"), Rulebook("game"), Rulebook("last")
    last.react("engine.carry_over", PhaseEnded, hears("last"), stage=LAST)
    game.react("wh40k6.trigger.casualties", PhaseEnded, hears("game 1"))
    game.react("wh40k6.trigger.combat_lost", PhaseEnded, hears("game 2"))
    first.react("engine.destroyed", PhaseEnded, hears("first"), stage=FIRST)
    table = Table(unit("marines"), unit("boyz", "orks"))
    walk(table.battle, PhaseEnded(turn=1, side="imperium", phase="movement"), Reactions([last, game, first]))
    assert heard == ["first", "game 1", "game 2", "last"]


def test_a_reaction_named_for_a_test_hears_that_test_alone_and_a_call_is_answered_once():
    heard: list[str] = []
    book = Rulebook("calls")
    book.react("wh40k6.special.immune", out.TestCalled, lambda b, c: heard.append("morale") or [], test="morale")
    book.react("wh40k6.special.fearless", out.TestCalled, lambda b, c: heard.append("any") or [])
    reactions = Reactions([book])
    table = Table(unit("marines"), unit("boyz", "orks"))
    walk(table.battle, out.TestCalled(unit="marines", rule="r", test="morale"), reactions)
    walk(table.battle, out.TestCalled(unit="marines", rule="r", test="pinning"), reactions)
    assert heard == ["morale", "any"]  # the first that holds answers; the one for morale hears no pinning


def test_a_reaction_to_a_test_of_another_trigger_type_is_refused_as_it_is_declared():
    with pytest.raises(TypeError, match="names its fact, not a test"):
        Rulebook("wrong").react("wh40k6.pinning.test", TableFactRecorded, lambda b, e: [], test="pinning")


def test_engine_due_a_test_the_game_does_not_name_is_a_rules_bug_and_never_falls_due():
    from morale.core.engine import call

    book = Rulebook("typo")
    book.react(
        "wh40k6.pinning.test", PhaseEnded, lambda battle, ended: [call("marines", "moral", "wh40k6.pinning.test", (1,))]
    )
    table = Table(unit("marines"), unit("boyz", "orks"))
    with pytest.raises(ValueError, match="'moral' test due but wh40k6 does not name it"):
        walk(table.battle, PhaseEnded(turn=1, side="imperium", phase="movement"), Reactions([ENGINE, book], WH40K6))
    assert table.due() == []


def test_a_reaction_naming_a_test_on_a_trigger_that_carries_none_is_refused_as_it_is_declared():
    with pytest.raises(TypeError, match="StateChanged cannot name a test"):
        Rulebook("wrong").react("wh40k6.fall_back.start", out.StateChanged, lambda b, c: [], test="morale")


def test_a_check_named_for_a_fact_checks_that_fact_alone(monkeypatch):
    """A game's checks are filed by event type and, for a table fact, by the facts they name: a
    Pinning hit out of a phase is refused by the check for it, a table edge reached by a unit not
    Falling Back by its own, each naming its rule."""
    table = Table(unit("marines"), unit("boyz", "orks"))
    pinned = table.refuse(TableFactRecorded(unit="marines", fact="hit_by_pinning_weapon", value=True))
    assert (pinned.rule, pinned.message) == ("wh40k6.pinning.test", "Pinning hits happen during a phase")
    table.go_to(1, "orks", "shooting")
    edge = table.refuse(TableFactRecorded(unit="marines", fact="reached_table_edge", value=True))
    assert edge.rule == "wh40k6.fall_back.edge" and "is not Falling Back" in edge.message


def test_a_check_cannot_name_a_fact_of_an_event_that_carries_none():
    with pytest.raises(TypeError, match="a check of PhaseEnded cannot name a fact"):
        Rulebook("wrong").check(PhaseEnded, fact="reached_table_edge")(lambda battle, event: None)


def test_a_tests_dice_are_read_once_a_second_reading_is_refused_as_it_is_declared():
    book = Rulebook("twice")
    book.reads("morale", target=lambda battle, due: 7)
    with pytest.raises(TypeError, match="'morale' test's dice are read twice"):
        book.reads("morale", result=lambda battle, due, dice: ("pass", True))


def test_the_board_reads_what_a_state_forbids_then_what_any_state_may_from_the_rulebook():
    """40K 6th's Falling Back restrictions come from its rulebook, each beside its clause; a unit
    in another state has none of them."""
    table = Table(unit("marines", ld=8), unit("boyz", "orks"))
    shot_up(table, "marines", 3)
    table.roll("marines", "morale", 6, 6)
    restrictions = dict(WH40K6.implied_restrictions(table.unit("marines")))
    assert restrictions["cannot declare a charge"] == "wh40k6.fall_back.no_charge"
    assert WH40K6.implied_restrictions(table.unit("boyz")) == []
    book = Rulebook("both")
    book.restricts()(lambda unit: [("any state", "x.any")])
    book.restricts("steady")(lambda unit: [("steady only", "x.steady")])

    class Both(type(WH40K6)):  # a game of 40K 6th's data with this rulebook
        rulebook = book

    assert Both().implied_restrictions(table.unit("boyz")) == [("steady only", "x.steady"), ("any state", "x.any")]
