"""The fold's machine instructions an event, counted by valgrind, beside a baseline revision's.

Wall-clock time on this VM drifts by half within minutes; valgrind's count of instructions does not
(bench/README.md). The same seeded battle (bench/generate.py) is folded by this tree and by the tree
of `--against` (a git revision, checked out in a temporary worktree and imported in its place), each
at two lengths under `valgrind --tool=cachegrind`: the difference over the extra events is the fold's
cost an event, with Python's start and the imports cancelled out.

    python bench/fold_instructions.py --against c8c44dd      # the commit before rules as reactions
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "events", "projections", "app", "testing", "examples")

# Run in a child: fold the first N events of the battle in FILE (events as msgspec JSON lines).
CHILD = """
import sys, msgspec
from morale.events.types import AnyEvent
try:
    from morale.core.evolve import evolve
except ImportError:  # a tree from before evolve had a module of its own
    from morale.core.fold import evolve
events = [msgspec.json.decode(line, type=AnyEvent) for line in open(sys.argv[1], "rb")][: int(sys.argv[2])]
battle = None
for seq, event in enumerate(events, 1):
    battle, _ = evolve(battle, event, seq)
"""


def tree_path(revision: str | None, scratch: Path) -> Path:
    """A folder whose `morale/` links this tree's packages (or a worktree of `revision`'s)."""
    source = REPO
    if revision:
        source = scratch / "baseline"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "-q", "--detach", str(source), revision], check=True)
    linked = scratch / ("typed-" + (revision or "here")) / "morale"
    linked.mkdir(parents=True)
    for package in PACKAGES:
        (linked / package).symlink_to(source / package)
    return linked.parent


def instructions(path: Path, events: Path, count: int) -> int:
    child = events.parent / "child.py"
    child.write_text(CHILD)
    env = {**os.environ, "PYTHONPATH": str(path), "PYTHONHASHSEED": "0"}
    run = subprocess.run(
        # No address randomisation: tables keyed by type hash by address, and their probes then differ.
        [
            *(["setarch", platform.machine(), "-R"] if shutil.which("setarch") else []),
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
            sys.executable,
            str(child),
            str(events),
            str(count),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", run.stderr)
    if found is None:
        raise RuntimeError(f"valgrind printed no instruction count:\n{run.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", help="a git revision to count beside this tree")
    parser.add_argument("--events", type=int, default=5000, help="the longer of the two lengths folded")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    sys.path.insert(0, str(REPO / "bench"))
    import msgspec
    from generate import battle_events

    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        events = scratch / "battle.ndjson"
        events.write_bytes(b"\n".join(msgspec.json.encode(e) for e in battle_events(args.seed, args.events)))
        short, long = args.events // 5, args.events
        trees = [("this tree", tree_path(None, scratch))]
        try:
            if args.against:
                trees.append((args.against, tree_path(args.against, scratch)))
            figures = {}
            for name, path in trees:
                a, b = instructions(path, events, short), instructions(path, events, long)
                figures[name] = (b - a) / (long - short)
                print(
                    f"{name}: {figures[name]:,.0f} instructions an event ({long - short:,} events of seed {args.seed})"
                )
            if args.against:
                ratio = figures["this tree"] / figures[args.against]
                print(f"this tree / {args.against}: {ratio:.3f} (target: within 10%, <= 1.10)")
        finally:
            if args.against:
                subprocess.run(
                    ["git", "-C", str(REPO), "worktree", "remove", "--force", str(scratch / "baseline")], check=False
                )


if __name__ == "__main__":
    main()
