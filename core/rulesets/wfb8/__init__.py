"""Warhammer Fantasy Battle 8th edition: Panic, Break tests, fleeing and rallying, multiple combats."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .ruleset import WFB8

__all__ = ["WFB8"]
_MODULES = {"WFB8": ".ruleset"}  # each name's module, imported when the name is first read


def __getattr__(name: str) -> Any:
    # Not imported with the package: its `about` module (who the game is, for `morale --version`)
    # is imported through it, and must not bring the rules.
    if name in _MODULES:
        return getattr(import_module(_MODULES[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
