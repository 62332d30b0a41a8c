"""Files the app reads that a person hands it (a roster, a notation, a file of events, a table):
each read with a bound, so a file that never ends (`/dev/zero`) or a huge one is refused in one
line before it is parsed, never read until memory runs out."""

from __future__ import annotations

import sys
from pathlib import Path

from morale.events.codec import MalformedEvent

MAX_ROSTER_BYTES = 1 << 20  # a roster of a few hundred units is tens of kilobytes
MAX_TABLE_BYTES = 1 << 20  # a data table (a results table, a house rule's numbers)
MAX_LOG_BYTES = 64 << 20  # a battle's events or its notation: a long campaign is a few megabytes


def read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of `path` (`-`: standard input), refused naming the file if it holds more than `limit`."""
    try:
        if str(path) == "-":
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with path.open("rb") as opened:
                data = opened.read(limit + 1)
    except OSError as exc:
        raise MalformedEvent(f"{path}: {exc.strerror}") from None
    if len(data) > limit:
        raise MalformedEvent(f"{path}: larger than the {_size(limit)} such a file may be")
    return data


def _size(limit: int) -> str:
    return f"{limit >> 20} MB" if limit >= 1 << 20 else f"{limit >> 10} KB"
