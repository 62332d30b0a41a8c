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
from morale.core.outcomes import Modifier, Outcome
from morale.core.state import Battle
from morale.core.words import Words, listed
from morale.projections.board import Board
from morale.projections.due import DueView
from morale.projections.log import LogRow
from morale.projections.naming import known_as, phase_named
from morale.projections.narrative import Line, describe_event, describe_outcome

# A colour for each shared state, from holding to gone (the states are machine.py's, in its order).
STATE_STYLES = dict(zip(BY_STANDING, ("green", "cyan", "yellow", "yellow", "red", "bold red", "dim"), strict=True))


def state_text(state: str, name: str) -> Text:
    """A unit's state in its ruleset's word (`name`), coloured by the shared state it stands for."""
    return Text(say(name), style=STATE_STYLES.get(state, ""))


BOARD_COLUMNS = (
    Words("side"),
    Words("unit"),
    Words("state"),
    Words("models"),
    Words("Ld"),
    Words("restrictions"),
    Words("due"),
)


def board_title(view: Board) -> Words:
    """ "hive-tarsis · wh40k6 · turn 2, orks, shooting (in progress) · event 41"."""
    if not view.turn:
        where = Words("before the first turn")
    elif view.phase_open:
        where = Words(
            "turn {turn}, {side}, {phase} (in progress)", turn=view.turn, side=view.side, phase=phase_named(view.phase)
        )
    else:
        where = Words(
            "turn {turn}, {side}, {phase} (ended)", turn=view.turn, side=view.side, phase=phase_named(view.phase)
        )
    return Words(
        "{battle} · {ruleset} · {where} · event {seq}",
        battle=view.battle,
        ruleset=view.ruleset,
        where=where,
        seq=view.seq,
    )


def print_board(console: Console, view: Board) -> None:
    table = Table(title=say(board_title(view)), title_justify="left")
    for column in BOARD_COLUMNS:
        table.add_column(say(column))
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


_MARK = "\x00"  # where a sentence's styled value goes (no template or value holds it)


def styled(words: Words, name: str, value: str, style: str) -> Text:
    """`words` said in the reader's language, with the value of its placeholder `name` in `style`
    (a battle's id in bold), wherever that language puts it; as Text, never markup (an id from a
    file may hold "[")."""
    rebuilt, (template, plural, args) = words.__reduce__()  # the same sentence, the value marked
    marked = rebuilt(template, plural, {**args, name: _MARK})  # type: ignore[operator]
    parts = say(marked).split(_MARK)
    text = Text(parts[0])
    for part in parts[1:]:
        text.append(value, style=style)
        text.append(part)
    return text


def name_text(name: str, unit_id: str) -> Text:
    """A unit's name as the roster wrote it (brackets too), its id below, dimmed."""
    return Text(name) + Text("\n" + unit_id, style="dim")


def print_due(console: Console, views: list[DueView]) -> None:
    """One block per test rather than a table: a table ten columns wide cut the rule IDs, the point
    of the list, to "wh40k6.trig…" at 80 and even at 120 columns. Every line is printed whole."""
    if not views:
        console.print(say(Words("No tests are due.")))
        return
    console.print(Text(say(Words("Tests due")), style="bold"))
    for view in views:
        console.print(_due_heading(view))
        for line in _due_details(view):
            console.print(Text("      ") + line)


def _due_heading(view: DueView) -> Text:
    """Who rolls what, against what, with what chance:
    "Nobz (nobz): morale, 2D6, needs 8 or less, chance 72.2% (26/36)"."""
    if not view.dice:
        dice = Words("no dice")
    elif view.reroll:
        dice = Words("{dice}D6 re-roll ({rule})", dice=view.dice, rule=view.reroll)
    else:
        dice = Words("{dice}D6", dice=view.dice)
    facts: list[str] = [view.test_name or view.test.replace("_", " "), dice]
    if view.needs:  # "needs 8 or less", but "double 1 only" stands alone
        if view.needs == f"{view.target} or less":
            facts.append(Words("needs {target} or less", target=view.target))
        else:
            facts.append(view.needs)
    if view.odds is not None:
        odds = view.odds  # the chance as Odds.percent() writes it, with the reader's decimal sign
        facts.append(
            Words("chance {percent:.1f}% ({ways}/{of})", percent=100 * odds.chance, ways=odds.pass_ways, of=odds.of)
        )
    return Text(f"{view.name} ({view.unit}): ", style="bold") + Text(say(listed(facts)))


def _due_details(view: DueView) -> list[Text]:
    """Why it is due and what changes it, each rule ID whole."""
    caused = ""
    if view.caused_by:
        caused = say(Words(", caused by {events}", events=", ".join(f"#{s}" for s in view.caused_by)))
    lines = [Text(say(Words("why:")) + " ") + Text(f"[{view.rule}]", style="dim") + Text(caused)]
    for m in view.modifiers:
        lines.append(Text(say(modifier_words(m)) + "  ") + Text(f"[{m.rule}]", style="dim"))
    lines += [
        Text(say(Words("stated: {fact}: {value}", fact=known_as(fact, view.fact_names.get(fact, fact)), value=value)))
        for fact, value in view.stated.items()
    ]
    if view.decisions:
        decisions = listed(_to_type(d, view.decision_names.get(d, d)) for d in view.decisions)
        lines.append(Text(say(Words("or decide: {decisions}", decisions=decisions))))
    if view.facts:
        facts = listed(_to_type(f, view.fact_names.get(f, f)) for f in view.facts)
        lines.append(Text(say(Words("or report: {facts}", facts=facts))))
    return lines


def _to_type(name: str, words: str) -> Words:
    """A decision or a fact the user records by its machine name: in English that name, as the list
    always read; elsewhere the ruleset's words for it, then the name to type, as code."""
    return known_as(name, Words("{words} (`{name}`)", words=words, name=name))


def modifier_words(m: Modifier) -> Words:
    """ "-1 below half strength (ignored: wh40k6.stubborn)"."""
    if m.ignored_by:
        return Words("{value:+d} {reason} (ignored: {rule})", value=m.value, reason=m.reason, rule=m.ignored_by)
    return Words("{value:+d} {reason}", value=m.value, reason=m.reason)


LOG_COLUMNS = (Words("#"), Words("recorded"), Words("type"), Words("what happened"), Words("by"), Words("hash"))


def print_log(console: Console, rows: list[LogRow]) -> None:
    table = Table(title=say(Words("Log")), title_justify="left")
    for column in LOG_COLUMNS:
        table.add_column(say(column))
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

# A token's role in words, as the lists and the refusals name whose token it is.
ROLE_WORDS = {
    "referee": Words("referee"),
    "spectator": Words("spectator"),
    "overlay": Words("overlay"),
}


def print_tokens(console: Console, tokens: IssuedTokens) -> None:
    """Shown once: the store keeps only their hashes."""
    title = Words("Tokens (shown once: the store keeps only their hashes)")
    table = Table(title=say(title), title_justify="left")
    table.add_column(say(Words("role")))
    table.add_column(say(Words("token")))
    table.add_row(say(ROLE_WORDS["referee"]), tokens.referee)
    for side, token in tokens.players.items():
        table.add_row(say(Words("player: {side}", side=side)), token)
    table.add_row(say(ROLE_WORDS["spectator"]), tokens.spectator)
    console.print(table)


def holder(token: Credential | Issued) -> str:
    """Whose token it is, in words: "referee", "player: orks", "spectator"."""
    if token.role == "player":
        return Words("player: {side}", side=token.side)
    return ROLE_WORDS.get(token.role, token.role)


def print_credentials(console: Console, battle: str, tokens: Sequence[Credential]) -> None:
    """A battle's tokens as named credentials: never a secret."""
    if not tokens:
        said = Words(
            "Battle {battle} has no tokens; `morale tokens {battle} --issue ROLE --label TEXT` issues one.",
            battle=battle,
        )
        console.print(say(said))
        return
    # One line each, not a table: a table squeezed to a terminal's width wraps the labels mid-word.
    console.print(say(Words("Tokens of {battle} (their secrets are never shown again):", battle=battle)), markup=False)
    width = max(len(say(holder(token))) for token in tokens)
    for token in tokens:
        created = token.created or say(Words("before labels"))
        used = token.last_used or say(Words("never"))
        label = token.label or say(Words("(no label)"))
        whose = say(holder(token)).ljust(width)
        line = Words(
            "{id}  {holder}  created {created}  last used {used}  {label}",
            id=token.id,
            holder=whose,
            created=created,
            used=used,
            label=label,
        )
        console.print("  " + say(line), markup=False)


def print_kept(console: Console, battle: str, tokens: Sequence[Credential]) -> None:
    """The overlay tokens a rotation kept, by name: the stream stays live, and the referee knows why."""
    if not tokens:
        return
    said = Words(
        "The overlay tokens of {battle} still work (`morale revoke {battle} overlay` stops them):", battle=battle
    )
    console.print(say(said), markup=False)
    for token in tokens:
        console.print(_token_line(token), markup=False)


def print_logged_out(console: Console, battle: str, tokens: Sequence[Credential]) -> None:
    """Whom replacing every token logged out, by name: nobody finds out by surprise."""
    if not tokens:
        console.print(say(Words("Battle {battle} had no tokens: nobody was logged out.", battle=battle)), markup=False)
        return
    said = Words(
        "Every earlier token of {battle} stopped working; whoever holds one of these is logged out:", battle=battle
    )
    console.print(say(said), markup=False)
    for token in tokens:
        console.print(_token_line(token), markup=False)


def _token_line(token: Credential) -> str:
    """ "  1a2b3c4d  player: orks  (Anna's phone)"."""
    label = token.label or say(Words("no label"))
    return f"  {token.id}  {say(holder(token))}  ({label})"
