"""Several `morale serve` nodes on one PostgreSQL store, as behind a load balancer: any node takes
any write, a follower on one node hears what another node (or the CLI) appended, woken by the
database (LISTEN/NOTIFY, never a poll: the nodes run with `--poll 3600`), and a follower whose node
dies resumes on another with nothing lost and nothing twice. Each node is a process of its own."""

from __future__ import annotations

import json
import threading
import time

import httpx
import psycopg
import pytest
from support.cli import morale
from support.nodes import WAIT_S, Follower, Node, feed_lines, last_seq, post_events
from support.pg import wait_for
from support.served import BATTLE, EXAMPLE_EVENTS, ROSTER, bearer, creation_body

from morale.events.locate import open_store
from morale.events.types import CasualtiesSuffered
from morale.projections.verify import verify

NO_POLL = ("--poll", "3600")  # were a node to poll, it would not be in time: only NOTIFY can wake it
MOVEMENT = {"type": "phase_started", "turn": 1, "side": "imperium", "phase": "movement"}


def casualty(unit: str, cause: str) -> dict:
    return {"type": "casualties_suffered", "unit": unit, "count": 1, "cause": cause}


@pytest.fixture
def nodes(pg_url, tmp_path):
    """Two nodes on one fresh store, started at once (as after a deployment: they race to set it up)."""
    a, b = Node(pg_url, tmp_path / "a.log", *NO_POLL), Node(pg_url, tmp_path / "b.log", *NO_POLL)
    with a, b:
        yield a, b


@pytest.fixture
def battle(nodes) -> dict:
    """The example battle created through the first node, its movement phase started; its tokens."""
    created = httpx.post(f"{nodes[0].url}/battles", json=creation_body(), timeout=WAIT_S)
    assert created.status_code == 201, created.text
    tokens = created.json()["tokens"]
    assert post_events(nodes[0].url, BATTLE, tokens["referee"], [MOVEMENT], 9).status_code == 201
    return tokens


def test_writers_on_both_nodes_at_once_lose_nothing_and_double_nothing(nodes, battle, pg_url):
    units = {"boyz": 0, "kraak": 1, "grots": 0, "lootas": 1}  # each writer's unit, and its node
    per_writer = 5
    kept: dict[str, list[str]] = {unit: [] for unit in units}
    refused: list[str] = []

    def write(unit: str, node: Node) -> None:
        for i in range(per_writer):
            tag = f"{unit}-{i}"
            # Each write gets its own wait: four writers racing for one log lose races to each other,
            # and on a loaded machine one may lose many in a row (a deadline for all five starved it).
            deadline = time.monotonic() + WAIT_S
            while time.monotonic() < deadline:
                seq = last_seq(node.url, BATTLE, battle["referee"])
                answer = post_events(node.url, BATTLE, battle["referee"], [casualty(unit, tag)], seq)
                if answer.status_code == 201:
                    kept[unit].append(tag)
                    break
                if answer.status_code != 409:  # a lost race is the only refusal expected
                    refused.append(f"{tag}: {answer.status_code} {answer.text}")
                    return

    writers = [threading.Thread(target=write, args=(u, nodes[n])) for u, n in units.items()]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(per_writer * WAIT_S)
    assert refused == []
    assert all(len(tags) == per_writer for tags in kept.values()), kept
    store = open_store(pg_url, create=False)
    try:
        logged = [s.event for s in store.read(BATTLE) if isinstance(s.event, CasualtiesSuffered)]
        assert sorted(e.cause for e in logged) == sorted(t for tags in kept.values() for t in tags)
        assert store.last_seq(BATTLE) == 10 + len(units) * per_writer
        assert verify(BATTLE, store.raw_rows(BATTLE)).ok  # seqs 1..N, one unbroken chain, every digest
    finally:
        store.close()
    verified = morale(pg_url, "verify", BATTLE)
    assert verified.exit_code == 0 and "OK" in verified.stdout


def test_an_append_through_one_node_reaches_a_follower_of_the_other(nodes, battle, pg_url):
    a, b = nodes
    with Follower([b.url], BATTLE, battle["spectator"], until=12) as follower:
        follower.wait_for(10)  # it has caught up with the log
        assert post_events(a.url, BATTLE, battle["referee"], [casualty("boyz", "via a")], 10).status_code == 201
        follower.wait_for(11)
        # The CLI on another machine writes to the same database: the nodes hear of it too.
        cli = morale(pg_url, "append", BATTLE, "casualties_suffered", "unit=kraak", "count=1", "cause=cli")
        assert cli.exit_code == 0, cli.stderr
        follower.wait_for(12)
    assert follower.ids == list(range(1, 13)) and follower.connections == [b.url]
    assert [item["event"].get("cause") for item in follower.items[-2:]] == ["via a", "cli"]


def test_a_follower_resumes_on_the_other_node_after_its_node_is_killed(nodes, battle):
    a, b = nodes
    last = 10 + 12
    with Follower([a.url, b.url], BATTLE, battle["spectator"], until=last) as follower:
        follower.wait_for(10)
        for seq in range(10, 16):  # appended through b, heard on a
            assert post_events(b.url, BATTLE, battle["referee"], [casualty("boyz", f"#{seq}")], seq).status_code == 201
        follower.wait_for(16)
        a.kill()
        for seq in range(16, last):  # while the follower finds its way to b
            assert post_events(b.url, BATTLE, battle["referee"], [casualty("grots", f"#{seq}")], seq).status_code == 201
        follower.wait_for(last)
    assert follower.ids == list(range(1, last + 1))  # no gap, nothing twice
    assert follower.connections[0] == a.url and follower.connections[-1] == b.url


def test_a_notification_missed_while_a_node_was_not_listening_is_caught_up(nodes, battle, pg_url):
    b = nodes[1]
    store = open_store(pg_url, create=False)
    admin = psycopg.connect(store.conninfo, autocommit=True)  # type: ignore[attr-defined]
    b_listens = "SELECT pid FROM pg_stat_activity WHERE application_name = %s"
    name = (f"morale listen (pid {b.process.pid})",)
    missed = 0  # appends made while b was not listening (it listens again within a fraction of a second)
    try:
        with Follower([b.url], BATTLE, battle["spectator"], until=15) as follower:
            follower.wait_for(10)
            for seq in range(10, 15):
                wait_for(lambda: len(admin.execute(b_listens, name).fetchall()) == 1, WAIT_S, "b listening")
                admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s", name
                )
                store.append(BATTLE, [CasualtiesSuffered(unit="boyz", count=1, cause="unheard")], expected_seq=seq)
                missed += admin.execute(b_listens, name).fetchall() == []
                follower.wait_for(seq + 1)  # once b listens again, it reads what it was not told
        assert follower.ids == list(range(1, 16))
        assert missed >= 1, "b listened again before every append: no notification was missed"
        # What b's log says of each cut: one line (libpq's own message runs over several).
        said = [line for line in b.log.read_text().splitlines() if "not listening to the store" in line]
        assert said and all(line.endswith(" s") and "; again in " in line for line in said), said
    finally:
        admin.close()
        store.close()


def test_a_node_started_after_the_events_serves_them_as_stored(pg_url, tmp_path):
    created = morale(pg_url, "new", str(ROSTER), "--tokens", "--json")
    assert created.exit_code == 0, created.stderr
    assert morale(pg_url, "append", BATTLE, "--file", str(EXAMPLE_EVENTS)).exit_code == 0
    exported = morale(pg_url, "export", BATTLE)
    token = json.loads(created.stdout)["tokens"]["spectator"]
    with Node(pg_url, tmp_path / "late.log", *NO_POLL) as late:
        served = list(feed_lines(late.url, BATTLE, token))
        board = httpx.get(f"{late.url}/battles/{BATTLE}/board", headers=bearer(token), timeout=WAIT_S).json()
    stored = [json.loads(line) for line in exported.stdout.splitlines()]
    assert len(served) == 104
    assert [(s["seq"], s["hash"]) for s in served] == [(s["seq"], s["hash"]) for s in stored]
    assert board == json.loads(morale(pg_url, "board", BATTLE, "--json").stdout)  # the board the CLI folds
