"""Following a battle live: the feed's items as they are appended, by this process or any other.

Writers in this process poke the hub after an append, so followers wake at once; writers in other
processes (the CLI on the same SQLite file) are seen by a cheap poll of the last sequence number.
The followers of a battle share one channel: one fold of the log, so what an event caused is
computed once, incrementally, exactly as replay computes it, and read and encoded once however many
followers there are (with one read per follower, 1,000 followers made an append take seconds).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import anyio
import anyio.to_thread

from morale.core.replay import Replay
from morale.core.rules import Refusal
from morale.events.store import SqliteEventStore
from morale.projections.feed import FeedItem, encode_item, follow

HEARTBEAT = None  # what `items` yields when a follower has had nothing for a while


class Stores:
    """One SQLite connection per thread (sqlite3 connections stay in the thread that made them)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._local = threading.local()

    def get(self) -> SqliteEventStore:
        store = getattr(self._local, "store", None)
        if store is None:
            store = self._local.store = SqliteEventStore(self.path)
        return store

    async def run(self, work: Callable[[SqliteEventStore], object]) -> object:
        """Run blocking store work in a worker thread, with that thread's connection."""
        return await anyio.to_thread.run_sync(lambda: work(self.get()))


@dataclass(frozen=True)
class Published:
    """A feed item with its JSON, encoded once however many followers send it."""

    item: FeedItem

    @property
    def seq(self) -> int:
        return self.item.seq

    @cached_property
    def json(self) -> bytes:
        return encode_item(self.item)

    @cached_property
    def sse(self) -> bytes:
        """The item as one Server-Sent Events message, also built once for every follower."""
        return b"id: %d\ndata: %s\n\n" % (self.seq, self.json)


class Channel:
    """One battle's live tail, shared by all its followers: one reader (the channel's watcher), one
    read of the store per append (not one per follower), and the last `keep` items, each encoded
    once. Followers only wait for news and take it from the tail."""

    def __init__(self, battle: str, keep: int = 256) -> None:
        self.battle = battle
        self.fold = Replay(battle)
        self.recent: deque[Published] = deque(maxlen=keep)
        self.seq = 0  # the last event in the tail (the fold runs ahead of it while a worker thread reads)
        self.changed = asyncio.Event()  # set (and replaced) when the tail grows, on a heartbeat tick, on shutdown
        self._poked = asyncio.Event()  # an append in this process: the watcher reads at once
        self.followers = 0
        self._watcher: asyncio.Task[None] | None = None

    def notify(self) -> None:
        self._poked.set()

    def _wake(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()

    def watch(self, stores: Stores, poll_s: float, heartbeat_s: float, closing: Callable[[], bool]) -> None:
        """Start the channel's watcher unless it runs: see `_watch`."""
        if self._watcher is None or self._watcher.done():
            self._watcher = asyncio.get_running_loop().create_task(self._watch(stores, poll_s, heartbeat_s, closing))

    async def _watch(self, stores: Stores, poll_s: float, heartbeat_s: float, closing: Callable[[], bool]) -> None:
        """While anyone follows: read what was appended, at once after an append in this process and
        every `poll_s` for other processes' appends, and wake the followers when the tail grew; also
        every half `heartbeat_s`, so that a quiet follower can send its heartbeat.

        The only reader: followers that each read (or each took a lock to find the read done) after
        every append queued behind one another, and each waking twice (once to look, once for what
        was read) doubled the fan-out; each arming its own timer, or polling twice a second, delayed
        the appends landing meanwhile. Measured with 1,000 followers in bench/feed.py."""
        tick = heartbeat_s / 2  # a quiet follower's heartbeat comes at most 1.5 heartbeats apart
        woke = time.monotonic()
        while self.followers and not closing():
            self._poked.clear()  # before reading: a poke landing during the read is read next round
            await self._read_new(stores)
            if time.monotonic() - woke >= tick:
                self._wake()
                woke = time.monotonic()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._poked.wait(), timeout=min(poll_s, tick))
        self._wake()  # on shutdown, followers see the hub closing

    async def _read_new(self, stores: Stores) -> None:
        if stores.get().last_seq(self.battle) <= self.fold.seq:
            return

        def read_new(store: SqliteEventStore) -> list[Published]:
            return [Published(i) for i in follow(self.fold, store.read(self.battle, after_seq=self.fold.seq))]

        new: list[Published] = await stores.run(read_new)  # type: ignore[assignment]
        if new:
            self.recent.extend(new)
            self.seq = new[-1].seq
            self._wake()

    def since(self, position: int) -> list[Published] | None:
        """The items after `position`, or None if the tail no longer reaches back that far."""
        first = self.recent[0].seq if self.recent else self.seq + 1
        if position < first - 1:
            return None
        # The tail holds consecutive events, so those after `position` are its last few: taken from
        # the right end, not found by scanning the whole tail once per follower on every append.
        newer = self.seq - position
        return [self.recent[-back] for back in range(newer, 0, -1)] if newer > 0 else []


class Hub:
    """The channels of the battles being followed; wakes a battle's followers when this process
    appends to it."""

    def __init__(self, keep: int = 256) -> None:
        self._channels: dict[str, Channel] = {}
        self.keep = keep  # items each battle's shared tail holds; followers further behind read the gap
        self.closing = False

    def channel(self, battle: str) -> Channel:
        if battle not in self._channels:
            self._channels[battle] = Channel(battle, self.keep)
        return self._channels[battle]

    def notify(self, battle: str) -> None:
        if battle in self._channels:
            self._channels[battle].notify()

    def close(self) -> None:
        self.closing = True
        for channel in self._channels.values():
            channel.notify()


async def items(
    stores: Stores,
    hub: Hub,
    battle: str,
    *,
    after: int = 0,
    keep_following: bool = True,
    poll_s: float = 0.5,
    heartbeat_s: float = 15.0,
) -> AsyncIterator[Published | None]:
    """The feed items after `after`, in log order; then, if following, each new one as it lands,
    with a heartbeat (None) whenever `heartbeat_s` passes without one.

    A follower behind the shared tail (resuming from far back, or an export) reads the gap with a
    fold of its own, exactly as replay does; once it is within the tail it takes the shared items."""
    own_fold: Replay | None = None
    position = after

    def read_gap(store: SqliteEventStore) -> list[Published]:
        assert own_fold is not None
        return [Published(i) for i in follow(own_fold, store.read(battle, after_seq=own_fold.seq))]

    if not keep_following:
        own_fold = Replay(battle)
        for published in await stores.run(read_gap):  # type: ignore[union-attr]
            if published.seq > position:
                yield published
        return

    channel = hub.channel(battle)
    channel.followers += 1
    try:
        channel.watch(stores, poll_s, heartbeat_s, lambda: hub.closing)
        last_sent = time.monotonic()
        while not hub.closing:
            news = channel.changed  # taken before looking, so news that lands meanwhile is not slept through
            batch = channel.since(position)
            if batch is None:
                own_fold = own_fold or Replay(battle)
                batch = await stores.run(read_gap)  # type: ignore[assignment]
            sent = False
            for published in batch:  # type: ignore[union-attr]
                if published.seq > position:
                    yield published
                    position, last_sent, sent = published.seq, time.monotonic(), True
            if sent:
                continue
            if time.monotonic() - last_sent >= heartbeat_s:
                yield HEARTBEAT
                last_sent = time.monotonic()
            await news.wait()  # set on news, on the watcher's heartbeat tick, and on shutdown
    finally:
        channel.followers -= 1


def check_resume_point(store: SqliteEventStore, battle: str, after: int) -> None:
    """A follower may resume from any event the log holds, or from the start (0)."""
    last = store.last_seq(battle)
    if after < 0 or after > last:
        raise Refusal(f"the log holds events 1 to {last}; cannot resume after {after}", field="after")


async def sse(source: AsyncIterator[Published | None], retry_ms: int = 2000) -> AsyncIterator[bytes]:
    """Server-Sent Events: `id:` is the sequence number, so a reconnecting browser sends
    Last-Event-ID and resumes exactly after the last event it saw. Heartbeats are comments."""
    yield f"retry: {retry_ms}\n: following\n\n".encode()
    async for item in source:
        if item is HEARTBEAT:
            yield b": heartbeat\n\n"
        else:
            yield item.sse


async def ndjson(source: AsyncIterator[Published | None]) -> AsyncIterator[bytes]:
    """One JSON object per line; a blank line is a heartbeat (JSON readers skip it)."""
    async for item in source:
        yield b"\n" if item is HEARTBEAT else item.json + b"\n"
