"""A long-lived fold's log that does not grow with its battle: the last events in memory, the older
ones read back from the store on the rare occasion a strike needs them.

A fold keeps the events it has read because striking event N folds the log again without N
(core/fold.py). In `morale serve` folds live as long as the process: the kept folds of the
append path, each followed battle's channel, each webhook's worker. Kept whole, each held every
event of its battle, so a node's memory grew with every append it saw (a soak of two nodes at
107 appends/s grew by about 3 MB a minute and never levelled off: bench/soak.py, bench/README.md).
Here a fold holds at most `KEEP` events, and everything before them is in the store, which is where
the fold read them from or where they were appended before it moved on.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from morale.core.fold import Fold
from morale.events.store import EventStore
from morale.events.types import AnyEvent, LogEntry

# Held in memory: at least an append's largest batch (1,000 events, events/limits), since a batch's
# events are folded before any of them is in the store and a strike within the batch reads them
# from here; the older ones are in the store whenever a fold reads back.
KEEP = 1_000


class ReadBackLog:
    """The (seq, event) pairs a fold has read: the last `keep` in memory, the rest in `store`.

    The store is the caller's (`use`): on SQLite each of the server's threads has a connection of
    its own, and a read back runs on the thread that is folding."""

    def __init__(self, battle: str, store: EventStore | None = None, keep: int | None = None) -> None:
        self.battle = battle
        self.store = store
        self._held: deque[LogEntry] = deque(maxlen=KEEP if keep is None else keep)
        self._count = 0
        self._first: int | None = None  # the first seq read, so a read back starts where the fold did

    def use(self, store: EventStore) -> None:
        """Read back, from now on, through this thread's store."""
        self.store = store

    def _store(self) -> EventStore:
        if self.store is None:
            raise RuntimeError(f"the fold of {self.battle!r} must read back its log but was given no store")
        return self.store

    @property
    def held(self) -> int:
        """How many events are in memory."""
        return len(self._held)

    def append(self, seq: int, event: AnyEvent) -> None:
        if self._first is None:
            self._first = seq
        self._held.append((seq, event))
        self._count += 1

    def __iter__(self) -> Iterator[LogEntry]:
        if self._first is None:
            return
        kept_from = self._held[0][0]
        if kept_from > self._first:
            yield from self._store().events(self.battle, after_seq=self._first - 1, up_to=kept_from - 1)
        yield from list(self._held)

    def __len__(self) -> int:
        return self._count

    def last_seq(self, otherwise: int) -> int:
        return self._held[-1][0] if self._held else otherwise

    def get(self, seq: int) -> AnyEvent | None:
        if self._held and seq >= self._held[0][0]:
            return next((event for at, event in self._held if at == seq), None)
        if self._first is None or seq < self._first:
            return None
        return next((event for _, event in self._store().events(self.battle, after_seq=seq - 1, up_to=seq)), None)


def read_back_fold(battle: str) -> Fold:
    """An empty fold of `battle` for a long-lived reader (a feed's channel, a webhook's worker)."""
    return Fold(battle, log=ReadBackLog(battle))


def reading_through(fold: Fold, store: EventStore) -> Fold:
    """`fold`, reading back (if it does) through `store`, the connection of the thread about to fold."""
    if isinstance(fold.log, ReadBackLog):
        fold.log.use(store)
    return fold
