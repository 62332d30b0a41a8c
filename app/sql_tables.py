"""`morale tables`: a battle's derived SQL tables (projections/sql_rows.py) written beside its log
through sqlite-utils, each battle's rows rebuilt in one transaction and stamped with the version of
the code that derived them and the head hash of the log they were derived from. A stamp that does
not match the log and this engine means the rows are stale: they are rebuilt, never trusted."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path

import sqlite_utils

from morale.events.store import EventStore
from morale.projections.sql_rows import SCHEMA, battle_rows, tables_version

STAMPS = "tables_built"


@dataclass(frozen=True)
class Built:
    battle: str
    head: str
    engine: str
    rebuilt: bool  # False: the tables were already derived from this log by this engine
    rows: dict[str, int]


def build_tables(store: EventStore, battle: str, target: Path) -> Built:
    """The battle's tables in the SQLite file `target` (the store's own file, or another)."""
    head = store.hash_at(battle, store.last_seq(battle)) or ""
    engine = tables_version()
    db = sqlite_utils.Database(target)
    try:
        _create(db)
        stamp = next(db[STAMPS].rows_where("battle = ?", [battle]), None)
        if stamp is not None and (stamp["head"], stamp["engine"]) == (head, engine):
            counts = {name: db[name].count_where("battle = ?", [battle]) for name in SCHEMA}
            return Built(battle=battle, head=head, engine=engine, rebuilt=False, rows=counts)
        rows = battle_rows(battle, store.read(battle))
        with db.conn:
            for name, (_, pk) in SCHEMA.items():
                db[name].delete_where("battle = ?", [battle])
                db[name].insert_all(rows.tables[name], pk=pk, alter=True)  # type: ignore[arg-type]
            db[STAMPS].upsert(
                {
                    "battle": battle,
                    "head": head,
                    "events": store.last_seq(battle),
                    "engine": engine,
                    "morale": version("morale"),
                    "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
                },
                pk="battle",
            )
        counts = {name: len(rows.tables[name]) for name in SCHEMA}
        return Built(battle=battle, head=head, engine=engine, rebuilt=True, rows=counts)
    finally:
        db.conn.close()


def _create(db: sqlite_utils.Database) -> None:
    for name, (columns, pk) in SCHEMA.items():
        db[name].create(columns, pk=pk, if_not_exists=True)  # type: ignore[arg-type]
    db[STAMPS].create(
        {"battle": str, "head": str, "events": int, "engine": str, "morale": str, "built_at": str},
        pk="battle",
        if_not_exists=True,
    )
