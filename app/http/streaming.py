"""Writing to many open ASGI responses from one task, and the response that lets it.

A battle's watcher writes each new feed item to every follower in one pass, instead of waking a
task per follower to write its own copy: the wake-ups (a future resolved and a task stepped through
its generators for each) cost CPU for every follower, so with many followers the append reached the
last one long after the first (bench/feed.py; the figures are in bench/README.md). A write to an
ASGI connection returns at once unless the connection's buffer is full (a slow reader); such a
write must not hold up the others, so each write is started eagerly, as Python 3.12's eager tasks
start (`eager_start`), and only a write that has to wait becomes a task of its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from litestar.types import Message, Receive, Scope, Send


def body(data: bytes) -> Message:
    return {"type": "http.response.body", "body": data, "more_body": True}


def write_now(send: Send, data: bytes) -> asyncio.Task[None] | None:
    """Write `data` to the connection, without waiting: None once written, or (when the connection
    first has to drain) the task that finishes the write."""
    writing = send(body(data))
    try:
        waits_on = writing.send(None)  # type: ignore[attr-defined]
    except StopIteration:
        return None
    return asyncio.get_running_loop().create_task(_finish(writing, waits_on))  # type: ignore[arg-type]


async def _finish(writing: Coroutine[Any, Any, None], waits_on: Any) -> None:
    """Carry on a coroutine that suspended on `waits_on`, as the task that ran it would: wait for
    what it waits on (a future, or None for a bare yield), then resume it, until it returns."""
    while True:
        failure: BaseException | None = None
        try:
            if waits_on is None:
                await asyncio.sleep(0)
            else:
                waits_on._asyncio_future_blocking = False  # taken over from the coroutine, as a task does
                await waits_on
        except BaseException as error:  # cancelled, or the future failed: the coroutine is told
            failure = error
        try:
            waits_on = writing.send(None) if failure is None else writing.throw(failure)
        except StopIteration:
            return


class StreamResponse:
    """A streaming ASGI response whose body is written by `run(send)`, which may hand `send` to
    others (a channel's watcher). It ends when `run` returns, and `run` is cancelled when the
    client goes away: a write to a closed connection is silently dropped, so it is the request's
    disconnect message that ends a follower."""

    def __init__(self, media_type: str, run: Callable[[Send], Awaitable[None]], headers: dict[str, str]) -> None:
        self.headers = [(b"content-type", media_type.encode())]
        self.headers += [(name.lower().encode(), value.encode()) for name, value in headers.items()]
        self.run = run

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.headers})
        # The body is written in the request's own task, and one task of its own listens for the
        # client going away, which cancels it: with 10,000 followers a node holds 10,000 of each
        # (a task for the body beside them, and asyncio.wait's, cost ~2 KiB a follower more).
        writing = asyncio.current_task()
        assert writing is not None
        written = False  # once the body is done, the client leaving cancels nothing
        client_left = False  # the cancellation, if any, is the listener's

        def left(listened: asyncio.Task[None]) -> None:
            nonlocal client_left
            if not listened.cancelled() and not written:
                listened.exception()  # a failed receive also ends the response, as a disconnect
                client_left = True
                writing.cancel()

        gone = asyncio.get_running_loop().create_task(_disconnected(receive))
        gone.add_done_callback(left)
        try:
            await self.run(send)  # type: ignore[arg-type]
        except asyncio.CancelledError:
            if not client_left:
                raise  # cancelled from outside (the server stopping), not by the client leaving
            writing.uncancel()
            return
        finally:
            written = True
            gone.cancel()
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
