"""The battle at any point, fast: snapshots of the folded state kept beside the log.

A snapshot is derived and disposable. It is keyed by the engine's version (a hash of the rules code
that folded it), so a snapshot taken by other rules is never used: it is simply rebuilt. Each one
also carries a checksum of what it holds, checked when it is read, so a damaged snapshot is
ignored, not believed. The answer is always what a full replay gives (a test compares them at
random points); snapshots only shorten the way there.

The check is a sha256 of the pickled bytes, written first: recomputing the state digest instead
would cost a walk over every unit that ever joined (~23 ms in a 100,000-event battle, measured).

A long battle holds thousands of units that have left play for good (`Battle.departed`): 4,383 of
the 100,000-event battle's, against 8 in play. Pickled into every snapshot, they were most of its
bytes (~370 KB each) and of a restore's time. Each is kept once instead, in the store's table of
snapshot units (content-addressed: its bytes, their digest, an id), and a snapshot names them by id.
A process materialises each distinct one once; battles restored later share the unit object (a
ruling that brings one back copies it first, `Battle.own`). A snapshot also records the digests of
the units it names, so a unit this process remembers under an id is used only if it is exactly
what the snapshot holds.
"""

from __future__ import annotations

import hashlib
import pickle
import threading
from collections import OrderedDict
from dataclasses import replace
from functools import cache
from operator import itemgetter
from pathlib import Path

from morale.core.replay import Replay
from morale.core.rules import Refusal
from morale.core.state import Battle, Unit
from morale.events.store import SqliteEventStore
from morale.events.types import EventRetracted

SNAPSHOT_EVERY = 100  # events between snapshots: at most this many are folded after one is loaded
_first, _second, _third = itemgetter(0), itemgetter(1), itemgetter(2)


@cache
def engine_version() -> str:
    """A hash of the code that folds the log (core/ and its rulesets, data tables included)."""
    import morale.core

    root = Path(next(iter(morale.core.__path__)))
    files = sorted(p for p in root.rglob("*") if p.suffix in (".py", ".toml"))
    hasher = hashlib.sha256()
    for path in files:
        hasher.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return hasher.hexdigest()[:16]


def battle_at(store: SqliteEventStore, battle_id: str, seq: int) -> Battle:
    """The battle right after event `seq`, as a full replay of events 1..seq would give it."""
    found = store.snapshot_before(battle_id, seq, engine_version())
    if found is not None:
        start, blob = found
        restored = _restore(store, blob)
        if restored is not None and restored.seq == start:  # a snapshot filed under the wrong point is not used
            fold = Replay(battle_id, battle=restored, start_seq=start)
            for at, event in store.events(battle_id, after_seq=start, up_to=seq):
                if isinstance(event, EventRetracted):
                    break  # striking an event needs the whole log: replay from the start instead
                fold.apply(at, event)
            else:
                return fold.state()
    return _replay_and_snapshot(store, battle_id, seq)


def rebuild(store: SqliteEventStore, battle_id: str) -> int:
    """Drop a battle's snapshots and take them again from a full replay; returns how many."""
    store.drop_snapshots(battle_id)
    last = store.last_seq(battle_id)
    _replay_and_snapshot(store, battle_id, last)
    return last // SNAPSHOT_EVERY


def _replay_and_snapshot(store: SqliteEventStore, battle_id: str, seq: int) -> Battle:
    fold = Replay(battle_id)
    engine = engine_version()
    kept = _KeptUnits(store, battle_id, engine)
    for at, event in store.events(battle_id, up_to=seq):
        fold.apply(at, event)
        if at % SNAPSHOT_EVERY == 0:
            store.save_snapshot(battle_id, at, engine, _freeze(fold.state(), kept))
    if fold.battle is None:
        raise Refusal(f"battle {battle_id!r} has no event {seq}", field="seq")
    return fold.state()


class _KeptUnits:
    """The departed units one replay has put in the store's table, by object: a departed unit is
    never changed in place (a ruling copies it first, `Battle.own`), so each is pickled once."""

    def __init__(self, store: SqliteEventStore, battle_id: str, engine: str) -> None:
        self.store, self.battle_id, self.engine = store, battle_id, engine
        self._ids: dict[int, tuple[Unit, int, bytes]] = {}  # id(unit) -> (the unit, kept id, digest)

    def ids_and_digests(self, units: list[Unit]) -> tuple[list[int], bytes]:
        found = list(map(self._ids.get, map(id, units)))  # a snapshot names thousands: no Python loop per unit
        if None in found:
            new = [unit for unit, row in zip(units, found, strict=True) if row is None]
            bodies = [_pickled(unit) for unit in new]
            digests = [_digest(body) for body in bodies]
            kept = self.store.save_snapshot_units(self.battle_id, self.engine, list(zip(digests, bodies, strict=True)))
            for unit, kept_id, digest in zip(new, kept, digests, strict=True):
                self._ids[id(unit)] = (unit, kept_id, digest)  # the unit itself too: its id() stays its own
            found = list(map(self._ids.__getitem__, map(id, units)))
        return list(map(_second, found)), b"".join(map(_third, found))


# Departed units already restored by this process, by battle: kept id -> (the unit, its digest).
_departed: OrderedDict[str, dict[int, tuple[Unit, bytes]]] = OrderedDict()
_DEPARTED_BATTLES = 16  # battles whose departed units are kept (the least recently restored go first)
_departed_lock = threading.Lock()  # the server restores in worker threads


def _freeze(battle: Battle, kept: _KeptUnits) -> bytes:
    # The roster in join order: the departed units by their kept ids, the others (few) with their place.
    departed: list[Unit] = []
    current: list[tuple[int, Unit]] = []
    for place, unit in enumerate(battle.units.values()):
        if battle.departed(unit):
            departed.append(unit)
        else:
            current.append((place, unit))
    ids, digests = kept.ids_and_digests(departed)
    # The digest's kept unit encodings (Battle.departed_views) are this process's cache, not state: left out.
    core = replace(battle, units={}, departed_views={})
    frozen = pickle.dumps((core, current, ids, hashlib.sha256(digests).digest()), protocol=pickle.HIGHEST_PROTOCOL)
    return hashlib.sha256(frozen).digest() + frozen


def _restore(store: SqliteEventStore, blob: bytes) -> Battle | None:
    recorded, frozen = blob[:32], blob[32:]
    if hashlib.sha256(frozen).digest() != recorded:
        return None
    try:
        battle, current, ids, departed_digest = pickle.loads(frozen)
        if not isinstance(battle, Battle):
            return None
        roster = _departed_units(store, battle.id, ids, departed_digest)
        if roster is None:
            return None
        for place, unit in current:  # in ascending places, so each lands where it was
            roster.insert(place, unit)
        battle.units = {unit.id: unit for unit in roster}
    except Exception:
        return None
    return battle


def _departed_units(store: SqliteEventStore, battle_id: str, ids: list[int], recorded: bytes) -> list[Unit] | None:
    """The units a snapshot names, each materialised once by this process; None unless they are
    exactly what the snapshot recorded (a damaged row, a row gone...: a full replay answers then)."""
    known = _departed_of(battle_id)
    found = _exactly(known, ids, recorded)
    if found is None:
        missing = set(ids).difference(known)
        _read(store, battle_id, missing or set(ids), known)
        found = _exactly(known, ids, recorded)
        if found is None and missing:  # what it had under these ids came from another store of the same name
            _read(store, battle_id, set(ids), known)
            found = _exactly(known, ids, recorded)
    return found


def _exactly(known: dict[int, tuple[Unit, bytes]], ids: list[int], recorded: bytes) -> list[Unit] | None:
    try:
        entries = list(map(known.__getitem__, ids))  # each (unit, digest) read as one: threads may be adding
    except KeyError:
        return None
    if hashlib.sha256(b"".join(map(_second, entries))).digest() != recorded:
        return None
    return list(map(_first, entries))


def _read(store: SqliteEventStore, battle_id: str, ids: set[int], known: dict[int, tuple[Unit, bytes]]) -> None:
    read = {
        kept_id: (pickle.loads(body), digest)
        for kept_id, digest, body in store.snapshot_units(battle_id, ids)
        if _digest(body) == digest  # a damaged row is left unread
    }
    with _departed_lock:
        known.update(read)


def _pickled(unit: Unit) -> bytes:
    return pickle.dumps(unit, protocol=pickle.HIGHEST_PROTOCOL)


def _digest(body: bytes) -> bytes:
    return hashlib.sha256(body).digest()[:16]


def _departed_of(battle_id: str) -> dict[int, tuple[Unit, bytes]]:
    with _departed_lock:
        known = _departed.pop(battle_id, None) or {}
        _departed[battle_id] = known
        while len(_departed) > _DEPARTED_BATTLES:
            _departed.popitem(last=False)
        return known
