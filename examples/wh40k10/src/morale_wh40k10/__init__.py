"""Warhammer 40,000 10th edition's Battle-shock rules, a ruleset the morale referee finds through the
`morale.rulesets` entry point (`WH40K10`). morale never imports this package."""

from .ruleset import WH40K10

__all__ = ["WH40K10"]
