"""A revoked token's open feeds end: a stream opened before the revocation does not go on showing the
battle. On SQLite whether the referee revokes over HTTP or with `morale revoke` from another process;
on PostgreSQL on every node, whichever node the revocation came through (the database announces it).
The streams of the battle's other tokens go on."""

from __future__ import annotations

import threading

import httpx
import pytest
from support.cli import morale
from support.nodes import WAIT_S, Node, post_events
from support.served import BATTLE, bearer, creation_body, sse_messages

NO_POLL = ("--poll", "3600")  # on PostgreSQL only the database's announcements can wake a node in time
MOVEMENT = {"type": "phase_started", "turn": 1, "side": "imperium", "phase": "movement"}
LATER = {"type": "casualties_suffered", "unit": "boyz", "count": 1, "cause": "after the revocation"}


class Stream:
    """One SSE connection in a thread of its own: the ids of the events it got, and whether the
    server ended it (with no error on the client's side)."""

    def __init__(self, url: str, token: str) -> None:
        self.url, self.token = url, token
        self.ids: list[int] = []
        self.error: BaseException | None = None
        self.got = threading.Condition()
        self.ended = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Stream:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        pass  # a stream still open ends with its node (the thread is a daemon)

    def _run(self) -> None:
        try:
            with httpx.stream(
                "GET", f"{self.url}/battles/{BATTLE}/feed", headers=bearer(self.token), timeout=WAIT_S
            ) as answer:
                answer.raise_for_status()
                for message in sse_messages(answer.iter_lines()):
                    if message.id is not None and message.event == message.data["event"]["type"]:
                        with self.got:
                            self.ids.append(int(message.id))
                            self.got.notify_all()
        except BaseException as exc:  # a read timed out, the connection broke: not what is tested
            self.error = exc
        self.ended.set()
        with self.got:
            self.got.notify_all()

    def wait_for(self, seq: int) -> None:
        with self.got:
            assert self.got.wait_for(lambda: (self.ids and self.ids[-1] >= seq) or self.ended.is_set(), WAIT_S)
        assert self.ids and self.ids[-1] >= seq, f"the stream got {self.ids[-3:]}, not event {seq}"

    def wait_until_ended(self) -> None:
        assert self.ended.wait(WAIT_S), "the stream of a revoked token is still open"
        assert self.error is None, f"the stream failed rather than ended: {self.error!r}"


def token_id(url: str, referee: str, role: str) -> str:
    listed = httpx.get(f"{url}/battles/{BATTLE}/tokens", headers=bearer(referee), timeout=WAIT_S)
    return next(row["id"] for row in listed.json() if row["role"] == role)


def created(url: str) -> dict:
    answer = httpx.post(f"{url}/battles", json=creation_body(), timeout=WAIT_S)
    assert answer.status_code == 201, answer.text
    tokens = answer.json()["tokens"]
    assert post_events(url, BATTLE, tokens["referee"], [MOVEMENT], 9).status_code == 201
    return tokens


def test_a_token_revoked_over_http_ends_its_open_feed_and_the_others_go_on(tmp_path):
    with Node(str(tmp_path / "log.db"), tmp_path / "node.log") as node:
        tokens = created(node.url)
        with Stream(node.url, tokens["spectator"]) as spectator, Stream(node.url, tokens["players"]["orks"]) as orks:
            spectator.wait_for(10)
            orks.wait_for(10)
            revoked = httpx.delete(
                f"{node.url}/battles/{BATTLE}/tokens/{token_id(node.url, tokens['referee'], 'spectator')}",
                headers=bearer(tokens["referee"]),
                timeout=WAIT_S,
            )
            assert revoked.status_code == 204, revoked.text
            spectator.wait_until_ended()
            assert post_events(node.url, BATTLE, tokens["referee"], [LATER], 10).status_code == 201
            orks.wait_for(11)
            assert not orks.ended.is_set()
        assert spectator.ids == list(range(1, 11))


def test_a_token_revoked_by_the_cli_in_another_process_ends_its_open_feed(tmp_path):
    db = tmp_path / "log.db"
    with Node(str(db), tmp_path / "node.log") as node:
        tokens = created(node.url)
        with Stream(node.url, tokens["spectator"]) as spectator, Stream(node.url, tokens["players"]["orks"]) as orks:
            spectator.wait_for(10)
            orks.wait_for(10)
            assert morale(db, "revoke", BATTLE, "spectator").exit_code == 0
            spectator.wait_until_ended()
            assert post_events(node.url, BATTLE, tokens["referee"], [LATER], 10).status_code == 201
            orks.wait_for(11)
            assert not orks.ended.is_set()
        assert spectator.ids == list(range(1, 11))
        # ...and the revoked token does not open a new one
        again = httpx.get(f"{node.url}/battles/{BATTLE}/feed", headers=bearer(tokens["spectator"]), timeout=WAIT_S)
        assert again.status_code == 401


@pytest.fixture
def nodes(pg_url, tmp_path):
    a, b = Node(pg_url, tmp_path / "a.log", *NO_POLL), Node(pg_url, tmp_path / "b.log", *NO_POLL)
    with a, b:
        yield a, b


def test_a_token_revoked_through_one_node_ends_its_feeds_on_every_node(nodes, pg_url):
    a, b = nodes
    tokens = created(a.url)
    spectator, referee = tokens["spectator"], tokens["referee"]
    with (
        Stream(a.url, spectator) as on_a,
        Stream(b.url, spectator) as on_b,
        Stream(b.url, tokens["players"]["orks"]) as orks,
    ):
        for stream in (on_a, on_b, orks):
            stream.wait_for(10)
        revoked = httpx.delete(
            f"{a.url}/battles/{BATTLE}/tokens/{token_id(a.url, referee, 'spectator')}",
            headers=bearer(referee),
            timeout=WAIT_S,
        )
        assert revoked.status_code == 204, revoked.text
        on_a.wait_until_ended()
        on_b.wait_until_ended()  # heard from the database: b had no part in the revocation
        assert post_events(a.url, BATTLE, referee, [LATER], 10).status_code == 201
        orks.wait_for(11)
        assert not orks.ended.is_set()


def test_a_token_revoked_by_the_cli_ends_its_feeds_on_the_nodes(nodes, pg_url):
    a, b = nodes
    tokens = created(a.url)
    with Stream(a.url, tokens["spectator"]) as on_a, Stream(b.url, tokens["spectator"]) as on_b:
        on_a.wait_for(10)
        on_b.wait_for(10)
        assert morale(pg_url, "revoke", BATTLE, "spectator").exit_code == 0
        on_a.wait_until_ended()
        on_b.wait_until_ended()


def test_a_token_revoked_through_one_node_writes_nothing_through_another_that_saw_it_write(nodes, pg_url):
    a, b = nodes
    tokens = created(a.url)
    orks, referee = tokens["players"]["orks"], tokens["referee"]
    assert post_events(b.url, BATTLE, orks, [LATER], 10).status_code == 201  # b now remembers its grant
    listed = httpx.get(f"{a.url}/battles/{BATTLE}/tokens", headers=bearer(referee), timeout=WAIT_S).json()
    orks_id = next(row["id"] for row in listed if row["role"] == "player" and row["side"] == "orks")
    revoked = httpx.delete(f"{a.url}/battles/{BATTLE}/tokens/{orks_id}", headers=bearer(referee), timeout=WAIT_S)
    assert revoked.status_code == 204, revoked.text
    refused = post_events(b.url, BATTLE, orks, [LATER], 11)
    assert refused.status_code == 401, refused.text
    assert refused.json()["type"] == "urn:morale:problem:token"
    again = post_events(b.url, BATTLE, orks, [LATER], 11)  # b has forgotten it: its guard asks the store
    assert again.status_code == 401 and "does not open battle" in again.json()["detail"]
    timeline = httpx.get(f"{b.url}/battles/{BATTLE}/timeline", headers=bearer(referee), timeout=WAIT_S)
    assert timeline.json()["last"] == 11  # nothing written after the revocation
