"""The live feed under load: how long an append takes to reach every connected SSE follower.

    .venv/bin/python bench/feed.py                   # 1,000 followers, 20 appends
    .venv/bin/python bench/feed.py --clients 200 --events 10

Starts `morale serve` on 127.0.0.1 (a free port) over a temporary SQLite file holding the example
battle (examples/wh40k6), as a subprocess. Each follower opens `GET /battles/{id}/feed` with
Last-Event-ID at the end of the log. The referee then appends one event at a time over HTTP; for
each append and each follower the delay is from just before the POST to the moment that follower
has the event's message. The baseline, measured in the same run, is the POST alone with a single
follower connected, so the figure reads as a ratio too.

Target (issue #7): p99 under 50 ms with 1,000 followers on loopback. Exits non-zero on errors only
(a follower missing an event, a refused append, a server that does not start), never on timing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from morale.core.rulesets import rulesets

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "wh40k6"
BATTLE = "hive-tarsis"
WAIT_S = 60.0  # the most any one step waits (connecting everyone, one event reaching everyone)
GAP_S = 0.1  # quiet time between appends, so one append's delivery does not overlap the next


class BenchError(Exception):
    """Something went wrong (not slow: wrong). The benchmark exits 1 with this message."""


# -- the server -----------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def morale(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "morale.app.cli", *args], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise BenchError(f"morale {args[0]} failed: {done.stderr or done.stdout}")
    return done.stdout


def example_battle(db: Path) -> str:
    """The example battle in `db`; returns the referee's token."""
    created = json.loads(morale("new", str(EXAMPLE / "roster.toml"), "--tokens", "--json", "--db", str(db)))
    morale("append", BATTLE, "--file", str(EXAMPLE / "battle.ndjson"), "--db", str(db))
    return created["tokens"]["referee"]


def raise_fd_limit(needed: int) -> None:
    """Each follower is a socket at both ends; the server is a child of this process and inherits
    the raised limit, so it needs no wrapper of its own."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            raise BenchError(f"{needed} file descriptors are needed; the hard limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


@contextmanager
def served(db: Path) -> Iterator[str]:
    port = free_port()
    command = [sys.executable, "-m", "morale.app.cli", "serve", "--db", str(db), "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise BenchError(f"morale serve did not start: {process.stderr.read() if process.stderr else ''}")
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


# -- the events the referee appends ---------------------------------------------------------------
def next_phases(last_turn: int, count: int) -> list[dict]:
    """Phase starts and ends after the example's last turn: accepted in order, and each one is a
    real feed item (the clock moves, the referee checks the turn order)."""
    ruleset = next(r for r in rulesets().values() if r.id == "wh40k6")
    sides = ["imperium", "orks"]
    events: list[dict] = []
    turn = last_turn + 1
    while len(events) < count:
        for side in sides:
            for phase in ruleset.phases:
                for kind in ("phase_started", "phase_ended"):
                    events.append({"type": kind, "turn": turn, "side": side, "phase": phase})
        turn += 1
    return events[:count]


# -- the followers ----------------------------------------------------------------------------------
class Follower:
    """One SSE connection; notes when each message (by its `id:`) arrived.

    A raw socket speaking just enough HTTP/1.1, not an HTTP client library: a thousand followers
    share this process, and a library's per-message work (~0.1-0.2 ms each, measured with httpx)
    would queue behind itself and be counted as the server's delay. A real follower is alone on
    its own machine."""

    ID = re.compile(rb"(?:^|\n)id: (\d+)\n")

    def __init__(self, board: Arrivals) -> None:
        self.board = board
        self.connected = asyncio.Event()

    async def run(self, url: str, path: str, token: str, last_seq: int) -> None:
        address = urlsplit(url)
        reader, writer = await asyncio.open_connection(address.hostname, address.port)
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {address.netloc}\r\nAuthorization: Bearer {token}\r\n"
            f"Last-Event-ID: {last_seq}\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        try:
            status = await reader.readline()
            if b" 200 " not in status:
                raise BenchError(f"the feed answered {status.decode().strip()!r}")
            await reader.readuntil(b"\r\n\r\n")  # the headers
            pending = b""
            while chunk := await reader.read(65536):
                now = time.perf_counter()
                pending += chunk  # chunked transfer framing sits between messages: the pattern skips it
                if not self.connected.is_set() and b": following" in pending:
                    self.connected.set()
                last = 0
                for found in self.ID.finditer(pending):
                    self.board.arrived(int(found[1]), now)
                    last = found.end()
                pending = pending[last:] if last else pending[-64:]
        finally:
            writer.close()


class Arrivals:
    """For the event being measured: when each follower got it, and a signal once all have."""

    def __init__(self) -> None:
        self.seq = -1
        self.times: list[float] = []
        self.expected = 0
        self.all_in = asyncio.Event()
        self.strays: list[int] = []  # messages for an event not being measured: a duplicate or a gap

    def expect(self, seq: int, followers: int) -> None:
        self.seq, self.times, self.expected = seq, [], followers
        self.all_in = asyncio.Event()

    def arrived(self, seq: int, at: float) -> None:
        if seq != self.seq:
            self.strays.append(seq)
            return
        self.times.append(at)
        if len(self.times) == self.expected:
            self.all_in.set()


async def append_one(client: httpx.AsyncClient, url: str, token: str, event: dict, seq: int, board: Arrivals, n: int):
    """Append one event; returns (the POST's latency, each follower's delay), in seconds."""
    board.expect(seq + 1, n)
    start = time.perf_counter()
    answer = await client.post(
        url, json={"expected_seq": seq, "events": [event]}, headers={"Authorization": f"Bearer {token}"}
    )
    posted = time.perf_counter() - start
    if answer.status_code != 201:
        raise BenchError(f"the append of {event} was refused: {answer.status_code} {answer.text}")
    try:
        await asyncio.wait_for(board.all_in.wait(), WAIT_S)
    except TimeoutError:
        raise BenchError(f"event {seq + 1} reached {len(board.times)} of {n} followers in {WAIT_S:.0f} s") from None
    if board.strays:
        raise BenchError(f"followers got events {board.strays[:5]} while event {seq + 1} was expected")
    return posted, [at - start for at in board.times]


async def measure(url: str, referee: str, clients: int, events: int) -> dict[str, tuple[list[float], list[float]]]:
    async with httpx.AsyncClient(base_url=url, timeout=WAIT_S) as referee_http:
        last = await referee_http.get(f"/battles/{BATTLE}/timeline", headers={"Authorization": f"Bearer {referee}"})
        seq = last.json()["last"]
        last_turn = json.loads((EXAMPLE / "battle.ndjson").read_text().splitlines()[-1])["turn"]
        to_append = iter(next_phases(last_turn, 2 * events + 2))
        board = Arrivals()
        followers: list[Follower] = []
        tasks: list[asyncio.Task] = []
        feed, post = f"/battles/{BATTLE}/feed", f"/battles/{BATTLE}/events"

        async def connect(count: int) -> None:
            nonlocal seq
            fresh = [Follower(board) for _ in range(count)]
            followers.extend(fresh)
            tasks.extend(asyncio.create_task(f.run(url, feed, referee, seq)) for f in fresh)
            deadline = time.monotonic() + WAIT_S
            while not all(f.connected.is_set() for f in fresh):
                ended = next((t for t in tasks if t.done()), None)
                if ended is not None:
                    ended.result()  # raises what went wrong
                    raise BenchError("a follower's feed ended")
                if time.monotonic() > deadline:
                    got = sum(f.connected.is_set() for f in fresh)
                    raise BenchError(f"{got} of {count} followers connected in {WAIT_S:.0f} s")
                await asyncio.sleep(0.05)
            # One unmeasured append proves every follower has caught up and is waiting for news.
            await append_one(referee_http, post, referee, next(to_append), seq, board, len(followers))
            seq += 1

        async def run(label: str) -> None:
            nonlocal seq
            posts, delays = [], []
            for _ in range(events):
                posted, delay = await append_one(
                    referee_http, post, referee, next(to_append), seq, board, len(followers)
                )
                seq += 1
                posts.append(posted)
                delays.extend(delay)
                await asyncio.sleep(GAP_S)
            results[label] = (posts, delays)

        results: dict[str, tuple[list[float], list[float]]] = {}
        try:
            await connect(1)
            await run("1 follower")
            connecting = time.perf_counter()
            await connect(clients - 1)
            print(f"  {clients} followers connected and caught up in {time.perf_counter() - connecting:.1f} s")
            await run(f"{clients} followers")
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        return results


# -- the report -------------------------------------------------------------------------------------
def percentiles(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    cuts = statistics.quantiles(ordered, n=100, method="inclusive") if len(ordered) > 1 else ordered * 99
    return {"p50": cuts[49], "p90": cuts[89], "p99": cuts[98], "max": ordered[-1]}


def show(label: str, seconds: list[float], baseline: float) -> None:
    figures = percentiles(seconds)
    cells = "  ".join(f"{name} {value * 1000:7.1f} ms" for name, value in figures.items())
    print(f"  {label:<34} {cells}   p99 = {figures['p99'] / baseline:5.1f}x baseline  ({len(seconds)} samples)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=1000, help="SSE followers connected at once")
    parser.add_argument("--events", type=int, default=20, help="appends measured, one at a time")
    args = parser.parse_args()
    if args.clients < 1 or args.events < 1:
        parser.error("--clients and --events must be at least 1")
    try:
        raise_fd_limit(2 * args.clients + 256)  # both ends of each follower's socket, and some to spare
        with tempfile.TemporaryDirectory(prefix="morale-bench-feed-") as tmp:
            db = Path(tmp) / "feed.db"
            referee = example_battle(db)
            with served(db) as url:
                print(f"Live feed: {args.clients} followers on loopback, {args.events} appends each measured")
                results = asyncio.run(measure(url, referee, args.clients, args.events))
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
    single_posts, single = results["1 follower"]
    many_posts, many = results[f"{args.clients} followers"]
    baseline = statistics.median(single_posts)
    print(f"  baseline: the POST alone, 1 follower  p50 {baseline * 1000:7.1f} ms")
    show("POST, 1 follower", single_posts, baseline)
    show("delivery, 1 follower", single, baseline)
    show(f"POST, {args.clients} followers", many_posts, baseline)
    show(f"delivery, {args.clients} followers", many, baseline)
    p99 = percentiles(many)["p99"]
    print(f"  target p99 < 50 ms: {'met' if p99 < 0.050 else 'not met'} ({p99 * 1000:.1f} ms)")


if __name__ == "__main__":
    main()
