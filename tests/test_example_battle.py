"""The shipped example battle: it imports through the same path as the CLI, and its narrative shows
units falling back, regrouping, being caught while falling back and leaving by the table edge."""

from __future__ import annotations

from pathlib import Path

import pytest

from morale.app.service import load
from morale.core import catalogue
from morale.core.rules import CLAUSES
from morale.core.rulesets.wh40k import WH40K6
from morale.projections.narrative import narrate

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "wh40k6"


pytestmark = pytest.mark.example(EXAMPLE)  # `store`: a fresh one per test, holding this example battle


@pytest.fixture  # per test, as `store` is
def lines(store):
    return narrate("hive-tarsis", store.read("hive-tarsis"))


def seed_clauses() -> set[str]:
    return {c.id for c in catalogue.of_ruleset("wh40k6") if c.kind == "seed"}


def test_the_example_lasts_at_least_three_game_turns(store):
    battle = load(store, "hive-tarsis").state()
    assert battle.turn >= 3 and not battle.phase_open and not battle.due


def test_the_final_board(store):
    units = load(store, "hive-tarsis").state().units
    assert {u.id: (u.state, u.models) for u in units.values()} == {
        "tacticals": ("dispersed", 1),  # trapped while Falling Back
        "kraak": ("steady", 5),  # fell back from combat, regrouped, steady again
        "rough_riders": ("dispersed", 3),  # left by the table edge
        "servitors": ("steady", 3),  # immune: never tested
        "boyz": ("dispersed", 8),  # charged while Falling Back, failed, removed after the Assault phase
        "nobz": ("steady", 1),
        "grots": ("dispersed", 7),  # failed in a multiple charge: destroyed at once
        "lootas": ("steady", 4),
    }


@pytest.mark.parametrize(
    ("phrase", "rule"),
    [
        ("Kraak's Guardsmen Falls Back", "wh40k6.fall_back.start"),
        ("Kraak's Guardsmen Regroups", "wh40k6.regroup.pass"),
        ("Ork Boyz is caught while Falling Back", "wh40k6.assaulted.fail"),
        ("Attilan Rough Riders reaches its table edge and is removed as casualties", "wh40k6.fall_back.edge"),
    ],
)
def test_the_narrative_shows_each_turn_of_fortune_citing_its_rule(lines, phrase, rule):
    assert any(phrase in line.text and rule in line.rules for line in lines)


def test_each_rule_the_narrative_cites_comes_with_its_clause_from_the_catalogue(lines):
    outcomes = [line for line in lines if line.kind == "outcome"]
    assert all(line.words == [catalogue.words(rule) for rule in line.rules] for line in outcomes)
    assert all(all(line.words) for line in outcomes)  # no rule cited without words


def test_every_consequence_in_the_narrative_cites_a_rule_the_engine_knows(lines):
    # A clause is a function under @rule or a row of the state graph (data), each with its ID.
    known = set(CLAUSES) | {row["rule"] for row in WH40K6.graph.rows}
    outcomes = [line for line in lines if line.kind == "outcome"]
    assert outcomes
    for line in outcomes:
        assert line.rules and all(rule in known or rule.startswith("engine.") for rule in line.rules), line


def test_the_example_exercises_every_seed_clause(lines):
    cited = {rule for line in lines for rule in line.rules}
    # Three seed clauses leave no line of their own in a log: a refused charge is never stored (the
    # board lists it, see test_board.py), and modifiers and repeated tests show inside other lines.
    implicit = {"wh40k6.fall_back.no_charge", "wh40k6.test.modifiers", "wh40k6.test.multiple_per_turn"}
    assert seed_clauses() - implicit <= cited
    assert any("-2 (combat lost by 2)" in line.text for line in lines)  # wh40k6.test.modifiers
    tests_in_turn_2 = [
        line for line in lines if line.turn == 2 and "Tactical Squad Varro" in line.text and "morale test" in line.text
    ]
    assert len(tests_in_turn_2) == 2  # wh40k6.test.multiple_per_turn
