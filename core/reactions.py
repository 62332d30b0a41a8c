"""Rules as reactions: what each clause reacts to, and the one loop that walks them.

A clause that acts is declared with what it reacts to (an event type, or an outcome type), under
what condition (`when`, a predicate; or `test=`, `fact=`, `decision=`: the name the trigger must
carry), next to its rule ID. It is a function from the battle, read-only (`core/view.py`), and its
trigger to a list of outcomes:

    @RULES.clause("mygame.fall_back.start", phrase="Falls Back", reacts_to=Settled, test="morale",
                  when=lambda battle, settled: not settled.result.passed)
    def falls_back(battle: BattleView, settled: Settled) -> list[Outcome]: ...

`walk` is the loop. Once an event's own facts are written (`core/evolve.py`), it asks the reactions to
the event in rulebook order (the engine's first, then the game's in the order its module declares
them, then the engine's last: what carries over a phase's end is read once the phase's own tests are
decided); each outcome a reaction decides is applied through the one `apply` and is then itself a
trigger, walked at once, before the next outcome of the same reaction: a cascade reads as it
happens (the unit falls back, then its Fall Back move falls due). A reaction decides its whole list
from the battle as it stands when it is asked; nothing changes under it while it reads. A trigger
that is answered once (`TestCalled`) is answered by the first reaction that holds. A cascade deeper
than `DEPTH` is stopped, naming the rules that fed it.

Refusals are declared the same way, by event type (`Rulebook.check`): the referee runs the engine's
check of an event, then the game's. And what the views ask of a game, which decides nothing, is
filed here too: how each test's dice read (`Rulebook.reads`: its target and what a roll gives, for
the due list and the odds) and what a state forbids by itself (`Rulebook.restricts`, for the board).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from morale.events.types import Event, PhaseEnded, PhaseStarted, PlayerDecided, TableFactRecorded

from .apply import PLAN
from .outcomes import Chosen, Outcome
from .rules import Answer, Clause, clause
from .view import BattleView, UnitView

if TYPE_CHECKING:
    from .state import DueTest

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

# What a reaction decides: its outcomes, in the order they happen.
Outcomes = Sequence[Outcome]
# A nested cascade this deep is a rule that feeds itself (a unit that falls back and falls back again).
DEPTH = 40

# Where the engine's own reactions stand beside a game's: `FIRST` before them (a unit destroyed by
# its casualties is destroyed before the game reads the casualties), `LAST` after (expiry).
FIRST, GAME, LAST = 0, 1, 2

# The field of a trigger a reaction may name instead of a predicate: the fact a table fact states,
# the decision a player takes; any other trigger that names a test (a test called, rolled, settled),
# the test. A clause that answers a fact or a decision reacts to those of its name alone.
# A clock event, the phase it starts or ends.
KEY_FIELDS: dict[type[Any], str] = {
    TableFactRecorded: "fact",
    PlayerDecided: "decision",
    Chosen: "decision",
    PhaseStarted: "phase",
    PhaseEnded: "phase",
}


@dataclass(frozen=True, slots=True)
class Reaction(Generic[T]):
    """A clause's reaction: to triggers of type `to` that carry `key` (a test, fact or decision
    name; None: any) and for which `when` holds, `does` decides outcomes."""

    rule: str
    to: type[T]
    does: Callable[[BattleView, T], Outcomes]
    when: Callable[[BattleView, T], bool] | None = None
    key: tuple[str, ...] | None = None
    stage: int = GAME
    # Whether a game can need the reaction at all (the engine's limit of a test to once a phase, for
    # a game that limits none): asked once, as a game's reactions are gathered, never in the walk.
    needed: Callable[[Any], bool] | None = None


class RunawayCascade(RuntimeError):
    """A cascade of reactions that does not end: a rule (or two) feeding itself."""

    def __init__(self, chain: Sequence[str]) -> None:
        self.chain = tuple(chain)
        loop = " -> ".join(chain[-8:])
        super().__init__(f"a cascade of {len(chain)} reactions did not end (the last: {loop})")


# How a test's dice read for the views: the number they must not exceed, where there is one (the
# due list), and what a roll would give as (result, passed), changing nothing (the odds try every
# roll through it); None: no target, no odds.
Target = Callable[[BattleView, "DueTest"], "int | None"]
Result = Callable[[BattleView, "DueTest", tuple[int, ...]], "tuple[str, bool] | None"]
# What a unit's state forbids by itself, as (words, rule ID), for the status board.
Restrictions = Callable[[UnitView], list[tuple[str, str]]]
R = TypeVar("R", bound=Restrictions)


@dataclass(frozen=True, slots=True)
class Reading:
    """How one test's dice read: `target` and `result` (see above); either may be missing."""

    target: Target | None = None
    result: Result | None = None


Check = Callable[[BattleView, Any], None]
# A check as the referee keeps it: the field of the event that names what it checks ("" for every
# event of its type), the names it checks, and the check.
FiledCheck = tuple[str, tuple[str, ...], Check]


@dataclass
class Rulebook:
    """A game's reactions and checks, in the order its module declares them (the rulebook's)."""

    name: str
    reactions: list[Reaction[Any]] = field(default_factory=list)
    checks: dict[type[Event], list[FiledCheck]] = field(default_factory=dict)
    # Checks that come before the engine's own (a rule that keeps a test from being due is named
    # before the engine says no test is due).
    checks_first: dict[type[Event], list[FiledCheck]] = field(default_factory=dict)
    # What the views ask, by name: each test's reading, and each state's restrictions (under None:
    # those a unit in any state may have).
    readings: dict[str, Reading] = field(default_factory=dict)
    restrictions: dict[str | None, list[Restrictions]] = field(default_factory=dict)

    def clause(
        self,
        rule_id: str,
        *,
        reacts_to: type[Any],
        when: Callable[[BattleView, Any], bool] | None = None,
        test: str | tuple[str, ...] | None = None,
        phase: str | tuple[str, ...] | None = None,
        stage: int = GAME,
        **answers: Answer,
    ) -> Callable[[Callable[[BattleView, Any], Outcomes]], Clause[[BattleView, Any], Outcomes]]:
        """Declare a clause (`rules.clause`) that reacts to `reacts_to`. A fact or decision it
        answers (`fact=`, `decision=`, `free_decision=`) is what the trigger must carry, as `test=`
        names the test and `phase=` the phase a clock event starts or ends; `when` is any other
        condition."""

        key = _key_of(reacts_to, test, phase, answers)

        def register(
            fn: Callable[[BattleView, Any], Outcomes],
        ) -> Clause[[BattleView, Any], Outcomes]:
            declared = clause(rule_id, **answers)(fn)
            self.reactions.append(Reaction(rule_id, reacts_to, declared, when, key, stage))
            return declared

        return register

    def react(
        self,
        rule_id: str,
        reacts_to: type[Any],
        does: Callable[[BattleView, Any], Outcomes],
        *,
        when: Callable[[BattleView, Any], bool] | None = None,
        test: str | tuple[str, ...] | None = None,
        phase: str | tuple[str, ...] | None = None,
        fact: str | None = None,
        decision: str | None = None,
        stage: int = GAME,
        needed: Callable[[Any], bool] | None = None,
    ) -> None:
        """File a reaction for a clause declared elsewhere (a data row, or one clause read by two
        triggers). `needed(ruleset)` false: a game of that ruleset never walks it."""
        named: dict[str, Answer] = {"fact": fact} if fact else {"decision": decision} if decision else {}
        key = _key_of(reacts_to, test, phase, named)
        self.reactions.append(Reaction(rule_id, reacts_to, does, when, key, stage, needed))

    def check(
        self, *kinds: type[Event], first: bool = False, fact: str | tuple[str, ...] | None = None
    ) -> Callable[[F], F]:
        """Declare a check of events of `kinds`: it reads the battle and the proposed event and
        raises `Refusal` naming the rule or the field; the referee calls it after its own checks of
        the event (`first`: before them). `fact=` names the facts it checks (a table fact's, or a
        free decision's name, as a reaction names them); without it, it checks every event of its
        kinds."""

        def register(fn: F) -> F:
            for kind in kinds:
                named = (fact,) if isinstance(fact, str) else tuple(fact or ())
                keyed_by = KEY_FIELDS.get(kind, "") if named else ""
                if named and keyed_by not in ("fact", "decision"):
                    raise TypeError(f"a check of {kind.__name__} cannot name a fact or a decision")
                (self.checks_first if first else self.checks).setdefault(kind, []).append((keyed_by, named, fn))
            return fn

        return register

    def reads(self, *tests: str, target: Target | None = None, result: Result | None = None) -> None:
        """Say how the dice of `tests` read for the views: `target(battle, due)`, the number they must
        not exceed; `result(battle, due, dice)`, what a roll would give, as (result, passed), by the
        same evaluation the rules make (the odds try every roll through it)."""
        for test in tests:
            if test in self.readings:
                raise TypeError(f"{self.name}: the {test!r} test's dice are read twice")
            self.readings[test] = Reading(target, result)

    def restricts(self, *states: str) -> Callable[[R], R]:
        """Declare what units in `states` (none named: in any state) cannot do by their state alone,
        beyond the restrictions the log records: a function of the unit to (words, rule ID) pairs."""

        def register(fn: R) -> R:
            for state in states or (None,):
                self.restrictions.setdefault(state, []).append(fn)
            return fn

        return register

    def always_restricts(self, state: str, rows: Iterable[tuple[str, str]]) -> None:
        """Declare what units in `state` cannot do, the same whatever the unit: (words, rule ID) rows."""
        kept = tuple(rows)
        self.restricts(state)(lambda unit: list(kept))


def _key_of(
    reacts_to: type[Any],
    test: str | tuple[str, ...] | None,
    phase: str | tuple[str, ...] | None,
    answers: dict[str, Answer],
) -> tuple[str, ...] | None:
    """The names a reaction is filed under: the test or phase it names, or the fact or decision its
    clause answers where the trigger carries one."""
    keyed_by = KEY_FIELDS.get(reacts_to, "test")
    named: Answer | None = None
    for name, given in (("test", test), ("phase", phase)):
        if given is not None:
            if keyed_by != name:
                raise TypeError(f"a reaction to {reacts_to.__name__} names its {keyed_by}, not a {name}")
            named = given
    if named is not None:
        pass
    elif keyed_by == "fact":
        named = answers.get("fact")
    elif keyed_by == "decision":
        named = answers.get("decision") or answers.get("free_decision")
    if named is None:
        return None
    if keyed_by not in getattr(reacts_to, "__struct_fields__", (keyed_by,)):  # a StateChanged names no test
        raise TypeError(f"a reaction to {reacts_to.__name__} cannot name a {keyed_by}: it carries none")
    return (named,) if isinstance(named, str) else tuple(named)


# What the walk reads for one trigger type: the field naming its test, fact or decision ("" where no
# reaction names one), the reactions for each name (with the unnamed ones, in order), the unnamed
# ones alone, and whether the first that holds answers it. Each reaction as (when, does, rule).
Walked = tuple[str, dict[str, list[tuple[Any, Any, str]]], list[tuple[Any, Any, str]], bool]


class Reactions:
    """Every reaction a battle of one game walks, by trigger type, in order: the engine's and the
    game's together. Built once a ruleset (`core/evolve.py`)."""

    def __init__(self, books: Iterable[Rulebook], ruleset: Any = None) -> None:
        # Without a ruleset (a test of the walk itself), every reaction is gathered.
        every = [
            r for book in books for r in book.reactions if r.needed is None or ruleset is None or r.needed(ruleset)
        ]
        ordered = sorted(every, key=lambda r: r.stage)  # stable: the declaration order within a stage
        # One lookup a trigger: the walk asks it for every outcome of every event replayed.
        self.by_kind: dict[type[Any], Walked] = {}
        for kind in dict.fromkeys(r.to for r in ordered):
            mine = [r for r in ordered if r.to is kind]
            names = {name for r in mine if r.key for name in r.key}
            keyed = {name: [_step(r) for r in mine if r.key is None or name in r.key] for name in names}
            field = KEY_FIELDS.get(kind, "test") if keyed else ""
            unnamed = [_step(r) for r in mine if r.key is None]
            self.by_kind[kind] = (field, keyed, unnamed, getattr(kind, "answered_once", False))


def _step(reaction: Reaction[Any]) -> tuple[Any, Any, str]:
    return (reaction.when, reaction.does, reaction.rule)


# A trigger type no reaction is declared on walks nothing.
NOTHING: Walked = ("", {}, [], False)


def steps_for(by_kind: dict[type[Any], Walked], trigger: object) -> tuple[list[tuple[Any, Any, str]], bool]:
    """The reactions to `trigger`, in order, and whether the first that holds answers it. `evolve`
    and `react` select them inline, as here: they do it for every trigger replayed."""
    field, keyed, steps, once = by_kind.get(type(trigger), NOTHING)
    if field:
        steps = keyed.get(getattr(trigger, field), steps)
    return steps, once


def walk(battle: Any, trigger: object, reactions: Reactions) -> list[Outcome]:
    """Walk the reactions to `trigger` (an event whose own facts are written) and to every outcome
    they decide, applying each; return the outcomes that are part of the explanation."""
    reported: list[Outcome] = []
    steps, once = steps_for(reactions.by_kind, trigger)
    if steps:
        react(battle, trigger, steps, once, reactions.by_kind, reported, 0)
    return reported


def react(
    battle: Any,
    trigger: object,
    steps: list[tuple[Any, Any, str]],
    once: bool,
    by_kind: dict[type[Any], Walked],
    reported: list[Outcome],
    depth: int,
) -> None:
    """`walk`'s step: the reactions to one trigger (`steps`, `once`: `steps_for`). The walk asks the
    table before it calls: a trigger no reaction answers (a phase no rule starts anything in) costs
    no call."""
    for when, does, rule in steps:
        if when is not None and not when(battle, trigger):
            continue
        try:
            for outcome in does(battle, trigger):
                kind = type(outcome)
                change, shown = PLAN[kind]
                if change is not None:
                    change(battle, outcome)
                if shown:
                    reported.append(outcome)
                if kind in by_kind:  # most outcomes have no reaction of their own
                    field, keyed, walked, answered = by_kind[kind]
                    if field:
                        walked = keyed.get(getattr(outcome, field), walked)
                    if not walked:
                        continue
                    if depth == DEPTH:
                        raise RunawayCascade([])
                    react(battle, outcome, walked, answered, by_kind, reported, depth + 1)
        except RunawayCascade as runaway:  # named on the way out: the rules that fed it, outermost first
            raise RunawayCascade([rule, *runaway.chain]) from None
        if once:
            return
