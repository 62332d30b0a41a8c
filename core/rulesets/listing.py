"""Who each installed game is (id, version, title), in the order `morale rulesets` lists them, for
`morale --version`: read from each game's `morale.rulesets.about` entry point (`installed.About`), so
that naming the games imports none of them. A game that declares no `About` is imported to ask its
`Ruleset`, as before there were any.

This module imports nothing of the registry (`base.py`) unless a game has to be imported or refused:
that is what keeps `morale --version` within a few milliseconds of Python's own start.
"""

from __future__ import annotations

from .. import installed
from ..installed import About


def listing() -> list[About]:
    """Every game installed, in its listing order (a tie in the order the entry points come, as the
    registry lists them)."""
    found = []
    for point in installed.games():
        try:
            about = installed.about_of(point)
        except installed.UnusableAbout as exc:
            from .base import BrokenGame

            raise BrokenGame(point, exc.problem) from None
        if about is None:
            from .base import given_by

            ruleset = given_by(point)
            about = About.of(ruleset)
        found.append(about)
    return sorted(found, key=lambda about: about.listing_order)
