"""The players' seeds for the engine's dice: each side commits to a seed's sha256, reveals it once both
have committed, and every engine roll after both are out mixes them in, so neither the server (whose
secret is committed in the first event) nor one player steers the dice; verify recomputes every die.
Every refusal names its rule and writes nothing."""

from __future__ import annotations

import json

import pytest
from litestar.testing import TestClient
from msgspec.structs import replace
from support.cli import morale
from support.examples import EXAMPLE
from support.served import BATTLE, bearer, creation_body

from morale.app.http.server import Settings, create_app
from morale.app.notation.check import check
from morale.app.notation.reader import read
from morale.app.notation.writer import write
from morale.app.roster import load_roster
from morale.app.service import load, record, reveal, roll_for, start_battle
from morale.core import rules
from morale.core.dice import commitment, engine_dice
from morale.core.rules import Refusal
from morale.events.store import SqliteEventStore
from morale.events.types import (
    CasualtiesSuffered,
    DiceRolled,
    PhaseEnded,
    PhaseStarted,
    SeedCommitted,
    SeedRevealed,
)
from morale.projections.verify import verify

IMPERIUM, ORKS = "1" * 64, "2" * 64  # the two sides' seeds (imperium is the battle's first side)


@pytest.fixture
def store(tmp_path) -> SqliteEventStore:
    """The example battle with engine dice, to the end of the imperium's shooting: tests are due."""
    opened = SqliteEventStore(tmp_path / "seeds.db")
    roster = load_roster(EXAMPLE / "roster.toml")
    start_battle(opened, "hive-tarsis", replace(roster.started, dice_policy="either"), roster.units)
    for phase in ("movement", "psychic"):
        record(opened, "hive-tarsis", [PhaseStarted(turn=1, side="imperium", phase=phase)])
        record(opened, "hive-tarsis", [PhaseEnded(turn=1, side="imperium", phase=phase)])
    shooting = [
        PhaseStarted(turn=1, side="imperium", phase="shooting"),
        CasualtiesSuffered(unit="boyz", count=6),
        CasualtiesSuffered(unit="grots", count=4),
        PhaseEnded(turn=1, side="imperium", phase="shooting"),
    ]
    record(opened, "hive-tarsis", shooting)
    return opened


def commit_both(store: SqliteEventStore) -> None:
    record(store, "hive-tarsis", [SeedCommitted(side="imperium", commitment=commitment(IMPERIUM))])
    record(store, "hive-tarsis", [SeedCommitted(side="orks", commitment=commitment(ORKS))])


def reveal_both(store: SqliteEventStore) -> None:
    record(store, "hive-tarsis", [SeedRevealed(side="imperium", seed=IMPERIUM)])
    record(store, "hive-tarsis", [SeedRevealed(side="orks", seed=ORKS)])


def refused(store: SqliteEventStore, event) -> Refusal:
    length = store.last_seq("hive-tarsis")
    with pytest.raises(Refusal) as caught:
        record(store, "hive-tarsis", [event])
    assert store.last_seq("hive-tarsis") == length  # nothing written
    return caught.value


def roll_next(store: SqliteEventStore) -> DiceRolled:
    due = load(store, "hive-tarsis").state().due[0]
    rolled = roll_for(store, load(store, "hive-tarsis"), due.unit, due.test)[0].stored.event
    assert isinstance(rolled, DiceRolled)
    return rolled


# -- the protocol, rule by rule ------------------------------------------------------------------------
def test_each_side_commits_once_and_only_before_any_seed_is_out_engine_dice_seed_commit(store):
    record(store, "hive-tarsis", [SeedCommitted(side="imperium", commitment=commitment(IMPERIUM))])
    twice = refused(store, SeedCommitted(side="imperium", commitment=commitment("3" * 64)))
    assert twice.rule == rules.SEED_COMMIT and "imperium has already committed" in twice.message
    record(store, "hive-tarsis", [SeedCommitted(side="orks", commitment=commitment(ORKS))])
    record(store, "hive-tarsis", [SeedRevealed(side="imperium", seed=IMPERIUM)])
    assert refused(store, SeedCommitted(side="nobody", commitment="0" * 64)).field == "side"


def test_a_commitment_after_a_seed_is_out_is_refused_engine_dice_seed_commit(tmp_path):
    opened = SqliteEventStore(tmp_path / "late.db")
    roster = load_roster(EXAMPLE / "roster.toml")
    start_battle(opened, "hive-tarsis", replace(roster.started, dice_policy="engine"), roster.units)
    commit_both(opened)
    record(opened, "hive-tarsis", [SeedRevealed(side="orks", seed=ORKS)])
    # The imperium's commitment stands; a "second" one chosen after seeing the orks' seed would steer.
    late = refused(opened, SeedCommitted(side="imperium", commitment=commitment("3" * 64)))
    assert late.rule == rules.SEED_COMMIT


def test_a_battle_whose_dice_are_typed_in_has_no_secret_to_mix_a_seed_into_engine_dice_seed_commit(tmp_path):
    opened = SqliteEventStore(tmp_path / "table.db")
    roster = load_roster(EXAMPLE / "roster.toml")  # dice = "table"
    start_battle(opened, "hive-tarsis", roster.started, roster.units)
    nothing = refused(opened, SeedCommitted(side="orks", commitment=commitment(ORKS)))
    assert nothing.rule == rules.SEED_COMMIT and "nothing to mix a seed into" in nothing.message


def test_a_seed_is_revealed_once_both_sides_committed_and_must_match_engine_dice_seed_reveal(store):
    assert refused(store, SeedRevealed(side="orks", seed=ORKS)).rule == rules.SEED_REVEAL  # none committed
    record(store, "hive-tarsis", [SeedCommitted(side="orks", commitment=commitment(ORKS))])
    early = refused(store, SeedRevealed(side="orks", seed=ORKS))
    assert early.rule == rules.SEED_REVEAL and "not yet committed: imperium" in early.message
    record(store, "hive-tarsis", [SeedCommitted(side="imperium", commitment=commitment(IMPERIUM))])
    wrong = refused(store, SeedRevealed(side="orks", seed=IMPERIUM))
    assert wrong.rule == rules.SEED_REVEAL and "does not hash to the commitment of orks" in wrong.message
    record(store, "hive-tarsis", [SeedRevealed(side="orks", seed=ORKS)])
    assert refused(store, SeedRevealed(side="orks", seed=ORKS)).rule == rules.SEED_REVEAL  # twice


def test_the_engine_waits_for_both_seeds_and_then_mixes_them_in_engine_dice_seed_wait(store):
    record(store, "hive-tarsis", [SeedCommitted(side="orks", commitment=commitment(ORKS))])
    due = load(store, "hive-tarsis").state().due[0]
    length = store.last_seq("hive-tarsis")
    with pytest.raises(Refusal) as waiting:
        roll_for(store, load(store, "hive-tarsis"), due.unit, due.test)
    assert waiting.value.rule == rules.SEED_WAIT and "awaited: imperium, orks" in waiting.value.message
    assert store.last_seq("hive-tarsis") == length
    record(store, "hive-tarsis", [DiceRolled(unit=due.unit, test=due.test, dice=(3, 3))])  # typed dice go on
    record(store, "hive-tarsis", [SeedCommitted(side="imperium", commitment=commitment(IMPERIUM))])
    reveal_both(store)
    seq = store.last_seq("hive-tarsis") + 1
    rolled = roll_next(store)
    secret = store.dice_secret("hive-tarsis")
    assert rolled.dice == engine_dice(secret, "hive-tarsis", seq, len(rolled.dice), (IMPERIUM, ORKS))


# -- verify ------------------------------------------------------------------------------------------
def test_a_battle_with_players_seeds_verifies_with_every_die_recomputed(store):
    commit_both(store)
    reveal_both(store)
    while load(store, "hive-tarsis").state().due:
        roll_next(store)
    reveal(store, load(store, "hive-tarsis"))
    result = verify("hive-tarsis", store.raw_rows("hive-tarsis"))
    assert result.ok and result.engine_rolls >= 2 and result.engine_rolls_checked == result.engine_rolls


def test_an_engine_roll_that_leaves_out_the_seeds_is_named_by_its_seq(store):
    commit_both(store)
    reveal_both(store)
    due = load(store, "hive-tarsis").state().due[0]
    seq = store.last_seq("hive-tarsis") + 1
    # The server's secret alone, as an engine that ignored the players' seeds would have rolled.
    unseeded = engine_dice(store.dice_secret("hive-tarsis"), "hive-tarsis", seq, due.dice)
    seeded = engine_dice(store.dice_secret("hive-tarsis"), "hive-tarsis", seq, due.dice, (IMPERIUM, ORKS))
    forged = unseeded if unseeded != seeded else tuple(7 - d for d in seeded)
    record(store, "hive-tarsis", [DiceRolled(unit=due.unit, test=due.test, dice=forged, source="engine")])
    reveal(store, load(store, "hive-tarsis"))
    result = verify("hive-tarsis", store.raw_rows("hive-tarsis"))
    assert [(f.check, f.seq) for f in result.findings] == [("dice", seq)]
    assert "but the dice secret gives" in result.findings[0].message


def test_a_reveal_spends_the_seeds_and_the_sides_commit_again_for_the_fresh_secret(store):
    commit_both(store)
    reveal_both(store)
    roll_next(store)
    reveal(store, load(store, "hive-tarsis"))
    assert load(store, "hive-tarsis").state().seeds == {}  # the fresh secret was chosen after they were out
    commit_both(store)  # the same commitments are accepted again: a new round for the new secret
    reveal_both(store)
    seq = store.last_seq("hive-tarsis") + 1
    rolled = roll_next(store)
    fresh = store.dice_secret("hive-tarsis")
    assert rolled.dice == engine_dice(fresh, "hive-tarsis", seq, len(rolled.dice), (IMPERIUM, ORKS))
    whole = verify("hive-tarsis", store.raw_rows("hive-tarsis"), fresh)
    assert whole.ok and whole.engine_rolls_checked == whole.engine_rolls == 2


# -- the notation carries them ------------------------------------------------------------------------
def test_seeds_and_a_fresh_commitment_go_through_the_notation_and_back(store):
    commit_both(store)
    reveal_both(store)
    roll_next(store)
    reveal(store, load(store, "hive-tarsis"))
    stored = list(store.read("hive-tarsis"))
    text = write("hive-tarsis", [s.event for s in stored])
    assert f"orks commits seed {commitment(ORKS)}" in text and f"imperium reveals seed {IMPERIUM}" in text
    assert " then " in next(line for line in text.splitlines() if line.startswith("reveal "))
    again = check(read(text, "battle.notation"), "battle.notation")
    assert list(again.events) == [s.event for s in stored]  # the engine roll checked on the way in


# -- the command line and the API ----------------------------------------------------------------------
def engine_db(tmp_path):
    roster = tmp_path / "roster.toml"
    roster.write_text((EXAMPLE / "roster.toml").read_text().replace('dice = "table"', 'dice = "engine"'))
    db = tmp_path / "engine.db"
    assert morale(db, "new", str(roster)).exit_code == 0
    return db


def test_morale_seed_makes_a_seed_prints_it_to_keep_and_reveals_it(tmp_path):
    db = engine_db(tmp_path)
    made = morale(db, "seed", "hive-tarsis", "orks")
    assert made.exit_code == 0 and "seed of orks for hive-tarsis: " in made.stdout
    seed = made.stdout.split("seed of orks for hive-tarsis: ")[1].split()[0]
    assert morale(db, "seed", "hive-tarsis", "imperium", "--commit", commitment(IMPERIUM)).exit_code == 0
    revealed = morale(db, "seed", "hive-tarsis", "orks", "--reveal", seed)
    assert revealed.exit_code == 0 and "orks reveals its seed for the engine's dice" in revealed.stdout
    shown = morale(db, "seed", "hive-tarsis", "imperium", "--reveal", IMPERIUM, "--json")
    assert shown.exit_code == 0 and json.loads(shown.stdout)[0]["stored"]["event"]["type"] == "seed_revealed"
    as_json = json.loads(morale(tmp_path / "other.db", "new", str(tmp_path / "roster.toml"), "--json").stdout)
    assert as_json["seq"] == 9
    kept = json.loads(morale(tmp_path / "other.db", "seed", "hive-tarsis", "orks", "--json").stdout)
    assert commitment(kept["seed"]) == kept["recorded"][0]["stored"]["event"]["commitment"]  # printed once, kept


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--reveal", "3" * 64], "engine.dice.seed.reveal"),  # no commitment to match
        (["--commit", "xyz"], "commitment"),
        (["--reveal", "3" * 64, "--commit", "3" * 64], "reveal"),
        (["--commit", "3" * 64, "--expect", "2"], "expected"),
    ],
)
def test_a_bad_seed_on_the_command_line_exits_2_naming_what_and_writes_nothing(tmp_path, args, named):
    db = engine_db(tmp_path)
    answer = morale(db, "seed", "hive-tarsis", "orks", *args)
    assert answer.exit_code == 2 and named in answer.stderr, answer.output
    assert SqliteEventStore(db).last_seq("hive-tarsis") == 9


def test_a_player_commits_and_reveals_only_their_own_sides_seed(tmp_path):
    with TestClient(create_app(tmp_path / "served.db", Settings())) as client:
        tokens = client.post("/battles", json=creation_body(dice="engine")).json()["tokens"]
        orks = bearer(tokens["players"]["orks"])
        path = f"/battles/{BATTLE}/events"
        theirs = {"type": "seed_committed", "side": "imperium", "commitment": commitment(IMPERIUM)}
        answer = client.post(path, json={"expected_seq": 9, "events": [theirs]}, headers=orks)
        assert answer.status_code == 403 and answer.json()["field"] == "side"
        assert "only the seed of their own side, orks" in answer.json()["detail"]
        own = {"type": "seed_committed", "side": "orks", "commitment": commitment(ORKS)}
        assert client.post(path, json={"expected_seq": 9, "events": [own]}, headers=orks).status_code == 201
        early = {"type": "seed_revealed", "side": "orks", "seed": ORKS}
        answer = client.post(path, json={"expected_seq": 10, "events": [early]}, headers=orks)
        assert answer.status_code == 422 and "engine.dice.seed.reveal" in answer.text
