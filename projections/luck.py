"""A battle's luck: each side's rolled tests against the exact chance each had of passing.

Expected passes are the sum of the chances. How lucky the actual count is, is one number, the luck
percentile: the chance that a side rolling the same tests at the same odds passes fewer of them,
an equal number counting half (from the exact distribution of the number of passes, each test its
own chance: a Poisson binomial). 50% is par; under it the side was unluckier than its odds, over it
luckier. The CLI, the report and the tables all read it from here, in the words of `PERCENTILE_WORDS`.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from morale.core.fold import Fold
from morale.core.odds import odds
from morale.core.referee import due_test
from morale.core.rules import Refusal
from morale.core.state import Battle
from morale.core.words import Words
from morale.events.types import DiceRolled, EventRetracted, StoredEvent

# The statistic's name and what it means, as every view prints them.
PERCENTILE_NAME = Words("luck percentile")
PERCENTILE_WORDS = Words(
    "The luck percentile is the chance that a side rolling the same tests at the same odds passes fewer "
    "of them, an equal number counting half: 50% is par, under 50% unluckier than the odds, over 50% luckier."
)

# How a percentile reads, by its distance from the nearer end: (at most, word when luckier, word when unluckier).
VERDICTS = (
    (0.01, Words("exceptionally lucky"), Words("exceptionally unlucky")),
    (0.05, Words("very lucky"), Words("very unlucky")),
    (0.2, Words("lucky"), Words("unlucky")),
)
AS_EXPECTED = Words("about as expected")


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
    percentile: float  # P(fewer passes) + P(as many passes) / 2, at these odds (PERCENTILE_WORDS)
    verdict: str  # in words (VERDICTS), said in the reader's language


class Luck(msgspec.Struct, frozen=True, kw_only=True):
    battle: str
    sides: list[SideLuck]
    rolls: list[Roll]


def luck(battle_id: str, events: Iterable[StoredEvent]) -> Luck:
    fold = Fold(battle_id)
    rolls: list[Roll] = []
    for stored in events:
        event = stored.event
        chance, passed = None, False
        if isinstance(event, DiceRolled) and fold.battle is not None:
            chance, passed = _as_rolled(fold.battle, event)
        if isinstance(event, EventRetracted):
            rolls = [r for r in rolls if r.seq != event.seq]
        fold.advance(stored.seq, event)
        if chance is None:
            continue
        assert isinstance(event, DiceRolled)
        side = fold.state().units[event.unit].side
        roll = Roll(
            seq=stored.seq,
            unit=event.unit,
            side=side,
            test=event.test,
            dice=tuple(event.dice),
            chance=chance,
            passed=passed,
        )
        rolls.append(roll)
    sides = fold.state().sides if fold.battle else ()
    return Luck(battle=battle_id, sides=[side_luck(s, [r for r in rolls if r.side == s]) for s in sides], rolls=rolls)


def _as_rolled(battle: Battle, event: DiceRolled) -> tuple[float | None, bool]:
    """The chance the test due had of passing, and whether these dice passed it, both by the ruleset's
    own reading of one roll (`result_of`, as the odds count it): a roll whose outcome is not a
    resolved test (a Fall Back that stops short of the enemy in its corridor) still counts."""
    try:
        due = due_test(battle, event.unit, event.test)
        found = odds(battle, due)
    except Refusal:
        return None, False
    result = battle.ruleset.result_of(battle, due, tuple(event.dice)) if found else None
    if found is None or result is None:
        return None, False
    return found.chance, result[1]


def side_luck(side: str, rolls: list[Roll]) -> SideLuck:
    expected = sum(r.chance for r in rolls)
    passes = sum(r.passed for r in rolls)
    at = percentile([r.chance for r in rolls], passes)
    return SideLuck(
        side=side, tests=len(rolls), expected_passes=expected, passes=passes, percentile=at, verdict=verdict(at)
    )


def percentile(chances: list[float], passes: int) -> float:
    """The luck percentile of `passes` among tests with these chances (`PERCENTILE_WORDS`)."""
    distribution = passes_distribution(chances)
    return min(1.0, sum(distribution[:passes]) + distribution[passes] / 2)


def verdict(at: float) -> str:
    nearer_end = min(at, 1 - at)
    for bound, luckier, unluckier in VERDICTS:
        if nearer_end <= bound:
            return luckier if at > 0.5 else unluckier
    return AS_EXPECTED


def passes_distribution(chances: list[float]) -> list[float]:
    """P(exactly k passes) for k = 0..n, each test passing with its own chance."""
    distribution = [1.0]
    for p in chances:
        distribution = [
            (distribution[k] if k < len(distribution) else 0.0) * (1 - p) + (distribution[k - 1] * p if k > 0 else 0.0)
            for k in range(len(distribution) + 1)
        ]
    return distribution
