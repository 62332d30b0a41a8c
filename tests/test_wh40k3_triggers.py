"""wh40k3.trigger.*: when a Morale test is taken (rules/wh40k3.md, "When a test is taken")."""

import pytest
from support.table import combat, only
from support.wh40k3 import charge, fact, table, unit

from morale.core import outcomes as out
from morale.events.types import CombatResolved, CombatSide


# -- wh40k3.trigger.shooting --------------------------------------------------------------------
def test_wh40k3_trigger_shooting_the_rules_example_five_men_lose_two_then_one():
    """5 men lose 2 (60% left): test. Next turn they lose 1 more (25% or more of 3; now 40% of
    their starting strength): test at -1."""
    t = table(unit("squad", ld=8, models=5), unit("boyz", "orks", models=20))
    t.go_to(1, "orks", "shooting")
    t.casualties("squad", 2)

    first = only(t.end_phase(), out.TestDue)

    assert (first.rule, first.target, first.modifiers) == ("wh40k3.trigger.shooting", 8, ())
    assert only(t.roll("squad", "morale", 4, 4), out.TestResolved).passed
    t.go_to(2, "orks", "shooting")
    t.casualties("squad", 1)
    second = only(t.end_phase(), out.TestDue)
    assert (second.rule, second.target, [m.value for m in second.modifiers]) == ("wh40k3.trigger.shooting", 7, [-1])


@pytest.mark.parametrize(
    ("models", "lost", "tested"),
    [
        (4, 1, True),
        (8, 2, True),
        (10, 2, False),
        (10, 3, True),
        (21, 5, False),
        (21, 6, True),
        (3, 1, True),
        (25, 6, False),
        (28, 7, True),
    ],  # 24% is not 25%: the threshold itself, not a rounding of it
)
def test_wh40k3_trigger_shooting_25_percent_or_more_of_its_current_strength(models, lost, tested):
    t = table(unit("squad", models=models), unit("boyz", "orks"))
    t.go_to(1, "orks", "shooting")
    t.casualties("squad", lost)

    t.end_phase()

    assert t.due() == (["squad:morale"] if tested else [])


def test_wh40k3_trigger_shooting_tested_at_the_end_of_the_shooting_phase():
    t = table(unit("squad", models=5), unit("boyz", "orks"))
    t.go_to(1, "orks", "shooting")

    assert t.casualties("squad", 2) == () and t.due() == []
    t.end_phase()
    assert t.due() == ["squad:morale"]


def test_wh40k3_trigger_shooting_losses_of_different_shooting_phases_do_not_add_up():
    t = table(unit("squad", models=10), unit("boyz", "orks"))
    t.go_to(1, "orks", "shooting")
    t.casualties("squad", 2)  # 20%
    t.end_phase()
    t.go_to(2, "orks", "shooting")
    t.casualties("squad", 1)  # 1 of 8: 12.5%

    t.end_phase()

    assert t.due() == []


@pytest.mark.parametrize(("side", "phase"), [("imperium", "shooting"), ("orks", "movement"), ("orks", "assault")])
def test_wh40k3_trigger_shooting_only_enemy_shooting_in_a_shooting_phase(side, phase):
    t = table(unit("squad", models=4), unit("boyz", "orks"))
    t.go_to(1, side, phase)
    t.casualties("squad", 2, cause="gets hot" if side == "imperium" else "shooting")

    t.end_phase()

    assert t.due() == []


# -- wh40k3.trigger.combat_lost -----------------------------------------------------------------
def test_wh40k3_trigger_combat_lost_the_rules_example_dark_eldar_need_5_roll_6():
    """Ld 8, below half (-1), outnumbered 2:1 (-2): 5 or less needed; they roll 6 and Fall Back."""
    t = table(unit("boyz", "orks", models=20), unit("warriors", "eldar", models=10, ld=8), sides=("orks", "eldar"))
    t.go_to(1, "orks", "assault")
    t.record(charge("boyz", "warriors"))
    t.casualties("warriors", 6)  # 4 of 10 left
    t.casualties("boyz", 10)  # 10 left: 2.5 to 1

    due = only(t.record(combat(("orks", "boyz", 6), ("eldar", "warriors", 1))), out.TestDue)

    assert (due.rule, due.target) == ("wh40k3.trigger.combat_lost", 5)
    assert [(m.rule, m.value) for m in due.modifiers] == [
        ("wh40k3.mod.below_half", -1),
        ("wh40k3.trigger.combat_lost", -2),
    ]
    result = only(t.roll("warriors", "morale", 3, 3), out.TestResolved)
    assert (result.passed, result.total, result.target) == (False, 6, 5)
    assert t.state("warriors") == "falling_back"


@pytest.mark.parametrize(
    ("losers", "winners", "modifier"),
    [
        (5, 5, None),
        (5, 4, None),
        (5, 6, -1),
        (5, 9, -1),
        (5, 10, -2),
        (5, 14, -2),
        (5, 15, -3),
        (5, 20, -4),
        (2, 40, -4),
    ],
)
def test_wh40k3_trigger_combat_lost_outnumbered_only_the_largest_modifier_applies(losers, winners, modifier):
    t = table(unit("guard", models=losers), unit("boyz", "orks", models=winners))
    t.go_to(1, "orks", "assault")
    t.record(charge("boyz", "guard"))

    due = only(t.record(combat(("imperium", "guard", 0), ("orks", "boyz", 1))), out.TestDue)

    outnumbering = [m.value for m in due.modifiers if m.rule == "wh40k3.trigger.combat_lost"]
    assert outnumbering == ([] if modifier is None else [modifier])


def test_wh40k3_trigger_combat_lost_the_side_that_lost_more_men_tests_every_unit_of_it():
    t = table(unit("guard", models=10), unit("vets", models=5), unit("boyz", "orks", models=30))
    t.go_to(1, "orks", "assault")
    t.record(charge("boyz", "guard", "vets"))
    sides = [
        CombatSide(side="imperium", units=("guard", "vets"), wounds_inflicted=2),
        CombatSide(side="orks", units=("boyz",), wounds_inflicted=3),
    ]

    caused = t.record(CombatResolved(sides=sides))

    assert t.due() == ["guard:morale", "vets:morale"]
    assert {m.reason for due in caused for m in due.modifiers} == {"outnumbered 2:1 or more (30 to 15)"}


def test_wh40k3_trigger_combat_lost_a_draw_makes_nobody_test():
    t = table(unit("guard"), unit("boyz", "orks"))
    t.go_to(1, "orks", "assault")

    assert t.record(combat(("imperium", "guard", 2), ("orks", "boyz", 2))) == ()
    assert t.due() == []


def test_wh40k3_trigger_combat_lost_counts_men_lost_so_a_bonus_is_refused():
    t = table(unit("guard"), unit("boyz", "orks"))
    t.go_to(1, "orks", "assault")
    sides = [
        CombatSide(side="imperium", units=("guard",), wounds_inflicted=2),
        CombatSide(side="orks", units=("boyz",), wounds_inflicted=1, bonus=2),
    ]

    assert t.refuse(CombatResolved(sides=sides)).rule == "wh40k3.trigger.combat_lost"


def test_wh40k3_trigger_combat_lost_only_in_an_assault_phase():
    t = table(unit("guard"), unit("boyz", "orks"))
    t.go_to(1, "orks", "shooting")

    assert t.refuse(combat(("imperium", "guard", 0), ("orks", "boyz", 1))).field == "type"


# -- wh40k3.trigger.tank_shock ------------------------------------------------------------------
def tank_battle():
    return table(
        unit("guard", models=10, ld=7),
        unit("leman_russ", unit_type="tank", models=1, ld=None),
        unit("battlewagon", "orks", unit_type="tank", models=1, ld=None),
        unit("dread", "orks", unit_type="dreadnought", models=1, ld=None),
        unit("boyz", "orks"),
    )


def test_wh40k3_trigger_tank_shock_a_unit_reached_by_an_enemy_tank_tests_after_its_move():
    t = tank_battle()
    t.go_to(1, "orks", "movement")

    due = only(t.record(fact("guard", "tank_shocked", "battlewagon")), out.TestDue)

    assert (due.rule, due.target) == ("wh40k3.trigger.tank_shock", 7)
    only(t.roll("guard", "morale", 4, 4), out.TestResolved)
    assert t.state("guard") == "falling_back" and t.due() == ["guard:fall_back"]


def test_wh40k3_trigger_tank_shock_an_imperial_tank_shocks_an_ork_unit_too():
    """Either side's tank: "imperium" sorts before "orks", and a tank of the side that sorts first
    must not be taken for one of its target's side."""
    t = tank_battle()
    t.go_to(1, "imperium", "movement")

    due = only(t.record(fact("boyz", "tank_shocked", "leman_russ")), out.TestDue)

    assert (due.unit, due.rule, due.test) == ("boyz", "wh40k3.trigger.tank_shock", "morale")


def test_wh40k3_trigger_tank_shock_below_half_strength_tests_at_minus_one():
    t = tank_battle()
    t.go_to(1, "orks", "shooting")
    t.casualties("guard", 6)
    t.end_phase()
    t.roll("guard", "morale", 1, 1)
    t.go_to(2, "orks", "movement")

    due = only(t.record(fact("guard", "tank_shocked", "battlewagon")), out.TestDue)

    assert (due.target, due.modifiers[0].rule) == (6, "wh40k3.mod.below_half")


@pytest.mark.parametrize(
    ("tank", "phase", "refused_by"),
    [
        ("dread", ("orks", "movement"), "value"),  # a dreadnought is no tank
        ("nobody", ("orks", "movement"), "value"),
        ("battlewagon", ("orks", "shooting"), "wh40k3.trigger.tank_shock"),
        ("battlewagon", ("imperium", "movement"), "wh40k3.trigger.tank_shock"),  # not the tank's own turn
    ],
)
def test_wh40k3_trigger_tank_shock_refused_unless_an_enemy_tank_in_its_movement_phase(tank, phase, refused_by):
    t = tank_battle()
    t.go_to(1, *phase)

    refusal = t.refuse(fact("guard", "tank_shocked", tank))

    assert refused_by in (refusal.rule, refusal.field)


@pytest.mark.parametrize(
    ("tank", "target", "phase"),
    [
        ("leman_russ", "boyz", ("orks", "movement")),  # the enemy's Movement phase, not the tank's
        ("battlewagon", "guard", ("orks", "assault")),  # the tank's own turn, but its Assault phase
    ],
)
def test_wh40k3_trigger_tank_shock_only_in_the_tanks_own_movement_phase(tank, target, phase):
    t = tank_battle()
    t.go_to(1, *phase)

    refusal = t.refuse(fact(target, "tank_shocked", tank))

    assert (refusal.rule, refusal.message) == (
        "wh40k3.trigger.tank_shock",
        f"{tank} can tank shock only in its own Movement phase",
    )


def test_wh40k3_trigger_tank_shock_only_a_tank_not_another_vehicle():
    t = table(unit("guard"), unit("trukk", "orks", unit_type="vehicle", models=1, ld=None))
    t.go_to(1, "orks", "movement")

    refusal = t.refuse(fact("guard", "tank_shocked", "trukk"))

    assert (refusal.field, refusal.message) == (
        "value",
        "tank_shocked takes the id of the tank that reached the unit, not 'trukk'",
    )


def test_wh40k3_trigger_tank_shock_not_by_a_tank_of_its_own_side():
    t = tank_battle()
    t.go_to(1, "imperium", "movement")

    assert t.refuse(fact("guard", "tank_shocked", "leman_russ")).rule == "wh40k3.trigger.tank_shock"


def test_wh40k3_trigger_tank_shock_a_tank_shocking_a_tank_causes_no_test():
    t = tank_battle()
    t.go_to(1, "orks", "movement")

    caused = t.record(fact("leman_russ", "tank_shocked", "battlewagon"))

    assert only(caused, out.TestNotTaken).rule == "wh40k3.who.infantry"


# -- wh40k3.trigger.last_man --------------------------------------------------------------------
def reduced_to_one(t, unit_id: str = "squad") -> None:
    t.go_to(1, "orks", "shooting")
    t.casualties(unit_id, 4)
    t.end_phase()
    t.roll(unit_id, "morale", 1, 2)


def test_wh40k3_trigger_last_man_tests_at_the_start_of_each_of_its_own_turns():
    t = table(unit("squad", models=5, ld=8), unit("boyz", "orks"))
    reduced_to_one(t)

    due = only(t.go_to(2, "imperium", "movement"), out.TestDue)

    assert (due.rule, due.target) == ("wh40k3.trigger.last_man", 7)  # below half, too
    assert only(t.roll("squad", "morale", 3, 4), out.TestResolved).passed  # passed: fights on
    assert t.state("squad") == "steady"
    t.go_to(2, "orks", "movement")
    assert t.due() == []  # not at the start of the enemy's turn
    assert only(t.go_to(3, "imperium", "movement"), out.TestDue).rule == "wh40k3.trigger.last_man"


def test_wh40k3_trigger_last_man_failed_falls_back():
    t = table(unit("squad", models=5, ld=8), unit("boyz", "orks"))
    reduced_to_one(t)
    t.go_to(2, "imperium", "movement")

    caused = t.roll("squad", "morale", 4, 4)

    assert only(caused, out.StateChanged).to_state == "falling_back"
    assert t.due() == ["squad:fall_back"]


def test_wh40k3_trigger_last_man_not_for_a_unit_that_started_as_one_model():
    t = table(unit("commissar", models=1), unit("boyz", "orks"))

    t.go_to(2, "imperium", "movement")

    assert t.due() == []
