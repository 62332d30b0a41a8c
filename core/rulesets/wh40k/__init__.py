"""Warhammer 40,000: the 6th and 3rd editions' Morale, Fall Back and Regroup, on shared machinery."""

from __future__ import annotations

from typing import TYPE_CHECKING

from morale.core.lazy import names_in

if TYPE_CHECKING:
    from .sixth import WH40K6
    from .third import WH40K3

__all__ = ["WH40K3", "WH40K6"]
# Not imported with the package: its `about` module (who the game is, for `morale --version`) is
# imported through it, and must not bring the rules.
__getattr__ = names_in(__name__, {"WH40K6": ".sixth", "WH40K3": ".third"})
