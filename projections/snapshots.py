"""The battle at any point, fast: snapshots of the folded state kept beside the log.

A snapshot is derived and disposable. It is keyed by the engine's version (a hash of the rules code
that folded it), so a snapshot taken by other rules is never used: it is simply rebuilt. Each one
also carries a checksum of what it holds, checked when it is read, so a damaged snapshot is
ignored, not believed. The answer is always what a full replay gives (a test compares them at
random points); snapshots only shorten the way there.

The check is a sha256 of the encoded bytes, written first: recomputing the state digest instead
would cost a walk over every unit that ever joined, thousands in a long battle. How a battle is
frozen, and why restoring one costs about the same however many units it ever had, is in
`projections.frozen`; what each costs is in bench/README.md.

Like every projection, this module only reads the store. A fold that passes a snapshot point
freezes the battle there and hands the bytes to a `Keeper`, if it was given one: the app's snapshot
cache (`morale.app.snapshot_cache`) is the keeper, and writes them. Without one, the battle at a
point is read from the snapshots there are, and nothing is frozen.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from morale.core.fold import Fold
from morale.core.rules import Refusal
from morale.core.state import Battle
from morale.events.store import EventStore
from morale.events.types import EventRetracted

from .frozen import Freezer, Keeper, restore_fold

SNAPSHOT_EVERY = 100  # events between snapshots: at most this many are folded after one is loaded


@cache
def engine_version() -> str:
    """A hash of the code that folds the log (core/ and its rulesets, data tables included) and of
    the code that freezes a folded battle (frozen.py, snapshot_data.py): a snapshot is used only by
    the same code, so those of an older engine (pickled, before snapshots were data) are never read."""
    import morale.core

    root = Path(next(iter(morale.core.__path__)))
    files = sorted(p for p in root.rglob("*") if p.suffix in (".py", ".toml"))
    hasher = hashlib.sha256()
    for path in files:
        hasher.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    for name in ("frozen.py", "snapshot_data.py"):
        hasher.update(name.encode() + b"\0" + Path(__file__).with_name(name).read_bytes())
    return hasher.hexdigest()[:16]


def battle_at(store: EventStore, battle_id: str, seq: int, keep: Keeper | None = None) -> Battle:
    """The battle right after event `seq`, as a full replay of events 1..seq would give it, begun from
    the latest snapshot before it. With `keep`, each snapshot point the fold passes is frozen and
    handed to it: points the snapshots do not reach yet (a battle played on since they were taken)
    get theirs on the way."""
    return fold_to(store, battle_id, seq, keep).state()


def fold_to(store: EventStore, battle_id: str, seq: int, keep: Keeper | None = None, *, keep_from: int = 0) -> Fold:
    """The fold right after event `seq`: the battle a full replay gives, begun from the latest
    snapshot before it, so its log holds only the events after that snapshot (`Fold.start_seq`)
    and it cannot strike one (a retraction refolds the whole log: fold that from the start).
    `keep`: as for `battle_at`, for the snapshot points from `keep_from` on (a command line that
    reads once keeps the last few: the next read starts there, and taking every point of a long
    log it never had would cost seconds)."""
    engine = engine_version()
    found = store.snapshot_before(battle_id, seq, engine)
    if found is not None:
        start, blob = found
        restored = restore_fold(store, battle_id, engine, blob)
        if restored is not None and restored.seq == start:  # a snapshot filed under the wrong point is not used
            fold = _fold(store, restored, seq, keep, keep_from)
            if fold is not None:
                return fold
    return _replayed(store, battle_id, seq, keep, keep_from)


def replayed(store: EventStore, battle_id: str, seq: int, keep: Keeper | None = None) -> Battle:
    """The battle right after event `seq` by a full replay, the snapshots left aside; with `keep`,
    each snapshot point on the way is frozen and handed to it (how the snapshots are rebuilt)."""
    return _replayed(store, battle_id, seq, keep, keep_from=0).state()


def _replayed(store: EventStore, battle_id: str, seq: int, keep: Keeper | None, keep_from: int) -> Fold:
    fold = _fold(store, Fold(battle_id), seq, keep, keep_from)
    if fold is None or fold.battle is None:
        raise Refusal(f"battle {battle_id!r} has no event {seq}", field="seq")
    return fold


def _fold(store: EventStore, fold: Fold, seq: int, keep: Keeper | None, keep_from: int) -> Fold | None:
    """Fold events up to `seq` into `fold`, freezing it for `keep` at each snapshot point from
    `keep_from` on; None if a fold begun from a snapshot meets a retraction (striking needs the
    whole log)."""
    freezer = None if keep is None else Freezer(keep, fold.battle_id, engine_version())
    for at, event in store.events(fold.battle_id, after_seq=fold.seq, up_to=seq):
        if isinstance(event, EventRetracted):
            if fold.start_seq:
                return None
            if freezer is not None:
                freezer.start_over()  # the battle is folded anew: the next snapshot is a base
        fold.advance(at, event)
        if at % SNAPSHOT_EVERY == 0 and freezer is not None and at >= keep_from:
            frozen = freezer.freeze(fold.state(), fold.struck)
            freezer.keep.keep_snapshot(fold.battle_id, at, freezer.engine, frozen)
    return fold
