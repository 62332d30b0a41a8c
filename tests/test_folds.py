"""The server keeps each battle's fold between requests, so an append replays nothing. A kept fold
must answer exactly as a fresh replay of the log would: after appends by other processes, after a
refusal, after a batch refused half-way, after a lost race, after the battle is started afresh."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st
from msgspec.structs import replace
from support.served import BATTLE, ROSTER, example_events

from morale.app.http.folds import Folds
from morale.app.roster import load_roster
from morale.app.service import load, record, record_on, start_battle
from morale.core.rules import Refusal
from morale.core.state import digest
from morale.events.codec import event_from_dict
from morale.events.store import ConflictError, SqliteEventStore
from morale.events.types import CasualtiesSuffered, PhaseEnded

EVENTS = [event_from_dict(e) for e in example_events()]
TOO_MANY = CasualtiesSuffered(unit="boyz", count=99, cause="shooting")  # more models than the unit has


def new_battle(path, events=()) -> SqliteEventStore:
    store = SqliteEventStore(path)
    roster = load_roster(ROSTER)
    start_battle(store, BATTLE, roster.started, roster.units)
    if events:
        record(store, BATTLE, list(events))
    return store


def unstamped(event):
    """The event as sent: a phase end is stored with the digest of the board it closed."""
    return replace(event, state_digest="") if isinstance(event, PhaseEnded) else event


def same_as_replay(fold, store: SqliteEventStore) -> bool:
    fresh = load(store, BATTLE)
    return fold.seq == fresh.seq and digest(fold.state()) == digest(fresh.state())


def test_a_kept_fold_takes_in_what_other_processes_appended(tmp_path):
    store = new_battle(tmp_path / "b.db", EVENTS[:20])
    folds = Folds()
    with folds.current(store, BATTLE) as fold:
        record_on(store, fold, EVENTS[20:21])
    cli = SqliteEventStore(tmp_path / "b.db")  # another writer on the same file, as `morale append` is
    record(cli, BATTLE, EVENTS[21:40])
    with folds.current(store, BATTLE) as again:
        assert again is fold  # kept, not replayed
        assert same_as_replay(again, store)
        record_on(store, again, EVENTS[40:41])
    assert store.last_seq(BATTLE) == load(store, BATTLE).seq == again.seq


def test_a_refused_event_leaves_the_kept_fold_and_the_log_as_they_were(tmp_path):
    store = new_battle(tmp_path / "b.db", EVENTS[:30])
    folds = Folds()
    with folds.current(store, BATTLE) as fold:
        before = digest(fold.state())
    with pytest.raises(Refusal), folds.current(store, BATTLE) as same:
        record_on(store, same, [TOO_MANY])
    with folds.current(store, BATTLE) as after:
        assert after is fold and digest(after.state()) == before
        assert same_as_replay(after, store)


def test_a_batch_refused_half_way_does_not_leave_its_first_events_in_the_fold(tmp_path):
    store = new_battle(tmp_path / "b.db", EVENTS[:30])
    folds = Folds()
    with pytest.raises(Refusal, match="event 2 of 2"), folds.current(store, BATTLE) as fold:
        record_on(store, fold, [EVENTS[30], TOO_MANY])  # the first is applied before the second is refused
    assert store.last_seq(BATTLE) == 1 + 30 + len(load_roster(ROSTER).units)  # nothing stored
    with folds.current(store, BATTLE) as fresh:
        assert fresh is not fold
        assert same_as_replay(fresh, store)


def test_an_append_that_lost_a_race_does_not_leave_its_event_in_the_fold(tmp_path):
    store = new_battle(tmp_path / "b.db", EVENTS[:30])
    other = SqliteEventStore(tmp_path / "b.db")
    folds = Folds()
    with pytest.raises(ConflictError), folds.current(store, BATTLE) as fold:
        record(other, BATTLE, EVENTS[30:31])  # lands after the fold was brought up to date
        record_on(store, fold, EVENTS[30:31])  # checked and applied on the fold, refused by the store
    with folds.current(store, BATTLE) as fresh:
        assert fresh is not fold
        assert same_as_replay(fresh, store)


def test_a_battle_started_afresh_under_the_same_id_is_not_answered_from_the_old_fold(tmp_path):
    store = new_battle(tmp_path / "b.db", EVENTS[:30])
    folds = Folds()
    with folds.current(store, BATTLE) as fold:
        old = digest(fold.state())
    store.db.execute("DELETE FROM events WHERE battle = ?", [BATTLE])  # as restoring another file would
    store.db.conn.commit()
    roster = load_roster(ROSTER)
    start_battle(store, BATTLE, roster.started, roster.units)
    record(store, BATTLE, EVENTS[:30])  # same events, recorded again: other timestamps, other hashes
    record(store, BATTLE, [CasualtiesSuffered(unit="boyz", count=1, cause="shooting")])
    with folds.current(store, BATTLE) as fresh:
        assert fresh is not fold
        assert digest(fresh.state()) != old
        assert same_as_replay(fresh, store)


def test_the_least_recently_used_battle_is_dropped_beyond_the_events_kept(tmp_path):
    store = new_battle(tmp_path / "b.db")
    roster = load_roster(ROSTER)
    start_battle(store, "second", roster.started, roster.units)
    folds = Folds(max_events=store.last_seq(BATTLE) + store.last_seq("second") - 1)  # room for one
    with folds.current(store, BATTLE) as first:
        pass
    with folds.current(store, "second") as second:
        pass
    with folds.current(store, BATTLE) as again:
        assert again is not first  # replayed: only one battle's events fit
        assert same_as_replay(again, store)
    with folds.current(store, BATTLE) as kept:
        assert kept is again  # the battle used last is the one kept
    with folds.current(store, "second") as replayed:
        assert replayed is not second


def test_writers_in_several_threads_take_turns_on_one_battle(tmp_path):
    store = new_battle(tmp_path / "b.db", EVENTS[:10])
    folds = Folds()
    upcoming = list(EVENTS[10:60])
    errors: list[BaseException] = []

    def writer() -> None:
        own = SqliteEventStore(tmp_path / "b.db")  # a connection per thread, as the server has
        try:
            while True:
                with folds.current(own, BATTLE) as fold:  # whoever holds the fold records the next event
                    if not upcoming:
                        return
                    record_on(own, fold, [upcoming.pop(0)])
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    recorded = [unstamped(event) for _, event in list(load(store, BATTLE).log)[-50:]]
    assert recorded == EVENTS[10:60]  # each once, in order
    with folds.current(store, BATTLE) as fold:
        assert same_as_replay(fold, store)


@given(
    st.lists(
        st.sampled_from(["server", "server", "cli", "refused", "half_refused", "lost_race"]),
        min_size=1,
        max_size=25,
    )
)
def test_property_a_kept_fold_always_answers_as_a_fresh_replay(tmp_path_factory, steps):
    path = tmp_path_factory.mktemp("folds") / "b.db"
    store = new_battle(path)
    cli = SqliteEventStore(path)
    folds = Folds()
    upcoming = iter(EVENTS)
    for step in steps:
        event = next(upcoming)
        try:
            with folds.current(store, BATTLE) as fold:
                if step == "server":
                    record_on(store, fold, [event])
                elif step == "cli":
                    record(cli, BATTLE, [event])  # lands under the kept fold
                elif step == "refused":
                    record_on(store, fold, [TOO_MANY])
                elif step == "half_refused":
                    record_on(store, fold, [event, TOO_MANY])
                else:
                    record(cli, BATTLE, [event])
                    record_on(store, fold, [event])
        except (Refusal, ConflictError):
            pass
        if step in ("refused", "half_refused"):
            upcoming = iter([event, *upcoming])  # it was never stored: it comes next again
        with folds.current(store, BATTLE) as fold:
            assert same_as_replay(fold, store), step
