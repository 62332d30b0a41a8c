"""The rulesets the engine knows, by id and version. A battle pins both in its first event.

Each ruleset is a package of its own, built on the base class in `base`; this package imports them
and passes them into the registry `base` keeps, where `lookup` (and unpickling) finds them.
"""

from .base import Ruleset, latest, lookup, register, rulesets
from .gdb import GDB
from .wfb8 import WFB8
from .wh40k import WH40K3, WH40K6

register(WH40K6, WH40K3, WFB8, GDB)  # in the order `morale rulesets` lists them

__all__ = ["GDB", "WFB8", "WH40K3", "WH40K6", "Ruleset", "latest", "lookup", "rulesets"]
