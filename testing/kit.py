"""The checks every game must pass, whatever package it lives in (see `morale.testing`).

Each check is one pytest case, named by what it checks and for what (`carried_out[gdb.rally.once]`,
`replay_is_deterministic[battle]`), so a failure says at once which clause, example or graph it is.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest

from morale.app.cli.rules import state_diagram
from morale.app.roster import load_roster
from morale.core import catalogue
from morale.core.evolve import evolve
from morale.core.machine import STATES
from morale.core.referee import decide
from morale.core.rules import CLAUSES, Refusal
from morale.core.rulesets import lookup
from morale.core.rulesets.base import Ruleset
from morale.core.state import Battle, digest
from morale.core.words import english
from morale.events.codec import decode_event
from morale.events.types import AnyEvent, BattleStarted

from .shape import changes_of_state


@dataclass(frozen=True)
class Check:
    """One conformance check: its pytest id and what it runs (raising AssertionError on a failure)."""

    id: str
    run: Callable[[], None]

    def __repr__(self) -> str:
        return self.id


def conformance(
    ruleset_id: str,
    *,
    examples: Sequence[Path] = (),
    tests: Path | None = None,
    version: str | None = None,
) -> Callable[[Check], None]:
    """A pytest test, parametrised over every conformance check of a game. Assign it to a name
    pytest collects, in a test file of the game's package:

        from morale.testing import conformance
        test_conformance = conformance("fifth", examples=[Path(__file__).parent / "battle"])

    `examples`: example battles, each a folder holding `roster.toml` and `battle.ndjson` (one event a
    line, as morale's own `examples/<game>/` folders do), or an `.ndjson` file of events from the
    `battle_started` on. `tests`: the folder whose `test_*.py` files must name every clause
    (default: the folder of the file that calls this). `version`: the ruleset's version (default:
    the newest installed).
    """
    caller = Path(inspect.stack(0)[1].filename).resolve().parent
    checks = list(checks_of(ruleset_id, examples=examples, tests=tests or caller, version=version))

    @pytest.mark.morale_conformance
    @pytest.mark.parametrize("check", checks, ids=[c.id for c in checks])
    def test_conformance(check: Check) -> None:
        check.run()

    return test_conformance


def checks_of(
    ruleset_id: str, *, examples: Sequence[Path] = (), tests: Path, version: str | None = None
) -> Iterator[Check]:
    """Every check of the game, in the order they run."""
    ruleset = _ruleset(ruleset_id, version)
    clauses = [c.id for c in catalogue.of_ruleset(ruleset.id)]
    if not clauses:
        raise ValueError(f"{ruleset.id}: the catalogue holds no clause of it (a *clauses.toml in its package)")
    named = named_by_tests(clauses, test_files(tests))
    carried = carried_out(ruleset)
    for rule_id in clauses:
        yield Check(f"carried_out[{rule_id}]", _expect(rule_id in carried, f"{rule_id}: no code carries it out"))
    for rule_id in clauses:
        yield Check(
            f"named_by_a_test[{rule_id}]",
            _expect(
                rule_id in named, f"{rule_id}: no test under {tests} has `{rule_id.replace('.', '_')}` in its name"
            ),
        )
    yield Check("every_state_is_named", lambda: _states_named(ruleset))
    yield Check("graph_draws", lambda: _draws(ruleset))
    yield Check("a_unit_in_play_can_be_destroyed", lambda: _destroyable(ruleset))
    yield Check("changes_the_battle_only_through_outcomes", lambda: _only_through_outcomes(ruleset))
    if not examples:
        yield Check("an_example_battle_is_given", _expect(False, f"{ruleset.id}: no example battle given"))
    for example in examples:
        name = example.stem
        yield Check(f"replay_is_deterministic[{name}]", lambda e=example: _deterministic(ruleset, e))
        yield Check(f"refused_events_change_nothing[{name}]", lambda e=example: _refusals_change_nothing(ruleset, e))


def _ruleset(ruleset_id: str, version: str | None) -> Ruleset:
    if version is not None:
        return lookup(ruleset_id, version)
    from morale.core.rulesets import latest

    return latest(ruleset_id)


def _expect(holds: bool, failure: str) -> Callable[[], None]:
    def run() -> None:
        assert holds, failure

    return run


def _only_through_outcomes(ruleset: Ruleset) -> None:
    """No function of the game's package changes a battle, a unit or its memory itself (`shape.py`)."""
    package = Path(inspect.getfile(type(ruleset))).parent
    found = [change for path in sorted(package.rglob("*.py")) for change in changes_of_state(path, package)]
    assert not found, f"{ruleset.id} changes the battle itself, not through outcomes: " + "; ".join(found)


# -- clauses ---------------------------------------------------------------------------------------
def carried_out(ruleset: Ruleset) -> set[str]:
    """The game's rule IDs its code carries out: each declared in the code (`clause`, `declare`), or
    written as a row of a table the engine itself carries out (the state graph, the tests limited to
    once a phase, the tests whose order the player chooses)."""
    declared = {rule_id for rule_id in CLAUSES if rule_id.startswith(f"{ruleset.id}.")}
    rows = {row["rule"] for row in ruleset.graph.rows}
    return declared | rows | set(ruleset.once_per_phase.values()) | set(ruleset.ordered_tests.values())


def test_files(folder: Path) -> list[Path]:
    """The test modules under `folder`, as pytest finds them by default."""
    return sorted({*folder.rglob("test_*.py"), *folder.rglob("*_test.py")})


def named_by_tests(rule_ids: Iterable[str], files: Iterable[Path]) -> set[str]:
    """The rule IDs that test names carry (dots as underscores). The longest ID is read first, so
    `test_..._engine_dice_reveal` names `engine.dice.reveal` and not also `engine.dice`."""
    text = "".join(path.read_text(encoding="utf-8") for path in files)
    names = re.findall(r"^\s*(?:async\s+)?def (test_\w+)", text, re.M)
    ids = sorted(rule_ids, key=len, reverse=True)
    named = set()
    for name in names:
        for rule_id in ids:
            slug = rule_id.replace(".", "_")
            if slug in name:
                named.add(rule_id)
                name = name.replace(slug, "#")
    return named


# -- states and graph ------------------------------------------------------------------------------
def _states_named(ruleset: Ruleset) -> None:
    unnamed = sorted(ruleset.graph.states - set(ruleset.state_names))
    assert not unnamed, f"{ruleset.id}: state_names gives no word of the game's for {', '.join(unnamed)}"
    unknown = sorted(set(ruleset.state_names) - set(STATES))
    assert not unknown, f"{ruleset.id}: state_names names {', '.join(unknown)}, none of them a shared state"


def _destroyable(ruleset: Ruleset) -> None:
    """The engine destroys a unit that loses its last model by the graph's `lose_last_model`
    (`engine.destroyed`), whatever state it is in: a state in play without that row would stop the
    battle at the first such loss."""
    graph = ruleset.graph
    in_play = graph.states - {"destroyed", "dispersed"}
    stuck = sorted(state for state in in_play if graph.destination(_InState(state), "lose_last_model") != "destroyed")
    assert not stuck, (
        f"{ruleset.id}: no graph row destroys a unit that loses its last model while "
        f"{', '.join(stuck)} (a row with trigger lose_last_model, dest destroyed, rule engine.destroyed)"
    )


class _InState:
    """Just enough of a unit for the graph to say where a trigger leads from `state`."""

    def __init__(self, state: str) -> None:
        self.state = state


def _draws(ruleset: Ruleset) -> None:
    drawn = state_diagram(ruleset.id)
    assert drawn.lstrip().startswith("---") or "stateDiagram" in drawn, f"{ruleset.id}: no state diagram drawn"
    missing = sorted(row["rule"] for row in ruleset.graph.rows if row["rule"] not in drawn)
    assert not missing, f"{ruleset.id}: the drawn graph leaves out the rows of {', '.join(missing)}"


# -- examples --------------------------------------------------------------------------------------
def example_log(example: Path) -> list[AnyEvent]:
    """An example battle's events from its `battle_started` on: a folder's roster and battle, or a
    file of events."""
    if example.is_dir():
        roster = load_roster(example / "roster.toml")
        lines = (example / "battle.ndjson").read_text(encoding="utf-8").splitlines()
        return [roster.started, *roster.units, *(decode_event(line) for line in lines if line.strip())]
    lines = example.read_text(encoding="utf-8").splitlines()
    return [decode_event(line) for line in lines if line.strip()]


def _folded(ruleset: Ruleset, events: Sequence[AnyEvent]) -> Iterator[tuple[Battle, tuple[Any, ...]]]:
    """Each event checked and folded as recording it would be: the battle after it, and what it caused."""
    first = events[0] if events else None
    assert isinstance(first, BattleStarted), "an example battle begins with battle_started"
    assert (first.ruleset, first.ruleset_version) == (ruleset.id, ruleset.version), (
        f"the example is a battle of {first.ruleset} version {first.ruleset_version}, "
        f"not of {ruleset.id} version {ruleset.version}"
    )
    battle: Battle | None = None
    for seq, event in enumerate(events, start=1):
        try:
            decide(battle, event)
        except Refusal as refusal:
            raise AssertionError(
                f"the example's event {seq} ({event.__struct_config__.tag}) is refused: {refusal}"
            ) from None
        battle, caused = evolve(battle, event, seq)
        yield battle, caused


def _deterministic(ruleset: Ruleset, example: Path) -> None:
    events = example_log(example)
    runs = [
        [(digest(b), msgspec.json.encode(c, enc_hook=english)) for b, c in _folded(ruleset, events)] for _ in range(2)
    ]
    for seq, (first, second) in enumerate(zip(*runs, strict=True), start=1):
        assert first[0] == second[0], f"event {seq}: the second replay's state digest differs from the first's"
        assert first[1] == second[1], f"event {seq}: the second replay's outcomes differ from the first's"


def _refusals_change_nothing(ruleset: Ruleset, example: Path) -> None:
    """At points of the example battle, events of it (put out of place, or with another unit or other
    dice) are proposed; each the referee refuses must name its rule or field and leave the battle's
    digest as it was. Hypothesis picks the points and the events."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    events = example_log(example)
    units = sorted({getattr(e, "unit", "") for e in events} - {""})
    refused: list[str] = []

    def perturbed(event: AnyEvent, unit: str, dice: tuple[int, ...], which: int) -> AnyEvent:
        """The event, or a copy with another unit or other dice, read back through the log's own
        types (a copy they refuse raises msgspec.ValidationError)."""
        fields = msgspec.to_builtins(event)
        if which == 1 and "unit" in fields:
            fields["unit"] = unit
        elif which == 2 and "dice" in fields:
            fields["dice"] = list(dice)
        return msgspec.convert(fields, AnyEvent)

    @settings(
        max_examples=60,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
        report_multiple_bugs=False,
    )
    @given(
        at=st.integers(min_value=1, max_value=len(events)),
        proposed=st.sampled_from(events),
        unit=st.sampled_from(units or [""]),
        dice=st.lists(st.integers(min_value=0, max_value=7), max_size=4).map(tuple),
        which=st.integers(min_value=0, max_value=2),
    )
    def refused_changes_nothing(at: int, proposed: AnyEvent, unit: str, dice: tuple[int, ...], which: int) -> None:
        *_, (battle, _) = _folded(ruleset, events[:at])
        try:
            candidate = perturbed(proposed, unit, dice, which)
        except msgspec.ValidationError:
            return  # not an event the log's types allow: refused before the referee sees it
        before = digest(battle)
        try:
            decide(battle, candidate)
        except Refusal as refusal:
            refused.append(str(refusal))
            assert refusal.rule or refusal.field, f"a refusal names no rule or field: {refusal}"
            assert "\n" not in str(refusal), f"a refusal is one line: {refusal!r}"
            assert digest(battle) == before, f"refusing {candidate!r} after event {at} changed the battle"

    refused_changes_nothing()
    assert refused, "no event proposed was refused: the check proved nothing of this example"
