"""A battle's events as notation: the header from `battle_started`, then one line per event, under
a heading for each turn and each phase (`morale notation export`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

from morale.core.rules import Refusal
from morale.core.rulesets import lookup
from morale.events.signing import SignedHead, public_base64, public_key_from_text
from morale.events.types import (
    AnyEvent,
    Author,
    BattleStarted,
    CasualtiesSuffered,
    ChargeDeclared,
    CombatResolved,
    CombatSide,
    DiceRevealed,
    DiceRolled,
    DisputeResolved,
    EntryConfirmed,
    EntryDisputed,
    EventRetracted,
    PhaseEnded,
    PhaseStarted,
    PinnedTable,
    PlayerDecided,
    RefereeRuled,
    SeedCommitted,
    SeedRevealed,
    TableFactRecorded,
    UnitChanged,
    UnitJoined,
)

from ..tables import default_table
from .syntax import ident, text, value


def write(
    battle: str,
    events: Iterable[AnyEvent],
    authors: Sequence[Author | None] = (),
    signed: Sequence[tuple[SignedHead, str]] = (),
) -> str:
    """The notation of a battle's events, in log order; the first must be `battle_started`.
    `authors`: who entered each event (in the same order), written as a `by` line wherever it
    changes; none for a log written before authors were recorded, whose notation is unchanged.
    `signed`: heads the store signed, each with its public key's PEM, as tags after the header."""
    lines: list[str] = []
    turn = 0
    open_phase: tuple[int, str, str] | None = None
    written: Author | None = None
    at_line: dict[int, int] = {}  # each event's seq -> the index in `lines` of the line that writes it
    cited: dict[int, list[int]] = {}  # an index in `lines` -> the seqs that line cites (retract, confirm...)
    for index, event in enumerate(events):
        author = authors[index] if index < len(authors) else None
        if author != written:
            if isinstance(event, PhaseStarted) and event.turn != turn:
                turn = event.turn  # the turn's heading first, then who entered its first phase
                lines += ["", f"== Turn {turn} =="]
            lines.append(author_line(author))
            written = author
        match event:
            case BattleStarted():
                lines += header(battle, event)
                lines += signature_tags(signed)
                lines.append("")
            case PhaseStarted():
                if event.turn != turn:
                    turn = event.turn
                    lines += ["", f"== Turn {turn} =="]
                open_phase = (event.turn, event.side, event.phase)
                lines.append(f"-- {ident(event.side)} {ident(event.phase)} --")
            case PhaseEnded():
                closes = (event.turn, event.side, event.phase)
                lines.append(
                    "end" if closes == open_phase else f"end {event.turn} {ident(event.side)} {ident(event.phase)}"
                )
                open_phase = None
            case _:
                lines.append(event_line(event))
                if seqs := cited_seqs(event):
                    cited[len(lines) - 1] = seqs
        at_line[index + 1] = 0 if isinstance(event, BattleStarted) else len(lines) - 1
    return "\n".join(_with_citations(lines, at_line, cited)).strip("\n") + "\n"


def cited_seqs(event: AnyEvent) -> list[int]:
    """The sequence numbers an event names: what it strikes, confirms, disputes or settles."""
    match event:
        case EventRetracted() | EntryDisputed() | DisputeResolved():
            return [event.seq]
        case EntryConfirmed():
            return list(event.seqs)
    return []


def _with_citations(lines: list[str], at_line: dict[int, int], cited: dict[int, list[int]]) -> list[str]:
    """The notation numbers no line, so a line that cites an entry by its sequence number says, in a
    comment, which line that entry is, and the cited line is marked with its number: `retract 61
    "the reason"  ; #61 is line 140: boyz loses 5 to shooting`, and `boyz loses 5 to shooting  ; #61`."""
    out = list(lines)
    first = next((i for i, line in enumerate(lines) if line), 0)  # blank lines before it are not written
    for index, seqs in cited.items():
        found = [f"#{seq} is line {at_line[seq] + 1 - first}: {lines[at_line[seq]]}" for seq in seqs if seq in at_line]
        if found:
            out[index] += "  ; " + "; ".join(found)
    for seq in sorted({seq for seqs in cited.values() for seq in seqs if seq in at_line}):
        out[at_line[seq]] += f"  ; #{seq}"
    return out


def author_line(author: Author | None) -> str:
    """`by referee via cli "anna"`, `by orks player via console token 1a2b3c4d "Anna's phone"`, `by nobody`."""
    if author is None:
        return "by nobody"
    words = ["by", "referee"] if author.role == "referee" else ["by", ident(author.side), "player"]
    words += ["via", ident(author.via)]
    if author.token:
        words += ["token", ident(author.token)]
    if author.label:
        words.append(text(author.label))
    return " ".join(words)


def header(battle: str, started: BattleStarted) -> list[str]:
    lines = [f"[Battle {text(battle)}]"]
    if started.name:
        lines.append(f"[Name {text(started.name)}]")
    lines += [
        f"[Ruleset {text(started.ruleset)}]",
        f"[RulesetVersion {text(started.ruleset_version)}]",
        "[Sides " + " ".join(text(side) for side in started.sides) + "]",
        f"[Dice {text(started.dice_policy)}]",
    ]
    if started.dice_commitment:
        lines.append(f"[Commitment {text(started.dice_commitment)}]")
    if started.confirmation:
        lines.append('[Confirmation "on"]')
    if started.language:
        lines.append(f"[Language {text(started.language)}]")
    lines += [f"[HouseRule {ident(name)} {value(v)}]" for name, v in started.house_rules.items()]
    lines += [table_tag(started, name, table) for name, table in started.tables.items()]
    return lines


def signature_tags(signed: Sequence[tuple[SignedHead, str]]) -> list[str]:
    """`[PublicKey "ed25519:..." "base64"]` for each key, then `[SignedHead SEQ "hash" "key" "signature"]`."""
    keys = {head.key: public_base64(public_key_from_text(pem, head.key)) for head, pem in signed}
    lines = [f"[PublicKey {text(key)} {text(raw)}]" for key, raw in keys.items()]
    lines += [
        f"[SignedHead {head.seq} {text(head.hash)} {text(head.key)} {text(head.signature)}]" for head, _ in signed
    ]
    return lines


def table_tag(started: BattleStarted, name: str, table: PinnedTable) -> str:
    """A pinned table by reference where it is the shipped default with these values, else with its
    values inline (as JSON), so the notation alone gives the battle back."""
    tag = f"[Table {ident(name)} {text(table.source)} {text(table.sha256)}"
    if not _is_shipped_default(started, name, table):
        tag += " " + text(msgspec.json.encode(table.values, order="sorted").decode())
    return tag + "]"


def _is_shipped_default(started: BattleStarted, name: str, table: PinnedTable) -> bool:
    try:
        ruleset = lookup(started.ruleset, started.ruleset_version)
    except Refusal:
        return False
    if name not in ruleset.tables:
        return False
    shipped = default_table(ruleset, name)
    return (shipped.source, shipped.sha256) == (table.source, table.sha256)


def _ids(units: Iterable[str]) -> str:
    return ", ".join(ident(u) for u in units)


def _numbers(values: dict[str, int]) -> str:
    return ", ".join(f"{ident(k)}={v}" for k, v in values.items())


def _pairs(values: dict) -> str:
    return ", ".join(f"{ident(k)}={value(v)}" for k, v in values.items())


def _note(note: str) -> str:
    return f" {text(note)}" if note else ""


def _side(side: CombatSide) -> str:
    words = [f"{ident(side.side)} ({_ids(side.units)}) {side.wounds_inflicted}"]
    if side.bonus:
        words.append(f"{side.bonus:+d}")
    if side.ranks:
        words.append(f"ranks {_numbers(side.ranks)}")
    if side.unit_bonus:
        words.append(f"bonus {_numbers(side.unit_bonus)}")
    if side.left_combat:
        words.append(f"left {_ids(side.left_combat)}")
    return " ".join(words)


def event_line(event: AnyEvent) -> str:
    """One event other than the clock's and the battle's start, as one line."""
    match event:
        case UnitJoined():
            words = [f"unit {ident(event.unit)} {ident(event.side)} {ident(event.unit_type)} {event.models}"]
            words.append(text(event.name))
            if event.ld is not None:
                words.append(f"ld {event.ld}")
            if event.initiative is not None:
                words.append(f"initiative {event.initiative}")
            if event.special_rules:
                words.append(f"rules {_ids(event.special_rules)}")
            if event.profile:
                words.append(f"profile {_pairs(event.profile)}")
            return " ".join(words)
        case CasualtiesSuffered():
            cause = f" to {ident(event.cause)}" if event.cause else ""
            return f"{ident(event.unit)} loses {event.count}{cause}"
        case DiceRolled():
            verb = "rerolls" if event.reroll else "rolls"
            source = " (engine)" if event.source == "engine" else ""
            return f"{ident(event.unit)} {verb} {ident(event.test)} {' '.join(map(str, event.dice))}{source}"
        case ChargeDeclared():
            line = f"{ident(event.charger)} charges {_ids(event.targets)}"
            if event.in_range:
                line += f" in range: {_ids(event.in_range)}"
            if event.flank:
                line += f" flank: {_ids(event.flank)}"
            return line
        case CombatResolved():
            first, second = event.sides
            return f"combat {_side(first)} vs {_side(second)}"
        case TableFactRecorded():
            told = "" if event.value is True else f" = {value(event.value)}"
            return f"{ident(event.unit)}: {ident(event.fact)}{told}"
        case PlayerDecided():
            return f"{ident(event.unit)} decides {ident(event.decision)}{_note(event.note)}"
        case UnitChanged():
            return f"{ident(event.unit)} changes {_pairs(event.changes)}{_note(event.note)}"
        case RefereeRuled():
            state = f" -> {ident(event.state)}" if event.state else ""
            waive = " waive" if event.waive_tests else ""
            return f"ruling {ident(event.unit)}{state}{waive} {text(event.reason)}"
        case EventRetracted():
            return f"retract {event.seq} {text(event.reason)}"
        case DiceRevealed():
            return f"reveal {event.secret}" + (f" then {event.commitment}" if event.commitment else "")
        case SeedCommitted():
            return f"{ident(event.side)} commits seed {event.commitment}"
        case SeedRevealed():
            return f"{ident(event.side)} reveals seed {event.seed}"
        case EntryConfirmed():
            return "confirm " + ", ".join(str(seq) for seq in event.seqs)
        case EntryDisputed():
            return f"dispute {event.seq} {text(event.reason)}"
        case DisputeResolved():
            return f"resolve {event.seq} {text(event.ruling)}"
    raise ValueError(f"{type(event).__name__} has no line of its own in the notation")
