"""Time travel: the board at any point of a battle, and what changed between two points and why.

A point is written `N` (after event N), `start` (before the first phase), `end` (the whole log),
or `start:TURN[/SIDE][/PHASE]` and `end:TURN[/SIDE][/PHASE]`. A phase starts with its
`phase_started` event (tests due at its start included) and ends just before the next phase starts,
so the end of a phase includes the tests rolled when it closed.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import takewhile

import msgspec

from morale.core.fold import Fold, replay
from morale.core.rules import Refusal
from morale.core.words import Words, listed
from morale.events.numbers import whole_number
from morale.events.types import LogEntry, PhaseStarted, StoredEvent

from .board import Board, UnitRow, board
from .explain import Chronicle, Step


class Point(msgspec.Struct, frozen=True, kw_only=True):
    seq: int  # the state after this event
    label: str  # the point in words ("end of turn 2"), said in the reader's language


class Mark(msgspec.Struct, frozen=True):
    seq: int
    turn: int
    side: str
    phase: str


class UnitChange(msgspec.Struct, frozen=True, kw_only=True):
    unit: str
    name: str
    side: str
    changed: list[str]  # state, models, restrictions, due; or "joined"
    before: UnitRow | None
    after: UnitRow | None
    why: list[Step] = []  # the steps of the unit's chain between the two points


class Diff(msgspec.Struct, frozen=True, kw_only=True):
    battle: str
    before: Point
    after: Point
    units: list[UnitChange]


def marks(entries: Iterable[LogEntry]) -> list[Mark]:
    """Where each phase starts, from (seq, event) pairs in log order (the other events passed over)."""
    return [Mark(seq, event.turn, event.side, event.phase) for seq, event in entries if isinstance(event, PhaseStarted)]


class Timeline:
    """A battle's log held in memory, to be looked at from any point."""

    def __init__(self, battle_id: str, events: Iterable[StoredEvent]) -> None:
        self.battle_id = battle_id
        self.events = list(events)
        if not self.events:
            raise Refusal(Words("battle {battle!r} has no events", battle=battle_id), field="battle")
        self.last = self.events[-1].seq
        self.marks = marks((s.seq, s.event) for s in self.events)

    def point(self, spec: str) -> Point:
        spec = spec.strip()
        seq = whole_number(spec)
        if seq is not None:
            if not 1 <= seq <= self.last:
                raise Refusal(
                    Words("there is no event {seq} (the log runs from 1 to {last})", seq=seq, last=self.last),
                    field="point",
                )
            return Point(seq=seq, label=Words("after event {seq}", seq=seq))
        edge, _, where = spec.partition(":")
        if edge not in ("start", "end"):
            raise Refusal(
                Words("{point}: write N, start, end, or start:TURN[/SIDE][/PHASE], end:...", point=_shown(spec)),
                field="point",
            )
        if not where:
            seq = (self.marks[0].seq - 1) if edge == "start" and self.marks else self.last
            label = Words("before the first phase") if edge == "start" else Words("the end of the log")
            return Point(seq=seq, label=label)
        marks = self._matching(spec, where)
        label = _edge_label(edge, where)
        if edge == "start":
            return Point(seq=marks[0].seq, label=label)
        after = [m.seq for m in self.marks if m.seq > marks[-1].seq]
        return Point(seq=(after[0] - 1) if after else self.last, label=label)

    def _matching(self, spec: str, where: str) -> list[Mark]:
        turn_text, *parts = where.split("/")
        turn = whole_number(turn_text)
        if turn is None:
            raise Refusal(Words("{point}: the turn must be a number", point=_shown(spec)), field="point")
        in_turn = [m for m in self.marks if m.turn == turn]
        if not in_turn:
            span = turn_span(m.turn for m in self.marks)
            raise Refusal(
                Words("{point}: that never happened in this log (it has {span})", point=_shown(spec), span=span),
                field="point",
            )
        marks = in_turn
        for part in parts:
            marks = [m for m in marks if part in (m.side, m.phase)]
        if not marks:
            sides = listed(dict.fromkeys(m.side for m in in_turn))
            phases = listed(dict.fromkeys(m.phase for m in in_turn))
            said = Words(
                "{point}: that never happened in this log (turn {turn}: sides {sides}; phases {phases})",
                point=_shown(spec),
                turn=turn_text,
                sides=sides,
                phases=phases,
            )
            raise Refusal(said, field="point")
        return marks

    def board_at(self, point: Point) -> Board:
        return self._walk([point.seq])[1][point.seq]

    def diff(self, before: Point, after: Point) -> Diff:
        if before.seq > after.seq:
            said = Words(
                "the first point ({before}) comes after the second ({after}): give the earlier point first",
                before=before.label,
                after=after.label,
            )
            raise Refusal(said, field="point")
        chronicle, boards = self._walk([before.seq, after.seq])
        changes = compare_boards(boards[before.seq], boards[after.seq])
        units = [
            msgspec.structs.replace(change, why=steps_between(chronicle.steps.get(change.unit, []), before.seq))
            for change in changes
        ]
        return Diff(battle=self.battle_id, before=before, after=after, units=units)

    def _walk(self, seqs: list[int]) -> tuple[Chronicle, dict[int, Board]]:
        chronicle = Chronicle(self.battle_id)
        boards: dict[int, Board] = {}
        for stored in self.events:
            if stored.seq > max(seqs):
                break
            chronicle.add(stored.seq, stored.event)
            if stored.seq in seqs:
                boards[stored.seq] = board(chronicle.fold.state())
        return chronicle, boards


def _edge_label(edge: str, where: str) -> Words:
    """ "end of turn 2", "start of turn 2, orks, shooting": the turn, then any side or phase as typed."""
    turn, *parts = where.split("/")
    if edge == "start":
        if parts:
            return Words("start of turn {turn}, {parts}", turn=turn, parts=listed(parts))
        return Words("start of turn {turn}", turn=turn)
    if parts:
        return Words("end of turn {turn}, {parts}", turn=turn, parts=listed(parts))
    return Words("end of turn {turn}", turn=turn)


def _shown(spec: str) -> str:
    """A point as typed, for a refusal: a long one cut short, so the refusal stays one readable line."""
    return repr(spec) if len(spec) <= 40 else f"{spec[:37]!r}..."


def turn_span(turns: Iterable[int]) -> Words:
    """The game turns a log has, in words for a refusal: "turns 1 to 3", "turn 1 only", "no turn yet"."""
    found = sorted(set(turns) - {0})  # turn 0: before the first phase, not a game turn
    if not found:
        return Words("no turn yet")
    if len(found) == 1:
        return Words("turn {turn} only", turn=found[0])
    if found == list(range(found[0], found[-1] + 1)):
        return Words("turns {first} to {last}", first=found[0], last=found[-1])
    return Words("turns {turns}", turns=listed(map(str, found)))


def steps_between(steps: list[Step], after_seq: int) -> list[Step]:
    """The steps that happened, or were settled, after `after_seq` (the walk stopped at the later point)."""
    return [s for s in steps if s.seq > after_seq or (s.settled_at or 0) > after_seq]


def compare_boards(before: Board, after: Board) -> list[UnitChange]:
    """The units whose state, models, restrictions or tests due differ between two boards."""
    old = {row.unit: row for row in before.units}
    changes = []
    for row in after.units:
        was = old.get(row.unit)
        changed = ["joined"] if was is None else _changed_fields(was, row)
        if changed:
            changes.append(
                UnitChange(unit=row.unit, name=row.name, side=row.side, changed=changed, before=was, after=row)
            )
    return changes


def _changed_fields(was: UnitRow, now: UnitRow) -> list[str]:
    fields = [name for name in ("state", "models", "due") if getattr(was, name) != getattr(now, name)]
    if [(r.text, r.until, r.at) for r in was.restrictions] != [(r.text, r.until, r.at) for r in now.restrictions]:
        fields.append("restrictions")
    return fields


def fold_at(battle_id: str, events: Iterable[StoredEvent], seq: int) -> Fold:
    """The battle as it stood right after event `seq` (a later retraction does not reach back)."""
    return replay(battle_id, takewhile(lambda stored: stored.seq <= seq, events))
