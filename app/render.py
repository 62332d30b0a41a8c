"""Human output: rich tables and a coloured narrative. Machines get `--json` instead."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from morale.app.access import IssuedTokens
from morale.core import catalogue
from morale.core.outcomes import Outcome
from morale.core.state import Battle
from morale.projections.board import Board
from morale.projections.due import DueView
from morale.projections.log import LogRow
from morale.projections.narrative import Line, describe_event, describe_outcome

STATE_STYLES = {
    "steady": "green",
    "regrouped": "cyan",
    "falling_back": "yellow",
    "wavering": "yellow",
    "broken": "red",
    "dispersed": "bold red",
    "destroyed": "dim",
}


def state_text(state: str) -> Text:
    return Text(state.replace("_", " "), style=STATE_STYLES.get(state, ""))


def print_board(console: Console, view: Board) -> None:
    where = (
        f"turn {view.turn}, {view.side}, {view.phase} ({'in progress' if view.phase_open else 'ended'})"
        if view.turn
        else "before the first turn"
    )
    table = Table(title=f"{view.battle} · {view.ruleset} · {where} · event {view.seq}", title_justify="left")
    for column in ("side", "unit", "state", "models", "Ld", "restrictions", "due"):
        table.add_column(column)
    for row in view.units:
        restrictions = "\n".join(
            f"{r.text}{' until ' + r.until if r.until else ''} [{r.rule}]" for r in row.restrictions
        )
        table.add_row(
            row.side,
            f"{row.name}\n[dim]{row.unit}[/dim]",
            state_text(row.state) + (Text("\n" + row.profile, style="dim") if row.profile else Text("")),
            f"{row.models}/{row.starting_models}",
            "" if row.ld is None else str(row.ld),
            restrictions,
            "\n".join(row.due),
        )
    console.print(table)


def print_due(console: Console, views: list[DueView]) -> None:
    if not views:
        console.print("No tests are due.")
        return
    table = Table(title="Tests due", title_justify="left")
    for column in (
        "unit",
        "test",
        "dice",
        "needs",
        "chance",
        "modifiers",
        "why",
        "caused by",
        "or decide",
        "or report",
    ):
        table.add_column(column)
    for view in views:
        table.add_row(
            f"{view.name}\n[dim]{view.unit}[/dim]",
            view.test,
            (f"{view.dice}D6" + (f" re-roll ({view.reroll})" if view.reroll else "")) if view.dice else "no dice",
            "" if view.target is None else f"{view.target} or less",
            "" if view.odds is None else f"{view.odds.percent()} ({view.odds.pass_ways}/{view.odds.of})",
            "\n".join(f"{m.value:+d} {m.reason} [{m.rule}]" for m in view.modifiers)
            + "".join(f"\n{fact}: {value}" for fact, value in view.stated.items()),
            view.rule,
            ", ".join(f"#{s}" for s in view.caused_by),
            ", ".join(view.decisions),
            ", ".join(view.facts),
        )
    console.print(table)


def print_log(console: Console, rows: list[LogRow]) -> None:
    table = Table(title="Log", title_justify="left")
    for column in ("#", "recorded", "type", "what happened", "hash"):
        table.add_column(column)
    for row in rows:
        table.add_row(str(row.seq), row.recorded_at[:19], row.type, row.summary, row.hash[:12])
    console.print(table)


def _cited(rules: list[str]) -> str:
    """Each rule ID with its clause's title from the catalogue: the reader sees what it says at once."""
    return ", ".join(f"{r}: {catalogue.title(r)}" if catalogue.title(r) else r for r in rules)


def print_narrative(console: Console, lines: list[Line]) -> None:
    for line in lines:
        if line.kind == "heading":
            console.print()
            console.print(Text(line.text, style="bold underline"))
        elif line.kind == "event":
            console.print(Text(f"{line.seq:>4}  ", style="dim") + Text(line.text))
        else:
            console.print(Text("      → " + line.text + "  ") + Text(f"[{_cited(line.rules)}]", style="dim"))


def print_recorded(console: Console, seq: int, event_text: str, caused: Sequence[Outcome], battle: Battle) -> None:
    console.print(Text(f"{seq:>4}  ", style="dim") + Text(event_text))
    for outcome in caused:
        cited = Text(f"[{_cited([outcome.rule])}]", style="dim")
        console.print(Text("      → " + describe_outcome(outcome, battle) + "  ") + cited)


__all__ = ["describe_event", "print_board", "print_due", "print_log", "print_narrative", "print_recorded"]


def print_tokens(console: Console, tokens: IssuedTokens) -> None:
    """Shown once: the store keeps only their hashes."""
    table = Table(title="Tokens (shown once; `morale tokens` issues new ones)", title_justify="left")
    table.add_column("role")
    table.add_column("token")
    table.add_row("referee", tokens.referee)
    for side, token in tokens.players.items():
        table.add_row(f"player: {side}", token)
    table.add_row("spectator", tokens.spectator)
    console.print(table)
