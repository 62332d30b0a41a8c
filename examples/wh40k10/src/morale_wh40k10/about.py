"""Who the game is, read by `morale --version` without importing its rules (the
`morale.rulesets.about` entry point). morale refuses the game if its `Ruleset` says otherwise."""

from morale.core.installed import About

WH40K10 = About("wh40k10", "1", "Warhammer 40,000 10th edition")
