"""The battle at any point, fast: snapshots of the folded state kept beside the log.

A snapshot is derived and disposable. It is keyed by the engine's version (a hash of the rules code
that folded it), so a snapshot taken by other rules is never used: it is simply rebuilt. Each one
also carries a checksum of what it holds, checked when it is read, so a damaged snapshot is
ignored, not believed. The answer is always what a full replay gives (a test compares them at
random points); snapshots only shorten the way there.

The check is a sha256 of the pickled bytes, written first: recomputing the state digest instead
would cost a walk over every unit that ever joined (~23 ms in a 100,000-event battle, measured).
How a battle is frozen, and why restoring one costs ~1 ms however many units it ever had, is in
`projections.frozen`.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from morale.core.replay import Replay
from morale.core.rules import Refusal
from morale.core.state import Battle
from morale.events.store import EventStore
from morale.events.types import EventRetracted

from .frozen import Freezer, restore

SNAPSHOT_EVERY = 100  # events between snapshots: at most this many are folded after one is loaded


@cache
def engine_version() -> str:
    """A hash of the code that folds the log (core/ and its rulesets, data tables included) and of
    the code that freezes a folded battle (frozen.py): a snapshot is used only by the same code."""
    import morale.core

    root = Path(next(iter(morale.core.__path__)))
    files = sorted(p for p in root.rglob("*") if p.suffix in (".py", ".toml"))
    hasher = hashlib.sha256()
    for path in files:
        hasher.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    hasher.update(b"frozen.py\0" + Path(__file__).with_name("frozen.py").read_bytes())
    return hasher.hexdigest()[:16]


def battle_at(store: EventStore, battle_id: str, seq: int) -> Battle:
    """The battle right after event `seq`, as a full replay of events 1..seq would give it. Points
    the snapshots do not reach yet (a battle played on since they were taken) get theirs on the way."""
    engine = engine_version()
    found = store.snapshot_before(battle_id, seq, engine)
    if found is not None:
        start, blob = found
        restored = restore(store, battle_id, engine, blob)
        if restored is not None and restored.seq == start:  # a snapshot filed under the wrong point is not used
            battle = _fold_and_snapshot(store, Replay(battle_id, battle=restored, start_seq=start), seq)
            if battle is not None:
                return battle
    return _replay_and_snapshot(store, battle_id, seq)


def rebuild(store: EventStore, battle_id: str) -> int:
    """Drop a battle's snapshots and take them again from a full replay; returns how many."""
    store.drop_snapshots(battle_id)
    last = store.last_seq(battle_id)
    _replay_and_snapshot(store, battle_id, last)
    return last // SNAPSHOT_EVERY


def _replay_and_snapshot(store: EventStore, battle_id: str, seq: int) -> Battle:
    battle = _fold_and_snapshot(store, Replay(battle_id), seq)
    if battle is None:
        raise Refusal(f"battle {battle_id!r} has no event {seq}", field="seq")
    return battle


def _fold_and_snapshot(store: EventStore, fold: Replay, seq: int) -> Battle | None:
    """Fold events up to `seq` into `fold`, snapshotting on the way; None if there was nothing to fold
    from, or if a fold begun from a snapshot meets a retraction (striking needs the whole log)."""
    freezer = Freezer(store, fold.battle_id, engine_version())
    for at, event in store.events(fold.battle_id, after_seq=fold.seq, up_to=seq):
        if isinstance(event, EventRetracted):
            if fold.start_seq:
                return None
            freezer.start_over()  # the battle is folded anew: the next snapshot is a base
        fold.apply(at, event)
        if at % SNAPSHOT_EVERY == 0:
            store.save_snapshot(fold.battle_id, at, freezer.engine, freezer.freeze(fold.state()))
    return fold.battle
