"""Writes started eagerly (the live feed's fan-out): a write that need not wait is done before
`write_now` returns; one that must wait is finished by a task, exactly as if it had been awaited."""

from __future__ import annotations

import asyncio

import pytest

from morale.app.http.streaming import write_now


def run(scenario):
    return asyncio.run(scenario())


def test_a_write_that_need_not_wait_is_done_when_write_now_returns():
    async def scenario():
        written = []

        async def send(message):
            written.append(message["body"])

        assert write_now(send, b"one") is None
        return written

    assert run(scenario) == [b"one"]


def test_a_write_that_must_wait_is_finished_by_a_task_once_the_connection_drains():
    async def scenario():
        drained = asyncio.get_running_loop().create_future()
        written = []

        async def send(message):
            await asyncio.sleep(0)  # a bare yield first, then a future, as a drain may be
            await drained
            written.append(message["body"])

        finishing = write_now(send, b"two")
        assert finishing is not None and written == []
        await asyncio.sleep(0.01)
        assert written == []  # still waiting
        drained.set_result(None)
        await finishing
        return written

    assert run(scenario) == [b"two"]


def test_what_goes_wrong_in_a_waiting_write_reaches_whoever_awaits_it():
    async def scenario():
        drained = asyncio.get_running_loop().create_future()

        async def send(message):
            await drained

        finishing = write_now(send, b"three")
        drained.set_exception(ConnectionResetError("gone"))
        await finishing

    with pytest.raises(ConnectionResetError, match="gone"):
        run(scenario)


def test_cancelling_a_waiting_write_cancels_the_write_itself():
    async def scenario():
        drained = asyncio.get_running_loop().create_future()
        cleaned_up = []

        async def send(message):
            try:
                await drained
            finally:
                cleaned_up.append(True)

        finishing = write_now(send, b"four")
        await asyncio.sleep(0)
        finishing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await finishing
        return cleaned_up

    assert run(scenario) == [True]
