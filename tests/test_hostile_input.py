"""A catalogue of hostile input, over the CLI and HTTP: malformed encodings, nesting, sizes, types,
ranges, unknown names, an out-of-order clock, stale preconditions, roles and tokens.

Each case is refused the way every refusal is: one line on stderr and exit code 2 from `morale`, a
4xx problem (RFC 9457) naming the field or rule over HTTP, and the store exactly as it was (every
table, dumped before and after). The cases run in process (CliRunner, Litestar's TestClient) on a
copy of one store holding the example battle, so the catalogue stays quick.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import re
import sqlite3
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from litestar import Litestar
from litestar.testing import TestClient
from support.cli import morale
from support.nodes import MORALE
from support.served import BATTLE, EXAMPLE_EVENTS, ROSTER, bearer

from morale.app.access import issue_tokens
from morale.app.http.server import Settings, create_app
from morale.events.store import SqliteEventStore

EVENTS = 9 + len([line for line in EXAMPLE_EVENTS.read_text().splitlines() if line.strip()])


# -- the store every case starts from ------------------------------------------------------------------
@dataclass(frozen=True)
class Template:
    db: Path
    tokens: dict[str, str]  # referee, spectator and each side's player


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Template:
    """The example battle played to its end, with a token for every role."""
    db = tmp_path_factory.mktemp("template") / "battles.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    assert morale(db, "append", BATTLE, "--file", str(EXAMPLE_EVENTS)).exit_code == 0
    store = SqliteEventStore(db)
    issued = issue_tokens(store, BATTLE, ("imperium", "orks"))
    store.close()
    tokens = {"referee": issued.referee, "spectator": issued.spectator, **issued.players}
    return Template(db, tokens)


@pytest.fixture
def db(template: Template, tmp_path: Path) -> Path:
    """A copy of the template store for one case (SQLite's backup: the WAL's pages included)."""
    copy = tmp_path / "battles.db"
    with closing(sqlite3.connect(template.db)) as source, closing(sqlite3.connect(copy)) as target:
        source.backup(target)
    return copy


def dump(db: Path) -> list[str]:
    """Everything the store holds, table by table: what must not change when input is refused."""
    with closing(sqlite3.connect(db)) as connection:
        return list(connection.iterdump())


# Derived state kept beside the log, never part of it (events/store.py): the command line keeps the
# snapshot points it folds past when it reads a battle, a refused command's read included.
CACHE_TABLES = ("snapshots", "snapshot_units")


def dump_but_the_cache(db: Path) -> tuple[list[str], int]:
    """`dump` without the snapshot cache's tables, and the last seq any kept snapshot is of."""
    with closing(sqlite3.connect(db)) as connection:
        names = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        cached = [t for t in CACHE_TABLES if t in names]
        newest = connection.execute("SELECT max(seq) FROM snapshots").fetchone()[0] if "snapshots" in cached else 0
        # with SQLite's own count of the cache's AUTOINCREMENT ids (the rows of other tables still compared)
        mentions = re.compile(rf"\b(?:{'|'.join([*cached, 'sqlite_sequence'])})\b") if cached else None
        lines = [line for line in connection.iterdump() if mentions is None or not mentions.search(line)]
    return lines, newest or 0


# -- the CLI -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Cli:
    """`morale ARGS --db DB`: `{dir}` in an argument is the case's folder, where `files` are written
    first; `stdin` is standard input. The refusal must contain `says`."""

    name: str
    args: list[str]
    says: str
    files: dict[str, bytes] = field(default_factory=dict)
    stdin: bytes | None = None


def deep(levels: int, inner: str = "1") -> str:
    """JSON nested `levels` lists deep: ~2 bytes a level, so a thousand levels is a 2 KB body."""
    return "[" * levels + inner + "]" * levels


def started_with_table(values: str) -> str:
    """A battle_started whose pinned table holds `values` (the one field of an event that is any JSON)."""
    return (
        '{"type": "battle_started", "ruleset": "wh40k6", "ruleset_version": "1", "sides": ["a", "b"], '
        f'"tables": {{"t": {{"sha256": "{"0" * 64}", "values": {{"v": {values}}}}}}}}}'
    )


def roster(*, battle: str = 'id = "skirmish"', unit: str = 'name = "Kraak"', extra: str = "") -> bytes:
    """A small 40K roster, with one line of its [battle] or its unit replaced."""
    return (
        f'{extra}\n[battle]\n{battle}\nruleset = "wh40k6"\nsides = ["imperium", "orks"]\ndice = "table"\n'
        f'[[unit]]\nid = "kraak"\nside = "imperium"\n{unit}\ntype = "infantry"\nmodels = 10\nld = 8\n'
    ).encode()


def exported(battle: str) -> bytes:
    """One line of an exported battle: its first event, unsealed (the id is refused before the hash is read)."""
    event = {"type": "battle_started", "ruleset": "wh40k6", "ruleset_version": "1", "sides": ["a", "b"]}
    line = {"battle": battle, "seq": 1, "schema_version": 1, "recorded_at": "2026-01-01T00:00:00Z", "event": event}
    return json.dumps(line | {"prev_hash": "0" * 64, "hash": "0" * 64}).encode() + b"\n"


# -- list builders' rosters (.ros, .rosz): XML and zip files built to hurt ----------------------------
ROSTER_NS = "http://www.battlescribe.net/schema/rosterSchema"
LIST_ROSTER = (
    f'<?xml version="1.0"?><roster xmlns="{ROSTER_NS}" id="r" name="R" gameSystemId="g" '
    'gameSystemName="Warhammer 40,000 6th Edition"><forces/></roster>'
).encode()
LAUGHS = (  # "billion laughs": ten entities of ten each, a gigabyte of text from a kilobyte
    b'<?xml version="1.0"?><!DOCTYPE roster [<!ENTITY lol "lol">'
    + b"".join(
        f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">'.encode() for i in range(1, 10)
    )
    + f']><roster xmlns="{ROSTER_NS}" id="r" name="&lol9;" gameSystemId="g"/>'.encode()
)
EXTERNAL = (  # an external entity: the file a parser that follows it would read out to the sender
    b'<?xml version="1.0"?><!DOCTYPE roster [<!ENTITY secret SYSTEM "file:///etc/passwd">]>'
    + f'<roster xmlns="{ROSTER_NS}" id="r" name="&secret;" gameSystemId="g"/>'.encode()
)


def zipped(*entries: tuple[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return buffer.getvalue()


def nested(levels: int) -> bytes:
    """A roster whose selections hold selections `levels` deep."""
    inner = ""
    for _ in range(levels):
        inner = f'<selection id="s" name="s" entryId="e" number="1" type="upgrade"><selections>{inner}'
        inner += "</selections></selection>"
    return (
        f'<?xml version="1.0"?><roster xmlns="{ROSTER_NS}" id="r" name="R" gameSystemId="g"><forces>'
        f'<force id="f" name="F" entryId="e" catalogueId="c"><selections>{inner}</selections></force></forces></roster>'
    ).encode()


ZIP_BOMB = zipped(("bomb.ros", b" " * (20 * 1024 * 1024)))  # 20 MiB of spaces: some 20 KB zipped


CASUALTY = '{"type": "casualties_suffered", "unit": "kraak", "count": 1}'


def notation(*lines: str, head: str = '[Battle "n"]\n[Ruleset "wh40k6"]\n[Sides "imperium" "orks"]\n') -> bytes:
    """A small battle in notation (a header, then the lines given), as a file to import."""
    return (head + "".join(line + "\n" for line in lines)).encode()


def notation_import(name: str, says: str, data: bytes, extra: dict[str, bytes] | None = None) -> Cli:
    return Cli(
        name, ["notation", "import", "{dir}/n.txt", "--battle", "n2"], says, files={"n.txt": data, **(extra or {})}
    )


GDB_ROSTER = (
    b'[battle]\nid = "pratzen-2"\nruleset = "gdb"\nsides = ["allies", "french"]\n'
    b'tables = { results = "results.toml" }\n'
)

CLI_CASES = [
    # -- encodings: bytes that are not UTF-8 text
    Cli(
        "an NDJSON file not UTF-8",
        ["append", BATTLE, "--file", "{dir}/e.ndjson"],
        "e.ndjson: not UTF-8 text (byte 71)",
        files={"e.ndjson": CASUALTY.encode()[:-1] + b', "cause": "\xff"}\n'},
    ),
    Cli("stdin not UTF-8", ["append", BATTLE, "--file", "-"], "-: not UTF-8 text (byte 0)", stdin=b"\xff\xfe{}\n"),
    Cli(
        "a roster not UTF-8",
        ["new", "{dir}/r.toml"],
        "r.toml: not UTF-8 text",
        files={"r.toml": roster().replace(b"Kraak", b"Kr\xe4ak")},
    ),
    Cli(
        "a results table not UTF-8",
        ["new", "{dir}/g.toml"],
        "results.toml: not UTF-8 text",
        files={"g.toml": GDB_ROSTER, "results.toml": b'name = "\xff"\n'},
    ),
    Cli(
        "an import not UTF-8",
        ["import", "{dir}/b.ndjson"],
        "b.ndjson line 1: not UTF-8 text",
        files={"b.ndjson": b'{"battle": "\xff"}\n'},
    ),
    # -- nesting: each level one more call for a recursive reader
    Cli(
        "JSON 1000 deep in --json-event",
        ["append", BATTLE, "-j", started_with_table(deep(1000))],
        "nested too deep to read",
    ),
    Cli(
        "JSON 1000 deep in a file",
        ["append", BATTLE, "--file", "{dir}/e.ndjson"],
        "e.ndjson line 1: malformed JSON",
        files={"e.ndjson": started_with_table(deep(1000)).encode()},
    ),
    Cli(
        "a table nested 20 deep",
        ["append", BATTLE, "-j", started_with_table(deep(20))],
        "tables[...]: values: nested deeper than 8 levels",
    ),
    Cli(
        "a roster nested 1000 deep",
        ["new", "{dir}/r.toml"],
        "r.toml: not valid TOML: nested too deep",
        files={"r.toml": roster(extra=f"deep = {deep(1000)}")},
    ),
    Cli(
        "a results table nested 1000 deep",
        ["new", "{dir}/g.toml"],
        "results.toml: not valid TOML: nested too deep",
        files={"g.toml": GDB_ROSTER, "results.toml": f"rows = {deep(1000)}\n".encode()},
    ),
    Cli(
        "a field nested 1000 deep",
        ["append", BATTLE, "unit_changed", "unit=kraak", f"changes={deep(1000)}"],
        "changes: expected an object, got text",
    ),
    Cli("an amendment nested 1000 deep", ["what-if", BATTLE, "--amend", f"3={deep(1000)}"], "nested too deep to read"),
    Cli(
        "an import nested 1000 deep",
        ["import", "{dir}/b.ndjson"],
        "b.ndjson line 1: malformed JSON: nested too deep",
        files={"b.ndjson": f'{{"battle": "x", "event": {{"v": {deep(1000)}}}}}\n'.encode()},
    ),
    # -- malformed JSON says where
    Cli(
        "a stray comma",
        ["append", BATTLE, "-j", '{"type": "casualties_suffered",, "unit": "kraak"}'],
        "malformed JSON at line 1, column 32",
    ),
    Cli(
        "JSON cut short",
        ["append", BATTLE, "-j", '{"type": "casualties_suffered", "unit": "kr'],
        "malformed JSON at line 1, column 44: the JSON ends before it is complete",
    ),
    Cli(
        "an empty events file",
        ["append", BATTLE, "--file", "{dir}/e.ndjson"],
        "no events in the file",
        files={"e.ndjson": b"\n\n"},
    ),
    # -- sizes: one set of limits, whichever way in
    Cli(
        "a 10 MB cause",
        ["append", BATTLE, "casualties_suffered", "unit=kraak", "count=1", "cause=" + "x" * 10_000_000],
        "cause: text of at most 2000 characters, no control characters but tabs and line breaks, not 10000000",
    ),
    Cli(
        "a 500 character unit name",
        ["new", "{dir}/r.toml"],
        "unit[0]: name: a name of 1 to 200 characters",
        files={"r.toml": roster(unit=f'name = "{"K" * 500}"')},
    ),
    Cli(
        "100 house rules",
        ["new", "{dir}/r.toml"],
        "house_rules: at most 64 entries, not 100 entries",
        files={"r.toml": roster(extra="[house_rules]\n" + "".join(f"rule_{i} = 1\n" for i in range(100)))},
    ),
    Cli(
        "a count of 10**30",
        ["append", BATTLE, "casualties_suffered", "unit=kraak", f"count={10**30}"],
        "count: a whole number from 1 to 100000, not 1000000000000000000000000000000",
    ),
    # -- control characters and ids that are paths or SQL
    Cli(
        "a NUL in a cause",
        ["append", BATTLE, "-j", CASUALTY[:-1] + ', "cause": "a\\u0000b"}'],
        "cause: text of at most 2000 characters, no control characters but tabs and line breaks, not 'a\\x00b'",
    ),
    Cli(
        "a NUL in a unit name",
        ["new", "{dir}/r.toml"],
        "unit[0]: name: a name of 1 to 200 characters, none of them a control character, not 'K\\x00'",
        files={"r.toml": roster(unit='name = "K\\u0000"')},
    ),
    Cli(
        "a NUL in a ruling",
        ["append", BATTLE, "referee_ruled", "unit=kraak", "reason=rolled\x00off"],
        "reason: a reason",
    ),
    Cli(
        "an escape sequence in a note",
        ["append", BATTLE, "player_decided", "unit=kraak", "decision=x", "note=\x1b[2J"],
        "note: text of",
    ),
    Cli(
        "a battle id that is a path",
        ["new", str(ROSTER), "--battle", "../../etc/passwd"],
        "battle: a battle's id: 1 to 64 letters, digits, '_', '.' or '-', the first a letter or digit, "
        "not '../../etc/passwd'",
    ),
    Cli(
        "a battle id that is SQL", ["new", str(ROSTER), "--battle", "x'; DROP TABLE events;--"], "battle: a battle's id"
    ),
    Cli(
        "a battle id with a NUL",
        ["new", "{dir}/r.toml"],
        "r.toml: battle: a battle's id",
        files={"r.toml": roster(battle='id = "a\\u0000b"')},
    ),
    Cli("a battle id of 100 characters", ["new", str(ROSTER), "--battle", "b" * 100], "battle: a battle's id"),
    Cli("a battle started under a path", ["append", "../x", "-j", started_with_table("1")], "battle: a battle's id"),
    Cli(
        "an import of a battle named by a path",
        ["import", "{dir}/b.ndjson"],
        "b.ndjson line 1 (seq 1): battle: a battle's id",
        files={"b.ndjson": exported(battle="../x")},
    ),
    # -- types and ranges
    Cli("a die showing 7", ["roll", BATTLE, "kraak", "morale", "7", "1"], "dice[0]: a die shows 1 to 6, not 7"),
    Cli("a die showing -1", ["roll", BATTLE, "kraak", "morale", "-1", "3"], "dice[0]: a die shows 1 to 6, not -1"),
    Cli("a die showing x", ["roll", BATTLE, "kraak", "morale", "3", "x"], "Invalid value for 'dice'"),
    Cli(
        "thirteen dice",
        [
            "append",
            BATTLE,
            "-j",
            '{"type": "dice_rolled", "unit": "kraak", "test": "morale", "dice": [' + ",".join(["1"] * 13) + "]}",
        ],
        "dice: 1 to 12 items, not 13 items",
    ),
    Cli(
        "a count typed as text",
        ["append", BATTLE, "casualties_suffered", "unit=kraak", "count=many"],
        "count: expected a whole number, got text",
    ),
    Cli(
        "a turn of 0",
        ["append", BATTLE, "phase_started", "turn=0", "side=orks", "phase=movement"],
        "turn: a whole number from 1 to 10000, not 0",
    ),
    Cli(
        "three sides",
        ["new", "{dir}/r.toml"],
        "sides: exactly 2 items, not 3 items",
        files={"r.toml": roster().replace(b'sides = ["imperium", "orks"]', b'sides = ["imperium", "orks", "eldar"]')},
    ),
    Cli(
        "a state that is no state",
        ["append", BATTLE, "referee_ruled", "unit=kraak", "reason=x", "state=happy"],
        "state: one of broken",
    ),
    # -- unknown names
    Cli(
        "an unknown event type",
        ["append", BATTLE, "-j", '{"type": "unit_routed", "unit": "kraak"}'],
        "type: unknown type 'unit_routed' (known: battle_started",
    ),
    Cli(
        "an unknown field",
        ["append", BATTLE, "-j", CASUALTY[:-1] + ', "colour": "red"}'],
        "colour: no such field in a casualties_suffered (its fields: unit, count, cause)",
    ),
    Cli(
        "a missing field",
        ["append", BATTLE, "-j", '{"type": "casualties_suffered", "unit": "kraak"}'],
        "count: missing (a casualties_suffered needs it)",
    ),
    Cli("an unknown unit", ["append", BATTLE, "casualties_suffered", "unit=eldar", "count=1"], "unit"),
    Cli("an unknown battle", ["board", "no-such-battle"], "battle: no battle 'no-such-battle' in this store"),
    Cli("an unknown role", ["tokens", BATTLE, "--issue", "umpire", "--label", "x"], "role: no role 'umpire'"),
    Cli("a token without a label", ["tokens", BATTLE, "--issue", "orks"], "label: a label is needed"),
    Cli("a token id no token has", ["revoke", BATTLE, "0000beef"], "token: battle 'hive-tarsis' has no token with id"),
    Cli("a turn never played", ["replay", BATTLE, "--turn", "9"], "has no turn 9"),
    # -- the clock, the dice, stale preconditions
    Cli(
        "a phase out of order",
        ["append", BATTLE, "phase_started", "turn=1", "side=imperium", "phase=shooting"],
        "engine.clock.order",
    ),
    Cli("dice when no test is due", ["roll", BATTLE, "kraak", "morale", "3", "4"], "engine.dice"),
    Cli(
        "a stale --expect",
        ["append", BATTLE, "-j", CASUALTY, "--expect", "3"],
        f"expected_seq: battle 'hive-tarsis' is at sequence {EVENTS}, not 3",
    ),
    Cli("a stale --expect of 2**70", ["roll", BATTLE, "kraak", "morale", "--expect", str(2**70)], "expected_seq"),
    Cli(
        "a secret that is not hex",
        ["verify", BATTLE, "--secret", "nothex"],
        "secret: 64 lowercase hex digits, not 'nothex'",
    ),
    Cli("a reveal with no secret", ["reveal", BATTLE], "secret"),
    # -- tokens, seeds, keys and corrections
    Cli(
        "a label with an escape sequence",
        ["tokens", BATTLE, "--issue", "orks", "--label", "a\x1b[31mred"],
        "label: a label is one line of printable text",
    ),
    Cli("a seed commitment not hex", ["seed", BATTLE, "orks", "--commit", "nothex"], "commitment: 64 lowercase hex"),
    Cli("a seed for a side the battle lacks", ["seed", BATTLE, "eldar"], "side: no side 'eldar' in this battle"),
    Cli(
        "a public key that is neither a file nor a key",
        ["verify", "{dir}/battle.ndjson", "--key", "nonsense"],
        "--key: nonsense: no such file, nor an Ed25519 public key",
        files={"battle.ndjson": b'{"x": 1}\n'},
    ),
    Cli("a strike with no terminal to ask on", ["strike", BATTLE, "5", "--reason", "x"], "there is no terminal"),
    Cli("a strike of an event not yet written", ["strike", BATTLE, "9999", "--reason", "x", "--yes"], "no event 9999"),
    Cli("a strike with an empty reason", ["strike", BATTLE, "5", "--reason", "", "--yes"], "reason: a reason of 1"),
    # -- confirmation and disputes (the template battle asks for none)
    Cli("a confirmation where none is asked", ["confirm", BATTLE, "5"], "engine.claim.open: this battle does not ask"),
    Cli("a confirmation of event 0", ["confirm", BATTLE, "0"], "seqs[0]"),
    Cli("a dispute with an empty reason", ["dispute", BATTLE, "5", "--reason", ""], "reason: a reason of 1"),
    Cli("a resolution with an empty ruling", ["resolve", BATTLE, "5", "--ruling", ""], "ruling: a reason of 1"),
    Cli("a dispute as a side the battle lacks", ["dispute", BATTLE, "5", "--reason", "x", "--side", "eldar"], "side:"),
    Cli(
        "a hot-seat entry for the other side's unit",
        ["append", BATTLE, "-j", '{"type": "casualties_suffered", "unit": "boyz", "count": 1}', "--side", "imperium"],
        "unit: 'boyz' is not a unit of imperium",
    ),
    # -- a battle's own language: one the app speaks, given as text
    Cli(
        "a roster language the app does not speak",
        ["new", "{dir}/r.toml"],
        "battle.language is one of en, ru, not 'de'",
        files={"r.toml": roster(battle='id = "skirmish"\nlanguage = "de"')},
    ),
    Cli(
        "a roster language that is not text",
        ["new", "{dir}/r.toml"],
        "battle.language is one of en, ru, not '5'",
        files={"r.toml": roster(battle='id = "skirmish"\nlanguage = 5')},
    ),
    notation_import(
        "a notation language that is no language's code",
        "language",
        notation(head='[Battle "n"]\n[Ruleset "wh40k6"]\n[Sides "imperium" "orks"]\n[Language "../../etc/passwd"]\n'),
    ),
    # -- notation files: quoted text JSON does not read, a table nested too deep, a roster that never ends
    notation_import(
        "an unknown escape",
        "line 4, column 36: quoted text that does not read: Invalid \\escape",
        notation('unit kraak imperium infantry 10 "Kr\\qk" ld 8'),
    ),
    notation_import(
        "a raw control character",
        "quoted text that does not read",
        notation('unit kraak imperium infantry 10 "bad \x01" ld 8'),
    ),
    notation_import(
        "a NUL in quoted text",
        "quoted text that does not read",
        notation('unit kraak imperium infantry 10 "Kr\x00k" ld 8'),
    ),
    notation_import(
        "a lone surrogate",
        "line 4, column 33: quoted text with a lone surrogate",
        notation('unit kraak imperium infantry 10 "Kr\\ud800k" ld 8'),
    ),
    notation_import(
        "a table nested 1000 deep",
        "its values nest deeper than 8 levels",
        notation(
            head='[Battle "n"]\n[Ruleset "gdb"]\n[Sides "a" "b"]\n[Table results "x" "'
            + "0" * 64
            + '" "'
            + "[" * 1000
            + "]" * 1000
            + '"]\n'
        ),
    ),
    notation_import(
        "a roster outside the notation's folder",
        "[Roster] names a file outside the notation's folder",
        notation(head='[Roster "../../etc/passwd"]\n'),
    ),
    notation_import(
        "a roster that never ends",
        "larger than the 1 MB such a file may be",
        notation(head='[Roster "big.toml"]\n'),
        {"big.toml": b"#" * ((1 << 20) + 1)},
    ),
    notation_import(
        "a house rule set twice",
        "[HouseRule x] is given twice (first on line 4)",
        notation(
            head='[Battle "n"]\n[Ruleset "wh40k6"]\n[Sides "imperium" "orks"]\n[HouseRule x 1]\n[HouseRule x 2]\n'
        ),
    ),
    # -- notation too large to parse: refused before the parser sees it, naming the limit
    notation_import(
        "a notation line of 10 MB (a unit's name)",
        "line 4, column 4194305: a line of a notation holds at most 4,194,304 characters",
        notation('unit kraak imperium infantry 10 "' + "K" * (10 << 20) + '" ld 8'),
    ),
    notation_import(
        "a notation of a million comment lines",
        "line 500001, column 1: a notation holds at most 500,000 lines; this one has 1,000,004",
        notation(*["; a comment"] * 1_000_000),
    ),
    Cli("a file of events that never ends", ["append", BATTLE, "--file", "/dev/zero"], "larger than the 64 MB"),
    Cli(
        "a file of events with a 10 MB line",
        ["append", BATTLE, "--file", "{dir}/e.ndjson"],
        "e.ndjson line 2: longer than the 4 MB a line of events may be",
        files={
            "e.ndjson": (
                CASUALTY + "\n" + CASUALTY.replace('"count"', '"cause": "' + "x" * (10 << 20) + '", "count"')
            ).encode()
        },
    ),
    Cli(
        "an exported battle with a 10 MB line",
        ["import", "{dir}/e.ndjson"],
        "e.ndjson line 1: longer than the 4 MB a line of events may be",
        files={"e.ndjson": exported("b" * (10 << 20))},
    ),
    # -- the origins a battle allows (CORS)
    Cli("an origin with a path", ["cors", BATTLE, "--allow", "https://x.example/overlay"], "allow: 'https://x.example"),
    Cli("an origin that any page claims", ["cors", BATTLE, "--allow", "null"], "allow: 'null' is not an origin"),
    Cli("a wildcard origin", ["cors", BATTLE, "--allow", "*"], "allow: '*' is not an origin"),
    Cli("an origin of 5000 characters", ["cors", BATTLE, "--allow", "https://" + "x" * 5000], "at most 200"),
    Cli("an origin with a port past 65535", ["cors", BATTLE, "--allow", "http://x.example:99999"], "a port is 1 to"),
    Cli("an origin with an escape", ["cors", BATTLE, "--allow", "http://x\x1b[31m.example"], "not a web origin"),
    Cli("removing an origin never allowed", ["cors", BATTLE, "--remove", "https://x.example"], "remove: https://x"),
    Cli("origins of a battle not held", ["cors", "nowhere", "--allow", "https://x.example"], "no battle 'nowhere'"),
    # -- a battle's webhooks
    Cli("a webhook to a file URL", ["hook", "add", BATTLE, "file:///etc/passwd", "--label", "x"], "url: 'file:///etc"),
    Cli(
        "a webhook URL of 5000 characters",
        ["hook", "add", BATTLE, "https://" + "x" * 5000, "--label", "x"],
        "at most 2000",
    ),
    Cli("a webhook URL with an escape", ["hook", "add", BATTLE, "http://x\x1b[31m.example/", "--label", "x"], "url:"),
    Cli("a webhook URL with a space", ["hook", "add", BATTLE, "https://bot.example/a b", "--label", "x"], "url:"),
    Cli("a webhook label with a new line", ["hook", "add", BATTLE, "https://b.example", "--label", "a\nb"], "label:"),
    Cli(
        "a webhook starting past the log",
        ["hook", "add", BATTLE, "https://b.example", "--label", "x", "--after", "999"],
        "after:",
    ),
    Cli("a webhook of a battle not held", ["hook", "list", "nowhere"], "no battle 'nowhere'"),
    # -- list builders' rosters: hostile XML and zip files, refused before anything is read from them
    Cli(
        "a .ros with a DTD of entities (billion laughs)",
        ["new", "{dir}/r.ros"],
        "r.ros: the XML declares a DTD",
        files={"r.ros": LAUGHS},
    ),
    Cli(
        "a .ros with an external entity",
        ["new", "{dir}/r.ros"],
        "r.ros: the XML declares a DTD",
        files={"r.ros": EXTERNAL},
    ),
    Cli(
        "a .ros that is not XML",
        ["new", "{dir}/r.ros"],
        "r.ros: not XML (line 1, column 0)",
        files={"r.ros": b"name,models\nBoyz,20\n"},
    ),
    Cli(
        "a .ros in another namespace",
        ["new", "{dir}/r.ros"],
        "r.ros: not a BattleScribe roster",
        files={"r.ros": LIST_ROSTER.replace(b"rosterSchema", b"catalogueSchema")},
    ),
    Cli(
        "a .ros whose root is no roster",
        ["new", "{dir}/r.ros"],
        "the root element is 'catalogue'",
        files={"r.ros": LIST_ROSTER.replace(b"<roster ", b"<catalogue ").replace(b"</roster>", b"</catalogue>")},
    ),
    Cli("a .rosz zip bomb", ["new", "{dir}/r.rosz"], "(a zip bomb?)", files={"r.rosz": ZIP_BOMB}),
    Cli(
        "a .rosz of two files",
        ["new", "{dir}/r.rosz"],
        "a .rosz holds exactly one roster, not 2 files",
        files={"r.rosz": zipped(("a.ros", LIST_ROSTER), ("b.ros", LIST_ROSTER))},
    ),
    Cli(
        "a .rosz that is a broken zip",
        ["new", "{dir}/r.rosz"],
        "r.rosz: not a readable zip file",
        files={"r.rosz": b"PK\x03\x04" + b"\x00" * 40},
    ),
    Cli(
        "a .ros too large to read",
        ["new", "{dir}/r.ros"],
        "larger than a roster file may be",
        files={"r.ros": LIST_ROSTER + b" " * (8 * 1024 * 1024)},
    ),
    Cli(
        "a .ros nested too deep",
        ["new", "{dir}/r.ros"],
        "selections are nested deeper than 40",
        files={"r.ros": nested(60)},
    ),
    Cli(
        "a .ros with a TOML roster",
        ["new", "{dir}/r.ros", "{dir}/r.toml"],
        "a TOML roster is given alone",
        files={"r.ros": LIST_ROSTER, "r.toml": roster()},
    ),
    Cli(
        "answers for a TOML roster",
        ["new", "{dir}/r.toml", "--answers", "{dir}/a.toml"],
        "--answers is for list builders'",
        files={"r.toml": roster(), "a.toml": b"[rules]\n"},
    ),
    Cli(
        "an answers file with a table morale does not read",
        ["new", "{dir}/r.ros", "--answers", "{dir}/a.toml"],
        "a.toml: units: an answers file has the tables",
        files={"r.ros": LIST_ROSTER, "a.toml": b"[units]\n"},
    ),
    Cli(
        "an answers file not UTF-8",
        ["new", "{dir}/r.ros", "--answers", "{dir}/a.toml"],
        "a.toml: not UTF-8 text",
        files={"r.ros": LIST_ROSTER, "a.toml": b'[battle]\nid = "\xff"\n'},
    ),
    # -- the command line itself
    Cli("an option before the command", ["--colour", "board", BATTLE], "No such option: --colour (see `"),
    Cli("a negative number as the command", ["-1"], "No such option: -1"),
    # -- points and sequence numbers: only ASCII digits are numbers ('¹'.isdigit() is True; int('¹') fails)
    Cli("superscript point", ["at", BATTLE, "¹"], "point: '¹': write N, start, end"),
    Cli("superscript diff point", ["diff", BATTLE, "¹"], "point: '¹': write N"),
    Cli("superscript turn", ["at", BATTLE, "end:¹"], "point: 'end:¹': the turn must be a number"),
    Cli("superscript amend seq", ["what-if", BATTLE, "--amend", '¹={"count": 1}'], "--amend '¹="),
    Cli("a point of 5000 digits", ["at", BATTLE, "1" * 5000], "point: '11111"),
]


@pytest.mark.parametrize("case", CLI_CASES, ids=[c.name for c in CLI_CASES])
def test_the_cli_refuses_hostile_input_in_one_line_and_writes_nothing(case: Cli, db: Path, tmp_path: Path):
    for name, data in case.files.items():
        (tmp_path / name).write_bytes(data)
    args = [arg.replace("{dir}", str(tmp_path)) for arg in case.args]
    before, _ = dump_but_the_cache(db)
    last = SqliteEventStore(db).last_seq(BATTLE)
    result = morale(db, *args, input=case.stdin)  # type: ignore[arg-type]
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("refused: ") and result.stderr.count("\n") == 1, result.stderr
    assert case.says in result.stderr
    after, newest = dump_but_the_cache(db)
    assert after == before
    assert newest <= last  # a snapshot the read kept is of the log as it was, never of the refused input


# -- what refused (or merely large) input costs: the memory of the process that reads it ----------------
PEAK_MB = 200  # a generous bound: the CLI itself is ~80-110 MB; these cost 0.7-1.5 GB before they were bounded
EXAMPLE_NOTATION = (ROSTER.parent / "battle.notation").read_text()


def with_comments(count: int) -> str:
    """The example battle's notation with `count` comment lines before its first turn."""
    header, turns = EXAMPLE_NOTATION.split("== Turn 1 ==", 1)
    return header + "; a comment\n" * count + "== Turn 1 ==" + turns


UNIT_JOINED = {"type": "unit_joined", "unit": "x", "side": "imperium", "unit_type": "infantry", "models": 5}
NAMED = {"battle": BATTLE, "seq": 1, "schema_version": 1, "recorded_at": "2026-01-01T00:00:00Z", "prev_hash": "0" * 64}

MEMORY_CASES = {
    # (the command, the file it reads, what it says: a refusal's words, or "Imported" for a file within the bounds)
    "a 10 MB unit name": (
        "notation",
        EXAMPLE_NOTATION.replace('"Tactical Squad Varro"', '"' + "A" * (10 << 20) + '"', 1),
        "a line of a notation holds at most 4,194,304 characters",
    ),
    "a 1 MB unit name, within the line's bound": (
        "notation",
        EXAMPLE_NOTATION.replace('"Tactical Squad Varro"', '"' + "A" * 1_000_000 + '"', 1),
        "name: a name of 1 to 200 characters",
    ),
    "a million comment lines": ("notation", with_comments(1_000_000), "a notation holds at most 500,000 lines"),
    "490,000 comment lines, within the bound": ("notation", with_comments(490_000), "Imported battle hive-tarsis"),
    "a 60 MB unit name in a file of events": (
        "import",
        json.dumps(NAMED | {"event": UNIT_JOINED | {"name": "A" * (60 << 20)}, "hash": "0" * 64}) + "\n",
        "line 1: longer than the 4 MB a line of events may be",
    ),
}


# Runs a command and prints its peak resident memory (KB on Linux), its exit code, then what it said. Run
# from a small Python of its own: a child forked straight from pytest would count pytest's pages as its own.
PEAK_OF = (
    "import resource, subprocess, sys; done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode); print(done.stdout + done.stderr)"
)


@pytest.mark.parametrize("case", MEMORY_CASES, ids=list(MEMORY_CASES))
def test_a_file_read_peaks_under_a_bound_whether_refused_or_not(case: str, tmp_path: Path):
    how, text, says = MEMORY_CASES[case]
    source = tmp_path / "n.txt"
    source.write_text(text)
    reads = ["notation", "import", str(source)] if how == "notation" else ["import", str(source)]
    command = [MORALE, *reads, "--db", str(tmp_path / "n.db")]
    measured = subprocess.run([sys.executable, "-c", PEAK_OF, *command], capture_output=True, text=True, check=True)
    figures, said = measured.stdout.split("\n", 1)
    peak_kb, exit_code = map(int, figures.split())
    assert says in said, said[:300]
    assert exit_code == (0 if says.startswith("Imported") else 2), said[:300]
    assert peak_kb < PEAK_MB * 1024, f"{peak_kb // 1024} MB"


# -- a store changed outside morale: each read names what is wrong, in one line ------------------------
def overwrite_body_byte(db: Path, seq: int, byte: bytes) -> None:
    """One byte of event `seq`'s stored body replaced, behind the store's back (its hash not redone)."""
    with closing(sqlite3.connect(db)) as connection:
        (body,) = connection.execute("SELECT body FROM events WHERE battle = ? AND seq = ?", (BATTLE, seq)).fetchone()
        damaged = body.encode()[:40] + byte + body.encode()[41:]
        connection.execute("UPDATE events SET body = CAST(? AS TEXT) WHERE seq = ?", (damaged, seq))
        connection.commit()


def overwrite_pages(db: Path) -> None:
    """Every page but the first (which lists the tables) overwritten: the events cannot be read."""
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        (page,) = connection.execute("PRAGMA page_size").fetchone()
    with db.open("r+b") as file:
        file.seek(page)
        file.write(b"\xab" * (db.stat().st_size - page))


def other_events_table(db: Path) -> None:
    db.unlink()
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, text TEXT)")


DAMAGE = {
    "a body byte 0xFF": (lambda db: overwrite_body_byte(db, 3, b"\xff"), "seq: event 3 of battle 'hive-tarsis' is"),
    "pages overwritten": (overwrite_pages, "--db: SQLite cannot read the store"),
    "an events table of another program": (other_events_table, "events table is not a morale log"),
}


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
@pytest.mark.parametrize("command", ["board", "log", "replay", "due", "battles", "explain"])
def test_a_damaged_store_is_refused_in_one_line_and_left_as_it_is(damage: str, command: str, db: Path):
    damaged, says = DAMAGE[damage]
    damaged(db)
    before = db.read_bytes()
    args = {"battles": [], "explain": [BATTLE, "kraak"]}.get(command, [BATTLE])
    result = morale(db, command, *args)
    if command == "battles" and damage == "a body byte 0xFF":
        assert result.exit_code == 0  # it lists battles; their events are not read
        return
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("refused: ") and result.stderr.count("\n") == 1, result.stderr
    assert says in result.stderr
    assert db.read_bytes() == before


def test_verify_names_the_event_whose_stored_bytes_are_not_utf8(db: Path):
    overwrite_body_byte(db, 3, b"\xff")
    result = morale(db, "verify", BATTLE)
    assert result.exit_code == 1, result.output
    assert "chain: first bad event #3: hash does not match the event's bytes" in result.stdout


# -- HTTP ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Http:
    """A request as `role` (a token of the template battle, `None` for none, or a literal `token`).
    The answer must be `status` as a problem naming `field` or `rule` where given, and containing
    `says` in its detail."""

    name: str
    method: str
    path: str
    status: int
    role: str | None = "referee"
    body: bytes | None = None
    headers: dict[str, bytes] = field(default_factory=dict)
    says: str = ""
    field: str | None = None
    rule: str | None = None


def body(value: Any) -> bytes:
    return json.dumps(value).encode()


def creation(**changes: Any) -> dict:
    """`POST /battles` of a small battle, with some of its fields replaced."""
    unit = {"type": "unit_joined", "unit": "kraak", "side": "imperium", "name": "Kraak", "unit_type": "infantry"}
    # Dice typed in: a battle whose engine may roll keeps a secret, written apart from its events.
    started = {"type": "battle_started", "ruleset": "wh40k6", "ruleset_version": "1", "sides": ["imperium", "orks"]}
    started |= {"dice_policy": "table"}
    return {"battle": "skirmish", "started": started, "units": [unit | {"models": 10, "ld": 8}]} | changes


def appended(*events: Any, expected_seq: int = EVENTS) -> bytes:
    return body({"expected_seq": expected_seq, "events": list(events)})


EVENTS_PATH = f"/battles/{BATTLE}/events"
ORIGINS = f"/battles/{BATTLE}/origins"
HOOKS = f"/battles/{BATTLE}/hooks"
CASUALTY_ON = {"type": "casualties_suffered", "unit": "kraak", "count": 1}
FEED = f"/battles/{BATTLE}/feed.ndjson?follow=false"

HTTP_CASES = [
    # -- encodings and nesting, on the one POST anyone may make on a default server
    Http("a battle not UTF-8", "POST", "/battles", 400, role=None, body=b'{"battle": "\xff"}', says="not UTF-8 text"),
    Http("a battle 1000 deep", "POST", "/battles", 400, role=None, body=deep(1000).encode(), says="expected an object"),
    Http(
        "a table 1000 deep",
        "POST",
        "/battles",
        400,
        role=None,
        body=f'{{"battle": "x", "started": {started_with_table(deep(1000))}}}'.encode(),
        says="nested too deep to read",
    ),
    Http(
        "a battle in a language the server does not speak",
        "POST",
        "/battles",
        400,
        role=None,
        body=b'{"battle": "x", "started": {"type": "battle_started", "ruleset": "wh40k6", "ruleset_version": "1", '
        b'"sides": ["a", "b"], "language": "de"}}',
        field="started.language",
    ),
    Http(
        "a battle's language that is no language's code",
        "POST",
        "/battles",
        400,
        role=None,
        body=b'{"battle": "x", "started": {"type": "battle_started", "ruleset": "wh40k6", "ruleset_version": "1", '
        b'"sides": ["a", "b"], "language": "' + b"r" * 100_000 + b'"}}',
        says="language",
    ),
    Http("an empty body", "POST", "/battles", 400, role=None, body=b"", says="no JSON: the input is empty"),
    Http("a body cut short", "POST", "/battles", 400, role=None, body=b'{"battle": "x", "st', says="line 1, column 20"),
    Http(
        "a stray comma on line 2",
        "POST",
        EVENTS_PATH,
        400,
        body=b'{"expected_seq": 1,\n "events": [,]}',
        says="malformed JSON at line 2, column 13",
    ),
    Http("events 1000 deep", "POST", EVENTS_PATH, 400, body=appended(json.loads(deep(900))), says="events[0]"),
    Http("events not UTF-8", "POST", EVENTS_PATH, 400, body=b'{"expected_seq": 1, "events": ["\xc3\x28"]}'),
    # -- sizes, control characters, ids
    Http(
        "a body over the limit",
        "POST",
        EVENTS_PATH,
        413,
        body=b" " * 1_000_001,
        says="larger than the 1,000,000 bytes this server reads (its --max-body)",
    ),
    Http(
        "a 10 MB unit name",
        "POST",
        EVENTS_PATH,
        413,
        body=appended({"type": "unit_changed", "unit": "kraak", "changes": {"name": "K" * (10 << 20)}}),
        says="larger than the 1,000,000 bytes",
    ),
    Http(
        "a 10 KB cause",
        "POST",
        EVENTS_PATH,
        400,
        body=appended(CASUALTY_ON | {"cause": "x" * 10_000}),
        field="events[0].cause",
        says="not 10000 characters",
    ),
    Http(
        "a NUL in a cause",
        "POST",
        EVENTS_PATH,
        400,
        body=appended(CASUALTY_ON | {"cause": "a\x00"}),
        field="events[0].cause",
    ),
    Http(
        "a battle id that is a path",
        "POST",
        "/battles",
        400,
        role=None,
        body=body(creation(battle="../../etc/passwd")),
        field="battle",
        says="a battle's id",
    ),
    Http(
        "a battle id with a NUL",
        "POST",
        "/battles",
        400,
        role=None,
        body=body(creation(battle="a\x00")),
        field="battle",
    ),
    Http(
        "a NUL in a unit name",
        "POST",
        "/battles",
        400,
        role=None,
        body=body(creation(units=[creation()["units"][0] | {"name": "K\x00"}])),
        field="units[0].name",
        says="none of them a control character",
    ),
    Http(
        "1001 units",
        "POST",
        "/battles",
        400,
        role=None,
        body=body(creation(units=creation()["units"] * 1001)),
        field="units",
    ),
    # -- types and ranges
    Http(
        "a die showing 7",
        "POST",
        EVENTS_PATH,
        400,
        body=appended({"type": "dice_rolled", "unit": "kraak", "test": "morale", "dice": [7]}),
        field="events[0].dice[0]",
        says="events[0].dice[0]: a die shows 1 to 6, not 7",
    ),
    Http("a type that is a number", "POST", EVENTS_PATH, 400, body=appended({"type": 3}), field="events[0].type"),
    Http(
        "expected_seq as text",
        "POST",
        EVENTS_PATH,
        400,
        body=body({"expected_seq": "9", "events": [CASUALTY_ON]}),
        field="expected_seq",
    ),
    Http("no events", "POST", EVENTS_PATH, 400, body=appended(), field="events", says="1 to 1000 items, not 0 items"),
    Http("after -1", "GET", f"/battles/{BATTLE}/feed.ndjson?follow=false&after=-1", 400, field="after"),
    Http(
        "after in words",
        "GET",
        f"/battles/{BATTLE}/feed.ndjson?follow=false&after=abc",
        400,
        field="after",
        says="after: expected a whole number",
    ),
    # Beyond any sequence number a log can reach (found by schemathesis: an overflow in the store, a 500).
    Http("after 2**64", "GET", f"/battles/{BATTLE}/log?after={2**64}&limit=5", 400, field="after"),
    Http("limit 2**64", "GET", f"/battles/{BATTLE}/log?limit={2**64}", 400, field="limit"),
    Http(
        "follow maybe", "GET", f"/battles/{BATTLE}/feed.ndjson?follow=maybe", 400, field="follow", says="true or false"
    ),
    # -- unknown names
    Http(
        "an unknown event type",
        "POST",
        EVENTS_PATH,
        400,
        body=appended({"type": "unit_routed"}),
        field="events[0].type",
        says="unknown type 'unit_routed'",
    ),
    Http(
        "an unknown field",
        "POST",
        EVENTS_PATH,
        400,
        body=appended(CASUALTY_ON | {"colour": "red"}),
        field="events[0].colour",
    ),
    Http("an unknown unit", "POST", EVENTS_PATH, 422, body=appended(CASUALTY_ON | {"unit": "eldar"}), field="unit"),
    Http(
        "an unknown ruleset",
        "POST",
        "/battles",
        422,
        role=None,
        body=body(creation(started=creation()["started"] | {"ruleset": "chess"})),
        field="ruleset",
    ),
    Http("an unknown unit to explain", "GET", f"/battles/{BATTLE}/explain/eldar", 422, field="unit"),
    Http(
        "a battle that exists already",
        "POST",
        "/battles",
        409,  # as for a writer that lost the race to create it
        role=None,
        body=body(creation(battle=BATTLE)),
        field="battle",
    ),
    # -- the clock, stale preconditions
    Http(
        "a phase out of order",
        "POST",
        EVENTS_PATH,
        422,
        body=appended({"type": "phase_started", "turn": 1, "side": "imperium", "phase": "shooting"}),
        rule="engine.clock.order",
    ),
    Http("a stale expected_seq", "POST", EVENTS_PATH, 409, body=appended(CASUALTY_ON, expected_seq=3)),
    Http(
        "an expected_seq of 2**70",
        "POST",
        f"/battles/{BATTLE}/roll",
        409,
        body=body({"unit": "kraak", "test": "morale", "expected_seq": 2**70}),
    ),
    Http(
        "a resume point past the end",
        "GET",
        f"/battles/{BATTLE}/feed.ndjson?follow=false&after=999",
        422,
        field="after",
    ),
    # -- roles and tokens
    Http("no token", "POST", EVENTS_PATH, 401, role=None, body=appended(CASUALTY_ON)),
    Http("a wrong token", "POST", EVENTS_PATH, 401, role="not-a-token", body=appended(CASUALTY_ON)),
    Http("a spectator writing", "POST", EVENTS_PATH, 403, role="spectator", body=appended(CASUALTY_ON)),
    Http(
        "a player writing for the enemy",
        "POST",
        EVENTS_PATH,
        403,
        role="orks",
        body=appended(CASUALTY_ON),
        field="unit",
    ),
    Http(
        "a player ruling",
        "POST",
        EVENTS_PATH,
        403,
        role="imperium",
        body=appended({"type": "referee_ruled", "unit": "kraak", "reason": "x"}),
        field="type",
    ),
    Http(
        "a label with an escape sequence over HTTP",
        "POST",
        f"/battles/{BATTLE}/tokens",
        422,
        body=body({"role": "player", "side": "orks", "label": "a\x1b[31mred"}),
        field="label",
    ),
    Http(
        "an overlay token with a side",
        "POST",
        f"/battles/{BATTLE}/tokens",
        422,
        body=body({"role": "overlay", "side": "orks", "label": "OBS"}),
        field="side",
        says="only a player's token has a side",
    ),
    Http(
        "a player issuing a token",
        "POST",
        f"/battles/{BATTLE}/tokens",
        403,
        role="orks",
        body=body({"role": "spectator", "label": "x"}),
    ),
    Http("a token id no token has, over HTTP", "DELETE", f"/battles/{BATTLE}/tokens/0000beef", 404, field="token_id"),
    # The feed's descriptions are read, never written: a body sent to one is refused, not read.
    Http("a body posted to the AsyncAPI document", "POST", "/asyncapi.json", 405, role=None, body=deep(1000).encode()),
    Http("a body posted to the feed schema", "POST", "/feed.schema.json", 405, role=None, body=b'{"x": "\xff"}'),
    Http(
        "an origin with a path, over HTTP",
        "POST",
        ORIGINS,
        422,
        body=body({"allow": ["https://x.example/overlay"]}),
        field="allow",
        says="not a web origin",
    ),
    Http("an origin list that is not a list", "POST", ORIGINS, 400, body=body({"allow": "https://x.example"})),
    Http("an origin of 5000 characters, over HTTP", "POST", ORIGINS, 400, body=body({"allow": ["x" * 5000]})),
    Http("51 origins", "POST", ORIGINS, 400, body=body({"allow": [f"https://{n}.example" for n in range(51)]})),
    Http("an unknown field among origins", "POST", ORIGINS, 400, body=body({"allowed": ["https://x.example"]})),
    Http(
        "removing an origin never allowed, over HTTP",
        "POST",
        ORIGINS,
        422,
        body=body({"remove": ["https://x.example"]}),
        field="remove",
    ),
    Http("a player allowing an origin", "POST", ORIGINS, 403, role="orks", body=body({"allow": ["https://x.example"]})),
    Http("a spectator listing the origins", "GET", ORIGINS, 403, role="spectator"),
    Http("a webhook URL that is not text", "POST", HOOKS, 400, body=body({"url": 5, "label": "x"})),
    Http("a webhook URL of 5000 characters", "POST", HOOKS, 400, body=body({"url": "h" * 5000, "label": "x"})),
    Http(
        "101 kinds of item",
        "POST",
        HOOKS,
        400,
        body=body({"url": "https://b.example", "label": "x", "kinds": ["x"] * 101}),
    ),
    Http(
        "an unknown field of a webhook",
        "POST",
        HOOKS,
        400,
        body=body({"url": "https://b.example", "label": "x", "secret": "s"}),
    ),
    Http(
        "a webhook starting before the log",
        "POST",
        HOOKS,
        400,
        body=body({"url": "https://b.example", "label": "x", "after": -1}),
    ),
    Http(
        "a webhook to a file URL, over HTTP",
        "POST",
        HOOKS,
        422,
        body=body({"url": "file:///etc/passwd", "label": "x"}),
        field="url",
        says="not an http or https URL",
    ),
    Http(
        "a player registering a webhook",
        "POST",
        HOOKS,
        403,
        role="orks",
        body=body({"url": "https://b.example", "label": "x"}),
    ),
    Http("a spectator listing the webhooks", "GET", HOOKS, 403, role="spectator"),
    Http("the log of a webhook not held", "GET", f"{HOOKS}/hknothere/attempts", 404, field="hook"),
    Http(
        "a preflight from an origin not allowed",
        "OPTIONS",
        EVENTS_PATH,
        403,
        role=None,
        headers={"Origin": b"https://x.example", "Access-Control-Request-Method": b"POST"},
        field="Origin",
        says="https://x.example is not allowed",
    ),
    Http(
        "a preflight from an origin in Latin-1",
        "OPTIONS",
        EVENTS_PATH,
        403,
        role=None,
        headers={"Origin": b"https://\xb9.example", "Access-Control-Request-Method": b"POST"},
        field="Origin",
    ),
    Http(
        "a .rosz zip bomb, over HTTP",
        "POST",
        "/battles/roster",
        400,
        role=None,
        body=body({"lists": [{"file": "r.rosz", "data": base64.b64encode(ZIP_BOMB).decode()}]}),
        says="r.rosz: the roster unzips to",
    ),
    Http(
        "a .ros with a DTD of entities, over HTTP",
        "POST",
        "/battles/roster",
        400,
        role=None,
        body=body({"lists": [{"file": "r.ros", "data": base64.b64encode(LAUGHS).decode()}]}),
        says="r.ros: the XML declares a DTD",
    ),
    Http(
        "a .ros that is not XML, over HTTP",
        "POST",
        "/battles/roster",
        400,
        role=None,
        body=body({"lists": [{"file": "r.ros", "data": base64.b64encode(b"<unclosed").decode()}]}),
        says="r.ros: not XML",
    ),
    Http(
        "a .ros in another namespace, over HTTP",
        "POST",
        "/battles/roster",
        400,
        role=None,
        body=body(
            {"lists": [{"file": "r.ros", "data": base64.b64encode(LIST_ROSTER.replace(b"roster", b"x")).decode()}]}
        ),
        says="not a BattleScribe roster",
    ),
    Http(
        "a list file that is not base64",
        "POST",
        "/battles/roster",
        400,
        role=None,
        body=body({"lists": [{"file": "r.ros", "data": "not base64!"}]}),
        field="lists[0].data",
    ),
    Http(
        "nine list files",
        "POST",
        "/battles/roster",
        400,
        role=None,
        body=body({"lists": [{"file": "r.ros", "data": ""}] * 9}),
        field="lists",
    ),
    Http(
        "answers that are not TOML, over HTTP",
        "POST",
        "/battles/roster",
        400,
        role=None,
        body=body({"lists": [{"file": "r.ros", "data": base64.b64encode(LIST_ROSTER).decode()}], "answers": "[x"}),
        says="answers: not valid TOML",
    ),
    Http(
        "a roster that is not TOML",
        "POST",
        "/battles/roster",
        400,
        role=None,
        body=body({"roster": "[battle\nid = 1", "file": "r.toml"}),
        says="not valid TOML",
    ),
    Http(
        "a strike of an event not yet written, over HTTP",
        "POST",
        f"/battles/{BATTLE}/strike/9999",
        422,
        body=body({"reason": "x", "expected_seq": EVENTS}),
        field="seq",
    ),
    Http(
        "a dispute where no confirmation is asked",
        "POST",
        EVENTS_PATH,
        422,
        body=body({"events": [{"type": "entry_disputed", "seq": 5, "reason": "x"}], "expected_seq": EVENTS}),
        rule="engine.claim.open",
    ),
    Http(
        "a player's phase start where a referee keeps the clock",
        "POST",
        EVENTS_PATH,
        403,
        role="imperium",
        body=body(
            {
                "events": [{"type": "phase_started", "turn": 9, "side": "imperium", "phase": "movement"}],
                "expected_seq": EVENTS,
            }
        ),
        field="type",
    ),
    Http(
        "a confirmation of no events",
        "POST",
        EVENTS_PATH,
        400,
        body=body({"events": [{"type": "entry_confirmed", "seqs": []}], "expected_seq": EVENTS}),
        field="events[0].seqs",
    ),
    Http(
        "a spectator undoing",
        "POST",
        f"/battles/{BATTLE}/undo",
        403,
        role="spectator",
        body=body({"reason": "x", "expected_seq": EVENTS}),
    ),
    Http("an unknown battle without a token", "GET", "/battles/nowhere/board", 401, role=None),
    Http("an unknown battle with a token", "GET", "/battles/nowhere/board", 401),
    Http("the claims of an unknown battle", "GET", "/battles/nowhere/claims", 401),
    Http("the claims with no token", "GET", f"/battles/{BATTLE}/claims", 401, role=None),
    Http("a token in the query of an unknown battle", "GET", "/battles/nowhere/board?token=x", 401, role=None),
    # -- points and sequence numbers: only ASCII digits are numbers ('¹'.isdigit() is True; int('¹') fails)
    Http("superscript at", "GET", f"/battles/{BATTLE}/board?at=%C2%B9", 422, field="point", says="write N"),
    Http("superscript due at", "GET", f"/battles/{BATTLE}/due?at=%C2%B9", 422, field="point"),
    Http("superscript explain at", "GET", f"/battles/{BATTLE}/explain/kraak?at=%C2%B9", 422, field="point"),
    Http("superscript diff before", "GET", f"/battles/{BATTLE}/diff?before=%C2%B9", 422, field="point"),
    Http("an at of 5000 digits", "GET", f"/battles/{BATTLE}/board?at={'1' * 5000}", 422, field="point"),
    Http("superscript Last-Event-ID", "GET", FEED, 400, headers={"Last-Event-ID": "¹".encode()}, field="Last-Event-ID"),
    Http("Last-Event-ID in Latin-1", "GET", FEED, 400, headers={"Last-Event-ID": b"\xb9"}, field="Last-Event-ID"),
    Http(
        "a Last-Event-ID of 5000 digits",
        "GET",
        FEED,
        400,
        headers={"Last-Event-ID": b"7" * 5000},
        field="Last-Event-ID",
    ),
    # -- the stream overlays: their address's query, checked before any page is sent
    Http("an overlay delay of 400 digits", "GET", "/overlay/banner?delay=" + "9" * 400, 400, role=None, field="delay"),
    Http("an overlay delay below zero", "GET", "/overlay/banner?delay=-1", 400, role=None, field="delay"),
    Http("an overlay size with a NUL", "GET", "/overlay/strip?size=large%00", 400, role=None, field="size"),
    Http("an overlay theme of markup", "GET", "/overlay/ticker?theme=%3Cscript%3E", 400, role=None, field="theme"),
    Http("an overlay named as a path", "GET", "/overlay/..%2Fconsole", 404, role=None),
    Http("an overlay of no such name", "GET", "/overlay/scores", 404, role=None, says="there is no overlay 'scores'"),
    Http("a body posted to an overlay", "POST", "/overlay/banner", 405, role=None, body=b"{}"),
]


@pytest.fixture
def client(db: Path) -> Iterator[TestClient]:
    with TestClient(create_app(db, Settings())) as opened:
        yield opened


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def send_raw(app: Litestar, method: str, target: str, headers: dict[str, bytes], body: bytes) -> Answer:
    """One request straight to the ASGI app, its header bytes exactly as given: an HTTP client
    would re-encode them (a Latin-1 '¹' reaches the server as UTF-8), and a server must take what
    any client sends."""
    path, _, query = target.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": unquote(path),
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(name.lower().encode(), value) for name, value in headers.items()],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    incoming = [{"type": "http.request", "body": body, "more_body": False}]
    sent: list[dict] = []

    async def receive() -> dict:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    start = next(m for m in sent if m["type"] == "http.response.start")
    head = {name.decode("latin-1"): value.decode("latin-1") for name, value in start["headers"]}
    return Answer(
        start["status"], head, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    )


def problem_of(answer: Answer) -> dict:
    """The answer as RFC 9457 problem details: their media type, and the four members every problem has."""
    assert answer.headers["content-type"] == "application/problem+json", answer.headers
    problem = answer.json()
    assert problem["status"] == answer.status
    assert problem["type"].startswith(("urn:morale:problem:", "about:blank")) and problem["title"], problem
    assert problem["detail"] and "\n" not in problem["detail"], problem
    return problem


@pytest.mark.parametrize("case", HTTP_CASES, ids=[c.name for c in HTTP_CASES])
def test_http_refuses_hostile_input_with_a_4xx_naming_the_field_and_writes_nothing(
    case: Http, template: Template, db: Path
):
    headers = dict(case.headers)
    if case.role is not None:
        headers["Authorization"] = b"Bearer " + template.tokens.get(case.role, case.role).encode()
    if case.body is not None:
        headers["Content-Type"] = b"application/json"
    before = dump(db)
    answer = send_raw(create_app(db, Settings()), case.method, case.path, headers, case.body or b"")
    assert answer.status == case.status, answer.body
    problem = problem_of(answer)
    if case.field is not None:
        assert problem.get("field") == case.field, problem
    if case.rule is not None:
        assert problem.get("rule") == case.rule, problem
    assert case.says in problem["detail"]
    assert dump(db) == before


def test_a_refusal_over_http_is_the_same_for_every_role_that_may_read(client: TestClient, template: Template):
    # The same bad point is refused alike whoever asks: the token only decides who may ask.
    for role in ("referee", "spectator", "orks"):
        answer = client.get(f"/battles/{BATTLE}/board?at=%C2%B9", headers=bearer(template.tokens[role]))
        assert answer.status_code == 422, role
