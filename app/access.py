"""Who may do what to a battle served over HTTP: per-battle tokens, each with a role.

- referee: anything, rulings and retractions included;
- player: events about their own side's units (casualties, charges, facts, dice, decisions,
  profile changes) and engine rolls for their own units' tests; nothing battle-level, except in a
  battle that asks for confirmation (played without a referee): there a player also runs the clock
  of their own side's phases, resolves the combats their side fights, and confirms, disputes or
  withdraws a dispute of the other side's entries (the claims ledger, `core/claims.py`, says which);
- spectator: read and follow only;
- overlay: a spectator's grant under a name of its own, for a stream overlay or a scoreboard on a
  screen: it reads and follows, and outlives the rotations of the others (`replace_all_tokens`, and
  revoking the spectators' tokens), so the referee logging everyone out leaves the stream live. Only
  its own revocation (by its id, or the role `overlay`) stops it.

A token is a random secret handed out once; the store keeps only its sha256, per battle, with its
role, a label, when it was issued and when it was last used. Tokens are named credentials: one more
is issued, or one revoked, without touching the others; only `replace_all_tokens` logs anyone out.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

import msgspec

from morale.core.rules import Refusal
from morale.core.state import Battle
from morale.core.words import Words
from morale.events.store import EventStore, StoredToken
from morale.events.types import (
    AnyEvent,
    Author,
    CasualtiesSuffered,
    ChargeDeclared,
    CombatResolved,
    DiceRolled,
    DisputeResolved,
    EntryConfirmed,
    EntryDisputed,
    PhaseEnded,
    PhaseStarted,
    PlayerDecided,
    SeedCommitted,
    SeedRevealed,
    TableFactRecorded,
    UnitChanged,
)

Role = Literal["referee", "player", "spectator"]  # what a token may do (an overlay's grant is a spectator's)
# The roles a credential is issued and listed as: an overlay is a spectator kept apart from the others.
CredentialRole = Literal["referee", "player", "spectator", "overlay"]
OVERLAY = "overlay"
ROLES: tuple[str, ...] = ("referee", "player", "spectator", OVERLAY)


@dataclass(frozen=True)
class Grant:
    role: Role
    side: str = ""  # the player's side; empty for the other roles
    token_id: str = ""  # the credential's public id (`token_id_of`), never its secret
    label: str = ""  # the credential's label ("Anna's phone")
    overlay: bool = False  # a spectator's grant held by an overlay token (it outlives rotations)


def token_id_of(token_hash: str) -> str:
    """A credential's public id: the first 8 hex digits of its sha256. It names the token in lists,
    revocations and the log's authors, and says nothing of the secret."""
    return token_hash[:8]


class Forbidden(Exception):
    """The token is good, but its role may not do this. Nothing is written."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        self.message, self.field = message, field
        super().__init__(Words("{field}: {reason}", field=field, reason=message) if field else message)


class IssuedTokens(msgspec.Struct, frozen=True, kw_only=True):
    """Shown once, when issued: the store cannot give them back."""

    referee: str
    spectator: str
    players: dict[str, str]  # side -> token


class Credential(msgspec.Struct, frozen=True, kw_only=True):
    """One of a battle's tokens as it is listed: everything but the secret."""

    id: str  # `token_id_of` its hash
    role: CredentialRole
    side: str = ""  # the player's side
    label: str = ""
    created: str = ""  # when it was issued (UTC); empty for a token kept before labels were
    last_used: str = ""  # when it last opened the battle, to about a minute; empty if never


class Issued(msgspec.Struct, frozen=True, kw_only=True):
    """One token just issued: its credential, and its secret (shown once)."""

    id: str
    role: CredentialRole
    side: str = ""
    label: str
    created: str
    token: str


class Revoked(msgspec.Struct, frozen=True, kw_only=True):
    """What a revocation did: the credentials that stopped working, and a fresh token if asked for."""

    revoked: list[Credential]
    token: str | None = None  # `--reissue`: the fresh token in their place (shown once)


LABEL_MAX = 100  # characters: a name for a person to read in a list, not a document

# "Last used" is written when a token opens a battle and the time kept is older than this: about
# once a minute per token, not a write on every request (a console polls and follows all game long).
LAST_USED_EVERY_S = 60


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def utc_now(offset_s: float = 0) -> str:
    """Now (plus `offset_s`) in UTC, to the second: "2026-12-01T15:40:12Z". The same width always,
    so two of them compare as text."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + offset_s))


def credential(stored: StoredToken) -> Credential:
    return Credential(
        id=token_id_of(stored.token_hash),
        role=stored.role,  # type: ignore[arg-type]
        side=stored.side,
        label=stored.label,
        created=stored.created,
        last_used=stored.last_used,
    )


def credentials(store: EventStore, battle: str) -> list[Credential]:
    """The battle's tokens, oldest first (those kept before labels first), each set in the order of
    its roles (referee, players, spectator, overlay); never a secret."""
    return credentials_of(store.tokens(battle))


def credentials_of(stored: Sequence[StoredToken]) -> list[Credential]:
    """These tokens as `credentials` lists them."""
    order = {"referee": 0, "player": 1, "spectator": 2, OVERLAY: 3}
    listed = (credential(token) for token in stored)
    return sorted(listed, key=lambda c: (c.created, order.get(c.role, 4), c.side, c.id))


def check_label(label: str) -> str:
    """A label is shown in lists, terminals and the log's authors: printable text, one line."""
    label = label.strip()
    if not label:
        said = Words("a label is needed, to tell this token from the others (e.g. Anna's phone)")
        raise Refusal(said, field="label")
    if len(label) > LABEL_MAX:
        said = Words("a label is at most {most} characters, not {length}", most=LABEL_MAX, length=len(label))
        raise Refusal(said, field="label")
    if any(_control(char) for char in label):
        said = Words("a label is one line of printable text: it may not hold a control character")
        raise Refusal(said, field="label")
    if not label.isascii() and not _utf8(label):
        raise Refusal(Words("a label is UTF-8 text: these bytes are not"), field="label")
    return label


def _control(char: str) -> bool:
    """C0 and C1 control characters and DEL: a terminal obeys them (colours, new lines) where a
    listing meant to show text."""
    code = ord(char)
    return code < 0x20 or 0x7F <= code <= 0x9F


def _utf8(text: str) -> bool:
    """False for text holding lone surrogates: bytes of a command-line argument that were not UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _fresh(role: str, side: str, label: str, created: str) -> tuple[str, StoredToken]:
    secret = secrets.token_urlsafe(24)
    return secret, StoredToken(token_hash(secret), role, side, label, created)


def issue_token(store: EventStore, battle: str, role: str, side: str, label: str) -> Issued:
    """One more token for (role, side), labelled; every other token of the battle keeps working."""
    secret, stored = _fresh(role, side, check_label(label), utc_now())
    store.change_tokens(battle, add=[stored])
    return Issued(
        id=token_id_of(stored.token_hash),
        role=role,  # type: ignore[arg-type]
        side=side,
        label=stored.label,
        created=stored.created,
        token=secret,
    )


def _token_set(sides: Sequence[str], label: str) -> tuple[IssuedTokens, list[StoredToken]]:
    created, roles = utc_now(), [("referee", ""), ("spectator", ""), *(("player", side) for side in sides)]
    made = {(role, side): _fresh(role, side, label, created) for role, side in roles}
    issued = IssuedTokens(
        referee=made["referee", ""][0],
        spectator=made["spectator", ""][0],
        players={side: made["player", side][0] for side in sides},
    )
    return issued, [stored for _, stored in made.values()]


def issue_tokens(
    store: EventStore, battle: str, sides: Sequence[str], label: str = "issued with the battle"
) -> IssuedTokens:
    """A token per role (one per side for players), all labelled `label`, beside the battle's others:
    nobody is logged out."""
    issued, stored = _token_set(sides, check_label(label))
    store.change_tokens(battle, add=stored)
    return issued


class Replaced(NamedTuple):
    """What replacing every token did: the fresh set, whom it logged out, and the overlays it kept."""

    tokens: IssuedTokens
    logged_out: list[Credential]
    kept: list[Credential]  # the overlay tokens, which outlive a rotation


def replace_all_tokens(store: EventStore, battle: str, sides: Sequence[str], label: str) -> Replaced:
    """A fresh set, and every earlier token of the battle stops working but its overlays'. The
    overlays are written back in the same transaction as the fresh set, as they were (hash, label,
    when issued and last used): an overlay issued while this runs is lost, never a token kept."""
    issued, stored = _token_set(sides, check_label(label))
    before = store.tokens(battle)
    kept = [token for token in before if token.role == OVERLAY]
    store.replace_tokens(battle, [*stored, *kept])
    ordered = {c.id: c for c in credentials_of(before)}
    gone = [c for c in ordered.values() if c.role != OVERLAY]
    return Replaced(issued, gone, [c for c in ordered.values() if c.role == OVERLAY])


def _looks_like_id(text: str) -> bool:
    return len(text) == 8 and all(c in "0123456789abcdef" for c in text)


def check_role(role: str, side: str, sides: Sequence[str]) -> None:
    """A role and side as the HTTP API names them: a player's side is one of the battle's, and
    only a player has one."""
    if role not in ROLES:
        raise Refusal(Words("no role {role!r}: referee, player, spectator or overlay", role=role), field="role")
    if role == "player" and side not in sides:
        said = Words(
            "a player's side is one of this battle's ({sides}), not {side!r}", sides=", ".join(sides), side=side
        )
        raise Refusal(said, field="side")
    if role != "player" and side:
        said = Words("only a player's token has a side; a token of the role {role!r} has none", role=role)
        raise Refusal(said, field="side")


def revoke_token_id(store: EventStore, battle: str, token_id: str) -> Credential:
    """Revoke the one token with this id; every other keeps working."""
    found = [t for t in store.tokens(battle) if token_id_of(t.token_hash) == token_id]
    if not found:
        raise UnknownToken(battle, token_id)
    store.change_tokens(battle, drop=[t.token_hash for t in found])
    return credential(found[0])


class UnknownToken(LookupError):
    """No token of the battle has this id."""

    def __init__(self, battle: str, token_id: str) -> None:
        super().__init__(Words("battle {battle!r} has no token with id {id!r}", battle=battle, id=token_id))


def role_of(name: str, sides: Sequence[str]) -> tuple[str, str]:
    """(role, side) as the store keeps them, from a role's name on the command line: referee,
    spectator, overlay, or a side's name for that side's player."""
    if name in ("referee", "spectator", OVERLAY):
        return name, ""
    if name in sides:
        return "player", name
    roles = ", ".join(["referee", "spectator", OVERLAY, *sides])
    raise Refusal(Words("no role {name!r} in this battle (roles: {roles})", name=name, roles=roles), field="role")


def revoke_tokens(
    store: EventStore, battle: str, which: str, sides: Sequence[str], *, reissue: bool = False
) -> Revoked:
    """Revoke one token by its id, or every token of a role (referee, spectator, overlay or a side's
    name; a role's name wins over an id that happens to be spelled the same). Every other token of
    the battle keeps working: revoking the spectators leaves the overlays. With `reissue`, one fresh
    token takes their place, labelled as the first."""
    kept = sorted(store.tokens(battle), key=lambda t: (t.created, t.token_hash))
    if which in ("referee", "spectator", OVERLAY, *sides) or not _looks_like_id(which):
        role, side = role_of(which, sides)  # a name that is no role is refused here, the roles named
        chosen = [t for t in kept if (t.role, t.side) == (role, side)]
        if not chosen:
            raise Refusal(
                Words("battle {battle!r} has no {role} token to revoke", battle=battle, role=which), field="role"
            )
    else:
        chosen = [t for t in kept if token_id_of(t.token_hash) == which]
        if not chosen:
            said = Words(
                "battle {battle!r} has no token with id {id!r} (`morale tokens {battle}` lists the ids)",
                battle=battle,
                id=which,
            )
            raise Refusal(said, field="token")
    fresh, add = None, []
    if reissue:
        first = chosen[0]
        fresh, stored = _fresh(first.role, first.side, first.label or "reissued", utc_now())
        add = [stored]
    store.change_tokens(battle, drop=[t.token_hash for t in chosen], add=add)
    return Revoked(revoked=[credential(t) for t in chosen], token=fresh)


class Visible(msgspec.Struct, frozen=True, kw_only=True):
    """A battle a token opens, and what the token may do in it."""

    battle: str
    role: Role
    side: str = ""  # the player's side
    events: int  # the battle's last sequence number


def visible_battles(store: EventStore, token: str) -> list[Visible]:
    """Every battle this token opens (`GET /battles`), an overlay's as a spectator's (what it may do)."""
    return [
        Visible(battle=battle, role=_granted_role(role), side=side, events=store.last_seq(battle))
        for battle, role, side in store.token_battles(token_hash(token))
    ]


def _granted_role(stored_role: str) -> Role:
    """What a credential's role may do: an overlay's token does what a spectator's does."""
    return "spectator" if stored_role == OVERLAY else stored_role  # type: ignore[return-value]


def grant_for(store: EventStore, battle: str, token: str) -> Grant | None:
    """What the token may do in the battle, or None if it does not open it. Only reads."""
    found = store.token_grant(battle, token_hash(token))
    return None if found is None else _grant(found)


def _grant(found: StoredToken) -> Grant:
    token_id = token_id_of(found.token_hash)
    overlay = found.role == OVERLAY
    return Grant(role=_granted_role(found.role), side=found.side, token_id=token_id, label=found.label, overlay=overlay)


class Opened(NamedTuple):
    """A token that opens a battle: what it may do, and whether its use is to be noted."""

    grant: Grant
    token_hash: str
    note_use: bool  # its "last used" is older than LAST_USED_EVERY_S


def opened_with(store: EventStore, battle: str, token: str) -> Opened | None:
    """The grant, and whether `note_use` is due once the request has been answered. Only reads: a
    refused request writes nothing, and a burst of requests notes one use."""
    found = store.token_grant(battle, token_hash(token))
    return None if found is None else opened_by(found)


def opened_by(found: StoredToken) -> Opened:
    """What a stored token opens, and whether its use is due to be noted (its last use is old)."""
    return Opened(_grant(found), found.token_hash, found.last_used < utc_now(-LAST_USED_EVERY_S))


def note_use(store: EventStore, battle: str, digest: str) -> None:
    """Say the token was used now: at most once a minute per token (LAST_USED_EVERY_S), so the
    console's polling and following all game long cost a write a minute, not one a request."""
    store.touch_token(battle, digest, utc_now(), utc_now(-LAST_USED_EVERY_S))


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
        where = (offset, len(events)) if len(events) > 1 else None
        if isinstance(event, SeedCommitted | SeedRevealed):  # a player's seed is their own side's alone
            if event.side != grant.side:
                said = Words("a player commits and reveals only the seed of their own side, {side}", side=grant.side)
                raise Forbidden(_of_batch(said, where), field="side")
            continue
        if battle.confirmation and _played_without_referee(grant, event):
            continue
        named = _unit_named(event)
        if named is None:
            said = Words("{type} is for the referee, not a player", type=event.__struct_config__.tag)
            raise Forbidden(_of_batch(said, where), field="type")
        field, unit_id = named
        check_own_unit(grant, battle, unit_id, field=field, at=where)
        if isinstance(event, DiceRolled) and event.source == "engine":
            said = Words("engine dice are rolled by the server (POST .../roll), not posted")
            raise Forbidden(_of_batch(said, where), field="source")


def _of_batch(said: Words, where: tuple[int, int] | None) -> Words:
    """A refusal of one event of a batch says which ("event 2 of 3: ..."); of an event alone, just the refusal."""
    if where is None:
        return said
    return Words("event {offset} of {count}: {reason}", offset=where[0], count=where[1], reason=said)


def _played_without_referee(grant: Grant, event: AnyEvent) -> bool:
    """What a player may enter beyond their own units when the players confirm each other's entries."""
    match event:
        case EntryConfirmed() | EntryDisputed() | DisputeResolved():
            return True
        case PhaseStarted() | PhaseEnded():
            return event.side == grant.side
        case CombatResolved():
            return any(side.side == grant.side for side in event.sides)
    return False


def check_may_strike(
    grant: Grant, seqs: Sequence[int], authors: Mapping[int, Author | None], disputing: str = ""
) -> None:
    """The referee strikes anything. A player strikes only entries sealed with their own token's id
    (an undo of their own), and so only a strike whose every event is theirs; except that striking
    their own entry that `disputing` (a side) disputes takes that side's later entries with it
    (`engine.dispute.resolve`: the side that disputed it asked for it to go)."""
    if _unlimited(grant):
        return
    for seq in seqs:
        author = authors.get(seq)
        if author is not None and grant.token_id and author.token == grant.token_id:
            continue
        followed = seq != seqs[0] and bool(disputing)
        if followed and author is not None and author.role == "player" and author.side == disputing:
            continue
        said = Words(
            "a player strikes only entries made with their own token, and event {seq} was not: the referee strikes it",
            seq=seq,
        )
        raise Forbidden(said, field="seq")


def check_own_unit(
    grant: Grant, battle: Battle, unit_id: str, *, field: str = "unit", at: tuple[int, int] | None = None
) -> None:
    """A player acts only for units of their own side (`at`: the event's place in its batch)."""
    if _unlimited(grant):
        return
    unit = battle.units.get(unit_id)
    if unit is None or unit.side != grant.side:
        said = Words("{unit!r} is not a unit of {side}, the side this token plays", unit=unit_id, side=grant.side)
        raise Forbidden(_of_batch(said, at), field=field)


def _unlimited(grant: Grant) -> bool:
    """True for the referee; refuses a spectator; False for a player, whose every act is checked."""
    if grant.role == "spectator":
        raise Forbidden(Words("a spectator's token reads and follows the battle; it records nothing"))
    return grant.role == "referee"
