"""The battle at any point, fast: snapshots of the folded state kept beside the log.

A snapshot is derived and disposable. It is keyed by the engine's version (a hash of the rules code
that folded it), so a snapshot taken by other rules is never used: it is simply rebuilt. Each one
also carries a checksum of what it holds, checked when it is read, so a damaged snapshot is
ignored, not believed. The answer is always what a full replay gives (a test compares them at
random points); snapshots only shorten the way there.

The check is a sha256 of the pickled bytes, written first: recomputing the state digest instead
would cost a walk over every unit that ever joined (~23 ms in a 100,000-event battle, measured).

A long battle holds thousands of units that have left play for good (`Battle.departed`), and
materialising them was most of a restore (~13 ms of ~20 for 4,383 units). Each is kept in the
snapshot as its own pickled bytes, and a process restores each distinct one once: battles restored
later share the unit object (a ruling that brings one back copies it first, `Battle.own`). The
bytes are the key, so a shared unit is always exactly what the snapshot holds.
"""

from __future__ import annotations

import hashlib
import pickle
import threading
from collections import OrderedDict
from dataclasses import replace
from functools import cache
from pathlib import Path

from morale.core.replay import Replay
from morale.core.rules import Refusal
from morale.core.state import Battle, Unit
from morale.events.store import SqliteEventStore
from morale.events.types import EventRetracted

SNAPSHOT_EVERY = 200  # events between snapshots: at most this many are folded after one is loaded


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
        restored = _restore(blob)
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
    for at, event in store.events(battle_id, up_to=seq):
        fold.apply(at, event)
        if at % SNAPSHOT_EVERY == 0:
            store.save_snapshot(battle_id, at, engine, _freeze(fold.state()))
    if fold.battle is None:
        raise Refusal(f"battle {battle_id!r} has no event {seq}", field="seq")
    return fold.state()


# Departed units already restored by this process, by battle: their pickled bytes -> the unit.
_departed: OrderedDict[str, dict[bytes, Unit]] = OrderedDict()
_DEPARTED_BATTLES = 16  # battles whose departed units are kept (the least recently restored go first)
_departed_lock = threading.Lock()  # the server restores in worker threads


def _freeze(battle: Battle) -> bytes:
    # In join order: each unit still changing as itself, each departed one as its own pickled bytes.
    roster = [_pickled(unit) if battle.departed(unit) else unit for unit in battle.units.values()]
    # The digest's kept unit encodings (Battle.departed_views) are this process's cache, not state: left out.
    core = replace(battle, units={}, departed_views={})
    frozen = pickle.dumps((core, roster), protocol=pickle.HIGHEST_PROTOCOL)
    return hashlib.sha256(frozen).digest() + frozen


def _restore(blob: bytes) -> Battle | None:
    recorded, frozen = blob[:32], blob[32:]
    if hashlib.sha256(frozen).digest() != recorded:
        return None
    try:
        battle, roster = pickle.loads(frozen)
        if not isinstance(battle, Battle):
            return None
        known = _departed_of(battle.id)
        for entry in roster:
            if not isinstance(entry, Unit):
                entry = known.get(entry) or known.setdefault(entry, pickle.loads(entry))
            battle.units[entry.id] = entry
    except Exception:
        return None
    return battle


def _pickled(unit: Unit) -> bytes:
    return pickle.dumps(unit, protocol=pickle.HIGHEST_PROTOCOL)


def _departed_of(battle_id: str) -> dict[bytes, Unit]:
    with _departed_lock:
        known = _departed.pop(battle_id, None) or {}
        _departed[battle_id] = known
        while len(_departed) > _DEPARTED_BATTLES:
            _departed.popitem(last=False)
        return known
