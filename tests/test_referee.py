"""The engine's own bookkeeping: the clock, decisions, rulings, retractions and engine dice."""

from __future__ import annotations

import pytest
from support.table import Table, only, unit

from morale.core import outcomes as out
from morale.core import rules
from morale.core.dice import engine_dice
from morale.core.referee import decide
from morale.core.rules import Refusal
from morale.core.rulesets import latest, lookup
from morale.core.state import digest
from morale.events.types import (
    BattleStarted,
    CasualtiesSuffered,
    DiceRolled,
    EventRetracted,
    PhaseEnded,
    PhaseStarted,
    PlayerDecided,
    RefereeRuled,
    UnitChanged,
    UnitJoined,
)


def a_battle() -> Table:
    return Table(unit("guard", models=10), unit("boyz", "orks", models=20))


# -- the clock ----------------------------------------------------------------------------------
def test_phases_start_in_the_rulesets_order_engine_clock_order():
    table = a_battle()
    refused = table.refuse(PhaseStarted(turn=1, side="imperium", phase="shooting"))
    assert refused.rule == rules.CLOCK_ORDER and "next is turn 1, imperium, movement" in refused.message
    table.record(PhaseStarted(turn=1, side="imperium", phase="movement"))
    refused = table.refuse(PhaseStarted(turn=1, side="imperium", phase="psychic"))
    assert refused.rule == rules.CLOCK_ORDER and "movement has not ended" in refused.message
    refused = table.refuse(PhaseEnded(turn=1, side="orks", phase="movement"))
    assert refused.rule == rules.CLOCK_ORDER
    assert "cannot end turn 1, orks, movement: the phase in progress is turn 1, imperium, movement" in refused.message
    table.end_phase()
    refused = table.refuse(PhaseEnded(turn=1, side="imperium", phase="movement"))
    assert "no phase is in progress" in refused.message


def test_after_the_last_phase_the_other_side_then_the_next_turn_engine_clock_order():
    table = a_battle()
    table.go_to(1, "imperium", "assault")
    table.end_phase()
    table.record(PhaseStarted(turn=1, side="orks", phase="movement"))
    table.go_to(1, "orks", "assault")
    table.end_phase()
    table.record(PhaseStarted(turn=2, side="imperium", phase="movement"))


def test_no_phase_starts_while_a_test_is_due_engine_clock_tests_first():
    table = a_battle()
    table.go_to(1, "orks", "shooting")
    table.casualties("guard", 3)
    table.end_phase()
    refused = table.refuse(PhaseStarted(turn=1, side="orks", phase="assault"))
    assert refused.rule == rules.TESTS_FIRST and "wh40k6.trigger.casualties" in refused.message


def test_the_first_event_must_start_the_battle():
    try:
        decide(None, CasualtiesSuffered(unit="guard", count=1))
    except Refusal as refusal:
        assert refusal.field == "type"
    else:
        raise AssertionError("accepted an event before battle_started")


def test_an_unknown_ruleset_or_version_is_refused_naming_the_field():
    for started, field in [
        (BattleStarted(ruleset="wh99", ruleset_version="1", sides=("a", "b")), "ruleset"),
        (BattleStarted(ruleset="wh40k6", ruleset_version="7", sides=("a", "b")), "ruleset_version"),
        (BattleStarted(ruleset="wh40k6", ruleset_version="1", sides=("a", "a")), "sides"),
        (BattleStarted(ruleset="wh40k6", ruleset_version="1", sides=("a", "b"), house_rules={"x": 1}), "house_rules"),
    ]:
        try:
            decide(None, started)
        except Refusal as refusal:
            assert refusal.field == field
        else:
            raise AssertionError(f"accepted {started}")


@pytest.mark.parametrize("ruleset_id", ["wh40k6", "wh40k3", "wfb8", "gdb"])
def test_a_new_battle_without_a_version_plays_the_newest_version_of_its_own_ruleset(ruleset_id):
    newest = latest(ruleset_id)
    assert newest.id == ruleset_id
    assert newest is lookup(ruleset_id, "1")  # every ruleset has one version so far
    with pytest.raises(Refusal) as refused:
        latest("wh99")
    assert refused.value.field == "ruleset"


def test_units_are_checked_when_they_join():
    table = a_battle()
    assert table.refuse(unit("guard")).field == "unit"
    assert table.refuse(unit("eldar", "eldar")).field == "side"
    assert table.refuse(unit("tank", unit_type="vehicle")).field == "unit_type"
    assert table.refuse(unit("mystics", rules=("fearles",))).field == "special_rules"
    no_ld = UnitJoined(unit="x", side="orks", name="X", unit_type="infantry", models=5, initiative=2)
    assert table.refuse(no_ld).field == "ld"


def test_house_rules_change_the_numbers_of_the_rules():
    table = Table(unit("guard", models=10), unit("boyz", "orks"), house_rules={"casualty_threshold_percent": 50})
    table.go_to(1, "orks", "shooting")
    table.casualties("guard", 4)
    table.end_phase()
    assert table.due() == []


# -- decisions and rulings ------------------------------------------------------------------------
def routed_guard() -> Table:
    table = a_battle()
    table.go_to(1, "orks", "shooting")
    table.casualties("guard", 3)
    table.end_phase()
    table.roll("guard", "morale", 6, 6)
    table.roll("guard", "fall_back", 2, 2)
    table.go_to(2, "imperium", "movement")
    return table


def test_a_decision_must_settle_the_units_next_test_engine_decision():
    table = routed_guard()
    refused = table.refuse(PlayerDecided(unit="guard", decision="decline_sweeping_advance"))
    assert refused.rule == rules.DECISION
    table.record(PlayerDecided(unit="guard", decision="decline_regroup"))
    assert table.due() == ["guard:fall_back"]


def test_a_ruling_overrides_the_engine_and_waives_the_tests_it_makes_moot_engine_ruling():
    table = routed_guard()
    caused = table.record(RefereeRuled(unit="guard", state="steady", reason="the squad was never in line of sight"))
    assert table.state("guard") == "steady" and table.due() == []
    change = next(o for o in caused if isinstance(o, out.StateChanged))
    assert (change.from_state, change.to_state, change.rule) == ("falling_back", "steady", rules.RULING)


def test_a_ruling_reports_each_test_it_waives_as_passed_automatically_engine_ruling():
    table = routed_guard()  # a Regroup test is due

    caused = table.record(RefereeRuled(unit="guard", reason="the sergeant rallied them", waive_tests=True))

    waived = only(caused, out.TestResolved)
    assert (waived.test, waived.passed, waived.automatic, waived.rule) == ("regroup", True, True, rules.RULING)
    assert "waived by the referee: the sergeant rallied them" in waived.detail and table.due() == []


def test_a_ruling_that_brings_a_destroyed_unit_back_shows_in_the_state_digest_engine_ruling():
    table = Table(unit("guard"), unit("scouts", models=5), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")
    table.casualties("scouts", 5)
    table.go_to(1, "orks", "assault")  # the scouts are out of play, past a phase reset: their encoding is kept
    destroyed = digest(table.battle)
    assert "scouts" in table.battle.departed_views

    table.record(RefereeRuled(unit="scouts", state="steady", reason="the last trooper was in cover after all"))

    assert table.state("scouts") == "steady" and "scouts" in table.battle.living
    assert digest(table.battle) != destroyed and "scouts" not in table.battle.departed_views


def test_a_ruling_must_change_something_and_name_a_state_of_the_ruleset():
    table = routed_guard()
    assert table.refuse(RefereeRuled(unit="guard", reason="nothing")).field == "state"
    assert table.refuse(RefereeRuled(unit="guard", state="wavering", reason="no such state in 40K")).field == "state"


# -- retractions --------------------------------------------------------------------------------
def test_striking_an_event_replays_the_log_without_it_engine_retraction():
    table = a_battle()
    table.go_to(1, "orks", "shooting")
    table.casualties("guard", 3)
    struck_seq = table.fold.seq
    caused = table.record(EventRetracted(seq=struck_seq, reason="those were the other squad's models"))
    assert table.unit("guard").models == 10 and caused == ()
    table.end_phase()
    assert table.due() == []


def test_striking_an_event_that_later_events_rest_on_is_refused_engine_retraction():
    table = a_battle()
    table.go_to(1, "orks", "shooting")
    table.casualties("guard", 3)
    cause = table.fold.seq
    table.end_phase()
    table.roll("guard", "morale", 6, 6)
    refused = table.refuse(EventRetracted(seq=cause, reason="typo"))
    assert refused.rule == rules.RETRACTION and "no morale roll is due" in refused.message


def test_retraction_targets_are_checked():
    table = a_battle()
    assert table.refuse(EventRetracted(seq=1, reason="start again")).field == "seq"
    assert table.refuse(EventRetracted(seq=99, reason="future")).field == "seq"


def test_striking_an_event_not_recorded_yet_is_refused_as_not_there_yet_engine_retraction():
    """The refusal says why: the event does not exist yet (and which is the last), not that it is
    already struck, which would send the user looking for a retraction that was never made."""
    table = a_battle()
    last = table.fold.seq

    refused = table.refuse(EventRetracted(seq=99, reason="future"))

    assert (refused.field, str(refused)) == ("seq", f"seq: there is no event 99 yet (last is {last})")


def test_a_retraction_replays_identically():
    table = a_battle()
    table.go_to(1, "orks", "shooting")
    table.casualties("guard", 3)
    table.record(EventRetracted(seq=table.fold.seq, reason="wrong unit"))
    table.casualties("boyz", 5)
    table.end_phase()
    assert digest(table.replayed().state()) == digest(table.battle)
    assert table.due() == ["boyz:morale"]


# -- destroyed ----------------------------------------------------------------------------------
def test_losing_the_last_model_destroys_the_unit_and_drops_its_tests_engine_destroyed():
    table = routed_guard()
    caused = table.record(CasualtiesSuffered(unit="guard", count=7))
    assert table.state("guard") == "destroyed" and table.due() == []
    assert any(isinstance(o, out.TestNotTaken) and o.rule == rules.DESTROYED for o in caused)
    assert table.refuse(CasualtiesSuffered(unit="guard", count=1)).field == "unit"


# -- engine dice --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("policy", "source", "accepted"),
    [
        ("table", "table", True),
        ("table", "engine", False),
        ("engine", "engine", True),
        ("engine", "table", False),
        ("either", "table", True),
        ("either", "engine", True),
    ],
)
def test_dice_come_only_from_the_source_the_battle_allows(policy, source, accepted):
    table = Table(unit("marines", models=4), unit("boyz", "orks"), dice_policy=policy)
    table.go_to(1, "orks", "shooting")
    table.casualties("marines", 1)
    table.end_phase()
    roll = DiceRolled(unit="marines", test="morale", dice=(3, 4), source=source)
    if accepted:
        assert only(table.record(roll), out.TestResolved).dice == (3, 4)
    else:
        refused = table.refuse(roll)
        assert refused.field == "source" and f"rolled by the {policy}, not the {source}" in str(refused)


def test_engine_dice_are_fair_faces_each_roll_its_own():
    """Fair and distinct over many rolls; the exact dice a secret gives are in test_known_answers.py."""
    secret = "s" * 64
    assert len({engine_dice(secret, "b", seq, 3) for seq in range(20)}) > 15  # each roll its own dice
    rolls = [d for seq in range(3000) for d in engine_dice(secret, "b", seq, 2)]
    counts = [rolls.count(face) for face in range(1, 7)]
    assert set(rolls) == {1, 2, 3, 4, 5, 6}
    assert max(counts) - min(counts) < 0.1 * len(rolls) / 6


# -- profiles -----------------------------------------------------------------------------------
def test_a_ruleset_that_reads_no_profile_fields_refuses_them_and_any_change():
    table = a_battle()
    joined = UnitJoined(
        unit="x",
        side="orks",
        name="X",
        unit_type="infantry",
        models=5,
        ld=7,
        initiative=2,
        profile={"formation": "line"},
    )
    assert table.refuse(joined).field == "profile"
    assert table.refuse(UnitChanged(unit="guard", changes={"formation": "square"})).field == "changes"


def test_each_event_type_the_log_knows_has_one_check_and_one_fold():
    """The log's list of event types (`EVENT_TYPES`) is the only one: the referee and the fold file a
    handler under each type (`@filed_under(_FOLDS, DiceRolled)`), each named after the type's tag,
    but for the events that write no fact of their own (`_no_facts`: the rules make all of them)."""
    from morale.core import evolve, referee
    from morale.events.types import EVENT_TYPES, BattleStarted

    kinds = set(EVENT_TYPES.values()) - {BattleStarted}  # a battle's first event starts the fold itself
    assert set(referee._DECISIONS) == kinds and set(evolve._FOLDS) == kinds
    for tag, kind in EVENT_TYPES.items():
        if kind in kinds:
            assert referee._DECISIONS[kind].__name__ == f"_{tag}"
            assert evolve._FOLDS[kind].__name__ in (f"_{tag}", "_no_facts")


def test_a_table_by_event_type_without_a_handler_for_a_type_stops_the_import_naming_it():
    from morale.core.rules import every_event_type
    from morale.events.types import EVENT_TYPES, BattleStarted, DiceRolled

    table = {kind: print for kind in EVENT_TYPES.values() if kind not in (BattleStarted, DiceRolled)}
    with pytest.raises(ImportError, match=r"^no fold for DiceRolled: file one under each with `filed_under`$"):
        every_event_type(table, "fold", skip=(BattleStarted,))
    every_event_type({**table, DiceRolled: print}, "fold", skip=(BattleStarted,))  # complete: nothing said


def test_a_type_filed_twice_in_one_table_is_refused_naming_it():
    from morale.core.rules import filed_under
    from morale.events.types import DiceRolled

    table: dict[type, object] = {}
    filed_under(table, DiceRolled)(print)
    with pytest.raises(ValueError, match=r"^DiceRolled is filed twice in one table$"):
        filed_under(table, DiceRolled)(repr)
    assert table == {DiceRolled: print}  # the first stands


def test_each_event_type_the_log_knows_has_its_own_line_in_the_narrative():
    """The narrative words each type of event itself: a new type without a line of its own would
    fall back to its class name, so the `match` in `describe_event` must name every type."""
    import ast
    from pathlib import Path

    from morale.events.types import EVENT_TYPES

    source = (Path(__file__).resolve().parents[1] / "projections" / "narrative.py").read_text(encoding="utf-8")
    describe = next(
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef) and node.name == "describe_event"
    )
    worded = {
        case.pattern.cls.id
        for node in ast.walk(describe)
        if isinstance(node, ast.Match)
        for case in node.cases
        if isinstance(case.pattern, ast.MatchClass) and isinstance(case.pattern.cls, ast.Name)
    }
    assert worded == {kind.__name__ for kind in EVENT_TYPES.values()}
