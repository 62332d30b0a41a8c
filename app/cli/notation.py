"""`morale notation`: a battle as text a person can type and read back (export), and such text
checked and loaded into a store (import), or compared with a stored battle (--verify-against)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from morale.core.rules import Refusal
from morale.core.words import Words, counted
from morale.events.codec import MalformedEvent, battle_id, encode
from morale.events.locate import is_database_url, shown
from morale.events.store import StoreUnavailable, UnknownBattle, check_not_foreign

from .. import language
from ..authors import cli_author
from ..files import MAX_LOG_BYTES, read_bounded
from ..service import load
from ..signed import heads_at_the_end
from .base import DEFAULT_DB, BattleArg, Db, Json, ToStdout, app, emit_json, open_store, out, refusals
from .render import styled

if TYPE_CHECKING:
    from ..notation.check import Comparison

EXIT_DIFFERENT = 1

notation = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(notation, name="notation")


@notation.callback()
def _notation() -> None:
    """The battle notation: a battle as text to type, read, share and load back (export, import, grammar)."""


@notation.command("export")
def export_command(
    battle: BattleArg,
    output: ToStdout = None,
    db: Db = DEFAULT_DB,
) -> None:
    """The battle in notation: its header, then a line per event under turn and phase headings."""
    with refusals():
        store = open_store(db)
        load(store, battle)
        stored = list(store.read(battle))
        from ..notation.writer import write  # the notation's modules (lark) are for its commands alone

        text = write(battle, [s.event for s in stored], [s.author for s in stored], heads_at_the_end(store, battle))
        if output is None:
            sys.stdout.write(text)
            return
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise MalformedEvent(Words("--out {path}: {error}", path=output, error=exc.strerror)) from None


@notation.command("import")
def import_command(
    file: Annotated[Path, typer.Argument(help="A battle in notation; - for stdin.")],
    battle: Annotated[str | None, typer.Option(help="The battle's id (default: the notation's [Battle]).")] = None,
    verify_against: Annotated[
        str | None,
        typer.Option("--verify-against", help="Write nothing: compare, event by event, with this store's battle."),
    ] = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """Load a battle written in notation: every line is read and every event checked by the referee
    first; an error names the line and column, and nothing is written. With --verify-against, say
    whether a store's battle has the same events (exit 1 names the first that differs)."""
    with refusals(as_json):
        if verify_against is None and not is_database_url(db):
            check_not_foreign(Path(db))  # a --db that cannot be a store is refused before the file is read
        if battle is not None:
            battle_id(battle)  # an id given is held to the limits, "" included (not the header's instead)
        from ..notation.check import check, compare, with_dice_secret, write_checked
        from ..notation.reader import read

        text = _read(file)
        base = Path.cwd() if str(file) == "-" else file.parent
        notation, secret = read(text, str(file), base, battle), None
        if verify_against is None:
            notation, secret = with_dice_secret(notation)
        checked = check(notation, str(file))
        if verify_against is not None:
            try:
                store = open_store(verify_against)
            except StoreUnavailable as exc:
                said = Words("{path}: {reason}", path=exc.path, reason=exc.reason)
                raise Refusal(said, field="--verify-against") from None
            if not store.last_seq(checked.battle):
                raise UnknownBattle(checked.battle)
            comparison = compare(checked, list(store.read(checked.battle)))
        else:
            done = write_checked(open_store(db, create=True), checked, secret, author=cli_author("notation"))
    if verify_against is not None:
        _print_comparison(comparison, verify_against, as_json)
        if not comparison.ok:
            raise typer.Exit(EXIT_DIFFERENT)
    elif as_json:
        emit_json({"battle": done.battle, "events": done.events, "head": done.head})
    else:
        said = counted(
            "Imported battle {battle}: {n} event, head {head}.",
            "Imported battle {battle}: {n} events, head {head}.",
            n=done.events,
            battle=done.battle,
            head=done.head,
        )
        out.print(styled(said, "battle", done.battle, "bold"))


@notation.command("grammar")
def grammar_command() -> None:
    """The notation's grammar (lark), as this engine reads it."""
    from ..notation.syntax import grammar

    sys.stdout.write(grammar())


def _read(file: Path) -> str:
    try:
        return read_bounded(file, MAX_LOG_BYTES).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedEvent(Words("{path}: not UTF-8 text (byte {byte})", path=file, byte=exc.start)) from None


def _print_comparison(comparison: Comparison, against: str, as_json: bool) -> None:
    if as_json:
        emit_json(comparison)
        return
    say, name = language.say, comparison.battle
    if comparison.ok:
        same = counted(
            "{battle}: the same {n} event as in {store} (head {head})",
            "{battle}: the same {n} events as in {store} (head {head})",
            n=comparison.events,
            battle=name,
            store=shown(against),
            head=comparison.head,
        )
        out.print(say(same), markup=False)
        return
    first = comparison.first_difference
    assert first is not None
    fields = {"battle": name, "store": shown(against), "seq": first.seq}
    if first.line is not None:
        differs = Words("{battle}: differs from {store} at event {seq} (line {line})", line=first.line, **fields)
    else:
        differs = Words("{battle}: differs from {store} at event {seq}", **fields)
    out.print(say(differs), markup=False)
    for label, event in ((Words("notation"), first.notation), (Words("store"), first.stored)):
        text = encode(event).decode() if event is not None else say(Words("(no such event)"))
        out.print(f"  {say(label)}: {text}", markup=False)
