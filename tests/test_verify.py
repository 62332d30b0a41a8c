"""Verify: the hash chain, the board each phase end recorded, and engine dice from the revealed secret.
Each problem is reported at the first sequence number where it shows."""

from __future__ import annotations

import pytest
from msgspec.structs import replace
from support.examples import EXAMPLE
from support.stores import raw_sql

from morale.app.roster import load_roster
from morale.app.service import load, record, reveal, roll_for, start_battle
from morale.core import rules
from morale.core.dice import commitment, engine_dice
from morale.core.rules import Refusal
from morale.core.rulesets.wh40k import WH40K6
from morale.events.codec import GENESIS_HASH, chain_hash, decode_raw, encode
from morale.events.store import EventStore, SqliteEventStore
from morale.events.types import CasualtiesSuffered, DiceRevealed, DiceRolled, PhaseEnded, PhaseStarted
from morale.projections.verify import verify

pytestmark = pytest.mark.example(EXAMPLE)  # `store`: a fresh one per test, holding this example battle


def checked(store: EventStore, secret: str | None = None):
    return verify("hive-tarsis", store.raw_rows("hive-tarsis"), secret)


def seq_of(store: EventStore, event) -> int:
    return next(s.seq for s in store.read("hive-tarsis") if s.event == event)


def rewrite(store: EventStore, seq: int, change, *, rehash: bool) -> None:
    """Edit one stored event in place, as someone with the file would; optionally re-seal the chain."""
    rows = list(store.raw_rows("hive-tarsis"))
    prev = GENESIS_HASH
    for at, body, _prev, digest, *_columns in rows:
        if at == seq:
            raw = decode_raw(body)
            change(raw.event)
            body = encode(raw).decode()
            raw_sql(store, "UPDATE events SET body = ? WHERE battle = 'hive-tarsis' AND seq = ?", (body, at))
        if rehash:
            digest = chain_hash(prev, body.encode())
            relink = "UPDATE events SET prev_hash = ?, hash = ? WHERE battle = 'hive-tarsis' AND seq = ?"
            raw_sql(store, relink, (prev, digest, at))
        prev = digest


def test_a_log_written_through_the_referee_verifies(store):
    result = checked(store)
    assert result.ok and result.findings == []
    assert result.events == 104 and result.digests_checked == 24 and result.digests_unrecorded == 0
    assert result.table_rolls == 25 and result.engine_rolls == 0 and result.dice_secret == "not revealed"
    assert result.head == list(store.raw_rows("hive-tarsis"))[-1][3]


def test_an_edited_event_is_reported_at_its_sequence_number(store):
    rewrite(store, 30, lambda event: event.update(count=1), rehash=False)
    result = checked(store)
    assert not result.ok
    chain = [f for f in result.findings if f.check == "chain"]
    assert [(f.seq, f.message.split(":")[0]) for f in chain] == [(30, "hash does not match the event's bytes")]


def test_a_removed_event_is_reported_where_the_chain_breaks(store):
    raw_sql(store, "DELETE FROM events WHERE battle = 'hive-tarsis' AND seq = 50")
    chain = [f for f in checked(store).findings if f.check == "chain"]
    assert chain[0].seq == 51 and "sequence number 51 where 50 was expected" in chain[0].message


# The columns the store keeps beside the sealed bytes, each forged to a value a forger might want.
FORGED_COLUMNS = [
    ("recorded_at", "2020-01-01T00:00:00.000000Z"),  # `morale log` would show it
    ("schema_version", 9),  # the board would refuse the battle as written by a newer engine
    ("type", "dice_revealed"),
]


@pytest.mark.parametrize(("column", "forged"), FORGED_COLUMNS)
def test_a_column_changed_beside_the_sealed_bytes_is_reported_at_its_seq(store, column, forged):
    raw_sql(store, f"UPDATE events SET {column} = ? WHERE battle = 'hive-tarsis' AND seq = 40", (forged,))
    result = checked(store)
    assert [(f.check, f.seq) for f in result.findings] == [("chain", 40)]
    assert result.findings[0].message.startswith(f"the stored {column} {forged!r} is not the ")


def reseal(store: EventStore, seq: int, prev_hash: str) -> None:
    """Seal one stored event again on another prev_hash, its bytes untouched: its own hash is right
    for what it says it follows, and only the link to the event before it is wrong."""
    body = next(row.body for row in store.raw_rows("hive-tarsis") if row.seq == seq)
    relink = "UPDATE events SET prev_hash = ?, hash = ? WHERE battle = 'hive-tarsis' AND seq = ?"
    raw_sql(store, relink, (prev_hash, chain_hash(prev_hash, body.encode()), seq))


@pytest.mark.parametrize("seq", [1, 30, 104])
def test_an_event_sealed_on_a_prev_hash_that_is_not_the_event_before_it_is_reported_at_its_seq(store, seq):
    hashes = {row.seq: row.hash for row in store.raw_rows("hive-tarsis")}
    reseal(store, seq, hashes[60])  # a real hash of this log, but not of the event before `seq`
    assert all(chain_hash(row.prev_hash, row.body.encode()) == row.hash for row in store.raw_rows("hive-tarsis"))
    result = checked(store)
    assert [(f.check, f.seq) for f in result.findings] == [("chain", seq)]
    assert result.findings[0].message == (
        f"prev_hash does not link to event {seq - 1}'s hash: an earlier event was replaced"
    )


def test_two_valid_chains_spliced_together_are_reported_where_the_second_begins(store):
    # The same battle written again later: the same events, another recorded_at, so other hashes.
    rows, again, prev, later = list(store.raw_rows("hive-tarsis")), [], GENESIS_HASH, "2030-01-01T00:00:00.000000Z"
    for row in rows:
        body = encode(replace(decode_raw(row.body), recorded_at=later)).decode()
        digest = chain_hash(prev, body.encode())
        again.append(row._replace(body=body, recorded_at=later, prev_hash=prev, hash=digest))
        prev = digest
    assert verify("hive-tarsis", rows).ok and verify("hive-tarsis", again).ok  # each chain alone is sound
    result = verify("hive-tarsis", rows[:50] + again[50:])
    assert [(f.check, f.seq) for f in result.findings] == [("chain", 51)]
    assert result.findings[0].message.startswith("prev_hash does not link to event 50's hash")


def test_a_rehashed_edit_shows_at_the_first_phase_end_after_it_and_in_the_head(store):
    head = checked(store).head
    lootas = seq_of(store, CasualtiesSuffered(unit="lootas", count=2, cause="shooting"))
    rewrite(store, lootas, lambda event: event.update(count=1), rehash=True)
    result = checked(store)
    phase_end = next(s.seq for s in store.read("hive-tarsis") if s.seq > lootas and isinstance(s.event, PhaseEnded))
    assert [(f.check, f.seq) for f in result.findings] == [("digest", phase_end)]
    assert "replay gives" in result.findings[0].message
    assert result.head != head  # a judge who noted the head hash sees the rewrite too


def test_an_engine_whose_rules_changed_shows_at_the_first_event_it_no_longer_accepts(store, monkeypatch):
    monkeypatch.setitem(WH40K6.parameters, "casualty_threshold_percent", 50)
    result = checked(store)
    # Event 19 is the Nobz' morale roll: 2 of 5 lost is 40%, a test under 25% but not under 50%.
    assert [(f.check, f.seq) for f in result.findings] == [("replay", 19)]
    assert rules.DICE in result.findings[0].message


# -- engine dice, committed at the start and revealed after the battle --------------------------------
@pytest.fixture
def engine_store(tmp_path) -> SqliteEventStore:
    store = SqliteEventStore(tmp_path / "engine.db")
    roster = load_roster(EXAMPLE / "roster.toml")
    start_battle(store, "hive-tarsis", replace(roster.started, dice_policy="either"), roster.units)
    for phase in ("movement", "psychic"):
        quiet = [PhaseStarted(turn=1, side="imperium", phase=phase), PhaseEnded(turn=1, side="imperium", phase=phase)]
        record(store, "hive-tarsis", quiet)
    shooting = [
        PhaseStarted(turn=1, side="imperium", phase="shooting"),
        CasualtiesSuffered(unit="boyz", count=6),
        CasualtiesSuffered(unit="grots", count=4),
        PhaseEnded(turn=1, side="imperium", phase="shooting"),
    ]
    record(store, "hive-tarsis", shooting)
    return store


def roll_everything(store: SqliteEventStore) -> None:
    while load(store, "hive-tarsis").state().due:
        due = load(store, "hive-tarsis").state().due[0]
        roll_for(store, load(store, "hive-tarsis"), due.unit, due.test)


def test_revealed_engine_dice_are_all_recomputed(engine_store):
    roll_everything(engine_store)
    before = checked(engine_store)
    assert before.ok and before.engine_rolls >= 2 and before.engine_rolls_checked == 0
    reveal(engine_store, load(engine_store, "hive-tarsis"))
    after = checked(engine_store)
    assert after.ok and after.dice_secret == "revealed" and after.engine_rolls_checked == before.engine_rolls


def test_an_engine_roll_typed_in_by_hand_is_caught_once_the_secret_is_out(engine_store):
    seq = engine_store.last_seq("hive-tarsis") + 1
    true_dice = engine_dice(engine_store.dice_secret("hive-tarsis"), "hive-tarsis", seq, 2)
    forged = [1, 1] if true_dice != (1, 1) else [1, 2]
    record(engine_store, "hive-tarsis", [DiceRolled(unit="boyz", test="morale", dice=forged, source="engine")])
    roll_everything(engine_store)
    reveal(engine_store, load(engine_store, "hive-tarsis"))
    result = checked(engine_store)
    assert [(f.check, f.seq) for f in result.findings] == [("dice", seq)]
    assert "but the dice secret gives" in result.findings[0].message


def test_a_secret_given_on_the_command_line_checks_the_dice_without_a_reveal(engine_store):
    roll_everything(engine_store)
    secret = engine_store.dice_secret("hive-tarsis")
    assert checked(engine_store, secret).dice_secret == "given"
    wrong = checked(engine_store, "0" * 64)
    assert [(f.check, f.seq) for f in wrong.findings] == [("dice", 1)]


def test_a_secret_that_does_not_match_the_commitment_is_refused_engine_dice_reveal(engine_store):
    with pytest.raises(Refusal) as refused:
        record(engine_store, "hive-tarsis", [DiceRevealed(secret="0" * 64)])
    assert refused.value.field == "secret"
    first = engine_store.dice_secret("hive-tarsis")
    reveal(engine_store, load(engine_store, "hive-tarsis"))
    with pytest.raises(Refusal) as twice:  # the secret is spent: the fresh commitment is to another one
        record(engine_store, "hive-tarsis", [DiceRevealed(secret=first)])
    assert twice.value.field == "secret"
    fresh = engine_store.dice_secret("hive-tarsis")
    assert fresh != first
    with pytest.raises(Refusal) as reused:  # a "fresh" commitment to the secret just published
        record(engine_store, "hive-tarsis", [DiceRevealed(secret=fresh, commitment=commitment(fresh))])
    assert reused.value.field == "commitment"


def test_a_reveal_that_commits_to_no_fresh_secret_ends_the_engines_rolling_engine_dice_reveal(engine_store):
    # As a log written before reveals carried a fresh commitment reads: the engine rolls no more.
    record(engine_store, "hive-tarsis", [DiceRevealed(secret=engine_store.dice_secret("hive-tarsis"))])
    length = engine_store.last_seq("hive-tarsis")
    with pytest.raises(Refusal) as refused:
        roll_for(engine_store, load(engine_store, "hive-tarsis"), "boyz", "morale")
    assert refused.value.rule == rules.DICE_REVEAL and engine_store.last_seq("hive-tarsis") == length
    assert "no fresh one was committed" in refused.value.message
    with pytest.raises(Refusal) as again:
        reveal(engine_store, load(engine_store, "hive-tarsis"))
    assert again.value.rule == rules.DICE_REVEAL and engine_store.last_seq("hive-tarsis") == length


def test_a_battle_revealed_while_tests_are_due_is_finished_and_every_roll_verifies_engine_dice_reveal(engine_store):
    first = engine_store.dice_secret("hive-tarsis")
    roll_for(engine_store, load(engine_store, "hive-tarsis"), *_first_due(engine_store))
    assert load(engine_store, "hive-tarsis").state().due  # tests still wait for their dice
    reveal(engine_store, load(engine_store, "hive-tarsis"))
    fresh = engine_store.dice_secret("hive-tarsis")
    roll_everything(engine_store)  # the engine rolls on, with the fresh secret
    record(engine_store, "hive-tarsis", [PhaseStarted(turn=1, side="imperium", phase="assault")])
    assert not load(engine_store, "hive-tarsis").state().due
    partly = checked(engine_store)
    assert partly.ok and partly.dice_secret == "revealed"
    assert 0 < partly.engine_rolls_checked < partly.engine_rolls  # the fresh secret's rolls wait for it
    whole = checked(engine_store, fresh)
    assert whole.ok and whole.dice_secret == "given" and whole.engine_rolls_checked == whole.engine_rolls
    assert checked(engine_store, first).findings[0].check == "dice"  # the spent secret is not the one in force


def test_revealed_while_a_fall_back_roll_is_due_the_engine_rolls_it_engine_dice_reveal(engine_store):
    # The trap of issue 26: the reveal used to leave a due Fall Back with no dice anyone could roll.
    record(engine_store, "hive-tarsis", [DiceRolled(unit="boyz", test="morale", dice=(6, 6))])  # fails
    assert ("boyz", "fall_back") in {(d.unit, d.test) for d in load(engine_store, "hive-tarsis").state().due}
    reveal(engine_store, load(engine_store, "hive-tarsis"))
    rolled = roll_for(engine_store, load(engine_store, "hive-tarsis"), "boyz", "fall_back")
    assert rolled[0].stored.event.source == "engine"
    assert ("boyz", "fall_back") not in {(d.unit, d.test) for d in load(engine_store, "hive-tarsis").state().due}


def _first_due(store: EventStore) -> tuple[str, str]:
    due = load(store, "hive-tarsis").state().due[0]
    return due.unit, due.test


def test_a_battle_with_table_dice_has_no_secret_to_reveal(store):
    with pytest.raises(Refusal) as refused:
        reveal(store, load(store, "hive-tarsis"))
    assert refused.value.field == "secret"
