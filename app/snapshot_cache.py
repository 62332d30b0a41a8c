"""The snapshot cache: where the snapshots of `projections.snapshots` are written to the store.

Projections only read. A fold there that passes a snapshot point freezes the battle and hands the
bytes to a keeper; this module's keeper writes them, with the store's own methods, so the battle
at a point read through here leaves the snapshots that make the next read fast (the server's time
travel, `?at=POINT`). What a snapshot holds, and how one is checked, is in `projections.snapshots`
and `projections.frozen`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from morale.core.fold import Fold
from morale.core.state import Battle
from morale.events.store import EventStore
from morale.projections import snapshots


@dataclass(frozen=True)
class StoreKeeper:
    """Keeps the snapshots a fold takes in `store` (a `projections.snapshots.Keeper`)."""

    store: EventStore

    def keep_units(self, battle: str, engine: str, units: list[tuple[bytes, bytes]]) -> list[int]:
        return self.store.save_snapshot_units(battle, engine, units)

    def keep_snapshot(self, battle: str, seq: int, engine: str, blob: bytes) -> None:
        self.store.save_snapshot(battle, seq, engine, blob)


_locks: dict[str, threading.Lock] = {}
_guard = threading.Lock()


def battle_at(store: EventStore, battle_id: str, seq: int) -> Battle:
    """The battle right after event `seq`, from the latest snapshot before it; the snapshot points the
    fold passes on the way (a battle played on since its snapshots were taken) are kept for next time.

    One at a time per battle in a process: a fold writes its snapshots while it still reads the log,
    and two folds of one battle writing at once (a page asking for its board and its due list
    together, on a server with no snapshots yet) left one with "database is locked"."""
    with fold_lock(battle_id):
        return snapshots.battle_at(store, battle_id, seq, keep=StoreKeeper(store))


# Snapshot points a read at the head keeps, back from it: most units in play joined within them.
KEEP_LAST = 10


def head_fold(store: EventStore, battle_id: str) -> Fold:
    """The battle's fold at the log's head, from its latest snapshot and the events since (an empty
    fold if it has no events). The snapshot points the fold passes among the last `KEEP_LAST` are
    kept, so a battle only the command line plays gets its snapshots as it goes: the next read
    starts at most `SNAPSHOT_EVERY` events before its head, `explain` finds one shortly before a
    unit in play joined, and the first read of a long battle with none takes a few, not one at
    every point (seconds). A snapshot is only a cache: a store that refuses to keep one (a
    file opened read-only, a database role that may not write its snapshot table) answers all the
    same, by the fold done again without keeping."""
    last = store.last_seq(battle_id)
    if last == 0:
        return Fold(battle_id)
    with fold_lock(battle_id):
        try:
            keep, keep_from = _Tolerant(StoreKeeper(store)), last - KEEP_LAST * snapshots.SNAPSHOT_EVERY
            return snapshots.fold_to(store, battle_id, last, keep=keep, keep_from=keep_from)
        except _NotKept:
            return snapshots.fold_to(store, battle_id, last)


class _NotKept(Exception):
    """The store refused to keep a snapshot (the fold that asked is done again without keeping)."""


@dataclass(frozen=True)
class _Tolerant:
    """A keeper whose store may refuse the write: its refusal, whatever the store raises, ends the
    fold with `_NotKept` rather than the command that was only reading."""

    keeper: StoreKeeper

    def keep_units(self, battle: str, engine: str, units: list[tuple[bytes, bytes]]) -> list[int]:
        try:
            return self.keeper.keep_units(battle, engine, units)
        except Exception as exc:
            raise _NotKept from exc

    def keep_snapshot(self, battle: str, seq: int, engine: str, blob: bytes) -> None:
        try:
            self.keeper.keep_snapshot(battle, seq, engine, blob)
        except Exception as exc:
            raise _NotKept from exc


def fold_lock(battle_id: str) -> threading.Lock:
    """The lock a fold that writes snapshots holds. Another small write to the same file while a
    fold reads (noting a token's use) takes it too: on SQLite a write that lands while a fold's read
    is open makes the fold's own snapshot write fail at once with "database is locked"."""
    with _guard:
        return _locks.setdefault(battle_id, threading.Lock())


def rebuild(store: EventStore, battle_id: str) -> int:
    """Drop a battle's snapshots and take them again from a full replay; returns how many."""
    store.drop_snapshots(battle_id)
    last = store.last_seq(battle_id)
    snapshots.replayed(store, battle_id, last, keep=StoreKeeper(store))
    return last // snapshots.SNAPSHOT_EVERY
