"""A battle at the table, in memory, driven one event at a time: `Table`, and the units and events
the tests build it from."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import msgspec
import pytest

from morale.app.tables import pinned_tables
from morale.core.fold import Fold, replay
from morale.core.outcomes import Caused, Outcome
from morale.core.referee import next_phase
from morale.core.rules import Refusal
from morale.core.rulesets import lookup
from morale.core.state import Battle, Unit, battle_view, digest, unit_view
from morale.events.store import seal
from morale.events.types import (
    AnyEvent,
    BattleStarted,
    CasualtiesSuffered,
    CombatResolved,
    CombatSide,
    DiceRolled,
    PhaseEnded,
    PhaseStarted,
    UnitJoined,
)


def unit(
    unit_id: str,
    side: str = "imperium",
    *,
    ld: int = 8,
    models: int = 10,
    initiative: int = 4,
    unit_type: str = "infantry",
    rules: tuple[str, ...] = (),
    profile: dict | None = None,
) -> UnitJoined:
    return UnitJoined(
        unit=unit_id,
        side=side,
        name=unit_id.replace("_", " ").title(),
        unit_type=unit_type,
        models=models,
        ld=ld,
        initiative=initiative,
        special_rules=tuple(rules),
        profile=profile or {},
    )


def combat(*sides: tuple[str, str, int]) -> CombatResolved:
    """combat(("imperium", "guard", 1), ("orks", "boyz", 3)): each side's unit and wounds inflicted."""
    return CombatResolved(
        sides=tuple(CombatSide(side=side, units=(unit_id,), wounds_inflicted=wounds) for side, unit_id, wounds in sides)
    )


def clock_event(battle: Battle) -> PhaseStarted | PhaseEnded:
    """What moves the clock on: the end of the phase in progress, or the start of the next."""
    if battle.phase_open:
        return PhaseEnded(turn=battle.turn, side=battle.active_side, phase=battle.phase)
    turn, side, phase = next_phase(battle)
    return PhaseStarted(turn=turn, side=side, phase=phase)


class Table:
    """Given a battle of these units, when these events are recorded, then... Every event goes
    through the referee exactly as the CLI's do (check, then apply)."""

    def __init__(
        self,
        *units: UnitJoined,
        sides: tuple[str, str] = ("imperium", "orks"),
        ruleset: str = "wh40k6",
        house_rules: dict | None = None,
        tables: dict | None = None,
        dice_policy: str = "either",
    ) -> None:
        self.fold = Fold("test-battle")
        self.events: list[AnyEvent] = []
        # The ruleset's data tables: the shipped defaults unless the test pins its own.
        pinned = pinned_tables(lookup(ruleset, "1")) if tables is None else tables
        self.record(
            BattleStarted(
                ruleset=ruleset,
                ruleset_version="1",
                sides=tuple(sides),
                house_rules=house_rules or {},
                tables=pinned,
                dice_policy=dice_policy,  # type: ignore[arg-type]
            )
        )
        for joined in units:
            self.record(joined)

    @property
    def battle(self):
        return self.fold.state()

    def record(self, event: AnyEvent) -> Caused:
        self.fold.check(event)
        self.events.append(event)
        caused = self.fold.advance(self.fold.seq + 1, event)
        battle = self.battle
        # The engine keeps the units in play beside all units, for speed; it must never drift.
        assert set(battle.living) == {u.id for u in battle.units.values() if u.alive}
        # Nor may the digest's kept encodings of units out of play: it equals encoding the whole view.
        assert digest(battle) == whole_view_digest(battle)
        return caused

    def try_record(self, event: AnyEvent) -> Caused | None:
        """Record the event if the referee accepts it; if it refuses, prove nothing changed (None)."""
        before, seq = digest(self.battle), self.fold.seq
        try:
            return self.record(event)
        except Refusal:
            assert digest(self.battle) == before and self.fold.seq == seq
            return None

    def refuse(self, event: AnyEvent) -> Refusal:
        """The event is refused, and the battle is exactly as it was."""
        before, seq = digest(self.battle), self.fold.seq
        with pytest.raises(Refusal) as refused:
            self.record(event)
        assert digest(self.battle) == before and self.fold.seq == seq
        return refused.value

    def unit(self, unit_id: str) -> Unit:
        return self.battle.units[unit_id]

    def state(self, unit_id: str) -> str:
        return self.unit(unit_id).state

    def due(self, unit_id: str | None = None) -> list[str]:
        return [f"{t.unit}:{t.test}" for t in self.battle.due if unit_id in (None, t.unit)]

    def start_next_phase(self) -> Caused:
        caused: Caused = ()
        if self.battle.phase_open:
            caused += self.record(clock_event(self.battle))
        return caused + self.record(clock_event(self.battle))

    def go_to(self, turn: int, side: str, phase: str) -> Caused:
        """Walk the clock (ending and starting phases) until `phase` of `side`'s turn has started."""
        caused: Caused = ()
        while (self.battle.turn, self.battle.active_side, self.battle.phase, self.battle.phase_open) != (
            turn,
            side,
            phase,
            True,
        ):
            caused += self.start_next_phase()
        return caused

    def end_phase(self) -> Caused:
        battle = self.battle
        return self.record(PhaseEnded(turn=battle.turn, side=battle.active_side, phase=battle.phase))

    def casualties(self, unit_id: str, count: int, cause: str = "shooting") -> Caused:
        return self.record(CasualtiesSuffered(unit=unit_id, count=count, cause=cause))

    def roll(self, unit_id: str, test: str, *dice: int) -> Caused:
        return self.record(DiceRolled(unit=unit_id, test=test, dice=tuple(dice)))

    def replayed(self) -> Fold:
        """The same log replayed from scratch, as a later reader would."""
        stored = [s for s, _ in seal("test-battle", self.events, 0, "0" * 64, "2026-01-01T00:00:00Z")]
        return replay("test-battle", stored)


def whole_view_digest(battle: Battle) -> str:
    """The state digest by its definition: the whole view encoded at once, nothing kept."""
    view = battle_view(battle, [unit_view(u) for u in battle.units.values()])
    return hashlib.sha256(msgspec.json.encode(view, order="deterministic")).hexdigest()


def kinds(outcomes: Sequence[Outcome]) -> list[str]:
    return [type(o).__name__ for o in outcomes]


def rules_cited(outcomes: Sequence[Outcome]) -> set[str]:
    return {o.rule for o in outcomes} | {getattr(o, "trigger", "") for o in outcomes} - {""}


def only(outcomes: list, kind: type):
    """The one outcome of this kind: none, or more than one, fails the test."""
    (found,) = [o for o in outcomes if isinstance(o, kind)]
    return found
