"""The audit and replay commands of `morale`: explain, at, diff, what-if, verify, reveal, luck,
export, import, schema. Each reads the log (only `reveal` and `import` write) and prints a table or
narrative, or JSON with `--json`; the work is done by the projections, which other front ends call.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import msgspec
import typer
from msgspec.structs import replace
from rich.table import Table

from morale.core.words import Words, counted
from morale.events.codec import MalformedEvent, event_from_dict
from morale.events.locate import is_database_url
from morale.events.numbers import whole_number
from morale.events.schema import event_schema
from morale.events.store import EventStore, UnknownBattle, check_not_foreign
from morale.events.types import EVENT_TYPES
from morale.projections.luck import luck
from morale.projections.timeline import Timeline
from morale.projections.verify import verify
from morale.projections.whatif import Amendment, what_if

from .. import language
from ..authors import cli_author
from ..files import MAX_LOG_BYTES, check_line_lengths, read_bounded
from ..service import load, load_head, reveal
from ..signed import store_heads
from ..transfer import check_lines, export_lines, write_checked
from . import render, render_audit, signed
from .base import DEFAULT_DB, BattleArg, Db, Json, ToStdout, app, emit_json, open_store, out, refusals, report

EXIT_UNVERIFIED = 1


def _events(store: EventStore, battle: str) -> list:
    load(store, battle)
    return list(store.read(battle))


@app.command("at")
def at_command(
    battle: BattleArg,
    point: Annotated[
        str, typer.Argument(help="N (after event N), start, end, or start:TURN[/SIDE][/PHASE], end:TURN...")
    ] = "end",
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """The board at any point of the battle: after event N, or at the start or end of a turn or phase."""
    with refusals(as_json):
        timeline = Timeline(battle, _events(open_store(db), battle))
        where = timeline.point(point)
        view = timeline.board_at(where)
        if as_json:
            emit_json({"point": where, "board": view})
        else:
            out.print(language.say(Words("{point} (event {seq}):", point=where.label, seq=where.seq)))
            render.print_board(out, view)


@app.command("diff")
def diff_command(
    battle: BattleArg,
    before: Annotated[str, typer.Argument(help="The earlier point (same forms as `morale at`).")],
    after: Annotated[str, typer.Argument(help="The later point.")] = "end",
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """Which units changed between two points, how, and why."""
    with refusals(as_json):
        timeline = Timeline(battle, _events(open_store(db), battle))
        view = timeline.diff(timeline.point(before), timeline.point(after))
        emit_json(view) if as_json else render_audit.print_diff(out, view)


@app.command("what-if")
def what_if_command(
    battle: BattleArg,
    strike: Annotated[list[int] | None, typer.Option("--strike", help="Fold without event SEQ.")] = None,
    amend: Annotated[
        list[str] | None, typer.Option("--amend", help='SEQ=JSON: change fields of event SEQ, e.g. 61={"count": 4}.')
    ] = None,
    insert: Annotated[
        list[str] | None, typer.Option("--insert-after", help="SEQ=JSON: a whole new event after event SEQ.")
    ] = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """Fold the battle with events amended, struck or inserted; the log is never touched."""
    with refusals(as_json):
        amendments = [Amendment("strike", seq) for seq in strike or []]
        amendments += [Amendment("amend", *_seq_and_json(text, "--amend")) for text in amend or []]
        amendments += [Amendment("insert", *_seq_and_json(text, "--insert-after")) for text in insert or []]
        view = what_if(battle, _events(open_store(db), battle), amendments)
        emit_json(view) if as_json else render_audit.print_what_if(out, view)


def _seq_and_json(text: str, option: str) -> tuple[int, dict[str, Any]]:
    seq_text, sep, data = text.partition("=")
    seq = whole_number(seq_text)
    given = _shown(text)
    if not sep or seq is None:
        example = "12='{\"count\": 2}'"
        raise MalformedEvent(
            Words("{option} {given}: write SEQ=JSON, e.g. {example}", option=option, given=given, example=example)
        )
    try:
        fields = json.loads(data)
    except ValueError as exc:
        said = Words("{option} {given}: malformed JSON: {error}", option=option, given=given, error=str(exc))
        raise MalformedEvent(said) from None
    except RecursionError:
        said = Words("{option} {given}: malformed JSON: nested too deep to read", option=option, given=given)
        raise MalformedEvent(said) from None
    if not isinstance(fields, dict):
        raise MalformedEvent(
            Words("{option} {given}: the JSON must be an object of fields", option=option, given=given)
        )
    return seq, fields


def _shown(text: str) -> str:
    """An option's value as typed, cut short: a refusal stays one readable line."""
    return repr(text) if len(text) <= 60 else f"{text[:57]!r}..."


@app.command("verify")
def verify_command(
    battle: Annotated[
        str, typer.Argument(help="The battle's id; with --key, an exported battle's file (- for stdin).")
    ],
    secret: Annotated[
        str | None, typer.Option("--secret", help="A dice secret published outside the log, to check engine rolls.")
    ] = None,
    key: Annotated[
        str | None,
        typer.Option("--key", help="A store's public key (a file or its text): check an exported file, offline."),
    ] = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """Check the hash chain, re-derive the board at every phase end, and recompute every engine roll
    once the dice secret is revealed, and check the signed heads. Exit code 1 names the first bad
    event. With --key, the argument is an exported file, checked with no store: a failure is exit 2."""
    if key is not None:
        signed.verify_file_command(battle, key, as_json, secret_given=secret is not None)
        return
    with refusals(as_json):
        if secret is not None:
            event_from_dict({"type": "dice_revealed", "secret": secret})  # refuses a malformed secret
        store = open_store(db)
        if not store.last_seq(battle):
            raise UnknownBattle(battle)
        view = verify(battle, store.raw_rows(battle), secret)
        heads = store_heads(store, battle)
        view = view if heads.ok else replace(view, ok=False)  # a bad signature fails the log
    if as_json:
        # Its findings' messages are words: in the reader's language, like the rest of the JSON's.
        found = msgspec.to_builtins(view, order="sorted", enc_hook=language.enc_hook)
        emit_json(found | {"signed_heads": heads})
    else:
        render_audit.print_verification(out, view)
        signed.print_store_heads(out, heads)
    if not view.ok:
        raise typer.Exit(EXIT_UNVERIFIED)


@app.command("reveal")
def reveal_command(battle: BattleArg, db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """Publish the battle's dice secret in its log: every engine roll made with it can then be
    recomputed by anyone. The reveal commits to a fresh secret, so the battle goes on."""
    with refusals(as_json):
        store = open_store(db)
        fold = load_head(store, battle)
        recorded = reveal(store, fold, author=cli_author())
        if not as_json:
            secret = recorded[0].stored.event.secret  # type: ignore[union-attr]
            out.print(language.say(Words("dice secret of {battle}: {secret}", battle=battle, secret=secret)))
        report(fold, recorded, as_json)


@app.command("luck")
def luck_command(battle: BattleArg, db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """Each side's rolled tests against the exact chance each had: expected passes, actual, and the luck
    percentile (the chance of passing fewer at those odds, an equal number counting half)."""
    with refusals(as_json):
        view = luck(battle, _events(open_store(db), battle))
        emit_json(view) if as_json else render_audit.print_luck(out, view)


@app.command("export")
def export_command(
    battle: BattleArg,
    output: ToStdout = None,
    db: Db = DEFAULT_DB,
) -> None:
    """The battle as NDJSON: one stored event per line, hashes included (what `import` reads)."""
    with refusals():
        lines = b"".join(export_lines(open_store(db), battle))
        if output is None:
            sys.stdout.buffer.write(lines)
            return
        try:
            output.write_bytes(lines)
        except OSError as exc:  # a missing folder, a folder, no permission
            raise MalformedEvent(Words("--out {path}: {error}", path=output, error=exc.strerror)) from None


@app.command("import")
def import_command(
    file: Annotated[Path, typer.Argument(help="An exported battle (NDJSON); - for stdin.")],
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """Load an exported battle into this store: the hash chain and every event are checked first;
    a refusal names the line and sequence number, and nothing is written."""
    with refusals(as_json):
        if not is_database_url(db):
            check_not_foreign(Path(db))  # a --db that cannot be a store is refused before the file is read
        data = read_bounded(file, MAX_LOG_BYTES)
        check_line_lengths(data, str(file))
        checked = check_lines(data.splitlines(), str(file))  # a bad file is refused before a new store is made
        done = write_checked(open_store(db, create=True), checked)
        if as_json:
            emit_json({"battle": done.battle, "events": done.events, "head": done.head})
        else:
            # Text, not markup: the battle's id comes from the file, brackets and all.
            said = counted(
                "Imported battle {battle}: {n} event, head {head}.",
                "Imported battle {battle}: {n} events, head {head}.",
                n=done.events,
                battle=done.battle,
                head=done.head,
            )
            out.print(render.styled(said, "battle", done.battle, "bold"))


@app.command("schema")
def schema_command(as_json: Json = False) -> None:
    """The JSON Schema of every event (with --json), or a table of the event types and their versions."""
    if as_json:
        emit_json(event_schema())
        return
    definitions = event_schema()["$defs"]
    title = Words("Events (morale schema --json prints the JSON Schema)")
    table = Table(title=language.say(title), title_justify="left")
    for column in (Words("type"), Words("version"), Words("fields")):
        table.add_column(language.say(column))
    for tag, cls in EVENT_TYPES.items():
        properties = definitions[cls.__name__]["properties"]
        table.add_row(tag, str(cls.version), ", ".join(name for name in properties if name != "type"))
    out.print(table)
