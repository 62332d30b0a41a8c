"""gdb.mod.*: the modifiers of the Morale Check Test, each shown with its rule ID."""

from __future__ import annotations

import pytest
from support.gdb import change, charge, due_modifiers, fact, gdb_table, gdb_unit, near, roll

from morale.core.outcomes import Modifier
from morale.core.rulesets.gdb.modifiers import general_modifiers
from morale.events.types import ChargeDeclared, RefereeRuled, TableFactRecorded, UnitChanged, UnitJoined


def charging(*units: UnitJoined, charger: str = "fusiliers", target: str = "whitecoats", flank=()):
    """The charger's test, due: its modifiers read off the due list."""
    table = gdb_table(*units)
    table.go_to(1, "french", "charge")
    charge(table, charger, target, flank=flank)
    return table


def charged(*units: UnitJoined, charger: str = "whitecoats", target: str = "fusiliers", flank=()):
    """The target's test, due once the charger passed with a Charge result."""
    table = charging(*units, charger=charger, target=target, flank=flank)
    roll(table, charger, "charging", 6, 5)
    return table


def french(unit_id: str = "fusiliers", **profile):
    return gdb_unit(unit_id, **profile)


def allied(unit_id: str = "whitecoats", **profile):
    return gdb_unit(unit_id, "allies", **{"brigade": "second", **profile})


def general(*units: UnitJoined, unit: str = "fusiliers") -> dict[str, int]:
    return due_modifiers(charging(*units, charger=unit), unit)


# -- general modifiers ------------------------------------------------------------------------------
@pytest.mark.parametrize(("commander", "value"), [("brigade", 1), ("commander_in_chief", 1), ("none", None)])
def test_gdb_mod_commander_attached_gives_plus_one(commander, value):
    mods = general(french(commander=commander), allied())
    assert mods.get("gdb.mod.commander") == value


def test_gdb_mod_commander_joining_during_the_battle_arrives_as_a_unit_changed():
    table = gdb_table(french(), allied())
    table.go_to(1, "french", "movement")
    change(table, "fusiliers", commander="brigade")
    table.go_to(1, "french", "charge")
    charge(table, "fusiliers", "whitecoats")
    assert due_modifiers(table, "fusiliers")["gdb.mod.commander"] == 1


@pytest.mark.parametrize(
    ("quality", "value"),
    [("guard", 2), ("elite", 1), ("veteran", 1), ("line", None), ("second_line", -1), ("recruit", -1)],
)
def test_gdb_mod_quality(quality, value):
    assert general(french(quality=quality), allied()).get("gdb.mod.quality") == value


def test_gdb_mod_no_losses_only_while_the_unit_has_lost_nothing():
    assert general(french(), allied())["gdb.mod.no_losses"] == 1
    assert "gdb.mod.no_losses" not in general(french(models=19, full_strength=20), allied())


@pytest.mark.parametrize(
    ("lost", "value"),
    [(1, None), (2, None), (3, -1), (5, -1), (6, -2), (7, -2), (8, -3), (15, -3)],
)
def test_gdb_mod_losses_more_than_10_25_35_percent_of_full_strength_only_the_largest(lost, value):
    """Of 20 figures: 2 is 10% (not more), 5 is 25%, 7 is 35%."""
    mods = general(french(models=20 - lost, full_strength=20), allied())
    assert mods.get("gdb.mod.losses") == value


@pytest.mark.parametrize(("location", "value"), [("building", 2), ("redoubt", 2), ("castle", 3), ("church", 3)])
def test_gdb_mod_cover(location, value):
    assert general(french(location=location), allied())["gdb.mod.cover"] == value


def test_gdb_mod_cover_not_when_the_enemy_is_inside_the_same_built_up_area():
    table = gdb_table(french(location="church"), allied())
    table.go_to(1, "french", "movement")
    fact(table, "fusiliers", "enemy_in_built_up_area", True)
    table.go_to(1, "french", "charge")
    charge(table, "fusiliers", "whitecoats")
    assert "gdb.mod.cover" not in due_modifiers(table, "fusiliers")


def test_gdb_mod_cover_an_enemy_in_the_built_up_area_of_a_unit_in_the_open_is_refused():
    table = gdb_table(french(), allied())
    refused = table.refuse(TableFactRecorded(unit="fusiliers", fact="enemy_in_built_up_area", value=True))
    assert refused.rule == "gdb.mod.cover"


def test_gdb_mod_cover_cavalry_cannot_defend_a_building():
    table = gdb_table(french(), allied())
    refused = table.refuse(gdb_unit("chasseurs", unit_type="cavalry", location="church"))
    assert refused.rule == "gdb.mod.cover"
    table.record(gdb_unit("chasseurs", unit_type="cavalry"))
    assert table.refuse(UnitChanged(unit="chasseurs", changes={"location": "building"})).rule == "gdb.mod.cover"


def test_gdb_mod_square():
    assert general(french(formation="square"), allied())["gdb.mod.square"] == 2
    assert "gdb.mod.square" not in general(french(formation="column"), allied())


@pytest.mark.parametrize("unit_type", ["cavalry", "foot_artillery", "horse_artillery", "skirmishers"])
def test_gdb_mod_square_only_infantry_forms_square(unit_type):
    table = gdb_table(french(), allied())
    assert table.refuse(gdb_unit("x", unit_type=unit_type, formation="square")).rule == "gdb.mod.square"


def test_gdb_mod_square_a_change_into_square_for_cavalry_is_refused_and_nothing_is_written():
    table = gdb_table(french(), allied(), gdb_unit("lancers", unit_type="cavalry"))
    assert table.refuse(UnitChanged(unit="lancers", changes={"formation": "square"})).rule == "gdb.mod.square"
    assert table.unit("lancers").profile["formation"] is None


def test_gdb_mod_friends_fleeing_minus_one_for_each_routing_or_retreating_friend_within_15cm():
    table = gdb_table(french(), french("ligne"), french("legere"), french("far"), allied())
    near(table, "fusiliers", "ligne", "legere")
    table.record(RefereeRuled(unit="ligne", state="broken", reason="routed"))
    table.record(RefereeRuled(unit="legere", state="falling_back", reason="retreating"))
    table.record(RefereeRuled(unit="far", state="broken", reason="routed, but 30 cm away"))
    table.go_to(1, "french", "charge")
    charge(table, "fusiliers", "whitecoats")
    (mod,) = [m for m in table.battle.due[0].modifiers if m.rule == "gdb.mod.friends_fleeing"]
    assert mod.value == -2 and "ligne" in mod.reason and "legere" in mod.reason


def test_gdb_mod_friends_fleeing_not_for_friends_gone_beyond_15cm_nor_those_it_ignores():
    table = gdb_table(french(), french("ligne"), gdb_unit("hussars", unit_type="cavalry"), allied())
    near(table, "fusiliers", "ligne", "hussars")
    fact(table, "fusiliers", "beyond_15cm", "ligne")
    table.record(RefereeRuled(unit="ligne", state="broken", reason="routed"))
    table.record(RefereeRuled(unit="hussars", state="broken", reason="routed: infantry ignores cavalry"))
    table.go_to(1, "french", "charge")
    charge(table, "fusiliers", "whitecoats")
    assert "gdb.mod.friends_fleeing" not in due_modifiers(table, "fusiliers")


def test_gdb_mod_disordered_wavering_unformed_or_retreating():
    assert general(french(formed=False), allied())["gdb.mod.disordered"] == -1
    assert "gdb.mod.disordered" not in general(french(), allied())
    table = gdb_table(french(), allied())
    for state in ("wavering", "falling_back"):
        table.record(RefereeRuled(unit="fusiliers", state=state, reason=state))
        assert _modifier(table, "fusiliers", "gdb.mod.disordered").value == -1


def test_gdb_mod_routing_minus_two_instead_of_disordered():
    table = gdb_table(french(formed=False), allied())
    table.record(RefereeRuled(unit="fusiliers", state="broken", reason="routed"))
    assert _modifier(table, "fusiliers", "gdb.mod.routing").value == -2
    assert _modifier(table, "fusiliers", "gdb.mod.disordered") is None


def _modifier(table, unit: str, rule_id: str) -> Modifier | None:
    found = [m for m in general_modifiers(table.battle, table.unit(unit)) if m.rule == rule_id]
    return found[0] if found else None


# -- a charging unit --------------------------------------------------------------------------------
def test_gdb_mod_charge_losses_minus_one_for_each_figure_lost_during_the_charge():
    table = charging(french(), allied())
    table.casualties("fusiliers", 2, cause="closing fire")
    mods = due_modifiers(table, "fusiliers")
    assert mods["gdb.mod.charge.losses"] == -2 and "gdb.mod.no_losses" not in mods
    table.casualties("fusiliers", 1, cause="closing fire")
    assert due_modifiers(table, "fusiliers")["gdb.mod.charge.losses"] == -3


def test_gdb_mod_charge_losses_count_only_figures_lost_after_the_charge_was_declared():
    table = gdb_table(french(), allied())
    table.go_to(1, "french", "charge")
    table.casualties("fusiliers", 1, cause="skirmishers")
    charge(table, "fusiliers", "whitecoats")
    assert "gdb.mod.charge.losses" not in due_modifiers(table, "fusiliers")


def test_gdb_mod_charge_losses_not_once_the_chargers_test_is_rolled():
    """fusiliers charge home (7: Charge) and then lose figures: their charging test is rolled, so
    nothing is restated. Charged in their turn by greencoats, they lose more with their charged test
    due: it keeps the modifiers it was called with, none of a charger's."""
    table = gdb_table(french(), allied(), allied("greencoats"))
    table.go_to(1, "french", "charge")
    charge(table, "fusiliers", "whitecoats")
    roll(table, "fusiliers", "charging", 4, 3)
    table.casualties("fusiliers", 1, cause="closing fire")
    assert [(d.unit, d.test) for d in table.battle.due] == [("whitecoats", "charged")]
    roll(table, "whitecoats", "charged", 4, 4)
    charge(table, "greencoats", "fusiliers")
    roll(table, "greencoats", "charging", 4, 3)
    assert due_modifiers(table, "fusiliers") == {"gdb.mod.charged.line": -1}
    table.casualties("fusiliers", 2, cause="musketry")
    assert due_modifiers(table, "fusiliers") == {"gdb.mod.charged.line": -1}


def test_gdb_mod_charge_losses_not_for_a_chargers_morale_phase_test():
    """fusiliers charged this turn (and halted); shot down to 17 figures, they test in the Morale
    phase. A figure lost while that test is due is no loss during a charge: the test stands as called."""
    table = gdb_table(french(), allied())
    table.go_to(1, "french", "charge")
    charge(table, "fusiliers", "whitecoats")
    roll(table, "fusiliers", "charging", 2, 2)  # 5: Halt
    table.go_to(1, "french", "shooting")
    table.casualties("fusiliers", 3)
    table.go_to(1, "french", "morale")
    assert due_modifiers(table, "fusiliers") == {"gdb.mod.losses": -1}
    table.casualties("fusiliers", 1)
    assert due_modifiers(table, "fusiliers") == {"gdb.mod.losses": -1}


def test_gdb_mod_charge_flank():
    assert general(french(), allied(), unit="fusiliers") == {"gdb.mod.no_losses": 1}
    table = charging(french(), allied(), flank=("whitecoats",))
    assert due_modifiers(table, "fusiliers")["gdb.mod.charge.flank"] == 1


def test_gdb_mod_charge_unformed():
    table = charging(french(), allied(formed=False))
    assert due_modifiers(table, "fusiliers")["gdb.mod.charge.unformed"] == 1


def test_gdb_mod_charge_unformed_with_flank_adds_up_to_plus_one_at_most():
    table = charging(french(), allied(formed=False), flank=("whitecoats",))
    (due,) = table.battle.due
    shown = {m.rule: (m.value, m.ignored_by) for m in due.modifiers}
    assert shown["gdb.mod.charge.flank"] == (1, "")
    assert shown["gdb.mod.charge.unformed"] == (1, "gdb.mod.charge.unformed")  # shown, not counted
    test = roll(table, "fusiliers", "charging", 3, 2)[0]
    assert test.total == 5 + 1 + 1  # no losses, and one bonus: Halt


# -- a charged or countercharging unit --------------------------------------------------------------
def test_gdb_mod_charged_line_infantry_in_line_charged_by_infantry():
    assert due_modifiers(charged(french(formation="line"), allied()), "fusiliers")["gdb.mod.charged.line"] == -1
    table = charged(french(formation="line"), allied(unit_type="cavalry"))
    assert "gdb.mod.charged.line" not in due_modifiers(table, "fusiliers")


def test_gdb_mod_charged_column_minus_two_minus_one_for_russian_infantry():
    table = charged(french(formation="column"), allied())
    assert due_modifiers(table, "fusiliers")["gdb.mod.charged.column"] == -2
    table = charged(
        allied("pavlovsk", formation="column", tags=("russian",)), french("ligne"), charger="ligne", target="pavlovsk"
    )
    assert due_modifiers(table, "pavlovsk")["gdb.mod.charged.column"] == -1


def test_gdb_mod_charged_cavalry_infantry_not_in_square_minus_one_against_cossacks():
    assert due_modifiers(charged(french(), allied(unit_type="cavalry")), "fusiliers")["gdb.mod.charged.cavalry"] == -2
    cossacks = allied(unit_type="cavalry", tags=("cossack", "russian"))
    assert due_modifiers(charged(french(), cossacks), "fusiliers")["gdb.mod.charged.cavalry"] == -1
    in_square = due_modifiers(charged(french(formation="square"), allied(unit_type="cavalry")), "fusiliers")
    assert "gdb.mod.charged.cavalry" not in in_square and in_square["gdb.mod.square"] == 2


def test_gdb_mod_charged_cavalry_only_cavalry_can_be_cossacks():
    table = gdb_table(french(), allied())
    assert table.refuse(gdb_unit("opolchenie", "allies", tags=("cossack",))).rule == "gdb.mod.charged.cavalry"


@pytest.mark.parametrize(("charger_type", "value"), [("infantry", -2), ("cavalry", -2), ("skirmishers", None)])
def test_gdb_mod_charged_artillery_charged_by_infantry_or_cavalry(charger_type, value):
    table = charged(french(unit_type="foot_artillery", models=4), allied(unit_type=charger_type))
    assert due_modifiers(table, "fusiliers").get("gdb.mod.charged.artillery") == value


def test_gdb_mod_charged_flank():
    table = charged(french(), allied(), flank=("fusiliers",))
    assert due_modifiers(table, "fusiliers")["gdb.mod.charged.flank"] == -4


def test_gdb_mod_charged_flank_not_for_austrian_infantry_in_mass_charged_by_cavalry():
    mass = dict(formation="mass", tags=("austrian",))
    by_cavalry = charged(
        allied("ir4", **mass),
        french("cuirassiers", unit_type="cavalry"),
        charger="cuirassiers",
        target="ir4",
        flank=("ir4",),
    )
    assert "gdb.mod.charged.flank" not in due_modifiers(by_cavalry, "ir4")
    by_infantry = charged(allied("ir4", **mass), french("ligne"), charger="ligne", target="ir4", flank=("ir4",))
    assert due_modifiers(by_infantry, "ir4")["gdb.mod.charged.flank"] == -4


def test_gdb_mod_charged_flank_a_flank_target_must_be_a_declared_target():
    table = gdb_table(french(), allied(), allied("ir4"))
    table.go_to(1, "french", "charge")
    refused = table.refuse(ChargeDeclared(charger="fusiliers", targets=("whitecoats",), flank=("ir4",)))
    assert refused.field == "flank"
