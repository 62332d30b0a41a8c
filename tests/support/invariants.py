"""What any correct referee keeps, whatever the rules: checked by the property tests after every
event of every generated battle, from the outside (the battle before and after, and what the event
caused), never by asking the engine to check itself.

- A destroyed or dispersed unit never changes again, unless a referee's ruling or a retraction does it,
  and has no test due.
- A unit never has two due tests for the same test from the same trigger and the same cause.
- Every due test is resolved or withdrawn before its phase ends: a phase ends, or the next begins,
  only with nothing due.
- `leadership` (per ruleset, optional): each test made due and each test resolved agrees with a
  reference written here, apart from the engine.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import msgspec
from msgspec.structs import replace

from morale.core import outcomes as out
from morale.core.outcomes import Caused
from morale.core.state import Battle, Unit, unit_view
from morale.events.types import AnyEvent, DiceRolled, EventRetracted, PhaseEnded, PhaseStarted, RefereeRuled

from .table import Table

GONE = ("destroyed", "dispersed")  # the states every ruleset's graph ends in


@dataclass(frozen=True)
class Before:
    """What a reference reads of the battle before the event (the fold changes its battle in place)."""

    units: dict[str, tuple[int | None, tuple[str, ...], int, int]]  # id: (ld, special rules, models, starting)
    due: tuple

    @classmethod
    def of(cls, battle: Battle) -> Before:
        units = {u.id: (u.ld, tuple(u.special_rules), u.models, u.starting_models) for u in battle.units.values()}
        return cls(units, tuple(battle.due))


# A reference check: (the battle before the event, the event, what it caused) -> None, or it fails.
Reference = Callable[[Before, AnyEvent, Caused], None]


def record_checked(table: Table, event: AnyEvent, reference: Reference | None = None) -> Caused | None:
    """`table.try_record(event)`, then every invariant above; None if the referee refused it."""
    before = table.battle
    gone = {u.id: (u.state, settled(u)) for u in before.units.values() if u.state in GONE}
    due_before = list(before.due)
    earlier = Before.of(before)
    caused = table.try_record(event)
    if caused is None:
        return None
    after = table.battle
    if not isinstance(event, (RefereeRuled, EventRetracted)):
        for unit_id, (state, view) in gone.items():
            now = settled(after.units[unit_id])
            assert now == view, f"{unit_id} was {state} and changed: {event}\n{view.decode()}\n{now.decode()}"
            assert not any(o.unit == unit_id for o in caused if isinstance(o, (out.StateChanged, out.TestDue)))
    assert not [t for t in after.due if after.units[t.unit].state in GONE], (
        f"a unit out of play has a test due: {event}"
    )
    twice = [key for key, n in Counter((t.unit, t.test, t.rule, t.caused_by) for t in after.due).items() if n > 1]
    assert not twice, f"the same test due twice from the same cause: {twice}"
    if isinstance(event, (PhaseEnded, PhaseStarted)):
        assert due_before == [], f"{event} accepted with tests due: {due_before}"
    if reference is not None:
        reference(earlier, event, caused)
    return caused


def settled(unit: Unit) -> bytes:
    """All a unit's view holds but its phase marks, which every new rulebook phase clears for every
    unit, and the ruleset's notes (gdb resets its per-turn memory of every unit): bookkeeping, not a
    change the rules make to the unit."""
    return msgspec.json.encode(replace(unit_view(unit), marks=[], notes={}), order="deterministic")


# -- 40K 6th edition: the Leadership test, from the rulebook's words ------------------------------
def wh40k6_leadership(before: Before, event: AnyEvent, caused: Caused) -> None:
    """A test made due shows as its target the unit's Ld plus the modifiers it lists, but for those it
    marks ignored, and a Stubborn unit's negative ones (which it ignores); a Leadership test rolled
    passes on a total at most that target, or on a double 1."""
    for outcome in caused:
        if isinstance(outcome, out.TestDue) and outcome.target is not None and outcome.unit in before.units:
            ld, special_rules, _models, _starting = before.units[outcome.unit]
            if ld is not None:
                assert outcome.target == reference_target(ld, special_rules, outcome.modifiers), outcome
    if not isinstance(event, DiceRolled):
        return
    due = next((t for t in before.due if (t.unit, t.test) == (event.unit, event.test)), None)
    if due is None or due.test not in ("morale", "regroup", "pinning"):
        return
    ld, special_rules, models, starting = before.units[due.unit]
    (resolved,) = [o for o in caused if isinstance(o, out.TestResolved) and o.unit == due.unit and o.test == due.test]
    dice = tuple(event.dice)
    target = reference_target(ld, special_rules, due.modifiers)
    assert (resolved.dice, resolved.total, resolved.target) == (dice, sum(dice), target), resolved
    if dice == (1, 1):
        assert resolved.passed, resolved  # Insane Heroism: a double 1 always passes
    elif resolved.rule == "wh40k6.regroup.test":  # under 25% left: only a double 1 regroups
        assert due.test == "regroup" and models * 4 < starting and not resolved.passed, resolved
    else:
        assert resolved.passed == (sum(dice) <= target), resolved


def reference_target(ld: int, special_rules, modifiers) -> int:
    stubborn = "stubborn" in special_rules
    return ld + sum(m.value for m in modifiers if not m.ignored_by and not (stubborn and m.value < 0))
