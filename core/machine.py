"""One `transitions` state machine per ruleset, shared by every unit of every battle.

The graph is data: rows of {trigger, source, dest, rule}. The machine says which moves are legal;
units change state only when `evolve` fires a trigger on them. Units are never added to the
machine (`add_model` is quadratic and skips models that compare equal); a trigger is fired on a
unit directly through the machine's event, which is all a model needs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from transitions import Machine

from .outcomes import StateChanged
from .state import Unit

STATES = ("steady", "falling_back", "regrouped", "wavering", "broken", "dispersed", "destroyed")


class StateGraph:
    def __init__(self, rows: Iterable[Mapping[str, Any]]) -> None:
        self.rows = tuple(rows)
        self._machine = Machine(
            model=None,
            states=list(STATES),
            transitions=[{k: v for k, v in row.items() if k != "rule"} for row in self.rows],
            initial="steady",
            auto_transitions=False,
            send_event=False,
        )
        self._rule: dict[tuple[str, str], str] = {}
        for row in self.rows:
            sources = STATES if row["source"] == "*" else row["source"]
            for source in [sources] if isinstance(sources, str) else sources:
                self._rule[(row["trigger"], source)] = row["rule"]

    @property
    def states(self) -> frozenset[str]:
        """The states this ruleset can put a unit in (a referee may rule only these)."""
        return frozenset(state for _, state in self._rule) | frozenset(
            row["dest"] for row in self.rows if row["dest"] != "="
        )

    def can(self, unit: Unit, trigger: str) -> bool:
        return (trigger, unit.state) in self._rule

    def rule_for(self, unit: Unit, trigger: str) -> str:
        return self._rule[(trigger, unit.state)]

    def fire(self, unit: Unit, trigger: str, caused_by: tuple[int, ...] = (), rule: str = "") -> StateChanged:
        """Move `unit` by `trigger`; an illegal trigger raises (transitions' MachineError)."""
        before = unit.state
        cited = rule or self._rule.get((trigger, before), "")
        self._machine.events[trigger].trigger(unit)
        return StateChanged(unit=unit.id, rule=cited, caused_by=caused_by, from_state=before, to_state=unit.state)

    def force(self, unit: Unit, state: str, rule: str, caused_by: tuple[int, ...]) -> StateChanged:
        """A referee's ruling: outside the graph by design, and always recorded with its reason."""
        before = unit.state
        self._machine.set_state(state, model=unit)
        return StateChanged(unit=unit.id, rule=rule, caused_by=caused_by, from_state=before, to_state=state)
