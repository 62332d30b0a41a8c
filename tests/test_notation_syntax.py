"""The notation's syntax, apart from the referee: any event of any type, whatever its ids, values
and text (keywords, quotes, numbers spelt as words, accents), is written as a line that reads back
as the same event."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from morale.app.notation.reader import read
from morale.app.notation.syntax import keywords
from morale.app.notation.writer import write
from morale.events.types import (
    BattleStarted,
    CasualtiesSuffered,
    ChargeDeclared,
    CombatResolved,
    CombatSide,
    DiceRevealed,
    DiceRolled,
    EventRetracted,
    PhaseEnded,
    PhaseStarted,
    PlayerDecided,
    RefereeRuled,
    SeedCommitted,
    SeedRevealed,
    TableFactRecorded,
    UnitChanged,
    UnitJoined,
)

slugs = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,12}", fullmatch=True) | st.sampled_from(
    [*sorted(keywords()), "true", "4", "2.5", "Turn", "rolls"]
)
texts = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=30)
reasons = texts.filter(bool)
values = (
    st.booleans()
    | st.integers(-1000, 1000)
    | st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False)
    | texts
    | slugs
)
few_slugs = st.lists(slugs, min_size=1, max_size=3, unique=True).map(tuple)
hex64 = st.from_regex(r"[0-9a-f]{64}", fullmatch=True)
counts = st.dictionaries(slugs, st.integers(0, 20), max_size=2)

events = st.one_of(
    st.builds(
        UnitJoined,
        unit=slugs,
        side=slugs,
        name=reasons.filter(lambda t: len(t) <= 200),
        unit_type=slugs,
        models=st.integers(1, 50),
        ld=st.none() | st.integers(0, 10),
        initiative=st.none() | st.integers(0, 10),
        special_rules=st.lists(slugs, max_size=3).map(tuple),
        profile=st.dictionaries(slugs, values, max_size=3),
    ),
    st.builds(UnitChanged, unit=slugs, changes=st.dictionaries(slugs, values, min_size=1, max_size=3), note=texts),
    st.builds(PhaseStarted, turn=st.integers(1, 9), side=slugs, phase=slugs),
    st.builds(PhaseEnded, turn=st.integers(1, 9), side=slugs, phase=slugs),
    st.builds(CasualtiesSuffered, unit=slugs, count=st.integers(1, 50), cause=texts),
    st.builds(
        CombatResolved,
        sides=st.tuples(
            *[
                st.builds(
                    CombatSide,
                    side=slugs,
                    units=few_slugs,
                    wounds_inflicted=st.integers(0, 20),
                    bonus=st.integers(-5, 5),
                    ranks=counts,
                    unit_bonus=st.dictionaries(slugs, st.integers(-3, 5), max_size=2),
                    left_combat=st.lists(slugs, max_size=2).map(tuple),
                )
            ]
            * 2
        ),
    ),
    st.builds(
        ChargeDeclared,
        charger=slugs,
        targets=few_slugs,
        in_range=few_slugs | st.just(()),
        flank=few_slugs | st.just(()),
    ),
    st.builds(TableFactRecorded, unit=slugs, fact=slugs, value=values),
    st.builds(
        DiceRolled,
        unit=slugs,
        test=slugs,
        dice=st.lists(st.integers(1, 6), min_size=1, max_size=4).map(tuple),
        source=st.sampled_from(["table", "engine"]),
        reroll=st.booleans(),
    ),
    st.builds(DiceRevealed, secret=hex64, commitment=hex64 | st.just("")),
    st.builds(SeedCommitted, side=slugs, commitment=hex64),
    st.builds(SeedRevealed, side=slugs, seed=hex64),
    st.builds(PlayerDecided, unit=slugs, decision=slugs, note=texts),
    st.builds(
        RefereeRuled,
        unit=slugs,
        reason=reasons,
        state=st.none() | st.sampled_from(["steady", "falling_back", "broken", "dispersed"]),
        waive_tests=st.booleans(),
    ),
    st.builds(EventRetracted, seq=st.integers(1, 500), reason=reasons),
)

started = st.builds(
    BattleStarted,
    ruleset=st.just("wh40k6"),
    ruleset_version=st.just("1"),
    sides=st.tuples(slugs, slugs),
    name=texts,
    house_rules=st.dictionaries(slugs, values, max_size=2),
    dice_policy=st.sampled_from(["table", "engine", "either"]),
    dice_commitment=st.just("") | st.from_regex(r"[0-9a-f]{64}", fullmatch=True),
)


@given(started, st.lists(events, max_size=12))
def test_any_events_written_as_notation_read_back_as_the_same_events(first, rest):
    text = write("any-battle", [first, *rest])
    read_back = [located.event for located in read(text, "property").events]
    assert read_back == [first, *rest]
