"""The fold: `evolve` folds an event `decide` accepted into the battle and says what it caused.

`evolve` is only called on events `decide` accepted (or that were accepted when they were written),
and returns what the event caused, each outcome citing its rule ID. Each type of event has its fold,
found by the event's exact type. A fold writes the event's own facts into the battle (the clock
moves, models are lost, a unit joins); everything the rules conclude from them, here and in the
rulesets, is decided as outcomes and carried out by `apply` (`core/apply.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
from .apply import Decided, carry_out
from .engine import ENGINE
from .outcomes import Caused, Cleared, Outcome, RestrictionLifted, TestNotTaken, TestResolved, Unscheduled
from .reactions import Reactions, Walked, react
from .referee import due_test, first_due
from .rules import every_event_type, filed_under
from .rulesets import Ruleset, lookup
from .state import Battle, Unit


def evolve(battle: Battle | None, event: AnyEvent, seq: int) -> tuple[Battle, Caused]:
    """Fold an accepted event into the battle. Returns the battle and what the event caused."""
    if type(event) is BattleStarted:
        return _started(event, seq), ()
    assert battle is not None
    battle.seq = seq
    # One fold an event type, found by the event's exact type: a `match` on the union would test the
    # classes one by one on every event (bench/README.md has the figure).
    _FOLDS[type(event)](battle, event, seq)
    by_kind = _WALKED.get(battle.ruleset)
    if by_kind is None:
        by_kind = walked_by(battle.ruleset)
    caused: list[Outcome] | tuple[()]
    if by_kind is not _HOOKED:
        if type(event) in by_kind:
            caused = []
            react(battle, event, by_kind, caused, 0)
        else:  # an event no rule reacts to (a unit joins, a seed is committed)
            caused = ()
    else:  # a game still written as hooks
        decided = _HOOKS[type(event)](battle, event, seq)
        # Most events decide nothing: their fold hands back an empty tuple, and nothing is carried out.
        caused = carry_out(battle, decided) if decided else ()
    if battle.chosen_first:
        order.forget_finished(battle)
    if caused:  # most events change no unit's state: nothing to track
        battle.track(caused)
    return battle, tuple(caused)


def _started(event: BattleStarted, seq: int) -> Battle:
    fresh = Battle(
        id="",
        ruleset=lookup(event.ruleset, event.ruleset_version),
        sides=tuple(event.sides),
        dice_policy=event.dice_policy,
        dice_commitment=event.dice_commitment,
        house_rules=dict(event.house_rules),
        confirmation=event.confirmation,
        seq=seq,
    )
    fresh.tables = fresh.ruleset.read_tables(event.tables)
    fresh.bookkeeping = fresh.ruleset.battle_bookkeeping()
    return fresh


# How each type of event is folded in: event type -> fold(battle, event, seq), which writes the
# event's own facts (the clock moves, models are lost, a unit joins) and nothing the rules conclude
# from them. Each fold is filed under its type where it is written (`@filed_under(_FOLDS, ...)`), as
# the referee files its checks and `apply` its changes.
_FOLDS: dict[type[Event], Callable[[Battle, Any, int], None]] = {}
# What a game written as hooks (not yet as reactions) makes of each type of event, after its own
# facts: event type -> hooks(battle, event, seq) -> what the rules decide of it.
_HOOKS: dict[type[Event], Callable[[Battle, Any, int], Decided]] = {}


def _no_hooks(battle: Battle, event: Event, seq: int) -> Decided:
    return ()


# A game's reactions with the engine's, built once a ruleset; None: a game written as hooks.
_WALKED: dict[Ruleset, dict[type[Any], Walked]] = {}
_HOOKED: dict[type[Any], Walked] = {}  # what `walked_by` gives a game whose rules are still hooks


def reactions_of(ruleset: Ruleset) -> Reactions | None:
    """The reactions a battle of `ruleset` walks (the engine's and its own), or None for a game
    whose rules are still hooks of its `Ruleset` class."""
    book = ruleset.rulebook
    return None if book is None else Reactions([ENGINE, book], ruleset)


def walked_by(ruleset: Ruleset) -> dict[type[Any], Walked]:
    reactions = reactions_of(ruleset)
    walked = _WALKED[ruleset] = _HOOKED if reactions is None else reactions.by_kind
    return walked


@filed_under(_FOLDS, UnitJoined)
def _unit_joined(battle: Battle, event: UnitJoined, seq: int) -> None:
    ruleset = battle.ruleset
    unit = battle.units[event.unit] = battle.living[event.unit] = Unit(
        id=event.unit,
        side=event.side,
        name=event.name,
        unit_type=event.unit_type,
        starting_models=event.models,
        models=event.models,
        models_at_phase_start=event.models,
        ld=event.ld,
        initiative=event.initiative,
        special_rules=frozenset(event.special_rules),
        profile=ruleset.read_profile(event.profile),
    )
    unit.notes.update(ruleset.first_notes(unit))


@filed_under(_FOLDS, UnitChanged)
def _unit_changed(battle: Battle, event: UnitChanged, seq: int) -> None:
    unit = battle.units[event.unit]
    unit.profile = battle.ruleset.read_profile({**unit.profile, **event.changes})


@filed_under(_FOLDS, PhaseStarted)
def _phase_started(battle: Battle, event: PhaseStarted, seq: int) -> None:
    ruleset = battle.ruleset
    window = ruleset.phase_window(battle)
    battle.turn, battle.side_index = event.turn, battle.sides.index(event.side)
    battle.phase_index, battle.phase_open = ruleset.phases.index(event.phase), True
    # Losses and phase marks count from the start of the rulebook phase, which may span several
    # clock phases.
    if ruleset.phase_window(battle) != window:
        for unit in (*battle.living.values(), *battle.left_play):
            unit.models_at_phase_start = unit.models
            if unit.phase_losses:  # most units lost nothing and were marked with nothing
                unit.phase_losses = []
            if unit.phase_marks:
                unit.phase_marks.clear()
        battle.left_play.clear()


@filed_under(_FOLDS, PhaseEnded)
def _phase_ended(battle: Battle, event: PhaseEnded, seq: int) -> None:
    battle.phase_open = False


@filed_under(_FOLDS, CasualtiesSuffered)
def _casualties_suffered(battle: Battle, event: CasualtiesSuffered, seq: int) -> None:
    unit = battle.units[event.unit]
    unit.models -= event.count
    if battle.phase_open:
        unit.phase_losses.append(seq)


@filed_under(_FOLDS, PlayerDecided)
def _player_decided(battle: Battle, event: PlayerDecided, seq: int) -> None:
    ruleset = battle.ruleset
    if event.decision == rules.TEST_FIRST and ruleset.ordered_tests and event.decision not in ruleset.free_decisions:
        order.choose_first(battle, event.unit)


@filed_under(_FOLDS, DiceRevealed)
def _dice_revealed(battle: Battle, event: DiceRevealed, seq: int) -> None:
    battle.dice_secret = event.secret
    # The fresh secret's commitment is in force from here ("": none, and the engine rolls no more).
    # The players' seeds are spent with the secret they were mixed with (`engine.dice.seed.commit`).
    battle.dice_commitment = event.commitment
    battle.seed_commitments, battle.seeds = {}, {}


@filed_under(_FOLDS, SeedCommitted)
def _seed_committed(battle: Battle, event: SeedCommitted, seq: int) -> None:
    battle.seed_commitments[event.side] = event.commitment


@filed_under(_FOLDS, SeedRevealed)
def _seed_revealed(battle: Battle, event: SeedRevealed, seq: int) -> None:
    battle.seeds[event.side] = event.seed


@filed_under(_FOLDS, EventRetracted)
def _event_retracted(battle: Battle, event: EventRetracted, seq: int) -> None:
    raise AssertionError("retractions are folded by replay, which holds the log")


# Whatever else happens of these, the rules make of it (their reactions, or a game's hooks): they
# write no facts of their own. Confirmations, disputes and their resolutions change nothing on the
# table: who entered what, and what the other side made of it, is the claims ledger's
# (`core/claims.py`), which reads authors.
def _no_facts(battle: Battle, event: Event, seq: int) -> None:
    return None


_kind: type[Event]
for _kind in (
    CombatResolved,
    ChargeDeclared,
    TableFactRecorded,
    DiceRolled,
    RefereeRuled,
    EntryConfirmed,
    EntryDisputed,
    DisputeResolved,
):
    _FOLDS[_kind] = _no_facts

# The log's own list of event types (`EVENT_TYPES`) is the only one: a type without its fold fails here.
every_event_type(_FOLDS, "fold", skip=(BattleStarted,))


# -- a game written as hooks -------------------------------------------------------------------
@filed_under(_HOOKS, UnitChanged)
def _unit_change_hook(battle: Battle, event: UnitChanged, seq: int) -> Decided:
    return battle.ruleset.on_unit_change(battle, battle.units[event.unit], event, seq)


@filed_under(_HOOKS, PhaseStarted)
def _phase_started_hook(battle: Battle, event: PhaseStarted, seq: int) -> Decided:
    return battle.ruleset.on_phase_started(battle, seq)


@filed_under(_HOOKS, PhaseEnded)
def _phase_ended_hook(battle: Battle, event: PhaseEnded, seq: int) -> Decided:
    ended = battle.ruleset.on_phase_ended(battle, seq)
    return _then_expire(battle, ended, seq) if ended else _expire(battle, seq)


def _then_expire(battle: Battle, ended: Decided, seq: int) -> Decided:
    yield from ended
    yield from _expire(battle, seq)  # what carries over is read once the phase's own tests are decided


@filed_under(_HOOKS, CasualtiesSuffered)
def _casualties_hook(battle: Battle, event: CasualtiesSuffered, seq: int) -> Decided:
    unit = battle.units[event.unit]
    if unit.models == 0:
        return _destroyed(battle, unit, event, seq)
    return battle.ruleset.on_casualties(battle, unit, event, seq)


def _destroyed(battle: Battle, unit: Unit, event: CasualtiesSuffered, seq: int) -> Decided:
    yield from _destroy(battle, unit, seq)
    # Only now: the ruleset reads the unit as destroyed (a friend destroyed makes others test).
    yield from battle.ruleset.on_casualties(battle, unit, event, seq)


@filed_under(_HOOKS, CombatResolved)
def _combat_hook(battle: Battle, event: CombatResolved, seq: int) -> Decided:
    return battle.ruleset.on_combat(battle, event, seq)


@filed_under(_HOOKS, ChargeDeclared)
def _charge_hook(battle: Battle, event: ChargeDeclared, seq: int) -> Decided:
    return battle.ruleset.on_charge(battle, event, seq)


@filed_under(_HOOKS, TableFactRecorded)
def _fact_hook(battle: Battle, event: TableFactRecorded, seq: int) -> Decided:
    return battle.ruleset.on_fact(battle, event, seq)


@filed_under(_HOOKS, DiceRolled)
def _dice_hook(battle: Battle, event: DiceRolled, seq: int) -> Decided:
    due = due_test(battle, event.unit, event.test)
    battle.due.remove(due)
    return battle.ruleset.resolve(battle, due, tuple(event.dice), seq)


@filed_under(_HOOKS, PlayerDecided)
def _decision_hook(battle: Battle, event: PlayerDecided, seq: int) -> Decided:
    ruleset = battle.ruleset
    if event.decision in ruleset.free_decisions:
        return ruleset.on_free_decision(battle, battle.units[event.unit], event, seq)
    if event.decision == rules.TEST_FIRST and ruleset.ordered_tests:
        return ()
    due = first_due(battle, event.unit, event.decision)
    battle.due.remove(due)
    return ruleset.on_decision(battle, due, event.decision, seq)


@filed_under(_HOOKS, RefereeRuled)
def _ruling_hook(battle: Battle, event: RefereeRuled, seq: int) -> Decided:
    unit = battle.own(event.unit)  # a ruling may bring back a unit that left play
    # A ruling on the unit's state makes the tests it was facing moot: they are waived with it.
    if event.waive_tests or event.state is not None:
        for due in battle.due_for(unit.id):
            battle.due.remove(due)
            yield TestResolved(
                unit=unit.id,
                rule=rules.RULING,
                caused_by=(*due.caused_by, seq),
                test=due.test,
                trigger=due.rule,
                passed=True,
                automatic=True,
                detail=f"waived by the referee: {event.reason}",
            )
    if event.state is not None:
        unit.pending.clear()
        yield battle.ruleset.graph.ruling(unit, event.state, rules.RULING, (seq,))


for _kind in (UnitJoined, DiceRevealed, SeedCommitted, SeedRevealed, EntryConfirmed, EntryDisputed, DisputeResolved):
    _HOOKS[_kind] = _no_hooks
every_event_type(_HOOKS, "hook", skip=(BattleStarted, EventRetracted))


def _destroy(battle: Battle, unit: Unit, seq: int) -> Decided:
    for due in battle.due_for(unit.id):
        yield TestNotTaken(
            unit=unit.id, rule=rules.DESTROYED, caused_by=(seq,), test=due.test, trigger=due.rule, withdrawn=True
        )
    yield Cleared(unit=unit.id, rule=rules.DESTROYED, caused_by=(seq,))
    yield battle.ruleset.graph.move(unit, "lose_last_model", (seq,), rules.DESTROYED)


def _expire(battle: Battle, seq: int) -> Decided:
    """At a phase's end: lift the restrictions and carry out the state changes scheduled for it."""
    # Most units carry nothing over a phase's end, and at most phase ends none does.
    for unit in battle.living.values():
        if unit.pending or unit.restrictions:
            return _expiring(battle, seq)
    return ()


def _expiring(battle: Battle, seq: int) -> Decided:
    now = battle.point
    graph = battle.ruleset.graph
    for unit in [u for u in battle.living.values() if u.pending or u.restrictions]:
        for pending in [p for p in unit.pending if p.at <= now]:
            yield Unscheduled(unit=unit.id, rule="", caused_by=(seq,), move=pending.trigger, when=pending.at)
            if unit.alive and graph.can(unit, pending.trigger):
                yield graph.move(unit, pending.trigger, (*pending.caused_by, seq))
        for restriction in [r for r in unit.restrictions if r.until <= now]:
            yield RestrictionLifted(unit=unit.id, rule=restriction.rule, caused_by=(seq,), restriction=restriction.name)
