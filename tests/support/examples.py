"""The shipped example battles in a store, written as the CLI writes them, and logs as a later reader sees them."""

from __future__ import annotations

from pathlib import Path

from msgspec.structs import replace

from morale.app.roster import load_roster
from morale.app.service import record, start_battle
from morale.events.codec import decode_event
from morale.events.locate import open_store
from morale.events.store import GENESIS_HASH, EventStore, seal
from morale.events.types import StoredEvent

from .table import Table

ROOT = Path(__file__).resolve().parents[2]  # the repository: tests/support/examples.py
EXAMPLE = ROOT / "examples" / "wh40k6"
V1_FIXTURE = ROOT / "tests" / "fixtures" / "hive-tarsis.v1.ndjson"


def stored(table: Table, battle: str = "test-battle") -> list[StoredEvent]:
    """A Table's events as the log would hold them."""
    return [s for s, _ in seal(battle, table.events, 0, GENESIS_HASH, "2026-01-01T00:00:00Z")]


def example_events(example: Path = EXAMPLE) -> list:
    return [decode_event(line) for line in (example / "battle.ndjson").read_text().splitlines() if line]


def example_store(location: Path | str, *, dice: str | None = None, example: Path = EXAMPLE) -> EventStore:
    """A shipped example battle (the 40K 6th edition one unless `example` names another folder of
    examples/), written through `record` as the CLI writes it, into the store at `location` (a
    SQLite file or a PostgreSQL URL)."""
    store = open_store(location)
    roster = load_roster(example / "roster.toml")
    started = roster.started
    if dice is not None:
        started = replace(started, dice_policy=dice)
    start_battle(store, roster.battle, started, roster.units)
    record(store, roster.battle, example_events(example))
    return store
