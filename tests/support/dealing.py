"""How `make test`'s workers are dealt the tests (pytest-xdist's scheduler for `--dist loadfile`).

A file at a time, as `--dist loadfile` deals them, so that a module's costly fixture (the README's
run, a built wheel, the documentation's pages) is made once; but the tests named in `SPREAD` one
parametrization at a time. They cost the most and share nothing but the worker's browser: dealt as
one file, test_console.py's eight whole turns (25 to 50 seconds each on this machine) kept one
worker busy for five minutes after the others had finished.

And the costliest first (`FIRST`, then the other files by their number of tests, as xdist's own
order has it): xdist deals the files with the most tests first, which put the eight whole turns
(one test each, dealt apart) and the documentation's pages (a few tests, minutes of commands) last,
each then run on one worker while the others had nothing left to do.
"""

from __future__ import annotations

from collections import Counter

import pytest
from xdist.scheduler import LoadFileScheduling

WHOLE_TURN = "tests/test_console.py::test_a_whole_turn_is_played_explained_stepped_back_and_struck_out_through_the_page"
# Tests (file::name) each of whose parametrizations may go to any worker: no fixture of theirs is
# wider than a function's, so dealing them apart makes nothing twice.
SPREAD = (WHOLE_TURN,)
# The costliest work units, first to be dealt (`make test --durations=20` lists where the time goes;
# docs/development.md says why each is slow).
FIRST = (
    WHOLE_TURN,
    "tests/test_docs.py",
    "tests/test_package.py",
    "tests/test_console.py",
    "tests/test_table_confirm.py",
    "tests/test_language_console.py",
    "tests/test_asyncapi.py",
    "tests/test_webhooks.py",
    "tests/test_report.py",
    "tests/test_readme.py",
    "tests/test_language_whole.py",
    "tests/test_cli_snapshots.py",
)


class FilesButSpread(LoadFileScheduling):
    def __init__(self, config: pytest.Config, log: object = None) -> None:
        config.option.loadscopereorder = False  # the order is the collection's, as `dealt_first` made it
        super().__init__(config, log)  # type: ignore[arg-type]

    def _split_scope(self, nodeid: str) -> str:
        if nodeid.startswith(tuple(f"{test}[" for test in SPREAD)):
            return nodeid  # a work unit of its own
        return super()._split_scope(nodeid)


def dealt_first(items: list[pytest.Item]) -> None:
    """The collection in the order the work is to be dealt: the `FIRST` units, then every other
    file by its number of tests, most first; each file's tests in their own order."""
    files = Counter(item.nodeid.split("::", 1)[0] for item in items)

    def rank(item: pytest.Item) -> tuple[int, int, str]:
        path = item.nodeid.split("::", 1)[0]
        for place, first in enumerate(FIRST):
            if item.nodeid.startswith(first) if "::" in first else path == first:
                return (place, 0, path)
        return (len(FIRST), -files[path], path)

    items.sort(key=rank)  # stable: a file's tests keep their order
