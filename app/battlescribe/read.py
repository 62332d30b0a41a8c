"""A list builder's roster file read safely: a `.rosz` unzipped within bounds (one entry, a size and
a compression ratio no honest roster comes near), its XML parsed by defusedxml (no DTD, no entity,
no external reference), the root checked to be BattleScribe's `roster`. What it holds comes out as
plain data: forces, and in each the units with their model counts, characteristics and rule names.

The shape followed is BattleScribe's published roster schema (BSData/schemas, Catalogue.xsd with the
rosterSchema namespace): roster > forces > force > selections > selection (type unit, model or
upgrade; `number`), each selection with profiles > profile > characteristics > characteristic
(name, text), rules > rule (name), categories > category (name) and its own selections.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from dataclasses import dataclass, field
from xml.etree.ElementTree import Element, ParseError

import defusedxml
import defusedxml.ElementTree

from morale.core.words import Words, counted
from morale.events.codec import MalformedEvent

NAMESPACE = "http://www.battlescribe.net/schema/rosterSchema"
SUFFIXES = (".ros", ".rosz")

# Bounds no honest roster comes near (a 2,000-point army is some hundreds of kilobytes of XML):
# past them a file is refused before it costs the machine anything.
MAX_FILE_BYTES = 8 * 1024 * 1024  # the file as sent (.ros or .rosz)
MAX_XML_BYTES = 16 * 1024 * 1024  # the XML, unzipped
MAX_RATIO = 100  # unzipped bytes for each zipped byte: XML zips some 10 to 20 times, a bomb thousands
MAX_DEPTH = 40  # selections within selections
MAX_SELECTIONS = 20_000


def _tag(name: str) -> str:
    return f"{{{NAMESPACE}}}{name}"


@dataclass(frozen=True)
class ListUnit:
    """One unit of a force as the file gives it; None where the file says nothing."""

    name: str  # the player's name for it (customName), else the entry's
    entry: str  # the catalogue entry's name ("Boyz")
    models: int | None
    # characteristic name, lower case ("ld", "i", "unit type") -> every value given, in order
    characteristics: dict[str, list[str]]
    rules: list[str]  # rule and ability names, the unit's, its models' and its force's
    upgrades: list[str]  # the names of its upgrades (a Battle Standard), matched only if a ruleset knows them
    categories: list[str]


@dataclass(frozen=True)
class ListForce:
    name: str
    catalogue: str
    units: list[ListUnit]


@dataclass(frozen=True)
class ListRoster:
    where: str  # the file's name, for refusals and questions
    name: str
    game_system: str
    forces: list[ListForce] = field(default_factory=list)


def is_list_file(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def read_list_file(data: bytes, where: str) -> ListRoster:
    """The roster in a `.ros` or `.rosz` file's bytes; every refusal is one line naming the file and
    what is wrong with it, and nothing is kept of a refused file."""
    if len(data) > MAX_FILE_BYTES:
        said = counted(
            "{where}: the file is {n} byte; a roster file may have at most {limit}",
            "{where}: the file is {n} bytes; a roster file may have at most {limit}",
            n=len(data),
            where=where,
            limit=MAX_FILE_BYTES,
        )
        raise MalformedEvent(said)
    xml = _unzipped(data, where) if data[:4] == b"PK\x03\x04" else data
    return _roster(_parsed(xml, where), where)


def _unzipped(data: bytes, where: str) -> bytes:
    """The one entry of a `.rosz`, read no further than the bounds allow, whatever its header claims."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        entries = archive.infolist()
    except (zipfile.BadZipFile, ValueError, EOFError) as exc:
        # zipfile's words (English) say what is wrong with the archive
        raise MalformedEvent(
            Words("{where}: not a readable zip file ({reason})", where=where, reason=str(exc))
        ) from None
    if len(entries) != 1:
        said = counted(
            "{where}: a .rosz holds exactly one roster, not {n} file",
            "{where}: a .rosz holds exactly one roster, not {n} files",
            n=len(entries),
            where=where,
        )
        raise MalformedEvent(said)
    entry = entries[0]
    if entry.flag_bits & 0x1:
        raise MalformedEvent(Words("{where}: the roster in the zip file is encrypted", where=where))
    limit = min(MAX_XML_BYTES, MAX_RATIO * max(entry.compress_size, 1))
    if entry.file_size > limit:
        said = counted(
            "{where}: the roster unzips to {n} byte from {compressed}; at most {limit} are read (a zip bomb?)",
            "{where}: the roster unzips to {n} bytes from {compressed}; at most {limit} are read (a zip bomb?)",
            n=entry.file_size,
            where=where,
            compressed=entry.compress_size,
            limit=limit,
        )
        raise MalformedEvent(said)
    try:
        with archive.open(entry) as stream:
            xml = stream.read(limit + 1)  # the header may lie: never read past the bound
    # A damaged stream (zlib.error), a bad checksum (BadZipFile), a compression zipfile lacks.
    except (zipfile.BadZipFile, zlib.error, ValueError, EOFError, OSError, NotImplementedError, RuntimeError) as exc:
        said = Words("{where}: the zip file cannot be read ({reason})", where=where, reason=str(exc))
        raise MalformedEvent(said) from None
    if len(xml) > limit:
        said = counted(
            "{where}: the roster unzips to more than {n} byte (a zip bomb?)",
            "{where}: the roster unzips to more than {n} bytes (a zip bomb?)",
            n=limit,
            where=where,
        )
        raise MalformedEvent(said)
    return xml


def _parsed(xml: bytes, where: str) -> Element:
    if len(xml) > MAX_XML_BYTES:
        said = counted(
            "{where}: the roster is {n} byte of XML; at most {limit} are read",
            "{where}: the roster is {n} bytes of XML; at most {limit} are read",
            n=len(xml),
            where=where,
            limit=MAX_XML_BYTES,
        )
        raise MalformedEvent(said)
    try:
        root = defusedxml.ElementTree.fromstring(xml, forbid_dtd=True)
    except defusedxml.DTDForbidden:
        said = Words("{where}: the XML declares a DTD, which a roster file never needs", where=where)
        raise MalformedEvent(said) from None
    except defusedxml.EntitiesForbidden:
        said = Words("{where}: the XML declares entities, which a roster file never needs", where=where)
        raise MalformedEvent(said) from None
    except defusedxml.ExternalReferenceForbidden:
        said = Words("{where}: the XML refers to an external resource, which is never fetched", where=where)
        raise MalformedEvent(said) from None
    except ParseError as exc:
        line, column = exc.position
        said = Words(
            "{where}: not XML (line {line}, column {column}): a roster file is .ros or .rosz",
            where=where,
            line=line,
            column=column,
        )
        raise MalformedEvent(said) from None
    if root.tag != _tag("roster"):
        found = root.tag.partition("}")[0].lstrip("{") if root.tag.startswith("{") else ""
        element = root.tag.rpartition("}")[2]
        if found:
            said = Words(
                "{where}: not a BattleScribe roster: the root element is {element!r} in the namespace"
                " {namespace!r}, not 'roster' in {expected!r}",
                where=where,
                element=element,
                namespace=found,
                expected=NAMESPACE,
            )
        else:
            said = Words(
                "{where}: not a BattleScribe roster: the root element is {element!r} in the namespace 'none',"
                " not 'roster' in {expected!r}",
                where=where,
                element=element,
                expected=NAMESPACE,
            )
        raise MalformedEvent(said)
    return root


def _roster(root: Element, where: str) -> ListRoster:
    count = sum(1 for _ in root.iter(_tag("selection")))
    if count > MAX_SELECTIONS:
        said = counted(
            "{where}: the roster has {n} selection; at most {limit} are read",
            "{where}: the roster has {n} selections; at most {limit} are read",
            n=count,
            where=where,
            limit=MAX_SELECTIONS,
        )
        raise MalformedEvent(said)
    forces = [_force(force, where) for force in _all_forces(root)]
    return ListRoster(where=where, name=root.get("name", ""), game_system=root.get("gameSystemName", ""), forces=forces)


def _all_forces(root: Element) -> list[Element]:
    """Every force, those within forces (a detachment of a detachment) too, in the file's order."""
    found: list[Element] = []
    for force in root.iterfind(f"{_tag('forces')}/{_tag('force')}"):
        found.append(force)
        found.extend(_all_forces(force))
    return found


def _force(force: Element, where: str) -> ListForce:
    army_rules = _names(force, "rules", "rule")
    units: list[ListUnit] = []
    for selection in _children(force):
        _collect(selection, army_rules, units, 1, where)
    return ListForce(name=force.get("name", ""), catalogue=force.get("catalogueName", ""), units=units)


def _children(element: Element) -> list[Element]:
    return element.findall(f"{_tag('selections')}/{_tag('selection')}")


def _names(element: Element, holder: str, item: str) -> list[str]:
    return [e.get("name", "") for e in element.iterfind(f"{_tag(holder)}/{_tag(item)}") if e.get("name")]


def _collect(selection: Element, army_rules: list[str], units: list[ListUnit], depth: int, where: str) -> None:
    """The units in a selection: itself if it is a unit or a model standing alone, else those inside it."""
    if depth > MAX_DEPTH:
        raise MalformedEvent(_too_deep(where))
    kind = selection.get("type", "upgrade")
    if kind in ("unit", "model"):
        inner: list[ListUnit] = []
        units.append(_unit(selection, army_rules, inner, depth, where))
        units.extend(inner)  # after the unit that holds them
        return
    for child in _children(selection):
        _collect(child, army_rules, units, depth + 1, where)


def _unit(selection: Element, army_rules: list[str], inner: list[ListUnit], depth: int, where: str) -> ListUnit:
    """A unit (or a model standing alone) with what its models and upgrades say; the units within it
    go to `inner`."""
    characteristics: dict[str, list[str]] = {}
    rules: list[str] = []
    upgrades: list[str] = []
    models = _number(selection, where) if selection.get("type") == "model" else 0

    def read(element: Element) -> None:
        for profile in element.iterfind(f"{_tag('profiles')}/{_tag('profile')}"):
            if (profile.get("typeName") or "").lower() in ("ability", "abilities", "special rule", "special rules"):
                rules.append(profile.get("name", ""))
            for characteristic in profile.iterfind(f"{_tag('characteristics')}/{_tag('characteristic')}"):
                name = characteristic.get("name", "").strip().lower()
                characteristics.setdefault(name, []).append((characteristic.text or "").strip())
        rules.extend(_names(element, "rules", "rule"))

    def walk(element: Element, level: int, in_model: bool) -> None:
        nonlocal models
        if level > MAX_DEPTH:
            raise MalformedEvent(_too_deep(where))
        for child in _children(element):
            kind = child.get("type", "upgrade")
            if kind == "unit":  # a unit within a unit (a squad's transport) is a unit of its own
                nested: list[ListUnit] = []
                inner.append(_unit(child, army_rules, nested, level + 1, where))
                inner.extend(nested)
                continue
            # Catalogues often enter a squad's models as upgrades ("9 Guardsman", number 9): an
            # upgrade with a Leadership in its profile is models, unless it is within a model (a
            # character's mount is part of the character).
            counted = kind == "model" or (not in_model and _has_leadership(child))
            if counted:
                models += _number(child, where)
            else:
                upgrades.append(child.get("name", ""))
            read(child)
            walk(child, level + 1, in_model or counted)

    read(selection)
    walk(selection, depth, selection.get("type") == "model")
    name = (selection.get("customName") or selection.get("name") or "").strip()
    return ListUnit(
        name=name,
        entry=selection.get("name", ""),
        models=models or None,
        characteristics=characteristics,
        rules=_unique([*rules, *army_rules]),
        upgrades=_unique(upgrades),
        categories=_names(selection, "categories", "category"),
    )


def _has_leadership(selection: Element) -> bool:
    return any(
        (c.get("name", "").strip().lower() in ("ld", "leadership"))
        for c in selection.iterfind(
            f"{_tag('profiles')}/{_tag('profile')}/{_tag('characteristics')}/{_tag('characteristic')}"
        )
    )


def _number(selection: Element, where: str) -> int:
    text = selection.get("number", "1")
    if not text.isdigit() or len(text) > 6:
        said = Words(
            "{where}: selection {name!r}: number is {number!r}, not a count",
            where=where,
            name=selection.get("name", ""),
            number=text,
        )
        raise MalformedEvent(said)
    return int(text)


def _too_deep(where: str) -> Words:
    return Words("{where}: selections are nested deeper than {depth}", where=where, depth=MAX_DEPTH)


def _unique(names: list[str]) -> list[str]:
    return list(dict.fromkeys(n.strip() for n in names if n.strip()))
