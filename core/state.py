"""The state a replay folds the log into: the clock, every unit, the tests due.

These objects are owned by the fold that builds them and changed in place by `evolve`, which is
only ever called on an event `decide` has accepted; a refused event never reaches them. Units are
compared by identity (`eq=False`): the shared state machine must never confuse two units.
"""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

import msgspec

from morale.events.types import FactValue

from .outcomes import Modifier, Outcome, StateChanged
from .outcomes import Point as Point  # re-exported: the rulesets take the clock's point with the battle
from .words import english

if TYPE_CHECKING:
    from .rulesets.base import Ruleset


class DueTest(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A test waiting for its dice or a decision. A Struct, not a frozen dataclass: each test made
    due builds one from its `TestDue` outcome, and a Struct is built in C (change one with
    `msgspec.structs.replace`)."""

    unit: str
    test: str  # what the dice are rolled for: "morale", "regroup", "pinning", "fall_back"...
    rule: str  # the clause that made it due
    caused_by: tuple[int, ...]
    dice: int = 2
    modifiers: tuple[Modifier, ...] = ()
    decisions: tuple[str, ...] = ()  # decisions that settle it without dice ("decline_regroup")
    opponents: tuple[str, ...] = ()  # the other units in a roll-off (sweeping advance)
    reroll: str = ""  # the rule ID that grants re-rolling this test's failed result; "" for a first roll
    # Facts that settle it without dice, as decisions do ("enemy_within_6_inches"). A test with no
    # dice (dice=0) waits for the table's word alone: the rules pass it automatically if allowed.
    facts: tuple[str, ...] = ()
    # What the table stated about this roll before its dice ("enemy_in_corridor" at 4.5 inches).
    stated: tuple[tuple[str, FactValue], ...] = ()

    def statement(self, fact: str) -> FactValue | None:
        return next((value for name, value in self.stated if name == fact), None)


@dataclass(frozen=True, slots=True)
class Restriction:
    name: str  # "snap_shots_only", "gone_to_ground"...
    rule: str
    until: Point  # lifted when the phase at this point ends
    caused_by: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Pending:
    """A state change the rules schedule for later ("removed at the end of the Assault phase")."""

    trigger: str
    at: Point
    caused_by: tuple[int, ...] = ()


@dataclass(slots=True, eq=False)
class Unit:
    id: str
    side: str
    name: str
    unit_type: str
    starting_models: int
    models: int
    ld: int | None = None
    initiative: int | None = None
    special_rules: frozenset[str] = frozenset()
    # Ruleset-specific (Ruleset.profile_type); None where a field was not given (GDB's formation).
    profile: dict[str, FactValue | None] = field(default_factory=dict)
    state: str = "steady"
    models_at_phase_start: int = 0
    phase_losses: list[int] = field(default_factory=list)  # seqs of this phase's casualty events
    # What the rules remember about the unit until the next phase starts (the next rulebook phase,
    # see Ruleset.phase_of): a chance already used, a move already made, a test taken ("once per
    # phase", "not in the turn it fell back out of a combat").
    phase_marks: set[str] = field(default_factory=set)
    restrictions: list[Restriction] = field(default_factory=list)
    pending: list[Pending] = field(default_factory=list)
    # What a ruleset notes about a unit beside its state, for longer than a phase (the enemies it is
    # locked in combat with, the charge it declared...): values msgspec encodes (JSON-able, or
    # dataclasses of them, as General de Brigade keeps under "gdb").
    notes: dict[str, object] = field(default_factory=dict)

    def has(self, special_rule: str) -> bool:
        return special_rule in self.special_rules

    def __reduce__(self) -> tuple[type[Unit], tuple[object, ...]]:
        # A copy (`Battle.own`, copy.deepcopy) rebuilds through the constructor from a flat tuple:
        # faster than the dataclass's generated __setstate__ (bench/README.md). Snapshots are not
        # pickled (projections/snapshot_data.py).
        return Unit, tuple(getattr(self, name) for name in _UNIT_FIELDS)

    @property
    def alive(self) -> bool:
        return self.state not in ("destroyed", "dispersed")

    def lost_this_phase(self, percent: int) -> bool:
        """Lost at least `percent` of the models it had when the phase began (25% of 21 models is 6)."""
        lost = self.models_at_phase_start - self.models
        return bool(self.phase_losses) and lost > 0 and lost * 100 >= percent * self.models_at_phase_start

    def restricted(self, name: str) -> Restriction | None:
        return next((r for r in self.restrictions if r.name == name), None)


_UNIT_FIELDS = tuple(f.name for f in fields(Unit))


@dataclass(slots=True)
class Battle:
    id: str
    ruleset: Ruleset
    sides: tuple[str, ...]
    dice_policy: str = "either"
    dice_commitment: str = ""
    dice_secret: str = ""  # the last secret a dice_revealed event made public
    # The players' seeds for the secret in force (`engine.dice.seed.*`), by side: the commitments,
    # then the seeds as revealed. A reveal of the secret spends them (its fresh secret was chosen
    # after they were public), and the sides may commit anew.
    seed_commitments: dict[str, str] = field(default_factory=dict)
    seeds: dict[str, str] = field(default_factory=dict)
    house_rules: dict[str, FactValue] = field(default_factory=dict)
    confirmation: bool = False  # players confirm each other's entries (`engine.claim.open`)
    seq: int = 0
    turn: int = 0  # 0 until the first phase starts
    side_index: int = 0
    phase_index: int = -1
    phase_open: bool = False
    units: dict[str, Unit] = field(default_factory=dict)
    # The units still on the table, kept beside `units` so that what happens at every phase boundary
    # costs the number of units in play, not the number that ever joined (a long battle's reserves).
    living: dict[str, Unit] = field(default_factory=dict)
    left_play: list[Unit] = field(default_factory=list)  # gone since the last phase reset; reset once more
    due: list[DueTest] = field(default_factory=list)
    tables: dict[str, Any] = field(default_factory=dict)  # the pinned data tables, as the ruleset reads them
    memory: Any = None  # the ruleset's battle-wide memory (`Ruleset.first_memory`)
    # Simultaneous tests (Ruleset.ordered_tests): (side, test) -> the unit its player chose to test first.
    chosen_first: dict[tuple[str, str], str] = field(default_factory=dict)
    # The digest's encoding of each departed unit (see `departed`, `digest`): such a unit no longer changes
    # unless a state change brings it back or moves it (`track` forgets it then).
    departed_views: dict[str, bytes] = field(default_factory=dict, repr=False)

    @property
    def phase(self) -> str | None:
        return self.ruleset.phases[self.phase_index] if self.phase_index >= 0 else None

    @property
    def active_side(self) -> str | None:
        return self.sides[self.side_index] if self.turn else None

    @property
    def point(self) -> Point:
        return (self.turn, self.side_index, self.phase_index)

    def track(self, changes: list[Outcome]) -> None:
        """Keep `living` in step with the state changes an event caused (a ruling may bring a unit back)."""
        for change in changes:
            if type(change) is StateChanged:
                self.departed_views.pop(change.unit, None)
                unit = self.units[change.unit]
                if unit.alive:
                    self.living[unit.id] = unit
                elif self.living.pop(unit.id, None) is not None:
                    self.left_play.append(unit)

    def departed(self, unit: Unit) -> bool:
        """Out of play for good, as far as the rules go: not in play, past the phase reset that
        follows its leaving, and of a ruleset that never changes such a unit again. Only a ruling
        can bring it back. The digest keeps its encoding; snapshots share it between restores."""
        return self.ruleset.settles_units_out_of_play and unit.id not in self.living and unit not in self.left_play

    def own(self, unit_id: str) -> Unit:
        """The unit, safe to change. A departed unit may be one object shared by every battle restored
        from the same snapshot (projections.snapshots), so it is copied first."""
        unit = self.units[unit_id]
        # `apply` asks for every unit it changes: most are in play, or of a ruleset that shares none.
        if self.ruleset.settles_units_out_of_play and unit_id not in self.living and self.departed(unit):
            unit = self.units[unit_id] = copy.deepcopy(unit)
        return unit

    def hit_this_phase(self) -> list[Unit]:
        """The units in play that have lost models in this rulebook phase: the only ones a casualty
        test at the phase's end can concern (most phases, none or one of them)."""
        return [unit for unit in self.living.values() if unit.phase_losses]

    def due_for(self, unit: str) -> list[DueTest]:
        return [t for t in self.due if t.unit == unit]


# Digests are written into logs (PhaseEnded.state_digest): a field added here must leave the digest
# of every battle that does not use it unchanged, so new fields are omitted while empty.
class _UnitView(msgspec.Struct, frozen=True, omit_defaults=True):
    id: str
    state: str
    models: int
    restrictions: list[tuple[str, str, tuple[int, int, int]]]
    pending: list[tuple[str, tuple[int, int, int]]]
    marks: list[str] = []
    notes: dict[str, object] = {}
    profile: dict[str, Any] = {}


class _BattleView(msgspec.Struct, frozen=True, omit_defaults=True):
    seq: int
    clock: tuple[int, int, int, bool]
    units: list[_UnitView]
    due: list[tuple[str, str, str, tuple[int, ...]]]
    stated: list[tuple[int, tuple[tuple[str, FactValue], ...]]] = []  # (index in due, facts stated)
    chosen_first: list[tuple[str, str, str]] = []
    bookkeeping: Any = None
    modifiers: list[tuple[str, int, str]] = []


# Sets and dicts sorted: the same state, the same bytes. `Words` a ruleset keeps (a unit's notes) are
# their English: a digest is written into the log, and never depends on who reads it.
_encoder = msgspec.json.Encoder(order="deterministic", enc_hook=english)


def unit_view(u: Unit) -> _UnitView:
    return _UnitView(
        u.id,
        u.state,
        u.models,
        [(r.name, r.rule, r.until) for r in u.restrictions],
        [(p.trigger, p.at) for p in u.pending],
        sorted(u.phase_marks),
        u.notes,
        u.profile,
    )


def battle_view(battle: Battle, units: list[_UnitView]) -> _BattleView:
    return _BattleView(
        seq=battle.seq,
        clock=(battle.turn, battle.side_index, battle.phase_index, battle.phase_open),
        units=units,
        due=[(t.unit, t.test, t.rule, t.caused_by) for t in battle.due],
        stated=[(i, t.stated) for i, t in enumerate(battle.due) if t.stated],
        chosen_first=sorted((side, test, unit) for (side, test), unit in battle.chosen_first.items()),
        bookkeeping=battle.memory,  # the digest's name for it, as logs written before encode it
        modifiers=[(t.unit, m.value, m.rule) for t in battle.due for m in t.modifiers],
    )


def digest(battle: Battle) -> str:
    """A fingerprint of everything replay derives: equal logs give equal digests, always.

    It is the sha256 of `battle_view` encoded as JSON, every unit included. A long battle holds
    thousands of units that have left play and no longer change, so each of those is encoded once
    and its bytes kept (`Battle.departed_views`); the document is hashed in pieces, byte for byte what
    encoding the whole view gives (the test harness checks this after every event)."""
    head, tail = _encoder.encode(battle_view(battle, [])).split(b'"units":[]', 1)
    hasher = hashlib.sha256(head)
    hasher.update(b'"units":[')
    hasher.update(b",".join(_unit_bytes(battle, u) for u in battle.units.values()))
    hasher.update(b"]")
    hasher.update(tail)
    return hasher.hexdigest()


def _unit_bytes(battle: Battle, unit: Unit) -> bytes:
    # A kept encoding stays true until a state change brings its unit back (`Battle.track` drops it).
    encoded = battle.departed_views.get(unit.id)
    if encoded is None:
        encoded = _encoder.encode(unit_view(unit))
        if battle.departed(unit):
            battle.departed_views[unit.id] = encoded
    return encoded
