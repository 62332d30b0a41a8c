"""Where the log lives. A small protocol, and the embedded default: SQLite through sqlite-utils.

An append is all-or-nothing and carries the sequence number its writer last saw; if another writer
got there first the append is refused with `ConflictError` and nothing is written (`BattleExists`
when the writer meant to start the battle).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

from .codec import GENESIS_HASH, body_bytes, chain_hash, read_rows, stored_events
from .hooks import HOOK_CHANGES, DeliveryAttempt, StoredHook
from .signing import SignedHead, SigningKey, given_key, sqlite_key
from .types import AnyEvent, Author, LogEntry, PhaseEnded, StoredEvent
from .words import Words

if TYPE_CHECKING:
    import sqlite_utils

_LAST = 2**63 - 1  # the largest sequence number SQLite can hold: "up to the end of the log"


class ConflictError(Exception):
    """The log does not end where the writer expected: another writer appended to the battle after
    this writer last read it, or the writer named a point the log never reached."""

    field = "expected_seq"  # what the writer got wrong; the message starts with it

    def __init__(self, battle: str, expected_seq: int, actual_seq: int) -> None:
        self.battle, self.expected_seq, self.actual_seq = battle, expected_seq, actual_seq
        # `message`: the words (said in the reader's language at the edge); `str(exc)` their English.
        self.message = Words("{field}: {problem}", field=self.field, problem=self.words())
        super().__init__(self.message)

    def words(self) -> str:
        """Only a log that has grown past the expected point was raced. A point beyond its end or
        below zero is a mistake in the request, and "another writer got there first" would send its
        writer looking for a writer there never was."""
        if self.expected_seq < 0:
            return Words("must be 0 or more, not {expected}", expected=self.expected_seq)
        if self.expected_seq > self.actual_seq:
            return Words(
                "expected seq {expected} but the log ends at {actual}",
                expected=self.expected_seq,
                actual=self.actual_seq,
            )
        return Words(
            "battle {battle!r} is at sequence {actual}, not {expected}; another writer got there first: read the log"
            " again and retry",
            battle=self.battle,
            actual=self.actual_seq,
            expected=self.expected_seq,
        )


class BattleExists(ConflictError):
    """A writer meant to start a battle (it expected an empty log), and the battle exists: created
    earlier, or by a writer that got there first."""

    field = "battle"

    def __init__(self, battle: str, actual_seq: int) -> None:
        super().__init__(battle, 0, actual_seq)

    def words(self) -> str:
        return Words("battle {battle!r} already exists in this store", battle=self.battle)


class ChainMoved(ConflictError):
    """The log ends at the expected seq, but its event there is not the one the writer decided
    against (the battle was started afresh under the same id): what the writer read is gone."""

    def words(self) -> str:
        return Words(
            "event {seq} of battle {battle!r} is not the one this writer read (the battle was started afresh): read"
            " the log again and retry",
            seq=self.expected_seq,
            battle=self.battle,
        )


class TokenRevoked(Exception):
    """The token an append was made with no longer opens the battle (revoked since the request came
    in): nothing was written."""

    def __init__(self, battle: str) -> None:
        self.message = Words("the token this request was made with no longer opens battle {battle!r}", battle=battle)
        super().__init__(self.message)
        self.battle = battle


class Precondition(NamedTuple):
    """What an append may ask of the log beyond ending at its expected seq, checked where the events
    are written (in the same transaction, in PostgreSQL the same statement): so a writer that
    skipped a read still writes only on the log it decided against, and only while allowed to."""

    prev_hash: str | None = None  # the hash of the event at expected_seq the writer decided against
    holder: str | None = None  # the sha256 of the token the writer holds: written only while it opens the battle


NO_PRECONDITION = Precondition()


class RawRow(NamedTuple):
    """A stored row exactly as the file holds it. `body` is the bytes the hash seals; the columns
    after `hash` are copies of what the body says, kept for fast reads: a judge compares them."""

    seq: int
    body: str
    prev_hash: str
    hash: str
    schema_version: int
    recorded_at: str
    type: str


class StoredToken(NamedTuple):
    """A battle's credential as the store keeps it: never the secret, only its sha256."""

    token_hash: str
    role: str  # referee, player or spectator
    side: str  # the player's side; empty for the other roles
    label: str = ""  # what the person who issued it called it ("Anna's phone", "table link ...")
    created: str = ""  # when it was issued (UTC, ISO 8601); empty for a token kept before labels were
    last_used: str = ""  # when it last opened the battle, to about a minute; empty if never


class UnknownBattle(LookupError):
    def __init__(self, battle: str) -> None:
        self.message = Words("battle: no battle {battle!r} in this store", battle=battle)
        super().__init__(self.message)
        self.battle = battle


class UnreadableEvent(Exception):
    """A stored event whose bytes are not UTF-8 text: the file was changed outside morale (morale
    writes only text). Named by its sequence number; `morale verify` checks the whole log."""

    def __init__(self, battle: str, seq: int | None) -> None:
        if seq is None:
            self.message = Words(
                "seq: an event of battle {battle!r} is stored as bytes that are not UTF-8 text: the store was changed"
                " outside morale (`morale verify` checks the whole log)",
                battle=battle,
            )
        else:
            self.message = Words(
                "seq: event {seq} of battle {battle!r} is stored as bytes that are not UTF-8 text: the store was"
                " changed outside morale (`morale verify` checks the whole log)",
                seq=seq,
                battle=battle,
            )
        super().__init__(self.message)
        self.battle, self.seq = battle, seq


class StoreUnavailable(Exception):
    """A path that holds no usable store: a missing folder, a folder, a file that is not SQLite, or
    (where the store may not be created) nothing at all. Raised before anything is written."""

    def __init__(self, path: str | Path, reason: str) -> None:
        self.message = Words("{where}: {problem}", where=str(path), problem=reason)
        super().__init__(self.message)
        self.path, self.reason = str(path), reason


# The first 16 bytes of every SQLite database file (an empty file is one too, not yet written).
def check_store_path(path: Path, create: bool) -> None:
    """Refuse a path that cannot hold the store, before SQLite opens it: SQLite's own errors name no
    file, and it would create a file at a mistyped path that was only to be read.

    Only the path is looked at, never the file's bytes: opening and closing any descriptor on a
    database drops every POSIX lock this process holds on it, and a store already open in this
    process (a server thread's) would then lose its WAL to the next process that closes it, and
    with it the appends it acknowledged. What the bytes are, SQLite says itself (`_open`)."""
    if path.is_dir():
        raise StoreUnavailable(path, Words("is a folder, not a store file"))
    if not path.exists():
        if not create:
            raise StoreUnavailable(path, Words("no store at {path}", path=str(path)))
        if not path.parent.is_dir():
            raise StoreUnavailable(path, Words("no folder {folder} to create the store in", folder=str(path.parent)))
        return
    if not create and path.stat().st_size == 0:
        raise StoreUnavailable(path, Words("an empty file, not a store"))


_SQLITE_MAGIC = b"SQLite format 3\x00"
_TOKEN_COLUMNS = {"label", "created", "last_used"}  # added after the first files were written
_EVENT_COLUMNS = {"battle", "seq", "schema_version", "recorded_at", "type", "body", "prev_hash", "hash"}


def check_not_foreign(path: Path) -> None:
    """Refuse an existing file that is not SQLite, by its first bytes, without SQLite opening it.
    Only for a process that holds no store on the file yet (see check_store_path): `import` checks
    its --db this way before it reads the file to import, so a bad --db is named first."""
    check_store_path(path, create=True)
    if not path.exists():
        return
    try:
        with path.open("rb") as file:
            head = file.read(len(_SQLITE_MAGIC))
    except OSError as exc:
        raise StoreUnavailable(path, Words("cannot read it: {error}", error=exc.strerror)) from None
    if head and head != _SQLITE_MAGIC:
        raise StoreUnavailable(path, Words("not a SQLite file"))


@runtime_checkable
class EventStore(Protocol):
    """What the rest of morale needs of a store: the battles' logs, the snapshots kept beside them, and
    each battle's dice secret and access tokens. `SqliteEventStore` is the embedded one,
    `PostgresEventStore` (postgres.py) the one several nodes share; code that is handed a store
    names this type, and only the edges that open one (`locate.open_store`) name a class."""

    # -- the log -------------------------------------------------------------------------------------
    def append(
        self,
        battle: str,
        events: Sequence[AnyEvent],
        expected_seq: int,
        recorded_at: str | None = None,
        dice_secret: str | None = None,
        author: Author | None = None,
        precondition: Precondition = NO_PRECONDITION,
    ) -> list[StoredEvent]:
        """Seal and write `events` after `expected_seq`, all or none; `ConflictError` if the log is not
        there (`BattleExists` if `expected_seq` is 0). `dice_secret`: the secret the events commit to
        (a new battle's, or the fresh one a reveal commits to), kept in the same transaction, in place
        of the one before. `author`: who appends them, sealed
        into each event's hashed bytes. `precondition`: the event at `expected_seq` must carry its
        `prev_hash` (`ChainMoved` if not), and its `holder` token must open the battle
        (`TokenRevoked` if not), both checked as the events are written."""
        ...

    def append_sealed(
        self,
        battle: str,
        sealed: Sequence[tuple[StoredEvent, bytes]],
        dice_secret: str | None = None,
        signed: Sequence[SignedHead] = (),
        public_keys: Mapping[str, str] | None = None,
    ) -> list[StoredEvent]:
        """Write a new battle's events sealed elsewhere (an import or a copy), bytes and hashes as
        given; `dice_secret` (a copy's) kept in the same transaction, and so are the heads the
        other store `signed` and the `public_keys` (fingerprint: PEM) they were signed with."""
        ...

    def signing_key(self) -> SigningKey | None:
        """The key this store signs heads with (found or created at the first append), or None if
        it has none (a PostgreSQL store given no key)."""
        ...

    def signed_heads(self, battle: str) -> list[SignedHead]:
        """The battle's signed heads, by seq then key: every phase end and the end of every append."""
        ...

    def public_keys(self) -> dict[str, str]:
        """{fingerprint: PEM} of every key that signed a head in this store, retired ones too."""
        ...

    def read(self, battle: str, after_seq: int = 0) -> Iterator[StoredEvent]:
        """The battle's stored events after `after_seq`, in log order, with timestamps and hashes."""
        ...

    def events(self, battle: str, after_seq: int = 0, up_to: int | None = None) -> Iterator[LogEntry]:
        """(seq, event) after `after_seq` up to `up_to` (the end if None), in log order: what a fold reads."""
        ...

    def events_of_type(self, battle: str, event_type: str) -> Iterator[LogEntry]:
        """(seq, event) of the battle's events of one type, in log order: a few among many (where
        each phase starts), read without decoding the rest."""
        ...

    def raw_rows(self, battle: str) -> Iterator[RawRow]:
        """Each row exactly as stored, in log order, for checking the hash chain and the columns."""
        ...

    def hash_at(self, battle: str, seq: int) -> str | None:
        """The hash that seals event `seq`, or None if the log holds no such event."""
        ...

    def last_seq(self, battle: str) -> int:
        """The battle's last sequence number; 0 if it has no events (or does not exist)."""
        ...

    def battles(self) -> list[str]:
        """The names of the battles with events in this store, sorted."""
        ...

    def close(self) -> None:
        """Let go of the store; it is not used again."""
        ...

    # -- snapshots: derived state kept beside the log, never part of it ------------------------------
    def save_snapshot(self, battle: str, seq: int, engine: str, blob: bytes) -> None:
        """Keep `blob` as the battle's state at `seq` by this engine version, replacing one kept there."""
        ...

    def snapshot_before(self, battle: str, seq: int, engine: str) -> tuple[int, bytes] | None:
        """(seq, blob) of the latest snapshot at or before `seq` by this engine version, or None."""
        ...

    def drop_snapshots(self, battle: str) -> None:
        """Forget the battle's snapshots and the units they share."""
        ...

    def save_snapshot_units(self, battle: str, engine: str, units: Sequence[tuple[bytes, bytes]]) -> list[int]:
        """Keep (digest, bytes) units once each; their ids in order, a unit already kept keeping its id."""
        ...

    def snapshot_units(self, battle: str, ids: Iterable[int]) -> list[tuple[int, bytes, bytes]]:
        """(id, digest, bytes) of the battle's kept units with these ids, of those it has."""
        ...

    # -- each battle's dice secret (`append` keeps it) and access tokens -----------------------------
    def dice_secret(self, battle: str) -> str | None:
        """The battle's dice secret, or None if none is kept."""
        ...

    def replace_tokens(self, battle: str, grants: Sequence[StoredToken]) -> None:
        """Make these the battle's only tokens: earlier ones stop working (a copy, `--replace-all`)."""
        ...

    def change_tokens(self, battle: str, *, drop: Sequence[str] = (), add: Sequence[StoredToken] = ()) -> int:
        """In one transaction, drop the battle's tokens with these hashes and keep `add` beside the
        others, which are untouched; how many were dropped."""
        ...

    def token_grant(self, battle: str, token_hash: str) -> StoredToken | None:
        """The battle's token with this hash, or None."""
        ...

    def tokens(self, battle: str) -> list[StoredToken]:
        """The battle's tokens, sorted by hash."""
        ...

    def token_battles(self, token_hash: str) -> list[tuple[str, str, str]]:
        """(battle, role, side) of every battle a token with this hash opens, sorted by battle."""
        ...

    def touch_token(self, battle: str, token_hash: str, used_at: str, unless_since: str) -> None:
        """Say the token was used at `used_at`, unless it was already said to be at or after
        `unless_since` (so a burst of requests writes once)."""
        ...

    # -- the web origins the referee allows to call the server about a battle (CORS) ----------------
    def allowed_origins(self, battle: str) -> list[str]:
        """The origins allowed for the battle ("https://overlay.example"), sorted."""
        ...

    def change_origins(self, battle: str, *, add: Sequence[str] = (), drop: Sequence[str] = ()) -> None:
        """In one transaction, allow the origins in `add` (those already allowed stay as they are)
        and stop allowing those in `drop`."""
        ...

    # -- webhooks: each battle's hooks, their attempts, and which node delivers (events/hooks.py) -----
    def hooks(self, battle: str | None = None) -> list[StoredHook]:
        """The battle's hooks (every battle's if None), by battle then id."""
        ...

    def add_hook(self, hook: StoredHook) -> None:
        """Keep a new hook."""
        ...

    def drop_hook(self, battle: str, hook_id: str) -> bool:
        """Forget a hook and its attempts; whether there was one."""
        ...

    def update_hook(self, battle: str, hook_id: str, **changes: int | str) -> bool:
        """Change a hook's delivery fields (HOOK_CHANGES); whether the hook is still there."""
        ...

    def record_attempt(self, attempt: DeliveryAttempt, keep: int) -> None:
        """Keep an attempt, and of the hook's attempts only the last `keep`."""
        ...

    def attempts(self, battle: str, hook_id: str, limit: int) -> list[DeliveryAttempt]:
        """The hook's last `limit` attempts, oldest first."""
        ...

    def take_lease(self, name: str, holder: str, ttl_s: float) -> bool:
        """Hold the lease `name` for `ttl_s` more seconds if no one else holds it now (or it lapsed);
        whether `holder` holds it."""
        ...

    def release_lease(self, name: str, holder: str) -> None:
        """Let go of the lease if `holder` holds it, so another may take it at once."""
        ...


def _unless_no_snapshots(exc: sqlite3.OperationalError) -> None:
    """Re-raise anything but a missing table made on first use: a file no snapshot was ever taken
    in, or no head signed in."""
    if "no such table" not in str(exc):
        raise exc


def _text(stored: bytes | None) -> str:
    return (stored or b"").decode("utf-8", "replace")


def now_utc() -> str:
    """The moment of recording in UTC, to the microsecond: "2026-11-29T18:49:04.406295Z". Built from
    the clock's nanoseconds with each second's text kept: an aware datetime's isoformat was a
    noticeable share of a single append (bench/README.md)."""
    micros = time.time_ns() // 1_000
    return f"{_utc_second(micros // 1_000_000)}.{micros % 1_000_000:06d}Z"


@lru_cache(maxsize=1)
def _utc_second(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))


def seal(
    battle: str,
    events: Sequence[AnyEvent],
    after_seq: int,
    prev_hash: str,
    recorded_at: str,
    author: Author | None = None,
) -> list[tuple[StoredEvent, bytes]]:
    """Number and hash-chain events that are to follow `after_seq`; each with the bytes it hashes,
    which hold its author when one is given."""
    sealed = []
    for offset, event in enumerate(events, start=1):
        seq = after_seq + offset
        version = type(event).version
        body = body_bytes(battle, seq, version, recorded_at, event, author)
        digest = chain_hash(prev_hash, body)
        sealed.append(
            (
                StoredEvent(
                    battle=battle,
                    seq=seq,
                    schema_version=version,
                    recorded_at=recorded_at,
                    event=event,
                    prev_hash=prev_hash,
                    hash=digest,
                    author=author,
                ),
                body,
            )
        )
        prev_hash = digest
    return sealed


class SealingStore:
    """What every store's appends share: the events sealed into the chain after the row the writer
    saw, or a log sealed elsewhere written as given, and the heads signed at each phase end and at
    the end of the batch. Each store writes them its own way (`_write`)."""

    _find_key: Callable[[], SigningKey | None] = staticmethod(given_key)
    _key: SigningKey | None = None
    _key_found = False
    # Keys this store has listed (committed): not listed again at every append, a statement saved.
    _listed: frozenset[str] = frozenset()

    def signing_key(self) -> SigningKey | None:
        if not self._key_found:
            self._key, self._key_found = self._find_key(), True
        return self._key

    def _heads(self, sealed: Sequence[tuple[StoredEvent, bytes]]) -> list[SignedHead]:
        """The heads to sign in a batch: each phase end, and the last event. One Ed25519 signature
        each (tens of microseconds; bench/README.md has the append's cost before and after)."""
        key = self.signing_key()
        if key is None:
            return []
        last = len(sealed) - 1
        return [
            key.sign(stored.battle, stored.seq, stored.hash)
            for index, (stored, _) in enumerate(sealed)
            if index == last or isinstance(stored.event, PhaseEnded)
        ]

    def append(
        self,
        battle: str,
        events: Sequence[AnyEvent],
        expected_seq: int,
        recorded_at: str | None = None,
        dice_secret: str | None = None,
        author: Author | None = None,
        precondition: Precondition = NO_PRECONDITION,
    ) -> list[StoredEvent]:
        if not events:
            return []
        stamp = recorded_at or now_utc()
        return self._write(
            battle,
            expected_seq,
            lambda after, prev: seal(battle, events, after, prev, stamp, author),
            dice_secret,
            precondition=precondition,
        )

    def append_sealed(
        self,
        battle: str,
        sealed: Sequence[tuple[StoredEvent, bytes]],
        dice_secret: str | None = None,
        signed: Sequence[SignedHead] = (),
        public_keys: Mapping[str, str] | None = None,
    ) -> list[StoredEvent]:
        """Write a whole battle sealed elsewhere (an imported log), its bytes and hashes as given,
        with the heads its store signed. The caller has checked the chain and those signatures; the
        battle must not exist yet. This store signs the head too."""
        if not sealed:
            return []
        carried = Carried(list(signed), dict(public_keys or {}))
        return self._write(battle, 0, lambda after, prev: list(sealed), dice_secret, carried)

    def _write(
        self,
        battle: str,
        expected_seq: int,
        sealer: Callable[[int, str], list[tuple[StoredEvent, bytes]]],
        dice_secret: str | None = None,
        carried: Carried | None = None,
        precondition: Precondition = NO_PRECONDITION,
    ) -> list[StoredEvent]:
        raise NotImplementedError

    def _to_sign(self, sealed: Sequence[tuple[StoredEvent, bytes]], carried: Carried | None) -> Carried:
        """The signed heads and public keys an append keeps with its events: this store's own, and
        those a battle sealed elsewhere brought with it."""
        own = self._heads(sealed)
        keys = dict(carried.public_keys) if carried else {}
        if own and (key := self.signing_key()) is not None and key.fingerprint not in self._listed:
            keys[key.fingerprint] = key.public_pem
        # One head a (seq, key): this store's own signature over one it was brought, and a head
        # repeated in a file kept once.
        heads = {(head.seq, head.key): head for head in [*(carried.heads if carried else ()), *own]}
        return Carried(list(heads.values()), keys)


class Carried(NamedTuple):
    """Signed heads and the public keys ({fingerprint: PEM}) they verify against."""

    heads: list[SignedHead]
    public_keys: dict[str, str]


class SqliteEventStore(SealingStore):
    """Many battles in one SQLite file (WAL). `(battle, seq)` is the primary key, so two writers can
    never both hold one sequence number; each append takes the write lock before it checks."""

    def __init__(
        self, path: str | Path, *, busy_timeout_s: float = 10.0, synchronous: str = "NORMAL", create: bool = True
    ) -> None:
        """`create=False`: the file must already be a store (readers refuse a mistyped path rather
        than leave an empty store there); `StoreUnavailable` says what is wrong, before any write."""
        if synchronous not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"synchronous: {synchronous!r} is not a SQLite synchronous level")
        self.path = str(path)
        self._find_key = sqlite_key(self.path)
        self._signing_tables = False  # created by the first append (see _write)
        self._hook_tables = False  # created by the first write about webhooks (_hook_transaction)
        if self.path != ":memory:":
            check_store_path(Path(path), create)
        try:
            self._open(busy_timeout_s, synchronous, create)
        except sqlite3.DatabaseError as exc:  # a damaged file, or one SQLite may not open or write
            reason = (
                Words("not a SQLite file")
                if "not a database" in str(exc)
                else Words("SQLite cannot use it: {error}", error=str(exc))
            )
            raise StoreUnavailable(path, reason) from None

    def _open(self, busy_timeout_s: float, synchronous: str, create: bool) -> None:
        conn = sqlite3.connect(self.path, timeout=busy_timeout_s, isolation_level=None)
        self.conn = conn
        # The first read: a file that is not SQLite fails here, unchanged.
        tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        if not create and "events" not in tables:
            conn.close()
            raise StoreUnavailable(self.path, Words("a SQLite file, but not a morale store (it has no events table)"))
        if "events" in tables and not {row[1] for row in conn.execute('PRAGMA table_info("events")')} >= _EVENT_COLUMNS:
            conn.close()
            raise StoreUnavailable(self.path, Words("a SQLite file whose events table is not a morale log"))
        if self.path != ":memory:":
            self._enable_wal(busy_timeout_s)
        # NORMAL is durable across application crashes in WAL mode; only a power cut can lose the
        # last commits, and never corrupts the file.
        conn.execute(f"PRAGMA synchronous={synchronous}")
        if not {"events", "dice_secrets", "access_tokens"} <= set(tables):
            self._create_tables()
        self._add_token_columns()

    def _enable_wal(self, busy_timeout_s: float) -> None:
        """Switch a new file to WAL. SQLite answers "database is locked" at once, without waiting,
        while another process switches the same file (several `morale new` on a store that does not
        exist yet); once that one has, the file is in WAL and there is nothing left to do."""
        deadline = time.monotonic() + busy_timeout_s
        while True:
            try:
                if self.conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":  # else nothing to do
                    self.conn.execute("PRAGMA journal_mode=wal")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.005)

    def _create_tables(self) -> None:
        # In one IMMEDIATE transaction, which waits for the write lock (the busy timeout): a CREATE
        # in autocommit that meets another process creating the tables is refused at once instead.
        # Plain DDL, not sqlite-utils' `create`: before 4.0 it commits as it goes, ending this
        # transaction. The columns are those sqlite-utils has always written, so old files match.
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                'CREATE TABLE IF NOT EXISTS "events" ("battle" TEXT, "seq" INTEGER, "schema_version" INTEGER, '
                '"recorded_at" TEXT, "type" TEXT, "body" TEXT, "prev_hash" TEXT, "hash" TEXT, '
                'PRIMARY KEY ("battle", "seq"))'
            )
            conn.execute('CREATE TABLE IF NOT EXISTS "dice_secrets" ("battle" TEXT PRIMARY KEY, "secret" TEXT)')
            # Only a token's sha256 is kept: a copy of the file grants nothing.
            conn.execute(
                'CREATE TABLE IF NOT EXISTS "access_tokens" ("battle" TEXT, "token_hash" TEXT, "role" TEXT, '
                '"side" TEXT, "label" TEXT, "created" TEXT, "last_used" TEXT, PRIMARY KEY ("battle", "token_hash"))'
            )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def _add_token_columns(self) -> None:
        """A file written before tokens had labels gets the columns in place, empty for the tokens it
        holds: they keep working, listed as unlabelled and never used."""
        conn = self.conn
        have = {row[1] for row in conn.execute('PRAGMA table_info("access_tokens")')}
        if have >= _TOKEN_COLUMNS:
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            have = {row[1] for row in conn.execute('PRAGMA table_info("access_tokens")')}  # another may have
            for column in sorted(_TOKEN_COLUMNS - have):
                conn.execute(f'ALTER TABLE "access_tokens" ADD COLUMN "{column}" TEXT')
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    @property
    def db(self) -> sqlite_utils.Database:
        """The file through sqlite-utils, for a caller that wants its API. Imported only when asked:
        with numpy installed, importing sqlite-utils imports numpy too, a fifth of a second of every
        command line that opens a store (`morale board`...) for nothing the store itself uses."""
        import sqlite_utils

        return sqlite_utils.Database(self.conn)

    def close(self) -> None:
        self.conn.close()

    def _write(
        self,
        battle: str,
        expected_seq: int,
        sealer: Callable[[int, str], list[tuple[StoredEvent, bytes]]],
        dice_secret: str | None = None,
        carried: Carried | None = None,
        precondition: Precondition = NO_PRECONDITION,
    ) -> list[StoredEvent]:
        self.signing_key()  # a key that cannot be used is refused before the write lock is taken
        conn = self.conn
        # IMMEDIATE takes the write lock now, so the check below and the insert are one step.
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = conn.execute(
                "SELECT seq, hash FROM events WHERE battle = ? ORDER BY seq DESC LIMIT 1", (battle,)
            ).fetchone()
            actual_seq, prev_hash = row if row else (0, GENESIS_HASH)
            if actual_seq != expected_seq:
                if expected_seq == 0:  # the writer meant to start the battle
                    raise BattleExists(battle, actual_seq)
                raise ConflictError(battle, expected_seq, actual_seq)
            if precondition.prev_hash is not None and precondition.prev_hash != prev_hash:
                raise ChainMoved(battle, expected_seq, actual_seq)
            if (
                precondition.holder is not None
                and not conn.execute(
                    "SELECT 1 FROM access_tokens WHERE battle = ? AND token_hash = ?", (battle, precondition.holder)
                ).fetchone()
            ):
                raise TokenRevoked(battle)
            sealed = sealer(actual_seq, prev_hash)
            if dice_secret is not None:
                # With the events that commit to it or not at all: a writer that lost the race to
                # start the battle rolls back here, and never replaces the winner's secret. REPLACE:
                # an older engine kept the secret before it knew the battle would start, and left it
                # behind when the start was refused.
                conn.execute(
                    "INSERT OR REPLACE INTO dice_secrets (battle, secret) VALUES (?, ?)", (battle, dice_secret)
                )
            # A plain prepared INSERT: sqlite-utils' insert_all re-reads the table's columns on every
            # call, which was most of a single append's cost (bench/run.py; see bench/README.md).
            conn.executemany(
                "INSERT INTO events (battle, seq, schema_version, recorded_at, type, body, prev_hash, hash) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        stored.battle,
                        stored.seq,
                        stored.schema_version,
                        stored.recorded_at,
                        stored.event.__struct_config__.tag,
                        body.decode("utf-8"),
                        stored.prev_hash,
                        stored.hash,
                    )
                    for stored, body in sealed
                ],
            )
            signed = self._to_sign(sealed, carried)
            if not self._signing_tables:
                # Created by the first append that signs (a file written before morale signed has
                # none, and a reader never writes them), in its transaction.
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS signed_heads (battle TEXT, seq INTEGER, hash TEXT, key TEXT, "
                    "signature TEXT, PRIMARY KEY (battle, seq, key))"
                )
                conn.execute("CREATE TABLE IF NOT EXISTS signing_keys (key TEXT PRIMARY KEY, public_key TEXT)")
            if signed.public_keys:
                conn.executemany(
                    "INSERT OR IGNORE INTO signing_keys (key, public_key) VALUES (?, ?)", signed.public_keys.items()
                )
            # REPLACE: a head left from a log removed behind the store's back (a file restored over
            # it) gives way to the one signed now.
            conn.executemany(
                "INSERT OR REPLACE INTO signed_heads (battle, seq, hash, key, signature) VALUES (?, ?, ?, ?, ?)",
                [(head.battle, head.seq, head.hash, head.key, head.signature) for head in signed.heads],
            )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        self._signing_tables = True
        self._listed |= signed.public_keys.keys()
        return [stored for stored, _ in sealed]

    def read(self, battle: str, after_seq: int = 0) -> Iterator[StoredEvent]:
        rows = self.conn.execute(
            "SELECT seq, schema_version, recorded_at, type, body, prev_hash, hash FROM events "
            "WHERE battle = ? AND seq > ? ORDER BY seq",
            (battle, after_seq),
        )
        return stored_events(battle, self._readable(battle, rows))

    def events(self, battle: str, after_seq: int = 0, up_to: int | None = None) -> Iterator[LogEntry]:
        """(seq, event) for events after `after_seq` up to `up_to`, in log order: all a fold reads.
        Leaving out the timestamps and hash links a replay never looks at reads a long log
        markedly faster than `read` does (bench/run.py; the figure is in bench/README.md)."""
        rows = self.conn.execute(
            "SELECT seq, schema_version, type, body FROM events WHERE battle = ? AND seq > ? AND seq <= ? ORDER BY seq",
            (battle, after_seq, _LAST if up_to is None else up_to),
        )
        return read_rows(self._readable(battle, rows))

    def events_of_type(self, battle: str, event_type: str) -> Iterator[LogEntry]:
        rows = self.conn.execute(
            "SELECT seq, schema_version, type, body FROM events WHERE battle = ? AND type = ? ORDER BY seq",
            (battle, event_type),
        )
        return read_rows(self._readable(battle, rows))

    def _readable(self, battle: str, rows: Iterable[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
        """The rows, or `UnreadableEvent` naming the first event whose bytes are not UTF-8 (sqlite3
        fails on it with an error that names no event, in the middle of a replay)."""
        try:
            # Not `yield from`: a reader that stops early (a failed check) would close the cursor when
            # the generator is collected, by then perhaps after the command closed its store.
            for row in rows:  # noqa: UP028
                yield row
        except sqlite3.OperationalError as exc:
            if "decode" not in str(exc):
                raise
            raise UnreadableEvent(battle, self._first_unreadable(battle)) from None

    def _first_unreadable(self, battle: str) -> int | None:
        rows = self.conn.execute(
            "SELECT seq, CAST(type AS BLOB), CAST(recorded_at AS BLOB), CAST(body AS BLOB), CAST(prev_hash AS BLOB), "
            "CAST(hash AS BLOB) FROM events WHERE battle = ? ORDER BY seq",
            (battle,),
        )
        seq: int
        for seq, *columns in rows:
            try:
                for column in columns:
                    bytes(column or b"").decode("utf-8")
            except UnicodeDecodeError:
                return seq
        return None

    def raw_rows(self, battle: str) -> Iterator[RawRow]:
        """Each row exactly as stored, for checking the hash chain and the columns beside it. Bytes
        that are not UTF-8 (the file was changed outside morale) are read as U+FFFD, so that event's
        hash no longer matches and the check names it, instead of failing with no event named."""
        rows = self.conn.execute(
            "SELECT seq, CAST(body AS BLOB), CAST(prev_hash AS BLOB), CAST(hash AS BLOB), schema_version, "
            "CAST(recorded_at AS BLOB), CAST(type AS BLOB) FROM events WHERE battle = ? ORDER BY seq",
            (battle,),
        )
        for seq, body, prev_hash, hash_, version, recorded_at, kind in rows:
            yield RawRow(seq, _text(body), _text(prev_hash), _text(hash_), version, _text(recorded_at), _text(kind))

    def hash_at(self, battle: str, seq: int) -> str | None:
        """The hash that seals event `seq` (None if the log holds no such event): what a kept fold
        compares to know that the log it folded is still the log this store holds."""
        row = self.conn.execute("SELECT hash FROM events WHERE battle = ? AND seq = ?", (battle, seq)).fetchone()
        return row[0] if row else None

    def last_seq(self, battle: str) -> int:
        row = self.conn.execute("SELECT MAX(seq) FROM events WHERE battle = ?", (battle,)).fetchone()
        return row[0] or 0

    def data_version(self) -> int:
        """A number that changes whenever another connection (another process, or another thread's
        connection) commits to the file: a cheap way to ask whether anything changed at all."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def battles(self) -> list[str]:
        return [row[0] for row in self.conn.execute("SELECT DISTINCT battle FROM events ORDER BY battle")]

    def signed_heads(self, battle: str) -> list[SignedHead]:
        try:
            rows = self.conn.execute(
                "SELECT battle, seq, hash, key, signature FROM signed_heads WHERE battle = ? ORDER BY seq, key",
                (battle,),
            ).fetchall()
        except sqlite3.OperationalError as exc:
            _unless_no_snapshots(exc)  # a file no append has signed in yet
            return []
        return [SignedHead(battle=b, seq=seq, hash=h, key=k, signature=sig) for b, seq, h, k, sig in rows]

    def public_keys(self) -> dict[str, str]:
        try:
            return dict(self.conn.execute("SELECT key, public_key FROM signing_keys ORDER BY key").fetchall())
        except sqlite3.OperationalError as exc:
            _unless_no_snapshots(exc)
            return {}

    # -- snapshots: derived state kept beside the log, never part of it --------------------------------
    def _snapshot_tables(self) -> None:
        # Created on first use: a store that never takes a snapshot has no such tables.
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS snapshots (battle TEXT, seq INTEGER, engine TEXT, blob BLOB, "
            "PRIMARY KEY (battle, seq))"
        )
        # AUTOINCREMENT: an id is never given again, even after a battle's snapshots are dropped, so a
        # process that remembers a unit by its id is never handed another unit under it by this file.
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS snapshot_units (id INTEGER PRIMARY KEY AUTOINCREMENT, "
            "battle TEXT NOT NULL, engine TEXT NOT NULL, digest BLOB NOT NULL, body BLOB NOT NULL, "
            "UNIQUE (battle, engine, digest))"
        )

    def save_snapshot(self, battle: str, seq: int, engine: str, blob: bytes) -> None:
        self._snapshot_tables()
        self.conn.execute(
            "INSERT OR REPLACE INTO snapshots (battle, seq, engine, blob) VALUES (?, ?, ?, ?)",
            (battle, seq, engine, blob),
        )

    def snapshot_before(self, battle: str, seq: int, engine: str) -> tuple[int, bytes] | None:
        """The latest snapshot of `battle` at or before `seq` taken by this engine version."""
        try:
            row = self.conn.execute(
                "SELECT seq, blob FROM snapshots WHERE battle = ? AND engine = ? AND seq <= ? "
                "ORDER BY seq DESC LIMIT 1",
                (battle, engine, seq),
            ).fetchone()
        except sqlite3.OperationalError as exc:
            _unless_no_snapshots(exc)
            return None
        return (row[0], row[1]) if row else None

    def drop_snapshots(self, battle: str) -> None:
        self._snapshot_tables()
        self.conn.execute("DELETE FROM snapshots WHERE battle = ?", (battle,))
        self.conn.execute("DELETE FROM snapshot_units WHERE battle = ?", (battle,))

    def save_snapshot_units(self, battle: str, engine: str, units: Sequence[tuple[bytes, bytes]]) -> list[int]:
        """Keep units that snapshots share, as (digest, encoded bytes), once each; returns their
        ids, in order. A unit already kept (same battle, engine and digest) keeps its id."""
        self._snapshot_tables()
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany(
                "INSERT OR IGNORE INTO snapshot_units (battle, engine, digest, body) VALUES (?, ?, ?, ?)",
                [(battle, engine, digest, body) for digest, body in units],
            )
            find = "SELECT id FROM snapshot_units WHERE battle = ? AND engine = ? AND digest = ?"
            ids = [conn.execute(find, (battle, engine, digest)).fetchone()[0] for digest, _ in units]
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return ids

    def snapshot_units(self, battle: str, ids: Iterable[int]) -> list[tuple[int, bytes, bytes]]:
        """(id, digest, encoded bytes) of the battle's kept units with these ids (those it has)."""
        try:
            kept: list[tuple[int, bytes, bytes]] = self.conn.execute(
                "SELECT id, digest, body FROM snapshot_units "
                "WHERE battle = ? AND id IN (SELECT value FROM json_each(?))",
                (battle, json.dumps(list(ids))),
            ).fetchall()
            return kept
        except sqlite3.OperationalError as exc:
            _unless_no_snapshots(exc)
            return []

    def dice_secret(self, battle: str) -> str | None:
        row = self.conn.execute("SELECT secret FROM dice_secrets WHERE battle = ?", (battle,)).fetchone()
        return row[0] if row else None

    def replace_tokens(self, battle: str, grants: Sequence[StoredToken]) -> None:
        """Store these as the battle's only tokens: earlier ones stop working."""
        self._tokens_changed(battle, None, grants)

    def change_tokens(self, battle: str, *, drop: Sequence[str] = (), add: Sequence[StoredToken] = ()) -> int:
        """Drop the tokens with these hashes and keep `add`, the others untouched; how many were dropped."""
        return self._tokens_changed(battle, drop, add)

    def _tokens_changed(self, battle: str, drop: Sequence[str] | None, add: Sequence[StoredToken]) -> int:
        """One transaction: drop every token of the battle (`drop` None) or those with these hashes,
        then keep `add`."""
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            dropped: int
            if drop is None:
                dropped = conn.execute("DELETE FROM access_tokens WHERE battle = ?", (battle,)).rowcount
            else:
                dropped = sum(
                    conn.execute(
                        "DELETE FROM access_tokens WHERE battle = ? AND token_hash = ?", (battle, digest)
                    ).rowcount
                    for digest in drop
                )
            conn.executemany(
                "INSERT INTO access_tokens (battle, token_hash, role, side, label, created, last_used) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(battle, *token) for token in add],
            )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return dropped

    def token_grant(self, battle: str, token_hash: str) -> StoredToken | None:
        """The token with this hash, for this battle only."""
        row = self.conn.execute(
            f"SELECT {_TOKEN_FIELDS} FROM access_tokens WHERE battle = ? AND token_hash = ?", (battle, token_hash)
        ).fetchone()
        return stored_token(row) if row else None

    def tokens(self, battle: str) -> list[StoredToken]:
        """The battle's tokens, sorted by hash."""
        rows = self.conn.execute(
            f"SELECT {_TOKEN_FIELDS} FROM access_tokens WHERE battle = ? ORDER BY token_hash", (battle,)
        )
        return [stored_token(row) for row in rows]

    def token_battles(self, token_hash: str) -> list[tuple[str, str, str]]:
        rows = self.conn.execute(
            "SELECT battle, role, side FROM access_tokens WHERE token_hash = ? ORDER BY battle", (token_hash,)
        )
        return [(row[0], row[1], row[2]) for row in rows]

    def touch_token(self, battle: str, token_hash: str, used_at: str, unless_since: str) -> None:
        # The condition in the UPDATE itself: of several requests racing past the caller's check,
        # one writes; the others match no row.
        self.conn.execute(
            "UPDATE access_tokens SET last_used = ? WHERE battle = ? AND token_hash = ? "
            "AND (last_used IS NULL OR last_used = '' OR last_used < ?)",
            (used_at, battle, token_hash, unless_since),
        )

    def allowed_origins(self, battle: str) -> list[str]:
        try:
            rows = self.conn.execute(
                "SELECT origin FROM allowed_origins WHERE battle = ? ORDER BY origin", (battle,)
            ).fetchall()
        except sqlite3.OperationalError as exc:  # created on first use: no origin was ever allowed
            _unless_no_snapshots(exc)
            return []
        return [row[0] for row in rows]

    def change_origins(self, battle: str, *, add: Sequence[str] = (), drop: Sequence[str] = ()) -> None:
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                'CREATE TABLE IF NOT EXISTS "allowed_origins" ("battle" TEXT, "origin" TEXT, "added" TEXT, '
                'PRIMARY KEY ("battle", "origin"))'
            )
            conn.executemany(
                "DELETE FROM allowed_origins WHERE battle = ? AND origin = ?", [(battle, origin) for origin in drop]
            )
            conn.executemany(
                "INSERT OR IGNORE INTO allowed_origins (battle, origin, added) VALUES (?, ?, ?)",
                [(battle, origin, now_utc()) for origin in add],
            )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    # -- webhooks: tables made at the first hook, so a store that never had one reads as none -------
    def hooks(self, battle: str | None = None) -> list[StoredHook]:
        where, params = ("WHERE battle = ?", (battle,)) if battle is not None else ("", ())
        try:
            rows = self.conn.execute(f"SELECT {_HOOK_FIELDS} FROM hooks {where} ORDER BY battle, hook_id", params)
            return [StoredHook(*row) for row in rows.fetchall()]
        except sqlite3.OperationalError as exc:
            _unless_no_snapshots(exc)
            return []

    def add_hook(self, hook: StoredHook) -> None:
        with self._hook_transaction() as conn:
            conn.execute(f"INSERT INTO hooks ({_HOOK_FIELDS}) VALUES ({', '.join('?' * len(hook))})", hook)

    def drop_hook(self, battle: str, hook_id: str) -> bool:
        with self._hook_transaction() as conn:
            conn.execute("DELETE FROM hook_attempts WHERE battle = ? AND hook_id = ?", (battle, hook_id))
            return conn.execute("DELETE FROM hooks WHERE battle = ? AND hook_id = ?", (battle, hook_id)).rowcount > 0

    def update_hook(self, battle: str, hook_id: str, **changes: int | str) -> bool:
        if not changes or not set(changes) <= HOOK_CHANGES:
            raise ValueError(f"a hook's delivery changes {sorted(HOOK_CHANGES)}, not {sorted(changes)}")
        assigned = ", ".join(f"{column} = ?" for column in changes)
        with self._hook_transaction() as conn:
            changed = conn.execute(
                f"UPDATE hooks SET {assigned} WHERE battle = ? AND hook_id = ?", (*changes.values(), battle, hook_id)
            )
            return changed.rowcount > 0

    def record_attempt(self, attempt: DeliveryAttempt, keep: int) -> None:
        with self._hook_transaction() as conn:
            conn.execute(f"INSERT INTO hook_attempts ({_ATTEMPT_FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", attempt)
            conn.execute(
                "DELETE FROM hook_attempts WHERE battle = ? AND hook_id = ? AND rowid <= (SELECT rowid "
                "FROM hook_attempts WHERE battle = ? AND hook_id = ? ORDER BY rowid DESC LIMIT 1 OFFSET ?)",
                (attempt.battle, attempt.hook_id, attempt.battle, attempt.hook_id, keep),
            )

    def attempts(self, battle: str, hook_id: str, limit: int) -> list[DeliveryAttempt]:
        try:
            rows = self.conn.execute(
                f"SELECT {_ATTEMPT_FIELDS} FROM hook_attempts WHERE battle = ? AND hook_id = ? "
                "ORDER BY rowid DESC LIMIT ?",
                (battle, hook_id, limit),
            ).fetchall()
        except sqlite3.OperationalError as exc:
            _unless_no_snapshots(exc)
            return []
        # SQLite keeps `delivered` as 0 or 1.
        return [
            DeliveryAttempt(b, h, seq, at, status, said, ms, bool(ok))
            for b, h, seq, at, status, said, ms, ok in reversed(rows)
        ]

    def take_lease(self, name: str, holder: str, ttl_s: float) -> bool:
        now = time.time()
        with self._hook_transaction() as conn:
            found = conn.execute("SELECT holder, expires FROM leases WHERE name = ?", (name,)).fetchone()
            if found is not None and found[0] != holder and found[1] > now:
                return False
            conn.execute(
                "INSERT OR REPLACE INTO leases (name, holder, expires) VALUES (?, ?, ?)", (name, holder, now + ttl_s)
            )
            return True

    def release_lease(self, name: str, holder: str) -> None:
        with self._hook_transaction() as conn:
            conn.execute("DELETE FROM leases WHERE name = ? AND holder = ?", (name, holder))

    @contextmanager
    def _hook_transaction(self) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction (it waits for the write lock), with the webhook tables there."""
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            if not self._hook_tables:
                for table in _HOOK_TABLES:
                    conn.execute(table)
            yield conn
            conn.execute("COMMIT")
            self._hook_tables = True
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise


_HOOK_FIELDS = "battle, hook_id, url, kinds, secret, label, created, through_seq, failures, paused"
_ATTEMPT_FIELDS = "battle, hook_id, seq, at, status, answer, ms, delivered"
_HOOK_TABLES = (
    'CREATE TABLE IF NOT EXISTS "hooks" ("battle" TEXT, "hook_id" TEXT, "url" TEXT, "kinds" TEXT, "secret" TEXT, '
    '"label" TEXT, "created" TEXT, "through_seq" INTEGER, "failures" INTEGER, "paused" TEXT, '
    'PRIMARY KEY ("battle", "hook_id"))',
    'CREATE TABLE IF NOT EXISTS "hook_attempts" ("battle" TEXT, "hook_id" TEXT, "seq" INTEGER, "at" TEXT, '
    '"status" INTEGER, "answer" TEXT, "ms" INTEGER, "delivered" INTEGER)',
    'CREATE INDEX IF NOT EXISTS "hook_attempts_of" ON "hook_attempts" ("battle", "hook_id")',
    'CREATE TABLE IF NOT EXISTS "leases" ("name" TEXT PRIMARY KEY, "holder" TEXT, "expires" REAL)',
)


_TOKEN_FIELDS = "token_hash, role, side, label, created, last_used"


def stored_token(row: Sequence[str | None]) -> StoredToken:
    """A row of access_tokens; the columns an old file added in place hold NULL."""
    return StoredToken(*(value or "" for value in row))
