"""Who the two editions are, read by `morale --version` without importing their rules (the
`morale.rulesets.about` entry points, `core/installed.py`). The registry refuses an edition whose
`Ruleset` says otherwise."""

from morale.core.installed import About
from morale.core.words import Words

WH40K6 = About("wh40k6", "1", Words("Warhammer 40,000 6th edition"), listing_order=10)
WH40K3 = About("wh40k3", "1", Words("Warhammer 40,000 3rd edition"), listing_order=20)
