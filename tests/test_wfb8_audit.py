"""The audit tools on WFB 8th edition battles: exact odds for Panic, Break and Rally tests, and the
example battle verifying, exporting and replaying unchanged."""

from __future__ import annotations

from support.examples import ROOT, example_store
from support.wfb8 import battle, charge, combat, fact, fled, regiment, side

from morale.app.transfer import export_lines, import_battle
from morale.core.odds import odds
from morale.events.store import SqliteEventStore
from morale.projections.luck import luck
from morale.projections.verify import verify
from morale.projections.whatif import what_if

BATTLE = "grunburg-bridge"


def odds_now(table):
    [due] = table.battle.due
    return odds(table.battle, due)


def test_wfb8_panic_test_odds_at_ld_7_are_21_in_36():
    table = battle(regiment("spearmen", ld=7), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")
    table.casualties("spearmen", 5)

    chances = odds_now(table)

    assert (chances.pass_ways, chances.of) == (21, 36)


def test_wfb8_break_test_odds_count_insane_courage():
    table = battle(regiment("spearmen", ld=7), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "movement")
    table.record(charge("boyz", "spearmen"))
    table.go_to(1, "orcs", "close_combat")
    table.record(combat(side("empire", "spearmen", wounds=0), side("orcs", "boyz", wounds=7)))  # Ld 7 - 7 = 0

    assert odds_now(table).pass_ways == 1  # only a double 1


def test_wfb8_rally_test_odds_at_25_percent_or_less_are_a_double_1():
    table = battle(regiment("spearmen", models=20), regiment("boyz", "orcs"))
    fled(table, "spearmen", lost=15)
    table.go_to(2, "empire", "movement")

    assert odds_now(table).pass_ways == 1


def test_wfb8_hold_your_ground_odds_show_a_failed_roll_as_a_re_roll():
    table = battle(
        regiment("spearmen", ld=7), regiment("guard", rules=("battle_standard_bearer",)), regiment("boyz", "orcs")
    )
    table.record(fact("spearmen", "near_battle_standard", True))
    table.go_to(1, "orcs", "shooting")
    table.casualties("spearmen", 5)

    results = {c.result: c.ways for c in odds_now(table).results}

    assert results == {"pass": 21, "re-roll": 15}


def test_wfb8_hold_your_ground_odds_show_a_plain_failure_without_a_battle_standard_near():
    table = battle(regiment("spearmen", ld=7), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")
    table.casualties("spearmen", 5)

    results = {c.result: c.ways for c in odds_now(table).results}

    assert results == {"pass": 21, "fail": 15}


def test_wfb8_flee_move_has_no_odds():
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")
    table.casualties("spearmen", 5)
    table.roll("spearmen", "panic", 6, 6)

    assert odds_now(table) is None


def test_the_wfb8_example_verifies_exports_and_replays_unchanged(tmp_path):
    store = example_store(tmp_path / "wfb8.db", example=ROOT / "examples" / "wfb8")

    assert verify(BATTLE, store.raw_rows(BATTLE)).ok
    copy = SqliteEventStore(tmp_path / "copy.db")
    import_battle(copy, list(export_lines(store, BATTLE)))
    assert list(copy.raw_rows(BATTLE)) == list(store.raw_rows(BATTLE))
    events = list(store.read(BATTLE))
    assert what_if(BATTLE, events, []).divergence is None
    assert {s.side for s in luck(BATTLE, events).sides} == {"empire", "orcs"}
