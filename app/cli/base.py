"""What every `morale` command shares: the Typer app, its options, refusals and output.

Refused input prints one line naming the field or rule ID and exits with code 2; nothing is written.
The commands themselves live in battle.py, audit.py and rules.py, which register on `app`.
"""

from __future__ import annotations

import os
import re
import sqlite3
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from gettext import gettext as _
from importlib import import_module
from pathlib import Path
from typing import Annotated, Any, NoReturn

import msgspec
import typer
import typer.main
from rich.console import Console
from typer._click.exceptions import MissingParameter, NoArgsIsHelpError, NoSuchOption
from typer._click.utils import make_default_short_help
from typer.core import TyperGroup

from morale.core.fold import Fold
from morale.core.rules import Refusal
from morale.core.words import Words, counted
from morale.events.codec import MalformedEvent
from morale.events.locate import is_database_url
from morale.events.locate import open_store as store_at
from morale.events.signing import SigningKeyUnusable
from morale.events.store import ConflictError, EventStore, StoreUnavailable, UnknownBattle, UnreadableEvent
from morale.projections.narrative import describe_event

from .. import language
from ..service import Recorded, battle_language
from ..webhooks.unknown import UnknownHook
from . import help_said, render
from .commands import COMMANDS
from .text_values import plain_params, plain_text
from .version import version_line

# Typer re-exports Click's BadParameter (Typer vendors Click since 0.2x); its base is UsageError,
# what Click raises for any command line it cannot parse.
UsageError = typer.BadParameter.__base__
_COMMAND_ARGS = "morale.command_args"  # where RefusingGroup keeps a command's words, in ctx.meta
_OPENED: list[EventStore] = []  # the stores the running command opened (`open_store`), closed after it
_WORDS: list[str] = []  # the running command's words, as typed (RefusingGroup.resolve_command)
_BATTLE: list[str] = []  # the battle the running command names (BattleArg), if it names one


class LazyCommands(Mapping[str, Any]):
    """`morale`'s commands by name (`commands.COMMANDS`), each built the first time it is asked for:
    its module imported (it registers its command on `app`, as Typer has it), then the command built
    from its signature by Typer's own functions, as `typer.main.get_group` would have."""

    def __init__(self) -> None:
        self._built: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            if name not in COMMANDS:
                raise KeyError(name)
            import_module(f"{__package__}.{COMMANDS[name].module}")
            self._built[name] = _command_named(name)
        return self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS)


def _command_named(name: str) -> Any:
    settings = {"pretty_exceptions_short": app.pretty_exceptions_short, "rich_markup_mode": app.rich_markup_mode}
    for command in app.registered_commands:
        if (command.name or typer.main.get_command_name(command.callback.__name__)) == name:  # type: ignore[union-attr]
            return help_said.said_in_language(plain_text(typer.main.get_command_from_info(command, **settings)))
    for group in app.registered_groups:
        if group.name == name:
            built = typer.main.get_group_from_info(group, suggest_commands=app.suggest_commands, **settings)
            return help_said.said_in_language(plain_text(built))
    raise LookupError(f"morale.app.cli.{COMMANDS[name].module} registers no command {name!r} (commands.py lists it)")


class RefusingGroup(TyperGroup):
    """`morale`'s commands. A command line Click cannot parse (a missing argument, a die typed as
    "x", an unknown option or command) is bad input like any other: one line, or one JSON object
    with --json, and exit code 2, instead of Click's usage block.

    Its commands are `LazyCommands`: `morale board` imports battle.py's module and builds `board`
    alone, and `morale -h` lists them from `commands.COMMANDS` without importing any. Its help,
    and each command's, is said in the chosen language (help_said.py)."""

    context_class = help_said.SaidContext

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = LazyCommands()

    def main(self, *args: Any, **kwargs: Any) -> Any:
        # The language --lang chose is this command's: whoever runs several in one process (the
        # tests' runner) gets back the one they had.
        with language.speaking(language.current(), asked=language.asked()):
            return super().main(*args, **kwargs)

    def list_commands(self, ctx: typer.Context) -> list[str]:
        return list(COMMANDS)

    def format_commands(self, ctx: typer.Context, formatter: Any) -> None:
        # As Click's own (TyperGroup.format_commands) lays them out, from the table: the real
        # commands' short help is the same text shortened the same way (tests/test_cli_lazy.py),
        # in the reader's language (help_said.py).
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, make_default_short_help(help_said.said(entry.help), limit)) for name, entry in COMMANDS.items()]
        with formatter.section(_("Commands")):
            formatter.write_dl(rows)

    def resolve_command(self, ctx: typer.Context, args: list[str]) -> tuple[str | None, Any, list[str]]:
        ctx.meta[_COMMAND_ARGS] = list(args)  # the command's words: did they ask for --json?
        _WORDS[:] = args
        name, command, rest = super().resolve_command(ctx, args)
        if command is not None and "help_option_names" not in command.context_settings:
            # Its -h is made as its context is (from ours, inherited, so made the same from ours):
            # made now, it is coerced as text_values.py says, as the rest of its parameters are.
            plain_params(command.get_params(ctx))
        return name, command, rest

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
        # `morale` itself: an option before the command (`morale --db x board`, `morale -1`).
        plain_params(self.get_params(ctx))  # its own (--version, -h, --install-completion), known by now
        _language_first(args)
        try:
            return super().parse_args(ctx, args)
        except NoArgsIsHelpError:
            raise  # `morale` alone: its help, as Click shows it (not a refusal that quotes it)
        except UsageError as exc:
            _refuse_usage(exc, ctx, "--json" in args)

    def invoke(self, ctx: typer.Context) -> Any:
        try:
            return super().invoke(ctx)
        except NoArgsIsHelpError:
            raise  # `morale hook` alone: the group's help, as Click shows it
        except UsageError as exc:
            _refuse_usage(exc, ctx, "--json" in ctx.meta.get(_COMMAND_ARGS, []))
        finally:
            while _OPENED:
                _OPENED.pop().close()
            _BATTLE.clear()


def _refuse_usage(exc: Any, ctx: typer.Context, as_json: bool) -> NoReturn:
    _speak_the_named_battles_language()
    message = language.say(usage_words(exc))
    param = getattr(exc, "param", None)
    fields = {"message": message, "rule": None, "field": param.name if param is not None else None}
    where = exc.ctx.command_path if exc.ctx is not None else ctx.command_path
    refuse(
        language.say(Words("{message} (see `{where} -h`)", message=message.rstrip("."), where=where)), fields, as_json
    )


def _speak_the_named_battles_language() -> None:
    # A command line Click cannot parse is refused before any store is opened (`open_store` speaks the
    # battle's language): a Russian battle's `roll ... шесть` is refused in Russian all the same, where
    # the battle was named already and its store is the SQLite file --db (or $MORALE_DB, or the
    # default) names (not a PostgreSQL server, which a refusal does not wait for).
    if language.asked() or not _BATTLE:
        return
    db = _typed(_WORDS, "--db") or os.environ.get("MORALE_DB") or DEFAULT_DB
    if is_database_url(db) or not Path(db).is_file():
        return
    try:
        store = store_at(db, create=False)
    except (StoreUnavailable, sqlite3.Error, OSError):
        return  # the reader's language then: the command's own refusal is what matters
    try:
        language.battle_default(battle_language(store, _BATTLE[0]))
    except (UnreadableEvent, sqlite3.Error, msgspec.DecodeError):
        pass
    finally:
        store.close()


_NO_SUCH_COMMAND = re.compile(r"No such command (?P<name>'.*')\.(?: Did you mean (?P<close>'.*')\?)?", re.DOTALL)
_EXTRA_ARGUMENTS = re.compile(r"Got unexpected extra arguments? \((?P<extra>.*)\)", re.DOTALL)
# The parser's own (typer/_click/parser.py): an option typed without its value, or a flag given one.
_REQUIRES = re.compile(r"Option (?P<option>'.*') requires (?:an argument|(?P<n>\d+) arguments)\.", re.DOTALL)
_TAKES_NO_VALUE = re.compile(r"Option (?P<option>'.*') does not take a value\.", re.DOTALL)


def usage_words(exc: Any) -> str:
    """Click's words for a command line it cannot parse, as Words where we know its sentence (the
    same English, checked: any other is left as Click wrote it)."""
    english = exc.format_message()
    said = _usage_said(exc)
    return said if said is not None and said == english else english


def _usage_said(exc: Any) -> Words | None:
    message = exc.message
    if isinstance(exc, typer.BadParameter):
        hint = exc.param_hint if exc.param_hint is not None else (exc.param.get_error_hint() if exc.param else None)
        if isinstance(hint, list | tuple):
            hint = " / ".join(repr(x) for x in hint)
        kind = getattr(exc, "param_type", None) or (exc.param.param_type_name if exc.param is not None else None)
        if isinstance(exc, MissingParameter):
            if message or not hint or kind not in MISSING:
                return None
            return (
                Words("Missing argument {param}.", param=hint)
                if kind == "argument"
                else Words("Missing option {param}.", param=hint)
            )
        message = _value_said(exc)
        if hint is None:
            return Words("Invalid value: {message}", message=message)
        return Words("Invalid value for {param}: {message}", param=hint, message=message)
    if isinstance(exc, NoSuchOption):
        possible = getattr(exc, "possibilities", None)
        if possible:
            options = ", ".join(sorted(possible))
            return Words(
                "No such option: {option} (Possible options: {options})", option=exc.option_name, options=options
            )
        return Words("No such option: {option}", option=exc.option_name)
    if found := _NO_SUCH_COMMAND.fullmatch(message):
        if found["close"]:
            return Words("No such command {name}. Did you mean {close}?", name=found["name"], close=found["close"])
        return Words("No such command {name}.", name=found["name"])
    if found := _EXTRA_ARGUMENTS.fullmatch(message):
        return Words("Got unexpected extra argument(s) ({extra})", extra=found["extra"])
    if message == "Missing command.":
        return Words("Missing command.")
    if found := _REQUIRES.fullmatch(message):
        if found["n"] is None:
            return Words("Option {option} requires an argument.", option=found["option"])
        return counted(
            "Option {option} requires {n} argument.",
            "Option {option} requires {n} arguments.",
            n=int(found["n"]),
            option=found["option"],
        )
    if found := _TAKES_NO_VALUE.fullmatch(message):
        return Words("Option {option} does not take a value.", option=found["option"])
    return None


def _value_said(exc: Any) -> str:
    """Why a value was refused: Typer checks values with pydantic (`typer._coercion`), and raises
    its first error's message, the error itself the cause; as Words where we know its sentence."""
    errors = getattr(exc.__cause__, "errors", None)
    found = errors()[:1] if callable(errors) else []
    said = _pydantic_said(found[0]) if found else None
    return said if said is not None and said == exc.message else exc.message


def _pydantic_said(error: Mapping[str, Any]) -> Words | None:
    # The errors a number typed at the command line meets (an option's min= and max=).
    kind, limit = error.get("type"), error.get("ctx") or {}
    if kind == "int_parsing":
        return Words("Input should be a valid integer, unable to parse string as an integer")
    if kind == "float_parsing":
        return Words("Input should be a valid number, unable to parse string as a number")
    if kind == "greater_than_equal":
        return Words("Input should be greater than or equal to {ge}", ge=limit.get("ge"))
    if kind == "less_than_equal":
        return Words("Input should be less than or equal to {le}", le=limit.get("le"))
    return None


MISSING = ("argument", "option")


app = typer.Typer(
    cls=RefusingGroup,
    help="An event-sourced referee for the morale rules of tabletop wargames.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion for bash, zsh, fish, PowerShell
    pretty_exceptions_enable=False,
    # Help texts are plain text: they name TOML tables ([battle]) and point syntax (start:TURN[/SIDE]),
    # which rich markup would eat or choke on.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

DEFAULT_DB = "morale.db"
Db = Annotated[
    str,
    typer.Option(
        "--db",
        envvar="MORALE_DB",
        help="Where the battles' logs are: a SQLite file, or a PostgreSQL database (postgresql://USER@HOST/DB).",
        show_default=True,
    ),
]
Json = Annotated[bool, typer.Option("--json", help="Print JSON for machines instead of tables.")]


def _battle_named(battle: str) -> str:
    # Kept for `open_store`, which speaks the battle's own language unless the reader asked for one.
    _BATTLE[:] = [battle]
    return battle


BattleArg = Annotated[str, typer.Argument(help="The battle's id.", callback=_battle_named)]
ToStdout = Annotated[Path | None, typer.Option("--out", "-o", help="Write to this file (default: stdout).")]


def _not_negative(value: int | None) -> int | None:
    # A sequence number below 0 is a typo, not a lost race: say so before the store is opened.
    if value is not None and value < 0:
        raise typer.BadParameter(Words("must be 0 or more, not {value}", value=value))
    return value


# A hot-seat game without a referee: both players at the machine that holds the store, each typing
# as their side's player (held to what a player's token may enter), not as the referee.
Side = Annotated[
    str | None,
    typer.Option("--side", help="Act as this side's player (a hot-seat game without a referee), not as the referee."),
]

Expect = Annotated[
    int | None,
    typer.Option(
        "--expect",
        callback=_not_negative,
        help="Refuse unless the log ends at this sequence number (optimistic lock). Without it, an append "
        "that another writer beat is decided again against the log as it then stands.",
    ),
]

EXIT_REFUSED = 2


def _print_version(wanted: bool) -> None:
    """The engine's version, then each ruleset's: what a battle's log is read with (CHANGELOG.md says
    what moves each)."""
    if wanted:
        out.print(version_line(), markup=False)
        raise typer.Exit()


def _choose_language(asked: str | None) -> str | None:
    # Before any command runs, so its refusals are said in it too: --lang, else $MORALE_LANG, else the locale.
    try:
        _chosen(asked)
    except language.UnknownLanguage as exc:
        known = ", ".join(language.LANGUAGES)
        hint = "'--lang'" if asked is not None else "$MORALE_LANG"  # the environment's, not typed here
        said = Words("no language {asked!r} here (known: {known})", asked=exc.asked, known=known)
        raise typer.BadParameter(said, param_hint=hint) from None
    return asked


def _chosen(asked: str | None) -> None:
    """--lang, else $MORALE_LANG (both asked for), else the locale's, which a battle's own language
    overrides (`open_store`)."""
    wanted = asked if asked is not None else language.asked_in_environment()
    if wanted is not None:
        language.choose(wanted)
    else:
        language.choose(language.from_locale(), asked=False)


def _language_first(args: list[str]) -> None:
    # -h is eager as --lang is, and Click runs the eager options in the order they are typed: `morale -h`
    # and `morale -h --lang ru` (and `morale` alone, read before any option) would show the help before
    # --lang or $MORALE_LANG chose its language. Chosen here first; a language we do not speak is left
    # to --lang's own callback to refuse, as it is typed.
    with suppress(language.UnknownLanguage):
        _chosen(_typed(args, "--lang", before_command=True))


def _typed(words: list[str], option: str, *, before_command: bool = False) -> str | None:
    """The value typed for `option` (`--db x` or `--db=x`, the last one given), read from the
    command line's words before Click has parsed them; `before_command`: `morale`'s own options
    only, those before the command's name."""
    found = None
    for at, word in enumerate(words):
        if word == option and at + 1 < len(words):
            found = words[at + 1]
        elif word.startswith(f"{option}="):
            found = word.removeprefix(f"{option}=")
        elif before_command and not word.startswith("-"):
            break  # the command: the options after it are its own
    return found


@app.callback()
def _options(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version, and each ruleset's, and exit."
        ),
    ] = False,
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            callback=_choose_language,
            is_eager=True,
            metavar="LANG",
            help="The language to speak: en or ru (default: $MORALE_LANG, else the locale's, else en).",
        ),
    ] = None,
) -> None:
    # The options of `morale` itself, before any command: --version and --lang (eager: they need none).
    pass


REFUSED = (
    Refusal,
    MalformedEvent,
    ConflictError,
    UnknownBattle,
    StoreUnavailable,
    UnreadableEvent,
    SigningKeyUnusable,
    UnknownHook,
)


@contextmanager
def refusals(as_json: bool = False) -> Iterator[None]:
    """Every way input can be wrong ends here: one line on stderr (with --json, one JSON object, for
    a program to read), exit code 2, nothing written."""
    try:
        yield
    except REFUSED as exc:
        named = db_named() + " " if isinstance(exc, StoreUnavailable) else ""
        refuse(f"{named}{said(exc)}", error_fields(exc), as_json)
    except sqlite3.DatabaseError as exc:  # a store damaged where opening it did not look (a page of events)
        unread = language.say(Words("SQLite cannot read the store: {error}", error=str(exc)))
        fields = {"message": unread, "rule": None, "field": db_named()}
        refuse(f"{db_named()}: {fields['message']}", fields, as_json)


def db_named() -> str:
    """How the user gave the store, for a refusal to name: `--db`, or `$MORALE_DB` when the store
    came from the environment (a node's setting, which the command line does not show)."""
    typed = any(word == "--db" or word.startswith("--db=") for word in _WORDS)
    return "$MORALE_DB" if not typed and os.environ.get("MORALE_DB") else "--db"


def refuse(line: str, fields: dict[str, str | None], as_json: bool) -> NoReturn:
    """Print a refusal, "refused: LINE" or {"error": FIELDS} as JSON, and exit with code 2."""
    if as_json:
        sys.stderr.write(msgspec.json.encode({"error": fields}).decode() + "\n")
    else:
        err.print(language.say(Words("refused: {reason}", reason=line)), markup=False)
    raise typer.Exit(EXIT_REFUSED) from None


def said(exc: Exception) -> str:
    """A refusal's line in the reader's language: the rule ID or field it names, then its words."""
    return language.refusal_line(exc) if isinstance(exc, Refusal) else words_of(exc)


def words_of(exc: BaseException) -> str:
    """An exception's message in the reader's language where it was raised with `Words` (its one
    argument), else as it says it."""
    if isinstance(exc, StoreUnavailable):  # its reason may be words of ours (`open_store`)
        return language.say(Words("{path}: {reason}", path=exc.path, reason=exc.reason))
    message = exc.args[0] if len(exc.args) == 1 else None
    return language.say(message) if isinstance(message, Words) else str(exc)


def error_fields(exc: Exception) -> dict[str, str | None]:
    """A refusal as {message, rule, field}: the rule ID or field it names, None where it names none."""
    if isinstance(exc, Refusal):
        return {"message": language.say(exc.message), "rule": exc.rule, "field": exc.field}
    message = words_of(exc)
    if isinstance(exc, StoreUnavailable):
        return {"message": message, "rule": None, "field": db_named()}
    if isinstance(exc, UnreadableEvent):
        return {"message": message.removeprefix("seq: "), "rule": None, "field": "seq"}
    if isinstance(exc, UnknownBattle | ConflictError):
        # Their text starts with the field it concerns ("battle: no battle 'x'..."); it is given apart.
        field = exc.field if isinstance(exc, ConflictError) else "battle"
        return {"message": message.removeprefix(f"{field}: "), "rule": None, "field": field}
    return {"message": message, "rule": None, "field": getattr(exc, "field", None)}


def open_store(db: str | Path, *, create: bool = False) -> EventStore:
    """The store at --db: a SQLite file, or a PostgreSQL database for a `postgresql://` URL. Only the
    commands that create battles (`new`, `import`, `copy`) may create it: any other refuses a place
    that holds no store, rather than leave an empty one at a typo."""
    try:
        store = store_at(db, create=create)
    except StoreUnavailable as exc:
        if create or is_database_url(db) or Path(db).exists():
            raise
        reason = Words("{reason} (`morale new` or `morale import` creates one)", reason=exc.reason)
        raise StoreUnavailable(db, reason) from None
    _OPENED.append(store)  # let go when the command ends (a PostgreSQL store holds a pool)
    if _BATTLE and not language.asked():  # what the command says of the battle: in the battle's own language
        language.battle_default(battle_language(store, _BATTLE[0]))
    return store


def emit_json(value: Any) -> None:
    """JSON for machines: its keys and values as they are in every language, its words in the reader's."""
    sys.stdout.write(msgspec.json.encode(value, enc_hook=language.enc_hook).decode() + "\n")


def report(fold: Fold, recorded: list[Recorded], as_json: bool) -> None:
    """What was recorded and what it caused; in words, against the battle as the events left it."""
    if as_json:
        emit_json([{"stored": r.stored, "caused": r.caused} for r in recorded])
        return
    state = fold.state()
    for item in recorded:
        said = item.said or describe_event(item.stored.event, state)
        render.print_recorded(out, item.stored.seq, said, item.caused, state)
