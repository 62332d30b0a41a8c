"""Export and import: a battle as NDJSON, one stored event per line. Export then import into a fresh
store gives the same hashes; a file with a broken chain or an event the rules refuse is refused,
naming the line and sequence number, and nothing is written."""

from __future__ import annotations

import json

import pytest
from support.examples import example_store

from morale.app.transfer import export_lines, import_battle
from morale.core.rules import Refusal
from morale.events.codec import GENESIS_HASH, MalformedEvent, body_bytes, chain_hash, encode
from morale.events.store import BattleExists, SqliteEventStore


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> list[bytes]:
    """The events of an export without the signatures after them: a file as morale wrote it before
    it signed heads, which every morale since must still import (tests/test_signed.py has the rest)."""
    store = example_store(tmp_path_factory.mktemp("export") / "source.db")
    return events_only(export_lines(store, "hive-tarsis"))


def events_only(lines) -> list[bytes]:
    return [line for line in lines if not line.startswith((b'{"signed_head"', b'{"public_key"'))]


@pytest.fixture
def fresh(tmp_path) -> SqliteEventStore:
    return SqliteEventStore(tmp_path / "fresh.db")


def rows(line: bytes) -> dict:
    return json.loads(line)


def rechain(lines: list[dict]) -> list[bytes]:
    """Seal edited lines again, as a forger who knows the hashing would."""
    prev, out = GENESIS_HASH, []
    for line in lines:
        body = body_bytes(line["battle"], line["seq"], line["schema_version"], line["recorded_at"], line["event"])
        line["prev_hash"], line["hash"] = prev, chain_hash(prev, body)
        prev = line["hash"]
        out.append(encode(line))
    return out


def test_export_then_import_round_trips_to_the_same_hashes(tmp_path, exported, fresh):
    source = SqliteEventStore(tmp_path / "again.db")
    import_battle(source, exported)
    assert events_only(export_lines(source, "hive-tarsis")) == exported
    done = import_battle(fresh, exported, "battle.ndjson")
    assert done.events == len(exported) == 104 and done.head == rows(exported[-1])["hash"]
    assert [r[3] for r in fresh.raw_rows("hive-tarsis")] == [rows(line)["hash"] for line in exported]


def test_each_line_is_a_stored_event_with_its_hash_link(exported):
    first, second = rows(exported[0]), rows(exported[1])
    assert set(first) == {"battle", "seq", "schema_version", "recorded_at", "event", "prev_hash", "hash"}
    assert first["prev_hash"] == GENESIS_HASH and second["prev_hash"] == first["hash"]
    assert first["event"]["type"] == "battle_started"


def refused(fresh: SqliteEventStore, lines: list[bytes], error=Refusal) -> str:
    with pytest.raises(error) as caught:
        import_battle(fresh, lines, "battle.ndjson")
    assert fresh.battles() == []
    return str(caught.value)


def test_an_edited_event_breaks_the_chain_at_its_line(exported, fresh):
    edited = rows(exported[40])
    edited["event"]["count"] = 1
    message = refused(fresh, [*exported[:40], encode(edited), *exported[41:]])
    assert message.startswith("hash: battle.ndjson line 41 (seq 41): hash does not match the event's bytes")


@pytest.mark.parametrize(("field", "forged"), [("recorded_at", "2020-01-01T00:00:00.000000Z"), ("schema_version", 2)])
def test_a_line_whose_time_or_schema_version_was_edited_is_refused_at_its_line(exported, fresh, field, forged):
    # Both are sealed: the hash covers every field of a line but the hash links themselves.
    edited = rows(exported[40])
    edited[field] = forged
    message = refused(fresh, [*exported[:40], encode(edited), *exported[41:]])
    assert message.startswith("hash: battle.ndjson line 41 (seq 41): hash does not match the event's bytes")


def test_a_missing_line_is_refused_naming_where_the_gap_is(exported, fresh):
    message = refused(fresh, [*exported[:10], *exported[11:]])
    assert "line 11 (seq 12)" in message and "sequence number 12 where 11 was expected" in message


@pytest.mark.parametrize("seq", [1, 30, 104])
def test_a_line_sealed_on_a_prev_hash_that_is_not_the_line_before_it_is_refused_at_its_seq(exported, fresh, seq):
    lines = [rows(line) for line in exported]
    moved = lines[seq - 1]
    # Its bytes untouched and its hash right for what it says it follows: only the link is wrong.
    moved["prev_hash"] = lines[59]["hash"]  # a real hash of this battle, but not of event seq - 1
    body = body_bytes(moved["battle"], moved["seq"], moved["schema_version"], moved["recorded_at"], moved["event"])
    moved["hash"] = chain_hash(moved["prev_hash"], body)
    message = refused(fresh, [encode(line) for line in lines])
    assert message.startswith(
        f"prev_hash: battle.ndjson line {seq} (seq {seq}): prev_hash does not link to event {seq - 1}'s hash"
    )


def test_two_valid_chains_spliced_together_are_refused_where_the_second_begins(exported, fresh):
    # The same battle exported again after it was written at another time: the same events, other hashes.
    again = [rows(line) for line in exported]
    for line in again:
        line["recorded_at"] = "2030-01-01T00:00:00.000000Z"
    again = rechain(again)
    assert rows(again[50])["hash"] != rows(exported[50])["hash"]
    message = refused(fresh, [*exported[:50], *again[50:]])
    assert message.startswith("prev_hash: battle.ndjson line 51 (seq 51): prev_hash does not link to event 50's hash")
    import_battle(fresh, again)  # the second chain alone is sound
    assert fresh.battles() == ["hive-tarsis"]


def test_an_event_the_rules_refuse_is_refused_with_its_rule_even_when_rehashed(exported, fresh):
    lines = [rows(line) for line in exported]
    # A forger replaces event 19 with a roll for a test that was never due, and seals the file again.
    lines[18]["event"] = {"type": "dice_rolled", "unit": "kraak", "test": "morale", "dice": [6, 6]}
    message = refused(fresh, rechain(lines))
    assert "battle.ndjson line 19 (seq 19)" in message and "engine.dice" in message


def test_a_rehashed_log_whose_phase_end_disagrees_with_the_rules_is_refused(exported, fresh):
    lines = [rows(line) for line in exported]
    casualty = next(
        i
        for i, line in enumerate(lines)
        if line["event"] == {"type": "casualties_suffered", "unit": "lootas", "count": 2, "cause": "shooting"}
    )
    lines[casualty]["event"]["count"] = 1  # 1 of 5 is under 25%: same tests, a different board
    message = refused(fresh, rechain(lines))
    assert message.startswith("state_digest: battle.ndjson line") and "replay gives" in message


def test_a_battle_already_in_the_store_is_not_overwritten(exported, fresh):
    import_battle(fresh, exported)
    before = list(fresh.raw_rows("hive-tarsis"))
    with pytest.raises(BattleExists, match="battle: battle 'hive-tarsis' already exists"):
        import_battle(fresh, exported)
    assert list(fresh.raw_rows("hive-tarsis")) == before


def test_a_malformed_line_is_refused_naming_it(exported, fresh):
    message = refused(fresh, [exported[0], b'{"battle": "hive-tarsis", "seq": 2', *exported[2:]], MalformedEvent)
    assert message.startswith("battle.ndjson line 2: malformed JSON")


def test_an_empty_file_is_refused(fresh):
    assert "no events" in refused(fresh, [b"", b"  "], MalformedEvent)


def test_lines_of_two_battles_are_refused(exported, fresh):
    other = rows(exported[1])
    other["battle"] = "elsewhere"
    assert "line 2 (seq 2): belongs to battle 'elsewhere'" in refused(fresh, [exported[0], encode(other)])
