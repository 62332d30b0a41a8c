"""A battle as rows of SQL tables, for the tools people already use (Datasette, sqlite3, a
spreadsheet): its units and their profile, every test (trigger, rule, modifiers, target, odds,
dice, result), every state change with its cause, and the board at each phase's end. Read-only:
one replay of the log; `app/sql_tables.py` writes the rows."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from morale.core.outcomes import StateChanged, opposed_words
from morale.events.types import PhaseStarted, StoredEvent, UnitJoined

from .authorship import author_words
from .board import Board, board
from .claims import ClaimsView, claims_view
from .explain import Chronicle, Roll, Step
from .luck import luck
from .snapshots import engine_version

# Each table: its columns (SQLite types), and its primary key.
SCHEMA: dict[str, tuple[dict[str, type], tuple[str, ...]]] = {
    "units": (
        {
            "battle": str,
            "unit": str,
            "name": str,
            "side": str,
            "unit_type": str,
            "starting_models": int,
            "ld": int,
            "initiative": int,
            "special_rules": str,  # JSON list
            "profile": str,  # JSON object: the fields one ruleset reads (quality, brigade...)
            "joined_at": int,
            "final_state": str,
            "final_state_name": str,
            "final_models": int,
        },
        ("battle", "unit"),
    ),
    "tests": (
        {
            "battle": str,
            "id": int,  # the test's place in the battle, 1, 2, 3...
            "unit": str,
            "side": str,
            "test": str,
            "due_at": int,  # the event it fell due after
            "turn": int,
            "phase": str,
            "trigger": str,  # the rule ID that made it due
            "caused_by": str,  # JSON list of sequence numbers
            "target": int,
            "modifiers": str,  # JSON list of {value, reason, rule, ignored_by}
            "modifier_total": int,  # the modifiers that counted
            "chance": float,  # of passing, exactly, as the dice were rolled (or as it fell due)
            "dice": str,  # JSON list
            # the dice in words: "4 + 3"; a test both sides roll, each side's die and what it adds
            # ("loser 5 + initiative 3 = 8 against winners 2 + initiative 2 = 4"), with no total
            "rolled": str,
            "total": int,
            "result": str,  # passed, failed, not taken, moved, or due (not settled yet)
            "words": str,  # the test in words, as explain tells it (a results table's reading included)
            "automatic": int,
            "rule": str,  # the rule ID that gave the result
            "settled_at": int,
        },
        ("battle", "id"),
    ),
    "state_changes": (
        {
            "battle": str,
            "seq": int,
            "turn": int,
            "side": str,
            "phase": str,
            "unit": str,
            "from_state": str,
            "to_state": str,
            "from_name": str,
            "to_name": str,
            "rule": str,
            "caused_by": str,  # JSON list of sequence numbers
        },
        ("battle", "seq", "unit", "to_state"),
    ),
    # Every stored event and who entered it: the author sealed with it (empty where not recorded).
    "entries": (
        {
            "battle": str,
            "seq": int,
            "recorded_at": str,
            "type": str,
            "summary": str,  # the event in words, as the log says it
            "author_role": str,  # referee or player; empty: written before authors were recorded
            "author_side": str,  # a player's side
            "author_via": str,  # cli, http, console, import or notation
            "author_token": str,  # the credential's public id, never its secret
            "author_label": str,  # the credential's label, or the login name of who typed the command
            "entered_by": str,  # all of it in words: "orks player (console, Anna's phone)", "not recorded"
        },
        ("battle", "seq"),
    ),
    # In a battle whose players confirm each other's entries: every dispute and how it ended.
    "disputes": (
        {
            "battle": str,
            "seq": int,  # the dispute's own entry
            "entry": int,  # the disputed entry
            "entry_type": str,
            "entry_summary": str,
            "side": str,  # the side that disputed it
            "reason": str,
            "status": str,  # open, stands, withdrawn or struck
            "ended_at": int,
            "ruling": str,  # the ruling's words, or the strike's reason
            "disputed_by": str,
            "ended_by": str,
            "words": str,  # the dispute and how it ended, in one sentence
        },
        ("battle", "seq"),
    ),
    "boards": (
        {
            "battle": str,
            "seq": int,  # the phase's last event
            "turn": int,
            "side": str,
            "phase": str,
            "unit": str,
            "state": str,
            "state_name": str,
            "models": int,
            "restrictions": str,  # JSON list of {text, rule, until, at} (at: when a scheduled change happens)
            "due": str,  # JSON list
        },
        ("battle", "seq", "unit"),
    ),
}


def tables_version() -> str:
    """What the rows depend on: the engine that folds the log, and this module that lays them out."""
    rows = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:8]
    return f"{engine_version()}.{rows}"


@dataclass
class Rows:
    battle: str
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {name: [] for name in SCHEMA})


def battle_rows(battle_id: str, events: Iterable[StoredEvent]) -> Rows:
    events = list(events)
    chronicle = Chronicle(battle_id)
    rows = Rows(battle_id)
    where: dict[int, tuple[int, str, str]] = {}
    joined: dict[str, tuple[int, UnitJoined]] = {}
    phase_open = False
    last_seq = 0
    for stored in events:
        fold = chronicle.fold
        if isinstance(stored.event, PhaseStarted) and phase_open:
            _board_rows(rows, board(fold.state()))
        caused = chronicle.add(stored.seq, stored.event, stored.author)
        state = chronicle.fold.state()
        rows.tables["entries"].append(_entry_row(battle_id, stored, chronicle.said[stored.seq]))
        last_seq = stored.seq
        phase_open = phase_open or isinstance(stored.event, PhaseStarted)
        where[stored.seq] = (state.turn, state.active_side or "", state.phase or "")
        if isinstance(stored.event, UnitJoined):
            joined[stored.event.unit] = (stored.seq, stored.event)
        names = state.ruleset.state_name if state else str
        for outcome in caused:
            if isinstance(outcome, StateChanged):
                turn, side, phase = where[stored.seq]
                rows.tables["state_changes"].append(
                    {
                        "battle": battle_id,
                        "seq": stored.seq,
                        "turn": turn,
                        "side": side,
                        "phase": phase,
                        "unit": outcome.unit,
                        "from_state": outcome.from_state,
                        "to_state": outcome.to_state,
                        "from_name": names(outcome.from_state),
                        "to_name": names(outcome.to_state),
                        "rule": outcome.rule,
                        "caused_by": json.dumps(list(outcome.caused_by)),
                    }
                )
    if not last_seq:
        return rows
    final = board(chronicle.fold.state())
    if phase_open:
        _board_rows(rows, final)
    _unit_rows(rows, final, joined)
    rolled = {(roll.unit, roll.seq): roll.chance for roll in luck(battle_id, events).rolls}
    _test_rows(rows, final, chronicle.steps, where, rolled)
    if chronicle.fold.state().confirmation:
        _dispute_rows(rows, claims_view(battle_id, events))
    return rows


def _dispute_rows(rows: Rows, view: ClaimsView) -> None:
    rows.tables["disputes"] += [
        {
            "battle": view.battle,
            "seq": row.seq,
            "entry": row.entry,
            "entry_type": row.entry_type,
            "entry_summary": row.entry_said,
            "side": row.side,
            "reason": row.reason,
            "status": row.status,
            "ended_at": row.ended_at,
            "ruling": row.ruling,
            "disputed_by": row.disputed_by,
            "ended_by": row.ended_by,
            "words": row.said,
        }
        for row in view.disputes
    ]


def _entry_row(battle_id: str, stored: StoredEvent, summary: str) -> dict[str, Any]:
    author = stored.author
    return {
        "battle": battle_id,
        "seq": stored.seq,
        "recorded_at": stored.recorded_at,
        "type": stored.event.__struct_config__.tag,
        "summary": summary,
        "author_role": author.role if author else "",
        "author_side": author.side if author else "",
        "author_via": author.via if author else "",
        "author_token": author.token if author else "",
        "author_label": author.label if author else "",
        "entered_by": author_words(author),
    }


def _board_rows(rows: Rows, view: Board) -> None:
    for unit in view.units:
        rows.tables["boards"].append(
            {
                "battle": rows.battle,
                "seq": view.seq,
                "turn": view.turn,
                "side": view.side or "",
                "phase": view.phase or "",
                "unit": unit.unit,
                "state": unit.state,
                "state_name": unit.state_name,
                "models": unit.models,
                "restrictions": json.dumps(
                    [{"text": r.text, "rule": r.rule, "until": r.until, "at": r.at} for r in unit.restrictions]
                ),
                "due": json.dumps(unit.due),
            }
        )


def _unit_rows(rows: Rows, final: Board, joined: dict[str, tuple[int, UnitJoined]]) -> None:
    for unit in final.units:
        seq, event = joined[unit.unit]
        rows.tables["units"].append(
            {
                "battle": rows.battle,
                "unit": unit.unit,
                "name": unit.name,
                "side": unit.side,
                "unit_type": unit.unit_type,
                "starting_models": event.models,
                "ld": event.ld,
                "initiative": event.initiative,
                "special_rules": json.dumps(list(event.special_rules)),
                "profile": json.dumps(event.profile, sort_keys=True),
                "joined_at": seq,
                "final_state": unit.state,
                "final_state_name": unit.state_name,
                "final_models": unit.models,
            }
        )


def _rolled(roll: Roll | None) -> str | None:
    if roll is None:
        return None
    return opposed_words(roll.opposed) if roll.opposed else " + ".join(map(str, roll.dice))


def _test_rows(
    rows: Rows,
    final: Board,
    steps: dict[str, list[Step]],
    where: dict[int, tuple[int, str, str]],
    rolled: dict[tuple[str, int], float],
) -> None:
    sides = {unit.unit: unit.side for unit in final.units}
    tests = sorted(
        ((unit, step) for unit, unit_steps in steps.items() for step in unit_steps if step.kind == "test"),
        key=lambda pair: (pair[1].seq, pair[1].settled_at or 0),
    )
    for number, (unit, step) in enumerate(tests, start=1):
        turn, _, phase = where.get(step.seq, (0, "", ""))
        counted = [m for m in step.modifiers if not m.ignored_by]
        rows.tables["tests"].append(
            {
                "battle": rows.battle,
                "id": number,
                "unit": unit,
                "side": sides.get(unit, ""),
                "test": step.test,
                "due_at": step.seq,
                "turn": turn,
                "phase": phase,
                "trigger": step.trigger,
                "caused_by": json.dumps([cited.seq for cited in step.caused_by]),
                "target": step.target,
                "modifiers": json.dumps(
                    [
                        {"value": m.value, "reason": m.reason, "rule": m.rule, "ignored_by": m.ignored_by}
                        for m in step.modifiers
                    ]
                ),
                "modifier_total": sum(m.value for m in counted),
                # the chance as the dice were rolled (luck's), else as the test fell due
                "chance": rolled.get((unit, step.settled_at or 0), step.chance),
                "dice": json.dumps(list(step.roll.dice)) if step.roll else None,
                "rolled": _rolled(step.roll),
                "total": step.roll.total if step.roll else None,
                "result": step.status,
                "words": step.text,
                "automatic": int(step.automatic),
                "rule": step.rule,
                "settled_at": step.settled_at,
            }
        )
