"""What the Warhammer 40,000 editions share: charges and close combats belong to the Assault phase."""

from __future__ import annotations

from ...rules import Refusal
from ...state import Battle, Unit


def check_in_assault_phase(battle: Battle, charger: Unit | None = None) -> None:
    """Close combats are resolved in an Assault phase; a unit charges only in its own side's."""
    in_assault = battle.phase_open and battle.phase == "assault"
    if charger is None and not in_assault:
        raise Refusal("close combats are resolved in an Assault phase", field="type")
    if charger is not None and not (in_assault and charger.side == battle.active_side):
        raise Refusal(f"{charger.id} can charge only in its own side's Assault phase", field="charger")
