"""General de Brigade: when a unit tests in the Morale phase, and the notes that excuse it.

All Morale-phase tests are planned at once when the phase starts (gdb.note.simultaneous): triggers
and modifiers are read from the state at that moment, and a result rolled during the phase feeds
no other unit's test until the next turn.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...outcomes import Modifier
from ...rules import clause
from ...state import Battle, Unit
from .book import book, in_melee
from .modifiers import general_modifiers
from .neighbours import FLEEING, friends_near, heeded_friends_near, ignores
from .profile import figures_lost, full_strength
from .results import rally_routing

# What the rulebook's melee table may give a unit (the fact melee_result).
MELEE_RESULTS = ("carry_on", "halt", "waver", "retreat", "rout")

CHARGE_OR_MELEE = ("charge", "melee")


@dataclass(frozen=True)
class Call:
    """A reason to test: the trigger clause, the events behind it, the routing friends it names."""

    rule: str
    caused_by: tuple[int, ...]
    routers: tuple[str, ...] = ()


@dataclass(frozen=True)
class NotTaken:
    test: str
    rule: str  # the note that excuses the unit
    trigger: str
    caused_by: tuple[int, ...]


@dataclass(frozen=True)
class Plan:
    """One unit's Morale phase: the test it takes ("" for none) and the tests it is excused."""

    unit: str
    test: str = ""
    rule: str = ""
    caused_by: tuple[int, ...] = ()
    modifiers: tuple[Modifier, ...] = ()
    routers: tuple[str, ...] = ()
    not_taken: tuple[NotTaken, ...] = ()


# -- triggers ---------------------------------------------------------------------------------------
@clause("gdb.trigger.losses")
def lost_three_figures(unit: Unit) -> Call | None:
    """It lost 3 or more figures during this turn."""
    if sum(book(unit).losses.values()) < 3:
        return None
    return Call(lost_three_figures.id, tuple(book(unit).loss_events))


@clause("gdb.note.charge_fire")
def tested_for_charge_fire(unit: Unit) -> bool:
    """3 or more figures lost to enemy fire in the Charge phase: no second test for losses in the
    Morale phase, unless it also lost 3 or more in the Shooting phase."""
    losses = book(unit).losses
    return losses.get("charge", 0) >= 3 and losses.get("shooting", 0) < 3


@clause("gdb.note.same_router")
def tested_for_it_last_turn(battle: Battle, unit: Unit, router: Unit) -> bool:
    """A unit that tested because this routing friend was within 15 cm does not test again in the
    next turn for the same routing friend still within 15 cm."""
    return book(unit).tested_for.get(router.id) == battle.turn - 1


def _routers(battle: Battle, unit: Unit, rule_id: str, routers: list[Unit]) -> tuple[Call | None, NotTaken | None]:
    fresh = [r for r in routers if not tested_for_it_last_turn(battle, unit, r)]
    excused = [r for r in routers if r not in fresh]

    def seqs(units: list[Unit]) -> tuple[int, ...]:  # of the results that made these friends rout
        return tuple(sorted({routed.seq for r in units if (routed := book(r).routed)}))

    call = Call(rule_id, seqs(fresh), tuple(r.id for r in fresh)) if fresh else None
    skip = NotTaken("morale", tested_for_it_last_turn.id, rule_id, seqs(excused)) if excused else None
    return call, skip


@clause("gdb.trigger.friend_routing", fact={"within_15cm": "unit", "beyond_15cm": "unit"})
def friend_routing(battle: Battle, unit: Unit) -> tuple[Call | None, NotTaken | None]:
    """Within 15 cm of a friendly unit routing as a result of its own actions in this turn's Charge
    or Melee phase."""
    routers = [
        f
        for f in heeded_friends_near(battle, unit, ("broken",))
        if (routed := book(f).routed) and routed.turn == battle.turn and routed.phase in CHARGE_OR_MELEE
    ]
    return _routers(battle, unit, friend_routing.id, routers)


@clause("gdb.trigger.dispersal_near")
def dispersal_near(battle: Battle, unit: Unit) -> Call | None:
    """Within 15 cm of the point where a friendly unit was dispersed this turn as a result of the
    Charge or Melee phase."""
    points = [
        point
        for f in friends_near(battle, unit)
        if (point := book(f).dispersed)
        and point.turn == battle.turn
        and point.phase in CHARGE_OR_MELEE
        and not ignores(unit, f)
    ]
    return Call(dispersal_near.id, tuple(sorted(p.seq for p in points))) if points else None


@clause("gdb.trigger.friend_routing_prev")
def friend_routing_prev(battle: Battle, unit: Unit) -> tuple[Call | None, NotTaken | None]:
    """Within 15 cm of a friendly unit routing as a result of its Morale test in the previous turn."""
    routers = [
        f
        for f in heeded_friends_near(battle, unit, ("broken",))
        if (routed := book(f).routed) and routed.turn == battle.turn - 1 and routed.phase == "morale"
    ]
    return _routers(battle, unit, friend_routing_prev.id, routers)


@clause("gdb.trigger.dispersal_point")
def at_dispersal_point(unit: Unit, seq: int) -> Call | None:
    """It has reached its dispersal point: 50% or more of its figures lost."""
    return Call(at_dispersal_point.id, (seq,)) if figures_lost(unit) * 2 >= full_strength(unit) else None


# -- rally ------------------------------------------------------------------------------------------
@clause("gdb.note.no_rally_near_enemy", fact={"enemy_in_charge_range": "bool"})
def may_not_rally(battle: Battle, unit: Unit) -> bool:
    """No rally attempt within charge range of an enemy unit (formed or unformed) or in melee; for a
    routing unit this does not use up its one attempt."""
    return book(unit).enemy_in_charge_range or in_melee(battle, unit)


@clause("gdb.note.rally_attempt")
def attempts_to_rally(battle: Battle, unit: Unit) -> bool:
    """The default reading: in each Morale phase every retreating or routing unit that is allowed
    to attempts to rally (a routing unit once only, gdb.rout.rally)."""
    if unit.state not in FLEEING or may_not_rally(battle, unit):
        return False
    return not (unit.state == "broken" and book(unit).rally_attempted)


@clause("gdb.trigger.rally")
def rally_call(battle: Battle, unit: Unit, seq: int) -> tuple[Call | None, NotTaken | None]:
    """It is retreating or routing and attempts to rally (column rally)."""
    if unit.state not in FLEEING:
        return None, None
    if attempts_to_rally(battle, unit):
        return Call(rally_call.id, (seq,)), None
    excuse = may_not_rally.id if may_not_rally(battle, unit) else rally_routing.id
    return None, NotTaken("rally", excuse, rally_call.id, (seq,))


# -- the phase ------------------------------------------------------------------------------------
@clause("gdb.note.melee", fact={"in_melee": "bool", "melee_result": MELEE_RESULTS})
def melee_result_stands(battle: Battle, unit: Unit) -> bool:
    """A unit in melee, or overrun as a result of melee, takes no Morale-phase test."""
    return in_melee(battle, unit)


def plan_unit(battle: Battle, unit: Unit, seq: int) -> Plan:
    not_taken: list[NotTaken] = []
    calls: list[Call] = []
    losses = lost_three_figures(unit)
    if losses and tested_for_charge_fire(unit):
        not_taken.append(NotTaken("morale", tested_for_charge_fire.id, losses.rule, losses.caused_by))
        losses = None
    routing_now, excused_now = friend_routing(battle, unit)
    routing_prev, excused_prev = friend_routing_prev(battle, unit)
    rally, barred = rally_call(battle, unit, seq)
    for found in (losses, routing_now, dispersal_near(battle, unit), routing_prev, at_dispersal_point(unit, seq)):
        if found:
            calls.append(found)
    not_taken += [skip for skip in (excused_now, excused_prev) if skip]
    if melee_result_stands(battle, unit):
        # The melee result stands for whatever it would have taken: its rally attempt, or its test.
        if unit.state in FLEEING:
            not_taken.append(NotTaken("rally", melee_result_stands.id, rally_call.id, (seq,)))
        elif calls:
            not_taken.append(NotTaken("morale", melee_result_stands.id, calls[0].rule, calls[0].caused_by))
        return Plan(unit.id, not_taken=tuple(not_taken))
    if barred:
        not_taken.append(barred)
    # One test a Morale phase: the rally attempt if it makes one, else the first trigger in the
    # digest's order; every trigger's events are cited as its causes.
    main = rally or (calls[0] if calls else None)
    if main is None:
        return Plan(unit.id, not_taken=tuple(not_taken))
    every = [main, *calls] if rally else calls
    return Plan(
        unit=unit.id,
        test="rally" if rally else "morale",
        rule=main.rule,
        caused_by=tuple(sorted({s for call in every for s in call.caused_by})),
        modifiers=general_modifiers(battle, unit),
        routers=tuple(sorted({r for call in every for r in call.routers})),
        not_taken=tuple(not_taken),
    )


@clause("gdb.note.simultaneous")
def plan_morale_phase(battle: Battle, seq: int) -> list[Plan]:
    """All Morale-phase tests are taken simultaneously: every unit's triggers and modifiers are read
    here, from the state at the start of the phase, before any of them is rolled. A unit that starts
    to rout in this phase affects its neighbours only in the next turn's Morale phase."""
    return [plan_unit(battle, unit, seq) for unit in battle.units.values() if unit.alive]
