"""Starting a battle from the console, on a 390x844 phone, as whoever may create battles on the
server does it: from "Open a battle", "Start a new battle", then a roster file chosen in the file
input (a shipped example) or the short form filled in, and the page lands on the new battle's board
as its referee, the other roles' tokens shown once. A roster the server refuses is said in the
server's words, naming the line or the field, and nothing is written; a server started with a
creation token asks for it. Each screen fits the phone and has no serious axe-core violation."""

from __future__ import annotations

import json
import tomllib

import httpx
import pytest
from support.browser import PHONE, WAIT_MS, layout_problems, screenshot, serious_violations
from support.cli import morale
from support.served import ROOT, ROSTER, WAIT_S, LiveServer, bearer

from morale.app.http.server import Settings, create_app
from morale.events.store import SqliteEventStore

ROSTER_UNITS = tomllib.loads(ROSTER.read_text(encoding="utf-8"))["unit"]


def serve(tmp_path, **settings):
    app = create_app(tmp_path / "created.db", Settings(poll_s=0.05, heartbeat_s=1, **settings))
    return LiveServer(app), tmp_path / "created.db"


def events_of(db, battle: str) -> list[dict]:
    """A battle's events as stored, but for the commitment to its own fresh dice secret."""
    store = SqliteEventStore(db)
    try:
        started, *joined = (json.loads(row.body)["event"] for row in store.raw_rows(battle))
        return [started | {"dice_commitment": ""}, *joined]
    finally:
        store.close()


def battles_in(db) -> list[str]:
    store = SqliteEventStore(db)
    try:
        return store.battles()
    finally:
        store.close()


@pytest.fixture
def served(tmp_path):
    server, db = serve(tmp_path)
    with server:
        yield server, db


@pytest.fixture
def phone(browser):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, errors


def checked(page, name: str) -> None:
    """What a person would notice on the screen as it stands: a photograph, the layout, axe-core."""
    screenshot(page, f"create-{name}")
    problems = layout_problems(page) + serious_violations(page)
    assert not problems, problems


def start_new(page, url: str, how: str) -> None:
    """From the page with no battle in its address: "Start a new battle", then how to give the roster."""
    page.goto(f"{url}/view")
    page.locator("#connect").wait_for(timeout=WAIT_MS)
    page.get_by_role("button", name="Start a new battle").click()
    page.get_by_role("button", name={"upload": "Upload a roster file", "form": "Fill in a form"}[how]).click()


def upload(page, roster) -> None:
    page.locator("#create input[name=roster-file]").set_input_files(str(roster))
    page.locator("#create button.submit").click()


def landed(page, battle: str) -> None:
    """The new battle's console is open, with the referee's token (or the refusal the page shows)."""
    try:
        page.wait_for_selector("body[data-ready='true'][data-logged='true'][data-role='referee']", timeout=WAIT_MS)
    except Exception:
        refused = page.locator("#create .problem")
        raise AssertionError(refused.inner_text() if refused.count() else "the page did not open the battle") from None
    assert f"battle={battle}" in page.evaluate("location.hash")


def board_names(page) -> list[str]:
    return [card.locator("h3").inner_text() for card in page.locator("#board .unit").all()]


def shown_problem(page) -> str:
    box = page.locator("#create .problem")
    box.wait_for(timeout=WAIT_MS)
    return box.inner_text()


def test_an_uploaded_roster_file_starts_the_battle_and_lands_on_its_board(browser, served, phone):
    server, _ = served
    start_new(phone, server.url, "upload")
    checked(phone, "upload")
    upload(phone, ROSTER)
    landed(phone, "hive-tarsis")
    assert phone.locator("#title").inner_text() == "Skirmish at the Hive Tarsis refinery"
    assert sorted(board_names(phone)) == sorted(unit["name"] for unit in ROSTER_UNITS)
    # The other roles' tokens, shown once: each one the server gave opens the battle in its role.
    tokens = phone.locator("#created")
    assert "shown only now" in tokens.inner_text()
    checked(phone, "landed")
    with httpx.Client(base_url=server.url, timeout=WAIT_S) as http:
        for role in ("player:imperium", "player:orks", "spectator"):
            token = tokens.locator(f"li[data-role='{role}'] code").inner_text()
            opened = http.get("/battles", headers=bearer(token)).json()
            assert [(b["battle"], b["role"]) for b in opened] == [("hive-tarsis", role.split(":")[0])]
    tokens.get_by_role("button", name="I have noted them").click()
    assert not tokens.count()
    phone.reload()  # shown once: noted, they are not shown again
    phone.wait_for_selector("body[data-ready='true']", timeout=WAIT_MS)
    assert not phone.locator("#created").count()


def test_the_short_form_starts_a_battle_of_the_chosen_rules_with_its_units(browser, served, phone, tmp_path):
    server, db = served
    start_new(phone, server.url, "form")
    phone.get_by_role("button", name="General de Brigade").click()
    form = phone.locator("#create form.battle-form[data-ruleset='gdb']")
    form.wait_for(timeout=WAIT_MS)
    form.get_by_label("Battle id", exact=True).fill("ligny")
    form.get_by_label("Title", exact=True).fill("Ligny, the mill")
    form.get_by_label("First side (takes the first turn)", exact=True).fill("french")
    form.get_by_label("Second side", exact=True).fill("prussians")
    form.get_by_role("button", name="Add a unit").click()
    form.get_by_role("button", name="Add a unit").click()
    rows = form.locator(".unit-row")
    assert rows.count() == 3
    rows.nth(2).get_by_role("button", name="Remove this unit").click()  # one too many
    assert rows.count() == 2
    for row, (unit, name, side, models, formation) in zip(
        rows.all(),
        [("guard", "Old Guard grenadiers", "french", "18", "column"), ("pr1", "1st Pomeranian", "prussians", "24", "")],
        strict=True,
    ):
        row.get_by_label("Id", exact=True).fill(unit)
        row.get_by_label("Name", exact=True).fill(name)
        row.get_by_label("Side", exact=True).select_option(side)
        row.get_by_label("Models", exact=True).fill(models)
        if formation:
            row.get_by_label("formation", exact=True).select_option(formation)
            row.get_by_label("quality", exact=True).select_option("guard")
    checked(phone, "form")
    # The form kept as the roster file it sends: `morale new` starts the same battle from it.
    with phone.expect_download() as saving:
        form.get_by_role("button", name="Save it as a roster file").click()
    assert saving.value.suggested_filename == "ligny.toml"
    saved = tmp_path / "ligny.toml"
    saving.value.save_as(saved)
    form.get_by_role("button", name="Start the battle").click()
    landed(phone, "ligny")
    assert morale(tmp_path / "cli.db", "new", str(saved)).exit_code == 0
    assert events_of(tmp_path / "cli.db", "ligny") == events_of(db, "ligny")
    assert phone.locator("#title").inner_text() == "Ligny, the mill"
    assert sorted(board_names(phone)) == ["1st Pomeranian", "Old Guard grenadiers"]
    guard = phone.locator("#board .team[data-side='french'] .unit[data-unit='guard']")
    assert "18/18 models" in guard.locator(".meta").inner_text()
    assert guard.locator("[data-field='formation'] dd").inner_text() == "column"
    assert guard.locator("[data-field='quality'] dd").inner_text() == "guard"
    assert phone.locator("#board .team[data-side='prussians'] .unit[data-unit='pr1']").count() == 1


def test_the_short_form_starts_a_battle_whose_players_confirm_each_others_entries(browser, served, phone):
    server, db = served
    start_new(phone, server.url, "form")
    phone.get_by_role("button", name="General de Brigade").click()
    form = phone.locator("#create form.battle-form[data-ruleset='gdb']")
    form.wait_for(timeout=WAIT_MS)
    form.get_by_label("Battle id", exact=True).fill("plancenoit")
    form.get_by_label("First side (takes the first turn)", exact=True).fill("french")
    form.get_by_label("Second side", exact=True).fill("prussians")
    form.get_by_role("button", name="Add a unit").click()
    for row, (unit, side) in zip(
        form.locator(".unit-row").all(), [("guard", "french"), ("pr1", "prussians")], strict=True
    ):
        row.get_by_label("Id", exact=True).fill(unit)
        row.get_by_label("Name", exact=True).fill(unit)
        row.get_by_label("Side", exact=True).select_option(side)
        row.get_by_label("Models", exact=True).fill("12")
    asked = form.locator("fieldset[data-name='confirmation']")
    assert "Players confirm each other's entries (no referee)" in asked.inner_text()
    assert asked.locator("button[data-value='false']").get_attribute("aria-pressed") == "true"  # off by default
    asked.locator("button[data-value='true']").click()
    checked(phone, "form-confirmation")
    form.get_by_role("button", name="Start the battle").click()
    landed(phone, "plancenoit")
    assert events_of(db, "plancenoit")[0]["confirmation"] is True
    assert phone.locator("#tab-disputes").is_visible()  # the battle has a Disputes screen


def test_a_refused_roster_file_is_said_in_the_servers_words_and_writes_nothing(browser, served, phone, tmp_path):
    server, db = served
    broken = tmp_path / "broken.toml"
    broken.write_text(ROSTER.read_text(encoding="utf-8").replace("models = 5\n", "models = = 5\n", 1))
    start_new(phone, server.url, "upload")
    upload(phone, broken)
    said = shown_problem(phone)
    assert "broken.toml: not valid TOML" in said and "line 17, column 10" in said
    checked(phone, "refused")
    assert battles_in(db) == []
    # A file that is not text is refused as the CLI refuses it, before anything is sent.
    broken.write_bytes(b"\xff\xfe\x00[battle]")
    upload(phone, broken)
    phone.wait_for_function(
        "() => document.querySelector('#create .problem').innerText.includes('broken.toml: not UTF-8 text')",
        timeout=WAIT_MS,
    )
    assert phone.locator("#create input[name=roster-file]").get_attribute("aria-invalid") == "true"
    assert battles_in(db) == []
    # Mended, the same file starts the battle.
    broken.write_text(ROSTER.read_text(encoding="utf-8"))
    upload(phone, broken)
    landed(phone, "hive-tarsis")


def test_a_refused_form_names_the_field_and_marks_it(browser, served, phone):
    server, db = served
    start_new(phone, server.url, "form")
    phone.get_by_role("button", name="Warhammer 40,000 6th edition").click()
    form = phone.locator("#create form.battle-form[data-ruleset='wh40k6']")
    form.wait_for(timeout=WAIT_MS)
    form.get_by_label("Battle id", exact=True).fill("kill-team")
    form.get_by_label("First side (takes the first turn)", exact=True).fill("imperium")
    form.get_by_label("Second side", exact=True).fill("orks")
    row = form.locator(".unit-row").first
    row.get_by_label("Id", exact=True).fill("scouts")
    row.get_by_label("Name", exact=True).fill("Scout Squad Telion")
    row.get_by_label("Leadership", exact=True).fill("8")  # the models left out
    form.get_by_role("button", name="Start the battle").click()
    said = shown_problem(phone)
    assert "unit[0]: models: missing" in said and "field: unit[0].models" in said
    assert row.get_by_label("Models", exact=True).get_attribute("aria-invalid") == "true"
    assert battles_in(db) == []
    row.get_by_label("Models", exact=True).fill("5")
    form.get_by_role("button", name="Start the battle").click()
    # Read, the roster is one the rules refuse: said of the unit's field, not of "event 2 of 2".
    phone.wait_for_function(
        "() => document.querySelector('#create .problem').innerText.includes('Sweeping Advances')", timeout=WAIT_MS
    )
    assert "field: unit[0].initiative" in shown_problem(phone)
    assert row.get_by_label("Initiative", exact=True).get_attribute("aria-invalid") == "true"
    assert row.get_by_label("Models", exact=True).get_attribute("aria-invalid") is None
    assert battles_in(db) == []
    row.get_by_label("Initiative", exact=True).fill("4")
    form.get_by_role("button", name="Start the battle").click()
    landed(phone, "kill-team")
    assert board_names(phone) == ["Scout Squad Telion"]
    assert "5/5 models" in phone.locator("#board .unit[data-unit='scouts'] .meta").inner_text()


def test_a_server_with_a_creation_token_asks_for_it(browser, tmp_path, phone):
    server, db = serve(tmp_path, create_token="let-me-in")
    with server:
        start_new(phone, server.url, "upload")
        token = phone.get_by_label("This server's creation token", exact=True)
        assert not token.is_visible()  # nothing asked before the server asks
        upload(phone, ROOT / "examples" / "wfb8" / "roster.toml")
        assert "this server needs its creation token to create a battle" in shown_problem(phone)
        assert token.is_visible()
        checked(phone, "token")
        token.fill("guess")
        phone.locator("#create button.submit").click()
        phone.wait_for_function(
            "() => document.querySelector('#create .problem').innerText.includes(\"not the server's creation token\")",
            timeout=WAIT_MS,
        )
        assert battles_in(db) == []
        token.fill("let-me-in")
        phone.locator("#create button.submit").click()
        landed(phone, "grunburg-bridge")
        assert len(board_names(phone)) == len(tomllib.loads((ROOT / "examples/wfb8/roster.toml").read_text())["unit"])


def test_the_screen_a_link_names_is_the_one_opened_and_an_unknown_one_is_the_board(browser, served, phone):
    """The landing names the Share screen (`tab=share`); where the page has no such screen, the board."""
    server, _ = served
    with httpx.Client(base_url=server.url, timeout=WAIT_S) as http:
        created = http.post("/battles/roster", json={"roster": ROSTER.read_text(encoding="utf-8")}).json()
    referee = created["tokens"]["referee"]
    phone.goto(f"{server.url}/view#battle=hive-tarsis&token={referee}&tab=log")
    phone.wait_for_selector("body[data-ready='true'][data-tab='log']", timeout=WAIT_MS)
    assert phone.locator("#log").is_visible()
    phone.goto(f"{server.url}/view#battle=hive-tarsis&token={referee}&tab=nonesuch")
    phone.reload()  # the same page, another fragment: read afresh
    phone.wait_for_selector("body[data-ready='true'][data-tab='board']", timeout=WAIT_MS)
    assert phone.locator("#board .unit").count() == len(ROSTER_UNITS)


# -- a list builder's roster -----------------------------------------------------------------------
LISTED = ROOT / "examples" / "wfb8" / "roster.rosz"


def test_a_list_builders_roster_asks_what_it_cannot_say_then_starts_the_battle(browser, served, phone):
    server, db = served
    start_new(phone, server.url, "upload")
    upload(phone, LISTED)
    questions = phone.locator("#create form.questions")
    questions.wait_for(timeout=WAIT_MS)
    assert "5 questions" in questions.locator("h3").inner_text()
    assert battles_in(db) == []  # nothing is written until every answer is in
    checked(phone, "questions")
    animosity = questions.get_by_label("What is the rule 'Animosity' in wfb8?", exact=False)
    assert "Orc Boyz, Night Goblins" in questions.inner_text()
    for select in questions.locator("select").all():
        select.select_option("false")  # none of them changes morale
    animosity.select_option("false")
    questions.get_by_role("button", name="Answer and start the battle").click()
    landed(phone, "the-fight-at-the-grunburg-bridge")  # the id made from the roster's name
    typed = tomllib.loads((ROOT / "examples" / "wfb8" / "roster.toml").read_text(encoding="utf-8"))["unit"]
    assert sorted(board_names(phone)) == sorted(unit["name"] for unit in typed)


def test_a_list_builders_roster_with_its_answers_file_starts_at_once(browser, served, phone):
    server, db = served
    start_new(phone, server.url, "upload")
    phone.locator("#create input[name=roster-file]").set_input_files(str(LISTED))
    phone.locator("#create input[name=answers-file]").set_input_files(str(LISTED.with_name("answers.toml")))
    phone.locator("#create button.submit").click()
    landed(phone, "grunburg-bridge")
    assert battles_in(db) == ["grunburg-bridge"]
