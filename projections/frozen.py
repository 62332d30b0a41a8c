"""How a battle becomes a snapshot's bytes, and back, in a fraction of the time a replay takes.

A long battle holds thousands of units that have left play for good (`Battle.departed`), against a
handful in play. They no longer change, so each is kept once, in the store's table of snapshot
units (its bytes, their digest, an id never given again; the keeper writes them), and a snapshot
names them by id. Both are data, never pickles (`projections.snapshot_data` says why): bytes that
do not decode as what they must be are not believed, and a full replay answers. A process
materialises each once; battles restored later share the object (a ruling that brings one back
copies it first, `Battle.own`).

Even naming them costs a Python step per unit on every restore (mostly cache misses), and a late
point names thousands. So every `BASE_EVERY`-th snapshot is a base: a restored base leaves this
process a template (its roster, in join order, as a dict, which copies in a fraction of the time
the units take to name), and the snapshots after it record only what changed since: the units that
joined, the units that departed. A template is used only for the exact base a snapshot names (by
checksum), and every unit a snapshot names is checked against the digests it recorded, so nothing
remembered can differ from what it holds. The figures behind this are in bench/README.md.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Collection
from dataclasses import dataclass, field
from itertools import islice
from operator import itemgetter
from typing import Protocol, cast

from morale.core.fold import Fold
from morale.core.rulesets.base import Ruleset
from morale.core.state import Battle, Unit
from morale.events.store import EventStore

from . import snapshot_data
from .snapshot_data import Since, Unreadable

BASE_EVERY = 50  # snapshots from one base to the next: the most a restore has to name one by one
_first, _second, _third = itemgetter(0), itemgetter(1), itemgetter(2)


class Keeper(Protocol):
    """Where the snapshots a fold takes go. Keeping them is a write, and projections only read: the
    keeper is the app's snapshot cache (`morale.app.snapshot_cache`), which writes them to the store."""

    def keep_units(self, battle: str, engine: str, units: list[tuple[bytes, bytes]]) -> list[int]:
        """Keep departed units, as (digest, encoded bytes), once each; their kept ids in order, a unit
        kept before keeping its id. A snapshot names its departed units by these ids."""
        ...

    def keep_snapshot(self, battle: str, seq: int, engine: str, blob: bytes) -> None:
        """Keep `blob` as the battle's snapshot at `seq` by this engine version, replacing one kept there."""
        ...


@dataclass
class Freezer:
    """Freezes one replay's battle at each snapshot point; the units it names go to `keep` as they depart."""

    keep: Keeper
    battle_id: str
    engine: str
    # id(unit) -> (the unit, its kept id, its digest); and kept id -> digest
    _kept: dict[int, tuple[Unit, int, bytes]] = field(default_factory=dict, init=False)
    _digests: dict[int, bytes] = field(default_factory=dict, init=False)
    # The last base: (seq, checksum, how many units had joined, the kept ids of those departed)
    _base: tuple[int, bytes, int, set[int]] | None = field(default=None, init=False)
    _since_base: int = field(default=0, init=False)

    def start_over(self) -> None:
        """The next snapshot is a base: a retraction refolds the battle, and a struck unit leaves the roster."""
        self._base = None

    def freeze(self, battle: Battle, struck: Collection[int] = ()) -> bytes:
        """The snapshot's bytes: `battle`, and `struck`, the events struck before it (`Fold.struck`)."""
        departed: list[Unit] = []
        current: list[tuple[int, Unit]] = []  # the units still changing (few), with their place in join order
        for place, unit in enumerate(battle.units.values()):
            if battle.departed(unit):
                departed.append(unit)
            else:
                current.append((place, unit))
        ids, digests = self._kept_ids(battle.ruleset, departed)
        since = None
        if self._base is not None and self._since_base < BASE_EVERY:
            base_seq, base_checksum, base_joined, base_departed = self._base
            new = sorted(set(ids).difference(base_departed))
            joined = list(islice(battle.units, base_joined, None))
            new_digest = _digest_of(b"".join(map(self._digests.__getitem__, new)))
            since = Since(base_seq, base_checksum, joined, new, new_digest)
        # The digest's kept unit encodings (Battle.departed_views) are this process's cache, not state: left out.
        frozen = snapshot_data.encode(battle, current, ids, _digest_of(digests), since, sorted(struck))
        checksum = hashlib.sha256(frozen).digest()
        if since is None:
            self._base, self._since_base = (battle.seq, checksum, len(battle.units), set(ids)), 0
        self._since_base += 1
        return checksum + frozen

    def _kept_ids(self, ruleset: Ruleset, units: list[Unit]) -> tuple[list[int], bytes]:
        # A departed unit is never changed in place (a ruling copies it first), so each is encoded once.
        found = list(map(self._kept.get, map(id, units)))  # thousands a snapshot: no Python step per unit
        if None in found:
            new = [unit for unit, row in zip(units, found, strict=True) if row is None]
            bodies = [snapshot_data.encode_unit(ruleset, unit) for unit in new]
            digests = [_unit_digest(body) for body in bodies]
            kept = self.keep.keep_units(self.battle_id, self.engine, list(zip(digests, bodies, strict=True)))
            for unit, kept_id, digest in zip(new, kept, digests, strict=True):
                self._kept[id(unit)] = (unit, kept_id, digest)  # the unit itself too: its id() stays its own
                self._digests[kept_id] = digest
            found = list(map(self._kept.__getitem__, map(id, units)))
        return list(map(_second, found)), b"".join(map(_third, found))


def restore(store: EventStore, battle_id: str, engine: str, blob: bytes) -> Battle | None:
    """The battle a snapshot holds; None if anything it needs is damaged, gone or not what it recorded."""
    fold = restore_fold(store, battle_id, engine, blob)
    return None if fold is None else fold.battle


def restore_fold(store: EventStore, battle_id: str, engine: str, blob: bytes) -> Fold | None:
    """A fold begun from the snapshot: its battle, and the events struck before it (its log is
    empty: it holds what follows the snapshot, `Fold.start_seq`); None as for `restore`."""
    checksum, frozen = blob[:32], blob[32:]
    if hashlib.sha256(frozen).digest() != checksum:
        return None
    try:
        snapshot, battle = snapshot_data.decode(frozen)
        if battle.id != battle_id:
            return None
        current, ids, since, ruleset = snapshot.current, snapshot.ids, snapshot.since, battle.ruleset
        template = _template(store, battle_id, engine, since) if since is not None else None
        if template is not None and since is not None:
            units = _from_template(store, battle_id, ruleset, template, since)
        else:
            units = _named_one_by_one(store, battle_id, ruleset, ids, snapshot.departed_digest, current)
            if units is not None and since is None:  # a base: later snapshots start from its roster
                _remember_template(checksum, units, current)
        if units is None:
            return None
        units.update((unit.id, unit) for _, unit in current)
        # each None held the place of a unit just put in
        snapshot_data.units_in_place(battle, snapshot, cast(dict[str, Unit], units))
    except Exception:  # Unreadable, or a unit it names that is not among its own
        return None
    return Fold(battle_id, battle=battle, start_seq=battle.seq, struck=set(snapshot.struck))


def _from_template(
    store: EventStore, battle_id: str, ruleset: Ruleset, template: dict[str, Unit | None], since: Since
) -> dict[str, Unit | None] | None:
    departed = _departed_units(store, battle_id, ruleset, since.departed, since.departed_digest)
    if departed is None:
        return None
    units = template.copy()
    units.update(dict.fromkeys(since.joined))  # their places, in join order; each is departed or current
    units.update((unit.id, unit) for unit in departed)
    return units


def _named_one_by_one(
    store: EventStore,
    battle_id: str,
    ruleset: Ruleset,
    ids: list[int],
    recorded: bytes,
    current: list[tuple[int, Unit]],
) -> dict[str, Unit] | None:
    roster = _departed_units(store, battle_id, ruleset, ids, recorded)
    if roster is None:
        return None
    for place, unit in current:  # in ascending places, so each lands where it was
        roster.insert(place, unit)
    return {unit.id: unit for unit in roster}


# -- what this process remembers, shared by the worker threads that restore ------------------------
_lock = threading.Lock()
# Departed units restored by this process, by battle: kept id -> (the unit, its digest).
_departed: OrderedDict[str, dict[int, tuple[Unit, bytes]]] = OrderedDict()
_DEPARTED_BATTLES = 16  # battles whose departed units are kept (the least recently restored go first)
# Base snapshots' rosters by checksum: unit id -> the departed unit, or None where a unit was still changing.
_templates: OrderedDict[bytes, dict[str, Unit | None]] = OrderedDict()
_TEMPLATES = 64  # each weighs what its roster does (bench/README.md has a long battle's)


def forget() -> None:
    """Forget every restored unit and template, as a process that has restored nothing yet."""
    with _lock:
        _departed.clear()
        _templates.clear()


def _remember_template(checksum: bytes, units: dict[str, Unit], current: list[tuple[int, Unit]]) -> None:
    template: dict[str, Unit | None] = dict(units)
    template.update(dict.fromkeys(unit.id for _, unit in current))
    with _lock:
        _templates[checksum] = template
        while len(_templates) > _TEMPLATES:
            _templates.popitem(last=False)


def _template(store: EventStore, battle_id: str, engine: str, since: Since) -> dict[str, Unit | None] | None:
    with _lock:
        template = _templates.get(since.base_checksum)
        if template is not None:
            _templates.move_to_end(since.base_checksum)
            return template
    found = store.snapshot_before(battle_id, since.base_seq, engine)
    if found is not None and found[1][:32] == since.base_checksum:  # else it is gone, or another one now
        restore(store, battle_id, engine, found[1])  # leaves its template, unless it is damaged
    with _lock:
        return _templates.get(since.base_checksum)


def _departed_units(
    store: EventStore, battle_id: str, ruleset: Ruleset, ids: list[int], recorded: bytes
) -> list[Unit] | None:
    """The units a snapshot names, each materialised once by this process; None unless they are
    exactly what the snapshot recorded (a damaged row, a row gone...: a full replay answers then)."""
    with _lock:
        known = _departed.pop(battle_id, None) or {}
        _departed[battle_id] = known
        while len(_departed) > _DEPARTED_BATTLES:
            _departed.popitem(last=False)
    found = _exactly(known, ids, recorded)
    if found is None:
        missing = set(ids).difference(known)
        _read(store, battle_id, ruleset, missing or set(ids), known)
        found = _exactly(known, ids, recorded)
        if found is None and missing:  # what it had under these ids came from another store of the same name
            _read(store, battle_id, ruleset, set(ids), known)
            found = _exactly(known, ids, recorded)
    return found


def _exactly(known: dict[int, tuple[Unit, bytes]], ids: list[int], recorded: bytes) -> list[Unit] | None:
    try:
        entries = list(map(known.__getitem__, ids))  # each (unit, digest) read as one: threads may be adding
    except KeyError:
        return None
    if _digest_of(b"".join(map(_second, entries))) != recorded:
        return None
    return list(map(_first, entries))


def _read(
    store: EventStore, battle_id: str, ruleset: Ruleset, ids: set[int], known: dict[int, tuple[Unit, bytes]]
) -> None:
    read = {}
    for kept_id, digest, body in store.snapshot_units(battle_id, ids):
        if _unit_digest(body) != digest:  # a damaged row is left unread
            continue
        try:
            read[kept_id] = (snapshot_data.decode_unit(ruleset, body), digest)
        except Unreadable:  # not a unit (an old engine's pickle, say): left unread, so a full replay answers
            continue
    with _lock:
        known.update(read)


def _unit_digest(body: bytes) -> bytes:
    return hashlib.sha256(body).digest()[:16]


def _digest_of(digests: bytes) -> bytes:
    return hashlib.sha256(digests).digest()
