"""General de Brigade: when a unit tests in the Morale phase, and the notes that excuse it.

All Morale-phase tests are called at once when the phase starts (gdb.note.simultaneous): triggers
and modifiers are read from the state at that moment, and a result rolled during the phase feeds
no other unit's test until the next turn. A trigger is the test it calls for (a `TestCalled`), a
note that excuses a unit the test it does not take (`not_taken`).
"""

from __future__ import annotations

from morale.events.types import PhaseStarted

from ...engine import call, not_taken
from ...outcomes import Outcome, TestCalled, TestNotTaken
from ...reactions import Outcomes
from ...rules import clause
from ...view import BattleView, UnitView
from .book import in_melee, remember, unit_memory
from .modifiers import general_modifiers
from .neighbours import FLEEING, friends_near, heeded_friends_near, ignores
from .profile import figures_lost, full_strength
from .results import melee_result_stands, rally_routing
from .rulebook import RULES

CHARGE_OR_MELEE = ("charge", "melee")


# -- triggers ---------------------------------------------------------------------------------------
# Each trigger is the test it calls for (None: it does not hold); a unit takes one test a Morale
# phase, which cites every trigger's events (`unit_tests`).
@clause("gdb.trigger.losses")
def lost_three_figures(unit: UnitView) -> TestCalled | None:
    """It lost 3 or more figures during this turn."""
    if sum(unit_memory(unit).losses.values()) < 3:
        return None
    return call(unit.id, "morale", lost_three_figures.id, tuple(unit_memory(unit).loss_events))


@clause("gdb.note.charge_fire")
def tested_for_charge_fire(unit: UnitView) -> bool:
    """3 or more figures lost to enemy fire in the Charge phase: no second test for losses in the
    Morale phase, unless it also lost 3 or more in the Shooting phase."""
    losses = unit_memory(unit).losses
    return losses.get("charge", 0) >= 3 and losses.get("shooting", 0) < 3


@clause("gdb.note.same_router")
def tested_for_it_last_turn(battle: BattleView, unit: UnitView, router: UnitView) -> bool:
    """A unit that tested because this routing friend was within 15 cm does not test again in the
    next turn for the same routing friend still within 15 cm."""
    return unit_memory(unit).tested_for.get(router.id) == battle.turn - 1


def routed_by(routers: list[UnitView]) -> tuple[int, ...]:
    """The events of the results that made these friends rout."""
    return tuple(sorted({routed.seq for r in routers if (routed := unit_memory(r).routed)}))


def fresh(battle: BattleView, unit: UnitView, routers: list[UnitView]) -> list[UnitView]:
    """The routing friends the unit has not tested for in the last turn (`tested_for_it_last_turn`)."""
    return [r for r in routers if not tested_for_it_last_turn(battle, unit, r)]


def for_routers(battle: BattleView, unit: UnitView, rule_id: str, routers: list[UnitView]) -> TestCalled | None:
    """The test routing friends call for: those the unit did not test for last turn."""
    new = fresh(battle, unit, routers)
    return call(unit.id, "morale", rule_id, routed_by(new)) if new else None


def excused_routers(battle: BattleView, unit: UnitView, rule_id: str, routers: list[UnitView]) -> TestNotTaken | None:
    """The test routing friends the unit tested for last turn would call for, not taken."""
    old = [r for r in routers if r not in fresh(battle, unit, routers)]
    if not old:
        return None
    return not_taken(call(unit.id, "morale", rule_id, routed_by(old)), tested_for_it_last_turn.id, routed_by(old))


@clause("gdb.trigger.friend_routing", fact={"within_15cm": "unit", "beyond_15cm": "unit"})
def friend_routing(battle: BattleView, unit: UnitView) -> list[UnitView]:
    """Within 15 cm of a friendly unit routing as a result of its own actions in this turn's Charge
    or Melee phase (the friends that are)."""
    return [
        f
        for f in heeded_friends_near(battle, unit, ("broken",))
        if (routed := unit_memory(f).routed) and routed.turn == battle.turn and routed.phase in CHARGE_OR_MELEE
    ]


@clause("gdb.trigger.dispersal_near")
def dispersal_near(battle: BattleView, unit: UnitView) -> TestCalled | None:
    """Within 15 cm of the point where a friendly unit was dispersed this turn as a result of the
    Charge or Melee phase."""
    points = [
        point
        for f in friends_near(battle, unit)
        if (point := unit_memory(f).dispersed)
        and point.turn == battle.turn
        and point.phase in CHARGE_OR_MELEE
        and not ignores(unit, f)
    ]
    return call(unit.id, "morale", dispersal_near.id, tuple(sorted(p.seq for p in points))) if points else None


@clause("gdb.trigger.friend_routing_prev")
def friend_routing_prev(battle: BattleView, unit: UnitView) -> list[UnitView]:
    """Within 15 cm of a friendly unit routing as a result of its Morale test in the previous turn
    (the friends that are)."""
    return [
        f
        for f in heeded_friends_near(battle, unit, ("broken",))
        if (routed := unit_memory(f).routed) and routed.turn == battle.turn - 1 and routed.phase == "morale"
    ]


@clause("gdb.trigger.dispersal_point")
def at_dispersal_point(unit: UnitView, seq: int) -> TestCalled | None:
    """It has reached its dispersal point: 50% or more of its figures lost."""
    if figures_lost(unit) * 2 < full_strength(unit):
        return None
    return call(unit.id, "morale", at_dispersal_point.id, (seq,))


# -- rally ------------------------------------------------------------------------------------------
@clause("gdb.note.no_rally_near_enemy", fact={"enemy_in_charge_range": "bool"})
def may_not_rally(battle: BattleView, unit: UnitView) -> bool:
    """No rally attempt within charge range of an enemy unit (formed or unformed) or in melee; for a
    routing unit this does not use up its one attempt."""
    return unit_memory(unit).enemy_in_charge_range or in_melee(battle, unit)


@clause("gdb.note.rally_attempt")
def attempts_to_rally(battle: BattleView, unit: UnitView) -> bool:
    """The default reading: in each Morale phase every retreating or routing unit that is allowed
    to attempts to rally (a routing unit once only, gdb.rout.rally)."""
    if unit.state not in FLEEING or may_not_rally(battle, unit):
        return False
    return not (unit.state == "broken" and unit_memory(unit).rally_attempted)


@clause("gdb.trigger.rally")
def rally_call(battle: BattleView, unit: UnitView, seq: int) -> TestCalled | None:
    """It is retreating or routing and attempts to rally (column rally)."""
    if unit.state in FLEEING and attempts_to_rally(battle, unit):
        return call(unit.id, "rally", rally_call.id, (seq,))
    return None


def rally_barred(battle: BattleView, unit: UnitView, seq: int) -> TestNotTaken | None:
    """The rally a retreating or routing unit does not attempt, and the note that bars it."""
    if unit.state not in FLEEING or attempts_to_rally(battle, unit):
        return None
    excuse = may_not_rally.id if may_not_rally(battle, unit) else rally_routing.id
    return not_taken(call(unit.id, "rally", rally_call.id, (seq,)), excuse, (seq,))


# -- the phase ------------------------------------------------------------------------------------
def unit_tests(battle: BattleView, unit: UnitView, seq: int) -> tuple[list[TestNotTaken], list[Outcome]]:
    """One unit's Morale phase: the tests it is excused, and the one test it takes (with, where
    routing friends call for it, the friends it tested for: `tested_for_it_last_turn`)."""
    excused: list[TestNotTaken] = []
    losses = lost_three_figures(unit)
    if losses and tested_for_charge_fire(unit):
        excused.append(not_taken(losses, tested_for_charge_fire.id, losses.caused_by))
        losses = None
    now, before = friend_routing(battle, unit), friend_routing_prev(battle, unit)
    routing_now = for_routers(battle, unit, friend_routing.id, now)
    routing_prev = for_routers(battle, unit, friend_routing_prev.id, before)
    rally = rally_call(battle, unit, seq)
    calls = [
        found
        for found in (losses, routing_now, dispersal_near(battle, unit), routing_prev, at_dispersal_point(unit, seq))
        if found
    ]
    excused += [
        skip
        for skip in (
            excused_routers(battle, unit, friend_routing.id, now),
            excused_routers(battle, unit, friend_routing_prev.id, before),
        )
        if skip
    ]
    if melee_result_stands(battle, unit):
        # The melee result stands for whatever it would have taken: its rally attempt, or its test.
        if unit.state in FLEEING:
            excused.append(not_taken(call(unit.id, "rally", rally_call.id, (seq,)), melee_result_stands.id, (seq,)))
        elif calls:
            excused.append(not_taken(calls[0], melee_result_stands.id, calls[0].caused_by))
        return excused, []
    barred = rally_barred(battle, unit, seq)
    if barred:
        excused.append(barred)
    # One test a Morale phase: the rally attempt if it makes one, else the first trigger in the
    # digest's order; every trigger's events are cited as its causes.
    main = rally or (calls[0] if calls else None)
    if main is None:
        return excused, []
    every = [main, *calls] if rally else calls
    caused_by = tuple(sorted({s for found in every for s in found.caused_by}))
    routers = sorted(
        {
            r.id
            for found, friends in ((routing_now, now), (routing_prev, before))
            if found
            for r in fresh(battle, unit, friends)
        }
    )
    taken: list[Outcome] = []
    if routers:
        tested_for = {**unit_memory(unit).tested_for, **dict.fromkeys(routers, battle.turn)}
        taken.append(remember(unit, tested_for_it_last_turn.id, caused_by, tested_for=tested_for))
    taken.append(call(unit.id, main.test, main.rule, caused_by, modifiers=general_modifiers(battle, unit)))
    return excused, taken


@RULES.clause("gdb.note.simultaneous", reacts_to=PhaseStarted, phase="morale")
def morale_tests_due(battle: BattleView, started: PhaseStarted) -> Outcomes:
    """All Morale-phase tests are taken simultaneously: every unit's triggers and modifiers are read
    here, from the state at the start of the phase, before any of them is rolled. A unit that starts
    to rout in this phase affects its neighbours only in the next turn's Morale phase. The tests
    every unit is excused come first, then the tests taken."""
    planned = [unit_tests(battle, unit, battle.seq) for unit in battle.units.values() if unit.alive]
    return [*(skip for excused, _ in planned for skip in excused), *(o for _, taken in planned for o in taken)]
