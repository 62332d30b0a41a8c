"""Command help in Russian (issue 31): `morale --lang ru -h`, `MORALE_LANG=ru morale COMMAND -h` and
every command's help say its texts and Click's own words around them in Russian, every help text has
its Russian, and `morale -h` in English is Click's own, as it was."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main
from typer._click.formatting import HelpFormatter
from typer.testing import CliRunner

from morale.app import language
from morale.app.cli import app, help_said
from morale.app.cli.commands import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import catalogues  # noqa: E402 (tools/ is no package: the script `make catalogues` runs)

runner = CliRunner()


def root() -> Any:
    return typer.main.get_command(app)


def commands(group: Any = None) -> Iterator[tuple[list[str], Any]]:
    """Every command as typed after `morale` (`board`, `hook add`), with the command Click runs."""
    group = group or root()
    for name in COMMANDS:
        command = group.commands[name]
        yield [name], command
        for sub, subcommand in getattr(command, "commands", {}).items():
            yield [name, sub], subcommand


def english_texts() -> list[str]:
    """The English help texts the catalogue holds: as written in app/cli/, and Typer's and Click's own."""
    written = [
        text
        for path in catalogues.sources(catalogues.Folder("app"))
        for _line, text in catalogues.help_texts(path)
        if text is not None
    ]
    return sorted({*written, *map(str, help_said.TYPERS_OWN)})


def joined(text: str) -> str:
    # Click re-wraps help to the terminal (and may break a line anywhere a space was): compare the
    # words with every space taken out.
    return re.sub(r"\s+", "", text)


def english_left(output: str) -> list[str]:
    """The English help texts that `output` still says: whole, or the first words of one (a
    command's line in `morale -h` is shortened to the terminal)."""
    said = joined(output)
    found = []
    for text in english_texts():
        words = text.split()
        start = " ".join(words[:4]) if len(words) > 4 else text
        if joined(start) in said:
            found.append(text)
    return found


def helped(*args: str, env: dict[str, str] | None = None) -> str:
    result = runner.invoke(app, list(args), env=env)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_issue31_lang_ru_morale_h_says_its_help_its_commands_and_clicks_words_in_russian():
    said = helped("--lang", "ru", "-h")
    assert english_left(said) == []
    assert "Show this message and exit." in english_left(helped("-h"))  # the scan finds English where it is
    assert said.startswith("Использование: root [OPTIONS] COMMAND [ARGS]...")
    assert "Параметры:" in said and "Команды:" in said
    assert "Судья для правил морали настольных варгеймов" in said
    assert re.search(r"^  board +Табло: состояние каждого подразделения", said, re.MULTILINE)
    assert "-h, --help            Показать это сообщение и выйти." in said


@pytest.mark.parametrize(
    ("typed", "env"),
    [(["-h"], {"MORALE_LANG": "ru"}), (["-h", "--lang", "ru"], {}), (["-h", "--lang=ru"], {"MORALE_LANG": "en"})],
    ids=["MORALE_LANG=ru morale -h", "morale -h --lang ru", "MORALE_LANG=en morale -h --lang=ru"],
)
def test_issue31_morale_h_is_russian_however_russian_is_chosen(typed, env):
    # -h is as eager as --lang, and Click runs the eager options in the order they are typed.
    said = helped(*typed, env=env)
    assert said.startswith("Использование: ") and english_left(said) == []


def test_issue31_morale_lang_ru_board_h_says_the_options_and_their_default_and_required_in_russian():
    said = helped("board", "-h", env={"MORALE_LANG": "ru"})
    assert english_left(said) == []
    assert "Аргументы:" in said and "battle <str>  id битвы.  [обязательно]" in said
    # Typer's "[env var: ...; default: ...]", its placeholders filled in as in English.
    assert "[переменная окружения: MORALE_DB; по умолчанию: morale.db]" in joined_lines(said)


def joined_lines(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("typed", [typed for typed, _ in commands()], ids=" ".join)
def test_issue31_every_commands_help_in_russian_says_none_of_its_english(typed):
    assert english_left(helped("--lang", "ru", *typed, "-h")) == []


def test_issue31_a_help_text_keeps_what_it_quotes_in_russian():
    said = joined_lines(helped("--lang", "ru", "what-if", "-h"))
    assert 'SEQ=JSON: изменить поля события SEQ, например 61={"count": 4}.' in said
    assert "N (после события N), start, end или start:TURN[/SIDE][/PHASE], end:TURN..." in joined_lines(
        helped("--lang", "ru", "at", "-h")
    )


def shown_texts(group: Any) -> Iterator[tuple[str, str]]:
    """Every text Click shows as help, as `morale`'s commands hold it, with where it is shown."""
    for param in group.get_params(typer.Context(group, info_name="morale")):
        yield f"morale {param.name}", param.help
    yield "morale", group.help
    for name, listed in COMMANDS.items():
        yield f"morale -h: {name}", listed.help
    for typed, command in commands(group):
        where = " ".join(["morale", *typed])
        yield where, command.help
        for param in command.get_params(typer.Context(command, info_name=typed[-1])):
            if param.help:
                yield f"{where} {param.opts[0]}", param.help
    for words in help_said.TYPERS_OWN:
        yield "Typer", str(words)


def test_issue31_every_help_text_shown_has_its_russian():
    # Read from the commands as built, not from the extraction: a help the extractor could not
    # see (an option's help from a variable) still needs its Russian.
    russian = language.catalogue("ru")
    missing = [f"{where}: {text!r}" for where, text in shown_texts(root()) if russian.gettext(text) == text]
    assert missing == []


def test_issue31_a_help_the_catalogue_lacks_is_found(monkeypatch):
    group = root()
    monkeypatch.setattr(group.commands["board"], "help", "A help nobody translated.")
    russian = language.catalogue("ru")
    missing = [text for _, text in shown_texts(group) if russian.gettext(text) == text]
    assert missing == ["A help nobody translated."]


def test_issue31_a_help_text_that_is_not_a_literal_is_found(tmp_path, monkeypatch):
    cli = tmp_path / "app" / "cli"
    cli.mkdir(parents=True)
    (cli / "extra.py").write_text(
        "import typer\nWORDS = 'Computed.'\n"
        "@app.command()\ndef extra(x: str = typer.Option(help=WORDS)) -> None:\n    '''Written.'''\n"
    )
    monkeypatch.setattr(catalogues, "ROOT", tmp_path)
    monkeypatch.setattr(catalogues, "FOLDERS", (catalogues.Folder("app"),))
    assert [text for _, text in catalogues.help_texts(cli / "extra.py")] == ["Written.", None]
    assert list(catalogues.unextractable(catalogues.FOLDERS[0])) == [
        "app/cli/extra.py:4: a command's help needs to be a literal"
    ]


@pytest.mark.parametrize("typed", [[], ["board"], ["hook"], ["hook", "add"], ["what-if"]], ids=" ".join)
def test_issue31_english_help_is_clicks_own(typed, monkeypatch):
    ours = helped(*typed, "-h")
    monkeypatch.setattr(help_said.SaidContext, "formatter_class", HelpFormatter)
    monkeypatch.setattr(help_said.SaidContext, "get_help", typer.Context.get_help)
    monkeypatch.setattr(help_said, "said", lambda text: text)
    assert ours == helped(*typed, "-h")


def test_issue31_english_help_after_russian_help_is_english_again(monkeypatch):
    # One `morale` for every run, as a process that runs several commands has: the Russian is
    # put in while help is shown and the English back after it.
    group = root()
    monkeypatch.setattr(typer.testing, "_get_command", lambda _app: group)
    before = helped("hook", "add", "-h")
    assert "Register a URL for the battle's feed items" in before
    helped("--lang", "ru", "hook", "add", "-h")
    helped("--lang", "ru", "hook", "-h")
    assert helped("hook", "add", "-h") == before
    assert helped("hook", "-h") == helped("hook", "-h", env={"MORALE_LANG": "en"})


@pytest.mark.parametrize("typed", [[], ["hook"]], ids=" ".join)
def test_issue31_a_group_given_no_command_shows_its_help_in_russian_whole_not_as_a_refusal(typed):
    shown = runner.invoke(app, typed, env={"MORALE_LANG": "ru"})
    assert shown.exit_code == 2  # Click's, for a command line that names no command
    assert shown.stderr.startswith("Использование: root ") and "отказано" not in shown.stderr
    assert english_left(shown.stderr) == []
    assert shown.stderr.rstrip().endswith("...")  # its last line shortened as Click shortens it, not cut


REFUSED_TYPING = [
    (
        ["serve", "--webhook-lease", "0.1"],
        "Invalid value for '--webhook-lease': Input should be greater than or equal to 0.3",
        "Неверное значение '--webhook-lease': значение должно быть не меньше 0,3",
    ),
    (
        ["serve", "--port", "70000"],
        "Invalid value for '--port': Input should be less than or equal to 65535",
        "Неверное значение '--port': значение должно быть не больше 65535",
    ),
    (
        ["strike", "b", "x"],
        "Invalid value for 'seq': Input should be a valid integer, unable to parse string as an integer",
        "Неверное значение 'seq': нужно целое число, а эта строка не читается как целое число",
    ),
    (
        ["serve", "--heartbeat", "often"],
        "Invalid value for '--heartbeat': Input should be a valid number, unable to parse string as a number",
        "Неверное значение '--heartbeat': нужно число, а эта строка не читается как число",
    ),
    (["examples", "--to"], "Option '--to' requires an argument", "Параметру '--to' нужно значение"),
    (["board", "b", "--json=yes"], "Option '--json' does not take a value", "Параметр '--json' не принимает значения"),
]


@pytest.mark.parametrize(
    ("typed", "english", "russian"), REFUSED_TYPING, ids=[" ".join(t) for t, _, _ in REFUSED_TYPING]
)
def test_issue31_a_value_typed_wrong_is_refused_in_russian_and_as_before_in_english(typed, english, russian):
    # The parser's words and the number checks' (Typer's pydantic), said where we know the sentence.
    refused = runner.invoke(app, ["--lang", "ru", *typed])
    assert refused.exit_code == 2
    assert refused.stderr.startswith(f"отказано: {russian} (см. `")
    as_before = runner.invoke(app, typed)
    assert as_before.exit_code == 2
    assert as_before.stderr.startswith(f"refused: {english} (see `")
