"""The thin shell between the referee and the store: load a battle, decide, append, report.

Every write goes through `record`: replay the log, let the referee accept or refuse the event,
then append it with the sequence number the replay ended on, so a writer that raced us loses
with a conflict instead of writing on top of a state it never saw.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from msgspec.structs import replace

from morale.core.claims import Claims
from morale.core.dice import commitment, engine_dice, new_secret, seeds_in_force
from morale.core.fold import Fold, replay_log
from morale.core.outcomes import Caused
from morale.core.referee import due_test
from morale.core.rules import Refusal
from morale.core.state import Battle, digest
from morale.core.words import Words
from morale.events.codec import battle_id
from morale.events.store import NO_PRECONDITION, BattleExists, ConflictError, EventStore, Precondition, UnknownBattle
from morale.events.types import (
    AnyEvent,
    Author,
    BattleStarted,
    DiceRevealed,
    DiceRolled,
    EventRetracted,
    PhaseEnded,
    PhaseStarted,
    StoredEvent,
)
from morale.projections.board import next_clock
from morale.projections.shown import Before, Shown, before, shown

from .read_back import ReadBackLog
from .snapshot_cache import head_fold

# Puts an event in words against the battle as it stands (projections.narrative.describe_event).
Describe = Callable[[AnyEvent, Battle], str]


@dataclass(frozen=True)
class Recorded:
    stored: StoredEvent
    caused: Caused
    said: str = ""  # the event in words, against the battle as it left it (when the writer asked)
    shown: Shown | None = None  # what a screen shows of it, as the feed gives it (when the writer asked)


def battle_language(store: EventStore, battle: str) -> str:
    """The battle's own language (its roster's `battle.language`, kept in its first event; "" for
    none): what is said about it to a reader who asked for no language. A first event is never
    struck, so a reader may keep it."""
    for _seq, started in store.events(battle, up_to=1):
        return started.language if isinstance(started, BattleStarted) else ""
    return ""


def fold_of(store: EventStore, battle: str, *, read_back: bool = False) -> Fold:
    """The battle's whole log folded (nothing yet if the battle is new: its first event starts it).
    `read_back`: the fold keeps only its last events in memory and reads older ones back from
    `store` when a strike needs them (for folds a server keeps: app/read_back.py)."""
    return replay_log(battle, store.events(battle), ReadBackLog(battle, store) if read_back else None)


def load(store: EventStore, battle: str, *, read_back: bool = False) -> Fold:
    """The fold of a battle that exists."""
    fold = fold_of(store, battle, read_back=read_back)
    if fold.battle is None:
        raise UnknownBattle(battle)
    return fold


def head_of(store: EventStore, battle: str, events: Sequence[AnyEvent] = ()) -> Fold:
    """The fold of the battle at the log's head, as a full replay gives it, begun from the latest
    snapshot (`snapshot_cache.head_fold`): how a process that keeps no fold between uses (the
    command line) reads a long battle in milliseconds. Nothing if the battle is new. A fold begun
    from a snapshot holds only the log after it, and striking an event refolds the whole log, so
    `events` that strike one are decided on the full replay."""
    if any(isinstance(event, EventRetracted) for event in events):
        return fold_of(store, battle)
    return head_fold(store, battle)


def load_head(store: EventStore, battle: str, events: Sequence[AnyEvent] = ()) -> Fold:
    """`head_of` a battle that exists."""
    fold = head_of(store, battle, events)
    if fold.battle is None:
        raise UnknownBattle(battle)
    return fold


def record(
    store: EventStore,
    battle: str,
    events: Sequence[AnyEvent],
    expected_seq: int | None = None,
    *,
    author: Author | None = None,
) -> list[Recorded]:
    """Check every event against the log and the ones before it, then append them all or none,
    each sealed with its `author` (who is appending them, and how they came in)."""
    return record_on(store, fold_of(store, battle), events, expected_seq, author=author)


# How many times an append with no precondition is decided afresh after other writers got there
# first, before it gives up with the conflict: enough for a table's few writers, and bounded so a
# writer never spins behind a flood of others.
ATTEMPTS = 10


def fold_to_append_to(store: EventStore, battle: str, events: Sequence[AnyEvent]) -> Fold:
    """The fold new events go onto: the battle's at the log's head (`head_of`), or an empty one when
    they start it."""
    fold = head_of(store, battle, events)
    if fold.battle is None and not (events and isinstance(events[0], BattleStarted)):
        raise UnknownBattle(battle)  # not "the first event must be battle_started": the id is mistyped
    return fold


def record_anew(
    store: EventStore,
    battle: str,
    events: Sequence[AnyEvent],
    attempts: int = ATTEMPTS,
    describe: Describe | None = None,
    *,
    author: Author | None = None,
) -> tuple[Fold, list[Recorded]]:
    """Record events whose writer set no precondition (no expected seq): it asked only that they be
    valid where they land. Another writer getting there first is then no reason to refuse: read the
    log again and let the referee decide again, against the new position, up to `attempts` times.
    Returns the fold the events were recorded on, and what they caused."""
    for attempt in range(1, attempts):
        fold = fold_to_append_to(store, battle, events)
        try:
            return fold, record_on(store, fold, events, describe=describe, author=author)
        except BattleExists:
            raise  # another writer's battle: deciding again would only refuse its battle_started
        except ConflictError:
            # A short random pause, so writers that collided do not collide again in step.
            time.sleep(random.uniform(0, 0.005 * attempt))
    fold = fold_to_append_to(store, battle, events)
    # The last attempt: a conflict now is the answer.
    return fold, record_on(store, fold, events, describe=describe, author=author)


def record_on(
    store: EventStore,
    fold: Fold,
    events: Sequence[AnyEvent],
    expected_seq: int | None = None,
    dice_secret: str | None = None,
    describe: Describe | None = None,
    *,
    author: Author | None = None,
    show: bool = False,
    precondition: Precondition = NO_PRECONDITION,
) -> list[Recorded]:
    """`record` on a fold of the whole log that the caller holds (and that this advances): a
    writer that already has the battle replays nothing. The store still refuses the append if the
    log has moved past the fold (`precondition`: what else the store checks as it writes, such as
    the hash of the event the fold ends on, for a fold the caller did not bring up to date first).
    `dice_secret`: kept with the events that commit to it (the start, a reveal).
    `describe`: puts each event in words as the battle stands just after it, not after the batch (a
    casualty's "3 left" is the count then). `author`: who appends them, sealed with each. `show`: each
    is also described as the feed describes it (names, story, odds), so a writer's answer and a
    follower's item are the same."""
    if expected_seq is not None and expected_seq != fold.seq:
        raise ConflictError(fold.battle_id, expected_seq, fold.seq)
    if fold.battle is None:  # these events create the battle
        battle_id(fold.battle_id)
    base = fold.seq
    caused: list[Caused] = []
    sealed: list[AnyEvent] = []
    said: list[str] = []
    seen: list[Shown | None] = []
    claims = claims_of(store, fold)
    try:
        for offset, event in enumerate(events, start=1):
            try:
                event = with_state_digest(fold, event)
                fold.check(event)
                if claims is not None:
                    claims.check(event, author)
            except Refusal as refusal:
                if len(events) > 1:
                    where = Words(
                        "event {offset} of {count}: {reason}", offset=offset, count=len(events), reason=refusal.message
                    )
                    raise Refusal(where, rule=refusal.rule, field=refusal.field) from None
                raise
            was = before(fold.battle, event) if show else None
            caused.append(fold.advance(base + offset, event))
            seen.append(_shown(fold, base + offset, event, caused[-1], was, author) if show else None)
            if claims is not None:
                claims.record(base + offset, event, author)
            sealed.append(event)
            said.append(describe(event, fold.state()) if describe else "")
        stored = store.append(
            fold.battle_id,
            sealed,
            expected_seq=base,
            dice_secret=dice_secret,
            author=author,
            precondition=precondition,
        )
    except BaseException:
        fold.claims = None  # it may have taken in events the log never got: fold it afresh next time
        raise
    return [Recorded(*row) for row in zip(stored, caused, said, seen, strict=True)]


def _shown(fold: Fold, seq: int, event: AnyEvent, caused: Caused, was: Before | None, author: Author | None) -> Shown:
    """What the feed shows of an event, against the battle just as it left it (before the next event
    of the batch moves it on). Its story reads the event, its place and its author; the hash links
    the store seals it with come later, and no line reads them."""
    unsealed = StoredEvent(
        battle=fold.battle_id,
        seq=seq,
        schema_version=0,
        recorded_at="",
        event=event,
        prev_hash="",
        hash="",
        author=author,
    )
    return shown(unsealed, caused, fold.battle, was)


def claims_of(store: EventStore, fold: Fold) -> Claims | None:
    """The claims ledger of a battle that asks for confirmation, brought up to the fold's seq from the
    stored log (with its authors) and kept with the fold; None for any other battle."""
    if fold.battle is None or not fold.battle.confirmation:
        return None
    kept = fold.claims
    if kept is None or kept.seq > fold.seq:
        kept = Claims(sides=fold.battle.sides)
    for stored in store.read(fold.battle_id, after_seq=kept.seq):
        if stored.seq > fold.seq:
            break
        kept.record(stored.seq, stored.event, stored.author)
    fold.claims = kept
    return kept


def with_state_digest(fold: Fold, event: AnyEvent) -> AnyEvent:
    """A phase end records the digest of the battle as it stands when the phase is closed, before
    the phase end itself is applied (so before its expiries and end-of-phase tests), for `verify`
    to compare against a later replay. A writer that sends a digest is asserting the board it saw."""
    if not isinstance(event, PhaseEnded) or fold.battle is None:
        return event
    current = digest(fold.battle)
    if event.state_digest and event.state_digest != current:
        said = Words(
            "this phase end was written against a board ({sent}...) that is not the one the log gives ({current}...): "
            "read the battle again",
            sent=event.state_digest[:12],
            current=current[:12],
        )
        raise Refusal(said, field="state_digest")
    return replace(event, state_digest=current)


def start_battle(
    store: EventStore,
    battle: str,
    started: BattleStarted,
    units: Sequence[AnyEvent],
    *,
    author: Author | None = None,
) -> list[Recorded]:
    """Create a battle. When the engine may roll, keep a fresh dice secret and commit to it: the
    secret is stored in the transaction that writes `battle_started`, so of several writers starting
    the same battle at once, the one whose events are kept is the one whose secret is kept; the
    others are refused with `BattleExists`."""
    battle_id(battle)  # a battle id beyond the limits is refused before anything is decided
    if existing := store.last_seq(battle):
        raise BattleExists(battle, existing)
    secret = None
    if started.dice_policy != "table":
        secret = new_secret()
        started = replace(started, dice_commitment=commitment(secret))
    # Checked against no log at all: the store refuses the append if the battle has begun since.
    return record_on(store, Fold(battle), [started, *units], dice_secret=secret, author=author)


def reveal(store: EventStore, fold: Fold, *, author: Author | None = None) -> list[Recorded]:
    """Publish the battle's dice secret in its log, so every engine roll made with it can be
    recomputed, and commit to a fresh secret, kept in the same transaction, for the rolls that follow
    (`engine.dice.reveal`): a battle revealed mid-game goes on."""
    secret = store.dice_secret(fold.battle_id)
    if secret is None:
        raise Refusal(
            Words("this store keeps no dice secret for battle {battle!r}", battle=fold.battle_id), field="secret"
        )
    fresh = new_secret()
    event = DiceRevealed(secret=secret, commitment=commitment(fresh))
    return record_on(store, fold, [event], dice_secret=fresh, author=author)


def clock_event(fold: Fold) -> PhaseEnded | PhaseStarted:
    """The event that moves the clock on: the phase in progress ends, or the next one starts."""
    step = next_clock(fold.state())
    kind = PhaseEnded if step.type == "phase_ended" else PhaseStarted
    return kind(turn=step.turn, side=step.side, phase=step.phase)


def roll_for(
    store: EventStore,
    fold: Fold,
    unit: str,
    test: str,
    expected_seq: int | None = None,
    *,
    author: Author | None = None,
    show: bool = False,
    precondition: Precondition = NO_PRECONDITION,
) -> list[Recorded]:
    """The engine rolls the dice a due test needs and records them like any other roll."""
    if expected_seq is not None and expected_seq != fold.seq:
        raise ConflictError(fold.battle_id, expected_seq, fold.seq)
    state = fold.state()
    due = due_test(state, unit, test)
    secret = store.dice_secret(fold.battle_id)
    if secret is None or state.dice_policy == "table":
        raise Refusal(Words("this battle's dice are rolled at the table: type them in"), field="dice")
    dice = engine_dice(secret, fold.battle_id, fold.seq + 1, due.dice, seeds_in_force(state))
    event = DiceRolled(unit=unit, test=test, dice=tuple(dice), source="engine", reroll=bool(due.reroll))
    return record_on(store, fold, [event], author=author, show=show, precondition=precondition)
