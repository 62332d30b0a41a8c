"""Bytes in and out of the log: one pre-built decoder, canonical encoding, and the hash chain."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import msgspec

from .types import EVENT_TYPES, AnyEvent, Author, BattleId, LogEntry, StoredEvent
from .wording import syntax_words, validation_words
from .words import Words, english

GENESIS_HASH = "0" * 64

_event_decoder = msgspec.json.Decoder(AnyEvent)
T = TypeVar("T")  # the type a decoder reads


class _Body(msgspec.Struct):
    """The hashed part of a stored row; a fold needs only the event inside, a reader its author too."""

    event: AnyEvent
    author: Author | None = None


_body_decoder = msgspec.json.Decoder(_Body)
_CURRENT_VERSIONS = {tag: cls.version for tag, cls in EVENT_TYPES.items()}
# Sorted keys make the bytes that are hashed independent of field order in the Structs; `Words` are
# their English (what is hashed never depends on who reads it).
_canonical = msgspec.json.Encoder(order="sorted", enc_hook=english)


class MalformedEvent(ValueError):
    """Input that is not a well-formed event: bad JSON, an unknown type, a field out of range.
    `field` is the path of the field it names ("dice[0]"), where it names one. `message` is the
    refusal's words (`Words`, said in the reader's language at the edge); `str(exc)` their English."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message, self.field = message, field

    def within(self, where: str) -> MalformedEvent:
        """The same refusal, said of a place: a file's line, a roster's unit."""
        return MalformedEvent(Words("{where}: {problem}", where=where, problem=self.message), self.field)


def decode_input(decoder: msgspec.json.Decoder[T], data: bytes | str) -> T:
    """JSON from outside read as the decoder's type, or a `MalformedEvent` in words that says where:
    the line and column of a syntax error or of a byte that is not UTF-8, the field and the limit
    of a value out of bounds. Input nested too deep for the decoder is refused, not a traceback."""
    try:
        return decoder.decode(data)
    except msgspec.ValidationError as exc:
        words, field = validation_words(exc, decoder.type, _plain(data))
        raise MalformedEvent(
            Words("{field}: {problem}", field=field, problem=words) if field else words, field
        ) from None
    except msgspec.DecodeError as exc:
        raise MalformedEvent(syntax_words(exc, data)) from None
    except RecursionError:
        raise MalformedEvent(Words("malformed JSON: nested too deep to read")) from None


def _plain(data: bytes | str) -> Any:
    """The input as plain JSON values, for a refusal to say what was given (None if unreadable)."""
    try:
        return msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None


def decode_event(data: bytes | str) -> AnyEvent:
    return decode_input(_event_decoder, data)


def event_from_dict(data: dict[str, Any]) -> AnyEvent:
    """For events built from CLI flags or TOML: same validation as JSON input."""
    try:
        encoded = _canonical.encode(data)
    except RecursionError:
        raise MalformedEvent(Words("nested too deep to read")) from None
    except (TypeError, msgspec.EncodeError) as exc:  # a value JSON has no form for
        raise MalformedEvent(str(exc)) from None
    return decode_event(encoded)


def battle_id(text: str) -> str:
    """A new battle's id, held to the schema's limits (`BattleId`): it names the battle in every
    command, URL and export, so "../../etc/passwd" or a NUL is refused before anything is written."""
    try:
        return msgspec.convert(text, BattleId)
    except msgspec.ValidationError as exc:
        problem = validation_words(exc, BattleId, text)[0]
        raise MalformedEvent(Words("{field}: {problem}", field="battle", problem=problem), "battle") from None


def encode(value: Any) -> bytes:
    return _canonical.encode(value)


def to_builtins(value: Any, enc_hook: Callable[[Any], Any] = english) -> Any:
    """`value` as plain JSON values, keys sorted; `Words` as their English, for what is kept or
    compared (an edge that shows them passes `morale.app.language.enc_hook`)."""
    return msgspec.to_builtins(value, order="sorted", enc_hook=enc_hook)


def body_bytes(
    battle: str,
    seq: int,
    schema_version: int,
    recorded_at: str,
    event: AnyEvent | dict[str, Any],
    author: Author | dict[str, Any] | None = None,
) -> bytes:
    """The canonical bytes that a stored event's hash covers: everything but the hashes. The
    `author` key is there only when an author is given, so an event written before authors were
    recorded keeps its bytes, and its hash."""
    body: dict[str, Any] = {
        "battle": battle,
        "seq": seq,
        "schema_version": schema_version,
        "recorded_at": recorded_at,
        "event": event,
    }
    if author is not None:
        body["author"] = author
    return _canonical.encode(body)


def table_sha256(values: Any) -> str:
    """The fingerprint a pinned data table carries: sha256 of its values' canonical JSON, so the
    same numbers give the same hash whatever file layout or comments they came with."""
    return hashlib.sha256(_canonical.encode(values)).hexdigest()


def chain_hash(prev_hash: str, body: bytes) -> str:
    return hashlib.sha256(prev_hash.encode("ascii") + body).hexdigest()


def decode_body(body: str | bytes) -> AnyEvent:
    return _body_decoder.decode(body).event


class RawStored(msgspec.Struct, forbid_unknown_fields=True):
    """A stored event before its event is read: a row's body, or a line of an exported battle (which
    adds the hash link). The event stays a plain dict, exactly as written, so its bytes can be hashed
    again and an old version upcast."""

    battle: str
    seq: int
    schema_version: int
    recorded_at: str
    event: dict[str, Any]
    prev_hash: str = ""
    hash: str = ""
    # Who appended it, as written (like the event). UNSET, not None, for an event written before
    # authors were recorded: an unset field is left out of what is encoded, so an exported old log
    # reads as it always did.
    author: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET

    def body(self) -> bytes:
        return body_bytes(self.battle, self.seq, self.schema_version, self.recorded_at, self.event, self.written_author)

    @property
    def written_author(self) -> dict[str, Any] | None:
        return None if isinstance(self.author, msgspec.UnsetType) else self.author

    def read_event(self) -> AnyEvent:
        return upcast(self.event, self.schema_version)

    def read_author(self) -> Author | None:
        """Who appended the event, held to `Author`'s fields and limits (a refusal names the field)."""
        if self.written_author is None:
            return None
        try:
            return msgspec.convert(self.author, Author)
        except msgspec.ValidationError as exc:
            words, field = validation_words(exc, Author, self.author)
            where = f"author.{field}" if field else "author"
            raise MalformedEvent(Words("{field}: {problem}", field=where, problem=words), where) from None


_raw_decoder = msgspec.json.Decoder(RawStored)


def decode_raw(data: str | bytes) -> RawStored:
    return decode_input(_raw_decoder, data)


def read_rows(rows: Iterable[tuple[int, int, str, str]]) -> Iterator[LogEntry]:
    """(seq, event) from stored (seq, schema_version, type, body) rows, as a fold reads the log. An
    event of its type's current version is decoded from its body in place, one function call less an
    event, which a long replay feels (bench/README.md); any other goes through `decode_stored`."""
    decode = _body_decoder.decode
    for seq, schema_version, event_type, body in rows:
        if _CURRENT_VERSIONS.get(event_type) == schema_version:
            yield seq, decode(body).event
        else:
            yield seq, decode_stored(body, schema_version, event_type)


def stored_events(battle: str, rows: Iterable[tuple[int, int, str, str, str, str, str]]) -> Iterator[StoredEvent]:
    """Stored events, with their timestamps and hash links, from (seq, schema_version, recorded_at,
    type, body, prev_hash, hash) rows in log order: what `read` gives, from either store."""
    for seq, schema_version, recorded_at, event_type, body, prev_hash, digest in rows:
        event, author = decode_stored_with_author(body, schema_version, event_type)
        yield StoredEvent(
            battle=battle,
            seq=seq,
            schema_version=schema_version,
            recorded_at=recorded_at,
            event=event,
            prev_hash=prev_hash,
            hash=digest,
            author=author,
        )


def decode_stored_with_author(
    body: str | bytes, schema_version: int, event_type: str
) -> tuple[AnyEvent, Author | None]:
    """A stored event and who appended it (None for an event written before authors were recorded)."""
    cls = EVENT_TYPES.get(event_type)
    if cls is None:
        raise MalformedEvent(Words("type: unknown event type {type!r}", type=event_type))
    if schema_version == cls.version:
        decoded = _body_decoder.decode(body)
        return decoded.event, decoded.author
    raw = decode_raw(body)
    return upcast(raw.event, schema_version), raw.read_author()


def decode_stored(body: str | bytes, schema_version: int, event_type: str) -> AnyEvent:
    """A stored event as this engine reads it: older versions of its type are upcast first."""
    cls = EVENT_TYPES.get(event_type)
    if cls is None:
        raise MalformedEvent(Words("type: unknown event type {type!r}", type=event_type))
    if schema_version == cls.version:
        return decode_body(body)
    return upcast(decode_raw(body).event, schema_version)


def upcast(data: dict[str, Any], schema_version: int) -> AnyEvent:
    """Bring an event written as `schema_version` of its type up to the current version, one step at
    a time through the type's `upcast_vN_vM` functions, then validate it like any input."""
    cls = EVENT_TYPES.get(str(data.get("type")))
    if cls is None:
        raise MalformedEvent(Words("type: unknown event type {type!r}", type=data.get("type")))
    if schema_version > cls.version:
        raise MalformedEvent(
            Words(
                "schema_version: {type} version {version} was written by a newer engine (this one reads up to"
                " version {latest})",
                type=cls.__struct_config__.tag,
                version=schema_version,
                latest=cls.version,
            )
        )
    if schema_version < 1:
        raise MalformedEvent(Words("schema_version: versions start at 1, not {version}", version=schema_version))
    for version in range(schema_version, cls.version):
        data = getattr(cls, f"upcast_v{version}_v{version + 1}")(dict(data))
    return event_from_dict(data)
