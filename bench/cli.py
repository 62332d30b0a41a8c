"""The command line on the 100,000-event battle (bench/run.py's), each command a fresh process as a
user runs it: `morale --version` against a bare `python -c "import msgspec, sqlite3"`, and the read
commands against `morale --version`, medians of runs taken in turn, beside their targets.

    .venv/bin/python bench/cli.py            # the 100,000-event battle (generated once into bench/.cache/)
    .venv/bin/python bench/cli.py --quick    # 5,000 events, to check it runs

Targets (issue 33): `morale --version` within 2x the bare import; every read command within 1.5x
`morale --version`. Also shown, not held to a target: the first read of the battle before it has
any snapshot (it folds the whole log once and keeps one), a whole replay in one process (what every
read cost before the command line read snapshots), and `board` printed as a table for people.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import cached_battle  # noqa: E402

BARE = 'python -c "import msgspec, sqlite3"'
MORALE = str(Path(sys.executable).with_name("morale"))


# As a user's shell runs them: bytecode cached (an environment that sets PYTHONDONTWRITEBYTECODE, as
# this machine's did, compiles every module of the app again in every process, 0.2 s of each).
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def run(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=ENV)
    return time.perf_counter() - started


def medians(commands: dict[str, list[str]], rounds: int) -> dict[str, float]:
    """Each command's median of `rounds` runs, taken in turn (A, B, C, A, B, C...), so a drift in
    the machine's speed falls on all of them alike."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, command in commands.items():
            times[name].append(run(command))
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="5,000 events, to check it runs")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    count = 5_000 if args.quick else 100_000
    cached, battle, _ = cached_battle(1, count)
    cached.close()
    with tempfile.TemporaryDirectory() as folder:
        db = str(Path(folder) / "battle.db")
        shutil.copy(cache_file(count), db)
        with sqlite3.connect(db) as conn:  # the cache's copy as a CLI-only battle: no snapshots yet
            conn.execute("DROP TABLE IF EXISTS snapshots")
            conn.execute("DROP TABLE IF EXISTS snapshot_units")
        run([MORALE, "--version"])  # writes the bytecode of what it imports, as a first run does
        run([sys.executable, "-c", "import morale.app.cli, morale.app.service; morale.app.cli.app"])
        first = run([MORALE, "board", battle, "--db", db, "--json"])
        living, early = units(db, battle)
        reads = {
            "board --json": [MORALE, "board", battle, "--db", db, "--json"],
            "due": [MORALE, "due", battle, "--db", db],
            f"explain {living} (in play)": [MORALE, "explain", battle, living, "--db", db],
        }
        floor = {
            BARE: [sys.executable, "-c", "import msgspec, sqlite3"],
            "morale --version": [MORALE, "--version"],
        }
        got = medians(floor | reads, args.rounds)
        slow = medians(
            {
                f"explain {early} (joined at the start)": [MORALE, "explain", battle, early, "--db", db],
                "board (a table for people)": [MORALE, "board", battle, "--db", db],
                "a whole replay and its board, one process": [sys.executable, "-c", REPLAY, db, battle],
            },
            max(1, args.rounds // 3),
        )
    bare, version = got[BARE], got["morale --version"]
    print(f"\nthe command line, {count:,}-event battle, medians of {args.rounds} runs in turn (load: {load()})")
    print(f"  {'command':<44} {'median':>9}  {'ratio':>12}  {'target':>14}")
    print(f"  {BARE:<44} {bare * 1000:>7.0f} ms")
    line("morale --version", version, version / bare, "the bare import", 2.0)
    for name in reads:
        line(f"morale {name}", got[name], got[name] / version, "--version", 1.5)
    print(f"  not held to a target (medians of {max(1, args.rounds // 3)}):")
    for name, seconds in slow.items():
        print(f"  {name:<44} {seconds * 1000:>7.0f} ms  {seconds / version:>9.1f}x --version")
    print(f"  {'the first read, no snapshots yet (keeps ten)':<44} {first * 1000:>7.0f} ms")


def line(name: str, seconds: float, ratio: float, of: str, target: float) -> None:
    met = "met" if ratio <= target else "not met"
    print(f"  {name:<44} {seconds * 1000:>7.0f} ms  {ratio:>5.2f}x {of:<16} <= {target}x  {met}")


def cache_file(count: int) -> Path:
    return HERE / ".cache" / f"battle-1-{count}.db"


# What each read did before: fold the whole log, then project it.
REPLAY = (
    "import sys; from morale.app.service import load; from morale.events.store import SqliteEventStore; "
    "from morale.projections.board import board; board(load(SqliteEventStore(sys.argv[1]), sys.argv[2]).state())"
)


def units(db: str, battle: str) -> tuple[str, str]:
    """A unit in play at the end, and the first unit to join (its story runs from the start)."""
    script = (
        "import sys; from morale.app.service import load_head; from morale.events.store import SqliteEventStore; "
        "b = load_head(SqliteEventStore(sys.argv[1]), sys.argv[2]).state(); "
        "print(next(iter(b.living)), next(iter(b.units)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, db, battle], check=True, capture_output=True, text=True, env=ENV
    )
    living, early = out.stdout.split()
    return living, early


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} cores"


if __name__ == "__main__":
    main()
