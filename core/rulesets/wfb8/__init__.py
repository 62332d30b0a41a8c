"""Warhammer Fantasy Battle 8th edition: Panic, Break tests, fleeing and rallying, multiple combats."""

from .ruleset import WFB8

__all__ = ["WFB8"]
