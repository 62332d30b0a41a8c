"""The answers a list builder's file cannot give, in a TOML overlay (`morale new --answers FILE`, the
console's form): what a unit's Leadership is when the file has no Ld, what a rule the ruleset does
not know means for morale, which side a force plays. Read and checked here; applied by `mapping.py`.

    [battle]                # id, name, ruleset, ruleset_version, sides (their order), dice, confirmation, language
    id = "hive-tarsis"
    [force."Orks"]          # a force, by its catalogue's name
    side = "orks"
    [unit."Ork Boyz"]       # a unit, by its name in the roster; "Ork Boyz (2)" for the second of that name
    id = "boyz"             # also side, type, models, ld, initiative, profile
    rules = []              # the unit's special rules, all of them: no question about the rest
    [rules]                 # a rule's name in the roster -> the ruleset's id, or false: no effect on morale
    "Mob Rule" = false
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from morale.core.words import Words
from morale.events.codec import MalformedEvent

from ..tables import read_toml

SECTIONS = {"battle", "house_rules", "force", "unit", "rules"}
BATTLE_KEYS = {"id", "name", "ruleset", "ruleset_version", "sides", "dice", "confirmation", "language"}
FORCE_KEYS = {"side"}
UNIT_KEYS = {"id", "side", "type", "models", "ld", "initiative", "rules", "profile"}


@dataclass(frozen=True)
class Answers:
    where: str = "answers"
    battle: dict[str, Any] = field(default_factory=dict)
    house_rules: dict[str, Any] = field(default_factory=dict)
    forces: dict[str, dict[str, Any]] = field(default_factory=dict)
    units: dict[str, dict[str, Any]] = field(default_factory=dict)
    rules: dict[str, str | bool] = field(default_factory=dict)

    def merged(self, more: Answers) -> Answers:
        """These answers with `more` on top (a prompt's answers over a file's)."""
        return Answers(
            where=self.where,
            battle={**self.battle, **more.battle},
            house_rules={**self.house_rules, **more.house_rules},
            forces=_deep(self.forces, more.forces),
            units=_deep(self.units, more.units),
            rules={**self.rules, **more.rules},
        )


def _deep(first: dict[str, dict[str, Any]], second: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {key: {**first.get(key, {}), **second.get(key, {})} for key in [*first, *second]}


def read_answers(text: str, where: str) -> Answers:
    """An answers file's TOML text; a refusal names the file and the key, as the file spells it."""
    data = read_toml(text, where)
    unknown = sorted(set(data) - SECTIONS)
    if unknown:
        said = Words(
            "{where}: {key}: an answers file has the tables {tables}",
            where=where,
            key=unknown[0],
            tables=", ".join(sorted(SECTIONS)),
        )
        raise MalformedEvent(said, field=unknown[0])
    battle = _table(data, "battle", where)
    _keys(battle, BATTLE_KEYS, "battle", where)
    forces = _named_tables(data, "force", FORCE_KEYS, where)
    units = _named_tables(data, "unit", UNIT_KEYS, where)
    rules = _table(data, "rules", where)
    for name, meaning in rules.items():
        if not ((isinstance(meaning, str) and meaning) or meaning is False):
            key = f'rules."{name}"'
            said = Words(
                "{where}: {key}: give the ruleset's id for the rule, or false if it does not change morale",
                where=where,
                key=key,
            )
            raise MalformedEvent(said, field=key)
    return Answers(
        where=where,
        battle=battle,
        house_rules=_table(data, "house_rules", where),
        forces=forces,
        units=units,
        rules=rules,
    )


def _table(data: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    found = data.get(key, {})
    if not isinstance(found, dict):
        raise MalformedEvent(Words("{where}: {key} is a table: [{key}]", where=where, key=key), field=key)
    return found


def _named_tables(data: dict[str, Any], key: str, allowed: set[str], where: str) -> dict[str, dict[str, Any]]:
    tables = _table(data, key, where)
    for name, table in tables.items():
        at = f'{key}."{name}"'
        if not isinstance(table, dict):
            raise MalformedEvent(Words("{where}: {key} is a table: [{key}]", where=where, key=at), field=at)
        _keys(table, allowed, at, where)
    return tables


def _keys(table: dict[str, Any], allowed: set[str], at: str, where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        key = f"{at}.{unknown[0]}"
        said = Words(
            "{where}: {key}: not an answer morale reads (it reads {allowed})",
            where=where,
            key=key,
            allowed=", ".join(sorted(allowed)),
        )
        raise MalformedEvent(said, field=key)
