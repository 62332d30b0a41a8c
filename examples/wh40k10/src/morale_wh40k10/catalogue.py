"""The game's catalogue, handed to the engine's (until entry points land).

The engine reads the `*clauses.toml` files of its own rulesets only, and `clause` refuses a rule ID
it cannot find there. So before `ruleset.py` declares a clause, this module parses the game's own
file with the engine's reader (the same checks: every ID of this ruleset, no unknown field) and adds
its clauses to the catalogue. Adding the same clause twice changes nothing, so it stays harmless
once the engine reads the catalogues of the rulesets it finds by entry point itself.
"""

from __future__ import annotations

from importlib import resources

from morale.core import catalogue

FILE = "wh40k10_clauses.toml"


def add_to_engine_catalogue() -> None:
    held = catalogue.catalogue()
    for entry in catalogue._parse(FILE, (resources.files(__package__) / FILE).read_bytes()):
        if held.setdefault(entry.id, entry) != entry:
            raise ValueError(f"{FILE}: {entry.id!r} is written down differently elsewhere")


add_to_engine_catalogue()  # until entry points land
