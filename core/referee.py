"""The referee: `decide` accepts or refuses a proposed event (`evolve`, in `evolve.py`, folds it in).

`decide` only reads. Each type of event has its check, found by the event's exact type; the checks
every ruleset shares live here, the rules themselves in the rulesets. The lookups below refuse with a
message naming the field, and `evolve` uses them too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

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
    Event,
    EventRetracted,
    PhaseEnded,
    PhaseStarted,
    PlayerDecided,
    RefereeRuled,
    SeedCommitted,
    SeedRevealed,
    TableFactRecorded,
    UnitChanged,
    UnitJoined,
)

from . import order, rules
from .dice import commitment, seeds_awaited
from .rules import Refusal, every_event_type, filed_under, taken_mark
from .rulesets import lookup
from .state import Battle, DueTest, Unit
from .view import BattleView
from .words import Words, counted, listed


def decide(battle: Battle | None, event: AnyEvent) -> None:
    """Raise `Refusal` if `event` may not follow the log that built `battle`; otherwise return."""
    if type(event) is BattleStarted:
        if battle is not None:
            raise Refusal(Words("this battle has already started"), field="type")
        ruleset = lookup(event.ruleset, event.ruleset_version)
        if event.sides[0] == event.sides[1]:
            raise Refusal(Words("the two sides must have different names"), field="sides")
        ruleset.check_house_rules(event.house_rules)
        ruleset.check_tables(event.tables)
        return
    if battle is None:
        raise Refusal(Words("the first event of a battle must be battle_started"), field="type")
    # One check an event type, found by the event's exact type, as `evolve` finds its fold; then the
    # game's own checks of that type (`Rulebook.check`), the ones it declares first before it.
    book = battle.ruleset.rulebook
    for field, names, check in book.checks_first.get(type(event), ()):
        if not names or getattr(event, field) in names:
            check(battle, event)
    _DECISIONS[type(event)](battle, event)
    for field, names, check in book.checks.get(type(event), ()):
        if not names or getattr(event, field) in names:
            check(battle, event)


# What each type of event must satisfy to be accepted: event type -> check(battle, event), raising
# Refusal. Each check is filed under its type where it is written (`@filed_under(_DECISIONS, DiceRolled)`).
_DECISIONS: dict[type[Event], Callable[[Battle, Any], None]] = {}


@filed_under(_DECISIONS, UnitJoined)
def _unit_joined(battle: Battle, event: UnitJoined) -> None:
    if event.unit in battle.units:
        raise Refusal(Words("unit {unit!r} has already joined this battle", unit=event.unit), field="unit")
    _check_side(battle, event.side)
    battle.ruleset.check_unit(battle, event)


@filed_under(_DECISIONS, UnitChanged)
def _unit_changed(battle: Battle, event: UnitChanged) -> None:
    unit = living_unit(battle, event.unit)
    battle.ruleset.check_unit_change(battle, unit, event)


@filed_under(_DECISIONS, PhaseStarted)
def _phase_started(battle: Battle, event: PhaseStarted) -> None:
    _check_no_tests_due(
        battle, lambda waiting: Words("cannot start a phase while tests are due: {waiting}", waiting=waiting)
    )
    expected = next_phase(battle)
    if battle.phase_open or (event.turn, event.side, event.phase) != expected:
        raise Refusal(_clock_message(battle, event, expected), rule=rules.CLOCK_ORDER)


@filed_under(_DECISIONS, PhaseEnded)
def _phase_ended(battle: Battle, event: PhaseEnded) -> None:
    _check_no_tests_due(
        battle, lambda waiting: Words("cannot end the phase while tests are due: {waiting}", waiting=waiting)
    )
    current = (battle.turn, battle.active_side, battle.phase)
    if not battle.phase_open or (event.turn, event.side, event.phase) != current:
        raise Refusal(_clock_message(battle, event, current), rule=rules.CLOCK_ORDER)


@filed_under(_DECISIONS, CasualtiesSuffered)
def _casualties_suffered(battle: Battle, event: CasualtiesSuffered) -> None:
    unit = living_unit(battle, event.unit)
    if event.count > unit.models:
        raise Refusal(
            counted(
                "{unit} has only {n} model left, not {count}",
                "{unit} has only {n} models left, not {count}",
                n=unit.models,
                unit=unit.id,
                count=event.count,
            ),
            field="count",
        )


@filed_under(_DECISIONS, CombatResolved)
def _combat_resolved(battle: Battle, event: CombatResolved) -> None:
    _check_no_tests_due(
        battle, lambda waiting: Words("cannot resolve a combat while tests are due: {waiting}", waiting=waiting)
    )
    seen: set[str] = set()
    if event.sides[0].side == event.sides[1].side:
        raise Refusal(Words("a combat is fought between two different sides"), field="sides")
    for side in event.sides:
        _check_side(battle, side.side)
        for unit_id in side.units:
            unit = living_unit(battle, unit_id, field="units")
            if unit.side != side.side or unit_id in seen:
                raise Refusal(
                    Words("unit {unit!r} cannot fight for {side!r} here", unit=unit_id, side=side.side), field="units"
                )
            seen.add(unit_id)
        _check_combat_detail(battle, side)


@filed_under(_DECISIONS, ChargeDeclared)
def _charge_declared(battle: Battle, event: ChargeDeclared) -> None:
    _check_no_tests_due(
        battle, lambda waiting: Words("cannot declare a charge while tests are due: {waiting}", waiting=waiting)
    )
    charger = living_unit(battle, event.charger, field="charger")
    for target_id in event.targets:
        target = living_unit(battle, target_id, field="targets")
        if target.side == charger.side:
            raise Refusal(Words("{target!r} is on the charger's own side", target=target_id), field="targets")
    stray = [t for t in event.in_range if t not in event.targets]
    if stray:
        raise Refusal(Words("{unit!r} is in range but was not declared a target", unit=stray[0]), field="in_range")
    stray = [t for t in event.flank if t not in event.targets]
    if stray:
        raise Refusal(
            Words("{unit!r} is charged in the flank but was not declared a target", unit=stray[0]), field="flank"
        )


@filed_under(_DECISIONS, TableFactRecorded)
def _table_fact_recorded(battle: Battle, event: TableFactRecorded) -> None:
    living_unit(battle, event.unit)
    if event.fact not in battle.ruleset.facts:
        known = listed(battle.ruleset.facts)
        raise Refusal(
            Words(
                "{ruleset} knows no fact {fact!r} (known: {known})",
                ruleset=battle.ruleset.id,
                fact=event.fact,
                known=known,
            ),
            field="fact",
        )


@filed_under(_DECISIONS, DiceRolled)
def _dice_rolled(battle: Battle, event: DiceRolled) -> None:
    unit = living_unit(battle, event.unit)
    tests = battle.ruleset.tests
    if event.test not in tests:  # a typo ("moral") is named as one, not read as the wrong test due
        raise Refusal(
            Words(
                "{ruleset} has no {test!r} test (tests: {tests})",
                ruleset=battle.ruleset.id,
                test=event.test,
                tests=listed(tests),
            ),
            field="test",
        )
    _check_once_per_phase(battle, unit, event.test)
    due = due_test(battle, event.unit, event.test)
    if due.dice == 0:
        raise Refusal(
            Words(
                "the {test} of {unit} takes no dice: the table reports {facts}",
                test=event.test,
                unit=event.unit,
                facts=either(due.facts),
            ),
            field="dice",
        )
    if event.reroll and not due.reroll:
        raise Refusal(
            Words(
                "no rule grants {unit} a re-roll of its {test} test",
                unit=unit.id,
                test=battle.ruleset.test_said(event.test),
            ),
            rule=rules.REROLL,
        )
    if due.reroll and not event.reroll:
        raise Refusal(
            Words(
                "these dice re-roll {unit}'s failed {test} test ({rule}): record them as a re-roll (reroll: true;"
                " `morale roll ... --reroll`)",
                unit=unit.id,
                test=event.test,
                rule=due.reroll,
            ),
            field="reroll",
        )
    order.check_turn(battle, due)
    if len(event.dice) != due.dice:
        raise Refusal(
            counted(
                "the {test} roll for {unit} takes {n} die, not {given}",
                "the {test} roll for {unit} takes {n} dice, not {given}",
                n=due.dice,
                test=event.test,
                unit=event.unit,
                given=len(event.dice),
            ),
            field="dice",
        )
    if battle.dice_policy != "either" and event.source != battle.dice_policy:
        raise Refusal(
            _BY[(battle.dice_policy, event.source)],
            field="source",
        )
    if event.source == "engine":
        if battle.dice_secret and not battle.dice_commitment:
            raise Refusal(
                Words("the dice secret is public and no fresh one was committed: the engine rolls no more"),
                rule=rules.DICE_REVEAL,
            )
        awaited = seeds_awaited(battle)
        if awaited:
            raise Refusal(
                Words(
                    "the engine rolls no dice until the players' seeds are revealed (awaited: {sides})",
                    sides=listed(awaited),
                ),
                rule=rules.SEED_WAIT,
            )


@filed_under(_DECISIONS, DiceRevealed)
def _dice_revealed(battle: Battle, event: DiceRevealed) -> None:
    if battle.dice_secret and not battle.dice_commitment:
        raise Refusal(
            Words("the dice secret is already revealed and no fresh one was committed"), rule=rules.DICE_REVEAL
        )
    if not battle.dice_commitment:
        raise Refusal(Words("this battle committed to no dice secret: the engine never rolled"), field="secret")
    if commitment(event.secret) != battle.dice_commitment:
        raise Refusal(Words("this secret does not hash to the battle's dice commitment"), field="secret")
    if event.commitment == battle.dice_commitment:
        raise Refusal(
            Words("the fresh commitment must be to a new secret, not to the one revealed"), field="commitment"
        )


@filed_under(_DECISIONS, SeedCommitted)
def _seed_committed(battle: Battle, event: SeedCommitted) -> None:
    _check_side(battle, event.side)
    if not battle.dice_commitment:
        raise Refusal(
            Words("the engine holds no committed dice secret in this battle: there is nothing to mix a seed into"),
            rule=rules.SEED_COMMIT,
        )
    if event.side in battle.seed_commitments:
        raise Refusal(
            Words("{side} has already committed to a seed for this dice secret", side=event.side),
            rule=rules.SEED_COMMIT,
        )
    if battle.seeds:
        raise Refusal(
            Words("a seed has already been revealed: a commitment made now could be chosen after seeing it"),
            rule=rules.SEED_COMMIT,
        )


@filed_under(_DECISIONS, SeedRevealed)
def _seed_revealed(battle: Battle, event: SeedRevealed) -> None:
    _check_side(battle, event.side)
    committed = battle.seed_commitments.get(event.side)
    if committed is None:
        raise Refusal(
            Words("{side} has committed to no seed for this dice secret", side=event.side), rule=rules.SEED_REVEAL
        )
    if event.side in battle.seeds:
        raise Refusal(Words("the seed of {side} is already revealed", side=event.side), rule=rules.SEED_REVEAL)
    waiting = [side for side in battle.sides if side not in battle.seed_commitments]
    if waiting:
        raise Refusal(
            Words(
                "a seed is revealed only once both sides have committed (not yet committed: {sides})",
                sides=listed(waiting),
            ),
            rule=rules.SEED_REVEAL,
        )
    if commitment(event.seed) != committed:
        raise Refusal(
            Words("this seed does not hash to the commitment of {side}", side=event.side), rule=rules.SEED_REVEAL
        )


@filed_under(_DECISIONS, PlayerDecided)
def _player_decided(battle: Battle, event: PlayerDecided) -> None:
    unit = living_unit(battle, event.unit)
    if event.decision in battle.ruleset.free_decisions:
        return  # a decision a game allows when its rules do: the game's own check says when
    if event.decision == rules.TEST_FIRST and battle.ruleset.ordered_tests:
        order.check_choice(battle, unit.id)
    else:
        order.check_turn(battle, first_due(battle, unit.id, event.decision))


@filed_under(_DECISIONS, RefereeRuled)
def _referee_ruled(battle: Battle, event: RefereeRuled) -> None:
    unit = known_unit(battle, event.unit)
    if event.state is None and not event.waive_tests:
        raise Refusal(Words("a ruling must set a state or waive the unit's tests"), field="state")
    if event.state is not None and event.state not in battle.ruleset.graph.states:
        raise Refusal(
            Words("{ruleset} has no state {state!r}", ruleset=battle.ruleset.id, state=event.state), field="state"
        )
    if event.waive_tests and not battle.due_for(unit.id):
        raise Refusal(Words("{unit} has no tests due to waive", unit=unit.id), field="waive_tests")


@filed_under(_DECISIONS, EventRetracted)
def _event_retracted(battle: Battle, event: EventRetracted) -> None:
    if event.seq > battle.seq:
        raise Refusal(
            Words("there is no event {seq} yet (last is {last})", seq=event.seq, last=battle.seq), field="seq"
        )
    if event.seq == 1:
        raise Refusal(Words("battle_started cannot be struck: start a new battle instead"), field="seq")


@filed_under(_DECISIONS, EntryConfirmed)
def _entry_confirmed(battle: Battle, event: EntryConfirmed) -> None:
    _check_confirmation(battle)
    for seq in event.seqs:
        _check_not_the_start(battle, seq, "seqs")


@filed_under(_DECISIONS, EntryDisputed)
def _entry_disputed(battle: Battle, event: EntryDisputed) -> None:
    _check_confirmation(battle)
    _check_not_the_start(battle, event.seq, "seq")


@filed_under(_DECISIONS, DisputeResolved)
def _dispute_resolved(battle: Battle, event: DisputeResolved) -> None:
    _check_confirmation(battle)
    _check_not_the_start(battle, event.seq, "seq")


def _check_confirmation(battle: Battle) -> None:
    # Who may confirm, dispute or resolve what is the claims ledger's to say (it reads authors);
    # the referee knows only whether the battle asks for confirmation at all.
    if not battle.confirmation:
        raise Refusal(
            Words("this battle does not ask the players to confirm each other's entries"), rule=rules.CLAIM_OPEN
        )


def _check_not_the_start(battle: Battle, seq: int, field: str) -> None:
    # Not "no such event yet": a strike refolds the log without the struck event, and an answer to
    # it must not then read as an answer to an event still to come (the ledger checks what exists).
    if seq == 1:
        raise Refusal(Words("the battle's start is no one's entry to confirm or dispute"), field=field)


# -- lookups that refuse with a message naming the field -----------------------------------------
def known_unit(battle: Battle, unit_id: str, field: str = "unit") -> Unit:
    unit = battle.units.get(unit_id)
    if unit is None:
        raise Refusal(Words("no unit {unit!r} in this battle", unit=unit_id), field=field)
    return unit


def living_unit(battle: Battle, unit_id: str, field: str = "unit") -> Unit:
    unit = known_unit(battle, unit_id, field)
    if not unit.alive:
        raise Refusal(
            Words("{unit} is {state} and out of the battle", unit=unit_id, state=battle.ruleset.state_name(unit.state)),
            field=field,
        )
    return unit


def oldest_due(battle: BattleView, unit_id: str) -> DueTest | None:
    """The unit's oldest due test, the one it takes next (None: it has none due)."""
    return next((due for due in battle.due if due.unit == unit_id), None)


def due_test(battle: BattleView, unit_id: str, test: str) -> DueTest:
    """The test these dice are for: the unit's oldest due test, which must be the one named.
    A unit takes its tests in the order they fell due (a Sweeping Advance before anything else)."""
    first = oldest_due(battle, unit_id)
    if first is None:
        if not battle.due:
            raise Refusal(
                Words("no {test} roll is due for {unit} (due now: nothing)", test=test, unit=unit_id), rule=rules.DICE
            )
        waiting = listed(Words("{test} ({unit})", test=t.test, unit=t.unit) for t in battle.due)
        raise Refusal(
            Words("no {test} roll is due for {unit} (due now: {waiting})", test=test, unit=unit_id, waiting=waiting),
            rule=rules.DICE,
        )
    if first.test != test:
        raise Refusal(
            Words(
                "{unit} must first roll for {test} ({rule})",
                unit=unit_id,
                test=battle.ruleset.test_said(first.test),
                rule=first.rule,
            ),
            rule=rules.DICE,
        )
    return first


def first_due(battle: BattleView, unit_id: str, decision: str) -> DueTest:
    """The due test a decision settles: the unit's oldest, and it must offer that decision."""
    first = oldest_due(battle, unit_id)
    if first is None or decision not in first.decisions:
        if first is None or not first.decisions:
            raise Refusal(
                Words(
                    "{unit}'s next due test is not settled by {decision!r} (open decisions: none)",
                    unit=unit_id,
                    decision=decision,
                ),
                rule=rules.DECISION,
            )
        raise Refusal(
            Words(
                "{unit}'s next due test is not settled by {decision!r} (open decisions: {offered})",
                unit=unit_id,
                decision=decision,
                offered=listed(first.decisions),
            ),
            rule=rules.DECISION,
        )
    return first


def next_phase(battle: Battle) -> tuple[int, str, str]:
    """The (turn, side, phase) that must start next, in the ruleset's order."""
    phases = battle.ruleset.phases
    if battle.turn == 0:
        return (1, battle.sides[0], phases[0])
    turn, side_index, phase_index = battle.point
    if phase_index + 1 < len(phases):
        return (turn, battle.sides[side_index], phases[phase_index + 1])
    if side_index + 1 < len(battle.sides) and not battle.ruleset.shared_turn:
        return (turn, battle.sides[side_index + 1], phases[0])
    return (turn + 1, battle.sides[0], phases[0])


def _clock_message(
    battle: Battle, event: PhaseStarted | PhaseEnded, expected: tuple[int, str | None, str | None]
) -> str:
    got = Words("turn {turn}, {side}, {phase}", turn=event.turn, side=event.side, phase=event.phase)
    if isinstance(event, PhaseEnded):
        if not battle.phase_open:
            return Words("cannot end {got}: no phase is in progress", got=got)
        return Words(
            "cannot end {got}: the phase in progress is turn {turn}, {side}, {phase}",
            got=got,
            turn=expected[0],
            side=expected[1],
            phase=expected[2],
        )
    if battle.phase_open:
        return Words("cannot start {got}: {phase} has not ended", got=got, phase=battle.phase)
    return Words(
        "cannot start {got}: next is turn {turn}, {side}, {phase}",
        got=got,
        turn=expected[0],
        side=expected[1],
        phase=expected[2],
    )


def _check_side(battle: Battle, side: str) -> None:
    if side not in battle.sides:
        raise Refusal(
            Words("no side {side!r} in this battle (sides: {sides})", side=side, sides=listed(battle.sides)),
            field="side",
        )


def _check_once_per_phase(battle: Battle, unit: Unit, test: str) -> None:
    """Dice for a test the unit may take once a phase, and has taken, with none of that kind due."""
    limit = battle.ruleset.once_per_phase.get(test)
    due_now = any(t.test == test for t in battle.due_for(unit.id))
    if limit and not due_now and taken_mark(test) in unit.phase_marks:
        said = battle.ruleset.test_said(test)
        raise Refusal(Words("{unit} has already taken its {test} test this phase", unit=unit.id, test=said), rule=limit)


def _check_combat_detail(battle: Battle, side: CombatSide) -> None:
    """Per-unit detail of a combat report: only what the ruleset reads, and only about the side's units."""
    for name, value in (("ranks", side.ranks), ("unit_bonus", side.unit_bonus), ("left_combat", side.left_combat)):
        if not value:
            continue
        if name not in battle.ruleset.combat_detail:
            raise Refusal(
                Words("{ruleset} reads no {detail} in a combat report", ruleset=battle.ruleset.id, detail=name),
                field=name,
            )
        stray = [u for u in value if u not in side.units]
        if stray:
            raise Refusal(
                Words("{unit!r} is not among {side}'s units in this combat", unit=stray[0], side=side.side), field=name
            )


def _check_no_tests_due(battle: Battle, refused: Callable[[str], str]) -> None:
    """While tests are due, refuse what `refused` words, given the tests waiting."""
    if battle.due:
        waiting = listed(
            Words("{test} for {unit} ({rule})", test=battle.ruleset.test_said(t.test), unit=t.unit, rule=t.rule)
            for t in battle.due
        )
        raise Refusal(refused(waiting), rule=rules.TESTS_FIRST)


def either(names: Iterable[str]) -> str:
    """Names as alternatives ("a or b or c"), each said in the reader's language if it is `Words`."""
    said: str = ""
    for name in names:
        said = Words("{first} or {second}", first=said, second=name) if said else name
    return said


# Who rolls a battle's dice, and who rolled these (`dice_policy` "table" or "engine", the other `source`).
_BY = {
    ("table", "engine"): Words("this battle's dice are rolled by the table, not the engine"),
    ("engine", "table"): Words("this battle's dice are rolled by the engine, not the table"),
}


# The log's own list of event types (`EVENT_TYPES`) is the only one: a type without its check fails here.
every_event_type(_DECISIONS, "check", skip=(BattleStarted,))
