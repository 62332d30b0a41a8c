"""The Python client (`morale.app.client`) against a real `morale serve` on loopback: it follows a
battle with typed items, resumes exactly after the last item when the server goes away and comes
back, appends with `expected_seq`, and surfaces each refusal as a typed exception holding the
server's problem."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest
from support.cli import morale
from support.served import BATTLE, EXAMPLE_EVENTS, ROSTER, WAIT_S, LiveServer

from morale.app.client import BattleClient, Conflict, Refused
from morale.app.http.server import Settings, create_app
from morale.core import outcomes
from morale.events.types import CasualtiesSuffered, PhaseEnded, PhaseStarted
from morale.projections.feed import FeedItem

EVENTS = 9 + len([line for line in EXAMPLE_EVENTS.read_text().splitlines() if line.strip()])  # 104
NEXT = PhaseStarted(turn=4, side="imperium", phase="movement")  # what the example battle takes next


@pytest.fixture
def played(tmp_path) -> tuple[Path, dict[str, str]]:
    """A store holding the example battle played to its end, and a token per role."""
    db = tmp_path / "client.db"
    created = json.loads(morale(db, "new", str(ROSTER), "--tokens", "--json").stdout)["tokens"]
    assert morale(db, "append", BATTLE, "--file", str(EXAMPLE_EVENTS)).exit_code == 0
    return db, {"referee": created["referee"], "spectator": created["spectator"], **created["players"]}


def fast(db: Path) -> Settings:
    return Settings(poll_s=0.05, heartbeat_s=1.0)


def collect(feed, count: int) -> list[FeedItem]:
    """The first `count` items of a follow, read in a thread: a client that stopped short fails the
    test when the wait is up instead of hanging the suite."""
    got: list[FeedItem] = []

    def read() -> None:
        for item in feed:
            got.append(item)
            if len(got) == count:
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(WAIT_S)
    return got


def test_following_gives_every_item_in_order_as_the_servers_own_types(played):
    db, tokens = played
    with (
        LiveServer(create_app(db, fast(db))) as server,
        BattleClient(server.url, BATTLE, tokens["spectator"]) as battle,
    ):
        items = collect(battle.follow(), EVENTS)
        assert [item.seq for item in items] == list(range(1, EVENTS + 1))
        assert all(isinstance(item, FeedItem) for item in items)
        assert isinstance(items[-1].event, PhaseEnded)
        due = [outcome for item in items for outcome in item.caused if isinstance(outcome, outcomes.TestDue)]
        assert due and {outcome.test for outcome in due} >= {"morale"}
        assert battle.items(after=EVENTS - 2) == items[-2:]  # the export: the same items, equal as structs


def test_an_append_reaches_a_follower_resumed_after_the_end_of_the_log(played):
    db, tokens = played
    with LiveServer(create_app(db, fast(db))) as server, BattleClient(server.url, BATTLE, tokens["referee"]) as battle:
        last = battle.last_seq()
        assert last == EVENTS
        feed = battle.follow(after=last)
        (written,) = battle.append([NEXT], expected_seq=last)
        assert (written.seq, written.event) == (EVENTS + 1, NEXT)
        assert written.author is not None and written.author.role == "referee"
        assert collect(feed, 1) == [written]


def test_a_stale_expected_seq_is_a_conflict_saying_where_the_log_ends_and_nothing_is_written(played):
    db, tokens = played
    with LiveServer(create_app(db, fast(db))) as server, BattleClient(server.url, BATTLE, tokens["referee"]) as battle:
        battle.append([NEXT], expected_seq=EVENTS)
        with pytest.raises(Conflict) as conflict:
            battle.append([PhaseEnded(turn=4, side="imperium", phase="movement")], expected_seq=EVENTS)
        assert (conflict.value.expected_seq, conflict.value.actual_seq, conflict.value.status) == (
            EVENTS,
            EVENTS + 1,
            409,
        )
        assert "another writer got there first" in str(conflict.value)
        assert battle.last_seq() == EVENTS + 1


def test_a_refusal_is_raised_with_the_servers_problem_naming_the_field_or_rule(played):
    db, tokens = played
    with LiveServer(create_app(db, fast(db))) as server:
        with BattleClient(server.url, BATTLE, tokens["orks"]) as orks:
            with pytest.raises(Refused) as foreign:
                orks.append([CasualtiesSuffered(unit="kraak", count=1)], expected_seq=EVENTS)
            assert foreign.value.status == 403 and foreign.value.problem.field == "unit"
            assert not isinstance(foreign.value, Conflict)
        with BattleClient(server.url, BATTLE, tokens["referee"]) as referee:
            with pytest.raises(Refused) as clock:
                referee.append([PhaseStarted(turn=4, side="imperium", phase="shooting")], expected_seq=EVENTS)
            assert clock.value.status == 422 and clock.value.problem.rule == "engine.clock.order"
            assert referee.last_seq() == EVENTS


def test_a_follower_whose_token_does_not_open_the_battle_is_refused_at_once_not_retried(played):
    db, _ = played
    with LiveServer(create_app(db, fast(db))) as server, BattleClient(server.url, BATTLE, "not-a-token") as battle:
        with pytest.raises(Refused) as refused:
            next(battle.follow())
        assert refused.value.status == 401 and refused.value.problem.type == "urn:morale:problem:token"


def test_a_resume_point_beyond_the_log_is_refused_by_name(played):
    db, tokens = played
    with (
        LiveServer(create_app(db, fast(db))) as server,
        BattleClient(server.url, BATTLE, tokens["spectator"]) as battle,
    ):
        with pytest.raises(Refused) as refused:
            next(battle.follow(after=EVENTS + 50))
        assert refused.value.status == 422 and refused.value.problem.field == "after"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_follower_resumes_exactly_after_its_last_item_when_the_server_comes_back(played):
    db, tokens = played
    port = free_port()
    got: list[FeedItem] = []
    reached = threading.Event()

    with BattleClient(f"http://127.0.0.1:{port}", BATTLE, tokens["spectator"]) as battle:

        def read() -> None:
            for item in battle.follow(after=EVENTS - 3):
                got.append(item)
                if item.seq == EVENTS:
                    reached.set()
                if item.seq == EVENTS + 2:
                    return

        reader = threading.Thread(target=read, daemon=True)
        with LiveServer(create_app(db, fast(db)), port=port):
            reader.start()
            assert reached.wait(WAIT_S)
        # The server is gone: two events are recorded at the table meanwhile, then it is back.
        fields = ["turn=4", "side=imperium", "phase=movement"]
        assert morale(db, "append", BATTLE, "phase_started", *fields).exit_code == 0
        assert morale(db, "append", BATTLE, "phase_ended", *fields).exit_code == 0
        with LiveServer(create_app(db, fast(db)), port=port):
            reader.join(WAIT_S)
    assert [item.seq for item in got] == list(range(EVENTS - 2, EVENTS + 3))  # nothing twice, nothing lost
    assert isinstance(got[-1].event, PhaseEnded)
