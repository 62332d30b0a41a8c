"""Who the game is, read by `morale --version` without importing its rules (the
`morale.rulesets.about` entry point, `core/installed.py`). The registry refuses a `Ruleset` that
says otherwise."""

from morale.core.installed import About
from morale.core.words import Words

WFB8 = About("wfb8", "1", Words("Warhammer Fantasy Battle 8th edition"), listing_order=30)
