"""The referee's console opening a battle: from the page's address to its first board drawn, in
Debian's Chromium (Playwright) against `morale serve` on loopback, each server a fresh process (no
fold kept: the board comes from the store's snapshots). Targets: the 104-event example in under
1 s, the 100,000-event benchmark battle in under 2 s.

    .venv/bin/python bench/console.py            # (`make bench-console`)
    .venv/bin/python bench/console.py --quick    # a 5,000-event battle instead of 100,000

Baseline, measured in the same run against the same server: the floor, the same browser opening a
page of the same server that asks for nothing more (the API's health answer), so what is left is
the console's own work (its files, the vocabulary, board and due list, drawing).
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from generate import CACHE, cached_battle  # noqa: E402

from morale.app.access import issue_tokens  # noqa: E402
from morale.app.roster import load_roster  # noqa: E402
from morale.app.service import record, start_battle  # noqa: E402
from morale.app.snapshot_cache import rebuild  # noqa: E402
from morale.events.codec import decode_event  # noqa: E402
from morale.events.store import SqliteEventStore  # noqa: E402

CHROMIUM = os.environ.get("MORALE_CHROMIUM", "/usr/bin/chromium-headless-shell")  # as the tests (Makefile)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
RUNS = 5


def example_db(folder: Path) -> tuple[Path, str, str]:
    """The shipped 40K example (104 events) in a store of its own, with a referee's token."""
    path = folder / "example.db"
    store = SqliteEventStore(path)
    roster = load_roster(ROOT / "examples" / "wh40k6" / "roster.toml")
    start_battle(store, roster.battle, roster.started, roster.units)
    lines = (ROOT / "examples" / "wh40k6" / "battle.ndjson").read_text().splitlines()
    record(store, roster.battle, [decode_event(line) for line in lines if line])
    token = issue_tokens(store, roster.battle, roster.started.sides).referee
    assert store.last_seq(roster.battle) == 104
    store.close()
    return path, roster.battle, token


def bench_db(folder: Path, count: int) -> tuple[Path, str, str]:
    """The benchmark battle (bench/run.py's, cached), copied, with its snapshots and a token."""
    cached, battle, _ = cached_battle(1, count)
    cached.close()
    path = folder / "bench.db"
    shutil.copy(CACHE / f"battle-1-{count}.db", path)
    store = SqliteEventStore(path)
    started = time.perf_counter()
    taken = rebuild(store, battle)
    print(f"  ({taken} snapshots of the {count:,}-event battle taken in {time.perf_counter() - started:.1f} s)")
    sides = next(store.read(battle)).event.sides  # type: ignore[attr-defined]
    token = issue_tokens(store, battle, sides).referee
    store.close()
    return path, battle, token


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """`morale serve` in a process of its own, on a free loopback port."""

    def __init__(self, db: Path) -> None:
        self.port = free_port()
        morale = Path(sys.executable).with_name("morale")
        self.process = subprocess.Popen(
            [str(morale), "serve", "--db", str(db), "--port", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("morale serve did not start")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


def first_board(browser, db: Path, battle: str, token: str) -> tuple[float, float, float]:
    """(the floor, the first board in a fresh server, the board again in the same server), in s."""
    server = Server(db)
    try:
        context = browser.new_context(viewport={"width": 390, "height": 844})
        page = context.new_page()
        start = time.perf_counter()
        page.goto(f"{server.url}/health")
        floor = time.perf_counter() - start
        times = []
        for _ in range(2):
            start = time.perf_counter()
            page.goto(f"{server.url}/view#battle={battle}&token={token}")
            page.wait_for_selector("body[data-ready='true']", timeout=60_000)
            times.append(time.perf_counter() - start)
            page.goto("about:blank")
        context.close()
        return floor, times[0], times[1]
    finally:
        server.stop()


def measure(browser, name: str, db: Path, battle: str, token: str, target_s: float) -> None:
    runs = [first_board(browser, db, battle, token) for _ in range(RUNS)]
    floor = statistics.median(r[0] for r in runs)
    cold = statistics.median(r[1] for r in runs)
    warm = statistics.median(r[2] for r in runs)
    worst = max(r[1] for r in runs)
    met = "met" if worst < target_s else "met by the median, not by the worst run" if cold < target_s else "NOT met"
    print(
        f"  {name:<36} first board {cold * 1000:7.0f} ms (worst {worst * 1000:.0f}), again {warm * 1000:6.0f} ms;"
        f" floor {floor * 1000:5.0f} ms: {cold / floor:5.1f}x the floor; target < {target_s:.0f} s: {met}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a 5,000-event battle instead of 100,000")
    args = parser.parse_args()
    count = 5_000 if args.quick else 100_000
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        folder = Path(tmp)
        print(f"the console's first board, median of {RUNS} fresh servers (Chromium at 390x844, loopback)")
        example = example_db(folder)
        long = bench_db(folder, count)
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            measure(browser, "the 104-event example", *example, target_s=1)
            measure(browser, f"the {count:,}-event benchmark battle", *long, target_s=2)
        finally:
            browser.close()


if __name__ == "__main__":
    main()
