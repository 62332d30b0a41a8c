"""How `make test`'s workers are dealt the tests (pytest-xdist's scheduler for `--dist loadfile`).

A file at a time, as `--dist loadfile` deals them, so that a module's costly fixture (the README's
run, a built wheel, the documentation's pages) is made once; but the tests named in `SPREAD` one
parametrization at a time. They cost the most and share nothing but the worker's browser: dealt as
one file, test_console.py's eight whole turns (25 to 50 seconds each on this machine) kept one
worker busy for five minutes after the others had finished.
"""

from __future__ import annotations

from xdist.scheduler import LoadFileScheduling

# Tests (file::name) each of whose parametrizations may go to any worker: no fixture of theirs is
# wider than a function's, so dealing them apart makes nothing twice.
SPREAD = ("tests/test_console.py::test_a_whole_turn_is_played_explained_stepped_back_and_struck_out_through_the_page",)


class FilesButSpread(LoadFileScheduling):
    def _split_scope(self, nodeid: str) -> str:
        if nodeid.startswith(tuple(f"{test}[" for test in SPREAD)):
            return nodeid  # a work unit of its own
        return super()._split_scope(nodeid)
