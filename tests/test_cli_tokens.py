"""Tokens from the command line, for battles `morale serve` is to open: issued once, shown once,
and replaced (the old ones stop working) when issued again."""

from __future__ import annotations

import json

from litestar.testing import TestClient
from support.cli import morale
from support.served import BATTLE, ROSTER, bearer

from morale.app.http.server import create_app


def board_status(db, token: str) -> int:
    with TestClient(create_app(db)) as client:
        return client.get(f"/battles/{BATTLE}/board", headers=bearer(token)).status_code


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


def test_tokens_issued_again_replace_the_old_ones(tmp_path):
    db = tmp_path / "cli.db"
    old = json.loads(morale(db, "new", str(ROSTER), "--tokens", "--json").stdout)["tokens"]
    fresh = morale(db, "tokens", BATTLE)
    assert fresh.exit_code == 0 and "referee" in fresh.stdout and "spectator" in fresh.stdout
    assert board_status(db, old["referee"]) == 401


def test_tokens_for_an_unknown_battle_are_refused(tmp_path):
    db = tmp_path / "cli.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0  # a store, without that battle
    refused = morale(db, "tokens", "nowhere")
    assert refused.exit_code == 2 and "no battle 'nowhere'" in refused.stderr


def test_one_roles_token_alone_for_a_script_and_it_opens_the_battle(tmp_path):
    db = tmp_path / "cli.db"
    morale(db, "new", str(ROSTER))
    printed = morale(db, "tokens", BATTLE, "--role", "orks")
    assert printed.exit_code == 0 and len(printed.stdout.split()) == 1
    assert board_status(db, printed.stdout.strip()) == 200


def test_a_role_the_battle_does_not_have_is_refused_and_the_old_tokens_still_work(tmp_path):
    db = tmp_path / "cli.db"
    old = json.loads(morale(db, "new", str(ROSTER), "--tokens", "--json").stdout)["tokens"]
    refused = morale(db, "tokens", BATTLE, "--role", "eldar")
    assert refused.exit_code == 2 and "no role 'eldar'" in refused.stderr and "imperium, orks" in refused.stderr
    assert board_status(db, old["referee"]) == 200
