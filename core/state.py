"""The state a replay folds the log into: the clock, every unit, the tests due.

These objects are owned by the fold that builds them and changed in place by `evolve`, which is
only ever called on an event `decide` has accepted; a refused event never reaches them. Units are
compared by identity (`eq=False`): the shared state machine must never confuse two units.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import msgspec

from .outcomes import Modifier

if TYPE_CHECKING:
    from .ruleset import Ruleset

# A point on the battle clock: (game turn, index of the side whose turn it is, index of the phase).
Point = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class DueTest:
    unit: str
    test: str  # what the dice are rolled for: "morale", "regroup", "pinning", "fall_back"...
    rule: str  # the clause that made it due
    caused_by: tuple[int, ...]
    dice: int = 2
    modifiers: tuple[Modifier, ...] = ()
    decisions: tuple[str, ...] = ()  # decisions that settle it without dice ("decline_regroup")
    opponents: tuple[str, ...] = ()  # the other units in a roll-off (sweeping advance)
    reroll: str = ""  # the rule ID that grants re-rolling this test's failed result; "" for a first roll


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
    profile: dict[str, object] = field(default_factory=dict)  # ruleset-specific, see Ruleset.profile_type
    state: str = "steady"
    models_at_phase_start: int = 0
    phase_losses: list[int] = field(default_factory=list)  # seqs of this phase's casualty events
    restrictions: list[Restriction] = field(default_factory=list)
    pending: list[Pending] = field(default_factory=list)
    # Tests a ruleset limits to once per phase (Ruleset.once_per_phase): test -> the phase it was last taken in.
    tests_taken: dict[str, tuple] = field(default_factory=dict)
    # What a ruleset remembers about a unit beside its state ("mark the units that have tested this
    # phase", as the WFB text puts it): engaged foes, when it broke... JSON-able values only.
    marks: dict[str, object] = field(default_factory=dict)

    def has(self, special_rule: str) -> bool:
        return special_rule in self.special_rules

    @property
    def alive(self) -> bool:
        return self.state not in ("destroyed", "dispersed")

    def restricted(self, name: str) -> Restriction | None:
        return next((r for r in self.restrictions if r.name == name), None)


@dataclass(slots=True)
class Battle:
    id: str
    ruleset: Ruleset
    sides: tuple[str, ...]
    dice_policy: str = "either"
    dice_commitment: str = ""
    dice_secret: str = ""  # public once a dice_revealed event is in the log
    house_rules: dict[str, object] = field(default_factory=dict)
    seq: int = 0
    turn: int = 0  # 0 until the first phase starts
    side_index: int = 0
    phase_index: int = -1
    phase_open: bool = False
    units: dict[str, Unit] = field(default_factory=dict)
    due: list[DueTest] = field(default_factory=list)
    # Simultaneous tests (Ruleset.ordered_tests): (side, test) -> the unit its player chose to test first.
    chosen_first: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def phase(self) -> str | None:
        return self.ruleset.phases[self.phase_index] if self.phase_index >= 0 else None

    @property
    def active_side(self) -> str | None:
        return self.sides[self.side_index] if self.turn else None

    @property
    def point(self) -> Point:
        return (self.turn, self.side_index, self.phase_index)

    def due_for(self, unit: str) -> list[DueTest]:
        return [t for t in self.due if t.unit == unit]


# New fields are omitted when empty, so a battle that never uses them keeps the digest it always had
# (digests are recorded in logs: `phase_ended.state_digest`).
class _UnitView(msgspec.Struct, frozen=True, omit_defaults=True):
    id: str
    state: str
    models: int
    restrictions: list[tuple[str, str, tuple[int, int, int]]]
    pending: list[tuple[str, tuple[int, int, int]]]
    tests_taken: dict[str, tuple] = {}
    marks: dict[str, object] = {}


class _BattleView(msgspec.Struct, frozen=True, omit_defaults=True):
    seq: int
    clock: tuple[int, int, int, bool]
    units: list[_UnitView]
    due: list[tuple[str, str, str, tuple[int, ...]]]
    chosen_first: list[tuple[str, str, str]] = []


def digest(battle: Battle) -> str:
    """A fingerprint of everything replay derives: equal logs give equal digests, always."""
    view = _BattleView(
        seq=battle.seq,
        clock=(battle.turn, battle.side_index, battle.phase_index, battle.phase_open),
        units=[
            _UnitView(
                u.id,
                u.state,
                u.models,
                [(r.name, r.rule, r.until) for r in u.restrictions],
                [(p.trigger, p.at) for p in u.pending],
                u.tests_taken,
                u.marks,
            )
            for u in battle.units.values()
        ],
        due=[(t.unit, t.test, t.rule, t.caused_by) for t in battle.due],
        chosen_first=sorted((side, test, unit) for (side, test), unit in battle.chosen_first.items()),
    )
    return hashlib.sha256(msgspec.json.encode(view)).hexdigest()
