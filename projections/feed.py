"""The feed: every stored event followed by what it caused, in log order.

This is the wire format of the live feed (SSE and NDJSON) and of an NDJSON export: one JSON object
per stored event, the stored event's own fields plus `caused`, the outcomes replay derives from it
(tests due, tests resolved, state changes...), each citing its rule ID. `caused` is derived, never
stored: a reader can check the hash chain on the other fields alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any

import msgspec

from morale.core.fold import Fold
from morale.core.outcomes import AnyOutcome, StateChanged, StateChangeScheduled
from morale.core.rulesets.base import Ruleset
from morale.core.words import english
from morale.events.schema import DIALECT
from morale.events.types import EVENT_TYPES, RefereeRuled, StoredEvent

from .shown import FEED_VERSION, Shown, StoryLine, TestShown, UnitNamed, before, shown


class FeedItem(StoredEvent, frozen=True, kw_only=True, omit_defaults=True):
    """A stored event, as the log holds it, and what it caused. `seq` is the SSE message id.

    `feed_version`: the feed's version. Within a version the feed only grows (new fields, new event
    types, new outcome kinds): a reader ignores what it does not know. A field removed, renamed or
    given another meaning is a new version.

    What a screen shows of it, so that it need not call `/board` or `/vocabulary` for each item:
    `units`, the units the item mentions by id, each with its name and side; `sides`, the sides it
    mentions (a side's id is its name); `story`, the lines `morale narrate` prints for it, the event's
    first and then one per outcome of `caused`, in order, each with the rule IDs it cites; `tests`,
    each test made due or resolved, with its target, odds and dice. The lines are English sentences;
    the machine fields beside them are what a client in another language builds its own sentences from.
    The feed's items carry all of these; an append's answer carries `feed_version` and `state_names`.

    `state_names` gives the battle's ruleset's word for each morale state the item names (a state
    change's `from_state` and `to_state`, a scheduled change's `to_state`, a ruling's `state`), keyed
    by that machine value, which stays as it is: `{"falling_back": "fleeing"}` in Warhammer Fantasy,
    `{"falling_back": "retreating"}` in General de Brigade. Left out when the item names no state."""

    caused: tuple[AnyOutcome, ...]
    state_names: dict[str, str] = msgspec.field(default_factory=dict)
    feed_version: int = 0  # always sent (feed_item sets it): 0 is no version
    units: dict[str, UnitNamed] = msgspec.field(default_factory=dict)
    sides: tuple[str, ...] = ()
    story: tuple[StoryLine, ...] = ()
    tests: tuple[TestShown, ...] = ()


def named_states(stored: StoredEvent, caused: Iterable[AnyOutcome]) -> list[str]:
    """The morale states an item names, in the order it names them."""
    states = [stored.event.state] if isinstance(stored.event, RefereeRuled) and stored.event.state else []
    for outcome in caused:
        if isinstance(outcome, StateChanged):
            states += [outcome.from_state, outcome.to_state]
        elif isinstance(outcome, StateChangeScheduled):
            states.append(outcome.to_state)
    return states


def feed_item(
    stored: StoredEvent, caused: Iterable[AnyOutcome], ruleset: Ruleset | None, seen: Shown | None = None
) -> FeedItem:
    """`ruleset`: the battle's, which names its states (None before the battle has one); `seen`:
    what a screen shows of it (`shown.shown`)."""
    caused = tuple(caused)
    names = {s: ruleset.state_name(s) for s in named_states(stored, caused)} if ruleset else {}
    more = msgspec.structs.asdict(seen) if seen is not None else {}
    return FeedItem(
        **msgspec.structs.asdict(stored), caused=caused, state_names=names, feed_version=FEED_VERSION, **more
    )


def apply_shown(fold: Fold, stored: StoredEvent) -> FeedItem:
    """Fold one stored event into `fold` (which has read the log up to just before it) and describe
    it as the feed does: the odds of a test its dice answer are read before it is folded."""
    was = before(fold.battle, stored.event)
    caused = fold.advance(stored.seq, stored.event)
    battle = fold.battle
    return feed_item(stored, caused, battle.ruleset if battle else None, shown(stored, caused, battle, was))  # type: ignore[arg-type]


def follow(fold: Fold, events: Iterable[StoredEvent]) -> Iterator[FeedItem]:
    """Fold each event into `fold` (which has read the log up to just before it) and describe it."""
    for stored in events:
        yield apply_shown(fold, stored)


def feed(battle_id: str, events: Iterable[StoredEvent], after: int = 0) -> Iterator[FeedItem]:
    """The whole log as feed items; those up to `after` are folded but not given back."""
    fold = Fold(battle_id)
    for item in follow(fold, events):
        if item.seq > after:
            yield item


# Sorted keys: the same bytes as the store's canonical encoding, whatever the field order in Python.
# Encoded once for every follower, so the story's words go out in English (`words.english`): a
# reader in another language builds its sentences from the machine fields beside them.
_encoder = msgspec.json.Encoder(order="sorted", enc_hook=english)


def encode_item(item: FeedItem, enc_hook: Callable[[Any], Any] | None = None) -> bytes:
    """The item's JSON. `enc_hook` says its words in a reader's language (the server's feed
    encodes an item once for each language its followers read: app/http/live.py); without one, an
    item that holds words cannot be encoded."""
    return (_encoder if enc_hook is None else _encoder_with(enc_hook)).encode(item)


@cache
def _encoder_with(enc_hook: Callable[[Any], Any]) -> msgspec.json.Encoder:
    return msgspec.json.Encoder(order="sorted", enc_hook=enc_hook)


EVOLUTION = (
    "One feed item: an SSE message's data, an NDJSON line. Each item carries `feed_version`, the "
    "version of this schema (`x-feed-version`). Within a version the feed is additive: new fields, new event "
    "types and new outcome kinds may appear, so a reader ignores what it does not know; a field removed, "
    "renamed or given another meaning comes with a new version."
)


def feed_schema() -> dict[str, Any]:
    """JSON Schema of one feed line, for clients in other languages."""
    schema = msgspec.json.schema(FeedItem)
    schema["$schema"] = DIALECT
    schema["title"] = "morale feed item"
    schema["x-feed-version"] = FEED_VERSION
    schema["description"] = EVOLUTION
    for cls in EVENT_TYPES.values():  # as `morale schema` marks them: the version written today
        schema["$defs"][cls.__name__]["x-schema-version"] = cls.version
    return _neutral(msgspec.json.decode(msgspec.json.encode(schema)))  # plain JSON values (no tuples)


def _neutral(node: Any) -> Any:
    """The schema read alike by a 2020-12 reader and a draft-07 one (the AsyncAPI document's
    payload format): a tuple of like items (a point on the clock) is `prefixItems` with
    `items: false` in 2020-12, which a draft-07 reader takes for "no items at all". Its items are
    said with `items` instead, the tuple's length with minItems and maxItems, as both read them."""
    if isinstance(node, list):
        return [_neutral(inner) for inner in node]
    if not isinstance(node, dict):
        return node
    node = {key: _neutral(value) for key, value in node.items()}
    prefix = node.get("prefixItems")
    if prefix is not None:
        if node.get("items") is not False or any(item != prefix[0] for item in prefix):
            raise ValueError(f"a tuple of unlike items reads differently in draft-07: {node}")
        node["items"] = node.pop("prefixItems")[0]
    return node


if __name__ == "__main__":  # python -m morale.projections.feed > schema/feed.schema.json
    import json

    print(json.dumps(feed_schema(), indent=2))
