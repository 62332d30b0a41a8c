"""The report as one HTML page: the styles and charts inline, nothing fetched, nothing run."""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from importlib import resources

from morale.core import catalogue
from morale.events.codec import encode
from morale.events.signing import PublicKey, PublicKeyLine, SignedHead, SignedHeadLine
from morale.projections.board import Board
from morale.projections.luck import PERCENTILE_NAME, PERCENTILE_WORDS
from morale.projections.narrative import Line
from morale.projections.report import Report, Turn

from .charts import luck_chart, state_chart


def page(data: Report, made_by: str, signed: Sequence[tuple[SignedHead, str]] = ()) -> str:
    """The report's HTML. `signed`: the heads signed at the battle's last event, each with the PEM of
    the public key it verifies against (none: the store did not sign it)."""
    css = resources.files(__package__).joinpath("report.css").read_text(encoding="utf-8")
    turns = "".join(f'<a href="#turn-{t.number}">Turn {t.number}</a>' for t in data.turns)
    if data.claims is not None:
        turns += '<a href="#disputes">Disputes</a>'
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(data.title)}: battle report</title>",
        f"<style>{css}</style>",
        "</head>",
        f'<body data-battle="{_e(data.battle)}">',
        "<header>",
        f"<h1>{_e(data.title)}</h1>",
        f'<p class="meta">{_e(data.ruleset)} · {_e(" against ".join(data.sides))} · {data.events} events</p>',
        f'<p class="meta">Head hash <span class="hash" id="head">{_e(data.head)}</span>: '
        f"<code>morale verify {_e(data.battle)}</code> prints the same for the log this report was made from.</p>",
        "</header>",
        f'<nav><a href="#summary">Summary</a><a href="#charts">Charts</a>{turns}</nav>',
        _summary(data),
        _charts(data),
        *(_turn(data, turn) for turn in data.turns),
        _disputes(data),
        _signature(data, signed),
        f"<footer>Made by {_e(made_by)} from {data.events} events of battle {_e(data.battle)}; "
        f'head hash <span class="hash">{_e(data.head)}</span>.</footer>',
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _disputes(data: Report) -> str:
    """Every dispute and how it ended, and the claims left unconfirmed, in a battle whose players
    confirm each other's entries: what a judge reads first."""
    view = data.claims
    if view is None:
        return ""
    items = "".join(
        f'<li data-seq="{row.seq}" data-entry="{row.entry}" data-status="{_e(row.status)}">'
        f'<span class="seq">#{row.seq}</span> {_e(row.said)}'
        f'<br><span class="meta">The entry, #{row.entry}: {_e(row.entry_said)} (entered by {_e(row.entered_by)}); '
        f"disputed by {_e(row.disputed_by)}.</span></li>"
        for row in view.disputes
    )
    disputes = f'<ul class="disputes">{items}</ul>' if items else "<p>No entry of this battle was disputed.</p>"
    awaiting = ""
    if view.awaiting:
        rows = "".join(
            f'<li data-seq="{row.seq}">#{row.seq} {_e(row.said)}: a claim of {_e(row.side)}, for {_e(row.awaits)} '
            "to confirm</li>"
            for row in view.awaiting
        )
        awaiting = f"<p>Still awaiting confirmation when this report was made:</p><ul>{rows}</ul>"
    return f'<section id="disputes"><h2>Disputes</h2>{disputes}{awaiting}</section>'


def _signature(data: Report, signed: Sequence[tuple[SignedHead, str]]) -> str:
    """The signed head, its key's fingerprint, and the lines `morale export` writes for it, so a judge
    can check that the export they were handed ends at the head this report shows."""
    if not signed:
        return (
            '<section id="signature"><h2>Signature</h2><p>The head of this report is not signed: '
            "the store that made it has no signing key.</p></section>"
        )
    items = []
    for head, pem in signed:
        lines = encode(PublicKeyLine(PublicKey(key=head.key, pem=pem))).decode()
        lines += "\n" + encode(SignedHeadLine(head)).decode()
        items.append(
            f'<p>The store signed the head at seq {head.seq} with key <span class="hash key">{_e(head.key)}</span>.</p>'
            f"<details><summary>Its public key and signed head, as <code>morale export</code> writes them</summary>"
            f'<pre class="signed-head">{_e(lines)}</pre></details>'
        )
    return (
        '<section id="signature"><h2>Signature</h2>'
        + "".join(items)
        + f"<p>To check the battle this report tells of: <code>morale verify {_e(data.battle)}.ndjson --key "
        "PUBLIC-KEY</code> on its export, with the public key the store's keeper gave you; the export must "
        "end at this head hash.</p></section>"
    )


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _summary(data: Report) -> str:
    rows = "".join(
        f'<tr data-side="{_e(s.side)}"><td>{_e(s.side)}</td><td class="num">{s.tests}</td>'
        f'<td class="num">{s.expected_passes:.2f}</td><td class="num">{s.passes}</td>'
        f'<td class="num percentile">{100 * s.percentile:.1f}%</td><td>{_e(s.verdict)}</td></tr>'
        for s in data.luck
    )
    final = data.turns[-1].board if data.turns else None
    return (
        '<section id="summary"><h2>Summary</h2>'
        "<h3>Luck of the morale dice</h3>"
        f"<p>Each side's rolled tests against the exact chance each had of passing. {_e(PERCENTILE_WORDS)}</p>"
        + _wide(
            "Luck of the morale dice",
            '<table id="luck"><thead><tr><th>side</th><th>tests rolled</th><th>expected passes</th><th>passes</th>'
            f"<th>{_e(PERCENTILE_NAME)}</th><th>verdict</th></tr></thead><tbody>{rows}</tbody></table>",
        )
        + (f"<h3>The board at the end</h3>{_board(final, 'final-board', 'The board at the end')}" if final else "")
        + "</section>"
    )


def _charts(data: Report) -> str:
    states = "".join(
        _chart(f"states-{side}", f"{side}: each unit's state at every phase end", state_chart(data, side))
        for side in data.sides
    )
    luck = _chart("luck", "Cumulative luck", luck_chart(data))
    return f'<section id="charts"><h2>Charts</h2>{states}{luck}</section>'


def _chart(name: str, label: str, svg: str) -> str:
    """A chart in a box of its own: never drawn narrower than its text can be read (report.css), it
    scrolls sideways on a phone, as a named region a keyboard can reach."""
    return f'<div class="chart" data-chart="{_e(name)}" role="region" aria-label="{_e(label)}" tabindex="0">{svg}</div>'


def _turn(data: Report, turn: Turn) -> str:
    if turn.over:
        board = f"The board at the end of turn {turn.number}"
    else:  # the log ends inside this turn: there is no end of it to show yet
        board = f"The board after event {turn.board.seq}, with turn {turn.number} still being played"
    return (
        f'<section id="turn-{turn.number}" data-turn="{turn.number}"><h2>Turn {turn.number}</h2>'
        f"{_story(turn.lines, data.struck)}"
        f"<h3>Tests in turn {turn.number}</h3>{_tests(data, turn)}"
        f"<h3>{_e(board)}</h3>"
        f"{_board(turn.board, f'board-{turn.number}', board)}"
        "</section>"
    )


def _story(lines: list[Line], struck: dict[int, str]) -> str:
    items = []
    for line in lines:
        if line.kind == "heading":
            if items:
                items.append("</ol>")
            by = f' <span class="by">{_e(line.by)}</span>' if line.by else ""
            items.append(f'<h3 data-seq="{line.seq}">{_e(line.text)}{by}</h3><ol class="story">')
        elif line.kind == "event":
            if not items:
                items.append('<ol class="story">')
            by = f' <span class="by">{_e(line.by)}</span>' if line.by else ""
            said, kind = f"{_e(line.text)}{by}", "event"
            if line.seq in struck:  # crossed out, with who struck it, where and why
                said = f'<del>{_e(line.text)}</del>{by} <span class="struck-by">{_e(struck[line.seq])}</span>'
                kind = "event struck"
            items.append(f'<li class="{kind}" data-seq="{line.seq}"><span class="seq">{line.seq}</span>{said}</li>')
        else:
            if not items:
                items.append('<ol class="story">')
            rules = ", ".join(_rule(r) for r in line.rules)
            items.append(f'<li class="outcome">{_e(line.text)} {rules}</li>')
    return "".join(items) + ("</ol>" if items else "")


def _rule(rule: str) -> str:
    title = catalogue.title(rule)
    return f'<span class="rule" title="{_e(title)}">[{_e(rule)}]</span>'


def _tests(data: Report, turn: Turn) -> str:
    if not turn.tests:
        return "<p>No test fell due.</p>"
    names = {series.unit: series.name for series in data.series}
    rows = []
    for t in turn.tests:
        modifiers = "; ".join(
            f"{m['value']:+d} {m['reason']}" + (f" (not counted: {m['ignored_by']})" if m["ignored_by"] else "")
            for m in _json(t["modifiers"])
        )
        dice = t["rolled"] or ""  # two opposed rolls side by side, never one sum (projections/sql_rows.py)
        chance = f"{100 * t['chance']:.1f}%" if t["chance"] is not None else ""
        cells = (
            ("due at", "num", str(t["due_at"])),
            ("unit", "", _e(names.get(t["unit"], t["unit"]))),
            ("test", "", _e(t["test"].replace("_", " "))),
            ("why", "", _rule(t["trigger"])),
            ("target", "num", "" if t["target"] is None else str(t["target"])),
            ("modifiers", "", _e(modifiers)),
            ("chance of passing", "num odds", chance),
            ("dice", "num dice", _e(dice)),
            ("total", "num", "" if t["total"] is None else str(t["total"])),
            ("result", f"result-{_e(t['result'])}", _e(t["result"])),
            ("by", "", _rule(t["rule"]) if t["rule"] else ""),
        )
        rows.append(
            f'<tr data-test="{t["id"]}" data-unit="{_e(t["unit"])}" data-settled="{t["settled_at"] or ""}">'
            + "".join(_cell(label, kind, html) for label, kind, html in cells)
            + "</tr>"
        )
    head = "".join(f"<th>{label}</th>" for label in TEST_COLUMNS)
    table = f'<table class="tests"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    return _wide(f"Tests in turn {turn.number}", table)


TEST_COLUMNS = (
    "due at",
    "unit",
    "test",
    "why",
    "target",
    "modifiers",
    "chance of passing",
    "dice",
    "total",
    "result",
    "by",
)


def _cell(label: str, kind: str, html: str) -> str:
    """A cell of the tests table, named by its column (`data-label`): on a phone each test reads as a
    card, one named line a cell, and an empty cell is left out (report.css)."""
    classes = f' class="{kind}"' if kind else ""
    return f'<td{classes} data-label="{label}">{html}</td>'


def _board(view: Board, ident: str, label: str) -> str:
    rows = "".join(
        f'<tr data-unit="{_e(u.unit)}"><td>{_e(u.side)}</td><td>{_e(u.name)}</td>'
        f'<td class="state" data-state="{_e(u.state)}">{_e(u.state_name)}</td>'
        f'<td class="num">{u.models}/{u.starting_models}</td>'
        f"<td>{_e('; '.join(r.said for r in u.restrictions))}</td>"
        f"<td>{_e('; '.join(u.due))}</td></tr>"
        for u in view.units
    )
    head = "<tr><th>side</th><th>unit</th><th>state</th><th>models</th><th>restrictions</th><th>due</th></tr>"
    return _wide(label, f'<table class="board" id="{ident}"><thead>{head}</thead><tbody>{rows}</tbody></table>')


def _wide(label: str, table: str) -> str:
    """A table in a box of its own that scrolls sideways where the screen is narrower than the table
    (a phone), so the page never does; a named region a keyboard can reach and scroll (tabindex)."""
    return f'<div class="wide" role="region" aria-label="{_e(label)}" tabindex="0">{table}</div>'


def _json(text: str | None) -> list:
    return json.loads(text) if text else []
