"""A snapshot's bytes as data: msgpack read back into the engine's own types, never code.

Snapshots are read back from the store, and whoever can write the store's snapshot table (on
PostgreSQL, anyone with a login that may) is not someone every node should run code for. Pickled
bytes would run whatever they name as they are read; these can only describe a battle. Each part is
decoded against the type it must have (msgspec checks every field), so bytes of any other shape
(a pickle among them) fail to decode and the snapshot is treated as absent: the battle is folded
from the log, which is the only truth.

What a type does not say is said by the ruleset: the tables it pins (`Ruleset.tables`' schemas),
its battle-wide memory (the type `first_memory` gives), and what each of a unit's notes holds
(`Ruleset.note_types`). A note whose type the ruleset does not declare cannot be read back as it was
(a tuple would come back a list), so freezing one is an error, found by the tests that freeze every
ruleset's battles.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace

from morale.core.catalogue import Quoted, quoted
from morale.core.rulesets.base import Ruleset, lookup
from morale.core.state import Battle, DueTest, Unit
from morale.core.words import Words, rebuilt


class Since(msgspec.Struct, frozen=True, array_like=True, forbid_unknown_fields=True):
    """What a snapshot holds beyond its base: the base (its seq and checksum), the units that joined
    since (ids, in join order), and the units that departed since (kept ids, with a digest of them)."""

    base_seq: int
    base_checksum: bytes
    joined: list[str]
    departed: list[int]
    departed_digest: bytes


class _Core(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """A battle without its units: they are kept apart (the departed, by id) or beside it (the current)."""

    id: str
    ruleset: tuple[str, str]  # its id and version, found again in the registry
    sides: tuple[str, ...]
    dice_policy: str
    dice_commitment: str
    dice_secret: str
    seed_commitments: dict[str, str]
    seeds: dict[str, str]
    house_rules: dict[str, bool | int | float | str]
    confirmation: bool
    seq: int
    turn: int
    side_index: int
    phase_index: int
    phase_open: bool
    living: list[str]  # the units in play, by id, in their order (each is among the current units)
    left_play: list[str]
    due: list[DueTest]
    tables: dict[str, msgspec.Raw]  # each read with its schema, once the ruleset is known
    bookkeeping: msgspec.Raw
    chosen_first: list[tuple[str, str, str]]  # (side, test, unit)


class Frozen(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """A snapshot: the battle's core, the units still changing (with their place in join order), the
    kept ids of the departed units with a digest of their digests, what changed since its base, and
    the events struck before it (a fold begun from it knows them, as a full replay would)."""

    core: _Core
    current: list[tuple[int, Unit]]
    ids: list[int]
    departed_digest: bytes
    since: Since | None
    struck: list[int]


# A due test's modifier gives its reason as Words (said in the reader's language): kept as a marked
# string holding its template and values as JSON, and made Words again as the snapshot is read.
_KEPT_WORDS = "\x1fwords:"


def _kept(value: object) -> object:
    if isinstance(value, Quoted):
        return _KEPT_WORDS + msgspec.json.encode(["quoted", value.rule, value.part, str(value)]).decode()
    if isinstance(value, Words):
        template, plural, args = value.__reduce__()[1]
        return _KEPT_WORDS + msgspec.json.encode(["words", template, plural, args], enc_hook=_kept).decode()
    raise NotImplementedError(f"{type(value).__name__} cannot be kept in a snapshot")


def _revived(value: object) -> object:
    """A kept string made Words again (any other value as it is)."""
    if not isinstance(value, str) or not value.startswith(_KEPT_WORDS):
        return value
    kept = msgspec.json.decode(value[len(_KEPT_WORDS) :])
    if kept[0] == "quoted":
        return quoted(kept[1], kept[2], kept[3])
    _, template, plural, args = kept
    return rebuilt(template, plural, {name: _revived(arg) for name, arg in args.items()})


def _revived_due(due: DueTest) -> DueTest:
    if not any(isinstance(m.reason, str) and m.reason.startswith(_KEPT_WORDS) for m in due.modifiers):
        return due
    modifiers = tuple(replace(m, reason=_revived(m.reason)) for m in due.modifiers)
    return replace(due, modifiers=modifiers)


_encoder = msgspec.msgpack.Encoder(enc_hook=_kept)
_frozen = msgspec.msgpack.Decoder(Frozen)
_unit = msgspec.msgpack.Decoder(Unit)


class Unreadable(ValueError):
    """Bytes that are not a snapshot (or a kept unit) of this engine: the snapshot is treated as absent."""


def encode(
    battle: Battle,
    current: list[tuple[int, Unit]],
    ids: list[int],
    digest: bytes,
    since: Since | None,
    struck: list[int],
) -> bytes:
    for _, unit in current:
        _check_notes(battle.ruleset, unit)
    core = _Core(
        id=battle.id,
        ruleset=(battle.ruleset.id, battle.ruleset.version),
        sides=battle.sides,
        dice_policy=battle.dice_policy,
        dice_commitment=battle.dice_commitment,
        dice_secret=battle.dice_secret,
        seed_commitments=battle.seed_commitments,
        seeds=battle.seeds,
        house_rules=battle.house_rules,  # type: ignore[arg-type]  # checked against the parameters' types
        confirmation=battle.confirmation,
        seq=battle.seq,
        turn=battle.turn,
        side_index=battle.side_index,
        phase_index=battle.phase_index,
        phase_open=battle.phase_open,
        living=list(battle.living),
        left_play=[unit.id for unit in battle.left_play],
        due=battle.due,
        tables={name: msgspec.Raw(_encoder.encode(table)) for name, table in battle.tables.items()},
        bookkeeping=msgspec.Raw(_encoder.encode(battle.memory)),
        chosen_first=[(side, test, unit) for (side, test), unit in battle.chosen_first.items()],
    )
    return _encoder.encode(Frozen(core, current, ids, digest, since, struck))


def decode(frozen: bytes) -> tuple[Frozen, Battle]:
    """The snapshot, and its battle with no units yet (`units_in_place` puts them in); raises
    `Unreadable` if the bytes are anything else."""
    try:
        snapshot = _frozen.decode(frozen)
        core = snapshot.core
        ruleset = lookup(*core.ruleset)
        tables = {
            name: msgspec.msgpack.decode(raw, type=ruleset.tables[name].schema) for name, raw in core.tables.items()
        }
        memory = ruleset.first_memory()
        bookkeeping = msgspec.msgpack.decode(core.bookkeeping, type=Any if memory is None else type(memory))
        for _, unit in snapshot.current:
            _read_notes(ruleset, unit)
    # Whatever the bytes fail on (a field of the wrong kind, a ruleset or table this engine does not
    # know, a note of the wrong shape), the snapshot is not one to believe.
    except Exception as exc:
        raise Unreadable(str(exc)) from None
    battle = Battle(
        id=core.id,
        ruleset=ruleset,
        sides=core.sides,
        dice_policy=core.dice_policy,
        dice_commitment=core.dice_commitment,
        dice_secret=core.dice_secret,
        seed_commitments=core.seed_commitments,
        seeds=core.seeds,
        house_rules=dict(core.house_rules),
        confirmation=core.confirmation,
        seq=core.seq,
        turn=core.turn,
        side_index=core.side_index,
        phase_index=core.phase_index,
        phase_open=core.phase_open,
        due=[_revived_due(due) for due in core.due],
        tables=tables,
        memory=bookkeeping,
        chosen_first={(side, test): unit for side, test, unit in core.chosen_first},
    )
    return snapshot, battle


def units_in_place(battle: Battle, snapshot: Frozen, units: dict[str, Unit]) -> None:
    """Give `battle` its roster, and the units in play and just gone out of it as the same objects."""
    battle.units = units
    battle.living = {unit_id: units[unit_id] for unit_id in snapshot.core.living}
    battle.left_play = [units[unit_id] for unit_id in snapshot.core.left_play]


def encode_unit(ruleset: Ruleset, unit: Unit) -> bytes:
    _check_notes(ruleset, unit)
    return _encoder.encode(unit)


def decode_unit(ruleset: Ruleset, body: bytes) -> Unit:
    try:
        unit = _unit.decode(body)
        _read_notes(ruleset, unit)
    except Exception as exc:
        raise Unreadable(str(exc)) from None
    return unit


def _check_notes(ruleset: Ruleset, unit: Unit) -> None:
    undeclared = [key for key in unit.notes if key not in ruleset.note_types]
    if undeclared:
        raise TypeError(f"{ruleset.id}: note {undeclared[0]!r} has no type in note_types, so a snapshot cannot hold it")


def _read_notes(ruleset: Ruleset, unit: Unit) -> None:
    # Decoded as plain data first (the Unit's type says only `object`), then as what the ruleset keeps.
    if unit.notes:
        unit.notes = {key: msgspec.convert(value, ruleset.note_types[key]) for key, value in unit.notes.items()}
