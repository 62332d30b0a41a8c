"""The live feed described for code generators: an AsyncAPI 3 document of its SSE and NDJSON forms.

It describes each message by kind and takes every payload from the feed's own JSON Schema (the
one `/feed.schema.json` serves and `schema/feed.schema.json` keeps), by reference, so the two
cannot disagree: the document says `feed.schema.json#/$defs/...`, which resolves beside it, on the
server (`/asyncapi.json` next to `/feed.schema.json`) as in `schema/`.

Server-Sent Events have no AsyncAPI binding yet. The document describes them with the
specification's extension mechanism (fields starting `x-`, which every AsyncAPI tool must accept
and may ignore): `x-sse` on the channel says how the stream is framed and resumed, and
`x-sse-event` on each message names the `event:` field it is sent under.
`python -m morale.app.http.asyncapi > schema/asyncapi.json` writes the kept copy (a test checks it
is current).
"""

from __future__ import annotations

import json
import typing
from typing import Any

from morale.core.outcomes import AnyOutcome
from morale.events.types import EVENT_TYPES
from morale.projections.shown import FEED_VERSION

SCHEMA = "feed.schema.json"  # where the payloads are defined, beside this document

DESCRIPTION = """\
The live feed of a battle served by `morale serve`: every stored event, in log order, with what \
it caused and what a screen shows of it (names, the story's lines, each test's odds). Two forms \
carry the same items: Server-Sent Events, and NDJSON. Every payload is defined in the feed's JSON \
Schema (`feed.schema.json`, beside this document), which says how the feed evolves.

Server-Sent Events are not a standard AsyncAPI binding: this document uses AsyncAPI's extension \
mechanism for them. `x-sse` on a channel says how its stream is framed and resumed; `x-sse-event` \
on a message names the SSE `event:` field it is sent under. Tools that do not know them may ignore them.

An item is sent first under its event's type (`dice_rolled`), then again, with the same `id:` and \
`data:`, under each kind of outcome it caused (`test_resolved`), all in one write. A client that \
wants every item once listens for the event types; one that wants only tests resolved listens for \
`test_resolved`."""


def _ref(definition: str) -> dict[str, str]:
    return {"$ref": f"{SCHEMA}#/$defs/{definition}"}


def _event_types() -> dict[str, str]:
    """Event type -> its definition's name in the feed schema."""
    return {tag: cls.__name__ for tag, cls in EVENT_TYPES.items()}


def _outcome_kinds() -> dict[str, str]:
    return {cls.__struct_config__.tag: cls.__name__ for cls in typing.get_args(AnyOutcome)}  # type: ignore[attr-defined]


# AsyncAPI 3.0 names JSON Schema draft-07 as the format of a JSON Schema payload, and its parser
# validates a payload of that format as one. The feed's schema is written for 2020-12 in keywords a
# draft-07 reader reads alike (`feed._neutral`); `$defs` is only where its definitions are kept, and
# `discriminator` (OpenAPI's, which msgspec writes) an annotation either reader passes over.
SCHEMA_FORMAT = "application/schema+json;version=draft-07"


def _payload(schema: dict[str, Any]) -> dict[str, Any]:
    return {"schemaFormat": SCHEMA_FORMAT, "schema": schema}


def _message(name: str, summary: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": name,
        "title": name.replace("_", " "),
        "summary": summary,
        "contentType": "application/json",
        "payload": _payload(payload),
        "x-sse-event": name,
    }


def messages() -> dict[str, dict[str, Any]]:
    """The SSE messages by name: one per event type, then one per outcome kind."""
    found: dict[str, dict[str, Any]] = {}
    for tag, definition in _event_types().items():
        narrowed = {"type": "object", "properties": {"event": _ref(definition)}, "required": ["event"]}
        found[tag] = _message(
            tag, f"An item whose event is a {tag}, sent first under its type.", {"allOf": [_ref("FeedItem"), narrowed]}
        )
    for kind, definition in _outcome_kinds().items():
        narrowed = {"type": "object", "properties": {"caused": {"type": "array", "contains": _ref(definition)}}}
        found[kind] = _message(
            kind,
            f"An item that caused a {kind}, repeated under that kind after its own message.",
            {"allOf": [_ref("FeedItem"), narrowed]},
        )
    return found


PARAMETERS = {"battle": {"description": "The battle's id."}}

# A webhook delivery (app/webhooks/message.py): the item as a structured-mode CloudEvent, with the
# Standard Webhooks headers that sign it.
DELIVERY = {
    "name": "delivery",
    "title": "webhook delivery",
    "summary": "One feed item posted to a hook's URL as a CloudEvents 1.0 event, signed as Standard Webhooks says.",
    "contentType": "application/cloudevents+json",
    "headers": {
        "type": "object",
        "required": ["webhook-id", "webhook-timestamp", "webhook-signature"],
        "properties": {
            "webhook-id": {
                "type": "string",
                "description": "BATTLE.SEQ, the same on every attempt at one item: a receiver drops a repeat by it.",
            },
            "webhook-timestamp": {"type": "string", "description": "The attempt's moment, in Unix seconds."},
            "webhook-signature": {
                "type": "string",
                "description": "v1,BASE64: HMAC-SHA256 of `id.timestamp.body` with the hook's secret (whsec_...).",
            },
        },
    },
    "payload": _payload(
        {
            "type": "object",
            "required": ["specversion", "id", "source", "type", "subject", "time", "datacontenttype", "data"],
            "properties": {
                "specversion": {"const": "1.0"},
                "id": {"type": "string", "description": "BATTLE.SEQ, as webhook-id."},
                "source": {"type": "string", "description": "/battles/BATTLE"},
                "type": {"type": "string", "description": "net.morale.feed.EVENT_TYPE"},
                "subject": {"type": "string", "description": "the item's seq"},
                "time": {"type": "string", "description": "when the event was recorded"},
                "datacontenttype": {"const": "application/json"},
                "data": _ref("FeedItem"),
            },
        }
    ),
}
SECURITY = [{"$ref": "#/components/securitySchemes/bearer"}, {"$ref": "#/components/securitySchemes/token"}]


def document() -> dict[str, Any]:
    sse = messages()
    line = {
        "name": "item",
        "title": "feed item",
        "summary": "One feed item, one line; a blank line is a heartbeat.",
        "contentType": "application/json",
        "payload": _payload(_ref("FeedItem")),
    }
    return {
        "asyncapi": "3.0.0",
        "id": "urn:morale:feed",
        "info": {
            "title": "morale live feed",
            "version": str(FEED_VERSION),  # the feed's version: every item's `feed_version`
            "description": DESCRIPTION,
        },
        "defaultContentType": "application/json",
        "channels": {
            "sse": {
                "address": "/battles/{battle}/feed",
                "title": "the feed as Server-Sent Events",
                "description": "text/event-stream. Resumes after the Last-Event-ID header, or ?after=SEQ.",
                "parameters": PARAMETERS,
                "messages": {name: {"$ref": f"#/components/messages/{name}"} for name in sse},
                "x-sse": {
                    "media_type": "text/event-stream",
                    "id": "the item's seq, on every message: a reconnecting client sends it as Last-Event-ID",
                    "event": "the message's name (x-sse-event): the event type, then each outcome kind",
                    "data": "the item as one line of JSON (the message's payload)",
                    "retry_ms": 2000,
                    "prelude": "a comment, ': following', once connected",
                    "heartbeat": "a comment, ': heartbeat', when nothing else has been sent for a while",
                    "resume": ["Last-Event-ID", "after"],
                },
            },
            "ndjson": {
                "address": "/battles/{battle}/feed.ndjson",
                "title": "the feed as NDJSON",
                "description": "application/x-ndjson, one item a line; ?after=SEQ to resume, ?follow=false to end "
                "after the last stored event (an export).",
                "parameters": PARAMETERS,
                "messages": {"item": {"$ref": "#/components/messages/item"}},
            },
            "webhook": {
                "address": None,  # the URL a referee registers (`morale hook add`, POST /battles/{battle}/hooks)
                "title": "a battle's webhook",
                "description": "Each feed item (or those of the kinds the hook names) posted to the hook's URL, at "
                "least once and in log order: the next only once the receiver answered 2xx.",
                "messages": {"delivery": {"$ref": "#/components/messages/delivery"}},
            },
        },
        "operations": {
            "followSse": {
                "action": "receive",
                "title": "Follow a battle over Server-Sent Events",
                "channel": {"$ref": "#/channels/sse"},
                "messages": [{"$ref": f"#/channels/sse/messages/{name}"} for name in sse],
                "security": SECURITY,
                "bindings": {"http": {"method": "GET"}},
            },
            "followNdjson": {
                "action": "receive",
                "title": "Follow (or export) a battle as NDJSON",
                "channel": {"$ref": "#/channels/ndjson"},
                "messages": [{"$ref": "#/channels/ndjson/messages/item"}],
                "security": SECURITY,
                "bindings": {"http": {"method": "GET"}},
            },
            "deliverWebhook": {
                "action": "send",
                "title": "Post a battle's items to a registered webhook",
                "channel": {"$ref": "#/channels/webhook"},
                "messages": [{"$ref": "#/channels/webhook/messages/delivery"}],
                "bindings": {"http": {"method": "POST"}},
            },
        },
        "components": {
            "messages": sse | {"item": line, "delivery": DELIVERY},
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "description": "A battle's token."},
                "token": {
                    "type": "httpApiKey",
                    "name": "token",
                    "in": "query",
                    "description": "The same token in the query, where a header cannot be set (an EventSource).",
                },
            },
        },
    }


if __name__ == "__main__":  # python -m morale.app.http.asyncapi > schema/asyncapi.json
    print(json.dumps(document(), indent=2))
