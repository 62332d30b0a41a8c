"""The console, the overlays and the HTTP app in Russian as well as English (issue 31): the console's
own words through its catalogue (app/http/static/messages.ru.po, compiled to messages.ru.json), a
switch kept per device, every request asking for the reader's language (Accept-Language from
fetch, ?lang= for the feed an EventSource opens), an overlay in the language of its address, and
the server's own refusals said in the language asked for, the feed encoded once per language.

The browser test plays the start of the 40K example's first turn in the Russian console on a phone
(390x844), as test_console.py plays a whole one, photographs each screen into screenshots/ and
checks that no sentence of the console's own catalogue is left on screen in English."""

from __future__ import annotations

import json
import re

import httpx
import msgspec
import pytest
from babel.messages.pofile import read_po
from support.browser import PHONE, WAIT_MS, layout_problems, screenshot, serious_violations
from support.console import Console
from support.served import BATTLE, ROOT, WAIT_S, LiveServer, bearer, creation_body, example_lines, roster_body

from morale.app import language
from morale.app.http import offline
from morale.app.http.live import NDJSON, SSE, Published
from morale.app.http.server import Settings, create_app
from morale.core.words import Words
from morale.events.store import SqliteEventStore
from morale.projections.feed import encode_item, feed

STATIC = ROOT / "app" / "http" / "static"
CATALOGUE = STATIC / "messages.ru.po"
EXAMPLE = "wh40k6"


@pytest.fixture
def served(tmp_path):
    app = create_app(tmp_path / "language.db", Settings(poll_s=0.05, heartbeat_s=1))
    with LiveServer(app) as server, httpx.Client(base_url=server.url, timeout=WAIT_S) as http:
        yield server, http


# -- the console's catalogue ----------------------------------------------------------------------
def english_templates() -> list[tuple[str, re.Pattern[str]]]:
    """Each English sentence of the console's catalogue whose Russian differs, as a pattern a text
    on the page would match in full if it were left in English (a placeholder matches anything)."""
    with CATALOGUE.open("rb") as fp:
        book = read_po(fp, locale="ru")
    found = []
    for message in book:
        if not message.id:
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        said = [message.string] if isinstance(message.string, str) else list(message.string)
        for english in ids:
            words = re.sub(r"[^A-Za-z]", "", re.sub(r"\{\w+\}", "", english))
            if english in said or not words or ("{" in english and len(words) < 4):
                # said alike in both ("{dice}D6", "Ld {ld}"), no word at all, or too few letters
                # beside its placeholders to tell it from a name ("{min} to {max}": "immune to morale")
                continue
            parts = re.split(r"\{\w+\}", english.strip())
            found.append((english, re.compile(r"(.+?)".join(re.escape(p) for p in parts), re.DOTALL)))
    return found


def test_the_console_speaks_the_languages_the_app_does_each_named_in_its_own_words():
    script = (STATIC / "js" / "i18n.js").read_text()
    languages = json.loads(re.search(r"export const LANGUAGES = (\[.*?\]);", script).group(1))
    names = re.search(r"export const NAMES = \{(.*?)\};", script).group(1)
    assert tuple(languages) == language.LANGUAGES
    assert dict(re.findall(r'(\w+): "([^"]+)"', names)) == language.NAMES


def test_the_catalogue_the_console_reads_is_kept_for_a_phone_without_the_network(served):
    _, http = served
    assert offline.shell_files()["/static/messages.ru.json"] == STATIC / "messages.ru.json"
    assert '"/static/messages.ru.json"' in http.get("/sw.js").text
    served_json = http.get("/static/messages.ru.json")
    assert served_json.status_code == 200
    body = served_json.json()
    assert body["language"] == "ru" and body["plural"] == ["one", "few", "many"]
    # 1 модель, 2 модели, 5 моделей: the forms in the order Intl.PluralRules' categories are listed
    assert body["messages"]["{models}/{n} models"] == [
        "{models}/{n} модель",
        "{models}/{n} модели",
        "{models}/{n} моделей",
    ]
    assert body["messages"]["Roll the test due first"] == "Сначала бросьте предстоящий тест"


# -- the server's words, in the language asked for --------------------------------------------------
def started(http) -> dict:
    tokens = http.post("/battles", json=creation_body()).json()["tokens"]
    return tokens


def test_a_refusal_is_said_in_the_language_the_request_asks_for_and_in_english_as_before(served):
    _, http = served
    tokens = started(http)
    last = http.get(f"/battles/{BATTLE}/board", headers=bearer(tokens["spectator"])).json()["seq"]
    point = f"/battles/{BATTLE}/board?at=999"

    english = http.get(point, headers=bearer(tokens["spectator"]))
    russian = http.get(f"{point}&lang=ru", headers=bearer(tokens["spectator"]))
    accepted = http.get(point, headers={**bearer(tokens["spectator"]), "Accept-Language": "ru-RU,ru;q=0.9"})

    assert english.status_code == russian.status_code == 422
    assert english.json()["detail"] == f"point: there is no event 999 (the log runs from 1 to {last})"
    assert russian.json()["detail"] == f"point: события 999 нет (журнал идёт с 1 по {last})"
    assert russian.json()["title"] == "Правила этого не допускают"
    assert accepted.json()["detail"] == russian.json()["detail"]
    assert (russian.json()["type"], russian.json()["field"]) == (english.json()["type"], english.json()["field"])

    spectator_writes = http.post(
        f"/battles/{BATTLE}/events?lang=ru",
        json={"expected_seq": last, "events": [{"type": "phase_started"}]},
        headers=bearer(tokens["spectator"]),
    )
    assert spectator_writes.status_code == 403
    assert spectator_writes.json()["detail"] == "токен зрителя читает битву и следит за ней; он ничего не записывает"
    no_token = http.get(f"/battles/{BATTLE}/board", headers={"Accept-Language": "ru"})
    assert no_token.json()["detail"] == "нужен токен: Authorization: Bearer TOKEN (или ?token=TOKEN)"


def test_the_feed_refuses_a_resume_point_in_the_followers_language(served):
    _, http = served
    tokens = started(http)
    token = tokens["spectator"]
    last = http.get(f"/battles/{BATTLE}/board", headers=bearer(token)).json()["seq"]

    russian = http.get(f"/battles/{BATTLE}/feed?after=999&token={token}&lang=ru")
    english = http.get(f"/battles/{BATTLE}/feed?after=999&token={token}")

    assert russian.status_code == english.status_code == 422
    assert russian.json()["detail"] == f"after: в журнале события с 1 по {last}; продолжить после 999 нельзя"
    assert english.json()["detail"] == f"after: the log holds events 1 to {last}; cannot resume after 999"
    exported = http.get(f"/battles/{BATTLE}/feed.ndjson?follow=false&lang=ru", headers=bearer(token))
    assert exported.status_code == 200 and len(exported.text.splitlines()) == last
    unknown = http.get(f"/battles/{BATTLE}/feed?token={token}&lang=fr")
    assert unknown.status_code == 400 and unknown.json()["field"] == "lang"


def test_an_overlay_address_is_refused_in_the_language_it_asks_for(served):
    _, http = served
    refused = http.get("/overlay/banner?size=huge&lang=ru")
    assert refused.status_code == 400
    assert refused.json()["detail"] == "size: 'huge' — не размер; размеры: small, medium, large"
    assert http.get("/overlay/banner?size=huge").json()["detail"] == (
        "size: 'huge' is not a size; the sizes are small, medium, large"
    )
    assert http.get("/overlay/banner?lang=ru").status_code == 200


def test_a_cross_origin_refusal_is_said_in_the_browsers_language(served):
    _, http = served
    asked = {"Origin": "https://elsewhere.example", "Access-Control-Request-Method": "GET", "Accept-Language": "ru"}
    refused = http.options(f"/battles/{BATTLE}/board", headers=asked)
    assert refused.status_code == 403
    assert refused.json()["title"] == "Этому веб-источнику нельзя обращаться к серверу"
    assert refused.json()["detail"].startswith("Origin: https://elsewhere.example не разрешено обращаться")


def test_a_feed_item_is_encoded_once_for_each_language_its_followers_read(served, tmp_path):
    """The feed's words (a story line said as `Words`) in each follower's language; one encoding per
    language however many followers read it, and an item without words the same bytes as before."""
    _, http = served
    started(http)
    store = SqliteEventStore(tmp_path / "language.db")
    item = next(iter(feed(BATTLE, store.read(BATTLE))))
    line = msgspec.structs.replace(item.story[0], text=Words("Not Found"))
    published = Published(msgspec.structs.replace(item, story=(line,)))

    russian = published.json_in("ru")
    assert '"text":"Не найдено"'.encode() in russian
    assert b'"text":"Not Found"' in published.json_in("en") and published.json == published.json_in("en")
    assert published.json_in("ru") is russian  # encoded once, written to every follower reading Russian
    messages = SSE.encode(published, "ru").split(b"\n\n")[:-1]
    assert messages and all(message.endswith(b"data: " + russian) for message in messages)
    assert NDJSON.encode(published, "ru") == russian + b"\n"
    plain = Published(item)
    assert plain.json_in("en") == encode_item(item)  # in English: the bytes the feed always sent


# -- the console in a browser ---------------------------------------------------------------------
PAGE_TEXTS = """() => {
  const texts = [document.title];
  const shown = (e) => {
    if (e.closest("[hidden]") || (e.closest("details:not([open])") && !e.closest("summary"))) return false;
    const r = e.getBoundingClientRect();
    return (r.width > 0 && r.height > 0) || e.closest(".visually-hidden") !== null;
  };
  for (const e of document.body.querySelectorAll("*")) {
    if (!shown(e)) continue;
    for (const node of e.childNodes) {
      if (node.nodeType === Node.TEXT_NODE && node.textContent.trim()) texts.push(node.textContent.trim());
    }
    for (const name of ["aria-label", "title", "placeholder"]) {
      if (e.getAttribute(name)) texts.push(e.getAttribute(name));
    }
    if (e.tagName === "OPTION" && e.parentElement.id !== "language") texts.push(e.textContent.trim());
  }
  return texts;
}"""


def server_words(http, battle: str, token: str, units: list[str]) -> list[str]:
    """Every string the server gave the page (what it says in its own words, in the language asked
    for, the feed's items too): the console and the overlays show these as they come, so they are no
    part of their catalogue."""
    headers = {**bearer(token), "Accept-Language": "ru"}
    paths = ["vocabulary", "board", "due", "log", "timeline", *(f"explain/{unit}" for unit in units)]
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for inner in value.values():
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    for path in paths:
        walk(http.get(f"/battles/{battle}/{path}", headers=headers).json())
    exported = http.get(f"/battles/{battle}/feed.ndjson?follow=false", headers=headers).text  # the story's lines
    for line in exported.splitlines():
        walk(json.loads(line))
    return found


def english_left(page, said: list[str]) -> list[str]:
    """The texts on screen (and those a screen reader hears) that are a sentence of the console's
    catalogue still in English; a text the server gave is the server's to say."""
    templates = english_templates()
    left = []
    for text in page.evaluate(PAGE_TEXTS):
        if any(text in words for words in said):
            continue
        left += [f"{text!r} (msgid {english!r})" for english, pattern in templates if pattern.fullmatch(text)]
    return left


class RussianScreens:
    """Each screen photographed, and checked as a person would: it fits, a screen reader can use it,
    and nothing of the console's own is left in English."""

    def __init__(self, page, http, battle: str, token: str, units: list[str]) -> None:
        self.page, self.http, self.battle, self.token, self.units = page, http, battle, token, units
        self.problems: list[str] = []

    def check(self, name: str) -> None:
        screenshot(self.page, f"ru-{EXAMPLE}-referee-{name}")
        said = server_words(self.http, self.battle, self.token, self.units)
        self.problems += [f"{name}: {p}" for p in layout_problems(self.page)]
        self.problems += [f"{name}: {v}" for v in serious_violations(self.page)]
        self.problems += [f"{name}: English left: {t}" for t in english_left(self.page, said)]


def open_english_console(browser, url: str, battle: str, token: str):
    """A phone whose browser speaks English: the console opens in English, as it always has."""
    context = browser.new_context(viewport=PHONE, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{url}/view#battle={battle}&token={token}")
    page.wait_for_selector("body[data-ready='true'][data-logged='true']", timeout=WAIT_MS)
    return context, page, errors


def ready_in(page, lang: str) -> None:
    page.wait_for_selector(f"html[lang='{lang}'] body[data-ready='true'][data-logged='true']", timeout=WAIT_MS)


def test_the_console_switched_to_russian_plays_a_turn_in_russian_and_keeps_the_choice(browser, served):
    server, http = served
    body = roster_body(EXAMPLE)
    battle, units = body["battle"], [u["unit"] for u in body["units"]]
    tokens = http.post("/battles", json=body).json()["tokens"]
    context, page, errors = open_english_console(browser, server.url, battle, tokens["referee"])
    assert page.locator("#tab-board").inner_text() == "Board" and page.locator("html").get_attribute("lang") == "en"
    console = Console(page, wide=False)
    console.tab("log")  # the switch: at the head of the Log, which every role has
    assert page.locator("#language").input_value() == "en"
    assert page.locator("#language option").all_inner_texts() == ["English", "Русский"]

    page.locator("#language").select_option("ru")  # the page opens again in Russian, where it was
    ready_in(page, "ru")
    assert page.locator("body").get_attribute("data-tab") == "log"  # where it was
    console.tab("board")
    screens = RussianScreens(page, http, battle, tokens["referee"], units)
    assert page.locator("#tab-board").inner_text() == "Табло"
    assert page.locator("#clock").inner_text() == "до первого хода"
    assert page.title().endswith(" · morale · консоль судьи")
    screens.check("board")

    # The start of the first turn, as test_console.py plays it: the clock, the shooting's casualties,
    # the Morale and Fall Back tests they bring, their dice typed on the Tests due screen.
    turn = example_lines(EXAMPLE)[:13]
    shown_due = False
    for event in turn:
        if event["type"] == "dice_rolled" and not shown_due:
            console.tab("due")
            assert page.locator("#due h2").inner_text().startswith("Предстоящие тесты")
            screens.check("due")
            shown_due = True
        console.play(event)
    assert console.changes, "a roll of the turn changed a unit's state on its card"
    notice = page.locator("#notice").inner_text()
    assert "Записано:" in notice or "проход" in notice or "провал" in notice
    console.tab("board")
    screens.check("board-played")

    seq, unit, _ = console.changes[0]
    shown = console.why(unit, console.state_of(unit))
    assert "Причина теста" in shown and "Кубики" in shown and "Результат" in shown and "Назад к табло" in shown
    screens.check("why")
    console.tab("log")
    assert page.locator("#log h2").inner_text() == "Журнал"
    screens.check("log")
    console.form("casualties")
    assert "Какое подразделение потеряло модели?" in page.locator("#record").inner_text()
    screens.check("record")
    console.go_to(seq - 1)
    assert f"Как было после события {seq - 1} из" in page.locator("#past").inner_text()
    screens.check("past")

    # Kept on this device: the page reloaded, and another page opened later, speak Russian.
    page.reload()
    ready_in(page, "ru")
    assert page.locator("#tab-log").inner_text() == "Журнал"
    console.tab("log")
    assert page.locator("#language").input_value() == "ru"
    other = context.new_page()
    other.goto(f"{server.url}/view#battle={battle}")
    ready_in(other, "ru")
    other.close()

    # Back to English: every word as it was.
    console.tab("log")
    page.locator("#language").select_option("en")
    ready_in(page, "en")
    assert page.locator("#tab-board").inner_text() == "Board"
    assert page.locator("#clock").inner_text().startswith("Turn 1 · imperium · ")
    context.close()
    assert errors == []
    assert screens.problems == []


def test_a_browser_that_prefers_russian_opens_the_console_in_russian(browser, served):
    server, http = served
    tokens = started(http)
    context = browser.new_context(viewport=PHONE, locale="ru-RU")
    page = context.new_page()
    page.goto(f"{server.url}/view#battle={BATTLE}&token={tokens['spectator']}")
    ready_in(page, "ru")
    assert page.locator("#role").inner_text() == "Зритель"
    page.locator("#tab-log").click()
    assert page.locator("#language").input_value() == "ru"
    assert (
        "Токен зрителя позволяет читать битву и следить за ней." in page.locator("#record").inner_text(timeout=WAIT_MS)
        or page.locator("#tab-record").is_hidden()
    )
    context.close()


def test_a_russian_battle_opens_in_russian_in_an_english_browser_until_its_reader_chooses(browser, served):
    """A battle whose roster says `language = "ru"` (issue 31 item 3): the console on a phone whose
    browser speaks English opens it in Russian, page and server alike; English chosen on the switch
    is kept on the device and wins over the battle's; an overlay whose address names no language
    speaks the battle's too."""
    server, http = served
    body = creation_body()
    body["started"]["language"] = "ru"
    tokens = http.post("/battles", json=body).json()["tokens"]
    context = browser.new_context(viewport=PHONE, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server.url}/view#battle={BATTLE}&token={tokens['spectator']}")
    ready_in(page, "ru")
    assert page.locator("#role").inner_text() == "Зритель"
    assert page.locator("#tab-board").inner_text() != "Board"
    assert "в строю" in page.locator("#board").inner_text()
    # A special rule as the story names it: its clause's Russian title, not its id in English words.
    assert "immune to morale" not in page.locator("#board").inner_text()
    page.locator("#tab-log").click()
    assert page.locator("#language").input_value() == "ru"
    page.locator("#language").select_option("en")  # chosen here: kept, and it wins over the battle's
    ready_in(page, "en")
    assert page.locator("#tab-board").inner_text() == "Board"
    assert "steady" in page.locator("#board").inner_text()
    assert "immune to morale" in page.locator("#board").inner_text()
    page.reload()
    ready_in(page, "en")
    overlay = context.new_page()
    overlay.on("pageerror", lambda error: errors.append(str(error)))
    overlay.goto(f"{server.url}/overlay/strip#battle={BATTLE}&token={tokens['spectator']}")
    overlay.wait_for_selector("html[lang='ru'] #strip[data-at]", timeout=WAIT_MS)
    context.close()
    assert errors == []


# -- an overlay in the language of its address -----------------------------------------------------
def test_an_overlay_with_lang_ru_says_its_own_words_in_russian(browser, served):
    server, http = served
    tokens = started(http)
    referee = bearer(tokens["referee"])
    seq = http.get(f"/battles/{BATTLE}/board", headers=referee).json()["seq"]
    events = example_lines(EXAMPLE)[:9]  # through the end of the shooting phase: Morale tests due
    posted = http.post(f"/battles/{BATTLE}/events", json={"expected_seq": seq, "events": events}, headers=referee)
    assert posted.status_code == 201, posted.text
    last = seq + len(events)
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-US")
    errors: list[str] = []
    shown = {}
    for name in ("banner", "strip"):
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{server.url}/overlay/{name}?lang=ru#battle={BATTLE}&token={tokens['spectator']}")
        page.wait_for_selector(f"html[lang='ru'] body[data-seq='{last}']", timeout=WAIT_MS)
        shown[name] = page
    banner = shown["banner"].locator("#due").inner_text()
    assert "предстоит" in banner and "2D6, проходит при" in banner
    strip = shown["strip"]
    strip.wait_for_selector(f"#strip[data-at='{last}']", timeout=WAIT_MS)
    assert re.match(r"^Ход 1, imperium: фаза «.+»\.$", strip.locator("#clock").inner_text())
    assert " из " in strip.locator("#strip .models").first.inner_text()
    said = server_words(http, BATTLE, tokens["spectator"], [])
    for name, page in shown.items():
        page.screenshot(path=str(screenshot_path(f"overlay-{name}-ru-1920x1080")), omit_background=True)
        assert english_left(page, said) == [], name
    english = context.new_page()
    english.goto(f"{server.url}/overlay/banner#battle={BATTLE}&token={tokens['spectator']}")
    english.wait_for_selector(f"html[lang='en'] body[data-seq='{last}']", timeout=WAIT_MS)
    assert " is due for " in english.locator("#due").inner_text()  # English, as before
    context.close()
    assert errors == []


def screenshot_path(name: str):
    from support.browser import SCREENSHOTS

    SCREENSHOTS.mkdir(exist_ok=True)
    return SCREENSHOTS / f"{name}.png"
