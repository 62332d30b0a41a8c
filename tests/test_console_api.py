"""What the referee's console reads and writes over HTTP beyond the battle itself: each ruleset's
vocabulary (so no form writes a ruleset down twice), the clock moved on with one tap, the log a page
at a time, the first board of a long battle from its snapshots, and /schema drawn without any other
site."""

from __future__ import annotations

import re

import pytest
from litestar.testing import TestClient
from support.served import BATTLE, bearer, creation_body, example_events, example_lines, refusal, roster_body

from morale.app.access import token_hash, token_id_of
from morale.app.http.server import Settings, create_app
from morale.core import catalogue
from morale.core.rulesets import lookup, rulesets
from morale.projections.vocabulary import vocabulary

EXAMPLES = ("wh40k6", "wh40k3", "wfb8", "gdb")


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(tmp_path / "console.db", Settings())) as opened:
        yield opened


def create(client: TestClient, example: str, dice: str | None = None) -> tuple[str, dict]:
    body = roster_body(example, dice)
    created = client.post("/battles", json=body)
    assert created.status_code == 201, created.text
    return body["battle"], created.json()["tokens"]


def play(client: TestClient, battle: str, token: str, events: list[dict]) -> None:
    seq = client.get(f"/battles/{battle}/board", headers=bearer(token)).json()["seq"]
    posted = client.post(
        f"/battles/{battle}/events", json={"expected_seq": seq, "events": events}, headers=bearer(token)
    )
    assert posted.status_code == 201, posted.text


# -- the vocabulary ---------------------------------------------------------------------------------
@pytest.mark.parametrize("example", EXAMPLES)
def test_a_battles_vocabulary_gives_its_rulesets_words_and_what_the_token_may_do(client, example):
    battle, tokens = create(client, example)
    for token, role, side in [
        (tokens["referee"], "referee", ""),
        (tokens["spectator"], "spectator", ""),
        *[(t, "player", s) for s, t in tokens["players"].items()],
    ]:
        answer = client.get(f"/battles/{battle}/vocabulary", headers=bearer(token)).json()
        # token_id: the credential's public id (the Share screen offers no revoking of the page's own).
        assert answer["caller"] == {"role": role, "side": side, "token_id": token_id_of(token_hash(token))}
    words = answer["vocabulary"]
    ruleset = lookup(example, "1")
    assert [p["id"] for p in words["phases"]] == list(ruleset.phases)
    assert {s["id"]: s["name"] for s in words["states"]} == {s: ruleset.state_name(s) for s in ruleset.graph.states}
    assert {f["id"] for f in words["facts"]} == set(ruleset.facts)
    for rule in [f["rule"] for f in words["facts"]] + [d["rule"] for d in words["decisions"]]:
        assert words["clauses"][rule]["words"] == catalogue.words(rule)
    assert answer["sides"] == list(roster_body(example)["started"]["sides"])
    assert answer["engine_rolls"] is False  # the examples' dice are typed in at the table


def test_the_vocabulary_speaks_each_rulesets_own_words(client):
    fantasy = client.get("/rulesets/wfb8/1").json()
    assert {"id": "falling_back", "name": "fleeing"} in fantasy["states"]
    assert [t["id"] for t in fantasy["tests"]] == ["panic", "break", "rally", "flee"]
    # What removes models, in the rulebook's words: the cause a clause reads names it; the others
    # are said for the story.
    assert {"id": "stand_and_shoot", "name": "Stand and Shoot", "rule": "wfb8.panic.stand_and_shoot"} in fantasy[
        "causes"
    ]
    assert {"id": "dangerous_terrain", "name": "Dangerous terrain", "rule": ""} in fantasy["causes"]
    for ruleset in ("wh40k6/1", "wh40k3/1", "gdb/1"):
        causes = [c["id"] for c in client.get(f"/rulesets/{ruleset}").json()["causes"]]
        assert "shooting" in causes or "musketry" in causes, ruleset
    assert fantasy["combat_reports"] is True and fantasy["combat_detail"] == ["left_combat", "ranks", "unit_bonus"]
    napoleonic = client.get("/rulesets/gdb/1").json()
    melee = next(f for f in napoleonic["facts"] if f["id"] == "melee_result")
    assert melee["kind"] == "choice" and melee["choices"] == ["carry_on", "halt", "waver", "retreat", "rout"]
    fields = {f["id"]: f for f in napoleonic["profile"]}
    assert fields["formation"]["changeable"] and "square" in fields["formation"]["choices"]
    assert fields["quality"]["kind"] == "choice" and not fields["quality"]["changeable"]
    assert fields["formed"]["kind"] == "bool"
    assert napoleonic["combat_reports"] is False  # melees are read from melee_result
    assert {"id": "reform", "rule": "gdb.waver.reform", "name": "reform"} in napoleonic["free_decisions"]
    third = client.get("/rulesets/wh40k3/1").json()
    kinds = {f["id"]: f["kind"] for f in third["facts"]}
    assert kinds["tank_shocked"] == "enemy" and kinds["enemy_in_corridor"] == "number"
    assert kinds["reached_table_edge"] == "true"
    listed = [r["ruleset"] for r in client.get("/rulesets").json()]
    assert listed[:4] == ["wh40k6", "wh40k3", "wfb8", "gdb"]  # morale's own first, then any installed beside them
    assert listed == [r.id for r in rulesets().values()]
    assert client.get("/rulesets/chess/1").status_code in (404, 422)


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_fact_an_example_states_fits_the_kind_its_ruleset_declares(example):
    """The kinds a form asks for are the values the rules accept: each stated fact of the shipped
    battles has a value of its declared kind (a friend on its own side, an enemy on the other...)."""
    body = roster_body(example)
    side_of = {u["unit"]: u["side"] for u in body["units"]}
    facts = {f.id: f for f in vocabulary(lookup(example, "1")).facts}
    stated = [e for e in example_lines(example) if e["type"] == "table_fact_recorded"]
    assert stated or example == "wh40k6"
    for event in stated:
        fact, value, own = facts[event["fact"]], event.get("value", True), side_of[event["unit"]]
        match fact.kind:
            case "true":
                assert value is True, event
            case "bool":
                assert isinstance(value, bool), event
            case "number":
                assert isinstance(value, int | float) and not isinstance(value, bool), event
            case "unit":
                assert value in side_of and value != event["unit"], event
            case "friend":
                assert side_of[value] == own and value != event["unit"], event
            case "enemy":
                assert side_of[value] != own, event
            case "enemy_or_false":
                assert value is False or side_of[value] != own, event
            case "choice":
                assert value in fact.choices, event


def test_a_ruleset_cannot_make_due_a_test_it_does_not_name():
    """The console lists each due test by the ruleset's name for it: a test no ruleset names could
    never be shown, nor rolled for, so the engine refuses to make one due (`engine.due`)."""
    from support.table import Table, unit

    from morale.core.engine import ENGINE, call
    from morale.core.reactions import Reactions, walk

    table = Table(unit("marines"), unit("boyz", "orks"))
    called = call("marines", "bravery", "wh40k6.trigger.casualties", (1,))
    with pytest.raises(ValueError, match=r"does not name it in Ruleset\.tests"):
        walk(table.battle, called, Reactions([ENGINE], lookup("wh40k6", "1")))
    assert all(r.tests for r in rulesets().values())


# -- the clock ------------------------------------------------------------------------------------
def test_the_next_phase_is_one_tap_for_the_referee_and_the_board_says_which_it_will_be(client):
    tokens = client.post("/battles", json=creation_body()).json()["tokens"]
    referee = bearer(tokens["referee"])
    expected = [
        {"type": "phase_started", "turn": 1, "side": "imperium", "phase": "movement"},
        {"type": "phase_ended", "turn": 1, "side": "imperium", "phase": "movement"},
        {"type": "phase_started", "turn": 1, "side": "imperium", "phase": "psychic"},
    ]
    for seq, event in enumerate(expected, start=9):
        assert client.get(f"/battles/{BATTLE}/board", headers=referee).json()["next_clock"] == event
        moved = client.post(f"/battles/{BATTLE}/next-phase", json={"expected_seq": seq}, headers=referee)
        assert moved.status_code == 201, moved.text
        (item,) = moved.json()
        assert item["seq"] == seq + 1 and {k: item["event"][k] for k in event} == event
    stale = client.post(f"/battles/{BATTLE}/next-phase", json={"expected_seq": 9}, headers=referee)
    assert stale.status_code == 409 and refusal(stale)["actual_seq"] == 12
    player = client.post(
        f"/battles/{BATTLE}/next-phase", json={"expected_seq": 12}, headers=bearer(tokens["players"]["imperium"])
    )
    assert player.status_code == 403
    spectator = client.post(
        f"/battles/{BATTLE}/next-phase", json={"expected_seq": 12}, headers=bearer(tokens["spectator"])
    )
    assert spectator.status_code == 403
    assert client.get(f"/battles/{BATTLE}/board", headers=referee).json()["seq"] == 12


def test_the_clock_will_not_move_past_a_test_due(client):
    tokens = client.post("/battles", json=creation_body()).json()["tokens"]
    referee = bearer(tokens["referee"])
    client.post(f"/battles/{BATTLE}/events", json={"expected_seq": 9, "events": example_events(9)}, headers=referee)
    refused = client.post(f"/battles/{BATTLE}/next-phase", json={"expected_seq": 18}, headers=referee)
    assert refused.status_code == 422 and refusal(refused)["rule"] == "engine.clock.tests_first"


# -- reading a long log and a cold board ---------------------------------------------------------------
@pytest.fixture
def example_battle(client) -> dict:
    tokens = client.post("/battles", json=creation_body()).json()["tokens"]
    referee = bearer(tokens["referee"])
    posted = client.post(
        f"/battles/{BATTLE}/events", json={"expected_seq": 9, "events": example_events()}, headers=referee
    )
    assert posted.status_code == 201
    return tokens


def test_a_page_of_the_log_reads_as_the_whole_log_does(client, example_battle):
    spectator = bearer(example_battle["spectator"])
    whole = client.get(f"/battles/{BATTLE}/log", headers=spectator).json()
    assert [r["seq"] for r in whole] == list(range(1, 105))
    for after, limit in [(0, 10), (50, 7), (99, 100), (100, 4), (103, 5)]:
        page = client.get(f"/battles/{BATTLE}/log?after={after}&limit={limit}", headers=spectator).json()
        assert page == whole[after : after + limit], (after, limit)
    retraction = {"type": "event_retracted", "seq": 104, "reason": "recorded in error"}
    play(client, BATTLE, example_battle["referee"], [retraction])
    whole = client.get(f"/battles/{BATTLE}/log", headers=spectator).json()
    assert client.get(f"/battles/{BATTLE}/log?after=101", headers=spectator).json() == whole[101:]


def test_the_board_of_a_fresh_server_from_snapshots_is_the_board_of_the_kept_fold(tmp_path):
    db = tmp_path / "cold.db"
    with TestClient(create_app(db, Settings())) as client:
        tokens = client.post("/battles", json=creation_body()).json()["tokens"]
        referee = bearer(tokens["referee"])
        client.post(f"/battles/{BATTLE}/events", json={"expected_seq": 9, "events": example_events()}, headers=referee)
        warm = client.get(f"/battles/{BATTLE}/board", headers=referee).json()
        assert client.get(f"/battles/{BATTLE}/board?at=100", headers=referee).status_code == 200  # a snapshot at 100
    with TestClient(create_app(db, Settings())) as client:
        cold = client.get(f"/battles/{BATTLE}/board", headers=referee)
        assert not client.app.state.folds.holds(BATTLE)
        assert cold.json() == warm
        assert client.get(f"/battles/{BATTLE}/due?at=18", headers=referee).json()[0]["unit"] == "nobz"
        assert refusal(client.get(f"/battles/{BATTLE}/due?at=105", headers=referee))["field"] == "point"


def test_the_due_list_says_who_must_choose_who_tests_first(client):
    battle, tokens = create(client, "wfb8")
    events = example_lines("wfb8")
    chosen = next(i for i, e in enumerate(events) if e["type"] == "player_decided" and e["decision"] == "test_first")
    play(client, battle, tokens["referee"], events[:chosen])
    due = client.get(f"/battles/{battle}/due", headers=bearer(tokens["spectator"])).json()
    ordered = [d for d in due if d["order_rule"]]
    assert {d["unit"] for d in ordered} == {"spearmen", "handgunners"} and {d["first"] for d in ordered} == {""}
    play(client, battle, tokens["players"]["empire"], [events[chosen]])
    due = client.get(f"/battles/{battle}/due", headers=bearer(tokens["spectator"])).json()
    assert {d["first"] for d in due if d["order_rule"]} == {"spearmen"}


def test_a_gdb_card_carries_formation_quality_and_commander(client):
    battle, tokens = create(client, "gdb")
    board = client.get(f"/battles/{battle}/board", headers=bearer(tokens["spectator"])).json()
    l10 = next(u for u in board["units"] if u["unit"] == "l10")
    assert {k: l10["fields"][k] for k in ("formation", "quality", "commander")} == {
        "formation": "column",
        "quality": "veteran",
        "commander": "brigade",
    }
    l14 = next(u for u in board["units"] if u["unit"] == "l14")
    assert l14["fields"]["quality"] == "line" and l14["fields"]["commander"] == "none"  # the defaults, filled in


def test_the_engine_may_roll_where_the_battle_allows_it(client):
    battle, tokens = create(client, "wh40k6", dice="either")
    answer = client.get(f"/battles/{battle}/vocabulary", headers=bearer(tokens["spectator"])).json()
    assert answer["engine_rolls"] is True and answer["dice_policy"] == "either"


# -- /schema ------------------------------------------------------------------------------------------
def test_the_api_description_is_drawn_from_the_servers_own_files(client):
    page = client.get("/schema")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    sources = re.findall(r"""(?:src|href)=["']([^"']+)""", page.text)
    assert sources == ["/static/vendor/redoc.standalone.js"]
    script = client.get(sources[0])
    assert script.status_code == 200 and b"Redoc" in script.content[:2000]
    assert client.get("/schema/openapi.json").json()["info"]["title"] == "morale"
