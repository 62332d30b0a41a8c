"""The fold: `evolve` folds an event `decide` accepted into the battle and says what it caused.

`evolve` is only called on events `decide` accepted (or that were accepted when they were written),
and returns what the event caused, each outcome citing its rule ID. Each type of event has its fold,
found by the event's exact type, which writes the event's own facts into the battle (the clock
moves, models are lost, a unit joins). Everything the rules conclude from them, the engine's rules
and the game's, is decided by the reactions `core/reactions.py` walks, each outcome carried out by
`apply` (`core/apply.py`).
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
from .engine import ENGINE
from .outcomes import Caused, Outcome
from .reactions import NOTHING, Reactions, Walked, react
from .rules import every_event_type, filed_under
from .rulesets import Ruleset, lookup
from .state import Battle, Unit


def evolve(battle: Battle | None, event: AnyEvent, seq: int) -> tuple[Battle, Caused]:
    """Fold an accepted event into the battle. Returns the battle and what the event caused."""
    kind = type(event)
    if kind is BattleStarted:
        return _started(event, seq), ()  # type: ignore[arg-type]  # the type just tested
    assert battle is not None
    battle.seq = seq
    # One lookup an event, by its exact type and the battle's game: the event's fold, which writes
    # its own facts, and the reactions to it (`_Step`). A `match` on the union would test the
    # classes one by one on every event (bench/README.md has the figure).
    try:
        fold, field, keyed, steps, once, by_kind = _STEPS[battle.ruleset][kind]
    except KeyError:  # the game's first event in this process
        fold, field, keyed, steps, once, by_kind = _gathered(battle.ruleset)[kind]
    fold(battle, event, seq)
    # Then the rules: the reactions to the event, and to what they decide, in turn (core/reactions.py),
    # selected as `steps_for` selects them (inline: this runs for every event replayed).
    if field:
        steps = keyed.get(getattr(event, field), steps)
    if not steps:  # an event no rule reacts to (a unit joins, a phase no rule starts anything in)
        return battle, ()
    caused: list[Outcome] = []
    react(battle, event, steps, once, by_kind, caused, 0)
    if battle.chosen_first:
        order.forget_finished(battle)
    if not caused:  # most events change no unit's state: nothing to track
        return battle, ()
    battle.track(caused)
    return battle, tuple(caused)


def _gathered(ruleset: Ruleset) -> dict[type[Event], _Step]:
    by_kind = Reactions([ENGINE, ruleset.rulebook], ruleset).by_kind
    steps = _STEPS[ruleset] = {kind: (fold, *by_kind.get(kind, NOTHING), by_kind) for kind, fold in _FOLDS.items()}
    return steps


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
    fresh.memory = fresh.ruleset.first_memory()
    return fresh


# How each type of event is folded in: event type -> fold(battle, event, seq), which writes the
# event's own facts (the clock moves, models are lost, a unit joins) and nothing the rules conclude
# from them. Each fold is filed under its type where it is written (`@filed_under(_FOLDS, ...)`), as
# the referee files its checks and `apply` its changes.
_FOLDS: dict[type[Event], Callable[[Battle, Any, int], None]] = {}
# What `evolve` does with each type of event in a battle of each game, gathered at the game's first
# event: the event's fold, what `core/reactions.py` walks for it (field, keyed, steps, once: a
# `Walked`) and the game's whole walk table, for the outcomes.
_Step = tuple[Callable[[Battle, Any, int], None], str, dict[str, Any], list[Any], bool, dict[type[Any], Walked]]
_STEPS: dict[Ruleset, dict[type[Event], _Step]] = {}


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
