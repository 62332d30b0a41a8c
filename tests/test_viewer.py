"""The viewer in a real headless Chromium (Debian's, driven by Playwright): load the example battle,
scrub to a turn, read a unit's state and its explanation, then watch the page follow the feed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import pytest
from support.served import BATTLE, ROOT, WAIT_S, LiveServer, bearer, creation_body, example_events

from morale.app.http.server import Settings, create_app
from morale.app.roster import load_roster
from morale.core import catalogue
from morale.events.codec import to_builtins

CHROMIUM = Path(os.environ.get("MORALE_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
EXAMPLE_LAST = len(example_events()) + 9
WAIT_MS = WAIT_S * 1000


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


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


@pytest.fixture
def page(browser, served):
    server, _, tokens = served
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.goto(f"{server.url}/view#battle={BATTLE}&token={tokens['spectator']}")
    opened.wait_for_selector("body[data-ready='true']", timeout=WAIT_MS)
    yield opened
    context.close()
    assert errors == []


def card(page, unit: str):
    return page.locator(f"#board [data-unit='{unit}']")


def at_event(page, seq: int) -> None:
    page.wait_for_selector(f"body[data-seq='{seq}']", timeout=WAIT_MS)


def test_the_viewer_shows_both_sides_with_each_units_state(page):
    at_event(page, EXAMPLE_LAST)
    assert page.locator("#board .side h2").all_inner_texts() == ["Imperium", "Orks"]
    assert card(page, "grots").get_attribute("data-state") == "dispersed"
    assert card(page, "kraak").get_attribute("data-state") == "steady"
    assert "5/10 models" in card(page, "kraak").inner_text()
    colours = {card(page, u).evaluate("n => getComputedStyle(n).borderLeftColor") for u in ("grots", "kraak")}
    assert len(colours) == 2  # a dispersed unit does not look like a steady one
    assert page.locator("#follow").get_attribute("aria-pressed") == "true"
    assert not page.locator("#connect").is_visible() and not page.locator("#error").is_visible()


def test_scrubbing_to_a_turn_shows_the_board_as_it_stood_and_why(page):
    page.locator("#turns button[data-turn='1'][data-side='imperium'][data-phase='assault']").click()
    at_event(page, 23)
    assert "Turn 1 · imperium · assault phase" in page.locator("#clock").inner_text()
    assert card(page, "nobz").get_attribute("data-state") == "falling_back"
    assert card(page, "grots").get_attribute("data-state") == "falling_back"
    assert card(page, "grots").locator(".state").inner_text() == "falling back"  # 40K's words
    assert page.locator("#follow").get_attribute("aria-pressed") == "false"

    card(page, "grots").click()
    page.wait_for_selector("#explain ol[data-unit='grots'][data-state='falling_back']", timeout=WAIT_MS)
    steps = page.locator("#explain ol > li").evaluate_all("items => items.map(i => Number(i.dataset.seq))")
    assert steps == [8, 16, 18, 21, 21]  # joined, lost models, tested (due at 18, rolled at 21), fell back
    explained = page.locator("#explain").inner_text()
    assert "Gretchin Mob fails the morale test: 6 + 2 = 8 against 5" in explained
    assert "28% to pass (10/36)" in explained
    assert "wh40k6.fall_back.start" in explained
    assert catalogue.words("wh40k6.fall_back.start") in explained  # the clause beside its ID

    page.locator("#scrub").fill("18")  # the end of the shooting phase: two morale tests due
    at_event(page, 18)
    nobz_due = card(page, "nobz").locator(".due[data-test='morale']").inner_text()
    assert "2D6 for morale, needs 7 or less (58% to pass: 21/36) wh40k6.trigger.casualties" in nobz_due

    page.locator("#scrub").fill("25")  # the charge, then the failed regroup
    at_event(page, 25)
    assert card(page, "grots").get_attribute("data-state") == "dispersed"
    assert card(page, "grots").locator(".state").inner_text() == "removed"
    page.wait_for_selector("#explain ol[data-unit='grots'][data-state='dispersed']", timeout=WAIT_MS)
    assert "wh40k6.assaulted.multi" in page.locator("#explain").inner_text()


def test_an_event_posted_elsewhere_reaches_the_page_through_the_feed(page, served):
    _, http, tokens = served
    at_event(page, EXAMPLE_LAST)
    card(page, "kraak").click()
    page.wait_for_selector("#explain ol[data-unit='kraak'][data-state='steady']", timeout=WAIT_MS)
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
    assert card(page, "kraak").get_attribute("data-state") == "falling_back"
    assert page.locator("#scrub").get_attribute("max") == str(EXAMPLE_LAST + 1)
    page.wait_for_selector("#explain ol[data-unit='kraak'][data-state='falling_back']", timeout=WAIT_MS)
    assert "engine.ruling" in page.locator("#explain").inner_text()


def test_a_wrong_token_shows_the_servers_refusal(browser, served):
    server, _, _ = served
    context = browser.new_context()
    opened = context.new_page()
    opened.goto(f"{server.url}/view#battle={BATTLE}&token=not-a-token")
    opened.wait_for_selector("#error:not([hidden])", timeout=WAIT_MS)
    assert "does not open battle" in opened.locator("#error").inner_text()
    assert opened.locator("#connect").is_visible() and not opened.locator("#board").is_visible()
    context.close()


def test_a_unit_card_names_its_state_in_its_rulesets_words(browser, served):
    """A Warhammer Fantasy unit flees: its card says "fleeing" (the server's word, not the machine
    value falling_back, which stays the card's data-state and colour), and a 40K one "falling back"."""
    server, http, _ = served
    roster = load_roster(ROOT / "examples" / "wfb8" / "roster.toml")
    body = {
        "battle": roster.battle,
        "started": to_builtins(roster.started),
        "units": [to_builtins(u) for u in roster.units],
    }
    tokens = http.post("/battles", json=body).json()["tokens"]
    events = [
        json.loads(line) for line in (ROOT / "examples" / "wfb8" / "battle.ndjson").read_text().splitlines() if line
    ]
    first = len(roster.units) + 1
    posted = http.post(
        f"/battles/{roster.battle}/events",
        json={"expected_seq": first, "events": events},
        headers=bearer(tokens["referee"]),
    )
    assert posted.status_code == 201
    fleeing = next(
        (item["seq"], change["unit"])
        for item in posted.json()
        for change in item["caused"]
        if change["kind"] == "state_changed" and change["to_state"] == "falling_back"
    )
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    opened.goto(f"{server.url}/view#battle={roster.battle}&token={tokens['spectator']}")
    opened.wait_for_selector("body[data-ready='true']", timeout=WAIT_MS)
    opened.locator("#scrub").fill(str(fleeing[0]))
    at_event(opened, fleeing[0])
    assert card(opened, fleeing[1]).get_attribute("data-state") == "falling_back"
    assert card(opened, fleeing[1]).locator(".state").inner_text() == "fleeing"
    card(opened, fleeing[1]).click()
    opened.wait_for_selector(f"#explain ol[data-unit='{fleeing[1]}'][data-state='falling_back']", timeout=WAIT_MS)
    assert opened.locator("#explain h2").inner_text().endswith(" fleeing?")
    assert "falling_back" not in opened.locator("#board").inner_text()
    context.close()
