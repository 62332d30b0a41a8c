"""General de Brigade (Napoleonic): the Morale Check Test read in a results table, rally, brigade tests."""

from .ruleset import GDB

__all__ = ["GDB"]
