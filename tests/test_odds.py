"""Odds: each due test's exact chance of passing, counted over every roll through the same rules that
resolve real dice; and the luck report that compares each side's rolls with those chances."""

from __future__ import annotations

import math
from itertools import product

import pytest
from support.examples import example_store
from support.table import Table, unit
from support.wh40k3 import table as wh40k3_table
from support.wh40k6 import lose_combat, shot_up

from morale.app.service import record
from morale.core import outcomes as out
from morale.core.odds import odds
from morale.core.reactions import Rulebook
from morale.core.rulesets.base import Ruleset
from morale.events.store import SqliteEventStore
from morale.events.types import DiceRolled, TableFactRecorded
from morale.projections.due import due_tests
from morale.projections.luck import Roll, luck, passes_distribution, side_luck
from morale.projections.luck import verdict as luck_verdict


def chance_of(table: Table):
    return odds(table.battle, table.battle.due[0])


def test_wh40k6_test_morale_ld_8_passes_on_26_of_36_rolls():
    table = Table(unit("marines", ld=8), unit("boyz", "orks"))
    shot_up(table, "marines", 3)
    found = chance_of(table)
    assert (found.pass_ways, found.of) == (26, 36) and found.percent() == "72.2%"
    assert [(c.result, c.passed, c.ways) for c in found.results] == [("pass", True, 26), ("fail", False, 10)]


def test_wh40k6_trigger_combat_lost_example_ld_8_lost_by_2_needs_6_or_less_15_in_36():
    table = Table(unit("guard", ld=8), unit("boyz", "orks"))
    lose_combat(table, "guard", "boyz", 2)
    assert (chance_of(table).pass_ways, table.battle.ruleset.target(table.battle, table.battle.due[0])) == (15, 6)


def test_wh40k6_test_insane_heroism_is_the_only_way_through_below_ld_2():
    table = Table(unit("guard", ld=7), unit("boyz", "orks"))
    lose_combat(table, "guard", "boyz", 7)
    assert chance_of(table).pass_ways == 1


def test_wh40k6_special_stubborn_odds_ignore_the_combat_penalty():
    table = Table(unit("guard", ld=8, rules=("stubborn",)), unit("boyz", "orks"))
    lose_combat(table, "guard", "boyz", 3)
    assert chance_of(table).pass_ways == 26


def test_wh40k6_regroup_test_under_a_quarter_left_only_double_one_regroups():
    table = Table(unit("guard", ld=9, models=8), unit("boyz", "orks"))
    shot_up(table, "guard", 7)
    table.roll("guard", "morale", 6, 6)
    table.roll("guard", "fall_back", 3, 3)
    table.go_to(2, "imperium", "movement")
    assert table.due() == ["guard:regroup"] and chance_of(table).pass_ways == 1


def test_wh40k6_sweeping_advance_odds_roll_d6_plus_initiative_each():
    table = Table(unit("guard", ld=8, initiative=3), unit("boyz", "orks", initiative=2))
    lose_combat(table, "guard", "boyz", 2)
    table.roll("guard", "morale", 6, 6)
    found = chance_of(table)
    # Escapes when d6 + 3 > d6 + 2, i.e. the winners' die is not above the loser's: 21 of 36.
    assert found.test == "sweeping_advance" and found.pass_ways == 21
    assert {c.result for c in found.results} == {"escapes", "caught"}


def test_a_fall_back_move_has_no_odds_and_a_test_whose_dice_no_rulebook_reads_has_neither_odds_nor_target():
    table = Table(unit("guard", ld=8), unit("boyz", "orks"))
    shot_up(table, "guard", 3)
    table.roll("guard", "morale", 6, 6)
    assert table.due() == ["guard:fall_back"] and chance_of(table) is None

    class Unread(Ruleset):
        rulebook = Rulebook("unread")

    due = table.battle.due[0]
    assert Unread().result_of(table.battle, due, (1, 1)) is None and Unread().target(table.battle, due) is None


@pytest.mark.parametrize(("ld", "lost_by", "rules"), [(8, 0, ()), (7, 2, ()), (6, 5, ()), (9, 4, ("stubborn",))])
def test_the_odds_count_exactly_the_rolls_the_referee_passes(ld, lost_by, rules):
    """Every one of the 36 rolls, resolved for real, passes exactly when the odds say it does."""

    def due_table() -> Table:
        table = Table(unit("guard", ld=ld, models=10, rules=rules), unit("boyz", "orks"))
        if lost_by:
            lose_combat(table, "guard", "boyz", lost_by)
        else:
            table.go_to(1, "orks", "shooting")
            table.record(TableFactRecorded(unit="guard", fact="hit_by_pinning_weapon"))
        return table

    expected = chance_of(due_table())
    passes = 0
    for dice in product(range(1, 7), repeat=2):
        table = due_table()
        caused = table.record(DiceRolled(unit="guard", test=table.battle.due[0].test, dice=tuple(dice)))
        passes += next(o for o in caused if isinstance(o, out.TestResolved)).passed
    assert passes == expected.pass_ways


def test_the_due_list_shows_each_tests_chance():
    table = Table(unit("marines", ld=8), unit("boyz", "orks"))
    shot_up(table, "marines", 3)
    (view,) = due_tests(table.battle)
    assert view.odds is not None and view.odds.pass_ways == 26


# -- luck -------------------------------------------------------------------------------------------
def test_the_distribution_of_passes_is_exact():
    dist = passes_distribution([0.5, 0.5, 0.5])
    assert dist == pytest.approx([1 / 8, 3 / 8, 3 / 8, 1 / 8])
    assert sum(passes_distribution([0.1, 0.72, 0.58, 0.03])) == pytest.approx(1.0)


def roll(passed: bool, chance: float) -> Roll:
    return Roll(seq=1, unit="u", side="s", test="morale", dice=(1, 1), chance=chance, passed=passed)


def test_a_side_that_fails_every_likely_test_is_reported_as_very_unlucky():
    report = side_luck("s", [roll(False, 0.72)] * 5)
    assert report.expected_passes == pytest.approx(3.6) and report.passes == 0
    # none pass fewer than 0; all 5 fail 0.28**5 of the time, counting half
    assert report.percentile == pytest.approx(0.28**5 / 2) and report.verdict == "exceptionally unlucky"


def test_a_side_that_passes_a_coin_flip_half_the_time_is_as_expected():
    report = side_luck("s", [roll(True, 0.5), roll(False, 0.5)])
    assert report.verdict == "about as expected" and report.percentile == pytest.approx(0.5)


def test_the_luck_percentile_against_a_hand_count():
    """Three tests, at 1/2, 3/4 and 1/3; two pass. By hand over the 8 outcomes (p = pass, f = fail):
    fewer than 2 pass in fff 1/2*1/4*2/3 = 1/12, pff 1/2*1/4*2/3 = 1/12, fpf 1/2*3/4*2/3 = 1/4 and
    ffp 1/2*1/4*1/3 = 1/24: 11/24. Exactly 2 in ppf 1/4, pfp 1/24, fpp 1/8: 10/24, counting half.
    The percentile is 11/24 + 5/24 = 2/3: luckier than par, but not unusually."""
    report = side_luck("s", [roll(True, 1 / 2), roll(True, 3 / 4), roll(False, 1 / 3)])
    assert report.percentile == pytest.approx(2 / 3) and report.verdict == "about as expected"


@pytest.mark.parametrize(
    ("at", "verdict"),
    [
        (0.005, "exceptionally unlucky"),
        (0.05, "very unlucky"),
        (0.15, "unlucky"),
        (0.5, "about as expected"),
        (0.85, "lucky"),
        (0.96, "very lucky"),
        (0.995, "exceptionally lucky"),
    ],
)
def test_the_verdict_reads_the_percentile_from_its_nearer_end(at, verdict):
    assert luck_verdict(at) == verdict


def test_the_luck_report_of_the_example_battle(tmp_path):
    report = luck("hive-tarsis", example_store(tmp_path / "luck.db").read("hive-tarsis"))
    sides = {s.side: s for s in report.sides}
    assert (sides["imperium"].tests, sides["imperium"].passes) == (8, 4)
    assert (sides["orks"].tests, sides["orks"].passes) == (8, 2)
    assert sides["orks"].expected_passes == pytest.approx(sum(r.chance for r in report.rolls if r.side == "orks"))
    regroup = next(r for r in report.rolls if (r.unit, r.test) == ("tacticals", "regroup"))
    assert math.isclose(regroup.chance, 1 / 36) and not regroup.passed  # under 25% left: only a double 1


def test_luck_counts_a_fall_back_roll_that_stops_short_of_the_enemy_in_its_corridor():
    """40K 3rd edition: the guard fail Morale with an enemy 5" away in their corridor; 1 + 1 falls back
    2", short of it: a roll with odds (the crossfire) whose outcome is a move, not a resolved test.
    Luck counts it as passed, at the chance of a 2D6 roll under 5 (2 to 4: 6 of 36 rolls)."""
    t = wh40k3_table(unit("guard", ld=7), unit("boyz", "orks"))
    t.go_to(1, "orks", "shooting")
    t.casualties("guard", 3)
    t.end_phase()
    t.roll("guard", "morale", 6, 6)
    t.record(TableFactRecorded(unit="guard", fact="enemy_in_corridor", value=5.0))
    t.roll("guard", "fall_back", 1, 1)
    store = SqliteEventStore(":memory:")
    record(store, "corridor", t.events)

    found = luck("corridor", store.read("corridor"))

    fall_back = next(r for r in found.rolls if r.test == "fall_back")
    assert fall_back.passed and fall_back.chance == pytest.approx(6 / 36)
    imperium = next(s for s in found.sides if s.side == "imperium")
    assert (imperium.tests, imperium.passes) == (2, 1)
