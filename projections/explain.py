"""Why a unit is where it is: every test it took and every change to it, back to the start.

Each test says why it fell due (the trigger's rule ID and words, and the events that caused it),
what it needed (target, every modifier with its rule ID, the exact chance of passing), the roll
and the result with the rule that decided it. Each state change, restriction and forced move
cites its rule. Events are described as they read when they happened, so a judge can check a
call without the rulebook open.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from morale.core import catalogue
from morale.core.fold import Fold
from morale.core.odds import odds
from morale.core.outcomes import (
    Caused,
    MarkerPlaced,
    Modifier,
    Moved,
    OpposedRoll,
    Outcome,
    ProfileChanged,
    RestrictionApplied,
    RestrictionLifted,
    StateChanged,
    StateChangeScheduled,
    TestDue,
    TestNotTaken,
    TestResolved,
    opposed_words,
)
from morale.core.rules import Refusal
from morale.core.state import Battle
from morale.core.words import Words, counted
from morale.events.store import EventStore
from morale.events.types import (
    AnyEvent,
    Author,
    CasualtiesSuffered,
    EventRetracted,
    PlayerDecided,
    RefereeRuled,
    StoredEvent,
    UnitChanged,
    UnitJoined,
)

from . import snapshots
from .authorship import author_words
from .frozen import restore_fold
from .naming import test_named
from .narrative import describe_event, describe_outcome


class Cited(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    text: str


class Roll(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    dice: tuple[int, ...]
    total: int | float | None
    target: int | None
    modifiers: tuple[Modifier, ...]
    detail: str = ""
    by: str = ""  # who entered the dice, in words (`authorship.author_words`); "" where not recorded
    opposed: tuple[OpposedRoll, ...] = ()  # a test both sides roll: each side's roll, not one sum
    said: str = ""  # the dice in words, as every view shows them (`rolled_words`)


def rolled_words(dice: tuple[int, ...], total: float | None, opposed: tuple[OpposedRoll, ...] = ()) -> str:
    """ "4 + 3 = 7"; opposed rolls side by side, each its die and what it adds, never as one sum."""
    if opposed:
        return opposed_words(opposed)
    return " + ".join(map(str, dice)) + (f" = {total:g}" if total is not None else "")


class Step(msgspec.Struct, kw_only=True):
    """One link of the chain: an event about the unit, a test it faced, or something the rules did to it."""

    seq: int
    kind: str  # "event", "test" or "consequence"
    text: str
    author: Author | None = None  # who entered the event behind it (None: not recorded)
    by: str = ""  # that author in words: "orks player (console, Anna's phone)", "not recorded"
    rule: str = ""  # what decided it (for a test: the clause that gave the result)
    words: str = ""  # that clause in the rule catalogue's words
    caused_by: list[Cited] = []
    # tests only
    test: str = ""
    test_name: str = ""  # the test in words, as the story names it ("morale"; the ruleset's name elsewhere)
    trigger: str = ""  # the clause that made the test due
    trigger_words: str = ""
    target: int | None = None
    modifiers: tuple[Modifier, ...] = ()
    chance: float | None = None  # of passing, when it fell due
    chance_ways: str = ""  # e.g. "21/36"
    status: str = ""  # "due", "passed", "failed" or "not taken"
    roll: Roll | None = None
    automatic: bool = False
    settled_at: int | None = None
    # consequences only: the state a change put the unit in ("" for anything else), so a reader
    # finds the step that put the unit where it is now
    to_state: str = ""


class Explanation(msgspec.Struct, frozen=True, kw_only=True):
    battle: str
    unit: str
    name: str
    side: str
    at: int
    state: str
    state_name: str  # the ruleset's word for `state`, as on the board
    models: int
    starting_models: int
    ld: int | None
    steps: list[Step]


def rule_words(rule_id: str) -> str:
    """The clause in the rule catalogue's words, or "" for an ID it does not hold."""
    return catalogue.words(rule_id)


class Chronicle:
    """One replay that keeps, for every unit, the chain of steps that concern it."""

    def __init__(self, battle_id: str, fold: Fold | None = None) -> None:
        self.fold = Fold(battle_id) if fold is None else fold  # a fold begun from a snapshot, or from nothing
        self.said: dict[int, str] = {}
        self.authors: dict[int, Author | None] = {}  # who entered each event, by seq
        self.steps: dict[str, list[Step]] = {}
        self._open: dict[str, list[Step]] = {}

    def add(self, seq: int, event: AnyEvent, author: Author | None = None) -> Caused:
        caused = self.fold.advance(seq, event)
        self.authors[seq] = author
        battle = self.fold.state()
        self.said[seq] = describe_event(event, battle)
        unit_id = _about(event)
        if unit_id:
            self.steps.setdefault(unit_id, []).append(Step(seq=seq, kind="event", text=self.said[seq]))
        for outcome in caused:
            steps, open_tests = self.steps.setdefault(outcome.unit, []), self._open.setdefault(outcome.unit, [])
            _fold_outcome(battle, seq, outcome, self.said, steps, open_tests)
        return caused

    def attributed(self, step: Step) -> Step:
        """The step with who entered the event behind it, and who entered its dice."""
        step.author = self.authors.get(step.seq)
        step.by = author_words(step.author)
        if step.roll is not None:
            rolled_by = self.authors.get(step.roll.seq)
            step.roll = msgspec.structs.replace(step.roll, by=author_words(rolled_by) if rolled_by else "")
        return step


def explain(battle_id: str, events: Iterable[StoredEvent], unit_id: str, at: int | None = None) -> Explanation:
    if at is not None and at < 1:
        raise Refusal(Words("there is no event {at}: a log's events are numbered from 1", at=at), field="at")
    chronicle = Chronicle(battle_id)
    for stored in events:
        if at is not None and stored.seq > at:
            break
        chronicle.add(stored.seq, stored.event, stored.author)
    return _explanation(chronicle, battle_id, unit_id, at)


def explain_stored(store: EventStore, battle_id: str, unit_id: str, at: int | None = None) -> Explanation:
    """`explain` of a battle in `store`, begun from a snapshot taken before the unit joined (nothing
    before that is about it), then the log from there: a few hundred events where the whole log of a
    long battle takes a second. A full replay answers whenever the two could differ: no snapshot
    before the unit joined, or an event struck before the point asked."""
    last = store.last_seq(battle_id)
    head = last if at is None else at
    start = _fold_before(store, battle_id, unit_id, head) if 1 <= head <= last else None
    if start is not None:
        chronicle = Chronicle(battle_id, start)
        for stored in store.read(battle_id, after_seq=start.seq):
            if stored.seq > head:
                break
            if isinstance(stored.event, EventRetracted):  # striking refolds the whole log
                return explain(battle_id, store.read(battle_id), unit_id, at)
            chronicle.add(stored.seq, stored.event, stored.author)
        return _explanation(chronicle, battle_id, unit_id, at)
    return explain(battle_id, store.read(battle_id), unit_id, at)


def _fold_before(store: EventStore, battle_id: str, unit_id: str, head: int) -> Fold | None:
    """A fold from the latest snapshot at or before `head` whose battle does not hold the unit yet, and
    with nothing struck before it; None if there is none. A unit once joined stays in the roster
    unless a strike takes it out, so the snapshots that hold it come after those that do not: back
    from `head` in growing strides until one does not, then halving the gap to the last that does."""
    engine = snapshots.engine_version()
    holds: int | None = None  # the earliest snapshot point found to hold the unit
    stride, point = snapshots.SNAPSHOT_EVERY, head
    while True:
        fold = _restored(store, battle_id, engine, point)
        if fold is None:
            return None
        if unit_id not in fold.state().units:
            break
        holds, point = fold.seq, fold.seq - stride
        stride *= 2
    while holds is not None and holds - fold.seq > snapshots.SNAPSHOT_EVERY:
        between = _restored(store, battle_id, engine, (fold.seq + holds) // 2)
        if between is None or between.seq <= fold.seq:
            break
        if unit_id in between.state().units:
            holds = between.seq
        else:
            fold = between
    return None if fold.struck else fold


def _restored(store: EventStore, battle_id: str, engine: str, seq: int) -> Fold | None:
    """A fold from the latest snapshot at or before `seq`, if there is one that is sound."""
    found = store.snapshot_before(battle_id, seq, engine) if seq > 0 else None
    if found is None:
        return None
    fold = restore_fold(store, battle_id, engine, found[1])
    return fold if fold is not None and fold.seq == found[0] else None


def _explanation(chronicle: Chronicle, battle_id: str, unit_id: str, at: int | None) -> Explanation:
    fold = chronicle.fold
    if fold.battle is None:
        raise Refusal(Words("battle {battle} has not started", battle=repr(battle_id)), field="battle")
    if at is not None and at > fold.seq:
        raise Refusal(Words("there is no event {at} (the log ends at {last})", at=at, last=fold.seq), field="at")
    battle = fold.state()
    unit = battle.units.get(unit_id)
    if unit is None:
        raise Refusal(
            Words("no unit {unit} in this battle at event {seq}", unit=repr(unit_id), seq=fold.seq), field="unit"
        )
    return Explanation(
        battle=battle_id,
        unit=unit.id,
        name=unit.name,
        side=unit.side,
        at=fold.seq,
        state=unit.state,
        state_name=battle.ruleset.state_name(unit.state),
        models=unit.models,
        starting_models=unit.starting_models,
        ld=unit.ld,
        steps=[chronicle.attributed(step) for step in chronicle.steps.get(unit_id, [])],
    )


def _about(event: object) -> str:
    """The unit an event is about, when it is about one unit."""
    if isinstance(event, UnitJoined | UnitChanged | CasualtiesSuffered | PlayerDecided | RefereeRuled):
        return event.unit
    return ""


def _cite(said: dict[int, str], seqs: Iterable[int]) -> list[Cited]:
    return [Cited(seq=s, text=said.get(s, "")) for s in dict.fromkeys(seqs)]


def _fold_outcome(
    battle: Battle, seq: int, outcome: Outcome, said: dict[int, str], steps: list[Step], open_tests: list[Step]
) -> None:
    match outcome:
        case TestDue():
            step = Step(
                seq=seq,
                kind="test",
                text=Words("{test} test due", test=test_named(battle.ruleset, outcome.test)),
                test=outcome.test,
                test_name=test_named(battle.ruleset, outcome.test),
                trigger=outcome.rule,
                trigger_words=rule_words(outcome.rule),
                caused_by=_cite(said, outcome.caused_by),
                target=outcome.target,
                modifiers=outcome.modifiers,
                status="due",
            )
            key = (outcome.unit, outcome.test, outcome.rule)
            due = next((d for d in battle.due if (d.unit, d.test, d.rule) == key), None)
            chance = odds(battle, due) if due else None
            if chance is not None:
                step.chance, step.chance_ways = chance.chance, f"{chance.pass_ways}/{chance.of}"
            steps.append(step)
            open_tests.append(step)
        case TestResolved() | TestNotTaken():
            step = next((s for s in open_tests if (s.test, s.trigger) == (outcome.test, outcome.trigger)), None)
            if step is None:  # settled the moment it fell due (immune, automatic): a step of its own
                step = Step(
                    seq=seq,
                    kind="test",
                    text=Words("{test} test", test=test_named(battle.ruleset, outcome.test)),
                    test=outcome.test,
                    test_name=test_named(battle.ruleset, outcome.test),
                    trigger=outcome.trigger,
                    trigger_words=rule_words(outcome.trigger),
                    caused_by=_cite(said, outcome.caused_by),
                )
                steps.append(step)
            else:
                open_tests.remove(step)
            step.rule, step.words, step.settled_at = outcome.rule, rule_words(outcome.rule), seq
            step.text = describe_outcome(outcome, battle)
            if isinstance(outcome, TestNotTaken):
                step.status = "not taken"
                return
            step.status, step.automatic = ("passed" if outcome.passed else "failed"), outcome.automatic
            if outcome.dice:
                step.roll = Roll(
                    seq=seq,
                    dice=outcome.dice,
                    total=outcome.total,
                    target=outcome.target,
                    modifiers=outcome.modifiers,
                    detail=outcome.detail,
                    opposed=outcome.opposed,
                    said=rolled_words(outcome.dice, outcome.total, outcome.opposed),
                )
        case Moved() if any(s.trigger == outcome.rule for s in open_tests):
            # A forced move is the roll a due move test was waiting for: it settles that step.
            step = next(s for s in open_tests if s.trigger == outcome.rule)
            open_tests.remove(step)
            step.rule, step.words, step.settled_at, step.status = outcome.rule, rule_words(outcome.rule), seq, "moved"
            step.text = describe_outcome(outcome, battle)
            step.roll = Roll(
                seq=seq,
                dice=outcome.dice,
                total=outcome.inches,
                target=None,
                modifiers=(),
                said=rolled_words(outcome.dice, outcome.inches),
            )
        case (
            StateChanged()
            | StateChangeScheduled()
            | RestrictionApplied()
            | RestrictionLifted()
            | Moved()
            | ProfileChanged()
            | MarkerPlaced()
        ):
            text, to_state = describe_outcome(outcome, battle), ""
            if isinstance(outcome, StateChanged):
                names = battle.ruleset.state_name
                text = Words(
                    "{said} ({from_state} → {to_state})",
                    said=text,
                    from_state=names(outcome.from_state),
                    to_state=names(outcome.to_state),
                )
                to_state = outcome.to_state
            words, caused_by = rule_words(outcome.rule), _cite(said, outcome.caused_by)
            steps.append(
                Step(
                    seq=seq,
                    kind="consequence",
                    text=text,
                    rule=outcome.rule,
                    words=words,
                    caused_by=caused_by,
                    to_state=to_state,
                )
            )


# -- the words around a step, as `morale explain` prints them (app/cli/render_explain.py) ----------
# Each label and line whole, so that another language says it in its order; the CLI styles them.

LABEL_WHY = Words("why: ")
LABEL_RESULT = Words("result: ")


def heading_words(view: Explanation) -> tuple[Words, Words]:
    """What comes before the unit's state and what comes after it, on the first line:
    "Boyz (boyz, orks): " and ", 7 of 10 models, Ld 7, after event 12"."""
    before = Words("{name} ({unit}, {side}): ", name=view.name, unit=view.unit, side=view.side)
    values = {"models": view.models, "at": view.at, "ld": view.ld}
    if view.ld is not None:
        after = counted(
            ", {models} of {n} models, Ld {ld}, after event {at}",
            ", {models} of {n} models, Ld {ld}, after event {at}",
            n=view.starting_models,
            **values,
        )
    else:
        after = counted(
            ", {models} of {n} models, after event {at}",
            ", {models} of {n} models, after event {at}",
            n=view.starting_models,
            **values,
        )
    return before, after


def entered_by_words(by: str) -> Words:
    return Words("entered by: {by}", by=by)


def why_words(step: Step, settled_elsewhere: bool) -> Words:
    """ "morale test due", "fall back move due at #12": the test, and where it fell due when the step
    is numbered by the event that settled it."""
    test = step.test_name or step.test.replace("_", " ")
    if step.status == "moved" and settled_elsewhere:
        return Words("{test} move due at #{seq}", test=test, seq=step.seq)
    if step.status == "moved":
        return Words("{test} move due", test=test)
    if settled_elsewhere:
        return Words("{test} test due at #{seq}", test=test, seq=step.seq)
    return Words("{test} test due", test=test)


def because_words(cited: Cited) -> Words:
    return Words("because of #{seq}: {text}", seq=cited.seq, text=cited.text)


def needs_words(target: int) -> Words:
    return Words("needs: {target} or less", target=target)


def modifier_words(modifier: Modifier) -> Words:
    """ "-1 lost close combat", "-1 lost close combat, ignored: wh40k6.special.stubborn"."""
    if modifier.ignored_by:
        return Words(
            "{value:+d} {reason}, ignored: {rule}",
            value=modifier.value,
            reason=modifier.reason,
            rule=modifier.ignored_by,
        )
    return Words("{value:+d} {reason}", value=modifier.value, reason=modifier.reason)


def chance_words(chance: float, ways: str) -> Words:
    return Words("chance of passing: {percent:.1f}% ({ways})", percent=100 * chance, ways=ways)


def rolled_by_words(roll: Roll) -> Words:
    if roll.by:
        return Words("rolled at #{seq} by {by}: {dice}", seq=roll.seq, by=roll.by, dice=roll.said)
    return Words("rolled at #{seq}: {dice}", seq=roll.seq, dice=roll.said)


def status_words(step: Step) -> str:
    """A test step's result in words ("failed", "passed automatically"); its `status` stays the machine's."""
    match (step.status, step.automatic):
        case ("passed", True):
            return Words("passed automatically")
        case ("failed", True):
            return Words("failed automatically")
        case ("passed", False):
            return Words("passed")
        case ("failed", False):
            return Words("failed")
        case ("not taken", False):
            return Words("not taken")
        case ("due", False):
            return Words("due")
        case ("moved", False):
            return Words("moved")
    if step.automatic:
        return Words("{status} automatically", status=step.status)
    return step.status
