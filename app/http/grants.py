"""The tokens a node has seen open a battle, remembered for the writes whose store checks the token
as it writes.

A write's guard asked the store for its token's grant on every request: a worker thread and a
round trip, one of the four queries an append over HTTP made (bench/README.md). A token's role,
side and label never change while it exists (a token is issued and revoked, never edited), so a
node may remember them; what it may not remember is that the token still exists, since a
revocation through another node, or by the command line, reaches this one later or never. So a
remembered grant lets a request past the guard only into a handler whose write carries the token
to the store (`Precondition.holder`), which writes nothing if the token no longer opens the battle
when the statement runs (`TokenRevoked`, answered 401): revocation takes effect at once all the
same. Reads, and every other write, ask the store each time.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from morale.events.store import StoredToken

from ..access import Opened, opened_by, utc_now


class Grants:
    def __init__(self, size: int = 10_000) -> None:
        self.size = size  # tokens remembered at most; the least recently used goes first
        self._kept: OrderedDict[tuple[str, str], StoredToken] = OrderedDict()
        self._lock = threading.Lock()  # the guards run on the event loop, a refused write in a worker

    def opened(self, battle: str, token_hash: str) -> Opened | None:
        """The remembered grant of the token with this sha256 in the battle, or None."""
        with self._lock:
            found = self._kept.get((battle, token_hash))
            if found is not None:
                self._kept.move_to_end((battle, token_hash))
        return None if found is None else opened_by(found)

    def keep(self, battle: str, found: StoredToken) -> None:
        with self._lock:
            self._kept[battle, found.token_hash] = found
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)

    def noted(self, battle: str, token_hash: str) -> None:
        """The token's use was just noted in the store: not due again for a minute."""
        with self._lock:
            found = self._kept.get((battle, token_hash))
            if found is not None:
                self._kept[battle, token_hash] = found._replace(last_used=utc_now())

    def forget(self, battle: str, token_hash: str) -> None:
        """The store said the token no longer opens the battle."""
        with self._lock:
            self._kept.pop((battle, token_hash), None)
