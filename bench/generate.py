"""Realistic battles for benchmarks, seeded: the mix of phases, casualties, facts, charges, combats
and rolls that real games produce, every event accepted by the referee as it is generated.

A long battle keeps going by bringing on reserves as units are lost, so a single battle can reach
100,000 events with the same texture as a three-turn skirmish.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

from morale.core.fold import Fold
from morale.core.referee import next_phase
from morale.core.rules import Refusal
from morale.core.state import Battle
from morale.events.store import SqliteEventStore
from morale.events.types import (
    AnyEvent,
    BattleStarted,
    CasualtiesSuffered,
    ChargeDeclared,
    CombatResolved,
    CombatSide,
    DiceRolled,
    PhaseEnded,
    PhaseStarted,
    PlayerDecided,
    TableFactRecorded,
    UnitJoined,
)

SIDES = ("imperium", "orks")
PROFILES = [
    ("infantry", 10, 8, 4, ()),
    ("infantry", 20, 7, 2, ()),
    ("infantry", 5, 9, 4, ("and_they_shall_know_no_fear",)),
    ("bike", 3, 8, 4, ()),
    ("cavalry", 5, 7, 3, ("stubborn",)),
    ("infantry", 10, 5, 2, ("always_passes_morale",)),
    ("jump", 5, 8, 4, ("fearless",)),
]


class BattleGenerator:
    def __init__(self, seed: int, units_per_side: int = 6) -> None:
        self.rng = random.Random(seed)
        self.fold = Fold(f"bench-{seed}")
        self.units_per_side = units_per_side
        self.joined = 0

    @property
    def battle(self) -> Battle:
        return self.fold.state()

    def offer(self, event: AnyEvent) -> AnyEvent | None:
        try:
            self.fold.check(event)
        except Refusal:
            return None
        self.fold.advance(self.fold.seq + 1, event)
        return event

    def events(self, count: int) -> Iterator[AnyEvent]:
        yield from filter(None, [self.offer(BattleStarted(ruleset="wh40k6", ruleset_version="1", sides=tuple(SIDES)))])
        produced = 1
        while produced < count:
            for event in self._step():
                yield event
                produced += 1
                if produced >= count:
                    return

    def _step(self) -> list[AnyEvent]:
        out: list[AnyEvent] = []

        def do(event: AnyEvent) -> None:
            if self.offer(event) is not None:
                out.append(event)

        battle = self.battle
        for side in SIDES:  # reserves arrive when a side runs low
            alive = [u for u in battle.units.values() if u.side == side and u.alive]
            if len(alive) <= self.units_per_side // 2:
                for _ in range(self.units_per_side - len(alive)):
                    do(self._new_unit(side))
        for due in list(self.battle.due):
            if due.decisions and self.rng.random() < 0.2:
                do(PlayerDecided(unit=due.unit, decision=due.decisions[0]))
            else:
                do(
                    DiceRolled(
                        unit=due.unit, test=due.test, dice=tuple(self.rng.randint(1, 6) for _ in range(due.dice))
                    )
                )
            unit = self.battle.units[due.unit]
            if due.test == "fall_back" and unit.state == "falling_back" and self.rng.random() < 0.15:
                do(TableFactRecorded(unit=unit.id, fact=self.rng.choice(["reached_table_edge", "trapped"])))
        if self.battle.due:
            return out
        battle = self.battle
        if battle.phase_open:
            self._act_in_phase(do)
            do(PhaseEnded(turn=battle.turn, side=battle.active_side or "", phase=battle.phase or ""))
        else:
            turn, side, phase = next_phase(battle)
            do(PhaseStarted(turn=turn, side=side, phase=phase))
        return out

    def _act_in_phase(self, do) -> None:
        battle = self.battle
        enemies = [u for u in battle.units.values() if u.alive and u.side != battle.active_side]
        friends = [u for u in battle.units.values() if u.alive and u.side == battle.active_side]
        if not enemies or not friends:
            return
        if battle.phase == "shooting":
            for target in self.rng.sample(enemies, k=min(len(enemies), self.rng.randint(0, 3))):
                count = self.rng.randint(1, max(1, target.models // 4))
                do(CasualtiesSuffered(unit=target.id, count=count, cause="shooting"))
                if self.rng.random() < 0.1:
                    do(TableFactRecorded(unit=target.id, fact="hit_by_pinning_weapon"))
        elif battle.phase == "movement" and self.rng.random() < 0.2:
            mover = self.rng.choice(friends)
            do(CasualtiesSuffered(unit=mover.id, count=1, cause="dangerous_terrain"))
        elif battle.phase == "assault" and self.rng.random() < 0.6:
            charger, target = self.rng.choice(friends), self.rng.choice(enemies)
            do(ChargeDeclared(charger=charger.id, targets=(target.id,), in_range=(target.id,)))
            if self.battle.due or not (charger.alive and target.alive and target.state != "falling_back"):
                return
            lost_charger = self.rng.randint(0, min(3, charger.models))
            lost_target = self.rng.randint(0, min(4, target.models))
            if lost_charger:
                do(CasualtiesSuffered(unit=charger.id, count=lost_charger, cause="close_combat"))
            if lost_target:
                do(CasualtiesSuffered(unit=target.id, count=lost_target, cause="close_combat"))
            if charger.alive and target.alive:
                sides = (
                    CombatSide(side=charger.side, units=(charger.id,), wounds_inflicted=lost_target),
                    CombatSide(side=target.side, units=(target.id,), wounds_inflicted=lost_charger),
                )
                do(CombatResolved(sides=sides))

    def _new_unit(self, side: str) -> UnitJoined:
        self.joined += 1
        unit_type, models, ld, initiative, rules = self.rng.choice(PROFILES)
        return UnitJoined(
            unit=f"{side}-{self.joined}",
            side=side,
            name=f"{side.title()} unit {self.joined}",
            unit_type=unit_type,
            models=models,
            ld=ld,
            initiative=initiative,
            special_rules=tuple(rules),
        )


def battle_events(seed: int, count: int) -> list[AnyEvent]:
    return list(BattleGenerator(seed).events(count))


CACHE = Path(__file__).resolve().parent / ".cache"


def cached_battle(seed: int, count: int) -> tuple[SqliteEventStore, str, list[AnyEvent]]:
    """The generated battle in its own store, generated once and kept in bench/.cache/."""
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"battle-{seed}-{count}.db"
    battle = f"bench-{seed}"
    fresh = not path.exists()
    store = SqliteEventStore(path)
    if fresh:
        events = list(BattleGenerator(seed).events(count))
        store.append(battle, events, expected_seq=0)
    events = [stored.event for stored in store.read(battle)]
    return store, battle, events
