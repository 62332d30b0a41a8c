"""The console at the table, on a phone (390x844): what a referee or a player with a phone in one
hand notices. The clock stands back while tests are due, the page says whose it is, casualties are
typed on the number pad, causes are the ruleset's own, the dice say what they will do before they
are recorded, a failure looks like one, "Why?" opens on the answer, units out of play take a line,
the past reads as the past, and the page comes back without the network."""

from __future__ import annotations

import re

import pytest
import test_console
from support.browser import PHONE, WAIT_MS, layout_problems, screenshot, serious_violations
from support.console import Console
from support.served import bearer, example_lines, roster_body
from test_console import open_console, post_events

from morale.core import catalogue

served = test_console.served  # the console tests' server, a fixture

# The 40K 6th edition example: the Imperium's shooting phase ends with two Morale tests due, the
# Nobz' (2D6 against 7) and the Gretchin Mob's (against 5), caused by events 15 and 16.
EXAMPLE = "wh40k6"
SHOOTING_ENDED = 9  # events of the example up to the end of the first shooting phase


def battle_with_tests_due(http) -> tuple[dict, dict, int]:
    """The example's battle, created and played through the API (another device at the table) to
    the end of the first shooting phase: its tokens, its body, the log's last seq."""
    body = roster_body(EXAMPLE)
    tokens = http.post("/battles", json=body).json()["tokens"]
    last = post_events(http, body["battle"], tokens["referee"], example_lines(EXAMPLE)[:SHOOTING_ENDED])
    return tokens, body, last


def log_after(http, battle: str, token: str, seq: int) -> list[dict]:
    return http.get(f"/battles/{battle}/log?after={seq}", headers=bearer(token)).json()


def no_layout_problems(page, name: str) -> None:
    """The screen photographed, fitting a phone with thumb-sized controls and no serious
    accessibility violation."""
    screenshot(page, f"table-{name}")
    assert layout_problems(page) + serious_violations(page) == []


# -- 1. the clock stands back while tests are due ------------------------------------------------------
def test_the_clock_button_stands_back_and_leads_to_the_tests_while_tests_are_due(browser, served):
    server, http = served
    tokens, body, last = battle_with_tests_due(http)
    context, page, errors = open_console(browser, server.url, body["battle"], tokens["referee"], PHONE)
    console = Console(page, wide=False)
    console.tab("record")
    clock = page.locator("#next-phase")
    waits = page.locator("#clock-waits")
    assert "The assault phase cannot start yet: 2 tests are due." in waits.inner_text()
    assert "engine.clock.tests_first" in waits.inner_text()
    assert clock.inner_text() == "Roll the 2 tests due first"
    # Not the big primary button: it looks like any other control of the screen.
    colours = clock.evaluate("b => [getComputedStyle(b).backgroundColor, getComputedStyle(b).color]")
    assert colours == ["rgb(255, 255, 255)", "rgb(29, 29, 31)"]
    no_layout_problems(page, "clock-waits")
    clock.click()
    page.wait_for_selector("body[data-tab='due']", timeout=WAIT_MS)
    assert page.locator("#due .test").count() == 2
    assert log_after(http, body["battle"], tokens["spectator"], last) == []  # nothing was sent
    assert not page.locator("#problem").is_visible()

    # Both tests rolled: the clock is the primary button again, and moves.
    console.play({"type": "dice_rolled", "unit": "nobz", "test": "morale", "dice": [1, 1]})
    console.play({"type": "dice_rolled", "unit": "grots", "test": "morale", "dice": [1, 1]})
    console.tab("record")
    assert not waits.count()
    assert clock.inner_text() == "Start turn 1 · imperium · assault"
    assert clock.evaluate("b => getComputedStyle(b).color") == "rgb(255, 255, 255)"
    console.next_phase()
    console.recorded(last + 3)
    context.close()
    assert errors == []


# -- 2. whose page it is -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("who", "badge", "title"),
    [
        ("referee", "Referee", "referee's console"),
        ("orks", "Player · orks", "orks player's console"),
        ("spectator", "Spectator", "spectator's view"),
    ],
)
def test_the_page_says_whose_it_is_in_its_header_and_title(browser, served, who, badge, title):
    server, http = served
    body = roster_body(EXAMPLE)
    tokens = http.post("/battles", json=body).json()["tokens"]
    token = tokens["players"][who] if who in tokens["players"] else tokens[who]
    context, page, errors = open_console(browser, server.url, body["battle"], token, PHONE)
    shown = page.locator("#top #role")
    assert shown.is_visible() and shown.inner_text() == badge
    assert page.title().endswith(f"morale · {title}")
    assert body["started"]["name"] in page.title()
    no_layout_problems(page, f"role-{who}")
    context.close()
    assert errors == []


# -- 3. casualties on the number pad -----------------------------------------------------------------
def test_casualties_are_typed_on_the_number_pad_in_step_with_the_stepper(browser, served):
    server, http = served
    body = roster_body(EXAMPLE)
    tokens = http.post("/battles", json=body).json()["tokens"]
    last = post_events(http, body["battle"], tokens["referee"], example_lines(EXAMPLE)[:5])  # shooting phase
    context, page, errors = open_console(browser, server.url, body["battle"], tokens["referee"], PHONE)
    console = Console(page, wide=False)
    form = console.form("casualties")
    console.chip(form, "unit", "boyz")  # 20 models
    count = form.locator("fieldset[data-name='count']")
    typed = count.locator("input.typed")
    assert typed.get_attribute("inputmode") == "numeric" and typed.input_value() == "1"
    typed.fill("12")  # two taps on the phone's number pad, not eleven on +
    assert count.locator("output").inner_text() == "12"
    count.locator(".more").click()
    assert typed.input_value() == "13" and count.locator("output").inner_text() == "13"
    typed.fill("99")  # more than the unit has: held to its 20 models
    assert count.locator("output").inner_text() == "20"
    typed.fill("10")
    no_layout_problems(page, "casualties-typed")
    console.submit(form)
    console.recorded(last + 1)
    logged = log_after(http, body["battle"], tokens["spectator"], last)
    assert [(r["event"]["unit"], r["event"]["count"]) for r in logged] == [("boyz", 10)]
    context.close()
    assert errors == []


# -- 6. a failure looks like one ---------------------------------------------------------------------
def test_a_failed_test_is_reported_as_a_failure(browser, served):
    server, http = served
    tokens, body, _ = battle_with_tests_due(http)
    context, page, errors = open_console(browser, server.url, body["battle"], tokens["referee"], PHONE)
    console = Console(page, wide=False)
    console.play({"type": "dice_rolled", "unit": "nobz", "test": "morale", "dice": [6, 5]})  # 11 against 7
    notice = page.locator("#notice")
    text = notice.inner_text()
    assert "Nobz fails the Morale test." in text
    assert notice.locator("li.failed").inner_text().startswith("✗ Nobz fails the Morale test: 6 + 5 = 11 against 7")
    # The red of a failure, not the green of a box that says all went well.
    assert notice.evaluate("n => getComputedStyle(n).borderTopColor") == "rgb(198, 40, 40)"
    assert notice.evaluate("n => getComputedStyle(n).backgroundColor") == "rgb(253, 236, 234)"
    no_layout_problems(page, "failed")

    console.play({"type": "dice_rolled", "unit": "grots", "test": "morale", "dice": [1, 2]})  # passes
    assert "fails" not in notice.inner_text() and not notice.locator("li.failed").count()
    assert notice.evaluate("n => getComputedStyle(n).borderTopColor") == "rgb(46, 125, 50)"
    context.close()
    assert errors == []


# -- 8. units out of play take one line per side --------------------------------------------------------
def test_units_out_of_play_are_one_line_per_side(browser, served):
    server, http = served
    body = roster_body(EXAMPLE)
    tokens = http.post("/battles", json=body).json()["tokens"]
    events = [
        *example_lines(EXAMPLE)[:5],
        {"type": "casualties_suffered", "unit": "grots", "count": 10, "cause": "shooting"},
        {"type": "casualties_suffered", "unit": "lootas", "count": 6, "cause": "shooting"},
    ]
    post_events(http, body["battle"], tokens["referee"], events)
    context, page, errors = open_console(browser, server.url, body["battle"], tokens["referee"], PHONE)
    orks = page.locator("#board .team[data-side='orks']")
    line = orks.locator("details.gone > summary")
    assert line.count() == 1
    assert re.fullmatch(r"Out of play: Gretchin Mob \(\w+\), Lootas \(\w+\)", line.inner_text())
    assert not orks.locator(".unit[data-unit='grots']").is_visible()
    assert not page.locator("#board .team[data-side='imperium'] details.gone").count()  # none out of play
    line.scroll_into_view_if_needed()
    no_layout_problems(page, "out-of-play")
    line.click()  # opened: their cards, as before
    assert orks.locator(".unit[data-unit='grots']").is_visible()
    context.close()
    assert errors == []


# -- 9. the past reads as the past ----------------------------------------------------------------------
def test_stepping_back_the_banner_and_the_clock_speak_of_then(browser, served):
    server, http = served
    tokens, body, last = battle_with_tests_due(http)
    post_events(http, body["battle"], tokens["referee"], example_lines(EXAMPLE)[SHOOTING_ENDED : SHOOTING_ENDED + 4])
    context, page, errors = open_console(browser, server.url, body["battle"], tokens["referee"], PHONE)
    console = Console(page, wide=False)
    banner, clock = page.locator("#due-banner"), page.locator("#clock")
    assert not banner.is_visible()  # now: nothing is due
    console.go_to(last)  # the end of the shooting phase, its two Morale tests waiting
    console.tab("board")
    assert banner.inner_text().startswith(f"At event {last}: 2 tests were due")
    assert clock.inner_text().startswith(f"Then, at event {last}: Turn 1")
    # Not the red of a test due now.
    assert banner.locator("button").evaluate("b => getComputedStyle(b).backgroundColor") != "rgb(253, 236, 234)"
    no_layout_problems(page, "past")
    console.tab("due")  # the tests listed are those due then, and look it
    assert page.locator("#due h2").inner_text() == f"At event {last}: tests due then (2)"
    assert page.locator("#due .test").first.evaluate("c => getComputedStyle(c).borderTopStyle") == "dashed"
    page.locator("#now").click()
    page.wait_for_selector(f"body[data-seq='{console.last}']", timeout=WAIT_MS)
    assert not banner.is_visible() and not clock.inner_text().startswith("Then")
    context.close()
    assert errors == []


# -- 4. causes in the ruleset's words ------------------------------------------------------------------
def test_the_causes_offered_are_the_rulesets_own_not_the_phases_name(browser, served):
    server, http = served
    body = roster_body(EXAMPLE)
    tokens = http.post("/battles", json=body).json()["tokens"]
    last = post_events(http, body["battle"], tokens["referee"], example_lines(EXAMPLE)[:1])  # the movement phase
    served_causes = http.get(f"/battles/{body['battle']}/vocabulary", headers=bearer(tokens["spectator"])).json()
    names = [c["name"] for c in served_causes["vocabulary"]["causes"]]
    assert "Dangerous terrain" in names
    context, page, errors = open_console(browser, server.url, body["battle"], tokens["referee"], PHONE)
    console = Console(page, wide=False)
    form = console.form("casualties")
    console.chip(form, "unit", "kraak")
    causes = form.locator("fieldset[data-name='cause'] button")
    assert causes.all_inner_texts() == [*names, "not said"]  # no "movement": a phase is no cause
    assert form.locator("fieldset[data-name='cause'] [aria-pressed='true']").inner_text() == "not said"
    console.chip(form, "cause", "dangerous_terrain")
    no_layout_problems(page, "causes")
    console.submit(form)
    console.recorded(last + 1)
    logged = log_after(http, body["battle"], tokens["spectator"], last)
    assert [r["event"]["cause"] for r in logged] == ["dangerous_terrain"]
    console.tab("log")
    assert "loses 1 model to dangerous terrain" in page.locator(f"#log li[data-seq='{last + 1}']").inner_text()

    # In the Shooting phase, shooting is chosen beforehand: the phase's own cause.
    post_events(http, body["battle"], tokens["referee"], example_lines(EXAMPLE)[1:5])
    page.wait_for_selector(f"body[data-last='{last + 5}'][data-seq='{last + 5}']", timeout=WAIT_MS)
    form = console.form("casualties")
    console.chip(form, "unit", "kraak")
    assert form.locator("fieldset[data-name='cause'] [aria-pressed='true']").inner_text() == "shooting"
    context.close()
    assert errors == []


# -- 5. what the dice will do, before they are recorded -----------------------------------------------
def test_the_due_list_says_what_each_roll_gives_and_what_follows(served):
    _, http = served
    tokens, body, _ = battle_with_tests_due(http)
    due = http.get(f"/battles/{body['battle']}/due", headers=bearer(tokens["spectator"])).json()
    nobz = next(d for d in due if d["unit"] == "nobz")
    results = {r["result"]: r for r in nobz["results"]}
    assert set(results) == {"pass", "fail"} and results["fail"]["passed"] is False
    every = [f"{a}{b}" for a in range(1, 7) for b in range(1, 7)]
    assert sorted(results["pass"]["rolls"] + results["fail"]["rolls"]) == every
    assert set(results["pass"]["rolls"]) == {r for r in every if int(r[0]) + int(r[1]) <= nobz["target"]}
    assert results["fail"]["follows"] == ["Nobz Falls Back", "Nobz must roll 2D6 for fall back"]
    assert results["pass"]["follows"] == []
    # Working it out wrote nothing, and changed nothing the board shows.
    board = http.get(f"/battles/{body['battle']}/board", headers=bearer(tokens["spectator"])).json()
    assert board["seq"] == SHOOTING_ENDED + len(body["units"]) + 1
    assert next(u for u in board["units"] if u["unit"] == "nobz")["state"] == "steady"


def test_the_dice_typed_in_are_previewed_before_they_are_recorded(browser, served):
    server, http = served
    tokens, body, last = battle_with_tests_due(http)
    context, page, errors = open_console(browser, server.url, body["battle"], tokens["referee"], PHONE)
    console = Console(page, wide=False)
    console.tab("due")
    card = page.locator("#due .test[data-unit='nobz'][data-test='morale']")
    preview = card.locator(".preview")
    card.locator(".face[data-face='6']").click()
    assert not preview.is_visible()  # one die of two: nothing to say yet
    card.locator(".face[data-face='5']").click()
    assert preview.get_attribute("data-verdict") == "failed"
    assert [line for line in preview.inner_text().splitlines() if line.strip()] == [
        "6 + 5 = 11 against 7: fails",
        "Nobz Falls Back",
        "Nobz must roll 2D6 for fall back",
    ]
    no_layout_problems(page, "preview-fails")
    assert log_after(http, body["battle"], tokens["spectator"], last) == []  # a preview sends nothing
    card.locator("button.undo").click()
    card.locator(".face[data-face='1']").click()
    assert preview.inner_text() == "6 + 1 = 7 against 7: passes (nothing follows)"
    assert preview.get_attribute("data-verdict") == "passed"
    card.locator("button.undo").click()
    card.locator(".face[data-face='5']").click()
    card.locator("button.send").click()
    console.recorded(last + 1)
    console.tab("board")
    assert console.state_of("nobz") == "falling_back"  # as the preview said
    context.close()
    assert errors == []


# -- 7. "Why?" opens on the answer -------------------------------------------------------------------
def test_why_opens_on_the_state_now_and_its_cause_with_the_history_folded_below(browser, served):
    server, http = served
    body = roster_body(EXAMPLE)
    tokens = http.post("/battles", json=body).json()["tokens"]
    # The Nobz lose 2 of 5 to shooting, fail their Morale test (5 + 4 against 7) and Fall Back.
    post_events(http, body["battle"], tokens["referee"], example_lines(EXAMPLE)[:13])
    context, page, errors = open_console(browser, server.url, body["battle"], tokens["referee"], PHONE)
    console = Console(page, wide=False)
    console.card("nobz").locator("button.why").click()
    page.wait_for_selector("#why ol.steps[data-unit='nobz'][data-state='falling_back']", timeout=WAIT_MS)
    now = page.locator("#why ol.steps.now > li")
    assert now.count() == 2
    assert now.nth(0).locator(".text").inner_text() == "Nobz Falls Back (steady → falling back)"
    assert now.nth(1).locator(".text").inner_text() == "Nobz fails the morale test: 5 + 4 = 9 against 7"
    assert "58% to pass (21/36)" in now.nth(1).inner_text()
    # The history: folded, its summary on the first screen, above the tabs.
    history = page.locator("#why details.history")
    assert history.get_attribute("open") is None
    summary = history.locator("summary")
    assert summary.inner_text() == "Its history: 3 more steps"
    screenshot(page, "table-why")
    box, tabs = summary.bounding_box(), page.locator("#tabs").bounding_box()
    assert box["y"] + box["height"] <= tabs["y"]
    assert "joins orks" not in page.locator("#why").inner_text()  # the start of the story is below
    no_layout_problems(page, "why")
    console.open_history()
    shown = page.locator("#why").inner_text()
    assert "Nobz joins orks" in shown and "Nobz loses 2 models to shooting" in shown
    explained = http.get(f"/battles/{body['battle']}/explain/nobz", headers=bearer(tokens["spectator"])).json()
    rules = {r for s in explained["steps"] for r in (s["rule"], s["trigger"]) if r}
    assert "wh40k6.fall_back.distance" in rules  # the Fall Back move: its own trigger and result
    for rule in rules:
        assert shown.count(catalogue.words(rule)) == 1, rule  # each clause's words once
    context.close()
    assert errors == []


# -- 10. on the home screen, and back without the network ------------------------------------------------
def test_the_console_is_installable_with_a_manifest_and_a_service_worker(served):
    _, http = served
    manifest = http.get("/manifest.webmanifest")
    assert manifest.status_code == 200 and manifest.headers["content-type"].startswith("application/manifest+json")
    body = manifest.json()
    assert body["start_url"] == "/view" and body["display"] == "standalone"
    sizes = set()
    for icon in body["icons"]:
        image = http.get(icon["src"])
        assert image.status_code == 200 and image.content.startswith(b"\x89PNG")
        sizes.add(icon["sizes"])
    assert {"192x192", "512x512"} <= sizes  # what a phone asks of an app for its home screen
    worker = http.get("/sw.js")
    assert worker.status_code == 200 and "javascript" in worker.headers["content-type"]
    assert worker.headers["cache-control"] == "no-cache"
    assert '"/view"' in worker.text and '"/static/js/main.js"' in worker.text
    for url in re.search(r"const SHELL = (\[.*?\]);", worker.text).group(1).strip("[]").split(", "):
        assert http.get(url.strip('"')).status_code == 200, url  # every file it keeps is there


def test_a_reload_without_the_network_shows_the_last_board_and_the_unsent_writes(browser, served):
    server, http = served
    body = roster_body(EXAMPLE)
    tokens = http.post("/battles", json=body).json()["tokens"]
    context, page, errors = open_console(browser, server.url, body["battle"], tokens["referee"], PHONE)
    console = Console(page, wide=False)
    page.wait_for_selector("body[data-offline='kept']", timeout=WAIT_MS)  # the worker keeps the page
    scope = page.evaluate("navigator.serviceWorker.getRegistration('/view').then(r => r.scope)")
    assert scope == f"{server.url}/view"
    console.play({"type": "phase_started"})
    last = console.last
    context.set_offline(True)
    page.wait_for_selector("#status[data-status='offline']", timeout=WAIT_MS)
    console.casualties("boyz", 3)
    page.wait_for_selector("#unsent:not([hidden])", timeout=WAIT_MS)

    page.reload()  # no network: the worker gives the page and the server's last answers back
    page.wait_for_selector("body[data-ready='true'][data-logged='true']", timeout=WAIT_MS)
    assert page.locator("#unsent").inner_text() == "1 not sent"
    assert page.locator("#clock").inner_text() == "Turn 1 · imperium · movement"
    assert console.state_of("boyz") == "steady" and "20/20 models" in console.card("boyz").inner_text()
    assert page.locator("#board .unit").count() == len(body["units"])
    assert page.locator("#status").get_attribute("data-status") == "offline"
    console.tab("log")
    assert page.locator(f"#log li[data-seq='{last}']").count() == 1
    no_layout_problems(page, "offline-reloaded")

    context.set_offline(False)  # the network is back: the write kept goes out, once
    console.recorded(last + 1)
    page.wait_for_selector("#unsent", state="hidden", timeout=WAIT_MS)
    logged = log_after(http, body["battle"], tokens["spectator"], last)
    assert [(r["event"]["unit"], r["event"]["count"]) for r in logged] == [("boyz", 3)]
    context.close()
    assert errors == []
