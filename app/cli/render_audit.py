"""Human output of the audit tools: time travel, what-if, verify, luck, schema (explain's is
render_explain.py)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from morale.projections.luck import PERCENTILE_NAME, PERCENTILE_WORDS, Luck
from morale.projections.timeline import Diff, UnitChange
from morale.projections.verify import Verification
from morale.projections.whatif import WhatIf

from .render import name_text, state_text
from .render_explain import DIM, step_lines


def _change_table(title: str, changes: list[UnitChange], before: str, after: str) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("unit", "changed", before, after):
        table.add_column(column)
    for change in changes:
        was, now = change.before, change.after

        def cell(row: object) -> Text:
            if row is None:
                return Text("(not yet joined)")
            return state_text(row.state, row.state_name) + Text(
                f", {row.models} model{'s' * (row.models != 1)}" + "".join(f"\ndue: {d}" for d in row.due)
            )

        table.add_row(name_text(change.name, change.unit), ", ".join(change.changed), cell(was), cell(now))
    return table


def print_diff(console: Console, view: Diff) -> None:
    if not view.units:
        before, after = f"{view.before.label} (#{view.before.seq})", f"{view.after.label} (#{view.after.seq})"
        console.print(f"No unit changed between {before} and {after}.")
        return
    title = f"{view.battle}: from {view.before.label} (#{view.before.seq}) to {view.after.label} (#{view.after.seq})"
    console.print(_change_table(title, view.units, "before", "after"))
    for change in view.units:
        console.print(Text(f"\nwhy {change.name} changed:", style="bold"))
        for step in change.why:
            step_lines(console, step, indent="  ")


def print_what_if(console: Console, view: WhatIf) -> None:
    console.print(Text("What if: ", style="bold") + Text("; ".join(view.changes) or "nothing changed"))
    if view.divergence is None:
        console.print("The engine's conclusions are the same throughout: only the facts you changed differ.")
    else:
        d = view.divergence
        console.print(Text(f"First divergence at {d.at}: ", style="bold") + Text(d.event))
        console.print(Text("  as played:   ") + Text("; ".join(d.happened) or "nothing"))
        console.print(Text("  alternative: ") + Text("; ".join(d.instead) or "nothing"))
    for dropped in view.dropped:
        console.print(Text(f"  dropped #{dropped.seq}: {dropped.event} ({dropped.reason})", style=DIM))
    if view.stopped:
        console.print(Text(f"The alternative stops {view.stopped}", style="yellow"))
    if view.final:
        title = "Final board: where the alternative differs"
        console.print(_change_table(title, view.final, "as played", "alternative"))
    else:
        console.print("The final board is the same.")


def print_verification(console: Console, view: Verification) -> None:
    verdict = Text("OK", style="bold green") if view.ok else Text("FAILED", style="bold red")
    console.print(Text(f"{view.battle}: ") + verdict + Text(f" ({view.events} events, head {view.head})"))
    for finding in view.findings:
        console.print(Text(f"  {finding.check}: first bad event #{finding.seq}: {finding.message}", style="red"))
    digests = f"  phase-end digests: {view.digests_checked} match"
    if view.digests_unrecorded:
        digests += f", {view.digests_unrecorded} not recorded (written before version 2)"
    console.print(digests)
    dice = f"  dice: {view.table_rolls} typed in from the table, {view.engine_rolls} rolled by the engine"
    unchecked = view.engine_rolls - view.engine_rolls_checked
    if view.engine_rolls and not unchecked:
        dice += f", all {view.engine_rolls_checked} recomputed from the {view.dice_secret} secret"
    elif view.engine_rolls_checked:
        dice += (
            f", {view.engine_rolls_checked} recomputed from the {view.dice_secret} secret and {unchecked} rolled "
            "with the secret in force (not checkable until it is revealed)"
        )
    elif view.engine_rolls:
        dice += " (not checkable until the secret is revealed)"
    console.print(dice)


def print_luck(console: Console, view: Luck) -> None:
    table = Table(title=f"{view.battle}: luck of the morale dice", title_justify="left")
    for column in ("side", "tests rolled", "expected passes", "passes", PERCENTILE_NAME, "verdict"):
        table.add_column(column)
    for side in view.sides:
        table.add_row(
            side.side,
            str(side.tests),
            f"{side.expected_passes:.2f}",
            str(side.passes),
            f"{100 * side.percentile:.1f}%",
            side.verdict,
        )
    console.print(table)
    console.print(PERCENTILE_WORDS)
    rolls = Table(title="Rolls", title_justify="left")
    for column in ("#", "unit", "test", "dice", "chance", "result"):
        rolls.add_column(column)
    for roll in view.rolls:
        rolls.add_row(
            str(roll.seq),
            roll.unit,
            roll.test,
            " + ".join(map(str, roll.dice)),
            f"{100 * roll.chance:.1f}%",
            "passed" if roll.passed else "failed",
        )
    console.print(rolls)
