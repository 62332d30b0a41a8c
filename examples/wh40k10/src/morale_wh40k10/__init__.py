"""Warhammer 40,000 10th edition's Battle-shock rules, a ruleset the morale referee finds through the
`morale.rulesets` entry point (`WH40K10`). morale never imports this package."""

from __future__ import annotations

from typing import TYPE_CHECKING

from morale.core.lazy import names_in

if TYPE_CHECKING:
    from .ruleset import WH40K10

__all__ = ["WH40K10"]
# Not imported with the package: its `about` module (who the game is, for `morale --version`) is
# imported through it, and must not bring the rules.
__getattr__ = names_in(__name__, {"WH40K10": ".ruleset"})
