"""Known answers: the engine's dice, the hash chain and the state digest for fixed inputs, written down
once as literals. Every one of them is public (a judge recomputes dice from a revealed secret, an
importer re-hashes the chain, a phase end records the digest), so a change to how any is computed
breaks every battle already written, and must fail here rather than agree with itself.

Each literal was checked when it was written by a separate script using only hmac, hashlib and json
from the standard library, following the documented algorithms:
- dice: HMAC-SHA256(key=secret as ASCII, message=f"{battle}:{seq}:{block}"), block 0, 1, ...; each
  byte under 252 gives byte % 6 + 1, a byte of 252 or more is skipped; with the players' seeds in
  force, the message is f"{battle}:{seq}:{block}:{seed1}:{seed2}" (the seeds in the order of the sides);
- chain: sha256(prev_hash as ASCII + the body as compact JSON with sorted keys);
- digest: sha256 of the compact JSON document `VIEW` below.
"""

from __future__ import annotations

import hashlib
import hmac

from support.table import Table, unit

from morale.core.dice import commitment, engine_dice
from morale.core.state import digest
from morale.events.store import seal
from morale.events.types import CasualtiesSuffered, PhaseStarted

SECRET = "0123456789abcdef" * 4
BATTLE = "hive-tarsis"


# -- engine dice --------------------------------------------------------------------------------
def test_engine_dice_reveal_known_answers_for_a_fixed_secret():
    assert engine_dice(SECRET, BATTLE, 1, 2) == (1, 2)
    assert engine_dice(SECRET, BATTLE, 2, 2) == (1, 1)
    assert engine_dice(SECRET, BATTLE, 9, 3) == (5, 5, 5)
    assert engine_dice(SECRET, "other-battle", 1, 2) == (2, 1)  # the battle is in the message
    assert engine_dice("f" * 64, BATTLE, 1, 2) == (1, 4)  # and the secret is the key


def test_engine_dice_reveal_a_byte_of_252_or_more_is_skipped_not_folded_onto_a_face():
    # Event 74's stream begins bc fc 2c: 188 gives a 3, 252 is skipped (252 % 6 + 1 would be a 1,
    # the modulo bias rejection sampling exists to avoid), and 44 gives the second 3.
    stream = hmac.new(SECRET.encode("ascii"), b"hive-tarsis:74:0", hashlib.sha256).digest()
    assert stream[:3].hex() == "bcfc2c"
    assert engine_dice(SECRET, BATTLE, 74, 2) == (3, 3)


def test_engine_dice_reveal_more_dice_than_one_block_gives_continue_into_the_next_block():
    # Block 0 of event 5 holds two bytes of 252 or more: 30 dice from it, the last 10 from block 1.
    dice = engine_dice(SECRET, BATTLE, 5, 40)
    assert dice[:30] == (3, 1, 4, 5, 4, 6, 5, 4, 4, 1, 6, 4, 3, 3, 2, 4, 2, 2, 5, 5, 6, 4, 6, 4, 2, 3, 5, 1, 2, 4)
    assert dice[30:] == (6, 5, 5, 3, 2, 1, 2, 4, 6, 6)


def test_engine_dice_seed_wait_two_players_seeds_are_mixed_into_the_message_in_the_order_of_the_sides():
    imperium, orks = "a" * 64, "b" * 64
    # The stream of "hive-tarsis:21:0:aaaa...:bbbb..." begins 3c 0b: 60 gives a 1, 11 a 6.
    message = f"hive-tarsis:21:0:{imperium}:{orks}".encode()
    assert hmac.new(SECRET.encode("ascii"), message, hashlib.sha256).digest()[:2].hex() == "3c0b"
    assert engine_dice(SECRET, BATTLE, 21, 2, (imperium, orks)) == (1, 6)
    assert engine_dice(SECRET, BATTLE, 21, 2, (orks, imperium)) == (2, 3)  # the order is part of it
    assert engine_dice(SECRET, BATTLE, 21, 2) == (5, 2)  # and without seeds: the secret alone
    assert engine_dice(SECRET, BATTLE, 9, 3, (imperium, orks)) == (2, 6, 2)
    assert commitment(imperium) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"


def test_engine_dice_reveal_the_commitment_is_the_sha256_of_the_secret():
    assert commitment(SECRET) == "a8ae6e6ee929abea3afcfc5258c8ccd6f85273e0d4626d26c7279f3250f77c8e"


# -- the hash chain -----------------------------------------------------------------------------
def test_the_hash_chain_known_answers_for_two_fixed_events():
    events = [
        PhaseStarted(turn=1, side="orks", phase="shooting"),
        CasualtiesSuffered(unit="boyz", count=3, cause="shooting"),
    ]
    (first, first_body), (second, second_body) = seal(BATTLE, events, 6, "ab" * 32, "2026-01-01T12:00:00.000000Z")
    assert first_body == (
        b'{"battle":"hive-tarsis","event":{"phase":"shooting","side":"orks","turn":1,"type":"phase_started"},'
        b'"recorded_at":"2026-01-01T12:00:00.000000Z","schema_version":1,"seq":7}'
    )
    assert (first.seq, first.prev_hash) == (7, "ab" * 32)
    assert first.hash == "9089f2fd9dc4f4d797f3222ed3f8f18989b8da87c22b3d0d14c396b73704eb33"
    assert second_body == (
        b'{"battle":"hive-tarsis","event":{"cause":"shooting","count":3,"type":"casualties_suffered","unit":"boyz"},'
        b'"recorded_at":"2026-01-01T12:00:00.000000Z","schema_version":1,"seq":8}'
    )
    assert (second.seq, second.prev_hash) == (8, first.hash)
    assert second.hash == "f344a8bb15fd4be59d493968251407a1414f7350c8520929bf7a76eb0b6ccb32"


# -- the state digest ---------------------------------------------------------------------------
# The marines lose 2 of 5 in the orks' shooting phase, which then ends: a Morale test is due.
VIEW = (
    b'{"seq":18,"clock":[1,1,2,false],'
    b'"units":[{"id":"marines","state":"steady","models":3,"restrictions":[],"pending":[]},'
    b'{"id":"boyz","state":"steady","models":20,"restrictions":[],"pending":[]}],'
    b'"due":[["marines","morale","wh40k6.trigger.casualties",[17]]]}'
)
DIGEST = "0bd81651f4519ab39cb5ae14897f6fa4647be15600e2302a80a224fd08d35ac0"


def test_the_state_digest_known_answer_for_a_small_fixed_battle():
    table = Table(unit("marines", models=5), unit("boyz", "orks", ld=7, models=20))
    table.go_to(1, "orks", "shooting")
    table.casualties("marines", 2)
    table.end_phase()
    assert hashlib.sha256(VIEW).hexdigest() == DIGEST  # the literal is the hash of the document above
    assert digest(table.battle) == DIGEST
