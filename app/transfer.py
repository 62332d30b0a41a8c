"""A battle in and out of the store as NDJSON: one stored event per line, hash link included.

A line is the stored event as the log holds it (battle, seq, schema_version, recorded_at, event,
its author where one was recorded, prev_hash, hash), the same shape the feed sends. Export writes
the stored bytes unchanged (an old event stays in its old version, an event written before authors
were recorded has none), so importing the file into another store gives the same hashes.
Import checks the whole file before it writes anything: the hash chain, then every event through the
referee as `record` does, the board each phase end recorded and, once the secret is revealed in the
file, every engine roll.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from msgspec.structs import replace

from morale.core.rules import Refusal
from morale.events.codec import GENESIS_HASH, MalformedEvent, battle_id, decode_raw, encode
from morale.events.store import BattleExists, EventStore, UnknownBattle
from morale.events.types import StoredEvent
from morale.projections.verify import Auditor, link_problem


@dataclass(frozen=True)
class Imported:
    battle: str
    events: int
    head: str


def export_lines(store: EventStore, battle: str) -> Iterator[bytes]:
    """The battle's stored events, one canonical JSON line each (newline included)."""
    if not store.last_seq(battle):
        raise UnknownBattle(battle)
    for row in store.raw_rows(battle):
        yield encode(replace(decode_raw(row.body), prev_hash=row.prev_hash, hash=row.hash)) + b"\n"


@dataclass(frozen=True)
class Checked:
    """An exported battle whose every line passed the checks, ready to be written to a store."""

    battle: str
    sealed: list[tuple[StoredEvent, bytes]]
    head: str


def import_battle(store: EventStore, lines: Iterable[str | bytes], source: str = "input") -> Imported:
    """Check every line, then write the battle in one append; a refusal names the line and the
    sequence number, and nothing is written."""
    return write_checked(store, check_lines(lines, source))


def write_checked(store: EventStore, checked: Checked) -> Imported:
    """Write a checked battle in one append, unless the store already has a battle of that id."""
    if existing := store.last_seq(checked.battle):
        raise BattleExists(checked.battle, existing)
    store.append_sealed(checked.battle, checked.sealed)
    return Imported(battle=checked.battle, events=len(checked.sealed), head=checked.head)


def check_lines(lines: Iterable[str | bytes], source: str = "input") -> Checked:
    """Every check an import makes that needs no store, so a bad file is refused before one is
    opened (`morale import` then creates none)."""
    sealed: list[tuple[StoredEvent, bytes]] = []
    line_of: dict[int, int] = {}
    battle, head = "", GENESIS_HASH
    auditor: Auditor | None = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            raw = decode_raw(line)
        except MalformedEvent as exc:
            raise exc.within(f"{source} line {number}") from None
        where = f"{source} line {number} (seq {raw.seq})"
        if auditor is None:
            try:
                battle, auditor = battle_id(raw.battle), Auditor(raw.battle)
            except MalformedEvent as exc:
                raise exc.within(where) from None
        if raw.battle != battle:
            raise Refusal(f"{where}: belongs to battle {raw.battle!r}, not {battle!r}", field="battle")
        body = raw.body()
        problem = link_problem(len(sealed) + 1, head, raw.seq, raw.prev_hash, raw.hash, body)
        if problem:
            raise Refusal(f"{where}: {problem[1]}", field=problem[0])
        try:
            event, author = raw.read_event(), raw.read_author()
            findings = auditor.step(raw.seq, event)[1]
        except MalformedEvent as exc:
            raise exc.within(where) from None
        except Refusal as refusal:
            raise Refusal(f"{where}: {refusal.message}", rule=refusal.rule, field=refusal.field) from None
        if findings:
            raise Refusal(f"{where}: {findings[0].message}", field="state_digest")
        stored = StoredEvent(
            battle=battle,
            seq=raw.seq,
            schema_version=raw.schema_version,
            recorded_at=raw.recorded_at,
            event=event,
            prev_hash=raw.prev_hash,
            hash=raw.hash,
            author=author,
        )
        sealed.append((stored, body))
        line_of[raw.seq] = number
        head = raw.hash
    if auditor is None:
        raise MalformedEvent(f"{source}: no events in the file")
    for finding in auditor.dice_findings(auditor.secrets):  # each revealed secret's rolls
        raise Refusal(f"{source} line {line_of[finding.seq]} (seq {finding.seq}): {finding.message}", field="dice")
    return Checked(battle=battle, sealed=sealed, head=head)
