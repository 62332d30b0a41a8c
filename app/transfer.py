"""A battle in and out of the store as NDJSON: one stored event per line, hash link included.

A line is the stored event as the log holds it (battle, seq, schema_version, recorded_at, event,
its author where one was recorded, prev_hash, hash), the same shape the feed sends. Export writes
the stored bytes unchanged (an old event stays in its old version, an event written before authors
were recorded has none), so importing the file into another store gives the same hashes.
Import checks the whole file before it writes anything: the hash chain, then every event through the
referee as `record` does, the board each phase end recorded and, once the secret is revealed in the
file, every engine roll.

After the events come the store's signatures, in lines of two other shapes, each an object of one
key: `{"public_key": {"key": FINGERPRINT, "pem": PEM}}` for each key that signed, then
`{"signed_head": {"battle", "seq", "hash", "key", "signature"}}` for each signed head
(events/signing.py). A reader from before signatures refuses such a line by name (an unknown
field) rather than taking it for an event; a file written before them has none, and is read as
ever. Import checks each signature against the key the file lists for it and keeps them, so the
battle exported again still verifies against the key of the store it came from.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import msgspec
from msgspec.structs import replace

from morale.core.rules import Refusal
from morale.core.words import Words
from morale.events.codec import GENESIS_HASH, MalformedEvent, battle_id, decode_input, decode_raw, encode
from morale.events.signing import PublicKey, PublicKeyLine, SignedHead, SignedHeadLine
from morale.events.store import BattleExists, EventStore, UnknownBattle
from morale.events.types import StoredEvent
from morale.projections.signed import listed_heads
from morale.projections.verify import Auditor, link_problem

_key_line = msgspec.json.Decoder(PublicKeyLine)
_head_line = msgspec.json.Decoder(SignedHeadLine)
_TRAILERS = (b'{"public_key"', b'{"signed_head"')


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
    heads = store.signed_heads(battle)
    listed = store.public_keys()
    for key in sorted({head.key for head in heads} & set(listed)):
        yield encode(PublicKeyLine(PublicKey(key=key, pem=listed[key]))) + b"\n"
    for head in heads:
        yield encode(SignedHeadLine(head)) + b"\n"


@dataclass(frozen=True)
class Checked:
    """An exported battle whose every line passed the checks, ready to be written to a store."""

    battle: str
    sealed: list[tuple[StoredEvent, bytes]]
    head: str
    signed: list[SignedHead] = field(default_factory=list)  # the heads the file carries
    public_keys: dict[str, str] = field(default_factory=dict)  # {fingerprint: PEM} the file lists


def import_battle(store: EventStore, lines: Iterable[str | bytes], source: str = "input") -> Imported:
    """Check every line, then write the battle in one append; a refusal names the line and the
    sequence number, and nothing is written."""
    return write_checked(store, check_lines(lines, source))


def write_checked(store: EventStore, checked: Checked) -> Imported:
    """Write a checked battle in one append, unless the store already has a battle of that id."""
    if existing := store.last_seq(checked.battle):
        raise BattleExists(checked.battle, existing)
    store.append_sealed(checked.battle, checked.sealed, signed=checked.signed, public_keys=checked.public_keys)
    return Imported(battle=checked.battle, events=len(checked.sealed), head=checked.head)


def check_lines(lines: Iterable[str | bytes], source: str = "input", *, listed_keys: bool = True) -> Checked:
    """Every check an import makes that needs no store, so a bad file is refused before one is
    opened (`morale import` then creates none). `listed_keys`: check the signed heads against the
    keys the file lists (an import); `morale verify FILE --key` checks them against its own."""
    sealed: list[tuple[StoredEvent, bytes]] = []
    line_of: dict[int, int] = {}
    battle, head = "", GENESIS_HASH
    auditor: Auditor | None = None
    signed: list[SignedHead] = []
    public_keys: dict[str, str] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        text = line.encode() if isinstance(line, str) else line
        at_line = Words("{source} line {number}", source=source, number=number)
        if text.lstrip().startswith(_TRAILERS):
            _read_trailer(text, at_line, signed, public_keys)
            continue
        if signed or public_keys:
            said = Words(
                "{source} line {number}: an event after the signatures: the file was cut and pasted",
                source=source,
                number=number,
            )
            raise MalformedEvent(said)
        try:
            raw = decode_raw(line)
        except MalformedEvent as exc:
            raise exc.within(at_line) from None
        where = Words("{source} line {number} (seq {seq})", source=source, number=number, seq=raw.seq)
        if auditor is None:
            try:
                battle, auditor = battle_id(raw.battle), Auditor(raw.battle)
            except MalformedEvent as exc:
                raise exc.within(where) from None
        if raw.battle != battle:
            said = Words(
                "{where}: belongs to battle {other!r}, not {battle!r}", where=where, other=raw.battle, battle=battle
            )
            raise Refusal(said, field="battle")
        body = raw.body()
        problem = link_problem(len(sealed) + 1, head, raw.seq, raw.prev_hash, raw.hash, body)
        if problem:
            raise Refusal(Words("{where}: {reason}", where=where, reason=problem[1]), field=problem[0])
        try:
            event, author = raw.read_event(), raw.read_author()
            findings = auditor.step(raw.seq, event)[1]
        except MalformedEvent as exc:
            raise exc.within(where) from None
        except Refusal as refusal:
            said = Words("{where}: {reason}", where=where, reason=refusal.message)
            raise Refusal(said, rule=refusal.rule, field=refusal.field) from None
        if findings:
            raise Refusal(Words("{where}: {reason}", where=where, reason=findings[0].message), field="state_digest")
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
        raise MalformedEvent(Words("{file}: no events in the file", file=source))
    for finding in auditor.dice_findings(auditor.secrets):  # each revealed secret's rolls
        where = Words("{source} line {number} (seq {seq})", source=source, number=line_of[finding.seq], seq=finding.seq)
        raise Refusal(Words("{where}: {reason}", where=where, reason=finding.message), field="dice")
    if listed_keys:
        hashes = {stored.seq: stored.hash for stored, _ in sealed}
        for check in listed_heads(battle, hashes, signed, public_keys):
            if not check.ok:
                raise Refusal(Words("{where}: {reason}", where=source, reason=check.problem), field="signed_head")
    return Checked(battle=battle, sealed=sealed, head=head, signed=signed, public_keys=public_keys)


def _read_trailer(text: bytes, where: Words, signed: list[SignedHead], public_keys: dict[str, str]) -> None:
    """A line of the signatures that follow the events: a public key, or a signed head."""
    try:
        if text.lstrip().startswith(b'{"public_key"'):
            listed = decode_input(_key_line, text).public_key
            public_keys[listed.key] = listed.pem
        else:
            signed.append(decode_input(_head_line, text).signed_head)
    except MalformedEvent as exc:
        raise exc.within(where) from None
