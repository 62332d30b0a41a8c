"""One token revoked, the others untouched: `morale revoke BATTLE ID|ROLE` (and `--reissue` for a
fresh one in its place), checked against the server the tokens are for."""

from __future__ import annotations

import json

from litestar.testing import TestClient
from support.cli import morale
from support.served import BATTLE, ROSTER, bearer

from morale.app.http.server import create_app


def statuses(db, tokens: dict[str, str]) -> dict[str, int]:
    """The board's status code for each role's token."""
    with TestClient(create_app(db)) as client:
        return {
            role: client.get(f"/battles/{BATTLE}/board", headers=bearer(token)).status_code
            for role, token in tokens.items()
        }


def issued(db) -> dict[str, str]:
    created = json.loads(morale(db, "new", str(ROSTER), "--tokens", "--json").stdout)["tokens"]
    return {"referee": created["referee"], "spectator": created["spectator"], **created["players"]}


def test_revoking_one_players_token_leaves_every_other_token_working(tmp_path):
    db = tmp_path / "cli.db"
    tokens = issued(db)
    revoked = morale(db, "revoke", BATTLE, "orks")
    assert revoked.exit_code == 0 and "(player: orks) of hive-tarsis no longer works" in revoked.stderr
    assert "The other tokens of hive-tarsis still work" in revoked.stdout
    assert statuses(db, tokens) == {"referee": 200, "spectator": 200, "imperium": 200, "orks": 401}


def test_revoking_the_spectators_token_with_reissue_prints_a_fresh_one_that_works(tmp_path):
    db = tmp_path / "cli.db"
    tokens = issued(db)
    reissued = morale(db, "revoke", BATTLE, "spectator", "--reissue")
    assert reissued.exit_code == 0
    fresh = reissued.stdout.strip()
    assert len(fresh.split()) == 1 and fresh != tokens["spectator"]
    assert statuses(db, {**tokens, "fresh": fresh}) == {
        "referee": 200,
        "spectator": 401,
        "imperium": 200,
        "orks": 200,
        "fresh": 200,
    }


def test_a_role_revoked_twice_or_a_role_the_battle_lacks_is_refused_and_nothing_changes(tmp_path):
    db = tmp_path / "cli.db"
    tokens = issued(db)
    assert morale(db, "revoke", BATTLE, "referee").exit_code == 0
    again = morale(db, "revoke", BATTLE, "referee")
    assert again.exit_code == 2 and again.stderr.startswith("refused: ") and "no referee token" in again.stderr
    unknown = morale(db, "revoke", BATTLE, "eldar", "--json")
    assert unknown.exit_code == 2 and json.loads(unknown.stderr)["error"]["field"] == "role"
    assert statuses(db, tokens) == {"referee": 401, "spectator": 200, "imperium": 200, "orks": 200}


def test_revoking_in_one_battle_leaves_another_battles_tokens_alone(tmp_path):
    db = tmp_path / "cli.db"
    tokens = issued(db)
    other = morale(db, "new", str(ROSTER), "--battle", "rematch", "--tokens", "--json")
    rematch = json.loads(other.stdout)["tokens"]
    assert morale(db, "revoke", "rematch", "orks").exit_code == 0
    assert statuses(db, tokens)["orks"] == 200
    with TestClient(create_app(db)) as client:
        assert client.get("/battles/rematch/board", headers=bearer(rematch["players"]["orks"])).status_code == 401


def test_revoking_one_token_by_its_id_leaves_the_others_of_its_role_working(tmp_path):
    db = tmp_path / "cli.db"
    tokens = issued(db)
    second = morale(db, "tokens", BATTLE, "--issue", "orks", "--label", "Bob's tablet").stdout.strip()
    rows = json.loads(morale(db, "tokens", BATTLE, "--json").stdout)
    anna = next(row["id"] for row in rows if row["side"] == "orks" and row["label"] == "issued with the battle")
    revoked = morale(db, "revoke", BATTLE, anna)
    assert revoked.exit_code == 0 and f"Token {anna} (player: orks)" in revoked.stderr
    assert statuses(db, {**tokens, "second": second}) == {
        "referee": 200,
        "spectator": 200,
        "imperium": 200,
        "orks": 401,
        "second": 200,
    }


def test_revoking_a_whole_role_revokes_each_of_its_tokens(tmp_path):
    db = tmp_path / "cli.db"
    tokens = issued(db)
    second = morale(db, "tokens", BATTLE, "--issue", "spectator", "--label", "stream").stdout.strip()
    revoked = json.loads(morale(db, "revoke", BATTLE, "spectator", "--json").stdout)
    assert sorted(row["label"] for row in revoked["revoked"]) == ["issued with the battle", "stream"]
    assert statuses(db, {**tokens, "second": second})["second"] == 401
    assert statuses(db, tokens)["referee"] == 200


def test_an_id_no_token_has_is_refused_naming_where_to_find_the_ids(tmp_path):
    db = tmp_path / "cli.db"
    tokens = issued(db)
    refused = morale(db, "revoke", BATTLE, "0000beef", "--json")
    assert refused.exit_code == 2
    error = json.loads(refused.stderr)["error"]
    assert error["field"] == "token" and "morale tokens hive-tarsis" in error["message"]
    assert statuses(db, tokens) == dict.fromkeys(tokens, 200)
