"""gdb.brigade.test: a brigade is one side's, pinned where the `SAMPLE=0` mutation pass of
`gdb/brigade.py` (2026-12-03) found it unpinned (MUTATION.md)."""

from __future__ import annotations

import pytest
from support.gdb import gdb_table, gdb_unit, near, resolved, roll

from morale.core import outcomes as out


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
