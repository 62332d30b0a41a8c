"""A battle of the fifth game at the table, in memory, driven one event at a time through the referee
exactly as the CLI drives it (check, then fold), and the units and events the tests build it from."""

from __future__ import annotations

from morale.core.fold import Fold
from morale.core.outcomes import Caused
from morale.core.referee import next_phase
from morale.core.rules import Refusal
from morale.core.state import Battle, Unit, digest
from morale.events.types import (
    AnyEvent,
    BattleStarted,
    CasualtiesSuffered,
    DiceRolled,
    PhaseEnded,
    PhaseStarted,
    PlayerDecided,
    TableFactRecorded,
    UnitChanged,
    UnitJoined,
)

SIDES = ("ultramarines", "necrons")


def unit(
    unit_id: str, side: str = "ultramarines", *, models: int = 10, ld: int | None = 6, profile: dict | None = None
) -> UnitJoined:
    return UnitJoined(
        unit=unit_id,
        side=side,
        name=unit_id.replace("_", " ").title(),
        unit_type="infantry",
        models=models,
        ld=ld,
        profile=profile or {},
    )


class Table:
    """Given a battle of these units, when these events are recorded, then..."""

    def __init__(self, *units: UnitJoined) -> None:
        self.fold = Fold("test-battle")
        self.events: list[AnyEvent] = []
        self.record(BattleStarted(ruleset="wh40k10", ruleset_version="1", sides=SIDES))
        for joined in units:
            self.record(joined)

    @property
    def battle(self) -> Battle:
        return self.fold.state()

    def record(self, event: AnyEvent) -> Caused:
        self.fold.check(event)
        self.events.append(event)
        return self.fold.advance(self.fold.seq + 1, event)

    def refuse(self, event: AnyEvent) -> Refusal:
        """The event is refused, and the battle is exactly as it was."""
        before, seq = digest(self.battle), self.fold.seq
        try:
            self.record(event)
        except Refusal as refused:
            assert digest(self.battle) == before and self.fold.seq == seq
            return refused
        raise AssertionError(f"{event} was accepted")

    def unit(self, unit_id: str) -> Unit:
        return self.battle.units[unit_id]

    def state(self, unit_id: str) -> str:
        return self.unit(unit_id).state

    def due(self) -> list[str]:
        return [f"{t.unit}:{t.test}" for t in self.battle.due]

    def step(self) -> Caused:
        """End the phase in progress, or start the next one."""
        battle = self.battle
        if battle.phase_open:
            return self.record(PhaseEnded(turn=battle.turn, side=battle.active_side, phase=battle.phase))
        turn, side, phase = next_phase(battle)
        return self.record(PhaseStarted(turn=turn, side=side, phase=phase))

    def go_to(self, turn: int, side: str, phase: str) -> Caused:
        """Walk the clock until `phase` of `side`'s turn has started; what its start caused."""
        caused: Caused = ()
        while (self.battle.turn, self.battle.active_side, self.battle.phase, self.battle.phase_open) != (
            turn,
            side,
            phase,
            True,
        ):
            caused = self.step()
        return caused

    def casualties(self, unit_id: str, count: int, cause: str = "shooting") -> Caused:
        return self.record(CasualtiesSuffered(unit=unit_id, count=count, cause=cause))

    def roll(self, unit_id: str, *dice: int) -> Caused:
        return self.record(DiceRolled(unit=unit_id, test="battle_shock", dice=dice))

    def fact(self, unit_id: str, value: int | bool | float = 0) -> TableFactRecorded:
        return TableFactRecorded(unit=unit_id, fact="battle_shock_test_required", value=value)

    def bravery(self, unit_id: str) -> PlayerDecided:
        return PlayerDecided(unit=unit_id, decision="use_insane_bravery")

    def wounds_left(self, unit_id: str, left: int) -> UnitChanged:
        return UnitChanged(unit=unit_id, changes={"wounds_left": left})


def only(outcomes: Caused, kind: type) -> object:
    """The one outcome of this kind: none, or more than one, fails the test."""
    (found,) = [o for o in outcomes if isinstance(o, kind)]
    return found
