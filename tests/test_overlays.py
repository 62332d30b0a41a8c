"""The stream overlays (/overlay/strip, /overlay/banner, /overlay/ticker) in Debian's Chromium at
1920x1080, as an OBS browser source opens them: each shows a test falling due and resolving (a
screenshot of each, its background transparent, checked by pixel), the banner follows a `morale
roll` made by another process, a delay holds items back, three overlays and the console on one
host stay live on two connections, and a mistyped address or a token that can record is refused."""

from __future__ import annotations

import json
import subprocess
import time
from datetime import datetime

import httpx
import pytest
from support.browser import SCREENSHOTS, WAIT_MS, serious_violations
from support.cli import morale
from support.nodes import MORALE
from support.png import alpha
from support.served import BATTLE, EXAMPLE_EVENTS, ROSTER, LiveServer

from morale.app.http.server import CONSOLE_POLICY, Settings, create_app

SCENE = {"width": 1920, "height": 1080}  # an OBS canvas
OVERLAYS = ("strip", "banner", "ticker")
LINES = [line for line in EXAMPLE_EVENTS.read_text().splitlines() if line.strip()]


@pytest.fixture
def table(tmp_path):
    """The example battle up to seq 17 (the Nobz' casualties in the shooting phase, no test due
    yet), with an overlay token and the referee's."""
    db = tmp_path / "overlay.db"
    created = json.loads(morale(db, "new", str(ROSTER), "--tokens", "--json").stdout)["tokens"]
    first = tmp_path / "first.ndjson"
    first.write_text("\n".join(LINES[:8]) + "\n")
    assert morale(db, "append", BATTLE, "--file", str(first)).exit_code == 0
    overlay = morale(db, "tokens", BATTLE, "--issue", "overlay", "--label", "OBS").stdout.strip()
    return db, overlay, created["referee"]


def end_the_shooting_phase(db, tmp_path) -> None:
    """seq 18: the shooting phase ends, and the units that lost a quarter must test."""
    line = tmp_path / "phase_ended.ndjson"
    line.write_text(LINES[8] + "\n")
    assert morale(db, "append", BATTLE, "--file", str(line)).exit_code == 0


def overlay_url(server, name: str, token: str, query: str = "") -> str:
    return f"{server.url}/overlay/{name}{'?' + query if query else ''}#battle={BATTLE}&token={token}"


def at_seq(page, seq: int) -> None:
    page.wait_for_selector(f"body[data-seq='{seq}']", timeout=WAIT_MS)


def transparent_at(page, x: int, y: int) -> int:
    """The alpha of the screenshot's pixel at (x, y), the page's own background left out as OBS
    composes it."""
    return alpha(page.screenshot(omit_background=True, clip={"x": x, "y": y, "width": 2, "height": 2}), 0, 0)


def picture(page, name: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"overlay-{name}-1920x1080.png"), omit_background=True)


def fast() -> Settings:
    return Settings(poll_s=0.05, heartbeat_s=1.0)


def open_overlays(context, server, token: str, query: str = "") -> dict:
    pages = {}
    for name in OVERLAYS:
        page = context.new_page()
        page.goto(overlay_url(server, name, token, query))
        pages[name] = page
    return pages


def test_each_overlay_shows_a_test_falling_due_and_resolving_on_a_transparent_background(browser, table, tmp_path):
    db, overlay, _ = table
    with LiveServer(create_app(db, fast())) as server:
        context = browser.new_context(viewport=SCENE)
        errors: list[str] = []
        context.on("weberror", lambda error: errors.append(str(error.error)))
        pages = open_overlays(context, server, overlay)
        for page in pages.values():
            at_seq(page, 17)
        nobz = pages["strip"].locator(".unit[data-unit='nobz']")
        assert nobz.locator(".state").inner_text() == "steady"
        assert nobz.locator(".models").inner_text() == "3 of 5 models"

        end_the_shooting_phase(db, tmp_path)
        for page in pages.values():
            at_seq(page, 18)
        banner = pages["banner"]
        due = [line.strip() for line in banner.locator("#due li .what").all_inner_texts()]
        assert "Morale test is due for Nobz: 2D6, 7 or less passes." in due
        assert "It passes 58% of the time." in banner.locator("#due li[data-unit='nobz'] .odds").inner_text()
        for name, page in pages.items():
            picture(page, f"{name}-due")
        # The banner's plate is painted; the scene around it is not.
        box = banner.locator("#due li[data-unit='nobz']").bounding_box()
        assert transparent_at(banner, int(box["x"] + box["width"] / 2), int(box["y"] + 4)) > 0
        for page in pages.values():
            for x, y in ((0, 0), (1917, 0), (0, 1077), (1917, 1077), (960, 540)):
                assert transparent_at(page, x, y) == 0, f"{page.url.split('#')[0]} is painted at {x},{y}"

        assert morale(db, "roll", BATTLE, "nobz", "morale", "5", "4").exit_code == 0  # seq 19
        for page in pages.values():
            at_seq(page, 19)
        result = banner.locator("#result.failed[data-unit='nobz']")
        assert result.locator(".what").inner_text() == "Nobz fails the morale test: 5 + 4 = 9 against 7"
        assert result.locator(".die").all_inner_texts() == ["5", "4"]
        assert result.locator(".odds").inner_text() == "It had a 58% chance to pass."
        assert "Fall Back move is due for Nobz: 2D6." in banner.locator("#due").inner_text()
        pages["strip"].wait_for_selector(".unit[data-unit='nobz'][data-state='falling_back']", timeout=WAIT_MS)
        assert nobz.locator(".state").inner_text() == "falling back"
        ticker = pages["ticker"].locator("#ticker li").all_inner_texts()
        assert ticker[-3:] == [
            "Nobz fails the morale test: 5 + 4 = 9 against 7",
            "Nobz Falls Back",
            "Nobz must roll 2D6 for fall back",
        ]
        for name, page in pages.items():
            assert serious_violations(page) == [], name  # axe-core: nothing serious
            picture(page, f"{name}-resolved")
            assert transparent_at(page, 0, 0) == 0 and transparent_at(page, 1917, 1077) == 0
        context.close()
    assert errors == []


def test_an_overlay_shows_the_banner_after_a_morale_roll_in_another_process(browser, table, tmp_path):
    """The issue's "done when": `morale serve` as it runs by default (it looks for other processes'
    appends every 0.5 s), the banner in Chromium at 1920x1080, `morale roll` in another process."""
    db, overlay, _ = table
    end_the_shooting_phase(db, tmp_path)
    with LiveServer(create_app(db, Settings())) as server:
        page = browser.new_page(viewport=SCENE)
        page.goto(overlay_url(server, "banner", overlay))
        at_seq(page, 18)
        started = time.monotonic()
        rolled = subprocess.run(
            [MORALE, "roll", BATTLE, "nobz", "morale", "5", "4", "--db", str(db)], capture_output=True, text=True
        )
        written = time.monotonic()
        assert rolled.returncode == 0, rolled.stderr
        page.wait_for_selector("#result.failed[data-unit='nobz'] .die", timeout=WAIT_MS)
        shown = time.monotonic()
        page.close()
    # Measured and said, never a reason to fail: speed is the benchmarks' business.
    ended, began = shown - written, shown - started
    print(f"\nthe banner showed the roll {ended:.3f} s after `morale roll` ended ({began:.3f} s after it began)")


def test_three_overlays_and_the_console_on_one_host_stay_live_on_two_connections(browser, table, tmp_path):
    db, overlay, referee = table
    app = create_app(db, fast())
    with LiveServer(app) as server:
        context = browser.new_context(viewport=SCENE)
        console = context.new_page()
        console.goto(f"{server.url}/view#battle={BATTLE}&token={referee}")
        console.wait_for_selector("body[data-ready='true'][data-last='17']", timeout=WAIT_MS)
        pages = open_overlays(context, server, overlay)
        for page in pages.values():
            at_seq(page, 17)
            assert page.evaluate("document.body.dataset.status") == "live"
        # One EventSource for the console, one for the three overlays (their SharedWorker's).
        channel = app.state.hub.channel(BATTLE)
        assert channel.followers == 2
        end_the_shooting_phase(db, tmp_path)
        for page in pages.values():
            at_seq(page, 18)
        console.wait_for_selector("body[data-last='18']", timeout=WAIT_MS)
        assert channel.followers == 2
        # An overlay closed leaves the others live; the last one closed gives its connection back.
        pages.pop("ticker").close()
        assert morale(db, "roll", BATTLE, "nobz", "morale", "5", "4").exit_code == 0  # seq 19
        for page in pages.values():
            at_seq(page, 19)
        console.wait_for_selector("body[data-last='19']", timeout=WAIT_MS)
        for page in pages.values():
            page.close()
        deadline = time.monotonic() + WAIT_MS / 1000
        while channel.followers != 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert channel.followers == 1  # the console's own
        context.close()


def test_a_delayed_overlay_shows_each_item_no_sooner_than_its_delay_after_it_happened(browser, table, tmp_path):
    db, overlay, _ = table
    with LiveServer(create_app(db, fast())) as server:
        page = browser.new_page(viewport=SCENE)
        page.goto(overlay_url(server, "ticker", overlay, "delay=2"))
        at_seq(page, 17)  # the battle so far: long enough ago to be shown at once
        end_the_shooting_phase(db, tmp_path)
        at_seq(page, 18)
        shown_at = int(page.evaluate("document.body.dataset.shownAt"))
        page.close()
    exported = json.loads(morale(db, "log", BATTLE, "--json").stdout)
    recorded = next(row for row in exported if row["seq"] == 18)["recorded_at"]
    happened = datetime.fromisoformat(recorded.replace("Z", "+00:00")).timestamp() * 1000
    assert shown_at - happened >= 2000


@pytest.mark.parametrize(
    ("query", "field", "detail"),
    [
        ("size=huge", "size", "size: 'huge' is not a size; the sizes are small, medium, large"),
        ("theme=neon", "theme", "theme: 'neon' is not a theme; the themes are dark, light"),
        ("delay=-5", "delay", "delay: '-5' is not a delay; it is a whole number of seconds from 0 to 3600"),
        ("delay=4000", "delay", "delay: '4000' is not a delay; it is a whole number of seconds from 0 to 3600"),
        ("delay=%D9%A3", "delay", "delay: '\u0663' is not a delay; it is a whole number of seconds from 0 to 3600"),
    ],
)
def test_an_overlay_address_with_a_parameter_it_does_not_know_is_refused_naming_it(table, query, field, detail):
    db, _, _ = table
    with LiveServer(create_app(db, fast())) as server:
        answer = httpx.get(f"{server.url}/overlay/banner?{query}")
    assert answer.status_code == 400
    assert answer.json()["field"] == field and answer.json()["detail"] == detail


def test_the_overlay_pages_run_under_the_consoles_policy_and_an_unknown_one_is_not_found(table):
    db, _, _ = table
    with LiveServer(create_app(db, fast())) as server:
        pages = {
            name: httpx.get(f"{server.url}/overlay/{name}?side=orks&size=large&theme=light&delay=30")
            for name in OVERLAYS
        }
        unknown = httpx.get(f"{server.url}/overlay/scoreboard")
    for answer in pages.values():
        assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/html")
        assert answer.headers["content-security-policy"] == CONSOLE_POLICY
        assert answer.headers["referrer-policy"] == "no-referrer"
        assert "<script>" not in answer.text and "style=" not in answer.text  # nothing inline to allow
    assert unknown.status_code == 404
    assert unknown.json()["detail"] == "there is no overlay 'scoreboard'; the overlays are strip, banner, ticker"


def test_an_overlay_says_what_is_wrong_with_its_token_or_side_and_shows_nothing(browser, table):
    db, overlay, referee = table
    with LiveServer(create_app(db, fast())) as server:
        page = browser.new_page(viewport=SCENE)
        said = {}
        for case, url in {
            "referee": overlay_url(server, "strip", referee),
            "side": overlay_url(server, "strip", overlay, "side=tau"),
            "none": f"{server.url}/overlay/strip",
            "unknown": overlay_url(server, "strip", "not-a-token"),
        }.items():
            page.goto("about:blank")  # each a page of its own, not a change of fragment
            page.goto(url)
            page.wait_for_selector("#notice:not([hidden])", timeout=WAIT_MS)
            said[case] = page.locator("#notice").inner_text()
            assert page.locator("#strip .unit").count() == 0
        page.close()
    assert said["referee"] == (
        "This overlay was opened with a referee's token, which can record: "
        "issue it an overlay token (morale tokens hive-tarsis --issue overlay)."
    )
    assert said["side"] == "side: tau is not a side of hive-tarsis; its sides are imperium, orks."
    assert said["none"] == "This overlay needs its battle and token in the address: #battle=ID&token=SECRET."
    assert said["unknown"].startswith("The server refused this overlay: this token does not open battle 'hive-tarsis'")


def test_where_a_browser_has_no_shared_worker_each_overlay_follows_the_feed_itself(browser, table, tmp_path):
    db, overlay, _ = table
    app = create_app(db, fast())
    with LiveServer(app) as server:
        context = browser.new_context(viewport=SCENE)
        context.add_init_script("delete window.SharedWorker")  # as Chrome on Android
        pages = open_overlays(context, server, overlay)
        for page in pages.values():
            at_seq(page, 17)
        assert app.state.hub.channel(BATTLE).followers == len(OVERLAYS)
        end_the_shooting_phase(db, tmp_path)
        pages["banner"].wait_for_selector("#due li[data-unit='nobz']", timeout=WAIT_MS)
        context.close()


def test_size_and_theme_change_the_plates_and_side_keeps_to_one_side(browser, table, tmp_path):
    db, overlay, _ = table
    end_the_shooting_phase(db, tmp_path)
    with LiveServer(create_app(db, fast())) as server:
        page = browser.new_page(viewport=SCENE)
        looks = {}
        for query in ("size=small", "", "size=large&theme=light", "side=imperium"):
            page.goto("about:blank")
            page.goto(overlay_url(server, "strip", overlay, query))
            page.wait_for_selector("#strip[data-at='18'] .unit", timeout=WAIT_MS)
            chip = page.locator(".unit").first
            looks[query] = {
                "font": float(chip.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")),
                "plate": chip.evaluate("e => getComputedStyle(e).backgroundColor"),
                "sides": page.locator(".side").evaluate_all("rows => rows.map(r => r.dataset.side)"),
            }
            if query == "size=large&theme=light":
                picture(page, "strip-large-light")
        page.close()
    assert looks["size=small"]["font"] < looks[""]["font"] < looks["size=large&theme=light"]["font"]
    assert looks[""]["plate"] != looks["size=large&theme=light"]["plate"]
    assert looks[""]["sides"] == ["imperium", "orks"] and looks["side=imperium"]["sides"] == ["imperium"]


def test_an_overlay_opened_late_in_a_long_battle_reads_what_the_shared_worker_no_longer_holds(browser, table, tmp_path):
    """The worker holds a battle's last 1000 items: one opened after 1128 reads the first 128 itself."""
    db, overlay, _ = table
    rest = tmp_path / "rest.ndjson"
    rest.write_text("\n".join(LINES[8:]) + "\n")
    assert morale(db, "append", BATTLE, "--file", str(rest)).exit_code == 0  # to 104
    turns = tmp_path / "turns.ndjson"
    clock = [
        {"type": kind, "turn": turn, "side": side, "phase": phase}
        for turn in range(4, 4 + 64)
        for side in ("imperium", "orks")
        for phase in ("movement", "psychic", "shooting", "assault")
        for kind in ("phase_started", "phase_ended")
    ]
    turns.write_text("".join(json.dumps(event) + "\n" for event in clock))
    assert morale(db, "append", BATTLE, "--file", str(turns)).exit_code == 0
    last = 104 + len(clock)
    app = create_app(db, fast())
    with LiveServer(app) as server:
        context = browser.new_context(viewport=SCENE)
        first = context.new_page()
        first.goto(overlay_url(server, "ticker", overlay))
        at_seq(first, last)
        late = context.new_page()
        exports: list[str] = []
        late.on("request", lambda request: exports.append(request.url) if "feed.ndjson" in request.url else None)
        late.goto(overlay_url(server, "banner", overlay))
        at_seq(late, last)
        counts = [page.evaluate("document.body.dataset.shown") for page in (first, late)]
        assert app.state.hub.channel(BATTLE).followers == 1
        context.close()
    assert counts == [str(last), str(last)]  # every item, each once
    assert [url.split("/battles/")[1] for url in exports] == [f"{BATTLE}/feed.ndjson?after=0&follow=false&lang=en"]
