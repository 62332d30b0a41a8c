"""What the engine concludes from an event. Derived, never stored: replay gives them back.

Each carries the rule ID that produced it and the sequence numbers of the events that caused it,
so an explanation can walk from a unit's state back to the dice and casualties behind it.

Outcomes are also the only way a battle changes: the rulesets decide them, and `core/apply.py`
carries each one out before the rules read the battle again. So an outcome holds everything its
change needs (the trigger that moves a unit, the point a restriction ends). Most are *reported*:
they are the explanation the narrative, explain and the feed show. A few are bookkeeping the
rulebook never narrates (a phase mark, a ruleset's memory): they change the battle the same way,
through `apply`, and are left out of what an event is reported to have caused.
"""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec

from .words import Words

# A point on the battle clock: (game turn, index of the side whose turn it is, index of the phase).
Point = tuple[int, int, int]


class Modifier(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    rule: str
    value: int
    reason: str
    ignored_by: str = ""  # rule ID that cancels it (Stubborn ignores negative modifiers)


class Outcome(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", omit_defaults=True, gc=False):
    # gc=False: outcomes are immutable data with no cycles; an explanation trail holds many of them.
    # Each kind repeats `frozen=True` (msgspec passes it down; a type checker reads a class's own).

    # False: bookkeeping, carried out by `apply` but not part of the explanation.
    reported: ClassVar[bool] = True
    # True: the first reaction that holds for it answers it, and the rest are not asked (`TestCalled`).
    answered_once: ClassVar[bool] = False

    unit: str
    rule: str
    caused_by: tuple[int, ...] = ()


class TestDue(Outcome, tag="test_due", frozen=True):
    test: str
    dice: int
    target: int | None = None  # the most the dice may show to pass, where the test has one
    modifiers: tuple[Modifier, ...] = ()
    decisions: tuple[str, ...] = ()
    facts: tuple[str, ...] = ()  # facts from the table that settle it instead of dice
    reroll: bool = False  # these dice re-roll a failed result (`rule` is the clause that grants it)
    trigger: str = ""  # for a re-roll: the clause that made the test due in the first place
    opponents: tuple[str, ...] = ()  # the other units in a roll-off (a Sweeping Advance)


class TestNotTaken(Outcome, tag="test_not_taken", frozen=True):
    """A test the trigger called for, which the unit does not take (immune, already tested...)."""

    test: str
    trigger: str
    detail: str = ""  # why not, where the rule alone does not say it
    withdrawn: bool = False  # True: the test was due, and leaves the list of tests due


class OpposedRoll(msgspec.Struct, frozen=True, kw_only=True):
    """One side's roll in a test both sides roll against each other (a Sweeping Advance): its die,
    plus a characteristic (`adds`, a machine name: "initiative") of `bonus`, makes `total`."""

    side: str  # whose roll, as the rule names them: "loser", "winners"
    die: int
    adds: str
    bonus: int
    total: int


def opposed_words(rolls: tuple[OpposedRoll, ...]) -> str:
    """Opposed rolls as every view says them: "loser 5 + initiative 3 = 8 against winners 2 +
    initiative 2 = 4" (the console's main.js and why.js say them in the same words)."""
    said: str = ""
    for r in rolls:
        side, adds = _ROLLERS.get(r.side, r.side), _ADDS.get(r.adds, r.adds.replace("_", " "))
        roll = Words(
            "{side} {die} + {adds} {bonus} = {total}", side=side, die=r.die, adds=adds, bonus=r.bonus, total=r.total
        )
        said = Words("{first} against {second}", first=said, second=roll) if said else roll
    return said


# The words of the rolls' machine names (`OpposedRoll.side`, `.adds`) the rulesets give; any other is said as it is.
_ROLLERS = {"loser": Words("loser"), "winners": Words("winners")}
_ADDS = {"initiative": Words("initiative")}


class TestResolved(Outcome, tag="test_resolved", frozen=True):
    """`rule` is the clause that decided the result; `trigger` the one that made the test due.

    A test read from a results table (General de Brigade) also names the `column` it was read in
    and the `result` found there; `passed` then says whether that result is one the ruleset counts
    as holding (its table's `passing` results). Pass/fail tests leave both empty."""

    test: str
    trigger: str
    passed: bool
    dice: tuple[int, ...] = ()
    total: int | None = None
    target: int | None = None
    modifiers: tuple[Modifier, ...] = ()
    automatic: bool = False
    detail: str = ""
    result: str = ""
    column: str = ""
    # A test both sides roll against each other: each side's roll, in the order of `dice`. Such a
    # test has no `total` and no `target` of its own: the dice are not added up.
    opposed: tuple[OpposedRoll, ...] = ()


class StateChanged(Outcome, tag="state_changed", frozen=True):
    """A unit moved along its ruleset's graph by the graph's trigger `move`; "" for a referee's
    ruling, which is outside the graph by design."""

    from_state: str
    to_state: str
    move: str = ""


class RestrictionApplied(Outcome, tag="restriction_applied", frozen=True):
    """A restriction on the unit until the end of the phase at `ends` (`until` words it). A unit
    holds one restriction of a name: a new one replaces it."""

    restriction: str
    until: str
    ends: Point


class RestrictionLifted(Outcome, tag="restriction_lifted", frozen=True):
    restriction: str


class StateChangeScheduled(Outcome, tag="state_change_scheduled", frozen=True):
    """A state change the rules put off to a later moment ("removed at the end of the Assault phase")."""

    to_state: str
    at: str
    move: str  # the graph's trigger that moves the unit then
    when: Point


class ProfileChanged(Outcome, tag="profile_changed", frozen=True):
    """The rules change a unit's profile themselves (a retreating unit becomes unformed)."""

    changes: dict[str, bool | int | float | str]


class MarkerPlaced(Outcome, tag="marker_placed", frozen=True):
    """Something the rules have the players mark on the table (where a routing unit dispersed)."""

    marker: str
    detail: str = ""


class EngagementChanged(Outcome, tag="engagement_changed", frozen=True):
    """A unit enters or leaves a close combat (where a ruleset's tests depend on it)."""

    engaged: bool
    detail: str = ""


class Moved(Outcome, tag="moved", frozen=True):
    """A move the rules impose (falling back, regrouping), with its distance in inches."""

    inches: int | float  # halved moves can end on a half inch
    dice: tuple[int, ...] = ()
    detail: str = ""  # where to, and what changed the distance


# -- bookkeeping: carried out like the rest, never part of the explanation ---------------------------
class Scheduled(Outcome, tag="scheduled", frozen=True):
    """A state change put off to the end of the phase at `when` that the rulebook does not announce
    (a unit that Regrouped is steady again at the end of the turn)."""

    reported: ClassVar[bool] = False
    move: str
    when: Point


class Unscheduled(Outcome, tag="unscheduled", frozen=True):
    """A scheduled state change whose moment has come leaves the unit's schedule (`move` at `when`);
    the change itself, where the unit can still make it, is a `StateChanged` of its own."""

    reported: ClassVar[bool] = False
    move: str
    when: Point


class Marked(Outcome, tag="marked", frozen=True):
    """A mark the rules keep on the unit until the next rulebook phase starts (a test taken once a phase)."""

    reported: ClassVar[bool] = False
    mark: str


class Noted(Outcome, tag="noted", frozen=True):
    """What a ruleset notes about a unit beside its state (`Unit.notes`): each key set to its value,
    or dropped where the value is None."""

    reported: ClassVar[bool] = False
    notes: dict[str, Any]


class Remembered(Outcome, tag="remembered", frozen=True):
    """A ruleset's memory, changed field by field: the unit's, kept in its note `note`
    (`Unit.notes[note]`), or with no unit, the battle's (`Battle.memory`); `note=""` with no unit
    replaces the battle's memory with `changes["memory"]`."""

    reported: ClassVar[bool] = False
    note: str
    changes: dict[str, Any]


class DueAmended(Outcome, tag="due_amended", frozen=True):
    """A due test restated before its dice (what the table said, modifiers that grew): it keeps its
    place in the list. `before` and `after` are `state.DueTest`s."""

    reported: ClassVar[bool] = False
    before: Any
    after: Any


class DueSettled(Outcome, tag="due_settled", frozen=True):
    """A due test the table settles without its dice (it reports the conditions met): it leaves the
    list, as a rolled test does; the result that settles it is reported on its own. `due` is the
    `state.DueTest`."""

    reported: ClassVar[bool] = False
    due: Any


class Cleared(Outcome, tag="cleared", frozen=True):
    """A unit out of the battle carries nothing on: its restrictions and scheduled changes go."""

    reported: ClassVar[bool] = False


# -- what the rules react to: carried through the walk, never part of the explanation -------------
# A rule calls for a test, dice come for one, a player settles one, a result stands: each is an
# outcome the reactions of `core/reactions.py` are declared on, carrying the due test it concerns
# (`state.DueTest`), so the rule that reads it needs nothing the trigger does not hold.
class TestCalled(Outcome, tag="test_called", frozen=True):
    """A rule calls for a test (`rule` is that clause). The first reaction that holds answers it
    (`answered_once`): the unit does not take it (`TestNotTaken`), the rules settle it at once (an
    immune or a Fearless unit), or, when none does, it falls due and waits for its dice or a
    decision (`engine.due`). A re-roll (`reroll`: the rule that grants it) continues the test it
    re-rolls and is never a second test."""

    reported: ClassVar[bool] = False
    answered_once: ClassVar[bool] = True
    test: str
    dice: int = 2
    modifiers: tuple[Modifier, ...] = ()
    decisions: tuple[str, ...] = ()
    opponents: tuple[str, ...] = ()
    facts: tuple[str, ...] = ()
    reroll: str = ""


class Rolled(Outcome, tag="rolled", frozen=True):
    """The dice of a `dice_rolled` event for the unit's due test `due`, which leaves the list of
    tests due: what the rule of that test reacts to (`caused_by` is the roll)."""

    reported: ClassVar[bool] = False
    test: str
    due: Any
    dice: tuple[int, ...]


class Chosen(Outcome, tag="chosen", frozen=True):
    """A player's decision that settles the unit's due test `due` without dice ("decline_regroup"):
    it leaves the list, and the rule that allows the decision reacts (`caused_by` is the due test's
    causes and the decision)."""

    reported: ClassVar[bool] = False
    test: str
    decision: str
    due: Any


class Settled(Outcome, tag="settled", frozen=True):
    """A due test's result (`result`, the `TestResolved` reported just before) with the test it
    settles (`due`): what the rules make of a result (the unit falls back, regroups...) react to
    this. A result the rules bring no consequence of (a test a referee waived) has none."""

    reported: ClassVar[bool] = False
    test: str
    due: Any
    result: TestResolved


AnyOutcome = (
    TestDue
    | TestNotTaken
    | TestResolved
    | StateChanged
    | StateChangeScheduled
    | RestrictionApplied
    | RestrictionLifted
    | ProfileChanged
    | MarkerPlaced
    | EngagementChanged
    | Moved
)


# What one event caused, as evolve and replay hand it back. A tuple, not a list: a replay's
# explanation trail holds one per event, and tuples of these (untracked) outcomes are not walked by
# the cyclic garbage collector, where a list always is (a long replay's share is in bench/README.md).
Caused = tuple[Outcome, ...]
