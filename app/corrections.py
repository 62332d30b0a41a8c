"""Corrections: strike an event with the later events that stood on it, or undo one's own last entry.

A strike is one append of `event_retracted` events, latest first: each retraction is then checked
against a log whose later dependants are already struck, so the referee's own check accepts every
one, and the store writes them all or none.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from morale.core.fold import Fold
from morale.core.referee import decide
from morale.core.rules import Refusal
from morale.core.words import Words
from morale.events.codec import event_from_dict
from morale.events.types import AnyEvent, Author, EventRetracted, StoredEvent


@dataclass(frozen=True)
class StrikePlan:
    """What striking `seq` strikes: the event itself and its followers (oldest first)."""

    seq: int
    followers: tuple[int, ...]

    @property
    def seqs(self) -> tuple[int, ...]:
        return (self.seq, *self.followers)

    def retractions(self, reason: str) -> list[AnyEvent]:
        """The batch that carries the plan out, latest first (each struck before what it stood on)."""
        # Through the codec, so a reason beyond its limits is refused naming the field, like any event's.
        return [
            event_from_dict({"type": "event_retracted", "seq": seq, "reason": reason})
            for seq in sorted(self.seqs, reverse=True)
        ]


def plan_strike(fold: Fold, seq: int, reason: str = "strike") -> StrikePlan:
    """The events striking `seq` strikes. Refuses what the referee refuses of a retraction of `seq`
    (no such event yet, the battle's start, a struck event, a retraction) before reading followers."""
    decide(fold.state(), EventRetracted(seq=seq, reason=reason))
    return StrikePlan(seq, tuple(fold.followers_of(seq)))


def last_entry(
    events: Iterable[StoredEvent], struck: set[int], entered_by: Callable[[Author | None], bool]
) -> StoredEvent | None:
    """The latest event `entered_by` accepts the author of that still stands and may be struck: not
    struck already, not itself a retraction (a strike is undone by no strike), not the battle's start."""
    found: StoredEvent | None = None
    for stored in events:
        if stored.seq == 1 or stored.seq in struck or isinstance(stored.event, EventRetracted):
            continue
        if entered_by(stored.author):
            found = stored
    return found


def entered_at_this_machine(login: str, side: str = "") -> Callable[[Author | None], bool]:
    """An author the CLI wrote as: the referee (or, given `side`, that side's player at a hot-seat
    game), by this login name, typed in or imported."""

    def matches(author: Author | None) -> bool:
        return (
            author is not None
            and author.role == ("player" if side else "referee")
            and author.side == side
            and author.via in ("cli", "import")
            and author.label == login
        )

    return matches


def entered_with_token(token_id: str) -> Callable[[Author | None], bool]:
    """An author sealed with this token's public id."""
    return lambda author: author is not None and bool(token_id) and author.token == token_id


def nothing_to_undo() -> Refusal:
    return Refusal(Words("you have entered nothing in this battle that still stands to undo"), field="seq")
