"""A node's ear on PostgreSQL: the appends the database announces (LISTEN/NOTIFY), made through any
node or by the CLI, wake the followed battle's watcher at once; the revocations it announces end
the feeds the revoked tokens opened.

One connection per node listens on the store's channel; each notification names a battle and its
last seq. A notification missed while the connection was down (the server restarted, the network
dropped it) is caught up when it is back: every followed battle then reads after the last event it
sent, as if told. Nothing polls.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from functools import partial

import psycopg
from psycopg import sql

from morale.events.postgres import Announcements, one_line

from .background import while_serving
from .live import Hub

logger = logging.getLogger("morale.listen")
RETRY_S = (0.1, 0.5, 1.0, 2.0, 5.0)  # waits between attempts to listen again, the last repeated


def application_name() -> str:
    """How the listening connection names itself to the server (pg_stat_activity): which node it is."""
    return f"morale listen (pid {os.getpid()})"


REVOKED = "revoked"  # the first word of a revocation's notification: "revoked BATTLE"


def announced(payload: str) -> tuple[str, int | None]:
    """The battle a notification names and its last seq: the payload is "SEQ BATTLE"."""
    seq, _, battle = payload.partition(" ")
    return battle, int(seq) if seq.isdigit() else None


def hear(payload: str, hub: Hub) -> None:
    """Tell the hub what a notification says: tokens of a battle revoked, or its appends."""
    word, _, battle = payload.partition(" ")
    if word == REVOKED:
        hub.revoked(battle)
    else:
        hub.notify(*announced(payload))


async def listen(announcements: Announcements, hub: Hub) -> None:
    """Poke the hub for every battle announced, until cancelled."""
    failures = 0
    while True:
        try:
            async with await psycopg.AsyncConnection.connect(
                announcements.conninfo, autocommit=True, application_name=application_name()
            ) as conn:
                await conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(announcements.channel)))
                failures = 0
                hub.notify_all()  # what was announced while nobody listened is read now
                await hear_all(conn, hub)
        except psycopg.Error as exc:
            wait_s = RETRY_S[min(failures, len(RETRY_S) - 1)]
            failures += 1
            logger.warning("not listening to the store (%s); again in %.1f s", one_line(exc), wait_s)
            await asyncio.sleep(wait_s)


async def hear_all(conn: psycopg.AsyncConnection, hub: Hub) -> None:
    """Hear every notification on `conn` until the connection fails (raised). Read straight from
    libpq whenever its socket is readable: psycopg's `notifies()` registered and removed a reader
    and a future for each packet, and with every append of every node announced to every node that
    was a fifth of a node's time under 200 writers (bench/README.md)."""
    loop = asyncio.get_running_loop()
    lost: asyncio.Future[None] = loop.create_future()
    pgconn, encoding, socket = conn.pgconn, conn.info.encoding, conn.fileno()

    def readable() -> None:
        try:
            pgconn.consume_input()  # raises once the server has gone (the socket reads as closed)
            while (notice := pgconn.notifies()) is not None:
                hear(notice.extra.decode(encoding), hub)
        except Exception as exc:  # the connection failed, or hearing did: `listen` sees it raised
            loop.remove_reader(socket)
            if not lost.done():
                lost.set_exception(exc)

    loop.add_reader(socket, readable)
    readable()  # whatever libpq took in with the LISTEN's answer
    try:
        await lost
    finally:
        loop.remove_reader(socket)


def listener(announcements: Announcements | None, hub: Hub) -> Callable[[object], AbstractAsyncContextManager[None]]:
    """The server's lifespan hook: listens while the app runs (nothing to do for a SQLite store)."""
    return while_serving(partial(listen, announcements, hub) if announcements is not None else None)
