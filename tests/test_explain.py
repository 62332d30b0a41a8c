"""Explain: the chain that brought a unit to its state, each test and change with its rule ID."""

from __future__ import annotations

import pytest
from support.examples import stored
from support.table import Table, unit
from support.wh40k6 import lose_combat, shot_up

from morale.core import catalogue
from morale.core.rules import Refusal
from morale.projections.explain import explain, rule_words


def fell_back_after_combat() -> Table:
    table = Table(unit("guard", ld=8, initiative=4), unit("boyz", "orks", initiative=2))
    table.go_to(1, "orks", "assault")
    table.casualties("guard", 2, "close_combat")  # seq 19
    lose_combat(table, "guard", "boyz", 2)  # seq 20
    table.roll("guard", "morale", 5, 4)  # seq 21: 9 against 6, fails
    table.roll("guard", "sweeping_advance", 6, 1)  # seq 22: escapes
    table.roll("guard", "fall_back", 3, 2)  # seq 23
    assert table.fold.seq == 23
    return table


def test_a_failed_test_shows_why_it_was_due_what_it_needed_the_roll_and_the_rule_that_decided():
    table = fell_back_after_combat()
    view = explain("test-battle", stored(table), "guard")
    assert (view.state, view.models, view.at) == ("falling_back", 8, 23)
    test = next(s for s in view.steps if s.test == "morale")
    combat = 20
    assert (test.seq, test.status) == (combat, "failed")
    assert (test.trigger, test.rule) == ("wh40k6.trigger.combat_lost", "wh40k6.test.morale")
    assert [c.seq for c in test.caused_by] == [combat] and "Combat resolved" in test.caused_by[0].text
    assert test.target == 6 and [(m.rule, m.value) for m in test.modifiers] == [("wh40k6.trigger.combat_lost", -2)]
    assert test.chance_ways == "15/36"
    assert (test.roll.seq, test.roll.dice, test.roll.total) == (21, (5, 4), 9)
    assert "-1 Ld per wound it lost by" in test.trigger_words  # the clause, from the rule catalogue


def test_each_state_change_cites_its_rule_and_the_events_behind_it():
    view = explain("test-battle", stored(fell_back_after_combat()), "guard")
    change = next(s for s in view.steps if s.kind == "consequence" and "(steady → falling back)" in s.text)
    assert change.rule == "wh40k6.fall_back.start" and [c.seq for c in change.caused_by] == [21]
    move = next(s for s in view.steps if s.test == "fall_back")
    assert (move.status, move.roll.dice, move.roll.total) == ("moved", (3, 2), 5)
    assert move.rule == "wh40k6.fall_back.from_combat"


def test_the_chain_goes_back_to_the_start_and_stops_at_the_point_asked_for():
    view = explain("test-battle", stored(fell_back_after_combat()), "guard", at=20)
    assert view.steps[0].text.startswith("Guard joins imperium") and view.steps[0].seq == 2
    assert view.state == "steady" and view.steps[-1].status == "due"


def test_a_test_settled_at_once_is_explained_with_the_rule_that_settled_it():
    table = Table(unit("nobz", "orks", ld=7, rules=("fearless",)), unit("guard"))
    shot_up(table, "nobz", 3)
    (step,) = [s for s in explain("test-battle", stored(table), "nobz").steps if s.kind == "test"]
    assert (step.status, step.automatic) == ("passed", True)
    assert (step.rule, step.trigger) == ("wh40k6.special.fearless", "wh40k6.trigger.casualties")


def test_rule_words_come_from_the_rule_catalogue():
    assert rule_words("wh40k6.test.morale") == catalogue.clause("wh40k6.test.morale").words
    assert "2D6" in rule_words("wh40k6.test.morale")
    assert rule_words("no.such.rule") == ""


def test_an_unknown_unit_or_a_point_past_the_end_is_refused():
    events = stored(fell_back_after_combat())
    with pytest.raises(Refusal) as unknown:
        explain("test-battle", events, "eldar")
    assert unknown.value.field == "unit"
    with pytest.raises(Refusal) as past:
        explain("test-battle", events, "guard", at=500)
    assert past.value.field == "at" and "the log ends at 23" in past.value.message
