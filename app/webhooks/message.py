"""One delivery: a feed item as a CloudEvents 1.0 event (structured JSON), signed as the Standard
Webhooks specification says, so a receiver verifies it with that project's `standardwebhooks`
package and drops a repeat by its `webhook-id`.

- `webhook-id` (and the CloudEvent's `id`): `BATTLE.SEQ`, the same on every attempt at one item, so
  a receiver that got an item before the answer was lost sees the retry as the same message. A
  battle's id never holds a space, and the seq is the part after the last dot.
- `webhook-timestamp`: when this attempt was made (receivers refuse one more than 5 minutes off),
  `webhook-signature`: `v1,` HMAC-SHA256 of `id.timestamp.body` with the hook's secret.
- The body: `specversion`, `id`, `source` (the battle's path on the server), `type`
  (`net.morale.feed.EVENT_TYPE`), `subject` (the seq), `time` (when the event was recorded) and
  `data`, the feed item exactly as the live feed sends it (schema/feed.schema.json).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import msgspec
from standardwebhooks import Webhook

from morale.projections.feed import FeedItem

CONTENT_TYPE = "application/cloudevents+json"
TYPE_PREFIX = "net.morale.feed."


@dataclass(frozen=True)
class Delivery:
    """What is posted for one attempt: the body and its headers."""

    message_id: str
    body: bytes
    headers: dict[str, str]


def message_id(battle: str, seq: int) -> str:
    return f"{battle}.{seq}"


def cloud_event(battle: str, item: FeedItem, item_json: bytes) -> bytes:
    """The item as a structured-mode CloudEvent: the item's own JSON is its `data`, byte for byte."""
    tag = type(item.event).__struct_config__.tag  # type: ignore[attr-defined]  # msgspec's tagged union
    envelope = {
        "specversion": "1.0",
        "id": message_id(battle, item.seq),
        "source": f"/battles/{battle}",
        "type": f"{TYPE_PREFIX}{tag}",
        "subject": str(item.seq),
        "time": item.recorded_at,
        "datacontenttype": "application/json",
        "data": msgspec.Raw(item_json),
    }
    return msgspec.json.encode(envelope)


def signed_delivery(
    secret: str, battle: str, item: FeedItem, item_json: bytes, now: datetime | None = None
) -> Delivery:
    """The attempt's body and headers, signed at `now` (this attempt's moment)."""
    body = cloud_event(battle, item, item_json)
    at = now or datetime.now(UTC)
    ident = message_id(battle, item.seq)
    signature = Webhook(secret).sign(ident, at, body.decode("utf-8"))
    headers = {
        "content-type": CONTENT_TYPE,
        "webhook-id": ident,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": signature,
    }
    return Delivery(ident, body, headers)
