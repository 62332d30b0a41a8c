"""What the Warhammer 40,000 editions share: the states a unit goes through and the rows that move
it between them, the Leadership test, what happens alike around a Falling Back unit (the end of the
turn it is steady again at, a Pinning test failed), the base class `FortyK`, and that charges and
close combats belong to the Assault phase."""

from __future__ import annotations

from typing import Any

from ...engine import restrict
from ...machine import StateGraph
from ...outcomes import Modifier, RestrictionApplied, Scheduled, TestResolved
from ...rules import DESTROYED, Refusal
from ...state import DueTest, Point
from ...view import BattleView, UnitView
from ...words import Words
from ..base import Ruleset, leadership_result

# -- the state graph ----------------------------------------------------------------------------
# In both editions a unit that fails its Morale Falls Back; it Regroups (and is steady again at the
# end of the turn), Falls Back again, or leaves the battle (dispersed); losing its last model
# destroys it in any of these. Each edition names the triggers, and the rule that moves the unit.
ALIVE = ["steady", "falling_back", "regrouped"]
Row = dict[str, Any]


def to_falling_back(trigger: str, rule: str) -> Row:
    return {"trigger": trigger, "source": ["steady", "regrouped"], "dest": "falling_back", "rule": rule}


def falling_back_again(trigger: str, rule: str) -> Row:
    return {"trigger": trigger, "source": "falling_back", "dest": "=", "rule": rule}


def to_regrouped(trigger: str, rule: str) -> Row:
    return {"trigger": trigger, "source": "falling_back", "dest": "regrouped", "rule": rule}


def back_to_steady(rule: str) -> Row:
    return {"trigger": "end_regroup", "source": "regrouped", "dest": "steady", "rule": rule}


def to_dispersed(trigger: str, rule: str) -> Row:
    return {"trigger": trigger, "source": "falling_back", "dest": "dispersed", "rule": rule}


def state_graph(*rows: Row) -> StateGraph:
    """An edition's graph: its rows in the order given (`morale graph` draws them so), then the last
    model lost (engine.destroyed)."""
    return StateGraph([*rows, {"trigger": "lose_last_model", "source": ALIVE, "dest": "destroyed", "rule": DESTROYED}])


# -- the Leadership test -------------------------------------------------------------------------
def modified_ld(unit: UnitView, modifiers: tuple[Modifier, ...]) -> int:
    """The unit's Leadership plus its modifiers, but for those a special rule ignores (Stubborn)."""
    return (unit.ld or 0) + sum(m.value for m in modifiers if not m.ignored_by)


def against_leadership(
    unit: UnitView,
    due: DueTest,
    dice: tuple[int, ...],
    *,
    rule: str,
    modifiers: tuple[Modifier, ...] | None = None,
    passed: bool | None = None,
) -> TestResolved:
    """2D6 against the modified Leadership: equal or under passes, over fails, under the edition's
    `rule` (and `passed`, where its rule decides otherwise); `modifiers` as the edition applied them
    (the due test's, by default)."""
    applied = due.modifiers if modifiers is None else modifiers
    return leadership_result(unit, due, dice, modified_ld(unit, applied), rule=rule, passed=passed, modifiers=applied)


# -- the Assault phase ---------------------------------------------------------------------------
def check_in_assault_phase(battle: BattleView, charger: UnitView | None = None) -> None:
    """Close combats are resolved in an Assault phase; a unit charges only in its own side's."""
    in_assault = battle.phase_open and battle.phase == "assault"
    if charger is None and not in_assault:
        raise Refusal(Words("close combats are resolved in an Assault phase"), field="type")
    if charger is not None and not (in_assault and charger.side == battle.active_side):
        raise Refusal(Words("{unit} can charge only in its own side's Assault phase", unit=charger.id), field="charger")


# The books' words for the shared states: a unit Falls Back and Regroups; the morale rules take a unit
# off the battlefield ("removed as casualties", "removed from the battlefield", "destroyed"):
# `dispersed` reads "removed", and "destroyed" stays the word for a unit whose last model is killed.
STATE_NAMES = {
    "steady": Words("steady"),
    "falling_back": Words("falling back"),
    "regrouped": Words("regrouped"),
    "dispersed": Words("removed"),
    "destroyed": Words("destroyed"),
}

# The books' words for the unit types of both editions (each edition names those it plays): in
# English the machine value as the story has always said it, in Russian the rulebooks' terms
# ("пехота", "танки, дредноуты и прочая техника").
UNIT_TYPE_NAMES = {
    "infantry": Words("infantry"),
    "jump_infantry": Words("jump infantry"),
    "jump": Words("jump"),
    "bike": Words("bike"),
    "jet_bike": Words("jet bike"),
    "cavalry": Words("cavalry"),
    "beast": Words("beast"),
    "monster": Words("monster"),
    "monstrous_creature": Words("monstrous creature"),
    "artillery": Words("artillery"),
    "tank": Words("tank"),
    "dreadnought": Words("dreadnought"),
    "vehicle": Words("vehicle"),
}

# The facts the table states and the decisions a player takes, in the books' words where the story
# names them (both editions'; each reads its own): English as the story has always said them.
FACT_NAMES = {
    "reached_table_edge": Words("reached table edge"),
    "trapped": Words("trapped"),
    "hit_by_pinning_weapon": Words("hit by pinning weapon"),
    "hit_by_barrage": Words("hit by barrage"),
    "enemy_within_6_inches": Words("enemy within 6 inches"),
    "out_of_coherency": Words("out of coherency"),
    "regroup_conditions_met": Words("regroup conditions met"),
    "tank_shocked": Words("tank shocked"),
    "reached_cover": Words("reached cover"),
    "caught_by_sweeping_advance": Words("caught by sweeping advance"),
    "through_difficult_terrain": Words("through difficult terrain"),
    "enemy_in_corridor": Words("enemy in corridor"),
}
DECISION_NAMES = {
    "decline_regroup": Words("decline regroup"),
    "decline_sweeping_advance": Words("decline sweeping advance"),
}


# -- the base of both editions' rulesets -------------------------------------------------------
class FortyK(Ruleset):
    """The base of both editions' rulesets: the words for the shared states, and that no rule of
    either brings a unit back into play. Their rules are each edition's reactions (`RULES`), which
    read the functions below."""

    state_names = STATE_NAMES
    fact_names = FACT_NAMES
    decision_names = DECISION_NAMES

    # No reaction of either edition changes a unit out of play again (see Ruleset).
    settles_units_out_of_play = True


# -- what both editions say alike, as their reactions read it --------------------------------------
def end_of_this_turn(battle: BattleView, unit: UnitView) -> Point:
    """The end of the player turn in progress (the unit's own, before the first turn)."""
    return battle.ruleset.end_of_player_turn(battle, battle.active_side or unit.side)


def steady_again(unit: UnitView, at: Point, rule: str, caused_by: tuple[int, ...]) -> Scheduled:
    """A unit that has just Regrouped is steady again at `at`, the end of this player turn (end_regroup)."""
    return Scheduled(unit=unit.id, rule=rule, caused_by=caused_by, move="end_regroup", when=at)


def until_end_of_next_turn(
    battle: BattleView, unit: UnitView, restriction: str, rule: str, caused_by: tuple[int, ...]
) -> RestrictionApplied:
    """A failed Pinning test: the unit is held (Gone to Ground, pinned) until the end of its own next turn."""
    until = battle.ruleset.end_of_player_turn(battle, unit.side, next_turn=True)
    return restrict(battle, unit, restriction, rule, until, caused_by)
