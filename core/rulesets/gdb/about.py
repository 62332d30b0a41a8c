"""Who the game is, read by `morale --version` without importing its rules (the
`morale.rulesets.about` entry point, `core/installed.py`). The registry refuses a `Ruleset` that
says otherwise."""

from morale.core.installed import About

GDB = About("gdb", "1", "General de Brigade", listing_order=40)
