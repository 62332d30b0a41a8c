"""Check a battle's signed heads: the proof, for whoever holds a store's public key, that a log is
the one that store wrote, up to where it signed.

`check_heads` answers for a log (its events' hashes by seq) and the heads signed over it: the last
head signed by the key in question must be at the log's last event, seal that event's hash, and
carry a signature the key makes. Each refusal names what failed. It reads nothing and writes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import msgspec

from morale.core.words import Words, listed
from morale.events.signing import SignedHead, fingerprint, public_key_from_text, signature_matches

if TYPE_CHECKING:  # cryptography is imported where a key is read or a signature checked (events/signing.py)
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


class HeadCheck(msgspec.Struct, frozen=True, kw_only=True):
    """What a check of signed heads found. `ok`: the log is the one the key signed, to its end."""

    ok: bool
    key: str  # the fingerprint checked against
    signed_seq: int  # the last head that key signed (0: none)
    last_seq: int  # where the log ends
    heads: int  # how many heads that key signed in this log
    problem: str  # "" when ok; otherwise one sentence naming what failed, in words


def check_heads(
    battle: str,
    hashes: Mapping[int, str],
    heads: Sequence[SignedHead],
    public: Ed25519PublicKey,
    *,
    to_the_end: bool = True,
) -> HeadCheck:
    """`hashes`: each event's hash by seq, as the log holds it. Every head signed by `public` is
    checked (a bad signature anywhere is a forgery), and the last must be the log's end unless
    `to_the_end` is False (a key retired before the log's last append)."""
    key = fingerprint(public)
    last_seq = max(hashes, default=0)
    mine = sorted((head for head in heads if head.key == key), key=lambda head: head.seq)
    found = {"key": key, "last_seq": last_seq, "heads": len(mine)}

    def refused(problem: str, signed_seq: int) -> HeadCheck:
        return HeadCheck(ok=False, signed_seq=signed_seq, problem=problem, **found)

    if not mine:
        others = sorted({head.key for head in heads})
        if others:
            said = Words(
                "no head is signed by key {key}; the heads are signed by {others}", key=key, others=listed(others)
            )
            return refused(said, 0)
        said = Words(
            "no head of battle {battle!r} is signed: nothing to check key {key} against", battle=battle, key=key
        )
        return refused(said, 0)
    signed_seq = mine[-1].seq
    if to_the_end and signed_seq != last_seq:
        said = Words(
            "the last signed head is seq {signed} but the log ends at seq {last}", signed=signed_seq, last=last_seq
        )
        return refused(said, signed_seq)
    for head in mine:
        if head.battle != battle:
            said = Words(
                "the head signed at seq {seq} names battle {named!r}, not {battle!r}",
                seq=head.seq,
                named=head.battle,
                battle=battle,
            )
            return refused(said, head.seq)
        if not signature_matches(public, head):
            said = Words("the signature of the head at seq {seq} does not match key {key}", seq=head.seq, key=key)
            return refused(said, head.seq)
        held = hashes.get(head.seq)
        if held is None:
            said = Words(
                "the head signed at seq {seq} is past the log's end at seq {last}", seq=head.seq, last=last_seq
            )
            return refused(said, head.seq)
        if held != head.hash:
            said = Words(
                "the head signed at seq {seq} seals hash {sealed}... but event {seq} hashes to {held}...: "
                "the log was rewritten after it was signed",
                seq=head.seq,
                sealed=head.hash[:16],
                held=held[:16],
            )
            return refused(said, head.seq)
    return HeadCheck(ok=True, signed_seq=signed_seq, problem="", **found)


def listed_heads(
    battle: str,
    hashes: Mapping[int, str],
    heads: Sequence[SignedHead],
    public_keys: Mapping[str, str],
) -> list[HeadCheck]:
    """Heads checked against the public keys listed beside them (a store's, or a file's own), one
    check per key. That proves no more than the listing, but catches a head or an event changed
    since: each signature must hold and seal its event's hash, and the last head of all must be at
    the log's end (the key that signed it is the one signing now; an older key stopped earlier)."""
    checks = []
    last_key = max(heads, key=lambda head: head.seq).key if heads else ""
    for key in sorted({head.key for head in heads}):
        listed = public_keys.get(key)
        if listed is None:
            checks.append(
                HeadCheck(
                    ok=False,
                    key=key,
                    signed_seq=0,
                    last_seq=max(hashes, default=0),
                    heads=0,
                    problem=Words("heads are signed by key {key}, which the store does not list", key=key),
                )
            )
            continue
        try:
            public = public_key_from_text(listed, key)
        except ValueError as exc:
            problem = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)  # Words, if it has them
            checks.append(HeadCheck(ok=False, key=key, signed_seq=0, last_seq=0, heads=0, problem=problem))
            continue
        checks.append(check_heads(battle, hashes, heads, public, to_the_end=key == last_key))
    return checks
