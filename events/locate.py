"""Which store a `--db` names: a `postgresql://` URL is a PostgreSQL database, anything else a SQLite file.

psycopg is imported only when a URL asks for it, so the embedded store starts as fast as before.
"""

from __future__ import annotations

from pathlib import Path

from .store import EventStore, SqliteEventStore

URL_SCHEMES = ("postgresql://", "postgres://")


def is_database_url(location: str | Path) -> bool:
    """A `--db` that names a PostgreSQL database rather than a SQLite file."""
    return str(location).startswith(URL_SCHEMES)


def shown(location: str | Path) -> str:
    """The location as messages may print it: a URL without its password."""
    if not is_database_url(location):
        return str(location)
    from .postgres import redacted

    return redacted(str(location))


def open_store(location: str | Path, *, create: bool = True, pool_size: int = 4) -> EventStore:
    """The store at `location`. `create=False`: it must already be one (`StoreUnavailable` if not).
    `pool_size`: the most connections a PostgreSQL store keeps (its users' threads share them)."""
    if is_database_url(location):
        from .postgres import PostgresEventStore

        return PostgresEventStore(str(location), create=create, max_size=pool_size)
    return SqliteEventStore(location, create=create)
