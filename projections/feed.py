"""The feed: every stored event followed by what it caused, in log order.

This is the wire format of the live feed (SSE and NDJSON) and of an NDJSON export: one JSON object
per stored event, the stored event's own fields plus `caused`, the outcomes replay derives from it
(tests due, tests resolved, state changes...), each citing its rule ID. `caused` is derived, never
stored: a reader can check the hash chain on the other fields alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from morale.core.outcomes import AnyOutcome
from morale.core.replay import Replay
from morale.events.types import AnyEvent, StoredEvent


class FeedItem(msgspec.Struct, frozen=True, kw_only=True):
    """One stored event and what it caused. `seq` is the SSE message id."""

    battle: str
    seq: int
    schema_version: int
    recorded_at: str
    event: AnyEvent
    prev_hash: str
    hash: str
    caused: list[AnyOutcome]


def feed_item(stored: StoredEvent, caused: Iterable[AnyOutcome]) -> FeedItem:
    return FeedItem(
        battle=stored.battle,
        seq=stored.seq,
        schema_version=stored.schema_version,
        recorded_at=stored.recorded_at,
        event=stored.event,
        prev_hash=stored.prev_hash,
        hash=stored.hash,
        caused=list(caused),
    )


def follow(fold: Replay, events: Iterable[StoredEvent]) -> Iterator[FeedItem]:
    """Fold each event into `fold` (which has read the log up to just before it) and describe it."""
    for stored in events:
        yield feed_item(stored, fold.apply(stored.seq, stored.event))  # type: ignore[arg-type]


def feed(battle_id: str, events: Iterable[StoredEvent], after: int = 0) -> Iterator[FeedItem]:
    """The whole log as feed items; those up to `after` are folded but not given back."""
    fold = Replay(battle_id)
    for item in follow(fold, events):
        if item.seq > after:
            yield item


# Sorted keys: the same bytes as the store's canonical encoding, whatever the field order in Python.
_encoder = msgspec.json.Encoder(order="sorted")


def encode_item(item: FeedItem) -> bytes:
    return _encoder.encode(item)


def feed_schema() -> dict[str, Any]:
    """JSON Schema of one feed line, for clients in other languages."""
    schema = msgspec.json.schema(FeedItem)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "morale feed item"
    return msgspec.json.decode(msgspec.json.encode(schema))  # plain JSON values (no tuples)


if __name__ == "__main__":  # python -m morale.projections.feed > schema/feed.schema.json
    import json

    print(json.dumps(feed_schema(), indent=2))
