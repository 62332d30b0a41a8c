"""Verify a battle's log: the hash chain, the board each phase end recorded, and every engine roll.

Three independent checks, each reporting the first sequence number where it fails:
- the chain: each event's hash covers the previous hash and its own bytes, so an edit anywhere
  breaks that link (and, if the editor re-hashed, the head hash a judge noted down earlier). The
  store keeps copies of some sealed fields in columns of their own, which `morale log` shows and
  replay reads (`recorded_at`, `schema_version`, `type`): each must say what the sealed bytes say;
- the replay: every event must still be accepted by the referee, and each phase end's
  `state_digest` (the board as the writer saw it when the phase closed) must be the board this
  engine derives at that point: a changed log or changed rules show up at the exact phase;
- the dice: once a secret is revealed, every engine roll made with it is recomputed from it and the
  players' seeds in force at that roll. A reveal commits to a fresh secret (`engine.dice.reveal`),
  so a log may hold several: each roll is checked against the secret it was rolled with.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import msgspec

from morale.core.dice import commitment, engine_dice, seeds_in_force
from morale.core.fold import Fold
from morale.core.outcomes import Caused
from morale.core.rules import Refusal
from morale.core.state import digest
from morale.core.words import Words
from morale.events.codec import GENESIS_HASH, MalformedEvent, RawStored, chain_hash, decode_raw
from morale.events.store import RawRow
from morale.events.types import AnyEvent, DiceRevealed, DiceRolled, PhaseEnded


class Finding(msgspec.Struct, frozen=True, kw_only=True):
    check: str  # "chain", "replay", "digest" or "dice"
    seq: int
    message: str  # in words, said in the reader's language


class Verification(msgspec.Struct, frozen=True, kw_only=True):
    battle: str
    ok: bool
    events: int
    head: str  # the last event's hash: note it down, and a later verify shows nothing was rewritten
    findings: list[Finding]  # the first problem each check found, in log order
    digests_checked: int
    digests_unrecorded: int  # phase ends written before digests were kept (schema version 1)
    table_rolls: int  # typed in from the table: nothing to recompute
    engine_rolls: int
    engine_rolls_checked: int
    dice_secret: str  # "revealed" (in the log), "given" (on the command line) or "not revealed"


@dataclass(frozen=True)
class EngineRoll:
    seq: int
    unit: str
    test: str
    dice: tuple[int, ...]
    epoch: int = 0  # which secret it was rolled with: the start's (0), then each reveal's fresh one
    seeds: tuple[str, ...] = ()  # the players' seeds mixed in


@dataclass
class Auditor:
    """Folds a log through the referee as a judge would, noting what does not add up."""

    battle_id: str
    fold: Fold = field(init=False)
    engine_rolls: list[EngineRoll] = field(default_factory=list)
    table_rolls: int = 0
    digests_checked: int = 0
    digests_unrecorded: int = 0
    secrets: list[str] = field(default_factory=list)  # each revealed secret, in log order

    def __post_init__(self) -> None:
        self.fold = Fold(self.battle_id)

    def step(self, seq: int, event: AnyEvent) -> tuple[Caused, list[Finding]]:
        """Check and fold one event. Raises `Refusal` if the referee refuses it; returns what it
        caused and any disagreement with what its writer recorded."""
        findings = []
        if isinstance(event, PhaseEnded) and self.fold.battle is not None:
            if not event.state_digest:
                self.digests_unrecorded += 1
            else:
                self.digests_checked += 1
                derived = digest(self.fold.battle)
                if derived != event.state_digest:
                    findings.append(
                        Finding(
                            check="digest",
                            seq=seq,
                            message=Words(
                                "the board at this phase end was recorded as {recorded}... but replay gives "
                                "{derived}...: the log before it or the rules changed",
                                recorded=event.state_digest[:12],
                                derived=derived[:12],
                            ),
                        )
                    )
        if isinstance(event, DiceRolled):
            if event.source == "engine" and self.fold.battle is not None:
                seeds = seeds_in_force(self.fold.battle)
                roll = EngineRoll(seq, event.unit, event.test, tuple(event.dice), len(self.secrets), seeds)
                self.engine_rolls.append(roll)
            else:
                self.table_rolls += 1
        self.fold.check(event)
        if isinstance(event, DiceRevealed):
            self.secrets.append(event.secret)
        return self.fold.advance(seq, event), findings

    @property
    def awaiting_secret(self) -> bool:
        """Whether the secret in force is still unrevealed (the engine may yet roll with it)."""
        return bool(self.fold.battle and self.fold.battle.dice_commitment)

    def checkable(self, secrets: list[str]) -> list[EngineRoll]:
        return [roll for roll in self.engine_rolls if roll.epoch < len(secrets)]

    def dice_findings(self, secrets: list[str]) -> list[Finding]:
        """Every engine roll whose secret is known recomputed from it and its seeds; the first that differs."""
        for roll in self.checkable(secrets):
            expected = engine_dice(secrets[roll.epoch], self.battle_id, roll.seq, len(roll.dice), roll.seeds)
            if expected != roll.dice:
                shown, derived = ", ".join(map(str, roll.dice)), ", ".join(map(str, expected))
                return [
                    Finding(
                        check="dice",
                        seq=roll.seq,
                        message=Words(
                            "the engine's {test} roll for {unit} shows {shown}, but the dice secret gives {derived}",
                            test=roll.test,
                            unit=roll.unit,
                            shown=shown,
                            derived=derived,
                        ),
                    )
                ]
        return []


def link_problem(
    expected_seq: int, expected_prev: str, seq: int, prev_hash: str, hash_: str, body: bytes
) -> tuple[str, str] | None:
    """What is wrong with one link of the hash chain, as (field, message), or None if nothing is."""
    if seq != expected_seq:
        return "seq", Words(
            "sequence number {seq} where {expected} was expected: an event is missing or out of place",
            seq=seq,
            expected=expected_seq,
        )
    if prev_hash != expected_prev:
        return "prev_hash", Words(
            "prev_hash does not link to event {seq}'s hash: an earlier event was replaced", seq=seq - 1
        )
    if chain_hash(prev_hash, body) != hash_:
        return "hash", Words("hash does not match the event's bytes: the event was changed after it was written")
    return None


def column_problem(row: RawRow, raw: RawStored) -> tuple[str, str] | None:
    """A column beside the sealed bytes that says something else than they do, as (field, message),
    or None. The hash covers only the bytes; without this a forged time would pass verify while
    `morale log` shows it, and a forged schema version while the board refuses the battle."""
    for name, stored, sealed in (
        ("recorded_at", row.recorded_at, raw.recorded_at),
        ("schema_version", row.schema_version, raw.schema_version),
        ("type", row.type, raw.event.get("type")),
    ):
        if stored != sealed:
            return name, Words(
                "the stored {column} {stored!r} is not the {sealed!r} its hash seals: "
                "the row was changed after it was written",
                column=name,
                stored=stored,
                sealed=sealed,
            )
    return None


def refused_words(exc: Exception) -> str:
    """A refusal or a malformed event as `str(exc)` words it ("rule: why"), its words kept sayable in
    the reader's language (the rule ID or field as it is)."""
    if isinstance(exc, Refusal):
        where = exc.rule or exc.field
        return Words("{where}: {reason}", where=where, reason=exc.message) if where else exc.message
    return exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)


def _decoded(body: str) -> RawStored | MalformedEvent:
    try:
        return decode_raw(body)
    except MalformedEvent as exc:
        return exc


def verify(battle_id: str, rows: Iterable[RawRow], secret: str | None = None) -> Verification:
    """`rows`: the rows exactly as stored (`EventStore.raw_rows`). `secret`: a dice secret published
    outside the log, to check engine rolls before (or instead of) a `dice_revealed` event."""
    auditor = Auditor(battle_id)
    findings: list[Finding] = []
    chain_ok = replay_ok = True
    count, head = 0, GENESIS_HASH
    for row in rows:
        count += 1
        raw = _decoded(row.body)
        if chain_ok:
            problem = link_problem(count, head, row.seq, row.prev_hash, row.hash, row.body.encode("utf-8"))
            if problem is None and isinstance(raw, RawStored):
                problem = column_problem(row, raw)
            if problem:
                findings.append(Finding(check="chain", seq=row.seq, message=problem[1]))
                chain_ok = False
        head = row.hash
        if replay_ok:
            try:
                if isinstance(raw, MalformedEvent):
                    raise raw
                if (raw.battle, raw.seq) != (battle_id, row.seq):
                    raise MalformedEvent(
                        Words("the stored bytes say battle {battle!r}, event {seq}", battle=raw.battle, seq=raw.seq)
                    )
                raw.read_author()  # an author beyond its fields' limits is refused like an event
                findings += auditor.step(row.seq, raw.read_event())[1]
            except (Refusal, MalformedEvent) as exc:
                said = Words("the referee refuses it: {reason}", reason=refused_words(exc))
                findings.append(Finding(check="replay", seq=row.seq, message=said))
                replay_ok = False
    secrets = list(auditor.secrets)
    source = "revealed" if secrets else "not revealed"
    if secret and (auditor.awaiting_secret or not secrets):  # the secret in force, published elsewhere
        committed = auditor.fold.battle.dice_commitment if auditor.fold.battle else ""
        if not committed or commitment(secret) != committed:
            findings.append(
                Finding(
                    check="dice",
                    seq=1,
                    message=Words("the given secret does not hash to the battle's dice commitment"),
                )
            )
        else:
            secrets.append(secret)
            source = "given"
    findings += auditor.dice_findings(secrets)
    digest_findings = [f for f in findings if f.check == "digest"][:1]
    findings = sorted([f for f in findings if f.check != "digest"] + digest_findings, key=lambda f: f.seq)
    return Verification(
        battle=battle_id,
        ok=not findings,
        events=count,
        head=head,
        findings=findings,
        digests_checked=auditor.digests_checked,
        digests_unrecorded=auditor.digests_unrecorded,
        table_rolls=auditor.table_rolls,
        engine_rolls=len(auditor.engine_rolls),
        engine_rolls_checked=len(auditor.checkable(secrets)),
        dice_secret=source,
    )
