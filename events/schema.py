"""The JSON Schema of every event, for front ends written in other languages.

The document validates one event (`anyOf` the event types, told apart by `type`); `$defs` also holds
`StoredEvent`, the shape of a stored event as the feed and `morale export` send it. Each event type
carries `x-schema-version`, the version written with it today.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .types import EVENT_TYPES, AnyEvent, StoredEvent

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def event_schema() -> dict[str, Any]:
    (event, _stored), definitions = msgspec.json.schema_components(
        (AnyEvent, StoredEvent), ref_template="#/$defs/{name}"
    )
    for cls in EVENT_TYPES.values():
        definitions[cls.__name__]["x-schema-version"] = cls.version
    # As plain JSON data: the defaults of sequence fields are tuples in Python, arrays in the schema.
    schema = {"$schema": DIALECT, "title": "morale event", **event, "$defs": definitions}
    plain: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(schema))
    return plain
