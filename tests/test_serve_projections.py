"""The read models behind the server: the feed, time travel and the odds of a due test.

Given any battle, the feed says exactly what the referee said when each event was recorded; a
follower that resumes anywhere sees the rest of it, once; the board at a point is the board of the
log cut there; working out odds leaves the battle untouched."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest
from conftest import Table, combat, unit
from hypothesis import given
from hypothesis import strategies as st
from test_properties import a_battle, proposals

from morale.core.rules import Refusal
from morale.core.state import digest
from morale.events.store import seal
from morale.events.types import EventRetracted
from morale.projections.feed import FeedItem, encode_item, feed, follow
from morale.projections.odds import pass_chance
from morale.projections.timeline import replay_until, timeline, until

GENESIS = "0" * 64


def played(data: st.DataObject) -> tuple[Table, list[list], dict[int, str]]:
    """A random battle, with now and then a retraction; what each accepted event caused, and the
    battle's digest after it, as the referee saw them live."""
    table = a_battle()
    caused_live: list[list] = [[] for _ in table.events]
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


def stored(table: Table):
    return [s for s, _ in seal("test-battle", table.events, 0, GENESIS, "2026-01-01T00:00:00Z")]


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
    at_point = replay_until("test-battle", log, cut).state()
    assert digest(at_point) == digests_live[cut]
    assert timeline("test-battle", log)[cut - 1].turn == at_point.turn


def test_a_retraction_recorded_later_does_not_reach_back_in_time():
    table = Table(unit("guard"))
    table.go_to(1, "imperium", "shooting")
    table.casualties("guard", 3)
    table.end_phase()
    assert table.due("guard") == ["guard:morale"]
    casualties_seq = table.fold.seq - 1
    table.record(EventRetracted(seq=casualties_seq, reason="those were the other unit's losses"))
    log = stored(table)
    assert replay_until("test-battle", log, len(log)).state().units["guard"].models == 10
    then = replay_until("test-battle", log, len(log) - 1).state()
    assert then.units["guard"].models == 7 and [d.test for d in then.due] == ["morale"]


def test_a_point_outside_the_log_is_refused_naming_at():
    log = stored(Table(unit("guard")))
    for point in (0, len(log) + 1):
        with pytest.raises(Refusal) as refused:
            until(log, point)
        assert refused.value.field == "at"


# -- odds ---------------------------------------------------------------------------------------
def two_dice_at_most(target: int) -> Fraction:
    """2D6 at or under the target; a double 1 always passes (insane heroism)."""
    rolls = list(product(range(1, 7), repeat=2))
    return Fraction(sum(1 for a, b in rolls if a + b <= target or (a, b) == (1, 1)), len(rolls))


@pytest.mark.parametrize("ld", range(2, 11))
def test_the_odds_of_a_morale_test_are_the_share_of_rolls_that_pass(ld):
    table = Table(unit("guard", ld=ld))
    table.go_to(1, "imperium", "shooting")
    table.casualties("guard", 3)
    table.end_phase()
    due = table.battle.due[0]
    before = digest(table.battle)
    assert pass_chance(table.battle, due) == two_dice_at_most(ld)
    assert digest(table.battle) == before and table.battle.due[0] is due


def lost_combat_by_six(*rules: str) -> Fraction | None:
    table = Table(unit("guard", models=10), unit("boyz", "orks", ld=7, models=20, rules=rules))
    table.go_to(1, "imperium", "assault")
    table.record(combat(("imperium", "guard", 6), ("orks", "boyz", 0)))
    return pass_chance(table.battle, table.battle.due[0])


def test_the_odds_follow_modifiers_special_rules_and_insane_heroism():
    assert lost_combat_by_six() == Fraction(1, 36)  # Ld 7 - 6 = 1: only a double 1 passes
    assert lost_combat_by_six("stubborn") == Fraction(7, 12)  # Stubborn ignores the -6: 2D6 <= 7


def test_a_fall_back_roll_has_no_odds():
    table = Table(unit("guard"))
    table.go_to(1, "imperium", "shooting")
    table.casualties("guard", 3)
    table.end_phase()
    table.roll("guard", "morale", 6, 6)
    assert [d.test for d in table.battle.due] == ["fall_back"]
    assert pass_chance(table.battle, table.battle.due[0]) is None


def test_feed_items_are_plain_json_with_sorted_keys():
    table = Table(unit("guard"))
    item = next(follow(type(table.fold)("test-battle"), stored(table)))
    assert isinstance(item, FeedItem)
    assert encode_item(item).startswith(b'{"battle":"test-battle","caused":[],"event":{')
