"""The decoders fuzzed: arbitrary bytes and arbitrary JSON as events, exported lines, HTTP bodies,
rosters, points, sequence numbers and Last-Event-ID headers. Whatever comes in, the answer is a
value or the project's own refusal (MalformedEvent, Refusal) in one line: never a traceback. And an
event that is accepted is one the log can read back, equal, however it was nested or sized.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.examples import EXAMPLE, example_store

from morale.app.cli.battle import _parse_fields
from morale.app.http.server import AppendEvents, CreateBattle, RollDice, resume_after
from morale.app.roster import load_roster
from morale.core.rules import Refusal
from morale.events.codec import MalformedEvent, decode_event, decode_input, decode_raw, encode, event_from_dict
from morale.events.numbers import LAST_SEQ, whole_number
from morale.events.types import EVENT_TYPES
from morale.projections.timeline import Timeline

# Any JSON value: scalars of every kind (big integers, odd text) nested in lists and objects.
scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=24,
)


# One valid event of each type, every field given: the start of each fuzzed one.
VALID = {
    "battle_started": {
        "ruleset": "wh40k6",
        "ruleset_version": "1",
        "sides": ["a", "b"],
        "name": "Hive",
        "house_rules": {"casualty_threshold_percent": 25},
        "dice_policy": "table",
        "dice_commitment": "0" * 64,
        "confirmation": True,
        "tables": {"results": {"sha256": "0" * 64, "values": {"rows": [{"min": 2}]}, "source": "default"}},
    },
    "unit_joined": {
        "unit": "kraak",
        "side": "a",
        "name": "Kraak",
        "unit_type": "infantry",
        "models": 10,
        "ld": 8,
        "initiative": 3,
        "special_rules": ["stubborn"],
        "profile": {"quality": "elite"},
    },
    "unit_changed": {"unit": "kraak", "changes": {"formation": "square"}, "note": "square"},
    "phase_started": {"turn": 1, "side": "a", "phase": "movement"},
    "phase_ended": {"turn": 1, "side": "a", "phase": "movement", "state_digest": "0" * 64},
    "casualties_suffered": {"unit": "kraak", "count": 3, "cause": "shooting"},
    "combat_resolved": {
        "sides": [
            {"side": "a", "units": ["kraak"], "wounds_inflicted": 4, "bonus": 1, "ranks": {"kraak": 3}},
            {"side": "b", "units": ["boyz"], "wounds_inflicted": 5, "unit_bonus": {"boyz": 3}, "left_combat": []},
        ]
    },
    "charge_declared": {"charger": "boyz", "targets": ["kraak"], "in_range": ["kraak"], "flank": []},
    "table_fact_recorded": {"unit": "kraak", "fact": "within_15cm", "value": "boyz"},
    "dice_rolled": {"unit": "kraak", "test": "morale", "dice": [3, 4], "source": "table", "reroll": False},
    "dice_revealed": {"secret": "0" * 64, "commitment": "1" * 64},
    "seed_committed": {"side": "a", "commitment": "2" * 64},
    "seed_revealed": {"side": "a", "seed": "3" * 64},
    "player_decided": {"unit": "kraak", "decision": "reform", "note": "back into line"},
    "referee_ruled": {"unit": "kraak", "reason": "as agreed", "state": "steady", "waive_tests": True},
    "event_retracted": {"seq": 3, "reason": "typed twice"},
    "entry_confirmed": {"seqs": [3, 4]},
    "entry_disputed": {"seq": 3, "reason": "only one was hit"},
    "dispute_resolved": {"seq": 3, "ruling": "measured again"},
}
assert set(VALID) == set(EVENT_TYPES)


def paths(value: object, path: tuple = ()) -> list[tuple]:
    """Every place in a JSON value: each field, item and key of it, at any depth."""
    found = [path]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += paths(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += paths(inner, (*path, index))
    return found


def replaced(value: object, path: tuple, new: object) -> object:
    if not path:
        return new
    head, *rest = path
    if isinstance(value, dict):
        return {**value, head: replaced(value[head], tuple(rest), new)}
    assert isinstance(value, list)
    return [replaced(item, tuple(rest), new) if index == head else item for index, item in enumerate(value)]


@st.composite
def event_shaped(draw: st.DrawFn) -> dict:
    """A valid event with one place in it (a field, an item, at any depth) given any JSON value, or
    with a field dropped or added: each constraint gets its turn, not only the first one met."""
    tag = draw(st.sampled_from(sorted(VALID)))
    event = {"type": tag, **VALID[tag]}
    place = draw(st.sampled_from(paths(event)[1:]))
    how = draw(st.sampled_from(["value", "text", "drop", "add"]))
    if how == "drop" and len(place) == 1:
        return {k: v for k, v in event.items() if k != place[0]}
    if how == "add":
        return {**event, draw(st.text(max_size=8)): draw(json_values)}
    new = draw(st.text(max_size=80) if how == "text" else json_values)
    return replaced(event, place, new)  # type: ignore[return-value]


def refused_in_one_line(refusal: Exception) -> None:
    text = str(refusal)
    assert text and "\n" not in text and "Traceback" not in text, text


def accepted_or_refused(decode, data: bytes | str):  # type: ignore[no-untyped-def]
    try:
        return decode(data)
    except MalformedEvent as refusal:
        refused_in_one_line(refusal)
        return None


# -- events ---------------------------------------------------------------------------------------------
def reads_back(event: object) -> None:
    """What is accepted is stored as its canonical bytes; those must decode to the same event."""
    assert decode_event(encode(event)) == event


@given(st.binary(max_size=300))
def test_any_bytes_as_an_event_are_an_event_or_a_refusal(data):
    event = accepted_or_refused(decode_event, data)
    if event is not None:
        reads_back(event)


@given(json_values)
def test_any_json_as_an_event_is_an_event_or_a_refusal(value):
    event = accepted_or_refused(decode_event, json.dumps(value))
    if event is not None:
        reads_back(event)


@given(event_shaped())
def test_an_event_shaped_object_is_an_event_or_a_refusal_naming_its_field(value):
    event = accepted_or_refused(decode_event, json.dumps(value))
    if event is not None:
        reads_back(event)
    try:
        event_from_dict(value)
    except MalformedEvent as refusal:
        refused_in_one_line(refusal)
        assert "Expected `" not in str(refusal), refusal  # said in words, not msgspec's


@given(st.integers(min_value=0, max_value=3000), st.sampled_from(["[", '{"a":']))
def test_json_nested_any_depth_is_read_or_refused(levels, opening):
    closing = "]" if opening == "[" else "}"
    nested = opening * levels + "1" + closing * levels
    table = {"sha256": "0" * 64, "values": {"v": "PLACEHOLDER"}}
    started = {"type": "battle_started", "ruleset": "wh40k6", "ruleset_version": "1", "sides": ["a", "b"]}
    text = json.dumps(started | {"tables": {"t": table}}).replace('"PLACEHOLDER"', nested)
    event = accepted_or_refused(decode_event, text)
    if event is not None:
        reads_back(event)


@given(st.binary(max_size=300) | json_values.map(lambda v: json.dumps(v).encode()))
def test_any_line_of_an_export_is_read_or_refused(data):
    accepted_or_refused(decode_raw, data)


@given(st.dictionaries(st.text(max_size=12), st.text(max_size=30), max_size=5), st.sampled_from(sorted(EVENT_TYPES)))
def test_any_fields_typed_on_the_command_line_are_an_event_or_a_refusal(fields, tag):
    pairs = [f"{key}={value}" for key, value in fields.items()]
    try:
        event_from_dict({"type": tag, **_parse_fields(tag, pairs)})
    except MalformedEvent as refusal:
        refused_in_one_line(refusal)


# -- HTTP bodies and headers ----------------------------------------------------------------------------
@pytest.mark.parametrize("body_type", [AppendEvents, CreateBattle, RollDice], ids=lambda t: t.__name__)
@given(data=st.binary(max_size=300) | json_values.map(lambda v: json.dumps(v).encode()))
def test_any_body_is_read_or_refused(body_type, data):
    accepted_or_refused(lambda raw: decode_input(msgspec.json.Decoder(body_type), raw), data)


@given(st.binary(max_size=40), st.none() | st.integers(min_value=0, max_value=LAST_SEQ))
def test_any_last_event_id_is_a_sequence_number_or_refused(header, after):
    try:
        resumed = resume_after(header.decode("latin-1"), after)  # how an ASGI server's headers are read
    except MalformedEvent as malformed:
        assert malformed.field == "Last-Event-ID"
        return
    assert 0 <= resumed <= LAST_SEQ


# -- points and numbers typed as text -------------------------------------------------------------------
@given(st.text(max_size=40))
def test_a_whole_number_is_ascii_digits_only(text):
    number = whole_number(text)
    stripped = text.strip()
    if number is None:
        assert not (stripped.isascii() and stripped.isdigit() and int(stripped) <= LAST_SEQ)
    else:
        assert stripped.isascii() and int(stripped) == number <= LAST_SEQ


@pytest.fixture(scope="module")
def timeline() -> Timeline:
    with tempfile.TemporaryDirectory() as folder:
        store = example_store(Path(folder) / "points.db")
        try:
            return Timeline("hive-tarsis", list(store.read("hive-tarsis")))
        finally:
            store.close()


@given(point=st.text(max_size=30) | st.from_regex(r"(start|end):[0-9¹²³٣]{1,25}(/[a-z]{0,9}){0,2}", fullmatch=True))
def test_any_point_is_a_point_of_the_log_or_refused(timeline, point):
    try:
        found = timeline.point(point)
    except Refusal as refusal:
        assert refusal.field == "point"
        refused_in_one_line(refusal)
        return
    assert 0 <= found.seq <= timeline.last


# -- rosters --------------------------------------------------------------------------------------------
ROSTER = (EXAMPLE / "roster.toml").read_bytes()


@given(st.binary(max_size=200) | st.text(max_size=200).map(lambda text: ROSTER + b"\n" + text.encode()))
def test_any_roster_file_is_a_roster_or_refused(data):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "roster.toml"
        path.write_bytes(data)
        try:
            load_roster(path)
        except MalformedEvent as refusal:
            refused_in_one_line(refusal)


@given(st.dictionaries(st.sampled_from(["name", "models", "ld", "rules", "type", "colour"]), json_values, max_size=3))
def test_a_roster_unit_with_any_values_is_a_unit_or_refused_naming_it(values):
    unit = "".join(f"{key} = {json.dumps(value)}\n" for key, value in values.items())
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "roster.toml"
        path.write_bytes(ROSTER + b"\n[[unit]]\nid = 'extra'\nside = 'orks'\n" + unit.encode())
        try:
            load_roster(path)
        except MalformedEvent as refusal:
            refused_in_one_line(refusal)
