"""What every ruleset provides, and the registry of the games installed.

A ruleset is data (id, version, phases, unit types, parameters, tests, its state graph and the words
for its states, its data tables and profile fields) plus its clauses: those that act are filed in
its `Rulebook` (`rulebook`, core/reactions.py) with what they react to, and the referee's checks of
its own beside them. The tables of facts, decisions, special rules and phrases are built from the
clauses' declarations, and what the views ask of a game (a due test's target and odds, what a
state forbids) is read from its rulebook too. What is left as methods are a game's defaults, which
decide nothing: its first memory and a unit's first notes, a profile in words, a point in time.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from importlib.metadata import EntryPoint
from importlib.resources.abc import Traversable
from typing import Any

import msgspec

from morale.events.codec import table_sha256
from morale.events.types import (
    FactValue,
    PinnedTable,
    UnitChanged,
    UnitJoined,
)

from .. import installed
from ..installed import About
from ..machine import StateGraph
from ..outcomes import (
    Modifier,
    TestResolved,
)
from ..reactions import Rulebook
from ..rules import Refusal, declared, fact_kinds
from ..state import Battle, DueTest, Point, Unit
from ..view import BattleView, UnitView
from ..words import Words, in_book, listed


def leadership_result(
    unit: UnitView,
    due: DueTest,
    dice: tuple[int, ...],
    target: int,
    *,
    rule: str,
    passed: bool | None = None,
    modifiers: tuple[Modifier, ...] | None = None,
) -> TestResolved:
    """A roll of the dice against a target that the total must not exceed (a Leadership test), as
    `rule` decides it: passed when the total is under or equal, unless the rule says otherwise."""
    total = sum(dice)
    return TestResolved(
        unit=unit.id,
        rule=rule,
        caused_by=due.caused_by,
        test=due.test,
        trigger=due.rule,
        passed=total <= target if passed is None else passed,
        dice=dice,
        total=total,
        target=target,
        modifiers=due.modifiers if modifiers is None else modifiers,
    )


def pass_or_fail(passed: bool) -> tuple[str, bool]:
    """What a test's reading says of a roll that passes or fails (`Rulebook.reads`' result)."""
    return ("pass", True) if passed else ("fail", False)


@dataclass(frozen=True)
class TableSpec:
    """A data table a ruleset reads (a results table): its shipped default file (package data of the
    game's own package, `Ruleset.shipped`), the msgspec Struct its values must convert to, and the
    rule ID it carries."""

    file: str
    schema: type[msgspec.Struct]
    rule: str


# The end of each phase of the clock the games of this repository play, as a restriction lasts until
# it (`Ruleset.describe_point`): one sentence a phase, since Russian puts a phase's name its own
# way ("конец фазы Движения", "конец Психической фазы"). A phase of another game is named as it is.
_PHASE_ENDS: Mapping[str, Callable[[str, int], str]] = {
    "start_of_turn": lambda side, turn: Words(
        "end of the start_of_turn phase ({side}, turn {turn})", side=side, turn=turn
    ),
    "command": lambda side, turn: Words("end of the command phase ({side}, turn {turn})", side=side, turn=turn),
    "movement": lambda side, turn: Words("end of the movement phase ({side}, turn {turn})", side=side, turn=turn),
    "psychic": lambda side, turn: Words("end of the psychic phase ({side}, turn {turn})", side=side, turn=turn),
    "magic": lambda side, turn: Words("end of the magic phase ({side}, turn {turn})", side=side, turn=turn),
    "shooting": lambda side, turn: Words("end of the shooting phase ({side}, turn {turn})", side=side, turn=turn),
    "charge": lambda side, turn: Words("end of the charge phase ({side}, turn {turn})", side=side, turn=turn),
    "assault": lambda side, turn: Words("end of the assault phase ({side}, turn {turn})", side=side, turn=turn),
    "fight": lambda side, turn: Words("end of the fight phase ({side}, turn {turn})", side=side, turn=turn),
    "close_combat": lambda side, turn: Words(
        "end of the close_combat phase ({side}, turn {turn})", side=side, turn=turn
    ),
}


def _must_be(key: str, default: object) -> str:
    """Why a house rule's value is refused: it is not of its default's type."""
    if isinstance(default, bool):
        return Words("house rule {key!r} must be bool", key=key)
    if isinstance(default, int):
        return Words("house rule {key!r} must be int", key=key)
    if isinstance(default, float):
        return Words("house rule {key!r} must be float", key=key)
    if isinstance(default, str):
        return Words("house rule {key!r} must be str", key=key)
    return Words("house rule {key!r} must be {kind}", key=key, kind=type(default).__name__)


def _known(names: Iterable[str]) -> str:
    """The names a refusal lists as known ("a, b"), or "none"."""
    found = list(names)
    return listed(found) if found else Words("none")


class Ruleset:
    id: str = ""
    version: str = ""
    title: str = ""
    # Where `morale rulesets` (and every list of the games) places it: lower first, a tie in the order
    # the entry points come (core/installed.py). A game of another package may leave it at 100.
    listing_order: int = 100
    # How list builders (BattleScribe's BSData) name the game system the ruleset plays, as a regular
    # expression matched without regard to case ("Warhammer 40,000 6th Edition"); "": none.
    game_systems: str = ""
    phases: tuple[str, ...] = ()
    graph: StateGraph
    # The game's clauses that act (reactions) and its checks (`core/reactions.py`).
    rulebook: Rulebook
    unit_types: Mapping[str, object] = {}
    special_rules: Mapping[str, str] = {}  # name -> rule ID that gives it effect
    facts: Mapping[str, str] = {}  # fact -> rule ID that reads it
    fact_kinds: Mapping[str, str | tuple[str, ...]] = {}  # fact -> the kind of value stated (rules.FACT_KINDS)
    causes: Mapping[str, str] = {}  # a casualties `cause` the rules read -> the rule ID that reads it
    # What the rulebook says removes models (shooting, close combat, Dangerous terrain...): cause ->
    # the ruleset's words for it. The choices a form offers for a casualties `cause` (the field stays
    # free text); every cause a clause reads (`causes`) is among them.
    casualty_causes: Mapping[str, str] = {}
    # Every test a unit may have due, in the ruleset's words ("Morale test", "Fall Back move"): a
    # test a ruleset makes due must be named here (`require` refuses to make another one due).
    tests: Mapping[str, str] = {}
    combat_reports: bool = True  # False: combat_resolved is refused (the ruleset reads melees otherwise)
    decisions: Mapping[str, str] = {}  # decision -> rule ID that allows it
    parameters: Mapping[str, FactValue] = {}  # house-rule-able numbers, with their defaults
    # A parameter that is one of a few words ("fall_back_towards": "table_edge" or "nearest_cover"):
    # parameter -> the words it may take (the first is its default, in `parameters`).
    parameter_choices: Mapping[str, tuple[str, ...]] = {}
    restrictions: Mapping[str, str] = {}  # restriction -> what it forbids, in the rulebook's words
    # The ruleset's own profile fields (UnitJoined.profile), as a msgspec Struct with defaults and
    # constraints; None: the ruleset reads no profile fields.
    profile_type: type[msgspec.Struct] | None = None
    # What each of a unit's notes (Unit.notes) holds, as a type msgspec reads: a snapshot stores the
    # notes as data and reads each back as this type (a tuple stays a tuple). A note not named here
    # cannot be frozen into a snapshot (projections/snapshot_data.py).
    note_types: Mapping[str, Any] = {}
    changeable: frozenset[str] = frozenset()  # profile fields a unit_changed event may set
    phrases: Mapping[str, str] = {}  # rule ID -> how the narrative words the state change it causes
    # State -> the ruleset's own word for it ("fleeing", "routing"), wherever a person reads a unit's
    # state: the board, the viewer, explain, the narrative where no clause phrase words the change.
    # The states stay the shared model's machine values (events, JSON `state` fields, the graph); this
    # is their display. Each ruleset names every state its graph can reach (a test checks it).
    state_names: Mapping[str, str] = {}
    # Unit type -> the game's own word for it ("infantry": пехота in Russian), wherever a person reads
    # a unit's type: the story, the board, the console's forms. The types stay machine values (events,
    # the roster, JSON `unit_type` fields); a type the game names none for reads as its machine value.
    unit_type_names: Mapping[str, str] = {}
    # Fact -> the game's words for it, and decision (free ones too) -> the game's words for it, where
    # the story names one for a person ("At the table: Boyz reached table edge", Russian "достигло
    # края стола"). The machine names stay what a user types (`fact=`, `decision=`) and what JSON
    # carries; one the game names none for reads as its machine name with spaces.
    fact_names: Mapping[str, str] = {}
    decision_names: Mapping[str, str] = {}
    # Likewise a profile field ("formation"), the values a profile field or a fact of a few choices
    # takes (field or fact -> value -> words: "line" is a formation's линия, not a quality's), and a
    # marker the rules place ("dispersal point").
    field_names: Mapping[str, str] = {}
    value_names: Mapping[str, Mapping[str, str]] = {}
    marker_names: Mapping[str, str] = {}
    # A rulebook phase may span several steps of the clock ("Start of Turn" is part of the Movement
    # phase): clock phase -> the rulebook phase it belongs to, where they differ.
    phase_of: Mapping[str, str] = {}
    once_per_phase: Mapping[str, str] = {}  # test -> rule ID that lets a unit take it at most once a phase
    # test -> rule ID by which, when several units of one side have it due at once, their player
    # chooses the order (a `test_first` decision) before any of them rolls.
    ordered_tests: Mapping[str, str] = {}
    combat_detail: frozenset[str] = frozenset()  # per-unit fields of a combat report the ruleset reads
    # True: both sides act in every phase of a game turn (the clock names the first side); False:
    # each side plays all the phases in its own player turn, then the other side does.
    shared_turn: bool = False
    # Data tables every battle pins in battle_started.tables (name -> spec); see TableSpec.
    tables: Mapping[str, TableSpec] = {}
    # Decisions a player may take when the rules allow, not to settle a due test (a wavering
    # battalion reforms): decision -> rule ID. Checked by check_free_decision.
    free_decisions: Mapping[str, str] = {}
    # True: once a unit is out of play (and its phase marks reset), no hook of this ruleset changes it
    # again, so the state digest may keep its encoding (Battle.departed_views). Only a state change brings it
    # back, and that is tracked. False for rulesets whose turn or phase hooks walk every unit that
    # ever joined (gdb clears every unit's turn notes; wfb8 clears charges and foes across the board).
    # The test harness checks the kept encodings after every event of every test.
    settles_units_out_of_play: bool = False

    def __init__(self) -> None:
        # The tables a clause answers are built from the declarations (`rules.clause`), never written
        # out beside them: the ruleset's modules are imported by now, so every clause is declared.
        self.special_rules = declared(self.id, "special_rule")
        self.facts = declared(self.id, "fact")
        self.fact_kinds = fact_kinds(self.id)
        self.causes = declared(self.id, "cause")
        unnamed = sorted(set(self.causes) - set(self.casualty_causes))
        if unnamed:
            raise TypeError(f"{self.id}: the causes its clauses read have no words in casualty_causes: {unnamed}")
        self.decisions = declared(self.id, "decision")
        self.free_decisions = declared(self.id, "free_decision")
        self.once_per_phase = declared(self.id, "once_per_phase")
        self.ordered_tests = declared(self.id, "ordered_test")
        self.phrases = declared(self.id, "phrase")

    def shipped(self, file: str) -> Traversable:
        """A data file the game ships beside its code: package data of the package whose module
        defines its class (`morale.core.rulesets.gdb` for GDB), wherever that package is installed."""
        module = sys.modules[type(self).__module__]
        return resources.files(module.__package__ or module.__name__) / file

    def state_name(self, state: str) -> str:
        """The ruleset's word for `state`, as the ruleset gives it (`Words`, said in the reader's
        language at the edge); its machine value with spaces if it names none."""
        return self._named(self.state_names, state)

    def unit_type_name(self, unit_type: str) -> str:
        """The ruleset's word for `unit_type` ("infantry", said пехота in Russian), as `state_name`
        gives a state's; its machine value with spaces if it names none (a game written before keeps
        reading as it did)."""
        return self._named(self.unit_type_names, unit_type)

    def fact_name(self, fact: str) -> str:
        """The ruleset's words for `fact` ("reached table edge"), as `state_name` gives a state's."""
        return self._named(self.fact_names, fact)

    def decision_name(self, decision: str) -> str:
        """The ruleset's words for `decision` ("decline regroup"), as `state_name` gives a state's."""
        return self._named(self.decision_names, decision)

    def field_name(self, field: str) -> str:
        """The ruleset's words for a profile field ("formation"), as `state_name` gives a state's."""
        return self._named(self.field_names, field)

    def value_name(self, field: str, value: str) -> str:
        """The ruleset's words for `value` of a profile field or a fact ("skirmish order"), as
        `state_name` gives a state's."""
        return self._named(self.value_names.get(field, {}), value)

    def marker_name(self, marker: str) -> str:
        """The ruleset's words for a marker ("dispersal point"), as `state_name` gives a state's."""
        return self._named(self.marker_names, marker)

    def test_said(self, test: str) -> Words:
        """A test as a refusal names it: its machine name in English, as refusals have always named
        it, and the ruleset's name for it ("Тест на Мораль") in another language. (Each language
        shows one of the two placeholders: `{x:.0}` formats a value as nothing.)"""
        return Words("{english}{name:.0}", english=test, name=self.tests.get(test, test))

    def _named(self, names: Mapping[str, str], value: str) -> str:
        """The game's words for a machine value, from one of its tables of names (its value with
        spaces where it names none), said from this game's own catalogue first: another game may
        say the same English otherwise ("regrouped", "infantry battalion")."""
        name = names.get(value, value.replace("_", " "))
        return in_book(name, type(self).__module__.rpartition(".")[0]) if isinstance(name, Words) else name

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        # A copied or pickled battle refers to its ruleset by id and version, never by copy, and
        # finds it again in the registry below (which imports the game's entry point if need be).
        return (lookup, (self.id, self.version))

    # -- set-up -----------------------------------------------------------------------------
    def check_house_rules(self, house_rules: Mapping[str, object]) -> None:
        for key, value in house_rules.items():
            if key not in self.parameters:
                raise Refusal(
                    Words(
                        "unknown house rule {key!r} for {ruleset} (known: {known})",
                        key=key,
                        ruleset=self.id,
                        known=_known(sorted(self.parameters)),
                    ),
                    field="house_rules",
                )
            if type(value) is not type(self.parameters[key]):
                raise Refusal(_must_be(key, self.parameters[key]), field="house_rules")
            choices = self.parameter_choices.get(key)
            if choices is not None and value not in choices:
                raise Refusal(
                    Words("{key} is one of {choices}, not {value!r}", key=key, choices=listed(choices), value=value),
                    field="house_rules",
                )

    def check_tables(self, pinned: Mapping[str, PinnedTable]) -> None:
        """Every table the ruleset reads is pinned, with values that hash to the pinned sha256 and
        that the ruleset can read; refuses naming the table."""
        unknown = [name for name in pinned if name not in self.tables]
        if unknown:
            raise Refusal(
                Words(
                    "{ruleset} reads no table {table!r} (known: {known})",
                    ruleset=self.id,
                    table=unknown[0],
                    known=_known(self.tables),
                ),
                field="tables",
            )
        missing = [name for name in self.tables if name not in pinned]
        if missing:
            raise Refusal(
                Words(
                    "{ruleset} needs its {tables} table pinned in battle_started (`morale new` pins the shipped"
                    " defaults or the files the roster names)",
                    ruleset=self.id,
                    tables=listed(missing),
                ),
                field="tables",
            )
        for name, table in pinned.items():
            if table_sha256(table.values) != table.sha256:
                raise Refusal(
                    Words("the values of table {table!r} do not match its sha256", table=name),
                    field=f"tables.{name}.sha256",
                )
            self.read_table(name, table.values)

    def read_table(self, name: str, values: Mapping[str, Any]) -> msgspec.Struct:
        try:
            return msgspec.convert(dict(values), self.tables[name].schema)
        except msgspec.ValidationError as exc:
            # A table's own check (its `__post_init__`) says what is wrong in `Words`: kept, to be said
            # in the reader's language.
            said = exc.__cause__.args[0] if isinstance(exc.__cause__, ValueError) and exc.__cause__.args else None
            if isinstance(said, Words):
                raise Refusal(said, field=f"tables.{name}") from None
            raise Refusal(str(exc).replace("`$", f"`tables.{name}.values"), field=f"tables.{name}") from None

    def read_tables(self, pinned: Mapping[str, PinnedTable]) -> dict[str, Any]:
        return {name: self.read_table(name, table.values) for name, table in pinned.items()}

    def first_memory(self) -> Any:
        """A fresh battle-wide memory for the ruleset (Battle.memory); None: it keeps none."""
        return None

    def first_notes(self, unit: Unit) -> dict[str, object]:
        """What the ruleset notes about a unit as it joins (Unit.notes); {}: nothing yet."""
        return {}

    def param(self, battle: BattleView, key: str) -> FactValue:
        return battle.house_rules.get(key, self.parameters[key])

    def check_unit(self, battle: Battle, event: UnitJoined) -> None:
        if event.unit_type not in self.unit_types:
            raise Refusal(
                Words(
                    "unknown unit type {unit_type!r} for {ruleset} (known: {known})",
                    unit_type=event.unit_type,
                    ruleset=self.id,
                    known=listed(self.unit_types),
                ),
                field="unit_type",
            )
        unknown = [r for r in event.special_rules if r not in self.special_rules]
        if unknown:
            raise Refusal(
                Words(
                    "unknown special rule {rule!r} for {ruleset} (known: {known})",
                    rule=unknown[0],
                    ruleset=self.id,
                    known=listed(self.special_rules),
                ),
                field="special_rules",
            )
        self.read_profile(event.profile)

    def read_profile(self, profile: Mapping[str, Any]) -> dict[str, Any]:
        """The unit's profile with the ruleset's defaults filled in; refuses naming the bad field."""
        if self.profile_type is None:
            if profile:
                raise Refusal(
                    Words("{ruleset} reads no profile fields (got {fields})", ruleset=self.id, fields=listed(profile)),
                    field="profile",
                )
            return {}
        try:
            parsed = msgspec.convert(dict(profile), self.profile_type)
        except msgspec.ValidationError as exc:
            raise Refusal(str(exc).replace("`$.", "`profile."), field="profile") from None
        return msgspec.structs.asdict(parsed)

    def check_unit_change(self, battle: Battle, unit: Unit, event: UnitChanged) -> None:
        fixed = [name for name in event.changes if name not in self.changeable]
        if fixed:
            raise Refusal(
                Words(
                    "{field!r} cannot change during a {ruleset} battle (changeable: {allowed})",
                    field=fixed[0],
                    ruleset=self.id,
                    allowed=_known(sorted(self.changeable)),
                ),
                field="changes",
            )
        self.read_profile({**unit.profile, **event.changes})

    # -- what the views ask of a game (they decide nothing) ---------------------------------------
    def result_of(self, battle: BattleView, due: DueTest, dice: tuple[int, ...]) -> tuple[str, bool] | None:
        """What these dice would give for a due test, as (result, passed), changing nothing: the odds
        projection (`core/odds.py`) tries every roll through it. None: no odds for this test. Read
        from the test's reading in the rulebook (`Rulebook.reads`)."""
        reading = self.rulebook.readings.get(due.test)
        if reading is None or reading.result is None:
            return None
        return reading.result(battle, due, dice)

    def target(self, battle: BattleView, due: DueTest) -> int | None:
        """The number a due test's dice must not exceed, where there is one (for the due list)."""
        reading = self.rulebook.readings.get(due.test)
        if reading is None or reading.target is None:
            return None
        return reading.target(battle, due)

    def profile_values(self, unit: Unit) -> dict[str, FactValue]:
        """The unit's profile fields as they stand, for a card ("formation": "column"); {}: none."""
        return {name: value for name, value in unit.profile.items() if value is not None}

    def describe_profile(self, unit: Unit) -> str:
        """The unit's profile in a few words for the status board ("column, unformed"); "": none."""
        return ""

    def implied_restrictions(self, unit: UnitView) -> list[tuple[str, str]]:
        """What a unit's state forbids by itself, as (text, rule ID), for the status board: what the
        rulebook declares for its state (`Rulebook.restricts`), then for any state."""
        declared = self.rulebook.restrictions
        return [
            restriction
            for state in (unit.state, None)
            for restricts in declared.get(state, ())
            for restriction in restricts(unit)
        ]

    # -- shared helpers -------------------------------------------------------------------
    def phase_window(self, battle: BattleView) -> tuple[int, int, str | None]:
        """The rulebook phase in progress (or last ended): steps of the clock in one rulebook phase share it."""
        return (battle.turn, battle.side_index, self.rulebook_phase_at[battle.phase_index])

    @cached_property
    def rulebook_phase_at(self) -> dict[int, str | None]:
        """Each step of the clock, by its index (-1: before the first), -> the rulebook phase it is
        part of. Read at every phase's start of every battle replayed: a lookup, not a walk."""
        return {-1: None} | {index: self.phase_of.get(phase, phase) for index, phase in enumerate(self.phases)}

    def end_of_player_turn(self, battle: BattleView, side: str, *, next_turn: bool = False) -> Point:
        """The point at which `side`'s current (or next) player turn ends."""
        last = len(self.phases) - 1
        side_index = battle.sides.index(side)
        turn = max(battle.turn, 1)
        if next_turn:
            own_turn_now_or_past = side_index <= battle.side_index
            return (turn + 1 if own_turn_now_or_past else turn, side_index, last)
        return (turn, side_index, last)

    def describe_point(self, battle: BattleView, point: Point) -> str:
        """The end of the phase at `point`, as a restriction lasts until it and a change is put off to
        it: "end of the movement phase (imperium, turn 2)"."""
        turn, side_index, phase_index = point
        phase, side = self.phases[phase_index], battle.sides[side_index]
        end = _PHASE_ENDS.get(phase)
        if end is not None:
            return end(side, turn)
        return Words("end of the {phase} phase ({side}, turn {turn})", phase=phase, side=side, turn=turn)


# -- the registry ------------------------------------------------------------------------------
# Every game installed, found through the `morale.rulesets` entry points (`core/installed.py`), the
# four of this repository among them: none is imported until it is first asked for, so a command that
# needs no ruleset does not pay for importing them all.


class BrokenGame(Refusal):
    """An entry point of `morale.rulesets` that gives no ruleset the engine can use: it fails to
    import, names no `Ruleset`, or gives an id and version another entry point already gave."""

    def __init__(self, point: EntryPoint, problem: str) -> None:
        super().__init__(Words("{entry}: {problem}", entry=installed.named(point), problem=problem), field="ruleset")


class Registry:
    """The rulesets the entry points give, by (id, version), loaded one entry point at a time."""

    def __init__(self, points: Callable[[], Iterable[EntryPoint]]) -> None:
        self._points = points
        self._loaded: dict[tuple[str, str], Ruleset] = {}  # by entry point (name, value)
        self._by_key: dict[tuple[str, str], tuple[EntryPoint, Ruleset]] = {}

    def load(self, point: EntryPoint) -> Ruleset:
        if (point.name, point.value) in self._loaded:
            return self._loaded[(point.name, point.value)]
        try:
            ruleset = point.load()
        except Exception as exc:  # whatever the package raised on import: named, on one line
            reason = str(exc).splitlines()[0] if str(exc) else ""
            raise BrokenGame(
                point, Words("cannot be loaded ({error}: {reason})", error=type(exc).__name__, reason=reason)
            ) from exc
        if not isinstance(ruleset, Ruleset):
            raise BrokenGame(point, Words("names a {kind}, not a Ruleset instance", kind=type(ruleset).__name__))
        if not isinstance(getattr(ruleset, "rulebook", None), Rulebook):
            raise BrokenGame(
                point,
                Words("{ruleset} has no rulebook (Ruleset.rulebook: its reactions and checks)", ruleset=ruleset.id),
            )
        try:
            about = installed.about_of(point)
        except installed.UnusableAbout as exc:
            raise BrokenGame(point, exc.problem) from None
        says = About.of(ruleset)
        if about is not None and about != says:  # `morale --version` would name another game than is played
            raise BrokenGame(
                point,
                Words(
                    "its ruleset is {says}, but its about entry point says {about}", says=str(says), about=str(about)
                ),
            )
        key = (ruleset.id, ruleset.version)
        if key in self._by_key and self._by_key[key][1] is not ruleset:
            other = self._by_key[key][0]
            raise BrokenGame(
                point,
                Words(
                    "gives {ruleset} version {version}, as {other!r} does already",
                    ruleset=ruleset.id,
                    version=ruleset.version,
                    other=other.name,
                ),
            )
        self._by_key[key] = (point, ruleset)
        self._loaded[(point.name, point.value)] = ruleset
        return ruleset

    def all(self, *, broken: list[BrokenGame] | None = None) -> dict[tuple[str, str], Ruleset]:
        """Every ruleset installed, in their listing order. An entry point that gives none is refused,
        unless `broken` is given: then it is left out, and its refusal added there."""
        loaded = []
        for point in self._points():
            try:
                loaded.append(self.load(point))
            except BrokenGame as refusal:
                if broken is None:
                    raise
                broken.append(refusal)
        return {(r.id, r.version): r for r in sorted(loaded, key=lambda r: r.listing_order)}

    def find(self, ruleset_id: str, version: str | None) -> Ruleset | None:
        """The ruleset of that id and version (None: its newest), importing the entry point named by
        the id first. Every other is imported when that one does not give it, or to find the newest
        version; a broken one among those is refused only if no entry point gives the ruleset, so a
        broken game installed beside them does not stop the others from being played."""
        if version is not None and (ruleset_id, version) in self._by_key:  # every battle's first event asks
            return self._by_key[(ruleset_id, version)][1]
        for point in self._points():
            if point.name == ruleset_id:
                self.load(point)
        broken: list[BrokenGame] = []
        if version is None or (ruleset_id, version) not in self._by_key:
            self.all(broken=broken)
        found = [r for (i, v), (_, r) in self._by_key.items() if i == ruleset_id and version in (None, v)]
        if not found and broken:
            raise broken[0]
        return max(found, key=lambda r: int(r.version)) if found else None


_REGISTRY = Registry(installed.games)


def given_by(point: EntryPoint) -> Ruleset:
    """The ruleset the entry point gives, imported if it is not yet (`BrokenGame` if it gives none)."""
    return _REGISTRY.load(point)


def rulesets() -> dict[tuple[str, str], Ruleset]:
    """Every ruleset installed, by (id, version), in the order `morale rulesets` lists them."""
    return _REGISTRY.all()


def lookup(ruleset_id: str, version: str) -> Ruleset:
    found = _REGISTRY.find(ruleset_id, version)
    if found is not None:
        return found
    known = _REGISTRY.all(broken=[])
    versions = sorted(v for (i, v) in known if i == ruleset_id)
    if versions:
        raise Refusal(
            Words(
                "{ruleset} has no version {version!r} here (known: {known})",
                ruleset=ruleset_id,
                version=version,
                known=listed(versions),
            ),
            field="ruleset_version",
        )
    ids = sorted({i for i, _ in known})
    if not ids:  # an install from before the games were entry points: its metadata names none
        raise Refusal(
            Words(
                "unknown ruleset {ruleset!r}: no game is installed (group {group} is empty; reinstall morale,"
                " `pip install -e .`, to register its own)",
                ruleset=ruleset_id,
                group=installed.GROUP,
            ),
            field="ruleset",
        )
    raise Refusal(
        Words("unknown ruleset {ruleset!r} (known: {known})", ruleset=ruleset_id, known=listed(ids)), field="ruleset"
    )


def latest(ruleset_id: str) -> Ruleset:
    """The newest version of a ruleset, for new battles (every game is loaded: any may give one)."""
    found = _REGISTRY.find(ruleset_id, None)
    return found if found is not None else lookup(ruleset_id, "")
