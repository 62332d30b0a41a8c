"""Snapshots make the battle at any point fast, and can never change what it is."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from morale.core.replay import Replay
from morale.core.state import digest
from morale.events.store import SqliteEventStore
from morale.events.types import RefereeRuled
from morale.projections import snapshots
from morale.projections.snapshots import SNAPSHOT_EVERY, battle_at, rebuild
from morale.projections.timeline import fold_at

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from generate import BattleGenerator


@pytest.fixture(scope="module")
def long_battle(tmp_path_factory):
    store = SqliteEventStore(tmp_path_factory.mktemp("snap") / "long.db")
    store.append("long", list(BattleGenerator(11).events(3 * SNAPSHOT_EVERY + 77)), expected_seq=0)
    return store


def full(store, seq):
    return fold_at("long", store.read("long"), seq).state()


def test_the_battle_at_any_point_is_what_a_full_replay_gives(long_battle):
    rebuild(long_battle, "long")
    last = long_battle.last_seq("long")
    for seq in [1, SNAPSHOT_EVERY, SNAPSHOT_EVERY + 1, last, *random.Random(5).sample(range(2, last), 25)]:
        assert digest(battle_at(long_battle, "long", seq)) == digest(full(long_battle, seq)), seq


def test_snapshots_are_taken_every_so_many_events_and_used(long_battle):
    assert rebuild(long_battle, "long") == 3
    found = long_battle.snapshot_before("long", 2 * SNAPSHOT_EVERY + 5, snapshots.engine_version())
    assert found is not None and found[0] == 2 * SNAPSHOT_EVERY


def test_snapshots_of_another_engine_version_are_never_used(long_battle, monkeypatch):
    rebuild(long_battle, "long")
    monkeypatch.setattr(snapshots, "engine_version", lambda: "rules-changed")
    assert long_battle.snapshot_before("long", 2 * SNAPSHOT_EVERY, "rules-changed") is None
    seq = 2 * SNAPSHOT_EVERY + 3
    assert digest(battle_at(long_battle, "long", seq)) == digest(full(long_battle, seq))
    # ...and the replay it fell back on left snapshots for the new version
    assert long_battle.snapshot_before("long", seq, "rules-changed") is not None


def test_a_damaged_snapshot_is_ignored_not_believed(long_battle):
    rebuild(long_battle, "long")
    engine = snapshots.engine_version()
    seq, blob = long_battle.snapshot_before("long", SNAPSHOT_EVERY, engine)
    genuine = digest(full(long_battle, SNAPSHOT_EVERY + 2))
    long_battle.save_snapshot("long", seq, engine, blob[:-40] + b"\0" * 40)
    assert digest(battle_at(long_battle, "long", SNAPSHOT_EVERY + 2)) == genuine
    _, other = long_battle.snapshot_before("long", 2 * SNAPSHOT_EVERY, engine)
    long_battle.save_snapshot("long", seq, engine, other)  # a valid snapshot, but of another point
    assert digest(battle_at(long_battle, "long", SNAPSHOT_EVERY + 2)) == genuine


def test_battles_restored_from_one_snapshot_share_departed_units_and_a_ruling_copies_first(long_battle):
    rebuild(long_battle, "long")
    seq = 2 * SNAPSHOT_EVERY + 3
    first, second = battle_at(long_battle, "long", seq), battle_at(long_battle, "long", seq)
    gone = next(u for u in first.units.values() if first.departed(u))
    assert second.units[gone.id] is gone  # materialised once by this process

    ruling = RefereeRuled(unit=gone.id, state="steady", reason="it was never wiped out")
    fold = Replay("long", battle=first, start_seq=seq)
    fold.check(ruling)
    fold.apply(seq + 1, ruling)

    assert first.units[gone.id].state == "steady" and gone.id in first.living
    assert second.units[gone.id] is gone and gone.state == "destroyed"
    assert digest(second) == digest(full(long_battle, seq))
    assert digest(battle_at(long_battle, "long", seq)) == digest(full(long_battle, seq))


def test_asking_for_an_event_that_does_not_exist_is_refused(long_battle):
    from morale.core.rules import Refusal

    with pytest.raises(Refusal):
        battle_at(long_battle, "nobody", 3)


def _forget_restored_units():
    snapshots._departed.clear()  # as a process that has restored nothing yet


def test_a_departed_unit_is_kept_once_not_in_every_snapshot(long_battle):
    rebuild(long_battle, "long")
    kept = long_battle.db.conn.execute("SELECT COUNT(*), COUNT(DISTINCT digest) FROM snapshot_units").fetchone()
    joined = len(full(long_battle, long_battle.last_seq("long")).units)
    assert 0 < kept[0] == kept[1] <= joined


def test_a_damaged_kept_unit_is_ignored_not_believed(long_battle):
    rebuild(long_battle, "long")
    seq = 3 * SNAPSHOT_EVERY + 1
    genuine = digest(full(long_battle, seq))
    # Each kept unit's bytes swapped for another's: every one still unpickles, none is what its row says.
    rows = long_battle.db.conn.execute("SELECT id, body FROM snapshot_units ORDER BY id").fetchall()
    for (kept_id, _), (_, other) in zip(rows, rows[1:] + rows[:1], strict=True):
        long_battle.db.conn.execute("UPDATE snapshot_units SET body = ? WHERE id = ?", (other, kept_id))
    _forget_restored_units()
    assert digest(battle_at(long_battle, "long", seq)) == genuine


def test_a_kept_unit_gone_from_the_store_sends_it_to_a_full_replay(long_battle):
    rebuild(long_battle, "long")
    seq = 2 * SNAPSHOT_EVERY + 7
    long_battle.db.conn.execute("DELETE FROM snapshot_units WHERE id = (SELECT MIN(id) FROM snapshot_units)")
    _forget_restored_units()
    assert digest(battle_at(long_battle, "long", seq)) == digest(full(long_battle, seq))


def test_units_remembered_from_another_store_of_the_same_battle_name_are_not_used(tmp_path):
    stores = []
    for seed in (11, 12):  # two fresh files: their kept ids both start at 1, for different units
        store = SqliteEventStore(tmp_path / f"{seed}.db")
        store.append("long", list(BattleGenerator(seed).events(3 * SNAPSHOT_EVERY + 77)), expected_seq=0)
        rebuild(store, "long")
        stores.append(store)
    seq = 3 * SNAPSHOT_EVERY + 5
    _forget_restored_units()
    for store in [*stores, *stores]:
        assert digest(battle_at(store, "long", seq)) == digest(fold_at("long", store.read("long"), seq).state())


def test_a_kept_units_id_is_never_given_again_after_a_rebuild(long_battle):
    rebuild(long_battle, "long")
    before = long_battle.db.conn.execute("SELECT MAX(id) FROM snapshot_units").fetchone()[0]
    rebuild(long_battle, "long")
    assert long_battle.db.conn.execute("SELECT MIN(id) FROM snapshot_units").fetchone()[0] > before
