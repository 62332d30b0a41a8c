"""Notation to events: parse with the grammar, then build each line's event, remembering the line
and column it came from. Any error names the line and column; the caller writes nothing."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
from lark import Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from morale.core.words import Words, counted, listed
from morale.events.codec import MalformedEvent, event_from_dict
from morale.events.types import AnyEvent, Author, PhaseEnded
from morale.events.wording import validation_words

from ..files import MAX_LINE_CHARS, first_long_line
from ..reasons import words_of
from .header import Tag, battle_events
from .syntax import parser, read_text, read_value


class NotationError(MalformedEvent):
    """Notation that cannot be read: where (line, column) and why (`problem`, Words of its own; the
    place is said around it in the reader's language, the source, line and column as they are)."""

    def __init__(self, source: str, line: int, column: int, problem: str) -> None:
        self.line, self.column, self.problem = line, column, problem
        super().__init__(at_place(source, line, column, problem))


def at_place(source: str, line: int, column: int, problem: str) -> Words:
    """A problem said of a place in a notation: "input line 4, column 36: ..." (a refusal of the
    referee's, `check.py`, too)."""
    return Words(
        "{source} line {line}, column {column}: {problem}", source=source, line=line, column=column, problem=problem
    )


@dataclass(frozen=True)
class Located:
    line: int
    column: int
    event: AnyEvent
    author: Author | None = None  # who entered it in the log the notation was written from (a `by` line)


@dataclass(frozen=True)
class Notation:
    battle: str  # from [Battle], the roster, or the caller
    events: list[Located]


# What the parser's terminals are called in an error, for people.
_TERMINALS = {
    "ID": Words("an id"),
    "VALUE": Words("a value"),
    "INT": Words("a number"),
    "SIGNED": Words("a signed number (+1, -2)"),
    "STRING": Words('"quoted text"'),
    "TAG": Words("a tag name"),
    "_NL": Words("the end of the line"),
    "$END": Words("the end of the file"),
}
_AUTHOR_FORMS = Words(
    "write who entered the events as `by referee via cli`, `by SIDE player via console` or `by nobody`"
)
# What JSON's decoder says of quoted text it does not read, each as a sentence of ours (json's own
# words otherwise, which are English: `{reason}`).
_UNREAD = {
    "Invalid \\escape": Words("quoted text that does not read: Invalid \\escape"),
    "Invalid \\uXXXX escape": Words("quoted text that does not read: Invalid \\uXXXX escape"),
    "Invalid control character at": Words("quoted text that does not read: Invalid control character at"),
    "Unterminated string starting at": Words("quoted text that does not read: Unterminated string starting at"),
}
# A refused field's path ("dice[1]", "sides[0]"): the field, and the index within it if any.
_PATH = re.compile(r"([A-Za-z_]*)(\[[0-9]+\])?")


# Bounds checked before the text is parsed: the parse tree costs memory by the line, and a line of
# any length was matched whole before the field it held could be refused.
MAX_LINES = 500_000  # a battle of 100,000 events is about as many lines


def check_size(text: str, source: str) -> None:
    """Refuse a notation of more lines, or with a longer line, than any battle needs, naming the limit."""
    lines = text.count("\n") + 1
    if lines > MAX_LINES:
        message = counted(
            "a notation holds at most {n:,} line; this one has {lines:,}",
            "a notation holds at most {n:,} lines; this one has {lines:,}",
            n=MAX_LINES,
            lines=lines,
        )
        raise NotationError(source, MAX_LINES + 1, 1, message)
    line = first_long_line(text, MAX_LINE_CHARS)
    if line is not None:
        message = counted(
            "a line of a notation holds at most {n:,} character; this one holds more",
            "a line of a notation holds at most {n:,} characters; this one holds more",
            n=MAX_LINE_CHARS,
        )
        raise NotationError(source, line, MAX_LINE_CHARS + 1, message)


def read(text: str, source: str = "input", base: Path | None = None, battle: str | None = None) -> Notation:
    """The events of a battle written in notation. `base`: the folder a [Roster] or [Table] file is
    relative to; `battle`: the battle's id, over any the notation gives."""
    check_size(text, source)
    try:
        tree = parser().parse(text)
    except UnexpectedInput as exc:
        raise NotationError(source, exc.line, exc.column, _syntax_message(exc, text)) from None
    _check_quoted(tree, source)
    return _Builder(source, base or Path.cwd()).build(tree, battle)


def _check_quoted(tree: Tree, source: str) -> None:
    """Every piece of quoted text reads as JSON's strings do, and as text the log can keep, before
    any of it is used: the grammar lets through what JSON refuses (an unknown escape `\\q`, a raw
    control character, a NUL) and what no UTF-8 can hold (a lone surrogate, `\\ud800`)."""
    for token in tree.scan_values(lambda value: isinstance(value, Token) and str(value).startswith('"')):
        try:
            json.loads(str(token)).encode("utf-8")
        except json.JSONDecodeError as exc:
            said = _UNREAD.get(exc.msg) or Words("quoted text that does not read: {reason}", reason=exc.msg)
            raise NotationError(source, token.line, token.column + exc.pos, said) from None
        except UnicodeEncodeError:
            said = Words("quoted text with a lone surrogate (\\ud800 to \\udfff alone)")
            raise NotationError(source, token.line, token.column, said) from None


def _syntax_message(exc: UnexpectedInput, text: str) -> str:
    if isinstance(exc, UnexpectedCharacters):
        found = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else ""
        return _unexpected(repr(found), exc.allowed)
    if isinstance(exc, UnexpectedToken):
        if exc.token.type in ("_NL", "$END"):
            return _unexpected(_TERMINALS[exc.token.type], exc.expected)
        return _unexpected(repr(str(exc.token)), exc.expected)
    if isinstance(exc, UnexpectedEOF):
        expected = _expected(exc.expected)
        if expected is None:
            return Words("the file ends in the middle of a line")
        return Words("the file ends in the middle of a line (expected {expected})", expected=expected)
    return str(exc)


def _unexpected(found: str, names: set[str] | frozenset[str]) -> Words:
    """What the parser found (quoted as written, or the end of the line or file), and what it could take."""
    expected = _expected(names)
    if expected is None:
        return Words("unexpected {found}", found=found)
    return Words("unexpected {found} (expected {expected})", found=found, expected=expected)


def _expected(names: set[str] | frozenset[str]) -> Words | None:
    """What the parser could take, in order of their English (a keyword as `written`), or None."""
    words = sorted({_TERMINALS.get(n, _literal(n)) for n in names if not n.startswith("__ANON") or _literal(n)})
    return listed(words) if words else None


def _literal(name: str) -> str:
    for terminal in parser().terminals:
        if terminal.name == name and terminal.pattern.type == "str":
            return f"`{terminal.pattern.value}`"
    return ""


class _Builder:
    def __init__(self, source: str, base: Path) -> None:
        self.source, self.base = source, base
        self.turn = 0
        self.open: tuple[int, str, str] | None = None
        self.author: Author | None = None  # the last `by` line's

    def fail(self, at: Tree | Token, message: Words) -> NotationError:
        line, column = (at.line, at.column) if isinstance(at, Token) else (at.meta.line, at.meta.column)
        return NotationError(self.source, line, column, message)

    def build(self, tree: Tree, battle: str | None) -> Notation:
        lines: list[Tree] = list(tree.children)  # type: ignore[arg-type]
        while lines and lines[0].data == "author":  # who entered the header's events
            self.author = self._author(lines.pop(0))
        tags = []
        while lines and lines[0].data == "tag":
            node = lines.pop(0)
            name, *values = node.children
            tags.append(Tag(node.meta.line, node.meta.column, str(name), [(v.line, v.column, str(v)) for v in values]))
        stray = next((node for node in lines if node.data == "tag"), None)
        if stray is not None:
            raise self.fail(stray, Words("a header tag comes before the first event"))
        if not tags:
            at = lines[0] if lines else None
            line, column = (at.meta.line, at.meta.column) if at is not None else (1, 1)
            said = Words("the notation starts with its header: [Ruleset ...]...")
            raise NotationError(self.source, line, column, said)
        header = battle_events(tags, self.source, self.base, battle)
        events = [Located(line, column, event, self.author) for line, column, event in header.events]
        for node in lines:
            if node.data == "author":
                self.author = self._author(node)
                continue
            event = self.event(node)
            if event is not None:
                events.append(Located(node.meta.line, node.meta.column, event, self.author))
        return Notation(battle=header.battle, events=events)

    def event(self, node: Tree) -> AnyEvent | None:
        kind = str(node.data)
        if kind == "turn":
            self.turn = int(node.children[0])
            return None
        if kind == "phase":
            if not self.turn:
                raise self.fail(node, Words("a phase heading needs a `== Turn N ==` heading before it"))
            side, phase = node.children
            fields = {"type": "phase_started", "turn": self.turn, "side": read_text(side), "phase": read_text(phase)}
            started = self._decoded(node, fields, {"side": side.column, "phase": phase.column})
            self.open = (self.turn, fields["side"], fields["phase"])
            return started
        if kind == "end":
            turn, side, phase = node.children
            if turn is not None:
                self.open = None
                return self._decoded(
                    node,
                    {"type": "phase_ended", "turn": int(turn), "side": read_text(side), "phase": read_text(phase)},
                    {},
                )
            if self.open is None:
                said = Words("`end` closes the phase under the last `-- SIDE PHASE --` heading, and none is open")
                raise self.fail(node, said)
            (turn, side, phase), self.open = self.open, None
            return PhaseEnded(turn=turn, side=side, phase=phase)
        fields, columns = getattr(self, f"_{kind}")(node)
        return self._decoded(node, fields, columns)

    def _author(self, node: Tree) -> Author | None:
        """`by referee via cli "anna"`, `by orks player via console token 1a2b3c4d "..."`, `by nobody`."""
        who, kind, via, token, label = node.children
        if (read_text(who), kind, via, token, label) == ("nobody", None, None, None, None):
            return None
        as_player, as_referee = kind is not None and str(kind) == "player", kind is None and read_text(who) == "referee"
        if via is None or not (as_player or as_referee):
            raise self.fail(node, _AUTHOR_FORMS)
        fields: dict[str, Any] = {"role": "player" if kind is not None else "referee", "via": read_text(via)}
        if kind is not None:
            fields["side"] = read_text(who)
        if token is not None:
            fields["token"] = read_text(token)
        if label is not None:
            fields["label"] = read_text(label)
        try:
            return msgspec.convert(fields, Author)
        except msgspec.ValidationError as exc:
            words, field = validation_words(exc, Author, fields)
            at = {"via": via, "side": who, "token": token, "label": label}.get(field or "", node)
            said = Words("{field}: {problem}", field=field, problem=words) if field else words
            raise self.fail(at if at is not None else node, said) from None

    def _decoded(self, node: Tree, fields: dict[str, Any], columns: dict[str, int]) -> AnyEvent:
        try:
            return event_from_dict(fields)
        except MalformedEvent as exc:
            found = _PATH.match(exc.field or "")
            column = node.meta.column
            if found and found.group(1):  # the die itself for `dice[1]`, else the field's first token
                column = columns.get(found.group(1) + (found.group(2) or ""), columns.get(found.group(1), column))
            raise NotationError(self.source, node.meta.line, column, words_of(exc)) from None

    # -- one builder a kind of line: (the event's fields, the column each field came from) -----------
    def _joined(self, node: Tree) -> tuple[dict[str, Any], dict[str, int]]:
        unit, side, unit_type, models, name, ld, initiative, rules, profile = node.children
        fields: dict[str, Any] = {
            "type": "unit_joined",
            "unit": read_text(unit),
            "side": read_text(side),
            "unit_type": read_text(unit_type),
            "models": int(models),
            "name": read_text(name),
        }
        columns = {"unit": unit.column, "side": side.column, "unit_type": unit_type.column}
        columns |= {"models": models.column, "name": name.column}
        if ld is not None:
            fields["ld"], columns["ld"] = int(ld.children[0]), ld.children[0].column
        if initiative is not None:
            fields["initiative"], columns["initiative"] = int(initiative.children[0]), initiative.children[0].column
        if rules is not None:
            fields["special_rules"], columns["special_rules"] = _ids(rules.children[0]), rules.meta.column
        if profile is not None:
            fields["profile"], columns["profile"] = self._pairs(profile.children[0]), profile.meta.column
        return fields, columns

    def _casualties(self, node: Tree) -> tuple[dict[str, Any], dict[str, int]]:
        unit, count, cause = node.children
        fields = {"type": "casualties_suffered", "unit": read_text(unit), "count": int(count)}
        if cause is not None:
            fields["cause"] = read_text(cause)
        return fields, {"unit": unit.column, "count": count.column}

    def _dice(self, node: Tree) -> tuple[dict[str, Any], dict[str, int]]:
        unit, verb, test, *dice, engine = node.children
        fields: dict[str, Any] = {
            "type": "dice_rolled",
            "unit": read_text(unit),
            "test": read_text(test),
            "dice": [int(d) for d in dice],
        }
        if verb.type == "REROLLS":
            fields["reroll"] = True
        if engine is not None:
            fields["source"] = "engine"
        columns = {"unit": unit.column, "test": test.column, "dice": dice[0].column}
        return fields, columns | {f"dice[{i}]": die.column for i, die in enumerate(dice)}

    def _charge(self, node: Tree) -> tuple[dict[str, Any], dict[str, int]]:
        charger, targets, in_range, flank = node.children
        fields: dict[str, Any] = {"type": "charge_declared", "charger": read_text(charger), "targets": _ids(targets)}
        columns = {"charger": charger.column, "targets": targets.meta.column}
        if in_range is not None:
            fields["in_range"], columns["in_range"] = _ids(in_range), in_range.meta.column
        if flank is not None:
            fields["flank"], columns["flank"] = _ids(flank), flank.meta.column
        return fields, columns

    def _combat(self, node: Tree) -> tuple[dict[str, Any], dict[str, int]]:
        return {"type": "combat_resolved", "sides": [self._side(side) for side in node.children]}, {
            "sides": node.children[0].meta.column
        }

    def _side(self, node: Tree) -> dict[str, Any]:
        side, units, wounds, bonus, *details = node.children
        fields: dict[str, Any] = {"side": read_text(side), "units": _ids(units), "wounds_inflicted": int(wounds)}
        if bonus is not None:
            fields["bonus"] = int(bonus)
        names = {"ranks": "ranks", "unit_bonus": "unit_bonus", "left": "left_combat"}
        for detail in details:
            field = names[str(detail.data)]
            if field in fields:
                said = Words("{detail} is given twice for {side}", detail=str(detail.data), side=fields["side"])
                raise self.fail(detail, said)
            inner = detail.children[0]
            fields[field] = _ids(inner) if field == "left_combat" else self._numbers(inner)
        return fields

    def _fact(self, node: Tree) -> tuple[dict[str, Any], dict[str, int]]:
        unit, fact, told = node.children
        fields: dict[str, Any] = {"type": "table_fact_recorded", "unit": read_text(unit), "fact": read_text(fact)}
        columns = {"unit": unit.column, "fact": fact.column}
        if told is not None:
            fields["value"], columns["value"] = read_value(told), told.column
        return fields, columns

    def _decision(self, node: Tree) -> tuple[dict[str, Any], dict[str, int]]:
        unit, decision, note = node.children
        fields = {"type": "player_decided", "unit": read_text(unit), "decision": read_text(decision)}
        if note is not None:
            fields["note"] = read_text(note)
        return fields, {"unit": unit.column, "decision": decision.column}

    def _change(self, node: Tree) -> tuple[dict[str, Any], dict[str, int]]:
        unit, pairs, note = node.children
        fields: dict[str, Any] = {"type": "unit_changed", "unit": read_text(unit), "changes": self._pairs(pairs)}
        if note is not None:
            fields["note"] = read_text(note)
        return fields, {"unit": unit.column, "changes": pairs.meta.column}

    def _ruling(self, node: Tree) -> tuple[dict[str, Any], dict[str, int]]:
        unit, state, waive, reason = node.children
        fields: dict[str, Any] = {"type": "referee_ruled", "unit": read_text(unit), "reason": read_text(reason)}
        columns = {"unit": unit.column, "reason": reason.column}
        if state is not None:
            fields["state"], columns["state"] = read_text(state), state.column
        if waive is not None:
            fields["waive_tests"] = True
        return fields, columns

    def _retraction(self, node: Tree) -> tuple[dict[str, Any], dict[str, int]]:
        seq, reason = node.children
        fields = {"type": "event_retracted", "seq": int(seq), "reason": read_text(reason)}
        return fields, {"seq": seq.column, "reason": reason.column}

    def _reveal(self, node: Tree) -> tuple[dict[str, Any], dict[str, int]]:
        secret, fresh = node.children
        fields, columns = {"type": "dice_revealed", "secret": read_text(secret)}, {"secret": secret.column}
        if fresh is not None:
            fields["commitment"], columns["commitment"] = read_text(fresh), fresh.column
        return fields, columns

    def _seed(self, node: Tree) -> tuple[dict[str, Any], dict[str, int]]:
        side, verb, given = node.children
        kind, name = ("seed_committed", "commitment") if verb.type == "COMMITS" else ("seed_revealed", "seed")
        fields = {"type": kind, "side": read_text(side), name: read_text(given)}
        return fields, {"side": side.column, name: given.column}

    def _confirm(self, node: Tree) -> tuple[dict[str, Any], dict[str, int]]:
        return {"type": "entry_confirmed", "seqs": [int(seq) for seq in node.children]}, {
            "seqs": node.children[0].column
        }

    def _dispute(self, node: Tree) -> tuple[dict[str, Any], dict[str, int]]:
        seq, reason = node.children
        fields = {"type": "entry_disputed", "seq": int(seq), "reason": read_text(reason)}
        return fields, {"seq": seq.column, "reason": reason.column}

    def _resolve(self, node: Tree) -> tuple[dict[str, Any], dict[str, int]]:
        seq, ruling = node.children
        fields = {"type": "dispute_resolved", "seq": int(seq), "ruling": read_text(ruling)}
        return fields, {"seq": seq.column, "ruling": ruling.column}

    def _pairs(self, node: Tree) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for pair in node.children:
            key, told = pair.children
            name = read_text(key)
            if name in found:
                raise self.fail(key, Words("{name} is given twice", name=name))
            found[name] = read_value(told)
        return found

    def _numbers(self, node: Tree) -> dict[str, int]:
        found: dict[str, int] = {}
        for number in node.children:
            key, told = number.children
            name = read_text(key)
            if name in found:
                raise self.fail(key, Words("{name} is given twice", name=name))
            found[name] = int(told)
        return found


def _ids(node: Tree) -> list[str]:
    return [read_text(token) for token in node.children]
