"""A battle's roster file (TOML) turned into its first events: battle started, units joined."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import msgspec

from morale.core.rules import Refusal
from morale.core.rulesets import latest, lookup
from morale.events.codec import MalformedEvent, battle_id, event_from_dict
from morale.events.types import BattleStarted, UnitJoined

from .tables import pinned_tables, read_toml

# Roster keys that are spelled for people and differ from the event field names.
_UNIT_KEYS = {"id": "unit", "type": "unit_type", "rules": "special_rules"}


@dataclass(frozen=True)
class Roster:
    battle: str
    started: BattleStarted
    units: list[UnitJoined]


def load_roster(path: Path, given_id: str | None = None) -> Roster:
    try:
        data = read_toml(path.read_text(encoding="utf-8"), str(path))
    except OSError as exc:
        raise MalformedEvent(f"{path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:  # TOML is UTF-8; a binary file or another encoding is not a roster
        raise MalformedEvent(f"{path}: not UTF-8 text (byte {exc.start})") from None
    battle = data.get("battle")
    if not isinstance(battle, dict):
        raise MalformedEvent(f"{path}: a roster needs a [battle] table")
    ruleset_id = battle.get("ruleset", "")
    try:
        version = str(battle.get("ruleset_version") or latest(str(ruleset_id)).version)
    except Refusal as refusal:
        raise MalformedEvent(f"{path}: battle.ruleset: {refusal.message}") from None
    started = _event(
        path,
        "battle",
        {
            "type": "battle_started",
            "ruleset": ruleset_id,
            "ruleset_version": version,
            "sides": battle.get("sides"),
            "name": battle.get("name", ""),
            "dice_policy": battle.get("dice", "either"),
            "house_rules": data.get("house_rules", {}),
            "tables": _tables(path, str(ruleset_id), version, battle.get("tables", {})),
        },
    )
    units = data.get("unit", [])
    if not isinstance(units, list) or not all(isinstance(unit, dict) for unit in units):
        raise MalformedEvent(f"{path}: units are written as [[unit]] tables")
    joined = [
        _event(path, f"unit[{i}]", {"type": "unit_joined", **{_UNIT_KEYS.get(k, k): v for k, v in unit.items()}})
        for i, unit in enumerate(units)
    ]
    named = given_id or battle.get("id")
    if not named:
        raise MalformedEvent(f"{path}: give the battle an id (battle.id in the roster, or --battle)")
    try:
        checked = battle_id(str(named))
    except MalformedEvent as exc:
        raise exc if given_id else exc.within(str(path)) from None
    return Roster(battle=checked, started=started, units=joined)  # type: ignore[arg-type]


def _tables(path: Path, ruleset_id: str, version: str, named: object) -> dict:
    """The ruleset's data tables, pinned: files the roster names (relative to the roster), else the
    shipped defaults."""
    if not isinstance(named, dict) or not all(isinstance(v, str) for v in named.values()):
        raise MalformedEvent(f'{path}: battle.tables maps a table to a file: tables = {{results = "my.toml"}}')
    try:
        ruleset = lookup(ruleset_id, version)
    except Refusal as refusal:
        raise MalformedEvent(f"{path}: battle.ruleset: {refusal.message}") from None
    pinned = pinned_tables(ruleset, {name: path.parent / file for name, file in named.items()})
    return {name: msgspec.to_builtins(table) for name, table in pinned.items()}


def _event(path: Path, where: str, fields: dict) -> BattleStarted | UnitJoined:
    try:
        return event_from_dict(fields)  # type: ignore[return-value]
    except MalformedEvent as exc:
        raise exc.within(f"{path}: {where}") from None
