"""One unit's whole Morale cycle in 40K 6th edition, as a player sees it: tested, falling back,
regrouped, steady again, and the same story when the log is replayed."""

from support.table import Table, kinds, only, unit

from morale.core import outcomes as out
from morale.core.state import digest


def test_marines_fall_back_after_heavy_shooting_then_regroup_and_replay_agrees():
    table = Table(unit("marines", models=5), unit("boyz", "orks", ld=7, models=20))
    table.go_to(1, "orks", "shooting")
    table.casualties("marines", 2)
    due = only(list(table.end_phase()), out.TestDue)
    assert (due.unit, due.test, due.target) == ("marines", "morale", 8)

    caused = list(table.roll("marines", "morale", 6, 5))
    resolved = only(caused, out.TestResolved)
    assert (resolved.passed, resolved.total, resolved.target) == (False, 11, 8)
    change = only(caused, out.StateChanged)
    assert (change.from_state, change.to_state) == ("steady", "falling_back")
    assert table.due() == ["marines:fall_back"]

    moved = only(list(table.roll("marines", "fall_back", 3, 4)), out.Moved)
    assert moved.inches == 7 and table.due() == []

    table.go_to(2, "imperium", "movement")
    assert table.due() == ["marines:regroup"]
    caused = list(table.roll("marines", "regroup", 2, 3))
    assert kinds(caused) == ["TestResolved", "StateChanged", "RestrictionApplied"]
    assert only(caused, out.TestResolved).passed and table.state("marines") == "regrouped"

    table.go_to(2, "orks", "movement")
    assert table.state("marines") == "steady"
    replayed = table.replayed().state()
    assert {u.id: (u.state, u.models) for u in replayed.units.values()} == {
        "marines": ("steady", 3),
        "boyz": ("steady", 20),
    }
    assert digest(replayed) == digest(table.battle)
