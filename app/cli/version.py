"""What `morale --version` prints, apart from the commands: `morale --version` alone is answered
with it before they are imported (`morale.app.cli.main`), and the `--version` option of the Typer
app prints the same lines."""

from __future__ import annotations


def version_line() -> str:
    """The engine's version, then each ruleset's: what a battle's log is read with (CHANGELOG.md says
    what moves each). Imported here, not at the top, so that the commands that do not ask need none
    of it: the rulesets' registry and nothing else (no server, no projections, no game's code: the
    registry reads each game's entry point, and imports a game to learn its version)."""
    from importlib.metadata import version

    from morale.core.rulesets import rulesets

    lines = [f"morale {version('morale')}"]
    lines += [f"ruleset {r.id} version {r.version}: {r.title}" for r in rulesets().values()]
    return "\n".join(lines)
