"""The referee's operations on a battle's webhooks, the same from the CLI (`morale hook ...`) and over
HTTP (`/battles/{id}/hooks`): register a URL (for some kinds of feed item, or every item), list the
hooks with how far each has delivered, read a hook's delivery log, resume a paused one, remove one.

A hook's secret is made here and shown once, in what `register` returns; lists never show it. A
new hook starts from the battle's next event: a bot registered mid-battle is told what happens
next, not the whole story again (`--from 0` asks for that).
"""

from __future__ import annotations

import base64
import re
import secrets
import urllib.parse

import msgspec

from morale.core.rules import Refusal
from morale.core.words import Words, counted
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
        said = counted(
            "a webhook's URL is at most {n} character, not {length}",
            "a webhook's URL is at most {n} characters, not {length}",
            n=URL_MAX,
            length=len(given),
        )
        raise Refusal(said, field="url")
    not_a_url = Refusal(
        Words("{url!r} is not an http or https URL a receiver listens at (https://bot.example/morale)", url=given),
        field="url",
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
        said = Words("{url!r}: a webhook's URL has no #fragment: a receiver never sees one", url=given)
        raise Refusal(said, field="url")
    if parts.username is not None or parts.password is not None:
        said = Words("a webhook's URL may not hold a user or password: the hook's secret signs each delivery")
        raise Refusal(said, field="url")
    try:
        parts.port  # noqa: B018  # a port out of range raises here
    except ValueError:
        raise Refusal(Words("{url!r}: a port is 1 to 65535", url=given), field="url") from None
    return given


def check_kinds(kinds: list[str]) -> tuple[str, ...]:
    """Each kind an event type or a kind of outcome (the names the SSE feed sends items under)."""
    for kind in kinds:
        if kind not in KINDS:
            said = Words(
                "{kind!r} is not a kind of feed item: an event type (casualties_suffered...)"
                " or a kind of outcome (test_resolved, state_changed...)",
                kind=kind,
            )
            raise Refusal(said, field="kinds")
    return tuple(dict.fromkeys(kinds))


def register(
    store: EventStore, battle: str, url: str, kinds: list[str], label: str, from_seq: int | None = None
) -> Registered:
    """A new hook for the battle, delivering the items after `from_seq` (the battle's last event if
    None); its secret is in the answer, once."""
    last = _last_seq(store, battle)
    if not label.strip():
        said = Words("a label is needed, to tell this webhook from the others (e.g. league table)")
        raise Refusal(said, field="label")
    checked_url, checked_kinds, checked_label = check_url(url), check_kinds(kinds), check_label(label)
    if from_seq is not None and not 0 <= from_seq <= last:
        said = Words("the log holds events 1 to {last}; a hook cannot start after {after}", last=last, after=from_seq)
        raise Refusal(said, field="after")
    kept = store.hooks(battle)
    if len(kept) >= HOOKS_MAX:
        said = counted(
            "a battle has at most {n} webhook; remove one first",
            "a battle has at most {n} webhooks; remove one first",
            n=HOOKS_MAX,
        )
        raise Refusal(said, field="url")
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
        said = Words("webhook {hook!r} is delivering: it is neither paused nor retrying", hook=hook_id)
        raise Refusal(said, field="hook")
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
        paused_because=kept_words(stored.paused),
        last_attempt=attempt_of(last[-1]) if last else None,
    )


def attempt_of(kept: DeliveryAttempt) -> Attempt:
    return Attempt(
        seq=kept.seq,
        at=kept.at,
        status=kept.status,
        answer=kept_words(kept.answer),
        ms=kept.ms,
        delivered=kept.delivered,
    )


# -- what the delivering node says of an attempt and of a pause (deliver.py) -----------------------
# The store keeps them as English, a record the same whoever reads it; listed, they are Words again
# (read back by the same sentences), so the CLI and the console say them in the reader's language.
def timed_out(seconds: float) -> Words:
    return Words("timed out after {seconds:g} s", seconds=seconds)


def no_answer(reason: str) -> Words:
    """No answer at all (a refused connection, a name that does not resolve): httpx's words, in English."""
    return Words("no answer: {reason}", reason=reason)


def gone(seq: int) -> Words:
    return Words("the receiver answered 410 Gone at event {seq}", seq=seq)


def failed(failures: int, allowed: int, seq: int, answer: str) -> Words:
    if failures >= allowed == 1:
        return Words("the one attempt allowed failed at event {seq}: {answer}", seq=seq, answer=answer)
    return counted(
        "{n} attempt in a row failed at event {seq}; the last: {answer}",
        "{n} attempts in a row failed at event {seq}; the last: {answer}",
        n=failures,
        seq=seq,
        answer=answer,
    )


_KEPT = (
    (re.compile(r"timed out after (?P<seconds>[0-9.e+\-]+) s"), lambda m: timed_out(float(m["seconds"]))),
    (re.compile(r"no answer: (?P<reason>.*)", re.DOTALL), lambda m: no_answer(m["reason"])),
    (re.compile(r"the receiver answered 410 Gone at event (?P<seq>[0-9]+)"), lambda m: gone(int(m["seq"]))),
    (
        re.compile(r"the one attempt allowed failed at event (?P<seq>[0-9]+): (?P<answer>.*)", re.DOTALL),
        lambda m: failed(1, 1, int(m["seq"]), kept_words(m["answer"])),
    ),
    (
        re.compile(
            r"(?P<n>[0-9]+) attempts? in a row failed at event (?P<seq>[0-9]+); the last: (?P<answer>.*)", re.DOTALL
        ),
        lambda m: failed(int(m["n"]), 0, int(m["seq"]), kept_words(m["answer"])),
    ),
)


def kept_words(text: str) -> str:
    """A kept reason or answer as the Words that said it, where one of the sentences above did (and
    says it the same); else as it is (a receiver's `HTTP 500: ...`, words not ours)."""
    for pattern, made in _KEPT:
        found = pattern.fullmatch(text)
        if found is not None:
            words = made(found)
            return words if words == text else text
    return text


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
