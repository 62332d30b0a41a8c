"""The followers of a battle share one channel (one read and one fold per append, however many
follow): each still sees every event once, in log order, with what replay says it caused, whether
it joined at the start, in the middle, at the end, or so far back that it must read the gap itself."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest
from support.served import BATTLE, ROSTER, example_events

from morale.app.http.live import NDJSON, Hub, Published, Stores, export, follow_live
from morale.app.roster import load_roster
from morale.app.service import record, start_battle
from morale.events.codec import event_from_dict
from morale.projections.feed import encode_item, feed, follow

WAIT_S = 20.0  # only a hang fails the test; the events arrive long before


class Connection:
    """What a follower's client receives: the bodies the feed writes to it, as NDJSON lines. A
    `gate` (a future) makes every write wait until it is resolved, as a client that stops reading
    makes the server's writes wait once the connection's buffer is full."""

    def __init__(self, gate: asyncio.Future | None = None) -> None:
        self.lines: list[bytes] = []
        self.gate = gate
        self.got: dict[int, asyncio.Event] = {}

    async def send(self, message: dict) -> None:
        if self.gate is not None:
            await self.gate
        for line in message["body"].splitlines():
            if line:
                self.lines.append(line)
                self.arrived(json.loads(line)["seq"]).set()

    def arrived(self, seq: int) -> asyncio.Event:
        return self.got.setdefault(seq, asyncio.Event())


def new_battle(stores: Stores, events: int) -> None:
    roster = load_roster(ROSTER)
    start_battle(stores.get(), BATTLE, roster.started, roster.units)
    record(stores.get(), BATTLE, [event_from_dict(e) for e in example_events(events)])


def test_every_follower_of_a_shared_channel_sees_every_event_once_in_order(tmp_path):
    stores = Stores(tmp_path / "live.db")
    store = stores.get()
    new_battle(stores, 50)
    events = [event_from_dict(e) for e in example_events()]
    joined_at = {"start": 0, "middle": 30, "end": store.last_seq(BATTLE)}
    hub = Hub(keep=4)  # a short shared tail, so the follower from the start has to read the gap itself
    last = store.last_seq(BATTLE) + len(events) - 50

    async def scenario() -> dict[str, list[bytes]]:
        connections = {name: Connection() for name in joined_at}
        following = [
            asyncio.create_task(
                follow_live(stores, hub, BATTLE, c.send, NDJSON, after=joined_at[name], poll_s=0.05, heartbeat_s=WAIT_S)
            )
            for name, c in connections.items()
        ]
        for event in events[50:]:  # one at a time, as a referee records them, each poking the hub
            record(store, BATTLE, [event])
            hub.notify(BATTLE)
            await asyncio.sleep(0)
        for connection in connections.values():
            await asyncio.wait_for(connection.arrived(last).wait(), WAIT_S)
        for task in following:
            task.cancel()
        return {name: c.lines for name, c in connections.items()}

    seen = asyncio.run(scenario())
    for name, after in joined_at.items():
        expected = [encode_item(item) for item in feed(BATTLE, store.read(BATTLE), after=after)]
        assert seen[name] == expected, name


def test_a_follower_slow_to_read_holds_up_no_one_and_later_gets_everything_once(tmp_path):
    stores = Stores(tmp_path / "live.db")
    store = stores.get()
    new_battle(stores, 20)
    start = store.last_seq(BATTLE)
    events = [event_from_dict(e) for e in example_events()[20:30]]
    hub = Hub()

    async def scenario() -> tuple[list[bytes], list[bytes]]:
        gate = asyncio.get_running_loop().create_future()
        slow, quick = Connection(), Connection()
        following = [
            asyncio.create_task(follow_live(stores, hub, BATTLE, c.send, NDJSON, after=start, poll_s=0.05))
            for c in (slow, quick)
        ]
        await asyncio.sleep(0.2)  # both level with the tail, handed over to the watcher
        slow.gate = gate  # from now on its writes wait, as on a full connection
        for event in events:
            record(store, BATTLE, [event])
            hub.notify(BATTLE)
            await asyncio.wait_for(quick.arrived(store.last_seq(BATTLE)).wait(), WAIT_S)
        assert slow.lines == []  # nothing reached it, and the quick one got every event meanwhile
        gate.set_result(None)
        await asyncio.wait_for(slow.arrived(store.last_seq(BATTLE)).wait(), WAIT_S)
        for task in following:
            task.cancel()
        return slow.lines, quick.lines

    slow_lines, quick_lines = asyncio.run(scenario())
    expected = [encode_item(item) for item in feed(BATTLE, store.read(BATTLE), after=start)]
    assert quick_lines == expected
    assert slow_lines == expected


def test_an_export_ends_at_the_last_event(tmp_path):
    stores = Stores(tmp_path / "live.db")
    new_battle(stores, 20)

    async def exported() -> list[int]:
        return [item.seq async for item in export(stores, BATTLE, after=5)]

    assert asyncio.run(exported()) == list(range(6, stores.get().last_seq(BATTLE) + 1))


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


def test_followers_connections_fail_when_the_store_cannot_be_read(tmp_path):
    """A watcher that cannot read the store ends its followers' connections with the error (their
    clients reconnect with Last-Event-ID) instead of leaving them waiting for news that never comes."""
    stores = Stores(tmp_path / "live.db")
    new_battle(stores, 20)
    hub = Hub()

    async def scenario() -> None:
        connection = Connection()
        following = asyncio.create_task(
            follow_live(stores, hub, BATTLE, connection.send, NDJSON, after=stores.get().last_seq(BATTLE))
        )
        await asyncio.sleep(0.1)  # handed over to the watcher

        def unreadable():
            raise sqlite3.OperationalError("disk I/O error")

        stores.get = unreadable  # type: ignore[method-assign]
        hub.notify(BATTLE)
        await asyncio.wait_for(following, WAIT_S)

    with pytest.raises(sqlite3.OperationalError, match="disk I/O error"):
        asyncio.run(scenario())
