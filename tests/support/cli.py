"""Running the `morale` CLI in-process against a store file, for the CLI tests."""

from __future__ import annotations

from pathlib import Path

from click.testing import Result
from typer.testing import CliRunner

from morale.app.cli import app

runner = CliRunner()


def morale(db: Path, *args: str, input: str | None = None) -> Result:
    """`morale ARGS --db DB`, with `input` on standard input."""
    return runner.invoke(app, [*args, "--db", str(db)], input=input)


def morale_command(*args: str, input: str | None = None) -> Result:
    """`morale ARGS` as given (for commands that name their stores themselves, as `copy` does)."""
    return runner.invoke(app, list(args), input=input)
