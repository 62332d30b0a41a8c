"""Work a server runs beside its requests for as long as it serves (listening to PostgreSQL,
delivering webhooks), as a Litestar lifespan hook."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import AbstractAsyncContextManager, asynccontextmanager

Work = Callable[[], Coroutine[object, object, None]]


def while_serving(work: Work | None) -> Callable[[object], AbstractAsyncContextManager[None]]:
    """A lifespan hook running `work` as a task while the app runs, cancelled when it stops (None:
    nothing to run)."""

    @asynccontextmanager
    async def lifespan(_app: object) -> AsyncIterator[None]:
        if work is None:
            yield
            return
        task = asyncio.get_running_loop().create_task(work())
        try:
            yield
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    return lifespan
