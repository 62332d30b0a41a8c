"""wh40k6.trigger.*: when a Morale test is taken (rules/wh40k6.md, "When a test is taken")."""

import pytest
from support.table import Table, only, unit

from morale.core import outcomes as out
from morale.events.types import CombatResolved, CombatSide, PhaseStarted


def combat(imperium: list[str], imperium_wounds: int, orks: list[str], orks_wounds: int, *, orks_bonus: int = 0):
    return CombatResolved(
        sides=[
            CombatSide(side="imperium", units=imperium, wounds_inflicted=imperium_wounds),
            CombatSide(side="orks", units=orks, wounds_inflicted=orks_wounds, bonus=orks_bonus),
        ]
    )


# -- wh40k6.trigger.casualties ------------------------------------------------------------------
def test_wh40k6_trigger_casualties_five_marines_lose_two_then_one():
    """The rule's own example: 5 Space Marines lose 2 to shooting: test. Next turn the 3 left lose 1
    to a Dangerous terrain test in the Movement phase: 1 of 3 is 25% or more: test again."""
    table = Table(unit("marines", models=5), unit("boyz", "orks", models=20))
    table.go_to(1, "orks", "shooting")
    table.casualties("marines", 2)

    caused = table.end_phase()

    assert table.due() == ["marines:morale"]
    assert only(caused, out.TestDue).rule == "wh40k6.trigger.casualties"
    assert only(table.roll("marines", "morale", 3, 4), out.TestResolved).passed is True

    table.go_to(2, "imperium", "movement")
    table.casualties("marines", 1, cause="dangerous terrain")
    dangerous_terrain = table.fold.seq
    caused = table.end_phase()

    assert table.due() == ["marines:morale"]
    # This phase's loss alone is the cause: last turn's two, tested for then, are not cited again.
    assert (only(caused, out.TestDue).rule, only(caused, out.TestDue).caused_by) == (
        "wh40k6.trigger.casualties",
        (dangerous_terrain,),
    )


@pytest.mark.parametrize(
    ("models", "lost", "tested"),
    [
        (4, 1, True),  # exactly 25%
        (8, 2, True),  # exactly 25%
        (10, 2, False),  # 20%
        (10, 3, True),
        (21, 5, False),  # 5.25 rounds up: 6 of 21 are needed
        (21, 6, True),
        (3, 1, True),
        (25, 6, False),  # 24%: just under a quarter (a threshold of 24% would test it)
    ],
)
def test_wh40k6_trigger_casualties_25_percent_or_more(models, lost, tested):
    table = Table(unit("marines", models=models), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")
    table.casualties("marines", lost)

    table.end_phase()

    assert table.due() == (["marines:morale"] if tested else [])


def test_wh40k6_trigger_casualties_taken_at_the_end_of_the_phase():
    table = Table(unit("marines", models=4), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")

    table.casualties("marines", 1)
    assert table.due() == []

    table.end_phase()
    assert table.due() == ["marines:morale"]
    refusal = table.refuse(PhaseStarted(turn=1, side="orks", phase="assault"))
    assert refusal.rule == "engine.clock.tests_first"


def test_wh40k6_trigger_casualties_losses_in_one_phase_add_up():
    table = Table(unit("marines", models=8), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")
    table.casualties("marines", 1)
    first = table.battle.seq
    table.casualties("marines", 1)
    second = table.battle.seq

    caused = table.end_phase()

    due = only(caused, out.TestDue)
    assert due.rule == "wh40k6.trigger.casualties"
    assert due.caused_by == (first, second)


def test_wh40k6_trigger_casualties_losses_in_separate_phases_do_not_add_up():
    table = Table(unit("marines", models=8), unit("boyz", "orks"))
    table.go_to(1, "imperium", "movement")
    table.casualties("marines", 1, cause="dangerous terrain")
    table.end_phase()
    assert table.due() == []

    table.go_to(1, "orks", "shooting")
    table.casualties("marines", 1)  # 2 of 8 this turn, but only 1 of 7 in this phase
    table.end_phase()

    assert table.due() == []


def test_wh40k6_trigger_casualties_counted_against_models_at_phase_start():
    table = Table(unit("marines", models=10), unit("boyz", "orks"))
    table.go_to(1, "imperium", "movement")
    table.casualties("marines", 2, cause="dangerous terrain")  # 2 of 10: no test
    table.end_phase()
    table.go_to(1, "orks", "shooting")

    table.casualties("marines", 2)  # 2 of the 8 left: a test, though only 20% of the starting 10
    table.end_phase()

    assert table.due() == ["marines:morale"]


@pytest.mark.parametrize(("side", "phase"), [("imperium", "movement"), ("orks", "movement"), ("orks", "shooting")])
def test_wh40k6_trigger_casualties_in_any_movement_or_shooting_phase(side, phase):
    table = Table(unit("marines", models=10), unit("boyz", "orks"))
    table.go_to(1, side, phase)
    table.casualties("marines", 3)

    table.end_phase()

    assert table.due() == ["marines:morale"]


@pytest.mark.parametrize(("side", "phase"), [("orks", "psychic"), ("orks", "assault"), ("imperium", "assault")])
def test_wh40k6_trigger_casualties_none_in_psychic_or_assault_phase(side, phase):
    table = Table(unit("marines", models=10), unit("boyz", "orks"))
    table.go_to(1, side, phase)
    table.casualties("marines", 5)

    caused = table.end_phase()

    assert table.due() == []
    assert not any(isinstance(o, out.TestDue | out.TestResolved) for o in caused)


def test_wh40k6_trigger_casualties_not_for_a_unit_wiped_out():
    table = Table(unit("marines", models=3), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")
    table.casualties("marines", 3)

    table.end_phase()

    assert table.state("marines") == "destroyed"
    assert table.due() == []


# -- wh40k6.trigger.combat_lost -----------------------------------------------------------------
@pytest.mark.parametrize(("dice", "passed"), [((3, 3), True), ((1, 5), True), ((4, 3), False), ((2, 5), False)])
def test_wh40k6_trigger_combat_lost_ld8_by_two_needs_six_or_less(dice, passed):
    """The rule's own example: Ld 8, lost the combat by 2 wounds: needs 6 or less."""
    table = Table(unit("guard", ld=8), unit("boyz", "orks"))
    table.go_to(1, "orks", "assault")
    caused = table.record(combat(["guard"], 1, ["boyz"], 3))

    due = only(caused, out.TestDue)
    assert due.rule == "wh40k6.trigger.combat_lost"
    assert [m.value for m in due.modifiers] == [-2]

    result = only(table.roll("guard", "morale", *dice), out.TestResolved)

    assert result.target == 6
    assert result.trigger == "wh40k6.trigger.combat_lost"
    assert result.passed is passed
    assert table.state("guard") == ("steady" if passed else "falling_back")


def test_wh40k6_trigger_combat_lost_winner_takes_no_test():
    table = Table(unit("guard"), unit("boyz", "orks"))
    table.go_to(1, "orks", "assault")

    table.record(combat(["guard"], 1, ["boyz"], 3))

    assert table.due() == ["guard:morale"]


def test_wh40k6_trigger_combat_lost_a_draw_tests_nobody():
    table = Table(unit("guard"), unit("boyz", "orks"))
    table.go_to(1, "orks", "assault")

    caused = table.record(combat(["guard"], 2, ["boyz"], 2))

    assert caused == ()
    assert table.due() == []


def test_wh40k6_trigger_combat_lost_counts_combat_resolution_bonus():
    table = Table(unit("guard", ld=8), unit("boyz", "orks"))
    table.go_to(1, "orks", "assault")

    caused = table.record(combat(["guard"], 3, ["boyz"], 2, orks_bonus=2))  # 3 against 2 + 2

    assert table.due() == ["guard:morale"]
    assert [m.value for m in only(caused, out.TestDue).modifiers] == [-1]


def test_wh40k6_trigger_combat_lost_every_unit_of_the_losing_side_tests():
    table = Table(unit("guard", ld=7), unit("sentinels", ld=8), unit("boyz", "orks"))
    table.go_to(1, "orks", "assault")

    caused = table.record(combat(["guard", "sentinels"], 1, ["boyz"], 4))

    assert sorted(table.due()) == ["guard:morale", "sentinels:morale"]
    assert {o.unit: [m.value for m in o.modifiers] for o in caused if isinstance(o, out.TestDue)} == {
        "guard": [-3],
        "sentinels": [-3],
    }
    assert only(table.roll("sentinels", "morale", 3, 2), out.TestResolved).target == 5
    assert only(table.roll("guard", "morale", 3, 2), out.TestResolved).target == 4


def test_wh40k6_trigger_combat_lost_by_orks_in_the_imperium_turn():
    table = Table(unit("guard"), unit("boyz", "orks", ld=7))
    table.go_to(1, "imperium", "assault")

    caused = table.record(combat(["guard"], 3, ["boyz"], 0))

    assert table.due() == ["boyz:morale"]
    assert only(caused, out.TestDue).rule == "wh40k6.trigger.combat_lost"
    assert only(table.roll("boyz", "morale", 2, 2), out.TestResolved).target == 4
