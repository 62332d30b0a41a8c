"""Bytes in and out of the log: one pre-built decoder, canonical encoding, and the hash chain."""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from .types import AnyEvent

GENESIS_HASH = "0" * 64

_event_decoder = msgspec.json.Decoder(AnyEvent)


class _Body(msgspec.Struct):
    """The hashed part of a stored row; only the event inside is needed when reading."""

    event: AnyEvent


_body_decoder = msgspec.json.Decoder(_Body)
# Sorted keys make the bytes that are hashed independent of field order in the Structs.
_canonical = msgspec.json.Encoder(order="sorted")


class MalformedEvent(ValueError):
    """Input that is not a well-formed event: bad JSON, an unknown type, a field out of range."""


def decode_event(data: bytes | str) -> AnyEvent:
    try:
        return _event_decoder.decode(data)
    except msgspec.DecodeError as exc:
        raise MalformedEvent(_explain(exc)) from None


def event_from_dict(data: dict[str, Any]) -> AnyEvent:
    """For events built from CLI flags or TOML: same validation as JSON input."""
    return decode_event(_canonical.encode(data))


def encode(value: Any) -> bytes:
    return _canonical.encode(value)


def to_builtins(value: Any) -> Any:
    return msgspec.to_builtins(value, order="sorted")


def body_bytes(battle: str, seq: int, schema_version: int, recorded_at: str, event: AnyEvent) -> bytes:
    """The canonical bytes that a stored event's hash covers: everything but the hashes."""
    return _canonical.encode(
        {
            "battle": battle,
            "seq": seq,
            "schema_version": schema_version,
            "recorded_at": recorded_at,
            "event": event,
        }
    )


def table_sha256(values: Any) -> str:
    """The fingerprint a pinned data table carries: sha256 of its values' canonical JSON, so the
    same numbers give the same hash whatever file layout or comments they came with."""
    return hashlib.sha256(_canonical.encode(values)).hexdigest()


def chain_hash(prev_hash: str, body: bytes) -> str:
    return hashlib.sha256(prev_hash.encode("ascii") + body).hexdigest()


def decode_body(body: str | bytes) -> AnyEvent:
    return _body_decoder.decode(body).event


def _explain(exc: msgspec.DecodeError) -> str:
    # A validation error names the path ("- at `$.dice[1]`"): that is what a user needs to find the field.
    if isinstance(exc, msgspec.ValidationError):
        return str(exc)
    return f"malformed JSON: {exc}"
