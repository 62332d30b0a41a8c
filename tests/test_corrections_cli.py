"""`morale strike` and `morale undo`: a referee corrects the log, seeing what goes before it goes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import morale

from morale.app.cli import corrections
from morale.app.cli.base import out as cli_output
from morale.app.service import record
from morale.events.store import SqliteEventStore
from morale.events.types import Author, CasualtiesSuffered, DiceRolled, PhaseEnded

ROOT = Path(__file__).resolve().parent.parent
ROSTER = ROOT / "examples" / "wh40k6" / "roster.toml"
pytestmark = pytest.mark.battle(ROSTER)

BATTLE = "hive-tarsis"


def last_seq(db: Path) -> int:
    return SqliteEventStore(db).last_seq(BATTLE)


def kraak(db: Path) -> dict:
    board = json.loads(morale(db, "board", BATTLE, "--json").stdout)
    return next(u for u in board["units"] if u["unit"] == "kraak")


@pytest.fixture
def kraak_fell_back(db: Path) -> Path:
    """Kraak loses 3 models in the shooting (seq 15), the phase ends (16), and fails morale (17)."""
    for _ in range(5):
        assert morale(db, "next-phase", BATTLE).exit_code == 0
    assert morale(db, "append", BATTLE, "casualties_suffered", "unit=kraak", "count=3").exit_code == 0
    assert morale(db, "next-phase", BATTLE).exit_code == 0
    assert morale(db, "roll", BATTLE, "kraak", "morale", "5", "6").exit_code == 0
    assert last_seq(db) == 17 and kraak(db)["state"] == "falling_back"
    return db


def test_striking_an_event_strikes_what_stood_on_it_in_one_append(kraak_fell_back):
    db = kraak_fell_back
    struck = morale(db, "strike", BATTLE, "15", "--reason", "the shots were at the boyz", "--yes")
    assert struck.exit_code == 0, struck.output
    assert "Striking event 15 also strikes these later events, which stood on it:" in struck.stdout
    assert "#15 Sergeant Kraak's Guardsmen loses 3 models" in struck.stdout
    assert "#17 Sergeant Kraak's Guardsmen rolls for morale: 5 + 6" in struck.stdout
    assert "18  Event 17 is struck from the log; reason: the shots were at the boyz" in struck.stdout
    assert "19  Event 15 is struck from the log; reason: the shots were at the boyz" in struck.stdout
    assert kraak(db)["state"] == "steady" and kraak(db)["models"] == 10


def test_an_event_nothing_stood_on_is_struck_alone(kraak_fell_back):
    struck = morale(kraak_fell_back, "strike", BATTLE, "17", "--reason", "mistyped dice", "--yes")
    assert struck.exit_code == 0
    assert "Striking event 17 strikes nothing else:" in struck.stdout
    assert last_seq(kraak_fell_back) == 18


def test_with_no_terminal_and_no_yes_the_strike_is_refused_in_one_line(kraak_fell_back):
    asked = morale(kraak_fell_back, "strike", BATTLE, "15", "--reason", "wrong unit")
    assert asked.exit_code == 2
    assert asked.stderr.strip().splitlines() == [
        "refused: yes: nothing was struck: there is no terminal to ask on (add --yes to strike without asking)"
    ]
    assert last_seq(kraak_fell_back) == 17


def test_at_a_terminal_the_strike_asks_and_a_no_writes_nothing(kraak_fell_back, monkeypatch):
    monkeypatch.setattr(corrections, "at_a_terminal", lambda: True)
    declined = morale(kraak_fell_back, "strike", BATTLE, "15", "--reason", "wrong unit", input="n\n")
    assert declined.exit_code == 2, (declined.stdout, declined.stderr)
    assert "#17 Sergeant Kraak's Guardsmen rolls for morale" in declined.stdout
    assert "Strike them? [y/N]" in declined.stderr
    assert "refused: yes: nothing was struck: you answered no" in declined.stderr
    assert last_seq(kraak_fell_back) == 17
    accepted = morale(kraak_fell_back, "strike", BATTLE, "15", "--reason", "wrong unit", input="y\n")
    assert accepted.exit_code == 0
    assert last_seq(kraak_fell_back) == 19


@pytest.mark.parametrize(
    ("seq", "reason", "named"),
    [
        ("1", "oops", "seq: battle_started cannot be struck"),
        ("40", "oops", "seq: there is no event 40 yet (last is 17)"),
        ("15", "", "reason"),
    ],
)
def test_a_strike_the_referee_refuses_writes_nothing(kraak_fell_back, seq, reason, named):
    refused = morale(kraak_fell_back, "strike", BATTLE, seq, "--reason", reason, "--yes")
    assert refused.exit_code == 2
    assert named in refused.stderr
    assert last_seq(kraak_fell_back) == 17


def test_a_struck_event_cannot_be_struck_again(kraak_fell_back):
    assert morale(kraak_fell_back, "strike", BATTLE, "17", "--reason", "dice", "--yes").exit_code == 0
    again = morale(kraak_fell_back, "strike", BATTLE, "17", "--reason", "dice", "--yes")
    assert again.exit_code == 2 and "event 17 is already struck" in again.stderr
    assert last_seq(kraak_fell_back) == 18


def test_undo_strikes_the_last_entry_typed_here_not_a_players(kraak_fell_back):
    db = kraak_fell_back
    player = Author(role="player", via="console", side="orks", token="tok-orks", label="Orks")
    record(SqliteEventStore(db), BATTLE, [CasualtiesSuffered(unit="boyz", count=1)], author=player)
    undone = morale(db, "undo", BATTLE, "--yes")
    assert undone.exit_code == 0, undone.output
    assert "Striking event 17 strikes nothing else:" in undone.stdout
    assert "19  Event 17 is struck from the log; reason: undone by who entered it" in undone.stdout
    again = morale(db, "undo", BATTLE, "--yes")  # the next is the phase end, which the roll stood on
    assert "Striking event 16 strikes nothing else:" in again.stdout


def test_undo_offers_the_strike_with_what_followed(db, monkeypatch):
    """The referee types the casualties; the phase end and the roll come in from a player's phone."""
    for _ in range(5):
        assert morale(db, "next-phase", BATTLE).exit_code == 0
    assert morale(db, "append", BATTLE, "casualties_suffered", "unit=kraak", "count=3").exit_code == 0
    player = Author(role="player", via="console", side="imperium", token="tok-imp", label="Imperium")
    store = SqliteEventStore(db)
    record(store, BATTLE, [PhaseEnded(turn=1, side="imperium", phase="shooting")], author=player)
    record(store, BATTLE, [DiceRolled(unit="kraak", test="morale", dice=(5, 6))], author=player)
    monkeypatch.setattr(corrections, "at_a_terminal", lambda: True)
    undone = morale(db, "undo", BATTLE, "--reason", "wrong unit", input="y\n")
    assert undone.exit_code == 0, undone.output
    assert "Striking event 15 also strikes these later events, which stood on it:" in undone.stdout
    assert "#17 Sergeant Kraak's Guardsmen rolls for morale: 5 + 6" in undone.stdout
    assert "Event 15 is struck from the log; reason: wrong unit" in undone.stdout
    assert kraak(db)["state"] == "steady" and kraak(db)["models"] == 10


def test_undo_with_nothing_of_yours_standing_is_refused(kraak_fell_back, monkeypatch):
    monkeypatch.setenv("LOGNAME", "somebody-else")
    monkeypatch.setenv("USER", "somebody-else")
    refused = morale(kraak_fell_back, "undo", BATTLE, "--yes")
    assert refused.exit_code == 2
    assert "seq: you have entered nothing in this battle that still stands to undo" in refused.stderr
    assert last_seq(kraak_fell_back) == 17


def test_the_log_marks_what_was_struck_where_and_by_whom(kraak_fell_back, monkeypatch):
    db = kraak_fell_back
    assert morale(db, "strike", BATTLE, "15", "--reason", "the boyz took those", "--yes").exit_code == 0
    rows = {row["seq"]: row for row in json.loads(morale(db, "log", BATTLE, "--json").stdout)}
    struck = rows[15]["struck_by"]
    assert (struck["seq"], struck["reason"], struck["author"]["role"]) == (19, "the boyz took those", "referee")
    assert struck["said"] == f"Struck by {struck['by']} at #19: the boyz took those"
    assert rows[17]["struck_by"]["seq"] == 18
    assert rows[16]["struck_by"] is None
    monkeypatch.setattr(cli_output, "width", 250)  # one line a cell, to read it as a person would
    text = morale(db, "log", BATTLE).stdout
    assert f"{struck['said']}" in text
