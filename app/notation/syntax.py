"""The notation's grammar (grammar.lark, read once) and how ids and values are spelt in it, both ways."""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

from lark import Lark, Token

GRAMMAR_FILE = "grammar.lark"
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")
_BARE_VALUE = re.compile(r"[A-Za-z0-9_.+\-]+")
_INT = re.compile(r"[+\-]?[0-9]+")
_FLOAT = re.compile(r"[+\-]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][+\-]?[0-9]+)?")


def grammar() -> str:
    """The grammar's text, as shipped with the package."""
    return resources.files(__package__).joinpath(GRAMMAR_FILE).read_text(encoding="utf-8")


@cache
def parser() -> Lark:
    return Lark(grammar(), parser="lalr", propagate_positions=True, maybe_placeholders=True)


@cache
def keywords() -> frozenset[str]:
    """The grammar's keywords that an unquoted id could be mistaken for: such an id is quoted."""
    return frozenset(
        t.pattern.value for t in parser().terminals if t.pattern.type == "str" and _WORD.fullmatch(t.pattern.value)
    )


# -- writing ------------------------------------------------------------------------------------------
def text(value: str) -> str:
    """Free text (a name, a note, a reason) in double quotes, with JSON's escapes."""
    return json.dumps(value, ensure_ascii=False)


def ident(value: str) -> str:
    """An id as a word where it reads back as itself, else quoted."""
    return value if _WORD.fullmatch(value) and value not in keywords() else text(value)


def value(v: Any) -> str:
    """A fact's or a profile's value: true, false, a number, a word, or quoted text where a word would
    read back as something else ("4", "true", "two words")."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str) and _BARE_VALUE.fullmatch(v) and read_value_text(v) == v:
        return v
    return text(str(v))


# -- reading ------------------------------------------------------------------------------------------
def read_text(token: Token | str) -> str:
    """An id or a piece of text: quoted ones lose their quotes and escapes."""
    raw = str(token)
    return json.loads(raw) if raw.startswith('"') else raw


def read_value(token: Token | str) -> Any:
    raw = str(token)
    return json.loads(raw) if raw.startswith('"') else read_value_text(raw)


def read_value_text(raw: str) -> Any:
    if raw in ("true", "false"):
        return raw == "true"
    if _INT.fullmatch(raw):
        return int(raw)
    if _FLOAT.fullmatch(raw):
        return float(raw)
    return raw
