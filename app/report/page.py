"""The report as one HTML page: the styles and charts inline, nothing fetched, nothing run."""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from importlib import resources

from morale.app.language import current, say
from morale.core import catalogue
from morale.core.words import Words, counted, in_book
from morale.events.codec import encode
from morale.events.signing import PublicKey, PublicKeyLine, SignedHead, SignedHeadLine
from morale.projections.board import Board
from morale.projections.claims import DisputeRow
from morale.projections.luck import PERCENTILE_NAME, PERCENTILE_WORDS
from morale.projections.narrative import Line
from morale.projections.report import Report, Turn

from .charts import luck_chart, state_chart, state_chart_title


def page(data: Report, made_by: str, signed: Sequence[tuple[SignedHead, str]] = ()) -> str:
    """The report's HTML. `signed`: the heads signed at the battle's last event, each with the PEM of
    the public key it verifies against (none: the store did not sign it)."""
    css = resources.files(__package__).joinpath("report.css").read_text(encoding="utf-8")
    turns = "".join(f'<a href="#turn-{t.number}">{_e(_turn_named(t.number))}</a>' for t in data.turns)
    if data.claims is not None:
        turns += f'<a href="#disputes">{_e(DISPUTES)}</a>'
    title = Words("{title}: battle report", title=_e(data.title))
    sides = Words("{first} against {second}", first=data.sides[0], second=data.sides[-1])
    meta = Words(
        "{ruleset} · {sides} · {events}",
        ruleset=_e(data.ruleset),
        sides=_e(sides),
        events=counted("{n} event", "{n} events", n=data.events),
    )
    # The markup a sentence holds is a value of it (its words alone are the catalogue's).
    head_hash, verify = f'<span class="hash" id="head">{_e(data.head)}</span>', _code(f"morale verify {data.battle}")
    head = Words(
        "Head hash {hash}: {command} prints the same for the log this report was made from.",
        hash=head_hash,
        command=verify,
    )
    footer_hash = f'<span class="hash">{_e(data.head)}</span>'
    made = counted(
        "Made by {maker} from {n} event of battle {battle}; head hash {hash}.",
        "Made by {maker} from {n} events of battle {battle}; head hash {hash}.",
        n=data.events,
        maker=_e(made_by),
        battle=_e(data.battle),
        hash=footer_hash,
    )
    parts = [
        "<!doctype html>",
        f'<html lang="{_e(current())}"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{say(title)}</title>",
        f"<style>{css}</style>",
        "</head>",
        f'<body data-battle="{_e(data.battle)}">',
        "<header>",
        f"<h1>{_e(data.title)}</h1>",
        f'<p class="meta">{say(meta)}</p>',
        f'<p class="meta">{say(head)}</p>',
        "</header>",
        f'<nav><a href="#summary">{_e(SUMMARY)}</a><a href="#charts">{_e(CHARTS)}</a>{turns}</nav>',
        _summary(data),
        _charts(data),
        *(_turn(data, turn) for turn in data.turns),
        _disputes(data),
        _signature(data, signed),
        f"<footer>{say(made)}</footer>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


# The page's headings (a Words call inside an f-string is not extracted for the catalogue: none is).
SUMMARY, CHARTS, DISPUTES, SIGNATURE = Words("Summary"), Words("Charts"), Words("Disputes"), Words("Signature")
NO_TEST = Words("No test fell due.")
PUBLIC_KEY = Words("PUBLIC-KEY")  # in a command to type: where the reader puts the key they were given


def _turn_named(number: int) -> Words:
    return Words("Turn {number}", number=number)


def _disputes(data: Report) -> str:
    """Every dispute and how it ended, and the claims left unconfirmed, in a battle whose players
    confirm each other's entries: what a judge reads first."""
    view = data.claims
    if view is None:
        return ""
    items = "".join(
        f'<li data-seq="{row.seq}" data-entry="{row.entry}" data-status="{_e(row.status)}">'
        f'<span class="seq">#{row.seq}</span> {_e(row.said)}'
        f'<br><span class="meta">{say(_entry_words(row))}</span></li>'
        for row in view.disputes
    )
    nothing = _e(Words("No entry of this battle was disputed."))
    disputes = f'<ul class="disputes">{items}</ul>' if items else f"<p>{nothing}</p>"
    awaiting = ""
    if view.awaiting:
        rows = "".join(
            f'<li data-seq="{row.seq}">{say(_awaiting_words(row.seq, row.said, row.side, row.awaits))}</li>'
            for row in view.awaiting
        )
        still = _e(Words("Still awaiting confirmation when this report was made:"))
        awaiting = f"<p>{still}</p><ul>{rows}</ul>"
    return f'<section id="disputes"><h2>{_e(DISPUTES)}</h2>{disputes}{awaiting}</section>'


def _entry_words(row: DisputeRow) -> Words:
    return Words(
        "The entry, #{entry}: {said} (entered by {entered_by}); disputed by {disputed_by}.",
        entry=row.entry,
        said=_e(row.entry_said),
        entered_by=_e(row.entered_by),
        disputed_by=_e(row.disputed_by),
    )


def _awaiting_words(seq: int, said: str, side: str, awaits: str) -> Words:
    return Words(
        "#{seq} {said}: a claim of {side}, for {awaits} to confirm",
        seq=seq,
        said=_e(said),
        side=_e(side),
        awaits=_e(awaits),
    )


def _signature(data: Report, signed: Sequence[tuple[SignedHead, str]]) -> str:
    """The signed head, its key's fingerprint, and the lines `morale export` writes for it, so a judge
    can check that the export they were handed ends at the head this report shows."""
    heading = f"<h2>{_e(SIGNATURE)}</h2>"
    if not signed:
        unsigned = Words("The head of this report is not signed: the store that made it has no signing key.")
        return f'<section id="signature">{heading}<p>{_e(unsigned)}</p></section>'
    items = []
    for head, pem in signed:
        lines = encode(PublicKeyLine(PublicKey(key=head.key, pem=pem))).decode()
        lines += "\n" + encode(SignedHeadLine(head)).decode()
        key_html = f'<span class="hash key">{_e(head.key)}</span>'
        key = Words("The store signed the head at seq {seq} with key {key}.", seq=head.seq, key=key_html)
        summary = Words("Its public key and signed head, as {command} writes them", command=_code("morale export"))
        items.append(
            f"<p>{say(key)}</p><details><summary>{say(summary)}</summary>"
            f'<pre class="signed-head">{_e(lines)}</pre></details>'
        )
    check = Words(
        "To check the battle this report tells of: {command} on its export, with the public key the store's "
        "keeper gave you; the export must end at this head hash.",
        command=_code(f"morale verify {data.battle}.ndjson --key {say(PUBLIC_KEY)}"),
    )
    return f'<section id="signature">{heading}' + "".join(items) + f"<p>{say(check)}</p></section>"


def _code(command: str) -> str:
    return f"<code>{_e(command)}</code>"


def _e(text: object) -> str:
    """Text for the page, escaped: `Words` said in the reader's language."""
    return escape(say(text) if isinstance(text, str) else str(text), quote=True)


def _passes(expected: float) -> Words:
    return Words("{value:.2f}", value=expected)


def _percent(chance: float) -> str:
    return _e(Words("{percent:.1f}%", percent=100 * chance))


LUCK_COLUMNS = (
    Words("side"),
    Words("tests rolled"),
    Words("expected passes"),
    Words("passes"),
    PERCENTILE_NAME,
    Words("verdict"),
)


def _summary(data: Report) -> str:
    rows = "".join(
        f'<tr data-side="{_e(s.side)}"><td>{_e(s.side)}</td><td class="num">{s.tests}</td>'
        f'<td class="num">{_e(_passes(s.expected_passes))}</td><td class="num">{s.passes}</td>'
        f'<td class="num percentile">{_percent(s.percentile)}</td><td>{_e(s.verdict)}</td></tr>'
        for s in data.luck
    )
    final = data.turns[-1].board if data.turns else None
    luck = Words("Luck of the morale dice")
    each = Words(
        "Each side's rolled tests against the exact chance each had of passing. {percentile}",
        percentile=_e(PERCENTILE_WORDS),
    )
    head = "".join(f"<th>{_e(column)}</th>" for column in LUCK_COLUMNS)
    at_the_end = Words("The board at the end")
    return (
        f'<section id="summary"><h2>{_e(SUMMARY)}</h2>'
        f"<h3>{_e(luck)}</h3>"
        f"<p>{say(each)}</p>"
        + _wide(luck, f'<table id="luck"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>')
        + (f"<h3>{_e(at_the_end)}</h3>{_board(final, 'final-board', at_the_end)}" if final else "")
        + "</section>"
    )


def _charts(data: Report) -> str:
    states = "".join(_chart(f"states-{side}", state_chart_title(side), state_chart(data, side)) for side in data.sides)
    luck = _chart("luck", Words("Cumulative luck"), luck_chart(data))
    return f'<section id="charts"><h2>{_e(CHARTS)}</h2>{states}{luck}</section>'


def _chart(name: str, label: str, svg: str) -> str:
    """A chart in a box of its own: never drawn narrower than its text can be read (report.css), it
    scrolls sideways on a phone, as a named region a keyboard can reach."""
    return f'<div class="chart" data-chart="{_e(name)}" role="region" aria-label="{_e(label)}" tabindex="0">{svg}</div>'


def _turn(data: Report, turn: Turn) -> str:
    if turn.over:
        board = Words("The board at the end of turn {turn}", turn=turn.number)
    else:  # the log ends inside this turn: there is no end of it to show yet
        board = Words(
            "The board after event {seq}, with turn {turn} still being played", seq=turn.board.seq, turn=turn.number
        )
    return (
        f'<section id="turn-{turn.number}" data-turn="{turn.number}"><h2>{_e(_turn_named(turn.number))}</h2>'
        f"{_story(turn.lines, data.struck)}"
        f"<h3>{_e(_tests_named(turn.number))}</h3>{_tests(data, turn)}"
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


def _tests_named(number: int) -> Words:
    return Words("Tests in turn {number}", number=number)


# A test's result as the tests table says it (the row's `result` is the step's status).
RESULTS = {
    "passed": Words("passed"),
    "failed": Words("failed"),
    "due": Words("due"),
    "not taken": Words("not taken"),
    "moved": Words("moved"),  # a Fall Back move's roll
}


def _modifier(value: int, reason: str, ignored_by: str) -> Words:
    if ignored_by:
        return Words("{value:+d} {reason} (not counted: {rule})", value=value, reason=reason, rule=ignored_by)
    return Words("{value:+d} {reason}", value=value, reason=reason)


def _modifiers(data: Report, t: dict) -> str:
    """The test's modifiers, each in words ("; " between them): from its step where the report has
    it (the reasons said in the reader's language), else as the row keeps them."""
    step = data.steps.get(t["id"])
    if step is not None:
        said = [_modifier(m.value, m.reason, m.ignored_by) for m in step.modifiers]
    else:
        said = [_modifier(m["value"], m["reason"], m["ignored_by"]) for m in _json(t["modifiers"])]
    return "; ".join(say(one) for one in said)


def _tests(data: Report, turn: Turn) -> str:
    if not turn.tests:
        return f"<p>{_e(NO_TEST)}</p>"
    names = {series.unit: series.name for series in data.series}
    rows = []
    for t in turn.tests:
        dice = t["rolled"] or ""  # two opposed rolls side by side, never one sum (projections/sql_rows.py)
        chance = _percent(t["chance"]) if t["chance"] is not None else ""
        result = RESULTS.get(t["result"], t["result"])
        cells = (
            (TEST_COLUMNS[0], "num", str(t["due_at"])),
            (TEST_COLUMNS[1], "", _e(names.get(t["unit"], t["unit"]))),
            (TEST_COLUMNS[2], "", _e(data.test_names.get(t["test"], t["test"].replace("_", " ")))),
            (TEST_COLUMNS[3], "", _rule(t["trigger"])),
            (TEST_COLUMNS[4], "num", "" if t["target"] is None else str(t["target"])),
            (TEST_COLUMNS[5], "", _e(_modifiers(data, t))),
            (TEST_COLUMNS[6], "num odds", chance),
            (TEST_COLUMNS[7], "num dice", _e(dice)),
            (TEST_COLUMNS[8], "num", "" if t["total"] is None else str(t["total"])),
            (TEST_COLUMNS[9], f"result-{_e(t['result'])}", _e(result)),
            (TEST_COLUMNS[10], "", _rule(t["rule"]) if t["rule"] else ""),
        )
        rows.append(
            f'<tr data-test="{t["id"]}" data-unit="{_e(t["unit"])}" data-settled="{t["settled_at"] or ""}">'
            + "".join(_cell(label, kind, html) for label, kind, html in cells)
            + "</tr>"
        )
    head = "".join(f"<th>{_e(label)}</th>" for label in TEST_COLUMNS)
    table = f'<table class="tests"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    return _wide(_tests_named(turn.number), table)


TEST_COLUMNS = (
    Words("due at"),
    Words("unit"),
    Words("test"),
    Words("why"),
    Words("target"),
    Words("modifiers"),
    Words("chance of passing"),
    Words("dice"),
    Words("total"),
    Words("result"),
    # The rule that gave the result, not who: said from the report's catalogue, whose "by" is not
    # the command line's (an author).
    in_book(Words("by"), __package__),
)


def _cell(label: str, kind: str, html: str) -> str:
    """A cell of the tests table, named by its column (`data-label`): on a phone each test reads as a
    card, one named line a cell, and an empty cell is left out (report.css)."""
    classes = f' class="{kind}"' if kind else ""
    return f'<td{classes} data-label="{_e(label)}">{html}</td>'


BOARD_COLUMNS = (
    Words("side"),
    Words("unit"),
    Words("state"),
    Words("models"),
    Words("restrictions"),
    Words("due"),
)


def _board(view: Board, ident: str, label: str) -> str:
    rows = "".join(
        f'<tr data-unit="{_e(u.unit)}"><td>{_e(u.side)}</td><td>{_e(u.name)}</td>'
        f'<td class="state" data-state="{_e(u.state)}">{_e(u.state_name)}</td>'
        f'<td class="num">{u.models}/{u.starting_models}</td>'
        f"<td>{_e('; '.join(say(r.said) for r in u.restrictions))}</td>"
        f"<td>{_e('; '.join(say(due) for due in u.due))}</td></tr>"
        for u in view.units
    )
    head = "<tr>" + "".join(f"<th>{_e(column)}</th>" for column in BOARD_COLUMNS) + "</tr>"
    return _wide(label, f'<table class="board" id="{ident}"><thead>{head}</thead><tbody>{rows}</tbody></table>')


def _wide(label: str, table: str) -> str:
    """A table in a box of its own that scrolls sideways where the screen is narrower than the table
    (a phone), so the page never does; a named region a keyboard can reach and scroll (tabindex)."""
    return f'<div class="wide" role="region" aria-label="{_e(label)}" tabindex="0">{table}</div>'


def _json(text: str | None) -> list:
    return json.loads(text) if text else []
