"""The language of the log: every fact the table reports, as one tagged union of frozen Structs.

Tags are explicit and stable (never class names), so a rename in Python never breaks an old log.
Constraints live in the types: a die is 1..6, a count is never negative, an id is a short slug.
Schema evolution: a new field always has a default; an existing field never changes type.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, get_args

import msgspec
from msgspec import Meta

from .words import Words

# The version of an event type that has never changed. Each type says its own in `Event.version`;
# it travels with every stored event, and a type that changes carries `upcast_vN_vM` for old ones.
SCHEMA_VERSION = 1

# -- the limits every way in shares ---------------------------------------------------------------
# The CLI, HTTP, an import and a roster all decode events with these types, so a value is held to the
# same limits whichever way it came in, and a refusal names the field the same way (events/wording.py
# says it in the words a type carries). docs/command-line.md lists them ("Limits").
_CONTROL = r"\x00-\x1f\x7f-\x9f"  # C0 and C1 control characters, and DEL: as regex escapes, readable in the schema
_NO_CONTROL = f"^[^{_CONTROL}]*$"
_TEXT = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*$"  # free text: tabs and line breaks are its own
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
ID_WORDS = Words("an id: 1 to 64 letters, digits, '_', '.' or '-', the first a letter or digit")
HEX_WORDS = Words("64 lowercase hex digits")
LANGUAGE_WORDS = Words("a language's two- or three-letter code, such as ru")
TEXT_LIMIT = 2000  # characters of free text: a note, a cause, a ruling's reason
NAME_LIMIT = 200
MOST = 100_000  # models in a unit, casualties, wounds: far beyond any table, far below a mistake's 10**30
MAX_TABLE_DEPTH = 8  # a pinned table's values nest no deeper (the shipped ones nest 4)

Die = Annotated[
    int, Meta(ge=1, le=6, description="one six-sided die, 1..6", extra={"words": Words("a die shows 1 to 6")})
]
Count = Annotated[int, Meta(ge=0, le=MOST)]
Positive = Annotated[int, Meta(ge=1, le=MOST)]
Turn = Annotated[int, Meta(ge=1, le=10_000)]
Seq = Annotated[int, Meta(ge=1, le=2**63 - 1)]  # the largest integer SQLite keeps
Bonus = Annotated[int, Meta(ge=-1000, le=1000)]
Slug = Annotated[str, Meta(min_length=1, max_length=64, pattern=ID_PATTERN, extra={"words": ID_WORDS})]
BattleId = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=64,
        pattern=ID_PATTERN,
        description="a battle's id: it names the battle in paths and URLs, so it is never one of them",
        extra={"words": Words("a battle's id: 1 to 64 letters, digits, '_', '.' or '-', the first a letter or digit")},
    ),
]
Name = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=NAME_LIMIT,
        pattern=_NO_CONTROL,
        extra={"words": Words("a name of 1 to {limit} characters, none of them a control character", limit=NAME_LIMIT)},
    ),
]
Title = Annotated[  # a name that may be left out: the battle's
    str,
    Meta(
        max_length=NAME_LIMIT,
        pattern=_NO_CONTROL,
        extra={
            "words": Words("a name of at most {limit} characters, none of them a control character", limit=NAME_LIMIT)
        },
    ),
]
Text = Annotated[
    str,
    Meta(
        max_length=TEXT_LIMIT,
        pattern=_TEXT,
        extra={
            "words": Words(
                "text of at most {limit} characters, no control characters but tabs and line breaks", limit=TEXT_LIMIT
            )
        },
    ),
]
Reason = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=TEXT_LIMIT,
        pattern=_TEXT,
        extra={
            "words": Words(
                "a reason of 1 to {limit} characters, no control characters but tabs and line breaks", limit=TEXT_LIMIT
            )
        },
    ),
]
Hex64 = Annotated[
    str,
    Meta(pattern=r"^[0-9a-f]{64}$", description="64 lowercase hex digits", extra={"words": HEX_WORDS}),
]
Leadership = Annotated[int, Meta(ge=0, le=10)]
Characteristic = Annotated[int, Meta(ge=0, le=10)]
FactText = Annotated[
    str,
    Meta(
        max_length=NAME_LIMIT,
        pattern=_NO_CONTROL,
        extra={
            "words": Words("text of at most {limit} characters, none of them a control character", limit=NAME_LIMIT)
        },
    ),
]
FactValue = bool | Annotated[int, Meta(ge=-(10**9), le=10**9)] | Annotated[float, Meta(ge=-1e9, le=1e9)] | FactText
Facts = Annotated[dict[Slug, FactValue], Meta(max_length=64)]
Units = Annotated[tuple[Slug, ...], Meta(max_length=64)]

# The shared morale states: the machine values every game's graph moves units between and the log
# stores (a ruling's `state`; each unit's state in a phase end's digest). This is the one list of them
# (core/machine.py reads it): a game calls them by its own words (`Ruleset.state_names`), and a value
# is never renamed, since logs already written hold it.
MoraleState = Literal["steady", "falling_back", "regrouped", "wavering", "broken", "dispersed", "destroyed"]
DicePolicy = Literal["table", "engine", "either"]
DiceSource = Literal["table", "engine"]


class Event(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    tag_field="type",
    forbid_unknown_fields=True,
    omit_defaults=True,
    gc=False,
):
    """Something that happened at the table. Past tense, as the players would report it."""

    # Immutable all the way down (sequences are tuples) and never part of a reference cycle: with
    # gc=False and no lists inside, the cyclic garbage collector need not walk the many thousands a
    # replay keeps (lists are always tracked; tuples of strings and numbers are not).
    # Each type repeats `frozen=True`: msgspec passes it down already, but a type checker reads only
    # the keywords a class states itself, and a mutable class below a frozen one is an error to it.

    # This type's schema version, stored with each event. A type that changes shape bumps it and
    # carries `upcast_v{n}_v{n+1}(data: dict) -> dict`, applied in a chain to old events on read.
    version: ClassVar[int] = SCHEMA_VERSION


class PinnedTable(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """A data table a battle is read with (a results table, a house rule's numbers), pinned by value:
    the log replays the same way even if the file it came from changes later. `sha256` covers the
    canonical JSON of `values` (sorted keys, see `events.codec.table_sha256`)."""

    sha256: Hex64
    values: Annotated[dict[str, Any], Meta(max_length=64)]
    source: Annotated[str, Meta(max_length=1000, pattern=_NO_CONTROL)] = ""  # a path, or "default: <file>"

    def __post_init__(self) -> None:
        # `values` is any JSON: bounded here, so a table read once can always be read again (a
        # decoder nested a thousand levels deep fails where the stack is already deep).
        if nesting(self.values) > MAX_TABLE_DEPTH:
            raise ValueError(f"values: nested deeper than {MAX_TABLE_DEPTH} levels")


def nesting(value: Any) -> int:
    """How deep lists and objects nest in `value` (a scalar: 0), counted without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list | tuple):
            deepest = max(deepest, depth + 1)
            stack.extend((inner, depth + 1) for inner in (item.values() if isinstance(item, dict) else item))
    return deepest


class BattleStarted(Event, tag="battle_started", frozen=True):
    """The first event of every battle: it pins the rules the log is to be read with."""

    ruleset: Slug
    ruleset_version: Slug
    sides: Annotated[tuple[Slug, ...], Meta(min_length=2, max_length=2)]
    name: Title = ""
    house_rules: Facts = {}
    dice_policy: DicePolicy = "either"
    # sha256 of the battle's dice secret, when the engine may roll
    dice_commitment: Annotated[str, Meta(pattern=r"^([0-9a-f]{64})?$", extra={"words": HEX_WORDS})] = ""
    tables: Annotated[dict[Slug, PinnedTable], Meta(max_length=16)] = {}  # the ruleset's data tables (Ruleset.tables)
    # A battle played without a referee: a player's entry stands as a claim until the other side
    # confirms it, or disputes it (`engine.claim.*`, `engine.dispute.*`).
    confirmation: bool = False
    # The language what is said about the battle speaks to a reader who asked for none (`--lang`,
    # `$MORALE_LANG`, `?lang=`, the console's switch): a club's roster says the language its rule
    # texts are in. "" for none. The log keeps a tag; which languages are spoken is the app's to say.
    language: Annotated[str, Meta(pattern=r"^([a-z]{2,3})?$", extra={"words": LANGUAGE_WORDS})] = ""


class UnitJoined(Event, tag="unit_joined", frozen=True):
    unit: Slug
    side: Slug
    name: Name
    unit_type: Slug
    models: Positive
    ld: Leadership | None = None
    initiative: Characteristic | None = None
    special_rules: Units = ()
    # What only one ruleset reads (a Napoleonic battalion's quality, brigade, formation...): the
    # ruleset declares and validates these fields; the log keeps them as given.
    profile: Facts = {}


class UnitChanged(Event, tag="unit_changed", frozen=True):
    """A change to a unit's profile at the table: a new formation, a commander joining..."""

    unit: Slug
    changes: Annotated[dict[Slug, FactValue], Meta(min_length=1, max_length=64)]
    note: Text = ""


class PhaseStarted(Event, tag="phase_started", frozen=True):
    turn: Turn
    side: Slug
    phase: Slug


class PhaseEnded(Event, tag="phase_ended", frozen=True):
    """A phase closes. `state_digest` (version 2) is the writer's digest of the battle as it stood when
    the phase was closed, before this event is applied, so `verify` can tell where a replay disagrees."""

    version: ClassVar[int] = 2

    turn: Turn
    side: Slug
    phase: Slug
    state_digest: Annotated[str, Meta(pattern=r"^([0-9a-f]{64})?$")] = ""  # "": none recorded

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        # A version-1 phase end was written before digests were kept: it records none.
        return {**data, "state_digest": ""}


class CasualtiesSuffered(Event, tag="casualties_suffered", frozen=True):
    unit: Slug
    count: Positive
    cause: Text = ""


class CombatSide(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True, gc=False):
    side: Slug
    units: Annotated[tuple[Slug, ...], Meta(min_length=1, max_length=64)]
    wounds_inflicted: Count
    bonus: Bonus = 0  # combat resolution from special rules, added to the wounds inflicted
    # Per-unit detail, for the rulesets that read it (Ruleset.combat_detail): each unit's ranks at the
    # end of the round, bonuses that belong to one unit (its ranks, standard, flank...), and the units
    # that lost base contact with every foe during the round.
    ranks: Annotated[dict[Slug, Count], Meta(max_length=64)] = {}
    unit_bonus: Annotated[dict[Slug, Bonus], Meta(max_length=64)] = {}
    left_combat: Units = ()


class CombatResolved(Event, tag="combat_resolved", frozen=True):
    sides: Annotated[tuple[CombatSide, ...], Meta(min_length=2, max_length=2)]


class ChargeDeclared(Event, tag="charge_declared", frozen=True):
    charger: Slug
    targets: Annotated[tuple[Slug, ...], Meta(min_length=1, max_length=64)]
    in_range: Units = ()  # targets that at least one charging model can reach, as measured
    flank: Units = ()  # targets charged in the flank or rear, as measured


class TableFactRecorded(Event, tag="table_fact_recorded", frozen=True):
    unit: Slug
    fact: Slug
    value: FactValue = True


class DiceRolled(Event, tag="dice_rolled", frozen=True):
    unit: Slug
    test: Slug  # which due roll these dice are for: morale, regroup, pinning, fall_back...
    dice: Annotated[tuple[Die, ...], Meta(min_length=1, max_length=12)]
    source: DiceSource = "table"
    reroll: bool = False  # these dice re-roll the unit's last, failed result (where a rule grants it)


class DiceRevealed(Event, tag="dice_revealed", frozen=True):
    """The battle's dice secret made public, so anyone can recompute every engine roll made with it;
    it must hash to the commitment in force. `commitment`: sha256 of a fresh secret the engine rolls
    with from here on, so the battle goes on (`engine.dice.reveal`); without one (a log written
    before fresh commitments, or one revealed for good) the engine rolls no more."""

    secret: Hex64
    commitment: Annotated[str, Meta(pattern=r"^([0-9a-f]{64})?$", extra={"words": HEX_WORDS})] = ""


class SeedCommitted(Event, tag="seed_committed", frozen=True):
    """A side commits to a seed of its own for the engine's dice: the sha256 of the seed, recorded
    before any seed is revealed (`engine.dice.seed.commit`)."""

    side: Slug
    commitment: Hex64


class SeedRevealed(Event, tag="seed_revealed", frozen=True):
    """A side's seed, once both sides have committed; it must hash to the side's commitment
    (`engine.dice.seed.reveal`). Every engine roll after both seeds are out mixes them in."""

    side: Slug
    seed: Hex64


class PlayerDecided(Event, tag="player_decided", frozen=True):
    unit: Slug
    decision: Slug
    note: Text = ""


class RefereeRuled(Event, tag="referee_ruled", frozen=True):
    """The referee overrides the engine; the reason stays in the log for anyone auditing later."""

    unit: Slug
    reason: Reason
    state: MoraleState | None = None
    waive_tests: bool = False


class EventRetracted(Event, tag="event_retracted", frozen=True):
    """Strikes an earlier event: replay reads the log as if it had never been recorded."""

    seq: Seq
    reason: Reason


class EntryConfirmed(Event, tag="entry_confirmed", frozen=True):
    """The other side (or the referee) accepts entries as they were entered (`engine.claim.confirm`)."""

    seqs: Annotated[tuple[Seq, ...], Meta(min_length=1, max_length=64)]


class EntryDisputed(Event, tag="entry_disputed", frozen=True):
    """The other side disputes an entry it has not confirmed, saying why (`engine.dispute.open`)."""

    seq: Seq
    reason: Reason


class DisputeResolved(Event, tag="dispute_resolved", frozen=True):
    """A dispute ends with the entry standing as entered: the referee's ruling, or the disputing side
    withdrawing its dispute (`engine.dispute.resolve`). A dispute that ends with the entry struck
    ends with the strike itself."""

    seq: Seq  # the disputed entry
    ruling: Reason


AnyEvent = (
    BattleStarted
    | UnitJoined
    | UnitChanged
    | PhaseStarted
    | PhaseEnded
    | CasualtiesSuffered
    | CombatResolved
    | ChargeDeclared
    | TableFactRecorded
    | DiceRolled
    | DiceRevealed
    | SeedCommitted
    | SeedRevealed
    | PlayerDecided
    | RefereeRuled
    | EventRetracted
    | EntryConfirmed
    | EntryDisputed
    | DisputeResolved
)
EVENT_TYPES: dict[str, type[Event]] = {cls.__struct_config__.tag: cls for cls in get_args(AnyEvent)}


# -- who appended an event -------------------------------------------------------------------------
AuthorRole = Literal["referee", "player"]  # a spectator records nothing
# The way an event came in: a command typed at the machine that holds the store, a call to the API,
# the console's page (an API call that says it is the console), a file of events (`append --file`)
# or a notation file. A copy or an exported log keeps the authors its events were sealed with.
Via = Literal["cli", "http", "console", "import", "notation"]


class Author(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, forbid_unknown_fields=True):
    """Who appended an event, sealed with it in the hashed bytes (never the token's secret): the
    role, a player's side, the credential's public id and label, and the way in. An event written
    before authors were recorded has none, and its bytes are unchanged."""

    role: AuthorRole
    via: Via
    side: Annotated[str, Meta(max_length=64)] = ""  # a player's side
    token: Annotated[str, Meta(max_length=64)] = ""  # the credential's public id (`morale tokens`)
    label: Title = ""  # the credential's label, or the name of who typed the command


class StoredEvent(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """An event as the log holds it: its place in the battle, when it was written, and its hash link.

    `hash` is sha256 over `prev_hash` and the canonical bytes of everything else, so an edit
    anywhere in the log breaks every later link.
    """

    battle: str
    seq: int
    schema_version: int
    recorded_at: str
    event: AnyEvent
    prev_hash: str
    hash: str
    author: Author | None = None  # None: written before authors were recorded


# What a fold reads of each stored event: its place in the log, and the event.
LogEntry = tuple[int, AnyEvent]
