"""One `transitions` state machine per ruleset, shared by every unit of every battle.

The graph is data: rows of {trigger, source, dest, rule}. The machine says which moves are legal:
a rule asks for a move (`move`, which changes nothing), and `apply` fires it, the machine checking
it again against the unit's state at that moment. Units are never added to the
machine (`add_model` is quadratic and skips models that compare equal).

Firing reads the destination from the machine's own transitions (built once from the rows) and
moves the unit with `Machine.set_state`. Going through `Event.trigger` gives the same result, since
the graph has no conditions or callbacks (state changes are bookkeeping-free by design), but costs
many times as much (bench/README.md), and replay fires often.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, get_args

from transitions import Machine, MachineError

from morale.events.types import MoraleState

from .outcomes import StateChanged
from .state import Unit
from .view import UnitView

# The shared states, as the log's types list them (the one list: events/types.py), in the order a
# graph draws them.
STATES: tuple[str, ...] = get_args(MoraleState)
# The same states from holding to gone: the order a state chart's axis reads (the report's), and
# how far from the fight each one is (the colours the command line gives them).
BY_STANDING = ("steady", "regrouped", "wavering", "falling_back", "broken", "dispersed", "destroyed")
assert sorted(BY_STANDING) == sorted(STATES)


class StateGraph:
    def __init__(self, rows: Iterable[Mapping[str, Any]]) -> None:
        self.rows = tuple(rows)
        for row in self.rows:
            named = [row["dest"], *([row["source"]] if isinstance(row["source"], str) else row["source"])]
            unknown = [state for state in named if state not in (*STATES, "*", "=")]
            if unknown:
                raise ValueError(
                    f"{row['rule']}: {unknown[0]!r} is not a shared state ({', '.join(STATES)}); "
                    "a game gives its own words for them in Ruleset.state_names"
                )
        self._machine = Machine(
            model=None,
            states=list(STATES),
            transitions=[{k: v for k, v in row.items() if k != "rule"} for row in self.rows],
            initial="steady",
            auto_transitions=False,
            send_event=False,
        )
        if any(key in row for row in self.rows for key in ("conditions", "unless", "before", "after", "prepare")):
            raise ValueError("state graph rows carry no conditions or callbacks: rules live in the rulesets")
        self._dest: dict[tuple[str, str], str] = {
            (trigger, source): transitions[0].dest or source
            for trigger, event in self._machine.events.items()
            for source, transitions in event.transitions.items()
        }
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

    def mermaid(self, title: str) -> str:
        """The graph as a Mermaid state diagram, drawn by `transitions` itself from the same rows the
        engine fires (each edge labelled with its trigger and the rule that moves the unit)."""
        from transitions.extensions import GraphMachine  # drawing only: off the replay path

        used = ["steady", *sorted(self.states - {"steady"}, key=STATES.index)]
        drawn = GraphMachine(
            states=used,
            transitions=[
                {"trigger": f"{row['trigger']} ({row['rule']})", "source": row["source"], "dest": row["dest"]}
                for row in self.rows
            ],
            initial="steady",
            auto_transitions=False,
            graph_engine="mermaid",
            title=title,
        )
        return str(drawn.get_graph().draw(None))

    def can(self, unit: UnitView, trigger: str) -> bool:
        return (trigger, unit.state) in self._rule

    def destination(self, unit: UnitView, trigger: str) -> str | None:
        """The state `trigger` would put the unit in from the state it is in now (None: it cannot)."""
        return self._dest.get((trigger, unit.state))

    def rule_for(self, unit: UnitView, trigger: str) -> str:
        return self._rule[(trigger, unit.state)]

    def move(self, unit: UnitView, trigger: str, caused_by: tuple[int, ...] = (), rule: str = "") -> StateChanged:
        """The state change `trigger` makes of `unit` now, citing the graph row's rule (or `rule`, where
        the clause that moves it is not the row's). Changes nothing: `apply` carries it out. An illegal
        trigger raises transitions' MachineError."""
        before = unit.state
        dest = self._dest.get((trigger, before))
        if dest is None:
            raise MachineError(f"Can't trigger event {trigger} from state {before}!")
        cited = rule or self._rule[(trigger, before)]
        return StateChanged(
            unit=unit.id, rule=cited, caused_by=caused_by, from_state=before, to_state=dest, move=trigger
        )

    def ruling(self, unit: UnitView, state: str, rule: str, caused_by: tuple[int, ...]) -> StateChanged:
        """A referee's ruling: outside the graph by design (no trigger), and always recorded with its reason."""
        return StateChanged(unit=unit.id, rule=rule, caused_by=caused_by, from_state=unit.state, to_state=state)

    def fire(self, unit: Unit, trigger: str, dest: str) -> None:
        """Move `unit` by `trigger`, which must lead to `dest` from where it stands (`apply` only)."""
        if self._dest.get((trigger, unit.state)) != dest:
            raise MachineError(f"Can't trigger event {trigger} from state {unit.state} to {dest}!")
        self._machine.set_state(dest, model=unit)

    def force(self, unit: Unit, state: str) -> None:
        """Put `unit` in `state` whatever the graph says: a referee's ruling (`apply` only)."""
        self._machine.set_state(state, model=unit)
