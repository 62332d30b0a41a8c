"""The referee's operations on a battle's webhooks, the same from the CLI (`morale hook ...`) and over
HTTP (`/battles/{id}/hooks`): register a URL (for some kinds of feed item, or every item), list the
hooks with how far each has delivered, read a hook's delivery log, resume a paused one, remove one.

A hook's secret is made here and shown once, in what `register` returns; lists never show it. A
new hook starts from the battle's next event: a bot registered mid-battle is told what happens
next, not the whole story again (`--from 0` asks for that).
"""

from __future__ import annotations

import base64
import secrets
import urllib.parse

import msgspec

from morale.core.rules import Refusal
from morale.events.hooks import DeliveryAttempt, StoredHook
from morale.events.store import EventStore, UnknownBattle, now_utc
from morale.events.types import EVENT_TYPES

from ..access import check_label
from ..http.kinds import outcome_kinds
from .unknown import UnknownHook

URL_MAX = 2_000  # characters: a receiver's address, not a document
HOOKS_MAX = 10  # a battle's hooks: a bot, a league table, an overlay or two
KINDS = frozenset(EVENT_TYPES) | frozenset(outcome_kinds())  # an item's event type, or a kind of outcome it caused
ATTEMPTS_SHOWN = 50  # the delivery log lists a hook's last attempts
ATTEMPTS_KEPT = 200  # and keeps no more than these per hook


class Attempt(msgspec.Struct, frozen=True, kw_only=True):
    """One line of a hook's delivery log."""

    seq: int
    at: str
    status: int  # the HTTP status answered; 0 when there was no answer
    answer: str
    ms: int
    delivered: bool


class Hook(msgspec.Struct, frozen=True, kw_only=True):
    """A hook as it is listed: never its secret."""

    id: str
    url: str
    kinds: tuple[str, ...]  # empty: every item
    label: str
    created: str
    delivered_through: int  # the items after this seq are still to be delivered
    failures: int  # attempts in a row that failed since its last delivery
    state: str  # "delivering", "retrying" (failures since its last delivery) or "paused"
    paused_because: str = ""
    last_attempt: Attempt | None = None  # the last try, with the receiver's answer


class Registered(Hook, frozen=True, kw_only=True):
    """A hook just registered: the one time its secret is shown."""

    secret: str  # whsec_...: what a receiver verifies each delivery's signature with


def check_url(url: str) -> str:
    """An http or https URL with a host, and no user or password in it (a secret in a URL ends up
    in every log that prints it: the hook's secret signs instead)."""
    given = url.strip()
    if len(given) > URL_MAX:
        raise Refusal(f"a webhook's URL is at most {URL_MAX} characters, not {len(given)}", field="url")
    not_a_url = Refusal(
        f"{given!r} is not an http or https URL a receiver listens at (https://bot.example/morale)", field="url"
    )
    if any(char.isspace() or not char.isprintable() for char in given):  # a terminal obeys an escape
        raise not_a_url
    try:
        parts = urllib.parse.urlsplit(given)
    except ValueError:  # a bracket that opens no IPv6 address
        raise not_a_url from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise not_a_url
    if parts.fragment or given.endswith("#"):
        raise Refusal(f"{given!r}: a webhook's URL has no #fragment: a receiver never sees one", field="url")
    if parts.username is not None or parts.password is not None:
        raise Refusal(
            "a webhook's URL may not hold a user or password: the hook's secret signs each delivery", field="url"
        )
    try:
        parts.port  # noqa: B018  # a port out of range raises here
    except ValueError:
        raise Refusal(f"{given!r}: a port is 1 to 65535", field="url") from None
    return given


def check_kinds(kinds: list[str]) -> tuple[str, ...]:
    """Each kind an event type or a kind of outcome (the names the SSE feed sends items under)."""
    for kind in kinds:
        if kind not in KINDS:
            raise Refusal(
                f"{kind!r} is not a kind of feed item: an event type (casualties_suffered...) "
                "or a kind of outcome (test_resolved, state_changed...)",
                field="kinds",
            )
    return tuple(dict.fromkeys(kinds))


def register(
    store: EventStore, battle: str, url: str, kinds: list[str], label: str, from_seq: int | None = None
) -> Registered:
    """A new hook for the battle, delivering the items after `from_seq` (the battle's last event if
    None); its secret is in the answer, once."""
    last = _last_seq(store, battle)
    if not label.strip():
        raise Refusal("a label is needed, to tell this webhook from the others (e.g. league table)", field="label")
    checked_url, checked_kinds, checked_label = check_url(url), check_kinds(kinds), check_label(label)
    if from_seq is not None and not 0 <= from_seq <= last:
        raise Refusal(f"the log holds events 1 to {last}; a hook cannot start after {from_seq}", field="after")
    kept = store.hooks(battle)
    if len(kept) >= HOOKS_MAX:
        raise Refusal(f"a battle has at most {HOOKS_MAX} webhooks; remove one first", field="url")
    secret = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()
    stored = StoredHook(
        battle=battle,
        hook_id=_new_id({h.hook_id for h in kept}),
        url=checked_url,
        kinds=" ".join(checked_kinds),
        secret=secret,
        label=checked_label,
        created=now_utc(),
        through_seq=last if from_seq is None else from_seq,
    )
    store.add_hook(stored)
    return Registered(**msgspec.structs.asdict(listed(stored)), secret=secret)


def hooks_of(store: EventStore, battle: str) -> list[Hook]:
    _last_seq(store, battle)
    return [listed(stored, store.attempts(battle, stored.hook_id, 1)) for stored in store.hooks(battle)]


def resume(store: EventStore, battle: str, hook_id: str) -> Hook:
    """A paused hook delivers again, from the first item it had not delivered; one retrying tries
    again now rather than at the end of its wait (the receiver is back)."""
    found = _found(store, battle, hook_id)
    if not found.paused and not found.failures:
        raise Refusal(f"webhook {hook_id!r} is delivering: it is neither paused nor retrying", field="hook")
    store.update_hook(battle, hook_id, paused="", failures=0)
    return listed(found._replace(paused="", failures=0), store.attempts(battle, hook_id, 1))


def remove(store: EventStore, battle: str, hook_id: str) -> Hook:
    found = _found(store, battle, hook_id)
    store.drop_hook(battle, hook_id)
    return listed(found)


def delivery_log(store: EventStore, battle: str, hook_id: str, limit: int = ATTEMPTS_SHOWN) -> list[Attempt]:
    _found(store, battle, hook_id)
    return [attempt_of(kept) for kept in store.attempts(battle, hook_id, limit)]


def listed(stored: StoredHook, last: list[DeliveryAttempt] | None = None) -> Hook:
    state = "paused" if stored.paused else "retrying" if stored.failures else "delivering"
    return Hook(
        id=stored.hook_id,
        url=stored.url,
        kinds=tuple(stored.kinds.split()),
        label=stored.label,
        created=stored.created,
        delivered_through=stored.through_seq,
        failures=stored.failures,
        state=state,
        paused_because=stored.paused,
        last_attempt=attempt_of(last[-1]) if last else None,
    )


def attempt_of(kept: DeliveryAttempt) -> Attempt:
    return Attempt(
        seq=kept.seq, at=kept.at, status=kept.status, answer=kept.answer, ms=kept.ms, delivered=kept.delivered
    )


def _last_seq(store: EventStore, battle: str) -> int:
    last = store.last_seq(battle)
    if not last:
        raise UnknownBattle(battle)
    return last


def _found(store: EventStore, battle: str, hook_id: str) -> StoredHook:
    _last_seq(store, battle)
    for stored in store.hooks(battle):
        if stored.hook_id == hook_id:
            return stored
    raise UnknownHook(battle, hook_id)


def _new_id(taken: set[str]) -> str:
    while (made := f"hk{secrets.token_hex(4)}") in taken:
        pass
    return made
