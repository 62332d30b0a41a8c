"""The example battle through the `morale` command line, and what every game owes the engine: each
clause of the catalogue declared in the code and at work in the example, replay deterministic, the
graph drawn, the states named, the battle changed only through outcomes."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest
from morale_wh40k10 import WH40K10
from morale_wh40k10.ruleset import battle_shock_step, below_half_models, below_half_wounds
from typer.testing import CliRunner

from morale.app.cli import app
from morale.app.roster import load_roster
from morale.core import catalogue
from morale.core import outcomes as out
from morale.core.fold import Fold
from morale.core.rules import CLAUSES
from morale.core.state import digest
from morale.events.codec import decode_event
from morale.projections.board import board
from morale.testing import conformance

PACKAGE = Path(str(resources.files("morale_wh40k10")))
EXAMPLE = PACKAGE / "example"
BATTLE = "mortis-plateau"
REPO = Path(__file__).resolve().parents[3]
STEP = battle_shock_step.id
BY_MODELS, BY_WOUNDS = below_half_models.id, below_half_wounds.id

# What every game owes the engine, checked by morale's conformance kit (`pytest -m morale_conformance`).
test_conformance = conformance("wh40k10", examples=[EXAMPLE])

runner = CliRunner()


def morale(db: Path, *args: str) -> str:
    """`morale ARGS --db DB`, in this process (where the game is registered); its output."""
    result = runner.invoke(app, [*args, "--db", str(db)])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def played(tmp_path: Path) -> Path:
    """The example battle in a store of its own, as `morale new` and `morale append` write it."""
    db = tmp_path / "battles.db"
    morale(db, "new", str(EXAMPLE / "roster.toml"))
    morale(db, "append", BATTLE, "--file", str(EXAMPLE / "battle.ndjson"))
    return db


def example_events() -> list:
    roster = load_roster(EXAMPLE / "roster.toml")
    logged = [decode_event(line) for line in (EXAMPLE / "battle.ndjson").read_text().splitlines() if line]
    return [roster.started, *roster.units, *logged]


def folded() -> tuple[Fold, list]:
    """The example folded event by event: the fold, and what each event caused."""
    fold = Fold(BATTLE)
    caused = []
    for seq, event in enumerate(example_events(), start=1):
        fold.check(event)
        caused.append(fold.advance(seq, event))
    return fold, caused


def ours() -> list[str]:
    return [c.id for c in catalogue.of_ruleset("wh40k10")]


# -- the example ---------------------------------------------------------------------------------
def test_the_example_plays_through_the_command_line_and_verifies(played):
    told = morale(played, "replay", BATTLE)

    assert "Immortals is battle-shocked" in told
    assert "Necron Warriors of the Szarekhan shrugs off the Battle-shock with Insane Bravery" in told
    assert "Redemptor Dreadnought fails again and stays battle-shocked" in told
    assert "a total of 5 against Leadership 6+: fails" in told  # the Hellblasters' test at -1
    assert f"{BATTLE}: OK (66 events" in morale(played, "verify", BATTLE)


def test_the_example_in_notation_reads_back_as_the_same_battle(played):
    said = morale(played, "notation", "import", str(EXAMPLE / "battle.notation"), "--verify-against", str(played))

    assert "66" in said


def test_the_example_ends_with_the_board_the_rules_leave(played):
    shown = {unit["unit"]: unit for unit in json.loads(morale(played, "board", BATTLE, "--json"))["units"]}

    assert shown["immortals"]["state"] == "destroyed"
    assert [shown[u]["state"] for u in ("intercessors", "hellblasters", "redemptor", "warriors")] == ["steady"] * 4
    # A lone model's card shows its wounds, as the table gave them; a unit of several, none.
    assert (shown["redemptor"]["fields"], shown["redemptor"]["profile"]) == (
        {"wounds": 12, "wounds_left": 5},
        "5 of 12 wounds left",
    )
    assert shown["intercessors"]["fields"] == {}


def test_the_example_puts_every_clause_to_work():
    fold, caused = folded()
    outcomes = [o for each in caused for o in each]
    cited = {rule for o in outcomes for rule in (o.rule, getattr(o, "trigger", ""))}
    cited |= {m.rule for o in outcomes for m in getattr(o, "modifiers", ())}
    # Below Half-strength is how the step chooses whom it tests: by its models, or a lone model's wounds.
    tested = {fold.state().units[o.unit] for o in outcomes if isinstance(o, out.TestDue) and o.rule == STEP}
    cited |= {BY_WOUNDS if unit.starting_models == 1 else BY_MODELS for unit in tested}
    # What a Battle-shocked unit cannot do is shown on the board while it is so, not an outcome.
    shown: set[str] = set()
    replaying = Fold(BATTLE)
    for seq, event in enumerate(example_events(), start=1):
        replaying.advance(seq, event)
        shown |= {r.rule for unit in board(replaying.state()).units for r in unit.restrictions}

    assert sorted(set(ours()) - cited - shown) == []


def test_the_example_replays_to_the_same_battle_every_time():
    first, _ = folded()
    again, _ = folded()

    assert digest(first.state()) == digest(again.state())


def test_a_refused_event_changes_nothing():
    fold, _ = folded()
    before = digest(fold.state())
    bad = decode_event('{"type": "player_decided", "unit": "warriors", "decision": "use_insane_bravery"}')

    with pytest.raises(Exception, match=r"wh40k10\.insane_bravery"):
        fold.check(bad)

    assert digest(fold.state()) == before


# -- what every game owes the engine -------------------------------------------------------------
def test_each_clause_of_the_catalogue_is_declared_in_the_code():
    assert sorted(set(ours()) - set(CLAUSES)) == []
    assert all(rule_id in ours() for rule_id in CLAUSES if rule_id.startswith("wh40k10."))


def test_each_clause_is_written_in_words_with_its_source():
    text = (PACKAGE / "wh40k10_clauses.toml").read_text(encoding="utf-8")
    # Each entry follows the line naming where in the rulebook it comes from.
    sources = re.findall(r"^# source: (Warhammer 40,000 Core Rules \(10th edition\), .+)\n\[\[clause\]\]$", text, re.M)

    assert len(sources) == text.count("[[clause]]") == len(ours())
    for found in catalogue.of_ruleset("wh40k10"):
        assert found.title and len(found.words) >= 20 and "\n" not in found.words
        assert (found.kind, found.edition) == ("standard", "Warhammer 40,000, 10th edition (Core Rules)")


def test_each_clause_is_named_by_a_test_of_the_game():
    sources = "".join(p.read_text() for p in Path(__file__).parent.glob("test_*.py"))
    names = "".join(re.findall(r"^def (test_\w+)", sources, re.M))

    assert [rule_id for rule_id in ours() if rule_id.replace(".", "_") not in names] == []


def test_each_rule_id_is_written_once_in_the_game_where_its_clause_is_declared():
    code = "".join(p.read_text(encoding="utf-8") for p in PACKAGE.glob("*.py"))

    counts = {rule_id: len(re.findall(rf"""["']{re.escape(rule_id)}["']""", code)) for rule_id in ours()}

    assert counts == dict.fromkeys(ours(), 1)


def test_morale_itself_never_imports_the_game():
    engine = [p for layer in ("core", "events", "projections", "app") for p in (REPO / layer).rglob("*.py")]

    assert engine and [p for p in engine if "morale_wh40k10" in p.read_text(encoding="utf-8")] == []


def test_the_graph_draws_with_the_rule_of_each_row():
    result = runner.invoke(app, ["graph", "wh40k10"])

    assert result.exit_code == 0, result.output
    for row in WH40K10.graph.rows:
        assert f"{row['trigger']} ({row['rule']})" in result.output


def test_every_state_the_graph_reaches_has_its_name_in_the_games_words():
    reachable = set(WH40K10.graph.states)

    assert reachable == set(WH40K10.state_names)
    assert WH40K10.state_name("wavering") == "battle-shocked"
    assert len(set(WH40K10.state_names.values())) == len(WH40K10.state_names)


def test_morale_rules_lists_every_clause_of_the_game():
    result = runner.invoke(app, ["rules", "wh40k10"])

    assert result.exit_code == 0, result.output
    assert [rule_id for rule_id in ours() if rule_id not in result.output] == []
