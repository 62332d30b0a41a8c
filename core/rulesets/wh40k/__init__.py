"""Warhammer 40,000: the 6th and 3rd editions' Morale, Fall Back and Regroup, on shared machinery."""

from .sixth import WH40K6
from .third import WH40K3

__all__ = ["WH40K3", "WH40K6"]
