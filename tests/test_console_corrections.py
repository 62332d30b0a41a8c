"""Corrections on a phone (390x844): the referee strikes an entry and what stood on it with a reason
of their own words; a player undoes their own last entry. Each shows what it strikes before it is
sent, and the log then shows the entries crossed out with who struck them, where and why."""

from __future__ import annotations

import re

from support.browser import PHONE, WAIT_MS, layout_problems, screenshot
from support.console import Console
from support.served import BATTLE, bearer, creation_body
from test_console import open_console, served  # noqa: F401  (the console's server fixture, reused)


def test_the_referee_strikes_an_entry_with_its_followers_for_a_reason_typed_in(browser, served):  # noqa: F811
    server, http = served
    tokens = http.post("/battles", json=creation_body()).json()["tokens"]
    context, page, errors = open_console(browser, server.url, BATTLE, tokens["referee"], PHONE)
    console = Console(page, wide=False)
    for seq in range(10, 15):  # to the shooting phase of turn 1
        console.next_phase()
        console.recorded(seq)
    console.casualties("kraak", 3)
    console.recorded(15)
    console.next_phase()
    console.recorded(16)
    console.roll("kraak", "morale", [5, 6])
    console.recorded(17)
    assert console.state_of("kraak") == "falling_back"

    console.tab("log")
    entry = page.locator("#log ol.log > li[data-seq='15']")
    entry.locator("button.strike").click()
    confirm = entry.locator(".confirm")
    confirm.locator("ul.strikes li").first.wait_for(timeout=WAIT_MS)
    assert "These later entries stood on it and are struck with it:" in confirm.inner_text()
    assert "#17 Sergeant Kraak's Guardsmen rolls for morale: 5 + 6" in confirm.inner_text()
    assert console.last == 17  # shown, not yet sent
    screenshot(page, "corrections-strike-phone")
    assert layout_problems(page) == []
    confirm.get_by_label("Another reason").fill("the shots were at the boyz")
    confirm.locator("button.reason-own").click()
    console.recorded(19)
    assert page.locator("#notice p").first.inner_text() == "Event 15 is struck."  # said as done, not as a command
    assert console.state_of("kraak") == "steady"
    struck = page.locator("#log ol.log > li[data-seq='15']")
    assert "struck" in struck.get_attribute("class")
    assert struck.locator(".struck-by").inner_text() == (
        "Struck by referee (console, issued with the battle) at #19: the shots were at the boyz"
    )
    assert "struck" in page.locator("#log ol.log > li[data-seq='17']").get_attribute("class")
    context.close()
    assert errors == []


def test_a_strike_asked_for_while_other_phones_record_is_still_asked_with_the_words_typed(browser, served):  # noqa: F811
    """Every new event redraws the log: the question a referee opened (its preview still on its way
    from the server, or answered and half typed) stays in its entry through those redraws."""
    server, http = served
    tokens = http.post("/battles", json=creation_body()).json()["tokens"]
    context, page, errors = open_console(browser, server.url, BATTLE, tokens["referee"], PHONE)
    console = Console(page, wide=False)
    console.next_phase()
    console.recorded(10)
    console.casualties("kraak", 2)
    console.recorded(11)

    def elsewhere(seq: int) -> None:  # another phone at the table records a casualty of the boyz
        event = {"type": "casualties_suffered", "unit": "boyz", "count": 1}
        body = {"expected_seq": seq, "events": [event]}
        posted = http.post(f"/battles/{BATTLE}/events", json=body, headers=bearer(tokens["referee"]))
        assert posted.status_code == 201
        console.recorded(seq + 1)

    held = []  # the strike's preview, held back until another phone's entry has redrawn the log
    page.route(re.compile(r"/strike/11(\?|$)"), lambda route: held.append(route) if not held else route.continue_())
    console.tab("log")
    entry = page.locator("#log ol.log > li[data-seq='11']")
    entry.locator("button.strike").click()
    for _ in range(int(WAIT_MS // 20)):  # the page's request reaches the route
        if held:
            break
        page.wait_for_timeout(20)
    assert held, "the page asked the server for the strike's preview"
    elsewhere(11)
    held[0].continue_()
    confirm = entry.locator(".confirm")
    confirm.locator("ul.strikes li").first.wait_for(timeout=WAIT_MS)
    assert "#11 Sergeant Kraak's Guardsmen loses 2 models" in confirm.inner_text()
    confirm.get_by_label("Another reason").fill("it was the boyz who lost them")
    elsewhere(12)
    assert confirm.get_by_label("Another reason").input_value() == "it was the boyz who lost them"
    confirm.locator("button.reason-own").click()
    console.recorded(14)
    struck_by = page.locator("#log ol.log > li[data-seq='11'] .struck-by").inner_text()
    assert struck_by.endswith(": it was the boyz who lost them")
    context.close()
    assert errors == []


def test_a_player_undoes_their_own_last_entry_after_seeing_it(browser, served):  # noqa: F811
    server, http = served
    tokens = http.post("/battles", json=creation_body()).json()["tokens"]
    referee_context, referee_page, _ = open_console(browser, server.url, BATTLE, tokens["referee"], PHONE)
    referee = Console(referee_page, wide=False)
    for seq in range(10, 15):  # to the shooting phase of turn 1
        referee.next_phase()
        referee.recorded(seq)
    referee_context.close()
    context, page, errors = open_console(browser, server.url, BATTLE, tokens["players"]["imperium"], PHONE)
    player = Console(page, wide=False)
    player.casualties("kraak", 2)
    player.recorded(15)

    player.tab("log")
    page.locator("#log button.undo-last").click()
    confirm = page.locator("#log .undo .confirm")
    confirm.locator("ul.strikes li").first.wait_for(timeout=WAIT_MS)
    assert "Undo your last entry, event 15? The log keeps it, struck:" in confirm.inner_text()
    assert "#15 Sergeant Kraak's Guardsmen loses 2 models to shooting (8 left)" in confirm.inner_text()
    screenshot(page, "corrections-undo-phone")
    assert layout_problems(page) == []
    assert player.last == 15  # nothing sent before the player says so
    confirm.locator("button.undo-it").click()
    player.recorded(16)
    assert page.locator("#notice p").first.inner_text() == "You undid event 15."
    struck = page.locator("#log ol.log > li[data-seq='15']")
    assert "struck" in struck.get_attribute("class")
    assert "at #16: undone by who entered it" in struck.locator(".struck-by").inner_text()

    page.locator("#log button.undo-last").click()  # nothing of theirs stands now
    refused = page.locator("#log .undo .confirm .refused")
    refused.wait_for(timeout=WAIT_MS)
    assert "you have entered nothing in this battle that still stands to undo" in refused.inner_text()
    assert player.last == 16
    context.close()
    assert errors == []
