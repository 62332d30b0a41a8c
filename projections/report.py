"""Everything a battle report shows, from one reading of the log: the narrative turn by turn, the
board at each turn's end, every test with its odds and dice, each side's luck, each unit's state at
every phase end, cumulative luck roll by roll, and the head hash. Read-only; `app/report/` lays it
out as one HTML file."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from morale.core.fold import replay
from morale.core.machine import BY_STANDING
from morale.core.referee import next_phase
from morale.core.rules import Refusal
from morale.core.state import Battle
from morale.core.words import Words
from morale.events.types import EventRetracted, StoredEvent

from .authorship import author_words
from .board import Board
from .claims import ClaimsView, claims_view
from .explain import Chronicle, Step
from .log import struck_words
from .luck import Luck, SideLuck, luck
from .naming import test_named
from .narrative import Line, narrate
from .sql_rows import battle_rows
from .timeline import Timeline
from .vocabulary import phase_name

# The order a state chart's axis reads, from holding to gone (a ruleset uses the states it knows).
STATE_ORDER = BY_STANDING


@dataclass(frozen=True)
class Turn:
    number: int
    lines: list[Line]
    board: Board  # at the end of the turn, or as it stands if the turn is still being played
    tests: list[dict]  # rows of `tests` (projections/sql_rows.py) that fell due this turn
    over: bool = True  # False: the log ends inside this turn, so `board` is the board as it stands


@dataclass(frozen=True)
class UnitSeries:
    unit: str
    name: str
    side: str
    states: list[str | None]  # at each phase end; None before the unit joined


@dataclass(frozen=True)
class Report:
    battle: str
    title: str  # the battle's name, or its id
    ruleset: str  # "Warhammer 40,000 6th edition (wh40k6 v1)"
    sides: tuple[str, ...]
    state_names: dict[str, str]  # machine value -> the ruleset's word
    events: int
    head: str
    turns: list[Turn]
    luck: list[SideLuck]  # as `morale luck` gives them: the same statistic and verdict
    luck_detail: Luck
    phase_ends: list[str]  # labels of the phase ends the series run over
    series: list[UnitSeries]
    cumulative_luck: dict[str, list[tuple[int, float]]]  # side -> (seq, passes - expected so far)
    struck: dict[int, str] = field(default_factory=dict)  # a struck event's seq -> who struck it, where, why
    claims: ClaimsView | None = None  # a battle that asks for confirmation: its disputes and open claims
    # The words of the tests the rows flatten to English: each row's step (by the row's `id`), with its
    # modifiers' reasons and its dice in words, and each test's name as the story says it.
    steps: dict[int, Step] = field(default_factory=dict)
    test_names: dict[str, str] = field(default_factory=dict)


def report(battle_id: str, events: Iterable[StoredEvent]) -> Report:
    events = list(events)
    if not events:
        raise Refusal(Words("battle {battle!r} has no events", battle=battle_id), field="battle")
    battle = replay(battle_id, events).state()
    ruleset = battle.ruleset
    lines = narrate(battle_id, events)
    timeline = Timeline(battle_id, events)
    rows = battle_rows(battle_id, events).tables
    turns = []
    for number in sorted({line.turn for line in lines} - {0}):
        end = timeline.board_at(timeline.point(f"end:{number}"))
        tests = [t for t in rows["tests"] if t["turn"] == number]
        told = [line for line in lines if line.turn == number]
        turns.append(Turn(number=number, lines=told, board=end, tests=tests, over=turn_over(battle, number)))
    prologue = [line for line in lines if line.turn == 0]
    if prologue and turns:
        turns[0] = Turn(turns[0].number, prologue + turns[0].lines, turns[0].board, turns[0].tests, turns[0].over)
    found = luck(battle_id, events)
    return Report(
        battle=battle_id,
        title=getattr(events[0].event, "name", "") or battle_id,
        ruleset=Words("{title} ({id} v{version})", title=ruleset.title, id=ruleset.id, version=ruleset.version),
        sides=tuple(battle.sides),
        state_names={state: ruleset.state_name(state) for state in STATE_ORDER},
        events=len(events),
        head=events[-1].hash,
        turns=turns,
        luck=found.sides,
        luck_detail=found,
        phase_ends=_phase_end_labels(rows["boards"]),
        series=_series(rows["boards"], rows["units"]),
        cumulative_luck=_cumulative(found),
        struck=_struck(events),
        claims=claims_view(battle_id, events) if battle.confirmation else None,
        steps=_steps(battle_id, events, rows["tests"]),
        test_names={test: test_named(ruleset, test) for test in {t["test"] for t in rows["tests"]}},
    )


def _steps(battle_id: str, events: list[StoredEvent], tests: list[dict]) -> dict[int, Step]:
    """Each row of `tests` with the step it was made from (the rows keep only the English of its words)."""
    chronicle = Chronicle(battle_id)
    for stored in events:
        chronicle.add(stored.seq, stored.event, stored.author)
    by_key = {
        (unit, step.seq, step.test, step.settled_at): step
        for unit, steps in chronicle.steps.items()
        for step in steps
        if step.kind == "test"
    }
    found = {}
    for row in tests:
        step = by_key.get((row["unit"], row["due_at"], row["test"], row["settled_at"]))
        if step is not None:
            found[row["id"]] = step
    return found


def turn_over(battle: Battle, number: int) -> bool:
    """Turn `number` has been played to its end by the battle as its log leaves it: a later turn has
    begun, or the last phase of the turn has ended and the next to start is the next turn's first."""
    if battle.turn != number:
        return battle.turn > number
    return not battle.phase_open and next_phase(battle)[0] == number + 1


def _struck(events: list[StoredEvent]) -> dict[int, str]:
    """Each struck event's retraction in the log's words (as `morale log` says it)."""
    return {
        stored.event.seq: struck_words(stored.seq, stored.author, author_words(stored.author), stored.event.reason)
        for stored in events
        if isinstance(stored.event, EventRetracted)
    }


def _phase_end_labels(boards: list[dict]) -> list[str]:
    seen = dict.fromkeys((b["seq"], b["turn"], b["side"], b["phase"]) for b in boards)
    return [
        Words("T{turn} {side} {phase}", turn=turn, side=side, phase=phase_name(phase)) for _, turn, side, phase in seen
    ]


def _series(boards: list[dict], units: list[dict]) -> list[UnitSeries]:
    ends = list(dict.fromkeys(b["seq"] for b in boards))
    at = {(b["seq"], b["unit"]): b["state"] for b in boards}
    return [
        UnitSeries(unit=u["unit"], name=u["name"], side=u["side"], states=[at.get((seq, u["unit"])) for seq in ends])
        for u in units
    ]


def _cumulative(found: Luck) -> dict[str, list[tuple[int, float]]]:
    running: dict[str, float] = {side.side: 0.0 for side in found.sides}
    points: dict[str, list[tuple[int, float]]] = {side: [] for side in running}
    for roll in found.rolls:
        running[roll.side] += (1.0 if roll.passed else 0.0) - roll.chance
        points[roll.side].append((roll.seq, running[roll.side]))
    return points
