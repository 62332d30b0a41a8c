"""A client of `morale serve`, in Python: follow a battle's feed and append to its log.

It speaks the server's own types: every feed item is decoded by msgspec into the `FeedItem` the
server encodes (`projections/feed.py`), so `item.event` is a `PhaseStarted`, `item.caused` the
outcomes, and a field the feed gains reaches the caller with no change here. Events are appended
as the event types themselves (`events/types.py`), with the `expected_seq` they were decided on; a
log that moved on meanwhile is a `Conflict`, and any other refusal a `Refused` holding the server's
RFC 9457 problem (its `field` or `rule`). Nothing is retried that could write twice: an append is
sent once, and a `Conflict` is the caller's to settle (read again, decide again).

Following reads the NDJSON feed (`/feed.ndjson`, blank lines are heartbeats) and remembers the last
item's `seq`: when the connection drops, or the server restarts, or the store does not answer for a
while (503), it connects again with `?after=SEQ` and goes on exactly after the last item it gave,
nothing twice and nothing lost. A refusal that waiting cannot cure (no such battle for this token,
a resume point beyond the log) is raised at once.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

import httpx
import msgspec

from morale.events.types import AnyEvent
from morale.projections.feed import FeedItem

from .http.problems import Problem

# The server's feeds send a heartbeat every 15 s by default (`--heartbeat`): four missed in a row
# and the connection is taken for dead and made again.
READ_TIMEOUT_S = 60.0
FIRST_RETRY_S = 0.5  # the wait before reconnecting, doubled at each failure in a row, up to:
LAST_RETRY_S = 30.0
HTTP_400, HTTP_409 = 400, 409
# A proxy whose node is restarting, or a store that does not answer now: worth waiting for.
PASSING = frozenset({502, 503, 504})

_item = msgspec.json.Decoder(FeedItem)
_items = msgspec.json.Decoder(list[FeedItem])
_problem = msgspec.json.Decoder(Problem)


class Refused(Exception):
    """The server refused a request; `problem` is its RFC 9457 answer (`type`, `detail`, `field`,
    `rule`), and nothing was written."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        super().__init__(problem.detail)

    @property
    def status(self) -> int:
        return self.problem.status


class Conflict(Refused):
    """The log no longer ends at the `expected_seq` the append was decided on: another writer got
    there first. Read what was appended since `expected_seq` (up to `actual_seq`) and decide again."""

    @property
    def expected_seq(self) -> int:
        return self.problem.expected_seq  # type: ignore[return-value]

    @property
    def actual_seq(self) -> int:
        return self.problem.actual_seq  # type: ignore[return-value]


class UnreadableItem(Exception):
    """A feed line that is not an item of this version of morale: a server of another version, or
    not a morale server. Named by its line's first characters, so the mismatch can be found."""

    def __init__(self, line: bytes, reason: str) -> None:
        shown = line[:80].decode("utf-8", "replace")
        super().__init__(f"a feed line this client cannot read ({reason}): {shown}")


class BattleClient:
    """One battle on one server, opened with one of its tokens (`Authorization: Bearer`).

    `base_url`: where `morale serve` answers ("http://127.0.0.1:8000"). A referee's or player's
    token appends; any token, an overlay's or a spectator's too, follows."""

    def __init__(
        self,
        base_url: str,
        battle: str,
        token: str,
        *,
        read_timeout_s: float = READ_TIMEOUT_S,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.battle = battle
        timeout = httpx.Timeout(10.0, read=read_timeout_s)
        headers = {"Authorization": f"Bearer {token}"}
        self._http = httpx.Client(base_url=base_url, headers=headers, timeout=timeout, transport=transport)
        self._path = f"/battles/{battle}"

    def __enter__(self) -> BattleClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # -- reading ------------------------------------------------------------------------------------
    def last_seq(self) -> int:
        """The seq the battle's log ends at now: the `expected_seq` of an append decided on it."""
        answer = self._http.get(f"{self._path}/timeline")
        _raise_refused(answer)
        return int(answer.json()["last"])

    def items(self, after: int = 0) -> list[FeedItem]:
        """Every feed item after `after` the log holds now (an export: the feed with `follow=false`)."""
        with self._http.stream("GET", f"{self._path}/feed.ndjson", params={"after": after, "follow": "false"}) as got:
            _raise_refused(got)
            return [_decoded(line) for line in _lines(got)]

    def follow(self, after: int = 0, *, reconnect: bool = True) -> Iterator[FeedItem]:
        """Each feed item after `after`, in log order, then each new one as it is appended, for as
        long as the caller reads (break out of the loop to stop). A dropped connection is made
        again after the last item given (`reconnect=False`: the error is raised instead)."""
        position, wait_s = after, FIRST_RETRY_S
        while True:
            try:
                params = {"after": position}
                with self._http.stream("GET", f"{self._path}/feed.ndjson", params=params) as got:
                    if got.status_code in PASSING and reconnect:
                        raise httpx.TransportError(f"the server answered {got.status_code}; it may answer again soon")
                    _raise_refused(got)
                    for line in _lines(got):
                        item = _decoded(line)
                        position, wait_s = item.seq, FIRST_RETRY_S
                        yield item
            except httpx.TransportError:  # refused connection, reset, timeout, a server gone mid-stream
                if not reconnect:
                    raise
            else:
                if not reconnect:  # the server ended the feed (it is stopping)
                    return
            time.sleep(wait_s)  # the stream ended (the server stopped) or failed: again, after a pause
            wait_s = min(wait_s * 2, LAST_RETRY_S)

    # -- writing ------------------------------------------------------------------------------------
    def append(self, events: Sequence[AnyEvent], *, expected_seq: int) -> list[FeedItem]:
        """Append `events`, all or none, if the log still ends at `expected_seq`: the feed items of
        what was written (each with what it caused). `Conflict` if the log has moved on, `Refused`
        for anything else the server refuses (the rules, the token's role, a malformed event). An
        answer lost on the way (httpx's error) leaves it unknown whether the events landed: read the
        log after `expected_seq` before deciding again, never send it blindly a second time."""
        body = msgspec.json.encode({"expected_seq": expected_seq, "events": list(events)})
        answer = self._http.post(f"{self._path}/events", content=body, headers={"Content-Type": "application/json"})
        _raise_refused(answer)
        return _items.decode(answer.content)  # type: ignore[no-any-return]


def _lines(answer: httpx.Response) -> Iterator[bytes]:
    """The NDJSON body's lines as they arrive; a blank line is a heartbeat and is skipped."""
    pending = b""
    for chunk in answer.iter_bytes():
        pending += chunk
        *complete, pending = pending.split(b"\n")
        yield from (line for line in complete if line.strip())
    if pending.strip():
        yield pending


def _decoded(line: bytes) -> FeedItem:
    try:
        return _item.decode(line)  # type: ignore[no-any-return]
    except msgspec.DecodeError as exc:
        raise UnreadableItem(line, str(exc)) from None


def _raise_refused(answer: httpx.Response) -> None:
    """Raise the server's refusal, typed; an answer below 400 passes."""
    if answer.status_code < HTTP_400:
        return
    body = answer.read()
    try:
        problem = _problem.decode(body)
    except msgspec.DecodeError:  # not morale's problem details: a proxy's page, say
        words = body[:200].decode("utf-8", "replace").strip() or answer.reason_phrase
        problem = Problem(type="about:blank", title=answer.reason_phrase, status=answer.status_code, detail=words)
    raise (Conflict if answer.status_code == HTTP_409 else Refused)(problem)


__all__ = ["BattleClient", "Conflict", "Refused", "UnreadableItem"]
