"""What only the PostgreSQL store has: a URL that may be wrong, a database that may hold something
else or a newer store, the schema the app creates and upgrades (never rewriting an event), the
appends it announces, and a server that may go away and come back."""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading

import psycopg
import pytest
from support.cli import morale, runner
from support.examples import EXAMPLE, example_store

from morale.app.cli import app
from morale.events import pg_schema
from morale.events.locate import open_store
from morale.events.postgres import PostgresEventStore, redacted
from morale.events.store import ConflictError, StoredToken, StoreUnavailable
from morale.events.types import BattleStarted, CasualtiesSuffered

START = BattleStarted(ruleset="wh40k6", ruleset_version="1", sides=("imperium", "orks"))


def versions(url: str) -> list[int]:
    with psycopg.connect(url) as conn:
        return [v for (v,) in conn.execute("SELECT version FROM morale_schema_version ORDER BY version")]


def tables(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return [t for (t,) in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")]


@pytest.mark.parametrize(
    ("url", "said"),
    [
        (
            "postgresql://morale:s3cret@127.0.0.1:1/league",
            r"postgresql://morale:\*\*\*@127\.0\.0\.1:1/league: connection",
        ),
        (
            "postgresql://127.0.0.1/league?colour=blue",
            r"postgresql://127\.0\.0\.1/league\?colour=blue: not a PostgreSQL URL",
        ),
    ],
)
def test_a_url_that_reaches_no_store_is_refused_in_one_line_without_its_password(url, said):
    refused = morale(url, "battles")  # type: ignore[arg-type]
    assert refused.exit_code == 2
    assert re.match(rf"refused: --db {said}", refused.stderr) and len(refused.stderr.splitlines()) == 1
    assert "s3cret" not in refused.output


def test_a_database_that_does_not_exist_is_named(pg_database):
    missing = pg_database.rsplit("/", 1)[0] + "/no_such_league"
    refused = morale(missing, "battles")  # type: ignore[arg-type]
    assert refused.exit_code == 2 and 'database "no_such_league" does not exist' in refused.stderr


def test_the_password_is_left_out_of_what_is_printed():
    assert redacted("postgresql://u:p%40ss@h:5432/db?sslmode=require") == "postgresql://u:***@h:5432/db?sslmode=require"
    assert redacted("postgresql://h/db?user=u&password=pw&x=1") == "postgresql://h/db?user=u&password=***&x=1"
    assert redacted("postgresql://u@h/db") == "postgresql://u@h/db"


def test_a_reader_refuses_a_database_that_holds_no_store_and_leaves_it_as_it_was(pg_url):
    refused = morale(pg_url, "board", "hive-tarsis")  # type: ignore[arg-type]
    assert refused.exit_code == 2
    assert refused.stderr.endswith(": no morale store in this database (`morale new` or `morale import` creates one)\n")
    assert tables(pg_url) == []


def test_a_schema_holding_tables_morale_did_not_create_is_refused(pg_url):
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE events (id serial primary key, what text)")
    with pytest.raises(StoreUnavailable, match="already holds something morale did not create"):
        PostgresEventStore(pg_url)
    assert tables(pg_url) == ["events"]


def test_a_store_a_newer_morale_upgraded_is_refused(pg_url):
    open_store(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("INSERT INTO morale_schema_version (version, what) VALUES (99, 'from the future')")
    with pytest.raises(
        StoreUnavailable,
        match=rf"schema version 99, newer than this morale knows \({pg_schema.LATEST}\): upgrade morale",
    ):
        PostgresEventStore(pg_url)


def test_an_older_store_is_upgraded_as_it_is_opened_and_its_events_stay_byte_for_byte(pg_url, tmp_path):
    written = example_store(tmp_path / "old.db")
    old_rows = list(written.raw_rows("hive-tarsis"))
    with psycopg.connect(pg_url, autocommit=True) as conn:  # as the first morale on PostgreSQL left it
        pg_schema.prepare(conn, create=True, upto=1)
        conn.cursor().executemany(
            "INSERT INTO events (battle, seq, body, prev_hash, hash, schema_version, recorded_at, type) "
            "VALUES ('hive-tarsis', %s, %s, %s, %s, %s, %s, %s)",
            old_rows,
        )
        conn.execute("INSERT INTO access_tokens VALUES ('hive-tarsis', 'h1', 'player', 'orks')")
    store = open_store(pg_url, create=False)
    try:
        assert list(store.raw_rows("hive-tarsis")) == old_rows
        with psycopg.connect(pg_url) as conn:
            applied = [v for (v,) in conn.execute("SELECT version FROM morale_schema_version ORDER BY version")]
            assert applied == list(range(1, pg_schema.LATEST + 1))
        # What version 4 added: the token kept before has no label and was never used, and still opens.
        assert store.tokens("hive-tarsis") == [StoredToken("h1", "player", "orks", "", "", "")]
        store.save_snapshot("hive-tarsis", 100, "e", b"kept")  # what version 2 added
        assert store.snapshot_before("hive-tarsis", 104, "e") == (100, b"kept")
        verified = morale(pg_url, "verify", "hive-tarsis")  # type: ignore[arg-type]
        assert verified.exit_code == 0 and "OK (104 events" in verified.stdout
    finally:
        store.close()


def test_no_migration_rewrites_moves_or_deletes_an_event():
    """Hashes seal each event's bytes, so an upgrade only ever adds; one that touched a stored event
    would leave every later link broken."""
    statements = [s for migration in pg_schema.MIGRATIONS for s in migration.statements]
    assert [m.version for m in pg_schema.MIGRATIONS] == list(range(1, pg_schema.LATEST + 1))
    for statement in statements:
        words = statement.upper()
        assert not re.search(r"\b(UPDATE|DELETE|TRUNCATE|DROP|RENAME)\b", words), statement
        assert not re.search(r"ALTER\s+TABLE\s+EVENTS\b(?!\s+ADD\b)", words), statement


def test_nodes_setting_up_a_new_store_at_once_set_it_up_once(pg_url):
    opened, failed = [], []

    def open_one() -> None:
        try:
            opened.append(open_store(pg_url))
        except Exception as exc:  # reported below
            failed.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert failed == [] and len(opened) == 6
    for store in opened:
        store.close()
    assert versions(pg_url) == list(range(1, pg_schema.LATEST + 1))


def test_a_committed_append_is_announced_with_its_last_seq_and_a_refused_one_is_not(pg_url):
    store = open_store(pg_url)
    listener = psycopg.connect(store.conninfo, autocommit=True)  # type: ignore[attr-defined]
    try:
        listener.execute(f'LISTEN "{store.channel}"')  # type: ignore[attr-defined]
        store.append("b1", [START, CasualtiesSuffered(unit="a", count=1)], expected_seq=0)
        with pytest.raises(ConflictError):
            store.append("b1", [CasualtiesSuffered(unit="a", count=1)], expected_seq=1)
        store.append("b 2", [START], expected_seq=0)
        heard = [n.payload for n in listener.notifies(timeout=1.0)]
        assert heard == ["2 b1", "1 b 2"]
    finally:
        listener.close()
        store.close()


def test_two_stores_in_one_database_do_not_hear_each_other(pg_database):
    from support.pg import fresh_schema

    first, second = open_store(fresh_schema(pg_database)), open_store(fresh_schema(pg_database))
    listener = psycopg.connect(first.conninfo, autocommit=True)  # type: ignore[attr-defined]
    try:
        assert first.channel != second.channel  # type: ignore[attr-defined]
        listener.execute(f'LISTEN "{first.channel}"')  # type: ignore[attr-defined]
        second.append("b1", [START], expected_seq=0)
        first.append("b1", [START], expected_seq=0)
        assert [n.payload for n in listener.notifies(timeout=1.0)] == ["1 b1"]
    finally:
        listener.close()
        first.close()
        second.close()


def test_a_server_that_cut_the_stores_connections_costs_a_read_nothing_and_a_write_one_refusal(pg_url):
    url = f"{pg_url}&application_name=cut"
    store = open_store(url)

    def cut() -> None:  # as a server restarting would
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'cut'")

    try:
        store.append("b1", [START, START], expected_seq=0)
        cut()
        assert store.last_seq("b1") == 2  # tried again on a fresh connection
        cut()
        with pytest.raises(StoreUnavailable) as refused:
            store.append("b1", [CasualtiesSuffered(unit="a", count=1)], expected_seq=2)
        assert "\n" not in str(refused.value) and str(refused.value).startswith(f"{url}: ")
        assert store.append("b1", [CasualtiesSuffered(unit="a", count=1)], expected_seq=2)[0].seq == 3
    finally:
        store.close()


def test_every_command_takes_its_store_from_morale_db(pg_url):
    environment = {"MORALE_DB": pg_url}
    created = runner.invoke(app, ["new", str(EXAMPLE / "roster.toml")], env=environment)
    assert created.exit_code == 0, created.output
    assert (
        runner.invoke(
            app, ["append", "hive-tarsis", "--file", str(EXAMPLE / "battle.ndjson")], env=environment
        ).exit_code
        == 0
    )
    board = runner.invoke(app, ["board", "hive-tarsis"], env=environment)
    assert board.exit_code == 0 and "kraak" in board.stdout
    assert runner.invoke(app, ["battles"], env=environment).stdout.strip() == "hive-tarsis  (104 events)"
    assert tables(pg_url) != []


def test_a_node_whose_database_connections_were_cut_answers_as_if_nothing_happened(pg_url):
    from litestar.testing import TestClient
    from support.served import BATTLE, bearer, creation_body

    from morale.app.http.server import create_app

    url = f"{pg_url}&application_name=cut"
    with TestClient(create_app(url)) as client:
        referee = bearer(client.post("/battles", json=creation_body()).json()["tokens"]["referee"])
        movement = {"type": "phase_started", "turn": 1, "side": "imperium", "phase": "movement"}
        with psycopg.connect(pg_url, autocommit=True) as admin:  # every pooled connection, as a restart would
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'cut'")
        appended = client.post(
            f"/battles/{BATTLE}/events", json={"expected_seq": 9, "events": [movement]}, headers=referee
        )
        assert appended.status_code == 201 and appended.json()[0]["seq"] == 10
        assert client.get(f"/battles/{BATTLE}/board", headers=referee).json()["phase"] == "movement"


def test_revoke_tables_report_and_notation_work_on_a_postgresql_store(pg_url, tmp_path):
    # The commands that came with the notation, the report and the SQL tables take a URL as any other.
    example_store(pg_url).close()
    issued = morale(pg_url, "tokens", "hive-tarsis", "--issue", "orks", "--label", "Anna's phone")  # type: ignore[arg-type]
    assert issued.exit_code == 0
    assert "Anna's phone" in morale(pg_url, "tokens", "hive-tarsis").stdout  # type: ignore[arg-type]
    assert morale(pg_url, "revoke", "hive-tarsis", "orks").exit_code == 0  # type: ignore[arg-type]
    again = morale(pg_url, "revoke", "hive-tarsis", "orks")  # type: ignore[arg-type]
    assert again.exit_code == 2 and "has no orks token" in again.stderr
    # The derived tables are SQLite alone: beside a PostgreSQL log there is no file to write them to.
    beside = morale(pg_url, "tables", "hive-tarsis")  # type: ignore[arg-type]
    assert beside.exit_code == 2 and beside.stderr.count("\n") == 1
    assert "--to" in beside.stderr
    assert morale(pg_url, "tables", "hive-tarsis", "--to", str(tmp_path / "t.db")).exit_code == 0  # type: ignore[arg-type]
    notation = tmp_path / "battle.txt"
    assert morale(pg_url, "notation", "export", "hive-tarsis", "-o", str(notation)).exit_code == 0  # type: ignore[arg-type]
    compared = runner.invoke(app, ["notation", "import", str(notation), "--verify-against", pg_url])
    assert compared.exit_code == 0 and "the same 104 events" in compared.stdout, compared.output
    imported = morale(pg_url, "notation", "import", str(notation), "--battle", "again")  # type: ignore[arg-type]
    assert imported.exit_code == 0, imported.output
    assert morale(pg_url, "report", "hive-tarsis", "-o", str(tmp_path / "r.html")).exit_code == 0  # type: ignore[arg-type]


def test_serve_refuses_a_database_it_cannot_reach_in_one_line_and_serves_nothing():
    from support.nodes import MORALE, free_port

    command = [MORALE, "serve", "--db", "postgresql://league:s3cret@127.0.0.1:1/league", "--port", str(free_port())]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("refused: --db postgresql://league:***@127.0.0.1:1/league: ")
    assert done.stderr.count("\n") == 1 and "s3cret" not in done.stderr


def test_a_store_given_by_the_environment_is_named_as_the_user_gave_it():
    # A node's MORALE_DB is not on its command line: "--db" there would send the operator looking
    # for an option nobody typed.
    from support.nodes import MORALE

    environment = os.environ | {"MORALE_DB": "postgresql://league:s3cret@127.0.0.1:1/league"}
    done = subprocess.run([MORALE, "battles"], capture_output=True, text=True, timeout=60, env=environment)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("refused: $MORALE_DB postgresql://league:***@127.0.0.1:1/league: "), done.stderr
    done = subprocess.run([MORALE, "battles", "--json"], capture_output=True, text=True, timeout=60, env=environment)
    assert json.loads(done.stderr)["error"]["field"] == "$MORALE_DB"
