"""The path of a machine with no PostgreSQL server running: the tests start a throwaway cluster in a
temporary folder (as root, as the postgres user), and a node on it rides out the server's restart:
refused with a 503 while it is down, working again, its listener back, once it is up."""

from __future__ import annotations

import psycopg
import pytest
from litestar.testing import TestClient
from support.pg import Cluster, binaries, wait_for
from support.served import BATTLE, bearer, creation_body

from morale.app.http.server import create_app

MOVEMENT = {"type": "phase_started", "turn": 1, "side": "imperium", "phase": "movement"}


@pytest.fixture
def cluster():
    found = binaries()
    if found is None:
        pytest.skip("no initdb here: `make test` installs Debian's postgresql")
    started = Cluster(found).start()
    yield started
    started.stop()


def test_a_node_on_a_throwaway_cluster_is_refused_503_while_it_is_down_and_works_once_it_is_back(cluster):
    with psycopg.connect(cluster.url, autocommit=True) as admin:
        admin.execute("CREATE DATABASE league")
    url = cluster.url.rsplit("/", 1)[0] + "/league"
    with TestClient(create_app(url)) as client:
        referee = bearer(client.post("/battles", json=creation_body()).json()["tokens"]["referee"])
        cluster.halt()
        down = client.post(f"/battles/{BATTLE}/events", json={"expected_seq": 9, "events": [MOVEMENT]}, headers=referee)
        assert down.status_code == 503
        assert down.json()["detail"].startswith(f"{url}: ") and "\n" not in down.json()["detail"]
        cluster.start()
        back = client.post(f"/battles/{BATTLE}/events", json={"expected_seq": 9, "events": [MOVEMENT]}, headers=referee)
        assert back.status_code == 201 and back.json()[0]["seq"] == 10

        def listening() -> bool:
            with psycopg.connect(url, autocommit=True) as conn:
                query = "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'morale listen%'"
                return conn.execute(query).fetchone()[0] == 1

        wait_for(listening, 20, "the node listening again")
