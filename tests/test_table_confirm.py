"""Issue 26's 'done when': a battle without a referee, two players on two phones. `morale serve
--table` prints their codes; the players commit their seeds for the engine's dice, and play the
Imperium's assault phase, each running their own side's clock and results: the orks confirm the
charge, undo a mistyped casualty, and dispute the combat result; the Imperium player strikes it, and
the orks' morale roll that stood on it goes with it. Then the report lists the dispute, `verify`
recomputes every die from the dice secret and both seeds, and the export verifies offline against
the store's public key, and fails once an event in it is edited."""

from __future__ import annotations

import json

import pytest
from support.browser import PHONE, WAIT_MS, layout_problems, screenshot, serious_violations
from support.cli import morale, morale_command
from support.console import Console
from support.nodes import TableNode, last_seq, post_events
from support.served import BATTLE, ROSTER, bearer, creation_body
from test_console import open_console, served  # noqa: F401  (the console's server fixture, reused)
from test_table_turn import joined

from morale.core.dice import commitment
from morale.events.codec import encode
from morale.events.signing import KEY_FILE_VARIABLE, KEY_VARIABLE

SEEDS = {"imperium": "1" * 64, "orks": "2" * 64}  # each side's seed, made on its player's own device
CHARGE = {"charger": "tacticals", "targets": ["nobz"], "in_range": ["nobz"], "flank": []}
COMBAT = [
    {"side": "imperium", "units": ["tacticals"], "wounds_inflicted": 2},
    {"side": "orks", "units": ["nobz"], "wounds_inflicted": 0},
]


@pytest.fixture(autouse=True)
def the_store_signs_with_its_own_key(monkeypatch):
    """The key made beside the store at its first append, not one the environment gives."""
    monkeypatch.delenv(KEY_VARIABLE, raising=False)
    monkeypatch.delenv(KEY_FILE_VARIABLE, raising=False)


def battle_without_referee(tmp_path):
    """The example's roster with the engine's dice and confirmation on; both seeds committed and
    revealed, and the first three phases of the Imperium's turn played before the phones join."""
    roster = tmp_path / "roster.toml"
    roster.write_text(ROSTER.read_text().replace('dice = "table"', 'dice = "either"'))
    db = tmp_path / "club.db"
    assert morale(db, "new", str(roster), "--confirmation").exit_code == 0
    for side, seed in SEEDS.items():
        assert morale(db, "seed", BATTLE, side, "--commit", commitment(seed)).exit_code == 0
    for side, seed in SEEDS.items():
        assert morale(db, "seed", BATTLE, side, "--reveal", seed).exit_code == 0
    for _ in range(6):  # movement, psychic and shooting: nothing in them for this test
        assert morale(db, "next-phase", BATTLE).exit_code == 0
    return db


def recorded(phone, seq: int) -> None:
    """The phone shows the board after event `seq`, and has its every write answered: the notice of
    the last one is on the screen, so nothing moves under the next tap."""
    phone.recorded(seq)
    phone.page.wait_for_selector("body[data-unsent='0']", timeout=WAIT_MS)


def fits(phone, tab: str, name: str = "") -> None:
    """The phone's screen `tab` fits a phone (moved to first if need be: a move redraws the screen);
    photographed as `name`, if given."""
    if phone.page.get_attribute("body", "data-tab") != tab:
        phone.tab(tab)
    if name:
        screenshot(phone.page, f"confirm-{name}")
    assert layout_problems(phone.page) + serious_violations(phone.page) == [], tab


def awaiting(phone, seq: int):
    """The entry `seq` in the bar of what awaits this phone's confirmation, once the page shows it."""
    claim = phone.page.locator(f"#claims-bar li.claim[data-seq='{seq}']")
    claim.wait_for(timeout=WAIT_MS)
    return claim


def mark(phone, seq: int) -> str:
    """How the phone's Log marks entry `seq`: awaiting, confirmed, disputed, stands (or struck)."""
    phone.tab("log")
    entry = phone.page.locator(f"#log ol.log > li[data-seq='{seq}']")
    if "struck" in (entry.get_attribute("class") or ""):
        return "struck"
    return entry.locator(".claim-mark").get_attribute("data-claim")


def one_line(locator) -> bool:
    """Whether the element's own words lie on one line (words that wrap have a box per line)."""
    return locator.evaluate(
        """e => {
          const tops = new Set();
          for (const node of e.childNodes) {
            if (node.nodeType !== Node.TEXT_NODE) continue;
            const range = document.createRange();
            range.selectNodeContents(node);
            for (const box of range.getClientRects()) tops.add(Math.round(box.top));
          }
          return tops.size === 1;
        }"""
    )


def turn_mark(phone, side: str) -> str:
    """What the board says beside the heading of `side`, whose turn it is."""
    phone.tab("board")
    return phone.page.locator(f"#board section.team[data-side='{side}'] .turn-mark").inner_text().strip()


def test_two_players_confirm_dispute_strike_and_undo_and_a_judge_checks_the_battle(browser, tmp_path):
    db = battle_without_referee(tmp_path)
    start = json.loads(morale(db, "log", BATTLE, "--json").stdout)[-1]["seq"]

    with TableNode(str(db), tmp_path / "node.log", BATTLE) as node:
        _referee, imperium_url, orks_url, _spectator = node.join_urls
        contexts, phones, errors = [], {}, []
        for side, url in (("imperium", imperium_url), ("orks", orks_url)):
            context, phone = joined(browser, url)
            phone.page.on("pageerror", lambda error: errors.append(str(error)))
            contexts.append(context)
            phones[side] = phone
        imperium, orks = phones["imperium"], phones["orks"]
        assert imperium.page.locator("#tab-disputes").is_visible()
        # Nothing disputed yet: the screen says so, in a sentence, and no rule ID leads it.
        imperium.tab("disputes")
        empty = [line for line in imperium.page.locator("#disputes").inner_text().splitlines() if line]
        assert empty == ["Disputes", "No entry of this battle has been disputed."]
        fits(imperium, "disputes")

        # No referee: the Imperium's player starts their own assault phase and declares the charge.
        imperium.next_phase()
        recorded(imperium, start + 1)
        # Whose turn it is, in the words of each phone: the Imperium's own phone says it is theirs.
        recorded(orks, start + 1)
        assert turn_mark(imperium, "imperium") == "· your turn"
        assert turn_mark(orks, "imperium") == "· their turn"
        assert orks.page.locator("#record #next-phase").count() == 0  # not the orks' phase to move
        imperium.charge(**CHARGE)
        charge = start + 2
        recorded(imperium, charge)
        assert "awaits the orks player's confirmation" in imperium.page.locator("#claims-bar").inner_text()

        # The orks' phone shows the charge waiting for them, on every screen; they confirm it.
        recorded(orks, charge)
        claim = awaiting(orks, charge)
        assert "Tactical Squad Varro declares a charge on Nobz" in claim.inner_text()
        fits(orks, "board", "awaiting")
        claim.locator("button.confirm-one").click()
        recorded(orks, charge + 1)
        assert orks.page.locator("#notice p").first.inner_text() == f"You confirmed event {charge}."
        assert orks.page.locator("#claims-bar").is_hidden()
        assert mark(orks, charge) == "confirmed"

        # A mistyped casualty, undone after seeing what it strikes, and typed again.
        orks.casualties("nobz", 3, "close_combat")
        mistyped = charge + 2
        recorded(orks, mistyped)
        orks.tab("log")
        orks.page.locator("#log button.undo-last").click()
        undo = orks.page.locator("#log .undo .confirm")
        assert f"#{mistyped} Nobz loses 3 models to close combat" in undo.inner_text()
        fits(orks, "log")
        undo.locator("button.undo-it").click()
        recorded(orks, mistyped + 1)
        assert mark(orks, mistyped) == "struck"
        orks.casualties("nobz", 2, "close_combat")
        casualty = mistyped + 2
        recorded(orks, casualty)

        # The Imperium's player enters the combat result (there is no referee to), which plays on from
        # the orks' loss and so confirms it; the orks dispute the result, and roll the test it caused.
        recorded(imperium, casualty)
        imperium.combat(COMBAT)
        combat = casualty + 1
        recorded(imperium, combat)
        assert mark(imperium, casualty) == "confirmed"
        dispute = awaiting(orks, combat)
        dispute.locator("button.dispute").click()
        asked = dispute.locator(".confirm")
        # The form leads with what a dispute does, the rule ID after it; its own-words box is labelled.
        assert asked.inner_text().startswith(f"Dispute event {combat}? Play goes on, but the phase does not end")
        assert asked.locator("label", has_text="Another reason").is_visible()
        fits(orks, "board", "dispute-reason")
        asked.get_by_label("Another reason").fill("the nobz struck back: one wound each")
        asked.locator("button.reason-own").click()
        disputed = combat + 1
        recorded(orks, disputed)
        assert orks.page.locator("#notice p").first.inner_text() == f"You disputed event {combat}."
        due = orks.page.locator("#tab-due")  # the tests the result made due, counted on a one-line tab
        assert due.locator(".badge").inner_text() == "1" and one_line(due)
        rolls = []
        while orks.page.locator("#due .test[data-unit='nobz']").count():
            test = orks.page.locator("#due .test[data-unit='nobz']").first.get_attribute("data-test")
            orks.engine_roll("nobz", test)
            rolls.append(orks.last + 1)
            recorded(orks, rolls[-1])
            orks.tab("due")

        # The Imperium's phone: the phase waits for the dispute; its Disputes screen offers the strike.
        recorded(imperium, rolls[-1])
        imperium.tab("record")
        assert imperium.page.locator("#clock-waits[data-waits='disputes']").is_visible()
        # The Imperium's player is told it is their entry that is disputed, by whom, why, and what to do.
        mine = imperium.page.locator(f"#claims-bar .disputed-mine[data-entry='{combat}']").inner_text()
        assert mine.startswith(f"Your entry #{combat} (")
        assert ") is disputed by orks: the nobz struck back: one wound each." in mine
        assert "strike your entry on the Disputes screen" in mine
        answer = imperium.page.locator("#claims-bar button.see-disputes").inner_text()
        assert answer == "Strike my entry, or see the disputes"
        # The count of open disputes rides on the tab, whose label keeps to one line.
        tab = imperium.page.locator("#tab-disputes")
        assert tab.locator(".badge").inner_text() == "1" and one_line(tab)
        fits(imperium, "record", "disputed-mine")
        assert mark(imperium, combat) == "disputed"
        imperium.tab("disputes")
        assert imperium.page.locator("#disputes .hint").first.inner_text().startswith("A dispute ends when")
        row = imperium.page.locator(f"ol.disputes > li[data-entry='{combat}']")
        assert row.get_attribute("data-status") == "open"
        assert "the nobz struck back: one wound each" in row.inner_text()
        assert row.locator("button.withdraw").count() == 0  # the disputer's to withdraw, not the claimant's
        fits(imperium, "disputes")
        row.locator("button.strike-entry").click()
        preview = row.locator(".confirm")
        preview.locator("ul.strikes li").first.wait_for(timeout=WAIT_MS)
        assert "These later entries stood on it and are struck with it:" in preview.inner_text()
        for seq in rolls:
            assert f"#{seq} Nobz rolls for" in preview.inner_text()
        fits(imperium, "disputes", "strike-preview")
        preview.locator("button.reason", has_text="the other side was right").click()
        struck = rolls[-1] + 1 + len(rolls)  # the combat and the rolls, latest first, one retraction each
        recorded(imperium, struck)
        assert imperium.page.locator("#notice p").first.inner_text() == f"Event {combat} is struck."

        # Both phones: the dispute ended with the strike; the orks' only actions are gone.
        recorded(orks, struck)
        orks.tab("disputes")
        ended = orks.page.locator(f"ol.disputes > li[data-entry='{combat}']")
        assert ended.get_attribute("data-status") == "struck"
        assert "It was struck by imperium player" in ended.inner_text()
        assert ended.locator("button").count() == 0
        fits(orks, "disputes", "struck")
        assert mark(orks, combat) == "struck" and all(mark(orks, seq) == "struck" for seq in rolls)

        # The phase ends on the Imperium's phone: nothing awaits and no dispute is open.
        fits(imperium, "record")
        imperium.next_phase()
        recorded(imperium, struck + 1)
        for side, phone in phones.items():
            recorded(phone, struck + 1)
            fits(phone, "log", f"log-{side}")
        for context in contexts:
            context.close()
        assert errors == []

    # `morale disputes` and the report: the one dispute, and how it ended.
    disputes = json.loads(morale(db, "disputes", BATTLE, "--json").stdout)
    assert [(d["entry"], d["side"], d["status"]) for d in disputes["disputes"]] == [(combat, "orks", "struck")]
    assert disputes["awaiting"] == []
    report = tmp_path / "report.html"
    assert morale(db, "report", BATTLE, "-o", str(report)).exit_code == 0
    html = report.read_text()
    assert f"Event {combat} was disputed by orks: the nobz struck back: one wound each." in html.replace("&#x27;", "'")

    # Every die recomputed from the revealed secret and both players' seeds.
    assert morale(db, "reveal", BATTLE).exit_code == 0
    verified = morale(db, "verify", BATTLE, "--json")
    assert verified.exit_code == 0, verified.output
    checked = json.loads(verified.stdout)
    assert checked["ok"] and checked["engine_rolls"] == len(rolls) == checked["engine_rolls_checked"]

    # The export, handed to a judge with the store's public key: it verifies offline, with no store,
    # and an edited event in it is refused at its seq.
    exported = tmp_path / "battle.ndjson"
    assert morale(db, "export", BATTLE, "-o", str(exported)).exit_code == 0
    key = tmp_path / "club.pub"
    key.write_text(morale(db, "key", "show", "--pem").stdout)
    whole = morale_command("verify", str(exported), "--key", str(key))
    assert whole.exit_code == 0, whole.output
    lines = exported.read_text().splitlines()
    edited = json.loads(lines[casualty - 1])
    assert edited["seq"] == casualty
    edited["event"]["count"] = 1
    lines[casualty - 1] = encode(edited).decode()
    exported.write_text("\n".join(lines) + "\n")
    tampered = morale_command("verify", str(exported), "--key", str(key))
    assert tampered.exit_code == 2
    assert f"line {casualty} (seq {casualty}): hash does not match the event's bytes" in tampered.output


def test_striking_a_disputed_entry_strikes_what_stood_on_it_and_leaves_the_dispute_on_the_record(tmp_path):
    """The dispute names the entry, and the strike of the entry ends it: the dispute is no follower
    of the entry (answers are never struck), where the roll the entry caused is."""
    db = battle_without_referee(tmp_path)
    assert morale(db, "next-phase", BATTLE).exit_code == 0  # the assault phase
    combat = {"type": "combat_resolved", "sides": COMBAT}
    assert morale(db, "append", BATTLE, "--side", "imperium", "-j", json.dumps(combat)).exit_code == 0
    entry = json.loads(morale(db, "log", BATTLE, "--json").stdout)[-1]["seq"]
    assert morale(db, "dispute", BATTLE, str(entry), "--reason", "one wound each", "--side", "orks").exit_code == 0
    roll = {"type": "dice_rolled", "unit": "nobz", "test": "morale", "dice": [3, 3]}
    assert morale(db, "append", BATTLE, "--side", "orks", "-j", json.dumps(roll)).exit_code == 0
    struck = morale(db, "strike", BATTLE, str(entry), "--reason", "they were right", "--yes")
    assert struck.exit_code == 0, struck.output
    assert f"Event {entry + 2} is struck from the log" in struck.stdout
    assert f"Event {entry + 1} is struck" not in struck.stdout  # the dispute stays, ended
    [dispute] = json.loads(morale(db, "disputes", BATTLE, "--json").stdout)["disputes"]
    assert (dispute["seq"], dispute["status"], dispute["ruling"]) == (entry + 1, "struck", "they were right")


def test_a_dispute_withdrawn_by_its_disputer_and_one_the_referee_rules_stands(browser, served):  # noqa: F811
    """The other two endings, each on the phone of whoever may end it: the orks' player withdraws
    their dispute, and a referee (called over) rules that the next disputed entry stands."""
    server, http = served
    body = creation_body()
    body["started"] |= {"confirmation": True}
    tokens = http.post("/battles", json=body).json()["tokens"]
    imperium, orks = tokens["players"]["imperium"], tokens["players"]["orks"]
    start = last_seq(server.url, BATTLE, imperium)
    clock = http.post(f"/battles/{BATTLE}/next-phase", json={"expected_seq": start}, headers=bearer(imperium))
    assert clock.status_code == 201, clock.text  # a player runs their own side's clock here
    loss = {"type": "casualties_suffered", "unit": "kraak", "count": 1}
    for seq in range(start + 1, start + 4):  # three claims, one loss each
        assert post_events(server.url, BATTLE, imperium, [loss], seq).status_code == 201
    first = start + 2

    context, page, errors = open_console(browser, server.url, BATTLE, orks, PHONE)
    phone = Console(page, wide=False)
    assert "3 entries await your confirmation" in awaiting(phone, first + 2).page.locator("#claims-bar").inner_text()
    claim = awaiting(phone, first)
    claim.locator("button.dispute").click()
    claim.locator(".confirm button.reason", has_text="the count is wrong").click()
    recorded(phone, first + 3)
    page.locator("#claims-bar button.confirm-all", has_text="Confirm all 2").click()
    recorded(phone, first + 4)
    assert page.locator("#notice p").first.inner_text() == f"You confirmed events {first + 1}, {first + 2}."
    assert mark(phone, first + 1) == mark(phone, first + 2) == "confirmed"
    confirmed = json.loads(http.get(f"/battles/{BATTLE}/log?after={first + 3}", headers=bearer(orks)).text)[0]
    assert confirmed["event"] == {"type": "entry_confirmed", "seqs": [first + 1, first + 2]}
    assert "1 dispute is open" in page.locator("#claims-bar").inner_text()
    phone.tab("disputes")
    row = page.locator(f"ol.disputes > li[data-entry='{first}']")
    assert row.locator("button.strike-entry").count() == 0  # the entry is the Imperium's to strike
    row.locator("button.withdraw").click()
    row.locator(".confirm").get_by_label("Another reason").fill("I counted again: one is right")
    row.locator(".confirm button.reason-own").click()
    recorded(phone, first + 5)
    ended = page.locator(f"ol.disputes > li[data-entry='{first}']")
    assert ended.get_attribute("data-status") == "withdrawn"
    assert "orks withdrew the dispute at" in ended.inner_text()
    assert mark(phone, first) == "stands"
    context.close()
    assert errors == []

    second = first + 6
    assert post_events(server.url, BATTLE, imperium, [loss], first + 5).status_code == 201
    disputed = {"type": "entry_disputed", "seq": second, "reason": "kraak was out of sight"}
    assert post_events(server.url, BATTLE, orks, [disputed], second).status_code == 201
    context, page, errors = open_console(browser, server.url, BATTLE, tokens["referee"], PHONE)
    referee = Console(page, wide=False)
    referee.tab("record")
    assert page.locator("#clock-waits[data-waits='disputes']").is_visible()  # the phase waits
    referee.tab("disputes")
    row = page.locator(f"ol.disputes > li[data-entry='{second}']")
    assert row.locator("button.strike-entry").count() == 1  # the referee may strike it too
    row.locator("button.stands").click()
    assert layout_problems(page) == []
    row.locator(".confirm button.reason", has_text="the referee's call at the table").click()
    recorded(referee, second + 2)
    assert page.locator("#notice p").first.inner_text() == f"Event {second} stands, and its dispute is ended."
    assert page.locator(f"ol.disputes > li[data-entry='{second}']").get_attribute("data-status") == "stands"
    assert mark(referee, second) == "stands"
    # Called over, the referee confirms too (never disputes: they rule or strike).
    assert post_events(server.url, BATTLE, imperium, [loss], second + 2).status_code == 201
    claim = awaiting(referee, second + 3)
    assert page.locator("#notice").is_hidden()  # what the referee did is old news once the next claim is in
    assert "1 entry awaits a player's confirmation" in page.locator("#claims-bar").inner_text()
    assert claim.locator("button.dispute").count() == 0
    referee.tab("record")
    assert page.locator("#clock-waits[data-waits='claims']").is_visible()
    claim.locator("button.confirm-one").click()
    recorded(referee, second + 4)
    assert page.locator("#claims-bar").is_hidden()
    referee.tab("record")
    assert page.locator("#record #next-phase").is_enabled()  # nothing holds the phase now
    context.close()
    assert errors == []
