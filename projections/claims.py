"""What awaits whom in a battle that asks for confirmation: the claims still open, and every dispute
with how it ended (`morale disputes`, the console's Disputes screen, the report).

Each row keeps its machine fields (seqs, sides, `status`) apart from its words (`said`, `by`), and
each sentence for people is whole, with named placeholders.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from morale.core.claims import Claims, Dispute, ledger
from morale.core.fold import Fold
from morale.core.words import Words
from morale.events.types import Author, StoredEvent

from .authorship import author_words
from .narrative import describe_event


class AwaitingRow(msgspec.Struct, frozen=True, kw_only=True):
    """A claim waiting for the other side: confirm it, or dispute it."""

    seq: int
    side: str  # whose claim it is
    awaits: str  # the side that confirms or disputes it
    type: str
    said: str  # the entry in words
    by: str  # who entered it, in words


class ConfirmedRow(msgspec.Struct, frozen=True, kw_only=True):
    """A claim the other side confirmed: in so many words, by playing on, or by a dispute's ruling."""

    seq: int
    side: str  # whose claim it was
    at: int  # the seq of the entry that confirmed it
    tacit: bool  # by playing on (`engine.claim.tacit`)


class DisputeRow(msgspec.Struct, frozen=True, kw_only=True):
    seq: int  # the dispute's own entry
    entry: int  # the disputed entry
    entry_type: str
    entry_said: str
    entered_by: str
    side: str  # the side that disputed it
    reason: str
    disputed_by: str
    status: str  # open | stands | withdrawn | struck
    ended_at: int = 0
    ruling: str = ""  # the ruling's words, or the strike's reason
    ended_by: str = ""
    said: str  # the dispute and how it ended, in one sentence


class ClaimsView(msgspec.Struct, frozen=True, kw_only=True):
    battle: str
    confirmation: bool
    awaiting: list[AwaitingRow]
    confirmed: list[ConfirmedRow]
    disputes: list[DisputeRow]
    open_disputes: int


# Who disputed, where the log does not say (a log imported from notation is sealed as its importer's).
UNNAMED_SIDE = Words("a player")


def dispute_words(row: Dispute, ended_by: str) -> Words:
    """How a dispute stands, in one sentence for each ending (placeholders named, never glued)."""
    side = row.side or UNNAMED_SIDE
    if row.ending == "stands":
        return Words(
            "Event {entry} was disputed by {side}: {reason}. It stands, ruled by {ended_by} at #{ended_at}: {ruling}.",
            entry=row.entry,
            side=side,
            reason=row.reason,
            ended_by=ended_by,
            ended_at=row.ended_at,
            ruling=row.ruling,
        )
    if row.ending == "withdrawn":
        return Words(
            "Event {entry} was disputed by {side}: {reason}. {side} withdrew the dispute at #{ended_at}: {ruling}.",
            entry=row.entry,
            side=side,
            reason=row.reason,
            ended_at=row.ended_at,
            ruling=row.ruling,
        )
    if row.ending == "struck":
        return Words(
            "Event {entry} was disputed by {side}: {reason}. It was struck by {ended_by} at #{ended_at}: {ruling}.",
            entry=row.entry,
            side=side,
            reason=row.reason,
            ended_by=ended_by,
            ended_at=row.ended_at,
            ruling=row.ruling,
        )
    return Words(
        "Event {entry} is disputed by {side}: {reason}. The phase does not end until it is resolved.",
        entry=row.entry,
        side=side,
        reason=row.reason,
    )


def claims_view(battle_id: str, events: Iterable[StoredEvent]) -> ClaimsView:
    """The view of a battle's stored log, read from its start."""
    stored = list(events)
    fold = Fold(battle_id)
    authors: dict[int, Author | None] = {}
    # Each entry in words against the battle as it left it, as the log says it: "(6 left)" is the
    # count then, the evidence the two sides argue over, not the count now.
    entries: dict[int, tuple[str, str]] = {}
    for entry in stored:
        fold.advance(entry.seq, entry.event)
        authors[entry.seq] = entry.author
        entries[entry.seq] = (entry.event.__struct_config__.tag, describe_event(entry.event, fold.state()))
    battle = fold.state()
    claims: Claims = ledger(battle.sides, stored)

    awaiting = []
    for claim in claims.awaiting():
        kind, words = entries[claim.seq]
        if claim.seq in claims.open_disputes:
            continue  # disputed: listed with the disputes
        awaiting.append(
            AwaitingRow(
                seq=claim.seq,
                side=claim.side,
                awaits=claims.other_side(claim.side),
                type=kind,
                said=words,
                by=author_words(authors.get(claim.seq)),
            )
        )
    disputes = []
    for dispute in claims.disputes:
        kind, words = entries[dispute.entry]
        ended_by = author_words(dispute.ended_by) if dispute.ended_at else ""
        disputes.append(
            DisputeRow(
                seq=dispute.seq,
                entry=dispute.entry,
                entry_type=kind,
                entry_said=words,
                entered_by=author_words(authors.get(dispute.entry)),
                side=dispute.side,
                reason=dispute.reason,
                disputed_by=author_words(dispute.author),
                status=dispute.ending or "open",
                ended_at=dispute.ended_at,
                ruling=dispute.ruling,
                ended_by=ended_by,
                said=dispute_words(dispute, ended_by),
            )
        )
    confirmed = [
        ConfirmedRow(seq=c.seq, side=c.side, at=c.confirmed_at, tacit=c.tacit)
        for c in claims.claims.values()
        if c.confirmed_at and not c.struck_at
    ]
    return ClaimsView(
        battle=battle_id,
        confirmation=battle.confirmation,
        awaiting=awaiting,
        confirmed=confirmed,
        disputes=disputes,
        open_disputes=len(claims.open_disputes),
    )
