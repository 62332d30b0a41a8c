"""General de Brigade: the modifiers of the Morale Check Test, one function per clause.

Each returns the Modifier it gives (None when it does not apply), citing its rule ID, so a test's
explanation lists every modifier with the clause behind it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...outcomes import Modifier
from ...rules import Refusal, clause
from ...view import BattleView, UnitView
from ...words import Words, counted, listed
from .book import Charge, unit_memory
from .neighbours import FLEEING, heeded_friends_near
from .profile import (
    ARTILLERY,
    BUILT_UP,
    CAVALRY,
    FORMATION_VALUES,
    FORMATIONS,
    IN_LOCATION,
    INFANTRY,
    KINDS,
    LOCATIONS,
    figures_lost,
    formation,
    formed,
    full_strength,
)

QUALITY = {"guard": 2, "elite": 1, "veteran": 1, "line": 0, "second_line": -1, "recruit": -1}
LOSS_STEPS = ((35, -3), (25, -2), (10, -1))  # more than N% of full strength lost; the largest applies
COVER = {"building": 2, "redoubt": 2, "castle": 3, "church": 3}


# The quality a modifier is for, in the book's words (line gives none).
QUALITY_WORDS = {
    "guard": Words("guard"),
    "elite": Words("elite"),
    "veteran": Words("veteran"),
    "line": Words("line"),
    "second_line": Words("second line"),
    "recruit": Words("recruit"),
}


# -- general modifiers ----------------------------------------------------------------------------
@clause("gdb.mod.commander")
def commander(battle: BattleView, unit: UnitView) -> Modifier | None:
    """+1: the Commander-in-Chief or a brigade commander is attached to the unit."""
    who = str(unit.profile["commander"])
    if who == "none":
        return None
    reason = Words("brigade commander attached") if who == "brigade" else Words("Commander-in-Chief attached")
    return Modifier(rule=commander.id, value=+1, reason=reason)


@clause("gdb.mod.quality")
def quality(battle: BattleView, unit: UnitView) -> Modifier | None:
    """Guard +2; elite and veterans +1; line 0; second line and recruits -1."""
    value = QUALITY[str(unit.profile["quality"])]
    return Modifier(rule=quality.id, value=value, reason=QUALITY_WORDS[str(unit.profile["quality"])]) if value else None


@clause("gdb.mod.no_losses")
def no_losses(battle: BattleView, unit: UnitView) -> Modifier | None:
    """+1: the unit has suffered no losses."""
    return Modifier(rule=no_losses.id, value=+1, reason=Words("no losses")) if figures_lost(unit) == 0 else None


@clause("gdb.mod.losses")
def losses(battle: BattleView, unit: UnitView) -> Modifier | None:
    """More than 10% of full strength lost -1, more than 25% -2, more than 35% -3: only the largest."""
    lost, full = figures_lost(unit), full_strength(unit)
    for percent, value in LOSS_STEPS:
        if lost * 100 > percent * full:
            # The figures agree with the number lost (1 фигурка, 2 фигурки, 5 фигурок); English says
            # "figures" for any.
            reason = counted(
                "{n} of {full} figures lost: more than {percent}%",
                "{n} of {full} figures lost: more than {percent}%",
                n=lost,
                full=full,
                percent=percent,
            )
            return Modifier(rule=losses.id, value=value, reason=reason)
    return None


@clause("gdb.mod.cover", fact={"enemy_in_built_up_area": "bool"})
def cover(battle: BattleView, unit: UnitView) -> Modifier | None:
    """In buildings or redoubts +2; defending castles and churches +3; not when enemy units are
    inside the same built-up area."""
    location = str(unit.profile["location"])
    if location not in COVER or unit_memory(unit).enemy_in_built_up_area:
        return None
    return Modifier(rule=cover.id, value=COVER[location], reason=IN_LOCATION[location])


@clause("gdb.mod.square")
def square(battle: BattleView, unit: UnitView) -> Modifier | None:
    """+2: in square."""
    return Modifier(rule=square.id, value=+2, reason=Words("in square")) if formation(unit) == "square" else None


@clause("gdb.mod.friends_fleeing")
def friends_fleeing(battle: BattleView, unit: UnitView) -> Modifier | None:
    """-1 for each routing or retreating friendly unit within 15 cm (12"), but those it ignores."""
    fleeing = heeded_friends_near(battle, unit, FLEEING)
    if not fleeing:
        return None
    reason = counted(
        "routing or retreating within 15 cm: {units}",
        "routing or retreating within 15 cm: {units}",
        n=len(fleeing),
        units=listed(f.id for f in fleeing),
    )
    return Modifier(rule=friends_fleeing.id, value=-len(fleeing), reason=reason)


@clause("gdb.mod.disordered")
def disordered(battle: BattleView, unit: UnitView) -> Modifier | None:
    """-1: the unit is wavering, unformed or retreating. (A routing unit takes gdb.mod.routing instead.)"""
    if unit.state == "broken":
        return None
    if unit.state in ("wavering", "falling_back") or not formed(unit):
        reason = {"wavering": Words("wavering"), "falling_back": Words("retreating")}.get(unit.state, Words("unformed"))
        return Modifier(rule=disordered.id, value=-1, reason=reason)
    return None


@clause("gdb.mod.routing")
def routing(battle: BattleView, unit: UnitView) -> Modifier | None:
    """-2: the unit is routing."""
    return Modifier(rule=routing.id, value=-2, reason=Words("routing")) if unit.state == "broken" else None


GENERAL: tuple[Callable[[BattleView, UnitView], Modifier | None], ...] = (
    commander,
    quality,
    no_losses,
    losses,
    cover,
    square,
    friends_fleeing,
    disordered,
    routing,
)


def general_modifiers(battle: BattleView, unit: UnitView) -> tuple[Modifier, ...]:
    return tuple(m for clause in GENERAL if (m := clause(battle, unit)) is not None)


# -- a charging unit, Charge phase ----------------------------------------------------------------
@clause("gdb.mod.charge.losses")
def lost_during_charge(unit: UnitView) -> Modifier | None:
    """-1 for each figure lost during the charge."""
    lost = unit_memory(unit).charge_losses
    if not lost:
        return None
    reason = counted("{n} figures lost during the charge", "{n} figures lost during the charge", n=lost)
    return Modifier(rule=lost_during_charge.id, value=-lost, reason=reason)


@clause("gdb.mod.charge.flank")
def charging_flank(charge: Charge) -> Modifier | None:
    """+1: charging an enemy flank or rear."""
    if not charge.flank:
        return None
    return Modifier(
        rule=charging_flank.id, value=+1, reason=Words("charging the flank of {units}", units=listed(charge.flank))
    )


@clause("gdb.mod.charge.unformed")
def charging_unformed(battle: BattleView, charge: Charge, flank: Modifier | None) -> Modifier | None:
    """+1: charging an unformed enemy. With gdb.mod.charge.flank it adds up to +1 at most: the
    second bonus is shown, not counted."""
    unformed = [t for t in charge.targets if not formed(battle.units[t])]
    if not unformed:
        return None
    capped = charging_unformed.id if flank is not None else ""
    return Modifier(
        rule=charging_unformed.id,
        value=+1,
        reason=Words("charging unformed {units}", units=listed(unformed)),
        ignored_by=capped,
    )


def charging_modifiers(battle: BattleView, unit: UnitView, charge: Charge) -> tuple[Modifier, ...]:
    flank = charging_flank(charge)
    situational = (lost_during_charge(unit), flank, charging_unformed(battle, charge, flank))
    return general_modifiers(battle, unit) + tuple(m for m in situational if m is not None)


# -- a charged or countercharging unit, Charge phase ----------------------------------------------
@clause("gdb.mod.charged.line")
def charged_in_line(unit: UnitView, charger: UnitView) -> Modifier | None:
    """-1: infantry in line charged by infantry."""
    if unit.unit_type == INFANTRY and formation(unit) == "line" and charger.unit_type == INFANTRY:
        return Modifier(rule=charged_in_line.id, value=-1, reason=Words("infantry in line charged by infantry"))
    return None


@clause("gdb.mod.charged.column", special_rule="russian")
def charged_in_column(unit: UnitView, charger: UnitView) -> Modifier | None:
    """-2: infantry in column charged by infantry; -1 for Russian infantry."""
    if unit.unit_type == INFANTRY and formation(unit) == "column" and charger.unit_type == INFANTRY:
        if unit.has("russian"):
            return Modifier(
                rule=charged_in_column.id, value=-1, reason=Words("Russian infantry in column charged by infantry")
            )
        return Modifier(rule=charged_in_column.id, value=-2, reason=Words("infantry in column charged by infantry"))
    return None


@clause("gdb.mod.charged.flank", special_rule="austrian")
def charged_in_flank(unit: UnitView, charger: UnitView, flank: bool) -> Modifier | None:
    """-4: charged in flank or rear; not for Austrian infantry in mass charged by cavalry."""
    if not flank:
        return None
    austrian_mass = unit.has("austrian") and formation(unit) == "mass"
    if austrian_mass and charger.unit_type == CAVALRY:
        return None
    return Modifier(rule=charged_in_flank.id, value=-4, reason=Words("charged in flank or rear"))


@clause("gdb.mod.charged.cavalry", special_rule="cossack")
def charged_by_cavalry(unit: UnitView, charger: UnitView) -> Modifier | None:
    """-2: infantry not in square charged by cavalry; -1 when the chargers are Cossacks."""
    if unit.unit_type == INFANTRY and formation(unit) != "square" and charger.unit_type == CAVALRY:
        if charger.has("cossack"):
            return Modifier(rule=charged_by_cavalry.id, value=-1, reason=Words("charged by Cossacks, not in square"))
        return Modifier(rule=charged_by_cavalry.id, value=-2, reason=Words("charged by cavalry, not in square"))
    return None


@clause("gdb.mod.charged.artillery")
def artillery_charged(unit: UnitView, charger: UnitView) -> Modifier | None:
    """-2: artillery charged by infantry or cavalry."""
    if unit.unit_type in ARTILLERY and charger.unit_type in (INFANTRY, CAVALRY):
        if charger.unit_type == INFANTRY:
            reason = Words("artillery charged by infantry")
        else:
            reason = Words("artillery charged by cavalry")
        return Modifier(rule=artillery_charged.id, value=-2, reason=reason)
    return None


def charged_modifiers(battle: BattleView, unit: UnitView, charger: UnitView, flank: bool) -> tuple[Modifier, ...]:
    situational = (
        charged_in_line(unit, charger),
        charged_in_column(unit, charger),
        charged_by_cavalry(unit, charger),
        artillery_charged(unit, charger),
        charged_in_flank(unit, charger, flank),
    )
    return general_modifiers(battle, unit) + tuple(m for m in situational if m is not None)


def total(modifiers: tuple[Modifier, ...]) -> int:
    return sum(m.value for m in modifiers if not m.ignored_by)


def check_profile(unit_type: str, models: int, profile: dict[str, Any], tags: frozenset[str] = frozenset()) -> None:
    """What the rules allow each type of unit; a modifier's condition on a type it cannot apply
    to is refused with that modifier's rule ID."""
    shape = profile["formation"]
    if shape == "square" and unit_type != INFANTRY:
        raise Refusal(Words("only infantry forms square, not {unit_type}", unit_type=KINDS[unit_type]), rule=square.id)
    if shape == "mass" and unit_type != INFANTRY:
        raise Refusal(
            Words("only infantry forms a mass, not {unit_type}", unit_type=KINDS[unit_type]), rule=charged_in_flank.id
        )
    if shape is not None and shape not in FORMATIONS[unit_type]:
        said = Words(
            "{unit_type} cannot be in {formation} (allowed: {allowed})",
            unit_type=KINDS[unit_type],
            formation=FORMATION_VALUES[shape],
            allowed=listed(FORMATION_VALUES[f] for f in FORMATIONS[unit_type]),
        )
        raise Refusal(said, field="profile.formation")
    if profile["location"] in BUILT_UP and unit_type == CAVALRY:
        raise Refusal(
            Words("cavalry cannot defend a {location}", location=LOCATIONS[profile["location"]]), rule=cover.id
        )
    if "cossack" in tags and unit_type != CAVALRY:
        raise Refusal(Words("only cavalry can be Cossacks"), rule=charged_by_cavalry.id)
    if profile["full_strength"] and profile["full_strength"] < models:
        said = counted(
            "full strength {full} is less than the {n} figures it has",
            "full strength {full} is less than the {n} figures it has",
            n=models,
            full=profile["full_strength"],
        )
        raise Refusal(said, field="profile.full_strength")
