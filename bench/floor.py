"""The HTTP append's floor: the server stack of `morale serve` answering a POST with one guarded INSERT.

    .venv/bin/python bench/floor.py URL PORT POOL_SIZE    # serve it (bench/pg.py starts two, beside our nodes)

What `morale serve` runs an append on, and nothing of ours: Litestar under uvicorn (the same
`uvicorn.Config`, so uvloop and httptools), the body read in the handler, the store's work in a
worker thread (`live.Stores.run`), one statement on a connection of the store's pool (the same
size, taken and given back as `PostgresEventStore` takes them). The statement is
our append's: the same `events` table (its primary key, its NOTIFY trigger), the event's bytes as
the client sent them, inserted only if the row the client expected to follow is there. No token, no
referee, no fold, no hash chain, no answer beyond the seq: whatever our append costs over this is
ours (bench/README.md, "The HTTP append and its floor").
"""

from __future__ import annotations

import sys
from functools import partial

import msgspec
import uvicorn
from litestar import Litestar, Request, get, post
from litestar.response import Response
from psycopg import errors

from morale.app.http.live import Stores
from morale.events.postgres import PostgresEventStore

# The chain columns hold fixed text of a hash's width: nothing is sealed here.
UNSEALED = "0" * 64
INSERT = (
    "INSERT INTO events (battle, seq, schema_version, recorded_at, type, body, prev_hash, hash) "
    "SELECT %(battle)s, %(seq)s, 1, %(recorded)s, %(type)s, %(body)s, %(hash)s, %(hash)s "
    "WHERE EXISTS (SELECT FROM events WHERE battle = %(battle)s AND seq = %(expected)s)"
)
RECORDED = "2026-12-02T00:00:00.000000Z"


class _Typed(msgspec.Struct):
    type: str


class _Append(msgspec.Struct):
    expected_seq: int
    events: list[msgspec.Raw]


_append = msgspec.json.Decoder(_Append)
_typed = msgspec.json.Decoder(_Typed)


def floor_app(url: str, pool_size: int = 10) -> Litestar:
    stores = Stores(url, pool_size=pool_size)

    def insert(battle: str, expected: int, event: msgspec.Raw, store: PostgresEventStore) -> int:
        params = {"battle": battle, "seq": expected + 1, "expected": expected, "recorded": RECORDED}
        params |= {"type": _typed.decode(event).type, "body": bytes(event).decode(), "hash": UNSEALED}
        with store._connection() as conn:  # the pool as the store takes from it
            try:
                return conn.execute(INSERT, params).rowcount
            except errors.UniqueViolation:
                return 0

    @post("/battles/{battle:str}/events")
    async def append(battle: str, request: Request) -> Response[bytes]:
        body = _append.decode(await request.body())
        expected = body.expected_seq
        written = await stores.run(partial(insert, battle, expected, body.events[0]))
        if not written:
            return Response(b'{"title":"conflict"}', status_code=409, media_type="application/json")
        return Response(b'{"seq":%d}' % (expected + 1), status_code=201, media_type="application/json")

    @get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    return Litestar([append, health], on_shutdown=[stores.close])


def main() -> None:
    url, port, pool_size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    config = uvicorn.Config(floor_app(url, pool_size), host="127.0.0.1", port=port, log_level="warning")
    uvicorn.Server(config).run()


if __name__ == "__main__":
    main()
