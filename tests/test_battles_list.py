"""`GET /battles`: the battles a token opens, each with the token's role there, and no other."""

from __future__ import annotations

import json

from litestar.testing import TestClient
from support.cli import morale
from support.served import BATTLE, ROSTER, bearer

from morale.app.http.server import create_app


def new_battle(db, battle: str) -> dict:
    created = morale(db, "new", str(ROSTER), "--battle", battle, "--tokens", "--json")
    assert created.exit_code == 0
    return json.loads(created.stdout)["tokens"]


def test_a_token_sees_its_own_battle_with_its_role_and_not_the_others(tmp_path):
    db = tmp_path / "served.db"
    first, second = new_battle(db, BATTLE), new_battle(db, "rematch")
    with TestClient(create_app(db)) as client:
        listed = client.get("/battles", headers=bearer(first["players"]["orks"]))
        assert listed.status_code == 200
        assert listed.json() == [{"battle": BATTLE, "role": "player", "side": "orks", "events": 9}]
        spectator = client.get("/battles", params={"token": second["spectator"]}).json()
        assert spectator == [{"battle": "rematch", "role": "spectator", "side": "", "events": 9}]


def test_no_token_or_an_unknown_or_revoked_token_is_a_401(tmp_path):
    db = tmp_path / "served.db"
    tokens = new_battle(db, BATTLE)
    assert morale(db, "revoke", BATTLE, "referee").exit_code == 0
    with TestClient(create_app(db)) as client:
        assert client.get("/battles").status_code == 401
        assert client.get("/battles", headers=bearer("not-a-token")).status_code == 401
        assert client.get("/battles", headers=bearer(tokens["referee"])).status_code == 401
        assert client.get("/battles", headers=bearer(tokens["spectator"])).status_code == 200
