"""Human output: rich tables and a coloured narrative. Machines get `--json` instead."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from morale.app.access import Credential, Issued, IssuedTokens
from morale.app.language import say
from morale.core import catalogue
from morale.core.machine import BY_STANDING
from morale.core.outcomes import Outcome
from morale.core.state import Battle
from morale.projections.board import Board
from morale.projections.due import DueView
from morale.projections.log import LogRow
from morale.projections.narrative import Line, describe_event, describe_outcome

# A colour for each shared state, from holding to gone (the states are machine.py's, in its order).
STATE_STYLES = dict(zip(BY_STANDING, ("green", "cyan", "yellow", "yellow", "red", "bold red", "dim"), strict=True))


def state_text(state: str, name: str) -> Text:
    """A unit's state in its ruleset's word (`name`), coloured by the shared state it stands for."""
    return Text(name, style=STATE_STYLES.get(state, ""))


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
        restrictions = "\n".join(say(r.said) + (f" [{r.rule}]" if r.rule else "") for r in row.restrictions)
        table.add_row(
            row.side,
            name_text(row.name, row.unit),
            state_text(row.state, say(row.state_name))
            + (Text("\n" + say(row.profile), style="dim") if row.profile else Text("")),
            f"{row.models}/{row.starting_models}",
            "" if row.ld is None else str(row.ld),
            Text(restrictions),  # Text, not markup: "[wh40k6.fall_back.no_charge]" is a rule ID, not a style
            Text("\n".join(say(due) for due in row.due)),
        )
    console.print(table)


def name_text(name: str, unit_id: str) -> Text:
    """A unit's name as the roster wrote it (brackets too), its id below, dimmed."""
    return Text(name) + Text("\n" + unit_id, style="dim")


def print_due(console: Console, views: list[DueView]) -> None:
    """One block per test rather than a table: a table ten columns wide cut the rule IDs, the point
    of the list, to "wh40k6.trig…" at 80 and even at 120 columns. Every line is printed whole."""
    if not views:
        console.print("No tests are due.")
        return
    console.print(Text("Tests due", style="bold"))
    for view in views:
        console.print(_due_heading(view))
        for line in _due_details(view):
            console.print(Text("      ") + line)


def _due_heading(view: DueView) -> Text:
    """Who rolls what, against what, with what chance:
    "Nobz (nobz): morale, 2D6, needs 8 or less, chance 72.2% (26/36)"."""
    dice = (f"{view.dice}D6" + (f" re-roll ({view.reroll})" if view.reroll else "")) if view.dice else "no dice"
    facts = [say(view.test_name or view.test.replace("_", " ")), dice]
    if view.needs:  # "needs 8 or less", but "double 1 only" stands alone
        facts.append(f"needs {say(view.needs)}" if view.needs == f"{view.target} or less" else say(view.needs))
    if view.odds is not None:
        facts.append(f"chance {view.odds.percent()} ({view.odds.pass_ways}/{view.odds.of})")
    return Text(f"{view.name} ({view.unit}): ", style="bold") + Text(", ".join(facts))


def _due_details(view: DueView) -> list[Text]:
    """Why it is due and what changes it, each rule ID whole."""
    caused = f", caused by {', '.join(f'#{s}' for s in view.caused_by)}" if view.caused_by else ""
    lines = [Text("why: ") + Text(f"[{view.rule}]", style="dim") + Text(caused)]
    for m in view.modifiers:
        ignored = f" (ignored: {m.ignored_by})" if m.ignored_by else ""
        lines.append(Text(f"{m.value:+d} {m.reason}{ignored}  ") + Text(f"[{m.rule}]", style="dim"))
    lines += [Text(f"stated: {fact}: {value}") for fact, value in view.stated.items()]
    if view.decisions:
        lines.append(Text(f"or decide: {', '.join(view.decisions)}"))
    if view.facts:
        lines.append(Text(f"or report: {', '.join(view.facts)}"))
    return lines


def print_log(console: Console, rows: list[LogRow]) -> None:
    table = Table(title="Log", title_justify="left")
    for column in ("#", "recorded", "type", "what happened", "by", "hash"):
        table.add_column(column)
    for row in rows:
        said = Text(say(row.summary))
        if row.struck_by is not None:  # crossed out, and who struck it where, and why
            said = Text(say(row.summary), style="strike") + Text("\n" + say(row.struck_by.said), style="italic")
        table.add_row(str(row.seq), row.recorded_at[:19], row.type, said, Text(say(row.by)), row.hash[:12])
    console.print(table)


def _cited(rules: list[str]) -> str:
    """Each rule ID with its clause's title from the catalogue: the reader sees what it says at once."""
    return ", ".join(f"{r}: {say(catalogue.title(r))}" if catalogue.title(r) else r for r in rules)


def print_narrative(console: Console, lines: list[Line]) -> None:
    for line in lines:
        if line.kind == "heading":
            console.print()
            console.print(Text(say(line.text), style="bold underline"))
        elif line.kind == "event":
            console.print(Text(f"{line.seq:>4}  ", style="dim") + Text(say(line.text)))
        else:
            console.print(Text("      → " + say(line.text) + "  ") + Text(f"[{_cited(line.rules)}]", style="dim"))


def print_recorded(console: Console, seq: int, event_text: str, caused: Sequence[Outcome], battle: Battle) -> None:
    console.print(Text(f"{seq:>4}  ", style="dim") + Text(say(event_text)))
    for outcome in caused:
        cited = Text(f"[{_cited([outcome.rule])}]", style="dim")
        console.print(Text("      → " + say(describe_outcome(outcome, battle)) + "  ") + cited)


__all__ = ["describe_event", "print_board", "print_due", "print_log", "print_narrative", "print_recorded"]


def print_tokens(console: Console, tokens: IssuedTokens) -> None:
    """Shown once: the store keeps only their hashes."""
    table = Table(title="Tokens (shown once: the store keeps only their hashes)", title_justify="left")
    table.add_column("role")
    table.add_column("token")
    table.add_row("referee", tokens.referee)
    for side, token in tokens.players.items():
        table.add_row(f"player: {side}", token)
    table.add_row("spectator", tokens.spectator)
    console.print(table)


def holder(token: Credential | Issued) -> str:
    """Whose token it is, in words: "referee", "player: orks", "spectator"."""
    return f"player: {token.side}" if token.role == "player" else token.role


def print_credentials(console: Console, battle: str, tokens: Sequence[Credential]) -> None:
    """A battle's tokens as named credentials: never a secret."""
    if not tokens:
        console.print(f"Battle {battle} has no tokens; `morale tokens {battle} --issue ROLE --label TEXT` issues one.")
        return
    # One line each, not a table: a table squeezed to a terminal's width wraps the labels mid-word.
    console.print(f"Tokens of {battle} (their secrets are never shown again):", markup=False)
    width = max(len(holder(token)) for token in tokens)
    for token in tokens:
        used = token.last_used or "never"
        line = f"  {token.id}  {holder(token):<{width}}  created {token.created or 'before labels'}  last used {used}"
        console.print(f"{line}  {token.label or '(no label)'}", markup=False)


def print_kept(console: Console, battle: str, tokens: Sequence[Credential]) -> None:
    """The overlay tokens a rotation kept, by name: the stream stays live, and the referee knows why."""
    if not tokens:
        return
    said = f"The overlay tokens of {battle} still work (`morale revoke {battle} overlay` stops them):"
    console.print(said, markup=False)
    for token in tokens:
        console.print(f"  {token.id}  {holder(token)}  ({token.label or 'no label'})", markup=False)


def print_logged_out(console: Console, battle: str, tokens: Sequence[Credential]) -> None:
    """Whom replacing every token logged out, by name: nobody finds out by surprise."""
    if not tokens:
        console.print(f"Battle {battle} had no tokens: nobody was logged out.", markup=False)
        return
    said = f"Every earlier token of {battle} stopped working; whoever holds one of these is logged out:"
    console.print(said, markup=False)
    for token in tokens:
        label = token.label or "no label"
        console.print(f"  {token.id}  {holder(token)}  ({label})", markup=False)
