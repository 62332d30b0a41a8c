"""General de Brigade's referee (gdb/ruleset.py): behaviour pinned where a mutation pass of the
module found it unpinned (MUTATION.md, "`gdb/ruleset.py`, `gdb/modifiers.py` and the rest of `gdb/`").
"""

from __future__ import annotations

from support.gdb import gdb_table, gdb_unit

from morale.events.types import TableFactRecorded, UnitChanged


def test_gdb_note_simultaneous_a_refusal_says_what_may_change_only_after_the_tests():
    """gdb.note.simultaneous: while the Morale phase's tests are rolled, a fact stated is refused
    naming that fact, and a profile change naming the profile, each to be made after the tests (the
    refusal's line, its rule ID first)."""
    table = gdb_table(gdb_unit("ligne"), gdb_unit("legere"), gdb_unit("ir4", "allies"))
    table.go_to(1, "french", "shooting")
    table.casualties("ligne", 3)
    table.go_to(1, "french", "morale")
    fact = table.refuse(TableFactRecorded(unit="legere", fact="within_15cm", value="ligne"))
    assert str(fact) == (
        "gdb.note.simultaneous: the Morale phase's tests read the table as it stood when the phase began: change"
        " within_15cm after they are rolled"
    )
    profile = table.refuse(UnitChanged(unit="ligne", changes={"formation": "square"}))
    assert str(profile) == (
        "gdb.note.simultaneous: the Morale phase's tests read the table as it stood when the phase began: change"
        " the unit's profile after they are rolled"
    )
