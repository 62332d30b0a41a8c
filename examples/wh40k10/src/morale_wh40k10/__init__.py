"""Warhammer 40,000 10th edition's Battle-shock rules, a ruleset the morale referee finds through the
`morale.rulesets` entry point (`WH40K10`). morale never imports this package."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .ruleset import WH40K10

__all__ = ["WH40K10"]
_MODULES = {"WH40K10": ".ruleset"}  # each name's module, imported when the name is first read


def __getattr__(name: str) -> Any:
    # Not imported with the package: its `about` module (who the game is, for `morale --version`)
    # is imported through it, and must not bring the rules.
    if name in _MODULES:
        return getattr(import_module(_MODULES[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
