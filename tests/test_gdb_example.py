"""The shipped General de Brigade example, the Pratzen heights: it imports through the same path as
the CLI, exercises every clause of the catalogue, and its state at the end of every phase is the one
worked out by hand (the comments in battle.ndjson's generator are in the expected table below)."""

from __future__ import annotations

from pathlib import Path

import pytest

from morale.app.roster import load_roster
from morale.app.service import load
from morale.core import catalogue
from morale.core import outcomes as out
from morale.core.fold import Fold
from morale.core.rules import CLAUSES
from morale.core.rulesets.gdb import GDB
from morale.core.state import Unit, digest
from morale.events.types import PhaseEnded
from morale.projections.board import board
from morale.projections.narrative import narrate

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "gdb"


pytestmark = pytest.mark.example(EXAMPLE)  # `store`: a fresh one per test, holding this example battle


@pytest.fixture  # per test, as `store` is
def outcomes(store) -> list[out.Outcome]:
    fold = Fold("pratzen")
    return [o for stored in store.read("pratzen") for o in fold.advance(stored.seq, stored.event)]


def snapshot(unit: Unit, joined: dict) -> str:
    """'state models', then what differs from how it joined: unformed, formation, location, restrictions."""
    parts = [unit.state, str(unit.models)]
    if not unit.profile["formed"]:
        parts.append("unformed")
    if unit.profile["formation"] != joined.get("formation"):
        parts.append(f"in {unit.profile['formation']}")
    if unit.profile["location"] != joined.get("location", "open"):
        parts.append(f"at {unit.profile['location']}")
    if unit.restrictions:
        parts.append("[" + ", ".join(r.name for r in unit.restrictions) + "]")
    return " ".join(parts)


@pytest.fixture  # per test, as `store` is
def phase_ends(store) -> dict[tuple[int, str], dict[str, str]]:
    """At the end of each phase, every unit that is not as it joined (steady, full, formed, free)."""
    joined = {u.unit: u.profile for u in load_roster(EXAMPLE / "roster.toml").units}
    fold = Fold("pratzen")
    ends = {}
    for stored in store.read("pratzen"):
        fold.advance(stored.seq, stored.event)
        if isinstance(stored.event, PhaseEnded):
            units = fold.state().units.values()
            ends[(stored.event.turn, stored.event.phase)] = {
                u.id: view for u in units if (view := snapshot(u, joined[u.id])) != f"steady {u.starting_models}"
            }
    return ends


T1_END = {
    "l10": "steady 17",
    "l14": "wavering 20 unformed",
    "ryazan": "broken 20 unformed",
    "cossacks": "falling_back 9 unformed",
    "salzburg": "steady 20 unformed",
}
T2_END = {
    "l10": "falling_back 17 unformed",
    "ryazan": "regrouped 20 unformed",
    "cossacks": "falling_back 9 unformed",
    "salzburg": "broken 17 unformed",
    "au_battery": "dispersed 4 unformed",
}
T3_END = {
    "l10": "regrouped 10 unformed",
    "ryazan": "broken 20 unformed",
    "cossacks": "dispersed 6 unformed",
    "salzburg": "broken 14 unformed",
    "ha": "dispersed 4 unformed",
    "au_battery": "dispersed 4 unformed",
}
EXPECTED = {
    (1, "movement"): {},
    (1, "charge"): {
        "ryazan": "broken 20 unformed",  # flank charge by the chasseurs: Rout
        "cossacks": "steady 9",  # 3 lost to closing fire, still charged home
        "l14": "wavering 20 unformed [may_not_reform]",  # Waver against the Cossacks
    },
    (1, "shooting"): {
        "l10": "steady 17",
        "l14": "wavering 20 unformed [may_not_reform]",
        "ryazan": "broken 20 unformed",
        "cossacks": "steady 9",
    },
    (1, "melee"): {
        "l10": "steady 17",
        "l14": "wavering 20 unformed [may_not_reform]",  # a Halt changes nothing for a wavering unit
        "ryazan": "broken 20 unformed",
        "cossacks": "falling_back 9 unformed",  # lost the melee
        "salzburg": "steady 20 unformed",  # the Cossacks retreated through it
    },
    (1, "morale"): T1_END,  # l10's Carry out orders and fanagoria's Halt end with the turn
    (2, "movement"): {**T1_END, "l14": "steady 20 [reforming]"},
    (2, "charge"): {
        **T1_END,
        "l14": "steady 20 [reforming]",
        "au_battery": "dispersed 4 unformed",  # charged artillery that retreats is dispersed
        "salzburg": "steady 20 unformed [halted]",  # the Brigade Morale Test: Halt
        "kaunitz": "steady 20 [halted]",
        "fanagoria": "steady 20 [no_melee]",  # double six
    },
    (2, "shooting"): {
        **T1_END,
        "l14": "steady 20 [reforming]",
        "au_battery": "dispersed 4 unformed",
        "salzburg": "steady 17 unformed [halted]",
        "kaunitz": "steady 20 [halted]",
        "fanagoria": "steady 20 [no_melee]",
    },
    (2, "melee"): {
        **T1_END,
        "l10": "falling_back 17 unformed",  # lost the melee to the grenadiers
        "l14": "steady 20 [reforming]",
        "au_battery": "dispersed 4 unformed",
        "salzburg": "steady 17 unformed [halted]",
        "kaunitz": "steady 20 [halted]",
        "fanagoria": "steady 20 [no_melee]",
    },
    (2, "morale"): T2_END,
    (3, "movement"): {**T2_END, "ryazan": "steady 20 [forming_up]"},
    (3, "charge"): {
        **T2_END,
        "ryazan": "steady 20 [forming_up, no_melee]",
        "volt": "steady 8 [halted]",  # skirmishers Halt instead of wavering
        "ha": "dispersed 4 unformed",  # routing artillery abandons its guns
    },
    (3, "shooting"): {
        **T2_END,
        "l10": "falling_back 10 unformed",
        "ryazan": "steady 20 [forming_up, no_melee]",
        "volt": "steady 8 [halted]",
        "ha": "dispersed 4 unformed",
        "cossacks": "falling_back 6 unformed",
        "salzburg": "broken 14 unformed",
    },
    (3, "melee"): {
        **T2_END,
        "l10": "falling_back 10 unformed",
        "l14": "steady 20 [no_melee]",
        "ryazan": "broken 20 unformed",  # routed by the melee result
        "volt": "steady 8 [halted]",
        "ha": "dispersed 4 unformed",
        "cossacks": "falling_back 6 unformed",
        "salzburg": "broken 14 unformed",
    },
    (3, "morale"): T3_END,
    (4, "movement"): {**T3_END, "l10": "steady 10 [forming_up]", "fanagoria": "steady 20 in square"},
    (4, "charge"): {
        **T3_END,
        "l10": "steady 10 [forming_up]",
        "fanagoria": "falling_back 20 unformed in square",  # the Brigade Morale Test: Retreat
        "ryazan": "dispersed 20 unformed",  # caught while routing
        "kaunitz": "falling_back 20 unformed at open",  # charged out of the church, no cover with the enemy inside
    },
    (4, "shooting"): {
        **T3_END,
        "l10": "steady 10 [forming_up]",
        "fanagoria": "falling_back 20 unformed in square",
        "ryazan": "dispersed 20 unformed",
        "kaunitz": "falling_back 20 unformed at open",
        "volt": "steady 5",
    },
    (4, "melee"): {
        **T3_END,
        "l10": "steady 10 [forming_up]",
        "fanagoria": "falling_back 20 unformed in square",
        "ryazan": "dispersed 20 unformed",
        "kaunitz": "falling_back 20 unformed at open",
        "volt": "steady 5",
        "hu8": "steady 12 [no_melee]",
    },
    (4, "morale"): {
        "l10": "steady 10",
        "volt": "dispersed 5 unformed",
        "ha": "dispersed 4 unformed",
        "fanagoria": "falling_back 20 unformed in square",
        "ryazan": "dispersed 20 unformed",
        "cossacks": "dispersed 6 unformed",
        "salzburg": "dispersed 14 unformed",  # failed its one rally attempt
        "kaunitz": "falling_back 20 unformed at open",  # rallied, then the brigade retreats
        "au_battery": "dispersed 4 unformed",
    },
}


def test_the_example_lasts_four_game_turns_with_two_brigades_a_side(store):
    battle = load(store, "pratzen").state()
    assert battle.turn == 4 and not battle.phase_open and not battle.due
    brigades = {(u.side, u.profile["brigade"]) for u in battle.units.values()}
    assert brigades == {("french", "thiebault"), ("french", "margaron"), ("allies", "kamensky"), ("allies", "jurczik")}


@pytest.mark.parametrize("phase_end", list(EXPECTED), ids=[f"turn {t} {p}" for t, p in EXPECTED])
def test_the_state_at_the_end_of_each_phase(phase_ends, phase_end):
    assert phase_ends[phase_end] == EXPECTED[phase_end]


def test_every_phase_of_every_turn_was_played(phase_ends):
    assert list(phase_ends) == list(EXPECTED)


def test_the_example_pins_the_shipped_tables(store):
    started = next(store.read("pratzen")).event
    assert {name: table.source for name, table in started.tables.items()} == {
        "results": "default: gdb_results.toml",
        "brigade": "default: gdb_brigade.toml",
    }


def test_replaying_the_example_twice_gives_the_same_state(store):
    assert digest(load(store, "pratzen").state()) == digest(load(store, "pratzen").state())


def defined_ids() -> set[str]:
    return {c.id for c in catalogue.of_ruleset("gdb")}


RESULT_RULES = {
    "charge": "gdb.result.charge",
    "carry_on": "gdb.result.carry_on",
    "halt": "gdb.result.halt",
    "waver": "gdb.result.waver",
    "retreat": "gdb.result.retreat",
    "rout": "gdb.result.rout",
}


def cited(outcomes: list[out.Outcome]) -> set[str]:
    """Every rule an outcome of the example cites: its own, its trigger, each modifier's, and the
    clause of each result read in a table."""
    rules = {o.rule for o in outcomes} | {getattr(o, "trigger", "") for o in outcomes}
    for o in outcomes:
        rules |= {m.rule for m in getattr(o, "modifiers", ())}
        if isinstance(o, out.TestResolved) and o.result in RESULT_RULES:
            rules.add(RESULT_RULES[o.result])
    return rules - {""}


# Clauses that leave no outcome of their own; the tests below show each at work in the example.
SHOWN_OTHERWISE = {
    "gdb.results_table",  # the table the whole battle reads, pinned in battle_started
    "gdb.note.ignore",
    "gdb.note.simultaneous",
    "gdb.note.rally_attempt",
    "gdb.retreat.no_fire",  # a restriction implied by the state, shown on the board
}


def test_the_example_exercises_every_clause_of_the_catalogue(outcomes):
    assert defined_ids() - SHOWN_OTHERWISE <= cited(outcomes)
    known = set(CLAUSES) | {row["rule"] for row in GDB.graph.rows}
    assert all(rule in known or rule.startswith("engine.") for rule in cited(outcomes))


def resolved_tests(outcomes, unit: str, test: str) -> list[out.TestResolved]:
    return [o for o in outcomes if isinstance(o, out.TestResolved) and o.unit == unit and o.test == test]


def test_gdb_note_ignore_in_the_example_routing_infantry_and_retreating_cavalry_ignore_each_other(outcomes):
    """Turn 2: the routing Ryazan and the retreating Cossacks stand within 15 cm; neither counts the
    other in its rally test."""
    ryazan, cossacks = resolved_tests(outcomes, "ryazan", "rally")[0], resolved_tests(outcomes, "cossacks", "rally")[0]
    for test in (ryazan, cossacks):
        assert "gdb.mod.friends_fleeing" not in {m.rule for m in test.modifiers}


def test_gdb_note_simultaneous_in_the_example_salzburgs_rout_does_not_move_kaunitz_that_phase(outcomes):
    """Turn 2: Salzburg routs before Kaunitz rolls, yet Kaunitz's test reads the phase's start; in
    turn 3 Kaunitz tests for it (routing from last turn's Morale test), with the -1."""
    turn2, turn3 = resolved_tests(outcomes, "kaunitz", "morale")
    assert "gdb.mod.friends_fleeing" not in {m.rule for m in turn2.modifiers}
    assert (turn3.trigger, {m.rule: m.value for m in turn3.modifiers}["gdb.mod.friends_fleeing"]) == (
        "gdb.trigger.friend_routing_prev",
        -1,
    )


def test_gdb_note_rally_attempt_in_the_example_every_unit_free_to_rally_tries(outcomes):
    attempts = [(o.unit, o.result) for o in outcomes if isinstance(o, out.TestResolved) and o.test == "rally"]
    assert attempts == [
        ("ryazan", "rally"),
        ("cossacks", "fail"),
        ("l10", "rally"),
        ("salzburg", "fail"),
        ("kaunitz", "rally"),
    ]


def test_gdb_retreat_no_fire_in_the_example_the_board_says_kaunitz_does_not_shoot(store):
    row = next(r for r in board(load(store, "pratzen").state()).units if r.unit == "kaunitz")
    assert row.state == "falling_back" and ("does not shoot", "gdb.retreat.no_fire") in [
        (r.text, r.rule) for r in row.restrictions
    ]


@pytest.mark.parametrize(
    ("phrase", "rule"),
    [
        ("Ryazan Musketeers routs", "gdb.result.rout"),
        ("14e Ligne, 1st battalion has reformed: formed again", "gdb.waver.reform"),
        ("Austrian position battery retreats before the enemy and is dispersed", "gdb.retreat.artillery"),
        ("Fanagoria Grenadiers tests (charged column): 6 + 6", "gdb.test.double_six"),
        ("IR 20 Kaunitz takes no morale test", "gdb.note.same_router"),
        ("Isayev's Cossacks has lost more than 35% of its strength and is dispersed at once", "gdb.rout.heavy_losses"),
        ("IR 23 Salzburg fails its one rally attempt and is dispersed", "gdb.rout.rally"),
        ("IR 20 Kaunitz: location open", "gdb.retreat.buildings"),
    ],
)
def test_the_narrative_shows_each_turn_of_fortune_citing_its_rule(store, phrase, rule):
    lines = narrate("pratzen", store.read("pratzen"))
    assert any(phrase in line.text and rule in line.rules for line in lines)


def test_the_narrative_says_a_fact_that_no_longer_holds_in_words(store):
    """An enemy no longer within charge range reads "no", never the machine's False."""
    said = [line.text for line in narrate("pratzen", store.read("pratzen"))]
    assert "At the table: Ryazan Musketeers enemy in charge range: no" in said
    assert not any("False" in text or "True" in text for text in said)
