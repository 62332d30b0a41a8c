"""The console's log and "Why?" name who entered each event: the referee's console, a player's
phone, a script calling the API. On a phone (390x844), driven by taps as at the table."""

from __future__ import annotations

from support.browser import PHONE, WAIT_MS
from support.console import Console
from support.served import BATTLE, bearer, creation_body, example_events
from test_console import Screens, open_console, served  # noqa: F401 (served: the fixture)


def test_the_log_and_why_name_who_entered_each_event_on_a_phone(browser, served):  # noqa: F811
    server, http = served
    tokens = http.post("/battles", json=creation_body()).json()["tokens"]  # a script, through the API
    referee = bearer(tokens["referee"])
    body = {"expected_seq": 9, "events": example_events(4)}
    assert http.post(f"/battles/{BATTLE}/events", json=body, headers=referee).status_code == 201

    context, page, errors = open_console(browser, server.url, BATTLE, tokens["referee"], PHONE)
    console, screens = Console(page, wide=False), Screens(page, "authors-referee")
    console.next_phase()  # the shooting phase starts: the referee's console
    console.recorded(14)
    phone, phone_page, phone_errors = open_console(browser, server.url, BATTLE, tokens["players"]["orks"], PHONE)
    player = Console(phone_page, wide=False)
    player.casualties("nobz", 2, "shooting")  # the orks player's phone
    player.recorded(15)
    phone.close()
    console.recorded(15)  # the referee's page hears of it on the feed

    console.tab("log")
    shown = {
        int(seq): by
        for seq, by in page.locator("#log ol.log > li").evaluate_all(
            "items => items.map(li => [li.dataset.seq, li.querySelector('.by')?.textContent ?? ''])"
        )
    }
    assert shown[15].startswith("orks player (console")
    assert shown[14].startswith("referee (console")
    assert shown[10].startswith("referee (API") and shown[13].startswith("referee (API")
    screens.check("log")

    console.tab("board")
    console.card("nobz").locator("button.why").click()
    page.wait_for_selector("#why ol.steps[data-unit='nobz']", timeout=WAIT_MS)
    console.open_history()  # the loss is in the unit's history, folded below the answer
    lost = page.locator("#why ol.steps > li[data-seq='15'][data-kind='event'] .by")
    assert lost.inner_text().startswith("entered by: orks player (console")
    joined = page.locator("#why ol.steps > li[data-kind='event']").first.locator(".by")
    assert joined.inner_text() == "entered by: referee (API)"
    screens.check("why")
    context.close()
    assert errors == [] and phone_errors == [] and screens.problems == []
