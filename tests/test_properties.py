"""Invariants that hold for any battle: replay is deterministic, a refused event changes nothing, and
after every event what any correct referee keeps (support/invariants.py), with 6th edition's
Leadership tests checked against a reference written apart from the engine."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.invariants import record_checked, wh40k6_leadership
from support.strategies import WH40K3_FACTS, WH40K6_FACTS, a_3rd_edition_battle, a_battle, proposals

from morale.core.state import digest


@pytest.mark.parametrize(
    ("battle", "facts", "reference"),
    [(a_battle, WH40K6_FACTS, wh40k6_leadership), (a_3rd_edition_battle, WH40K3_FACTS, None)],
    ids=["wh40k6", "wh40k3"],
)
@given(data=st.data())
def test_replaying_a_log_twice_gives_the_same_state_and_refusals_change_nothing(battle, facts, reference, data):
    table = battle()
    for _ in range(data.draw(st.integers(10, 120))):
        record_checked(table, proposals(data, table, facts), reference)
    live = digest(table.battle)
    assert digest(table.replayed().state()) == live
    assert digest(table.replayed().state()) == live
