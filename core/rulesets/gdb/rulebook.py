"""General de Brigade's rulebook: the reactions and checks its modules declare, in their order
(`core/reactions.py`). The modules file theirs as they are imported: results, then the brigade, then
the triggers and charges, then the ruleset."""

from __future__ import annotations

from ...reactions import Rulebook

RULES = Rulebook("gdb")
