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
from morale.events.schema import DIALECT
from morale.events.types import EVENT_TYPES, StoredEvent


class FeedItem(StoredEvent, frozen=True, kw_only=True):
    """A stored event, as the log holds it, and what it caused. `seq` is the SSE message id."""

    caused: tuple[AnyOutcome, ...]


def feed_item(stored: StoredEvent, caused: Iterable[AnyOutcome]) -> FeedItem:
    return FeedItem(**msgspec.structs.asdict(stored), caused=tuple(caused))


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
    schema["$schema"] = DIALECT
    schema["title"] = "morale feed item"
    for cls in EVENT_TYPES.values():  # as `morale schema` marks them: the version written today
        schema["$defs"][cls.__name__]["x-schema-version"] = cls.version
    return msgspec.json.decode(msgspec.json.encode(schema))  # plain JSON values (no tuples)


if __name__ == "__main__":  # python -m morale.projections.feed > schema/feed.schema.json
    import json

    print(json.dumps(feed_schema(), indent=2))
