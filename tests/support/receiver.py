"""A webhook receiver on loopback, as a bot or a league site runs one: it keeps each request's headers
and body, answers the status it is told to (503 while "down", 410 when it "left"), may be slow, and
may be stopped (connections refused) and started again on the same port."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks import Webhook

from .nodes import free_port

WAIT_S = 30.0  # the most a test waits for deliveries: a bound for a hang, never a reason to pass


@dataclass(frozen=True)
class Received:
    headers: dict[str, str]
    body: bytes

    @property
    def id(self) -> str:
        return self.headers["webhook-id"]

    @property
    def event(self) -> dict:
        return json.loads(self.body)

    @property
    def seq(self) -> int:
        return self.event["data"]["seq"]

    def verified(self, secret: str) -> dict:
        """The body, once its signature verifies with the hook's secret (the specification's own package)."""
        return Webhook(secret).verify(self.body, self.headers)


class Receiver:
    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/morale"
        self.status = 204
        self.answer = b""  # the body it answers with
        self.delay_s = 0.0
        self.got: list[Received] = []
        self.answered: list[int] = []  # the status of each request, in order
        self._changed = threading.Condition()
        self._server: ThreadingHTTPServer | None = None

    def start(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = self.rfile.read(length)
                if len(body) < length:  # the sender died mid-request (a node killed): nothing was delivered
                    self.close_connection = True
                    return
                time.sleep(receiver.delay_s)
                status = receiver.status
                with receiver._changed:
                    if 200 <= status < 300:
                        receiver.got.append(Received({k.lower(): v for k, v in self.headers.items()}, body))
                    receiver.answered.append(status)
                    receiver._changed.notify_all()
                self.send_response(status)
                self.send_header("content-length", str(len(receiver.answer)))
                self.end_headers()
                self.wfile.write(receiver.answer)

            def log_message(self, *_: object) -> None:
                pass

        ThreadingHTTPServer.allow_reuse_address = True
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        """Down: connections to the port are refused."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Receiver:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def wait_for_seqs(self, seqs: set[int]) -> list[Received]:
        """Until every seq in `seqs` was taken (AssertionError after WAIT_S); what was taken."""
        return self._wait(lambda: seqs <= {r.seq for r in self.got}, f"items {sorted(seqs)}")

    def wait_for_answers(self, count: int) -> list[Received]:
        """Until `count` requests came, taken or not."""
        return self._wait(lambda: len(self.answered) >= count, f"{count} requests")

    def _wait(self, done, what: str) -> list[Received]:
        with self._changed:
            if not self._changed.wait_for(done, WAIT_S):
                raise AssertionError(f"the receiver did not get {what} in {WAIT_S:.0f} s: {[r.seq for r in self.got]}")
            return list(self.got)


def once_each(got: list[Received]) -> list[Received]:
    """What a receiver keeps: the first of each webhook-id, in the order they came."""
    seen: dict[str, Received] = {}
    for received in got:
        seen.setdefault(received.id, received)
    return list(seen.values())
