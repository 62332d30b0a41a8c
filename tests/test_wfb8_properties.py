"""Invariants of any wfb8 battle: replay is deterministic, a refused event changes nothing, no unit
ever has two Panic tests in one phase (wfb8.panic.once_per_phase), whatever the players record, and
after every event what any correct referee keeps (support/invariants.py)."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from support.invariants import record_checked
from support.table import clock_event
from support.wfb8 import battle, charge, combat, fact, regiment, side

from morale.app.service import record
from morale.app.transfer import export_lines, import_battle
from morale.core import outcomes as out
from morale.core.rules import Refusal
from morale.core.state import digest
from morale.events.store import SqliteEventStore
from morale.events.types import CasualtiesSuffered, DiceRolled, PlayerDecided
from morale.projections.verify import verify
from morale.projections.whatif import what_if

UNITS = {"empire": ["spearmen", "knights", "bearer"], "orcs": ["boyz", "wolves", "trolls"]}
EVERYONE = [u for units in UNITS.values() for u in units]
KINDS = ["clock"] * 3 + ["roll"] * 3 + ["casualties"] * 2 + ["fact", "charge", "combat", "decide"]
FACTS = [
    "friend_destroyed_within_6",
    "friend_broke_within_6",
    "friend_fled_through",
    "fled_off_table",
    "near_battle_standard",
    "in_close_combat",
]


def a_battle():
    return battle(
        regiment("spearmen", models=20),
        regiment("knights", models=6, unit_type="cavalry"),
        regiment("bearer", models=10, ld=8, rules=("battle_standard_bearer",)),
        regiment("boyz", "orcs", models=25),
        regiment("wolves", "orcs", models=5, unit_type="cavalry"),
        regiment("trolls", "orcs", models=3, ld=4, rules=("stubborn",)),
    )


def proposals(data: st.DataObject, table):
    """Any event a player might type, legal or not: the referee sorts them out."""
    b = table.battle
    some_unit = st.sampled_from(EVERYONE)
    kind = data.draw(st.sampled_from(KINDS))
    if kind == "clock":
        return clock_event(b)
    if kind == "roll":
        due = b.due[0] if b.due and data.draw(st.booleans()) else None
        unit_id = due.unit if due else data.draw(some_unit)
        test = due.test if due else data.draw(st.sampled_from(["panic", "break", "rally", "flee"]))
        again = bool(due and due.reroll) if data.draw(st.integers(0, 9)) else data.draw(st.booleans())
        dice = data.draw(st.lists(st.integers(1, 6), min_size=2, max_size=2))
        return DiceRolled(unit=unit_id, test=test, dice=dice, reroll=again)
    if kind == "casualties":
        cause = data.draw(st.sampled_from(["shooting", "magic", "stand_and_shoot", "close combat"]))
        return CasualtiesSuffered(unit=data.draw(some_unit), count=data.draw(st.integers(1, 8)), cause=cause)
    if kind == "fact":
        value = data.draw(st.one_of(st.booleans(), st.sampled_from(EVERYONE)))
        return fact(data.draw(some_unit), data.draw(st.sampled_from(FACTS)), value)
    if kind == "charge":
        side_name = data.draw(st.sampled_from(list(UNITS)))
        enemy = "orcs" if side_name == "empire" else "empire"
        return charge(data.draw(st.sampled_from(UNITS[side_name])), data.draw(st.sampled_from(UNITS[enemy])))
    if kind == "combat":
        empire = data.draw(st.lists(st.sampled_from(UNITS["empire"]), min_size=1, max_size=2, unique=True))
        orcs = data.draw(st.lists(st.sampled_from(UNITS["orcs"]), min_size=1, max_size=2, unique=True))
        ranks = {u: data.draw(st.integers(0, 4)) for u in empire + orcs}
        left = data.draw(st.lists(st.sampled_from(empire), max_size=1))
        empire_wounds, orcs_wounds = data.draw(st.integers(0, 6)), data.draw(st.integers(0, 6))
        return combat(
            side("empire", *empire, wounds=empire_wounds, ranks={u: ranks[u] for u in empire}, left_combat=left),
            side("orcs", *orcs, wounds=orcs_wounds, ranks={u: ranks[u] for u in orcs}),
        )
    return PlayerDecided(unit=data.draw(some_unit), decision="test_first")


@given(st.data())
def test_wfb8_replay_is_deterministic_refusals_change_nothing_and_panic_is_once_a_phase(data):
    table = a_battle()
    panic_tests: Counter = Counter()
    for _ in range(data.draw(st.integers(20, 150))):
        caused = record_checked(table, proposals(data, table))  # a refusal changes nothing
        if caused is None:
            continue
        window = table.battle.ruleset.phase_window(table.battle)
        for outcome in caused:
            if isinstance(outcome, out.TestDue) and outcome.test == "panic" and not outcome.reroll:
                panic_tests[(outcome.unit, window)] += 1
    assert all(count == 1 for count in panic_tests.values()), panic_tests
    live = digest(table.battle)
    assert digest(table.replayed().state()) == live


@settings(max_examples=25)
@given(st.data())
def test_any_accepted_wfb8_battle_verifies_round_trips_and_replays_unchanged(data):
    table = a_battle()
    for _ in range(data.draw(st.integers(20, 120))):
        try:
            table.record(proposals(data, table))
        except Refusal:
            continue
    store = SqliteEventStore(":memory:")
    record(store, "wfb8-prop", table.events)
    assert verify("wfb8-prop", store.raw_rows("wfb8-prop")).ok
    copy = SqliteEventStore(":memory:")
    import_battle(copy, list(export_lines(store, "wfb8-prop")))
    assert list(copy.raw_rows("wfb8-prop")) == list(store.raw_rows("wfb8-prop"))
    assert what_if("wfb8-prop", list(store.read("wfb8-prop")), []).divergence is None
