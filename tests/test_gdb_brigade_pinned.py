"""gdb.brigade.test: a brigade is one side's; gdb.note.ignore: whose flight a unit ignores. Pinned where
the `SAMPLE=0` mutation passes of `gdb/brigade.py` and `gdb/neighbours.py` (2026-12-03) found them
unpinned (MUTATION.md)."""

from __future__ import annotations

import pytest
from support.gdb import gdb_table, gdb_unit, near, resolved, roll

from morale.core import outcomes as out
from morale.events.types import RefereeRuled


@pytest.mark.parametrize(("side", "enemy"), [("french", "allies"), ("allies", "french")])
def test_gdb_brigade_test_is_one_sides_an_enemy_brigade_of_the_same_name_takes_no_part(side, enemy):
    """Both armies call a brigade "first" (a roster's names need not differ between sides). `side`'s
    ligne, half its figures lost, routs in the Morale phase and is dispersed (more than 35% lost) next
    to legere: the Brigade Morale Test is legere's, counts ligne alone, and its Retreat reaches only
    `side`'s units. The enemy's "first", which joined before them, neither rolls, counts nor retreats;
    nor does its routing battalion, dispersed the same way."""
    table = gdb_table(
        gdb_unit("dragoons", enemy, brigade="first", unit_type="cavalry", models=12),
        gdb_unit("fleeing", enemy, brigade="first", models=13, full_strength=20),
        gdb_unit("ligne", side, brigade="first", models=13, full_strength=20),
        gdb_unit("legere", side, brigade="first"),
    )
    near(table, "ligne", "legere")
    table.go_to(1, "french", "shooting")
    table.casualties("ligne", 3)  # 10 of 20 lost: 50%, -3
    table.casualties("fleeing", 3)
    table.go_to(1, "french", "morale")
    # The enemy's own battalion, as badly hurt, routs away out of everyone's reach first.
    roll(table, "fleeing", "morale", 1, 1)
    assert table.state("fleeing") == "dispersed"
    caused = roll(table, "ligne", "morale", 1, 1)  # 2 + 0 - 3 = -1: Rout, dispersed
    assert table.state("ligne") == "dispersed"
    (due,) = [o for o in caused if isinstance(o, out.TestDue)]
    assert (due.unit, due.test) == ("legere", "brigade")
    assert [(m.value, m.reason) for m in due.modifiers] == [(-1, "dispersed or routing: ligne")]
    test = resolved(roll(table, "legere", "brigade", 1, 2))  # 3 - 1 = 2: Retreat
    assert (test.result, test.detail) == ("retreat", "for brigade first")
    assert (table.state("legere"), table.state("dragoons")) == ("falling_back", "steady")


# -- gdb.note.ignore: only infantry and cavalry ignore some flights --------------------------------
@pytest.mark.parametrize("unit_type", ["skirmishers", "foot_artillery", "horse_artillery"])
@pytest.mark.parametrize(("routing", "retreating"), [("cavalry", "horse_artillery"), ("infantry", "foot_artillery")])
def test_gdb_note_ignore_skirmishers_and_batteries_heed_fleeing_cavalry_infantry_guns(unit_type, routing, retreating):
    """Infantry ignores routing cavalry and horse artillery, cavalry routing infantry and foot
    artillery; skirmishers and batteries are neither (the seed lists skirmisher companies as a kind of
    unit of their own), so one of them, shot at, tests with -1 for each friend fleeing within 15 cm
    (gdb.mod.friends_fleeing)."""
    table = gdb_table(
        gdb_unit("shot_at", unit_type=unit_type, models=8),
        gdb_unit("routing", unit_type=routing, models=12),
        gdb_unit("retreating", unit_type=retreating, models=4),
        gdb_unit("ir4", "allies", brigade="second"),
    )
    near(table, "shot_at", "routing", "retreating")
    table.record(RefereeRuled(unit="routing", state="broken", reason="routed"))
    table.record(RefereeRuled(unit="retreating", state="falling_back", reason="retreating"))
    table.go_to(1, "french", "shooting")
    table.casualties("shot_at", 3)  # 3 lost: a Morale-phase test
    table.go_to(1, "french", "morale")
    (due,) = [d for d in table.battle.due if d.unit == "shot_at"]
    (fleeing,) = [m for m in due.modifiers if m.rule == "gdb.mod.friends_fleeing"]
    assert fleeing.value == -2 and "routing" in fleeing.reason and "retreating" in fleeing.reason
