"""Notation's events through the referee before anything is written, then into a store in one
append (`morale notation import`); or compared, event by event, with a stored battle
(`--verify-against`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import msgspec
from msgspec.structs import replace

from morale.core.dice import commitment, new_secret
from morale.core.rules import Refusal
from morale.events.codec import battle_id, to_builtins
from morale.events.store import BattleExists, EventStore
from morale.events.types import AnyEvent, Author, BattleStarted, PhaseEnded, StoredEvent
from morale.projections.verify import Auditor

from ..service import with_state_digest
from .reader import Located, Notation, at_place


@dataclass(frozen=True)
class Checked:
    """A battle whose every event the referee accepted, as a new log would seal them."""

    battle: str
    events: list[AnyEvent]
    located: list[Located]


@dataclass(frozen=True)
class Imported:
    battle: str
    events: int
    head: str


def check(notation: Notation, source: str) -> Checked:
    """Every event as `record` checks it, in order, each phase end with the digest of the board it
    closes; the engine's dice too, those of each secret revealed. A refusal names the line and column."""
    auditor = Auditor(notation.battle)
    events: list[AnyEvent] = []
    for seq, located in enumerate(notation.events, start=1):
        try:
            event = with_state_digest(auditor.fold, located.event)
            auditor.step(seq, event)
        except Refusal as refusal:
            said = at_place(source, located.line, located.column, refusal.message)
            raise Refusal(said, rule=refusal.rule, field=refusal.field) from None
        events.append(event)
    for finding in auditor.dice_findings(auditor.secrets):  # each revealed secret's rolls
        located = notation.events[finding.seq - 1]
        raise Refusal(at_place(source, located.line, located.column, finding.message), field="dice")
    return Checked(battle=notation.battle, events=events, located=notation.events)


def with_dice_secret(notation: Notation) -> tuple[Notation, str | None]:
    """A battle whose engine may roll and whose notation commits to no dice secret (typed from notes)
    gets a fresh secret, as `morale new` gives one, so the engine can roll for it; a battle that
    commits to one keeps it (its secret stays with whoever has it)."""
    first = notation.events[0] if notation.events else None
    if first is None or not isinstance(first.event, BattleStarted):
        return notation, None
    started = first.event
    if started.dice_policy == "table" or started.dice_commitment:
        return notation, None
    secret = new_secret()
    committed = Located(first.line, first.column, replace(started, dice_commitment=commitment(secret)), first.author)
    return Notation(battle=notation.battle, events=[committed, *notation.events[1:]]), secret


def write_checked(
    store: EventStore, checked: Checked, secret: str | None = None, author: Author | None = None
) -> Imported:
    """A new battle in one append (and the dice secret it commits to, if given), unless the store
    already has a battle of that id. The id, from --battle or the [Battle] tag, is held to the limits
    every way in keeps (never a path, SQL or a NUL). `author`: who loads it, sealed with each event."""
    battle_id(checked.battle)
    if existing := store.last_seq(checked.battle):
        raise BattleExists(checked.battle, existing)
    # The secret is kept in the append's own transaction: a rival import of the same id cannot leave
    # a secret that does not match the commitment the kept events hold.
    stored = store.append(checked.battle, checked.events, expected_seq=0, dice_secret=secret, author=author)
    return Imported(battle=checked.battle, events=len(stored), head=stored[-1].hash)


class Difference(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    line: int | None  # in the notation; None where it has no such event
    notation: dict | None
    stored: dict | None


class Comparison(msgspec.Struct, frozen=True, kw_only=True):
    battle: str
    ok: bool
    events: int  # in the notation
    stored_events: int
    head: str  # the stored battle's head hash
    first_difference: Difference | None


def compare(checked: Checked, stored: Sequence[StoredEvent]) -> Comparison:
    """The notation's events against a stored battle's, event by event. The hashes are the log's
    own; a phase end the log recorded without a digest (version 1) is compared without it."""
    first = None
    for seq in range(1, max(len(checked.events), len(stored)) + 1):
        mine = checked.events[seq - 1] if seq <= len(checked.events) else None
        theirs = stored[seq - 1].event if seq <= len(stored) else None
        if isinstance(theirs, PhaseEnded) and not theirs.state_digest and isinstance(mine, PhaseEnded):
            mine = replace(mine, state_digest="")
        if mine != theirs:
            line = checked.located[seq - 1].line if mine is not None else None
            first = Difference(
                seq=seq,
                line=line,
                notation=to_builtins(mine) if mine is not None else None,
                stored=to_builtins(theirs) if theirs is not None else None,
            )
            break
    return Comparison(
        battle=checked.battle,
        ok=first is None,
        events=len(checked.events),
        stored_events=len(stored),
        head=stored[-1].hash if stored else "",
        first_difference=first,
    )
