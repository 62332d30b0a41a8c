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
