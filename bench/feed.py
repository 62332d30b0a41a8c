"""The live feed under load: how long an append takes to reach every connected SSE follower.

    .venv/bin/python bench/feed.py                   # 1,000 followers, 20 appends
    .venv/bin/python bench/feed.py --clients 200 --events 10

Starts `morale serve` on 127.0.0.1 (a free port) over a temporary SQLite file holding the example
battle (examples/wh40k6), as a subprocess. Each follower opens `GET /battles/{id}/feed` with
Last-Event-ID at the end of the log (the followers run in a process of their own: `Followers`). The
referee then appends one event at a time over HTTP; for each append and each follower the delay is
from just before the POST to the moment the event's message reached that follower's socket (the
kernel's receive timestamp), and, beside it, to the moment the followers' process read it. The
baseline, measured in the same run, is the POST alone with a single follower connected, so the
figure reads as a ratio too.

Target (issue #7): p99 under 50 ms with 1,000 followers on loopback. Exits non-zero on errors only
(a follower missing an event, a refused append, a server that does not start), never on timing.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import resource
import selectors
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
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


def rss_kib(pid: int) -> int:
    """A process's resident set now (VmRSS in /proc), in KiB: what a node holds for its followers."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise BenchError(f"no VmRSS for process {pid} (gone?)")


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
# Linux's receive timestamps: the kernel stamps each received packet (CLOCK_REALTIME), and recvmsg
# hands the stamp over with the bytes. Not in Python's socket module; the values are asm-generic's.
SO_TIMESTAMPNS = 35
TIMESPEC = struct.Struct("@ll")  # struct timespec: seconds, nanoseconds
MESSAGE_ID = re.compile(rb"(?:^|\n)id: (\d+)\n")


def follow_many(url: str, path: str, token: str, last_seq: int, count: int, report: Connection) -> None:
    """`count` SSE followers in one process, for `Followers` (its docstring says why so)."""
    try:
        _follow_many(url, path, token, last_seq, count, report)
    except Exception as error:  # whatever went wrong goes to the parent, which exits 1
        report.send(("error", f"{type(error).__name__}: {error}"))


def _follow_many(url: str, path: str, token: str, last_seq: int, count: int, report: Connection) -> None:
    address = urlsplit(url)
    request = (
        f"GET {path} HTTP/1.1\r\nHost: {address.netloc}\r\nAuthorization: Bearer {token}\r\n"
        f"Last-Event-ID: {last_seq}\r\nAccept: text/event-stream\r\n\r\n"
    ).encode()
    stamped = True
    selector = selectors.DefaultSelector()
    pending: dict[int, bytes] = {}  # per follower: a message's start not yet complete
    newest: dict[int, int] = {}  # per follower: the last id it got
    for number in range(count):
        follower = socket.create_connection((address.hostname, address.port), timeout=WAIT_S)
        try:
            follower.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        except OSError:
            stamped = False  # not Linux: only the time the follower read the bytes
        follower.sendall(request)
        follower.setblocking(False)
        selector.register(follower, selectors.EVENT_READ, number)
        pending[number], newest[number] = b"", last_seq
    answered: set[int] = set()  # followers whose status line said 200
    connected: set[int] = set()  # followers whose feed has begun
    arrivals: dict[int, tuple[list[int], list[int]]] = {}  # seq -> (kernel stamps, read times), in ns
    cmsg_space = socket.CMSG_SPACE(TIMESPEC.size)
    while True:
        for key, _ in selector.select(timeout=WAIT_S):
            follower, number = key.fileobj, key.data
            data, ancillary, _, _ = follower.recvmsg(65536, cmsg_space)  # type: ignore[union-attr]
            read_at = time.time_ns()
            if not data:
                raise BenchError(f"follower {number}'s feed ended")
            arrived_at = read_at
            for level, kind, stamp in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    seconds, nanoseconds = TIMESPEC.unpack(stamp)
                    arrived_at = seconds * 1_000_000_000 + nanoseconds
            if number not in answered:
                if not data.startswith(b"HTTP/1.1 200 "):
                    raise BenchError(f"the feed answered {data.splitlines()[0].decode()!r}")
                answered.add(number)
            text = pending[number] + data
            if number not in connected and b": following" in text:
                connected.add(number)
                if len(connected) == count:
                    report.send(("connected", stamped))
            last = 0
            for found in MESSAGE_ID.finditer(text):
                seq = int(found[1])
                if seq == newest[number]:  # the same item again, under a kind of outcome it caused
                    last = found.end()
                    continue
                if seq != newest[number] + 1:
                    raise BenchError(f"follower {number} got event {seq} after {newest[number]}")
                newest[number] = seq
                kernel, read = arrivals.setdefault(seq, ([], []))
                kernel.append(arrived_at)
                read.append(read_at)
                if len(kernel) == count:
                    report.send(("event", seq, *arrivals.pop(seq)))
                last = found.end()
            pending[number] = text[last:] if last else text[-64:]


class Followers:
    """SSE followers at the end of the log, in a process of their own, each a raw socket read with
    epoll: the time an event reached a follower is the kernel's receive timestamp on its socket
    (the delivery itself), and the time the follower process read it is kept beside it.

    Not an HTTP client library, nor asyncio streams, in the benchmark's own process: a thousand
    followers share one process here, and with asyncio streams its per-message work (~20 us each)
    queued the last follower's read ~20 ms behind the first and was counted as the server's delay.
    A real follower is alone on its own machine."""

    def __init__(self, url: str, path: str, token: str, last_seq: int, count: int) -> None:
        self.count = count
        self._report, child_end = multiprocessing.Pipe(duplex=False)
        self._process = multiprocessing.get_context("spawn").Process(
            target=follow_many, args=(url, path, token, last_seq, count, child_end), daemon=True
        )
        self._process.start()
        child_end.close()
        self.stamped = self._next("connected")[1]

    def _next(self, kind: str) -> tuple:
        if not self._report.poll(WAIT_S):
            raise BenchError(f"the followers sent nothing in {WAIT_S:.0f} s (waiting for {kind})")
        message = self._report.recv()
        if message[0] == "error":
            raise BenchError(message[1])
        if message[0] != kind:
            raise BenchError(f"the followers sent {message[0]!r} while {kind!r} was expected")
        return message

    def arrived(self, seq: int) -> tuple[list[int], list[int]]:
        """When event `seq` reached each follower (kernel stamps) and when each read it, in ns."""
        _, got, kernel, read = self._next("event")
        if got != seq:
            raise BenchError(f"the followers all got event {got} while event {seq} was expected")
        return kernel, read

    def close(self) -> None:
        self._process.terminate()
        self._process.join(5)


def append_one(client: httpx.Client, path: str, event: dict, seq: int, groups: list[Followers]) -> dict[str, list]:
    """Append one event; the POST's latency and each follower's delays (arrival, read), in seconds."""
    start = time.time_ns()
    answer = client.post(path, json={"expected_seq": seq, "events": [event]})
    posted = time.time_ns() - start
    if answer.status_code != 201:
        raise BenchError(f"the append of {event} was refused: {answer.status_code} {answer.text}")
    delays: dict[str, list] = {"POST": [posted / 1e9], "arrived": [], "read": []}
    for group in groups:
        kernel, read = group.arrived(seq + 1)
        delays["arrived"] += [(at - start) / 1e9 for at in kernel]
        delays["read"] += [(at - start) / 1e9 for at in read]
    return delays


def measure(url: str, referee: str, clients: int, events: int) -> dict[str, dict[str, list[float]]]:
    """The two runs: one follower alone, then `clients` followers; each `events` appends, one at a time."""
    with httpx.Client(base_url=url, timeout=WAIT_S, headers={"Authorization": f"Bearer {referee}"}) as http:
        seq = http.get(f"/battles/{BATTLE}/timeline").json()["last"]
        last_turn = json.loads((EXAMPLE / "battle.ndjson").read_text().splitlines()[-1])["turn"]
        to_append = iter(next_phases(last_turn, 2 * events + 2))
        feed, post = f"/battles/{BATTLE}/feed", f"/battles/{BATTLE}/events"
        groups: list[Followers] = []
        results: dict[str, dict[str, list[float]]] = {}
        try:
            for joining in (1, clients - 1):  # one follower alone (the baseline), then the crowd
                connecting = time.perf_counter()
                groups.append(Followers(url, feed, referee, seq, joining))
                followers = sum(g.count for g in groups)
                label = f"{followers} follower{'s' if followers > 1 else ''}"
                print(f"  {label} connected in {time.perf_counter() - connecting:.1f} s")
                # One unmeasured append proves every follower has caught up and is waiting for news.
                append_one(http, post, next(to_append), seq, groups)
                seq += 1
                figures: dict[str, list[float]] = {"POST": [], "arrived": [], "read": []}
                for _ in range(events):
                    for name, delays in append_one(http, post, next(to_append), seq, groups).items():
                        figures[name] += delays
                    seq += 1
                    time.sleep(GAP_S)
                if not all(g.stamped for g in groups):
                    del figures["arrived"]  # no kernel timestamps on this system: only the reads
                results[label] = figures
        finally:
            for group in groups:
                group.close()
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


WHAT = {
    "POST": "POST",
    "arrived": "delivery (kernel receive stamp)",
    "read": "read by the follower process",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=1000, help="SSE followers connected at once")
    parser.add_argument("--events", type=int, default=20, help="appends measured, one at a time")
    args = parser.parse_args()
    if args.clients < 2 or args.events < 1:
        parser.error("--clients must be at least 2 (one alone first, for the baseline), --events at least 1")
    try:
        raise_fd_limit(2 * args.clients + 256)  # both ends of each follower's socket, and some to spare
        with tempfile.TemporaryDirectory(prefix="morale-bench-feed-") as tmp:
            db = Path(tmp) / "feed.db"
            referee = example_battle(db)
            with served(db) as url:
                print(f"Live feed: {args.clients} followers on loopback, {args.events} appends each measured")
                results = measure(url, referee, args.clients, args.events)
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
    alone, crowd = results["1 follower"], results[f"{args.clients} followers"]
    baseline = statistics.median(alone["POST"])
    print(f"  baseline: the POST alone, 1 follower  p50 {baseline * 1000:7.1f} ms")
    for label, figures in results.items():
        for name, seconds in figures.items():
            show(f"{WHAT[name]}, {label}", seconds, baseline)
    delivered = crowd.get("arrived", crowd["read"])
    p99 = percentiles(delivered)["p99"]
    print(f"  target p99 < 50 ms: {'met' if p99 < 0.050 else 'not met'} ({p99 * 1000:.1f} ms)")


if __name__ == "__main__":
    main()
