"""What General de Brigade remembers between events, per unit and per battle.

Folded from the log like everything else (a unit's `notes["gdb"]`, Battle.memory), so it is in
the state digest and a replay rebuilds it. The facts the players state (who is within 15 cm of whom,
an enemy within charge range, a melee) stand, like markers on the table, until they state
otherwise.

Both are changed only by `Remembered` outcomes (`remember`, `remember_battle`), each field given a
new value: a container is never changed in place, since a snapshot may share it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...outcomes import Remembered
from ...view import BattleView, UnitView


@dataclass(slots=True)
class Moment:
    """When something happened: the game turn, the phase, and the event that did it."""

    turn: int
    phase: str
    seq: int


@dataclass(slots=True)
class UnitMemory:
    losses: dict[str, int] = field(default_factory=dict)  # figures lost this game turn, by phase
    loss_events: list[int] = field(default_factory=list)  # this game turn's casualty events
    near: set[str] = field(default_factory=set)  # units (or their dispersal points) within 15 cm
    enemy_in_charge_range: bool = False
    in_melee: bool = False
    enemy_in_built_up_area: bool = False
    melee_turn: int = 0  # the turn a melee result stood for the unit (gdb.note.melee)
    charged_turn: int = 0  # the last turn it was charged (an artillery retreat then disperses it)
    charge_losses: int = 0  # figures lost since it declared this phase's charge
    routed: Moment | None = None  # the result that made it rout (or rout again)
    rally_attempted: bool = False  # a routing unit's one attempt (gdb.rout.rally)
    rallied_turn: int = 0
    forming_up_turn: int = 0
    wavered_turn: int = 0
    formation_before_waver: str = ""
    reforming_turn: int = 0
    tested_for: dict[str, int] = field(default_factory=dict)  # routing friend -> turn it tested for it
    dispersed: Moment | None = None  # its dispersal point (gdb.rout.dispersal_point)


@dataclass(slots=True)
class Charge:
    charger: str
    targets: tuple[str, ...]
    in_range: tuple[str, ...]
    flank: tuple[str, ...]
    seq: int


@dataclass(slots=True)
class BattleMemory:
    charges: dict[str, Charge] = field(default_factory=dict)  # this Charge phase's charges, by charger
    charged_by: dict[str, str] = field(default_factory=dict)  # this phase's targets that tested, and by whom
    countercharges: dict[str, str] = field(default_factory=dict)  # countercharger -> the charger it meets
    # Brigade tests owed (side, brigade, the events behind it), called once the result that dispersed
    # the unit is carried out; in the Morale phase they wait until every unit's test is taken, since
    # the results feed them (gdb.note.simultaneous). The field is in every battle's state digest (a
    # dataclass field is encoded even when empty), so it stays as it was.
    brigade_tests: list[tuple[str, str, tuple[int, ...]]] = field(default_factory=list)


def unit_memory(unit: UnitView) -> UnitMemory:
    return unit.notes["gdb"]  # type: ignore[return-value]  # notes hold each ruleset's own memory: GDB's is this


def battle_memory(battle: BattleView) -> BattleMemory:
    kept: BattleMemory = battle.memory  # each ruleset's own (Ruleset.first_memory): GDB's is this
    return kept


def remember(unit: UnitView, rule: str, caused_by: tuple[int, ...], **changes: object) -> Remembered:
    """The unit's book, changed field by field (each a new value, never a container changed in place)."""
    return Remembered(unit=unit.id, rule=rule, caused_by=caused_by, note="gdb", changes=changes)


def remember_battle(rule: str, caused_by: tuple[int, ...], **changes: object) -> Remembered:
    """The battle's book, changed field by field (each a new value, never a container changed in place)."""
    return Remembered(unit="", rule=rule, caused_by=caused_by, note="battle", changes=changes)


def in_melee(battle: BattleView, unit: UnitView) -> bool:
    """In melee as the players state it, or a melee result stood for it this turn (gdb.note.melee)."""
    memo = unit_memory(unit)
    return memo.in_melee or memo.melee_turn == battle.turn
