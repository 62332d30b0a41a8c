"""The JavaScript client (`/static/morale-client.js`) in Debian's Chromium, against a real `morale
serve`, from a page served on another origin (another port of 127.0.0.1), as a stream overlay is:
the example on docs/clients.md runs as written once the referee allows the page's origin, and is kept from
the battle until then; a follower resumes after a restart with nothing twice, and says once that
its token was revoked."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from support.browser import WAIT_MS
from support.cli import morale
from support.served import BATTLE, EXAMPLE_EVENTS, ROOT, ROSTER, WAIT_S, LiveServer
from test_client import free_port

from morale.app.http.server import Settings, create_app

EVENTS = 9 + len([line for line in EXAMPLE_EVENTS.read_text().splitlines() if line.strip()])  # 104
PAGE_SERVER = "http://127.0.0.1:8000"


def page_example() -> str:
    """The JavaScript example of docs/clients.md, as written."""
    blocks = re.findall(r"```js\n(.*?)```", (ROOT / "docs" / "clients.md").read_text(encoding="utf-8"), flags=re.S)
    (example,) = [block for block in blocks if "morale-client.js" in block]
    return example


@contextmanager
def page_server(script: str) -> Iterator[str]:
    """A page on an origin of its own (127.0.0.1 on another port): `<pre id="feed">` and the module."""
    page = '<!doctype html><meta charset="utf-8"><title>overlay</title><pre id="feed"></pre>\n'
    page += f'<script type="module">\n{script}\n</script>\n'

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(page.encode())

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def played(tmp_path):
    """The example battle played to its end and the next phase started (docs/clients.md's example ends
    it), with a token per role."""
    db = tmp_path / "js.db"
    created = json.loads(morale(db, "new", str(ROSTER), "--tokens", "--json").stdout)["tokens"]
    assert morale(db, "append", BATTLE, "--file", str(EXAMPLE_EVENTS)).exit_code == 0
    assert morale(db, "next-phase", BATTLE).exit_code == 0  # 105: turn 4, imperium, movement
    return db, {"referee": created["referee"], "spectator": created["spectator"], **created["players"]}


def example_on(server: LiveServer) -> str:
    return page_example().replace(PAGE_SERVER, server.url)


def fast() -> Settings:
    return Settings(poll_s=0.05, heartbeat_s=1.0)


def last_seq(db) -> int:
    return json.loads(morale(db, "log", BATTLE, "--json").stdout)[-1]["seq"]


def shown(page) -> list[str]:
    return [line for line in page.locator("#feed").inner_text().splitlines() if line]


def test_the_clients_page_example_follows_and_appends_from_a_page_on_an_allowed_origin(browser, played):
    db, tokens = played
    with LiveServer(create_app(db, fast())) as server, page_server(example_on(server)) as origin:
        assert morale(db, "cors", BATTLE, "--allow", origin).exit_code == 0
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{origin}/overlay.html#token={tokens['referee']}")
        page.wait_for_function("document.querySelector('#feed').textContent.includes('not written')", timeout=WAIT_MS)
        page.wait_for_function(
            "document.querySelector('#feed').textContent.includes('106 phase_ended')", timeout=WAIT_MS
        )
        lines = shown(page)
        exported = page.evaluate(
            """async ([server, token]) => {
              const { connect } = await import(`${server}/static/morale-client.js`);
              return (await connect(server, "hive-tarsis", token).items(104)).map((item) => item.seq);
            }""",
            [server.url, tokens["referee"]],
        )
        page.close()
    assert exported == [105, 106]  # the export: what the log holds after 104, and no more
    assert errors == []
    items = [line for line in lines if not line.startswith("not written")]
    assert items == [f"{seq} {kind}" for seq, kind in (line.split() for line in items)]
    assert [int(line.split()[0]) for line in items] == list(range(1, EVENTS + 3))  # each once, in log order
    assert items[0] == "1 battle_started" and items[-1] == "106 phase_ended"
    assert "not written: the log ends at 106, not 105" in lines
    assert last_seq(db) == EVENTS + 2


def test_a_page_on_an_origin_not_allowed_is_kept_from_the_battle_and_writes_nothing(browser, played):
    db, tokens = played
    with LiveServer(create_app(db, fast())) as server, page_server(example_on(server)) as origin:
        page = browser.new_page()
        with page.expect_event("pageerror", timeout=WAIT_MS) as failed:
            page.goto(f"{origin}/overlay.html#token={tokens['referee']}")
        page.wait_for_function("document.body.dataset.status === 'offline'", timeout=WAIT_MS)
        feed = shown(page)
        page.close()
    assert feed == []  # not one item reached the page
    assert "Failed to fetch" in str(failed.value)  # the example's first call, kept from the page by the browser
    assert last_seq(db) == EVENTS + 1


FOLLOWER = """
import { connect } from "SERVER/static/morale-client.js";
const token = new URLSearchParams(location.hash.slice(1)).get("token");
const feed = document.querySelector("#feed");
connect("SERVER", "hive-tarsis", token).follow({
  after: AFTER,
  onItem: (item) => feed.append(`${item.seq} ${item.event.type}\\n`),
  onStatus: (status, error) => {
    document.body.dataset.status = status;
    if (error) document.body.dataset.refused = `${error.status} ${error.problem.detail}`;
  },
});
"""


def test_a_follower_resumes_after_a_restart_with_nothing_twice_and_says_once_its_token_was_revoked(browser, played):
    db, _ = played
    port = free_port()
    overlay = morale(db, "tokens", BATTLE, "--issue", "overlay", "--label", "OBS").stdout.strip()
    script = FOLLOWER.replace("SERVER", f"http://127.0.0.1:{port}").replace("AFTER", str(EVENTS))
    with page_server(script) as origin:
        assert morale(db, "cors", BATTLE, "--allow", origin).exit_code == 0
        page = browser.new_page()
        with LiveServer(create_app(db, fast()), port=port):
            page.goto(f"{origin}/overlay.html#token={overlay}")
            page.wait_for_function("document.querySelector('#feed').textContent.includes('105')", timeout=WAIT_MS)
            assert page.evaluate("document.body.dataset.status") == "live"
        # The server is gone; the table goes on meanwhile; the server is back on its port.
        assert morale(db, "next-phase", BATTLE).exit_code == 0  # 106: the movement phase ends
        assert morale(db, "next-phase", BATTLE).exit_code == 0  # 107: the shooting phase starts
        with LiveServer(create_app(db, fast()), port=port):
            page.wait_for_function("document.querySelector('#feed').textContent.includes('107')", timeout=WAIT_S * 1000)
            assert shown(page) == ["105 phase_started", "106 phase_ended", "107 phase_started"]
        # Gone again, and the overlay's token revoked while it was: the page says so, once, and stops.
        assert morale(db, "revoke", BATTLE, "overlay").exit_code == 0
        with LiveServer(create_app(db, fast()), port=port):
            page.wait_for_function("document.body.dataset.status === 'refused'", timeout=WAIT_MS)
            refused = page.evaluate("document.body.dataset.refused")
        page.close()
    assert refused.startswith("401 this token does not open battle 'hive-tarsis'")
