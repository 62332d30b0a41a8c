"""Helpers for the wh40k6 rules tests: the usual ways a unit comes to take its Morale test."""

from __future__ import annotations

from morale.events.types import CombatResolved, CombatSide

from .table import Table


def shot_up(table: Table, unit_id: str, lost: int) -> list:
    """In the orks' Shooting phase of turn 1 `unit_id` loses `lost` models; then the phase ends."""
    table.go_to(1, "orks", "shooting")
    table.casualties(unit_id, lost)
    return table.end_phase()


def lose_combat(table: Table, loser: str, winner: str, by: int) -> list:
    """In the orks' Assault phase of turn 1 the imperium unit `loser` loses its combat by `by` wounds."""
    table.go_to(1, "orks", "assault")
    return table.record(
        CombatResolved(
            sides=[
                CombatSide(side="imperium", units=(loser,), wounds_inflicted=0),
                CombatSide(side="orks", units=(winner,), wounds_inflicted=by),
            ]
        )
    )
