"""General de Brigade: the game turn, the unit profile, and which profiles the rules allow.

A battalion, squadron, battery or skirmisher company is described by the fields below (the
`profile` of unit_joined) and its tags (`special_rules`: russian, austrian, cossack); formation,
formed/unformed, location and commander change during the battle (unit_changed), the rest is fixed.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from ...view import UnitView
from ...words import Words

# The game turn, in order: both sides act in each phase (Ruleset.shared_turn).
PHASES = ("movement", "charge", "shooting", "melee", "morale")

INFANTRY, CAVALRY, FOOT_ARTILLERY, HORSE_ARTILLERY, SKIRMISHERS = (
    "infantry",
    "cavalry",
    "foot_artillery",
    "horse_artillery",
    "skirmishers",
)
UNIT_TYPES = {
    INFANTRY: Words("infantry battalion"),
    CAVALRY: Words("cavalry squadron or regiment"),
    FOOT_ARTILLERY: Words("foot artillery battery"),
    HORSE_ARTILLERY: Words("horse artillery battery"),
    SKIRMISHERS: Words("skirmisher company or battalion"),
}
# A type of unit as the story and the board name it: in English its machine value as they have
# always said it, in Russian the book's word ("пешая артиллерия").
TYPE_NAMES = {
    INFANTRY: Words("infantry"),
    CAVALRY: Words("cavalry"),
    FOOT_ARTILLERY: Words("foot artillery"),
    HORSE_ARTILLERY: Words("horse artillery"),
    SKIRMISHERS: Words("skirmishers"),
}
# A type of unit as a refusal names it: its machine value in English, the book's word in Russian.
KINDS = {
    INFANTRY: Words("infantry"),
    CAVALRY: Words("cavalry"),
    FOOT_ARTILLERY: Words("foot_artillery"),
    HORSE_ARTILLERY: Words("horse_artillery"),
    SKIRMISHERS: Words("skirmishers"),
}
ARTILLERY = (FOOT_ARTILLERY, HORSE_ARTILLERY)

Quality = Literal["guard", "elite", "veteran", "line", "second_line", "recruit"]
Formation = Literal["line", "column", "square", "mass", "skirmish_order", "limbered", "unlimbered"]
Location = Literal["open", "building", "redoubt", "castle", "church"]
Commander = Literal["none", "brigade", "commander_in_chief"]
BUILT_UP = ("building", "redoubt", "castle", "church")

# The formations each type of unit can take (the first is what it starts in unless told).
FORMATIONS: dict[str, tuple[str, ...]] = {
    INFANTRY: ("line", "column", "square", "mass", "skirmish_order"),
    CAVALRY: ("line", "column"),
    FOOT_ARTILLERY: ("unlimbered", "limbered"),
    HORSE_ARTILLERY: ("unlimbered", "limbered"),
    SKIRMISHERS: ("skirmish_order",),
}


class GdbProfile(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    quality: Quality = "line"
    full_strength: Annotated[int, Meta(ge=0)] = 0  # figures at full strength; 0: as many as it joined with
    brigade: Annotated[str, Meta(max_length=64)] = ""
    formation: Formation | None = None  # None: the first formation its type can take
    formed: bool = True
    location: Location = "open"
    commander: Commander = "none"  # the Commander-in-Chief or a brigade commander attached to it


# The words of the profile's values. A formation or a location as a refusal names it (its machine
# value in English), and as the board describes the unit ("skirmish order", "in a church").
FORMATION_VALUES = {
    "line": Words("line"),
    "column": Words("column"),
    "square": Words("square"),
    "mass": Words("mass"),
    "skirmish_order": Words("skirmish_order"),
    "limbered": Words("limbered"),
    "unlimbered": Words("unlimbered"),
}
FORMATION_WORDS = {
    "line": Words("line"),
    "column": Words("column"),
    "square": Words("square"),
    "mass": Words("mass"),
    "skirmish_order": Words("skirmish order"),
    "limbered": Words("limbered"),
    "unlimbered": Words("unlimbered"),
}
LOCATIONS = {
    "building": Words("building"),
    "redoubt": Words("redoubt"),
    "castle": Words("castle"),
    "church": Words("church"),
}
IN_LOCATION = {
    "building": Words("in a building"),
    "redoubt": Words("in a redoubt"),
    "castle": Words("in a castle"),
    "church": Words("in a church"),
}
ATTACHED = {
    "brigade": Words("brigade attached"),
    "commander_in_chief": Words("commander in chief attached"),
}

CHANGEABLE = frozenset({"formation", "formed", "location", "commander"})


def formation(unit: UnitView) -> str:
    """The unit's formation; a unit given none is in its type's first (line, unlimbered...)."""
    return str(unit.profile.get("formation") or FORMATIONS[unit.unit_type][0])


def formed(unit: UnitView) -> bool:
    return bool(unit.profile.get("formed", True))


def full_strength(unit: UnitView) -> int:
    """Figures at full strength: as the profile says, else as many as the unit joined with."""
    return int(unit.profile.get("full_strength") or unit.starting_models)


def figures_lost(unit: UnitView) -> int:
    return full_strength(unit) - unit.models
