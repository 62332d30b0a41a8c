"""The referee's console in Debian's Chromium, on a phone (390x844) and a desktop (1280x800): a
whole game turn of each shipped example played only through the page (the clock, casualties,
charges, combat results, table facts, decisions and dice typed on its buttons or rolled by the
engine; a free decision and a unit change on their own forms), the state a roll changed explained,
the log stepped back through, a ruling struck out, and a player's page offering only their own side.
Each screen is photographed into screenshots/, fits the screen with thumb-sized controls, and has no
serious accessibility violation (axe-core)."""

from __future__ import annotations

import json
import re

import httpx
import pytest
from support.browser import DESKTOP, PHONE, WAIT_MS, layout_problems, screenshot, serious_violations
from support.console import Console
from support.served import BATTLE, ROOT, WAIT_S, LiveServer, bearer, creation_body, example_lines, roster_body

from morale.app.http.server import Settings, create_app
from morale.app.roster import load_roster
from morale.core import catalogue
from morale.core.fold import Fold
from morale.events.codec import decode_event

EXAMPLES = ("wh40k6", "wh40k3", "wfb8", "gdb")
SIZES = {"phone": PHONE, "desktop": DESKTOP}
# A battle's appends, whatever the query (every console request names its language: ?lang=).
EVENTS_URL = re.compile(r"/battles/[^/?]+/events(\?|$)")


@pytest.fixture
def served(tmp_path):
    app = create_app(tmp_path / "console.db", Settings(poll_s=0.05, heartbeat_s=1))
    with LiveServer(app) as server, httpx.Client(base_url=server.url, timeout=WAIT_S) as http:
        yield server, http


def first_turn(example: str) -> list[dict]:
    events = example_lines(example)
    return events[: next(i for i, e in enumerate(events) if e["type"] == "phase_started" and e["turn"] == 2)]


def reference_states(example: str, events: list[dict]) -> dict[str, str]:
    """Each unit's state once the example's events are folded (the page must come to the same)."""
    roster = load_roster(ROOT / "examples" / example / "roster.toml")
    fold = Fold(roster.battle)
    for seq, event in enumerate([roster.started, *roster.units, *map(decode_event, map(json.dumps, events))], 1):
        fold.advance(seq, event)
    return {unit.id: unit.state for unit in fold.state().units.values()}


class Screens:
    """Every screen the test passes through: photographed, and checked as a person would."""

    def __init__(self, page, prefix: str) -> None:
        self.page, self.prefix, self.problems = page, prefix, []

    def check(self, name: str) -> None:
        screenshot(self.page, f"{self.prefix}-{name}")
        self.problems += [f"{name}: {p}" for p in layout_problems(self.page)]
        self.problems += [f"{name}: {v}" for v in serious_violations(self.page)]


def open_console(browser, url: str, battle: str, token: str, size: dict):
    context = browser.new_context(viewport=size)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{url}/view#battle={battle}&token={token}")
    page.wait_for_selector("body[data-ready='true'][data-logged='true']", timeout=WAIT_MS)
    return context, page, errors


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("example", EXAMPLES)
def test_a_whole_turn_is_played_explained_stepped_back_and_struck_out_through_the_page(browser, served, example, size):
    server, http = served
    # The 40K 6th battle lets the engine roll too: its first Fall Back move is the engine's.
    body = roster_body(example, dice="either" if example == "wh40k6" else None)
    battle = body["battle"]
    tokens = http.post("/battles", json=body).json()["tokens"]
    context, page, errors = open_console(browser, server.url, battle, tokens["referee"], SIZES[size])
    console, screens = Console(page, wide=size == "desktop"), Screens(page, f"{example}-referee")
    screens.check("board")

    turn = first_turn(example)
    engine_rolled = shown_due = False
    for event in turn:
        if event["type"] == "dice_rolled" and not shown_due:
            console.tab("due")
            screens.check("due")
            shown_due = True
        engine = example == "wh40k6" and event["type"] == "dice_rolled" and event["test"] == "fall_back"
        console.play(event, engine=engine and not engine_rolled)
        engine_rolled = engine_rolled or engine
    assert example != "wh40k6" or engine_rolled

    # The page's battle is the example's: every card in the state the rules give.
    expected = reference_states(example, turn)
    console.tab("board")
    shown = {u: page.locator(f"#board .unit[data-unit='{u}']").get_attribute("data-state") for u in expected}
    assert shown == expected
    assert console.changes, "a roll of the turn changed a unit's state on its card"

    # Why: the test behind the first change, with its trigger, target, dice and result, each rule
    # beside its clause's words.
    seq, unit, new_state = console.changes[0]
    now = console.state_of(unit)
    console.why(unit, now)  # its history unfolded: the test behind the first change may be there
    why = http.get(f"/battles/{battle}/explain/{unit}", headers=bearer(tokens["spectator"])).json()
    step = next(s for s in why["steps"] if s["kind"] == "test" and s["settled_at"] == seq)
    shown_why = page.locator("#why").inner_text()
    for rule in (step["trigger"], step["rule"]):
        assert rule in shown_why and catalogue.words(rule) in shown_why
    for term in ("Trigger", "Dice", "Result"):
        assert term in shown_why
    # numbered by the dice that settled it, with the event where it fell due beside
    assert f"event {seq} · {step['status']}" in shown_why
    assert step["seq"] == seq or re.search(rf"due at event {step['seq']}\b", shown_why)
    if step["target"] is not None:
        assert re.search(rf"Target\s+{step['target']} or less", shown_why)
    for modifier in step["roll"]["modifiers"] if step["roll"] else ():
        assert modifier["reason"] in shown_why
    screens.check("why")

    # The log, stepped back to the event before that roll: the card as it stood then.
    console.go_to(seq - 1)
    assert console.state_of(unit) != new_state and page.locator("#past").is_visible()
    assert f"As it stood after event {seq - 1} of" in page.locator("#past").inner_text()
    screens.check("past")
    page.locator("#past #back").click()
    page.wait_for_selector(f"body[data-seq='{seq - 2}']", timeout=WAIT_MS)
    page.locator("#now").click()
    page.wait_for_selector(f"body[data-seq='{console.last}']", timeout=WAIT_MS)
    assert not page.locator("#past").is_visible() and console.state_of(unit) == now
    console.tab("log")
    screens.check("log")

    # A ruling, then struck out by the referee: the card goes there and back.
    steady = next(u for u, s in expected.items() if s == "steady")
    ruling = console.last + 1
    console.rule(steady, "falling_back", "the players agreed")
    console.recorded(ruling)
    assert console.state_of(steady) == "falling_back"
    console.strike(ruling, "recorded in error")
    console.recorded(ruling + 1)
    assert console.state_of(steady) == "steady"
    assert "struck" in page.locator(f"#log ol.log > li[data-seq='{ruling}']").get_attribute("class")

    console.form("casualties")
    screens.check("record")
    context.close()
    assert errors == []

    # A player's page: their own side only, and no clock, combat results or rulings.
    side, token = next(iter(tokens["players"].items()))
    context, page, errors = open_console(browser, server.url, battle, token, SIZES[size])
    player, player_screens = Console(page, wide=size == "desktop"), Screens(page, f"{example}-player")
    form = player.form("casualties")
    offered = form.locator("fieldset[data-name='unit'] button").evaluate_all("bs => bs.map(b => b.dataset.value)")
    own = [u["unit"] for u in body["units"] if u["side"] == side]
    assert offered and set(offered) <= set(own)
    menu = page.locator("#record .menu button").evaluate_all("bs => bs.map(b => b.dataset.form)")
    assert "ruling" not in menu and "combat" not in menu and not page.locator("#next-phase").count()
    player_screens.check("record")
    player.tab("due")
    for card in page.locator("#due .test").all():
        ours = card.get_attribute("data-unit") in own
        assert (card.locator(".pad").count() > 0) == ours or card.locator(".order").count()
    context.close()
    assert errors == []
    assert screens.problems + player_screens.problems == []


# -- the forms the example turns do not reach ---------------------------------------------------------
def post_events(http, battle: str, token: str, events: list[dict]) -> int:
    """Record `events` through the API, as another device at the table would; the log's last seq."""
    seq = http.get(f"/battles/{battle}/board", headers=bearer(token)).json()["seq"]
    posted = http.post(f"/battles/{battle}/events", json={"expected_seq": seq, "events": events}, headers=bearer(token))
    assert posted.status_code == 201, posted.text
    return seq + len(events)


def restrictions_of(http, battle: str, headers: dict, unit: str) -> list[dict]:
    board = http.get(f"/battles/{battle}/board", headers=headers).json()
    return next(u for u in board["units"] if u["unit"] == unit)["restrictions"]


def test_a_free_decision_and_a_unit_change_are_recorded_on_their_forms_on_a_phone(browser, served):
    """General de Brigade's Pratzen battle as the example plays it, but its reform (a decision no
    test due asks for) and its square against the hussars (a unit change) tapped on the Record
    screen's forms by the referee on a phone: the server holds exactly those events, and the page
    shows what they did to the cards."""
    server, http = served
    body = roster_body("gdb")
    battle, events = body["battle"], example_lines("gdb")
    reform = next(i for i, e in enumerate(events) if e.get("decision") == "reform")
    square = next(i for i, e in enumerate(events) if e["type"] == "unit_changed")
    names = {u["unit"]: u["name"] for u in body["units"]}
    tokens = http.post("/battles", json=body).json()["tokens"]
    referee, spectator = bearer(tokens["referee"]), bearer(tokens["spectator"])
    before = post_events(http, battle, tokens["referee"], events[:reform])
    context, page, errors = open_console(browser, server.url, battle, tokens["referee"], PHONE)
    console, screens = Console(page, wide=False), Screens(page, "gdb-referee")

    # The reform: l14 wavered in turn 1; in turn 2's Movement phase its player reforms it.
    unit = events[reform]["unit"]
    assert console.state_of(unit) == "wavering"
    wavering = restrictions_of(http, battle, referee, unit)
    form = console.form("decision")
    console.chip(form, "unit", unit)
    assert form.locator("button.submit").is_disabled()  # no decision chosen: nothing to send yet
    assert "Choose the decision first." in form.inner_text()
    screens.check("record-decision-unfinished")
    console.play(events[reform])  # the decision tapped on the same form, and Record
    assert f"Recorded: {names[unit]}: reform" in page.locator("#notice").inner_text()
    log = http.get(f"/battles/{battle}/log?after={before}", headers=spectator).json()
    assert [(r["type"], r["event"]["unit"], r["event"]["decision"]) for r in log] == [
        ("player_decided", unit, "reform")
    ]
    reforming = [r for r in restrictions_of(http, battle, referee, unit) if r not in wavering]
    assert [r["rule"] for r in reforming] == ["gdb.waver.reform"]
    console.tab("board")
    notes = console.card(unit).locator("ul.notes").inner_text()
    assert reforming[0]["said"] in notes and "gdb.waver.reform" in notes  # the card says it whole

    # The rest of the example up to its square, recorded elsewhere: the page follows.
    before = post_events(http, battle, tokens["referee"], events[reform + 1 : square])
    page.wait_for_selector(f"body[data-last='{before}'][data-seq='{before}']", timeout=WAIT_MS)

    # The square: Fanagoria's formation, from column to square, on the unit-change form.
    change = events[square]
    unit, ((field, value),) = change["unit"], change["changes"].items()
    shown = console.card(unit).locator(f"dl.fields [data-field='{field}'] dd")
    assert shown.inner_text() != value
    form = console.form("unit")
    console.chip(form, "unit", unit)
    record = form.locator("button.submit")
    assert record.is_disabled() and "Choose what changes first." in form.inner_text()
    console.chip(form, "field", field)
    assert record.is_disabled() and f"Choose the {field} first." in form.inner_text()  # no value picked yet
    record.scroll_into_view_if_needed()
    screens.check("record-unit-unfinished")
    console.chip(form, "value", value)
    assert record.is_enabled()
    screens.check("record-unit")
    console.play(change)  # the same form, Record
    assert f"Recorded: {names[unit]}: {field} {value}" in page.locator("#notice").inner_text()
    log = http.get(f"/battles/{battle}/log?after={before}", headers=spectator).json()
    assert [(r["type"], r["event"]["unit"], r["event"]["changes"]) for r in log] == [
        ("unit_changed", unit, {field: value})
    ]
    board = http.get(f"/battles/{battle}/board", headers=referee).json()
    assert next(u for u in board["units"] if u["unit"] == unit)["fields"][field] == value
    console.tab("board")
    assert shown.inner_text() == value
    shown_states = {u["unit"]: console.state_of(u["unit"]) for u in board["units"]}
    assert shown_states == reference_states("gdb", events[: square + 1])
    context.close()
    assert errors == []
    assert screens.problems == []


# -- a tab left open at the table -------------------------------------------------------------------
def test_a_half_filled_charge_or_table_fact_is_never_sent(browser, served):
    # Record waits until the form says all a write needs: a charge's targets, a fact and its answer
    # (a yes/no fact starts with neither chosen: a yes nobody tapped is never sent).
    server, http = served
    body = roster_body("wfb8")
    battle, names = body["battle"], {u["unit"]: u["name"] for u in body["units"]}
    tokens = http.post("/battles", json=body).json()["tokens"]
    context, page, errors = open_console(browser, server.url, battle, tokens["referee"], PHONE)
    console = Console(page, wide=False)
    mine, theirs = (next(u["unit"] for u in body["units"] if u["side"] == side) for side in body["started"]["sides"])

    form = console.form("charge")
    console.chip(form, "unit", mine)
    record = form.locator("button.submit")
    assert record.is_disabled() and "Choose the targets first." in form.inner_text()
    console.chip(form, "targets", theirs)
    assert record.is_enabled()

    form = console.form("fact")
    console.chip(form, "unit", mine)
    record = form.locator("button.submit")
    assert record.is_disabled() and "Choose the fact first." in form.inner_text()
    console.chip(form, "fact", "near_battle_standard")
    assert record.is_disabled() and "Choose the answer first." in form.inner_text()
    assert form.locator("fieldset[data-name='value'] [aria-pressed='true']").count() == 0
    console.chip(form, "value", False)
    assert record.is_enabled()
    record.click()
    page.wait_for_selector(f"#notice:has-text('{names[mine]}: near battle standard no')", timeout=WAIT_MS)
    log = http.get(f"/battles/{battle}/log?after={len(body['units']) + 1}", headers=bearer(tokens["spectator"]))
    assert [(r["event"]["fact"], r["event"]["value"]) for r in log.json()] == [("near_battle_standard", False)]
    context.close()
    assert errors == []


def recorded_offline(browser, served):
    """The example battle's referee on a phone, its first phase started, then offline: a casualty
    (Kraak loses 2) recorded and waiting to be sent."""
    server, http = served
    tokens = http.post("/battles", json=creation_body()).json()["tokens"]
    context, page, errors = open_console(browser, server.url, BATTLE, tokens["referee"], PHONE)
    console = Console(page, wide=False)
    console.play({"type": "phase_started"})
    context.set_offline(True)
    page.wait_for_selector("#status[data-status='offline']", timeout=WAIT_MS)
    console.casualties("kraak", 2)
    page.wait_for_selector("#unsent:not([hidden])", timeout=WAIT_MS)
    return http, tokens, context, page, console, errors


def test_a_write_cut_off_is_shown_unsent_then_sent_once_and_one_overtaken_is_held(browser, served):
    """Offline, the header says so and counts what is not sent; back online, the feed catches up
    after its Last-Event-ID and the write goes out. One that another writer overtook meanwhile is
    not sent blindly: the page says what changed and the referee sends it again."""
    http, tokens, context, page, console, errors = recorded_offline(browser, served)
    assert page.locator("#unsent").inner_text() == "1 not sent"
    assert "waiting to be sent" in page.locator("#record .outbox").inner_text()
    elsewhere = {"type": "casualties_suffered", "unit": "boyz", "count": 1}
    posted = http.post(
        f"/battles/{BATTLE}/events", json={"expected_seq": 10, "events": [elsewhere]}, headers=bearer(tokens["referee"])
    )
    assert posted.status_code == 201

    context.set_offline(False)
    # The offline spell's "cannot be reached" may still show until the held write is tried again.
    page.wait_for_selector("#problem:not([hidden]):has-text('the battle moved on')", timeout=WAIT_MS)
    page.wait_for_selector("body[data-last='11'][data-last-feed-seq='11']", timeout=WAIT_MS)
    page.wait_for_selector("#status[data-status='live']", timeout=WAIT_MS)
    held = page.locator("#record .outbox .held")
    assert "Ork Boyz loses 1 model" in held.inner_text()
    held.locator("button", has_text="Send again").click()
    console.recorded(12)
    assert page.locator("#unsent").is_hidden()
    log = http.get(f"/battles/{BATTLE}/log?after=10", headers=bearer(tokens["spectator"])).json()
    assert [(r["event"]["unit"], r["event"]["count"]) for r in log] == [("boyz", 1), ("kraak", 2)]
    context.close()
    assert errors == []


@pytest.mark.parametrize("reached", [False, True], ids=["never-reached-the-server", "answer-lost"])
def test_a_write_not_sent_survives_a_reload_and_is_sent_once_when_the_server_answers(browser, served, reached):
    """Recorded offline, the write waits in the browser's storage. The page is reloaded before it
    could go out (a reload while offline is no page at all, so the write's requests are cut off on
    the way out instead, which keeps it unsent), or after it reached the server but not its answer
    back; the reloaded page shows it waiting and sends it when the server can be reached: the log
    holds it once, and nothing is left unsent."""
    http, tokens, context, page, console, errors = recorded_offline(browser, served)

    cut: list[int | None] = []  # each try cut off: the server's answer where it got there
    cut_off = True

    def out_of_reach(route) -> None:
        if route.request.method == "POST" and cut_off:
            cut.append(route.fetch().status if reached else None)
            route.abort("connectionrefused")  # not the browser's own offline error: told apart below
        else:
            route.continue_()

    page.route(EVENTS_URL, out_of_reach)

    def cut_off_try(request) -> bool:
        return EVENTS_URL.search(request.url) is not None and "CONNECTION_REFUSED" in (request.failure or "")

    with page.expect_event("requestfailed", cut_off_try, timeout=WAIT_MS):
        context.set_offline(False)  # the page tries at once, and the write is cut off
    with page.expect_event("requestfailed", cut_off_try, timeout=WAIT_MS):
        page.reload()  # the reloaded page tries the write it found in storage, cut off too
    page.wait_for_selector("body[data-ready='true'][data-logged='true']", timeout=WAIT_MS)
    assert page.locator("#unsent").inner_text() == "1 not sent"
    console.tab("record")
    assert "waiting to be sent" in page.locator("#record .outbox").inner_text()
    stored = http.get(f"/battles/{BATTLE}/board", headers=bearer(tokens["spectator"])).json()["seq"]
    assert stored == (11 if reached else 10) and len(cut) >= 2

    cut_off = False  # the server can be reached again: the page's next try gets through
    console.recorded(11)
    page.wait_for_selector("#unsent", state="hidden", timeout=WAIT_MS)
    assert not page.locator("#record .outbox").count()
    if reached:  # the first try had written it, every later one was refused as stale
        assert cut[0] == 201 and all(status == 409 for status in cut[1:])
        page.wait_for_selector("#notice:has-text('it had reached the log as event 11')", timeout=WAIT_MS)
    log = http.get(f"/battles/{BATTLE}/log?after=9", headers=bearer(tokens["spectator"])).json()
    assert [(r["type"], r["event"].get("unit"), r["event"].get("count")) for r in log] == [
        ("phase_started", None, None),
        ("casualties_suffered", "kraak", 2),
    ]
    left = page.evaluate(f"JSON.parse(localStorage.getItem('morale.outbox.{BATTLE}'))")
    assert left == {"queue": [], "held": []}
    context.close()
    assert errors == []


def test_a_write_whose_answer_was_lost_is_found_in_the_log_and_not_sent_twice(browser, served):
    server, http = served
    tokens = http.post("/battles", json=creation_body()).json()["tokens"]
    context, page, errors = open_console(browser, server.url, BATTLE, tokens["referee"], PHONE)
    console = Console(page, wide=False)
    console.play({"type": "phase_started"})
    lost = []

    def reach_the_server_then_lose_the_answer(route) -> None:
        if route.request.method == "POST" and not lost:
            lost.append(route.fetch().status)  # the server writes it...
            route.abort("connectionreset")  # ...and the answer never reaches the page
        else:
            route.continue_()

    page.route(EVENTS_URL, reach_the_server_then_lose_the_answer)
    console.casualties("kraak", 3)
    page.wait_for_selector("#notice:has-text('it had reached the log as event 11')", timeout=WAIT_MS)
    console.recorded(11)
    assert lost == [201] and page.locator("#unsent").is_hidden()
    log = http.get(f"/battles/{BATTLE}/log?after=10", headers=bearer(tokens["spectator"])).json()
    assert [r["type"] for r in log] == ["casualties_suffered"]
    context.close()
    assert errors == []


def test_a_write_and_another_phones_are_each_read_back_once(browser, served):
    """A write brings its answer and its feed item: the page reads the board once for the two, and
    once for an event another phone recorded (twice or more a write before, a league's cost)."""
    server, http = served
    tokens = http.post("/battles", json=creation_body()).json()["tokens"]
    context, page, errors = open_console(browser, server.url, BATTLE, tokens["referee"], PHONE)
    console = Console(page, wide=False)
    console.play({"type": "phase_started"})
    page.wait_for_selector("body[data-last-feed-seq='10']", timeout=WAIT_MS)
    reads: list[str] = []
    page.on("request", lambda r: reads.append(r.url) if re.search(r"/board(\?|$)", r.url) else None)
    console.casualties("kraak", 2)
    console.recorded(11)
    page.wait_for_selector("body[data-last-feed-seq='11']", timeout=WAIT_MS)
    elsewhere = {"expected_seq": 11, "events": [{"type": "casualties_suffered", "unit": "boyz", "count": 1}]}
    assert http.post(f"/battles/{BATTLE}/events", json=elsewhere, headers=bearer(tokens["referee"])).status_code == 201
    console.recorded(12)
    page.wait_for_selector("body[data-last-feed-seq='12']", timeout=WAIT_MS)
    page.wait_for_timeout(300)  # a second read of either would be on its way by now
    assert len(reads) == 2, reads
    context.close()
    assert errors == []


def test_the_api_description_is_drawn_with_no_other_site_to_reach(browser, served):
    """/schema draws the OpenAPI description with the Redoc the server ships: with every other
    site out of reach, the operations are there to read."""
    server, _ = served
    context = browser.new_context(viewport=DESKTOP)
    elsewhere: list[str] = []

    def only_this_server(route) -> None:
        url = route.request.url
        if url.startswith((server.url, "blob:", "data:")):
            route.continue_()
        else:
            elsewhere.append(url)
            route.abort()

    context.route("**/*", only_this_server)
    page = context.new_page()
    page.goto(f"{server.url}/schema")
    page.get_by_text("/battles/{battle}/next-phase").first.wait_for(timeout=WAIT_MS)
    assert "morale" in page.locator("h1").first.inner_text()
    screenshot(page, "schema")
    context.close()
    assert [url for url in elsewhere if "logo" not in url] == []


def test_why_shows_a_sweeping_advance_as_two_opposed_rolls(browser, served):
    """Kraak's Guardsmen lose a combat, fail Morale and escape the Sweeping Advance (5 + Initiative 3
    against 2 + Initiative 2): Why? says each side's roll, not a sum of the two dice, and no target."""
    server, http = served
    body = roster_body("wh40k6")
    battle, events = body["battle"], example_lines("wh40k6")
    swept = next(i for i, e in enumerate(events) if e.get("test") == "sweeping_advance")
    tokens = http.post("/battles", json=body).json()["tokens"]
    for start in range(0, swept + 1, 40):
        post_events(http, battle, tokens["referee"], events[start : min(start + 40, swept + 1)])
    context, page, errors = open_console(browser, server.url, battle, tokens["referee"], PHONE)
    console = Console(page, wide=False)

    shown = console.why("kraak", "falling_back")

    assert "loser 5 + initiative 3 = 8 against winners 2 + initiative 2 = 4" in shown
    assert "5 + 2 = 8" not in shown and "Target 4 or less" not in shown
    assert errors == []
    context.close()
