"""The battle as a story: each event in words, followed by what it caused, each citing its rule ID."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from morale.core import catalogue
from morale.core.fold import Fold
from morale.core.outcomes import (
    EngagementChanged,
    MarkerPlaced,
    Moved,
    Outcome,
    ProfileChanged,
    RestrictionApplied,
    RestrictionLifted,
    StateChanged,
    StateChangeScheduled,
    TestDue,
    TestNotTaken,
    TestResolved,
)
from morale.core.state import Battle
from morale.events.types import (
    AnyEvent,
    BattleStarted,
    CasualtiesSuffered,
    ChargeDeclared,
    CombatResolved,
    DiceRevealed,
    DiceRolled,
    DisputeResolved,
    EntryConfirmed,
    EntryDisputed,
    EventRetracted,
    PhaseEnded,
    PhaseStarted,
    PlayerDecided,
    RefereeRuled,
    SeedCommitted,
    SeedRevealed,
    StoredEvent,
    TableFactRecorded,
    UnitChanged,
    UnitJoined,
)

from .authorship import author_words


class Line(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    turn: int
    side: str | None
    phase: str | None
    kind: str  # "heading", "event" or "outcome"
    text: str
    rules: list[str] = []
    words: list[str] = []  # each rule's clause in the catalogue's words, in the order of `rules`
    caused_by: tuple[int, ...] = ()
    by: str = ""  # a heading's or an event's: who entered the event, in words ("not recorded" for an old log)


def narrate(battle_id: str, events: Iterable[StoredEvent]) -> list[Line]:
    fold = Fold(battle_id)
    lines: list[Line] = []
    for stored in events:
        lines += lines_of(stored, fold.advance(stored.seq, stored.event), fold.state())
    return lines


def lines_of(stored: StoredEvent, caused: Iterable[Outcome], battle: Battle) -> list[Line]:
    """The story's lines for one stored event and what it caused, against the battle as the event
    left it: the event's own line (a heading where a phase starts), then one line per outcome, in
    order. The feed's items carry the same lines (`projections/shown.py`)."""
    where = {"seq": stored.seq, "turn": battle.turn, "side": battle.active_side, "phase": battle.phase}
    if isinstance(stored.event, PhaseStarted):
        heading = f"Turn {stored.event.turn} · {stored.event.side} · {stored.event.phase.replace('_', ' ')}"
        lines = [Line(**where, kind="heading", text=heading, by=author_words(stored.author))]
    else:
        said = describe_event(stored.event, battle)
        lines = [Line(**where, kind="event", text=said, by=author_words(stored.author))]
    for outcome in caused:
        rules = rules_of(outcome)
        lines.append(
            Line(
                **where,
                kind="outcome",
                text=describe_outcome(outcome, battle),
                rules=rules,
                words=[catalogue.words(r) for r in rules],
                caused_by=outcome.caused_by,
            )
        )
    return lines


def rules_of(outcome: Outcome) -> list[str]:
    """The rule IDs an outcome's line cites: the clause that decided it, after the one that made
    its test due where they differ."""
    rules = [outcome.rule]
    trigger = getattr(outcome, "trigger", "")
    if trigger and trigger != outcome.rule:
        rules.insert(0, trigger)
    return rules


def _name(battle: Battle, unit_id: str) -> str:
    unit = battle.units.get(unit_id)
    return unit.name if unit else unit_id


def _words(slug: str) -> str:
    return slug.replace("_", " ")


def describe_event(event: AnyEvent, battle: Battle) -> str:
    match event:
        case BattleStarted():
            ruleset = battle.ruleset
            title = f"{event.name}: " if event.name else ""
            tables = "".join(
                f"; {name} table from {table.source or 'the log'} (sha256 {table.sha256[:12]})"
                for name, table in event.tables.items()
            )
            return (
                f"{title}battle begins under {ruleset.title} ({ruleset.id} v{ruleset.version}); "
                f"{event.sides[0]} takes the first turn; dice: {event.dice_policy}{tables}"
            )
        case UnitJoined():
            rules = f"; {', '.join(_words(r) for r in event.special_rules)}" if event.special_rules else ""
            ld = f", Ld {event.ld}" if event.ld is not None else ""
            models = f"{event.models} model{'s' * (event.models != 1)}"
            return f"{event.name} joins {event.side}: {models}, {_words(event.unit_type)}{ld}{rules}"
        case UnitChanged():
            changes = ", ".join(f"{_words(k)} {v}" for k, v in event.changes.items())
            note = f" ({event.note})" if event.note else ""
            return f"{_name(battle, event.unit)} changes: {changes}{note}"
        case PhaseStarted():
            return f"Start of the {_words(event.phase)} phase ({event.side}, turn {event.turn})"
        case PhaseEnded():
            return f"End of the {_words(event.phase)} phase ({event.side}, turn {event.turn})"
        case CasualtiesSuffered():
            cause = f" to {_words(event.cause)}" if event.cause else ""
            left = battle.units[event.unit].models
            return (
                f"{_name(battle, event.unit)} loses {event.count} model{'s' * (event.count > 1)}{cause} ({left} left)"
            )
        case CombatResolved():
            parts = [
                f"{side.side} ({', '.join(_name(battle, u) for u in side.units)}) inflict {side.wounds_inflicted}"
                + (f" +{side.bonus}" if side.bonus else "")
                + "".join(f" +{bonus} ({_name(battle, u)})" for u, bonus in side.unit_bonus.items() if bonus)
                + "".join(f", {_name(battle, u)} left the combat" for u in side.left_combat)
                for side in event.sides
            ]
            return "Combat resolved: " + "; ".join(parts)
        case ChargeDeclared():
            targets = ", ".join(_name(battle, t) for t in event.targets)
            in_range = ", ".join(_name(battle, t) for t in event.in_range) or "none"
            return f"{_name(battle, event.charger)} declares a charge on {targets} (in range: {in_range})"
        case TableFactRecorded():
            named = _name(battle, event.value) if isinstance(event.value, str) else event.value
            # A fact that no longer holds reads "no", not the machine's False.
            value = "" if event.value is True else ": no" if event.value is False else f": {named}"
            return f"At the table: {_name(battle, event.unit)} {_words(event.fact)}{value}"
        case DiceRolled():
            dice = " + ".join(str(d) for d in event.dice)
            rolls = "re-rolls" if event.reroll else "rolls"
            return f"{_name(battle, event.unit)} {rolls} for {_words(event.test)}: {dice} ({event.source})"
        case DiceRevealed() if event.commitment:
            return (
                "The dice secret is revealed: every engine roll made with it can now be recomputed, "
                "and the engine rolls on with a fresh secret it has committed to"
            )
        case DiceRevealed():
            return "The dice secret is revealed: every engine roll can now be recomputed"
        case SeedCommitted():
            return f"{event.side} commits to a seed for the engine's dice"
        case SeedRevealed():
            return f"{event.side} reveals its seed for the engine's dice"
        case PlayerDecided():
            note = f" ({event.note})" if event.note else ""
            return f"{_name(battle, event.unit)}: the player chooses to {_words(event.decision)}{note}"
        case RefereeRuled():
            parts = [f"state {battle.ruleset.state_name(event.state)}"] if event.state else []
            parts += ["tests waived"] if event.waive_tests else []
            return f"Referee's ruling on {_name(battle, event.unit)}: {', '.join(parts)}; reason: {event.reason}"
        case EventRetracted():
            return f"Event {event.seq} is struck from the log; reason: {event.reason}"
        case EntryConfirmed():
            return f"Confirmed as entered: {', '.join(f'event {seq}' for seq in event.seqs)}"
        case EntryDisputed():
            return f"Event {event.seq} is disputed; reason: {event.reason}"
        case DisputeResolved():
            return f"The dispute of event {event.seq} is resolved and the entry stands; ruling: {event.ruling}"
    return type(event).__name__


def reached(outcome: StateChanged, battle: Battle) -> str:
    """A state change no clause phrase words, in the ruleset's words for its states (the board's), so
    that a state has one name on the screen: "Boyz: falling back", "Halberdiers: still fleeing"."""
    state = battle.ruleset.state_name(outcome.to_state)
    if outcome.from_state == outcome.to_state:
        return f"still {state}"
    if outcome.to_state == "steady":
        return f"{state} again"
    if outcome.to_state == "destroyed":
        return f"{state}, its last model dead"
    return state


def describe_outcome(outcome: Outcome, battle: Battle) -> str:
    name = _name(battle, outcome.unit)
    match outcome:
        case TestDue():
            reports = " or ".join(_words(f) for f in outcome.facts)
            if outcome.dice == 0:
                return f"{name} waits for the table to report {reports} ({_words(outcome.test)})"
            needs = f", needs {outcome.target} or less" if outcome.target is not None else ""
            unless = f"; unless the table reports {reports}" if reports else ""
            roll = "re-roll" if outcome.reroll else "roll"
            return f"{name} must {roll} {outcome.dice}D6 for {_words(outcome.test)}{needs}{unless}"
        case TestNotTaken():
            because = f": {outcome.detail}" if outcome.detail else ""
            return f"{name} takes no {_words(outcome.test)} test{because}"
        case TestResolved():
            verdict = "passes" if outcome.passed else "fails"
            if outcome.automatic:
                return f"{name} {verdict} the {_words(outcome.test)} test automatically" + (
                    f" ({outcome.detail})" if outcome.detail else ""
                )
            if outcome.result:
                return _table_result(name, outcome, battle)
            if outcome.test == "sweeping_advance":
                caught = "escapes" if outcome.passed else "is caught"
                return f"{name} {caught}: {outcome.detail}"
            modifiers = "".join(
                f" {m.value:+d} ({m.reason}{', ignored: ' + m.ignored_by if m.ignored_by else ''})"
                for m in outcome.modifiers
            )
            dice = " + ".join(str(d) for d in outcome.dice)
            detail = f"; {outcome.detail}" if outcome.detail else ""
            return (
                f"{name} {verdict} the {_words(outcome.test)} test: {dice} = {outcome.total}"
                + (f" against {outcome.target}" if outcome.target is not None else "")
                + f"{modifiers}{detail}"
            )
        case StateChanged():
            phrases = battle.ruleset.phrases  # by "rule:state" where one rule leads to two states, else by rule
            if f"{outcome.rule}:{outcome.to_state}" in phrases:
                return f"{name} {phrases[f'{outcome.rule}:{outcome.to_state}']}"
            again = outcome.from_state == outcome.to_state == "falling_back"  # the rule that began it words no repeat
            if not again and outcome.rule in phrases:
                return f"{name} {phrases[outcome.rule]}"
            return f"{name}: {reached(outcome, battle)}"
        case StateChangeScheduled():
            return f"{name} will be {battle.ruleset.state_name(outcome.to_state)} at the {outcome.at}"
        case RestrictionApplied():
            return f"{name}: {_words(outcome.restriction)} until the {outcome.until}"
        case RestrictionLifted():
            return f"{name}: {_words(outcome.restriction)} ends"
        case ProfileChanged():
            return f"{name}: " + ", ".join(_profile_words(k, v) for k, v in outcome.changes.items())
        case MarkerPlaced():
            return f"{name}: {_words(outcome.marker)} marked" + (f" ({outcome.detail})" if outcome.detail else "")
        case EngagementChanged():
            where = "is in close combat" if outcome.engaged else "is out of the combat"
            return f"{name} {where}" + (f": {outcome.detail}" if outcome.detail else "")
        case Moved():
            dice = " + ".join(str(d) for d in outcome.dice)
            detail = f" {outcome.detail}" if outcome.detail else ""
            # A move the rules impose is a unit falling back (fleeing, retreating), in its ruleset's word.
            return f'{name} moves {outcome.inches:g}" ({dice}), {battle.ruleset.state_name("falling_back")}{detail}'
    return type(outcome).__name__


def _table_result(name: str, outcome: TestResolved, battle: Battle) -> str:
    """A test read in a column of a results table: the dice, each modifier, the total, the row.
    The ruleset may word a column ("column:brigade") or a result ("result:carry_on")."""
    phrases = battle.ruleset.phrases
    column = phrases.get(f"column:{outcome.column}", f"{_words(outcome.column)} column")
    result = phrases.get(f"result:{outcome.result}", _words(outcome.result).capitalize())
    dice = " + ".join(str(d) for d in outcome.dice)
    modifiers = "".join(
        f" {m.value:+d} ({m.reason}{', not counted: ' + m.ignored_by if m.ignored_by else ''})"
        for m in outcome.modifiers
    )
    detail = f"; {outcome.detail}" if outcome.detail else ""
    return f"{name} tests ({column}): {dice}{modifiers} = {outcome.total}: {result}{detail}"


def _profile_words(field: str, value: object) -> str:
    if value is True:
        return _words(field)
    if value is False:
        return f"no longer {_words(field)}"
    return f"{_words(field)} {_words(str(value))}"
