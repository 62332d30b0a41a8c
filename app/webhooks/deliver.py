"""Delivering a battle's feed items to its hooks: at least once, in order per hook, from one node.

- **One node delivers.** Of the nodes serving a store, the one holding its delivery lease (kept in
  the store, renewed every third of its length) runs the deliveries; the others stand by and take
  the lease when it lapses (a node killed) or is let go (a node stopped). A node that loses it
  stops delivering before another could have taken it.
- **In order, at least once.** Each hook has one worker, which posts its items one at a time in log
  order and moves on only once the receiver answered 2xx: an item is never skipped and never
  overtaken. How far a hook has delivered is kept in the store after each delivery, so a node
  restarted, or the one that takes over, resumes after the last item delivered. A node killed
  between the receiver's answer and that write sends the item again: the receiver drops it by its
  `webhook-id` (message.py).
- **Retries, then a pause.** A failed attempt (no answer, a timeout, any status but 2xx; redirects
  are not followed) is tried again after a wait that doubles from `retry_first_s` up to
  `retry_most_s`; after `attempts` failures in a row, or a 410 Gone, the hook is paused with the
  reason, and nothing more is sent to it until the referee resumes it (`morale hook resume`).
  Every attempt goes into the hook's delivery log with its answer.
- **Woken, not polling the receiver.** An append made through this node, or announced by
  PostgreSQL, wakes the battle's workers at once; on SQLite they also look every `poll_s` for
  appends made by other processes (the CLI on the same file).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import time
from collections import deque
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from functools import partial
from importlib.metadata import version
from itertools import islice

import httpx

from morale.core.fold import Fold
from morale.events.hooks import DELIVERY_LEASE, DeliveryAttempt, StoredHook
from morale.events.postgres import one_line
from morale.events.store import EventStore, now_utc
from morale.projections.feed import follow

from ..http.background import while_serving
from ..http.live import Published, Stores, sse_names
from ..language import LANGUAGES, SOURCE
from ..read_back import read_back_fold, reading_through
from ..service import battle_language
from .hooks import ATTEMPTS_KEPT, failed, gone, no_answer, timed_out
from .message import signed_delivery
from .settings import DeliverySettings, wait_after

logger = logging.getLogger("morale.webhooks")
GONE = 410  # the receiver says it will never take these again: paused at once
READ_AT_ONCE = 500  # items a worker reads ahead of its deliveries
ANSWER_SHOWN = 120  # bytes of a receiver's answer kept in the delivery log


def node_name() -> str:
    """Who holds the lease: this host and process, and a few random bytes (a pid is reused)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class Deliverer:
    """This node's part in delivering: holding the lease, and one worker per hook while it does."""

    def __init__(self, stores: Stores, settings: DeliverySettings | None = None, holder: str | None = None) -> None:
        self.stores = stores
        self.settings = settings or DeliverySettings()
        self.holder = holder or node_name()
        self.leading = False
        self._held_until = 0.0  # (monotonic) when the lease lapses unless renewed: no attempt starts after it
        self._workers: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._news: dict[tuple[str, str], asyncio.Event] = {}
        self._retry_now: dict[tuple[str, str], asyncio.Event] = {}  # the referee resumed a hook while it waited
        self._changed = asyncio.Event()  # a hook registered, resumed or removed through this node

    # -- woken by this node's appends and by PostgreSQL's announcements (live.Hub) ------------------
    def poke(self, battle: str) -> None:
        """The battle has news ("": any battle may have: announcements were missed)."""
        for (hooked, _), news in self._news.items():
            if hooked == battle or not battle:
                news.set()

    def hooks_changed(self) -> None:
        self._changed.set()

    # -- the lease, and the workers it allows ------------------------------------------------------------
    async def run(self, closing: Callable[[], bool] = lambda: False) -> None:
        """Deliver while this node holds the lease, until cancelled."""
        renew_s = self.settings.lease_s / 3
        # PostgreSQL announces a hook added on any node; on SQLite one added by another process
        # (`morale hook add` beside `morale serve`) is seen at the next look, every `poll_s`, while
        # the lease is still renewed only every `renew_s`.
        look_s = renew_s if self.stores.announced else min(renew_s, self.settings.poll_s)
        renewed = -renew_s
        limits = httpx.Timeout(self.settings.timeout_s)
        agent = {"user-agent": f"morale-webhooks/{version('morale')}"}
        async with httpx.AsyncClient(timeout=limits, follow_redirects=False, trust_env=False, headers=agent) as client:
            try:
                while not closing():
                    self._changed.clear()
                    kept = await self._hooks()
                    # A store without hooks is left alone: no lease written, so serving it stays a read.
                    wanted = kept is not None and any(not h.paused for h in kept)
                    if not wanted:
                        self.leading = False
                    elif self.stores.announced or not self.leading or time.monotonic() - renewed >= renew_s:
                        renewed = time.monotonic()
                        self.leading = await self._renew()
                    if self.leading:
                        await self._keep_workers(client, kept or [])
                    else:
                        await self._stop_workers()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._changed.wait(), timeout=look_s)
            finally:
                await self._stop_workers()
                if self.leading:  # another node takes over at once, not when the lease lapses
                    with contextlib.suppress(Exception):
                        await self.stores.run(lambda store: store.release_lease(DELIVERY_LEASE, self.holder))

    async def _renew(self) -> bool:
        asked = time.monotonic()  # the lease runs from before it was asked for, at the latest
        try:
            held = await self.stores.run(
                lambda store: store.take_lease(DELIVERY_LEASE, self.holder, self.settings.lease_s)
            )
        except Exception as exc:  # the store away: not sure to hold it, so not delivering
            logger.warning("cannot renew the webhook delivery lease (%s)", one_line(exc))
            return False
        if held:
            self._held_until = asked + self.settings.lease_s
        return bool(held)

    async def _while_held(self) -> None:
        """Wait until the lease is surely still this node's: a node whose renewals were held up (a
        busy machine) must not start an attempt another node may be making as well."""
        while time.monotonic() >= self._held_until:
            await asyncio.sleep(0.05)

    async def _hooks(self) -> list[StoredHook] | None:
        try:
            return await self.stores.run(lambda store: store.hooks())  # type: ignore[return-value]
        except Exception as exc:  # the store away: not sure what to deliver, so not delivering
            logger.warning("cannot read the webhooks (%s)", one_line(exc))
            return None

    async def _keep_workers(self, client: httpx.AsyncClient, kept: list[StoredHook]) -> None:
        """One worker for each hook delivering; none for a paused or removed one."""
        wanted = {(h.battle, h.hook_id): h for h in kept if not h.paused}
        for key in [k for k in self._workers if k not in wanted]:
            await self._stop(key)
        for key, hook in wanted.items():
            if not hook.failures and key in self._retry_now:  # set back to none by `morale hook resume`
                self._retry_now[key].set()
            worker = self._workers.get(key)
            if worker is not None and worker.done():
                if not worker.cancelled() and worker.exception() is not None:
                    logger.warning("webhook %s of %s stopped (%s); starting again", key[1], key[0], worker.exception())
                worker = None
            if worker is None:
                self._news[key], self._retry_now[key] = asyncio.Event(), asyncio.Event()
                self._workers[key] = asyncio.get_running_loop().create_task(self._deliver(client, hook))

    async def _stop(self, key: tuple[str, str]) -> None:
        worker = self._workers.pop(key)
        self._news.pop(key, None)
        self._retry_now.pop(key, None)
        worker.cancel()
        await asyncio.gather(worker, return_exceptions=True)

    async def _stop_workers(self) -> None:
        for key in list(self._workers):
            await self._stop(key)

    # -- one hook's worker -------------------------------------------------------------------------
    async def _deliver(self, client: httpx.AsyncClient, hook: StoredHook) -> None:
        """Post the hook's items in log order, each until it is taken, until it is paused or removed."""
        news, retry_now = self._news[(hook.battle, hook.hook_id)], self._retry_now[(hook.battle, hook.hook_id)]
        fold = read_back_fold(hook.battle)  # a worker lives as long as the server: its log must not grow
        pending: deque[Published] = deque()
        kinds = frozenset(hook.kinds.encode().split())
        # Its words in the battle's own language (a receiver asks for none), else English, the source.
        spoken = await self.stores.run(partial(battle_language, battle=hook.battle))
        said_in = spoken if spoken in LANGUAGES else SOURCE
        through, failures = hook.through_seq, hook.failures
        while True:
            if not pending:
                news.clear()  # before reading: an append landing during the read is read next round
                read = await self._read_new(fold)
                for published in read:
                    if published.seq > through and (not kinds or kinds.intersection(sse_names(published.item))):
                        pending.append(published)
                if not pending:
                    if len(read) < READ_AT_ONCE:  # level with the log: wait for news
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(news.wait(), timeout=self._look_every())
                    continue
            published = pending[0]
            await self._while_held()
            attempt = await self._attempt(client, hook, published, said_in)
            await self.stores.run(partial(_record_on, attempt))
            if attempt.delivered:
                pending.popleft()
                through, failures = published.seq, 0
                if not await self._update(hook, through_seq=through, failures=0):
                    return  # removed meanwhile
                continue
            failures += 1
            paused = self._pause_reason(attempt, failures)
            if paused:
                logger.warning("webhook %s of battle %s is paused: %s", hook.hook_id, hook.battle, paused)
            retry_now.clear()
            if not await self._update(hook, failures=failures, **({"paused": paused} if paused else {})) or paused:
                return
            with contextlib.suppress(TimeoutError):  # the wait, unless the referee says try now
                await asyncio.wait_for(retry_now.wait(), timeout=wait_after(failures, self.settings))
            if retry_now.is_set():
                failures = 0

    def _look_every(self) -> float:
        # PostgreSQL announces every append, so a worker is woken; it looks now and then all the same.
        return self.settings.lease_s / 3 if self.stores.announced else self.settings.poll_s

    async def _read_new(self, fold: Fold) -> list[Published]:
        def read(store: EventStore) -> list[Published]:
            if store.last_seq(fold.battle_id) <= fold.seq:
                return []
            items = follow(reading_through(fold, store), store.read(fold.battle_id, after_seq=fold.seq))
            try:  # a hook from the start of a long battle holds a few hundred items at a time, not all
                return [Published(item) for item in islice(items, READ_AT_ONCE)]
            finally:
                items.close()  # in this thread, which holds the store's cursor

        return await self.stores.run(read)  # type: ignore[return-value]

    async def _update(self, hook: StoredHook, **changes: int | str) -> bool:
        return bool(await self.stores.run(partial(_update_on, hook, changes)))

    def _pause_reason(self, attempt: DeliveryAttempt, failures: int) -> str:
        """Why the hook is paused, kept in English (`hooks.kept_words` says it again in the reader's)."""
        if attempt.status == GONE:
            return str(gone(attempt.seq))
        if failures >= self.settings.attempts:
            return str(failed(failures, self.settings.attempts, attempt.seq, attempt.answer))
        return ""

    async def _attempt(
        self, client: httpx.AsyncClient, hook: StoredHook, published: Published, said_in: str
    ) -> DeliveryAttempt:
        delivery = signed_delivery(hook.secret, hook.battle, published.item, published.json_in(said_in))
        at, started = now_utc(), time.monotonic()
        status = 0
        try:
            async with client.stream("POST", hook.url, content=delivery.body, headers=delivery.headers) as answer:
                status = answer.status_code
                said = f"HTTP {status}{await _first_words(answer)}"
        except httpx.TimeoutException:
            said = str(timed_out(self.settings.timeout_s))  # kept in English: hooks.kept_words
        except httpx.HTTPError as exc:
            said = str(no_answer(one_line(exc) or type(exc).__name__))
        ms = round((time.monotonic() - started) * 1000)
        ok = 200 <= status < 300
        return DeliveryAttempt(hook.battle, hook.hook_id, published.seq, at, status, said[:200], ms, ok)


async def _first_words(answer: httpx.Response) -> str:
    """The start of what the receiver answered ("invalid signature"), for the delivery log: its
    first chunk, on one line; never read to its end."""
    async for chunk in answer.aiter_bytes():
        words = " ".join(chunk[:ANSWER_SHOWN].decode("utf-8", "replace").split())
        return f": {words}" if words else ""
    return ""


def _record_on(attempt: DeliveryAttempt, store: EventStore) -> None:
    store.record_attempt(attempt, ATTEMPTS_KEPT)


def _update_on(hook: StoredHook, changes: dict[str, int | str], store: EventStore) -> bool:
    return store.update_hook(hook.battle, hook.hook_id, **changes)


def delivering(deliverer: Deliverer | None) -> Callable[[object], AbstractAsyncContextManager[None]]:
    """The server's lifespan hook: delivers while the app runs (nothing when hooks are off)."""
    return while_serving(deliverer.run if deliverer is not None else None)
