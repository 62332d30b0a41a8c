"""Time travel: the board at any point, and what changed between two points and why."""

from __future__ import annotations

import pytest
from support.examples import V1_FIXTURE

from morale.app.transfer import import_battle
from morale.core.rules import Refusal
from morale.events.store import SqliteEventStore
from morale.projections.timeline import Timeline


@pytest.fixture(scope="module")
def timeline(tmp_path_factory) -> Timeline:
    store = SqliteEventStore(tmp_path_factory.mktemp("timeline") / "t.db")
    import_battle(store, V1_FIXTURE.read_bytes().splitlines())
    return Timeline("hive-tarsis", store.read("hive-tarsis"))


def states(board) -> dict[str, str]:
    return {row.unit: row.state for row in board.units}


@pytest.mark.parametrize(
    ("spec", "seq"),
    [
        ("12", 12),
        ("start", 9),  # the roster: before the first phase starts
        ("end", 104),
        ("start:1", 10),
        ("start:1/imperium/shooting", 14),
        ("end:1/imperium/shooting", 22),  # the phase end and the tests rolled when it closed
        ("end:1", 52),
        ("start:2/orks", 67),
        ("end:2/movement", 70),  # a phase named without a side: its last occurrence in that turn
    ],
)
def test_points_name_an_event_a_phase_or_a_turn(timeline, spec, seq):
    assert timeline.point(spec).seq == seq


def test_the_board_at_a_point_is_the_board_as_it_stood_then(timeline):
    assert states(timeline.board_at(timeline.point("start")))["nobz"] == "steady"
    after_shooting = timeline.board_at(timeline.point("end:1/imperium/shooting"))
    assert states(after_shooting)["nobz"] == "falling_back" and after_shooting.seq == 22
    assert states(timeline.board_at(timeline.point("end")))["boyz"] == "dispersed"


def test_the_difference_between_two_points_lists_each_changed_unit_and_why(timeline):
    diff = timeline.diff(timeline.point("end:1"), timeline.point("end:2"))
    changed = {c.unit: c for c in diff.units}
    assert set(changed) == {"tacticals", "kraak", "boyz"}
    kraak = changed["kraak"]
    assert (kraak.before.state, kraak.after.state, kraak.changed) == (
        "falling_back",
        "steady",
        ["state", "restrictions"],
    )
    assert [s.rule for s in kraak.why if s.kind == "consequence"][:2] == ["wh40k6.regroup.pass", "wh40k6.regroup.after"]
    assert all(s.seq > 52 or (s.settled_at or 0) > 52 for s in kraak.why)


def test_nothing_changes_between_a_point_and_itself(timeline):
    assert timeline.diff(timeline.point("30"), timeline.point("30")).units == []


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("0", "there is no event 0"),
        ("105", "there is no event 105"),
        ("start:9", "never happened"),
        ("middle", "write N, start, end"),
        ("end:two", "the turn must be a number"),
    ],
)
def test_a_point_that_does_not_exist_is_refused(timeline, spec, words):
    with pytest.raises(Refusal) as refused:
        timeline.point(spec)
    assert refused.value.field == "point" and words in refused.value.message


def test_points_given_in_the_wrong_order_are_refused(timeline):
    with pytest.raises(Refusal, match="give the earlier point first"):
        timeline.diff(timeline.point("end"), timeline.point("start"))
