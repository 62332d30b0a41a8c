"""The notation's header: its tags read into the battle's first events (`battle_started`, and the
units of a [Roster] file), as `morale new` makes them from a roster."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from morale.core.rules import Refusal
from morale.core.rulesets import latest, lookup
from morale.core.rulesets.base import Ruleset
from morale.core.words import Words, counted
from morale.events.codec import MalformedEvent, event_from_dict
from morale.events.numbers import whole_number
from morale.events.signing import SignedHead, fingerprint, public_key_from_text, signature_matches
from morale.events.types import MAX_TABLE_DEPTH, AnyEvent, PinnedTable

from ..reasons import words_of
from ..roster import load_roster
from ..tables import default_table, pin
from .syntax import read_text, read_value


@dataclass(frozen=True)
class Tag:
    line: int
    column: int
    name: str
    values: list[tuple[int, int, str]]  # (line, column, text as written) of each value


@dataclass(frozen=True)
class Header:
    battle: str
    events: list[tuple[int, int, AnyEvent]] = field(default_factory=list)


# Each tag and how many values it takes (at least, at most); the repeatable ones take a name first.
TAGS: dict[str, tuple[int, int]] = {
    "Battle": (1, 1),
    "Name": (1, 1),
    "Ruleset": (1, 1),
    "RulesetVersion": (1, 1),
    "Sides": (1, 8),
    "Dice": (1, 1),
    "Commitment": (1, 1),
    "Confirmation": (1, 1),
    "Language": (1, 1),
    "HouseRule": (2, 2),
    "Table": (3, 4),
    "Roster": (1, 1),
    "PublicKey": (2, 2),
    "SignedHead": (4, 4),
}
REPEATABLE = ("HouseRule", "Table", "PublicKey", "SignedHead")
# What a [Roster] gives: these tags may not be given beside it.
FROM_ROSTER = ("Name", "Ruleset", "RulesetVersion", "Sides", "Dice", "Language", "HouseRule", "Table")


class _Error(Exception):
    def __init__(self, line: int, column: int, message: str) -> None:  # message: Words
        self.line, self.column, self.message = line, column, message


# The repeatable tags whose first value names what they set: each name is set once.
NAMED_ONCE = ("HouseRule", "Table")


def _check_named_once(tags: list[Tag]) -> None:
    """[HouseRule X ...] twice, or [Table X ...] twice, is refused as a second [Battle] is: the
    notation would otherwise say two things and mean the last."""
    first: dict[tuple[str, str], Tag] = {}
    for tag in tags:
        if tag.name in NAMED_ONCE:
            name = read_text(tag.values[0][2])
            earlier = first.setdefault((tag.name, name), tag)
            if earlier is not tag:
                said = Words(
                    "[{tag} {name}] is given twice (first on line {line})", tag=tag.name, name=name, line=earlier.line
                )
                raise _Error(tag.line, tag.column, said)


def battle_events(tags: list[Tag], source: str, base: Path, battle: str | None) -> Header:
    from .reader import NotationError  # the reader's error, raised here with the tag's place

    try:
        return _read(tags, base, battle)
    except _Error as exc:
        raise NotationError(source, exc.line, exc.column, exc.message) from None


def _read(tags: list[Tag], base: Path, battle: str | None) -> Header:
    given: dict[str, Tag] = {}
    for tag in tags:
        if tag.name not in TAGS:
            said = Words("unknown tag [{tag}] (known: {known})", tag=tag.name, known=", ".join(TAGS))
            raise _Error(tag.line, tag.column, said)
        least, most = TAGS[tag.name]
        if not least <= len(tag.values) <= most:
            raise _Error(tag.line, tag.column, _takes(tag.name, least, most, len(tag.values)))
        if tag.name in given and tag.name not in REPEATABLE:
            said = Words("[{tag}] is given twice (first on line {line})", tag=tag.name, line=given[tag.name].line)
            raise _Error(tag.line, tag.column, said)
        given.setdefault(tag.name, tag)
    _check_named_once(tags)
    # The heads were signed for the battle the notation was written from: its [Battle], whatever id
    # the import gives it (--battle).
    _check_signatures(tags, _text(given["Battle"]) if "Battle" in given else battle or "")
    first = tags[0]
    if "Roster" in given:
        return _from_roster(tags, given, base, battle)
    named = battle or (_text(given["Battle"]) if "Battle" in given else "")
    if not named:
        raise _Error(first.line, first.column, Words('give the battle an id: [Battle "id"] (or --battle)'))
    if "Ruleset" not in given:
        raise _Error(first.line, first.column, Words('give the battle its rules: [Ruleset "wh40k6"]'))
    ruleset_tag = given["Ruleset"]
    ruleset_id = _text(ruleset_tag)
    try:
        version = _text(given["RulesetVersion"]) if "RulesetVersion" in given else latest(ruleset_id).version
        ruleset = lookup(ruleset_id, version)
    except Refusal as refusal:
        said = Words("ruleset: {problem}", problem=refusal.message)
        raise _Error(ruleset_tag.line, ruleset_tag.column, said) from None
    fields: dict[str, Any] = {"type": "battle_started", "ruleset": ruleset_id, "ruleset_version": version}
    if "Sides" in given:
        fields["sides"] = [read_text(v) for _, _, v in given["Sides"].values]
    if "Name" in given:
        fields["name"] = _text(given["Name"])
    if "Dice" in given:
        fields["dice_policy"] = _text(given["Dice"])
    if "Commitment" in given:
        fields["dice_commitment"] = _text(given["Commitment"])
    if "Confirmation" in given:
        fields["confirmation"] = _switch(given["Confirmation"])
    if "Language" in given:
        fields["language"] = _text(given["Language"])
    house_rules = [t for t in tags if t.name == "HouseRule"]
    fields["house_rules"] = {read_text(t.values[0][2]): read_value(t.values[1][2]) for t in house_rules}
    tables = {read_text(t.values[0][2]): t for t in tags if t.name == "Table"}
    for name, tag in tables.items():
        if name not in ruleset.tables:
            known = ", ".join(ruleset.tables) or Words("none")
            said = Words(
                "{ruleset} reads no table {name!r} (known: {known})", ruleset=ruleset.id, name=name, known=known
            )
            raise _Error(tag.line, tag.column, said)
    fields["tables"] = {
        name: msgspec.to_builtins(_table(tables[name], ruleset) if name in tables else default_table(ruleset, name))
        for name in ruleset.tables
    }
    try:
        started = event_from_dict(fields)
    except MalformedEvent as exc:
        place = _place_of(exc.field or "", given, first)
        raise _Error(place.line, place.column, words_of(exc)) from None
    return Header(battle=named, events=[(first.line, first.column, started)])


def _takes(tag: str, least: int, most: int, given: int) -> Words:
    """[Battle] takes 1 value, not 2; [Sides] takes 1 to 8 values, not 0."""
    if least == most:
        return counted(
            "[{tag}] takes {n} value, not {given}",
            "[{tag}] takes {n} values, not {given}",
            n=most,
            tag=tag,
            given=given,
        )
    return counted(
        "[{tag}] takes {least} to {n} value, not {given}",
        "[{tag}] takes {least} to {n} values, not {given}",
        n=most,
        least=least,
        tag=tag,
        given=given,
    )


def _check_signatures(tags: list[Tag], battle: str) -> None:
    """Each [SignedHead] must carry a signature its [PublicKey] makes. They speak of the log the
    notation was written from, so they are checked here and not carried into the new log."""
    keys = {}
    for tag in (t for t in tags if t.name == "PublicKey"):
        key, raw = _text_at(tag, 0), _text_at(tag, 1)
        try:
            keys[key] = public_key_from_text(raw, key)
        except ValueError as exc:
            raise _Error(tag.line, tag.column, Words("[PublicKey]: {problem}", problem=words_of(exc))) from None
        if fingerprint(keys[key]) != key:
            said = Words("[PublicKey]: the key given is {found}, not {key}", found=fingerprint(keys[key]), key=key)
            raise _Error(tag.line, tag.column, said)
    for tag in (t for t in tags if t.name == "SignedHead"):
        seq, key = whole_number(tag.values[0][2]), _text_at(tag, 2)
        if seq is None:
            said = Words("[SignedHead]: {given!r} is not a seq", given=tag.values[0][2])
            raise _Error(tag.values[0][0], tag.values[0][1], said)
        if key not in keys:
            said = Words("[SignedHead]: no [PublicKey {key!r} ...] tag gives its key", key=key)
            raise _Error(tag.line, tag.column, said)
        head = SignedHead(battle=battle, seq=seq, hash=_text_at(tag, 1), key=key, signature=_text_at(tag, 3))
        if not signature_matches(keys[key], head):
            said = Words(
                "[SignedHead]: the signature of the head at seq {seq} does not match key {key}", seq=seq, key=key
            )
            raise _Error(tag.line, tag.column, said)


def _text_at(tag: Tag, index: int) -> str:
    return read_text(tag.values[index][2])


def _switch(tag: Tag) -> bool:
    said = _text(tag)
    if said not in ("on", "off"):
        raise _Error(tag.line, tag.column, Words('[{tag}] is "on" or "off", not {said!r}', tag=tag.name, said=said))
    return said == "on"


# Which tag a field of battle_started comes from, to point at it when the field is refused.
_FIELD_TAGS = {
    "sides": "Sides",
    "name": "Name",
    "dice_policy": "Dice",
    "dice_commitment": "Commitment",
    "confirmation": "Confirmation",
    "language": "Language",
}
_FIELD_TAGS |= {"house_rules": "HouseRule", "tables": "Table", "ruleset_version": "RulesetVersion"}


def _place_of(field: str, given: dict[str, Tag], otherwise: Tag) -> Tag:
    """The tag a refused field ("dice_policy", "sides[1]") was read from, if it was given."""
    for name, tag in _FIELD_TAGS.items():
        if field.split("[")[0].split(".")[0] == name and tag in given:
            return given[tag]
    return otherwise


def _text(tag: Tag) -> str:
    return read_text(tag.values[0][2])


def _nesting_of_json(text: str) -> int:
    """How deep a JSON text's arrays and objects nest, counted over its characters (strings skipped)
    before it is decoded: a decoder nested a thousand levels deep fails on the stack, not on the text."""
    deepest = depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _table(tag: Tag, ruleset: Ruleset) -> PinnedTable:
    """A [Table NAME "source" "sha256" "values"?]: the values given, or the shipped default the
    source names; either way their sha256 must be the one given."""
    name, source, sha256 = (read_text(v[2]) for v in tag.values[:3])
    if len(tag.values) == 4:
        line, column, _ = tag.values[3]
        given = read_text(tag.values[3][2])
        try:
            values = msgspec.json.decode(given) if _nesting_of_json(given) <= MAX_TABLE_DEPTH else None
        except msgspec.DecodeError as exc:  # msgspec's words (English) say where the JSON goes wrong
            said = Words("table {name}: its values are not JSON: {reason}", name=name, reason=str(exc))
            raise _Error(line, column, said) from None
        if values is None:
            said = counted(
                "table {name}: its values nest deeper than {n} level",
                "table {name}: its values nest deeper than {n} levels",
                n=MAX_TABLE_DEPTH,
                name=name,
            )
            raise _Error(line, column, said)
        if not isinstance(values, dict):
            said = Words("table {name}: its values are a JSON object", name=name)
            raise _Error(tag.values[3][0], tag.values[3][1], said)
        table = pin(values, source)
    elif source == default_table(ruleset, name).source:
        table = default_table(ruleset, name)
    else:
        line, column, _ = tag.values[1]
        said = Words('table {name}: give its values ([Table {name} "source" "sha256" "JSON"])', name=name)
        raise _Error(line, column, said)
    if table.sha256 != sha256:
        line, column, _ = tag.values[2]
        said = Words(
            "table {name}: its values hash to {found}..., not {given}... as given",
            name=name,
            found=table.sha256[:12],
            given=sha256[:12],
        )
        raise _Error(line, column, said)
    return table


def _from_roster(tags: list[Tag], given: dict[str, Tag], base: Path, battle: str | None) -> Header:
    """[Roster "file"]: the battle and its units as `morale new` makes them from that roster."""
    tag = given["Roster"]
    beside = [t for t in tags if t.name in FROM_ROSTER]
    if beside:
        said = Words("[{tag}] comes from the roster given on line {line}", tag=beside[0].name, line=tag.line)
        raise _Error(beside[0].line, beside[0].column, said)
    named = battle or (_text(given["Battle"]) if "Battle" in given else None)
    path = (base / _text(tag)).resolve()
    if not path.is_relative_to(base.resolve()):
        said = Words(
            "[Roster] names a file outside the notation's folder ({file}): a roster is read from beside it",
            file=_text(tag),
        )
        raise _Error(tag.line, tag.column, said)
    try:
        roster = load_roster(path, named)
    except (MalformedEvent, Refusal) as exc:
        raise _Error(tag.line, tag.column, words_of(exc)) from None
    events: list[tuple[int, int, AnyEvent]] = [(tag.line, tag.column, roster.started)]
    events += [(tag.line, tag.column, unit) for unit in roster.units]
    return Header(battle=roster.battle, events=events)
