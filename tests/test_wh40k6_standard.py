"""Standard 40K rules that change Morale: Fearless, Stubborn, And They Shall Know No Fear,
Sweeping Advance, Pinning (rules/wh40k6.md, "Standard rules that change Morale")."""

import pytest
from support.table import Table, only, rules_cited, unit
from support.wh40k6 import shot_up

from morale.core import outcomes as out
from morale.events.types import (
    ChargeDeclared,
    CombatResolved,
    CombatSide,
    DiceRolled,
    PlayerDecided,
    RefereeRuled,
    TableFactRecorded,
)


def lose_combat(table: Table, loser: str, winner: str = "boyz", by: int = 2) -> list:
    """In the orks' Assault phase of turn 1 the imperium unit `loser` loses its combat by `by` wounds."""
    table.go_to(1, "orks", "assault")
    return table.record(
        CombatResolved(
            sides=[
                CombatSide(side="imperium", units=(loser,), wounds_inflicted=1),
                CombatSide(side="orks", units=(winner,), wounds_inflicted=1 + by),
            ]
        )
    )


def pinning_hit(unit_id: str) -> TableFactRecorded:
    return TableFactRecorded(unit=unit_id, fact="hit_by_pinning_weapon")


# -- wh40k6.special.fearless --------------------------------------------------------------------
def test_wh40k6_special_fearless_passes_casualty_test_without_a_roll():
    table = Table(unit("grey_knights", ld=6, rules=("fearless",)), unit("boyz", "orks"))

    caused = shot_up(table, "grey_knights", 5)

    result = only(caused, out.TestResolved)
    assert (result.rule, result.passed, result.automatic) == ("wh40k6.special.fearless", True, True)
    assert table.due() == []
    assert table.state("grey_knights") == "steady"


def test_wh40k6_special_fearless_passes_after_a_lost_combat_whatever_the_margin():
    table = Table(unit("grey_knights", ld=6, rules=("fearless",)), unit("boyz", "orks"))

    caused = lose_combat(table, "grey_knights", by=6)

    assert only(caused, out.TestResolved).rule == "wh40k6.special.fearless"
    assert table.due() == []  # no Sweeping Advance: the test was passed


def test_wh40k6_special_fearless_passes_pinning_tests():
    table = Table(unit("grey_knights", ld=6, rules=("fearless",)), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")

    caused = table.record(pinning_hit("grey_knights"))

    result = only(caused, out.TestResolved)
    assert (result.rule, result.test, result.passed) == ("wh40k6.special.fearless", "pinning", True)
    assert not table.unit("grey_knights").restricted("gone_to_ground")


def test_wh40k6_special_fearless_passes_regroup_tests():
    table = Table(unit("grey_knights", ld=6, models=10, rules=("fearless",)), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")
    table.record(
        RefereeRuled(unit="grey_knights", reason="fled before the Brother-Captain joined", state="falling_back")
    )

    caused = table.go_to(2, "imperium", "movement")

    result = only(caused, out.TestResolved)
    assert (result.rule, result.test, result.passed) == ("wh40k6.special.fearless", "regroup", True)
    assert table.state("grey_knights") == "regrouped"


# -- wh40k6.special.stubborn --------------------------------------------------------------------
@pytest.mark.parametrize("by", [1, 3])  # the smallest margin is ignored as the larger ones are
def test_wh40k6_special_stubborn_ignores_the_combat_margin(by):
    table = Table(unit("veterans", ld=8, rules=("stubborn",)), unit("boyz", "orks"))

    caused = lose_combat(table, "veterans", by=by)
    result = only(table.roll("veterans", "morale", 4, 4), out.TestResolved)

    due = only(caused, out.TestDue)
    # Shown on the test due as on the result, marked as not counted: the target is the plain Ld.
    assert [(m.value, m.ignored_by) for m in due.modifiers] == [(-by, "wh40k6.special.stubborn")]
    assert due.target == 8
    assert [m.ignored_by for m in result.modifiers] == ["wh40k6.special.stubborn"]
    assert (result.target, result.passed) == (8, True)


def test_wh40k6_special_stubborn_still_fails_over_its_ld():
    table = Table(unit("veterans", ld=8, rules=("stubborn",)), unit("boyz", "orks"))
    lose_combat(table, "veterans", by=3)

    result = only(table.roll("veterans", "morale", 4, 5), out.TestResolved)

    assert (result.target, result.passed) == (8, False)
    assert table.state("veterans") == "falling_back"


# -- wh40k6.special.atsknf ----------------------------------------------------------------------
def marines_fled(table: Table, lost: int = 3) -> None:
    shot_up(table, "marines", lost)
    table.roll("marines", "morale", 6, 6)  # ATSKNF units can still fail a Morale test
    table.roll("marines", "fall_back", 3, 3)


def test_wh40k6_special_atsknf_passes_regroup_test_automatically():
    table = Table(unit("marines", models=10, rules=("and_they_shall_know_no_fear",)), unit("boyz", "orks"))
    marines_fled(table, lost=9)  # 1 of 10 left: others would need a double 1

    caused = table.go_to(2, "imperium", "movement")

    result = only(caused, out.TestResolved)
    assert (result.rule, result.test, result.passed, result.automatic) == (
        "wh40k6.special.atsknf",
        "regroup",
        True,
        True,
    )
    assert table.state("marines") == "regrouped"
    assert table.due() == []


def test_wh40k6_special_atsknf_acts_normally_the_turn_it_regroups():
    table = Table(unit("marines", rules=("and_they_shall_know_no_fear",)), unit("boyz", "orks"))
    marines_fled(table)

    caused = table.go_to(2, "imperium", "assault")
    table.record(ChargeDeclared(charger="marines", targets=("boyz",), in_range=("boyz",)))

    assert not any(isinstance(o, out.RestrictionApplied) for o in caused)
    assert table.unit("marines").restrictions == []


def test_wh40k6_special_atsknf_steady_at_the_end_of_the_turn():
    table = Table(unit("marines", rules=("and_they_shall_know_no_fear",)), unit("boyz", "orks"))
    marines_fled(table)
    table.go_to(2, "imperium", "assault")

    table.end_phase()

    assert table.state("marines") == "steady"


def test_wh40k6_special_atsknf_passes_the_regroup_test_when_charged():
    table = Table(unit("marines", rules=("and_they_shall_know_no_fear",)), unit("boyz", "orks"))
    marines_fled(table)
    table.go_to(1, "orks", "assault")

    caused = table.record(ChargeDeclared(charger="boyz", targets=("marines",), in_range=("marines",)))

    assert only(caused, out.TestResolved).rule == "wh40k6.special.atsknf"
    assert only(caused, out.StateChanged).rule == "wh40k6.assaulted.pass"
    assert table.state("marines") == "regrouped"


# -- wh40k6.sweeping_advance --------------------------------------------------------------------
def test_wh40k6_sweeping_advance_due_after_a_failed_test_from_a_lost_combat():
    table = Table(unit("guard", ld=7), unit("boyz", "orks"))
    lose_combat(table, "guard")

    caused = table.roll("guard", "morale", 5, 5)

    due = only(caused, out.TestDue)
    assert (due.test, due.rule, due.dice, due.decisions) == (
        "sweeping_advance",
        "wh40k6.sweeping_advance",
        2,
        ("decline_sweeping_advance",),
    )
    assert table.due() == ["guard:sweeping_advance"]


def test_wh40k6_sweeping_advance_not_after_a_passed_test():
    table = Table(unit("guard", ld=7), unit("boyz", "orks"))
    lose_combat(table, "guard")

    table.roll("guard", "morale", 2, 3)

    assert table.due() == []


def test_wh40k6_sweeping_advance_not_after_a_failed_casualty_test():
    table = Table(unit("guard", ld=7), unit("boyz", "orks"))
    shot_up(table, "guard", 3)

    table.roll("guard", "morale", 5, 5)

    assert table.due() == ["guard:fall_back"]


@pytest.mark.parametrize(
    ("dice", "caught"),
    [
        ((3, 4), True),  # loser 3 + I3 = 6, winners 4 + I2 = 6: equal is caught
        ((2, 6), True),  # 5 against 8
        ((4, 4), False),  # 7 against 6
        ((6, 1), False),
    ],
)
def test_wh40k6_sweeping_advance_d6_plus_initiative_equal_or_higher_catches(dice, caught):
    table = Table(unit("guard", ld=7, initiative=3), unit("boyz", "orks", initiative=2))
    lose_combat(table, "guard")
    table.roll("guard", "morale", 6, 6)

    caused = table.roll("guard", "sweeping_advance", *dice)

    result = only(caused, out.TestResolved)
    loser, winners = result.opposed  # two opposed rolls, each its die and Initiative: no sum, no target
    assert (loser.side, loser.die, loser.bonus, loser.total) == ("loser", dice[0], 3, dice[0] + 3)
    assert (winners.side, winners.die, winners.bonus, winners.total) == ("winners", dice[1], 2, dice[1] + 2)
    assert (result.total, result.target) == (None, None)
    assert result.passed is not caught
    if caught:
        assert table.state("guard") == "dispersed"
        assert only(caused, out.StateChanged).rule == "wh40k6.sweeping_advance"
        assert table.due() == []
    else:
        assert table.state("guard") == "falling_back"
        assert table.due() == ["guard:fall_back"]


def test_wh40k6_sweeping_advance_the_winners_are_the_other_side_when_the_report_lists_the_loser_second():
    """The combat report may list the losing side second: the winners who may sweep it are still the
    other side, and their Initiative is the one the Sweeping Advance adds (wh40k6.sweeping_advance)."""
    table = Table(unit("guard", initiative=5), unit("boyz", "orks", ld=7, initiative=2))
    table.go_to(1, "orks", "assault")
    lost = table.record(
        CombatResolved(
            sides=[
                CombatSide(side="imperium", units=("guard",), wounds_inflicted=3),
                CombatSide(side="orks", units=("boyz",), wounds_inflicted=1),
            ]
        )
    )
    assert only(lost, out.TestDue).opponents == ("guard",)
    sweep = only(table.roll("boyz", "morale", 6, 6), out.TestDue)
    assert (sweep.test, sweep.opponents) == ("sweeping_advance", ("guard",))

    caused = table.roll("boyz", "sweeping_advance", 3, 1)  # loser 3 + I2 = 5, winners 1 + I5 = 6: caught

    result = only(caused, out.TestResolved)
    assert [(r.side, r.die, r.bonus, r.total) for r in result.opposed] == [("loser", 3, 2, 5), ("winners", 1, 5, 6)]
    assert not result.passed and table.state("boyz") == "dispersed"


@pytest.mark.parametrize(
    ("loser_initiative", "winner_initiative", "dice", "caught"),
    [
        (3, 0, (1, 4), True),  # loser 1 + I3 = 4, winners 4 + I0 = 4: equal is caught
        (0, 2, (6, 3), False),  # loser 6 + I0 = 6, winners 3 + I2 = 5
    ],
)
def test_wh40k6_sweeping_advance_an_initiative_of_0_adds_nothing(loser_initiative, winner_initiative, dice, caught):
    """Initiative 0 is a characteristic like any other (wh40k6.sweeping_advance): it adds 0 to the
    die, and the judge reads it as I0."""
    table = Table(unit("guard", ld=7, initiative=loser_initiative), unit("boyz", "orks", initiative=winner_initiative))
    lose_combat(table, "guard")
    table.roll("guard", "morale", 6, 6)

    result = only(table.roll("guard", "sweeping_advance", *dice), out.TestResolved)

    loser_total, winner_total = dice[0] + loser_initiative, dice[1] + winner_initiative
    assert [(r.bonus, r.total) for r in result.opposed] == [
        (loser_initiative, loser_total),
        (winner_initiative, winner_total),
    ]
    assert result.passed is not caught
    assert out.opposed_words(result.opposed) == (
        f"loser {dice[0]} + initiative {loser_initiative} = {loser_total}"
        f" against winners {dice[1]} + initiative {winner_initiative} = {winner_total}"
    )


def test_wh40k6_sweeping_advance_declined_loser_falls_back():
    table = Table(unit("guard", ld=7), unit("boyz", "orks"))
    lose_combat(table, "guard")
    table.roll("guard", "morale", 6, 6)

    caused = table.record(PlayerDecided(unit="guard", decision="decline_sweeping_advance"))

    assert table.state("guard") == "falling_back"
    assert table.due() == ["guard:fall_back"]
    assert "wh40k6.fall_back.from_combat" in rules_cited(caused)


def test_wh40k6_sweeping_advance_rolls_two_dice():
    table = Table(unit("guard", ld=7), unit("boyz", "orks"))
    lose_combat(table, "guard")
    table.roll("guard", "morale", 6, 6)

    refusal = table.refuse(DiceRolled(unit="guard", test="sweeping_advance", dice=(4,)))

    assert refusal.field == "dice"


# -- wh40k6.pinning.test ------------------------------------------------------------------------
def test_wh40k6_pinning_test_due_when_hit_by_a_pinning_weapon():
    table = Table(unit("guard", ld=7), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")

    caused = table.record(pinning_hit("guard"))

    due = only(caused, out.TestDue)
    assert (due.test, due.rule, due.dice) == ("pinning", "wh40k6.pinning.test", 2)


def test_wh40k6_pinning_test_passed_nothing_happens():
    table = Table(unit("guard", ld=7), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")
    table.record(pinning_hit("guard"))

    caused = table.roll("guard", "pinning", 3, 4)

    assert only(caused, out.TestResolved).passed is True
    assert table.unit("guard").restrictions == []
    assert table.state("guard") == "steady"


def test_wh40k6_pinning_test_failed_gone_to_ground_until_end_of_its_next_turn():
    table = Table(unit("guard", ld=7), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")
    table.record(pinning_hit("guard"))

    caused = table.roll("guard", "pinning", 4, 4)

    applied = only(caused, out.RestrictionApplied)
    assert (applied.restriction, applied.rule) == ("gone_to_ground", "wh40k6.pinning.test")
    assert "imperium" in applied.until and "turn 2" in applied.until
    assert table.state("guard") == "steady"  # pinned, not Falling Back
    table.go_to(2, "imperium", "assault")
    assert table.refuse(ChargeDeclared(charger="guard", targets=("boyz",), in_range=("boyz",))).rule == (
        "wh40k6.pinning.test"
    )
    lifted = only(table.end_phase(), out.RestrictionLifted)
    assert (lifted.restriction, lifted.rule) == ("gone_to_ground", "wh40k6.pinning.test")


def pinned(table: Table, unit_id: str, turn: int, side: str, phase: str) -> None:
    """`unit_id` (Ld 7) is hit by a pinning weapon in `phase` of `side`'s turn and fails: 4 + 4 = 8."""
    table.go_to(turn, side, phase)
    table.record(pinning_hit(unit_id))
    table.roll(unit_id, "pinning", 4, 4)
    assert table.unit(unit_id).restricted("gone_to_ground")


def gone_to_ground_lifted(table: Table, unit_id: str) -> tuple[int, str, str]:
    """Walk the clock one phase end at a time: the phase at whose end Gone to Ground was lifted. Until
    then the unit is still Gone to Ground at every step."""
    while True:
        turn, side, phase = table.battle.turn, table.battle.active_side, table.battle.phase
        caused = table.end_phase()
        if not table.unit(unit_id).restricted("gone_to_ground"):
            lifted = only(caused, out.RestrictionLifted)
            assert (lifted.unit, lifted.restriction, lifted.rule) == (unit_id, "gone_to_ground", "wh40k6.pinning.test")
            return turn, side, phase
        table.start_next_phase()


@pytest.mark.parametrize("phase", ["movement", "psychic", "shooting", "assault"])
def test_wh40k6_pinning_test_failed_in_its_own_turn_gone_to_ground_until_the_end_of_its_next_turn(phase):
    table = Table(unit("guard", ld=7), unit("boyz", "orks"))
    pinned(table, "guard", 1, "imperium", phase)

    # Not lifted at the end of this, its own, turn, nor in the orks' turn: at the end of its next turn.
    assert gone_to_ground_lifted(table, "guard") == (2, "imperium", "assault")


def test_wh40k6_pinning_test_failed_in_its_own_turn_it_cannot_charge_in_its_next_turn():
    table = Table(unit("guard", ld=7), unit("boyz", "orks"))
    pinned(table, "guard", 1, "imperium", "assault")

    table.go_to(2, "imperium", "assault")

    refusal = table.refuse(ChargeDeclared(charger="guard", targets=("boyz",), in_range=("boyz",)))
    assert refusal.rule == "wh40k6.pinning.test"


@pytest.mark.parametrize(
    ("victim", "pinned_in", "lifted_at"),
    [
        ("guard", (1, "orks", "shooting"), (2, "imperium", "assault")),  # its side has played turn 1
        ("boyz", (1, "imperium", "shooting"), (1, "orks", "assault")),  # its turn 1 is still to come
    ],
)
def test_wh40k6_pinning_test_failed_in_the_enemy_turn_gone_to_ground_until_the_end_of_its_own_next_turn(
    victim, pinned_in, lifted_at
):
    table = Table(unit("guard", ld=7), unit("boyz", "orks", ld=7))
    pinned(table, victim, *pinned_in)

    assert gone_to_ground_lifted(table, victim) == lifted_at


def test_wh40k6_pinning_test_not_taken_again_while_gone_to_ground():
    table = Table(unit("guard", ld=7), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")
    table.record(pinning_hit("guard"))
    table.roll("guard", "pinning", 4, 4)

    caused = table.record(pinning_hit("guard"))

    assert only(caused, out.TestNotTaken).rule == "wh40k6.pinning.test"
    assert table.due() == []


def test_wh40k6_pinning_test_hits_are_refused_between_phases():
    table = Table(unit("guard", ld=7), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")
    table.end_phase()

    refusal = table.refuse(pinning_hit("guard"))

    assert refusal.rule == "wh40k6.pinning.test"
