"""Following a battle live: the feed's items as they are appended, by this process or any other.

Writers in this process poke the hub after an append, so followers wake at once; writers in other
processes (the CLI on the same SQLite file) are seen by a cheap poll of the last sequence number.
Each follower keeps its own fold of the log, so what an event caused is computed once per
follower, incrementally, exactly as replay computes it.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable
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


class Hub:
    """Wakes the followers of a battle when this process appends to it."""

    def __init__(self) -> None:
        self._waiting: dict[str, asyncio.Event] = {}
        self.closing = False

    def notify(self, battle: str) -> None:
        woken = self._waiting.pop(battle, None)
        if woken is not None:
            woken.set()

    async def wait(self, battle: str, timeout_s: float) -> None:
        event = self._waiting.setdefault(battle, asyncio.Event())
        with anyio.move_on_after(timeout_s):
            await event.wait()

    def close(self) -> None:
        self.closing = True
        for battle in list(self._waiting):
            self.notify(battle)


async def items(
    stores: Stores,
    hub: Hub,
    battle: str,
    *,
    after: int = 0,
    keep_following: bool = True,
    poll_s: float = 0.5,
    heartbeat_s: float = 15.0,
) -> AsyncIterator[FeedItem | None]:
    """The feed items after `after`, in log order; then, if following, each new one as it lands,
    with a heartbeat (None) whenever `heartbeat_s` passes without one."""
    fold = Replay(battle)

    def read_new(store: SqliteEventStore) -> list[FeedItem]:
        return list(follow(fold, store.read(battle, after_seq=fold.seq)))

    last_sent = time.monotonic()
    while True:
        for item in await stores.run(read_new):  # type: ignore[union-attr]
            if item.seq > after:
                yield item
                last_sent = time.monotonic()
        if not keep_following:
            return
        while not hub.closing:
            await hub.wait(battle, poll_s)
            if stores.get().last_seq(battle) > fold.seq:
                break
            if time.monotonic() - last_sent >= heartbeat_s:
                yield HEARTBEAT
                last_sent = time.monotonic()
        if hub.closing:
            return


def check_resume_point(store: SqliteEventStore, battle: str, after: int) -> None:
    """A follower may resume from any event the log holds, or from the start (0)."""
    last = store.last_seq(battle)
    if after < 0 or after > last:
        raise Refusal(f"the log holds events 1 to {last}; cannot resume after {after}", field="after")


async def sse(source: AsyncIterator[FeedItem | None], retry_ms: int = 2000) -> AsyncIterator[bytes]:
    """Server-Sent Events: `id:` is the sequence number, so a reconnecting browser sends
    Last-Event-ID and resumes exactly after the last event it saw. Heartbeats are comments."""
    yield f"retry: {retry_ms}\n: following\n\n".encode()
    async for item in source:
        if item is HEARTBEAT:
            yield b": heartbeat\n\n"
        else:
            yield b"id: %d\ndata: %s\n\n" % (item.seq, encode_item(item))


async def ndjson(source: AsyncIterator[FeedItem | None]) -> AsyncIterator[bytes]:
    """One JSON object per line; a blank line is a heartbeat (JSON readers skip it)."""
    async for item in source:
        yield b"\n" if item is HEARTBEAT else encode_item(item) + b"\n"
