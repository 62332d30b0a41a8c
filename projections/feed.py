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

from morale.core.outcomes import AnyOutcome, StateChanged, StateChangeScheduled
from morale.core.replay import Replay
from morale.core.rulesets.base import Ruleset
from morale.events.schema import DIALECT
from morale.events.types import EVENT_TYPES, RefereeRuled, StoredEvent


class FeedItem(StoredEvent, frozen=True, kw_only=True, omit_defaults=True):
    """A stored event, as the log holds it, and what it caused. `seq` is the SSE message id.

    `state_names` gives the battle's ruleset's word for each morale state the item names (a state
    change's `from_state` and `to_state`, a scheduled change's `to_state`, a ruling's `state`), keyed
    by that machine value, which stays as it is: `{"falling_back": "fleeing"}` in Warhammer Fantasy,
    `{"falling_back": "retreating"}` in General de Brigade. Left out when the item names no state."""

    caused: tuple[AnyOutcome, ...]
    state_names: dict[str, str] = msgspec.field(default_factory=dict)


def named_states(stored: StoredEvent, caused: Iterable[AnyOutcome]) -> list[str]:
    """The morale states an item names, in the order it names them."""
    states = [stored.event.state] if isinstance(stored.event, RefereeRuled) and stored.event.state else []
    for outcome in caused:
        if isinstance(outcome, StateChanged):
            states += [outcome.from_state, outcome.to_state]
        elif isinstance(outcome, StateChangeScheduled):
            states.append(outcome.to_state)
    return states


def feed_item(stored: StoredEvent, caused: Iterable[AnyOutcome], ruleset: Ruleset | None) -> FeedItem:
    """`ruleset`: the battle's, which names its states (None before the battle has one)."""
    caused = tuple(caused)
    names = {s: ruleset.state_name(s) for s in named_states(stored, caused)} if ruleset else {}
    return FeedItem(**msgspec.structs.asdict(stored), caused=caused, state_names=names)


def follow(fold: Replay, events: Iterable[StoredEvent]) -> Iterator[FeedItem]:
    """Fold each event into `fold` (which has read the log up to just before it) and describe it."""
    for stored in events:
        caused = fold.apply(stored.seq, stored.event)
        yield feed_item(stored, caused, fold.battle.ruleset if fold.battle else None)  # type: ignore[arg-type]


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
