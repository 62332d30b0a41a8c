"""Dice the engine rolls itself: derived from a battle secret, so they can be checked afterwards.

Each roll is HMAC-SHA256(secret, "battle:seq:block") turned into dice by rejection sampling (a
byte under 252 is used, modulo 6), so every face is equally likely. The battle's first event
carries sha256(secret) as a commitment; revealing the secret lets anyone recompute every engine
roll made with it. When the players have committed to seeds of their own and revealed them
(`engine.dice.seed.*`), each seed is appended to the message, in the order of the battle's sides:
"battle:seq:block:seed1:seed2". A battle with no seeds rolls exactly as before. Fold never rolls:
it reads the values the log recorded.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .state import Battle


def new_secret() -> str:
    return secrets.token_hex(32)


def commitment(secret: str) -> str:
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


def engine_dice(secret: str, battle: str, seq: int, count: int, seeds: Sequence[str] = ()) -> tuple[int, ...]:
    """The `count` dice of the roll to be recorded as event `seq` of `battle`, with the players'
    `seeds` in force (`seeds_in_force`) mixed in."""
    dice: list[int] = []
    block = 0
    mixed = "".join(f":{seed}" for seed in seeds)
    while len(dice) < count:
        message = f"{battle}:{seq}:{block}{mixed}".encode()
        stream = hmac.new(secret.encode("ascii"), message, hashlib.sha256).digest()
        dice += [byte % 6 + 1 for byte in stream if byte < 252][: count - len(dice)]
        block += 1
    return tuple(dice)


def seeds_in_force(battle: Battle) -> tuple[str, ...]:
    """The players' seeds mixed into the engine's next roll: both, in the order of the battle's
    sides, once both are revealed; none before (`engine.dice.seed.wait` holds the engine meanwhile)."""
    if all(side in battle.seeds for side in battle.sides):
        return tuple(battle.seeds[side] for side in battle.sides)
    return ()


def seeds_awaited(battle: Battle) -> list[str]:
    """The sides whose seed the engine waits for: every side not yet revealed, once any has committed."""
    if not battle.seed_commitments:
        return []
    return [side for side in battle.sides if side not in battle.seeds]
