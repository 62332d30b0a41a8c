"""Reaching past the store's protocol, as someone holding the database would: for tests that
tamper with stored rows or look at tables directly, on either store."""

from __future__ import annotations

from typing import Any

from morale.events.store import EventStore, SqliteEventStore


def raw_sql(store: EventStore, statement: str, params: tuple[Any, ...] = ()) -> list[tuple]:
    """Run one SQL statement (`?` placeholders) on the store's own database; the rows it returns."""
    if isinstance(store, SqliteEventStore):
        return store.db.conn.execute(statement, params).fetchall()
    with store.pool.connection() as conn:  # type: ignore[attr-defined]
        cursor = conn.execute(statement.replace("?", "%s"), params)
        return cursor.fetchall() if cursor.description else []


def is_postgres(store: EventStore) -> bool:
    return not isinstance(store, SqliteEventStore)
