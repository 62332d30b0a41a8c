"""What is wrong with input, in words a user reads: "dice[0]: a die shows 1 to 6, not 7", not
msgspec's "Expected `int` <= 6 - at `$.dice[0]`", and "malformed JSON at line 1, column 17: ...", not
"Input data was truncated".

The limits themselves live in the types (`events/types.py`); this module only says them. It walks
the type that refused the input down the path msgspec names, to the constraint that failed and the
words a type carries for it (`Meta(extra={"words": ...})`), and reads the value found at that path,
so the refusal can say what was given.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from msgspec import inspect

from .words import Words, counted, listed

# "Expected `int` <= 6 - at `$.dice[0]`"; a dict key: "... - at `key` in `$.house_rules`".
_AT = re.compile(r"^(?P<what>.*?)(?: - at `(?P<path>[^`]*)`(?: in `(?P<outer>[^`]*)`)?)?$", re.DOTALL)
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+|\.\.\.)\]")
_ANY_VALUE = object()  # a step into a dict's values: msgspec names no key ("$.house_rules[...]")
_UNKNOWN = object()  # the value at the path could not be read
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")  # what would break a refusal's one line

_KINDS: dict[str, str] = {
    "int": Words("a whole number"),
    "float": Words("a number"),
    "str": Words("text"),
    "bool": Words("true or false"),
    "null": "null",
    "array": Words("a list"),
    "object": Words("an object"),
}

# What msgspec says is wrong with JSON it cannot read, in our words (any other reason as it says it).
_SYNTAX: dict[str, str] = {
    "invalid character": Words("invalid character"),
    "invalid number": Words("invalid number"),
    "expected ',' or ']'": Words("expected ',' or {close}", close="']'"),
    "expected ',' or '}'": Words("expected ',' or {close}", close="'}'"),
    "trailing comma in array": Words("trailing comma in array"),
    "trailing comma in object": Words("trailing comma in object"),
    "expected '\"'": Words("expected '\"'"),
    "expected ':'": Words("expected ':'"),
    "trailing characters": Words("trailing characters"),
    "object keys must be strings": Words("object keys must be strings"),
    "invalid escaped character": Words("invalid escaped character"),
    "invalid escape character in string": Words("invalid escape character in string"),
    "invalid character in unicode escape": Words("invalid character in unicode escape"),
    "invalid utf-16 surrogate pair": Words("invalid utf-16 surrogate pair"),
    "unexpected end of hex escape": Words("unexpected end of hex escape"),
    "unexpected end of escaped utf-16 surrogate pair": Words("unexpected end of escaped utf-16 surrogate pair"),
}


def validation_words(exc: msgspec.ValidationError, root: Any, data: Any) -> tuple[str, str | None]:
    """(words, field) for a validation error raised decoding `data` (the input as plain JSON values;
    None if it could not be read) as the type `root`. `field` is the path, "dice[0]", or None for the whole input.
    Both are one line: a key or value of the input that holds a line break shows it escaped."""
    words, field = _validation_words(exc, root, data)
    return _one_line(words), None if field is None else _one_line(field)


def _one_line(text: str) -> str:
    if not _CONTROL.search(text):
        return text  # as it is: words stay sayable in the reader's language
    return _CONTROL.sub(lambda found: repr(found[0])[1:-1], text)


def _validation_words(exc: msgspec.ValidationError, root: Any, data: Any) -> tuple[str, str | None]:
    found = _AT.match(str(exc))
    what, path = (found["what"], found["path"]) if found else (str(exc), None)
    key_error = bool(found and found["outer"])
    if key_error:  # a dict key was refused: the field is the dict
        path = found["outer"] if found else None
    steps = _steps(path)
    field = _field(steps)
    info = inspect.type_info(root)
    node, value = _walk(info, data, steps)
    if key_error:
        dict_type = _settle(node, value)
        key_type = dict_type.key_type if isinstance(dict_type, inspect.DictType) else None
        return Words("each key is {words}", words=_constraint_words(what, key_type, _UNKNOWN)), field
    if missing := re.fullmatch(r"Object missing required field `([^`]+)`", what):
        name = _struct_name(node, value)
        said = Words("missing (a {kind} needs it)", kind=name) if name else Words("missing (it needs it)")
        return said, _join(field, missing[1])
    if unknown := re.fullmatch(r"Object contains unknown field `([^`]+)`", what):
        return _unknown_field(node, value), _join(field, unknown[1])
    if invalid := re.fullmatch(r"Invalid value '(.*)'", what, re.DOTALL):
        return _unknown_tag(_walk(info, data, steps[:-1])[0], invalid[1]), field
    if re.fullmatch(r"Invalid enum value .*", what, re.DOTALL):
        return _one_of(node, value), field
    return _constraint_words(what, node, value), field


def syntax_words(exc: msgspec.DecodeError, data: bytes | str) -> str:
    """A JSON syntax error with where it is, by line and column (of characters, from 1)."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    text = str(exc)
    if not raw.strip():
        return Words("no JSON: the input is empty")
    if "UTF-8" in text:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as bad:
            return Words(
                "not UTF-8 text: byte {byte} ({place}) cannot be read", byte=bad.start, place=_place(raw, bad.start)
            )
        return Words("not UTF-8 text")
    at = re.search(r"\(byte (\d+)\)$", text)
    if at:
        reason = text.removeprefix("JSON is malformed: ")[: -len(at[0])].strip()
        return Words(
            "malformed JSON at {place}: {reason}", place=_place(raw, int(at[1])), reason=_SYNTAX.get(reason, reason)
        )
    if "truncated" in text:
        return Words(
            "malformed JSON at {place}: the JSON ends before it is complete", place=_place(raw, len(raw.rstrip()))
        )
    return Words("malformed JSON: {reason}", reason=text)


def _place(raw: bytes, offset: int) -> str:
    before = raw[:offset]
    line = before.count(b"\n") + 1
    column = len(before[before.rfind(b"\n") + 1 :].decode("utf-8", "replace")) + 1
    return Words("line {line}, column {column}", line=line, column=column)


# -- the path msgspec names, and the type and value found along it -------------------------------------
def _steps(path: str | None) -> list[object]:
    if not path or not path.startswith("$"):
        return []
    steps: list[object] = []
    for name, index in _STEP.findall(path[1:]):
        steps.append(name if name else (_ANY_VALUE if index == "..." else int(index)))
    return steps


def _field(steps: list[object]) -> str | None:
    text = ""
    for step in steps:
        if isinstance(step, str):
            text += f".{step}" if text else step
        else:
            text += "[...]" if step is _ANY_VALUE else f"[{step}]"
    return text or None


def _join(field: str | None, name: str) -> str:
    name = name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else repr(name)  # a key any client sent
    return f"{field}.{name}" if field else name


def _walk(node: Any, value: Any, steps: list[object]) -> tuple[Any, Any]:
    """The type (constraints and words kept) and the value at the end of `steps`; (None, _UNKNOWN)
    where the path leaves what the type describes."""
    for step in steps:
        node = _settle(node, value)
        if isinstance(step, str):
            fields = {f.encode_name: f for f in node.fields} if isinstance(node, inspect.StructType) else {}
            if step not in fields:
                return None, _UNKNOWN
            node = fields[step].type
            value = value.get(step, _UNKNOWN) if isinstance(value, dict) else _UNKNOWN
        elif step is _ANY_VALUE:
            if not isinstance(node, inspect.DictType):
                return None, _UNKNOWN
            node, value = node.value_type, _UNKNOWN
        else:
            assert isinstance(step, int)
            if isinstance(node, inspect.TupleType):
                node = node.item_types[step] if step < len(node.item_types) else None
            elif isinstance(node, inspect.ListType | inspect.VarTupleType | inspect.SetType | inspect.FrozenSetType):
                node = node.item_type
            else:
                return None, _UNKNOWN
            value = value[step] if isinstance(value, list) and step < len(value) else _UNKNOWN
    return node, value


def _settle(node: Any, value: Any) -> Any:
    """The type a value is read as: constraints' wrappers taken off, a union's member chosen (a
    tagged Struct by its tag, else the member of the value's kind)."""
    while isinstance(node, inspect.Metadata):
        node = node.type
    if isinstance(node, inspect.UnionType):
        members = [m.type if isinstance(m, inspect.Metadata) else m for m in node.types]
        if isinstance(value, dict):
            for member in members:
                if not isinstance(member, inspect.StructType) or member.tag is None:
                    continue
                if value.get(member.tag_field) == member.tag:
                    return member
        kind = _kind_of(value)
        for member in members:
            if _kind_of_type(member) == kind:
                return member
        return next((m for m in members if not isinstance(m, inspect.NoneType)), members[0])
    return node


def _kind_of(value: Any) -> str | None:
    for kind, types in (("bool", bool), ("int", int), ("float", float), ("str", str), ("array", list)):
        if isinstance(value, types):
            return kind
    return "object" if isinstance(value, dict) else None


def _kind_of_type(node: Any) -> str | None:
    kinds: dict[type, str] = {
        inspect.BoolType: "bool",
        inspect.IntType: "int",
        inspect.FloatType: "float",
        inspect.StrType: "str",
        inspect.LiteralType: "str",
        inspect.ListType: "array",
        inspect.VarTupleType: "array",
        inspect.TupleType: "array",
        inspect.DictType: "object",
        inspect.StructType: "object",
    }
    return kinds.get(type(node))


# -- the words -----------------------------------------------------------------------------------------
def _constraint_words(what: str, node: Any, value: Any) -> str:
    expected = re.match(r"Expected `([^`]*)`", what)
    kind = expected[1] if expected else None
    words = _words_of(node, kind)
    leaf = _leaf(node, kind)
    if got := re.fullmatch(r"Expected `([^`]*)`, got `([^`]*)`", what):
        return Words("expected {expected}, got {got}", expected=_kinds(got[1]), got=_KINDS.get(got[2], got[2]))
    if kind and what == f"Expected `{kind}`":  # a tag of the wrong kind: `"type": 3`
        return _not(Words("expected {expected}", expected=_kinds(kind)), value)
    if bound := re.fullmatch(r"Expected `(?:int|float)` ([<>]=?) (\S+)", what):
        limit = (
            Words("at most {limit}", limit=bound[2]) if "<" in bound[1] else Words("at least {limit}", limit=bound[2])
        )
        return _not(words or _range_words(leaf) or limit, value)
    if length := re.fullmatch(r"Expected `(str|array|object)` of length ([<>]=?) (\d+)", what):
        unit = {"str": "characters", "array": "items", "object": "entries"}[length[1]]
        most = "<" in length[2]
        said = words or _length_words(leaf, unit) or (_at_most if most else _at_least)(int(length[3]), unit)
        size = len(value) if isinstance(value, str | list | dict) else None
        return said if size is None else _not_size(said, size, unit)
    if pattern := re.fullmatch(r"Expected `str` matching regex '(.*)'", what, re.DOTALL):
        return _not(words or Words("text matching {pattern}", pattern=pattern[1]), value)
    if what == "Number out of range":
        return Words("a number too large to read")
    return what


def _leaf(node: Any, kind: str | None) -> Any:
    """The member of the leaf type that refused a value of `kind` (the kind msgspec expected)."""
    while isinstance(node, inspect.Metadata):
        node = node.type
    if isinstance(node, inspect.UnionType):
        for member in node.types:
            if _kind_of_type(member.type if isinstance(member, inspect.Metadata) else member) == kind:
                return _leaf(member, kind)
    return node


def _words_of(node: Any, kind: str | None) -> str | None:
    """The words a type carries for its limits (`Meta(extra={"words": ...})`), on the member of a
    union that refused the value."""
    if isinstance(node, inspect.UnionType):
        for member in node.types:
            inner = member.type if isinstance(member, inspect.Metadata) else member
            if isinstance(inner, inspect.UnionType) or _kind_of_type(inner) == kind:
                return _words_of(member, kind)
        return None
    while isinstance(node, inspect.Metadata):
        if node.extra and "words" in node.extra:
            found = node.extra["words"]
            return found if isinstance(found, str) else str(found)
        node = node.type
    return None


def _range_words(node: Any) -> str | None:
    low, high = getattr(node, "ge", None), getattr(node, "le", None)
    if low is None or high is None:
        return None
    whole = isinstance(node, inspect.IntType)
    if isinstance(low, float):
        if whole:
            return Words("a whole number from {low:g} to {high:g}", low=low, high=high)
        return Words("a number from {low:g} to {high:g}", low=low, high=high)
    if whole:
        return Words("a whole number from {low} to {high}", low=low, high=high)
    return Words("a number from {low} to {high}", low=low, high=high)


def _length_words(node: Any, unit: str) -> str | None:
    low, high = getattr(node, "min_length", None), getattr(node, "max_length", None)
    if low is not None and high is not None:
        return _exactly(low, unit) if low == high else _between(low, high, unit)
    if high is not None:
        return _at_most(high, unit)
    return _at_least(low, unit) if low else None


# A length in words, one sentence a unit (characters of text, items of a list, entries of an
# object): Russian puts the noun in the case its words ask ("не более 5 символов", "ровно 2 символа").
def _exactly(n: int, unit: str) -> str:
    if unit == "characters":
        return counted("exactly {n} character", "exactly {n} characters", n=n)
    if unit == "items":
        return counted("exactly {n} item", "exactly {n} items", n=n)
    return counted("exactly {n} entry", "exactly {n} entries", n=n)


def _between(low: int, n: int, unit: str) -> str:
    if unit == "characters":
        return counted("{low} to {n} character", "{low} to {n} characters", n=n, low=low)
    if unit == "items":
        return counted("{low} to {n} item", "{low} to {n} items", n=n, low=low)
    return counted("{low} to {n} entry", "{low} to {n} entries", n=n, low=low)


def _at_most(n: int, unit: str) -> str:
    if unit == "characters":
        return counted("at most {n} character", "at most {n} characters", n=n)
    if unit == "items":
        return counted("at most {n} item", "at most {n} items", n=n)
    return counted("at most {n} entry", "at most {n} entries", n=n)


def _at_least(n: int, unit: str) -> str:
    if unit == "characters":
        return counted("at least {n} character", "at least {n} characters", n=n)
    if unit == "items":
        return counted("at least {n} item", "at least {n} items", n=n)
    return counted("at least {n} entry", "at least {n} entries", n=n)


def _not_size(said: str, n: int, unit: str) -> str:
    if unit == "characters":
        return counted("{said}, not {n} character", "{said}, not {n} characters", n=n, said=said)
    if unit == "items":
        return counted("{said}, not {n} item", "{said}, not {n} items", n=n, said=said)
    return counted("{said}, not {n} entry", "{said}, not {n} entries", n=n, said=said)


def _kinds(expected: str) -> str:
    names = [_KINDS.get(part.strip(), part.strip()) for part in expected.split("|")]
    if len(names) == 1:
        return names[0]
    return Words("{kinds} or {last}", kinds=listed(names[:-1]), last=names[-1])


def _not(words: str, value: Any) -> str:
    return words if value is _UNKNOWN else Words("{words}, not {given}", words=words, given=_shown(value))


def _shown(value: Any) -> str:
    if isinstance(value, str):
        if len(value) <= 40:
            return repr(value)
        return counted("{text}... ({n} character)", "{text}... ({n} characters)", n=len(value), text=repr(value[:37]))
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, int | float) else _KINDS.get(_kind_of(value) or "", Words("that"))


def _struct_name(node: Any, value: Any) -> str:
    """The type of event (its tag) or Struct a field belongs to, or "" where it is not one."""
    node = _settle(node, value) if node is not None else None
    if isinstance(node, inspect.StructType):
        return str(node.tag) if node.tag else node.cls.__name__
    return ""


def _unknown_field(node: Any, value: Any) -> str:
    node = _settle(node, value) if node is not None else None
    if isinstance(node, inspect.StructType):
        known = listed(f.encode_name for f in node.fields)
        return Words("no such field in a {kind} (its fields: {known})", kind=_struct_name(node, value), known=known)
    return Words("no such field")


def _unknown_tag(node: Any, given: str) -> str:
    """An unknown event type: `node` is the union of tagged Structs the tag chooses among."""
    while isinstance(node, inspect.Metadata):
        node = node.type
    members = node.types if isinstance(node, inspect.UnionType) else [node]
    tags = [str(m.tag) for m in members if isinstance(m, inspect.StructType) and m.tag is not None]
    if tags:
        return Words("unknown type {given!r} (known: {known})", given=given, known=listed(tags))
    return Words("unknown type {given!r}", given=given)


def _one_of(node: Any, value: Any) -> str:
    while isinstance(node, inspect.Metadata | inspect.UnionType):
        node = (
            node.type
            if isinstance(node, inspect.Metadata)
            else next((m for m in node.types if isinstance(m, inspect.LiteralType)), node.types[0])
        )
    if isinstance(node, inspect.LiteralType):
        return _not(Words("one of {values}", values=listed(map(str, node.values))), value)
    return _not(Words("a value it allows"), value)
