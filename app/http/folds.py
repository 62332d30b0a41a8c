"""Battles' folds kept warm between requests in a long-running process (`morale serve`).

Without them every append replayed the whole log before deciding (twice, with the player's check):
milliseconds for a short battle, seconds for a long one, and every follower of the live feed waited
behind it. A kept fold is brought up to the store before each use, so it answers exactly as a fresh
replay would:
- it is used only if the store still holds the event it ended on, with the same hash (a store
  file replaced or a battle started afresh under the same id starts a new fold);
- events other processes appended meanwhile (the CLI on the same file) are folded in first;
- one writer at a time per battle holds it, and a use that fails after the fold has moved (a batch
  refused half-way, an append that lost a race) drops it: it may hold events the log never got.

A writer that names the seq it expects the log to end at (`to_append`) skips that read when the kept
fold already ends there and the database has announced nothing later (`heard`): the store writes
its events only if the log's event at that seq still carries the hash the fold ended on (and the
writer's token still opens the battle), in the same statement, so the fold it decided on was the
log's latest all the same, and the append costs one query instead of four (bench/README.md).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from morale.core.fold import Fold
from morale.core.rules import Refusal
from morale.events.numbers import LAST_SEQ
from morale.events.store import ConflictError, EventStore, Precondition

from ..access import Forbidden
from ..read_back import ReadBackLog, reading_through
from ..service import load

# Raised by the checks before a fold moves: a refusal leaves the fold as it was, and is the common
# answer at a table (a typo, a roll out of turn), so it keeps the fold instead of costing a replay.
_ANSWERS = (Refusal, Forbidden, ConflictError)


@dataclass
class _Kept:
    fold: Fold
    head_hash: str | None  # the hash of the event the fold ended on
    held: int = 0  # the events it held in memory when it was kept (`Folds._held` counts these)


@dataclass
class Held:
    """A fold held for one append, with the hash of the event it ends on; the writer sets
    `head_hash` to its last event's once the store has written them."""

    fold: Fold
    head_hash: str | None
    holder: str | None  # the sha256 of the writer's token, which must open the battle as it writes

    @property
    def precondition(self) -> Precondition:
        """What the store checks as it writes: the fold's last event is the log's, and the token holds."""
        return Precondition(prev_hash=self.head_hash, holder=self.holder)


class Folds:
    def __init__(self, max_events: int = 500_000, *, announced: bool = False) -> None:
        # A kept fold holds its battle's last events (at most read_back.KEEP) and reads older ones
        # back from the store for a strike, so it no longer grows with its battle; what is kept is
        # still capped in events held, and the least recently used battle goes first. What an event
        # weighs, and what the cap comes to, is in bench/README.md.
        self.max_events = max_events
        self._kept: OrderedDict[str, _Kept] = OrderedDict()
        self._held = 0  # the events the kept folds hold, kept in step (not summed over them at every append)
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()  # over the dicts, shared by the server's worker threads and the loop
        # Every append, by any process, is announced to this node (PostgreSQL): a kept fold the
        # announcements say nothing past may be written on without a read first (`to_append`).
        self.announced = announced
        self._heard: dict[str, int] = {}  # the last seq announced of each battle in use, since its last read

    @contextmanager
    def current(self, store: EventStore, battle: str) -> Iterator[Fold]:
        """The battle's fold, up to the store's last event, for this caller alone until it is done."""
        with self._lock(battle):
            fold, head_hash = self._take(store, battle)
            start = fold.seq
            try:
                yield fold
            except _ANSWERS:
                if fold.seq == start:
                    self._keep(battle, fold, head_hash)
                raise
            # A use that only read leaves the head it was handed; one that appended asks the store.
            self._keep(battle, fold, head_hash if fold.seq == start else store.hash_at(battle, fold.seq))

    @contextmanager
    def to_append(self, store: EventStore, battle: str, expected_seq: int, holder: str | None = None) -> Iterator[Held]:
        """The battle's fold for a writer that expects the log to end at `expected_seq`, holding the
        token whose sha256 is `holder`: the kept fold as it is when it ends there and nothing later
        was announced (the store checks, as it writes, that the log still ends with the fold's last
        event, and that the token still opens the battle: `Held.precondition`); else brought up to
        the store first, as `current` does. The writer sets `Held.head_hash` once it has appended."""
        with self._lock(battle):
            with self._guard:
                kept = self._pop(battle)
                trusted = kept is not None and self.announced and kept.fold.seq == expected_seq
                trusted = trusted and self._heard.get(battle, 0) <= expected_seq
            if kept is not None and trusted and kept.head_hash is not None:
                held = Held(kept.fold, kept.head_hash, holder)
            else:
                if kept is not None:
                    self._keep(battle, kept.fold, kept.head_hash)  # `_take` looks at it afresh
                held = Held(*self._take(store, battle), holder)
            start, head_hash = held.fold.seq, held.head_hash
            try:
                yield held
            except _ANSWERS:
                if held.fold.seq == start:
                    self._keep(battle, held.fold, head_hash)
                raise
            if held.fold.seq == start:
                self._keep(battle, held.fold, head_hash)
            elif held.head_hash != head_hash:  # the writer said what its last event is sealed with
                self._keep(battle, held.fold, held.head_hash)
            else:
                self._keep(battle, held.fold, store.hash_at(battle, held.fold.seq))

    def heard(self, battle: str, seq: int) -> None:
        """The database announced that the battle's log reaches `seq` (an append by any node): the
        next append to it reads first if its kept fold ends before that."""
        with self._guard:
            if battle in self._locks:  # only battles this node has used: the rest never need it
                self._heard[battle] = max(self._heard.get(battle, 0), seq)

    def told(self, battle: str | None, seq: int | None) -> None:
        """What the hub hears from the database (`Hub.seqs`): a battle's last seq, or None for all
        when announcements may have been missed."""
        if battle is None or seq is None:
            self.missed()
        else:
            self.heard(battle, seq)

    def missed(self) -> None:
        """Announcements may have been missed (the node's listener reconnected): every battle's next
        append reads first."""
        with self._guard:
            self._heard = dict.fromkeys(self._locks, LAST_SEQ)

    def holds(self, battle: str) -> bool:
        """A fold of the battle is kept (it may need the events appended since)."""
        with self._guard:
            return battle in self._kept

    def _take(self, store: EventStore, battle: str) -> tuple[Fold, str | None]:
        """The kept fold brought up to date, or a fresh one; with the hash of the event it ends on.
        One read does both for a kept fold: from the event it ended on (still there, with the same
        hash?) to the end (a store on another machine is a round trip away per query)."""
        with self._guard:
            kept = self._pop(battle)
            self._heard.pop(battle, None)  # what was announced up to now, this read takes in
        if kept is not None:
            stored = store.read(battle, after_seq=kept.fold.seq - 1)
            head = next(stored, None)
            if head is not None and head.seq == kept.fold.seq and head.hash == kept.head_hash:
                reading_through(kept.fold, store)
                for later in stored:
                    kept.fold.advance(later.seq, later.event)
                    head = later
                return kept.fold, head.hash
        fold = load(store, battle, read_back=True)
        return fold, store.hash_at(battle, fold.seq)

    def _keep(self, battle: str, fold: Fold, head_hash: str | None) -> None:
        kept = _Kept(fold, head_hash, _held(fold))
        with self._guard:
            self._pop(battle)
            self._kept[battle] = kept
            self._held += kept.held
            while self._held > self.max_events and len(self._kept) > 1:
                _, dropped = self._kept.popitem(last=False)
                self._held -= dropped.held

    def _pop(self, battle: str) -> _Kept | None:
        """Take the battle's kept fold out (under `_guard`)."""
        kept = self._kept.pop(battle, None)
        if kept is not None:
            self._held -= kept.held
        return kept

    def _lock(self, battle: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(battle, threading.Lock())


def _held(fold: Fold) -> int:
    """The events a fold holds in memory."""
    return fold.log.held if isinstance(fold.log, ReadBackLog) else len(fold.log)
