"""The page at /view as a spectator sees it, in a real headless Chromium (Debian's, driven by
Playwright): load the example battle, jump to a turn, read a unit's state and its explanation, then
watch the page follow the feed. The referee's side of the same page is in test_console.py."""

from __future__ import annotations

import httpx
import pytest
from support.browser import WAIT_MS
from support.console import Console
from support.served import BATTLE, WAIT_S, LiveServer, bearer, creation_body, example_events, example_lines, roster_body

from morale.app.http.server import Settings, create_app
from morale.core import catalogue

EXAMPLE_LAST = len(example_events()) + 9


@pytest.fixture
def served(tmp_path):
    app = create_app(tmp_path / "viewer.db", Settings(poll_s=0.05, heartbeat_s=1))
    with LiveServer(app) as server, httpx.Client(base_url=server.url, timeout=WAIT_S) as http:
        tokens = http.post("/battles", json=creation_body()).json()["tokens"]
        posted = http.post(
            f"/battles/{BATTLE}/events",
            json={"expected_seq": 9, "events": example_events()},
            headers=bearer(tokens["referee"]),
        )
        assert posted.status_code == 201
        yield server, http, tokens


def open_page(browser, url: str, battle: str, token: str):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{url}/view#battle={battle}&token={token}")
    page.wait_for_selector("body[data-ready='true'][data-logged='true']", timeout=WAIT_MS)
    return context, page, errors


@pytest.fixture
def page(browser, served):
    server, _, tokens = served
    context, opened, errors = open_page(browser, server.url, BATTLE, tokens["spectator"])
    yield opened
    context.close()
    assert errors == []


def at_event(page, seq: int) -> None:
    page.wait_for_selector(f"body[data-seq='{seq}']", timeout=WAIT_MS)


def test_the_viewer_shows_both_sides_with_each_units_state(page):
    at_event(page, EXAMPLE_LAST)
    console = Console(page, wide=True)
    assert page.locator("#board .team").evaluate_all("ts => ts.map(t => t.dataset.side)") == ["imperium", "orks"]
    assert console.state_of("grots") == "dispersed" and console.state_of("kraak") == "steady"
    assert "5/10 models" in console.card("kraak").inner_text()
    colours = {console.card(u).evaluate("n => getComputedStyle(n).borderLeftColor") for u in ("grots", "kraak")}
    assert len(colours) == 2  # a dispersed unit does not look like a steady one
    assert not page.locator("#past").is_visible()  # following the newest event
    assert not page.locator("#connect").is_visible() and not page.locator("#problem").is_visible()
    assert not page.locator("#tab-record").is_visible()  # a spectator records nothing


def test_jumping_to_a_turn_shows_the_board_as_it_stood_and_why(page):
    console = Console(page, wide=True)
    console.phase(1, "imperium", "assault")
    at_event(page, 23)
    assert "Turn 1 · imperium · assault" in page.locator("#clock").inner_text()
    assert console.state_of("nobz") == "falling_back" and console.state_of("grots") == "falling_back"
    assert console.card("grots").locator(".state").inner_text() == "falling back"  # 40K's words
    assert page.locator("#past").is_visible()

    explained = console.why("grots", "falling_back")
    seqs = "items => items.map(i => Number(i.dataset.seq))"
    now = page.locator("#why ol.steps.now > li").evaluate_all(seqs)
    history = page.locator("#why details.history ol.steps > li").evaluate_all(seqs)
    assert now == [21, 18]  # first the answer: it fell back (21) on the test due at 18, rolled at 21
    assert history == [8, 16, 21]  # then the rest: joined, lost models, its Fall Back move
    assert "Gretchin Mob fails the morale test: 6 + 2 = 8 against 5" in explained
    assert "28% to pass (10/36)" in explained
    assert "wh40k6.fall_back.start" in explained
    assert catalogue.words("wh40k6.fall_back.start") in explained  # the clause beside its ID

    console.go_to(18)  # the end of the shooting phase: two morale tests due
    nobz_due = console.card("nobz").locator(".due-line[data-test='morale']").inner_text()
    assert "Morale test due · 2D6 · needs 7 or less · 58% to pass (21/36)" in nobz_due
    console.tab("due")
    assert "wh40k6.trigger.casualties" in page.locator("#due .test[data-unit='nobz']").inner_text()

    console.go_to(25)  # the charge, then the failed regroup
    assert console.state_of("grots") == "dispersed"
    assert console.shown_card("grots").locator(".state").inner_text() == "removed"  # out of play: unfolded
    assert "wh40k6.assaulted.multi" in console.why("grots", "dispersed")


def test_an_event_posted_elsewhere_reaches_the_page_through_the_feed(page, served):
    _, http, tokens = served
    at_event(page, EXAMPLE_LAST)
    console = Console(page, wide=True)
    console.why("kraak", "steady")
    ruling = {
        "type": "referee_ruled",
        "unit": "kraak",
        "reason": "the Guardsmen flee the refinery",
        "state": "falling_back",
    }
    posted = http.post(
        f"/battles/{BATTLE}/events",
        json={"expected_seq": EXAMPLE_LAST, "events": [ruling]},
        headers=bearer(tokens["referee"]),
    )
    assert posted.status_code == 201
    page.wait_for_selector(f"body[data-last-feed-seq='{EXAMPLE_LAST + 1}']", timeout=WAIT_MS)
    at_event(page, EXAMPLE_LAST + 1)
    assert console.state_of("kraak") == "falling_back"
    assert page.locator(f"#log ol.log > li[data-seq='{EXAMPLE_LAST + 1}']").count() == 1
    page.wait_for_selector("#why ol.steps[data-unit='kraak'][data-state='falling_back']", timeout=WAIT_MS)
    assert "engine.ruling" in page.locator("#why").inner_text()


def test_a_wrong_token_shows_the_servers_refusal_and_keeps_the_battle_in_the_form(browser, served):
    server, _, _ = served
    context = browser.new_context()
    opened = context.new_page()
    opened.goto(f"{server.url}/view#battle={BATTLE}&token=not-a-token")
    opened.wait_for_selector("#problem:not([hidden])", timeout=WAIT_MS)
    assert "does not open battle" in opened.locator("#problem").inner_text()
    assert opened.locator("#connect").is_visible() and not opened.locator("#board").is_visible()
    assert opened.locator("#connect [name=battle]").input_value() == BATTLE
    context.close()


def test_a_unit_card_names_its_state_in_its_rulesets_words(browser, served):
    """A Warhammer Fantasy unit flees: its card says "fleeing" (the server's word, not the machine
    value falling_back, which stays the card's data-state and colour), and a 40K one "falling back"."""
    server, http, _ = served
    body = roster_body("wfb8")
    tokens = http.post("/battles", json=body).json()["tokens"]
    posted = http.post(
        f"/battles/{body['battle']}/events",
        json={"expected_seq": len(body["units"]) + 1, "events": example_lines("wfb8")},
        headers=bearer(tokens["referee"]),
    )
    assert posted.status_code == 201
    seq, unit = next(
        (item["seq"], change["unit"])
        for item in posted.json()
        for change in item["caused"]
        if change["kind"] == "state_changed" and change["to_state"] == "falling_back"
    )
    context, opened, errors = open_page(browser, server.url, body["battle"], tokens["spectator"])
    console = Console(opened, wide=True)
    console.go_to(seq)
    assert console.state_of(unit) == "falling_back"
    assert console.card(unit).locator(".state").inner_text() == "fleeing"
    console.why(unit, "falling_back")
    assert opened.locator("#why h2").inner_text().endswith(" fleeing?")
    assert "falling_back" not in opened.locator("#board").inner_text()
    context.close()
    assert errors == []


def test_the_first_board_says_why_it_is_empty(browser, served):
    server, _, tokens = served
    context, opened, errors = open_page(browser, server.url, BATTLE, tokens["spectator"])
    console = Console(opened, wide=True)
    console.go_to(1)
    assert "No unit is on the table at event 1" in opened.locator("#board").inner_text()
    context.close()
    assert errors == []


def test_a_long_battles_units_out_of_play_are_drawn_when_asked_for(browser, served):
    """Thousands of units fall in a long battle: past 40 a side, the board folds them away (its
    first drawing stays quick) and draws them when the fold is opened."""
    server, http, _ = served
    body = creation_body()
    body["battle"] = "reserves"
    body["units"] += [
        {
            "type": "unit_joined",
            "unit": f"wave{n}",
            "side": "orks",
            "name": f"Wave {n}",
            "unit_type": "infantry",
            "models": 1,
            "ld": 7,
            "initiative": 2,
        }
        for n in range(41)
    ]
    tokens = http.post("/battles", json=body).json()["tokens"]
    fallen = [{"type": "casualties_suffered", "unit": f"wave{n}", "count": 1} for n in range(41)]
    start = {"type": "phase_started", "turn": 1, "side": "imperium", "phase": "movement"}
    posted = http.post(
        "/battles/reserves/events",
        json={"expected_seq": len(body["units"]) + 1, "events": [start, *fallen]},
        headers=bearer(tokens["referee"]),
    )
    assert posted.status_code == 201, posted.text
    context, opened, errors = open_page(browser, server.url, "reserves", tokens["spectator"])
    orks = opened.locator("#board .team[data-side='orks']")
    assert orks.locator("details.gone summary").inner_text() == "41 units out of play"
    assert orks.locator(".unit[data-state='destroyed']").count() == 0
    assert orks.locator(".unit").count() == 4  # in play: drawn
    orks.locator("details.gone summary").click()
    opened.wait_for_selector(
        "#board .team[data-side='orks'] details.gone .unit[data-state='destroyed']", timeout=WAIT_MS
    )
    assert orks.locator(".unit[data-state='destroyed']").count() == 41
    context.close()
    assert errors == []
