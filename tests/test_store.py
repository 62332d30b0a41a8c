"""The store contract: ordered, gap-free, hash-chained, all-or-nothing, safe for two writers, with
snapshots, dice secrets and tokens beside the log. Every test handed `store` (or `store_location`)
runs against SQLite and against PostgreSQL; the few about SQLite's file alone say so."""

from __future__ import annotations

import inspect
import re
import sqlite3
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime, timedelta
from itertools import pairwise

import psycopg
import pytest

from morale.events import postgres
from morale.events import store as store_module
from morale.events.codec import GENESIS_HASH, body_bytes, chain_hash, decode_raw
from morale.events.hooks import DeliveryAttempt, StoredHook
from morale.events.locate import open_store
from morale.events.postgres import PostgresEventStore
from morale.events.store import (
    BattleExists,
    ChainMoved,
    ConflictError,
    EventStore,
    Precondition,
    SqliteEventStore,
    StoredToken,
    TokenRevoked,
)
from morale.events.types import Author, BattleStarted, CasualtiesSuffered, DiceRevealed, PhaseStarted

START = BattleStarted(ruleset="wh40k6", ruleset_version="1", sides=("imperium", "orks"))


def test_appended_events_read_back_in_order_with_sequence_numbers(store):
    store.append("b1", [START], expected_seq=0)
    store.append("b1", [PhaseStarted(turn=1, side="imperium", phase="movement")], expected_seq=1)
    read = list(store.read("b1"))
    assert [s.seq for s in read] == [1, 2]
    assert read[0].event == START
    assert [s.seq for s in store.read("b1", after_seq=1)] == [2]


def test_a_fold_reads_seq_and_event_between_two_points_of_the_log(store):
    later = [PhaseStarted(turn=1, side="imperium", phase="movement"), CasualtiesSuffered(unit="a", count=1)]
    store.append("b1", [START, *later], expected_seq=0)
    store.append("b2", [START], expected_seq=0)
    assert list(store.events("b1")) == [(s.seq, s.event) for s in store.read("b1")]
    assert list(store.events("b1", after_seq=1, up_to=2)) == [(2, later[0])]
    assert list(store.events("b1", after_seq=2)) == [(3, later[1])]
    assert list(store.events("nope")) == []


def test_the_events_of_one_type_are_read_alone_in_log_order_across_chunks(store, monkeypatch):
    monkeypatch.setattr(postgres, "CHUNK", 2)  # PostgreSQL reads in chunks: make these span several
    phases = [PhaseStarted(turn=t, side=side, phase="movement") for t in (1, 2, 3) for side in ("imperium", "orks")]
    events = [START]
    for phase in phases:
        events += [phase, CasualtiesSuffered(unit="a", count=1)]
    store.append("b1", events, expected_seq=0)
    store.append("b2", [START, PhaseStarted(turn=1, side="orks", phase="shooting")], expected_seq=0)
    assert list(store.events_of_type("b1", "phase_started")) == [(2 * n, phase) for n, phase in enumerate(phases, 1)]
    assert list(store.events_of_type("b1", "battle_started")) == [(1, START)]
    assert list(store.events_of_type("b1", "dice_rolled")) == list(store.events_of_type("nope", "phase_started")) == []


def test_many_battles_share_one_file(store):
    store.append("b1", [START], expected_seq=0)
    store.append("b2", [START, START], expected_seq=0)
    assert store.battles() == ["b1", "b2"]
    assert store.last_seq("b2") == 2 and store.last_seq("nope") == 0


def test_each_hash_covers_the_previous_hash_and_the_stored_bytes(store):
    store.append("b1", [START, CasualtiesSuffered(unit="a", count=1)], expected_seq=0)
    prev = GENESIS_HASH
    for row in store.raw_rows("b1"):
        assert row.prev_hash == prev
        assert row.hash == chain_hash(row.prev_hash, row.body.encode())
        prev = row.hash


def test_a_stale_expected_sequence_is_a_conflict_and_writes_nothing(store):
    store.append("b1", [START, START], expected_seq=0)
    with pytest.raises(ConflictError) as conflict:
        store.append("b1", [START], expected_seq=1)
    assert str(conflict.value).startswith("expected_seq: battle 'b1' is at sequence 2, not 1; another writer")
    assert conflict.value.actual_seq == 2
    assert store.last_seq("b1") == 2


def test_an_append_decided_on_another_event_at_the_expected_seq_is_refused_and_writes_nothing(store):
    first = store.append("b1", [START, START], expected_seq=0)
    with pytest.raises(ChainMoved, match="event 2 of battle 'b1' is not the one this writer read"):
        store.append("b1", [START], expected_seq=2, precondition=Precondition(prev_hash=first[0].hash))
    assert store.last_seq("b1") == 2
    written = store.append("b1", [START], expected_seq=2, precondition=Precondition(prev_hash=first[1].hash))
    assert written[0].prev_hash == first[1].hash and store.last_seq("b1") == 3


def test_an_append_holding_a_token_revoked_meanwhile_is_refused_and_writes_nothing(store):
    store.append("b1", [START], expected_seq=0)
    store.change_tokens("b1", add=[StoredToken("c" * 64, "player", "orks")])
    assert store.append("b1", [START], expected_seq=1, precondition=Precondition(holder="c" * 64))
    store.change_tokens("b1", drop=["c" * 64])
    with pytest.raises(TokenRevoked, match="no longer opens battle 'b1'"):
        store.append("b1", [START], expected_seq=2, precondition=Precondition(holder="c" * 64))
    assert store.last_seq("b1") == 2


def test_starting_a_battle_that_exists_is_refused_and_keeps_its_dice_secret(store):
    store.append("b1", [START], expected_seq=0, dice_secret="a" * 64)
    with pytest.raises(BattleExists, match="battle: battle 'b1' already exists in this store"):
        store.append("b1", [START], expected_seq=0, dice_secret="b" * 64)
    assert store.last_seq("b1") == 1 and store.dice_secret("b1") == "a" * 64


def test_a_reveal_keeps_the_fresh_dice_secret_with_its_event_or_not_at_all(store):
    # A reveal commits to a fresh secret: the store keeps it in place of the old one, in the
    # transaction that writes the reveal, and a writer that lost the race leaves the old one.
    store.append("b1", [START], expected_seq=0, dice_secret="a" * 64)
    revealed = DiceRevealed(secret="a" * 64, commitment="0" * 64)
    store.append("b1", [revealed], expected_seq=1, dice_secret="b" * 64)
    assert store.dice_secret("b1") == "b" * 64
    with pytest.raises(ConflictError):
        store.append("b1", [revealed], expected_seq=1, dice_secret="c" * 64)
    assert store.last_seq("b1") == 2 and store.dice_secret("b1") == "b" * 64


def test_an_append_is_all_or_nothing(store, monkeypatch):
    store.append("b1", [START], expected_seq=0)
    before = list(store.raw_rows("b1"))
    real_seal = store_module.seal

    def seal_with_a_clash(*args, **kwargs):
        # Two rows claiming one sequence number: the second insert fails after the first succeeded.
        sealed = real_seal(*args, **kwargs)
        return [sealed[0], sealed[0]]

    monkeypatch.setattr(store_module, "seal", seal_with_a_clash)  # both stores seal through it
    with pytest.raises((sqlite3.IntegrityError, psycopg.IntegrityError)):
        store.append("b1", [START, START], expected_seq=1)
    monkeypatch.undo()
    assert list(store.raw_rows("b1")) == before
    assert store.append("b1", [START], expected_seq=1)[0].seq == 2  # and the store still works


WRITER = textwrap.dedent(
    """
    import sys
    from morale.events.locate import open_store
    from morale.events.store import ConflictError
    from morale.events.types import CasualtiesSuffered
    store = open_store(sys.argv[1])
    wins = 0
    while wins < int(sys.argv[2]):
        seq = store.last_seq("race")
        try:
            store.append("race", [CasualtiesSuffered(unit=sys.argv[3], count=1)], expected_seq=seq)
            wins += 1
        except ConflictError:
            pass
    store.close()
    """
)


def test_two_processes_appending_at_once_never_share_or_skip_a_sequence_number(store, store_location):
    store.append("race", [START], expected_seq=0)
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, store_location, "60", n]) for n in ("first", "second")]
    assert [w.wait(timeout=120) for w in writers] == [0, 0]
    stored = list(store.read("race"))
    assert [s.seq for s in stored] == list(range(1, 122))
    units = [s.event.unit for s in stored[1:]]
    assert units.count("first") == 60 and units.count("second") == 60
    for earlier, later in pairwise(stored):
        assert later.prev_hash == earlier.hash


def test_an_event_is_stamped_with_the_utc_time_of_its_recording_to_the_microsecond(store):
    before = datetime.now(UTC)
    stamp = store.append("b1", [START], expected_seq=0)[0].recorded_at
    after = datetime.now(UTC)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", stamp)
    slack = timedelta(milliseconds=1)  # the two clocks round a microsecond differently
    assert before - slack <= datetime.fromisoformat(stamp.replace("Z", "+00:00")) <= after + slack


def test_a_second_store_on_the_same_file_keeps_the_first_ones_appends_safe(tmp_path):
    # SQLite's file alone. A server opens a store per thread. Opening one must not drop the locks the others hold, or
    # the next process to close the file deletes their WAL and an append they acknowledged is lost.
    path = tmp_path / "shared.db"
    first = SqliteEventStore(path)
    first.append("b", [BattleStarted(ruleset="wh40k6", ruleset_version="1", sides=("a", "b"))], 0)
    SqliteEventStore(path, create=False)
    other = "from morale.events.store import SqliteEventStore as S; from morale.events.types import PhaseStarted as P; "
    other += f"s = S({str(path)!r}); s.append('b', [P(turn=1, side='a', phase='movement')], 1); s.close()"
    subprocess.run([sys.executable, "-c", other], check=True)
    first.append("b", [CasualtiesSuffered(unit="x", count=1)], 2)
    read = f"from morale.events.store import SqliteEventStore as S; print(S({str(path)!r}).last_seq('b'))"
    assert subprocess.run([sys.executable, "-c", read], capture_output=True, text=True).stdout.strip() == "3"


def protocol_methods() -> dict[str, object]:
    return {name: value for name, value in vars(EventStore).items() if callable(value) and not name.startswith("_")}


def test_the_store_is_an_event_store(store):
    assert isinstance(store, EventStore)


@pytest.mark.parametrize("implementation", [SqliteEventStore, PostgresEventStore])
def test_the_protocol_names_each_method_as_each_store_defines_it(implementation):
    """The protocol cannot drift from the classes: the same names, parameters, defaults and types."""
    methods = protocol_methods()
    assert {"append", "read", "events", "hash_at", "snapshot_before", "replace_tokens", "close"} <= set(methods)
    for name, declared in methods.items():
        assert inspect.signature(getattr(implementation, name)) == inspect.signature(declared), name


def test_the_protocol_holds_no_implementation():
    """Each method is a docstring and `...`: what SQLite does is SqliteEventStore's alone."""
    for name, declared in protocol_methods().items():
        assert declared.__doc__ and declared.__code__.co_names == (), name


# -- more of the contract, on both stores -----------------------------------------------------------
def test_an_expected_seq_beyond_the_end_or_below_zero_says_so_and_writes_nothing(store):
    store.append("b1", [START, START], expected_seq=0)
    with pytest.raises(ConflictError, match="expected_seq: expected seq 5 but the log ends at 2"):
        store.append("b1", [START], expected_seq=5)
    with pytest.raises(ConflictError, match="expected_seq: must be 0 or more, not -1"):
        store.append("b1", [START], expected_seq=-1)
    assert store.last_seq("b1") == 2


def test_a_writer_whose_last_look_is_stale_is_refused_then_appends_after_the_real_end(store, store_location):
    store.append("b1", [START], expected_seq=0)
    store.append("b1", [CasualtiesSuffered(unit="a", count=1)], expected_seq=1)  # this writer last saw seq 2
    other = open_store(store_location)
    other.append("b1", [CasualtiesSuffered(unit="b", count=1)], expected_seq=2)
    other.close()
    with pytest.raises(ConflictError, match="is at sequence 3, not 2"):
        store.append("b1", [CasualtiesSuffered(unit="a", count=2)], expected_seq=2)
    store.append("b1", [CasualtiesSuffered(unit="a", count=3)], expected_seq=3)
    rows = list(store.raw_rows("b1"))
    assert [r.seq for r in rows] == [1, 2, 3, 4]
    assert all(later.prev_hash == earlier.hash for earlier, later in pairwise(rows))


def test_a_long_log_reads_back_whole_and_in_order_from_any_point(store, monkeypatch):
    monkeypatch.setattr(postgres, "CHUNK", 4)  # PostgreSQL reads in chunks: make this log span several
    events = [START] + [CasualtiesSuffered(unit="a", count=n) for n in range(1, 23)]
    store.append("b1", events, expected_seq=0)
    assert [s.event for s in store.read("b1")] == events
    assert [seq for seq, _ in store.events("b1", after_seq=3, up_to=13)] == list(range(4, 14))
    assert [r.seq for r in store.raw_rows("b1")] == list(range(1, 24))
    assert list(store.read("b1", after_seq=23)) == [] and store.hash_at("b1", 24) is None


def test_battles_are_listed_once_each_in_byte_order(store):
    for battle in ("b", "B", "a-2", "a", "b"):
        store.append(battle, [START], expected_seq=store.last_seq(battle))
    assert store.battles() == ["B", "a", "a-2", "b"]


def test_a_snapshot_is_found_at_or_before_a_point_for_its_engine_and_replaced_in_place(store):
    store.save_snapshot("b1", 100, "e1", b"at 100")
    store.save_snapshot("b1", 200, "e1", b"at 200")
    store.save_snapshot("b1", 300, "e2", b"other engine")
    assert store.snapshot_before("b1", 250, "e1") == (200, b"at 200")
    assert store.snapshot_before("b1", 99, "e1") is None and store.snapshot_before("b2", 250, "e1") is None
    store.save_snapshot("b1", 200, "e1", b"again")
    assert store.snapshot_before("b1", 200, "e1") == (200, b"again")
    store.drop_snapshots("b1")
    assert store.snapshot_before("b1", 1000, "e1") is None


def test_shared_units_are_kept_once_each_and_their_ids_are_never_given_again(store):
    ids = store.save_snapshot_units("b1", "e1", [(b"d1", b"one"), (b"d2", b"two"), (b"d1", b"one")])
    assert ids[0] == ids[2] and len(set(ids)) == 2
    assert store.save_snapshot_units("b1", "e1", [(b"d2", b"two")]) == [ids[1]]
    assert sorted(store.snapshot_units("b1", [*ids, 10_000])) == sorted(
        [(ids[0], b"d1", b"one"), (ids[1], b"d2", b"two")]
    )
    assert store.snapshot_units("b2", ids) == []
    store.drop_snapshots("b1")
    assert store.snapshot_units("b1", ids) == []
    again = store.save_snapshot_units("b1", "e1", [(b"d1", b"one")])
    assert again[0] > max(ids)


def token(digest: str, role: str, side: str = "", label: str = "") -> StoredToken:
    return StoredToken(digest, role, side, label, "2026-12-01T15:40:00Z")


def test_tokens_are_replaced_as_a_whole_and_open_their_own_battle_only(store):
    store.replace_tokens("b1", [token("h1", "referee"), token("h2", "player", "orks", "Anna's phone")])
    store.replace_tokens("b2", [token("h3", "spectator")])
    assert store.token_grant("b1", "h2") == token("h2", "player", "orks", "Anna's phone")
    assert store.token_grant("b2", "h2") is None
    assert store.tokens("b1") == [token("h1", "referee"), token("h2", "player", "orks", "Anna's phone")]
    store.replace_tokens("b1", [token("h4", "referee")])
    assert store.token_grant("b1", "h1") is None and store.tokens("b1") == [token("h4", "referee")]


def test_the_battles_a_token_opens_are_listed_by_battle_with_its_role_in_each(store):
    store.replace_tokens("zulu", [token("shared", "referee"), token("z2", "spectator")])
    store.replace_tokens("alpha", [token("shared", "player", "orks")])
    store.replace_tokens("mid", [token("other", "referee")])
    assert store.token_battles("shared") == [("alpha", "player", "orks"), ("zulu", "referee", "")]
    assert store.token_battles("nobody") == []


def test_tokens_are_added_and_dropped_by_hash_and_the_others_are_untouched(store):
    store.replace_tokens("b1", [token("h1", "referee"), token("h2", "player", "orks")])
    store.replace_tokens("b2", [token("h2", "player", "orks")])
    assert store.change_tokens("b1", add=[token("h3", "spectator", label="feed")]) == 0
    assert [t.token_hash for t in store.tokens("b1")] == ["h1", "h2", "h3"]
    assert store.change_tokens("b1", drop=["h2", "nowhere"], add=[token("h5", "player", "orks")]) == 1
    assert [t.token_hash for t in store.tokens("b1")] == ["h1", "h3", "h5"]
    assert store.tokens("b2") == [token("h2", "player", "orks")]  # the same hash in another battle stays


def test_origins_are_allowed_and_dropped_per_battle_and_kept_once(store):
    assert store.allowed_origins("b1") == []  # none ever allowed (SQLite: no table yet)
    store.change_origins("b1", add=["https://overlay.example", "http://127.0.0.1:9000"])
    store.change_origins("b1", add=["https://overlay.example"])  # allowed already: kept once
    store.change_origins("b2", add=["https://other.example"])
    assert store.allowed_origins("b1") == ["http://127.0.0.1:9000", "https://overlay.example"]
    store.change_origins("b1", drop=["https://overlay.example", "https://never.example"])
    assert store.allowed_origins("b1") == ["http://127.0.0.1:9000"]
    assert store.allowed_origins("b2") == ["https://other.example"]  # another battle's are its own


def hook(battle: str, hook_id: str, **fields) -> StoredHook:
    return StoredHook(battle, hook_id, "http://127.0.0.1:9/in", "", "whsec_c2VjcmV0", "bot", "2026-12-01", **fields)


def test_hooks_are_kept_per_battle_and_only_their_delivery_fields_change(store):
    assert store.hooks() == [] and store.hooks("b1") == []  # none ever (SQLite: no table yet)
    store.add_hook(hook("b1", "h2"))
    store.add_hook(hook("b1", "h1"))
    store.add_hook(hook("b2", "h1"))
    assert [(h.battle, h.hook_id) for h in store.hooks()] == [("b1", "h1"), ("b1", "h2"), ("b2", "h1")]
    assert store.update_hook("b1", "h1", through_seq=12, failures=0)
    assert store.update_hook("b1", "h2", failures=3, paused="10 attempts in a row failed")
    assert not store.update_hook("b1", "gone", failures=1)  # a hook the referee removed stays removed
    assert store.hooks("b1") == [
        hook("b1", "h1", through_seq=12),
        hook("b1", "h2", failures=3, paused="10 attempts in a row failed"),
    ]
    assert store.hooks("b2") == [hook("b2", "h1")]
    with pytest.raises(ValueError, match="url"):
        store.update_hook("b1", "h1", url="http://elsewhere")  # the referee's fields are not delivery's to change


def test_a_hooks_attempts_keep_the_last_few_oldest_first_and_go_with_the_hook(store):
    store.add_hook(hook("b1", "h1"))
    store.add_hook(hook("b1", "h2"))
    for seq in range(1, 6):
        store.record_attempt(DeliveryAttempt("b1", "h1", seq, f"t{seq}", 500, "HTTP 500", 3, False), keep=3)
    store.record_attempt(DeliveryAttempt("b1", "h2", 1, "t", 200, "HTTP 200", 2, True), keep=3)
    assert [a.seq for a in store.attempts("b1", "h1", limit=10)] == [3, 4, 5]
    assert [a.seq for a in store.attempts("b1", "h1", limit=2)] == [4, 5]
    assert store.attempts("b1", "h2", limit=10) == [DeliveryAttempt("b1", "h2", 1, "t", 200, "HTTP 200", 2, True)]
    assert store.drop_hook("b1", "h1") and not store.drop_hook("b1", "h1")
    assert store.attempts("b1", "h1", limit=10) == [] and [h.hook_id for h in store.hooks()] == ["h2"]


def test_one_holder_at_a_time_takes_the_delivery_lease_until_it_lapses_or_is_let_go(store):
    assert store.take_lease("webhooks", "node-a", ttl_s=30)
    assert not store.take_lease("webhooks", "node-b", ttl_s=30)
    assert store.take_lease("webhooks", "node-a", ttl_s=0.2)  # renewed by its holder, shorter
    assert store.take_lease("other", "node-b", ttl_s=30)  # another lease is another matter
    time.sleep(0.4)
    assert store.take_lease("webhooks", "node-b", ttl_s=30)  # lapsed: its holder was killed
    assert not store.take_lease("webhooks", "node-a", ttl_s=30)
    store.release_lease("webhooks", "node-a")  # not its holder: nothing changes
    assert not store.take_lease("webhooks", "node-c", ttl_s=30)
    store.release_lease("webhooks", "node-b")
    assert store.take_lease("webhooks", "node-c", ttl_s=30)


def test_a_tokens_last_use_is_written_only_when_the_one_kept_is_older_than_asked(store):
    store.replace_tokens("b1", [token("h1", "referee"), token("h2", "spectator")])
    assert store.token_grant("b1", "h1").last_used == ""  # never used
    store.touch_token("b1", "h1", "2026-12-01T15:41:00Z", "2026-12-01T15:40:00Z")
    assert store.token_grant("b1", "h1").last_used == "2026-12-01T15:41:00Z"
    store.touch_token("b1", "h1", "2026-12-01T15:41:30Z", "2026-12-01T15:40:30Z")  # kept one is newer
    assert store.token_grant("b1", "h1").last_used == "2026-12-01T15:41:00Z"
    store.touch_token("b1", "h1", "2026-12-01T15:42:30Z", "2026-12-01T15:41:30Z")
    assert store.token_grant("b1", "h1").last_used == "2026-12-01T15:42:30Z"
    assert store.token_grant("b1", "h2").last_used == ""  # the other token untouched


def test_a_battle_sealed_elsewhere_is_written_as_given_with_its_dice_secret(store):
    store.append("source", [START, CasualtiesSuffered(unit="a", count=1)], expected_seq=0)
    sealed = store_module.seal(
        "copy", [START, CasualtiesSuffered(unit="a", count=1)], 0, GENESIS_HASH, "2026-01-01T00:00:00.000000Z"
    )
    store.append_sealed("copy", sealed, dice_secret="c" * 64)
    assert [r.hash for r in store.raw_rows("copy")] == [stored.hash for stored, _ in sealed]
    assert store.dice_secret("copy") == "c" * 64 and store.dice_secret("source") is None
    with pytest.raises(BattleExists):
        store.append_sealed("copy", sealed, dice_secret="d" * 64)
    assert store.dice_secret("copy") == "c" * 64


ORKS_PHONE = Author(role="player", side="orks", via="console", token="1a2b3c4d", label="Anna's phone")


def test_an_author_is_sealed_in_the_hashed_bytes_and_read_back_with_each_event(store):
    store.append("b1", [START], expected_seq=0, author=Author(role="referee", via="cli", label="anna"))
    store.append("b1", [CasualtiesSuffered(unit="a", count=1)], expected_seq=1, author=ORKS_PHONE)
    read = list(store.read("b1"))
    assert [s.author for s in read] == [Author(role="referee", via="cli", label="anna"), ORKS_PHONE]
    rows = list(store.raw_rows("b1"))
    assert decode_raw(rows[1].body).author == {
        "role": "player",
        "side": "orks",
        "via": "console",
        "token": "1a2b3c4d",
        "label": "Anna's phone",
    }
    # The hash covers the author: the same event by another author is another hash.
    unsigned = body_bytes("b1", 2, 1, rows[1].recorded_at, read[1].event)
    sealed = chain_hash(rows[1].prev_hash, rows[1].body.encode())
    assert rows[1].hash == sealed != chain_hash(rows[1].prev_hash, unsigned)


def test_an_event_appended_without_an_author_keeps_the_bytes_it_always_had(store):
    store.append("b1", [START], expected_seq=0, recorded_at="2026-01-01T00:00:00.000000Z")
    (row,) = store.raw_rows("b1")
    assert "author" not in row.body
    assert row.body.encode() == body_bytes("b1", 1, START.version, "2026-01-01T00:00:00.000000Z", START)
    assert next(store.read("b1")).author is None


def test_a_file_written_before_tokens_had_labels_opens_and_its_tokens_keep_working(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.execute(
        'CREATE TABLE "events" ("battle" TEXT, "seq" INTEGER, "schema_version" INTEGER, "recorded_at" TEXT, '
        '"type" TEXT, "body" TEXT, "prev_hash" TEXT, "hash" TEXT, PRIMARY KEY ("battle", "seq"))'
    )
    conn.execute('CREATE TABLE "dice_secrets" ("battle" TEXT PRIMARY KEY, "secret" TEXT)')
    conn.execute(
        'CREATE TABLE "access_tokens" ("battle" TEXT, "token_hash" TEXT, "role" TEXT, "side" TEXT, '
        'PRIMARY KEY ("battle", "token_hash"))'
    )
    conn.execute("INSERT INTO access_tokens VALUES ('b1', 'h1', 'player', 'orks')")
    conn.commit()
    conn.close()
    store = SqliteEventStore(path)
    assert store.tokens("b1") == [StoredToken("h1", "player", "orks", "", "", "")]
    store.touch_token("b1", "h1", "2026-12-01T15:41:00Z", "2026-12-01T15:40:00Z")
    store.change_tokens("b1", add=[token("h2", "spectator", label="feed")])
    assert [(t.token_hash, t.label, t.last_used) for t in store.tokens("b1")] == [
        ("h1", "", "2026-12-01T15:41:00Z"),
        ("h2", "feed", ""),
    ]


# -- signed heads (events/signing.py): kept beside the log, in the same transaction ------------------
@pytest.fixture
def signing(monkeypatch):
    """The store's key given by the environment, as PostgreSQL nodes share one."""
    from morale.events.signing import KEY_VARIABLE, generate

    key = generate()
    monkeypatch.setenv(KEY_VARIABLE, key.private_pem().decode())
    return key


def test_each_append_signs_its_last_event_and_every_phase_end_in_it(store, signing):
    from morale.events.signing import signature_matches
    from morale.events.types import PhaseEnded

    ended = PhaseEnded(turn=1, side="imperium", phase="movement")
    store.append("b1", [START, PhaseStarted(turn=1, side="imperium", phase="movement"), ended], expected_seq=0)
    store.append("b1", [PhaseStarted(turn=1, side="imperium", phase="shooting"), ended, START], expected_seq=3)
    heads = store.signed_heads("b1")
    assert [head.seq for head in heads] == [3, 5, 6]
    assert [head.hash for head in heads] == [store.hash_at("b1", seq) for seq in (3, 5, 6)]
    assert store.public_keys() == {signing.fingerprint: signing.public_pem}
    assert all(head.key == signing.fingerprint and signature_matches(signing.public, head) for head in heads)
    assert store.signed_heads("nope") == []


def test_a_refused_append_signs_nothing(store, signing):
    store.append("b1", [START], expected_seq=0)
    with pytest.raises(ConflictError):
        store.append("b1", [START], expected_seq=0)
    with pytest.raises(ConflictError):
        store.append("b1", [START, START], expected_seq=5)
    assert [head.seq for head in store.signed_heads("b1")] == [1]


def test_a_battle_sealed_elsewhere_keeps_the_heads_its_store_signed_and_is_signed_here_too(store, signing):
    from morale.events.signing import generate

    elsewhere = generate()
    sealed = store_module.seal("copy", [START, START], 0, GENESIS_HASH, "2026-01-01T00:00:00Z")
    theirs = elsewhere.sign("copy", 2, sealed[-1][0].hash)
    store.append_sealed("copy", sealed, signed=[theirs], public_keys={elsewhere.fingerprint: elsewhere.public_pem})
    heads = store.signed_heads("copy")
    assert {(head.seq, head.key) for head in heads} == {(2, elsewhere.fingerprint), (2, signing.fingerprint)}
    assert theirs in heads
    assert set(store.public_keys()) == {elsewhere.fingerprint, signing.fingerprint}


def test_a_new_key_signs_from_then_on_and_every_key_that_signed_stays_listed(store_location, monkeypatch):
    from morale.events.signing import KEY_VARIABLE, generate
    from morale.projections.signed import listed_heads

    old, new = generate(), generate()
    monkeypatch.setenv(KEY_VARIABLE, old.private_pem().decode())
    first = open_store(store_location)
    first.append("b1", [START], expected_seq=0)
    first.close()
    monkeypatch.setenv(KEY_VARIABLE, new.private_pem().decode())  # rotated: the nodes restart with it
    second = open_store(store_location)
    try:
        second.append("b1", [START], expected_seq=1)
        assert [(head.seq, head.key) for head in second.signed_heads("b1")] == [
            (1, old.fingerprint),
            (2, new.fingerprint),
        ]
        assert second.public_keys() == {old.fingerprint: old.public_pem, new.fingerprint: new.public_pem}
        hashes = {row.seq: row.hash for row in second.raw_rows("b1")}
        checks = listed_heads("b1", hashes, second.signed_heads("b1"), second.public_keys())
        assert [check.ok for check in checks] == [True, True]
    finally:
        second.close()
