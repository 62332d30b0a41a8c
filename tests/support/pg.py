"""A PostgreSQL server for the tests: the one `$MORALE_TEST_PG` names, else one answering on
127.0.0.1:5432, else a throwaway cluster started here in a temporary folder (Debian's binaries,
which `make test` installs). `MORALE_TEST_PG=cluster` asks for the throwaway cluster even where a
server answers. Each run gets a database of its own, dropped at the end; each test a fresh schema.

initdb and postgres refuse to run as root: as root, the cluster runs as the `postgres` user
(Debian's package creates it) or, failing that, `nobody`.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import psycopg
from psycopg import sql

ENV = "MORALE_TEST_PG"
FORCE_CLUSTER = "cluster"
LOCAL_CANDIDATES = ("postgresql://postgres@127.0.0.1:5432/postgres", "postgresql://127.0.0.1:5432/postgres")
START_S = 60  # the most a throwaway cluster may take to start


class NoPostgres(RuntimeError):
    pass


def binaries() -> Path | None:
    """The folder of initdb and pg_ctl: on the PATH, or Debian's newest /usr/lib/postgresql/N/bin."""
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return Path(on_path).resolve().parent
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    return Path(found[-1]).parent if found else None


def _can_create_databases(url: str) -> bool:
    try:
        with psycopg.connect(url, connect_timeout=3, autocommit=True) as conn:
            row = conn.execute("SELECT rolcreatedb OR rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()
            return bool(row and row[0])
    except psycopg.Error:
        return False


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Cluster:
    """A throwaway cluster: initdb into a temporary folder, pg_ctl start on a free loopback port."""

    bin: Path
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="morale-pg-")))
    port: int = field(default_factory=_free_port)
    user: str | None = None  # the system user it runs as (None: this one)

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def url(self) -> str:
        return f"postgresql://morale@127.0.0.1:{self.port}/postgres"

    def _run(self, *command: str, timeout: float = START_S) -> subprocess.CompletedProcess:
        as_user = {}
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            as_user = {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=self.folder, **as_user)
        if done.returncode != 0:
            raise NoPostgres(f"{Path(command[0]).name} failed: {done.stderr.strip() or done.stdout.strip()}")
        return done

    def start(self) -> Cluster:
        """Create the cluster (the first time) and start it."""
        if not self.data.exists():
            self._create()
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} -c fsync=off "
            "-c full_page_writes=off -c max_connections=200"
        )
        log = str(self.folder / "log")
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", log, "-o", options, "-w", "-t", str(START_S), "start"
        )
        return self

    def _create(self) -> None:
        if os.geteuid() == 0:
            self.user = next((u for u in ("postgres", "nobody") if _user_exists(u)), None)
            if self.user is None:
                raise NoPostgres("running as root, and no postgres or nobody user to run the cluster as")
            entry = pwd.getpwnam(self.user)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
        initdb = [str(self.bin / "initdb"), "-D", str(self.data), "-U", "morale", "-A", "trust", "-N"]
        self._run(*initdb, "-E", "UTF8", "--locale=C")

    def halt(self) -> None:
        """Stop the server, keeping its data (`start` brings it back)."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop", timeout=30)

    def stop(self) -> None:
        """Stop it for good and remove its folder."""
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop", timeout=30)
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


@dataclass
class Server:
    """Where the tests' databases live: `admin` may create and drop databases."""

    admin: str
    cluster: Cluster | None = None
    databases: list[str] = field(default_factory=list)

    def database(self) -> str:
        """A new empty database; its URL."""
        name = f"morale_test_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.admin, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        self.databases.append(name)
        return _with_database(self.admin, name)

    def close(self) -> None:
        try:
            with psycopg.connect(self.admin, autocommit=True) as conn:
                for name in self.databases:
                    conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        finally:
            if self.cluster is not None:
                self.cluster.stop()


def _with_database(url: str, name: str) -> str:
    """`url` pointing at database `name` (its query string kept)."""
    base, _, query = url.partition("?")
    root = base.rsplit("/", 1)[0] if base.count("/") > 2 else base
    return f"{root}/{name}" + (f"?{query}" if query else "")


def in_schema(url: str, schema: str) -> str:
    """`url` with its tables kept in `schema` (the first of its search_path)."""
    option = quote(f"-csearch_path={schema}", safe="")
    return f"{url}{'&' if '?' in url else '?'}options={option}"


def fresh_schema(database_url: str) -> str:
    """A new empty schema in the database; the URL whose stores keep their tables there."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
    return in_schema(database_url, name)


def throwaway_server() -> Server:
    found = binaries()
    if found is None:
        raise NoPostgres(
            "no PostgreSQL server answers and no initdb to start one: `make test` installs Debian's postgresql"
        )
    cluster = Cluster(found).start()
    return Server(cluster.url, cluster)


def server() -> Server:
    """The tests' server, as the module docstring says."""
    named = os.environ.get(ENV, "").strip()
    if named == FORCE_CLUSTER:
        return throwaway_server()
    if named:
        if not _can_create_databases(named):
            raise NoPostgres(f"${ENV}={named!r}: cannot connect and create databases there")
        return Server(named)
    for candidate in LOCAL_CANDIDATES:
        if _can_create_databases(candidate):
            return Server(candidate)
    return throwaway_server()


def wait_for(check, timeout: float, what: str) -> None:
    """Poll `check()` until it is true; AssertionError naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:.0f} s")
        time.sleep(0.05)
