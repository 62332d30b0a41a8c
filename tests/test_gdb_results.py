"""gdb.result.*, gdb.waver.*, gdb.retreat.*, gdb.rout.*, gdb.brigade.*: what each result does to a unit,
how long it lasts, and how units come back (or do not)."""

from __future__ import annotations

import pytest
from support.gdb import (
    allied,
    change,
    charge,
    decide,
    fact,
    french,
    gdb_table,
    gdb_unit,
    near,
    not_taken,
    profile,
    resolved,
    restrictions,
    roll,
)

from morale.app.tables import pin, pinned_tables
from morale.core import outcomes as out
from morale.core.outcomes import Outcome
from morale.core.rulesets import lookup
from morale.events.types import ChargeDeclared, DiceRolled, PlayerDecided, RefereeRuled, TableFactRecorded, UnitChanged
from morale.projections.board import board


def cavalry(unit_id: str = "chevaulegers", **profile):
    return allied(unit_id, unit_type="cavalry", models=12, **profile)


def charged_by_cavalry(table, unit: str, *dice: int, by: str = "chevaulegers") -> list[Outcome]:
    """Line infantry charged by cavalry: 2D6 + 1 (no losses) - 2 (cavalry), in the charged column."""
    table.go_to(1, "french", "charge")
    charge(table, by, unit)
    roll(table, by, "charging", 6, 5)
    return roll(table, unit, "charged", *dice)


def a_morale_test(table, unit: str, *dice: int, lost: int = 3) -> list[Outcome]:
    """3 figures of 20 lost to shooting (-1): a Morale-phase test in the morale column."""
    table.go_to(table.battle.turn or 1, "french", "shooting")
    table.casualties(unit, lost)
    table.go_to(table.battle.turn, "french", "morale")
    return roll(table, unit, "morale", *dice)


def state_changes(outcomes: list[Outcome]) -> list[tuple[str, str, str]]:
    return [(o.unit, o.to_state, o.rule) for o in outcomes if isinstance(o, out.StateChanged)]


# -- charge, carry on, halt ---------------------------------------------------------------------------
def test_gdb_result_charge_the_unit_charges_home_and_stays_steady():
    table = gdb_table(french("ligne"), allied("ir4"))
    table.go_to(1, "french", "charge")
    charge(table, "ligne", "ir4")
    caused = roll(table, "ligne", "charging", 3, 3)
    assert resolved(caused).result == "charge" and table.state("ligne") == "steady"
    assert restrictions(table, "ligne") == []


def test_gdb_result_carry_on_no_melee_this_turn_then_free_again():
    table = gdb_table(french("ligne"), allied("ir4"), allied("ir5"))
    table.go_to(1, "french", "charge")
    charge(table, "ir4", "ligne")
    roll(table, "ir4", "charging", 4, 4)
    caused = roll(table, "ligne", "charged", 4, 3)  # 7 + 1 - 1 (line v infantry) = 7: Carry out orders
    assert resolved(caused).result == "carry_on" and table.state("ligne") == "steady"
    assert restrictions(table, "ligne") == ["no_melee"]
    assert table.refuse(ChargeDeclared(charger="ligne", targets=("ir5",))).rule == "gdb.result.carry_on"
    lifted = table.go_to(2, "french", "movement")
    assert any(isinstance(o, out.RestrictionLifted) and o.unit == "ligne" for o in lifted)
    assert restrictions(table, "ligne") == []


def test_gdb_result_halt_stays_formed_until_the_end_of_the_turn():
    table = gdb_table(french("ligne"), allied("ir4"))
    table.go_to(1, "french", "charge")
    charge(table, "ligne", "ir4")
    caused = roll(table, "ligne", "charging", 2, 2)  # 5: Halt
    assert resolved(caused).result == "halt" and table.state("ligne") == "steady"
    assert profile(table, "ligne")["formed"] is True
    (applied,) = [o for o in caused if isinstance(o, out.RestrictionApplied)]
    assert (applied.restriction, applied.rule, applied.until) == ("halted", "gdb.result.halt", "end of turn 1")
    table.go_to(2, "french", "movement")
    assert restrictions(table, "ligne") == []


# -- waver ------------------------------------------------------------------------------------------
def test_gdb_result_waver_stops_unformed_and_may_not_reform_this_turn():
    table = gdb_table(french("ligne", formation="column"), cavalry())
    caused = charged_by_cavalry(table, "ligne", 2, 3)  # 5 + 1 - 2 = 4: Waver
    assert resolved(caused).result == "waver"
    assert state_changes(caused) == [("ligne", "wavering", "gdb.result.waver")]
    assert profile(table, "ligne")["formed"] is False
    assert restrictions(table, "ligne") == ["may_not_reform"]
    row = next(r for r in board(table.battle).units if r.unit == "ligne")
    assert "cannot move until it has reformed; may shoot only if charged" in [r.text for r in row.restrictions]


def test_gdb_result_waver_skirmishers_halt_instead():
    table = gdb_table(french("voltigeurs", unit_type="skirmishers", models=8), cavalry())
    caused = charged_by_cavalry(table, "voltigeurs", 2, 1)  # 3 + 1 = 4: Waver, for skirmishers a Halt
    assert resolved(caused).result == "waver"
    assert table.state("voltigeurs") == "steady" and restrictions(table, "voltigeurs") == ["halted"]
    assert [o.rule for o in caused if isinstance(o, out.RestrictionApplied)] == ["gdb.result.waver"]


def test_gdb_result_waver_a_wavering_unit_cannot_charge_or_change_formation():
    table = gdb_table(french("ligne", formation="column"), cavalry(), allied("ir4"))
    charged_by_cavalry(table, "ligne", 2, 3)
    assert table.refuse(UnitChanged(unit="ligne", changes={"formation": "square"})).rule == "gdb.waver.reform"
    assert table.refuse(UnitChanged(unit="ligne", changes={"formed": True})).rule == "gdb.waver.reform"
    table.go_to(2, "french", "charge")
    assert table.refuse(ChargeDeclared(charger="ligne", targets=("ir4",))).rule == "gdb.result.waver"


def test_gdb_waver_reform_not_before_the_movement_phase_of_the_next_turn():
    table = gdb_table(french("ligne", formation="column"), cavalry())
    charged_by_cavalry(table, "ligne", 2, 3)
    assert table.refuse(PlayerDecided(unit="ligne", decision="reform")).rule == "gdb.waver.reform"
    table.go_to(1, "french", "morale")
    assert table.refuse(PlayerDecided(unit="ligne", decision="reform")).rule == "gdb.waver.reform"
    table.go_to(2, "french", "charge")  # the next turn, but not its Movement phase
    assert table.refuse(PlayerDecided(unit="ligne", decision="reform")).rule == "gdb.waver.reform"


def test_gdb_waver_reform_takes_the_whole_movement_phase_into_the_same_formation():
    table = gdb_table(french("ligne", formation="column"), cavalry())
    charged_by_cavalry(table, "ligne", 2, 3)
    table.go_to(2, "french", "movement")
    caused = decide(table, "ligne", "reform")
    assert [o.restriction for o in caused if isinstance(o, out.RestrictionApplied)] == ["reforming"]
    assert table.state("ligne") == "wavering"  # until the end of the Movement phase
    assert table.refuse(UnitChanged(unit="ligne", changes={"formation": "line"})).rule == "gdb.waver.reform"
    ended = table.end_phase()
    assert state_changes(ended) == [("ligne", "steady", "gdb.waver.reform")]
    assert (profile(table, "ligne")["formed"], profile(table, "ligne")["formation"]) == (True, "column")
    assert restrictions(table, "ligne") == ["reforming"]  # no move, no shooting this turn
    table.go_to(2, "french", "charge")
    assert table.refuse(ChargeDeclared(charger="ligne", targets=("chevaulegers",))).rule == "gdb.waver.reform"


def test_gdb_result_waver_a_wavering_unit_that_reads_waver_again_is_unchanged():
    """Charged by cavalry it wavers (1 + 4 + 1 - 2 = 4); it then loses 3 figures to shooting and its
    Morale-phase test reads Waver again (6 - 1 losses - 1 disordered = 4). Nothing changes: it
    is still wavering, and still reforms from the next turn's Movement phase."""
    table = gdb_table(french("ligne"), cavalry())
    charged_by_cavalry(table, "ligne", 1, 4)
    assert table.state("ligne") == "wavering"
    caused = a_morale_test(table, "ligne", 3, 3)
    assert (resolved(caused).total, resolved(caused).result) == (4, "waver")
    assert {m.rule for m in resolved(caused).modifiers} == {"gdb.mod.losses", "gdb.mod.disordered"}
    assert state_changes(caused) == [] and table.state("ligne") == "wavering"
    table.go_to(2, "french", "movement")
    decide(table, "ligne", "reform")
    assert restrictions(table, "ligne") == ["reforming"]


def test_gdb_waver_reform_only_a_wavering_unit_reforms():
    table = gdb_table(french("ligne"), cavalry())
    table.go_to(1, "french", "movement")
    assert table.refuse(PlayerDecided(unit="ligne", decision="reform")).rule == "gdb.waver.reform"


@pytest.mark.parametrize("phase", ["charge", "shooting", "melee", "morale"])
def test_gdb_waver_reform_in_a_later_turn_only_in_its_movement_phase(phase):
    table = gdb_table(french("ligne", formation="column"), cavalry())
    charged_by_cavalry(table, "ligne", 2, 3)
    table.go_to(2, "french", phase)
    refused = table.refuse(PlayerDecided(unit="ligne", decision="reform"))
    assert refused.rule == "gdb.waver.reform" and "may reform only from the Movement phase" in str(refused)


def test_gdb_waver_reform_a_wavering_unit_keeps_its_formation_whichever_it_would_take():
    """ligne wavers in line: column, square or mass are all refused while it wavers, and once it has
    reformed (into line) it may not change formation for the rest of the turn."""
    table = gdb_table(french("ligne", formation="line"), cavalry())
    charged_by_cavalry(table, "ligne", 2, 3)
    assert table.state("ligne") == "wavering"
    for shape in ("column", "mass", "square"):
        assert table.refuse(UnitChanged(unit="ligne", changes={"formation": shape})).rule == "gdb.waver.reform"
    table.go_to(2, "french", "movement")
    decide(table, "ligne", "reform")
    table.end_phase()
    assert (table.state("ligne"), profile(table, "ligne")["formation"]) == ("steady", "line")
    refused = table.refuse(UnitChanged(unit="ligne", changes={"formation": "column"}))
    assert (
        refused.rule == "gdb.waver.reform"
        and "ligne reforms into the formation it had before and cannot change it this turn" in str(refused)
    )


def test_gdb_waver_reform_a_unit_made_to_retreat_while_reforming_or_forming_up_stays_retreating():
    """Turn 1: ligne routs (and, the enemy in charge range, cannot rally), legere wavers, grenadiers
    retreat and rally. Turn 2's Movement phase: legere reforms and grenadiers form up, when ligne,
    within 15 cm of both, is caught by the enemy. Dispersed, it makes brigade ney test: Retreat. Both
    retreat, and at the end of the phase they are still retreating: neither reformed nor formed up."""
    table = gdb_table(
        french("legere", brigade="ney"),
        french("grenadiers", brigade="ney"),
        french("ligne", brigade="ney"),
        cavalry("chevaulegers"),
        cavalry("kaiser"),
        cavalry("uhlans"),
    )
    charged_by_cavalry(table, "ligne", 1, 1, by="chevaulegers")  # Rout
    charged_by_cavalry(table, "legere", 2, 3, by="kaiser")  # Waver
    charged_by_cavalry(table, "grenadiers", 1, 2, by="uhlans")  # Retreat
    fact(table, "ligne", "enemy_in_charge_range", True)
    table.go_to(1, "french", "morale")
    roll(table, "grenadiers", "rally", 4, 3)  # 7 + 1 - 1 = 7: Rally
    table.go_to(2, "french", "movement")
    decide(table, "legere", "reform")
    assert (restrictions(table, "legere"), restrictions(table, "grenadiers")) == (["reforming"], ["forming_up"])
    near(table, "ligne", "legere", "grenadiers")
    fact(table, "ligne", "contact_with_enemy", True)
    caused = roll(table, "legere", "brigade", 1, 2)  # 3 - 1 (ligne dispersed) = 2: Retreat
    assert resolved(caused).result == "retreat"
    assert state_changes(caused) == [
        ("legere", "falling_back", "gdb.result.retreat"),
        ("grenadiers", "falling_back", "gdb.result.retreat"),
    ]
    ended = table.end_phase()
    assert state_changes(ended) == []
    assert (table.state("legere"), table.state("grenadiers")) == ("falling_back", "falling_back")


# -- retreat ----------------------------------------------------------------------------------------
def test_gdb_result_retreat_falls_back():
    table = gdb_table(french("ligne"), cavalry())
    caused = charged_by_cavalry(table, "ligne", 1, 2)  # 3 + 1 - 2 = 2: Retreat
    assert resolved(caused).result == "retreat"
    assert state_changes(caused) == [("ligne", "falling_back", "gdb.result.retreat")]


def test_gdb_retreat_unformed():
    table = gdb_table(french("ligne"), cavalry())
    caused = charged_by_cavalry(table, "ligne", 1, 2)
    (unformed,) = [o for o in caused if isinstance(o, out.ProfileChanged)]
    assert (unformed.rule, unformed.changes) == ("gdb.retreat.unformed", {"formed": False})
    assert table.refuse(UnitChanged(unit="ligne", changes={"formed": True})).rule == "gdb.retreat.unformed"


@pytest.mark.parametrize(("dice", "words"), [((1, 2), "retreating"), ((1, 1), "routing")])
def test_gdb_retreat_unformed_the_refusal_says_whether_the_unit_retreats_or_routs(dice, words):
    table = gdb_table(french("ligne"), cavalry())
    charged_by_cavalry(table, "ligne", *dice)
    refused = table.refuse(UnitChanged(unit="ligne", changes={"formed": True}))
    assert refused.rule == "gdb.retreat.unformed" and f"ligne is {words} and unformed until it rallies" in str(refused)


def test_gdb_retreat_interpenetrate_friends_it_passes_through_become_unformed():
    table = gdb_table(french("ligne"), french("legere"), cavalry())
    charged_by_cavalry(table, "ligne", 1, 2)
    caused = fact(table, "legere", "interpenetrated", "ligne")
    assert [(o.rule, o.changes) for o in caused] == [("gdb.retreat.interpenetrate", {"formed": False})]


@pytest.mark.parametrize("profile_", [{"formation": "square"}, {"location": "redoubt"}, {"location": "building"}])
def test_gdb_retreat_interpenetrate_not_squares_nor_units_in_redoubts_or_buildings(profile_):
    table = gdb_table(french("ligne"), french("legere", **profile_), cavalry())
    charged_by_cavalry(table, "ligne", 1, 2)
    refused = table.refuse(TableFactRecorded(unit="legere", fact="interpenetrated", value="ligne"))
    assert refused.rule == "gdb.retreat.interpenetrate"


def test_gdb_retreat_interpenetrate_only_by_a_retreating_or_routing_friend():
    table = gdb_table(french("ligne"), french("legere"), cavalry())
    refused = table.refuse(TableFactRecorded(unit="legere", fact="interpenetrated", value="ligne"))
    assert refused.rule == "gdb.retreat.interpenetrate"


@pytest.mark.parametrize(("retreating", "passed_through"), [("ligne", "ir4"), ("ir4", "ligne")])
def test_gdb_retreat_interpenetrate_not_by_a_retreating_enemy(retreating, passed_through):
    """Either side's retreating unit is refused as passing through an enemy."""
    table = gdb_table(french("ligne"), allied("ir4"), cavalry(), gdb_unit("hussars", unit_type="cavalry", models=12))
    charged_by_cavalry(table, "ligne", 1, 2)
    charge(table, "hussars", "ir4")
    roll(table, "hussars", "charging", 6, 5)
    roll(table, "ir4", "charged", 1, 2)
    assert (table.state("ligne"), table.state("ir4")) == ("falling_back", "falling_back")
    refused = table.refuse(TableFactRecorded(unit=passed_through, fact="interpenetrated", value=retreating))
    assert (
        refused.rule == "gdb.retreat.interpenetrate"
        and f"{retreating} is not a retreating or routing friend of {passed_through}" in str(refused)
    )


def test_gdb_retreat_interpenetrate_a_battery_in_the_open_is_passed_through_and_unformed():
    table = gdb_table(french("ligne"), french("battery", unit_type="foot_artillery", models=4), cavalry())
    charged_by_cavalry(table, "ligne", 1, 2)
    caused = fact(table, "battery", "interpenetrated", "ligne")
    assert [(o.rule, o.changes) for o in caused] == [("gdb.retreat.interpenetrate", {"formed": False})]


def test_gdb_retreat_interpenetrate_a_unit_in_good_order_unformed_by_it_may_form_again():
    table = gdb_table(french("ligne"), french("legere"), cavalry())
    charged_by_cavalry(table, "ligne", 1, 2)
    fact(table, "legere", "interpenetrated", "ligne")
    assert profile(table, "legere")["formed"] is False
    change(table, "legere", formed=True)
    assert profile(table, "legere")["formed"] is True


@pytest.mark.parametrize("location", ["building", "castle", "church"])
def test_gdb_retreat_buildings_infantry_leaves_the_built_up_area(location):
    """Recruits in column charged by infantry: 2 + 1 (no losses) + cover - 1 (recruit) - 2 (column)."""
    table = gdb_table(french("ligne", location=location, quality="recruit", formation="column"), allied("ir4"))
    table.go_to(1, "french", "charge")
    charge(table, "ir4", "ligne")
    roll(table, "ir4", "charging", 6, 5)
    caused = roll(table, "ligne", "charged", 1, 1)
    assert resolved(caused).result == "retreat"
    assert ("gdb.retreat.buildings", {"location": "open"}) in [
        (o.rule, o.changes) for o in caused if isinstance(o, out.ProfileChanged)
    ]


def test_gdb_retreat_buildings_only_infantry_is_led_out_skirmishers_stay_where_they_are_put():
    table = gdb_table(
        french(
            "voltigeurs", unit_type="skirmishers", location="building", quality="recruit", models=8, full_strength=12
        ),
        cavalry(),
    )
    caused = charged_by_cavalry(table, "voltigeurs", 1, 2)
    assert resolved(caused).result == "retreat"
    assert profile(table, "voltigeurs")["location"] == "building"


def test_gdb_retreat_buildings_not_a_redoubt_nor_a_retreat_that_no_charge_forced():
    table = gdb_table(french("battery", unit_type="foot_artillery", models=4, location="redoubt"), cavalry())
    charged_by_cavalry(table, "battery", 1, 1)
    assert profile(table, "battery")["location"] == "redoubt"
    table = gdb_table(french("ligne", location="church", quality="recruit"), allied("ir4"))
    caused = a_morale_test(table, "ligne", 1, 1, lost=6)  # 2 + 3 - 1 - 2 (30% lost) = 2: Retreat
    assert resolved(caused).result == "retreat" and profile(table, "ligne")["location"] == "church"


def test_gdb_retreat_artillery_in_a_morale_test_limbers_and_charged_is_dispersed():
    # A battery at its dispersal point (2 of 4 lost) tests in the Morale phase: 5 - 3 (losses) = 2: Retreat.
    table = gdb_table(french("battery", unit_type="foot_artillery", models=2, full_strength=4), allied("ir4"))
    table.go_to(1, "french", "morale")
    caused = roll(table, "battery", "morale", 2, 3)
    assert resolved(caused).result == "retreat" and table.state("battery") == "falling_back"
    assert ("gdb.retreat.artillery", {"formation": "limbered"}) in [
        (o.rule, o.changes) for o in caused if isinstance(o, out.ProfileChanged)
    ]
    table = gdb_table(french("battery", unit_type="foot_artillery", models=4), cavalry())
    caused = charged_by_cavalry(table, "battery", 1, 2)  # 3 + 1 - 2 (artillery charged) = 2: Retreat
    assert state_changes(caused) == [
        ("battery", "falling_back", "gdb.result.retreat"),
        ("battery", "dispersed", "gdb.retreat.artillery"),
    ]


def test_gdb_retreat_artillery_charged_earlier_in_the_turn_a_later_retreat_disperses_it():
    """The battery stands its ground when charged (6 + 3 + 1 - 2 = 8: Carry out orders), then loses
    half its crews to shooting. Its Morale-phase test reads Retreat (5 - 3 = 2): charged this turn, it
    does not limber up as a free manoeuvre but is dispersed, its guns lost."""
    table = gdb_table(french("battery", unit_type="foot_artillery", models=4), cavalry())
    assert resolved(charged_by_cavalry(table, "battery", 6, 3)).result == "carry_on"
    table.go_to(1, "french", "shooting")
    table.casualties("battery", 2)
    table.go_to(1, "french", "morale")
    caused = roll(table, "battery", "morale", 2, 3)
    assert resolved(caused).result == "retreat"
    assert state_changes(caused) == [
        ("battery", "falling_back", "gdb.result.retreat"),
        ("battery", "dispersed", "gdb.retreat.artillery"),
    ]


def test_gdb_retreat_no_fire_the_board_says_a_retreating_unit_does_not_shoot():
    table = gdb_table(french("ligne"), cavalry())
    charged_by_cavalry(table, "ligne", 1, 2)
    row = next(r for r in board(table.battle).units if r.unit == "ligne")
    assert ("does not shoot", "gdb.retreat.no_fire") in [(r.text, r.rule) for r in row.restrictions]


def test_gdb_retreat_melee_a_retreating_unit_charged_takes_no_test_and_loses_the_melee():
    table = gdb_table(french("ligne"), cavalry(), allied("ir4"))
    charged_by_cavalry(table, "ligne", 1, 2)
    charge(table, "ir4", "ligne")
    caused = roll(table, "ir4", "charging", 5, 5)
    assert ("ligne", "charged", "gdb.retreat.melee") in not_taken(caused)
    table.go_to(1, "french", "melee")
    refused = table.refuse(TableFactRecorded(unit="ligne", fact="melee_result", value="carry_on"))
    assert refused.rule == "gdb.retreat.melee"
    caused = fact(table, "ligne", "melee_result", "retreat")
    assert state_changes(caused) == [("ligne", "falling_back", "gdb.retreat.melee")]


def test_gdb_retreat_melee_not_cited_when_a_retreating_unit_reads_retreat_outside_a_melee():
    """A retreating unit that cannot rally (enemy in charge range) tests for its losses and reads
    Retreat (5 - 1 losses - 1 disordered = 3): it simply goes on retreating; no melee was lost."""
    table = gdb_table(french("ligne"), cavalry())
    charged_by_cavalry(table, "ligne", 1, 2)
    assert table.state("ligne") == "falling_back"
    fact(table, "ligne", "enemy_in_charge_range", True)
    caused = a_morale_test(table, "ligne", 2, 3)
    assert (resolved(caused).total, resolved(caused).result) == (3, "retreat")
    assert {m.rule for m in resolved(caused).modifiers} == {"gdb.mod.losses", "gdb.mod.disordered"}
    assert table.state("ligne") == "falling_back"
    assert "gdb.retreat.melee" not in {o.rule for o in caused}


def test_gdb_retreat_rally_passed_it_stops_unformed_and_forms_up_in_the_next_movement_phase():
    table = gdb_table(french("ligne"), cavalry(), allied("ir4"))
    charged_by_cavalry(table, "ligne", 1, 2)
    table.go_to(1, "french", "morale")
    caused = roll(table, "ligne", "rally", 4, 3)  # 7 + 1 (no losses) - 1 (retreating) = 7: Rally
    assert state_changes(caused) == [("ligne", "regrouped", "gdb.retreat.rally")]
    assert profile(table, "ligne")["formed"] is False
    assert table.refuse(UnitChanged(unit="ligne", changes={"formed": True})).rule == "gdb.retreat.rally"
    caused = table.go_to(2, "french", "movement")
    assert [o.restriction for o in caused if isinstance(o, out.RestrictionApplied)] == ["forming_up"]
    change(table, "ligne", formation="square")  # it may form any formation
    ended = table.end_phase()
    assert state_changes(ended) == [("ligne", "steady", "gdb.retreat.rally")]
    assert (profile(table, "ligne")["formed"], profile(table, "ligne")["formation"]) == (True, "square")
    table.go_to(2, "french", "charge")
    assert table.refuse(ChargeDeclared(charger="ligne", targets=("ir4",))).rule == "gdb.retreat.rally"


def test_gdb_retreat_rally_failed_it_keeps_retreating():
    table = gdb_table(french("ligne"), cavalry())
    charged_by_cavalry(table, "ligne", 1, 2)
    table.go_to(1, "french", "morale")
    caused = roll(table, "ligne", "rally", 2, 3)
    assert resolved(caused).result == "fail"
    assert state_changes(caused) == [("ligne", "falling_back", "gdb.retreat.rally")]


def test_gdb_retreat_rally_a_unit_ruled_rallied_during_a_movement_phase_forms_up_in_the_next_one():
    """The referee rules the retreating ligne rallied in the middle of turn 2's Movement phase: it
    did not begin to form up when the phase began, so it is still unformed at its end and forms up
    in turn 3's."""
    table = gdb_table(french("ligne"), cavalry())
    charged_by_cavalry(table, "ligne", 1, 2)
    fact(table, "ligne", "enemy_in_charge_range", True)  # no rally in turn 1
    table.go_to(2, "french", "movement")
    table.record(RefereeRuled(unit="ligne", state="regrouped", reason="it stopped behind the wood"))
    ended = table.end_phase()
    assert state_changes(ended) == [] and table.state("ligne") == "regrouped"
    assert profile(table, "ligne")["formed"] is False
    caused = table.go_to(3, "french", "movement")
    assert [o.restriction for o in caused if isinstance(o, out.RestrictionApplied)] == ["forming_up"]
    assert state_changes(table.end_phase()) == [("ligne", "steady", "gdb.retreat.rally")]


def test_gdb_retreat_rally_a_unit_forming_up_that_the_referee_rules_steady_is_left_steady():
    table = gdb_table(french("ligne"), cavalry())
    charged_by_cavalry(table, "ligne", 1, 2)
    table.go_to(1, "french", "morale")
    roll(table, "ligne", "rally", 4, 3)
    table.go_to(2, "french", "movement")
    assert restrictions(table, "ligne") == ["forming_up"]
    table.record(RefereeRuled(unit="ligne", state="steady", reason="it had formed up before the turn began"))
    ended = table.end_phase()
    assert state_changes(ended) == [] and table.state("ligne") == "steady"


# -- rout -------------------------------------------------------------------------------------------
def test_gdb_result_rout_routs_unformed():
    table = gdb_table(french("ligne"), cavalry())
    caused = charged_by_cavalry(table, "ligne", 1, 1)  # 2 + 1 - 2 = 1: Rout
    assert state_changes(caused) == [("ligne", "broken", "gdb.result.rout")]
    assert profile(table, "ligne")["formed"] is False
    assert table.refuse(ChargeDeclared(charger="ligne", targets=("chevaulegers",))).rule == "gdb.result.rout"


@pytest.mark.parametrize(("models", "full", "dispersed"), [(13, 20, False), (12, 20, True), (16, 25, True)])
def test_gdb_rout_heavy_losses_more_than_35_percent_lost_disperses_at_once(models, full, dispersed):
    """7 of 20 is 35%: it routs; 8 of 20 is more: it is dispersed; so is 9 of 25 (36%)."""
    table = gdb_table(french("ligne", models=models, full_strength=full), cavalry())
    caused = charged_by_cavalry(table, "ligne", 1, 1)
    assert resolved(caused).result == "rout"
    assert table.state("ligne") == ("dispersed" if dispersed else "broken")
    assert (("ligne", "dispersed", "gdb.rout.heavy_losses") in state_changes(caused)) is dispersed


def test_gdb_rout_artillery_abandons_its_guns():
    table = gdb_table(french("battery", unit_type="horse_artillery", models=4), cavalry())
    caused = charged_by_cavalry(table, "battery", 1, 1)
    assert state_changes(caused) == [
        ("battery", "broken", "gdb.result.rout"),
        ("battery", "dispersed", "gdb.rout.artillery"),
    ]


def test_gdb_rout_contact_a_routing_unit_touching_an_enemy_is_dispersed():
    table = gdb_table(french("ligne"), cavalry())
    charged_by_cavalry(table, "ligne", 1, 1)
    caused = fact(table, "ligne", "contact_with_enemy", True)
    assert ("ligne", "dispersed", "gdb.rout.contact") in state_changes(caused)


def test_gdb_rout_contact_a_unit_dispersed_with_a_test_due_reports_the_test_withdrawn():
    """ligne routs when charged; its Rally test is due in the Morale phase when it touches an enemy."""
    table = gdb_table(french("ligne"), cavalry())
    charged_by_cavalry(table, "ligne", 1, 1)
    table.go_to(1, "french", "morale")
    assert [(d.unit, d.test) for d in table.battle.due] == [("ligne", "rally")]
    caused = fact(table, "ligne", "contact_with_enemy", True)
    withdrawn = [(o.unit, o.test, o.rule) for o in caused if isinstance(o, out.TestNotTaken) and o.withdrawn]
    assert withdrawn == [("ligne", "rally", "gdb.rout.contact")]
    assert table.battle.due == []


def test_gdb_rout_contact_charged_home_while_routing():
    table = gdb_table(french("ligne"), cavalry(), allied("ir4"))
    charged_by_cavalry(table, "ligne", 1, 1)
    charge(table, "ir4", "ligne")
    caused = roll(table, "ir4", "charging", 5, 5)
    assert ("ligne", "dispersed", "gdb.rout.contact") in state_changes(caused)


def test_gdb_rout_contact_only_a_routing_unit_is_dispersed_by_contact():
    table = gdb_table(french("ligne"), cavalry())
    refused = table.refuse(TableFactRecorded(unit="ligne", fact="contact_with_enemy", value=True))
    assert refused.rule == "gdb.rout.contact"


@pytest.mark.parametrize("result", ["carry_on", "halt", "waver", "retreat", "rout"])
def test_gdb_rout_contact_a_routing_unit_has_no_melee_result_of_its_own(result):
    table = gdb_table(french("ligne"), cavalry())
    charged_by_cavalry(table, "ligne", 1, 1)
    table.go_to(1, "french", "melee")
    refused = table.refuse(TableFactRecorded(unit="ligne", fact="melee_result", value=result))
    assert (
        refused.rule == "gdb.rout.contact"
        and "ligne is routing and does not fight back: record contact_with_enemy" in str(refused)
    )


def test_gdb_rout_dispersal_point_is_marked_where_it_dispersed():
    table = gdb_table(french("ligne", models=12, full_strength=20), cavalry())
    caused = charged_by_cavalry(table, "ligne", 1, 1)
    (marker,) = [o for o in caused if isinstance(o, out.MarkerPlaced)]
    assert (marker.unit, marker.marker, marker.detail) == ("ligne", "dispersal_point", "turn 1, charge phase")
    assert marker.rule == "gdb.rout.dispersal_point"


def test_gdb_rout_brigade_a_router_dispersing_within_15cm_of_its_brigade_makes_it_test():
    table = gdb_table(
        french("ligne", models=12, full_strength=20, brigade="ney"),
        french("legere", brigade="ney"),
        french("other", brigade="soult"),
        cavalry(),
    )
    near(table, "ligne", "legere", "other")
    caused = charged_by_cavalry(table, "ligne", 1, 1)
    assert [(o.unit, o.test, o.rule) for o in caused if isinstance(o, out.TestDue)] == [
        ("legere", "brigade", "gdb.rout.brigade")
    ]


def test_gdb_rout_brigade_not_when_no_unit_of_its_brigade_is_within_15cm():
    table = gdb_table(
        french("ligne", models=12, full_strength=20, brigade="ney"), french("legere", brigade="ney"), cavalry()
    )
    caused = charged_by_cavalry(table, "ligne", 1, 1)
    assert table.state("ligne") == "dispersed"
    assert not [o for o in caused if isinstance(o, out.TestDue)]


def test_gdb_rout_brigade_in_the_charge_phase_the_test_falls_due_at_once_beside_the_charged_tests():
    """The chevaulegers charge the routing ligne and grenadiers together: ligne is caught and
    dispersed next to legere, of its brigade. The Brigade Morale Test is due at once, beside the
    grenadiers' charged test: only in the Morale phase does it wait for the units' tests."""
    table = gdb_table(
        french("legere", brigade="ney"),
        french("ligne", brigade="ney"),
        french("grenadiers", brigade="soult"),
        cavalry(),
        cavalry("kaiser"),
    )
    charged_by_cavalry(table, "ligne", 1, 1, by="kaiser")
    fact(table, "ligne", "enemy_in_charge_range", True)
    table.go_to(2, "french", "movement")
    near(table, "ligne", "legere")
    table.go_to(2, "french", "charge")
    charge(table, "chevaulegers", "ligne", "grenadiers")
    caused = roll(table, "chevaulegers", "charging", 5, 5)
    assert table.state("ligne") == "dispersed"
    assert [(o.unit, o.test) for o in caused if isinstance(o, out.TestDue)] == [
        ("grenadiers", "charged"),
        ("legere", "brigade"),
    ]


def test_gdb_rout_rally_one_attempt_passed_it_rallies():
    table = gdb_table(french("ligne"), cavalry())
    charged_by_cavalry(table, "ligne", 1, 1)
    table.go_to(1, "french", "morale")
    caused = roll(table, "ligne", "rally", 5, 5)  # 10 + 1 (no losses) - 2 (routing) = 9: Rally
    assert state_changes(caused) == [("ligne", "regrouped", "gdb.rout.rally")]


def test_gdb_rout_rally_one_attempt_failed_it_is_dispersed():
    table = gdb_table(french("ligne", brigade="ney"), french("legere", brigade="ney"), cavalry())
    near(table, "ligne", "legere")
    charged_by_cavalry(table, "ligne", 1, 1)
    table.go_to(1, "french", "morale")
    caused = roll(table, "ligne", "rally", 3, 3)
    assert resolved(caused).result == "fail"
    assert ("ligne", "dispersed", "gdb.rout.rally") in state_changes(caused)
    # The brigade test waits for legere's own Morale test (gdb.note.simultaneous), then falls due.
    assert not [o for o in caused if isinstance(o, out.TestDue)]
    caused = roll(table, "legere", "morale", 4, 4)
    assert [(o.unit, o.test) for o in caused if isinstance(o, out.TestDue)] == [("legere", "brigade")]


def test_gdb_rout_rally_a_second_attempt_is_refused():
    """A referee brings the dispersed unit back as routing: it has had its one attempt."""
    table = gdb_table(french("ligne"), cavalry())
    charged_by_cavalry(table, "ligne", 1, 1)
    table.go_to(1, "french", "morale")
    roll(table, "ligne", "rally", 3, 3)
    table.record(RefereeRuled(unit="ligne", state="broken", reason="it was behind the hill all along"))
    caused = table.go_to(2, "french", "morale")
    assert ("ligne", "rally", "gdb.rout.rally") in not_taken(caused)
    assert table.refuse(DiceRolled(unit="ligne", test="rally", dice=(6, 5))).rule == "gdb.rout.rally"


def test_gdb_rout_rally_one_attempt_a_unit_that_rallied_and_later_retreats_rallies_as_any_retreating_unit():
    """ligne routs and rallies in turn 1 (its one attempt), forms up in turn 2, then retreats when
    charged again. The one attempt was a routing unit's: retreating, it rallies in the Morale phase,
    and a roll before then is told to wait for it, not that its attempt is spent."""
    table = gdb_table(french("ligne"), cavalry(), cavalry("kaiser"))
    charged_by_cavalry(table, "ligne", 1, 1)
    table.go_to(1, "french", "morale")
    roll(table, "ligne", "rally", 5, 5)
    table.go_to(2, "french", "movement")
    table.end_phase()
    assert table.state("ligne") == "steady"
    table.go_to(2, "french", "charge")
    charge(table, "kaiser", "ligne")
    roll(table, "kaiser", "charging", 6, 5)
    roll(table, "ligne", "charged", 1, 2)  # 3 + 1 - 2 = 2: Retreat
    assert table.state("ligne") == "falling_back"
    refused = table.refuse(DiceRolled(unit="ligne", test="rally", dice=(4, 4)))
    assert refused.rule == "gdb.trigger.rally" and "ligne attempts to rally in the Morale phase" in str(refused)
    table.go_to(2, "french", "morale")
    assert [(d.unit, d.test) for d in table.battle.due] == [("ligne", "rally")]


# -- the Brigade Morale Test ------------------------------------------------------------------------
def a_brigade_disperses(commander: str = "none", **legere):
    """ligne (40% lost) routs and is dispersed next to legere and the battery, all of brigade ney."""
    table = gdb_table(
        french("ligne", models=12, full_strength=20, brigade="ney"),
        french("legere", brigade="ney", commander=commander, **legere),
        french("battery", unit_type="foot_artillery", models=4, brigade="ney"),
        cavalry(),
    )
    near(table, "ligne", "legere", "battery")
    charged_by_cavalry(table, "ligne", 1, 1)
    return table


def test_gdb_brigade_test_modifiers_commander_and_each_unit_dispersed_or_routing():
    table = a_brigade_disperses(commander="brigade")
    (due,) = table.battle.due
    assert [(m.value, m.reason) for m in due.modifiers] == [
        (1, "brigade commander present"),
        (-1, "dispersed or routing: ligne"),
    ]


@pytest.mark.parametrize(
    ("dice", "result", "legere", "battery"),
    [
        ((4, 4), "holds", [], []),
        ((3, 3), "halt", ["halted"], ["halted"]),
        ((1, 2), "retreat", "falling_back", "falling_back"),
    ],
)
def test_gdb_brigade_test_holds_halts_or_retreats(dice, result, legere, battery):
    table = a_brigade_disperses()
    test = resolved(roll(table, "legere", "brigade", *dice))
    assert (test.column, test.result, test.detail) == ("brigade", result, "for brigade ney")
    if isinstance(legere, str):
        assert (table.state("legere"), table.state("battery")) == (legere, battery)
        assert profile(table, "battery")["formation"] == "limbered"  # not charged: it limbers up
    else:
        assert (restrictions(table, "legere"), restrictions(table, "battery")) == (legere, battery)


def test_gdb_brigade_test_units_in_melee_are_left_out():
    table = gdb_table(
        french("ligne", models=12, full_strength=20, brigade="ney"),
        french("legere", brigade="ney"),
        french("grenadiers", brigade="ney"),
        cavalry(),
    )
    near(table, "ligne", "legere")
    fact(table, "grenadiers", "in_melee", True)
    charged_by_cavalry(table, "ligne", 1, 1)
    roll(table, "legere", "brigade", 1, 1)
    assert (table.state("legere"), table.state("grenadiers")) == ("falling_back", "steady")


def test_gdb_brigade_test_in_the_morale_phase_waits_for_every_units_test():
    """Two units rout in the Morale phase; the first is dispersed at once (heavy losses). The brigade
    test falls due only when the last unit test is rolled, and counts both."""
    table = gdb_table(
        french("ligne", models=13, full_strength=20, brigade="ney"),
        french("legere", brigade="ney"),
        allied("ir4"),
    )
    near(table, "ligne", "legere")
    table.go_to(1, "french", "shooting")
    table.casualties("ligne", 3)  # 10 of 20 lost: 50%
    table.casualties("legere", 3)
    table.go_to(1, "french", "morale")
    roll(table, "ligne", "morale", 1, 1)
    assert table.state("ligne") == "dispersed" and [d.test for d in table.battle.due] == ["morale"]
    caused = roll(table, "legere", "morale", 1, 1)  # 2 - 1 = 1: Rout
    assert table.state("legere") == "broken"
    (due,) = [o for o in caused if isinstance(o, out.TestDue)]
    assert (due.unit, due.test) == ("legere", "brigade")
    assert [m.value for m in due.modifiers] == [-2]


def test_gdb_brigade_test_with_a_brigade_table_of_ones_own():
    values = {"rows": [{"min": 10, "result": "holds"}, {"result": "retreat"}], "commander": 2, "per_unit_lost": -2}
    tables = {**pinned_tables(lookup("gdb", "1")), "brigade": pin(values, "strict-brigade.toml")}
    table = gdb_table(
        french("ligne", models=12, full_strength=20, brigade="ney"),
        french("legere", brigade="ney", commander="brigade"),
        cavalry(),
        tables=tables,
    )
    near(table, "ligne", "legere")
    charged_by_cavalry(table, "ligne", 1, 1)
    assert [m.value for m in table.battle.due[0].modifiers] == [2, -2]
    assert resolved(roll(table, "legere", "brigade", 5, 4)).result == "retreat"  # 9: under this table's 10


def test_gdb_brigade_test_passes_only_when_the_brigade_holds():
    for dice, passed in (((4, 4), True), ((3, 3), False), ((1, 2), False)):
        table = a_brigade_disperses()
        assert resolved(roll(table, "legere", "brigade", *dice)).passed is passed


@pytest.mark.parametrize(
    ("dice", "before", "after"),
    [((3, 3), "wavering", "falling_back"), ((2, 1), "falling_back", "falling_back"), ((1, 1), "broken", "broken")],
)
def test_gdb_result_retreat_on_a_brigade_retreat_a_unit_in_worse_order_stays_as_it_is(dice, before, after):
    """legere wavered, retreated or routed when charged; the brigade's Retreat makes a wavering unit
    retreat and leaves a retreating or routing one as it is."""
    table = gdb_table(
        french("ligne", models=12, full_strength=20, brigade="ney"),
        french("legere", brigade="ney"),
        cavalry(),
        cavalry("kaiser"),
    )
    near(table, "ligne", "legere")
    charged_by_cavalry(table, "legere", *dice, by="kaiser")
    assert table.state("legere") == before
    charged_by_cavalry(table, "ligne", 1, 1)
    caused = roll(table, "legere", "brigade", 1, 2)
    assert resolved(caused).result == "retreat"
    assert table.state("legere") == after
    moved = [o.to_state for o in caused if isinstance(o, out.StateChanged) and o.unit == "legere"]
    assert moved == ([] if before == after else [after])


def test_gdb_trigger_losses_a_dispersed_units_losses_are_cleared_with_the_turn_like_everyones():
    """Losses count over a game turn, for every unit that joined: the next turn clears those of a
    unit dispersed turns ago too, and the battle's digest (checked after every event by the test
    table) shows it: General de Brigade changes units out of play, so none is settled for good."""
    table = gdb_table(french("ligne"), cavalry())
    table.go_to(1, "french", "charge")
    table.casualties("ligne", 1)
    charged_by_cavalry(table, "ligne", 1, 1)
    fact(table, "ligne", "contact_with_enemy", True)
    assert table.state("ligne") == "dispersed" and table.unit("ligne").notes["gdb"].losses == {"charge": 1}
    table.go_to(1, "french", "morale")
    table.go_to(2, "french", "movement")
    assert table.unit("ligne").notes["gdb"].losses == {}


def test_gdb_retreat_artillery_dispersed_by_a_brigade_retreat_is_dated_to_the_brigade_roll():
    """The battery held when charged; later in the phase ligne routs and is dispersed, the brigade
    test reads Retreat, and the battery, charged this turn, is dispersed by it. legere, within 15 cm
    of the battery's dispersal point, tests in the Morale phase, citing the brigade roll."""
    table = gdb_table(
        french("ligne", models=12, full_strength=20, brigade="ney"),
        french("legere", brigade="ney"),
        french("battery", unit_type="foot_artillery", models=4, brigade="ney"),
        french("far", brigade="soult"),
        cavalry(),
        cavalry("kaiser"),
    )
    near(table, "ligne", "legere", "battery")
    near(table, "far", "battery")
    charged_by_cavalry(table, "battery", 6, 6, by="kaiser")
    assert table.state("battery") == "steady"
    charged_by_cavalry(table, "ligne", 1, 1)
    roll(table, "legere", "brigade", 1, 1)
    brigade_roll = table.fold.seq
    assert table.state("battery") == "dispersed"
    table.go_to(1, "french", "morale")
    (test,) = [d for d in table.battle.due if d.unit == "far"]
    assert (test.rule, brigade_roll in test.caused_by) == ("gdb.trigger.dispersal_near", True)
