"""Human output of the audit tools: time travel, what-if, verify, luck, schema (explain's is
render_explain.py)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from morale.app.language import say
from morale.core.words import Words, counted
from morale.projections.board import UnitRow
from morale.projections.luck import PERCENTILE_NAME, PERCENTILE_WORDS, Luck
from morale.projections.timeline import Diff, UnitChange
from morale.projections.verify import Verification
from morale.projections.whatif import WhatIf

from .render import name_text, state_text
from .render_explain import DIM, step_lines

# What changed of a unit between two points (`UnitChange.changed`), in words.
CHANGED_WORDS = {
    "state": Words("state"),
    "models": Words("models"),
    "restrictions": Words("restrictions"),
    "due": Words("due"),
    "joined": Words("joined"),
}


def _cell(row: UnitRow | None) -> Text:
    if row is None:
        return Text(say(Words("(not yet joined)")))
    models = counted(", {n} model", ", {n} models", n=row.models)
    due = "".join("\n" + say(Words("due: {test}", test=d)) for d in row.due)
    return state_text(row.state, row.state_name) + Text(say(models) + due)


def _change_table(title: str, changes: list[UnitChange], before: str, after: str) -> Table:
    table = Table(title=title, title_justify="left")
    for column in (say(Words("unit")), say(Words("changed")), before, after):
        table.add_column(column)
    for change in changes:
        changed = ", ".join(say(CHANGED_WORDS.get(what, what)) for what in change.changed)
        table.add_row(name_text(change.name, change.unit), changed, _cell(change.before), _cell(change.after))
    return table


def print_diff(console: Console, view: Diff) -> None:
    before, after = view.before, view.after
    if not view.units:
        said = Words(
            "No unit changed between {before} (#{before_seq}) and {after} (#{after_seq}).",
            before=before.label,
            before_seq=before.seq,
            after=after.label,
            after_seq=after.seq,
        )
        console.print(say(said))
        return
    title = Words(
        "{battle}: from {before} (#{before_seq}) to {after} (#{after_seq})",
        battle=view.battle,
        before=before.label,
        before_seq=before.seq,
        after=after.label,
        after_seq=after.seq,
    )
    console.print(_change_table(say(title), view.units, say(Words("before")), say(Words("after"))))
    for change in view.units:
        console.print(Text("\n" + say(Words("why {name} changed:", name=change.name)), style="bold"))
        for step in change.why:
            step_lines(console, step, indent="  ")


def _sentences(said: list[str]) -> str:
    """What an event caused, or what was changed: each its own sentence, "; " between them."""
    return "; ".join(say(one) for one in said)


def print_what_if(console: Console, view: WhatIf) -> None:
    changes = _sentences(view.changes) or say(Words("nothing changed"))
    console.print(Text(say(Words("What if:")) + " ", style="bold") + Text(changes))
    if view.divergence is None:
        console.print(
            say(Words("The engine's conclusions are the same throughout: only the facts you changed differ."))
        )
    else:
        d = view.divergence
        console.print(Text(say(Words("First divergence at {at}:", at=d.at)) + " ", style="bold") + Text(say(d.event)))
        played, alternative = say(Words("as played:")), say(Words("alternative:"))
        width = max(len(played), len(alternative)) + 1
        nothing = say(Words("nothing"))
        console.print(Text("  " + played.ljust(width)) + Text(_sentences(d.happened) or nothing))
        console.print(Text("  " + alternative.ljust(width)) + Text(_sentences(d.instead) or nothing))
    for dropped in view.dropped:
        said = Words("dropped #{seq}: {event} ({reason})", seq=dropped.seq, event=dropped.event, reason=dropped.reason)
        console.print(Text("  " + say(said), style=DIM))
    if view.stopped:
        console.print(Text(say(Words("The alternative stops {why}", why=view.stopped)), style="yellow"))
    if view.final:
        title = say(Words("Final board: where the alternative differs"))
        console.print(_change_table(title, view.final, say(Words("as played")), say(Words("alternative"))))
    else:
        console.print(say(Words("The final board is the same.")))


def print_verification(console: Console, view: Verification) -> None:
    ok, failed = Text(say(Words("OK")), style="bold green"), Text(say(Words("FAILED")), style="bold red")
    verdict = ok if view.ok else failed
    events = counted(" ({n} event, head {head})", " ({n} events, head {head})", n=view.events, head=view.head)
    console.print(Text(f"{view.battle}: ") + verdict + Text(say(events)))
    for finding in view.findings:
        said = Words(
            "{check}: first bad event #{seq}: {message}", check=finding.check, seq=finding.seq, message=finding.message
        )
        console.print(Text("  " + say(said), style="red"))
    if view.digests_unrecorded:
        digests = Words(
            "phase-end digests: {checked} match, {unrecorded} not recorded (written before version 2)",
            checked=view.digests_checked,
            unrecorded=view.digests_unrecorded,
        )
    else:
        digests = Words("phase-end digests: {checked} match", checked=view.digests_checked)
    console.print("  " + say(digests))
    console.print("  " + say(_dice_words(view)))


def _dice_words(view: Verification) -> Words:
    table, engine, checked, secret = view.table_rolls, view.engine_rolls, view.engine_rolls_checked, view.dice_secret
    unchecked = engine - checked
    if engine and not unchecked:
        return Words(
            "dice: {table} typed in from the table, {engine} rolled by the engine, all {checked} recomputed from "
            "the {secret} secret",
            table=table,
            engine=engine,
            checked=checked,
            secret=secret,
        )
    if checked:
        return Words(
            "dice: {table} typed in from the table, {engine} rolled by the engine, {checked} recomputed from the "
            "{secret} secret and {unchecked} rolled with the secret in force (not checkable until it is revealed)",
            table=table,
            engine=engine,
            checked=checked,
            secret=secret,
            unchecked=unchecked,
        )
    if engine:
        return Words(
            "dice: {table} typed in from the table, {engine} rolled by the engine (not checkable until the secret "
            "is revealed)",
            table=table,
            engine=engine,
        )
    return Words("dice: {table} typed in from the table, {engine} rolled by the engine", table=table, engine=engine)


LUCK_COLUMNS = (Words("side"), Words("tests rolled"), Words("expected passes"), Words("passes"))
ROLL_COLUMNS = (Words("#"), Words("unit"), Words("test"), Words("dice"), Words("chance"), Words("result"))


def print_luck(console: Console, view: Luck) -> None:
    table = Table(title=say(Words("{battle}: luck of the morale dice", battle=view.battle)), title_justify="left")
    for column in (*LUCK_COLUMNS, PERCENTILE_NAME, Words("verdict")):
        table.add_column(say(column))
    for side in view.sides:
        table.add_row(
            side.side,
            str(side.tests),
            say(Words("{value:.2f}", value=side.expected_passes)),
            str(side.passes),
            say(Words("{percent:.1f}%", percent=100 * side.percentile)),
            say(side.verdict),
        )
    console.print(table)
    console.print(say(PERCENTILE_WORDS))
    rolls = Table(title=say(Words("Rolls")), title_justify="left")
    for column in ROLL_COLUMNS:
        rolls.add_column(say(column))
    for roll in view.rolls:
        rolls.add_row(
            str(roll.seq),
            roll.unit,
            roll.test,
            " + ".join(map(str, roll.dice)),
            say(Words("{percent:.1f}%", percent=100 * roll.chance)),
            say(Words("passed") if roll.passed else Words("failed")),
        )
    console.print(rolls)
