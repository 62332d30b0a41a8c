"""The command line reads a battle as time travel does: its latest snapshot, then the events since.
Whatever the snapshots hold (none, stale, damaged, behind the head), every read and every decision
is the one a full replay of the log gives."""

from __future__ import annotations

import json
import random
import sqlite3
import sys
from pathlib import Path
from unittest.mock import patch

import msgspec
import pytest
import test_gdb_properties as gdb_props
import test_wfb8_properties as wfb8_props
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.cli import morale
from support.examples import example_store
from support.strategies import WH40K3_FACTS, a_3rd_edition_battle, a_battle, proposals
from support.table import clock_event
from support.table import unit as joining

from morale.app import snapshot_cache
from morale.app.service import head_of, record_on
from morale.app.snapshot_cache import head_fold, rebuild
from morale.core.fold import replay_log
from morale.core.rules import Refusal
from morale.core.state import digest
from morale.core.words import english
from morale.events.locate import open_store
from morale.events.store import ConflictError, EventStore, SqliteEventStore
from morale.events.types import CasualtiesSuffered, EventRetracted
from morale.projections import frozen, snapshots
from morale.projections.board import board
from morale.projections.due import due_tests
from morale.projections.explain import explain, explain_stored

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from generate import BattleGenerator

ROOT = Path(__file__).resolve().parent.parent
BATTLE = "test-battle"  # the property tests' Table names its battle so

# Any battle of each ruleset, and the events its players might type (each property test's own).
RULESETS = {
    "wh40k6": (a_battle, proposals),
    "wh40k3": (a_3rd_edition_battle, lambda data, table: proposals(data, table, WH40K3_FACTS)),
    "wfb8": (wfb8_props.a_battle, wfb8_props.proposals),
    "gdb": (gdb_props.a_battle, gdb_props.proposal),
}


def full_fold(store: EventStore, battle: str, up_to: int | None = None):
    return replay_log(battle, store.events(battle, up_to=up_to))


def full_reads(store: EventStore, battle: str) -> dict:
    """What the full replay gives: its head (seq, struck events), digest, board, due list, and every
    unit's explanation at the head and at a point before it."""
    full = full_fold(store, battle)
    state, events = full.state(), list(store.read(battle))
    middle = random.Random(full.seq).randint(1, full.seq)
    explained = {(u, at): answer(explain, battle, events, u, at) for u in state.units for at in (None, middle)}
    return {
        "head": (full.seq, full.struck),
        "digest": digest(state),
        "board": board(state),
        "due": due_tests(state),
        "explained": explained,
    }


def assert_same_reads(store: EventStore, battle: str, full: dict | None = None) -> None:
    """The head read from the snapshots is the full replay's (`full`, worked out here if not given)."""
    full = full or full_reads(store, battle)
    head = head_fold(store, battle)
    assert (head.seq, head.struck) == full["head"]
    assert digest(head.state()) == full["digest"]
    assert board(head.state()) == full["board"]
    assert due_tests(head.state()) == full["due"]
    for (unit, at), expected in full["explained"].items():
        assert answer(explain_stored, store, battle, unit, at) == expected, (unit, at)


def answer(read, *args):
    """What a read gives, or the refusal it gives (a unit not joined yet at the point asked)."""
    try:
        return read(*args)
    except Refusal as refusal:
        return ("refused", str(refusal))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), ruleset=st.sampled_from(sorted(RULESETS)))
def test_every_read_from_snapshots_is_what_a_full_replay_gives_for_any_battle_of_any_ruleset(data, ruleset):
    start, proposal = RULESETS[ruleset]
    table = start()
    for _ in range(data.draw(st.integers(10, 90), label="events")):
        if table.fold.seq > 2 and data.draw(st.integers(0, 14)) == 0:  # now and then, a strike
            event = EventRetracted(seq=data.draw(st.integers(2, table.fold.seq)), reason="typed in error")
        else:
            event = proposal(data, table)
        table.try_record(event)
    store = SqliteEventStore(":memory:")
    events = table.events
    # Played on in stretches, a read after each (each keeps the last snapshot point it passes), the
    # snapshots sometimes all taken again: a snapshot every 5 events, so a log this short has several.
    cuts = sorted(data.draw(st.lists(st.integers(1, len(events)), max_size=4), label="reads at"))
    with patch.object(snapshots, "SNAPSHOT_EVERY", 5):
        written = 0
        for cut in [*cuts, len(events)]:
            if cut > written:
                store.append(BATTLE, events[written:cut], expected_seq=written)
                written = cut
            if data.draw(st.booleans(), label="rebuild"):
                rebuild(store, BATTLE)
            frozen.forget() if data.draw(st.booleans(), label="fresh process") else None
            assert_same_reads(store, BATTLE)


@pytest.fixture(scope="module")
def long_battle(tmp_path_factory):
    """A long generated battle (units join as others are lost), with a snapshot every 100 events."""
    store = SqliteEventStore(tmp_path_factory.mktemp("cli-snap") / "long.db")
    store.append("long", list(BattleGenerator(11).events(6 * snapshots.SNAPSHOT_EVERY + 77)), expected_seq=0)
    rebuild(store, "long")
    return store


def test_a_units_explanation_begins_at_the_snapshot_before_it_joined_and_is_the_full_one(long_battle):
    last = long_battle.last_seq("long")
    units = list(full_fold(long_battle, "long").state().units)
    late = units[-1]  # one of the last to join, after the first snapshots
    read: list[int] = []
    events = long_battle.read

    def counted(battle, after_seq=0):
        read.append(after_seq)
        return events(battle, after_seq)

    with patch.object(long_battle, "read", counted):
        explained = explain_stored(long_battle, "long", late)
    assert read == [read[0]] and read[0] >= snapshots.SNAPSHOT_EVERY  # one read, from a snapshot
    assert explained == explain("long", long_battle.read("long"), late)
    for unit in random.Random(3).sample(units, 12):
        at = random.Random(unit).randint(1, last)
        full = answer(explain, "long", long_battle.read("long"), unit, at)
        assert answer(explain_stored, long_battle, "long", unit, at) == full, (unit, at)


def test_an_unknown_unit_or_point_is_refused_as_the_full_explanation_refuses_it(long_battle):
    for unit, at in (("nobody", None), ("nobody", 50), (next(iter(full_fold(long_battle, "long").state().units)), 0)):
        with pytest.raises(Exception) as full:
            explain("long", long_battle.read("long"), unit, at)
        with pytest.raises(type(full.value), match=str(full.value)):
            explain_stored(long_battle, "long", unit, at)


def _snapshot_rows(store: EventStore, battle: str) -> list[int]:
    return [seq for seq in range(1, store.last_seq(battle) + 1) if _has_snapshot(store, battle, seq)]


def _has_snapshot(store: EventStore, battle: str, seq: int) -> bool:
    found = store.snapshot_before(battle, seq, snapshots.engine_version())
    return found is not None and found[0] == seq


def test_the_command_line_keeps_the_last_snapshot_points_it_folds_past_in_either_store(store_location):
    store = open_store(store_location)
    store.append("long", list(BattleGenerator(11).events(3 * snapshots.SNAPSHOT_EVERY + 77)), expected_seq=0)
    with patch.object(snapshot_cache, "KEEP_LAST", 2):
        shown = morale(store_location, "board", "long", "--json")
    assert shown.exit_code == 0, shown.output
    # The last points, not one at every point of a long log it never had.
    assert _snapshot_rows(store, "long") == [2 * snapshots.SNAPSHOT_EVERY, 3 * snapshots.SNAPSHOT_EVERY]
    assert json.loads(shown.output) == _builtins(board(full_fold(store, "long").state()))
    # The next reads start from it: the events after it are all they fold.
    folded: list[int] = []
    real = snapshots._fold

    def spy(store_, fold, seq, keep, keep_from):
        folded.append(fold.seq)
        return real(store_, fold, seq, keep, keep_from)

    with patch.object(snapshots, "_fold", spy):
        assert morale(store_location, "due", "long").exit_code == 0
        # Played on past the next point, a read keeps that one too.
        events = list(BattleGenerator(11).events(4 * snapshots.SNAPSHOT_EVERY + 10))[store.last_seq("long") :]
        store.append("long", events, expected_seq=store.last_seq("long"))
        assert morale(store_location, "board", "long").exit_code == 0
    assert folded == [3 * snapshots.SNAPSHOT_EVERY, 3 * snapshots.SNAPSHOT_EVERY]
    assert _snapshot_rows(store, "long") == [n * snapshots.SNAPSHOT_EVERY for n in (2, 3, 4)]
    store.close()


def _builtins(value):
    return json.loads(msgspec.json.encode(value, enc_hook=english))


def test_a_store_that_will_not_keep_a_snapshot_still_answers(tmp_path):
    path = tmp_path / "log.db"
    example_store(path, example=ROOT / "examples" / "wh40k6").close()
    expected = morale(path, "board", battle := "hive-tarsis", "--json")
    with sqlite3.connect(path) as conn:  # the snapshot the first read kept is gone, and no write may land
        conn.execute("DELETE FROM snapshots")
        conn.execute("CREATE TRIGGER no_snapshots BEFORE INSERT ON snapshots BEGIN SELECT RAISE(ABORT, 'no'); END")
    again = morale(path, "board", battle, "--json")
    assert again.exit_code == 0, again.output
    assert again.output == expected.output
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM snapshots").fetchone() == (0,)


@pytest.fixture(scope="module")
def long_battle_replayed(long_battle) -> dict:
    """The long battle's full replay reads, once for every damage done to a copy of its snapshots."""
    return full_reads(long_battle, "long")


@pytest.mark.parametrize("damage", ["flipped", "other engine", "wrong point", "units gone"])
def test_a_damaged_stale_or_missing_snapshot_sends_the_read_to_the_full_replay(
    long_battle, long_battle_replayed, tmp_path, damage
):
    path = tmp_path / "copy.db"
    with sqlite3.connect(path) as copy:
        long_battle.db.conn.backup(copy)
    store = SqliteEventStore(path)
    conn = store.db.conn
    if damage == "flipped":
        for seq, blob in conn.execute("SELECT seq, blob FROM snapshots").fetchall():
            flipped = blob[:40] + bytes([blob[40] ^ 1]) + blob[41:]
            conn.execute("UPDATE snapshots SET blob = ? WHERE seq = ?", (flipped, seq))
    elif damage == "other engine":
        conn.execute("UPDATE snapshots SET engine = 'another'")
    elif damage == "wrong point":
        conn.execute("UPDATE snapshots SET seq = seq - 1")
    else:
        conn.execute("DELETE FROM snapshot_units")
    frozen.forget()
    assert_same_reads(store, "long", long_battle_replayed)


def test_a_writer_decides_against_the_head_and_loses_to_a_writer_that_got_there_first(long_battle, tmp_path):
    path = tmp_path / "copy.db"
    with sqlite3.connect(path) as copy:
        long_battle.db.conn.backup(copy)
    store = open_store(path)
    fold = head_of(store, "long")
    assert fold.start_seq > 0 and fold.seq == store.last_seq("long")  # from a snapshot, up to the head
    unit, base = next(iter(fold.state().living)), fold.seq
    other = head_of(store, "long")
    record_on(store, other, [CasualtiesSuffered(unit=unit, count=1)])  # the other writer
    with pytest.raises(ConflictError):
        record_on(store, fold, [CasualtiesSuffered(unit=unit, count=1)])
    assert store.last_seq("long") == base + 1  # the other writer's event, and only it


def test_a_strike_is_decided_on_the_whole_log_not_a_snapshots_tail(long_battle, tmp_path):
    path = tmp_path / "copy.db"
    with sqlite3.connect(path) as copy:
        long_battle.db.conn.backup(copy)
    store = open_store(path)
    strike = EventRetracted(seq=store.last_seq("long") - 3, reason="typed in error")
    fold = head_of(store, "long", [strike])
    assert fold.start_seq == 0 and len(fold.log) == store.last_seq("long")


def test_a_unit_struck_from_the_roster_and_joined_again_is_explained_from_its_first_joining(tmp_path):
    table = a_battle()
    table.record(joining("reserves", models=10, ld=7))
    first_join = table.fold.seq
    table.record(clock_event(table.battle))
    table.record(EventRetracted(seq=first_join, reason="came on too early"))
    for _ in range(6):
        table.record(clock_event(table.battle))
    table.record(joining("reserves", models=10, ld=7))
    table.record(CasualtiesSuffered(unit="reserves", count=2))
    store = SqliteEventStore(tmp_path / "log.db")
    store.append(BATTLE, table.events, expected_seq=0)
    with patch.object(snapshots, "SNAPSHOT_EVERY", 3):
        rebuild(store, BATTLE)
        explained = explain_stored(store, BATTLE, "reserves")
    assert explained == explain(BATTLE, store.read(BATTLE), "reserves")
    assert explained.steps[0].seq == first_join  # the struck joining is still part of its story
