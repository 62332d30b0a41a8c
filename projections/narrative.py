"""The battle as a story: each event in words, followed by what it caused, each citing its rule ID."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from morale.core import catalogue
from morale.core.fold import Fold
from morale.core.outcomes import (
    EngagementChanged,
    MarkerPlaced,
    Modifier,
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
from morale.core.words import Words, counted, listed
from morale.events.types import (
    AnyEvent,
    BattleStarted,
    CasualtiesSuffered,
    ChargeDeclared,
    CombatResolved,
    CombatSide,
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
from .naming import known_as, phase_ended, phase_heading, phase_started, test_named


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
        heading = phase_heading(stored.event.turn, stored.event.side, stored.event.phase)
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


def _then(said: str, item: str) -> Words:
    """Two clauses of one line, one after the other: "...; orks (Boyz) inflict 3"."""
    return Words("{said}; {item}", said=said, item=item)


def _semicolons(items: Iterable[str]) -> str:
    """Items one after the other, each its own clause ("a; b; c"), in the reader's language."""
    said: str | None = None
    for item in items:
        said = item if said is None else _then(said, item)
    return "" if said is None else said


def _either(items: Iterable[str]) -> str:
    """ "a or b or c": the facts any of which the table may report."""
    said: str | None = None
    for item in items:
        said = item if said is None else Words("{said} or {item}", said=said, item=item)
    return "" if said is None else said


def _begun(event: BattleStarted, battle: Battle) -> Words:
    ruleset = battle.ruleset
    values = {
        "title": ruleset.title,
        "id": ruleset.id,
        "version": ruleset.version,
        "side": event.sides[0],
    }
    match event.dice_policy:
        case "table":
            said = Words(
                "battle begins under {title} ({id} v{version}); {side} takes the first turn; dice: table", **values
            )
        case "engine":
            said = Words(
                "battle begins under {title} ({id} v{version}); {side} takes the first turn; dice: engine", **values
            )
        case _:
            said = Words(
                "battle begins under {title} ({id} v{version}); {side} takes the first turn; dice: either", **values
            )
    for name, table in event.tables.items():
        sha = table.sha256[:12]
        if table.source:
            pinned = Words("{name} table from {source} (sha256 {sha})", name=name, source=table.source, sha=sha)
        else:
            pinned = Words("{name} table from the log (sha256 {sha})", name=name, sha=sha)
        said = _then(said, pinned)
    return Words("{name}: {said}", name=event.name, said=said) if event.name else said


def _special_rule(battle: Battle, rule: str) -> Words:
    """A special rule as the story names it: its machine name in English, as it always read, and the
    title of the clause that gives it effect in another language."""
    clause = battle.ruleset.special_rules.get(rule) if battle.ruleset is not None else None
    title = catalogue.title(clause) if clause else ""
    return known_as(_words(rule), title or _words(rule))


def _joined(event: UnitJoined, battle: Battle) -> Words:
    # The type in the game's own word (пехота), its machine value in English as it always read.
    unit_type = battle.ruleset.unit_type_name(event.unit_type)
    values = {"name": event.name, "side": event.side, "unit_type": unit_type, "ld": event.ld}
    rules = listed(_special_rule(battle, r) for r in event.special_rules)
    n = event.models
    if event.ld is not None and event.special_rules:
        return counted(
            "{name} joins {side}: {n} model, {unit_type}, Ld {ld}; {rules}",
            "{name} joins {side}: {n} models, {unit_type}, Ld {ld}; {rules}",
            n=n,
            rules=rules,
            **values,
        )
    if event.ld is not None:
        return counted(
            "{name} joins {side}: {n} model, {unit_type}, Ld {ld}",
            "{name} joins {side}: {n} models, {unit_type}, Ld {ld}",
            n=n,
            **values,
        )
    if event.special_rules:
        return counted(
            "{name} joins {side}: {n} model, {unit_type}; {rules}",
            "{name} joins {side}: {n} models, {unit_type}; {rules}",
            n=n,
            rules=rules,
            **values,
        )
    return counted(
        "{name} joins {side}: {n} model, {unit_type}", "{name} joins {side}: {n} models, {unit_type}", n=n, **values
    )


def _casualties(event: CasualtiesSuffered, battle: Battle) -> Words:
    name, left, n = _name(battle, event.unit), battle.units[event.unit].models, event.count
    if event.cause:
        # The cause in the ruleset's words where it names it ("Dangerous terrain"), for a reader not in English.
        # A cause typed in words ("close combat") is the ruleset's `close_combat` as well.
        causes = battle.ruleset.casualty_causes
        named = causes.get(event.cause) or causes.get(event.cause.replace(" ", "_"), _words(event.cause))
        cause = known_as(_words(event.cause), named)
        return counted(
            "{name} loses {n} model to {cause} ({left} left)",
            "{name} loses {n} models to {cause} ({left} left)",
            n=n,
            name=name,
            cause=cause,
            left=left,
        )
    return counted(
        "{name} loses {n} model ({left} left)", "{name} loses {n} models ({left} left)", n=n, name=name, left=left
    )


def _combat_side(side: CombatSide, battle: Battle) -> Words:
    units = listed(_name(battle, u) for u in side.units)
    said = Words("{side} ({units}) inflict {wounds}", side=side.side, units=units, wounds=side.wounds_inflicted)
    if side.bonus:
        said = Words("{said} +{bonus}", said=said, bonus=side.bonus)
    for u, bonus in side.unit_bonus.items():
        if bonus:
            said = Words("{said} +{bonus} ({unit})", said=said, bonus=bonus, unit=_name(battle, u))
    for u in side.left_combat:
        said = Words("{said}, {unit} left the combat", said=said, unit=_name(battle, u))
    return said


def _ruled(event: RefereeRuled, battle: Battle) -> Words:
    values = {"unit": _name(battle, event.unit), "reason": event.reason}
    if event.state and event.waive_tests:
        state = battle.ruleset.state_name(event.state)
        return Words("Referee's ruling on {unit}: state {state}, tests waived; reason: {reason}", state=state, **values)
    if event.state:
        state = battle.ruleset.state_name(event.state)
        return Words("Referee's ruling on {unit}: state {state}; reason: {reason}", state=state, **values)
    if event.waive_tests:
        return Words("Referee's ruling on {unit}: tests waived; reason: {reason}", **values)
    return Words("Referee's ruling on {unit}: ; reason: {reason}", **values)


def describe_event(event: AnyEvent, battle: Battle) -> str:
    match event:
        case BattleStarted():
            return _begun(event, battle)
        case UnitJoined():
            return _joined(event, battle)
        case UnitChanged():
            changes = listed(_changed(battle, k, v) for k, v in event.changes.items())
            name = _name(battle, event.unit)
            if event.note:
                return Words("{name} changes: {changes} ({note})", name=name, changes=changes, note=event.note)
            return Words("{name} changes: {changes}", name=name, changes=changes)
        case PhaseStarted():
            return phase_started(event.turn, event.side, event.phase)
        case PhaseEnded():
            return phase_ended(event.turn, event.side, event.phase)
        case CasualtiesSuffered():
            return _casualties(event, battle)
        case CombatResolved():
            return Words(
                "Combat resolved: {sides}", sides=_semicolons(_combat_side(side, battle) for side in event.sides)
            )
        case ChargeDeclared():
            charger, targets = _name(battle, event.charger), listed(_name(battle, t) for t in event.targets)
            if not event.in_range:
                return Words(
                    "{charger} declares a charge on {targets} (in range: none)", charger=charger, targets=targets
                )
            in_range = listed(_name(battle, t) for t in event.in_range)
            return Words(
                "{charger} declares a charge on {targets} (in range: {in_range})",
                charger=charger,
                targets=targets,
                in_range=in_range,
            )
        case TableFactRecorded():
            # The fact in the game's words (Russian "достигло края стола"), in English as it always read.
            unit, fact = _name(battle, event.unit), battle.ruleset.fact_name(event.fact)
            # A fact that no longer holds reads "no", not the machine's False.
            if event.value is True:
                return Words("At the table: {unit} {fact}", unit=unit, fact=fact)
            if event.value is False:
                return Words("At the table: {unit} {fact}: no", unit=unit, fact=fact)
            named = _fact_value(battle, event.fact, event.value)
            return Words("At the table: {unit} {fact}: {value}", unit=unit, fact=fact, value=named)
        case DiceRolled():
            values = {
                "unit": _name(battle, event.unit),
                "test": test_named(battle.ruleset, event.test),
                "dice": " + ".join(str(d) for d in event.dice),
            }
            if event.reroll and event.source == "engine":
                return Words("{unit} re-rolls for {test}: {dice} (engine)", **values)
            if event.reroll:
                return Words("{unit} re-rolls for {test}: {dice} (table)", **values)
            if event.source == "engine":
                return Words("{unit} rolls for {test}: {dice} (engine)", **values)
            return Words("{unit} rolls for {test}: {dice} (table)", **values)
        case DiceRevealed() if event.commitment:
            return Words(
                "The dice secret is revealed: every engine roll made with it can now be recomputed, "
                "and the engine rolls on with a fresh secret it has committed to"
            )
        case DiceRevealed():
            return Words("The dice secret is revealed: every engine roll can now be recomputed")
        case SeedCommitted():
            return Words("{side} commits to a seed for the engine's dice", side=event.side)
        case SeedRevealed():
            return Words("{side} reveals its seed for the engine's dice", side=event.side)
        case PlayerDecided():
            unit, decision = _name(battle, event.unit), battle.ruleset.decision_name(event.decision)
            if event.note:
                return Words(
                    "{unit}: the player chooses to {decision} ({note})", unit=unit, decision=decision, note=event.note
                )
            return Words("{unit}: the player chooses to {decision}", unit=unit, decision=decision)
        case RefereeRuled():
            return _ruled(event, battle)
        case EventRetracted():
            return Words("Event {seq} is struck from the log; reason: {reason}", seq=event.seq, reason=event.reason)
        case EntryConfirmed():
            return Words(
                "Confirmed as entered: {events}", events=listed(Words("event {seq}", seq=seq) for seq in event.seqs)
            )
        case EntryDisputed():
            return Words("Event {seq} is disputed; reason: {reason}", seq=event.seq, reason=event.reason)
        case DisputeResolved():
            return Words(
                "The dispute of event {seq} is resolved and the entry stands; ruling: {ruling}",
                seq=event.seq,
                ruling=event.ruling,
            )
    return type(event).__name__


def reached(outcome: StateChanged, battle: Battle) -> str:
    """A state change no clause phrase words, in the ruleset's words for its states (the board's), so
    that a state has one name on the screen: "Boyz: falling back", "Halberdiers: still fleeing"."""
    state = battle.ruleset.state_name(outcome.to_state)
    if outcome.from_state == outcome.to_state:
        return Words("still {state}", state=state)
    if outcome.to_state == "steady":
        return Words("{state} again", state=state)
    if outcome.to_state == "destroyed":
        return Words("{state}, its last model dead", state=state)
    return state


def _modified(said: str, modifiers: Iterable[Modifier], *, table: bool = False) -> str:
    """`said` followed by each modifier: " -1 (lost close combat)", with the rule that cancels it
    ("ignored" for a test's, "not counted" in a results table)."""
    for m in modifiers:
        if m.ignored_by and table:
            said = Words(
                "{said} {value:+d} ({reason}, not counted: {rule})",
                said=said,
                value=m.value,
                reason=m.reason,
                rule=m.ignored_by,
            )
        elif m.ignored_by:
            said = Words(
                "{said} {value:+d} ({reason}, ignored: {rule})",
                said=said,
                value=m.value,
                reason=m.reason,
                rule=m.ignored_by,
            )
        else:
            said = Words("{said} {value:+d} ({reason})", said=said, value=m.value, reason=m.reason)
    return said


def _due(outcome: TestDue, name: str, battle: Battle) -> Words:
    test = test_named(battle.ruleset, outcome.test)
    reports = _either(battle.ruleset.fact_name(f) for f in outcome.facts)
    if outcome.dice == 0:
        return Words("{name} waits for the table to report {reports} ({test})", name=name, reports=reports, test=test)
    values = {"name": name, "dice": outcome.dice, "test": test, "target": outcome.target}
    if outcome.reroll and outcome.target is not None:
        said = Words("{name} must re-roll {dice}D6 for {test}, needs {target} or less", **values)
    elif outcome.reroll:
        said = Words("{name} must re-roll {dice}D6 for {test}", **values)
    elif outcome.target is not None:
        said = Words("{name} must roll {dice}D6 for {test}, needs {target} or less", **values)
    else:
        said = Words("{name} must roll {dice}D6 for {test}", **values)
    if reports:
        return Words("{said}; unless the table reports {reports}", said=said, reports=reports)
    return said


def _resolved(outcome: TestResolved, name: str, battle: Battle) -> str:
    test = test_named(battle.ruleset, outcome.test)
    if outcome.automatic:
        if outcome.passed and outcome.detail:
            return Words(
                "{name} passes the {test} test automatically ({detail})", name=name, test=test, detail=outcome.detail
            )
        if outcome.passed:
            return Words("{name} passes the {test} test automatically", name=name, test=test)
        if outcome.detail:
            return Words(
                "{name} fails the {test} test automatically ({detail})", name=name, test=test, detail=outcome.detail
            )
        return Words("{name} fails the {test} test automatically", name=name, test=test)
    if outcome.result:
        return _table_result(name, outcome, battle)
    if outcome.test == "sweeping_advance":
        if outcome.passed:
            return Words("{name} escapes: {detail}", name=name, detail=outcome.detail)
        return Words("{name} is caught: {detail}", name=name, detail=outcome.detail)
    values = {
        "name": name,
        "test": test,
        "dice": " + ".join(str(d) for d in outcome.dice),
        "total": outcome.total,
        "target": outcome.target,
    }
    if outcome.passed and outcome.target is not None:
        said = Words("{name} passes the {test} test: {dice} = {total} against {target}", **values)
    elif outcome.passed:
        said = Words("{name} passes the {test} test: {dice} = {total}", **values)
    elif outcome.target is not None:
        said = Words("{name} fails the {test} test: {dice} = {total} against {target}", **values)
    else:
        said = Words("{name} fails the {test} test: {dice} = {total}", **values)
    said = _modified(said, outcome.modifiers)
    return _then(said, outcome.detail) if outcome.detail else said


def describe_outcome(outcome: Outcome, battle: Battle) -> str:
    name = _name(battle, outcome.unit)
    match outcome:
        case TestDue():
            return _due(outcome, name, battle)
        case TestNotTaken():
            test = test_named(battle.ruleset, outcome.test)
            if outcome.detail:
                return Words("{name} takes no {test} test: {detail}", name=name, test=test, detail=outcome.detail)
            return Words("{name} takes no {test} test", name=name, test=test)
        case TestResolved():
            return _resolved(outcome, name, battle)
        case StateChanged():
            phrases = battle.ruleset.phrases  # by "rule:state" where one rule leads to two states, else by rule
            if f"{outcome.rule}:{outcome.to_state}" in phrases:
                return Words("{name} {phrase}", name=name, phrase=phrases[f"{outcome.rule}:{outcome.to_state}"])
            again = outcome.from_state == outcome.to_state == "falling_back"  # the rule that began it words no repeat
            if not again and outcome.rule in phrases:
                return Words("{name} {phrase}", name=name, phrase=phrases[outcome.rule])
            return Words("{name}: {state}", name=name, state=reached(outcome, battle))
        case StateChangeScheduled():
            state = battle.ruleset.state_name(outcome.to_state)
            return Words("{name} will be {state} at the {at}", name=name, state=state, at=outcome.at)
        case RestrictionApplied():
            restriction = _restriction(battle, outcome.restriction)
            return Words(
                "{name}: {restriction} until the {until}", name=name, restriction=restriction, until=outcome.until
            )
        case RestrictionLifted():
            return Words("{name}: {restriction} ends", name=name, restriction=_restriction(battle, outcome.restriction))
        case ProfileChanged():
            changes = listed(_profile_words(battle, k, v) for k, v in outcome.changes.items())
            return Words("{name}: {changes}", name=name, changes=changes)
        case MarkerPlaced():
            if outcome.detail:
                return Words(
                    "{name}: {marker} marked ({detail})",
                    name=name,
                    marker=battle.ruleset.marker_name(outcome.marker),
                    detail=outcome.detail,
                )
            return Words("{name}: {marker} marked", name=name, marker=battle.ruleset.marker_name(outcome.marker))
        case EngagementChanged():
            if outcome.engaged and outcome.detail:
                return Words("{name} is in close combat: {detail}", name=name, detail=outcome.detail)
            if outcome.engaged:
                return Words("{name} is in close combat", name=name)
            if outcome.detail:
                return Words("{name} is out of the combat: {detail}", name=name, detail=outcome.detail)
            return Words("{name} is out of the combat", name=name)
        case Moved():
            # A move the rules impose is a unit falling back (fleeing, retreating), in its ruleset's word.
            values = {
                "name": name,
                "inches": outcome.inches,
                "dice": " + ".join(str(d) for d in outcome.dice),
                "state": battle.ruleset.state_name("falling_back"),
            }
            if outcome.detail:
                return Words('{name} moves {inches:g}" ({dice}), {state} {detail}', detail=outcome.detail, **values)
            return Words('{name} moves {inches:g}" ({dice}), {state}', **values)
    return type(outcome).__name__


def _restriction(battle: Battle, restriction: str) -> Words:
    """A restriction as the story names it: its machine name in English, the ruleset's words for
    what it forbids elsewhere (the board's)."""
    return known_as(_words(restriction), battle.ruleset.restrictions.get(restriction, _words(restriction)))


def _table_result(name: str, outcome: TestResolved, battle: Battle) -> str:
    """A test read in a column of a results table: the dice, each modifier, the total, the row.
    The ruleset may word a column ("column:brigade") or a result ("result:carry_on")."""
    phrases = battle.ruleset.phrases
    column = phrases.get(f"column:{outcome.column}") or Words("{column} column", column=_words(outcome.column))
    result = phrases.get(f"result:{outcome.result}", _words(outcome.result).capitalize())
    rolled = _modified(" + ".join(str(d) for d in outcome.dice), outcome.modifiers, table=True)
    said = Words(
        "{name} tests ({column}): {rolled} = {total}: {result}",
        name=name,
        column=column,
        rolled=rolled,
        total=outcome.total,
        result=result,
    )
    return _then(said, outcome.detail) if outcome.detail else said


def _profile_words(battle: Battle, field: str, value: object) -> str:
    """A profile change the rules make, in the game's words for the field and its value."""
    named = battle.ruleset.field_name(field)
    if value is True:
        return named
    if value is False:
        return Words("no longer {field}", field=named)
    return Words("{field} {value}", field=named, value=battle.ruleset.value_name(field, str(value)))


def _changed(battle: Battle, field: str, value: object) -> Words:
    """A change the table records: the field and its value in the game's words; in English the
    value as it was typed, as the story always printed it."""
    if isinstance(value, str):
        value = known_as(value, battle.ruleset.value_name(field, value))
    return Words("{field} {value}", field=battle.ruleset.field_name(field), value=value)


def _fact_value(battle: Battle, fact: str, value: object) -> object:
    """A fact's value as the story says it: a unit by its name, one of the fact's choices in the
    game's words (its machine value in English, as it always read), a number as it is."""
    if not isinstance(value, str):
        return value
    if value in battle.units:
        return battle.units[value].name
    return known_as(value, battle.ruleset.value_name(fact, value))
