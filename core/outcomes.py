"""What the engine concludes from an event. Derived, never stored: replay gives them back.

Each carries the rule ID that produced it and the sequence numbers of the events that caused it,
so an explanation can walk from a unit's state back to the dice and casualties behind it.
"""

from __future__ import annotations

import msgspec


class Modifier(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    rule: str
    value: int
    reason: str
    ignored_by: str = ""  # rule ID that cancels it (Stubborn ignores negative modifiers)


class Outcome(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", omit_defaults=True, gc=False):
    # gc=False: outcomes are immutable data with no cycles; an explanation trail holds many of them.

    unit: str
    rule: str
    caused_by: tuple[int, ...] = ()


class TestDue(Outcome, tag="test_due"):
    test: str
    dice: int
    target: int | None = None  # the most the dice may show to pass, where the test has one
    modifiers: tuple[Modifier, ...] = ()
    decisions: tuple[str, ...] = ()
    facts: tuple[str, ...] = ()  # facts from the table that settle it instead of dice
    reroll: bool = False  # these dice re-roll a failed result (`rule` is the clause that grants it)


class TestNotTaken(Outcome, tag="test_not_taken"):
    """A test the trigger called for, which the unit does not take (immune, already tested...)."""

    test: str
    trigger: str
    detail: str = ""  # why not, where the rule alone does not say it


class TestResolved(Outcome, tag="test_resolved"):
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


class StateChanged(Outcome, tag="state_changed"):
    from_state: str
    to_state: str


class RestrictionApplied(Outcome, tag="restriction_applied"):
    restriction: str
    until: str


class RestrictionLifted(Outcome, tag="restriction_lifted"):
    restriction: str


class StateChangeScheduled(Outcome, tag="state_change_scheduled"):
    """A state change the rules put off to a later moment ("removed at the end of the Assault phase")."""

    to_state: str
    at: str


class ProfileChanged(Outcome, tag="profile_changed"):
    """The rules change a unit's profile themselves (a retreating unit becomes unformed)."""

    changes: dict[str, bool | int | float | str]


class MarkerPlaced(Outcome, tag="marker_placed"):
    """Something the rules have the players mark on the table (where a routing unit dispersed)."""

    marker: str
    detail: str = ""


class EngagementChanged(Outcome, tag="engagement_changed"):
    """A unit enters or leaves a close combat (where a ruleset's tests depend on it)."""

    engaged: bool
    detail: str = ""


class Moved(Outcome, tag="moved"):
    """A move the rules impose (falling back, regrouping), with its distance in inches."""

    inches: int | float  # halved moves can end on a half inch
    dice: tuple[int, ...] = ()
    detail: str = ""  # where to, and what changed the distance


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
# the cyclic garbage collector, where a list always is (measured: a fifth of a long replay's time).
Caused = tuple[Outcome, ...]
