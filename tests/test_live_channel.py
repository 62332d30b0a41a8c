"""The followers of a battle share one channel (one read and one fold per append, however many
follow): each still sees every event once, in log order, with what replay says it caused, whether
it joined at the start, in the middle, at the end, or so far back that it must read the gap itself."""

from __future__ import annotations

import asyncio

from served import BATTLE, ROSTER, example_events

from morale.app.live import Hub, Published, Stores, items
from morale.app.roster import load_roster
from morale.app.service import record, start_battle
from morale.events.codec import event_from_dict
from morale.projections.feed import encode_item, feed, follow

WAIT_S = 20.0  # only a hang fails the test; the events arrive long before


def test_every_follower_of_a_shared_channel_sees_every_event_once_in_order(tmp_path):
    stores = Stores(tmp_path / "live.db")
    store = stores.get()
    roster = load_roster(ROSTER)
    start_battle(store, BATTLE, roster.started, roster.units)
    events = [event_from_dict(e) for e in example_events()]
    record(store, BATTLE, events[:50])
    joined_at = {"start": 0, "middle": 30, "end": store.last_seq(BATTLE)}
    hub = Hub(keep=4)  # a short shared tail, so the follower from the start has to read the gap itself

    async def follow_until(after: int, last: int) -> list[bytes]:
        seen = []
        async for item in items(stores, hub, BATTLE, after=after, poll_s=0.05, heartbeat_s=WAIT_S):
            seen.append(item.json)  # type: ignore[union-attr]
            if item.seq == last:  # type: ignore[union-attr]
                return seen
        return seen

    async def scenario() -> dict[str, list[bytes]]:
        last = store.last_seq(BATTLE) + len(events) - 50
        followers = {name: asyncio.create_task(follow_until(after, last)) for name, after in joined_at.items()}
        for event in events[50:]:  # one at a time, as a referee records them, each poking the hub
            record(store, BATTLE, [event])
            hub.notify(BATTLE)
            await asyncio.sleep(0)
        return {name: await asyncio.wait_for(task, WAIT_S) for name, task in followers.items()}

    seen = asyncio.run(scenario())
    for name, after in joined_at.items():
        expected = [encode_item(item) for item in feed(BATTLE, store.read(BATTLE), after=after)]
        assert seen[name] == expected, name


def test_an_export_that_does_not_follow_ends_at_the_last_event(tmp_path):
    stores = Stores(tmp_path / "live.db")
    store = stores.get()
    roster = load_roster(ROSTER)
    start_battle(store, BATTLE, roster.started, roster.units)
    record(store, BATTLE, [event_from_dict(e) for e in example_events(20)])

    async def export() -> list[int]:
        return [item.seq async for item in items(stores, Hub(), BATTLE, after=5, keep_following=False)]  # type: ignore[union-attr]

    assert asyncio.run(export()) == list(range(6, store.last_seq(BATTLE) + 1))


def test_the_tail_answers_only_for_what_it_holds_while_its_fold_runs_ahead_in_a_read(tmp_path):
    """The watcher folds new events in a worker thread and adds them to the tail afterwards; a
    follower looking in between must get nothing new (it once got old items back, over and over,
    and spun without ever letting the read finish)."""
    stores = Stores(tmp_path / "live.db")
    store = stores.get()
    roster = load_roster(ROSTER)
    start_battle(store, BATTLE, roster.started, roster.units)
    record(store, BATTLE, [event_from_dict(e) for e in example_events(20)])
    channel = Hub(keep=8).channel(BATTLE)
    held = store.last_seq(BATTLE)
    channel.recent.extend(Published(i) for i in follow(channel.fold, store.read(BATTLE)))
    channel.seq = held
    record(store, BATTLE, [event_from_dict(e) for e in example_events()[20:25]])
    for _ in follow(channel.fold, store.read(BATTLE, after_seq=held)):  # the read, half done
        assert channel.since(held) == []
        assert [p.seq for p in channel.since(held - 2)] == [held - 1, held]  # type: ignore[union-attr]
