"""What the tests share, one module per topic:

table.py       a battle at the table, in memory: Table, unit(), combat(), only()...
strategies.py  any battle, for the property tests: two 40K armies and any event a player might type
wh40k6.py      the usual ways a 40K 6th edition unit comes to take its Morale test
wh40k3.py      a 40K 3rd edition table and the usual ways a unit comes to fall back
wfb8.py        a Warhammer Fantasy 8th edition table: the Empire against the Orcs
gdb.py         General de Brigade units and the facts players state
examples.py    the shipped example battles in a store, and logs as a later reader sees them
cli.py         the `morale` CLI run in-process against a store file
served.py      `morale serve`: the example battle as HTTP bodies, a real server on loopback, SSE parsing

Fixtures live in ../conftest.py.
"""

import pkgutil

import pytest

# Their asserts (Table.record checks the engine's invariants) report as a test's own do: pytest
# rewrites the modules below as it does test modules and conftest.py (this one is imported already).
pytest.register_assert_rewrite(*(f"{__name__}.{found.name}" for found in pkgutil.iter_modules(__path__)))
