"""What `morale --version` prints, apart from the commands: `morale --version` alone is answered
with it before they are imported (`morale.app.cli.main`), and the `--version` option of the Typer
app prints the same lines."""

from __future__ import annotations


def version_line() -> str:
    """The engine's version, then each ruleset's: what a battle's log is read with (CHANGELOG.md says
    what moves each). Imported here, not at the top, so that the commands that do not ask need none
    of it: each game's `About` (its `morale.rulesets.about` entry point), no game's rules, no
    registry, no server, no projections."""
    from importlib.metadata import version

    from morale.core.rulesets.listing import listing

    lines = [f"morale {version('morale')}"]
    lines += [f"ruleset {about.id} version {about.version}: {about.title}" for about in listing()]
    return "\n".join(lines)
