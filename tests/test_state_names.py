"""Each ruleset's own words for the shared morale states (`Ruleset.state_names`): a Fantasy unit flees
and rallies, a General de Brigade unit retreats, routs and is dispersed, a 40K unit Falls Back and is
removed. The machine value stays in every `state` field; what a person reads (the board, the
narrative, explain, the feed's `state_names`) is the ruleset's word, one word a state on one screen."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest
from support.cli import morale
from support.examples import ROOT, example_events
from support.own_games import own_rulesets

from morale.app.roster import load_roster
from morale.core.fold import Fold
from morale.core.machine import STATES, StateGraph
from morale.core.outcomes import StateChanged
from morale.core.rulesets.base import lookup
from morale.events.codec import MalformedEvent, decode_event
from morale.events.store import SqliteEventStore
from morale.projections.feed import feed

EXAMPLES = ROOT / "examples"

# What a player of each game reads for the states its example battle reaches, from the rule texts.
NAMES = {
    "wh40k6": {"steady": "steady", "falling_back": "falling back", "regrouped": "regrouped", "dispersed": "removed"},
    "wh40k3": {"steady": "steady", "falling_back": "falling back", "regrouped": "regrouped", "dispersed": "removed"},
    "wfb8": {
        "steady": "steady",
        "falling_back": "fleeing",
        "regrouped": "rallied",
        "dispersed": "fled off the table",
    },
    "gdb": {
        "steady": "steady",
        "falling_back": "retreating",
        "broken": "routing",
        "regrouped": "rallied, unformed",
        "wavering": "wavering",
        "dispersed": "dispersed",
    },
}
# The narrative words a change into each state with the same word (a verb where the book has one).
SAID = {
    "wh40k6": {"falling_back": "Falls Back", "regrouped": "Regroups", "steady": "steady", "dispersed": "removed"},
    "wh40k3": {"falling_back": "Falls Back", "regrouped": "Regroups", "steady": "steady", "dispersed": "removed"},
    "wfb8": {"falling_back": "flee", "regrouped": "rallies", "steady": "steady", "dispersed": "flees off the table"},
    "gdb": {
        "falling_back": "retreat",
        "broken": "rout",
        "regrouped": "rallies",
        "wavering": "waver",
        "steady": "form",
        "dispersed": "dispersed",
    },
}
# Words a ruleset's screens never use for its states: the shared model's machine values, and the
# other games' words for them.
NEVER = {
    "wh40k6": ["falling_back", "destroyed"],  # 40K's morale removals are not the last model killed
    "wh40k3": ["falling_back", "destroyed"],
    "wfb8": ["falling_back", "falling back", "Falls Back", "regrouped", "Regroups"],
    "gdb": ["falling_back", "falling back", "Falls Back", "regrouped", "Regroups", "broken"],
}


def _example(ruleset: str) -> Path:
    return EXAMPLES / ruleset


def _changes(ruleset: str) -> list[tuple[int, StateChanged, str]]:
    """Each state change the example battle makes, with its event and the unit's name."""
    roster = load_roster(_example(ruleset) / "roster.toml")
    names = {u.unit: u.name for u in roster.units}
    fold = Fold(roster.battle)
    events = [roster.started, *roster.units, *example_events(_example(ruleset))]
    return [
        (seq, outcome, names[outcome.unit])
        for seq, event in enumerate(events, start=1)
        for outcome in fold.advance(seq, event)
        if isinstance(outcome, StateChanged)
    ]


def _first_in_each_state(ruleset: str) -> dict[str, tuple[int, str, str]]:
    """state -> (seq, unit, unit name): the first event after which a unit of the example is in it."""
    first: dict[str, tuple[int, str, str]] = {}
    for seq, outcome, name in _changes(ruleset):
        first.setdefault(outcome.to_state, (seq, outcome.unit, name))
    return first


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """Each example battle in a store of its own, as `morale new` and `morale append` write it."""
    made = {}
    for ruleset in NAMES:
        db = tmp_path_factory.mktemp(ruleset) / "battles.db"
        roster = _example(ruleset) / "roster.toml"
        battle = load_roster(roster).battle
        assert morale(db, "new", str(roster)).exit_code == 0
        assert morale(db, "append", battle, "--file", str(_example(ruleset) / "battle.ndjson")).exit_code == 0
        made[ruleset] = (db, battle)
    return made


def test_every_state_a_rulesets_graph_can_reach_has_its_name():
    for (ruleset_id, _), ruleset in own_rulesets().items():  # an installed game's: the conformance kit's
        names = NAMES[ruleset_id]
        reachable = set(ruleset.graph.states) - {"initial"}
        assert reachable <= set(ruleset.state_names), f"{ruleset_id} names no {reachable - set(ruleset.state_names)}"
        assert all(ruleset.state_names.values()), ruleset_id
        # One word a state: two states never read alike on one board.
        assert len(set(ruleset.state_names.values())) == len(ruleset.state_names), ruleset_id
        assert {s: ruleset.state_name(s) for s in names} == names


@pytest.mark.parametrize("ruleset", NAMES)
def test_the_example_reaches_every_state_named_here(ruleset):
    reached = set(_first_in_each_state(ruleset)) - {"destroyed"}
    assert reached | {"steady"} == set(NAMES[ruleset])


@pytest.mark.parametrize("ruleset", NAMES)
def test_the_board_shows_each_state_in_the_rulesets_word(played, ruleset):
    db, battle = played[ruleset]
    for state, (seq, unit, _) in _first_in_each_state(ruleset).items():
        if state not in NAMES[ruleset]:
            continue
        answer = morale(db, "at", battle, str(seq), "--json")
        row = next(r for r in json.loads(answer.stdout)["board"]["units"] if r["unit"] == unit)
        assert (row["state"], row["state_name"]) == (state, NAMES[ruleset][state])  # the machine value stays

        text = morale(db, "at", battle, str(seq)).stdout
        assert state_cells(text)[unit].startswith(NAMES[ruleset][state]), text
        for word in NEVER[ruleset]:
            assert word not in text, f"{ruleset} board at {seq} says {word!r}"


def state_cells(board: str) -> dict[str, str]:
    """unit id -> the text of its `state` cell on the board `morale board` or `morale at` prints,
    a cell's wrapped lines joined (the table is as wide as the terminal)."""
    lines = board.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("┃"))
    bounds = [i for i, c in enumerate(lines[header]) if c == "┃"]
    columns = [lines[header][a + 1 : b].strip() for a, b in pairwise(bounds)]
    rows: list[dict[str, list[str]]] = []
    for line in lines[header + 2 :]:
        if not line.startswith("│"):
            continue
        cells = {name: line[a + 1 : b].strip() for name, (a, b) in zip(columns, pairwise(bounds), strict=True)}
        if cells["side"]:
            rows.append({name: [] for name in columns})
        for name, cell in cells.items():
            if cell:
                rows[-1][name].append(cell)
    return {row["unit"][-1]: " ".join(row["state"]) for row in rows}


@pytest.mark.parametrize("ruleset", NAMES)
def test_the_narrative_words_each_change_as_the_board_names_the_state(played, ruleset):
    db, battle = played[ruleset]
    lines = json.loads(morale(db, "replay", battle, "--json").stdout)
    text = "\n".join(line["text"] for line in lines)
    for word in NEVER[ruleset]:
        assert word not in text, f"the {ruleset} narrative says {word!r}"
    outcomes = [line for line in lines if line["kind"] == "outcome"]
    for seq, change, name in _changes(ruleset):
        if change.from_state == change.to_state or change.to_state not in SAID[ruleset]:
            continue
        said = [o["text"] for o in outcomes if o["seq"] == seq and o["text"].startswith(name)]
        assert any(SAID[ruleset][change.to_state] in s for s in said), f"#{seq} {name} to {change.to_state}: {said}"


@pytest.mark.parametrize("ruleset", NAMES)
def test_the_feed_names_each_state_it_carries_in_the_rulesets_word(played, ruleset):
    db, battle = played[ruleset]
    store = SqliteEventStore(db)
    named = {}
    for item in feed(battle, store.read(battle)):
        for outcome in item.caused:
            if isinstance(outcome, StateChanged):
                assert outcome.to_state in item.state_names  # beside the machine value, which stays
                named[outcome.to_state] = item.state_names[outcome.to_state]
    assert {s: n for s, n in named.items() if s in NAMES[ruleset]} == {
        s: n for s, n in NAMES[ruleset].items() if s in named
    }


# -- the machine values are shared, and never renamed --------------------------------------------------
def test_a_games_graph_moves_units_only_between_the_shared_states():
    with pytest.raises(ValueError, match=r"^gdb\.rout: 'routing' is not a shared state \(steady, .*state_names$"):
        StateGraph([{"trigger": "rout", "source": "steady", "dest": "routing", "rule": "gdb.rout"}])


def test_general_de_brigade_routing_is_the_shared_broken_state_as_every_log_written_before_holds_it():
    """Routing differs from the other games' states in what its rules do (its back to the enemy, -2,
    dispersed on contact), which GDB's clauses carry; to the machine it is `broken`, which no other
    game uses. The value stays: rulings and phase ends' digests in logs already written hold it."""
    gdb = lookup("gdb", "1")
    assert gdb.state_names["broken"] == "routing" and "routing" not in STATES
    assert {"broken", "falling_back"} <= gdb.graph.states
    with pytest.raises(MalformedEvent, match=r"state"):
        decode_event(b'{"type": "referee_ruled", "unit": "fusiliers", "reason": "they run", "state": "routing"}')
    ruled = decode_event(b'{"type": "referee_ruled", "unit": "fusiliers", "reason": "they run", "state": "broken"}')
    assert ruled.state == "broken"
