"""Dice the engine rolls itself: derived from a battle secret, so they can be checked afterwards.

Each roll is HMAC-SHA256(secret, "battle:seq:index") turned into a die by rejection sampling (a
byte under 252 is used, modulo 6), so every face is equally likely. The battle's first event
carries sha256(secret) as a commitment; revealing the secret after the battle lets anyone
recompute every engine roll. Replay never rolls: it reads the values the log recorded.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_secret() -> str:
    return secrets.token_hex(32)


def commitment(secret: str) -> str:
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


def engine_dice(secret: str, battle: str, seq: int, count: int) -> tuple[int, ...]:
    """The `count` dice of the roll to be recorded as event `seq` of `battle`."""
    dice: list[int] = []
    block = 0
    while len(dice) < count:
        stream = hmac.new(secret.encode("ascii"), f"{battle}:{seq}:{block}".encode(), hashlib.sha256).digest()
        dice += [byte % 6 + 1 for byte in stream if byte < 252][: count - len(dice)]
        block += 1
    return tuple(dice)
