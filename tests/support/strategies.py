"""Any battle, for the property tests: two 40K armies (6th and 3rd edition) and any event a player
might type, legal or not."""

from __future__ import annotations

from hypothesis import strategies as st

from morale.events.types import (
    CasualtiesSuffered,
    ChargeDeclared,
    CombatResolved,
    CombatSide,
    DiceRolled,
    PhaseStarted,
    PlayerDecided,
    TableFactRecorded,
)

from .table import Table, clock_event, unit

UNITS = {
    "imperium": ["marines", "guard", "bikers"],
    "orks": ["boyz", "grots", "nobz"],
}


def a_battle() -> Table:
    return Table(
        unit("marines", models=5, rules=("and_they_shall_know_no_fear",)),
        unit("guard", models=10, ld=7, initiative=3),
        unit("bikers", models=3, unit_type="bike", rules=("stubborn",)),
        unit("boyz", "orks", models=20, ld=7, initiative=2),
        unit("grots", "orks", models=10, ld=5, initiative=2, rules=("always_passes_morale",)),
        unit("nobz", "orks", models=5, ld=7, initiative=3, rules=("fearless",)),
    )


def a_3rd_edition_battle() -> Table:
    """The same armies under 40K 3rd edition: a tank for the grots, and every special rule it knows."""
    return Table(
        unit("marines", models=5, rules=("and_they_shall_know_no_fear",)),
        unit("guard", models=10, ld=7, initiative=3),
        unit("bikers", models=3, unit_type="bike", rules=("always_passes_leadership",), profile={"fall_back_dice": 3}),
        unit("boyz", "orks", models=20, ld=7, initiative=2),
        unit("grots", "orks", models=1, ld=None, unit_type="tank"),
        unit("nobz", "orks", models=5, ld=7, initiative=3, rules=("immune_to_morale",)),
        ruleset="wh40k3",
    )


WH40K6_FACTS = {name: st.just(True) for name in ("reached_table_edge", "trapped", "hit_by_pinning_weapon")}
WH40K3_TRUE_FACTS = (
    "hit_by_barrage",
    "through_difficult_terrain",
    "enemy_within_6_inches",
    "out_of_coherency",
    "regroup_conditions_met",
    "reached_cover",
    "reached_table_edge",
    "caught_by_sweeping_advance",
)
WH40K3_FACTS = {
    **{name: st.just(True) for name in WH40K3_TRUE_FACTS},
    "tank_shocked": st.sampled_from(["grots", "boyz", "guard"]),
    "enemy_in_corridor": st.floats(0.5, 12).map(lambda x: round(x * 2) / 2),
}

KINDS = ["clock", "clock", "roll", "roll", "casualties", "fact", "charge", "combat", "decide", "wild_phase"]


def proposals(data: st.DataObject, table: Table, facts: dict = WH40K6_FACTS):
    """Any event a player might type, legal or not: the referee sorts them out."""
    battle = table.battle
    everyone = [u for side in UNITS.values() for u in side]
    some_unit = st.sampled_from(everyone)
    kind = data.draw(st.sampled_from(KINDS))
    if kind == "clock":
        return clock_event(battle)
    if kind == "wild_phase":
        return PhaseStarted(
            turn=data.draw(st.integers(1, 3)),
            side=data.draw(st.sampled_from(list(UNITS))),
            phase=data.draw(st.sampled_from(["movement", "shooting", "assault"])),
        )
    if kind == "roll":
        due = battle.due[0] if battle.due and data.draw(st.booleans()) else None
        unit_id = due.unit if due else data.draw(some_unit)
        test = due.test if due else data.draw(st.sampled_from(["morale", "regroup", "fall_back"]))
        count = due.dice if due and data.draw(st.integers(0, 9)) else data.draw(st.integers(1, 3))
        dice = data.draw(st.lists(st.integers(1, 6), min_size=count, max_size=count))
        return DiceRolled(unit=unit_id, test=test, dice=dice)
    if kind == "casualties":
        return CasualtiesSuffered(unit=data.draw(some_unit), count=data.draw(st.integers(1, 6)))
    if kind == "fact":
        fact = data.draw(st.sampled_from(sorted(facts)))
        return TableFactRecorded(unit=data.draw(some_unit), fact=fact, value=data.draw(facts[fact]))
    if kind == "charge":
        side = data.draw(st.sampled_from(list(UNITS)))
        enemy = "orks" if side == "imperium" else "imperium"
        targets = data.draw(st.lists(st.sampled_from(UNITS[enemy]), min_size=1, max_size=2, unique=True))
        return ChargeDeclared(
            charger=data.draw(st.sampled_from(UNITS[side])),
            targets=targets,
            in_range=data.draw(st.lists(st.sampled_from(targets), unique=True)),
        )
    if kind == "combat":
        return CombatResolved(sides=[combat_side(data, "imperium"), combat_side(data, "orks")])
    due = battle.due[0] if battle.due else None
    decision = data.draw(st.sampled_from(["decline_regroup", "decline_sweeping_advance"]))
    return PlayerDecided(unit=due.unit if due else data.draw(some_unit), decision=decision)


def combat_side(data: st.DataObject, side: str) -> CombatSide:
    """One of the side's units in a combat, and the wounds it inflicted."""
    unit_id = data.draw(st.sampled_from(UNITS[side]))
    return CombatSide(side=side, units=[unit_id], wounds_inflicted=data.draw(st.integers(0, 5)))
