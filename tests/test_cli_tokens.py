"""Tokens from the command line, for battles `morale serve` is to open: named credentials, listed
without their secrets, one more issued for a role without touching the others, and every token
replaced only behind `--replace-all`, which says whom it logs out."""

from __future__ import annotations

import json

import pytest
from litestar.testing import TestClient
from support.cli import morale
from support.served import BATTLE, ROSTER, bearer

from morale.app.http.server import create_app


def board_status(db, token: str) -> int:
    with TestClient(create_app(db)) as client:
        return client.get(f"/battles/{BATTLE}/board", headers=bearer(token)).status_code


def statuses(db, tokens: dict[str, str]) -> dict[str, int]:
    return {role: board_status(db, token) for role, token in tokens.items()}


def first_set(db) -> dict[str, str]:
    created = json.loads(morale(db, "new", str(ROSTER), "--tokens", "--json").stdout)["tokens"]
    return {"referee": created["referee"], "spectator": created["spectator"], **created["players"]}


def listed(db) -> list[dict]:
    shown = morale(db, "tokens", BATTLE, "--json")
    assert shown.exit_code == 0
    return json.loads(shown.stdout)


def test_new_with_tokens_issues_one_per_role_that_open_the_battle(tmp_path):
    db = tmp_path / "cli.db"
    created = morale(db, "new", str(ROSTER), "--tokens", "--json")
    assert created.exit_code == 0
    tokens = json.loads(created.stdout)["tokens"]
    assert set(tokens["players"]) == {"imperium", "orks"}
    assert board_status(db, tokens["spectator"]) == 200


def test_new_without_tokens_issues_none(tmp_path):
    db = tmp_path / "cli.db"
    assert "tokens" not in json.loads(morale(db, "new", str(ROSTER), "--json").stdout)


def test_tokens_lists_each_credential_without_its_secret_and_logs_nobody_out(tmp_path):
    db = tmp_path / "cli.db"
    tokens = first_set(db)
    shown = morale(db, "tokens", BATTLE)
    assert shown.exit_code == 0
    assert "player: orks" in shown.stdout and "issued with the battle" in shown.stdout and "never" in shown.stdout
    assert not any(secret in shown.stdout for secret in tokens.values())
    rows = listed(db)
    assert sorted((row["role"], row["side"]) for row in rows) == [
        ("player", "imperium"),
        ("player", "orks"),
        ("referee", ""),
        ("spectator", ""),
    ]
    assert all(len(row["id"]) == 8 and row["created"] and row["last_used"] == "" for row in rows)
    assert statuses(db, tokens) == dict.fromkeys(tokens, 200)


def test_a_token_used_says_when_it_was_last_used_and_the_others_stay_never(tmp_path):
    db = tmp_path / "cli.db"
    tokens = first_set(db)
    assert board_status(db, tokens["orks"]) == 200
    used = {row["side"] or row["role"]: row["last_used"] for row in listed(db)}
    assert used["orks"].startswith("20") and used["referee"] == used["imperium"] == ""


def test_one_more_token_for_a_role_prints_its_secret_alone_and_the_others_keep_working(tmp_path):
    db = tmp_path / "cli.db"
    tokens = first_set(db)
    printed = morale(db, "tokens", BATTLE, "--issue", "spectator", "--label", "the feed for the stream")
    assert printed.exit_code == 0 and len(printed.stdout.split()) == 1
    assert "(spectator) of hive-tarsis, labelled 'the feed for the stream': shown once" in printed.stderr
    fresh = printed.stdout.strip()
    assert statuses(db, {**tokens, "fresh": fresh}) == dict.fromkeys([*tokens, "fresh"], 200)
    spectators = [row for row in listed(db) if row["role"] == "spectator"]
    assert sorted(row["label"] for row in spectators) == ["issued with the battle", "the feed for the stream"]


def test_one_more_token_as_json_names_its_id_and_role_and_its_secret_once(tmp_path):
    db = tmp_path / "cli.db"
    morale(db, "new", str(ROSTER))
    printed = morale(db, "tokens", BATTLE, "--issue", "orks", "--label", "Anna's phone", "--json")
    issued = json.loads(printed.stdout)
    assert (issued["role"], issued["side"], issued["label"]) == ("player", "orks", "Anna's phone")
    assert [row["id"] for row in listed(db)] == [issued["id"]]
    assert board_status(db, issued["token"]) == 200


def test_a_token_without_a_label_or_for_a_role_the_battle_lacks_is_refused_and_nothing_is_issued(tmp_path):
    db = tmp_path / "cli.db"
    first_set(db)
    unlabelled = morale(db, "tokens", BATTLE, "--issue", "orks", "--json")
    assert unlabelled.exit_code == 2 and json.loads(unlabelled.stderr)["error"]["field"] == "label"
    blank = morale(db, "tokens", BATTLE, "--issue", "orks", "--label", "  ")
    assert blank.exit_code == 2 and "a label is needed" in blank.stderr
    unknown = morale(db, "tokens", BATTLE, "--issue", "eldar", "--label", "x")
    assert unknown.exit_code == 2 and "no role 'eldar'" in unknown.stderr and "imperium, orks" in unknown.stderr
    both = morale(db, "tokens", BATTLE, "--issue", "orks", "--label", "x", "--replace-all")
    assert both.exit_code == 2 and "give one of them" in both.stderr
    assert len(listed(db)) == 4


@pytest.mark.parametrize(
    ("label", "words"),
    [
        ("a\x1b[31mred", "may not hold a control character"),  # a terminal would obey it in every listing
        ("Anna\nBoris", "may not hold a control character"),  # one token would read as two lines
        ("tab\there", "may not hold a control character"),
        ("\udcff\udcfe", "a label is UTF-8 text"),  # the bytes b"\xff\xfe" on a command line
    ],
)
def test_a_label_that_is_not_one_line_of_printable_text_is_refused_in_one_line(tmp_path, label, words):
    db = tmp_path / "cli.db"
    first_set(db)
    refused = morale(db, "tokens", BATTLE, "--issue", "orks", "--label", label)
    assert refused.exit_code == 2 and words in refused.stderr and len(refused.stderr.splitlines()) == 1
    assert len(listed(db)) == 4


def test_replacing_every_token_says_whom_it_logs_out_and_only_the_fresh_set_works(tmp_path):
    db = tmp_path / "cli.db"
    old = first_set(db)
    before = listed(db)
    replaced = morale(db, "tokens", BATTLE, "--replace-all")
    assert replaced.exit_code == 0 and "whoever holds one of these is logged out" in replaced.stdout
    for row in before:
        assert row["id"] in replaced.stdout
    assert "player: orks  (issued with the battle)" in replaced.stdout
    assert statuses(db, old) == dict.fromkeys(old, 401)
    as_json = json.loads(morale(db, "tokens", BATTLE, "--replace-all", "--json").stdout)
    assert len(as_json["logged_out"]) == 4 and board_status(db, as_json["tokens"]["referee"]) == 200


def test_tokens_for_an_unknown_battle_are_refused(tmp_path):
    db = tmp_path / "cli.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0  # a store, without that battle
    refused = morale(db, "tokens", "nowhere")
    assert refused.exit_code == 2 and "no battle 'nowhere'" in refused.stderr


def write_status(db, token: str) -> int:
    started = {"type": "phase_started", "turn": 1, "side": "imperium", "phase": "movement"}
    body = {"expected_seq": 0, "events": [started]}
    with TestClient(create_app(db)) as client:
        return client.post(f"/battles/{BATTLE}/events", json=body, headers=bearer(token)).status_code


def test_an_overlay_token_reads_and_follows_as_a_spectator_and_records_nothing(tmp_path):
    db = tmp_path / "cli.db"
    first_set(db)
    printed = morale(db, "tokens", BATTLE, "--issue", "overlay", "--label", "OBS")
    assert printed.exit_code == 0 and "(overlay) of hive-tarsis, labelled 'OBS': shown once" in printed.stderr
    overlay = printed.stdout.strip()
    assert board_status(db, overlay) == 200
    assert write_status(db, overlay) == 403
    with TestClient(create_app(db)) as client:
        (visible,) = client.get("/battles", headers=bearer(overlay)).json()
        caller = client.get(f"/battles/{BATTLE}/vocabulary", headers=bearer(overlay)).json()["caller"]
    assert visible["role"] == caller["role"] == "spectator"
    assert [row["label"] for row in listed(db) if row["role"] == "overlay"] == ["OBS"]


def test_an_overlay_token_outlives_replacing_every_token_and_revoking_the_spectators(tmp_path):
    db = tmp_path / "cli.db"
    old = first_set(db)
    overlay = morale(db, "tokens", BATTLE, "--issue", "overlay", "--label", "OBS").stdout.strip()
    (overlay_id,) = [row["id"] for row in listed(db) if row["role"] == "overlay"]
    replaced = morale(db, "tokens", BATTLE, "--replace-all")
    assert replaced.exit_code == 0 and statuses(db, old) == dict.fromkeys(old, 401)
    assert f"The overlay tokens of {BATTLE} still work" in replaced.stdout
    assert f"{overlay_id}  overlay  (OBS)" in replaced.stdout
    assert board_status(db, overlay) == 200
    as_json = json.loads(morale(db, "tokens", BATTLE, "--replace-all", "--json").stdout)
    assert [row["id"] for row in as_json["kept"]] == [overlay_id]
    assert overlay_id not in [row["id"] for row in as_json["logged_out"]]
    reissued = morale(db, "revoke", BATTLE, "spectator", "--reissue")
    assert reissued.exit_code == 0 and board_status(db, overlay) == 200
    assert morale(db, "revoke", BATTLE, "referee", "--reissue").exit_code == 0
    assert board_status(db, overlay) == 200
    (row,) = [row for row in listed(db) if row["role"] == "overlay"]
    assert (row["id"], row["label"], row["last_used"] != "") == (overlay_id, "OBS", True)  # kept as it was


def test_only_revoking_the_overlays_stops_an_overlay_token(tmp_path):
    db = tmp_path / "cli.db"
    first_set(db)
    overlay = morale(db, "tokens", BATTLE, "--issue", "overlay", "--label", "OBS").stdout.strip()
    revoked = morale(db, "revoke", BATTLE, "overlay")
    assert revoked.exit_code == 0 and "(overlay) of hive-tarsis no longer works" in revoked.stderr
    assert board_status(db, overlay) == 401
    again = morale(db, "revoke", BATTLE, "overlay")
    assert again.exit_code == 2 and "has no overlay token to revoke" in again.stderr
    assert len(listed(db)) == 4
