"""What if: replay a battle with events amended, struck or inserted, and show where it would have
gone differently. The log is only read; the alternative lives in memory.

Every event of the alternative goes through the referee. An event of the original log that the
alternative no longer allows (a roll for a test that is no longer due) is dropped and listed; an
amended or inserted event that is refused is an error, since the user wrote it. When the
alternative makes a test due that the log holds no dice for, the clock cannot go on
(`engine.clock.tests_first`): the alternative stops there and says which roll to insert.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

from morale.core import rules
from morale.core.fold import Fold
from morale.core.outcomes import Caused, Outcome
from morale.core.rules import Refusal
from morale.core.state import Battle
from morale.core.words import Words, english, listed
from morale.events.codec import MalformedEvent, event_from_dict, to_builtins
from morale.events.types import AnyEvent, StoredEvent

from .board import board
from .narrative import describe_event, describe_outcome
from .timeline import UnitChange, compare_boards
from .verify import refused_words


@dataclass(frozen=True)
class Amendment:
    kind: Literal["amend", "strike", "insert"]
    seq: int  # the event amended or struck, or the one the new event follows
    fields: dict[str, Any] = field(default_factory=dict)  # amend: the fields that change; insert: the event


class Dropped(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    event: str
    reason: str  # the referee's refusal, in words


class Divergence(msgspec.Struct, frozen=True, kw_only=True):
    at: str  # "event 22", or "new event 1 after 22" (in words)
    event: str
    happened: list[str]  # what the event caused in the battle as played
    instead: list[str]  # what it causes in the alternative


class WhatIf(msgspec.Struct, frozen=True, kw_only=True):
    battle: str
    changes: list[str]  # each change, in words
    divergence: Divergence | None  # None: the alternative plays out exactly as the battle did
    dropped: list[Dropped]
    stopped: str  # why the alternative stops early, or ""
    final: list[UnitChange]  # units whose final state differs: before = as played, after = alternative


@dataclass
class _Entry:
    label: str
    origin: int | None  # the original seq, None for an inserted event
    event: AnyEvent
    written: bool  # amended or inserted by the user


def what_if(battle_id: str, events: Sequence[StoredEvent], amendments: Sequence[Amendment]) -> WhatIf:
    entries, changes = _alternative_log(events, amendments)
    original, happened = _replay_original(battle_id, events)
    fold = Fold(battle_id)
    label_of: dict[int, str] = {}
    instead: dict[str, Caused] = {}
    dropped: list[Dropped] = []
    stopped = ""
    for entry in entries:
        seq = fold.seq + 1
        try:
            fold.check(entry.event)
        except Refusal as refusal:
            if entry.written:
                message = Words("{event} is refused: {reason}", event=entry.label, reason=refusal.message)
                raise Refusal(message, rule=refusal.rule, field=refusal.field) from None
            if refusal.rule == rules.TESTS_FIRST:
                stopped = Words(
                    "at {event}: {reason}; insert their dice to go on", event=entry.label, reason=refusal.message
                )
                break
            described = describe_event(entry.event, fold.state())
            dropped.append(Dropped(seq=entry.origin or 0, event=described, reason=refused_words(refusal)))
            continue
        label_of[seq] = entry.label
        instead[entry.label] = fold.advance(seq, entry.event)
    alternative = fold.state()
    divergence = _first_divergence(original, happened, alternative, instead, entries, label_of)
    final = compare_boards(board(original), board(alternative))
    return WhatIf(
        battle=battle_id, changes=changes, divergence=divergence, dropped=dropped, stopped=stopped, final=final
    )


def _alternative_log(events: Sequence[StoredEvent], amendments: Sequence[Amendment]) -> tuple[list[_Entry], list[str]]:
    by_seq = {s.seq: s for s in events}
    last = events[-1].seq if events else 0
    touched: set[int] = set()
    for amendment in amendments:
        if amendment.seq not in by_seq:
            raise Refusal(
                Words(
                    "there is no event {seq} in this battle (it runs from 1 to {last})", seq=amendment.seq, last=last
                ),
                field="seq",
            )
        if amendment.kind != "insert":
            if amendment.seq in touched:
                raise Refusal(Words("event {seq} is amended or struck twice", seq=amendment.seq), field="seq")
            touched.add(amendment.seq)
        if amendment.kind == "strike" and amendment.seq == 1:
            raise Refusal(Words("battle_started cannot be struck: amend it instead"), field="seq")
    entries: list[_Entry] = []
    changes: list[str] = []
    for stored in events:
        seq, event = stored.seq, stored.event
        mine = [a for a in amendments if a.seq == seq]
        if any(a.kind == "strike" for a in mine):
            changes.append(Words("event {seq} struck", seq=seq))
        else:
            amend = next((a for a in mine if a.kind == "amend"), None)
            if amend is not None:
                where = Words("the amendment of event {seq}", seq=seq)
                event = _read(where, {**to_builtins(stored.event), **amend.fields})
                changes.append(_amended(seq, stored.event, event))
            entries.append(_Entry(_event_label(seq), seq, event, written=amend is not None))
        for number, insert in enumerate((a for a in mine if a.kind == "insert"), start=1):
            label = Words("new event {number} after {seq}", number=number, seq=seq)
            entries.append(_Entry(label, None, _read(label, insert.fields), written=True))
            changes.append(Words("{event}: {type}", event=label, type=insert.fields.get("type", "?")))
    return entries, changes


def _event_label(seq: int) -> Words:
    """An event of the log as the what-if names it (and finds it again: its English is its key)."""
    return Words("event {seq}", seq=seq)


def _read(where: str, data: dict[str, Any]) -> AnyEvent:
    try:
        return event_from_dict(data)
    except MalformedEvent as exc:
        raise exc.within(where) from None


def _amended(seq: int, old: AnyEvent, new: AnyEvent) -> Words:
    """ "event 12 amended: count 3 → 4": each field that changed, with its values as the log holds them."""
    before, after = to_builtins(old), to_builtins(new)
    keys = [k for k in {**before, **after} if before.get(k) != after.get(k)]
    if not keys:
        return Words("event {seq} amended: nothing", seq=seq)
    fields = listed(f"{k} {before.get(k)!r} → {after.get(k)!r}" for k in keys)
    return Words("event {seq} amended: {fields}", seq=seq, fields=fields)


def _replay_original(battle_id: str, events: Sequence[StoredEvent]) -> tuple[Battle, dict[str, Caused]]:
    fold = Fold(battle_id)
    happened = {_event_label(s.seq): fold.advance(s.seq, s.event) for s in events}
    return fold.state(), happened


def _first_divergence(
    original: Battle,
    happened: dict[str, Caused],
    alternative: Battle,
    instead: dict[str, Caused],
    entries: list[_Entry],
    label_of: dict[int, str],
) -> Divergence | None:
    """The first event, in log order, whose consequences differ between the two battles. Outcomes are
    compared with the events that caused them named as in the original log."""
    order = [e.label for e in entries]
    for label in happened:
        if label not in order:
            order.insert(_place(order, label), label)
    events = {e.label: e.event for e in entries}
    for label in order:
        was = [_comparable(o, lambda s: f"event {s}") for o in happened.get(label, [])]
        now = [_comparable(o, lambda s: label_of.get(s, str(s))) for o in instead.get(label, [])]
        if was != now:
            event = events.get(label)
            return Divergence(
                at=label,
                event=describe_event(event, alternative) if event else Words("struck or dropped in the alternative"),
                happened=[describe_outcome(o, original) for o in happened.get(label, [])],
                instead=[describe_outcome(o, alternative) for o in instead.get(label, [])],
            )
    return None


def _place(order: list[str], label: str) -> int:
    """Where a struck or dropped original event would have stood among the alternative's labels."""
    seq = int(label.split()[-1])
    for index, other in enumerate(order):
        if other.startswith("event ") and int(other.split()[-1]) > seq:
            return index
    return len(order)


def _comparable(outcome: Outcome, name: Any) -> dict[str, Any]:
    data = msgspec.to_builtins(outcome, order="sorted", enc_hook=english)  # compared, never shown: Words as English
    data["caused_by"] = [name(s) for s in outcome.caused_by]
    return data
