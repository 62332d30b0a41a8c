"""The reader's language: which one is chosen, and saying `Words` in it.

English is the source (every `Words` is its English already); Russian is complete. The rules and
projections say what they have to say as `Words` and never pick a language; the edges do, once per
command or request, and everything said inside that command or request is said in it:

- the CLI: `--lang`, else `$MORALE_LANG`, else the locale (`$LC_ALL`, `$LC_MESSAGES`, `$LANG`);
- HTTP: `?lang=`, else the browser's `Accept-Language` (the console keeps a reader's own choice
  and sends it as `?lang=`), else the battle's default from its roster.

Each catalogue is a gettext one (`messages.<lang>.po`, compiled to `.mo` by `make catalogues`, both
kept in the repository): the engine's packages each have theirs, and each installed game brings its
own beside its clauses, found the way its clauses are (`installed.folder`). A message a catalogue
lacks is said in English, which the catalogue tests forbid (tests/test_language.py).
"""

from __future__ import annotations

import gettext
import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from importlib import resources
from pathlib import Path

from morale.core import catalogue as clause_catalogue
from morale.core import installed
from morale.core.catalogue import Quoted
from morale.core.rules import Refusal
from morale.core.words import _LIST, Words

SOURCE = "en"
LANGUAGES = ("en", "ru")  # what `--lang`, `?lang=` and the console's switch offer
NAMES = {"en": "English", "ru": "Русский"}  # each language in its own words, for the switch

_language: ContextVar[str] = ContextVar("language", default=SOURCE)
# Whether the reader asked for the language (`--lang`, `$MORALE_LANG`, `?lang=`) rather than came
# with one (the locale's, the browser's): only a language nobody asked for gives way to a battle's own.
_asked: ContextVar[bool] = ContextVar("language_asked", default=False)
# The packages of the engine that keep a catalogue (a game keeps its own beside its clauses).
# (tools/catalogues.py's FOLDERS: tests/test_language.py holds the two to the same list.)
_ENGINE_PACKAGES = (
    "morale.core",
    "morale.events",
    "morale.projections",
    "morale.app",
    "morale.app.http",
    "morale.app.report",
)


class UnknownLanguage(ValueError):
    """A language asked for by name (`--lang`, `?lang=`, a roster) that the app does not speak."""

    def __init__(self, asked: str, field: str) -> None:
        self.asked, self.field = asked, field
        super().__init__(f"{field}: no language {asked!r} here (known: {', '.join(LANGUAGES)})")


def current() -> str:
    return _language.get()


def asked() -> bool:
    """Whether the reader asked for the language spoken now (else it came with their locale or browser)."""
    return _asked.get()


def choose(language: str, *, asked: bool = True) -> None:
    """Say everything from here on (this command, this request's task) in `language`: one the reader
    asked for, or (`asked=False`) one their locale or browser came with, which a battle's own
    language overrides (`battle_default`)."""
    _language.set(checked(language, "lang"))
    _asked.set(asked)


@contextmanager
def speaking(language: str, *, asked: bool = True) -> Iterator[None]:
    """Say what is said inside the block in `language`, then go back."""
    token = _language.set(checked(language, "lang"))
    asked_token = _asked.set(asked)
    try:
        yield
    finally:
        _asked.reset(asked_token)
        _language.reset(token)


def battle_default(language: str) -> None:
    """Speak a battle's own language (`battle.language` in its roster, kept in `battle_started`)
    about it, unless the reader asked for one: a Russian club's battle reads in Russian on a laptop
    set to English, and `--lang en` or `?lang=en` still reads it in English. A language this app
    does not speak (a log from elsewhere) leaves the reader's as it is."""
    if language in LANGUAGES and not _asked.get():
        _language.set(language)


def checked(language: str, field: str) -> str:
    asked = language.strip().lower()
    if asked not in LANGUAGES:
        raise UnknownLanguage(language, field)
    return asked


def say(text: str, language: str | None = None) -> str:
    """`text` in the reader's language (`language`, else the one chosen): `Words` are translated,
    with their values; any other str is not words of ours and comes back as it is."""
    if not isinstance(text, Words):
        return str(text)
    language = language or _language.get()
    if language == SOURCE:
        return str(text)
    if isinstance(text, Quoted):  # a clause: from its language's clause file
        found = clause_catalogue.translated(language).get(text.rule)
        return getattr(found, text.part) if found is not None else str(text)
    if text.template == _LIST:
        return ", ".join(say(item, language) for item in text.args["items"])  # type: ignore[attr-defined]
    book = (_own_catalogue(text.book, language) if text.book else None) or catalogue(language)
    if text.plural:
        n = text.n if text.n is not None else 0
        template = book.ngettext(text.template, text.plural, n)
    else:
        template = book.gettext(text.template)
    return template.format_map(_values(text.args, language)) if text.args else template


def refusal_line(refusal: Refusal) -> str:
    """A refusal as the CLI prints it and a problem's `detail` says it: the rule ID or field it
    names (never translated), then its words in the reader's language."""
    where = refusal.rule or refusal.field
    return f"{where}: {say(refusal.message)}" if where else say(refusal.message)


def enc_hook(value: object) -> object:
    """msgspec's hook: `Words` go out as the chosen language's sentence."""
    if isinstance(value, Words):
        return say(value)
    raise NotImplementedError(f"{type(value).__name__} cannot be encoded")


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The CLI's language when `--lang` is not given: `$MORALE_LANG` (which must be one we speak),
    else the first of the locale's variables that is set, where we speak it; else English."""
    environ = os.environ if environ is None else environ
    asked_here = asked_in_environment(environ)
    return asked_here if asked_here is not None else from_locale(environ)


def asked_in_environment(environ: Mapping[str, str] | None = None) -> str | None:
    """`$MORALE_LANG`, if set (which must be a language we speak): a language asked for."""
    environ = os.environ if environ is None else environ
    if environ.get("MORALE_LANG"):
        return checked(environ["MORALE_LANG"], "MORALE_LANG")
    return None


def from_locale(environ: Mapping[str, str] | None = None) -> str:
    """The locale's language, where we speak it (else English): the first of the locale's
    variables that is set decides, as gettext reads them."""
    environ = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        if value:  # the first one set decides, as gettext reads them ("ru_RU.UTF-8", "C")
            primary = re.split(r"[_.@-]", value, maxsplit=1)[0].lower()
            return primary if primary in LANGUAGES else SOURCE
    return SOURCE


_ACCEPTED = re.compile(r"^\s*([A-Za-z]{1,8})(?:-[A-Za-z0-9]{1,8})*\s*(?:;\s*q\s*=\s*([01](?:\.\d{0,3})?))?\s*$")


def from_accept_language(header: str | None) -> str | None:
    """The language a browser prefers among ours (RFC 9110's Accept-Language, by its q-values; the
    first listed wins a tie), or None when it names none of them."""
    best: tuple[float, int, str] | None = None
    for index, part in enumerate((header or "").split(",")[:32]):
        match = _ACCEPTED.match(part)
        if match is None:
            continue
        tag, quality = match.group(1).lower(), float(match.group(2) or 1)
        if tag in LANGUAGES and quality > 0 and (best is None or (quality, -index) > (best[0], best[1])):
            best = (quality, -index, tag)
    return best[2] if best else None


@cache
def catalogue(language: str) -> gettext.NullTranslations:
    """Every catalogue of `language`: the installed games' first (a game's words for its own
    states and clauses), then the engine's packages."""
    found = [*_game_catalogues(language), *_engine_catalogues(language)]
    if not found:
        return gettext.NullTranslations()
    first, *rest = found
    for book in rest:
        first.add_fallback(book)
    return first


@cache
def _own_catalogue(package: str, language: str) -> gettext.GNUTranslations | None:
    """A package's own catalogue (a game's, for the words it says its own way), if it has one."""
    try:
        path = resources.files(package) / f"messages.{language}.mo"
    except ModuleNotFoundError:
        return None
    if not path.is_file():
        return None
    with path.open("rb") as fp:
        own = gettext.GNUTranslations(fp)
    own.add_fallback(catalogue(language))  # what the package does not say its own way, every catalogue says
    return own


def catalogue_files(language: str) -> list[Path]:
    """The compiled catalogues `catalogue` reads, for the tests and `make catalogues`."""
    names = [f"messages.{language}.mo"]
    folders = [Path(str(resources.files(package))) for package in _ENGINE_PACKAGES]
    folders += [where for point in installed.games() if (where := installed.folder(point)) is not None]
    seen: dict[Path, None] = {}
    for folder in folders:
        for name in names:
            for path in sorted(folder.rglob(name)):
                seen.setdefault(path.resolve(), None)
    return list(seen)


def _engine_catalogues(language: str) -> list[gettext.GNUTranslations]:
    books = []
    for package in _ENGINE_PACKAGES:
        path = resources.files(package) / f"messages.{language}.mo"
        if path.is_file():
            with path.open("rb") as fp:
                books.append(gettext.GNUTranslations(fp))
    return books


def _game_catalogues(language: str) -> list[gettext.GNUTranslations]:
    books, seen = [], set()
    for point in installed.games():
        where = installed.folder(point)
        if where is None or where.resolve() in seen:
            continue
        seen.add(where.resolve())
        for path in sorted(where.rglob(f"messages.{language}.mo")):
            with path.open("rb") as fp:
                books.append(gettext.GNUTranslations(fp))
    return books


class _Comma(float):
    """A number as Russian writes it: 3,5 for 3.5 (a template's format spec still applies)."""

    def __format__(self, spec: str) -> str:
        return format(float(self), spec).replace(".", ",")

    def __str__(self) -> str:
        return format(self, "")


_DECIMAL_COMMA = {"ru"}


def _values(args: Mapping[str, object], language: str) -> dict[str, object]:
    said: dict[str, object] = {}
    for name, value in args.items():
        if isinstance(value, Words):
            said[name] = say(value, language)
        elif isinstance(value, float) and language in _DECIMAL_COMMA:
            said[name] = _Comma(value)
        else:
            said[name] = value
    return said
