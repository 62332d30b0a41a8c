"""What a screen shows of a feed item as it comes: names, the story's lines, each test's odds.

An overlay or a second screen following the feed should not have to call `/board` and
`/vocabulary` for each item and rebuild what the narrative already says. So each item carries the
names of the units and sides it mentions, the narrative's line for the event and for each outcome
(with the rule IDs each cites), and for each test it makes due or resolves: the target, the exact
odds and the dice. The lines are the narrative's words (`Words`: a writer's answer says them in the
reader's language, the feed, encoded once for every follower, in English); every machine field
beside them stays a machine field, so a client in another language can build its own sentences.

The odds of a resolved test are those of the test as it was due just before its dice, so they are
read before the event is folded (`Before`), and the rest after (`shown`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from morale.core.odds import Odds, odds
from morale.core.outcomes import OpposedRoll, Outcome, TestDue, TestResolved
from morale.core.state import Battle, DueTest
from morale.events.types import DiceRolled, StoredEvent

from .narrative import lines_of

# The feed's own version, on every item (`FeedItem.feed_version`). Within a version the feed only
# grows: new fields, new event types and new outcome kinds may appear, and a reader ignores what it
# does not know. A field removed, renamed or given another meaning is a new version.
FEED_VERSION = 2


class UnitNamed(msgspec.Struct, frozen=True, kw_only=True):
    """A unit an item mentions: its name as the roster gives it, and its side."""

    name: str
    side: str


class StoryLine(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One line of the story, as `morale narrate` prints it. `kind`: "heading" (a phase starts),
    "event" (the stored event) or "outcome"; `rules`: the rule IDs it cites, their words in the
    catalogue (`/rulesets/{id}/{version}/vocabulary`, `clauses`)."""

    kind: str
    text: str
    rules: tuple[str, ...] = ()


class TestShown(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A test the item makes due or resolves, as a banner shows it. `outcome`: the index in the
    item's `caused` of its `test_due` or `test_resolved`. `dice`: how many dice the test rolls;
    `rolled`, `total` and `passed` are a resolved test's. `target`: the most the dice may show to
    pass, where the test has one; `odds`: the exact chance of each result of its dice as it was due
    (None where the ruleset gives none, or for a test resolved without dice)."""

    outcome: int
    unit: str
    test: str
    name: str  # the test in the ruleset's words ("Morale test")
    dice: int
    target: int | None = None
    odds: Odds | None = None
    rolled: tuple[int, ...] = ()
    total: int | None = None
    passed: bool | None = None
    opposed: tuple[OpposedRoll, ...] = ()  # a test both sides roll: each side's roll; no total then


class Shown(msgspec.Struct, frozen=True, kw_only=True):
    units: dict[str, UnitNamed]
    sides: tuple[str, ...]
    story: tuple[StoryLine, ...]
    tests: tuple[TestShown, ...]


class Before(msgspec.Struct, frozen=True, kw_only=True):
    """What must be read of the battle before an event is folded: the test its dice answer
    (`unit`'s `test`), as due."""

    unit: str
    test: str
    target: int | None = None
    odds: Odds | None = None


def before(battle: Battle | None, event: object) -> Before | None:
    """For dice rolled: the target and odds of the test they answer, as it stands before them."""
    if battle is None or type(event) is not DiceRolled:
        return None
    due = _due(battle, event.unit, event.test)
    if due is None:
        return None
    return Before(unit=due.unit, test=due.test, target=battle.ruleset.target(battle, due), odds=odds(battle, due))


def shown(stored: StoredEvent, caused: tuple[Outcome, ...], battle: Battle | None, was: Before | None) -> Shown:
    """`battle`: as the event left it (None before the battle has begun); `was`: `before(...)`."""
    if battle is None:
        return Shown(units={}, sides=(), story=(), tests=())
    named = _strings(stored.event)
    units = {
        u: UnitNamed(name=battle.units[u].name, side=battle.units[u].side) for u in _mentions(named, caused, battle)
    }
    sides = named | {u.side for u in units.values()}
    lines = lines_of(stored, caused, battle)
    return Shown(
        units=units,
        sides=tuple(s for s in battle.sides if s in sides),  # in the battle's order
        story=tuple(StoryLine(kind=line.kind, text=line.text, rules=tuple(line.rules)) for line in lines),
        tests=tuple(_tests(caused, battle, was)),
    )


def _tests(caused: tuple[Outcome, ...], battle: Battle, was: Before | None) -> Iterator[TestShown]:
    for index, outcome in enumerate(caused):
        if type(outcome) is TestDue:
            due = _due(battle, outcome.unit, outcome.test)
            yield TestShown(
                outcome=index,
                unit=outcome.unit,
                test=outcome.test,
                name=_test_name(battle, outcome.test),
                dice=outcome.dice,
                target=battle.ruleset.target(battle, due) if due else outcome.target,
                odds=odds(battle, due) if due else None,
            )
        elif type(outcome) is TestResolved:
            # The odds it had: only the test these dice were rolled for, resolved by them.
            rolled = was if was and (was.unit, was.test) == (outcome.unit, outcome.test) else None
            if outcome.automatic or not outcome.dice:
                rolled = None
            yield TestShown(
                outcome=index,
                unit=outcome.unit,
                test=outcome.test,
                name=_test_name(battle, outcome.test),
                dice=len(outcome.dice),
                target=outcome.target if outcome.target is not None else (rolled.target if rolled else None),
                odds=rolled.odds if rolled else None,
                rolled=outcome.dice,
                total=outcome.total,
                passed=outcome.passed,
                opposed=outcome.opposed,
            )


def _due(battle: Battle, unit: str, test: str) -> DueTest | None:
    """The test `unit` has due for `test` (the last made due, should there be two)."""
    found = [d for d in battle.due if d.unit == unit and d.test == test]
    return found[-1] if found else None


def _test_name(battle: Battle, test: str) -> str:
    return battle.ruleset.tests.get(test, test.replace("_", " "))


# Free text a person typed: a unit's id written in a reason is not a mention of the unit.
_PROSE = frozenset({"reason", "note", "name", "detail", "source", "dice_commitment"})


def _strings(value: Any) -> set[str]:
    """Every string in an event's fields (dict keys too), its free text aside."""
    found: set[str] = set()
    if isinstance(value, str):
        found.add(value)
    elif isinstance(value, msgspec.Struct):
        for field in value.__struct_fields__:
            if field not in _PROSE:
                found |= _strings(getattr(value, field))
    elif isinstance(value, dict):
        for key, inner in value.items():
            found |= _strings(key) | _strings(inner)
    elif isinstance(value, (tuple, list)):
        for inner in value:
            found |= _strings(inner)
    return found


def _mentions(named: set[str], caused: Iterable[Outcome], battle: Battle) -> list[str]:
    """The units an item mentions: any unit the event names (`named`: its strings, in whichever
    field: `unit`, a charge's `targets`, a combat's `units`...) and each outcome's unit and
    opponents. Read from the fields, so a new type of event needs nothing here."""
    named = set(named)
    for outcome in caused:
        named.add(outcome.unit)
        named.update(getattr(outcome, "opponents", ()))
    return sorted(u for u in named if u in battle.units)
