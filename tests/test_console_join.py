"""Joining from a link, in Debian's Chromium on a phone (390x844): the token is kept in the browser
and leaves the address bar and the history; a new link is taken up without a reload; `at=N` opens
the battle as it stood then and `tab=NAME` that screen; "Link to this moment" gives a link without
a token; the referee's Share screen makes a join link per role (its QR code and URL) and revokes
tokens; and a spectator's token issued mid-game logs nobody out."""

from __future__ import annotations

import httpx
import pytest
from support.browser import PHONE, WAIT_MS, layout_problems, screenshot, serious_violations
from support.console import Console
from support.qr import decode_page_qr_code
from support.served import BATTLE, WAIT_S, LiveServer, bearer, creation_body, example_events

from morale.app.http.server import Settings, create_app

PLAYED = 20  # events of the example recorded before the page opens


@pytest.fixture
def served(tmp_path):
    app = create_app(tmp_path / "join.db", Settings(poll_s=0.05, heartbeat_s=1))
    with LiveServer(app) as server, httpx.Client(base_url=server.url, timeout=WAIT_S) as http:
        tokens = http.post("/battles", json=creation_body()).json()["tokens"]
        seq = http.get(f"/battles/{BATTLE}/board", headers=bearer(tokens["referee"])).json()["seq"]
        events = example_events()[: PLAYED - seq]
        answer = http.post(
            f"/battles/{BATTLE}/events", json={"expected_seq": seq, "events": events}, headers=bearer(tokens["referee"])
        )
        assert answer.status_code == 201, answer.text
        yield server, http, tokens


def link(server, token: str, **more: object) -> str:
    extra = "".join(f"&{key}={value}" for key, value in more.items())
    return f"{server.url}/view#battle={BATTLE}&token={token}{extra}"


def opened(browser, url: str, context=None):
    context = context or browser.new_context(viewport=PHONE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    page.wait_for_selector(f"body[data-ready='true'][data-battle='{BATTLE}']", timeout=WAIT_MS)
    return context, page, errors


def test_a_join_link_keeps_the_token_and_takes_it_out_of_the_address_bar_and_the_history(browser, served):
    server, _, tokens = served
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{server.url}/health")  # the page before, in the history
    page.goto(link(server, tokens["referee"]))
    page.wait_for_selector("body[data-ready='true']", timeout=WAIT_MS)
    assert page.url == f"{server.url}/view#battle={BATTLE}"
    page.go_back()
    page.go_forward()
    assert tokens["referee"] not in page.url  # no entry of the history holds it
    page.reload()  # the token kept in the browser opens the battle again
    page.wait_for_selector("body[data-ready='true'][data-logged='true']", timeout=WAIT_MS)
    assert page.locator("#tab-record").is_visible() and not page.locator("#connect").is_visible()
    fresh = context.new_page()  # the same browser, the address without a battle: the last one opened
    fresh.goto(f"{server.url}/view")
    fresh.wait_for_selector(f"body[data-ready='true'][data-battle='{BATTLE}']", timeout=WAIT_MS)
    context.close()


def test_a_new_link_in_an_open_page_is_taken_up_without_a_reload(browser, served):
    server, _, tokens = served
    context, page, errors = opened(browser, link(server, tokens["referee"]))
    assert page.locator("#tab-record").is_visible()
    page.evaluate("window.notReloaded = true")
    page.goto(link(server, tokens["spectator"]))  # a link pasted into the address bar of the open page
    page.wait_for_selector("body[data-role='spectator']", timeout=WAIT_MS)
    assert page.evaluate("window.notReloaded === true")
    assert page.locator("#tab-record").is_hidden()
    assert page.url == f"{server.url}/view#battle={BATTLE}"
    context.close()
    assert errors == []


def test_a_link_with_at_opens_the_battle_as_it_stood_then(browser, served):
    server, _, tokens = served
    context, page, errors = opened(browser, link(server, tokens["spectator"], at=12))
    page.wait_for_selector("body[data-seq='12']", timeout=WAIT_MS)
    assert page.locator("#past").is_visible()
    assert page.locator("#past-text").inner_text().startswith(f"As it stood after event 12 of {PLAYED}")
    page.locator("#now").click()
    page.wait_for_selector(f"body[data-seq='{PLAYED}']", timeout=WAIT_MS)
    context.close()
    assert errors == []


def test_a_link_with_tab_opens_that_screen_if_the_role_has_it(browser, served):
    server, _, tokens = served
    context, page, _ = opened(browser, link(server, tokens["referee"], tab="share"))
    page.wait_for_selector("body[data-tab='share'] #share ul.tokens li", timeout=WAIT_MS)
    context.close()
    context, page, _ = opened(browser, link(server, tokens["players"]["orks"], tab="share"))
    page.wait_for_selector("body[data-logged='true']", timeout=WAIT_MS)
    assert page.get_attribute("body", "data-tab") == "board" and page.locator("#tab-share").is_hidden()
    context.close()


def test_a_link_to_this_moment_carries_no_token_and_opens_the_moment_for_whoever_has_one(browser, served):
    server, _, tokens = served
    context, page, errors = opened(browser, link(server, tokens["referee"]))
    page.wait_for_selector("body[data-logged='true']", timeout=WAIT_MS)
    Console(page, wide=False).go_to(15)
    page.locator("#moment").click()
    shown = page.locator("#moment-link a")
    shown.wait_for(timeout=WAIT_MS)
    moment = shown.inner_text()
    assert moment == f"{server.url}/view#battle={BATTLE}&at=15"
    problems = layout_problems(page) + serious_violations(page)
    screenshot(page, "join-moment")
    # The same browser (it holds a token of the battle) opens it at once.
    again = context.new_page()
    again.goto(moment)
    again.wait_for_selector("body[data-ready='true'][data-seq='15']", timeout=WAIT_MS)
    # A judge's browser without one is asked for a token, the battle filled in, and lands on the moment.
    judge = browser.new_context(viewport=PHONE)
    asked = judge.new_page()
    asked.goto(moment)
    asked.wait_for_selector("#connect:not([hidden])", timeout=WAIT_MS)
    assert asked.locator("#connect [name=battle]").input_value() == BATTLE
    asked.locator("#connect [name=token]").fill(tokens["spectator"])
    asked.locator("#connect button[type=submit]").click()
    asked.wait_for_selector("body[data-ready='true'][data-seq='15']", timeout=WAIT_MS)
    assert asked.locator("#past").is_visible()
    judge.close()
    context.close()
    assert errors == [] and problems == []


def test_a_revoked_token_is_told_so_and_asked_for_a_new_one(browser, served):
    server, http, tokens = served
    orks = next(
        row["id"]
        for row in http.get(f"/battles/{BATTLE}/tokens", headers=bearer(tokens["referee"])).json()
        if row["side"] == "orks"
    )
    assert http.delete(f"/battles/{BATTLE}/tokens/{orks}", headers=bearer(tokens["referee"])).status_code == 204
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(link(server, tokens["players"]["orks"]))
    page.wait_for_selector("#connect:not([hidden])", timeout=WAIT_MS)
    said = page.locator("#problem").inner_text()
    assert "does not open battle" in said and "ask them for a new link" in said
    assert tokens["players"]["orks"] not in page.url
    context.close()


def test_the_share_screen_makes_a_link_per_role_and_revokes_tokens_and_nobody_is_logged_out(browser, served):
    server, http, tokens = served
    context, referee, errors = opened(browser, link(server, tokens["referee"]))
    player_context, player, player_errors = opened(browser, link(server, tokens["players"]["imperium"]))
    referee.wait_for_selector("body[data-logged='true']", timeout=WAIT_MS)
    referee.locator("#tab-share").click()
    referee.wait_for_selector("#share ul.tokens li", timeout=WAIT_MS)
    assert referee.locator("#share ul.tokens li").count() == 4
    # The token this page uses has no revoke button.
    own = referee.locator("#share ul.tokens li[data-role='referee']")
    assert own.locator("button.revoke").count() == 0 and "This page's token" in own.inner_text()
    # A spectator's link mid-game, labelled.
    referee.locator("#share input[name=label]").fill("the stream overlay")
    referee.locator("#share button[data-role='spectator']").click()
    made = referee.locator("#share .made[data-role='spectator']")
    made.wait_for(timeout=WAIT_MS)
    assert made.locator(".qr svg").count() == 1
    assert "Link for a spectator: the stream overlay" in made.inner_text()
    url = decode_page_qr_code(made.locator(".qr svg"))  # the code, as a phone's camera reads it
    assert url.startswith(f"{server.url}/view#battle={BATTLE}&token=")
    assert made.locator("input.join-url").input_value() == url
    referee.wait_for_selector("#share ul.tokens li:nth-child(5)", timeout=WAIT_MS)
    problems = layout_problems(referee) + serious_violations(referee)
    screenshot(referee, "join-share")
    # Nobody was logged out: the referee's and the player's pages still record and follow.
    referee_console = Console(referee, wide=False)
    referee_console.roll("grots", "morale", [6, 2])  # the test due after event 20
    referee_console.recorded(PLAYED + 1)
    player.wait_for_selector(f"body[data-last='{PLAYED + 1}']", timeout=WAIT_MS)
    player.reload()
    player.wait_for_selector("body[data-ready='true'][data-logged='true']", timeout=WAIT_MS)
    assert not player.locator("#connect").is_visible()
    # The new link opens a spectator's page.
    viewer_context, viewer, _ = opened(browser, url)
    viewer.wait_for_selector("body[data-role='spectator']", timeout=WAIT_MS)
    viewer_context.close()
    # Revoking the orks player's token: two taps, and it is gone from the list and stops working.
    referee.locator("#tab-share").click()
    orks = referee.locator("#share ul.tokens li[data-side='orks']")
    orks.wait_for(timeout=WAIT_MS)
    orks.locator("button.revoke").click()
    orks.locator("button.danger").click()
    referee.wait_for_selector("#share ul.tokens li[data-side='orks']", state="detached", timeout=WAIT_MS)
    gone = http.get(f"/battles/{BATTLE}/board", headers=bearer(tokens["players"]["orks"]))
    assert gone.status_code == 401
    assert http.get(f"/battles/{BATTLE}/board", headers=bearer(tokens["players"]["imperium"])).status_code == 200
    player_context.close()
    context.close()
    assert errors == [] and player_errors == [] and problems == []
