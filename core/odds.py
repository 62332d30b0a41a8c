"""The exact chance of each result of a due test, counted over every way its dice can fall.

A ruleset says what one roll would give (`Ruleset.result_of`, pure, the same evaluation that
resolves real dice); this module counts. Rules that look at the dice themselves (a double 1 always
passes, a double 6 is the best result of its column) come out exact, because every ordered roll is
tried. A ruleset that gives no odds for a test returns None and so does `odds`.
"""

from __future__ import annotations

from collections import Counter
from itertools import product
from typing import TYPE_CHECKING

import msgspec

from .words import Words

if TYPE_CHECKING:
    from .state import Battle, DueTest

# 6**4 = 1296 rolls: enough for every roll our rulesets take (2D6 tests, 3D6 moves).
MAX_DICE = 4


class Chance(msgspec.Struct, frozen=True, kw_only=True):
    result: str
    passed: bool
    ways: int  # how many of the 6**dice ordered rolls give it


class Odds(msgspec.Struct, frozen=True, kw_only=True):
    test: str
    dice: int
    results: tuple[Chance, ...]  # in the order first met, from the lowest roll up
    pass_ways: int
    of: int  # 6**dice
    chance: float  # of passing, pass_ways / of

    def percent(self) -> str:
        return Words("{percent:.1f}%", percent=100 * self.chance)


def odds(battle: Battle, due: DueTest) -> Odds | None:
    if due.dice > MAX_DICE:
        return None
    counts: Counter[tuple[str, bool]] = Counter()
    for dice in product(range(1, 7), repeat=due.dice):
        result = battle.ruleset.result_of(battle, due, dice)
        if result is None:
            return None
        counts[result] += 1
    total = 6**due.dice
    passing = sum(ways for (_, passed), ways in counts.items() if passed)
    return Odds(
        test=due.test,
        dice=due.dice,
        results=tuple(Chance(result=r, passed=p, ways=w) for (r, p), w in counts.items()),
        pass_ways=passing,
        of=total,
        chance=passing / total,
    )
