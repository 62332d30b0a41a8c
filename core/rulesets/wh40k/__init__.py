"""Warhammer 40,000: the 6th and 3rd editions' Morale, Fall Back and Regroup, on shared machinery."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .sixth import WH40K6
    from .third import WH40K3

__all__ = ["WH40K3", "WH40K6"]
_MODULES = {"WH40K6": ".sixth", "WH40K3": ".third"}  # each name's module, imported when the name is first read


def __getattr__(name: str) -> Any:
    # Not imported with the package: its `about` module (who the game is, for `morale --version`)
    # is imported through it, and must not bring the rules.
    if name in _MODULES:
        return getattr(import_module(_MODULES[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
