"""Who may do what to a battle served over HTTP: per-battle tokens, each with a role.

- referee: anything, rulings and retractions included;
- player: events about their own side's units (casualties, charges, facts, dice, decisions,
  profile changes) and engine rolls for their own units' tests; nothing battle-level;
- spectator: read and follow only.

A token is a random secret handed out once; the store keeps only its sha256, per battle.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import msgspec

from morale.core.rules import Refusal
from morale.core.state import Battle
from morale.events.store import EventStore
from morale.events.types import (
    AnyEvent,
    CasualtiesSuffered,
    ChargeDeclared,
    DiceRolled,
    PlayerDecided,
    SeedCommitted,
    SeedRevealed,
    TableFactRecorded,
    UnitChanged,
)

Role = Literal["referee", "player", "spectator"]


@dataclass(frozen=True)
class Grant:
    role: Role
    side: str = ""  # the player's side; empty for the other roles
    token_id: str = ""  # the credential's public id (`token_id_of`), never its secret
    label: str = ""  # the credential's label ("Anna's phone")


def token_id_of(token_hash: str) -> str:
    """A credential's public id: the first 8 hex digits of its sha256. It names the token in lists,
    revocations and the log's authors, and says nothing of the secret."""
    return token_hash[:8]


class Forbidden(Exception):
    """The token is good, but its role may not do this. Nothing is written."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        self.message, self.field = message, field
        super().__init__(f"{field}: {message}" if field else message)


class IssuedTokens(msgspec.Struct, frozen=True, kw_only=True):
    """Shown once, when issued: the store cannot give them back."""

    referee: str
    spectator: str
    players: dict[str, str]  # side -> token


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def issue_tokens(store: EventStore, battle: str, sides: Sequence[str]) -> IssuedTokens:
    """A fresh token per role (one per side for players); the battle's earlier tokens stop working."""
    issued = IssuedTokens(
        referee=secrets.token_urlsafe(24),
        spectator=secrets.token_urlsafe(24),
        players={side: secrets.token_urlsafe(24) for side in sides},
    )
    grants = [(token_hash(issued.referee), "referee", ""), (token_hash(issued.spectator), "spectator", "")]
    grants += [(token_hash(token), "player", side) for side, token in issued.players.items()]
    store.replace_tokens(battle, grants)
    return issued


def role_of(name: str, sides: Sequence[str]) -> tuple[str, str]:
    """(role, side) as the store keeps them, from a role's name on the command line: referee,
    spectator, or a side's name for that side's player."""
    if name in ("referee", "spectator"):
        return name, ""
    if name in sides:
        return "player", name
    roles = ", ".join(["referee", "spectator", *sides])
    raise Refusal(f"no role {name!r} in this battle (roles: {roles})", field="role")


def revoke_token(
    store: EventStore, battle: str, name: str, sides: Sequence[str], *, reissue: bool = False
) -> str | None:
    """The token of one role stops working; every other token of the battle keeps working. With
    `reissue`, a fresh token for that role takes its place and is returned (shown once)."""
    role, side = role_of(name, sides)
    fresh = secrets.token_urlsafe(24) if reissue else None
    if not store.replace_token(battle, role, side, token_hash(fresh) if fresh else None):
        raise Refusal(f"battle {battle!r} has no {name} token to revoke (`morale tokens` issues a set)", field="role")
    return fresh


class Visible(msgspec.Struct, frozen=True, kw_only=True):
    """A battle a token opens, and what the token may do in it."""

    battle: str
    role: Role
    side: str = ""  # the player's side
    events: int  # the battle's last sequence number


def visible_battles(store: EventStore, token: str) -> list[Visible]:
    """Every battle this token opens (`GET /battles`)."""
    return [
        Visible(battle=battle, role=role, side=side, events=store.last_seq(battle))  # type: ignore[arg-type]
        for battle, role, side in store.token_battles(token_hash(token))
    ]


def grant_for(store: EventStore, battle: str, token: str) -> Grant | None:
    found = store.token_grant(battle, token_hash(token))
    if found is None:
        return None
    role, side = found
    return Grant(role=role, side=side)  # type: ignore[arg-type]


def _unit_named(event: AnyEvent) -> tuple[str, str] | None:
    """(field, unit) of the one unit a player's event is about; None for battle-level events."""
    match event:
        case CasualtiesSuffered() | TableFactRecorded() | DiceRolled() | PlayerDecided() | UnitChanged():
            return "unit", event.unit
        case ChargeDeclared():
            return "charger", event.charger
    return None


def check_may_append(grant: Grant, battle: Battle, events: Sequence[AnyEvent]) -> None:
    """Refuse the whole batch if any event is beyond the token's role."""
    if _unlimited(grant):
        return
    for offset, event in enumerate(events, start=1):
        where = f"event {offset} of {len(events)}: " if len(events) > 1 else ""
        if isinstance(event, SeedCommitted | SeedRevealed):  # a player's seed is their own side's alone
            if event.side != grant.side:
                raise Forbidden(
                    f"{where}a player commits and reveals only the seed of their own side, {grant.side}", field="side"
                )
            continue
        named = _unit_named(event)
        if named is None:
            raise Forbidden(f"{where}{event.__struct_config__.tag} is for the referee, not a player", field="type")
        field, unit_id = named
        check_own_unit(grant, battle, unit_id, field=field, where=where)
        if isinstance(event, DiceRolled) and event.source == "engine":
            raise Forbidden(f"{where}engine dice are rolled by the server (POST .../roll), not posted", field="source")


def check_own_unit(grant: Grant, battle: Battle, unit_id: str, *, field: str = "unit", where: str = "") -> None:
    """A player acts only for units of their own side."""
    if _unlimited(grant):
        return
    unit = battle.units.get(unit_id)
    if unit is None or unit.side != grant.side:
        raise Forbidden(f"{where}{unit_id!r} is not one of {grant.side}'s units", field=field)


def _unlimited(grant: Grant) -> bool:
    """True for the referee; refuses a spectator; False for a player, whose every act is checked."""
    if grant.role == "spectator":
        raise Forbidden("a spectator's token reads and follows the battle; it records nothing")
    return grant.role == "referee"
