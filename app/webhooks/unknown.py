"""The refusal of a hook id a battle does not have. Apart from hooks.py so that the command line can
name it among its refusals (app/cli/base.py) without importing the hooks' operations, and with them
the server's event kinds (app/http/kinds.py), in every command."""

from __future__ import annotations

from morale.core.words import Words


class UnknownHook(LookupError):
    """No hook of the battle has this id."""

    field = "hook"

    def __init__(self, battle: str, hook_id: str) -> None:
        super().__init__(Words("hook: battle {battle!r} has no webhook with id {hook!r}", battle=battle, hook=hook_id))
