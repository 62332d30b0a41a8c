"""The message catalogues: extract every `Words` from the code, keep each language's `.po` in step,
and compile what the app reads (`make catalogues`; `--check` changes nothing and lists what is wrong).

Each catalogue covers one folder's code (below it, but not below a folder with a catalogue of its
own): the engine's packages, each game, and the console's scripts. A folder's catalogue is its
`messages.<lang>.po`, written by hand where it is Russian and kept by this script where it is the
rest (new messages added untranslated, messages gone dropped, sorted by message so two branches
that each add some seldom collide); beside it the app reads `messages.<lang>.mo` (Python) or
`messages.<lang>.json` (the console), both compiled from the `.po` and kept in the repository so a
clone needs no build step. The commands' help (app/cli/: docstrings, `help=`, commands.py's table)
is extracted too, as it is written: app/cli/help_said.py looks it up when help is shown. `--check`
(tests/test_language.py) fails on a message left untranslated, a translation that drops or adds a
placeholder, a `Words` or a command's help that is not a literal (it could not be extracted), and a
compiled file that is not the `.po` compiled.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import string
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_file
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = ("ru",)  # English is the source: its words are the code's own
WORDS = ROOT / "events" / "words.py"  # where `Words` is defined, not used (core/words.py names it)
PYTHON_KEYWORDS = {"Words": None, "counted": (1, 2)}
SCRIPT_KEYWORDS = {"t": None, "tn": (1, 2)}  # the console's `t("...")` and `tn("...", "...", n)`
# The commands' help: where the commands are, and the texts Click shows as their help.
HELP_SOURCES = "app/cli"
HELP_KEYWORDS = ("help", "short_help", "epilog")
FIXED_DATE = datetime(2026, 12, 2, tzinfo=UTC)  # so a catalogue's header changes only when it is edited


@dataclass(frozen=True)
class Folder:
    path: str  # from the repository's root
    script: bool = False  # the console's JavaScript, compiled to JSON for the browser


FOLDERS = (
    Folder("core"),
    Folder("events"),
    Folder("projections"),
    Folder("app"),
    Folder("app/http"),
    Folder("app/report"),
    Folder("core/rulesets/wh40k"),
    Folder("core/rulesets/wfb8"),
    Folder("core/rulesets/gdb"),
    Folder("examples/wh40k10/src/morale_wh40k10"),
    Folder("app/http/static", script=True),
)


def sources(folder: Folder) -> list[Path]:
    """The files a folder's catalogue covers: its own, not those of a folder below with its own."""
    base = ROOT / folder.path
    others = [ROOT / f.path for f in FOLDERS if f != folder and (ROOT / f.path).is_relative_to(base)]
    pattern = "*.js" if folder.script else "*.py"
    found = []
    for path in sorted(base.rglob(pattern)):
        if any(path.is_relative_to(other) for other in others) or "vendor" in path.parts or path == WORDS:
            continue
        if not folder.script and "tests" in path.relative_to(base).parts:
            continue
        found.append(path)
    return found


def template(folder: Folder) -> Catalog:
    """Every message the folder's code says, where it says it."""
    made = Catalog(fuzzy=False, creation_date=FIXED_DATE)
    method = "javascript" if folder.script else "python"
    keywords = SCRIPT_KEYWORDS if folder.script else PYTHON_KEYWORDS
    for path in sources(folder):
        for lineno, message, comments, _context in extract_from_file(method, path, keywords=keywords):
            made.add(message, locations=[(str(path.relative_to(ROOT)), lineno)], auto_comments=comments)
        for lineno, text in help_texts(path) if not folder.script else ():
            if text is not None:
                made.add(text, locations=[(str(path.relative_to(ROOT)), lineno)])
    return made


def help_texts(path: Path) -> Iterator[tuple[int, str | None]]:
    """Each help text a command module writes, as Click shows it (None where it is not a literal):
    a command's or group's docstring (`@app.command()`, `@group.callback()`), cleaned as Typer
    cleans it (`inspect.getdoc`); a `help=`, `short_help=` or `epilog=` (of `typer.Option`,
    `typer.Argument`, `typer.Typer`, a command); a line of commands.py's table (`Listed`)."""
    if not path.is_relative_to(ROOT / HELP_SOURCES):
        return
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(map(_registers, node.decorator_list)):
            if (doc := ast.get_docstring(node)) is not None:
                yield node.lineno, doc
        elif isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg in HELP_KEYWORDS:
                    yield keyword.value.lineno, _literal(keyword.value)
            if isinstance(node.func, ast.Name) and node.func.id == "Listed" and len(node.args) == 2:
                yield node.args[1].lineno, _literal(node.args[1])


def _registers(decorator: ast.expr) -> bool:
    """`@app.command(...)` or `@group.callback()`: what makes a function a command or a group."""
    return (
        isinstance(decorator, ast.Call)
        and isinstance(decorator.func, ast.Attribute)
        and decorator.func.attr in ("command", "callback")
    )


def _literal(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def po_path(folder: Folder, language: str) -> Path:
    return ROOT / folder.path / f"messages.{language}.po"


def compiled_path(folder: Folder, language: str) -> Path:
    return ROOT / folder.path / f"messages.{language}.{'json' if folder.script else 'mo'}"


def updated(folder: Folder, language: str) -> Catalog:
    """The folder's catalogue in `language` with the messages its code says now."""
    path = po_path(folder, language)
    if path.exists():
        with path.open("rb") as fp:
            book = read_po(fp, locale=language)
    else:
        book = Catalog(
            locale=language,
            header_comment=f"# The {language} words of morale's {folder.path}: tools/catalogues.py keeps this file.",
            project="morale",
            version="",
            msgid_bugs_address="",
            last_translator="morale's authors",
            language_team=language,
            fuzzy=False,
            creation_date=FIXED_DATE,
            revision_date=FIXED_DATE,
        )
    book.update(template(folder), no_fuzzy_matching=True, update_creation_date=False)
    book.obsolete.clear()  # a message the code no longer says is gone from the catalogue too
    return book


def po_bytes(book: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(out, book, width=0, sort_output=True, include_lineno=False, ignore_obsolete=True)
    return out.getvalue()


def compiled(book: Catalog, script: bool) -> bytes:
    if not script:
        out = io.BytesIO()
        write_mo(out, book)
        return out.getvalue()
    # The console's catalogue: each message's words (a list of the plural forms for a plural one)
    # and the order of the language's plural categories (Intl.PluralRules names them in the browser).
    messages = {}
    for message in book:
        if not message.id or not _translated(message):
            continue
        key = message.id[0] if isinstance(message.id, tuple | list) else message.id
        messages[key] = list(message.string) if isinstance(message.string, tuple | list) else message.string
    plural = PLURAL_CATEGORIES.get(str(book.locale.language if book.locale else ""), ["one", "other"])
    body = {"language": str(book.locale), "plural": plural, "messages": dict(sorted(messages.items()))}
    return (json.dumps(body, ensure_ascii=False, indent=1) + "\n").encode()


# gettext's plural forms in the order each language's Plural-Forms formula numbers them, as
# Intl.PluralRules names them ("one", "few", "many" for Russian: 1 модель, 2 модели, 5 моделей).
PLURAL_CATEGORIES = {"ru": ["one", "few", "many"], "en": ["one", "other"]}


def _translated(message: Message) -> bool:
    strings = message.string if isinstance(message.string, tuple | list) else [message.string]
    return all(strings)


def placeholders(text: str) -> set[str]:
    found = set()
    for _literal, field, _spec, _conversion in string.Formatter().parse(text):
        if field is not None:
            found.add(field.split(".")[0].split("[")[0])
    return found


def unextractable(folder: Folder) -> Iterator[str]:
    """`Words(...)` and `counted(...)` calls whose template is not a literal: extraction cannot
    see them, so nothing would translate them."""
    if folder.script:
        return
    for path in sources(folder):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            wanted = {"Words": 1, "counted": 2}.get(node.func.id, 0)
            literal = [isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args[:wanted]]
            if wanted and (len(literal) < wanted or not all(literal)):
                yield f"{path.relative_to(ROOT)}:{node.lineno}: {node.func.id}(...) needs a literal template"
        for lineno, text in help_texts(path):
            if text is None:
                yield f"{path.relative_to(ROOT)}:{lineno}: a command's help needs to be a literal"


def _ids(book: Catalog) -> set[object]:
    return {message.id if isinstance(message.id, str) else tuple(message.id) for message in book if message.id}


def _said(book: Catalog) -> dict[object, object]:
    """What a catalogue says for each message it translates (its header aside, which names the
    Babel that wrote it)."""
    return {
        (m.id if isinstance(m.id, str) else tuple(m.id)): (m.string if isinstance(m.string, str) else tuple(m.string))
        for m in book
        if m.id and _translated(m)
    }


def problems(language: str) -> Iterator[str]:
    for folder in FOLDERS:
        yield from unextractable(folder)
        path = po_path(folder, language)
        book, where = updated(folder, language), path.relative_to(ROOT)
        if not path.exists():
            yield f"{where}: missing (run `make catalogues`)"
            continue
        with path.open("rb") as fp:
            kept = read_po(fp, locale=language)
        if _ids(kept) != _ids(book):
            yield f"{where}: not in step with the code (run `make catalogues`)"
        for message in book:
            if not message.id:
                continue
            ids = list(message.id) if isinstance(message.id, tuple | list) else [message.id]
            strings = list(message.string) if isinstance(message.string, tuple | list) else [message.string]
            if not all(strings):
                yield f"{where}: no {language} words for {ids[0]!r}"
                continue
            wanted = placeholders(ids[-1]) | placeholders(ids[0])
            for said in strings:
                if placeholders(said) != wanted:
                    yield f"{where}: {said!r} has {sorted(placeholders(said))}, not {sorted(wanted)} of {ids[0]!r}"
        target = compiled_path(folder, language)
        if not target.exists() or _compiled_says(target) != _compiled_says_of(book, folder.script):
            yield f"{target.relative_to(ROOT)}: not compiled from {where} (run `make catalogues`)"


def _compiled_says(target: Path) -> object:
    if target.suffix == ".json":
        return json.loads(target.read_bytes())
    with target.open("rb") as fp:
        book = read_mo(fp)
    return _said(book), book.plural_forms


def _compiled_says_of(book: Catalog, script: bool) -> object:
    if script:
        return json.loads(compiled(book, script))
    return _said(book), book.plural_forms


def pool(language: str) -> dict[object, object]:
    """Every translation the catalogues hold now: a message that moves from one folder's code to
    another's keeps its words."""
    found: dict[object, object] = {}
    for folder in FOLDERS:
        if po_path(folder, language).exists():
            with po_path(folder, language).open("rb") as fp:
                found.update(_said(read_po(fp, locale=language)))
    return found


def write(language: str) -> None:
    known = pool(language)
    for folder in FOLDERS:
        book = updated(folder, language)
        for message in book:
            key = message.id if isinstance(message.id, str) else tuple(message.id)
            if message.id and not _translated(message) and key in known:
                message.string = known[key]
        po_path(folder, language).write_bytes(po_bytes(book))
        compiled_path(folder, language).write_bytes(compiled(book, folder.script))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="change nothing; list what is wrong, exit 1 if anything")
    args = parser.parse_args()
    if args.check:
        found = [problem for language in LANGUAGES for problem in problems(language)]
        print(*found, sep="\n")
        sys.exit(1 if found else 0)
    for language in LANGUAGES:
        write(language)


if __name__ == "__main__":
    main()
