"""`morale report`: one self-contained HTML file per battle, read as a person reads it, in Debian's
Chromium (like the viewer) with every network request refused and recorded. A screenshot of each
example battle's report goes to screenshots/ (gitignored; see docs/judge.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.browser import DESKTOP, PHONE, serious_violations
from support.cli import morale
from support.examples import ROOT, example_store

from morale.app.report.page import page as report_page
from morale.events.store import SqliteEventStore
from morale.events.types import PhaseStarted
from morale.projections.luck import luck
from morale.projections.report import report

EXAMPLES = ["wh40k6", "wh40k3", "wfb8", "gdb"]
SCREENSHOTS = ROOT / "screenshots"


@pytest.fixture(params=EXAMPLES)
def written(request, tmp_path) -> tuple[str, Path, list, Path]:
    """(example, the report file, the battle's stored events, the store) of one shipped example."""
    db = tmp_path / "battles.db"
    store = example_store(db, example=ROOT / "examples" / request.param)
    battle = store.battles()[0]
    events = list(store.read(battle))
    store.close()
    out = tmp_path / "report.html"
    made = morale(db, "report", battle, "-o", str(out), "--json")
    assert made.exit_code == 0, made.output
    assert json.loads(made.stdout)["head"] == events[-1].hash
    return request.param, out, events, db


def test_the_report_needs_nothing_but_itself(written):
    _, out, _, _ = written
    html = out.read_text(encoding="utf-8")
    assert not re.search(r"<(script|link|img|iframe)\b[^>]*\b(src|href)=", html, re.I)
    assert not re.search(r"url\(\s*['\"]?(https?:)?//", html)
    assert "<script" not in html.lower()  # static SVG, no script at all


def test_the_report_shows_each_turn_every_rolled_test_and_the_head_in_chromium(browser, written):
    example, out, events, _ = written
    battle = events[0].battle
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    requested: list[str] = []

    def refuse(route):
        requested.append(route.request.url)
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            route.abort()

    page = context.new_page()
    page.route("**/*", refuse)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(out.as_uri())
    page.wait_for_load_state("load")
    assert requested == [out.as_uri()]  # the page fetched nothing else, and needed nothing else
    assert errors == []

    assert page.locator("#head").inner_text() == events[-1].hash
    turns = sorted({e.event.turn for e in events if e.event.__struct_config__.tag == "phase_started"})
    assert page.locator("section[data-turn]").evaluate_all("s => s.map(x => Number(x.dataset.turn))") == turns
    for turn in turns:
        assert page.locator(f"#turn-{turn} h2").inner_text() == f"Turn {turn}"
        assert page.locator(f"#board-{turn} tbody tr").count() > 0
    story = page.locator("section[data-turn] [data-seq]").evaluate_all("s => s.map(i => Number(i.dataset.seq))")
    assert story == [e.seq for e in events]  # every event in order, each in its turn (a phase's as its heading)

    found = luck(battle, events)
    for roll in found.rolls:
        row = page.locator(f"table.tests tr[data-unit='{roll.unit}'][data-settled='{roll.seq}']")
        assert row.count() == 1, (roll.unit, roll.seq)
        if roll.test != "sweeping_advance":  # two opposed rolls, not one sum: see below
            assert row.locator("td.dice").inner_text() == " + ".join(map(str, roll.dice))
        assert row.locator("td.odds").inner_text() == f"{100 * roll.chance:.1f}%"
    for side in found.sides:
        cells = page.locator(f"#luck tr[data-side='{side.side}'] td").all_inner_texts()
        assert cells[:4] == [side.side, str(side.tests), f"{side.expected_passes:.2f}", str(side.passes)]
        assert cells[4].endswith("%")

    charts = page.locator(".chart svg")
    assert charts.count() == 3  # each side's units, and the luck
    for index in range(charts.count()):
        box = charts.nth(index).bounding_box()
        assert box is not None and box["width"] > 400 and box["height"] > 100
    names = page.locator("[data-chart^='states-'] .legends").evaluate_all("n => n.map(x => x.textContent)")
    joined = [e.event.name for e in events if e.event.__struct_config__.tag == "unit_joined"]
    assert all(any(name[:20] in legend for legend in names) for name in joined)

    SCREENSHOTS.mkdir(exist_ok=True)
    shot = SCREENSHOTS / f"report-{example}.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 50_000
    context.close()


# Each table's box: the nearest element around it (or the table) that scrolls sideways, where the
# page lets a wide table scroll in its own box; the table itself when nothing does.
_TABLES = """
() => [...document.querySelectorAll("table")].map((table) => {
  let box = table;
  for (let a = table.parentElement; a && a !== document.body; a = a.parentElement) {
    if (/(auto|scroll)/.test(getComputedStyle(a).overflowX)) { box = a; break; }
  }
  const r = box.getBoundingClientRect();
  return {
    table: table.id || table.className, left: r.left, right: r.right,
    scrolls: box !== table, inner: box.scrollWidth, wide: table.getBoundingClientRect().width,
    focusable: box.tabIndex >= 0, name: box.getAttribute("aria-label") || "", role: box.getAttribute("role") || "",
  };
})
"""


# The smallest text of any chart as the screen shows it, in CSS pixels: its font size in the SVG's
# own units times the SVG's scale on the page.
_SMALLEST_CHART_TEXT = """
() => Math.min(...[...document.querySelectorAll(".chart svg text")].filter((t) => t.textContent.trim()).map((t) => {
  const svg = t.ownerSVGElement;
  return parseFloat(getComputedStyle(t).fontSize) * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
}))
"""

# The cells of the tests tables that do not read as a line of their own named by their column.
_CARDS = """
() => [...document.querySelectorAll("table.tests td")].filter((td) => td.textContent.trim()).filter((td) => {
  const label = getComputedStyle(td, "::before").content;
  return getComputedStyle(td).display !== "block" || !label.includes(td.dataset.label);
}).map((td) => td.outerHTML.slice(0, 80))
"""


def test_every_column_of_the_tests_is_in_sight_on_a_desktop(browser, written):
    """At 1280 px wide each tests table fits the page: no column, the last included, is clipped."""
    example, out, _, _ = written
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(out.as_uri())
    page.wait_for_load_state("load")
    tests = [t for t in page.evaluate(_TABLES) if t["table"] == "tests"]
    assert tests
    for table in tests:
        assert table["inner"] <= table["right"] - table["left"] + 1, (example, table)
        assert table["wide"] <= table["right"] - table["left"] + 1, (example, table)
    assert page.evaluate(_SMALLEST_CHART_TEXT) >= 11, example
    context.close()


def test_the_report_is_read_on_a_phone_without_the_page_scrolling_sideways(browser, written):
    """A report shared to a phone (390x844): the page never scrolls sideways; a table too wide for
    the screen scrolls within its own box, which lies within the screen and which a keyboard or a
    screen reader reaches (focusable, a named region), so every column can be read."""
    example, out, _, _ = written
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file://") else route.abort())
    page.goto(out.as_uri())
    page.wait_for_load_state("load")
    width = page.evaluate("window.innerWidth")
    assert width == PHONE["width"]
    scrolled = page.evaluate("document.scrollingElement.scrollWidth")
    assert scrolled <= width, f"{example}: the page is {scrolled}px wide on a {width}px screen"
    tables = page.evaluate(_TABLES)
    assert tables
    for table in tables:
        assert table["left"] >= 0 and table["right"] <= width, (example, table)
        if table["scrolls"]:  # every column within reach of the box's scrolling, by touch or by key
            assert table["inner"] >= table["wide"] - 1, (example, table)
            assert table["focusable"] and table["role"] == "region" and table["name"], (example, table)
    # Each test reads whole, as a card a test, with no box to scroll; the charts' text is readable.
    for table in (t for t in tables if t["table"] == "tests"):
        assert table["inner"] <= table["right"] - table["left"] + 1 and table["wide"] <= width, (example, table)
    assert page.evaluate(_CARDS) == [], example  # every cell of a test on its own named line
    assert page.evaluate(_SMALLEST_CHART_TEXT) >= 11, example
    assert serious_violations(page) == []
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"report-{example}-phone.png"), full_page=True)
    context.close()


def test_the_luck_percentile_is_exact_and_the_same_as_morale_luck_says(written):
    _, out, events, db = written
    html = out.read_text(encoding="utf-8")
    found = luck(events[0].battle, events)
    printed = morale(db, "luck", events[0].battle).stdout
    assert "luck percentile" in html and "luck percentile" in printed
    assert "chance of doing at least as well" not in html and "how unusual" not in printed
    for side in found.sides:
        rolls = [r.chance for r in found.rolls if r.side == side.side]
        at = f"{100 * _percentile(rolls, side.passes):.1f}%"
        row = html.split(f'<tr data-side="{side.side}">', 1)[1].split("</tr>", 1)[0]
        assert at in row and side.verdict in row
        line = next(line for line in printed.splitlines() if line.startswith(f"│ {side.side} "))
        assert at in line and side.verdict.split()[0] in line


def _percentile(chances: list[float], passes: int) -> float:
    """By brute force over every pass/fail outcome, independently of projections/luck.py: the chance
    of fewer passes, and half the chance of as many."""
    from itertools import product

    total = 0.0
    for outcome in product((0, 1), repeat=len(chances)):
        if sum(outcome) <= passes:
            p = 1.0
            for passed, chance in zip(outcome, chances, strict=True):
                p *= chance if passed else 1 - chance
            total += p if sum(outcome) < passes else p / 2
    return total


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["report", "nowhere", "-o", "{tmp}/r.html"], "no battle 'nowhere'"),
        (["report", "hive-tarsis", "-o", "{tmp}/no/such/folder/r.html"], "is not a file in a folder that exists"),
        (["report", "hive-tarsis", "-o", "{tmp}"], "is not a file in a folder that exists"),
    ],
)
def test_a_report_that_cannot_be_made_is_refused_in_one_line_and_nothing_is_written(tmp_path, args, says):
    db = tmp_path / "battles.db"
    example_store(db).close()
    refused = morale(db, *[a.format(tmp=tmp_path) for a in args])
    assert refused.exit_code == 2 and says in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
    assert not list(tmp_path.rglob("*.html"))
    assert SqliteEventStore(db, create=False).last_seq("hive-tarsis") > 0


def test_the_story_says_who_entered_each_event(browser, tmp_path, monkeypatch):
    monkeypatch.setenv("LOGNAME", "anna")  # who typed the commands
    db = tmp_path / "battles.db"
    assert morale(db, "new", str(ROOT / "examples" / "wh40k6" / "roster.toml")).exit_code == 0
    played = ROOT / "examples" / "wh40k6" / "battle.ndjson"
    assert morale(db, "append", "hive-tarsis", "--file", str(played)).exit_code == 0
    out = tmp_path / "report.html"
    assert morale(db, "report", "hive-tarsis", "-o", str(out)).exit_code == 0
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(out.as_uri())
    by = page.locator("section[data-turn] [data-seq] .by")
    assert by.count() == SqliteEventStore(db, create=False).last_seq("hive-tarsis")
    seqs = by.evaluate_all("s => s.map(b => b.closest('[data-seq]').dataset.seq)")
    said = dict(zip(seqs, by.all_inner_texts(), strict=True))
    assert said["3"] == "referee (command line, anna)" and said["10"] == "referee (file import, anna)"
    assert page.locator("li.event[data-seq='15']").inner_text().endswith("(3 left) referee (file import, anna)")
    context.close()


def test_the_story_of_an_old_log_says_its_authors_were_not_recorded(written):
    _, out, events, _ = written
    html = out.read_text(encoding="utf-8")
    assert html.count('<span class="by">not recorded</span>') == len(events)


def test_the_story_crosses_out_a_struck_event_and_says_who_struck_it(browser, tmp_path, monkeypatch):
    monkeypatch.setenv("LOGNAME", "anna")
    db = tmp_path / "battles.db"
    assert morale(db, "new", str(ROOT / "examples" / "wh40k6" / "roster.toml")).exit_code == 0
    for _ in range(5):
        assert morale(db, "next-phase", "hive-tarsis").exit_code == 0
    assert morale(db, "append", "hive-tarsis", "casualties_suffered", "unit=kraak", "count=3").exit_code == 0
    assert morale(db, "strike", "hive-tarsis", "15", "--reason", "the boyz took those", "--yes").exit_code == 0
    out = tmp_path / "report.html"
    assert morale(db, "report", "hive-tarsis", "-o", str(out)).exit_code == 0
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(out.as_uri())
    struck = page.locator("li.event[data-seq='15']")
    assert "struck" in struck.get_attribute("class")
    assert struck.locator("del").inner_text() == "Sergeant Kraak's Guardsmen loses 3 models (7 left)"
    assert struck.locator(".struck-by").inner_text() == (
        "Struck by referee (command line, anna) at #16: the boyz took those"
    )
    assert page.locator("li.event[data-seq='14'].struck").count() == 0
    context.close()


def test_a_turn_still_being_played_is_not_headed_as_ended(tmp_path):
    """A report made while turn 2 is being played: turn 1's board is the board at its end, turn 2's
    the board as it stands, said so."""
    store = example_store(tmp_path / "battles.db")
    events = list(store.read("hive-tarsis"))
    second = next(i for i, s in enumerate(events) if isinstance(s.event, PhaseStarted) and s.event.turn == 2)
    played = events[: second + 3]

    html = report_page(report("hive-tarsis", played), "the test")

    assert "<h3>The board at the end of turn 1</h3>" in html
    assert "The board at the end of turn 2" not in html
    assert f"<h3>The board after event {played[-1].seq}, with turn 2 still being played</h3>" in html
    finished = report_page(report("hive-tarsis", events), "the test")
    assert "still being played" not in finished and "<h3>The board at the end of turn 3</h3>" in finished


def test_the_tests_table_shows_a_sweeping_advance_as_two_opposed_rolls(tmp_path):
    """wh40k6.sweeping_advance: each side's die and Initiative, with no total of the two dice."""
    store = example_store(tmp_path / "battles.db")
    html = report_page(report("hive-tarsis", list(store.read("hive-tarsis"))), "the test")
    row = html.split('data-unit="kraak" data-settled="50">', 1)[1].split("</tr>", 1)[0]
    dice = re.search(r'<td class="num dice" data-label="dice">(.*?)</td>', row).group(1)
    total = re.search(r'<td class="num" data-label="total">(.*?)</td>', row).group(1)
    assert (dice, total) == ("loser 5 + initiative 3 = 8 against winners 2 + initiative 2 = 4", "")
