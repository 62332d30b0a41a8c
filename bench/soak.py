"""A long soak of two PostgreSQL nodes: steady writers and followers for many minutes, watching
delivery to the followers and each node's memory over time.

    .venv/bin/python bench/soak.py                  # 30 minutes: 30 writers, 20 followers, 107 appends/s
    .venv/bin/python bench/soak.py --minutes 3      # a short run, to check it runs

Two `morale serve` nodes on one PostgreSQL database (bench/pg.py's server and nodes). 30 battles are
created, half through each node; each has one writer appending a phase change at a steady pace, so
that together they make `--rate` appends a second, and the first 20 battles have one SSE follower
each, half on the node their writer uses and half on the other (there the append reaches the
follower through PostgreSQL's NOTIFY). For every append the delivery delay is from just before its
POST to the moment its message reached the follower (both clocks are this machine's). Each node's
resident memory (VmRSS) is sampled every 10 s.

Printed per minute: appends, delivery p50/p95/p99/max and each node's memory; then the whole run's
delivery against its target (p99 under 250 ms), for the followers on their writer's node and on
the other, and each node's memory against "flat" (over the second half of the run, the first being
the folds filling up to the events they keep, a fitted growth under 10 MB an hour). Exits non-zero
on errors only (a refused append, a follower missing an event, a node that stops), never on timing
or memory.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import statistics
import sys
import time
from collections import defaultdict
from multiprocessing.connection import Connection
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import feed  # noqa: E402
import pg  # noqa: E402

WRITERS = 30
FOLLOWERS = 20
RATE = 107.0  # appends a second, all writers together (what the soak ran)
SAMPLE_S = 10.0  # how often each node's memory is read
FIRST_SEQ = 9  # a created battle holds battle_started and its 8 units
P99_TARGET_S = 0.250
FLAT_MB_AN_HOUR = 10.0  # memory is flat when, over the run's second half, it grows less than this an hour


def rss_mb(pid: int) -> float:
    """A process's resident memory, in MB."""
    return feed.rss_kib(pid) / 1024


# -- the writers ----------------------------------------------------------------------------------
def write_all(plan: list[tuple[str, str, str]], seconds: float, rate: float, report: Connection) -> None:
    try:
        report.send(asyncio.run(_write_all(plan, seconds, rate)))
    except Exception as error:  # whatever went wrong goes to the parent, which exits 1
        report.send({"failed": f"{type(error).__name__}: {error}"})


async def _write_all(plan: list[tuple[str, str, str]], seconds: float, rate: float) -> dict:
    """Each writer on a keep-alive connection of its own, at a steady pace (its turn spread over the
    interval, so the writers do not all post at once); a late writer does not catch up in a burst."""
    interval = len(plan) / rate
    count = int(seconds / interval) + 1
    events = feed.next_phases(0, count)
    sent: dict[str, list[float]] = {}
    errors: list[str] = []
    began = time.time()

    async def write(number: int, battle: str, address: str, referee: str) -> None:
        host, port = address.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        head = (
            f"POST /battles/{battle}/events HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {referee}\r\n"
            "Content-Type: application/json\r\nContent-Length: "
        ).encode()
        times = sent.setdefault(battle, [])
        due = began + interval * number / len(plan)
        try:
            for seq, event in enumerate(events, start=FIRST_SEQ):
                await asyncio.sleep(max(0.0, due - time.time()))
                due = max(due + interval, time.time())
                body = json.dumps({"expected_seq": seq, "events": [event]}).encode()
                times.append(time.time())
                writer.write(head + b"%d\r\n\r\n" % len(body) + body)
                status, answer = await pg._response(reader)
                if status != 201:
                    errors.append(f"{battle} seq {seq}: {status} {answer[:200]!r}")
                    return
                if time.time() - began > seconds:
                    return
        finally:
            writer.close()

    await asyncio.gather(*(write(n, *entry) for n, entry in enumerate(plan)))
    return {"sent": sent, "errors": errors}


# -- the followers --------------------------------------------------------------------------------
def follow_all(plan: list[tuple[str, str, str]], ready: Connection, report: Connection) -> None:
    try:
        asyncio.run(_follow_all(plan, ready, report))
    except Exception as error:  # whatever went wrong goes to the parent, which exits 1
        report.send({"failed": f"{type(error).__name__}: {error}"})


async def _follow_all(plan: list[tuple[str, str, str]], ready: Connection, report: Connection) -> None:
    """One SSE follower a battle; the time each event's message first arrived (an item is repeated
    under each kind of outcome it caused: the first counts). Stops when the parent says so."""
    arrived: dict[str, list[float]] = defaultdict(list)
    connected = 0
    all_connected = asyncio.Event()

    async def follow(battle: str, address: str, token: str) -> None:
        nonlocal connected
        host, port = address.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(
            (
                f"GET /battles/{battle}/feed HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}\r\n"
                f"Last-Event-ID: {FIRST_SEQ}\r\nAccept: text/event-stream\r\n\r\n"
            ).encode()
        )
        status = await reader.readline()
        if not status.startswith(b"HTTP/1.1 200 "):
            raise feed.BenchError(f"the feed of {battle} answered {status.decode().strip()!r}")
        newest = FIRST_SEQ
        times = arrived[battle]
        while True:
            line = await reader.readline()
            now = time.time()
            if not line:
                raise feed.BenchError(f"the feed of {battle} ended")
            if line.startswith(b": following"):
                connected += 1
                if connected == len(plan):
                    all_connected.set()
            if not line.startswith(b"id: "):
                continue
            seq = int(line[4:])
            if seq == newest:
                continue
            if seq != newest + 1:
                raise feed.BenchError(f"the follower of {battle} got event {seq} after {newest}")
            newest = seq
            times.append(now)

    tasks = [asyncio.create_task(follow(*entry)) for entry in plan]
    waiting = asyncio.create_task(all_connected.wait())
    done, _ = await asyncio.wait([waiting, *tasks], timeout=pg.WAIT_S, return_when=asyncio.FIRST_COMPLETED)
    if waiting not in done:
        for task in done:
            task.result()  # a follower's error, if that is what ended the wait
        raise feed.BenchError("the followers did not all connect")
    report.send({"connected": True})
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    loop.add_reader(ready.fileno(), lambda: stop.done() or stop.set_result(None))
    done, _ = await asyncio.wait([stop, *tasks], return_when=asyncio.FIRST_COMPLETED)
    for task in done:
        if task is not stop:
            task.result()
    await asyncio.sleep(1.0)  # the last appends' messages still on their way
    report.send({"arrived": dict(arrived)})


# -- the run --------------------------------------------------------------------------------------
def soak(url: str, minutes: float, rate: float) -> None:
    seconds = minutes * 60
    with pg.nodes(url) as running:
        addresses = [node.url for node in running]
        plan = []
        for number in range(WRITERS):
            battle, address = f"soak{number:02d}", addresses[number % 2]
            created = httpx.post(f"{address}/battles", json=pg.creation(battle), timeout=pg.WAIT_S)
            if created.status_code != 201:
                raise feed.BenchError(f"creating a battle: {created.status_code} {created.text}")
            plan.append((battle, address, created.json()["tokens"]["referee"]))
        # Battles 0 and 1 are followed on the node their writer uses, 2 and 3 on the other (where
        # the append arrives through PostgreSQL's NOTIFY), and so on: half one way, half the other.
        following = [(b, addresses[(n // 2 + n) % 2], token) for n, (b, _, token) in enumerate(plan[:FOLLOWERS])]
        ctx = multiprocessing.get_context("spawn")
        stop_here, stop_there = ctx.Pipe(duplex=False)
        followers_in, followers_out = ctx.Pipe(duplex=False)
        followers = ctx.Process(target=follow_all, args=(following, stop_here, followers_out), daemon=True)
        followers.start()
        if not followers_in.poll(pg.WAIT_S):
            raise feed.BenchError("the followers said nothing")
        if "connected" not in (said := followers_in.recv()):
            raise feed.BenchError(f"the followers did not start: {said.get('failed')}")
        writers_in, writers_out = ctx.Pipe(duplex=False)
        writers = ctx.Process(target=write_all, args=(plan, seconds, rate, writers_out), daemon=True)
        started = time.time()
        writers.start()
        memory: list[tuple[float, list[float]]] = []
        while not writers_in.poll(SAMPLE_S):
            if followers_in.poll(0):
                raise feed.BenchError(f"the followers stopped: {followers_in.recv()}")
            memory.append((time.time() - started, [rss_mb(node.pid) for node in running]))
        written = writers_in.recv()
        stop_there.send(True)
        if not followers_in.poll(pg.WAIT_S):
            raise feed.BenchError("the followers sent nothing at the end")
        followed = followers_in.recv()
    for said in (written, followed):
        if "failed" in said:
            raise feed.BenchError(said["failed"])
    if written["errors"]:
        raise feed.BenchError(f"{len(written['errors'])} appends failed, e.g. {written['errors'][0]}")
    same = {b for (b, writer, _), (_, reader, _) in zip(plan, following, strict=False) if writer == reader}
    show(started, written["sent"], followed["arrived"], memory, [b for b, _, _ in following], same, rate)


def percentiles(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    cuts = statistics.quantiles(ordered, n=100, method="inclusive") if len(ordered) > 1 else ordered * 99
    return {"p50": cuts[49], "p95": cuts[94], "p99": cuts[98], "max": ordered[-1]}


def show(
    started: float,
    sent: dict[str, list[float]],
    arrived: dict[str, list[float]],
    memory: list[tuple[float, list[float]]],
    followed: list[str],
    same: set[str],
    rate: float,
) -> None:
    delays: list[tuple[float, float]] = []  # (when the append began, since the run began; its delay)
    by_way: dict[str, list[float]] = {"on the writer's node": [], "on the other node (NOTIFY)": []}
    for battle in followed:
        posts, shown = sent[battle], arrived.get(battle, [])
        if len(shown) < len(posts):
            raise feed.BenchError(f"the follower of {battle} got {len(shown)} of {len(posts)} events")
        these = [(post - started, got - post) for post, got in zip(posts, shown, strict=False)]
        delays += these
        by_way["on the writer's node" if battle in same else "on the other node (NOTIFY)"] += [d for _, d in these]
    appends = sum(len(times) for times in sent.values())
    span = max(t for times in sent.values() for t in times) - started
    print(f"\n{len(sent)} writers, {len(followed)} followers, two nodes: {appends:,} appends in {span:.0f} s")
    print(f"  ({appends / span:.1f} appends/s, asked {rate:.0f}/s)")
    heads = f"{'minute':>6} {'appends':>8} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} {'max ms':>7}"
    print(f"  {heads}  memory of each node (MB)")
    for minute in range(int(span // 60) + 1):
        window = [d for at, d in delays if minute * 60 <= at < (minute + 1) * 60]
        count = sum(1 for times in sent.values() for t in times if minute * 60 <= t - started < (minute + 1) * 60)
        rss = [mb for at, mb in memory if minute * 60 <= at < (minute + 1) * 60]
        if not window:
            continue
        f = percentiles(window)
        nodes = "  ".join(f"{statistics.median(m[i] for m in rss):6.1f}" for i in range(2)) if rss else ""
        print(
            f"  {minute + 1:>6} {count:>8,} {f['p50'] * 1e3:7.1f} {f['p95'] * 1e3:7.1f}"
            f" {f['p99'] * 1e3:7.1f} {f['max'] * 1e3:7.1f}  {nodes}"
        )
    everyone = percentiles([d for _, d in delays])
    p99 = everyone["p99"]
    print(
        f"  delivery, the whole run: p50 {everyone['p50'] * 1e3:.1f} ms, p95 {everyone['p95'] * 1e3:.1f} ms,"
        f" p99 {p99 * 1e3:.1f} ms, max {everyone['max'] * 1e3:.1f} ms ({len(delays):,} deliveries)"
    )
    for way, seconds in by_way.items():
        f = percentiles(seconds)
        print(f"    followers {way}: p50 {f['p50'] * 1e3:.1f} ms, p99 {f['p99'] * 1e3:.1f} ms")
    print(f"  target p99 < {P99_TARGET_S * 1e3:.0f} ms: {'met' if p99 < P99_TARGET_S else 'not met'}")
    settled = memory[len(memory) // 2 :]  # the first half warms up: each fold fills to what it keeps
    if len(settled) < 3:
        print("  memory: too short a run to say whether it is flat")
        return
    for node in range(2):
        minutes = [at / 60 for at, _ in settled]
        slope, _ = statistics.linear_regression(minutes, [mb[node] for _, mb in settled])
        flat = slope * 60 < FLAT_MB_AN_HOUR
        print(
            f"  node {'AB'[node]} memory: {memory[0][1][node]:.1f} MB at the start, {settled[0][1][node]:.1f} MB"
            f" half-way, {settled[-1][1][node]:.1f} MB at the end; over the second half it grew"
            f" {slope * 60:+.1f} MB an hour (fitted): {'flat' if flat else 'still growing'}"
            f" (target: under {FLAT_MB_AN_HOUR:.0f} MB an hour)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=30.0, help="how long the writers write (30)")
    parser.add_argument("--rate", type=float, default=RATE, help=f"appends a second, all writers together ({RATE:.0f})")
    args = parser.parse_args()
    try:
        with pg.server() as admin, pg.database(admin) as url:
            print(pg.settings(url))
            print(pg._load("at the start"))
            pg.set_synchronous_commit(url, "on")
            soak(url, args.minutes, args.rate)
            print(f"\n{pg._load('at the end')}")
    except feed.BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
