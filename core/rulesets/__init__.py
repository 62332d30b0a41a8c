"""The rulesets the engine knows, by id and version. A battle pins both in its first event."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..rules import Refusal

if TYPE_CHECKING:
    from .base import Ruleset


def _registry() -> dict[tuple[str, str], Ruleset]:
    from .gdb import GDB
    from .wfb8 import WFB8
    from .wh40k import WH40K3, WH40K6

    return {(r.id, r.version): r for r in (WH40K6, WH40K3, WFB8, GDB)}


_RULESETS: dict[tuple[str, str], Ruleset] | None = None


def rulesets() -> dict[tuple[str, str], Ruleset]:
    global _RULESETS
    if _RULESETS is None:
        _RULESETS = _registry()
    return _RULESETS


def lookup(ruleset_id: str, version: str) -> Ruleset:
    known = rulesets()
    if (ruleset_id, version) in known:
        return known[(ruleset_id, version)]
    versions = sorted(v for (i, v) in known if i == ruleset_id)
    if versions:
        raise Refusal(
            f"{ruleset_id} has no version {version!r} here (known: {', '.join(versions)})",
            field="ruleset_version",
        )
    ids = sorted({i for i, _ in known})
    raise Refusal(f"unknown ruleset {ruleset_id!r} (known: {', '.join(ids)})", field="ruleset")


def latest(ruleset_id: str) -> Ruleset:
    """The newest version of a ruleset, for new battles."""
    candidates = [r for (i, _), r in rulesets().items() if i == ruleset_id]
    if not candidates:
        lookup(ruleset_id, "")
    return max(candidates, key=lambda r: int(r.version))
