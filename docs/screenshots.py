"""The console's pictures on the site: copied from the browser tests' own screenshots, never drawn by
hand, so that the guide shows the console as the tests saw it.

    python docs/screenshots.py          copy them from screenshots/ into docs/images/ (run
                                        tests/test_console.py, test_console_table.py,
                                        test_console_join.py and test_language_console.py
                                        first: they write screenshots/)
    python docs/screenshots.py --check  exit 1 unless every picture is in docs/images/, a PNG of a
                                        390x844 phone screen

Each picture is a 390x844 phone screen of the 40K example battle.
"""

from __future__ import annotations

import shutil
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TAKEN = ROOT / "screenshots"
IMAGES = ROOT / "docs" / "images"
PHONE = (390, 844)
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# The picture on the site, and the screenshot it is a copy of (the test that takes it).
SHOWN = {
    "console-board.png": "wh40k6-referee-board-390x844.png",  # test_console.py
    "console-due.png": "table-preview-fails-390x844.png",  # test_console_table.py
    "console-record.png": "wh40k6-referee-record-390x844.png",  # test_console.py
    "console-log.png": "wh40k6-referee-log-390x844.png",  # test_console.py
    "console-why.png": "wh40k6-referee-why-390x844.png",  # test_console.py
    "console-past.png": "wh40k6-referee-past-390x844.png",  # test_console.py
    "console-player.png": "wh40k6-player-record-390x844.png",  # test_console.py
    "console-share.png": "join-share-390x844.png",  # test_console_join.py
    "console-due-ru.png": "ru-wh40k6-referee-due-390x844.png",  # test_language_console.py
}


def size_of(png: bytes) -> tuple[int, int] | None:
    """A PNG's width and height (its IHDR chunk), or None if it is not a PNG."""
    if not png.startswith(PNG_SIGNATURE) or png[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def problems() -> list[str]:
    found = []
    for shown in SHOWN:
        path = IMAGES / shown
        if not path.exists():
            found.append(f"docs/images/{shown}: missing")
        elif size_of(path.read_bytes()) != PHONE:
            found.append(f"docs/images/{shown}: not a PNG of {PHONE[0]}x{PHONE[1]}")
    return found


def copy() -> list[str]:
    missing = [
        f"screenshots/{taken}: missing (run the browser tests first)"
        for taken in SHOWN.values()
        if not (TAKEN / taken).exists()
    ]
    if missing:
        return missing
    IMAGES.mkdir(exist_ok=True)
    for shown, taken in SHOWN.items():
        shutil.copyfile(TAKEN / taken, IMAGES / shown)
    return problems()


def main(argv: list[str]) -> int:
    found = problems() if argv[1:] == ["--check"] else copy()
    for problem in found:
        print(problem, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
