"""The read models behind the server's feed and time travel.

Given any battle, the feed says exactly what the referee said when each event was recorded; a
follower that resumes anywhere sees the rest of it, once; the battle at a point is the battle as
the referee saw it then."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from support.examples import stored
from support.strategies import a_battle, proposals
from support.table import Table, unit

from morale.core.rules import Refusal
from morale.core.state import digest
from morale.events.types import EventRetracted
from morale.projections.feed import FeedItem, encode_item, feed, follow
from morale.projections.timeline import Timeline, fold_at


def played(data: st.DataObject) -> tuple[Table, list[list], dict[int, str]]:
    """A random battle, with now and then a retraction; what each accepted event caused, and the
    battle's digest after it, as the referee saw them live."""
    table = a_battle()
    caused_live: list[tuple] = [() for _ in table.events]
    digests_live = {table.fold.seq: digest(table.battle)}
    for _ in range(data.draw(st.integers(5, 80))):
        event = proposals(data, table)
        if data.draw(st.integers(0, 15)) == 0 and table.fold.seq > 8:
            event = EventRetracted(seq=data.draw(st.integers(8, table.fold.seq)), reason="typed in error")
        try:
            caused_live.append(table.record(event))
        except Refusal:
            continue
        digests_live[table.fold.seq] = digest(table.battle)
    return table, caused_live, digests_live


@given(st.data())
def test_the_feed_says_what_the_referee_said_when_each_event_was_recorded(data):
    table, caused_live, _ = played(data)
    items = list(feed("test-battle", stored(table)))
    assert [i.seq for i in items] == list(range(1, len(table.events) + 1))
    assert [i.caused for i in items] == caused_live


@given(st.data())
def test_a_follower_resuming_anywhere_sees_the_rest_once(data):
    table, _, _ = played(data)
    log = stored(table)
    whole = [encode_item(i) for i in feed("test-battle", log)]
    cut = data.draw(st.integers(0, len(log)))
    resumed = [encode_item(i) for i in feed("test-battle", log, after=cut)]
    assert whole[:cut] + resumed == whole


@given(st.data())
def test_the_board_at_a_point_is_the_battle_as_the_referee_saw_it_then(data):
    table, _, digests_live = played(data)
    log = stored(table)
    cut = data.draw(st.sampled_from(sorted(digests_live)))
    at_point = fold_at("test-battle", log, cut).state()
    assert digest(at_point) == digests_live[cut]
    assert Timeline("test-battle", log).board_at(Timeline("test-battle", log).point(str(cut))).seq == cut


def test_a_retraction_recorded_later_does_not_reach_back_in_time():
    table = Table(unit("guard"))
    table.go_to(1, "imperium", "shooting")
    table.casualties("guard", 3)
    table.end_phase()
    assert table.due("guard") == ["guard:morale"]
    casualties_seq = table.fold.seq - 1
    table.record(EventRetracted(seq=casualties_seq, reason="those were the other unit's losses"))
    log = stored(table)
    assert fold_at("test-battle", log, len(log)).state().units["guard"].models == 10
    then = fold_at("test-battle", log, len(log) - 1).state()
    assert then.units["guard"].models == 7 and [d.test for d in then.due] == ["morale"]


def test_feed_items_are_plain_json_with_sorted_keys():
    table = Table(unit("guard"))
    item = next(follow(type(table.fold)("test-battle"), stored(table)))
    assert isinstance(item, FeedItem)
    assert encode_item(item).startswith(b'{"battle":"test-battle","caused":[],"event":{')
