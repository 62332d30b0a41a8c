"""A server's long-lived folds keep only their last events and read older ones back from the store
(app/read_back.py), so a node's memory does not grow with every append (bench/soak.py). What they
answer must not change: a strike reaching back past what they hold folds exactly as a fold that
kept every event would."""

from __future__ import annotations

import msgspec
import msgspec.inspect
import pytest
from litestar.testing import TestClient
from support.examples import example_store
from support.served import BATTLE, bearer, creation_body

from morale.app import read_back
from morale.app.http import live
from morale.app.http.server import AppendEvents, Settings, create_app
from morale.app.read_back import ReadBackLog, read_back_fold
from morale.app.service import fold_of, load
from morale.core.fold import Fold
from morale.core.rules import Refusal
from morale.core.state import digest
from morale.events.types import EventRetracted
from morale.projections.feed import encode_item, follow

FEW = 3


@pytest.fixture
def store(tmp_path):
    return example_store(tmp_path / "example.db")


def outcome(fold: Fold, seq: int) -> object:
    """What striking `seq` would take with it, or the refusal's words."""
    try:
        return fold.followers_of(seq)
    except Refusal as refusal:
        return str(refusal)


def test_a_fold_that_keeps_a_few_events_plans_every_strike_as_one_that_keeps_them_all(store):
    whole = fold_of(store, BATTLE)
    few = Fold(BATTLE, log=ReadBackLog(BATTLE, store, keep=FEW))
    for seq, event in store.events(BATTLE):
        few.advance(seq, event)
    assert few.log.held == FEW and len(few.log) == len(whole.log) == whole.seq
    assert list(few.log) == list(whole.log)
    for seq in range(2, whole.seq + 2):  # the battle's start is never struck (the referee refuses it first)
        assert outcome(few, seq) == outcome(whole, seq), seq
        assert few.log.get(seq) == whole.log.get(seq)


def test_striking_an_event_the_fold_no_longer_holds_leaves_the_battle_a_whole_fold_would(store):
    whole = load(store, BATTLE)
    few = Fold(BATTLE, log=ReadBackLog(BATTLE, store, keep=FEW))
    for seq, event in store.events(BATTLE):
        few.advance(seq, event)
    struck = next(seq for seq in range(2, whole.seq) if outcome(whole, seq) == [])
    strike, at = EventRetracted(seq=struck, reason="typed on the wrong unit"), whole.seq + 1
    for fold in (whole, few):
        fold.check(strike)
        fold.advance(at, strike)
    assert digest(few.state()) == digest(whole.state())


def test_a_channels_fold_reads_a_strike_of_an_old_event_as_a_whole_fold_does(store, monkeypatch):
    monkeypatch.setattr(read_back, "KEEP", FEW)
    whole = load(store, BATTLE)
    struck = next(seq for seq in range(2, whole.seq) if outcome(whole, seq) == [])
    store.append(BATTLE, [EventRetracted(seq=struck, reason="typed on the wrong unit")], expected_seq=whole.seq)
    channel = read_back_fold(BATTLE)
    read = live._read_on(channel, store)
    assert channel.log.held == FEW
    every = [encode_item(i) for i in follow(Fold(BATTLE), store.read(BATTLE))]
    assert [p.json for p in read] == every
    assert every[-1] and b"event_retracted" in every[-1]


def test_the_servers_kept_fold_strikes_what_it_no_longer_holds(tmp_path, monkeypatch):
    monkeypatch.setattr(read_back, "KEEP", FEW)
    with TestClient(create_app(tmp_path / "served.db", Settings())) as client:
        referee = client.post("/battles", json=creation_body()).json()["tokens"]["referee"]

        def seq() -> int:
            return client.get(f"/battles/{BATTLE}/board", headers=bearer(referee)).json()["seq"]

        for _ in range(5):
            answer = client.post(f"/battles/{BATTLE}/next-phase", json={"expected_seq": seq()}, headers=bearer(referee))
            assert answer.status_code == 201, answer.text
        casualties = {"type": "casualties_suffered", "unit": "kraak", "count": 1}
        body = {"expected_seq": seq(), "events": [casualties]}
        assert client.post(f"/battles/{BATTLE}/events", json=body, headers=bearer(referee)).status_code == 201
        lost_at = seq()
        for _ in range(4):  # past what the kept fold holds
            answer = client.post(f"/battles/{BATTLE}/next-phase", json={"expected_seq": seq()}, headers=bearer(referee))
            assert answer.status_code == 201, answer.text
        preview = client.get(f"/battles/{BATTLE}/strike/{lost_at}", headers=bearer(referee))
        assert preview.status_code == 200, preview.text
        assert [s["seq"] for s in preview.json()["strikes"]] == [lost_at]
        struck = client.post(
            f"/battles/{BATTLE}/strike/{lost_at}",
            json={"expected_seq": seq(), "reason": "counted twice"},
            headers=bearer(referee),
        )
        assert struck.status_code == 201, struck.text
        board = client.get(f"/battles/{BATTLE}/board", headers=bearer(referee)).json()
    kraak = next(u for u in board["units"] if u["unit"] == "kraak")
    assert kraak["models"] == 10


def test_a_fold_keeps_at_least_the_largest_batch_an_append_may_carry():
    """A batch is folded before any of its events is in the store, so a strike inside it must
    find them in memory."""
    events = next(f for f in msgspec.inspect.type_info(AppendEvents).fields if f.name == "events")
    largest = events.type.max_length
    assert largest <= read_back.KEEP
