"""A battle's roster file (TOML) turned into its first events: battle started, units joined."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import msgspec

from morale.core.fold import Fold
from morale.core.rules import Refusal
from morale.core.rulesets import latest, lookup
from morale.core.words import Words
from morale.events.codec import MalformedEvent, battle_id, event_from_dict
from morale.events.types import BattleStarted, UnitJoined

from . import language
from .battlescribe import Answers, read_list_file, roster_data
from .battlescribe.mapping import labels, quoted
from .files import MAX_ROSTER_BYTES, read_bounded
from .reasons import words_of
from .tables import pinned_tables, read_toml

# Roster keys that are spelled for people and differ from the event field names.
_UNIT_KEYS = {"id": "unit", "type": "unit_type", "rules": "special_rules"}
_ROSTER_KEYS = {event: roster for roster, event in _UNIT_KEYS.items()} | {"dice_policy": "dice"}


@dataclass(frozen=True)
class Roster:
    battle: str
    started: BattleStarted
    units: list[UnitJoined]
    # How a refusal names each unit's table: unit[2] in a TOML roster, unit."Ork Boyz" (the answers
    # file's key) for a list builder's file, whose units are not numbered where a person sees them.
    tables: tuple[str, ...] = ()


def load_roster(path: Path, given_id: str | None = None) -> Roster:
    """The roster in a file (`morale new`, a notation's [Roster] tag): the tables it names are files
    beside it."""
    try:
        text = read_bounded(path, MAX_ROSTER_BYTES).decode("utf-8")
    except UnicodeDecodeError as exc:  # TOML is UTF-8; a binary file or another encoding is not a roster
        raise MalformedEvent(Words("{path}: not UTF-8 text (byte {byte})", path=path, byte=exc.start)) from None
    return roster_from_text(text, str(path), given_id, tables_beside=path.parent)


def roster_from_text(text: str, where: str, given_id: str | None = None, tables_beside: Path | None = None) -> Roster:
    """A roster's TOML text as the battle's first events; `where` names it in every refusal (a path,
    an uploaded file's name). `tables_beside`: the folder the tables it names are read from; None (a
    roster sent over HTTP) refuses a roster that names table files, since a file on the server is
    no sender's to read."""
    return roster_from_data(read_toml(text, where), where, given_id, tables_beside)


def roster_from_list_files(
    files: list[tuple[str, bytes]], answers: Answers | None = None, given_id: str | None = None
) -> Roster:
    """A battle from list builders' roster files (`.ros`, `.rosz`: one per player, or one with every
    force), each a (name, bytes) pair, with `answers` for what the files cannot say. Raises
    Unanswered with the questions still open; a file sent over HTTP names no table files, so none is read."""
    lists = [read_list_file(data, name) for name, data in files]
    where = ", ".join(name for name, _ in files)
    data = roster_data(lists, answers or Answers(), given_id)
    tables = [f"unit.{quoted(label)}" for label in labels([unit["name"] for unit in data["unit"]])]
    return roster_from_data(data, where, given_id, unit_tables=tables)


def roster_from_data(
    data: dict,
    where: str,
    given_id: str | None = None,
    tables_beside: Path | None = None,
    unit_tables: list[str] | None = None,
) -> Roster:
    """A roster's tables (read from TOML, or made from a list builder's file) as the battle's first events."""
    battle = data.get("battle")
    if not isinstance(battle, dict):
        raise MalformedEvent(Words("{where}: a roster needs a [battle] table", where=where), field="battle")
    ruleset_id = battle.get("ruleset", "")
    try:
        version = str(battle.get("ruleset_version") or latest(str(ruleset_id)).version)
    except Refusal as refusal:
        raise MalformedEvent(_ruleset_refused(where, refusal), field="battle.ruleset") from None
    started = _event(
        where,
        "battle",
        {
            "type": "battle_started",
            "ruleset": ruleset_id,
            "ruleset_version": version,
            "sides": battle.get("sides"),
            "name": battle.get("name", ""),
            "dice_policy": battle.get("dice", "either"),
            "confirmation": battle.get("confirmation", False),
            "language": _language(where, battle.get("language", "")),
            "house_rules": data.get("house_rules", {}),
            "tables": _tables(where, str(ruleset_id), version, battle.get("tables", {}), tables_beside),
        },
    )
    units = data.get("unit", [])
    if not isinstance(units, list) or not all(isinstance(unit, dict) for unit in units):
        raise MalformedEvent(Words("{where}: units are written as [[unit]] tables", where=where), field="unit")
    tables = unit_tables or [f"unit[{i}]" for i in range(len(units))]
    joined = [
        _event(where, table, {"type": "unit_joined", **{_UNIT_KEYS.get(k, k): v for k, v in unit.items()}})
        for table, unit in zip(tables, units, strict=True)
    ]
    named = given_id or battle.get("id")
    if not named:
        said = Words("{where}: give the battle an id (battle.id in the roster, or --battle)", where=where)
        raise MalformedEvent(said, field="battle.id")
    try:
        checked = battle_id(str(named))
    except MalformedEvent as exc:
        if given_id:
            raise exc from None
        raise MalformedEvent(
            Words("{where}: {problem}", where=where, problem=words_of(exc)), field="battle.id"
        ) from None
    return Roster(battle=checked, started=started, units=joined, tables=tuple(tables))  # type: ignore[arg-type]


def _language(where: str, named: object) -> object:
    """`battle.language`: what the battle says to a reader who asks for no language, one this app
    speaks (the event's schema takes any language's code; a roster is written for this app)."""
    if named == "" or named in language.LANGUAGES:
        return named
    said = Words(
        "{where}: battle.language is one of {known}, not {named!r}",
        where=where,
        known=", ".join(language.LANGUAGES),
        named=str(named),
    )
    raise MalformedEvent(said, field="battle.language")


def _tables(where: str, ruleset_id: str, version: str, named: object, beside: Path | None) -> dict:
    """The ruleset's data tables, pinned: files the roster names (relative to the roster), else the
    shipped defaults."""
    if not isinstance(named, dict) or not all(isinstance(v, str) for v in named.values()):
        said = Words('{where}: battle.tables maps a table to a file: tables = {{results = "my.toml"}}', where=where)
        raise MalformedEvent(said, field="battle.tables")
    try:
        ruleset = lookup(ruleset_id, version)
    except Refusal as refusal:
        raise MalformedEvent(_ruleset_refused(where, refusal), field="battle.ruleset") from None
    if named and beside is None:
        said = Words(
            "{where}: battle.tables: a roster sent to the server cannot name table files; leave battle.tables out"
            " to play with the shipped tables, or start the battle with `morale new`",
            where=where,
        )
        raise MalformedEvent(said, field="battle.tables")
    pinned = pinned_tables(ruleset, {name: (beside or Path()) / file for name, file in named.items()})
    return {name: msgspec.to_builtins(table) for name, table in pinned.items()}


def _event(source: str, where: str, fields: dict) -> BattleStarted | UnitJoined:
    """An event of the roster; a refusal names the roster, the table ("unit[2]") and the field in it
    ("unit[2].models"), as the roster spells it."""
    try:
        return event_from_dict(fields)  # type: ignore[return-value]
    except MalformedEvent as exc:
        field = f"{where}.{_as_spelled(exc.field)}" if exc.field else where
        said = Words("{roster}: {table}: {problem}", roster=source, table=where, problem=words_of(exc))
        raise MalformedEvent(said, field=field) from None


def _ruleset_refused(where: str, refusal: Refusal) -> Words:
    return Words("{where}: battle.ruleset: {problem}", where=where, problem=refusal.message)


def _as_spelled(field: str) -> str:
    """An event's field path in the roster's spelling: special_rules[1] -> rules[1]."""
    head = re.match(r"[^.\[]*", field).group()  # type: ignore[union-attr]
    return _ROSTER_KEYS.get(head, head) + field[len(head) :]


def refusal_in_roster(roster: Roster, refusal: Refusal) -> Refusal:
    """The rules' refusal of a roster's events (`start_battle` says "event 3 of 9") said of the
    table and field the roster spells (`unit[1].initiative`), found by folding the events again in
    memory (nothing is written), the referee deciding as it did."""
    fold = Fold(roster.battle)
    tables = ["battle", *(roster.tables or (f"unit[{i}]" for i in range(len(roster.units))))]
    for seq, (where, event) in enumerate(zip(tables, [roster.started, *roster.units], strict=True), start=1):
        try:
            fold.check(event)
        except Refusal as found:
            field = f"{where}.{_as_spelled(found.field)}" if found.field else where
            return Refusal(found.message, rule=found.rule, field=field)
        fold.advance(seq, event)
    return refusal
