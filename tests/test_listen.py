"""A node on PostgreSQL follows battles by the database's word alone (it never polls): an append
announced while this node is itself appending to the battle is delivered once that append ends,
and an announcement names its battle and last seq."""

from __future__ import annotations

import asyncio
import json

from support.served import BATTLE, ROSTER, example_events

from morale.app.http.listen import announced
from morale.app.http.live import NDJSON, Hub, Stores, follow_live
from morale.app.roster import load_roster
from morale.app.service import record, start_battle
from morale.events.codec import event_from_dict

WAIT_S = 20.0
NEVER_S = 3600.0  # a poll that would never come in time: only a wake-up delivers


def test_an_announcement_names_its_battle_and_last_seq():
    assert announced("12 hive-tarsis") == ("hive-tarsis", 12)
    assert announced("3 b 2") == ("b 2", 3)


def test_appends_announced_during_this_nodes_own_append_reach_its_followers_once_it_ends(pg_url):
    stores = Stores(pg_url)
    store = stores.get()
    roster = load_roster(ROSTER)
    start_battle(store, BATTLE, roster.started, roster.units)
    events = [event_from_dict(e) for e in example_events(3)]
    start = store.last_seq(BATTLE)
    hub = Hub()
    lines: list[int] = []
    got = asyncio.Event()

    async def send(message: dict) -> None:
        lines.extend(json.loads(line)["seq"] for line in message["body"].splitlines() if line.strip())
        if lines and lines[-1] == start + 3:
            got.set()

    async def scenario() -> None:
        following = asyncio.create_task(
            follow_live(stores, hub, BATTLE, send, NDJSON, after=start, poll_s=NEVER_S, heartbeat_s=NEVER_S)
        )
        await asyncio.sleep(0.2)  # level with the log, waiting for news
        with hub.writing(BATTLE):
            # Another node's append and this node's own land while this node's append is under way;
            # the database announces each (as the listener would pass them on).
            for offset, event in enumerate(events, start=1):
                record(store, BATTLE, [event])
                hub.notify(BATTLE, start + offset)
        await asyncio.wait_for(got.wait(), WAIT_S)
        following.cancel()

    try:
        asyncio.run(scenario())
    finally:
        stores.close()
    assert lines == [start + 1, start + 2, start + 3]
