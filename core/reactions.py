"""Rules as reactions: what each clause reacts to, and the one loop that walks them.

A clause that acts is declared with what it reacts to (an event type, or an outcome type), under
what condition (`when`, a predicate; or `test=`, `fact=`, `decision=`: the name the trigger must
carry), next to its rule ID. It is a function from the battle, read-only (`core/view.py`), and its
trigger to a list of outcomes:

    @RULES.clause("mygame.fall_back.start", phrase="Falls Back", reacts_to=Settled, test="morale",
                  when=lambda battle, settled: not settled.result.passed)
    def falls_back(battle: BattleView, settled: Settled) -> list[Outcome]: ...

`walk` is the loop. Once an event's own facts are written (`core/fold.py`), it asks the reactions to
the event in rulebook order (the engine's first, then the game's in the order its module declares
them, then the engine's last: what carries over a phase's end is read once the phase's own tests are
decided); each outcome a reaction decides is applied through the one `apply` and is then itself a
trigger, walked at once, before the next outcome of the same reaction: a cascade reads as it
happens (the unit falls back, then its Fall Back move falls due). A reaction decides its whole list
from the battle as it stands when it is asked; nothing changes under it while it reads. A trigger
that is answered once (`TestCalled`) is answered by the first reaction that holds. A cascade deeper
than `DEPTH` is stopped, naming the rules that fed it.

Refusals are declared the same way, by event type (`Rulebook.check`): the referee runs the engine's
check of an event, then the game's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from morale.events.types import Event, PlayerDecided, TableFactRecorded

from .apply import apply
from .outcomes import Chosen, Outcome
from .rules import Answer, Clause, clause
from .view import BattleView

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
KEY_FIELDS: dict[type[Any], str] = {TableFactRecorded: "fact", PlayerDecided: "decision", Chosen: "decision"}


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


class RunawayCascade(RuntimeError):
    """A cascade of reactions that does not end: a rule (or two) feeding itself."""

    def __init__(self, chain: Sequence[str]) -> None:
        self.chain = tuple(chain)
        loop = " -> ".join(chain[-8:])
        super().__init__(f"a cascade of {len(chain)} reactions did not end (the last: {loop})")


Check = Callable[[BattleView, Any], None]


@dataclass
class Rulebook:
    """A game's reactions and checks, in the order its module declares them (the rulebook's)."""

    name: str
    reactions: list[Reaction[Any]] = field(default_factory=list)
    checks: dict[type[Event], list[Check]] = field(default_factory=dict)
    # Checks that come before the engine's own (a rule that keeps a test from being due is named
    # before the engine says no test is due).
    checks_first: dict[type[Event], list[Check]] = field(default_factory=dict)

    def clause(
        self,
        rule_id: str,
        *,
        reacts_to: type[Any],
        when: Callable[[BattleView, Any], bool] | None = None,
        test: str | tuple[str, ...] | None = None,
        stage: int = GAME,
        **answers: Answer,
    ) -> Callable[[Callable[[BattleView, Any], Outcomes]], Clause[[BattleView, Any], Outcomes]]:
        """Declare a clause (`rules.clause`) that reacts to `reacts_to`. A fact or decision it
        answers (`fact=`, `decision=`, `free_decision=`) is what the trigger must carry, as `test=`
        names the test; `when` is any other condition."""

        key = _key_of(reacts_to, test, answers)

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
        fact: str | None = None,
        decision: str | None = None,
        stage: int = GAME,
    ) -> None:
        """File a reaction for a clause declared elsewhere (a data row, or one clause read by two
        triggers)."""
        key = _key_of(reacts_to, test, {"fact": fact} if fact else {"decision": decision} if decision else {})
        self.reactions.append(Reaction(rule_id, reacts_to, does, when, key, stage))

    def check(self, *kinds: type[Event], first: bool = False) -> Callable[[F], F]:
        """Declare a check of events of `kinds`: it reads the battle and the proposed event and
        raises `Refusal` naming the rule or the field; the referee calls it after its own checks of
        the event (`first`: before them)."""

        def register(fn: F) -> F:
            for kind in kinds:
                (self.checks_first if first else self.checks).setdefault(kind, []).append(fn)
            return fn

        return register


def _key_of(
    reacts_to: type[Any], test: str | tuple[str, ...] | None, answers: dict[str, Answer]
) -> tuple[str, ...] | None:
    """The names a reaction is filed under: the test it names, or the fact or decision its clause
    answers where the trigger carries one."""
    keyed_by = KEY_FIELDS.get(reacts_to, "test")
    if test is not None:
        if keyed_by != "test":
            raise TypeError(f"a reaction to {reacts_to.__name__} names its {keyed_by}, not a test")
        named: Answer | None = test
    elif keyed_by == "fact":
        named = answers.get("fact")
    elif keyed_by == "decision":
        named = answers.get("decision") or answers.get("free_decision")
    else:
        named = None
    if named is None:
        return None
    return (named,) if isinstance(named, str) else tuple(named)


class Reactions:
    """Every reaction a battle of one game walks, by trigger type, in order: the engine's and the
    game's together. Built once a ruleset (`Ruleset.reactions`)."""

    def __init__(self, books: Iterable[Rulebook]) -> None:
        every = [r for book in books for r in book.reactions]
        ordered = sorted(every, key=lambda r: r.stage)  # stable: the declaration order within a stage
        self._any: dict[type[Any], list[Reaction[Any]]] = {}
        self._keys: dict[type[Any], dict[str, list[Reaction[Any]]]] = {}
        for reaction in ordered:
            self._any.setdefault(reaction.to, [])
            self._keys.setdefault(reaction.to, {})
        for kind in self._any:
            mine = [r for r in ordered if r.to is kind]
            names = {name for r in mine if r.key for name in r.key}
            self._any[kind] = [r for r in mine if r.key is None]
            self._keys[kind] = {name: [r for r in mine if r.key is None or name in r.key] for name in names}
        self.once = {kind for kind in self._any if getattr(kind, "answered_once", False)}
        self._field = {kind: KEY_FIELDS.get(kind, "test") for kind in self._any}

    def to(self, trigger: object) -> list[Reaction[Any]] | None:
        """The reactions to `trigger`, in order (None: none reacts to its type)."""
        kind = type(trigger)
        every = self._any.get(kind)
        if every is None:
            return None
        keyed = self._keys[kind]
        if keyed:
            found = keyed.get(getattr(trigger, self._field[kind]))
            if found is not None:
                return found
        return every


def walk(battle: Any, trigger: object, reactions: Reactions) -> list[Outcome]:
    """Walk the reactions to `trigger` (an event whose own facts are written) and to every outcome
    they decide, applying each; return the outcomes that are part of the explanation."""
    reported: list[Outcome] = []
    _react(battle, trigger, reactions, reported, [])
    return reported


def _react(battle: Any, trigger: object, reactions: Reactions, reported: list[Outcome], chain: list[str]) -> None:
    found = reactions.to(trigger)
    if not found:
        return
    once = type(trigger) in reactions.once
    for reaction in found:
        if reaction.when is not None and not reaction.when(battle, trigger):
            continue
        chain.append(reaction.rule)
        if len(chain) > DEPTH:
            raise RunawayCascade(chain)
        for outcome in reaction.does(battle, trigger):
            apply(battle, outcome)
            if outcome.reported:
                reported.append(outcome)
            _react(battle, outcome, reactions, reported, chain)
        chain.pop()
        if once:
            return
