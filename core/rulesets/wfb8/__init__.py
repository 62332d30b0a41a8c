"""Warhammer Fantasy Battle 8th edition: Panic, Break tests, fleeing and rallying, multiple combats."""

from __future__ import annotations

from typing import TYPE_CHECKING

from morale.core.lazy import names_in

if TYPE_CHECKING:
    from .ruleset import WFB8

__all__ = ["WFB8"]
# Not imported with the package: its `about` module (who the game is, for `morale --version`) is
# imported through it, and must not bring the rules.
__getattr__ = names_in(__name__, {"WFB8": ".ruleset"})
