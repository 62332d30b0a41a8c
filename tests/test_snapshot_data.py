"""Snapshots are data read back from the store, never code: what a writer of the snapshot tables
puts there can at worst be ignored, and the battle is then folded from the log."""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from pathlib import Path

import msgspec
import pytest
from support.examples import ROOT, example_store

from morale.app.snapshot_cache import battle_at, rebuild
from morale.core.fold import Fold
from morale.core.state import Battle, digest
from morale.events.store import SqliteEventStore
from morale.projections import frozen, snapshot_data, snapshots
from morale.projections.frozen import Freezer
from morale.projections.snapshots import SNAPSHOT_EVERY
from morale.projections.timeline import fold_at

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from generate import BattleGenerator


class RunsCode:
    """A pickle that makes a directory as it is read: what a row crafted by a stranger could do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return os.mkdir, (str(self.marker),)


def sealed(body: bytes) -> bytes:
    """A snapshot blob with a checksum that matches: the checksum is no key, anyone can compute it."""
    return hashlib.sha256(body).digest() + body


@pytest.fixture(scope="module")
def long_battle(tmp_path_factory):
    store = SqliteEventStore(tmp_path_factory.mktemp("data") / "long.db")
    store.append("long", list(BattleGenerator(11).events(2 * SNAPSHOT_EVERY + 30)), expected_seq=0)
    return store


def full(store, battle: str, seq: int) -> Battle:
    return fold_at(battle, store.read(battle), seq).state()


def test_a_snapshot_that_is_a_pickle_is_never_unpickled_and_the_battle_is_still_right(long_battle, tmp_path):
    rebuild(long_battle, "long")
    marker = tmp_path / "code-ran"
    seq = SNAPSHOT_EVERY + 7
    genuine = digest(full(long_battle, "long", seq))
    long_battle.save_snapshot(
        "long", SNAPSHOT_EVERY, snapshots.engine_version(), sealed(pickle.dumps(RunsCode(marker)))
    )
    frozen.forget()
    assert digest(battle_at(long_battle, "long", seq)) == genuine
    assert not marker.exists()


def test_a_kept_unit_that_is_a_pickle_is_never_unpickled_and_the_battle_is_still_right(long_battle, tmp_path):
    rebuild(long_battle, "long")
    # Every kept unit's row made a pickle, with the digest its row must carry.
    for (kept_id,) in long_battle.db.conn.execute("SELECT id FROM snapshot_units").fetchall():
        body = pickle.dumps(RunsCode(tmp_path / f"code-ran-{kept_id}"))
        long_battle.db.conn.execute(
            "UPDATE snapshot_units SET body = ?, digest = ? WHERE id = ?",
            (body, hashlib.sha256(body).digest()[:16], kept_id),
        )
    frozen.forget()
    seq = 2 * SNAPSHOT_EVERY + 3
    assert digest(battle_at(long_battle, "long", seq)) == digest(full(long_battle, "long", seq))
    assert list(tmp_path.iterdir()) == []


def test_a_snapshot_altered_into_something_it_cannot_be_is_ignored(long_battle):
    rebuild(long_battle, "long")
    engine = snapshots.engine_version()
    seq = SNAPSHOT_EVERY + 3
    genuine = digest(full(long_battle, "long", seq))
    _, blob = long_battle.snapshot_before("long", SNAPSHOT_EVERY, engine)
    parts = msgspec.msgpack.decode(blob[32:])  # the snapshot as plain data: [core, current, ids, digest, since]
    altered = [
        [[*parts[0][:10], "many", *parts[0][11:]], *parts[1:]],  # its seq a word
        [[parts[0][0], ["no-such-ruleset", "1"], *parts[0][2:]], *parts[1:]],  # a ruleset there is none of
        [*parts[:-1], {"base_seq": "x"}],  # what changed since its base, of the wrong shape
        parts[:3],  # a part missing
    ]
    for each in altered:
        long_battle.save_snapshot("long", SNAPSHOT_EVERY, engine, sealed(msgspec.msgpack.encode(each)))
        frozen.forget()
        assert digest(battle_at(long_battle, "long", seq)) == genuine
    long_battle.save_snapshot("long", SNAPSHOT_EVERY, engine, blob[:40] + bytes([blob[40] ^ 1]) + blob[41:])
    frozen.forget()
    assert digest(battle_at(long_battle, "long", seq)) == genuine  # a byte flipped: its checksum refuses it


class Kept:
    """A keeper that keeps in memory: every unit a snapshot names, by id."""

    def __init__(self) -> None:
        self.units: dict[int, tuple[bytes, bytes]] = {}

    def keep_units(self, battle, engine, units):
        start = len(self.units) + 1
        self.units.update(enumerate(units, start))
        return list(range(start, start + len(units)))

    def keep_snapshot(self, battle, seq, engine, blob):
        raise AssertionError("frozen by hand in this test")


class KeptStore:
    """The store's snapshot units, as a restore reads them, from a `Kept`."""

    def __init__(self, kept: Kept) -> None:
        self.kept = kept

    def snapshot_units(self, battle, ids):
        return [(kept_id, *self.kept.units[kept_id]) for kept_id in ids if kept_id in self.kept.units]

    def snapshot_before(self, battle, seq, engine):
        return None


def what_a_rule_reads(battle: Battle) -> object:
    """Everything of a battle the rules read, as Python compares it (a tuple is not a list here)."""
    units = [
        (u.id, u.side, u.state, u.models, u.special_rules, u.profile, u.phase_marks, u.phase_losses, u.restrictions)
        for u in battle.units.values()
    ]
    notes = [(u.pending, u.notes, {k: type(v) for k, v in u.notes.items()}) for u in battle.units.values()]
    clock = (battle.seq, battle.turn, battle.side_index, battle.phase_index, battle.phase_open)
    return (
        units,
        notes,
        clock,
        battle.due,
        battle.tables,
        battle.memory,
        battle.chosen_first,
        battle.house_rules,
        [u.id for u in battle.living.values()],
        [u.id for u in battle.left_play],
        battle.ruleset,
    )


@pytest.mark.parametrize("ruleset", ["wh40k6", "wh40k3", "wfb8", "gdb"])
def test_every_rulesets_battle_frozen_at_any_event_is_restored_as_it_was_and_plays_on_alike(tmp_path, ruleset):
    store = example_store(tmp_path / "log.db", example=ROOT / "examples" / ruleset)
    (battle_id,) = store.battles()
    events = list(store.events(battle_id, after_seq=0, up_to=store.last_seq(battle_id)))
    end = digest(full(store, battle_id, len(events)))
    fold, kept = Fold(battle_id), Kept()
    freezer = Freezer(kept, battle_id, snapshots.engine_version())
    for at, event in events:
        fold.advance(at, event)
        blob = freezer.freeze(fold.state())
        frozen.forget()
        restored = frozen.restore(KeptStore(kept), battle_id, snapshots.engine_version(), blob)
        assert restored is not None, at
        assert what_a_rule_reads(restored) == what_a_rule_reads(fold.state()), at
        if at % 10 == 0:  # ...and a fold from it reaches the end the log does
            onward = Fold(battle_id, battle=restored, start_seq=at)
            for later, next_event in events[at:]:
                onward.advance(later, next_event)
            assert digest(onward.state()) == end, at


def test_a_note_with_no_declared_type_cannot_be_frozen(tmp_path):
    store = example_store(tmp_path / "log.db", example=ROOT / "examples" / "wfb8")
    (battle_id,) = store.battles()
    battle = full(store, battle_id, store.last_seq(battle_id))
    next(iter(battle.units.values())).notes["undeclared"] = (1, 2)
    with pytest.raises(TypeError, match="note 'undeclared' has no type in note_types"):
        snapshot_data.encode_unit(battle.ruleset, next(iter(battle.units.values())))


def test_a_pickle_written_into_either_stores_snapshot_table_runs_nothing(store_location, tmp_path):
    """On PostgreSQL the snapshot table is the one whoever may write to the database can reach: the
    same crafted row, in each kind of store, is ignored and the battle still right."""
    store = example_store(store_location, example=ROOT / "examples" / "wh40k6")
    try:
        (battle_id,) = store.battles()
        marker = tmp_path / "code-ran"
        store.save_snapshot(battle_id, 50, snapshots.engine_version(), sealed(pickle.dumps(RunsCode(marker))))
        frozen.forget()
        assert digest(battle_at(store, battle_id, 60)) == digest(full(store, battle_id, 60))
        assert not marker.exists()
    finally:
        store.close()


def test_a_due_tests_reasons_are_words_again_after_a_snapshot_and_are_said_in_russian():
    """A Break test due when the snapshot was taken still gives its modifier's reason in the
    reader's language once the battle is read back from it (not the English it was kept beside)."""
    from test_wfb8_combat import boyz_charge, lost_by

    from morale.app import language

    table = boyz_charge("spearmen")
    table.record(lost_by(2))
    battle = table.battle
    blob = snapshot_data.encode(battle, list(enumerate(battle.units.values())), [], b"", None, [])

    _, restored = snapshot_data.decode(blob)

    [kept] = restored.due[0].modifiers
    assert kept == battle.due[0].modifiers[0] and kept.reason == "combat lost by 2"
    with language.speaking("ru"):
        assert language.say(kept.reason) == language.say(battle.due[0].modifiers[0].reason) != "combat lost by 2"
