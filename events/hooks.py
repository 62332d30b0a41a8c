"""What a store keeps for webhooks: each battle's hooks, how far each has delivered, every attempt
and its answer, and the lease that lets one node alone deliver (app/webhooks/ does the delivering).

Kept beside the log, never in it: a hook is the referee's wiring, not a fact of the battle, so
registering one changes no hash and a copy of the battle's log carries none.
"""

from __future__ import annotations

from typing import NamedTuple

DELIVERY_LEASE = "webhooks"  # the one lease a store holds: which node delivers


class StoredHook(NamedTuple):
    """A battle's webhook as the store keeps it. `secret` signs each delivery (Standard Webhooks) and
    is kept as given, since signing needs it; it is shown once, when the hook is registered."""

    battle: str
    hook_id: str
    url: str
    kinds: str  # the kinds of feed item it wants, space-separated; empty: every item
    secret: str
    label: str
    created: str
    through_seq: int = 0  # the last seq it is done with: delivered, or not of its kinds
    failures: int = 0  # attempts in a row that failed, since its last delivery
    paused: str = ""  # why it was paused; empty while it delivers


class DeliveryAttempt(NamedTuple):
    """One try to deliver one item to one hook, and what came of it."""

    battle: str
    hook_id: str
    seq: int
    at: str  # when it was made (UTC, ISO 8601)
    status: int  # the HTTP status answered; 0 when nothing was (refused, timed out)
    answer: str  # what came of it, in a few words ("HTTP 503", "connection refused", "timed out after 10 s")
    ms: int  # how long it took
    delivered: bool


HOOK_CHANGES = frozenset({"through_seq", "failures", "paused"})  # what a hook's delivery may change of it
