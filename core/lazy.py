"""A package's names imported when first read, not with the package (PEP 562's module `__getattr__`).

A game's package is imported for its `about` module alone (who the game is, for `morale --version`),
which must not bring the game's rules; so the package names its ruleset and imports it on first use:

    __getattr__ = names_in(__name__, {"GDB": ".ruleset"})
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def names_in(package: str, modules: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: each name of `modules` read from its (relative) module."""

    def __getattr__(name: str) -> Any:
        if name in modules:
            return getattr(import_module(modules[name], package), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
