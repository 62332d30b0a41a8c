"""`morale serve` nodes as separate processes on loopback ports, as an operator runs them: started,
waited for, stopped, or killed with SIGKILL. Every wait is bounded."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from .served import bearer, sse_messages

MORALE = str(Path(sys.executable).parent / "morale")  # the installed command, as a shell runs it
WAIT_S = 30.0  # the most a test waits for a node or an event: a bound for a hang, never a reason to pass


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Node:
    """`morale serve --db DB --port PORT ARGS...` in a process of its own."""

    def __init__(self, db: str, log: Path, *args: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        command = [MORALE, "serve", "--db", db, "--port", str(self.port), *args]
        with log.open("wb") as out:
            self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)

    def __enter__(self) -> Node:
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"morale serve did not start: {self.log.read_text()}")
            time.sleep(0.05)

    def __exit__(self, *_: object) -> None:
        self.stop()

    def kill(self) -> None:
        """SIGKILL: no shutdown at all, as when a machine or a container dies."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(WAIT_S)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(WAIT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(WAIT_S)


class TableNode(Node):
    """`morale serve --table BATTLE ARGS...`: once it answers, `printed` holds what it printed and
    `join_urls` the links its QR codes hold (read as a camera would: support/qr.py), in the order
    printed: the referee, each side's player in the battle's order, a spectator."""

    def __init__(self, db: str, log: Path, battle: str, *args: str) -> None:
        super().__init__(db, log, "--table", battle, *args)

    def __enter__(self) -> TableNode:
        super().__enter__()
        from .qr import decode_terminal_qr_codes  # only the table's tests need zxing-cpp

        self.printed = self.log.read_text()  # the codes are printed before the server answers
        self.join_urls = decode_terminal_qr_codes(self.printed)
        return self


class Follower:
    """An SSE client following a battle in a thread of its own, on one node and then (when its node
    goes away) on the next, resuming with Last-Event-ID as a browser does. Keeps each message's id."""

    def __init__(self, urls: list[str], battle: str, token: str, until: int) -> None:
        self.urls, self.battle, self.token, self.until = urls, battle, token, until
        self.ids: list[int] = []
        self.items: list[dict] = []
        self.connections: list[str] = []  # the node of each connection, in order
        self.error: BaseException | None = None
        self.got = threading.Condition()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Follower:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.thread.join(WAIT_S)

    def wait_for(self, seq: int) -> None:
        """Until the follower has event `seq` (AssertionError after WAIT_S)."""
        with self.got:
            if not self.got.wait_for(lambda: (self.ids and self.ids[-1] >= seq) or self.error, WAIT_S):
                raise AssertionError(f"the follower got {self.ids[-3:]} but not event {seq} in {WAIT_S:.0f} s")
        if self.error is not None:
            raise AssertionError(f"the follower failed: {self.error!r}")

    def _run(self) -> None:
        deadline = time.monotonic() + 3 * WAIT_S
        nodes = iter(self.urls)
        url = next(nodes)
        try:
            while time.monotonic() < deadline and not (self.ids and self.ids[-1] >= self.until):
                try:
                    self._follow(url)
                except httpx.TransportError:
                    url = next(nodes, url)  # this node is gone: the next one (the proxy's job)
                    time.sleep(0.05)
        except BaseException as exc:  # reported by wait_for
            self.error = exc
        with self.got:
            self.got.notify_all()

    def _follow(self, url: str) -> None:
        headers = bearer(self.token) | ({"Last-Event-ID": str(self.ids[-1])} if self.ids else {})
        self.connections.append(url)
        with httpx.stream("GET", f"{url}/battles/{self.battle}/feed", headers=headers, timeout=WAIT_S) as answer:
            answer.raise_for_status()
            for message in sse_messages(answer.iter_lines()):
                if message.id is None or message.event != message.data["event"]["type"]:
                    continue  # a heartbeat, or an item again under a kind of outcome it caused
                with self.got:
                    self.ids.append(int(message.id))
                    self.items.append(message.data)
                    self.got.notify_all()
                if self.ids[-1] >= self.until:
                    return


def post_events(url: str, battle: str, token: str, events: list[dict], expected_seq: int) -> httpx.Response:
    body = {"expected_seq": expected_seq, "events": events}
    return httpx.post(f"{url}/battles/{battle}/events", json=body, headers=bearer(token), timeout=WAIT_S)


def last_seq(url: str, battle: str, token: str) -> int:
    answer = httpx.get(f"{url}/battles/{battle}/timeline", headers=bearer(token), timeout=WAIT_S)
    answer.raise_for_status()
    return answer.json()["last"]


def feed_lines(url: str, battle: str, token: str) -> Iterator[dict]:
    """The battle's feed as an export (`follow=false`)."""
    answer = httpx.get(f"{url}/battles/{battle}/feed.ndjson?follow=false", headers=bearer(token), timeout=WAIT_S)
    answer.raise_for_status()
    return (json.loads(line) for line in answer.text.splitlines() if line.strip())
