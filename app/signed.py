"""Signed heads at the app's edge: a store's key shown and rotated, an exported battle checked
offline against a public key, and a store's own signatures checked against the keys it lists.

The pure checks are `projections/signed.py`; the key and its files are `events/signing.py`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from morale.core.rules import Refusal
from morale.core.words import Words
from morale.events.locate import is_database_url
from morale.events.signing import (
    KEY_FILE_VARIABLE,
    KEY_VARIABLE,
    SignedHead,
    SigningKey,
    key_file_beside,
    public_key_from_text,
    rotate_key_file,
)
from morale.events.store import EventStore
from morale.projections.signed import HeadCheck, check_heads, listed_heads

from .transfer import Checked, check_lines

if TYPE_CHECKING:  # cryptography is imported where a key is read or a signature checked (events/signing.py)
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

# Said where a PostgreSQL store has no key: its nodes must share one, so it never makes its own.
NO_KEY = Words(
    "this store has no signing key: give it one in ${key} (PEM or base64) or a file named by ${key_file}, the same "
    "on every node",
    key=KEY_VARIABLE,
    key_file=KEY_FILE_VARIABLE,
)


class StoreHeads(msgspec.Struct, frozen=True, kw_only=True):
    """A store's signatures of one battle, each key's checked against the public key it lists."""

    ok: bool
    signed: bool  # False: no head of this battle was ever signed (written before morale signed)
    checks: list[HeadCheck]


def store_heads(store: EventStore, battle: str) -> StoreHeads:
    hashes = {row.seq: row.hash for row in store.raw_rows(battle)}
    heads = store.signed_heads(battle)
    checks = listed_heads(battle, hashes, heads, store.public_keys())
    return StoreHeads(ok=all(check.ok for check in checks), signed=bool(heads), checks=checks)


def heads_at_the_end(store: EventStore, battle: str) -> list[tuple[SignedHead, str]]:
    """The heads signed at the battle's last event, each with its public key's PEM (for a report)."""
    last = store.last_seq(battle)
    listed = store.public_keys()
    return [(head, listed[head.key]) for head in store.signed_heads(battle) if head.seq == last and head.key in listed]


@dataclass(frozen=True)
class FileVerified:
    checked: Checked
    heads: HeadCheck


def public_key_given(given: str) -> tuple[str, Ed25519PublicKey]:
    """`--key`: a file holding the public key, or the key's text (PEM or base64); refused naming it."""
    path = Path(given)
    text = given
    if "BEGIN" not in given and len(given) < 200 and path.is_file():
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as exc:
            said = Words("{given}: cannot read the public key: {error}", given=given, error=str(exc))
            raise Refusal(said, field="--key") from None
    try:
        return text, public_key_from_text(text, given)
    except ValueError as exc:
        if text is given and "BEGIN" not in given:
            said = Words(
                "{given}: no such file, nor an Ed25519 public key's text (PEM, or 32 bytes in base64)", given=given
            )
            raise Refusal(said, field="--key") from None
        unread = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], Words) else str(exc)  # its words kept
        raise Refusal(unread, field="--key") from None


def verify_file(lines: Iterable[bytes], source: str, key: str) -> FileVerified:
    """An exported battle checked with no store: its chain and every event (as `import` checks it),
    then its last head signed by `key`, which must be the file's last event. `Refusal` names what
    failed: the line and seq of a broken link, or the signed head."""
    _, public = public_key_given(key)
    checked = check_lines(lines, source, listed_keys=False)
    hashes = {stored.seq: stored.hash for stored, _ in checked.sealed}
    heads = check_heads(checked.battle, hashes, checked.signed, public)
    if not heads.ok:
        raise Refusal(Words("{where}: {reason}", where=source, reason=heads.problem), field="signed_head")
    return FileVerified(checked=checked, heads=heads)


def key_of(store: EventStore) -> SigningKey:
    key = store.signing_key()
    if key is None:
        raise Refusal(NO_KEY, field="signing_key")
    return key


def rotate(location: str) -> tuple[SigningKey, Path | None]:
    """A new key in a SQLite store's key file, and where the old one was kept, retired (None if
    there was none). A key given by the environment, or a PostgreSQL store's, is rotated where it is
    given, by whoever sets it: refused here, saying so."""
    if os.environ.get(KEY_VARIABLE) or os.environ.get(KEY_FILE_VARIABLE) or is_database_url(location):
        said = Words(
            "this store's key is given by ${key} or ${key_file}: rotate it there (put the new key in the variable or "
            "the file on every node; the old public key stays listed)",
            key=KEY_VARIABLE,
            key_file=KEY_FILE_VARIABLE,
        )
        raise Refusal(said, field="signing_key")
    return rotate_key_file(key_file_beside(location))
