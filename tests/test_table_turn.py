"""The whole table, as a club plays it: `morale serve --table` prints a QR code per role, the
referee and each player join from the code on a phone (read as a camera reads it: support/qr.py),
and they play the Imperium's shooting and assault phases of the example battle. Each player
records for their own side only; the referee keeps the clock and resolves the combat. Afterwards
the log, in the CLI and in the referee's console, names who entered every event."""

from __future__ import annotations

import json
from pathlib import Path

from support.browser import PHONE, WAIT_MS, layout_problems
from support.cli import morale
from support.console import Console
from support.nodes import TableNode
from support.qr import on_loopback
from support.served import BATTLE, ROSTER, example_events

from morale.app.roster import load_roster

SIDE_OF = {unit.unit: unit.side for unit in load_roster(ROSTER).units}
BEFORE = 4  # the example's movement and psychic phases, typed in before the club arrives
TURN = example_events(21)[BEFORE:]  # the Imperium's shooting and assault phases


def entered_by(event: dict) -> str:
    """Whose phone records an event at this table: the clock and the combat are the referee's, a
    loss, a roll or a charge the player's whose unit it is."""
    unit = event.get("unit") or event.get("charger")
    return SIDE_OF[unit] if unit else "referee"


def joined(browser, url: str) -> tuple[object, Console]:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(on_loopback(url))
    page.wait_for_selector("body[data-ready='true'][data-logged='true']", timeout=WAIT_MS)
    return context, Console(page, wide=False)


def casualty_units(phone: Console) -> set[str]:
    """The units a phone's casualties form offers."""
    form = phone.form("casualties")
    units = form.locator("fieldset[data-name='unit'] button").evaluate_all("bs => bs.map(b => b.dataset.value)")
    return set(units)


def test_three_phones_join_from_the_printed_codes_play_a_turn_and_the_log_names_every_author(browser, tmp_path):
    db = tmp_path / "club.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    typed = tmp_path / "before.ndjson"
    typed.write_text("".join(json.dumps(event) + "\n" for event in example_events(BEFORE)))
    assert morale(db, "append", BATTLE, "--file", str(typed)).exit_code == 0
    start = json.loads(morale(db, "log", BATTLE, "--json").stdout)[-1]["seq"]

    with TableNode(str(db), tmp_path / "node.log", BATTLE) as node:
        referee_url, imperium_url, orks_url, _spectator = node.join_urls
        contexts, phones = [], {}
        for who, url in (("referee", referee_url), ("imperium", imperium_url), ("orks", orks_url)):
            context, phone = joined(browser, url)
            contexts.append(context)
            phones[who] = phone
        errors: list[str] = []
        for phone in phones.values():
            phone.page.on("pageerror", lambda error: errors.append(str(error)))

        # Each player's phone offers their own side's units only.
        assert casualty_units(phones["imperium"]) == {u for u, side in SIDE_OF.items() if side == "imperium"}
        assert casualty_units(phones["orks"]) == {u for u, side in SIDE_OF.items() if side == "orks"}

        seq = start
        for event in TURN:
            phone = phones[entered_by(event)]
            phone.recorded(seq)  # the phone has heard of the last entry, whoever made it
            phone.play(event)
            seq += 1
        for phone in phones.values():
            phone.recorded(seq)  # every phone is live at the end of the phases
            assert layout_problems(phone.page) == []

        rows = json.loads(morale(db, "log", BATTLE, "--json").stdout)
        assert [row["seq"] for row in rows] == list(range(1, seq + 1))
        # Typed before: the referee at the machine, by command and by file.
        assert {(row["author"]["role"], row["author"]["via"]) for row in rows[:start]} <= {
            ("referee", "cli"),
            ("referee", "import"),
        }
        # At the table: each entry sealed with the phone's role, side and tonight's link.
        for row, event in zip(rows[start:], TURN, strict=True):
            author, who = row["author"], entered_by(event)
            assert author["via"] == "console", row
            assert author["label"].startswith("table link "), row
            assert len(author["token"]) == 8, row
            if who == "referee":
                assert (author["role"], author.get("side", "")) == ("referee", ""), row
            else:
                assert (author["role"], author["side"]) == ("player", who), row
        # One credential a phone, and three phones.
        tokens: dict[str, set[str]] = {who: set() for who in phones}
        for row, event in zip(rows[start:], TURN, strict=True):
            tokens[entered_by(event)].add(row["author"]["token"])
        assert all(len(ids) == 1 for ids in tokens.values()) and len(set.union(*tokens.values())) == 3

        # The referee's console names the author of every event too, in the words of `morale log`.
        referee = phones["referee"]
        referee.tab("log")
        shown = dict(
            referee.page.locator("#log ol.log > li").evaluate_all(
                "items => items.map(li => [Number(li.dataset.seq), li.querySelector('.by')?.textContent ?? ''])"
            )
        )
        assert set(shown) == set(range(1, seq + 1))
        for row in rows:
            assert row["by"] and row["by"] in shown[row["seq"]], (row["seq"], shown[row["seq"]])
        for context in contexts:
            context.close()
        assert errors == []
    assert Path(db).exists()
