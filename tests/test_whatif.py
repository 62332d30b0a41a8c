"""What if: the battle replayed with events amended, struck or inserted; the log is never touched."""

from __future__ import annotations

import pytest
from support.examples import EXAMPLE

from morale.core.rules import Refusal
from morale.events.codec import MalformedEvent
from morale.events.types import CasualtiesSuffered
from morale.projections.whatif import Amendment, what_if

pytestmark = pytest.mark.example(EXAMPLE)  # `store`: a fresh one per test, holding this example battle


@pytest.fixture  # per test, as `store` is
def events(store):
    return list(store.read("hive-tarsis"))


def seq_of(events, event) -> int:
    return next(s.seq for s in events if s.event == event)


def test_nothing_amended_plays_out_exactly_as_the_battle_did(events):
    result = what_if("hive-tarsis", events, [])
    assert result.divergence is None and result.final == [] and result.dropped == []


def test_fewer_casualties_the_test_is_never_due_and_the_rolls_for_it_are_dropped(events):
    hit = seq_of(events, CasualtiesSuffered(unit="boyz", count=5, cause="shooting"))  # 5 of 17: a test
    result = what_if("hive-tarsis", events, [Amendment("amend", hit, {"count": 4})])  # 4 of 17: none
    assert result.changes == [f"event {hit} amended: count 5 → 4"]
    assert result.divergence.at == f"event {hit + 1}" and "End of the shooting phase" in result.divergence.event
    assert result.divergence.happened == ["Ork Boyz must roll 2D6 for morale, needs 7 or less"]
    assert result.divergence.instead == []
    assert [d.seq for d in result.dropped][:2] == [hit + 2, hit + 3]
    assert "engine.dice" in result.dropped[0].reason
    boyz = next(u for u in result.final if u.unit == "boyz")
    assert (boyz.before.state, boyz.after.state) == ("dispersed", "steady")


def test_an_alternative_that_needs_dice_the_log_lacks_stops_and_says_which(events):
    hit = seq_of(events, CasualtiesSuffered(unit="boyz", count=5, cause="shooting"))
    result = what_if("hive-tarsis", events, [Amendment("amend", hit, {"count": 4})])
    assert "pinning for boyz" in result.stopped and "insert their dice" in result.stopped


def test_inserting_the_missing_roll_lets_the_alternative_go_on(events):
    hit = seq_of(events, CasualtiesSuffered(unit="boyz", count=5, cause="shooting"))
    stopped = what_if("hive-tarsis", events, [Amendment("amend", hit, {"count": 4})]).stopped
    pinning = next(s.seq for s in events if s.seq > hit and getattr(s.event, "fact", "") == "hit_by_pinning_weapon")
    amended = [
        Amendment("amend", hit, {"count": 4}),
        Amendment("insert", pinning, {"type": "dice_rolled", "unit": "boyz", "test": "pinning", "dice": [2, 3]}),
    ]
    further = what_if("hive-tarsis", events, amended)
    assert f"new event 1 after {pinning}: dice_rolled" in further.changes
    assert "pinning for boyz" in stopped and "morale for boyz" in further.stopped  # it went on
    phase_end = int(further.stopped.split()[2].rstrip(":")) - 1
    morale = {"type": "dice_rolled", "unit": "boyz", "test": "morale", "dice": [1, 1]}
    finished = what_if("hive-tarsis", events, [*amended, Amendment("insert", phase_end, morale)])
    assert finished.stopped == "" and next(u for u in finished.final if u.unit == "boyz").after.state == "steady"


def test_striking_an_event_replays_without_it(events):
    hit = seq_of(events, CasualtiesSuffered(unit="kraak", count=5, cause="close_combat"))
    result = what_if("hive-tarsis", events, [Amendment("strike", hit)])
    kraak = next(u for u in result.final if u.unit == "kraak")
    assert result.changes == [f"event {hit} struck"] and (kraak.before.models, kraak.after.models) == (5, 10)


def test_the_original_log_is_never_touched(store, events):
    before = list(store.raw_rows("hive-tarsis"))
    what_if("hive-tarsis", events, [Amendment("strike", 30), Amendment("amend", 20, {"dice": [1, 1]})])
    assert list(store.raw_rows("hive-tarsis")) == before


@pytest.mark.parametrize(
    ("amendments", "field", "words"),
    [
        ([Amendment("strike", 500)], "seq", "there is no event 500 in this battle (it runs from 1 to 104)"),
        ([Amendment("amend", 0, {"count": 1})], "seq", "there is no event 0"),
        ([Amendment("insert", 999, {"type": "casualties_suffered"})], "seq", "there is no event 999"),
        ([Amendment("strike", 1)], "seq", "battle_started cannot be struck"),
        ([Amendment("strike", 30), Amendment("amend", 30, {})], "seq", "amended or struck twice"),
    ],
)
def test_a_sequence_number_that_does_not_exist_is_refused(events, amendments, field, words):
    with pytest.raises(Refusal) as refused:
        what_if("hive-tarsis", events, amendments)
    assert refused.value.field == field and words in refused.value.message


def test_an_amended_event_the_rules_refuse_is_an_error_naming_it(events):
    hit = seq_of(events, CasualtiesSuffered(unit="boyz", count=5, cause="shooting"))
    with pytest.raises(Refusal) as refused:
        what_if("hive-tarsis", events, [Amendment("amend", hit, {"count": 50})])
    assert refused.value.field == "count" and f"event {hit} is refused" in refused.value.message
    with pytest.raises(MalformedEvent, match=f"the amendment of event {hit}"):
        what_if("hive-tarsis", events, [Amendment("amend", hit, {"count": -1})])
