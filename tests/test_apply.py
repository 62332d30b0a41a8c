"""core/apply.py: the one place a battle changes by what the rules decide, checked outcome by outcome."""

from __future__ import annotations

import pytest
from support.table import Table, unit
from transitions import MachineError

from morale.core.apply import apply
from morale.core.outcomes import RestrictionApplied, Scheduled, StateChanged, Unscheduled


def a_battle() -> Table:
    return Table(unit("marines"), unit("boyz", "orks"))


def restricted(name: str, ends: tuple[int, int, int], rule: str = "wh40k6.pinning.test") -> RestrictionApplied:
    return RestrictionApplied(unit="marines", rule=rule, restriction=name, until="end of turn", ends=ends)


def test_a_restriction_of_a_name_the_unit_holds_replaces_it_and_leaves_the_others():
    table = a_battle()
    battle = table.battle
    apply(battle, restricted("cannot_charge", (1, 0, 3)))
    apply(battle, restricted("gone_to_ground", (1, 0, 3)))
    apply(battle, restricted("no_charge", (1, 0, 3)))
    apply(battle, restricted("gone_to_ground", (2, 0, 3), rule="wh40k6.fall_back.start"))
    held = [(r.name, r.rule, r.until) for r in table.unit("marines").restrictions]
    assert held == [
        ("cannot_charge", "wh40k6.pinning.test", (1, 0, 3)),
        ("no_charge", "wh40k6.pinning.test", (1, 0, 3)),
        ("gone_to_ground", "wh40k6.fall_back.start", (2, 0, 3)),
    ]


def test_a_scheduled_change_whose_moment_came_leaves_the_schedule_and_only_it():
    table = a_battle()
    battle = table.battle
    later, other, due_now = (
        ("end_regroup", (2, 0, 3)),
        ("be_removed_after_assault", (1, 0, 3)),
        ("end_regroup", (1, 0, 3)),
    )
    for move, when in (later, other, due_now):
        apply(battle, Scheduled(unit="marines", rule="wh40k6.regroup.test", move=move, when=when))
    apply(battle, Unscheduled(unit="marines", rule="wh40k6.regroup.test", move="end_regroup", when=(1, 0, 3)))
    assert [(p.trigger, p.at) for p in table.unit("marines").pending] == [later, other]


def test_a_move_outside_the_graph_is_a_rules_bug_and_changes_nothing():
    table = a_battle()
    fall_back = StateChanged(
        unit="marines", rule="wh40k6.fall_back.start", from_state="steady", to_state="regrouped", move="fail_morale"
    )
    with pytest.raises(MachineError):
        apply(table.battle, fall_back)
    assert table.state("marines") == "steady"


def test_only_a_referees_ruling_moves_a_unit_without_a_graph_trigger():
    table = a_battle()
    unmoved = StateChanged(unit="marines", rule="wh40k6.fall_back.start", from_state="steady", to_state="falling_back")
    with pytest.raises(AssertionError, match="only a referee's ruling"):
        apply(table.battle, unmoved)
    assert table.state("marines") == "steady"
