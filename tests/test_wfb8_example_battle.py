"""The shipped WFB 8th edition example battle: it imports through the same path as the CLI, and its
narrative shows every seed clause of the catalogue at work (and every standard one too)."""

from __future__ import annotations

from pathlib import Path

import pytest

from morale.app.service import load
from morale.core import catalogue
from morale.core.rules import CLAUSES
from morale.core.rulesets.wfb8 import WFB8
from morale.events.types import DiceRolled, PlayerDecided
from morale.projections.narrative import narrate

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "wfb8"
BATTLE = "grunburg-bridge"


pytestmark = pytest.mark.example(EXAMPLE)  # `store`: a fresh one per test, holding this example battle


@pytest.fixture  # per test, as `store` is
def lines(store):
    return narrate(BATTLE, store.read(BATTLE))


def clauses(kind: str) -> set[str]:
    return {c.id for c in catalogue.of_ruleset("wfb8") if c.kind == kind}


def test_the_wfb8_example_lasts_at_least_three_game_turns(store):
    battle = load(store, BATTLE).state()
    assert battle.turn >= 3 and not battle.phase_open and not battle.due


def test_the_wfb8_example_final_board(store):
    units = load(store, BATTLE).state().units
    assert {u.id: (u.state, u.models) for u in units.values()} == {
        "halberdiers": ("steady", 13),  # broke, fled, rallied, steady again
        "spearmen": ("steady", 15),  # held their ground at the re-roll
        "handgunners": ("dispersed", 2),  # 2 of 10 could rally only on a double 1: fled off the table
        "knights": ("steady", 6),  # no more foes: counted as having won
        "greatswords": ("steady", 8),  # Stubborn, with the Battle Standard
        "flagellants": ("steady", 2),  # Unbreakable: never tested
        "boyz": ("falling_back", 9),  # Steadfast once, Insane Courage once, broke at last
        "night_goblins": ("falling_back", 11),  # fled the Stand and Shoot, rallied, panicked again
        "wolf_riders": ("dispersed", 3),  # fled off the table
        "arrer_boyz": ("destroyed", 0),
        "black_orcs": ("steady", 9),
    }


@pytest.mark.parametrize(
    ("phrase", "rule"),
    [
        ("Night Goblins takes no panic test", "wfb8.panic.once_per_phase"),
        ("Night Goblins panics under the Stand and Shoot", "wfb8.panic.stand_and_shoot"),
        ("Grünburg Halberdiers takes no panic test", "wfb8.panic.exempt"),
        ("Knights of the Blazing Sun takes no break test", "wfb8.multi.no_more_foes"),
        ("Knights of the Blazing Sun is out of the combat: lost base contact", "wfb8.multi.left_combat"),
        ("Spearmen of the Reik must re-roll 2D6 for panic", "wfb8.hold_your_ground"),
        ("Grünburg Halberdiers breaks and flees", "wfb8.break.test"),
        ("Grünburg Halberdiers rallies", "wfb8.rally.test"),
        ("Goblin Wolf Riders flees off the table", "wfb8.flee.move"),
        ("Orc Boyz passes the break test: 1 + 1", "wfb8.break.test"),
    ],
)
def test_the_wfb8_example_narrative_shows_each_turn_of_fortune_citing_its_rule(lines, phrase, rule):
    assert any(phrase in line.text and rule in line.rules for line in lines)


def test_every_consequence_in_the_wfb8_example_cites_a_rule_the_engine_knows(lines):
    known = set(CLAUSES) | {row["rule"] for row in WFB8.graph.rows} | set(WFB8.once_per_phase.values())
    outcomes = [line for line in lines if line.kind == "outcome"]
    assert outcomes
    for line in outcomes:
        assert line.rules and all(rule in known or rule.startswith("engine.") for rule in line.rules), line


def test_the_wfb8_example_exercises_every_seed_clause_and_every_standard_one(lines):
    cited = {rule for line in lines for rule in line.rules}
    # The player's choice of order (wfb8.panic.order) is an event, not a consequence: checked below.
    assert clauses("seed") - {"wfb8.panic.order"} <= cited
    assert clauses("standard") <= cited


def test_the_wfb8_example_has_a_player_choose_the_order_of_two_panic_tests(store):
    events = [stored.event for stored in store.read(BATTLE)]
    chosen = next(i for i, e in enumerate(events) if isinstance(e, PlayerDecided) and e.decision == "test_first")
    rolled = [(e.unit, e.test) for e in events[chosen + 1 : chosen + 3] if isinstance(e, DiceRolled)]
    assert events[chosen].unit == "spearmen" and rolled == [("spearmen", "panic"), ("handgunners", "panic")]
