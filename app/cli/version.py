"""What `morale --version` prints, apart from the commands: `morale --version` alone is answered
with it before they are imported (`morale.app.cli.main`), and the `--version` option of the Typer
app prints the same line."""

from __future__ import annotations


def version_line() -> str:
    from importlib.metadata import version  # not at import: the commands that do not ask need none of it

    return f"morale {version('morale')}"
