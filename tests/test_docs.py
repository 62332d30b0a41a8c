"""The documentation site (docs/, mkdocs.yml): it builds with `mkdocs build --strict`, loads nothing
from another site, shows each ruleset's clauses and state graph as the engine has them, and every
shell and Python block of every page runs as the page says (support/commands.py, as the README's do).

Each page runs in a fresh copy of the repository with the venv activated, in the order of the
navigation. The pages whose front matter says `chain: NAME` run one after the other in one folder,
in that order: the `served` pages talk to the one server the first of them starts and build on the
battle as the page before left it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from html import escape
from html.parser import HTMLParser
from importlib.metadata import version
from pathlib import Path

import jsonschema_rs
import pytest
import yaml
from support.commands import PAGE_DATABASE, SUITE, Command, Run, nothing_listens, page_commands, run_in_a_clone
from support.own_games import own_rulesets

from morale.core import catalogue
from morale.core.fold import Fold
from morale.core.rulesets import latest
from morale.events.store import SqliteEventStore
from morale.projections.feed import follow

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
ACTIVATE = ". .venv/bin/activate"  # the README's first step, which every page takes as done
RULESETS = [ruleset.id for ruleset in own_rulesets().values()]  # the site's; the fifth game has its guide


def nav_pages(nav: list) -> list[str]:
    """The pages of mkdocs.yml's navigation, in its order (relative to docs/)."""
    found = []
    for entry in nav:
        for value in entry.values() if isinstance(entry, dict) else [entry]:
            found += nav_pages(value) if isinstance(value, list) else [value]
    return found


def front_matter(text: str) -> dict:
    match = re.match(r"---\n(.*?)\n---\n", text, re.S)
    return yaml.safe_load(match[1]) if match else {}


PAGES = nav_pages(yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"])


def chains() -> dict[str, list[Command]]:
    """The commands of each run, by its name (a chain's, or the page's own), in the navigation's order."""
    runs: dict[str, list[Command]] = {}
    for page in PAGES:
        text = (DOCS / page).read_text(encoding="utf-8")
        commands = page_commands(text, f"docs/{page}")
        if commands:
            runs.setdefault(front_matter(text).get("chain", page), []).extend(commands)
    return runs


CHAINS = chains()


@pytest.fixture(scope="module")
def docs_run(tmp_path_factory, pg_server) -> Callable[[str], Run]:
    """Each run once, when a test first asks for it."""
    done: dict[str, Run] = {}

    def run(name: str) -> Run:
        if name not in done:
            commands = CHAINS[name]
            uses_pg = any(PAGE_DATABASE in c.text for c in commands)
            database = pg_server.database() if uses_pg else PAGE_DATABASE
            workspace = tmp_path_factory.mktemp(re.sub(r"[^a-z0-9]+", "-", name))
            done[name] = run_in_a_clone(commands, workspace, database, first=ACTIVATE)
            if any("pip install" in c.text for c in commands):
                reinstall_the_games()
        return done[name]

    return run


def reinstall_the_games() -> None:
    """A page that installs a game (writing-a-ruleset.md) installs it, editable, from its clone into
    the suite's venv, which the clone links: once the page is done, the game is installed again from
    this repository, as `make test` installed it, or every later test would find its entry point and
    not its code (the clone is gone)."""
    for project in sorted(ROOT.glob("examples/*/pyproject.toml")):
        command = [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-e",
            project.parent,
        ]
        subprocess.run(command, check=True, capture_output=True)


# -- every page's commands -------------------------------------------------------------------------
def test_the_served_pages_run_in_one_folder_in_the_navigations_order():
    served = list(dict.fromkeys(c.page for c in CHAINS["served"]))
    assert served == [
        f"docs/{p}"
        for p in ("table.md", "api.md", "feed.md", "clients.md", "webhooks.md", "overlays.md", "operating.md")
    ]


@pytest.mark.parametrize("name", list(CHAINS))
def test_every_command_on_every_page_exits_as_the_page_says(docs_run, name):
    run = docs_run(name)
    wrong = run.wrong_exits()
    assert not wrong, "\n\n".join(wrong)
    assert nothing_listens(run) == [], "a server a page started is still running"


def test_a_refused_command_on_a_page_says_why_in_one_line(docs_run):
    refused = [(name, c) for name, commands in CHAINS.items() for c in commands if c.refused]
    assert len(refused) > 10, "the pages show the refusals the README showed"
    for name, command in refused:
        printed = docs_run(name).printed(command).strip().splitlines()
        assert len(printed) == 1 and printed[0].startswith("refused: "), (command.where, printed)


def test_every_command_on_a_page_is_one_line_and_none_runs_the_suite():
    commands = [c for listed in CHAINS.values() for c in listed]
    assert not [c.where for c in commands if c.text.endswith("\\") or c.text == SUITE]


def test_the_command_line_walkthrough_reaches_a_due_test_rolls_it_and_shows_the_unit_fall_back(docs_run):
    run = docs_run("command-line.md")
    due = run.output("morale due hive-tarsis")
    assert "kraak" in due and "2D6" in due
    rows = re.split(r"\n│ (?=imperium|orks)", run.output("morale board hive-tarsis"))
    (kraak,) = [row for row in rows if "kraak" in row]
    assert "falling back" in kraak and "7/10" in kraak
    assert "wh40k6.fall_back.start" in run.output("morale explain hive-tarsis kraak")
    assert "table edge" in run.output("morale rules wh40k6 wh40k6.fall_back.edge")


def test_the_judges_guide_shows_the_disputed_call_and_its_alternative(docs_run):
    run = docs_run("judge.md")
    call = run.output("morale explain hive-tarsis boyz --at 63")
    assert "because of #61" in call and "rolled at #63" in call and "result: failed" in call
    assert "61" in run.output("morale what-if hive-tarsis --amend")


def test_the_feed_shown_on_the_feed_page_delivers_the_battle(docs_run):
    followed = docs_run("served").output("feed.ndjson?after=0")
    assert '"seq":1' in followed and '"battle":"hive-tarsis"' in followed


def test_the_feed_page_names_its_messages_and_carries_what_a_screen_shows(docs_run):
    run = docs_run("served")
    sse = run.output("feed?after=18")
    assert "event: dice_rolled\nid: 19\n" in sse and "event: test_resolved\nid: 19\n" in sse
    item = json.loads(run.output("after=18&follow=false"))
    assert item["seq"] == 19 and item["units"] == {"nobz": {"name": "Nobz", "side": "orks"}}
    assert item["tests"][0]["name"] == "Morale test" and item["tests"][0]["odds"]["pass_ways"] == 21
    assert item["story"][1]["text"] == "Nobz fails the morale test: 5 + 4 = 9 against 7"
    described = json.loads(run.output("asyncapi.json"))
    assert described["asyncapi"].startswith("3.") and "x-sse" in described["channels"]["sse"]


def test_the_api_page_fetches_the_openapi_document(docs_run):
    assert docs_run("served").output("import json; print").strip() == "morale"


def test_the_python_client_on_the_clients_page_follows_appends_and_meets_a_conflict(docs_run):
    run = docs_run("served")
    (example,) = [c for c in run.commands if c.python and "BattleClient" in c.text]
    printed = run.printed(example).splitlines()
    assert printed[0] == "103 PhaseStarted(turn=3, side='orks', phase='assault')"  # typed, not a dict
    assert printed[1].startswith("104 PhaseEnded(turn=3, side='orks', phase='assault', state_digest='")
    assert printed[2].startswith("105 PhaseStarted(turn=4, side='imperium', phase='movement') Author(role='referee'")
    assert "label='python client'" in printed[2]
    assert printed[3:] == ["not written: the log ends at 105, not 104"]


def test_the_overlay_urls_carry_the_overlay_token_in_the_fragment_and_are_served(docs_run):
    run = docs_run("served")
    url = run.output("/overlay/banner?size=large").strip()
    port = run.ports["8000"]
    assert url.startswith(f"http://127.0.0.1:{port}/overlay/banner?size=large#battle=hive-tarsis&token=")
    assert len(url.split("token=")[1]) > 20  # the token the page issued, not an empty variable
    assert run.output("overlay/ticker?theme=light").strip() == "200"
    refused = json.loads(run.output("overlay/ticker?delay=later"))
    assert refused["status"] == 400 and refused["field"] == "delay"


def test_the_backup_on_the_operating_page_has_the_stores_head(docs_run):
    run = docs_run("served")
    assert "1 of 1 battles copied" in run.output("morale copy --from served.db --to backup.db")
    assert "OK (105 events" in run.output("morale verify hive-tarsis --db backup.db")


def test_the_two_nodes_on_the_operating_page_serve_one_battle_copied_from_sqlite(docs_run):
    run = docs_run("served")
    copied = run.output("morale copy --from served.db --to postgresql")
    assert "1 of 1 battles copied" in copied
    (verify,) = [c for c in run.commands if c.text == "morale verify hive-tarsis"]  # on PostgreSQL
    head = re.search(r"head ([0-9a-f]{64})", copied)[1]  # type: ignore[index]
    # 105 events: the example battle's 104, and the one the Python client's example appended.
    assert f"OK (105 events, head {head})" in run.printed(verify)
    followed = run.output("after=100")  # a follower of node two: the battle copied from SQLite
    assert '"seq":101' in followed and '"seq":105' in followed
    appended = run.output("127.0.0.1:8001/battles/hive-tarsis/events")
    assert '"seq":106' in appended and '"phase":"movement"' in appended
    served = run.output("after=105&follow=false")  # what node one took, as node two serves it
    assert [json.loads(line)["seq"] for line in served.splitlines() if line.strip()] == [106]


def test_the_webhook_receiver_on_the_webhooks_page_verifies_each_delivery_and_prints_its_story(docs_run):
    run = docs_run("served")
    said = run.output("examples/webhooks/chat.py").splitlines()
    assert said[0].startswith("listening on http://127.0.0.1:")
    # The hook was registered from event 101: items 101 to 105 (the Python client's), each once, in order.
    store = SqliteEventStore(run.folder / "served.db")
    items = [i for i in follow(Fold("hive-tarsis"), store.read("hive-tarsis")) if 101 <= i.seq <= 105]
    assert said[1:] == [line.text for item in items for line in item.story], said


# -- the site ------------------------------------------------------------------------------------------
class Loads(HTMLParser):
    """What a page makes the browser fetch by itself: scripts, styles, fonts, pictures, frames; and
    whether it holds a Mermaid diagram (which Material draws with a script it fetches from a CDN)."""

    def __init__(self) -> None:
        super().__init__()
        self.fetched: list[str] = []
        self.mermaid = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag in ("script", "img", "iframe", "source", "audio", "video") and found.get("src"):
            self.fetched.append(found["src"] or "")
        if tag == "link" and found.get("rel") not in ("canonical", "prev", "next", None):
            self.fetched.append(found.get("href") or "")
        self.mermaid |= "mermaid" in (found.get("class") or "").split()
        self.fetched += re.findall(r"url\(['\"]?([^'\")]+)", found.get("style") or "")


def external(url: str) -> bool:
    return bool(re.match(r"(https?:)?//", url.strip()))


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    built = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(built)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return built


def page_of(site: Path, page: str) -> str:
    return (site / page.removesuffix(".md").removesuffix("index") / "index.html").read_text(encoding="utf-8")


def test_the_site_builds_strict_with_every_page_in_its_navigation(site):
    on_disk = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    assert sorted(PAGES) == on_disk  # --strict refuses a page left out too; this says which
    for page in PAGES:
        assert "<h1" in page_of(site, page), page


def test_the_built_site_loads_nothing_from_another_site(site):
    fetched = []
    for html in site.rglob("*.html"):
        parsed = Loads()
        parsed.feed(html.read_text(encoding="utf-8"))
        assert not parsed.mermaid, f"{html}: a Mermaid diagram, which Material draws with a script from a CDN"
        fetched += [f"{html.relative_to(site)}: {url}" for url in parsed.fetched if external(url)]
    for css in site.rglob("*.css"):
        text = css.read_text(encoding="utf-8")
        fetched += [
            f"{css.relative_to(site)}: {url}" for url in re.findall(r"url\(['\"]?([^'\")]+)", text) if external(url)
        ]
        fetched += [
            f"{css.relative_to(site)}: @import" for _ in re.findall(r"@import\s+(?:url\()?['\"]?(?:https?:)?//", text)
        ]
    assert fetched == []


@pytest.mark.parametrize("ruleset", RULESETS)
def test_each_rulesets_page_lists_every_clause_of_the_catalogue_in_its_words(site, ruleset):
    page = page_of(site, f"rulesets/{ruleset}.md")
    clauses = catalogue.of_ruleset(ruleset)
    assert clauses
    missing = [c.id for c in clauses if f'id="{c.id}"' not in page or escape(c.words) not in page]
    assert missing == []


def test_the_rulesets_index_lists_the_engines_own_clauses(site):
    page = page_of(site, "rulesets/index.md")
    assert all(f'id="{c.id}"' in page for c in catalogue.of_ruleset("engine"))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_each_rulesets_page_draws_every_state_and_every_move_the_engine_fires(site, ruleset):
    page = page_of(site, f"rulesets/{ruleset}.md")
    graph = latest(ruleset).graph
    (drawn,) = re.findall(r'<svg class="state-graph".*?</svg>', page, re.S)
    boxes = re.findall(r'<g class="state">.*?font-size="13">([a-z_]+)</text>', drawn)
    assert sorted(boxes) == sorted(graph.states)
    (moves,) = re.findall(r'<table class="moves">.*?</table>', page, re.S)
    for row in graph.rows:
        assert f"<code>{row['trigger']}</code> (<a href=" in moves and f"<code>{row['rule']}</code>" in moves, row
    assert len(re.findall(r'<g class="move">', drawn)) == moves.count("<tr><td>")


def test_the_rulesets_index_names_each_ruleset_at_its_version():
    text = (DOCS / "rulesets" / "index.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `([a-z0-9]+)` \| \[[^\]]+\]\([a-z0-9]+\.md\) \| (\S+) \|$", text, re.M)
    assert listed == [(r.id, r.version) for r in own_rulesets().values()]


def test_every_picture_a_page_shows_is_in_docs(site):
    shown = []
    for page in PAGES:
        text = (DOCS / page).read_text(encoding="utf-8")
        shown += [(DOCS / page).parent / src for src in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)]
    assert shown and [p for p in shown if not p.exists()] == []
    checked = subprocess.run([sys.executable, str(DOCS / "screenshots.py"), "--check"], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_operating_page_names_the_wheel_of_this_version():
    text = (DOCS / "operating.md").read_text(encoding="utf-8")
    assert f"dist/morale-{version('morale')}-py3-none-any.whl" in text


def test_the_changelog_page_is_the_changelog(site):
    page = page_of(site, "changelog.md")
    first = next(line for line in (ROOT / "CHANGELOG.md").read_text().splitlines() if line.startswith("## "))
    assert escape(first.removeprefix("## ").split(" - ")[0].strip("[]"), quote=False) in page


def test_the_feed_example_on_the_feed_page_is_an_item_of_the_schema():
    text = (DOCS / "feed.md").read_text(encoding="utf-8")
    (example,) = re.findall(r"```json\n(\{\"battle\".*?)\n```", text, re.S)
    schema = json.loads((ROOT / "schema" / "feed.schema.json").read_text(encoding="utf-8"))
    item = json.loads(example)
    assert item["seq"] == 19 and [str(e) for e in jsonschema_rs.validator_for(schema).iter_errors(item)] == []
