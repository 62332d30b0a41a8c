"""Invariants that hold for any battle: replay is deterministic, and a refused event changes nothing."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.strategies import WH40K3_FACTS, WH40K6_FACTS, a_3rd_edition_battle, a_battle, proposals

from morale.core.state import digest


@pytest.mark.parametrize(
    ("battle", "facts"), [(a_battle, WH40K6_FACTS), (a_3rd_edition_battle, WH40K3_FACTS)], ids=["wh40k6", "wh40k3"]
)
@given(data=st.data())
def test_replaying_a_log_twice_gives_the_same_state_and_refusals_change_nothing(battle, facts, data):
    table = battle()
    for _ in range(data.draw(st.integers(10, 120))):
        table.try_record(proposals(data, table, facts))
    live = digest(table.battle)
    assert digest(table.replayed().state()) == live
    assert digest(table.replayed().state()) == live
