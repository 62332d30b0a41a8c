"""What every ruleset provides, and the helpers they share.

A ruleset is tables (phases, unit types, parameters, its state graph) plus clause functions, each
declared once under `clause` with its rule ID and what it answers; the tables of facts, decisions,
special rules and phrases are built from those declarations. The referee does the bookkeeping every
ruleset shares (clock, models, dice, rulings) and asks the ruleset at each step what the rules make
of it. `check_*` methods only read and may refuse. `on_*` methods are called only for accepted
events; they read the battle and yield outcomes (`Decided`), never change it: `core/apply.py`
carries each outcome out before the hook reads on.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.metadata import EntryPoint
from importlib.resources.abc import Traversable
from typing import Any

import msgspec

from morale.events.codec import table_sha256
from morale.events.types import (
    CasualtiesSuffered,
    ChargeDeclared,
    CombatResolved,
    DiceRolled,
    FactValue,
    PinnedTable,
    PlayerDecided,
    TableFactRecorded,
    UnitChanged,
    UnitJoined,
)

from .. import installed
from ..apply import Decided
from ..machine import StateGraph
from ..outcomes import (
    Cleared,
    DueAmended,
    Marked,
    Modifier,
    RestrictionApplied,
    TestDue,
    TestNotTaken,
    TestResolved,
)
from ..reactions import Rulebook
from ..rules import CLAUSES, Declared, Refusal, declared, fact_kinds
from ..state import Battle, DueTest, Point, Unit
from ..view import BattleView, UnitView


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


@dataclass(frozen=True)
class TableSpec:
    """A data table a ruleset reads (a results table): its shipped default file (package data of the
    game's own package, `Ruleset.shipped`), the msgspec Struct its values must convert to, and the
    rule ID it carries."""

    file: str
    schema: type[msgspec.Struct]
    rule: str


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
    # The game's clauses that act (reactions) and its checks (`core/reactions.py`); None: a game
    # whose rules are still the hooks below.
    rulebook: Rulebook | None = None
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
        """The ruleset's word for `state` (its machine value with spaces if it names none)."""
        return self.state_names.get(state, state.replace("_", " "))

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        # A copied or pickled battle refers to its ruleset by id and version, never by copy, and
        # finds it again in the registry below (which imports the game's entry point if need be).
        return (lookup, (self.id, self.version))

    # -- set-up -----------------------------------------------------------------------------
    def check_house_rules(self, house_rules: Mapping[str, object]) -> None:
        for key, value in house_rules.items():
            if key not in self.parameters:
                known = ", ".join(sorted(self.parameters)) or "none"
                raise Refusal(f"unknown house rule {key!r} for {self.id} (known: {known})", field="house_rules")
            if type(value) is not type(self.parameters[key]):
                raise Refusal(f"house rule {key!r} must be {type(self.parameters[key]).__name__}", field="house_rules")

    def check_tables(self, pinned: Mapping[str, PinnedTable]) -> None:
        """Every table the ruleset reads is pinned, with values that hash to the pinned sha256 and
        that the ruleset can read; refuses naming the table."""
        unknown = [name for name in pinned if name not in self.tables]
        if unknown:
            known = ", ".join(self.tables) or "none"
            raise Refusal(f"{self.id} reads no table {unknown[0]!r} (known: {known})", field="tables")
        missing = [name for name in self.tables if name not in pinned]
        if missing:
            raise Refusal(
                f"{self.id} needs its {', '.join(missing)} table pinned in battle_started "
                "(`morale new` pins the shipped defaults or the files the roster names)",
                field="tables",
            )
        for name, table in pinned.items():
            if table_sha256(table.values) != table.sha256:
                raise Refusal(f"the values of table {name!r} do not match its sha256", field=f"tables.{name}.sha256")
            self.read_table(name, table.values)

    def read_table(self, name: str, values: Mapping[str, Any]) -> msgspec.Struct:
        try:
            return msgspec.convert(dict(values), self.tables[name].schema)
        except msgspec.ValidationError as exc:
            raise Refusal(str(exc).replace("`$", f"`tables.{name}.values"), field=f"tables.{name}") from None

    def read_tables(self, pinned: Mapping[str, PinnedTable]) -> dict[str, Any]:
        return {name: self.read_table(name, table.values) for name, table in pinned.items()}

    def battle_bookkeeping(self) -> Any:
        """A fresh battle-wide memory for the ruleset (Battle.bookkeeping); None: it keeps none."""
        return None

    def first_notes(self, unit: Unit) -> dict[str, object]:
        """What the ruleset notes about a unit as it joins (Unit.notes); {}: nothing yet."""
        return {}

    def param(self, battle: BattleView, key: str) -> FactValue:
        return battle.house_rules.get(key, self.parameters[key])

    def check_unit(self, battle: Battle, event: UnitJoined) -> None:
        if event.unit_type not in self.unit_types:
            raise Refusal(
                f"unknown unit type {event.unit_type!r} for {self.id} (known: {', '.join(self.unit_types)})",
                field="unit_type",
            )
        unknown = [r for r in event.special_rules if r not in self.special_rules]
        if unknown:
            raise Refusal(
                f"unknown special rule {unknown[0]!r} for {self.id} (known: {', '.join(self.special_rules)})",
                field="special_rules",
            )
        self.read_profile(event.profile)

    def read_profile(self, profile: Mapping[str, Any]) -> dict[str, Any]:
        """The unit's profile with the ruleset's defaults filled in; refuses naming the bad field."""
        if self.profile_type is None:
            if profile:
                raise Refusal(f"{self.id} reads no profile fields (got {', '.join(profile)})", field="profile")
            return {}
        try:
            parsed = msgspec.convert(dict(profile), self.profile_type)
        except msgspec.ValidationError as exc:
            raise Refusal(str(exc).replace("`$.", "`profile."), field="profile") from None
        return msgspec.structs.asdict(parsed)

    def check_unit_change(self, battle: Battle, unit: Unit, event: UnitChanged) -> None:
        fixed = [name for name in event.changes if name not in self.changeable]
        if fixed:
            allowed = ", ".join(sorted(self.changeable)) or "none"
            raise Refusal(
                f"{fixed[0]!r} cannot change during a {self.id} battle (changeable: {allowed})", field="changes"
            )
        self.read_profile({**unit.profile, **event.changes})

    def on_unit_change(self, battle: Battle, unit: Unit, event: UnitChanged, seq: int) -> Decided:
        """After the unit's profile has taken the changes (the event's own fact)."""
        return ()

    # -- the hooks a ruleset fills in ------------------------------------------------------------
    def on_phase_started(self, battle: Battle, seq: int) -> Decided:
        return ()

    def on_phase_ended(self, battle: Battle, seq: int) -> Decided:
        return ()

    def check_casualties(self, battle: Battle, unit: Unit, event: CasualtiesSuffered) -> None:
        pass

    def on_casualties(self, battle: Battle, unit: Unit, event: CasualtiesSuffered, seq: int) -> Decided:
        """Called after the models are removed (and the unit destroyed, if that was its last)."""
        return ()

    def check_combat(self, battle: Battle, event: CombatResolved) -> None:
        pass

    def on_combat(self, battle: Battle, event: CombatResolved, seq: int) -> Decided:
        return ()

    def check_charge(self, battle: Battle, event: ChargeDeclared) -> None:
        pass

    def on_charge(self, battle: Battle, event: ChargeDeclared, seq: int) -> Decided:
        return ()

    def check_fact(self, battle: Battle, event: TableFactRecorded) -> None:
        pass

    def on_fact(self, battle: Battle, event: TableFactRecorded, seq: int) -> Decided:
        """The clause that answers the fact reads it: a method of the ruleset taking (battle, event, seq)."""
        return self._readers[event.fact](battle, event, seq)

    @functools.cached_property
    def _readers(self) -> dict[str, Callable[..., Decided]]:
        return {fact: self.answering(rule_id) for fact, rule_id in self.facts.items()}

    def answering(self, rule_id: str) -> Callable[..., Any]:
        """The function that carries out a clause: bound to this ruleset where it is one of its methods."""
        fn = CLAUSES[rule_id]
        if isinstance(fn, Declared):
            raise TypeError(f"{rule_id} is declared as a data row: no function carries it out")
        bound: Callable[..., Any] | None = getattr(self, fn.__name__, None)
        return bound if bound is not None and getattr(bound, "__func__", None) is fn else fn

    def check_roll(self, battle: Battle, event: DiceRolled) -> None:
        """Before the engine looks for the due test the dice are for: a ruleset may refuse with the
        rule that keeps a test from being due (GDB: no rally within an enemy's charge range)."""

    def check_free_decision(self, battle: Battle, unit: Unit, event: PlayerDecided) -> None:
        pass

    def on_free_decision(self, battle: Battle, unit: Unit, event: PlayerDecided, seq: int) -> Decided:
        return ()

    def resolve(self, battle: Battle, due: DueTest, dice: tuple[int, ...], seq: int) -> Decided:
        """The dice for a due test (already off the list): its result, and what that brings about."""
        raise NotImplementedError

    def on_decision(self, battle: Battle, due: DueTest, decision: str, seq: int) -> Decided:
        return ()

    def on_due(self, battle: Battle, due: DueTest) -> Decided | None:
        """A test has become due: resolve it at once (immune, automatic) or return None to wait for dice."""
        return None

    def consequences(self, battle: Battle, due: DueTest, result: TestResolved, caused_by: tuple[int, ...]) -> Decided:
        """What a test's result brings about (the unit falls back, regroups...); `settle` calls it."""
        return ()

    def result_of(self, battle: Battle, due: DueTest, dice: tuple[int, ...]) -> tuple[str, bool] | None:
        """What these dice would give for a due test, as (result, passed), changing nothing: the odds
        projection (`core/odds.py`) tries every roll through it. None: no odds for this test."""
        return None

    def target(self, battle: Battle, due: DueTest) -> int | None:
        """The number a due test's dice must not exceed, where there is one (for the due list)."""
        return None

    def profile_values(self, unit: Unit) -> dict[str, FactValue]:
        """The unit's profile fields as they stand, for a card ("formation": "column"); {}: none."""
        return {name: value for name, value in unit.profile.items() if value is not None}

    def describe_profile(self, unit: Unit) -> str:
        """The unit's profile in a few words for the status board ("column, unformed"); "": none."""
        return ""

    def implied_restrictions(self, unit: Unit) -> list[tuple[str, str]]:
        """What a unit's state forbids by itself, as (text, rule ID), for the status board."""
        return []

    # -- shared helpers -------------------------------------------------------------------
    def phase_window(self, battle: BattleView) -> tuple[int, int, str | None]:
        """The rulebook phase in progress (or last ended): steps of the clock in one rulebook phase share it."""
        phase = battle.phase
        return (battle.turn, battle.side_index, self.phase_of.get(phase, phase) if phase else None)

    @staticmethod
    def taken_mark(test: str) -> str:
        """The phase mark of a unit that has taken a test limited to once a phase (Ruleset.once_per_phase)."""
        return f"{test}_test_taken"

    def taken_this_phase(self, unit: Unit, test: str) -> bool:
        return self.taken_mark(test) in unit.phase_marks

    def require(
        self,
        battle: Battle,
        unit: Unit,
        test: str,
        rule: str,
        caused_by: tuple[int, ...],
        *,
        dice: int = 2,
        modifiers: tuple[Modifier, ...] = (),
        decisions: tuple[str, ...] = (),
        opponents: tuple[str, ...] = (),
        facts: tuple[str, ...] = (),
        reroll: str = "",
    ) -> Decided:
        """Make a test due; the ruleset may settle it at once without dice. A test limited to once a
        phase that the unit has already taken is not taken again; a re-roll (`reroll`: the rule that
        grants it) continues the test it re-rolls and is never a second test."""
        if test not in self.tests:
            raise ValueError(f"{self.id} makes a {test!r} test due but does not name it in Ruleset.tests")
        limit = "" if reroll else self.once_per_phase.get(test, "")
        if limit and self.taken_this_phase(unit, test):
            yield TestNotTaken(unit=unit.id, rule=limit, caused_by=caused_by, test=test, trigger=rule)
            return
        due = DueTest(
            unit=unit.id,
            test=test,
            rule=rule,
            caused_by=caused_by,
            dice=dice,
            modifiers=modifiers,
            decisions=decisions,
            opponents=opponents,
            facts=facts,
            reroll=reroll,
        )
        settling = self.on_due(battle, due)
        if settling is None:
            if limit:
                yield Marked(unit=unit.id, rule=limit, caused_by=caused_by, mark=self.taken_mark(test))
            yield TestDue(
                unit=unit.id,
                rule=reroll or rule,
                caused_by=caused_by,
                test=test,
                dice=dice,
                target=self.target(battle, due),
                modifiers=modifiers,
                decisions=decisions,
                reroll=bool(reroll),
                facts=facts,
                trigger=rule if reroll else "",
                opponents=opponents,
            )
            return
        resolved = False
        for outcome in settling:
            resolved = resolved or type(outcome) is TestResolved
            yield outcome
        if limit and resolved:
            yield Marked(unit=unit.id, rule=limit, caused_by=caused_by, mark=self.taken_mark(test))

    def settle(self, battle: Battle, due: DueTest, *, passed: bool, rule: str, detail: str = "") -> Decided:
        """Resolve a test without dice (passed or failed automatically) and carry out its result."""
        result = TestResolved(
            unit=due.unit,
            rule=rule,
            caused_by=due.caused_by,
            test=due.test,
            trigger=due.rule,
            passed=passed,
            automatic=True,
            detail=detail,
        )
        yield result
        yield from self.consequences(battle, due, result, due.caused_by)

    @staticmethod
    def withdraw(due: DueTest, rule: str, caused_by: tuple[int, ...], detail: str = "") -> TestNotTaken:
        """Take a due test off the list without a result: the rule cited makes it moot."""
        return TestNotTaken(
            unit=due.unit,
            rule=rule,
            caused_by=caused_by,
            test=due.test,
            trigger=due.rule,
            detail=detail,
            withdrawn=True,
        )

    @staticmethod
    def not_taken(due: DueTest, rule: str, caused_by: tuple[int, ...], detail: str = "") -> TestNotTaken:
        """A test the trigger called for that the unit does not take; `rule` says why."""
        return TestNotTaken(
            unit=due.unit, rule=rule, caused_by=caused_by, test=due.test, trigger=due.rule, detail=detail
        )

    @staticmethod
    def restate(due: DueTest, fact: str, value: FactValue, caused_by: tuple[int, ...]) -> DueAmended:
        """Attach what the table stated about a due roll before its dice; it keeps its place in the list."""
        stated = msgspec.structs.replace(due, stated=(*due.stated, (fact, value)))
        return DueAmended(unit=due.unit, rule=due.rule, caused_by=caused_by, before=due, after=stated)

    def remove(self, battle: Battle, unit: Unit, trigger: str, caused_by: tuple[int, ...]) -> Decided:
        """Take a unit out of the battle by a morale result (`trigger` leads to `dispersed`): the tests
        it was facing are moot, and nothing is pending for it any more."""
        rule = self.graph.rule_for(unit, trigger)
        for due in battle.due_for(unit.id):
            yield self.withdraw(due, rule, caused_by)
        yield Cleared(unit=unit.id, rule=rule, caused_by=caused_by)
        yield self.graph.move(unit, trigger, caused_by)

    def restrict(
        self, battle: Battle, unit: Unit, name: str, rule: str, until: Point, caused_by: tuple[int, ...]
    ) -> RestrictionApplied:
        """Put a restriction on a unit until the end of the phase at `until`."""
        return RestrictionApplied(
            unit=unit.id,
            rule=rule,
            caused_by=caused_by,
            restriction=name,
            until=self.describe_point(battle, until),
            ends=until,
        )

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
        turn, side_index, phase_index = point
        return f"end of the {self.phases[phase_index]} phase ({battle.sides[side_index]}, turn {turn})"


# -- the registry ------------------------------------------------------------------------------
# Every game installed, found through the `morale.rulesets` entry points (`core/installed.py`), the
# four of this repository among them: none is imported until it is first asked for, so a command that
# needs no ruleset does not pay for importing them all.


class BrokenGame(Refusal):
    """An entry point of `morale.rulesets` that gives no ruleset the engine can use: it fails to
    import, names no `Ruleset`, or gives an id and version another entry point already gave."""

    def __init__(self, point: EntryPoint, problem: str) -> None:
        super().__init__(f"{installed.named(point)}: {problem}", field="ruleset")


class Registry:
    """The rulesets the entry points give, by (id, version), loaded one entry point at a time."""

    def __init__(self, points: Callable[[], Iterable[EntryPoint]]) -> None:
        self._points = points
        self._loaded: dict[tuple[str, str], Ruleset] = {}  # by entry point (name, value)
        self._by_key: dict[tuple[str, str], tuple[EntryPoint, Ruleset]] = {}

    def _load(self, point: EntryPoint) -> Ruleset:
        if (point.name, point.value) in self._loaded:
            return self._loaded[(point.name, point.value)]
        try:
            ruleset = point.load()
        except Exception as exc:  # whatever the package raised on import: named, on one line
            reason = str(exc).splitlines()[0] if str(exc) else ""
            raise BrokenGame(point, f"cannot be loaded ({type(exc).__name__}: {reason})") from exc
        if not isinstance(ruleset, Ruleset):
            raise BrokenGame(point, f"names a {type(ruleset).__name__}, not a Ruleset instance")
        key = (ruleset.id, ruleset.version)
        if key in self._by_key and self._by_key[key][1] is not ruleset:
            other = self._by_key[key][0]
            raise BrokenGame(point, f"gives {ruleset.id} version {ruleset.version}, as {other.name!r} does already")
        self._by_key[key] = (point, ruleset)
        self._loaded[(point.name, point.value)] = ruleset
        return ruleset

    def all(self, *, broken: list[BrokenGame] | None = None) -> dict[tuple[str, str], Ruleset]:
        """Every ruleset installed, in their listing order. An entry point that gives none is refused,
        unless `broken` is given: then it is left out, and its refusal added there."""
        loaded = []
        for point in self._points():
            try:
                loaded.append(self._load(point))
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
                self._load(point)
        broken: list[BrokenGame] = []
        if version is None or (ruleset_id, version) not in self._by_key:
            self.all(broken=broken)
        found = [r for (i, v), (_, r) in self._by_key.items() if i == ruleset_id and version in (None, v)]
        if not found and broken:
            raise broken[0]
        return max(found, key=lambda r: int(r.version)) if found else None


_REGISTRY = Registry(installed.games)


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
            f"{ruleset_id} has no version {version!r} here (known: {', '.join(versions)})",
            field="ruleset_version",
        )
    ids = sorted({i for i, _ in known})
    if not ids:  # an install from before the games were entry points: its metadata names none
        raise Refusal(
            f"unknown ruleset {ruleset_id!r}: no game is installed (group {installed.GROUP} is empty; "
            "reinstall morale, `pip install -e .`, to register its own)",
            field="ruleset",
        )
    raise Refusal(f"unknown ruleset {ruleset_id!r} (known: {', '.join(ids)})", field="ruleset")


def latest(ruleset_id: str) -> Ruleset:
    """The newest version of a ruleset, for new battles (every game is loaded: any may give one)."""
    found = _REGISTRY.find(ruleset_id, None)
    return found if found is not None else lookup(ruleset_id, "")
