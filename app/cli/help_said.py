"""Command help (`-h`) in the reader's language (issue 31).

A command's help stays where it is written, in English: its docstring, each option's and
argument's `help=`, its line in commands.py's table. Those English texts are the catalogue's
msgids (tools/catalogues.py extracts them from app/cli/ as it does `Words`), and they are
looked up only when help is shown: `SaidContext.get_help` swaps each text of the command being
shown, and of its subcommands' lines, for its words in the chosen language, formats the help,
and puts the English back. So the commands are built once, in English, whoever reads; English
help is Click's own, untouched; and no text needs wrapping in a call where it is written.

Typer's and Click's own words around them ("Usage:", the section headings, "[default: ...]",
"[required]", "Show this message and exit.") are in `TYPERS_OWN`, as they write them. Typer
looks a few of them up with the stdlib's `gettext`, which knows no catalogue of ours; its
module's `_` answers from ours while the help is formatted, and is Typer's again after.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer
import typer.core
from typer._click.formatting import HelpFormatter

from morale.core.words import Words

from .. import language

# As Typer 0.29 and the Click it carries write them (typer/core.py, typer/_click/): the usage
# line's prefix, the headings (written with a colon after), what an option's help ends with in
# brackets, and the help texts of the options Typer adds itself.
TYPERS_OWN = (
    Words("Usage:"),
    Words("Arguments"),
    Words("Options"),
    Words("Commands"),
    Words("default: {default}"),
    Words("env var: {var}"),
    Words("required"),
    Words("(dynamic)"),
    Words("Show this message and exit."),
    Words("Install completion for the current shell."),
    Words("Show completion for the current shell, to copy it or customize the installation."),
)


def said(message: str) -> str:
    """A help text, as written in English, in the chosen language (as it is where the catalogue
    lacks it, which tests/test_language_help.py forbids). `gettext`'s signature: Typer's `_`."""
    if language.current() == language.SOURCE:
        return message
    return language.catalogue(language.current()).gettext(message)


class SaidFormatter(HelpFormatter):
    """Click's formatter, with its usage prefix and its headings said in the chosen language."""

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        if prefix is None and language.current() != language.SOURCE:
            prefix = said("Usage:") + " "
        super().write_usage(prog, args, prefix)

    def write_heading(self, heading: str) -> None:
        super().write_heading(said(heading))


class SaidContext(typer.Context):
    """The context of every `morale` command (`said_in_language` gives it to each): its help is
    formatted in the chosen language."""

    formatter_class = SaidFormatter

    def get_help(self) -> str:
        if language.current() == language.SOURCE:
            return super().get_help()
        with _texts_said(self.command, self):
            return super().get_help()


def said_in_language(command: Any) -> Any:
    """`command` (and a group's subcommands) with its help shown in the chosen language."""
    command.context_class = SaidContext
    for sub in _subcommands(command):
        said_in_language(sub)
    return command


def _subcommands(command: Any) -> list[Any]:
    # A group built by Typer keeps a dict; `morale`'s own (base.LazyCommands) would build every
    # command if walked, and lists them from commands.py's table instead.
    commands = getattr(command, "commands", None)
    return list(commands.values()) if isinstance(commands, dict) else []


@contextmanager
def _texts_said(command: Any, ctx: typer.Context) -> Iterator[None]:
    kept: list[tuple[Any, str, str]] = []

    def swap(owner: Any, attribute: str) -> None:
        text = getattr(owner, attribute, None)
        if text:
            kept.append((owner, attribute, text))
            setattr(owner, attribute, said(text))

    typers = typer.core._  # type: ignore[attr-defined]
    try:
        for attribute in ("help", "short_help", "epilog"):
            swap(command, attribute)
        for param in command.get_params(ctx):
            swap(param, "help")
        for sub in _subcommands(command):  # their lines under "Commands"
            swap(sub, "help")
            swap(sub, "short_help")
        typer.core._ = said  # type: ignore[attr-defined]  # (Typer does not export its gettext)
        yield
    finally:
        typer.core._ = typers  # type: ignore[attr-defined]
        for owner, attribute, text in reversed(kept):
            setattr(owner, attribute, text)
