"""Rule IDs and refusals: every decision the engine makes names the clause that made it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar, cast, overload

from morale.events.types import EVENT_TYPES, Event

from . import catalogue
from .words import Words

# A clause function's parameters (P) and result (R); for a method, its ruleset (S) and the rest (Q).
P = ParamSpec("P")
Q = ParamSpec("Q")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)
S = TypeVar("S")
K = TypeVar("K")  # what a table's handlers handle (an event, an outcome), filed by its exact type
H = TypeVar("H")  # what the table holds for each type: a handler

# The decision by which a player chooses which of several simultaneous tests is taken first.
TEST_FIRST = "test_first"


class Declared:
    """A clause that is data, not a function (a modifier row, a restriction a table names): its ID,
    what it answers, its words. Functions declared with `clause` carry the same three attributes."""

    __slots__ = ("answers", "id", "words")

    def __init__(self, rule_id: str, answers: dict[str, Answer]) -> None:
        self.id, self.answers, self.words = rule_id, answers, ""

    def __repr__(self) -> str:
        return f"Declared({self.id!r})"


# What a clause may answer (each a name, or several): the fact from the table it reads, the decision
# it allows, the special rule it gives effect to, a casualties cause it reads...; `Ruleset` builds
# its tables from these. A phrase (how the narrative words the state change the clause makes) may be
# one per state reached. A fact may be given with the kind of value the table states for it
# ({fact: kind}, see FACT_KINDS; a tuple of words: one of them); a fact named alone is stated `true`.
Answer = str | tuple[str, ...] | Mapping[str, str | tuple[str, ...]]
ANSWERS = ("fact", "decision", "free_decision", "special_rule", "once_per_phase", "ordered_test", "phrase", "cause")
# What a fact's value is, for a form to ask it: `true` (recorded when it happens), `bool` (true or
# false, as measured), `number` (a distance in inches), `unit` (another unit of the battle), `friend`
# (another unit of the same side), `enemy` (a unit of the other side), `enemy_or_false`.
FACT_KINDS = ("true", "bool", "number", "unit", "friend", "enemy", "enemy_or_false")


class Clause(Protocol[P, R_co]):
    """The function that carries out a clause, as `clause` leaves it: called as it was written (its
    parameters still checked), and carrying its rule ID (`id`), what it answers and the clause's words
    from the catalogue (`words`; `catalogue.Clause` is the catalogue's entry itself). It is the
    function itself, not a wrapper: a call costs what it did, and a method still binds to its
    ruleset (`self.tank_shock.id`), which `__get__` tells the type checker."""

    __name__: str
    id: str
    answers: dict[str, Answer]
    words: str

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R_co: ...

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Clause[P, R_co]: ...
    @overload
    def __get__(self: Clause[Concatenate[S, Q], R], obj: S, owner: type | None = None) -> Clause[Q, R]: ...


# Every clause the code declares, by rule ID, in the order the modules declare them.
CLAUSES: dict[str, Clause[..., object] | Declared] = {}


def clause(rule_id: str, **answers: Answer) -> Callable[[Callable[P, R]], Clause[P, R]]:
    """Declare the function that carries out a clause: the one place its rule ID is written in the
    code. The function knows it (`fn.id`), and the clause's words from the catalogue (`fn.words`);
    what it answers (a fact, a decision...: see ANSWERS) fills its ruleset's tables."""

    def register(fn: Callable[P, R]) -> Clause[P, R]:
        _declare(rule_id, fn, answers)
        return cast(Clause[P, R], fn)  # `_declare` gave it the three attributes a `Clause` adds

    return register


def declare(rule_id: str, **answers: Answer) -> Declared:
    """Declare a clause that is a data row (see `Declared`)."""
    row = Declared(rule_id, answers)
    _declare(rule_id, row, answers)
    return row


def _declare(rule_id: str, target: Any, answers: dict[str, Answer]) -> None:
    unknown = set(answers) - set(ANSWERS)
    if unknown:
        raise TypeError(f"{rule_id}: a clause answers {', '.join(ANSWERS)}, not {', '.join(sorted(unknown))}")
    if rule_id in CLAUSES:
        raise ValueError(f"{rule_id} is declared twice")
    fact = answers.get("fact")
    for kind in fact.values() if isinstance(fact, dict) else ():
        if isinstance(kind, str) and kind not in FACT_KINDS:
            raise TypeError(f"{rule_id}: a fact's value is one of {', '.join(FACT_KINDS)} or a tuple of words")
    words = catalogue.words(rule_id)
    if not words:
        raise ValueError(
            f"{rule_id} is declared in the code but not written down in the catalogue (a game's catalogue, its"
            " *clauses.toml, is read from the package its morale.rulesets entry point names: is the package"
            " installed, with that entry point?)"
        )
    target.id, target.answers, target.words = rule_id, answers, words
    CLAUSES[rule_id] = target


def declared(ruleset: str, answer: str) -> dict[str, str]:
    """{name: rule ID} of the ruleset's clauses that answer `answer` (each fact, decision...), in the
    order they are declared; for `phrase`, {rule ID: phrase} (or {"rule ID:state": phrase})."""
    table: dict[str, str] = {}
    for rule_id, target in CLAUSES.items():
        if not rule_id.startswith(f"{ruleset}.") or answer not in target.answers:
            continue
        given = target.answers[answer]
        if answer == "phrase":
            if isinstance(given, dict):  # one phrase per state the clause leads to: "rule:state"
                # A phrase is kept as the game gave it: `Words` stay sayable in the reader's language.
                table.update({f"{rule_id}:{state}": words for state, words in given.items() if isinstance(words, str)})
            elif isinstance(given, str):
                table[rule_id] = given
            continue
        for name in (given,) if isinstance(given, str) else given:
            if name in table:
                raise ValueError(f"{name!r} is answered by both {table[name]} and {rule_id}")
            table[name] = rule_id
    return table


def fact_kinds(ruleset: str) -> dict[str, str | tuple[str, ...]]:
    """{fact: the kind of value it is stated with} for the ruleset's facts (see FACT_KINDS)."""
    kinds: dict[str, str | tuple[str, ...]] = {}
    for rule_id, target in CLAUSES.items():
        given = target.answers.get("fact") if rule_id.startswith(f"{ruleset}.") else None
        if isinstance(given, dict):
            kinds.update(given)
        elif given:
            kinds.update(dict.fromkeys((given,) if isinstance(given, str) else given, "true"))
    return kinds


# Rule IDs of the engine itself (not of any ruleset): bookkeeping every ruleset shares.
CLOCK_ORDER = declare("engine.clock.order").id
TESTS_FIRST = declare("engine.clock.tests_first").id
DESTROYED = declare("engine.destroyed").id
DICE = declare("engine.dice").id
RULING = declare("engine.ruling").id
RETRACTION = declare("engine.retraction").id
DECISION = declare("engine.decision").id
REROLL = declare("engine.reroll").id
DICE_REVEAL = declare("engine.dice.reveal").id
SEED_COMMIT = declare("engine.dice.seed.commit").id
SEED_REVEAL = declare("engine.dice.seed.reveal").id
SEED_WAIT = declare("engine.dice.seed.wait").id
# Confirmation and disputes, in a battle played without a referee (`core/claims.py`).
CLAIM_OPEN = declare("engine.claim.open").id
CLAIM_CONFIRM = declare("engine.claim.confirm").id
CLAIM_TACIT = declare("engine.claim.tacit").id
CLAIM_PHASE_END = declare("engine.claim.phase_end").id
DISPUTE_OPEN = declare("engine.dispute.open").id
DISPUTE_MEANWHILE = declare("engine.dispute.meanwhile").id
DISPUTE_RESOLVE = declare("engine.dispute.resolve").id


def taken_mark(test: str) -> str:
    """The phase mark of a unit that has taken a test limited to once a phase (Ruleset.once_per_phase)."""
    return f"{test}_test_taken"


def filed_under(table: dict[type[K], H], kind: type[K]) -> Callable[[H], H]:
    """File the function below in `table` under `kind`, the exact type it handles: the one way a
    table by type is filled (the referee's checks and the folds by event type, `apply`'s changes by
    outcome type), so `filed_under(_FOLDS, DiceRolled)` finds a handler by grep. A lookup is one
    dict access by `type(x)`, where a `match` over a union tries each class in turn."""

    def register(fn: H) -> H:
        if kind in table:
            raise ValueError(f"{kind.__name__} is filed twice in one table")
        table[kind] = fn
        return fn

    return register


def every_event_type(table: Mapping[type[Event], object], what: str, skip: tuple[type[Event], ...] = ()) -> None:
    """Stop the import if a type of event the log knows (`EVENT_TYPES`, the one list of them) has no
    handler filed in `table`, naming each such type."""
    missing = [cls.__name__ for cls in EVENT_TYPES.values() if cls not in table and cls not in skip]
    if missing:
        raise ImportError(f"no {what} for {', '.join(missing)}: file one under each with `filed_under`")


class Refusal(Exception):
    """A proposed event that the rules or the log's shape do not allow. Nothing is written.

    `message` is `Words` (said in the reader's language at the edge: `app.language.refusal_line`);
    `str(refusal)` is its line in English, the rule ID or field first."""

    def __init__(self, message: str, *, rule: str | None = None, field: str | None = None) -> None:
        self.message, self.rule, self.field = message, rule, field
        where = rule or field
        super().__init__(f"{where}: {message}" if where else message)

    @property
    def line(self) -> str:
        """The refusal as one line, the rule ID or field it names first, for a sentence that quotes it
        (`Words`: said in the reader's language, the rule ID or field as it is)."""
        where = self.rule or self.field
        return Words("{where}: {refusal}", where=where, refusal=self.message) if where else self.message
