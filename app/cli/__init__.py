"""`morale`: create battles, record what happens at the table, and read back what the rules made of it.

Every command reads the battle's log from the store, so there is no other state to keep in sync.
Refused input prints one line naming the field or rule ID and exits with code 2; nothing is written.

base.py holds the Typer `app` and what every command shares (options, refusals, output); battle.py
(the battle at the table), reads.py (board, due, explain: the reads a table makes most), cors.py (the
web origins a battle allows), hooks.py (its webhooks), audit.py (audit and replay), rules.py (the rule
catalogue), notation.py (the battle notation), tables.py, report.py, examples.py and stores.py
(moving a store) register their commands on it; render.py, render_explain.py and render_audit.py print for people.

Importing this package imports none of them, and running a command imports its own module alone:
`commands.py` lists every command with its module and its help, so `morale -h` needs none of them
and `morale --version` (`main`) answers without even the Typer app (bench/README.md has what each
costs). help_said.py shows that help, and each command's, in the reader's language.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import typer

__all__ = ["app", "main"]


def main() -> None:
    """The `morale` command."""
    if sys.argv[1:] == ["--version"]:  # the one command line that needs no command
        from .version import version_line

        sys.stdout.write(version_line() + "\n")
        return
    _app()()


def __getattr__(name: str) -> typer.Typer:
    if name == "app":
        return _app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _app() -> typer.Typer:
    # Its commands are built as they are asked for (`base.LazyCommands`, from `commands.COMMANDS`).
    from .base import app

    return app
