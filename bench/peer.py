"""The peer: the `eventsourcing` library storing the same events in its own SQLite persistence and
replaying them into an aggregate that applies each one with the same referee.

The aggregate's events carry each event's canonical JSON, decoded with the same msgspec decoder
ours uses, so what differs between the two replays is the machinery around the rules: reading,
deserialising and reconstructing.
"""

from __future__ import annotations

import os
from pathlib import Path
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event
from eventsourcing.sqlite import SQLiteConnectionPool

from morale.core.fold import Fold
from morale.events.codec import decode_event, encode
from morale.events.types import AnyEvent

_original_create_connection = SQLiteConnectionPool._create_connection


class BattleLog(Aggregate):
    @event("Opened")
    def __init__(self, battle: str) -> None:
        self.battle = battle
        self.fold = Fold(battle)
        self.trail: list = []

    def propose(self, body: str) -> None:
        """The command a live append goes through: the referee checks the event (as `decide` does
        for ours) before the aggregate records it. Fold applies recorded events without it."""
        self.fold.check(decode_event(body))
        self.record(body)

    @event("Recorded")
    def record(self, body: str) -> None:
        fold = self.fold
        self.trail.append(fold.advance(fold.seq + 1, decode_event(body)))


def peer_app(path: Path, synchronous: str = "FULL") -> Application:
    """The library's SQLite persistence (WAL) at the given synchronous level. The library leaves it
    at SQLite's default (FULL) and has no setting for it, so each new connection is told here, to
    compare the two stores under the same durability."""
    os.environ.update({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)})
    create = _original_create_connection

    def create_connection(pool: SQLiteConnectionPool) -> object:
        connection = create(pool)
        connection._sqlite_conn.execute(f"PRAGMA synchronous={synchronous}")
        return connection

    SQLiteConnectionPool._create_connection = create_connection  # type: ignore[method-assign]
    return Application()


def store_all(app: Application, battle: str, events: list[AnyEvent]) -> UUID:
    log = BattleLog(battle)
    for item in events:
        log.record(encode(item).decode())
    app.save(log)
    return log.id


def replay_all(app: Application, log_id: UUID) -> BattleLog:
    return app.repository.get(log_id)


def peer_pg_app(url: str) -> Application:
    """The library's PostgreSQL persistence (its application recorder, as an Application uses by
    default) on the database `url` names, in a schema of its own. It reads its settings from the
    environment; the durability (synchronous_commit) is the database's, the same for both."""
    from psycopg.conninfo import conninfo_to_dict

    given = conninfo_to_dict(url)
    os.environ.update(
        {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": str(given["dbname"]),
            "POSTGRES_HOST": str(given.get("host", "127.0.0.1")),
            "POSTGRES_PORT": str(given.get("port", "5432")),
            "POSTGRES_USER": str(given.get("user", "postgres")),
            "POSTGRES_PASSWORD": str(given.get("password", "unused")),
            "POSTGRES_SCHEMA": "peer",
        }
    )
    return Application()
