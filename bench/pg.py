"""PostgreSQL and several nodes: each figure against a baseline or a target measured in the same run.

    .venv/bin/python bench/pg.py            # the full set, on the server $MORALE_BENCH_PG names
    .venv/bin/python bench/pg.py --quick    # small sizes, to check it runs (a minute or two)

1. A validated single append (decide, write, commit) on PostgreSQL, against the `eventsourcing`
   library's PostgreSQL recorder storing the same event with the same referee check, in turns of 25,
   at synchronous_commit `on` and `off` (target: 3x faster).
2. Fold of one battle from PostgreSQL against replay of the same battle from SQLite (target:
   within 1.5x).
3. 200 battles written at once by 200 clients (one a battle, in two processes) through two
   `morale serve` nodes: sustained appends per second, and each append's latency as its client saw it;
   in turns with the same load on two nodes of the floor (`floor.py`: the same server stack answering
   with one guarded INSERT), and one client alone on each; the targets of issue 33 beside the figures.
4. One append reaching 10,000 SSE followers (`--followers`), half on each of two nodes, the appends
   made through each node in turn: the delay to each follower's socket (target: p99 under 250 ms),
   and what a follower costs each node in memory (its resident set before and after they connect).

The server: `$MORALE_BENCH_PG` (a URL whose user may create databases), else the one on
127.0.0.1:5432, else a throwaway cluster (tests/support/pg.py; fsync off there, which the output
says). Each run works in a database of its own, dropped at the end. Exits non-zero on errors only
(a refused append, a follower missing an event), never on timing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice
from multiprocessing.connection import Connection
from pathlib import Path

import httpx
import msgspec
import psycopg
from psycopg import sql

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import feed  # noqa: E402
from generate import BattleGenerator  # noqa: E402
from peer import BattleLog, peer_pg_app  # noqa: E402
from run import cached_battle, full_replay, interleaved  # noqa: E402

from morale.app.roster import load_roster  # noqa: E402
from morale.core.fold import Fold  # noqa: E402
from morale.events.codec import to_builtins  # noqa: E402
from morale.events.locate import open_store  # noqa: E402
from morale.events.postgres import PostgresEventStore  # noqa: E402
from morale.events.types import AnyEvent  # noqa: E402

WAIT_S = 60.0
LOCAL = "postgresql://postgres@127.0.0.1:5432/postgres"


# -- the server and this run's database --------------------------------------------------------------
@contextmanager
def server() -> Iterator[str]:
    """An admin URL: the named server, the local one, or a throwaway cluster."""
    named = os.environ.get("MORALE_BENCH_PG")
    for url in [named] if named else [LOCAL]:
        try:
            psycopg.connect(url, connect_timeout=3).close()
            yield url
            return
        except psycopg.Error as exc:
            if named:
                raise feed.BenchError(f"$MORALE_BENCH_PG: {exc}") from None
    sys.path.insert(0, str(ROOT / "tests"))
    from support.pg import Cluster, binaries

    found = binaries()
    if found is None:
        raise feed.BenchError("no PostgreSQL server on 127.0.0.1:5432 and no initdb: set MORALE_BENCH_PG")
    cluster = Cluster(found).start()
    try:
        yield cluster.url
    finally:
        cluster.stop()


@contextmanager
def database(admin: str) -> Iterator[str]:
    name = f"morale_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    base, _, query = admin.partition("?")
    url = base.rsplit("/", 1)[0] + "/" + name + (f"?{query}" if query else "")
    try:
        yield url
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def settings(url: str) -> str:
    with psycopg.connect(url) as conn:
        version = conn.execute("SHOW server_version").fetchone()[0]  # type: ignore[index]
        fsync = conn.execute("SHOW fsync").fetchone()[0]  # type: ignore[index]
        cores = os.cpu_count()
    return f"PostgreSQL {version} (fsync {fsync}) on loopback, {cores} cores shared by everything below"


def _load(when: str) -> str:
    """The machine's load average: other work on the same cores moves every figure that needs CPU."""
    one, five, _ = os.getloadavg()
    return f"load average {when}: {one:.1f} (1 min), {five:.1f} (5 min)"


def set_synchronous_commit(url: str, level: str) -> None:
    """For every connection made from now on (the stores below open theirs afterwards)."""
    with psycopg.connect(url, autocommit=True) as conn:
        name = conn.execute("SELECT current_database()").fetchone()[0]  # type: ignore[index]
        conn.execute(
            sql.SQL("ALTER DATABASE {} SET synchronous_commit = {}").format(sql.Identifier(name), sql.Literal(level))
        )


# -- 1. a validated single append -----------------------------------------------------------------
def bench_append(url: str, count: int, seed: int = 2) -> None:
    print(
        f"\nappend: {count} validated single-event appends (decide, write, commit), ours and the peer's in turns of 25"
    )
    events = list(BattleGenerator(seed).events(count + 1))
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA IF NOT EXISTS peer")
    for level in ("on", "off"):
        set_synchronous_commit(url, level)
        ours: list[float] = []
        peer: list[float] = []
        our_appends, peer_appends = _appends_ours(url, events, level), _appends_peer(url, events)
        while len(ours) < len(events):
            ours += islice(our_appends, 25)
            peer += islice(peer_appends, 25)
        our_median, peer_median = statistics.median(ours[1:]), statistics.median(peer[1:])
        ratio = peer_median / our_median
        verdict = "met" if ratio >= 3 else "not met"
        print(
            f"  synchronous_commit={level:<3}  morale median {our_median * 1e6:6.0f} us   peer (eventsourcing) "
            f"median {peer_median * 1e6:6.0f} us   -> morale {ratio:.1f}x faster (target 3x: {verdict})"
        )


def _appends_ours(url: str, events: list[AnyEvent], level: str) -> Iterator[float]:
    store = PostgresEventStore(url)
    with store.pool.connection() as conn:
        assert conn.execute("SHOW synchronous_commit").fetchone()[0] == level  # type: ignore[index]
    battle = f"append-{level}"
    fold = Fold(battle)
    try:
        for event in events:
            start = time.perf_counter()
            fold.check(event)
            store.append(battle, [event], expected_seq=fold.seq)
            fold.advance(fold.seq + 1, event)
            yield time.perf_counter() - start
    finally:
        store.close()


def _appends_peer(url: str, events: list[AnyEvent]) -> Iterator[float]:
    app = peer_pg_app(url)
    log = BattleLog("append")
    app.save(log)
    try:
        for event in events:
            body = msgspec.json.encode(event).decode()
            start = time.perf_counter()
            log.propose(body)
            app.save(log)
            yield time.perf_counter() - start
    finally:
        app.close()


# -- 2. replay from PostgreSQL against replay from SQLite --------------------------------------------
def bench_replay(url: str, count: int, seed: int = 1) -> None:
    sqlite, battle, events = cached_battle(seed, count)
    pg = open_store(url)
    try:
        if pg.last_seq(battle) != len(events):
            pg.append(battle, events, expected_seq=0)
        best = interleaved(
            {"sqlite": lambda: full_replay(sqlite, battle), "postgresql": lambda: full_replay(pg, battle)},
            rounds=5 if count > 10_000 else 10,  # best of 5 each: the machine is shared
        )
    finally:
        pg.close()
    ratio = best["postgresql"] / best["sqlite"]
    print(f"\nreplay: one battle of {len(events):,} events, full replay (state, due tests, explanation trail)")
    for name, seconds in best.items():
        print(f"  from {name:<11} {seconds * 1000:9.1f} ms  {len(events) / seconds:>10,.0f} events/s")
    print(
        f"  -> PostgreSQL takes {ratio:.2f}x SQLite's time (target within 1.5x: {'met' if ratio <= 1.5 else 'not met'})"
    )


# -- the nodes ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Node:
    url: str
    pid: int

    def cpu_s(self) -> float:
        """The CPU time the node's process has used so far (user and system), in seconds."""
        return _cpu_s(self.pid)


def _cpu_s(pid: int) -> float:
    """A process's CPU time so far (user and system), in seconds; 0 for one that has gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _serve_ours(url: str, port: int, pool_size: int) -> list[str]:
    command = [sys.executable, "-m", "morale.app.cli", "serve", "--db", url, "--port", str(port)]
    return [*command, "--pool-size", str(pool_size)]


def _serve_floor(url: str, port: int, pool_size: int) -> list[str]:
    return [sys.executable, str(HERE / "floor.py"), url, str(port), str(pool_size)]


@contextmanager
def nodes(url: str, count: int = 2, pool_size: int = 10, serve: Callable = _serve_ours) -> Iterator[list[_Node]]:
    started = []
    for _ in range(count):
        port = feed.free_port()
        command = serve(url, port, pool_size)
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        started.append((f"http://127.0.0.1:{port}", process))
    try:
        for address, process in started:
            deadline = time.monotonic() + WAIT_S
            while True:
                try:
                    if httpx.get(f"{address}/health", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if process.poll() is not None or time.monotonic() > deadline:
                    said = process.stderr.read() if process.stderr else ""
                    raise feed.BenchError(f"the node did not start: {said}")
                time.sleep(0.1)
        yield [_Node(address, process.pid) for address, process in started]
    finally:
        for _, process in started:
            process.terminate()
        for _, process in started:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()


class _Backends:
    """The CPU the PostgreSQL server spends for this run's database: its backends' (every
    connection to it, by pid), from /proc, between `start` and `taken`."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.before: dict[int, float] = {}

    def _pids(self) -> list[int]:
        with psycopg.connect(self.url, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchall()
        return [row[0] for row in rows]

    def start(self) -> None:
        self.before = {pid: _cpu_s(pid) for pid in self._pids()}

    def taken(self) -> float:
        return sum(_cpu_s(pid) - self.before.get(pid, 0.0) for pid in self._pids())


# -- 3. 200 battles, 200 clients, two nodes; and the same load on the floor ---------------------------
# Today's figures (issue 33, the machine to itself): 694-758 appends/s, the nodes' CPU 1.64-1.77 ms
# an append. The targets: our append over HTTP within 1.5x of the floor, a third of today's CPU, three
# times today's appends a second (of the upper ends), p99 under 100 ms.
TODAY_APPENDS_S = 758
TODAY_CPU_MS = 1.64
FIRST_SEQ = 9  # the example roster's battle_started and its 8 units: the clients append after them


def creation(battle: str) -> dict:
    roster = load_roster(ROOT / "examples" / "wh40k6" / "roster.toml")
    return {"battle": battle, "started": to_builtins(roster.started), "units": [to_builtins(u) for u in roster.units]}


@dataclass(frozen=True)
class Load:
    """One run of the clients against two nodes: what they saw, what the nodes and PostgreSQL spent."""

    appends: int
    seconds: float
    latencies: list[float]
    node_cpu_s: float
    pg_cpu_s: float
    loads: tuple[str, str]  # the load average as it began and as it ended

    @property
    def per_s(self) -> float:
        return self.appends / self.seconds

    def cpu_ms(self, seconds: float) -> float:
        return seconds / self.appends * 1000

    def line(self) -> str:
        figures = feed.percentiles(self.latencies)
        return (
            f"{self.appends:,} appends in {self.seconds:.1f} s: {self.per_s:,.0f} appends/s; latency p50 "
            f"{figures['p50'] * 1000:.1f} ms, p99 {figures['p99'] * 1000:.1f} ms, max {figures['max'] * 1000:.1f} ms;"
            f" CPU an append: the nodes {self.cpu_ms(self.node_cpu_s):.3f} ms, PostgreSQL"
            f" {self.cpu_ms(self.pg_cpu_s):.3f} ms ({self.loads[0]}; {self.loads[1]})"
        )


def bench_battles(url: str, battles: int, appends: int, rounds: int) -> None:
    """The floor and ours in turns, `rounds` of each, then one client alone on each."""
    events = feed.next_phases(0, appends)
    PostgresEventStore(url).close()  # the tables, for the floor's first turn
    print(f"\n{battles} battles written at once by {battles} clients (one a battle, in 2 processes) through 2 nodes")
    runs: dict[str, list[Load]] = {"floor": [], "ours": []}
    for turn in range(rounds):
        runs["floor"].append(_battles_on(url, battles, events, f"f{turn}-", _serve_floor))
        print(f"  floor {runs['floor'][-1].line()}")
        runs["ours"].append(_battles_on(url, battles, events, f"o{turn}-", _serve_ours))
        print(f"  ours  {runs['ours'][-1].line()}")
    alone_events = feed.next_phases(0, 10 * appends)  # more than a crowd's client writes: one client's median
    alone = {
        name: _battles_on(url, 1, alone_events, f"{name[0]}-alone-", serve, processes=1)
        for name, serve in (("floor", _serve_floor), ("ours", _serve_ours))
    }
    for name, run in alone.items():
        print(f"  one client alone, {name:<5} {run.line()}")
    _verdicts(runs, alone)


def _verdicts(runs: dict[str, list[Load]], alone: dict[str, Load]) -> None:
    """Each target beside its figures (one a turn) and whether every turn met it."""

    def verdict(met: list[bool]) -> str:
        return "met" if all(met) else "not met" if not any(met) else f"met in {sum(met)} turns of {len(met)}"

    ours, floor = runs["ours"], runs["floor"]
    pairs = list(zip(ours, floor, strict=True))
    cpu = [o.cpu_ms(o.node_cpu_s) / f.cpu_ms(f.node_cpu_s) for o, f in pairs]
    rate = [f.per_s / o.per_s for o, f in pairs]
    median = statistics.median(alone["ours"].latencies) / statistics.median(alone["floor"].latencies)
    p99 = [feed.percentiles(o.latencies)["p99"] * 1000 for o in ours]
    node = [o.cpu_ms(o.node_cpu_s) for o in ours]
    per_s = [o.per_s for o in ours]
    shown = ", ".join
    print("  targets (issue 33, item 1):")
    print(
        f"    the nodes' CPU an append against the floor's: {shown(f'{x:.2f}x' for x in cpu)}"
        f"  (target <= 1.5x: {verdict([x <= 1.5 for x in cpu])})"
    )
    print(
        f"    one client alone, median latency against the floor's: {median:.2f}x"
        f" (target <= 1.5x: {verdict([median <= 1.5])})"
    )
    print(
        f"    appends/s, the floor's over ours: {shown(f'{x:.2f}x' for x in rate)}"
        f"  (target <= 1.5x: {verdict([x <= 1.5 for x in rate])})"
    )
    third = TODAY_CPU_MS / 3
    print(
        f"    the nodes' CPU an append: {shown(f'{x:.3f} ms' for x in node)}"
        f"  (target <= {third:.2f} ms, a third of {TODAY_CPU_MS} ms: {verdict([x <= third for x in node])})"
    )
    print(
        f"    appends/s: {shown(f'{x:,.0f}' for x in per_s)}  (target >= {3 * TODAY_APPENDS_S:,},"
        f" 3x {TODAY_APPENDS_S}: {verdict([x >= 3 * TODAY_APPENDS_S for x in per_s])})"
    )
    print(f"    p99: {shown(f'{x:.0f} ms' for x in p99)}  (target < 100 ms: {verdict([x < 100 for x in p99])})")


def _battles_on(url: str, battles: int, events: list[dict], prefix: str, serve: Callable, processes: int = 2) -> Load:
    with nodes(url, serve=serve) as running:
        addresses = [node.url for node in running]
        names = [f"{prefix}{n:03d}" for n in range(battles)]
        if serve is _serve_floor:
            tokens = _floor_battles(url, names)
        else:
            tokens = []
            for number, name in enumerate(names):
                created = httpx.post(f"{addresses[number % 2]}/battles", json=creation(name), timeout=WAIT_S)
                if created.status_code != 201:
                    raise feed.BenchError(f"creating a battle: {created.status_code} {created.text}")
                tokens.append(created.json()["tokens"]["referee"])
        plan = [(name, addresses[n % 2], tokens[n]) for n, name in enumerate(names)]
        backends = _Backends(url)
        backends.start()
        load_before = _load("as it began")
        cpu_before = sum(node.cpu_s() for node in running)
        results = _run_clients([plan[i::processes] for i in range(processes)], events)
        node_cpu_s = sum(node.cpu_s() for node in running) - cpu_before
        pg_cpu_s = backends.taken()
        load_after = _load("as it ended")
    errors = [e for r in results for e in r["errors"]]
    if errors:
        raise feed.BenchError(f"{len(errors)} appends failed, e.g. {errors[0]}")
    latencies = [x for r in results for x in r["latencies"]]
    began, ended = min(r["began"] for r in results), max(r["ended"] for r in results)
    return Load(len(latencies), ended - began, latencies, node_cpu_s, pg_cpu_s, (load_before, load_after))


def _floor_battles(url: str, names: list[str]) -> list[str]:
    """The floor's battles: FIRST_SEQ rows each, written straight into the log's table (the floor
    checks no token: each client's is empty)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO events (battle, seq, schema_version, recorded_at, type, body, prev_hash, hash) "
            "SELECT b, s, 1, '', 'unit_joined', '{}', '', '' FROM unnest(%s::text[]) AS b, generate_series(1, %s) AS s",
            (names, FIRST_SEQ),
        )
    return ["none"] * len(names)


def _run_clients(halves: list[list[tuple[str, str, str]]], events: list[dict]) -> list[dict]:
    """Each share of the plan written by a process of its own; what each saw."""
    ctx = multiprocessing.get_context("spawn")
    pipes, processes = [], []
    for half in halves:
        mine, theirs = ctx.Pipe(duplex=False)
        process = ctx.Process(target=_clients, args=(half, events, theirs), daemon=True)
        process.start()
        theirs.close()
        pipes.append(mine)
        processes.append(process)
    results = []
    for pipe in pipes:
        if not pipe.poll(10 * WAIT_S):
            raise feed.BenchError("the clients sent nothing")
        results.append(pipe.recv())
        if "failed" in results[-1]:
            raise feed.BenchError(f"a client process failed: {results[-1]['failed']}")
    for process in processes:
        process.join(WAIT_S)
    return results


def _clients(plan: list[tuple[str, str, str]], events: list[dict], report: Connection) -> None:
    try:
        report.send(asyncio.run(_write_all(plan, events)))
    except Exception as error:  # whatever went wrong goes to the parent, which exits 1
        report.send({"failed": f"{type(error).__name__}: {error}"})


async def _write_all(plan: list[tuple[str, str, str]], events: list[dict]) -> dict:
    """Each client on a keep-alive connection of its own, speaking HTTP/1.1 by hand: an HTTP client
    library in the benchmark's process spent more CPU per request than the nodes did, and was what
    the figure measured (on two cores shared by everything)."""
    latencies: list[float] = []
    errors: list[str] = []

    async def write(battle: str, address: str, referee: str) -> None:
        host, port = address.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        head = (
            f"POST /battles/{battle}/events HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {referee}\r\n"
            "Content-Type: application/json\r\nContent-Length: "
        ).encode()
        seq = FIRST_SEQ
        try:
            for event in events:
                body = json.dumps({"expected_seq": seq, "events": [event]}).encode()
                start = time.perf_counter()
                writer.write(head + b"%d\r\n\r\n" % len(body) + body)
                status, answer = await _response(reader)
                latencies.append(time.perf_counter() - start)
                if status != 201:
                    errors.append(f"{battle} seq {seq}: {status} {answer[:200]!r}")
                    return
                seq += 1
        finally:
            writer.close()

    began = time.time()
    await asyncio.gather(*(write(*entry) for entry in plan))
    ended = time.time()
    return {"latencies": latencies, "errors": errors, "began": began, "ended": ended}


async def _response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One HTTP/1.1 response: its status and body (the nodes answer with Content-Length)."""
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = next(
        int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")
    )
    return status, await reader.readexactly(length)


# -- 4. one append, 10,000 followers over two nodes -----------------------------------------------------
def bench_fanout(url: str, followers: int, appends: int) -> None:
    # A limit is a process's own: each node holds one end of its half of the sockets, and each
    # follower process the other ends of the followers it runs.
    feed.raise_fd_limit(followers // 2 + 512)
    referee = feed.example_battle(url)  # type: ignore[arg-type]
    battle = "hive-tarsis"
    with nodes(url) as running:
        addresses = [node.url for node in running]
        clients = [
            httpx.Client(base_url=a, timeout=WAIT_S, headers={"Authorization": f"Bearer {referee}"}) for a in addresses
        ]
        seq = clients[0].get(f"/battles/{battle}/timeline").json()["last"]
        to_append = iter(feed.next_phases(3, appends + 1))
        groups = []
        try:
            # One follower on each node first, so the battle's channel (its fold, its tail) is in
            # both resident sets before they are measured: what is left is the followers' own cost.
            for address in addresses:
                groups.append(feed.Followers(address, f"/battles/{battle}/feed", referee, seq, 1))
            before = [feed.rss_kib(node.pid) for node in running]
            crowd = followers // 2 - 1  # each node's followers after its first
            started = time.perf_counter()
            for address in addresses:
                groups.append(feed.Followers(address, f"/battles/{battle}/feed", referee, seq, crowd))
            took = time.perf_counter() - started
            after = [feed.rss_kib(node.pid) for node in running]
            print(f"\nlive feed: {followers:,} SSE followers, half on each of 2 nodes (connected in {took:.1f} s)")
            for number, (then, now) in enumerate(zip(before, after, strict=True), 1):
                each = (now - then) / crowd
                print(
                    f"  node {number}'s memory: {then / 1024:.0f} MiB resident with its first follower,"
                    f" {now / 1024:.0f} MiB with {followers // 2:,}: {each:.1f} KiB a follower"
                )
            delays: dict[str, list[float]] = {"same node": [], "other node": []}
            posts: list[float] = []
            for number in range(appends + 1):  # the first, unmeasured, proves everyone is caught up
                through = number % 2
                start = time.time_ns()
                answer = clients[through].post(
                    f"/battles/{battle}/events", json={"expected_seq": seq, "events": [next(to_append)]}
                )
                posted = time.time_ns() - start
                if answer.status_code != 201:
                    raise feed.BenchError(f"an append was refused: {answer.status_code} {answer.text}")
                seq += 1
                for place, group in enumerate(groups):
                    kernel, _read = group.arrived(seq)
                    if number:
                        side = place % 2  # the groups: each node's first follower, then each node's crowd
                        delays["same node" if side == through else "other node"] += [
                            (at - start) / 1e9 for at in kernel
                        ]
                if number:
                    posts.append(posted / 1e9)
                time.sleep(0.1)
        finally:
            for group in groups:
                group.close()
            for client in clients:
                client.close()
    everyone = delays["same node"] + delays["other node"]
    posted = statistics.median(posts) * 1000
    print(f"  the POST alone: median {posted:.1f} ms ({appends} appends, through each node in turn)")
    groups = [(f"followers on the {where}", seconds) for where, seconds in delays.items()]
    for label, seconds in [*groups, ("all followers", everyone)]:
        figures = feed.percentiles(seconds)
        cells = "  ".join(f"{name} {value * 1000:6.1f} ms" for name, value in figures.items())
        print(f"  delivery to {label:<27} {cells}  ({len(seconds):,} samples)")
    p99 = feed.percentiles(everyone)["p99"]
    print(f"  target p99 < 250 ms: {'met' if p99 < 0.250 else 'not met'} ({p99 * 1000:.1f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes, to check the benchmarks run")
    parser.add_argument(
        "--only", choices=["append", "replay", "battles", "fanout"], action="append", help="run only these"
    )
    parser.add_argument("--followers", type=int, help="SSE followers for the fan-out (10,000; 200 with --quick)")
    args = parser.parse_args()
    if args.followers is not None and (args.followers < 4 or args.followers % 2):
        parser.error("--followers must be an even number, at least 4 (half on each of the two nodes)")
    sizes = {
        "append": 100 if args.quick else 300,
        "replay": 5_000 if args.quick else 100_000,
        "battles": (20, 10, 1) if args.quick else (200, 50, 3),
        "fanout": (args.followers or (200 if args.quick else 10_000), 5 if args.quick else 20),
    }
    chosen = args.only or list(sizes)
    try:
        with server() as admin, database(admin) as url:
            print(settings(url))
            print(_load("at the start"))
            if "append" in chosen:
                bench_append(url, sizes["append"])
            set_synchronous_commit(url, "on")  # the rest as PostgreSQL ships
            if "append" in chosen:
                print("\n(from here on: synchronous_commit=on, PostgreSQL's default)")
            if "replay" in chosen:
                bench_replay(url, sizes["replay"])
            if "battles" in chosen:
                bench_battles(url, *sizes["battles"])
            if "fanout" in chosen:
                bench_fanout(url, *sizes["fanout"])
            print(f"\n{_load('at the end')}")
    except feed.BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
