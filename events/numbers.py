"""Sequence numbers and turns typed as text: a point (`morale at B 12`, `?at=12`), `--amend 12=...`,
a `Last-Event-ID` header.

Only ASCII digits count. `str.isdigit` also takes '¹' and other digits `int` refuses (a traceback,
or a 500 over HTTP), and `int` takes digits of other scripts that no log writes; neither is a number
a user meant. A number longer than any sequence number SQLite can hold is no number of a log either
(and `int` refuses text of more than 4,300 digits outright).
"""

from __future__ import annotations

import re

LAST_SEQ = 2**63 - 1  # the largest integer SQLite keeps, so the largest sequence number a log can reach
_DIGITS = re.compile(r"[0-9]{1,19}")


def whole_number(text: str) -> int | None:
    """`text` (spaces around it aside) as a number from 0 to LAST_SEQ, or None if it is not one."""
    text = text.strip()
    if not _DIGITS.fullmatch(text):
        return None
    value = int(text)
    return value if value <= LAST_SEQ else None
