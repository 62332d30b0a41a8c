"""The shipped 40K 3rd edition example battle: it imports through the same path as the CLI, lasts three
game turns, and its narrative carries out every seed clause of rules/wh40k3.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from morale.app.service import load
from morale.core import catalogue
from morale.core.rules import CLAUSES
from morale.core.rulesets.wh40k import WH40K3
from morale.projections.board import board
from morale.projections.narrative import narrate

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "wh40k3"


pytestmark = pytest.mark.example(EXAMPLE)  # `store`: a fresh one per test, holding this example battle


@pytest.fixture  # per test, as `store` is
def lines(store):
    return narrate("vorns-ridge", store.read("vorns-ridge"))


def clauses(kind: str) -> set[str]:
    return {c.id for c in catalogue.of_ruleset("wh40k3") if c.kind == kind}


def test_the_example_lasts_at_least_three_game_turns(store):
    battle = load(store, "vorns-ridge").state()
    assert battle.turn >= 3 and not battle.phase_open and not battle.due


def test_the_final_board(store):
    units = load(store, "vorns-ridge").state().units
    assert {u.id: (u.state, u.models) for u in units.values()} == {
        "guard": ("steady", 6),  # fell back, failed in cover, regrouped in its next Movement phase
        "marines": ("steady", 2),  # charged while Falling Back, passed and fought
        "command": ("falling_back", 1),  # the last man failed at the start of turn 3
        "repentia": ("steady", 4),  # always passes Morale tests
        "russ": ("steady", 1),  # a tank: lost a combat, never tested
        "warriors": ("dispersed", 3),  # caught in the crossfire
        "wyches": ("steady", 8),  # tank shocked, regrouped at the table edge
        "scourges": ("dispersed", 2),  # reached the table edge under half strength
        "grotesques": ("steady", 2),  # immune to Morale, still took the Pinning test
    }


@pytest.mark.parametrize(
    ("phrase", "rule"),
    [
        ("Wych Cult Strife must roll 2D6 for morale", "wh40k3.trigger.tank_shock"),
        ("Wych Cult Strife Regroups at the table edge", "wh40k3.regroup.table_edge"),
        ("Kabalite Warriors fails the morale test: 4 + 2 = 6 against 5", "wh40k3.trigger.combat_lost"),
        ("Kabalite Warriors is caught in the crossfire and removed from the battlefield", "wh40k3.crossfire"),
        ('Kabalite Warriors fails the fall back test: 4 + 2 = 6; 6" reaches the enemy 5" away', "wh40k3.crossfire"),
        (
            "Cadian Squad Vorn fails the regroup test: 5 + 4 = 9 against 7; it completes its Fall Back move",
            "wh40k3.regroup.cover",
        ),
        ('Cadian Squad Vorn moves 4.5" (5 + 4), falling back', "wh40k3.fall_back.distance"),
        ("Tactical Squad Aurelian Regroups as the enemy charges", "wh40k3.assaulted"),
        ("Scourges fails its last chance and is removed from the battlefield", "wh40k3.regroup.table_edge"),
        ("Grotesques must roll 2D6 for pinning", "wh40k3.who.auto_pass"),
        ("Leman Russ Iron Vow takes no morale test: vehicles never test", "wh40k3.who.infantry"),
    ],
)
def test_the_narrative_shows_each_turn_of_fortune_citing_its_rule(lines, phrase, rule):
    assert any(phrase in line.text and rule in line.rules for line in lines)


def test_every_consequence_in_the_narrative_cites_a_rule_the_engine_knows(lines):
    known = set(CLAUSES) | {row["rule"] for row in WH40K3.graph.rows}
    outcomes = [line for line in lines if line.kind == "outcome"]
    assert outcomes
    for line in outcomes:
        assert line.rules and all(rule in known or rule.startswith("engine.") for rule in line.rules), line


def test_the_example_exercises_every_seed_clause_and_both_standard_ones(store, lines):
    cited = {rule for line in lines for rule in line.rules}
    # Three seed clauses show inside other lines rather than as lines of their own: a modifier inside
    # a test, the direction inside a Fall Back move, and what a Falling Back unit may not do on the
    # board (a charge it declared would be refused, and refused events are never stored).
    implicit = {"wh40k3.mod.below_half", "wh40k3.fall_back.direction", "wh40k3.fall_back.shooting"}
    assert clauses("seed") - implicit <= cited
    assert clauses("standard") <= cited
    assert any("-1 (below half strength (4 of 10))" in line.text for line in lines)
    assert any("towards its own table edge by the shortest path" in line.text for line in lines)
    command = next(row for row in board(load(store, "vorns-ridge").state()).units if row.unit == "command")
    assert "wh40k3.fall_back.shooting" in {r.rule for r in command.restrictions}


def test_the_last_man_tests_at_the_start_of_each_of_its_own_turns(lines):
    last_man = [line.turn for line in lines if "wh40k3.trigger.last_man" in line.rules and "must roll" in line.text]
    assert last_man == [2, 3]
