"""The claims ledger: in a battle that asks for confirmation, who entered what, what the other side
made of it, and which disputes are open (`engine.claim.*`, `engine.dispute.*`).

The fold of the table (`evolve`) never reads who entered an event; this ledger does, from each
event's sealed author. It is pure like the rest of core: `check` refuses an event that the ledger
does not allow next (reading only), and `record` folds in an event the log holds. The service runs
both on every write to such a battle; a view (the console, `morale disputes`, the report) folds it
from the stored log to show what awaits whom.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from morale.events.types import (
    AnyEvent,
    Author,
    DisputeResolved,
    EntryConfirmed,
    EntryDisputed,
    EventRetracted,
    PhaseEnded,
    StoredEvent,
)

from . import rules
from .rules import Refusal
from .words import Words, listed

# What a player enters of the table, which stands as a claim of their side (`engine.claim.open`).
# The clock, the engine's dice, seeds, rulings and strikes are not: the engine checks the clock's
# order and rolls its own dice, and rulings and strikes are the referee's or the entry's own side's.
CLAIMED = frozenset(
    {
        "unit_joined",
        "unit_changed",
        "casualties_suffered",
        "combat_resolved",
        "charge_declared",
        "table_fact_recorded",
        "dice_rolled",  # those rolled at the table: see `is_claim`
        "player_decided",
    }
)
# What a player enters that is not playing on (`engine.claim.tacit`): answering the other side's
# entries, striking one's own, and the seeds, which are about the dice rather than the table.
NOT_PLAYING_ON = frozenset(
    {"entry_confirmed", "entry_disputed", "dispute_resolved", "event_retracted", "seed_committed", "seed_revealed"}
)

Ending = Literal["", "stands", "withdrawn", "struck"]


@dataclass
class Claim:
    """A player's entry, claimed for their side, and how it was confirmed."""

    seq: int
    side: str
    kind: str  # the entry's event type
    confirmed_at: int = 0  # the seq of the entry that confirmed it (0: not yet)
    tacit: bool = False  # confirmed by the other side playing on, not in so many words
    struck_at: int = 0  # the seq of the strike that took it off the record (0: standing)

    @property
    def open(self) -> bool:
        return not self.confirmed_at and not self.struck_at


@dataclass
class Dispute:
    """A dispute of a claim, and how it ended."""

    seq: int  # the dispute's own entry
    entry: int  # the disputed entry
    side: str  # the side that disputes it
    reason: str
    author: Author | None = None
    ended_at: int = 0  # the seq that ended it (0: open)
    ending: Ending = ""
    ruling: str = ""  # the ruling's words, or the strike's reason
    ended_by: Author | None = None

    @property
    def open(self) -> bool:
        return not self.ended_at


@dataclass
class Claims:
    """The ledger of one battle, folded up to `seq`."""

    sides: tuple[str, ...]
    seq: int = 0
    claims: dict[int, Claim] = field(default_factory=dict)
    disputes: list[Dispute] = field(default_factory=list)
    # The one open dispute of each disputed entry, by the entry's seq.
    open_disputes: dict[int, Dispute] = field(default_factory=dict)
    _confirmations: set[int] = field(default_factory=set)  # seqs of confirmations
    _answers: set[int] = field(default_factory=set)  # seqs of disputes and their resolutions
    # The claims still open, oldest first: what every entry of the other side settles (`_played_on`)
    # is these few, not every claim the battle ever held.
    _open: dict[int, Claim] = field(default_factory=dict)

    # -- what awaits whom --------------------------------------------------------------------
    def awaiting(self, side: str | None = None) -> list[Claim]:
        """The claims still waiting for confirmation (of `side`, if given), oldest first."""
        return [c for c in self._open.values() if side is None or c.side == side]

    def disputed_by(self, seq: int) -> str | None:
        """The side disputing entry `seq`, while the dispute is open."""
        dispute = self.open_disputes.get(seq)
        return dispute.side if dispute else None

    def other_side(self, side: str) -> str:
        return next(s for s in self.sides if s != side)

    # -- the checks -----------------------------------------------------------------------------
    def check(self, event: AnyEvent, author: Author | None) -> None:
        """Refuse `event` if the ledger does not allow it next from `author`. Reads only."""
        side = player_side(author)
        match event:
            case EntryConfirmed():
                for seq in event.seqs:
                    self._check_confirmable(seq, side)
            case EntryDisputed():
                self._check_disputable(event.seq, side)
            case DisputeResolved():
                self._check_resolvable(event.seq, side)
            case EventRetracted():
                self._check_strikable(event.seq)
            case PhaseEnded():
                self._check_phase_may_end(side)

    def _claim(self, seq: int, field: str, rule: str) -> Claim:
        self._check_exists(seq, field)
        claim = self.claims.get(seq)
        if claim is None:
            raise Refusal(
                Words("event {seq} is no player's claim: only a player's entries await confirmation", seq=seq),
                rule=rule,
            )
        if claim.struck_at:
            raise Refusal(Words("event {seq} is struck", seq=seq), field=field)
        return claim

    def _check_confirmable(self, seq: int, side: str) -> None:
        claim = self._claim(seq, "seqs", rules.CLAIM_CONFIRM)
        if side == claim.side:
            raise Refusal(
                Words("event {seq} is a claim of {side}: the other side confirms it", seq=seq, side=side),
                rule=rules.CLAIM_CONFIRM,
            )
        if seq in self.open_disputes:
            raise Refusal(
                Words("event {seq} is disputed: resolve the dispute instead of confirming it", seq=seq),
                rule=rules.CLAIM_CONFIRM,
            )
        if claim.confirmed_at:
            raise Refusal(
                Words("event {seq} is already confirmed (by event {by})", seq=seq, by=claim.confirmed_at),
                rule=rules.CLAIM_CONFIRM,
            )

    def _check_disputable(self, seq: int, side: str) -> None:
        claim = self._claim(seq, "seq", rules.DISPUTE_OPEN)
        if not side:
            raise Refusal(
                Words("the referee does not dispute an entry: the referee rules on it or strikes it"),
                rule=rules.DISPUTE_OPEN,
            )
        if side == claim.side:
            raise Refusal(
                Words("event {seq} is a claim of {side}: the other side disputes it", seq=seq, side=side),
                rule=rules.DISPUTE_OPEN,
            )
        if seq in self.open_disputes:
            raise Refusal(Words("event {seq} is already disputed", seq=seq), rule=rules.DISPUTE_OPEN)
        if claim.confirmed_at:
            raise Refusal(
                Words(
                    "event {seq} was confirmed by event {by}: a confirmed entry is no longer disputed",
                    seq=seq,
                    by=claim.confirmed_at,
                ),
                rule=rules.DISPUTE_OPEN,
            )

    def _check_exists(self, seq: int, field: str) -> None:
        if seq > self.seq:
            raise Refusal(Words("there is no event {seq} yet (last is {last})", seq=seq, last=self.seq), field=field)

    def _check_resolvable(self, seq: int, side: str) -> None:
        self._check_exists(seq, "seq")
        dispute = self.open_disputes.get(seq)
        if dispute is None:
            raise Refusal(Words("event {seq} is not under dispute", seq=seq), field="seq")
        if side and side != dispute.side:
            raise Refusal(
                Words(
                    "{side} entered event {seq}: its dispute is settled by the referee, by {disputer} withdrawing it,"
                    " or by striking the entry",
                    side=side,
                    seq=seq,
                    disputer=dispute.side,
                ),
                rule=rules.DISPUTE_RESOLVE,
            )

    def _check_strikable(self, seq: int) -> None:
        if seq in self._confirmations:
            raise Refusal(
                Words("event {seq} is a confirmation, and a confirmation is final", seq=seq), rule=rules.CLAIM_CONFIRM
            )
        if seq in self._answers:
            raise Refusal(
                Words(
                    "event {seq} answers a dispute and is not struck: a dispute ends only by its resolution", seq=seq
                ),
                rule=rules.DISPUTE_RESOLVE,
            )

    def _check_phase_may_end(self, side: str) -> None:
        if self.open_disputes:
            entries = listed(str(seq) for seq in sorted(self.open_disputes))
            raise Refusal(
                Words("the phase does not end while a dispute is open (disputed: {entries})", entries=entries),
                rule=rules.DISPUTE_MEANWHILE,
            )
        # The side ending the phase confirms the other's claims by ending it (playing on); its own wait.
        waiting = [c for c in self.awaiting() if not side or c.side == side]
        if waiting:
            entries = listed(str(c.seq) for c in waiting)
            sides = both(sorted({self.other_side(c.side) for c in waiting}))
            raise Refusal(
                Words(
                    "the phase does not end while claims await confirmation by {sides} (awaiting: {entries})",
                    sides=sides,
                    entries=entries,
                ),
                rule=rules.CLAIM_PHASE_END,
            )

    # -- the fold -------------------------------------------------------------------------------
    def record(self, seq: int, event: AnyEvent, author: Author | None) -> None:
        """Fold in an event the log holds (or that `check` accepted)."""
        self.seq = seq
        side = player_side(author)
        kind = str(event.__struct_config__.tag)  # a string: every event type is tagged with its name
        match event:
            case EntryConfirmed():
                self._confirmations.add(seq)
                for entry in event.seqs:
                    self._settle(entry, seq)
            case EntryDisputed():
                self._answers.add(seq)
                dispute = Dispute(seq=seq, entry=event.seq, side=side, reason=event.reason, author=author)
                self.disputes.append(dispute)
                self.open_disputes[event.seq] = dispute
            case DisputeResolved():
                self._answers.add(seq)
                ended = self.open_disputes.pop(event.seq, None)
                if ended is not None:
                    withdrawn = bool(side) and side == ended.side
                    self._end(ended, seq, "withdrawn" if withdrawn else "stands", event.ruling, author)
                self._settle(event.seq, seq)  # it stands: nothing more to confirm
            case EventRetracted():
                self._settle(event.seq, seq, struck=True)
                ended = self.open_disputes.pop(event.seq, None)
                if ended is not None:
                    self._end(ended, seq, "struck", event.reason, author)
        if side and kind not in NOT_PLAYING_ON:
            self._played_on(side, seq)
        if side and is_claim(event):
            self.claims[seq] = self._open[seq] = Claim(seq=seq, side=side, kind=kind)

    def _settle(self, entry: int, seq: int, *, struck: bool = False, tacit: bool = False) -> None:
        """Claim `entry` is confirmed (or struck) by event `seq`: it no longer awaits anyone."""
        claim = self.claims.get(entry)
        if claim is None:
            return
        if struck:
            claim.struck_at = seq
        else:
            claim.confirmed_at, claim.tacit = seq, tacit
        self._open.pop(entry, None)

    def _played_on(self, side: str, seq: int) -> None:
        """`engine.claim.tacit`: the other side's claims, neither confirmed nor disputed, are confirmed."""
        for claim in self.awaiting():
            if claim.side != side and claim.seq not in self.open_disputes:
                self._settle(claim.seq, seq, tacit=True)

    @staticmethod
    def _end(dispute: Dispute, seq: int, ending: Ending, ruling: str, author: Author | None) -> None:
        dispute.ended_at, dispute.ending, dispute.ruling, dispute.ended_by = seq, ending, ruling, author


def player_side(author: Author | None) -> str:
    """The side a player entered an event for; "" for the referee, or an event with no author."""
    return author.side if author is not None and author.role == "player" else ""


def is_claim(event: AnyEvent) -> bool:
    """Whether a player's entry of this event is a claim of their side (`engine.claim.open`)."""
    kind = str(event.__struct_config__.tag)
    if kind not in CLAIMED:
        return False
    return getattr(event, "source", "table") == "table"  # the engine's dice are the engine's


def ledger(sides: Iterable[str], log: Iterable[StoredEvent]) -> Claims:
    """The ledger folded from a battle's stored events (their authors included)."""
    claims = Claims(sides=tuple(sides))
    for stored in log:
        claims.record(stored.seq, stored.event, stored.author)
    return claims


def both(names: list[str]) -> str:
    """Names taken together ("imperium and orks"), each said in the reader's language if it is `Words`."""
    said: str = ""
    for name in names:
        said = Words("{first} and {second}", first=said, second=name) if said else name
    return said
