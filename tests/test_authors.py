"""Who appended each event, sealed in its hashed bytes: written by each way in, shown by `morale log`
(text and JSON), refused by `verify` and `import` when edited, and "not recorded" for old logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from litestar.testing import TestClient
from support.cli import morale, morale_command
from support.examples import V1_FIXTURE
from support.served import bearer, creation_body, example_events

from morale.app.access import token_hash, token_id_of
from morale.app.cli.base import out as cli_output
from morale.app.http.server import Settings, create_app
from morale.events.codec import GENESIS_HASH, body_bytes, chain_hash, encode
from morale.events.store import SqliteEventStore

ROOT = Path(__file__).resolve().parent.parent
ROSTER = ROOT / "examples" / "wh40k6" / "roster.toml"
BATTLE = "hive-tarsis"
MOVEMENT = '{"type": "phase_started", "turn": 1, "side": "imperium", "phase": "movement"}\n'


@pytest.fixture(autouse=True)
def logged_in_as_anna(monkeypatch):
    """Who typed the commands, as the system says it (getpass reads LOGNAME first)."""
    monkeypatch.setenv("LOGNAME", "anna")


def log_json(db: Path) -> list[dict]:
    result = morale(db, "log", BATTLE, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_each_command_seals_the_referee_who_typed_it_and_the_way_it_came_in(tmp_path):
    db = tmp_path / "battles.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    events = tmp_path / "more.ndjson"
    events.write_text(MOVEMENT)
    assert morale(db, "append", BATTLE, "--file", str(events)).exit_code == 0
    assert morale(db, "next-phase", BATTLE).exit_code == 0
    rows = log_json(db)
    typed = {"role": "referee", "via": "cli", "label": "anna"}
    assert [row["author"] for row in rows] == [typed] * 9 + [typed | {"via": "import"}, typed]
    assert [row["by"] for row in rows[-2:]] == ["referee (file import, anna)", "referee (command line, anna)"]


def test_the_log_shows_who_entered_each_event_in_a_column_of_its_own(tmp_path, monkeypatch):
    monkeypatch.setattr(cli_output, "width", 160)  # a terminal wide enough for no cell to wrap
    db = tmp_path / "battles.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    shown = morale(db, "log", BATTLE)
    assert shown.exit_code == 0
    lines = shown.stdout.splitlines()
    header = next(line for line in lines if "what happened" in line)
    assert [cell.strip() for cell in header.strip("┃ ").split("┃")][-2:] == ["by", "hash"]
    first = next(line for line in lines if line.startswith("│ 1 "))
    assert [cell.strip() for cell in first.strip("│ ").split("│")][-2][:28] == "referee (command line, anna)"


SIGNATURES = ('{"signed_head"', '{"public_key"')  # the lines after an export's events (app/transfer.py)


def test_an_old_log_keeps_its_hashes_and_shows_its_authors_as_not_recorded(tmp_path):
    lines = [json.loads(line) for line in V1_FIXTURE.read_text().splitlines() if line.strip()]
    db = tmp_path / "old.db"
    imported = morale(db, "import", str(V1_FIXTURE))
    assert imported.exit_code == 0, imported.output
    assert [row.hash for row in SqliteEventStore(db).raw_rows(BATTLE)] == [line["hash"] for line in lines]
    rows = log_json(db)
    assert {row["by"] for row in rows} == {"not recorded"} and {row["author"] for row in rows} == {None}
    assert morale(db, "verify", BATTLE).exit_code == 0
    # Exported again, the old log reads exactly as it was given: no author key is added to it (the
    # importing store's signed heads follow the events, in lines of their own).
    exported = morale(db, "export", BATTLE).stdout.splitlines(keepends=True)
    assert "".join(line for line in exported if not line.startswith(SIGNATURES)) == V1_FIXTURE.read_text()


def edited_author(db: Path, seq: int) -> None:
    """Someone holding the file changes who an event says entered it."""
    SqliteEventStore(db).db.conn.execute(
        'UPDATE events SET body = replace(body, \'"label":"anna"\', \'"label":"boris"\') WHERE seq = ?', (seq,)
    )


def test_verify_names_the_seq_of_an_event_whose_author_was_edited(tmp_path):
    db = tmp_path / "battles.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    assert morale(db, "next-phase", BATTLE).exit_code == 0
    edited_author(db, 7)
    assert log_json(db)[6]["by"] == "referee (command line, boris)"  # the edit shows...
    tampered = morale(db, "verify", BATTLE)
    assert tampered.exit_code == 1  # ...and verify says where
    assert "chain: first bad event #7: hash does not match the event's bytes" in tampered.stdout
    findings = json.loads(morale(db, "verify", BATTLE, "--json").stdout)["findings"]
    assert [(f["check"], f["seq"]) for f in findings] == [("chain", 7)]


def test_import_refuses_an_exported_file_whose_author_was_edited_naming_its_seq_and_writes_nothing(tmp_path):
    db = tmp_path / "battles.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    lines = morale(db, "export", BATTLE).stdout.splitlines()
    lines[4] = lines[4].replace('"label":"anna"', '"label":"boris"')
    file = tmp_path / "edited.ndjson"
    file.write_text("\n".join(lines) + "\n")
    fresh = tmp_path / "fresh.db"
    refused = morale(fresh, "import", str(file))
    assert refused.exit_code == 2
    assert refused.stderr.startswith("refused: hash: ") and "line 5 (seq 5)" in refused.stderr
    assert SqliteEventStore(fresh).battles() == []


def resealed(lines: list[dict]) -> list[dict]:
    """Exported lines sealed again after an edit, as a forger who knows the hashing would."""
    prev = GENESIS_HASH
    for line in lines:
        fields = ("battle", "seq", "schema_version", "recorded_at", "event", "author")
        line["prev_hash"], line["hash"] = prev, chain_hash(prev, body_bytes(*(line.get(f) for f in fields)))
        prev = line["hash"]
    return lines


def test_an_author_beyond_its_fields_limits_is_refused_by_import_naming_the_field(tmp_path):
    db = tmp_path / "battles.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    exported = morale(db, "export", BATTLE).stdout.splitlines()
    lines = [json.loads(line) for line in exported if not line.startswith(SIGNATURES)]
    lines[0]["author"]["role"] = "spectator"
    file = tmp_path / "edited.ndjson"
    file.write_bytes(b"".join(encode(line) + b"\n" for line in resealed(lines)))
    refused = morale(tmp_path / "fresh.db", "import", str(file))
    assert refused.exit_code == 2
    assert "line 1 (seq 1): author.role: one of player, referee, not 'spectator'" in refused.stderr


def test_import_and_copy_keep_each_events_author_as_it_was_sealed(tmp_path, monkeypatch):
    db = tmp_path / "battles.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    file = tmp_path / "battle.ndjson"
    assert morale(db, "export", BATTLE, "--out", str(file)).exit_code == 0
    monkeypatch.setenv("LOGNAME", "boris")  # someone else moves the battle
    imported, copied = tmp_path / "imported.db", tmp_path / "copied.db"
    assert morale(imported, "import", str(file)).exit_code == 0
    assert morale_command("copy", "--from", str(db), "--to", str(copied)).exit_code == 0
    assert log_json(imported) == log_json(copied) == log_json(db)
    assert {row["by"] for row in log_json(copied)} == {"referee (command line, anna)"}


def test_a_login_name_beyond_a_labels_limits_is_left_out_not_sealed(tmp_path, monkeypatch):
    monkeypatch.setenv("LOGNAME", "an\x07na")  # a control character: no label may hold one
    db = tmp_path / "battles.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    assert {row["by"] for row in log_json(db)} == {"referee (command line)"}


# -- over HTTP: the token's role, side, id and label, and whether the console sent it ---------------
CONSOLE = {"X-Morale-Via": "console"}


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(tmp_path / "served.db", Settings())) as opened:
        yield opened


def served_log(client, token: str) -> list[dict]:
    answer = client.get(f"/battles/{BATTLE}/log", headers=bearer(token))
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_each_write_over_http_is_sealed_with_its_tokens_role_side_and_way_in(client):
    created = client.post("/battles", json=creation_body(), headers=CONSOLE)
    assert created.status_code == 201, created.text
    tokens = created.json()["tokens"]
    referee, imperium = tokens["referee"], tokens["players"]["imperium"]
    moved = client.post(
        f"/battles/{BATTLE}/events", json={"expected_seq": 9, "events": example_events(5)}, headers=bearer(referee)
    )
    assert moved.status_code == 201, moved.text
    lost = client.post(
        f"/battles/{BATTLE}/events",
        json={"expected_seq": 14, "events": [{"type": "casualties_suffered", "unit": "kraak", "count": 1}]},
        headers=bearer(imperium) | CONSOLE,
    )
    assert lost.status_code == 201, lost.text
    (item,) = lost.json()  # the answer is the feed's item, author and all
    assert {k: item["author"].get(k) for k in ("role", "side", "via")} == {
        "role": "player",
        "side": "imperium",
        "via": "console",
    }
    rows = served_log(client, tokens["spectator"])
    seen = [(row["author"]["role"], row["author"].get("side", ""), row["author"]["via"]) for row in rows]
    assert seen == [("referee", "", "console")] * 9 + [("referee", "", "http")] * 5 + [
        ("player", "imperium", "console")
    ]
    # The token's public id (`token_id_of` of its hash), never the secret.
    assert rows[-1]["author"]["token"] == token_id_of(token_hash(imperium))
    assert all(imperium not in json.dumps(row) and referee not in json.dumps(row) for row in rows)
    assert rows[-1]["by"].startswith("imperium player (console")


def test_a_header_other_than_the_consoles_is_a_call_to_the_api(client):
    tokens = client.post("/battles", json=creation_body(), headers={"X-Morale-Via": "cli"}).json()["tokens"]
    assert {row["author"]["via"] for row in served_log(client, tokens["referee"])} == {"http"}


def test_a_credentials_id_and_label_are_sealed_and_shown(client):
    tokens = client.post("/battles", json=creation_body()).json()["tokens"]
    issued = client.post(
        f"/battles/{BATTLE}/tokens",
        json={"role": "player", "side": "imperium", "label": "Anna's phone"},
        headers=bearer(tokens["referee"]),
    ).json()
    assert (
        client.post(
            f"/battles/{BATTLE}/events",
            json={"expected_seq": 9, "events": example_events(5)},
            headers=bearer(tokens["referee"]),
        ).status_code
        == 201
    )
    lost = client.post(
        f"/battles/{BATTLE}/events",
        json={"expected_seq": 14, "events": [{"type": "casualties_suffered", "unit": "kraak", "count": 1}]},
        headers=bearer(issued["token"]) | CONSOLE,
    )
    assert lost.status_code == 201, lost.text
    last = served_log(client, tokens["referee"])[-1]
    assert last["author"] == {
        "role": "player",
        "side": "imperium",
        "via": "console",
        "token": issued["id"],
        "label": "Anna's phone",
    }
    assert issued["id"] == token_id_of(token_hash(issued["token"]))
    assert last["by"] == "imperium player (console, Anna's phone)"


def test_explain_says_who_entered_the_event_behind_each_line_and_the_dice(tmp_path):
    db = tmp_path / "battles.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    played = tmp_path / "played.ndjson"
    played.write_text("".join((ROOT / "examples" / "wh40k6" / "battle.ndjson").read_text().splitlines(True)[:60]))
    assert morale(db, "append", BATTLE, "--file", str(played)).exit_code == 0
    said = morale(db, "explain", BATTLE, "kraak")
    assert said.exit_code == 0, said.output
    lines = said.stdout.splitlines()
    joined = next(i for i, line in enumerate(lines) if "joins imperium" in line)
    assert lines[joined + 1].strip() == "entered by: referee (command line, anna)"
    assert "rolled at #49 by referee (file import, anna): 4 + 3 = 7" in said.stdout
    steps = json.loads(morale(db, "explain", BATTLE, "kraak", "--json").stdout)["steps"]
    assert steps[0]["author"] == {"role": "referee", "via": "cli", "label": "anna"}
    assert {step["by"] for step in steps[1:]} == {"referee (file import, anna)"}


def test_explain_of_an_old_log_says_not_recorded(tmp_path):
    db = tmp_path / "old.db"
    assert morale(db, "import", str(V1_FIXTURE)).exit_code == 0
    steps = json.loads(morale(db, "explain", BATTLE, "kraak", "--json").stdout)["steps"]
    assert {(step["author"], step["by"]) for step in steps} == {(None, "not recorded")}
    said = morale(db, "explain", BATTLE, "kraak").stdout
    assert "entered by: not recorded" in said and "rolled at #49: 4 + 3 = 7" in said


def test_the_explain_answer_over_http_names_who_entered_each_step(client):
    tokens = client.post("/battles", json=creation_body(), headers=CONSOLE).json()["tokens"]
    referee = bearer(tokens["referee"])
    annas = client.post(
        f"/battles/{BATTLE}/tokens",
        json={"role": "player", "side": "imperium", "label": "Anna's phone"},
        headers=referee,
    ).json()["token"]
    assert (
        client.post(
            f"/battles/{BATTLE}/events", json={"expected_seq": 9, "events": example_events(5)}, headers=referee
        ).status_code
        == 201
    )
    lost = {"type": "casualties_suffered", "unit": "kraak", "count": 1}
    body = {"expected_seq": 14, "events": [lost]}
    assert client.post(f"/battles/{BATTLE}/events", json=body, headers=bearer(annas) | CONSOLE).status_code == 201
    steps = client.get(f"/battles/{BATTLE}/explain/kraak", headers=referee).json()["steps"]
    assert [(step["seq"], step["by"]) for step in steps] == [
        (3, "referee (console)"),
        (15, "imperium player (console, Anna's phone)"),
    ]
