"""A store's Ed25519 signing key, and the signed heads it makes: proof of a log offline.

The hash chain shows a log is whole only against a head hash kept elsewhere. A signed head is that
hash (with the battle and its seq) signed by the store's key, so whoever holds the store's public key
can check an exported battle without trusting whoever handed it over.

Where the key comes from, first found wins:
- `$MORALE_SIGNING_KEY`: the private key's text, PEM (PKCS #8) or its 32 raw bytes in base64;
- `$MORALE_SIGNING_KEY_FILE`: a file holding that text (PostgreSQL nodes sharing one store must all
  sign with the same key: give each the same variable or file);
- for a SQLite store, the file beside it (`demo.db.key`), created on the first append. Beside the
  store and not inside it: a copy of the store file (a backup, a file sent to a judge) must not let
  whoever holds it sign as this store.
A key file readable by anyone but its owner (looser than 0600) is refused. A PostgreSQL store given no
key signs nothing (there is no file beside it to keep one in); `morale verify` says so.

Signatures are kept in the store beside the log, not in it: they are not hashed, and a signature
cannot be derived again without the key, so unlike a snapshot it is kept, not rebuilt.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from .words import Words

# cryptography (~20-50 ms to import) is imported by the functions that sign, verify or read a key,
# not here: every store imports this module for its types, and a read signs nothing.
if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

KEY_VARIABLE = "MORALE_SIGNING_KEY"
KEY_FILE_VARIABLE = "MORALE_SIGNING_KEY_FILE"
# What is signed starts with this, so a morale signature can never be taken for one over other bytes.
_DOMAIN = b"morale signed head v1\n"
_canonical = msgspec.json.Encoder(order="sorted")


class SignedHead(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The battle's log up to `seq`, whose last event is sealed by `hash`, signed by the key `key`
    (its fingerprint); `signature` is the Ed25519 signature in base64."""

    battle: str
    seq: int
    hash: str
    key: str
    signature: str


class PublicKey(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    key: str  # its fingerprint, as the signed heads name it
    pem: str


# The two lines `morale export` writes after the events (app/transfer.py), each an object of one key.
class PublicKeyLine(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    public_key: PublicKey


class SignedHeadLine(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    signed_head: SignedHead


class SigningKeyUnusable(ValueError):
    """A signing key that cannot be used: a file with loose permissions, text that is not a key.
    Raised before anything is written; the message names the file or the variable."""

    field = "signing_key"

    def __init__(self, where: str | Path, reason: str) -> None:
        self.message = Words("{where}: {problem}", where=str(where), problem=reason)
        super().__init__(self.message)
        self.where, self.reason = str(where), reason


def head_message(battle: str, seq: int, hash_: str) -> bytes:
    """The bytes a head's signature covers."""
    return _DOMAIN + _canonical.encode({"battle": battle, "seq": seq, "hash": hash_})


def fingerprint(public: Ed25519PublicKey) -> str:
    """A public key's short name: "ed25519:" and the first 16 hex digits of its raw bytes' sha256."""
    from cryptography.hazmat.primitives import serialization

    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return "ed25519:" + hashlib.sha256(raw).hexdigest()[:16]


def public_base64(public: Ed25519PublicKey) -> str:
    """The public key's 32 raw bytes in base64: the short form a notation tag carries."""
    from cryptography.hazmat.primitives import serialization

    return base64.b64encode(public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)).decode()


def public_pem(public: Ed25519PublicKey) -> str:
    from cryptography.hazmat.primitives import serialization

    return public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


class SigningKey:
    """A store's private key: signs heads, and names itself by its public key's fingerprint."""

    def __init__(self, private: Ed25519PrivateKey) -> None:
        self._private = private
        self.public = private.public_key()
        self.fingerprint = fingerprint(self.public)
        self.public_pem = public_pem(self.public)

    def sign(self, battle: str, seq: int, hash_: str) -> SignedHead:
        signature = self._private.sign(head_message(battle, seq, hash_))
        return SignedHead(
            battle=battle, seq=seq, hash=hash_, key=self.fingerprint, signature=base64.b64encode(signature).decode()
        )

    def private_pem(self) -> bytes:
        from cryptography.hazmat.primitives import serialization

        return self._private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )


def generate() -> SigningKey:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return SigningKey(Ed25519PrivateKey.generate())


def _raw_base64(text: str) -> bytes | None:
    try:
        raw = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == 32 else None


def private_key_from_text(text: str, where: str) -> SigningKey:
    """A private key from PEM (PKCS #8) or 32 raw bytes in base64; `SigningKeyUnusable` naming `where`."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    raw = _raw_base64(text)
    if raw is not None:
        return SigningKey(Ed25519PrivateKey.from_private_bytes(raw))
    try:
        key = serialization.load_pem_private_key(text.encode(), password=None)
    except (ValueError, TypeError):
        key = None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningKeyUnusable(where, Words("not an Ed25519 private key (PEM, or 32 bytes in base64)"))
    return SigningKey(key)


def public_key_from_text(text: str, where: str) -> Ed25519PublicKey:
    """A public key from PEM or 32 raw bytes in base64; `ValueError` naming `where` if it is neither."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    raw = _raw_base64(text)
    if raw is not None:
        return Ed25519PublicKey.from_public_bytes(raw)
    try:
        key = serialization.load_pem_public_key(text.encode())
    except (ValueError, TypeError):
        key = None
    if not isinstance(key, Ed25519PublicKey):
        raise ValueError(Words("{where}: not an Ed25519 public key (PEM, or 32 bytes in base64)", where=where))
    return key


def signature_matches(public: Ed25519PublicKey, head: SignedHead) -> bool:
    from cryptography.exceptions import InvalidSignature

    try:
        signature = base64.b64decode(head.signature, validate=True)
        public.verify(signature, head_message(head.battle, head.seq, head.hash))
    except (InvalidSignature, binascii.Error, ValueError):
        return False
    return True


def read_key_file(path: Path) -> SigningKey:
    """The key in `path`, refused if anyone but its owner may read or write it."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise SigningKeyUnusable(
                path,
                Words(
                    "the signing key file has permissions {mode:04o}, looser than 0600: chmod 600 {path}",
                    mode=mode,
                    path=str(path),
                ),
            )
        text = path.read_text()
    except OSError as exc:
        raise SigningKeyUnusable(path, Words("cannot read the signing key: {error}", error=exc.strerror)) from None
    return private_key_from_text(text, str(path))


def create_key_file(path: Path, key: SigningKey | None = None) -> SigningKey:
    """Write a new key (or `key`) to `path`, which must not exist, readable by its owner alone. Two
    writers creating it at once: one writes it, the other reads what the first wrote.

    The key is written whole to a private file first and then linked into place: a link appears with
    all its text or not at all, where a file created and then written could be read empty by a rival
    that found it already there (six first appends at once on a new server did)."""
    key = key or generate()
    draft = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(8)}.new")
    try:
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(key.private_pem())
        os.link(draft, path)
    except FileExistsError:
        return read_key_file(path)
    except OSError as exc:
        raise SigningKeyUnusable(path, Words("cannot create the signing key: {error}", error=exc.strerror)) from None
    finally:
        draft.unlink(missing_ok=True)
    return key


def key_file_beside(store_path: str | Path) -> Path:
    """Where a SQLite store keeps its key: the store's file name with `.key` after it."""
    return Path(f"{store_path}.key")


def given_key() -> SigningKey | None:
    """The key the environment gives, if it gives one."""
    if text := os.environ.get(KEY_VARIABLE):
        return private_key_from_text(text, f"${KEY_VARIABLE}")
    if path := os.environ.get(KEY_FILE_VARIABLE):
        return read_key_file(Path(path))
    return None


def sqlite_key(store_path: str) -> Callable[[], SigningKey]:
    """How a SQLite store finds its key at its first append: the environment's, or the file beside
    it (created then). A store in memory signs with a key of its own that dies with it."""

    def find() -> SigningKey:
        if (key := given_key()) is not None:
            return key
        if store_path == ":memory:":
            return generate()
        path = key_file_beside(store_path)
        return read_key_file(path) if path.exists() else create_key_file(path)

    return find


def rotate_key_file(path: Path) -> tuple[SigningKey, Path | None]:
    """A new key in `path`; the old one, if any, is kept beside it as `path.FINGERPRINT.retired`
    (0600), so nothing signs with it again but it is not lost. Its public key stays listed in the
    store, and what it signed still verifies."""
    retired = None
    if path.exists():
        old = read_key_file(path)
        retired = path.with_name(f"{path.name}.{old.fingerprint.removeprefix('ed25519:')}.retired")
        path.replace(retired)
    return create_key_file(path), retired
