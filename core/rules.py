"""Rule IDs and refusals: every decision the engine makes names the clause that made it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

F = TypeVar("F", bound=Callable[..., object])

# Rule IDs of the engine itself (not of any ruleset): bookkeeping every ruleset shares.
CLOCK_ORDER = "engine.clock.order"
TESTS_FIRST = "engine.clock.tests_first"
DESTROYED = "engine.destroyed"
DICE = "engine.dice"
RULING = "engine.ruling"
RETRACTION = "engine.retraction"
DECISION = "engine.decision"
REROLL = "engine.reroll"
DICE_REVEAL = "engine.dice.reveal"

# The decision by which a player chooses which of several simultaneous tests is taken first.
TEST_FIRST = "test_first"

CLAUSES: dict[str, Callable[..., object]] = {}


def rule(rule_id: str) -> Callable[[F], F]:
    """Mark a function as the one place a rule clause is written down, so it reads like the book
    and the ID it cites can never drift from the code that applies it."""

    def register(fn: F) -> F:
        CLAUSES[rule_id] = fn
        fn.rule_id = rule_id  # type: ignore[attr-defined]
        return fn

    return register


def filed_under(table: dict[type, F], event_type: type) -> Callable[[F], F]:
    """File a function in `table` under an event type: the referee's check and the fold of each type
    of event are found by the event's exact type (a `match` over the union tries each class in turn)."""

    def register(fn: F) -> F:
        table[event_type] = fn
        return fn

    return register


class Refusal(Exception):
    """A proposed event that the rules or the log's shape do not allow. Nothing is written."""

    def __init__(self, message: str, *, rule: str | None = None, field: str | None = None) -> None:
        self.message, self.rule, self.field = message, rule, field
        where = rule or field
        super().__init__(f"{where}: {message}" if where else message)
