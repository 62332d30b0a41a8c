"""Moving battles from one store to another (`morale copy`), e.g. from a SQLite file to the
PostgreSQL database several nodes share, and back.

Every battle is read as `morale export` writes it and checked as `morale import` checks a file (the
hash chain, every event through the referee, the phase-end digests, revealed engine dice), and it
goes across with its stored bytes, so with identical hashes. What the store keeps beside the log
goes with it: the dice secret (only if it hashes to the commitment the log made) and the tokens'
hashes, so engine rolls, `morale reveal` and the tokens already handed out keep working, and the web
origins the battle allows (`morale cors`), so its overlays keep working on the nodes. Snapshots
stay behind: the target takes its own as it is read.

Every battle is checked before any is written, and each is written in one transaction. A battle
the target already holds is skipped if it is the same log (same last seq, same head hash: a copy
run again after an interruption finishes the job) and refused if it is not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from morale.core.dice import commitment
from morale.core.rules import Refusal
from morale.core.words import Words
from morale.events.store import BattleExists, EventStore, StoredToken, UnknownBattle
from morale.events.types import BattleStarted, DiceRevealed

from .transfer import Checked, check_lines, export_lines


@dataclass(frozen=True)
class Copied:
    battle: str
    events: int
    head: str
    written: bool  # False: the target held this very log already, and nothing was written


@dataclass(frozen=True)
class _Planned:
    checked: Checked
    secret: str | None
    tokens: list[StoredToken]
    origins: list[str]
    already_there: bool


def copy_battles(source: EventStore, target: EventStore, battles: Sequence[str] = ()) -> list[Copied]:
    """Copy `battles` (every battle of `source` if none are named) into `target`."""
    names = list(battles) or source.battles()
    plans = [_plan(source, target, name) for name in names]  # every check first: a refusal writes nothing
    for plan in plans:
        if not plan.already_there:
            checked = plan.checked
            target.append_sealed(
                checked.battle,
                checked.sealed,
                dice_secret=plan.secret,
                signed=checked.signed,
                public_keys=checked.public_keys,
            )
            if plan.tokens:
                target.replace_tokens(plan.checked.battle, plan.tokens)
            if plan.origins:
                target.change_origins(plan.checked.battle, add=plan.origins)
    return [
        Copied(plan.checked.battle, len(plan.checked.sealed), plan.checked.head, not plan.already_there)
        for plan in plans
    ]


def _plan(source: EventStore, target: EventStore, battle: str) -> _Planned:
    if not source.last_seq(battle):
        raise UnknownBattle(battle)
    checked = check_lines(export_lines(source, battle), Words("battle {battle!r}", battle=battle))
    secret = source.dice_secret(battle)
    if secret is not None:
        _check_secret(checked, secret)
    existing = target.last_seq(battle)
    if existing and not (existing == len(checked.sealed) and target.hash_at(battle, existing) == checked.head):
        raise BattleExists(battle, existing)
    return _Planned(checked, secret, source.tokens(battle), source.allowed_origins(battle), bool(existing))


def _check_secret(checked: Checked, secret: str) -> None:
    """A dice secret goes across only if it is the one the battle's log commits to now: the start's,
    or the fresh one its last reveal committed to."""
    started = checked.sealed[0][0].event
    committed = started.dice_commitment if isinstance(started, BattleStarted) else ""
    for stored, _ in checked.sealed:
        if isinstance(stored.event, DiceRevealed):
            committed = stored.event.commitment
    if not committed or commitment(secret) != committed:
        said = Words(
            "battle {battle!r}: the store's dice secret does not hash to the commitment in its log",
            battle=checked.battle,
        )
        raise Refusal(said, field="dice_secret")
