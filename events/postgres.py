"""The log in PostgreSQL, for several `morale serve` nodes sharing one store: psycopg 3 and its pool.

Everything the SQLite store keeps has its table here (`pg_schema.py` creates and migrates them). An
append is one statement, so one transaction: the events are inserted only if the row at the
writer's expected seq still carries the hash they are chained to, and the primary key (battle, seq)
refuses a second writer of the same seq, so of two writers racing from one point one wins and the
other gets `ConflictError`, whatever the interleaving. A trigger announces each committed append on
the store's channel (LISTEN/NOTIFY), which every node's live feed listens to.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

import psycopg
import psycopg_pool
from psycopg import errors, sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from . import pg_schema as schema
from .codec import GENESIS_HASH, read_rows, stored_events
from .hooks import HOOK_CHANGES, DeliveryAttempt, StoredHook
from .signing import SignedHead
from .store import (
    NO_PRECONDITION,
    BattleExists,
    Carried,
    ChainMoved,
    ConflictError,
    Precondition,
    RawRow,
    SealingStore,
    StoredToken,
    StoreUnavailable,
    TokenRevoked,
    now_utc,
    stored_token,
)
from .types import LogEntry, StoredEvent
from .words import Words

_LAST = 2**63 - 1  # the largest bigint: "up to the end of the log"
CHUNK = 10_000  # rows read per query: a long log is read in pieces, never held by a connection meanwhile
CONNECT_TIMEOUT_S = 10  # libpq waits for ever by default; a server that does not answer is an error
PROBE_S = 2  # the wait for a server that went away, each time a use asks whether it is back


_PASSWORD_IN_URL = re.compile(r"^(postgres(?:ql)?://[^:/@?#]*:)[^@/?#]*@")
_PASSWORD_PARAM = re.compile(r"(password=)[^&\s]*")


def redacted(url: str) -> str:
    """The URL as it may be printed: its password replaced by ***."""
    return _PASSWORD_PARAM.sub(r"\1***", _PASSWORD_IN_URL.sub(r"\1***@", url))


def one_line(exc: BaseException) -> str:
    """libpq's messages run over several lines (a hint after a tab): one line, for a refusal."""
    return "; ".join(part.strip() for part in str(exc).splitlines() if part.strip()) or type(exc).__name__


@dataclass(frozen=True)
class Announcements:
    """Where a node listens for the appends this store announces: a connection string and a channel."""

    conninfo: str
    channel: str


class PostgresEventStore(SealingStore):
    """Many battles in one PostgreSQL database (in the schema the URL's search_path names first,
    `public` by default). Thread-safe: the server's worker threads share one store and its pool."""

    def __init__(self, url: str, *, create: bool = True, min_size: int = 1, max_size: int = 4) -> None:
        """`create=False`: the database must already hold a store (readers refuse a mistyped URL
        rather than leave tables there). `StoreUnavailable` says what is wrong, before any write."""
        self.url = url
        self.path = redacted(url)  # what messages name; the password stays out of them
        try:
            given = conninfo_to_dict(url)
        except psycopg.ProgrammingError as exc:
            raise StoreUnavailable(self.path, Words("not a PostgreSQL URL: {error}", error=one_line(exc))) from None
        defaults: dict[str, str | int] = {"connect_timeout": CONNECT_TIMEOUT_S, "fallback_application_name": "morale"}
        self.conninfo = make_conninfo(url, **{k: v for k, v in defaults.items() if k not in given})
        try:
            with psycopg.connect(self.conninfo, autocommit=True) as conn:
                self.schema_name, self.channel = schema.prepare(conn, create=create)
        except schema.NotAStore as exc:
            raise StoreUnavailable(self.path, exc.message) from None
        except psycopg.Error as exc:
            raise StoreUnavailable(self.path, one_line(exc)) from None
        self.pool = psycopg_pool.ConnectionPool(
            self.conninfo,
            min_size=min_size,
            max_size=max(min_size, max_size),
            kwargs={"autocommit": True},
            open=False,
            name="morale",
        )
        self.pool.open()
        # The last (seq, hash) this store wrote or read for each battle: an append after it needs no
        # read first, since the insert itself checks that row (a stale entry costs one more query).
        self._known: dict[str, tuple[int, str]] = {}
        self._down: str | None = None  # why the server did not answer, when it last did not

    def announcements(self) -> Announcements:
        return Announcements(self.conninfo, self.channel)

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        """A pooled connection; a server gone away is `StoreUnavailable`, in one line. While it is
        away, each use asks it directly (refused at once) rather than wait on the pool; once it is
        back, the connections it cut are dropped together, so one failure, not one per pooled
        connection, tells of a server that restarted."""
        if self._down is not None and not self._answers():
            raise StoreUnavailable(self.path, self._down)
        try:
            # getconn and putconn, not the pool's `connection()`: its `with conn` (commit or roll
            # back) has nothing to do on an autocommit connection, and cost half again as much.
            conn = self.pool.getconn()
            try:
                yield conn
            finally:
                self.pool.putconn(conn)
        except (psycopg.OperationalError, psycopg_pool.PoolTimeout) as exc:
            self._answers()
            raise StoreUnavailable(self.path, one_line(exc)) from None

    def _answers(self) -> bool:
        """Whether the server answers a new connection now; if it does, the pool lets go of those
        it cut (a restart), and if not, `_down` says why."""
        try:
            psycopg.connect(self.conninfo, autocommit=True, connect_timeout=PROBE_S).close()
        except psycopg.Error as exc:
            self._down = one_line(exc)
            return False
        self._down = None
        with suppress(psycopg.Error, psycopg_pool.PoolTimeout):
            self.pool.check()
        return True

    def _fetch(self, query: Any, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        """The rows a read returns. A read changes nothing, so a connection the server cut (a
        restart) costs it one more try on a fresh connection, not an error."""
        try:
            with self._connection() as conn:
                return _rows(conn, query, params)
        except StoreUnavailable:
            if self._down is not None:  # the server itself is away: trying again now is no use
                raise
            with self._connection() as conn:
                return _rows(conn, query, params)

    def close(self) -> None:
        self.pool.close()

    # -- the log ----------------------------------------------------------------------------------------
    def _write(
        self,
        battle: str,
        expected_seq: int,
        sealer: Callable[[int, str], list[tuple[StoredEvent, bytes]]],
        dice_secret: str | None = None,
        carried: Carried | None = None,
        precondition: Precondition = NO_PRECONDITION,
    ) -> list[StoredEvent]:
        self.signing_key()  # a key that cannot be used is refused before anything is sent
        if expected_seq < 0:
            raise ConflictError(battle, expected_seq, self.last_seq(battle))
        given = precondition.prev_hash if expected_seq else None  # the writer's, checked by the insert
        with self._connection() as conn:
            for attempt in range(1 if given is not None else 2):
                prev_hash = given or self._hash_before(conn, battle, expected_seq, fresh=attempt > 0)
                sealed = sealer(expected_seq, prev_hash)
                signed = self._to_sign(sealed, carried)
                try:
                    count = _insert(
                        conn, battle, expected_seq, prev_hash, sealed, dice_secret, signed, precondition.holder
                    )
                except errors.UniqueViolation:  # another writer holds one of these seqs
                    self._refuse(conn, battle, expected_seq)
                    raise
                if count:
                    last = sealed[-1][0]
                    self._known[battle] = (last.seq, last.hash)
                    self._listed |= signed.public_keys.keys()
                    return [stored for stored, _ in sealed]
                # The row at expected_seq is not the one we chained to (the log is elsewhere, or
                # what this store remembered of it is out of date), or the writer's token is gone.
                self._refuse(conn, battle, expected_seq, precondition.holder)
                if given is not None:  # the log ends there, with another event than the writer's
                    raise ChainMoved(battle, expected_seq, expected_seq)
            # Read afresh, the log ended at expected_seq with another hash than it gave a moment ago.
            raise ConflictError(battle, expected_seq, self._last_seq(conn, battle))

    def _hash_before(self, conn: psycopg.Connection, battle: str, expected_seq: int, *, fresh: bool) -> str:
        """The hash of event `expected_seq`, which the new events chain to; `ConflictError` if the log
        does not end there."""
        if expected_seq == 0:
            return GENESIS_HASH
        known = self._known.get(battle)
        if known is not None and known[0] == expected_seq and not fresh:
            return known[1]
        row = conn.execute(schema.HEAD, (battle,)).fetchone()
        actual_seq: int
        prev_hash: str
        actual_seq, prev_hash = row if row else (0, GENESIS_HASH)
        if actual_seq != expected_seq:
            raise ConflictError(battle, expected_seq, actual_seq)
        self._known[battle] = (actual_seq, prev_hash)
        return prev_hash

    def _refuse(self, conn: psycopg.Connection, battle: str, expected_seq: int, holder: str | None = None) -> None:
        """Raise the conflict the log's real end explains, if it explains one, or else `TokenRevoked`
        if the writer's token (`holder`) no longer opens the battle. A clash on (battle, seq) with a
        log that still ends at `expected_seq` was no race (the batch itself repeats a seq): the
        caller's IntegrityError stands."""
        self._known.pop(battle, None)
        actual = self._last_seq(conn, battle)
        if actual != expected_seq:
            if expected_seq == 0:
                raise BattleExists(battle, actual)
            raise ConflictError(battle, expected_seq, actual)
        if holder is not None and conn.execute(schema.TOKEN_HELD, (battle, holder)).fetchone() is None:
            raise TokenRevoked(battle)

    def read(self, battle: str, after_seq: int = 0) -> Iterator[StoredEvent]:
        return stored_events(battle, self._chunks(schema.READ, battle, after_seq))

    def events(self, battle: str, after_seq: int = 0, up_to: int | None = None) -> Iterator[LogEntry]:
        """(seq, event) after `after_seq` up to `up_to`: all a fold reads (see SqliteEventStore.events)."""
        return read_rows(self._chunks(schema.EVENTS, battle, after_seq, _LAST if up_to is None else up_to))

    def events_of_type(self, battle: str, event_type: str) -> Iterator[LogEntry]:
        return read_rows(self._chunks(schema.EVENTS_OF_TYPE, battle, 0, event_type))

    def raw_rows(self, battle: str) -> Iterator[RawRow]:
        return map(RawRow._make, self._chunks(schema.RAW, battle, 0))

    def _chunks(self, query: Any, battle: str, after_seq: int, *extra: object) -> Iterator[tuple[Any, ...]]:
        """The rows of a read, in log order, CHUNK at a time; each chunk on a connection of its own,
        so a reader that stops half-way holds none."""
        while True:
            rows = self._fetch(query, (battle, after_seq, *extra, CHUNK))
            yield from rows
            if len(rows) < CHUNK:
                return
            after_seq = rows[-1][0]

    def hash_at(self, battle: str, seq: int) -> str | None:
        """The hash that seals event `seq` (None if the log holds no such event)."""
        rows = self._fetch(schema.HASH_AT, (battle, seq))
        if not rows:
            return None
        sealing: str = rows[0][0]
        self._known[battle] = (seq, sealing)
        return sealing

    def last_seq(self, battle: str) -> int:
        return self._fetch(schema.LAST_SEQ, (battle,))[0][0] or 0

    @staticmethod
    def _last_seq(conn: psycopg.Connection, battle: str) -> int:
        last: int | None = schema.one_row(conn.execute(schema.LAST_SEQ, (battle,)))[0]
        return last or 0

    def battles(self) -> list[str]:
        return [row[0] for row in self._fetch(schema.BATTLES, ())]

    def signed_heads(self, battle: str) -> list[SignedHead]:
        rows = self._fetch(schema.SIGNED_HEADS, (battle,))
        return [SignedHead(battle=b, seq=seq, hash=h, key=k, signature=sig) for b, seq, h, k, sig in rows]

    def public_keys(self) -> dict[str, str]:
        return dict(self._fetch(schema.PUBLIC_KEYS, ()))

    # -- snapshots: derived state kept beside the log, never part of it --------------------------------
    def save_snapshot(self, battle: str, seq: int, engine: str, blob: bytes) -> None:
        with self._connection() as conn:
            conn.execute(schema.SAVE_SNAPSHOT, (battle, seq, engine, blob))

    def snapshot_before(self, battle: str, seq: int, engine: str) -> tuple[int, bytes] | None:
        """The latest snapshot of `battle` at or before `seq` taken by this engine version."""
        rows = self._fetch(schema.SNAPSHOT_BEFORE, (battle, engine, seq))
        return (rows[0][0], rows[0][1]) if rows else None

    def drop_snapshots(self, battle: str) -> None:
        with self._connection() as conn, conn.transaction():
            conn.execute(schema.DROP_SNAPSHOTS, (battle,))
            conn.execute(schema.DROP_SNAPSHOT_UNITS, (battle,))

    def save_snapshot_units(self, battle: str, engine: str, units: Sequence[tuple[bytes, bytes]]) -> list[int]:
        """Keep units that snapshots share, as (digest, encoded bytes), once each; returns their
        ids, in order. A unit already kept (same battle, engine and digest) keeps its id."""
        if not units:
            return []
        digests = [digest for digest, _ in units]
        with self._connection() as conn, conn.transaction():
            conn.execute(schema.SAVE_SNAPSHOT_UNITS, (battle, engine, digests, [body for _, body in units]))
            ids = dict(conn.execute(schema.SNAPSHOT_UNIT_IDS, (battle, engine, digests)).fetchall())
        return [ids[digest] for digest in digests]

    def snapshot_units(self, battle: str, ids: Iterable[int]) -> list[tuple[int, bytes, bytes]]:
        """(id, digest, encoded bytes) of the battle's kept units with these ids (those it has)."""
        return self._fetch(schema.SNAPSHOT_UNITS, (battle, list(ids)))

    # -- each battle's dice secret (`append` keeps it) and access tokens -----------------------------
    def dice_secret(self, battle: str) -> str | None:
        rows = self._fetch(schema.DICE_SECRET, (battle,))
        return rows[0][0] if rows else None

    def replace_tokens(self, battle: str, grants: Sequence[StoredToken]) -> None:
        """Store these as the battle's only tokens: earlier ones stop working."""
        self._tokens_changed(battle, None, grants)

    def change_tokens(self, battle: str, *, drop: Sequence[str] = (), add: Sequence[StoredToken] = ()) -> int:
        """Drop the tokens with these hashes and keep `add`, the others untouched; how many were dropped."""
        return self._tokens_changed(battle, drop, add)

    def _tokens_changed(self, battle: str, drop: Sequence[str] | None, add: Sequence[StoredToken]) -> int:
        with self._connection() as conn, conn.transaction():
            if drop is None:
                dropped = conn.execute(schema.DROP_TOKENS, (battle,)).rowcount
            else:
                dropped = conn.execute(schema.DROP_SOME_TOKENS, (battle, list(drop))).rowcount
            if add:
                columns = [list(column) for column in zip(*add, strict=True)]
                conn.execute(schema.SAVE_TOKENS, (battle, *columns))
            if dropped:  # the feeds those tokens opened end, on every node (sent at commit)
                conn.execute(schema.ANNOUNCE_REVOKED, (self.channel, battle))
        return dropped

    def token_grant(self, battle: str, token_hash: str) -> StoredToken | None:
        """The token with this hash, for this battle only."""
        rows = self._fetch(schema.TOKEN_GRANT, (battle, token_hash))
        return stored_token(rows[0]) if rows else None

    def tokens(self, battle: str) -> list[StoredToken]:
        """The battle's tokens, sorted by hash."""
        return [stored_token(row) for row in self._fetch(schema.TOKENS, (battle,))]

    def token_battles(self, token_hash: str) -> list[tuple[str, str, str]]:
        """(battle, role, side) of every battle a token with this hash opens, sorted by battle."""
        return self._fetch(schema.TOKEN_BATTLES, (token_hash,))

    def touch_token(self, battle: str, token_hash: str, used_at: str, unless_since: str) -> None:
        with self._connection() as conn:
            conn.execute(schema.TOUCH_TOKEN, (used_at, battle, token_hash, unless_since))

    def allowed_origins(self, battle: str) -> list[str]:
        return [row[0] for row in self._fetch(schema.ALLOWED_ORIGINS, (battle,))]

    def change_origins(self, battle: str, *, add: Sequence[str] = (), drop: Sequence[str] = ()) -> None:
        with self._connection() as conn, conn.transaction():
            if drop:
                conn.execute(schema.DROP_ORIGINS, (battle, list(drop)))
            if add:
                conn.execute(schema.ALLOW_ORIGINS, (battle, now_utc(), list(add)))

    # -- webhooks -------------------------------------------------------------------------------------
    def hooks(self, battle: str | None = None) -> list[StoredHook]:
        if battle is None:
            return [StoredHook(*row) for row in self._fetch(schema.HOOKS, ())]
        return [StoredHook(*row) for row in self._fetch(schema.HOOKS_OF, (battle,))]

    def add_hook(self, hook: StoredHook) -> None:
        with self._connection() as conn:
            conn.execute(schema.ADD_HOOK, hook)

    def drop_hook(self, battle: str, hook_id: str) -> bool:
        with self._connection() as conn, conn.transaction():
            conn.execute(schema.DROP_HOOK_ATTEMPTS, (battle, hook_id))
            return conn.execute(schema.DROP_HOOK, (battle, hook_id)).rowcount > 0

    def update_hook(self, battle: str, hook_id: str, **changes: int | str) -> bool:
        if not changes or not set(changes) <= HOOK_CHANGES:
            raise ValueError(f"a hook's delivery changes {sorted(HOOK_CHANGES)}, not {sorted(changes)}")
        assigned = sql.SQL(", ").join(sql.SQL("{} = %s").format(sql.Identifier(column)) for column in changes)
        query = sql.SQL("UPDATE hooks SET {} WHERE battle = %s AND hook_id = %s").format(assigned)
        with self._connection() as conn:
            return conn.execute(query, (*changes.values(), battle, hook_id)).rowcount > 0

    def record_attempt(self, attempt: DeliveryAttempt, keep: int) -> None:
        with self._connection() as conn, conn.transaction():
            conn.execute(schema.RECORD_ATTEMPT, attempt)
            conn.execute(schema.TRIM_ATTEMPTS, {"battle": attempt.battle, "hook": attempt.hook_id, "keep": keep})

    def attempts(self, battle: str, hook_id: str, limit: int) -> list[DeliveryAttempt]:
        return [DeliveryAttempt(*row) for row in self._fetch(schema.ATTEMPTS, (battle, hook_id, limit))]

    def take_lease(self, name: str, holder: str, ttl_s: float) -> bool:
        with self._connection() as conn:
            return conn.execute(schema.TAKE_LEASE, (name, holder, ttl_s)).fetchone() is not None

    def release_lease(self, name: str, holder: str) -> None:
        with self._connection() as conn:
            conn.execute(schema.RELEASE_LEASE, (name, holder))


def _rows(conn: psycopg.Connection, query: Any, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Rows in PostgreSQL's binary format: numbers come as they are, not as text to parse (a long
    log reads markedly faster; bench/README.md)."""
    return conn.cursor(binary=True).execute(query, params).fetchall()


def _insert(
    conn: psycopg.Connection,
    battle: str,
    expected_seq: int,
    prev_hash: str,
    sealed: list[tuple[StoredEvent, bytes]],
    dice_secret: str | None,
    signed: Carried,
    holder: str | None = None,
) -> int:
    """Insert the sealed events, and the heads signed with them, in one statement; how many went in
    (all, or none if the row at `expected_seq` is not the one they chain to, or the token whose
    sha256 is `holder` no longer opens the battle)."""
    guard = {"battle": battle, "expected": expected_seq, "prev_hash": prev_hash, "holder": holder}
    if (
        len(sealed) == 1 and dice_secret is None and not signed.heads
    ):  # the live case: plain parameters are the quickest
        stored, body = sealed[0]
        one = {"seq": stored.seq, "version": stored.schema_version, "recorded": stored.recorded_at}
        one |= {"type": stored.event.__struct_config__.tag, "body": body.decode("utf-8")}
        one |= {"prev": stored.prev_hash, "hash": stored.hash}
        return conn.execute(schema.APPEND_ONE, guard | one).rowcount
    rows = {
        "seqs": [stored.seq for stored, _ in sealed],
        "versions": [stored.schema_version for stored, _ in sealed],
        "recorded": [stored.recorded_at for stored, _ in sealed],
        "types": [stored.event.__struct_config__.tag for stored, _ in sealed],
        "bodies": [body.decode("utf-8") for _, body in sealed],
        "prev_hashes": [stored.prev_hash for stored, _ in sealed],
        "hashes": [stored.hash for stored, _ in sealed],
    }
    if signed.heads:
        rows |= {
            "head_seqs": [head.seq for head in signed.heads],
            "head_hashes": [head.hash for head in signed.heads],
            "head_keys": [head.key for head in signed.heads],
            "head_signatures": [head.signature for head in signed.heads],
            "keys": list(signed.public_keys),
            "public_keys": list(signed.public_keys.values()),
        }
        if dice_secret is None:
            return _count(conn.execute(schema.APPEND_SIGNED, guard | rows))
        return _count(conn.execute(schema.APPEND_SIGNED_WITH_SECRET, guard | rows | {"secret": dice_secret}))
    if dice_secret is None:
        return conn.execute(schema.APPEND_MANY, guard | rows).rowcount
    return _count(conn.execute(schema.APPEND_WITH_SECRET, guard | rows | {"secret": dice_secret}))


def _count(cursor: psycopg.Cursor[tuple[Any, ...]]) -> int:
    """How many rows a statement that ends `SELECT count(*) FROM written` wrote."""
    written: int = schema.one_row(cursor)[0]
    return written
