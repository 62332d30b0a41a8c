"""Invariants of a General de Brigade battle, whatever players type: replay is deterministic, a refused
event changes nothing, a Morale-phase test keeps the modifiers it was given when the phase began, and
after every event what any correct referee keeps (support/invariants.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from support.gdb import gdb_table, gdb_unit
from support.invariants import record_checked

from morale.core.referee import next_phase
from morale.core.state import digest
from morale.events.types import (
    CasualtiesSuffered,
    ChargeDeclared,
    DiceRolled,
    PhaseEnded,
    PhaseStarted,
    PlayerDecided,
    TableFactRecorded,
    UnitChanged,
)

UNITS = {
    "french": ["ligne", "legere", "hussars", "battery", "voltigeurs"],
    "allies": ["grenadiers", "musketeers", "cossacks"],
}
EVERYONE = [u for side in UNITS.values() for u in side]
KINDS = ["clock"] * 3 + ["roll"] * 3 + ["casualties", "fact", "charge", "decide", "change"]
FACTS = [
    "within_15cm",
    "beyond_15cm",
    "enemy_in_charge_range",
    "in_melee",
    "melee_result",
    "contact_with_enemy",
    "interpenetrated",
]
CHANGES = [{"formation": "square"}, {"formation": "line"}, {"formed": True}, {"formed": False}, {"location": "church"}]


def a_battle():
    return gdb_table(
        gdb_unit("ligne", brigade="a", commander="brigade"),
        gdb_unit("legere", brigade="a", quality="veteran", models=14, full_strength=20),
        gdb_unit("hussars", unit_type="cavalry", models=12, brigade="b"),
        gdb_unit("battery", unit_type="foot_artillery", models=4, brigade="a", location="redoubt"),
        gdb_unit("voltigeurs", unit_type="skirmishers", models=8, brigade="a"),
        gdb_unit("grenadiers", "allies", brigade="c", quality="guard", formation="column", tags=("russian",)),
        gdb_unit("musketeers", "allies", brigade="c", quality="recruit", models=11, full_strength=20),
        gdb_unit("cossacks", "allies", unit_type="cavalry", models=12, brigade="c", tags=("cossack",)),
    )


def proposal(data: st.DataObject, table):
    battle = table.battle
    some_unit = st.sampled_from(EVERYONE)
    kind = data.draw(st.sampled_from(KINDS))
    if kind == "clock":
        if battle.phase_open:
            return PhaseEnded(turn=battle.turn, side=battle.active_side, phase=battle.phase)
        turn, side, phase = next_phase(battle)
        return PhaseStarted(turn=turn, side=side, phase=phase)
    if kind == "roll":
        due = battle.due[0] if battle.due and data.draw(st.integers(0, 5)) else None
        unit = due.unit if due else data.draw(some_unit)
        test = due.test if due else data.draw(st.sampled_from(["morale", "rally", "charging", "brigade"]))
        return DiceRolled(unit=unit, test=test, dice=data.draw(st.lists(st.integers(1, 6), min_size=2, max_size=2)))
    if kind == "casualties":
        return CasualtiesSuffered(unit=data.draw(some_unit), count=data.draw(st.integers(1, 4)))
    if kind == "fact":
        fact = data.draw(st.sampled_from(FACTS))
        value = {
            "within_15cm": some_unit,
            "beyond_15cm": some_unit,
            "interpenetrated": some_unit,
            "melee_result": st.sampled_from(["carry_on", "halt", "waver", "retreat", "rout"]),
        }.get(fact, st.booleans())
        return TableFactRecorded(unit=data.draw(some_unit), fact=fact, value=data.draw(value))
    if kind == "charge":
        side = data.draw(st.sampled_from(list(UNITS)))
        enemy = "allies" if side == "french" else "french"
        target = data.draw(st.sampled_from(UNITS[enemy]))
        return ChargeDeclared(
            charger=data.draw(st.sampled_from(UNITS[side])),
            targets=(target,),
            in_range=(target,) if data.draw(st.booleans()) else [],
            flank=(target,) if data.draw(st.booleans()) else [],
        )
    if kind == "decide":
        return PlayerDecided(
            unit=data.draw(some_unit), decision=data.draw(st.sampled_from(["reform", "countercharge"]))
        )
    changes = data.draw(st.sampled_from(CHANGES))
    return UnitChanged(unit=data.draw(some_unit), changes=changes)


@given(st.data())
def test_replay_is_deterministic_and_refusals_change_nothing(data):
    table = a_battle()
    for _ in range(data.draw(st.integers(20, 150))):
        record_checked(table, proposal(data, table))
    assert digest(table.replayed().state()) == digest(table.battle)


@given(st.data())
def test_gdb_note_simultaneous_a_morale_phase_test_keeps_the_modifiers_it_was_given(data):
    table = a_battle()
    given_at_start: dict[tuple[str, str], tuple] = {}
    for _ in range(data.draw(st.integers(20, 150))):
        event = proposal(data, table)
        if record_checked(table, event) is None:
            continue
        battle = table.battle
        if isinstance(event, PhaseStarted) and event.phase == "morale":
            given_at_start = {(d.unit, d.test): d.modifiers for d in battle.due if d.test in ("morale", "rally")}
        for due in battle.due:
            if battle.phase == "morale" and (due.unit, due.test) in given_at_start:
                assert due.modifiers == given_at_start[(due.unit, due.test)]
