"""`POST /battles/roster`: a roster file's TOML text, sent as the console's "Start a new battle" sends
it, starts the battle exactly as `morale new ROSTER.toml` does; whatever is wrong with the roster is
a 4xx problem naming the line or the field, and nothing is written."""

from __future__ import annotations

import json
import tomllib

import pytest
from litestar.testing import TestClient
from support.cli import morale
from support.served import BATTLE, ROOT, ROSTER, bearer

from morale.app.http.server import MAX_UNITS, Settings, create_app
from morale.events.store import SqliteEventStore

TEXT = ROSTER.read_text(encoding="utf-8")


def make_client(db, **settings) -> TestClient:
    return TestClient(create_app(db, Settings(**settings)))


@pytest.fixture
def client(tmp_path):
    with make_client(tmp_path / "served.db") as opened:
        yield opened


def send(client: TestClient, text: str, headers: dict | None = None, **fields):
    return client.post("/battles/roster", json={"roster": text, "file": "roster.toml", **fields}, headers=headers)


def battles_in(client: TestClient) -> list[str]:
    """The battles the store holds, read behind the server's back."""
    store = SqliteEventStore(client.app.state.stores.path)
    try:
        return store.battles()
    finally:
        store.close()


def units_of(roster) -> list[dict]:
    return [{"unit": unit["id"]} for unit in tomllib.loads(roster.read_text(encoding="utf-8"))["unit"]]


def events_of(db, battle: str) -> list[dict]:
    store = SqliteEventStore(db)
    try:
        return [json.loads(row.body)["event"] for row in store.raw_rows(battle)]
    finally:
        store.close()


@pytest.mark.parametrize("example", ["wh40k6", "gdb"])
def test_a_roster_sent_as_text_starts_the_battle_that_morale_new_starts(client, tmp_path, example):
    roster = ROOT / "examples" / example / "roster.toml"
    answer = send(client, roster.read_text(encoding="utf-8"))
    assert answer.status_code == 201, answer.text
    created = answer.json()
    battle = created["battle"]
    assert morale(tmp_path / "cli.db", "new", str(roster)).exit_code == 0
    # The same first events, to the byte (the pinned tables of General de Brigade's defaults too).
    assert events_of(client.app.state.stores.path, battle) == events_of(tmp_path / "cli.db", battle)
    assert created["seq"] == len(events_of(tmp_path / "cli.db", battle))
    referee = bearer(created["tokens"]["referee"])
    board = client.get(f"/battles/{battle}/board", headers=referee)
    assert board.status_code == 200
    assert [unit["unit"] for unit in board.json()["units"]] == [unit["unit"] for unit in units_of(roster)]
    sides = client.get(f"/battles/{battle}/vocabulary", headers=referee).json()["sides"]
    assert set(created["tokens"]["players"]) == set(sides)  # a token for each side's player


def test_the_battle_id_given_beside_the_roster_is_the_one_used(client):
    answer = send(client, TEXT, battle="hive-tarsis-2")
    assert answer.status_code == 201, answer.text
    assert battles_in(client) == ["hive-tarsis-2"]


def _edited(old: str, new: str, count: int = 1) -> str:
    assert old in TEXT
    return TEXT.replace(old, new, count)


REFUSED = {
    # what is wrong: (the roster, the status, the field named or None, words the detail holds)
    "TOML that does not read": (_edited("models = 5\n", "models = = 5\n"), 400, None, "line 17, column 10"),
    "an unknown ruleset": (_edited('"wh40k6"', '"chess"'), 400, "battle.ruleset", "unknown ruleset 'chess'"),
    "a missing field": (_edited("models = 5\n", ""), 400, "unit[0].models", "models: missing"),
    "a field beyond its limits": (_edited("ld = 8", "ld = 99"), 400, "unit[0].ld", "not 99"),
    "no [battle] table": (TEXT[TEXT.index("[[unit]]") :], 400, "battle", "needs a [battle] table"),
    "only one side": (_edited('["imperium", "orks"]', '["imperium"]'), 400, "battle.sides", "exactly 2 items"),
    "a table file on the server": (
        _edited('dice = "table"', 'dice = "table"\ntables = {results = "/etc/passwd"}'),
        400,
        "battle.tables",
        "cannot name table files",
    ),
    # The rules' refusals name the unit as the roster does, not "event 6 of 9".
    "a unit of no side": (_edited('side = "orks"', 'side = "eldar"'), 422, "unit[4].side", "eldar"),
    "a 40K unit without Initiative": (_edited("initiative = 4\n", ""), 422, "unit[0].initiative", "Initiative"),
}


@pytest.mark.parametrize("case", REFUSED)
def test_a_bad_roster_is_a_problem_naming_the_line_or_field_and_writes_nothing(client, case):
    text, status, field, words = REFUSED[case]
    answer = send(client, text)
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    problem = answer.json()
    assert words in problem["detail"]
    assert problem["detail"].startswith("roster.toml: " if status == 400 else f"{field}: ")  # the file, as uploaded
    assert "event " not in problem["detail"]
    assert problem.get("field") == field
    assert battles_in(client) == []


def test_a_roster_over_the_unit_limit_is_refused_naming_the_limit(client):
    unit = '[[unit]]\nid = "u{}"\nside = "orks"\nname = "Boyz {}"\ntype = "infantry"\nmodels = 5\nld = 7\n'
    text = TEXT[: TEXT.index("[[unit]]")] + "".join(unit.format(i, i) for i in range(MAX_UNITS + 1))
    answer = send(client, text)
    assert answer.status_code == 400, answer.text
    assert answer.json()["field"] == "unit"
    assert f"at most {MAX_UNITS} units a battle, not {MAX_UNITS + 1}" in answer.json()["detail"]
    assert battles_in(client) == []


def test_a_roster_over_the_body_limit_is_413_and_writes_nothing(tmp_path):
    with make_client(tmp_path / "small.db", max_body_bytes=len(TEXT) // 2) as client:
        answer = send(client, TEXT)
        assert answer.status_code == 413
        assert answer.json()["type"] == "urn:morale:problem:too-large"
        assert battles_in(client) == []


def test_a_roster_whose_battle_exists_is_a_conflict(client):
    assert send(client, TEXT).status_code == 201
    again = send(client, TEXT)
    assert again.status_code == 409
    assert again.json()["field"] == "battle"
    assert len(events_of(client.app.state.stores.path, BATTLE)) == 9  # the first battle, untouched


def test_a_body_that_is_not_a_roster_request_is_refused_naming_the_field(client):
    answer = client.post("/battles/roster", json={"roster": 7})
    assert answer.status_code == 400
    assert answer.json()["field"] == "roster"
    assert client.post("/battles/roster", json={"toml": TEXT}).status_code == 400
    assert battles_in(client) == []


def test_a_server_with_a_creation_token_starts_a_roster_only_for_its_holder(tmp_path):
    with make_client(tmp_path / "locked.db", create_token="let-me-in") as client:
        asked = send(client, TEXT)
        assert asked.status_code == 401
        assert asked.headers["www-authenticate"] == "Bearer"
        assert "creation token" in asked.json()["detail"]
        wrong = send(client, TEXT, headers=bearer("guess"))
        assert wrong.status_code == 403
        assert "not the server's creation token" in wrong.json()["detail"]
        assert battles_in(client) == []
        assert send(client, TEXT, headers=bearer("let-me-in")).status_code == 201


def test_a_file_name_with_a_control_character_is_refused_naming_the_field(client):
    answer = client.post("/battles/roster", json={"roster": TEXT, "file": "roster\n.toml"})
    assert answer.status_code == 400
    assert answer.json()["field"] == "file"
    assert battles_in(client) == []
