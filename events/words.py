"""Words for people, kept sayable in any language the app speaks.

(Defined here, in the lowest layer, so the log's own refusals of malformed input can be words too;
the rest of the app imports them from `morale.core.words`, which is the same module's names.)

The rules are pure and know no reader, so they cannot translate; yet what they say (why a test was
not taken, what a modifier is for, a refusal) reaches a referee who reads Russian. A `Words` is
that sentence in English wherever a `str` is wanted (a test's assertion, a log line, the English
output: it *is* that str), and it keeps what another language needs to say it again: the English
template, with named placeholders, and the values. The edge says it in the reader's language
(`morale.app.language.say`); a msgspec encoder given no language refuses it (`TypeError`), so no
words leave the app in a language nobody chose.

Write each one as one whole sentence with its placeholders named, never glued from pieces:

    Words("{unit} is Falling Back and cannot assault", unit=charger.id)
    counted("{n} model lost", "{n} models lost", n=lost)

A value that is itself `Words` is said in the reader's language too; any other value is put in as
it is (ids, numbers: a template formats them, `{inches:g}`). The message catalogues are extracted
from these calls (`make catalogues`), so their first argument is always a literal.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["Words", "counted", "english", "in_book", "listed"]


class Words(str):
    """A sentence for a person: its English wording, and its template and values for the others."""

    template: str  # the English, with named placeholders: the catalogue's msgid
    plural: str  # the English plural template ("" when the sentence has one form)
    args: Mapping[str, object]
    # The package whose catalogue says it first: a game's own word where two games say one English
    # differently ("regrouped": 40K's перегруппировалось, General de Brigade's собралось). "" for none.
    book: str = ""

    def __new__(cls, template: str, /, **args: object) -> Words:
        made = super().__new__(cls, template.format_map(args) if args else template)
        made.template, made.plural, made.args = template, "", args
        return made

    @property
    def n(self) -> int | None:
        """The number a plural sentence agrees with (None when it has one form)."""
        value = self.args.get("n") if self.plural else None
        return value if isinstance(value, int) else None

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (rebuilt, (self.template, self.plural, dict(self.args)))

    def __repr__(self) -> str:
        return f"Words({str.__repr__(self)})"


def counted(singular: str, plural: str, /, *, n: int, **args: object) -> Words:
    """A sentence whose noun agrees with the number `n` (`{n}` in the templates): "1 model lost",
    "3 models lost" in English; Russian has three forms (1 модель, 2 модели, 5 моделей), chosen by
    the catalogue's plural rule."""
    values = {"n": n, **args}
    made = Words(singular if n == 1 else plural, **values)
    made.template, made.plural = singular, plural
    return made


def listed(items: Iterable[str]) -> Words:
    """Names in a list ("guard, boyz"), each said in the reader's language if it is `Words`."""
    names = list(items)
    made = Words(", ".join(names))
    made.template, made.args = _LIST, {"items": names}
    return made


_LIST = "\x00list"  # not a template: `say` joins the items itself, with its language's separator


def in_book(words: Words, book: str) -> Words:
    """`words`, said from `book`'s catalogue (a package, `morale.core.rulesets.gdb`) before any other."""
    made = rebuilt(words.template, words.plural, dict(words.args))
    made.book = book
    return made


def english(value: object) -> object:
    """msgspec's hook for what the app keeps or compares, never shows (a checksum, a snapshot, a
    what-if's diff): `Words` as their English, whoever is reading."""
    if isinstance(value, Words):
        return str(value)
    raise NotImplementedError(f"{type(value).__name__} cannot be encoded")


def rebuilt(template: str, plural: str, args: dict[str, object]) -> Words:
    """Words made again from what `__reduce__` keeps of them (a snapshot keeps them so)."""
    if template == _LIST:
        return listed(args["items"])  # type: ignore[arg-type]
    if plural:
        return counted(template, plural, **args)  # type: ignore[arg-type]
    return Words(template, **args)
