"""Data tables (a results table...) read from TOML files and pinned by value into battle_started.

A ruleset ships a default file for each table it reads (package data of its own package, beside its
code: `core/rulesets/gdb/gdb_results.toml`); a roster
may name its own file instead (`[battle] tables = {results = "my-table.toml"}`), for a house rule
or the numbers of the user's own rulebook. Either way the values and their sha256 go into the
battle's first event, so the battle replays the same way whatever later happens to the file.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from morale.core.rulesets.base import Ruleset
from morale.core.words import Words
from morale.events.codec import MalformedEvent, table_sha256
from morale.events.types import PinnedTable

from .files import MAX_TABLE_BYTES, read_bounded
from .reasons import words_of


def pin(values: Mapping[str, Any], source: str) -> PinnedTable:
    # A JSON round trip first: what is hashed is exactly what the log will hold and read back
    # (TOML dates, for one, come back from JSON as text).
    plain = msgspec.json.decode(msgspec.json.encode(dict(values)))
    try:
        return PinnedTable(sha256=table_sha256(plain), values=plain, source=source)
    except ValueError as exc:  # beyond the limits a pinned table is held to (events/types.py)
        raise MalformedEvent(Words("{source}: {problem}", source=source, problem=words_of(exc))) from None


def read_toml(text: str, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # tomllib's words (English) say what and where
        raise MalformedEvent(Words("{where}: not valid TOML: {reason}", where=where, reason=str(exc))) from None
    except RecursionError:  # tomllib reads nested arrays and tables by recursion
        raise MalformedEvent(Words("{where}: not valid TOML: nested too deep to read", where=where)) from None


def default_table(ruleset: Ruleset, name: str) -> PinnedTable:
    """The table the ruleset ships, pinned as `default: FILE`. The source names the file alone, never
    the package it sits in: a battle records what it was played with by file name, and the values
    themselves are pinned, so the files may move between packages (they did, from `core/rulesets/`
    into the game's own) without a log written before reading any differently."""
    spec = ruleset.tables[name]
    text = ruleset.shipped(spec.file).read_text(encoding="utf-8")
    return pin(read_toml(text, spec.file), f"default: {spec.file}")


def table_from_file(path: Path) -> PinnedTable:
    try:
        text = read_bounded(path, MAX_TABLE_BYTES).decode("utf-8")
    except UnicodeDecodeError as exc:  # TOML is UTF-8; a binary file or another encoding is no table
        raise MalformedEvent(Words("{path}: not UTF-8 text (byte {byte})", path=path, byte=exc.start)) from None
    return pin(read_toml(text, str(path)), str(path))


def pinned_tables(ruleset: Ruleset, named: Mapping[str, Path] | None = None) -> dict[str, PinnedTable]:
    """Every table the ruleset reads: from the file named for it, else the shipped default."""
    named = dict(named or {})
    unknown = [name for name in named if name not in ruleset.tables]
    if unknown:
        known = ", ".join(ruleset.tables) or Words("none")
        said = Words(
            "battle.tables: {ruleset} reads no table {name!r} (known: {known})",
            ruleset=ruleset.id,
            name=unknown[0],
            known=known,
        )
        raise MalformedEvent(said)
    return {
        name: table_from_file(named[name]) if name in named else default_table(ruleset, name) for name in ruleset.tables
    }
