"""Fold: fold a battle's log into its state, event by event, with what each event caused.

Retractions need the log itself (striking event N means reading the log as if N had never been
recorded), so the fold keeps the events it has read.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from morale.events.types import AnyEvent, EventRetracted, LogEntry, StoredEvent

from . import rules
from .claims import Claims
from .evolve import evolve
from .outcomes import Caused, StateChanged
from .referee import decide
from .rules import Refusal
from .state import Battle
from .words import Words


class Log(Protocol):
    """What a fold keeps of the events it has read: a strike folds them again without the one it
    strikes. `EventLog` keeps them all in memory; a long-lived fold in a server may keep only the
    last few and read the rest back from its store (app/read_back.py), so it does not grow with its
    battle."""

    def append(self, seq: int, event: AnyEvent) -> None: ...
    def __iter__(self) -> Iterator[LogEntry]: ...
    def __len__(self) -> int: ...
    def last_seq(self, otherwise: int) -> int: ...
    def get(self, seq: int) -> AnyEvent | None: ...


class EventLog:
    """The (seq, event) pairs a fold has read, in order, all in memory.

    Kept as an array of sequence numbers beside a list of events, not as a list of pairs: each pair
    was one more object allocated for the cyclic GC and never freed, so a long replay ran its young
    passes twice as often and, as units accumulated, full passes over everything it had built
    (figures in bench/README.md)."""

    def __init__(self) -> None:
        self._seqs = array("q")
        self._events: list[AnyEvent] = []

    def append(self, seq: int, event: AnyEvent) -> None:
        self._seqs.append(seq)
        self._events.append(event)

    def __iter__(self) -> Iterator[LogEntry]:
        return zip(self._seqs, self._events, strict=True)

    def __len__(self) -> int:
        return len(self._events)

    def last_seq(self, otherwise: int) -> int:
        return self._seqs[-1] if self._seqs else otherwise

    def get(self, seq: int) -> AnyEvent | None:
        at = bisect_left(self._seqs, seq)
        return self._events[at] if at < len(self._seqs) and self._seqs[at] == seq else None


@dataclass
class Fold:
    battle_id: str
    battle: Battle | None = None
    log: Log = field(default_factory=EventLog)
    struck: set[int] = field(default_factory=set)
    start_seq: int = 0  # where a fold begun from a snapshot starts (its log holds only what follows)
    # Who entered what and what the other side made of it, in a battle that asks for confirmation:
    # kept beside the fold by the service that writes (it reads authors, which the fold never does).
    claims: Claims | None = None

    @property
    def seq(self) -> int:
        return self.log.last_seq(otherwise=self.start_seq)

    def state(self) -> Battle:
        if self.battle is None:
            raise Refusal(Words("battle {battle!r} has not started", battle=self.battle_id), field="battle")
        return self.battle

    def check(self, event: AnyEvent) -> None:
        """Refuse `event` if it may not come next. Reads only."""
        decide(self.battle, event)
        if isinstance(event, EventRetracted):
            self._refold_without(event.seq)

    def advance(self, seq: int, event: AnyEvent) -> Caused:
        """Fold an event that `check` accepted (or that the log holds) and return what it caused."""
        # By exact type (event types are never subclassed): isinstance against a msgspec Struct class
        # goes through its metaclass, on every event of a replay.
        if type(event) is EventRetracted:
            before = {u.id: u.state for u in self.state().units.values()}
            self.battle = self._refold_without(event.seq)
            self.battle.seq = seq
            self.struck.add(event.seq)
            self.log.append(seq, event)
            return tuple(
                StateChanged(
                    unit=u.id,
                    rule=rules.RETRACTION,
                    caused_by=(event.seq, seq),
                    from_state=before.get(u.id, "absent"),
                    to_state=u.state,
                )
                for u in self.battle.units.values()
                if before.get(u.id) != u.state
            )
        self.battle, caused = evolve(self.battle, event, seq)
        if self.battle.id == "":
            self.battle.id = self.battle_id
        self.log.append(seq, event)
        return caused

    def followers_of(self, seq: int) -> list[int]:
        """The later events that striking `seq` would leave invalid, oldest first: the log folded
        without it, leaving out each event that fold then refuses, so an event that stood on a
        follower follows too (the refusal's own check, repeated until the rest is valid)."""
        followers: list[int] = []
        self._refold_without(seq, followers)
        return followers

    def _refold_without(self, seq: int, followers: list[int] | None = None) -> Battle:
        """The battle as if `seq` had never been recorded. A later event that fold refuses refuses
        the strike, unless `followers` is given: then it is struck too, and its seq added there."""
        self._check_strikable(seq)
        struck = self.struck | {seq}
        battle: Battle | None = None
        for at, event in self.log:
            if at in struck or type(event) is EventRetracted:
                continue
            try:
                decide(battle, event)
            except Refusal as refusal:
                if followers is None:
                    raise Refusal(
                        Words(
                            "striking event {seq} would leave event {at} invalid ({refusal})",
                            seq=seq,
                            at=at,
                            refusal=refusal.line,
                        ),
                        rule=rules.RETRACTION,
                    ) from None
                followers.append(at)
                struck.add(at)
                continue
            battle, _ = evolve(battle, event, at)
        assert battle is not None
        battle.id = self.battle_id
        return battle

    def _check_strikable(self, seq: int) -> None:
        target = self.log.get(seq)
        if target is None or seq in self.struck:
            raise Refusal(Words("event {seq} is already struck", seq=seq), field="seq")
        if isinstance(target, EventRetracted):
            raise Refusal(Words("event {seq} is itself a retraction and cannot be struck", seq=seq), field="seq")


def replay(battle_id: str, events: Iterable[StoredEvent]) -> Fold:
    """Rebuild a battle from its stored events alone."""
    return replay_log(battle_id, ((stored.seq, stored.event) for stored in events))


def replay_log(battle_id: str, log: Iterable[LogEntry], keep: Log | None = None) -> Fold:
    """Rebuild a battle from its (seq, event) pairs, as `EventStore.events` reads them; `keep`: where
    the fold keeps them (all in memory unless told otherwise)."""
    fold = Fold(battle_id) if keep is None else Fold(battle_id, log=keep)
    for seq, event in log:
        fold.advance(seq, event)
    return fold
