"""Following a battle live: the feed's items as they are appended, by this process or any other.

Writers in this process poke the hub after an append, so the battle's watcher reads it at once.
Writers in other processes are seen two ways: on SQLite (the CLI on the same file) by a cheap poll
of the last sequence number; on PostgreSQL, where several nodes share the store, the database
announces every append (LISTEN/NOTIFY, `listen.py`) and the watcher reads only when told, never
polls. The followers of a battle share one channel: one fold of the log, so what an event
caused is computed once, incrementally, exactly as replay computes it, and read and encoded once
however many followers there are (with one read per follower, an append was slow to reach many
followers: bench/README.md); the watcher then writes it to every follower in one pass (`streaming`).
Its words (the story's lines, the states' names) are said in each follower's language: an item is
encoded once for each language its followers read, not once per follower (`Published.json_in`).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path
from typing import TYPE_CHECKING

from litestar.types import Send

from morale.core.fold import Fold
from morale.core.rules import Refusal
from morale.core.words import Words
from morale.events.locate import is_database_url, open_store
from morale.events.store import EventStore, SqliteEventStore
from morale.projections.feed import FeedItem, encode_item, follow

from ..language import SOURCE, say
from ..read_back import read_back_fold, reading_through
from . import streaming

if TYPE_CHECKING:
    from morale.events.postgres import Announcements


WORKERS = 40  # the store's worker threads


class Stores:
    """The server's store: on SQLite one connection per thread (sqlite3 connections stay in the
    thread that made them); on PostgreSQL one store, its pool shared by every thread."""

    def __init__(self, location: str | Path, pool_size: int = 10) -> None:
        self.path = Path(location)
        self._local = threading.local()
        self._shared = open_store(location, pool_size=pool_size) if is_database_url(location) else None
        # As many threads as anyio gives a process by default; on PostgreSQL they share the pool.
        # Made at the first work after each close: a server (or a test's client) may run its
        # lifespan again on the same stores, and a closed executor takes no more work.
        self._workers: ThreadPoolExecutor | None = None

    def announcements(self) -> Announcements | None:
        """Where this node listens for appends (None on SQLite, which announces nothing)."""
        return self._shared.announcements() if self._shared is not None else None  # type: ignore[attr-defined]

    @property
    def announced(self) -> bool:
        """Every append, by any process, is announced to this node (PostgreSQL's LISTEN/NOTIFY):
        followers wait for news and never poll."""
        return self._shared is not None

    def get(self) -> EventStore:
        if self._shared is not None:
            return self._shared
        store = getattr(self._local, "store", None)
        if store is None:
            store = self._local.store = SqliteEventStore(self.path)
        return store

    def close(self) -> None:
        workers, self._workers = self._workers, None
        if workers is not None:
            workers.shutdown(wait=False)
        if self._shared is not None:
            self._shared.close()

    async def run(self, work: Callable[[EventStore], object]) -> object:
        """Run blocking store work in a worker thread, with that thread's connection. The event
        loop's own executor hop: anyio's (limiter, cancel scope, library lookup) cost about as much
        again on every request (py-spy under 200 writers, bench/README.md). As with anyio's, a
        caller cancelled meanwhile waits for the work to end, so none outlives its request unseen."""
        workers = self._workers
        if workers is None:
            workers = self._workers = ThreadPoolExecutor(WORKERS, thread_name_prefix="morale-store")
        done = asyncio.get_running_loop().run_in_executor(workers, self._in_worker, work)
        try:
            return await asyncio.shield(done)
        except asyncio.CancelledError:
            while not done.done():
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.shield(done)
            raise

    def _in_worker(self, work: Callable[[EventStore], object]) -> object:
        return work(self.get())


@dataclass(frozen=True)
class Published:
    """A feed item with its JSON, encoded once for each language its followers read, however many
    followers send it."""

    item: FeedItem
    _said: dict[tuple[str, str], bytes] = field(default_factory=dict, compare=False, repr=False)

    @property
    def seq(self) -> int:
        return self.item.seq

    def json_in(self, language: str) -> bytes:
        """The item's JSON, its words said in `language`."""
        found = self._said.get(("json", language))
        if found is None:
            found = self._said[("json", language)] = encode_item(self.item, _saying(language))
        return found

    def sse_in(self, language: str) -> bytes:
        """The item as Server-Sent Events messages, also built once for every follower reading
        `language`: one named by its event's type, then one named by each kind of outcome it
        caused, each with the same id and data (`sse_names`), all in one write."""
        found = self._said.get(("sse", language))
        if found is None:
            data = self.json_in(language)
            found = b"".join(
                b"event: %s\nid: %d\ndata: %s\n\n" % (name, self.seq, data) for name in sse_names(self.item)
            )
            self._said[("sse", language)] = found
        return found

    @property
    def json(self) -> bytes:
        """In English, the source."""
        return self.json_in(SOURCE)

    @property
    def sse(self) -> bytes:
        return self.sse_in(SOURCE)


@cache
def _saying(language: str) -> Callable[[object], object]:
    """msgspec's hook for a feed read in `language`, given it by name: the watcher that encodes an
    item for every follower runs in no follower's request."""

    def hook(value: object) -> object:
        if isinstance(value, Words):
            return say(value, language)
        raise NotImplementedError(f"{type(value).__name__} cannot be encoded")

    return hook


def sse_names(item: FeedItem) -> list[bytes]:
    """The `event:` names an item is sent under on the SSE feed: its event's type first (a client
    listening for every type gets every item, once), then each kind of outcome it caused, in the
    order first caused (`addEventListener("test_resolved", ...)` gets the items that resolve a
    test). The names of event types and of outcome kinds never coincide (a test holds them apart)."""
    names = [_tag(item.event)]
    for outcome in item.caused:
        kind = _tag(outcome)
        if kind not in names:
            names.append(kind)
    return names


def _tag(value: object) -> bytes:
    return type(value).__struct_config__.tag.encode()  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Format:
    """How one kind of feed writes its items (and its heartbeats) for a follower."""

    media_type: str
    prelude: bytes  # written once, when a follower connects
    heartbeat: bytes  # written when a follower has had nothing for a while
    item: Callable[[Published, str], bytes]

    def encode(self, published: Published | None, language: str = SOURCE) -> bytes:
        """An item (its words said in `language`), or a heartbeat for None."""
        return self.heartbeat if published is None else self.item(published, language)


# Server-Sent Events: `id:` is the sequence number, so a reconnecting browser sends Last-Event-ID and
# resumes exactly after the last event it saw; `event:` names each message by kind (`sse_names`).
# Heartbeats are comments.
SSE = Format("text/event-stream; charset=utf-8", b"retry: 2000\n: following\n\n", b": heartbeat\n\n", Published.sse_in)
# One JSON object per line; a blank line is a heartbeat (JSON readers skip it).
NDJSON = Format("application/x-ndjson", b"", b"\n", lambda p, language: p.json_in(language) + b"\n")


class Follower:
    """One connection following a battle: where it is in the log, how to write to it, the language
    its items' words are said in, and the token (its sha256) that opened it, whose revocation ends it."""

    def __init__(self, send: Send, form: Format, position: int, token_hash: str = "", language: str = SOURCE) -> None:
        self.send, self.form, self.position = send, form, position
        self.token_hash, self.language = token_hash, language
        self.last_write = time.monotonic()
        self.let_go = asyncio.Event()  # the channel's watcher no longer writes to it
        self.unfinished: asyncio.Task[None] | None = None  # a write that had to wait for the connection
        self.revoked = False  # its token no longer opens the battle: the stream ends

    def end(self) -> None:
        """Its token was revoked: nothing more is written to it, and its response ends."""
        self.revoked = True
        self.let_go.set()

    async def write(self, published: Published) -> None:
        """Write while catching up on its own: waiting for the connection if it must."""
        await self.send(streaming.body(self.form.encode(published, self.language)))
        self.position, self.last_write = published.seq, time.monotonic()

    def write_now(self, published: Published | None) -> bool:
        """Write for the watcher, without waiting; False if the write has to wait for the connection
        (the follower finishes it, and catches up on its own)."""
        self.unfinished = streaming.write_now(self.send, self.form.encode(published, self.language))
        self.last_write = time.monotonic()
        if published is not None:
            self.position = published.seq
        return self.unfinished is None


class Channel:
    """One battle's live tail, shared by all its followers: one reader (the channel's watcher), one
    read of the store per append (not one per follower), and the last `keep` items, each encoded
    once. The watcher writes each new item to every follower that is level with the tail, in one
    pass (see `streaming`); a follower behind it (just connected, resuming, or slow to read) takes
    what it lacks from the tail, or reads the gap itself, and then hands itself over."""

    def __init__(self, battle: str, keep: int = 256) -> None:
        self.battle = battle
        self.fold = read_back_fold(battle)  # it lives as long as its followers: its log must not grow
        self.recent: deque[Published] = deque(maxlen=keep)
        self.seq = 0  # the last event in the tail (the fold runs ahead of it while a worker thread reads)
        self.followers = 0  # connections following, handed over or not
        self.everyone: dict[Follower, None] = {}  # every follower, handed over or not (a revocation ends them)
        self._level: dict[Follower, None] = {}  # those the watcher writes to, in the order they came
        self._poked = asyncio.Event()  # an append in this process: the watcher reads at once
        self._watcher: asyncio.Task[None] | None = None
        self._tokens_changed = False  # a token of the battle was revoked: its followers are checked
        self._data_version: int | None = None  # SQLite: the file's, when the tokens were last checked

    def notify(self) -> None:
        self._poked.set()

    def tokens_changed(self) -> None:
        """Some token of the battle was revoked: the watcher ends the feeds the revoked ones opened."""
        self._tokens_changed = True
        self._poked.set()

    def watch(self, stores: Stores, poll_s: float, heartbeat_s: float, closing: Callable[[], bool]) -> None:
        """Start the channel's watcher unless it runs: see `_watch`. A watcher that failed (the
        store went away) fails its followers' connections, which their clients then retry."""
        watcher = self._watcher
        if watcher is not None and watcher.done():
            self._watcher = None
            if not watcher.cancelled() and watcher.exception() is not None:
                raise watcher.exception()  # type: ignore[misc]
        if self._watcher is None:
            self._watcher = asyncio.get_running_loop().create_task(self._watch(stores, poll_s, heartbeat_s, closing))

    async def hand_over(self, follower: Follower) -> None:
        """Let the watcher write to `follower`, which is level with the tail, until it lets go: a
        write had to wait (finished here), the hub is closing, or the watcher stopped."""
        follower.let_go.clear()
        self._level[follower] = None
        try:
            await follower.let_go.wait()
        finally:
            self._level.pop(follower, None)
        if follower.unfinished is not None:
            await follower.unfinished
            follower.unfinished = None

    def _let_go(self, follower: Follower) -> None:
        self._level.pop(follower, None)
        follower.let_go.set()

    async def _watch(self, stores: Stores, poll_s: float, heartbeat_s: float, closing: Callable[[], bool]) -> None:
        """While anyone follows: read what was appended, at once after an append in this process and
        every `poll_s` for other processes' appends, and write it to the followers level with the
        tail; every half `heartbeat_s`, write a heartbeat to those that have had nothing for
        `heartbeat_s` (so a quiet follower's heartbeats come at most 1.5 heartbeats apart).

        The only reader: followers that each read (or each took a lock to find the read done) after
        every append queued behind one another; each arming its own timer, or polling twice a
        second, delayed the appends landing meanwhile (bench/feed.py; the figures are in bench/README.md)."""
        tick = heartbeat_s / 2
        ticked = time.monotonic()
        # Where every append is announced, the watcher reads when poked (and once as it starts),
        # never on a timer: a node's followers cost its store nothing while their battle is quiet.
        wait_s = tick if stores.announced else min(poll_s, tick)
        news = True
        try:
            while self.followers and not closing():
                if news or not stores.announced:
                    self._poked.clear()  # before reading: a poke landing during the read is read next round
                    await self._read_new(stores)
                # After the read, so an append's delivery never waits on it (on SQLite every append
                # by this process, made on another thread's connection, has it look at the tokens).
                await self._end_revoked(stores)
                if time.monotonic() - ticked >= tick:
                    self._heartbeats(heartbeat_s)
                    ticked = time.monotonic()
                try:
                    await asyncio.wait_for(self._poked.wait(), timeout=wait_s)
                    news = True
                except TimeoutError:
                    news = False
        finally:
            for follower in list(self._level):
                self._let_go(follower)

    async def _read_new(self, stores: Stores) -> None:
        # SQLite: a cheap look from the event loop spares a worker thread most polls. PostgreSQL is
        # asked only when it announced news, and never from the event loop.
        if not stores.announced and stores.get().last_seq(self.battle) <= self.fold.seq:
            return

        new: list[Published] = await stores.run(partial(_read_on, self.fold))  # type: ignore[assignment]
        if not new:
            return
        self.recent.extend(new)
        self.seq = new[-1].seq
        for follower in list(self._level):
            for published in new:
                if published.seq > follower.position and not follower.write_now(published):
                    self._let_go(follower)
                    break

    async def _end_revoked(self, stores: Stores) -> None:
        """End the followers whose token no longer opens the battle, once a revocation is heard of:
        told by this process, by the database (PostgreSQL announces every revocation to every node),
        or, on SQLite, when another connection has written to the file (the CLI's `morale revoke`)."""
        if not stores.announced:
            version = stores.get().data_version()  # type: ignore[attr-defined]
            if version != self._data_version:
                self._tokens_changed, self._data_version = True, version
        if not self._tokens_changed:
            return
        self._tokens_changed = False
        held = {follower.token_hash for follower in self.everyone if follower.token_hash}
        if not held:
            return
        alive: set[str] = await stores.run(lambda store: {t.token_hash for t in store.tokens(self.battle)})  # type: ignore[assignment]
        for follower in list(self.everyone):
            if follower.token_hash and follower.token_hash not in alive:
                self._level.pop(follower, None)
                follower.end()

    def _heartbeats(self, heartbeat_s: float) -> None:
        quiet_since = time.monotonic() - heartbeat_s
        for follower in list(self._level):
            if follower.last_write <= quiet_since and not follower.write_now(None):
                self._let_go(follower)

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
    """The channels of the battles being followed; wakes a battle's watcher when this process
    appends to it."""

    def __init__(self, keep: int = 256) -> None:
        self._channels: dict[str, Channel] = {}
        self.keep = keep  # items each battle's shared tail holds; followers further behind read the gap
        self.closing = False
        self._writing: dict[str, int] = {}  # battles this process is appending to right now
        self.also: list[Callable[[str], None]] = []  # told of every battle with news (the webhooks' deliverer)
        # Told the seq of every append the database announces, and None when some may have been missed
        # (the kept folds of the append path: `Folds.heard`, `Folds.missed`).
        self.seqs: list[Callable[[str | None, int | None], None]] = []

    def channel(self, battle: str) -> Channel:
        if battle not in self._channels:
            self._channels[battle] = Channel(battle, self.keep)
        return self._channels[battle]

    def notify(self, battle: str, seq: int | None = None) -> None:
        """Battle `battle` has news; `seq`: the database announced it (up to that seq). An announced
        append the channel has already read wakes nobody; one that lands while this process is
        appending to the battle waits for that append to end (`writing`), which wakes the channel."""
        for told in self.also:
            told(battle)
        if seq is not None:
            for told_seq in self.seqs:
                told_seq(battle, seq)
        channel = self._channels.get(battle)
        if channel is None or (seq is not None and (channel.fold.seq >= seq or self._writing.get(battle))):
            return
        channel.notify()

    def revoked(self, battle: str) -> None:
        """Tokens of `battle` were revoked (here, or announced by the database): the feeds they opened end."""
        channel = self._channels.get(battle)
        if channel is not None:
            channel.tokens_changed()

    @contextlib.contextmanager
    def writing(self, battle: str) -> Iterator[None]:
        """Around an append by this process: its followers are written to once it is done, not while
        it is (the database announces the commit before the writer has answered its client, and a
        pass over a thousand followers would hold up that answer)."""
        self._writing[battle] = self._writing.get(battle, 0) + 1
        try:
            yield
        finally:
            self._writing[battle] -= 1
            if not self._writing[battle]:
                del self._writing[battle]
            self.notify(battle)

    def notify_all(self) -> None:
        """Every battle followed may have news (announcements were missed): each reads what it lacks."""
        for told in self.also:
            told("")
        for told_seq in self.seqs:
            told_seq(None, None)
        for channel in self._channels.values():
            channel.notify()

    def close(self) -> None:
        self.closing = True
        for channel in self._channels.values():
            channel.notify()


class _GapReader:
    """A fold of the follower's own, for what the shared tail no longer holds (resuming from far
    back, or an export): it reads the log exactly as replay does."""

    def __init__(self, stores: Stores, battle: str) -> None:
        self.stores = stores
        self.fold = Fold(battle)

    async def read(self) -> list[Published]:
        return await self.stores.run(partial(_read_on, self.fold))  # type: ignore[return-value]


def _read_on(fold: Fold, store: EventStore) -> list[Published]:
    """The feed items of what the log holds after `fold`, which reads them (in a worker thread)."""
    return [Published(i) for i in follow(reading_through(fold, store), store.read(fold.battle_id, after_seq=fold.seq))]


async def export(stores: Stores, battle: str, after: int = 0) -> AsyncIterator[Published]:
    """The feed items after `after` that the log holds now, in log order."""
    for published in await _GapReader(stores, battle).read():
        if published.seq > after:
            yield published


async def follow_live(
    stores: Stores,
    hub: Hub,
    battle: str,
    send: Send,
    form: Format,
    *,
    after: int = 0,
    poll_s: float = 0.5,
    heartbeat_s: float = 15.0,
    token_hash: str = "",
    language: str = SOURCE,
) -> None:
    """Write the feed items after `after` to one connection, in log order, then each new one as it
    lands, until the hub closes or the token that opened it (`token_hash`) is revoked (the
    connection's response cancels this when its client goes), their words said in `language`. What
    the follower lacks it takes from the shared tail, or reads itself; once level with the tail it
    is handed over to the channel's watcher."""
    channel = hub.channel(battle)
    follower = Follower(send, form, after, token_hash, language)
    gap: _GapReader | None = None
    if form.prelude:
        await send(streaming.body(form.prelude))
    channel.followers += 1
    channel.everyone[follower] = None
    # Its token was good when the request came in; a revocation heard before this point would miss it.
    channel.tokens_changed()
    try:
        while not hub.closing and not follower.revoked:
            channel.watch(stores, poll_s, heartbeat_s, lambda: hub.closing)
            lacking = channel.since(follower.position)
            if lacking is None:
                gap = gap or _GapReader(stores, battle)
                lacking = await gap.read()
            for published in lacking:
                if follower.revoked:
                    break
                if published.seq > follower.position:
                    await follower.write(published)
            if follower.revoked or follower.position < channel.seq:  # revoked, or the tail grew meanwhile
                continue
            await channel.hand_over(follower)
    finally:
        channel.followers -= 1
        channel.everyone.pop(follower, None)


def check_resume_point(store: EventStore, battle: str, after: int, field: str = "after") -> None:
    """A follower may resume from any event the log holds, or from the start (0). `field`: what the
    client gave it as (`after`, or the Last-Event-ID header), for the refusal to name."""
    last = store.last_seq(battle)
    if after < 0 or after > last:
        raise Refusal(
            Words("the log holds events 1 to {last}; cannot resume after {after}", last=last, after=after), field=field
        )
