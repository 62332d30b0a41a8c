"""Versioned events: each stored event keeps the schema version of its type, old versions are upcast
on read, and a log written by an older engine replays under this one."""

from __future__ import annotations

import json

import msgspec
import pytest
from support.examples import V1_FIXTURE, example_store

from morale.app.service import load
from morale.app.transfer import export_lines, import_battle
from morale.core.state import digest
from morale.events.codec import MalformedEvent, decode_stored, upcast
from morale.events.schema import event_schema
from morale.events.store import SqliteEventStore
from morale.events.types import EVENT_TYPES, PhaseEnded
from morale.projections.verify import verify

# What the version-1 engine derived from the fixture (computed before events were versioned).
V1_FINAL_DIGEST = "e0f54c8ed2537d8311e5d1cdd658e0e083329efcbfda87b7becacb69ae7858f0"
V1_HEAD = "62b306247b20fee90d75519c06e6c53d9d5357edac17b7f89e35d8c740fe1923"


@pytest.fixture
def v1_store(tmp_path):
    store = SqliteEventStore(tmp_path / "v1.db")
    import_battle(store, V1_FIXTURE.read_bytes().splitlines(), "fixture")
    return store


def test_a_version_1_log_replays_under_the_current_code_to_the_same_board(v1_store):
    stored = list(v1_store.read("hive-tarsis"))
    assert {s.schema_version for s in stored} == {1}
    phase_ends = [s.event for s in stored if isinstance(s.event, PhaseEnded)]
    assert len(phase_ends) == 24 and all(e.state_digest == "" for e in phase_ends)
    battle = load(v1_store, "hive-tarsis").state()
    assert digest(battle) == V1_FINAL_DIGEST
    assert battle.units["kraak"].state == "steady" and battle.units["boyz"].state == "dispersed"


def test_a_version_1_log_keeps_its_bytes_and_hashes(v1_store):
    # The events as they were written; the importing store's signed heads follow them, lines of their own.
    events = [line for line in export_lines(v1_store, "hive-tarsis") if not line.startswith(b'{"signed_head"')]
    assert b"".join(line for line in events if not line.startswith(b'{"public_key"')) == V1_FIXTURE.read_bytes()
    checked = verify("hive-tarsis", v1_store.raw_rows("hive-tarsis"))
    assert checked.ok and checked.head == V1_HEAD
    assert (checked.digests_checked, checked.digests_unrecorded) == (0, 24)


def test_new_phase_ends_are_written_as_version_2_with_their_digest(tmp_path):
    store = example_store(tmp_path / "new.db")
    stored = list(store.read("hive-tarsis"))
    versions = {s.event.__struct_config__.tag: s.schema_version for s in stored}
    assert versions["phase_ended"] == 2 and versions["casualties_suffered"] == 1
    assert all(len(s.event.state_digest) == 64 for s in stored if isinstance(s.event, PhaseEnded))


def test_the_upcaster_chain_brings_a_version_1_phase_end_to_version_2():
    old = {"type": "phase_ended", "turn": 1, "side": "orks", "phase": "shooting"}
    assert PhaseEnded.upcast_v1_v2(old) == {**old, "state_digest": ""}
    assert upcast(old, 1) == PhaseEnded(turn=1, side="orks", phase="shooting")
    body = json.dumps({"battle": "b", "seq": 3, "schema_version": 1, "recorded_at": "t", "event": old})
    assert decode_stored(body, 1, "phase_ended") == PhaseEnded(turn=1, side="orks", phase="shooting")


def test_an_event_from_a_newer_engine_is_refused_naming_its_version():
    with pytest.raises(MalformedEvent, match="schema_version: phase_ended version 3 was written by a newer engine"):
        upcast({"type": "phase_ended", "turn": 1, "side": "orks", "phase": "shooting"}, 3)


def test_every_event_type_knows_its_version_and_each_step_of_its_upcaster_chain():
    for cls in EVENT_TYPES.values():
        assert cls.version >= 1
        for version in range(1, cls.version):
            assert callable(getattr(cls, f"upcast_v{version}_v{version + 1}"))


def test_the_schema_carries_each_event_types_version():
    schema = event_schema()
    assert schema["$defs"]["PhaseEnded"]["x-schema-version"] == 2
    assert schema["$defs"]["DiceRolled"]["x-schema-version"] == 1
    assert {"StoredEvent", "DiceRevealed"} <= set(schema["$defs"])
    assert msgspec.json.decode(msgspec.json.encode(schema)) == schema
