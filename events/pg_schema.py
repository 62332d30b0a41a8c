"""The PostgreSQL store's tables, how the app creates and upgrades them, and the statements it runs.

The tables live in the first schema of the connection's search_path (`public` unless the URL says
otherwise, e.g. `?options=-csearch_path%3Dleague`). `morale_schema_version` holds one row per
migration applied. Opening a store applies the missing ones in order, in one transaction under an
advisory lock, so nodes starting at once upgrade it once. A migration only adds: none rewrites,
moves or deletes an event (`tests/test_pg_schema.py` holds them to it), so every hash stays valid.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import errors

from .words import Words


class NotAStore(Exception):
    """The database cannot hold the store as it stands; the message says why and what to do
    (`message`: its words, said in the reader's language at the edge; `str(exc)` their English)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Migration:
    version: int
    what: str
    statements: tuple[str, ...]


# `COLLATE "C"`: battles sort and compare byte by byte, as in SQLite, whatever the database's locale.
MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "the log, each battle's dice secret, and the hashes of its tokens",
        (
            """CREATE TABLE events (
                battle text COLLATE "C" NOT NULL,
                seq bigint NOT NULL CHECK (seq > 0),
                schema_version integer NOT NULL,
                recorded_at text NOT NULL,
                type text NOT NULL,
                body text NOT NULL,
                prev_hash text NOT NULL,
                hash text NOT NULL,
                PRIMARY KEY (battle, seq)
            )""",
            'CREATE TABLE dice_secrets (battle text COLLATE "C" PRIMARY KEY, secret text NOT NULL)',
            # Only a token's sha256 is kept: a copy of the database grants nothing.
            """CREATE TABLE access_tokens (
                battle text COLLATE "C" NOT NULL,
                token_hash text NOT NULL,
                role text NOT NULL,
                side text,
                PRIMARY KEY (battle, token_hash)
            )""",
        ),
    ),
    Migration(
        2,
        "snapshots, and the departed units they share",
        (
            """CREATE TABLE snapshots (
                battle text COLLATE "C" NOT NULL,
                seq bigint NOT NULL,
                engine text NOT NULL,
                blob bytea NOT NULL,
                PRIMARY KEY (battle, seq)
            )""",
            # An identity is never given again, even after a battle's snapshots are dropped.
            """CREATE TABLE snapshot_units (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                battle text COLLATE "C" NOT NULL,
                engine text NOT NULL,
                digest bytea NOT NULL,
                body bytea NOT NULL,
                UNIQUE (battle, engine, digest)
            )""",
        ),
    ),
    Migration(
        3,
        "each committed append announced to the nodes listening (NOTIFY)",
        (
            # One notification a battle a statement: "SEQ BATTLE", its last seq. NOTIFY is sent at
            # commit, so a listener never hears of an append it cannot read yet.
            """CREATE FUNCTION morale_announce_appends() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify(left('morale:' || TG_TABLE_SCHEMA, 63), last.seq || ' ' || last.battle)
                FROM (SELECT battle, max(seq) AS seq FROM appended GROUP BY battle) AS last;
                RETURN NULL;
            END $$""",
            """CREATE TRIGGER morale_announce_appends AFTER INSERT ON events
            REFERENCING NEW TABLE AS appended FOR EACH STATEMENT EXECUTE FUNCTION morale_announce_appends()""",
        ),
    ),
)
MIGRATIONS += (
    Migration(
        4,
        "each token's label, when it was issued and when it was last used",
        # Empty for the tokens kept before: they keep working, listed as unlabelled and never used.
        (
            "ALTER TABLE access_tokens ADD COLUMN label text NOT NULL DEFAULT ''",
            "ALTER TABLE access_tokens ADD COLUMN created text NOT NULL DEFAULT ''",
            "ALTER TABLE access_tokens ADD COLUMN last_used text NOT NULL DEFAULT ''",
        ),
    ),
    Migration(
        5,
        "the heads each append signed, and the public keys they verify against (events/signing.py)",
        (
            """CREATE TABLE signed_heads (
                battle text COLLATE "C" NOT NULL,
                seq bigint NOT NULL,
                hash text NOT NULL,
                key text NOT NULL,
                signature text NOT NULL,
                PRIMARY KEY (battle, seq, key)
            )""",
            "CREATE TABLE signing_keys (key text PRIMARY KEY, public_key text NOT NULL)",
        ),
    ),
    Migration(
        6,
        "the web origins the referee allows to call the server about a battle (CORS, `morale cors`)",
        (
            """CREATE TABLE allowed_origins (
                battle text COLLATE "C" NOT NULL,
                origin text COLLATE "C" NOT NULL,
                added text NOT NULL,
                PRIMARY KEY (battle, origin)
            )""",
        ),
    ),
    Migration(
        7,
        "each battle's webhooks, their delivery attempts, and the lease of the one node that delivers",
        (
            """CREATE TABLE hooks (
                battle text COLLATE "C" NOT NULL,
                hook_id text COLLATE "C" NOT NULL,
                url text NOT NULL,
                kinds text NOT NULL,
                secret text NOT NULL,
                label text NOT NULL,
                created text NOT NULL,
                through_seq bigint NOT NULL,
                failures integer NOT NULL,
                paused text NOT NULL,
                PRIMARY KEY (battle, hook_id)
            )""",
            """CREATE TABLE hook_attempts (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                battle text COLLATE "C" NOT NULL,
                hook_id text COLLATE "C" NOT NULL,
                seq bigint NOT NULL,
                at text NOT NULL,
                status integer NOT NULL,
                answer text NOT NULL,
                ms integer NOT NULL,
                delivered boolean NOT NULL
            )""",
            "CREATE INDEX hook_attempts_of ON hook_attempts (battle, hook_id, id)",
            "CREATE TABLE leases (name text PRIMARY KEY, holder text NOT NULL, expires timestamptz NOT NULL)",
        ),
    ),
)
LATEST = MIGRATIONS[-1].version

VERSION_TABLE = """CREATE TABLE IF NOT EXISTS morale_schema_version (
    version integer PRIMARY KEY,
    what text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)"""


def prepare(conn: psycopg.Connection, *, create: bool, upto: int = LATEST) -> tuple[str, str]:
    """Bring the store at `conn` (autocommit) to schema version `upto`, creating it if `create`;
    returns its schema and the channel its appends are announced on. `NotAStore` if it cannot be."""
    schema, channel = one_row(conn.execute("SELECT current_schema(), left('morale:' || current_schema(), 63)"))
    if schema is None:
        raise NotAStore(Words("no schema to keep the store in: the search_path names none that exists"))
    version = applied_version(conn)
    if version > LATEST:
        raise NotAStore(
            Words(
                "the store is at schema version {version}, newer than this morale knows ({latest}): upgrade morale",
                version=version,
                latest=LATEST,
            )
        )
    if version >= upto:
        return schema, channel
    if version == 0 and not create:
        raise NotAStore(Words("no morale store in this database (`morale new` or `morale import` creates one)"))
    try:
        with conn.transaction():
            # Nodes starting at once: one upgrades, the others wait here and find it done.
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('morale schema ' || current_schema()))")
            conn.execute(VERSION_TABLE)
            for migration in MIGRATIONS[applied_version(conn) : upto]:
                for statement in migration.statements:
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO morale_schema_version (version, what) VALUES (%s, %s)",
                    (migration.version, migration.what),
                )
    except (errors.DuplicateTable, errors.DuplicateFunction, errors.DuplicateObject) as exc:
        raise NotAStore(
            Words(
                "the schema {schema!r} already holds something morale did not create ({error}): give morale a"
                " database or schema of its own",
                schema=schema,
                error=exc.diag.message_primary,
            )
        ) from None
    except errors.InsufficientPrivilege as exc:
        raise NotAStore(Words("cannot create the store's tables: {error}", error=exc.diag.message_primary)) from None
    return schema, channel


def applied_version(conn: psycopg.Connection) -> int:
    """The last migration applied to the store in the current schema; 0 if none ever was."""
    found = conn.execute("SELECT to_regclass(format('%I.morale_schema_version', current_schema()))").fetchone()
    if found is None or found[0] is None:
        return 0
    version: int = one_row(conn.execute("SELECT coalesce(max(version), 0) FROM morale_schema_version"))[0]
    return version


def one_row(cursor: psycopg.Cursor[tuple[Any, ...]]) -> tuple[Any, ...]:
    """The row of a statement that always returns one (a SELECT of values, an aggregate's)."""
    row = cursor.fetchone()
    if row is None:
        raise psycopg.InterfaceError("a statement that always returns a row returned none")
    return row


# -- the statements the store runs -------------------------------------------------------------------
HEAD = "SELECT seq, hash FROM events WHERE battle = %s ORDER BY seq DESC LIMIT 1"
LAST_SEQ = "SELECT max(seq) FROM events WHERE battle = %s"
HASH_AT = "SELECT hash FROM events WHERE battle = %s AND seq = %s"

# One statement each, so one transaction: the events go in only if the row they chain to is still
# the one the writer saw (or the battle is new), and the key (battle, seq) refuses a second writer of
# the same seq. A single event goes as plain parameters, a batch as arrays (unnest), and a new
# battle's dice secret with its events or not at all.
# A writer holding a token (`holder`, its sha256) writes only while the token opens the battle: a
# revocation committed before the statement runs refuses it, whatever the writer's node remembered.
_GUARD = (
    "WHERE (%(expected)s::bigint = 0 "
    "OR EXISTS (SELECT FROM events WHERE battle = %(battle)s AND seq = %(expected)s AND hash = %(prev_hash)s)) "
    "AND (%(holder)s::text IS NULL "
    "OR EXISTS (SELECT FROM access_tokens WHERE battle = %(battle)s AND token_hash = %(holder)s))"
)
_COLUMNS = "INSERT INTO events (battle, seq, schema_version, recorded_at, type, body, prev_hash, hash) "
APPEND_ONE = (
    _COLUMNS + "SELECT %(battle)s, %(seq)s, %(version)s, %(recorded)s, %(type)s, %(body)s, %(prev)s, %(hash)s " + _GUARD
)
_ROWS = (
    "SELECT %(battle)s, r.* FROM unnest(%(seqs)s::bigint[], %(versions)s::integer[], %(recorded)s::text[], "
    "%(types)s::text[], %(bodies)s::text[], %(prev_hashes)s::text[], %(hashes)s::text[]) AS r "
)
APPEND_MANY = _COLUMNS + _ROWS + _GUARD
# A signed append: its signed heads and their keys go in with the events, or not at all.
_SIGNED = """, signed AS (
    INSERT INTO signed_heads (battle, seq, hash, key, signature)
    SELECT %(battle)s, h.* FROM unnest(%(head_seqs)s::bigint[], %(head_hashes)s::text[], %(head_keys)s::text[],
        %(head_signatures)s::text[]) AS h
    WHERE EXISTS (SELECT FROM written)
    ON CONFLICT (battle, seq, key) DO UPDATE SET hash = EXCLUDED.hash, signature = EXCLUDED.signature
), listed AS (
    INSERT INTO signing_keys (key, public_key)
    SELECT k.* FROM unnest(%(keys)s::text[], %(public_keys)s::text[]) AS k WHERE EXISTS (SELECT FROM written)
    ON CONFLICT (key) DO NOTHING
)"""
_KEPT_SECRET = """, kept AS (
    INSERT INTO dice_secrets (battle, secret) SELECT %(battle)s, %(secret)s WHERE EXISTS (SELECT FROM written)
    ON CONFLICT (battle) DO UPDATE SET secret = EXCLUDED.secret
)"""
APPEND_SIGNED = f"WITH written AS ({APPEND_MANY} RETURNING 1){_SIGNED} SELECT count(*) FROM written"
APPEND_SIGNED_WITH_SECRET = (
    f"WITH written AS ({APPEND_MANY} RETURNING 1){_SIGNED}{_KEPT_SECRET} SELECT count(*) FROM written"
)
APPEND_WITH_SECRET = f"""
WITH written AS ({APPEND_MANY} RETURNING 1), kept AS (
    INSERT INTO dice_secrets (battle, secret) SELECT %(battle)s, %(secret)s WHERE EXISTS (SELECT FROM written)
    ON CONFLICT (battle) DO UPDATE SET secret = EXCLUDED.secret
)
SELECT count(*) FROM written
"""

# Reads go CHUNK rows at a time, each from after the last seq of the chunk before.
READ = (
    "SELECT seq, schema_version, recorded_at, type, body, prev_hash, hash FROM events "
    "WHERE battle = %s AND seq > %s ORDER BY seq LIMIT %s"
)
EVENTS = (
    "SELECT seq, schema_version, type, body FROM events WHERE battle = %s AND seq > %s AND seq <= %s "
    "ORDER BY seq LIMIT %s"
)
EVENTS_OF_TYPE = (
    "SELECT seq, schema_version, type, body FROM events WHERE battle = %s AND seq > %s AND type = %s "
    "ORDER BY seq LIMIT %s"
)
RAW = (
    "SELECT seq, body, prev_hash, hash, schema_version, recorded_at, type FROM events "
    "WHERE battle = %s AND seq > %s ORDER BY seq LIMIT %s"
)
# Each battle once, found through the primary key's index one battle at a time, not by reading
# every event of every battle.
BATTLES = """
WITH RECURSIVE found AS (
    (SELECT battle FROM events ORDER BY battle LIMIT 1)
    UNION ALL
    SELECT (SELECT battle FROM events WHERE battle > found.battle ORDER BY battle LIMIT 1)
    FROM found WHERE found.battle IS NOT NULL
)
SELECT battle FROM found WHERE battle IS NOT NULL
"""

SAVE_SNAPSHOT = (
    "INSERT INTO snapshots (battle, seq, engine, blob) VALUES (%s, %s, %s, %s) "
    "ON CONFLICT (battle, seq) DO UPDATE SET engine = EXCLUDED.engine, blob = EXCLUDED.blob"
)
SNAPSHOT_BEFORE = (
    "SELECT seq, blob FROM snapshots WHERE battle = %s AND engine = %s AND seq <= %s ORDER BY seq DESC LIMIT 1"
)
DROP_SNAPSHOTS = "DELETE FROM snapshots WHERE battle = %s"
DROP_SNAPSHOT_UNITS = "DELETE FROM snapshot_units WHERE battle = %s"
SAVE_SNAPSHOT_UNITS = (
    "INSERT INTO snapshot_units (battle, engine, digest, body) "
    "SELECT %s, %s, u.digest, u.body FROM unnest(%s::bytea[], %s::bytea[]) AS u(digest, body) "
    "ON CONFLICT (battle, engine, digest) DO NOTHING"
)
SNAPSHOT_UNIT_IDS = "SELECT digest, id FROM snapshot_units WHERE battle = %s AND engine = %s AND digest = ANY(%s)"
SNAPSHOT_UNITS = "SELECT id, digest, body FROM snapshot_units WHERE battle = %s AND id = ANY(%s) ORDER BY id"

DICE_SECRET = "SELECT secret FROM dice_secrets WHERE battle = %s"
_TOKEN_FIELDS = "token_hash, role, side, label, created, last_used"
SIGNED_HEADS = "SELECT battle, seq, hash, key, signature FROM signed_heads WHERE battle = %s ORDER BY seq, key"
PUBLIC_KEYS = "SELECT key, public_key FROM signing_keys ORDER BY key"
DROP_TOKENS = "DELETE FROM access_tokens WHERE battle = %s"
DROP_SOME_TOKENS = "DELETE FROM access_tokens WHERE battle = %s AND token_hash = ANY(%s)"
# Tokens dropped are announced as "revoked BATTLE" on the appends' channel, sent at commit: every node
# then ends the feeds those tokens opened (app/http/live.py). An older node reads it as news of the
# battle and only looks for appends.
ANNOUNCE_REVOKED = "SELECT pg_notify(%s, 'revoked ' || %s)"
SAVE_TOKENS = (
    f"INSERT INTO access_tokens (battle, {_TOKEN_FIELDS}) "
    "SELECT %s, t.* FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[]) AS t"
)
TOKEN_HELD = "SELECT FROM access_tokens WHERE battle = %s AND token_hash = %s"
TOKEN_GRANT = f"SELECT {_TOKEN_FIELDS} FROM access_tokens WHERE battle = %s AND token_hash = %s"
TOKENS = f"SELECT {_TOKEN_FIELDS} FROM access_tokens WHERE battle = %s ORDER BY token_hash"
TOKEN_BATTLES = "SELECT battle, role, side FROM access_tokens WHERE token_hash = %s ORDER BY battle"
# The condition in the statement itself: of several requests racing past the caller's check, one writes.
TOUCH_TOKEN = "UPDATE access_tokens SET last_used = %s WHERE battle = %s AND token_hash = %s AND last_used < %s"
ALLOWED_ORIGINS = "SELECT origin FROM allowed_origins WHERE battle = %s ORDER BY origin"
DROP_ORIGINS = "DELETE FROM allowed_origins WHERE battle = %s AND origin = ANY(%s)"
ALLOW_ORIGINS = (
    "INSERT INTO allowed_origins (battle, origin, added) SELECT %s, o, %s FROM unnest(%s::text[]) AS o "
    "ON CONFLICT (battle, origin) DO NOTHING"
)

_HOOK_FIELDS = "battle, hook_id, url, kinds, secret, label, created, through_seq, failures, paused"
_ATTEMPT_FIELDS = "battle, hook_id, seq, at, status, answer, ms, delivered"
HOOKS = f"SELECT {_HOOK_FIELDS} FROM hooks ORDER BY battle, hook_id"
HOOKS_OF = f"SELECT {_HOOK_FIELDS} FROM hooks WHERE battle = %s ORDER BY hook_id"
ADD_HOOK = f"INSERT INTO hooks ({_HOOK_FIELDS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
DROP_HOOK_ATTEMPTS = "DELETE FROM hook_attempts WHERE battle = %s AND hook_id = %s"
DROP_HOOK = "DELETE FROM hooks WHERE battle = %s AND hook_id = %s"
RECORD_ATTEMPT = f"INSERT INTO hook_attempts ({_ATTEMPT_FIELDS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
TRIM_ATTEMPTS = (
    "DELETE FROM hook_attempts WHERE battle = %(battle)s AND hook_id = %(hook)s AND id <= (SELECT id "
    "FROM hook_attempts WHERE battle = %(battle)s AND hook_id = %(hook)s ORDER BY id DESC LIMIT 1 OFFSET %(keep)s)"
)
ATTEMPTS = (
    f"SELECT {_ATTEMPT_FIELDS} FROM (SELECT * FROM hook_attempts WHERE battle = %s AND hook_id = %s "
    "ORDER BY id DESC LIMIT %s) AS last ORDER BY id"
)
# The database's clock, not the nodes': a lease taken where no one holds it, or it lapsed, or its
# holder renews it; a row comes back only to the one that holds it.
TAKE_LEASE = (
    "INSERT INTO leases (name, holder, expires) VALUES (%s, %s, now() + make_interval(secs => %s)) "
    "ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires = EXCLUDED.expires "
    "WHERE leases.holder = EXCLUDED.holder OR leases.expires < now() RETURNING holder"
)
RELEASE_LEASE = "DELETE FROM leases WHERE name = %s AND holder = %s"
