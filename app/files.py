"""Files the app reads that a person hands it (a roster, a notation, a file of events, a table):
each read with a bound, so a file that never ends (`/dev/zero`) or a huge one is refused in one
line before it is parsed, never read until memory runs out."""

from __future__ import annotations

import sys
from pathlib import Path

from morale.core.words import Words
from morale.events.codec import MalformedEvent

MAX_ROSTER_BYTES = 1 << 20  # a roster of a few hundred units is tens of kilobytes
MAX_TABLE_BYTES = 1 << 20  # a data table (a results table, a house rule's numbers)
MAX_LOG_BYTES = 64 << 20  # a battle's events or its notation: a long campaign is a few megabytes
# A line of such a file, checked before it is parsed: a line is one event (or one line of notation),
# the longest a battle_started with its data tables inline (a table file is at most 1 MB; as JSON,
# escaped in a notation's quotes, it grows), so no field of any event needs more.
MAX_LINE_CHARS = 4 << 20


def read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of `path` (`-`: standard input), refused naming the file if it holds more than `limit`."""
    try:
        if str(path) == "-":
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with path.open("rb") as opened:
                data = opened.read(limit + 1)
    except OSError as exc:
        raise MalformedEvent(Words("{path}: {error}", path=path, error=exc.strerror)) from None
    if len(data) > limit:
        raise MalformedEvent(Words("{path}: larger than the {size} such a file may be", path=path, size=_size(limit)))
    return data


def first_long_line(text: str | bytes, limit: int = MAX_LINE_CHARS) -> int | None:
    """The number of the first line of `text` longer than `limit` (characters, or bytes), if any:
    found without splitting the text, and at once for a text shorter than the bound (most)."""
    newline = "\n" if isinstance(text, str) else b"\n"
    start = 0
    while len(text) - start > limit:
        end = text.find(newline, start)  # type: ignore[arg-type]
        if end == -1:
            end = len(text)
        if end - start > limit:
            return text.count(newline, 0, start) + 1  # type: ignore[arg-type]
        start = end + 1
    return None


def check_line_lengths(text: str | bytes, source: str, limit: int = MAX_LINE_CHARS) -> None:
    """Refuse a file of events with a line longer than any event needs, before a line is decoded."""
    line = first_long_line(text, limit)
    if line is not None:
        said = Words(
            "{source} line {number}: longer than the {size} a line of events may be",
            source=source,
            number=line,
            size=_size(limit),
        )
        raise MalformedEvent(said)


def _size(limit: int) -> Words:
    return Words("{n} MB", n=limit >> 20) if limit >= 1 << 20 else Words("{n} KB", n=limit >> 10)
