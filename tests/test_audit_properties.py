"""Invariants of the audit tools for any battle the referee accepts: a log written through `record`
verifies, exports and imports to the same hashes, and a what-if that changes nothing diverges nowhere."""

from __future__ import annotations

import contextlib
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.strategies import WH40K3_FACTS, WH40K6_FACTS, a_3rd_edition_battle, a_battle, proposals

from morale.app.service import record
from morale.app.transfer import export_lines, import_battle
from morale.core.rules import Refusal
from morale.events.store import SqliteEventStore
from morale.projections.luck import luck
from morale.projections.verify import verify
from morale.projections.whatif import what_if

counter = itertools.count()


@pytest.mark.parametrize(
    ("new_battle", "facts"), [(a_battle, WH40K6_FACTS), (a_3rd_edition_battle, WH40K3_FACTS)], ids=["wh40k6", "wh40k3"]
)
@settings(max_examples=25)
@given(data=st.data())
def test_any_accepted_battle_verifies_round_trips_and_replays_unchanged(new_battle, facts, data):
    table = new_battle()
    for _ in range(data.draw(st.integers(10, 80))):
        with contextlib.suppress(Refusal):  # the referee sorts legal proposals from the rest
            table.record(proposals(data, table, facts))
    battle = f"prop-{next(counter)}"
    store = SqliteEventStore(":memory:")
    record(store, battle, table.events)
    checked = verify(battle, store.raw_rows(battle))
    assert checked.ok and checked.events == len(table.events)

    lines = list(export_lines(store, battle))
    copy = SqliteEventStore(":memory:")
    import_battle(copy, lines)
    assert list(copy.raw_rows(battle)) == list(store.raw_rows(battle))

    events = list(store.read(battle))
    unchanged = what_if(battle, events, [])
    assert unchanged.divergence is None and unchanged.final == [] and unchanged.dropped == []
    for side in luck(battle, events).sides:
        assert 0 <= side.expected_passes <= side.tests and 0 < side.percentile < 1
