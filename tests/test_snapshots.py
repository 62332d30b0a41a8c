"""Snapshots make the battle at any point fast, and can never change what it is."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from morale.app.snapshot_cache import battle_at, rebuild
from morale.core.fold import Fold
from morale.core.state import digest
from morale.events.store import SqliteEventStore
from morale.events.types import EventRetracted, RefereeRuled, UnitJoined
from morale.projections import frozen, snapshots
from morale.projections.snapshots import SNAPSHOT_EVERY
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


def test_the_snapshot_cache_keeps_one_at_every_snapshot_point(long_battle):
    rebuild(long_battle, "long")
    rows = long_battle.db.conn.execute("SELECT seq FROM snapshots WHERE battle = 'long' ORDER BY seq").fetchall()
    assert rows == [(SNAPSHOT_EVERY,), (2 * SNAPSHOT_EVERY,), (3 * SNAPSHOT_EVERY,)]


class ReadOnly:
    """A store that refuses every write: what the projections are handed in the tests below."""

    def __init__(self, store):
        self._store = store

    def __getattr__(self, name):
        if name in ("append", "append_sealed", "save_snapshot", "drop_snapshots", "save_snapshot_units"):
            raise AssertionError(f"a projection called {name}")
        return getattr(self._store, name)


def test_the_projection_reads_the_battle_at_a_point_and_writes_nothing(long_battle, tmp_path):
    rebuild(long_battle, "long")
    frozen.forget()
    for seq in (SNAPSHOT_EVERY - 1, 2 * SNAPSHOT_EVERY + 3, long_battle.last_seq("long")):
        assert digest(snapshots.battle_at(ReadOnly(long_battle), "long", seq)) == digest(full(long_battle, seq))
    # A battle with no snapshots yet: a full replay, and still none taken.
    fresh = SqliteEventStore(tmp_path / "fresh.db")
    fresh.append("long", [stored.event for stored in long_battle.read("long")], expected_seq=0)
    seq = 2 * SNAPSHOT_EVERY + 3
    assert digest(snapshots.battle_at(ReadOnly(fresh), "long", seq)) == digest(full(long_battle, seq))
    assert fresh.snapshot_before("long", seq, snapshots.engine_version()) is None


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
    fold = Fold("long", battle=first, start_seq=seq)
    fold.check(ruling)
    fold.advance(seq + 1, ruling)

    assert first.units[gone.id].state == "steady" and gone.id in first.living
    assert second.units[gone.id] is gone and gone.state == "destroyed"
    assert digest(second) == digest(full(long_battle, seq))
    assert digest(battle_at(long_battle, "long", seq)) == digest(full(long_battle, seq))


def test_asking_for_an_event_that_does_not_exist_is_refused(long_battle):
    from morale.core.rules import Refusal

    with pytest.raises(Refusal):
        battle_at(long_battle, "nobody", 3)


def _forget_restored_units():
    frozen.forget()


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


def test_a_snapshot_whose_base_is_damaged_names_its_units_one_by_one(long_battle):
    # The snapshot at SNAPSHOT_EVERY is the base the next ones record their changes against.
    rebuild(long_battle, "long")
    engine = snapshots.engine_version()
    base_seq, base = long_battle.snapshot_before("long", SNAPSHOT_EVERY, engine)
    long_battle.save_snapshot("long", base_seq, engine, base[:-40] + b"\0" * 40)
    frozen.forget()
    for seq in (2 * SNAPSHOT_EVERY + 9, 3 * SNAPSHOT_EVERY + 2):
        assert digest(battle_at(long_battle, "long", seq)) == digest(full(long_battle, seq))


def test_a_battle_played_on_since_its_snapshots_gets_new_ones_on_the_way(tmp_path):
    store = SqliteEventStore(tmp_path / "growing.db")
    events = list(BattleGenerator(11).events(3 * SNAPSHOT_EVERY + 77))
    store.append("long", events[: SNAPSHOT_EVERY + 10], expected_seq=0)
    battle_at(store, "long", SNAPSHOT_EVERY + 10)
    store.append("long", events[SNAPSHOT_EVERY + 10 :], expected_seq=SNAPSHOT_EVERY + 10)
    seq = 3 * SNAPSHOT_EVERY + 50
    assert digest(battle_at(store, "long", seq)) == digest(fold_at("long", store.read("long"), seq).state())
    assert store.snapshot_before("long", seq, snapshots.engine_version())[0] == 3 * SNAPSHOT_EVERY


def test_a_struck_unit_leaves_the_roster_and_the_snapshots_after_it_start_over(tmp_path):
    # A reserve joins before the first base snapshot, and its join is struck after it: every later
    # snapshot must hold the roster without that unit, whatever the base held.
    stray = UnitJoined(
        unit="orks-stray", side="orks", name="Stray boyz", unit_type="infantry", models=5, ld=7, initiative=2
    )
    fold, log = Fold("long"), []
    for event in BattleGenerator(11).events(3 * SNAPSHOT_EVERY + 77):
        if len(log) == SNAPSHOT_EVERY - 10:
            joined_at = len(log) + 1
            fold.check(stray)
            fold.advance(joined_at, stray)
            log.append(stray)
        if len(log) == SNAPSHOT_EVERY + 10:
            struck = EventRetracted(seq=joined_at, reason="never deployed")
            fold.check(struck)
            fold.advance(len(log) + 1, struck)
            log.append(struck)
        fold.check(event)
        fold.advance(len(log) + 1, event)
        log.append(event)
    store = SqliteEventStore(tmp_path / "struck.db")
    store.append("long", log, expected_seq=0)
    rebuild(store, "long")
    frozen.forget()
    assert "orks-stray" in battle_at(store, "long", SNAPSHOT_EVERY).units
    for seq in (SNAPSHOT_EVERY + 11, 2 * SNAPSHOT_EVERY + 3, 3 * SNAPSHOT_EVERY + 1, len(log)):
        battle = battle_at(store, "long", seq)
        assert digest(battle) == digest(fold_at("long", store.read("long"), seq).state()), seq
        assert "orks-stray" not in battle.units


def test_many_threads_reading_a_battle_with_no_snapshots_yet_all_get_it(tmp_path):
    """A server answering a page's board and due list at once, each from its own connection: the
    folds that write the first snapshots take turns instead of failing with "database is locked"."""
    from concurrent.futures import ThreadPoolExecutor

    path = tmp_path / "fresh.db"
    SqliteEventStore(path).append("busy", list(BattleGenerator(3).events(1_500)), expected_seq=0)

    def read(_: int) -> str:
        store = SqliteEventStore(path)
        try:
            return digest(battle_at(store, "busy", 1_500))
        finally:
            store.close()

    with ThreadPoolExecutor(8) as pool:
        digests = set(pool.map(read, range(16)))
    assert len(digests) == 1
