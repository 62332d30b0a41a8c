"""A battle's luck: each side's rolled tests against the exact chance each had of passing.

Expected passes are the sum of the chances; how unusual the actual count is comes from the exact
distribution of the number of passes (each test its own chance: a Poisson binomial), as the chance
of doing at least as well (when above expectation) or at most as well (when below).
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from morale.core.odds import odds
from morale.core.outcomes import TestResolved
from morale.core.referee import due_test
from morale.core.replay import Replay
from morale.core.rules import Refusal
from morale.events.types import DiceRolled, EventRetracted, StoredEvent

# How a tail probability reads, from the most unusual up: (at most, word when above, word when below).
VERDICTS = (
    (0.01, "exceptionally lucky", "exceptionally unlucky"),
    (0.05, "very lucky", "very unlucky"),
    (0.2, "lucky", "unlucky"),
    (1.0, "about as expected", "about as expected"),
)


class Roll(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    unit: str
    side: str
    test: str
    dice: tuple[int, ...]
    chance: float
    passed: bool


class SideLuck(msgspec.Struct, frozen=True, kw_only=True):
    side: str
    tests: int
    expected_passes: float
    passes: int
    tail: float  # chance of a count at least this far from expectation, in the same direction
    verdict: str


class Luck(msgspec.Struct, frozen=True, kw_only=True):
    battle: str
    sides: list[SideLuck]
    rolls: list[Roll]


def luck(battle_id: str, events: Iterable[StoredEvent]) -> Luck:
    fold = Replay(battle_id)
    rolls: list[Roll] = []
    for stored in events:
        event = stored.event
        chance = None
        if isinstance(event, DiceRolled) and fold.battle is not None:
            try:
                found = odds(fold.battle, due_test(fold.battle, event.unit, event.test))
                chance = found.chance if found else None
            except Refusal:
                chance = None
        if isinstance(event, EventRetracted):
            rolls = [r for r in rolls if r.seq != event.seq]
        caused = fold.apply(stored.seq, event)
        if chance is None:
            continue
        assert isinstance(event, DiceRolled)
        result = next(o for o in caused if isinstance(o, TestResolved) and o.unit == event.unit)
        side = fold.state().units[event.unit].side
        roll = Roll(
            seq=stored.seq,
            unit=event.unit,
            side=side,
            test=event.test,
            dice=tuple(event.dice),
            chance=chance,
            passed=result.passed,
        )
        rolls.append(roll)
    sides = fold.state().sides if fold.battle else ()
    return Luck(battle=battle_id, sides=[side_luck(s, [r for r in rolls if r.side == s]) for s in sides], rolls=rolls)


def side_luck(side: str, rolls: list[Roll]) -> SideLuck:
    expected = sum(r.chance for r in rolls)
    passes = sum(r.passed for r in rolls)
    distribution = passes_distribution([r.chance for r in rolls])
    above = passes >= expected
    tail = sum(distribution[passes:]) if above else sum(distribution[: passes + 1])
    tail = min(1.0, tail)
    verdict = next(words[1] if above else words[2] for words in VERDICTS if tail <= words[0])
    return SideLuck(side=side, tests=len(rolls), expected_passes=expected, passes=passes, tail=tail, verdict=verdict)


def passes_distribution(chances: list[float]) -> list[float]:
    """P(exactly k passes) for k = 0..n, each test passing with its own chance."""
    distribution = [1.0]
    for p in chances:
        distribution = [
            (distribution[k] if k < len(distribution) else 0.0) * (1 - p) + (distribution[k - 1] * p if k > 0 else 0.0)
            for k in range(len(distribution) + 1)
        ]
    return distribution
