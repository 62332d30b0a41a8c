"""`morale copy`: battles move from a SQLite file to PostgreSQL and back with identical hashes, their
dice secrets, tokens' hashes and allowed origins, each checked as `morale import` checks a file."""

from __future__ import annotations

import json

import pytest
from support.cli import morale, morale_command
from support.examples import ROOT, example_store
from support.stores import raw_sql

from morale.app.access import grant_for, issue_tokens
from morale.events.locate import open_store

WFB8 = ROOT / "examples" / "wfb8"


@pytest.fixture
def source(tmp_path):
    """A SQLite store holding two battles: the 40K example with engine dice (so a secret) and its
    tokens, and the Warhammer Fantasy example."""
    path = tmp_path / "league.db"
    store = example_store(path, dice="either")
    tokens = issue_tokens(store, "hive-tarsis", ("imperium", "orks"))
    store.change_origins("hive-tarsis", add=["https://overlay.example"])  # its stream overlay's page
    example_store(path, example=WFB8).close()
    store.close()
    return path, tokens


def rows(location) -> dict[str, list[tuple]]:
    store = open_store(location, create=False)
    try:
        return {battle: [tuple(row) for row in store.raw_rows(battle)] for battle in store.battles()}
    finally:
        store.close()


def test_battles_go_to_postgresql_and_back_with_every_hash_their_dice_secret_and_tokens(source, pg_url, tmp_path):
    path, tokens = source
    there = morale_command("copy", "--from", str(path), "--to", pg_url)
    assert there.exit_code == 0, there.output
    assert "2 of 2 battles copied" in there.stdout
    back_path = str(tmp_path / "back.db")
    back = morale_command("copy", "--from", pg_url, "--to", back_path, "--json")
    assert back.exit_code == 0, back.output
    assert [(c["battle"], c["events"], c["copied"]) for c in json.loads(back.stdout)] == [
        ("grunburg-bridge", rows(path)["grunburg-bridge"][-1][0], True),
        ("hive-tarsis", 104, True),
    ]
    assert rows(pg_url) == rows(path) == rows(back_path)  # every row byte for byte: bodies, hashes, columns
    original, copied = open_store(path), open_store(pg_url)
    try:
        assert copied.dice_secret("hive-tarsis") == original.dice_secret("hive-tarsis") is not None
        assert copied.tokens("hive-tarsis") == original.tokens("hive-tarsis")
        assert copied.allowed_origins("hive-tarsis") == ["https://overlay.example"]
        assert copied.allowed_origins("grunburg-bridge") == []
        assert grant_for(copied, "hive-tarsis", tokens.spectator).role == "spectator"  # type: ignore[union-attr]
    finally:
        original.close()
        copied.close()
    for battle in ("hive-tarsis", "grunburg-bridge"):
        verified = morale(pg_url, "verify", battle)  # type: ignore[arg-type]
        assert verified.exit_code == 0 and "OK" in verified.stdout
    assert morale(pg_url, "reveal", "hive-tarsis").exit_code == 0  # type: ignore[arg-type]  # the secret still fits


def test_a_copy_run_again_skips_what_is_there_and_refuses_a_different_battle_of_the_same_name(source, pg_url, tmp_path):
    path, _ = source
    assert morale_command("copy", "--from", str(path), "--to", pg_url, "--battle", "hive-tarsis").exit_code == 0
    again = morale_command("copy", "--from", str(path), "--to", pg_url)
    assert again.exit_code == 0, again.output
    assert "(already there, the same log)" in again.stdout and "1 of 2 battles copied" in again.stdout
    other = tmp_path / "other.db"
    example_store(other).close()  # another hive-tarsis: the same events, recorded at other times
    refused = morale_command("copy", "--from", str(other), "--to", pg_url)
    assert refused.exit_code == 2
    assert refused.stderr == "refused: battle: battle 'hive-tarsis' already exists in this store\n"
    assert rows(pg_url)["hive-tarsis"] == rows(path)["hive-tarsis"]


def test_a_tampered_battle_is_refused_as_import_refuses_it_and_nothing_is_copied(source, pg_url):
    path, _ = source
    store = open_store(path)
    raw_sql(store, "UPDATE events SET body = replace(body, '\"count\":5', '\"count\":4') WHERE seq = 61")
    store.close()
    refused = morale_command("copy", "--from", str(path), "--to", pg_url)
    assert refused.exit_code == 2
    assert refused.stderr.startswith("refused: hash: battle 'hive-tarsis' line 61 (seq 61): ")
    assert len(refused.stderr.splitlines()) == 1
    assert rows(pg_url) == {}  # not even the sound battle: every battle is checked before any is written


def test_a_dice_secret_that_is_not_the_logs_own_is_refused(source, pg_url):
    path, _ = source
    store = open_store(path)
    raw_sql(store, "UPDATE dice_secrets SET secret = ? WHERE battle = 'hive-tarsis'", ("ab" * 32,))
    store.close()
    refused = morale_command("copy", "--from", str(path), "--to", pg_url)
    assert refused.exit_code == 2
    assert refused.stderr == (
        "refused: dice_secret: battle 'hive-tarsis': "
        "the store's dice secret does not hash to the commitment in its log\n"
    )


@pytest.mark.parametrize(
    ("to", "said"),
    [
        ("postgresql://morale:s3cret@127.0.0.1:1/league", "refused: --to: postgresql://morale:***@127.0.0.1:1/"),
        ("postgresql://127.0.0.1/league?bogus=1", "refused: --to: postgresql://127.0.0.1/league?bogus=1: not a "),
    ],
)
def test_a_target_that_cannot_be_reached_or_read_is_refused_in_one_line_without_its_password(source, to, said):
    path, _ = source
    refused = morale_command("copy", "--from", str(path), "--to", to)
    assert refused.exit_code == 2
    assert refused.stderr.startswith(said) and len(refused.stderr.splitlines()) == 1
    assert "s3cret" not in refused.output


def test_copying_a_store_onto_itself_or_from_nowhere_is_refused(source, tmp_path):
    path, _ = source
    same = morale_command("copy", "--from", str(path), "--to", str(path))
    assert same.exit_code == 2 and same.stderr == "refused: --to: the same store as --from\n"
    missing = morale_command("copy", "--from", str(tmp_path / "nope.db"), "--to", str(tmp_path / "x.db"))
    assert missing.exit_code == 2 and missing.stderr.startswith("refused: --from: ")
    assert not (tmp_path / "x.db").exists()
