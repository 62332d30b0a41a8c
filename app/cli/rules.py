"""`morale rules` and `morale graph`: the rules themselves from the command line. A referee reads
the clause a refusal or an explanation cites without leaving the table; a developer sees which
state each clause moves a unit to."""

from __future__ import annotations

import difflib
from typing import Annotated

import msgspec
import typer
from rich.table import Table
from rich.text import Text

from morale.core import catalogue
from morale.core.catalogue import Clause
from morale.core.rules import Refusal
from morale.core.rulesets import latest
from morale.core.words import Words

from .. import language
from .base import Json, app, emit_json, out, refusals


def _ruleset(name: str) -> str:
    known = catalogue.rulesets()
    if name in known:
        return name
    close = difflib.get_close_matches(name, known, n=1)
    if close:
        said = Words("no ruleset {name!r} in the catalogue (did you mean {close}?)", name=name, close=close[0])
    else:
        said = Words("no ruleset {name!r} in the catalogue (known: {known})", name=name, known=", ".join(known))
    raise Refusal(said, field="RULESET")


def _clause(ruleset: str | None, rule_id: str) -> Clause:
    """A clause by its full ID, or by the part after the ruleset's prefix (`fall_back.edge`)."""
    candidates = [rule_id] if ruleset is None else [rule_id, f"{ruleset}.{rule_id}"]
    for candidate in candidates:
        found = catalogue.clause(candidate)
        if found and (ruleset is None or found.ruleset == ruleset):
            return found
    pool = [c.id for c in catalogue.of_ruleset(ruleset)] if ruleset else list(catalogue.catalogue())
    close = ", ".join(difflib.get_close_matches(candidates[-1], pool, n=3))
    if ruleset and close:
        said = Words(
            "no clause {id!r} of {ruleset} in the catalogue (did you mean {close}?)",
            id=rule_id,
            ruleset=ruleset,
            close=close,
        )
    elif ruleset:
        said = Words(
            "no clause {id!r} of {ruleset} in the catalogue (`morale rules {ruleset}` lists them)",
            id=rule_id,
            ruleset=ruleset,
        )
    elif close:
        said = Words("no clause {id!r} in the catalogue (did you mean {close}?)", id=rule_id, close=close)
    else:
        said = Words("no clause {id!r} in the catalogue (`morale rules ` lists them)", id=rule_id)
    raise Refusal(said, field="ID")


# A clause's kind in words (its value, `seed`, stays as it is in JSON).
KIND_WORDS = {
    "seed": Words("seed"),
    "standard": Words("standard"),
    "default": Words("default"),
    "engine": Words("engine"),
}


def _said(found: Clause) -> Clause:
    """The clause with its title and words in the reader's language (from its language's clause file)."""
    return msgspec.structs.replace(found, title=catalogue.title(found.id), words=catalogue.words(found.id))


def _print_clause(found: Clause) -> None:
    say = language.say
    out.print(Text(found.id, style="bold") + Text(f"  {say(catalogue.title(found.id))}"))
    out.print(Text(f"{found.edition} · {say(KIND_WORDS.get(found.kind, found.kind))}", style="dim"))
    out.print(Text(say(catalogue.words(found.id))))


def _print_list(clauses: list[Clause]) -> None:
    say = language.say
    table = Table(show_header=True, header_style="bold", box=None)
    table.add_column(say(Words("rule ID")), no_wrap=True)
    table.add_column(say(Words("kind")))
    table.add_column(say(Words("clause")))
    for found in clauses:
        table.add_row(found.id, say(KIND_WORDS.get(found.kind, found.kind)), say(catalogue.title(found.id)))
    out.print(table)


@app.command("rules")
def rules_command(
    ruleset: Annotated[
        str | None,
        typer.Argument(metavar="RULESET", help="A ruleset's id (`morale rulesets` lists them) or engine; none: all."),
    ] = None,
    rule_id: Annotated[
        str | None, typer.Argument(metavar="ID", help="A rule ID, whole or after the ruleset's prefix.")
    ] = None,
    as_json: Json = False,
) -> None:
    """The rule catalogue: every clause the engine cites, in a ruleset, or one clause in full."""
    with refusals(as_json):
        if ruleset is not None and rule_id is None and "." in ruleset:
            found: Clause | None = _clause(None, ruleset)  # `morale rules wh40k6.fall_back.edge`
        elif rule_id is not None:
            found = _clause(_ruleset(ruleset or ""), rule_id)
        else:
            found = None
        if found is not None:
            emit_json(_said(found)) if as_json else _print_clause(found)
            return
        clauses = catalogue.of_ruleset(_ruleset(ruleset)) if ruleset else list(catalogue.catalogue().values())
        emit_json([_said(found) for found in clauses]) if as_json else _print_list(clauses)


@app.command("graph")
def graph_command(
    ruleset: Annotated[str, typer.Argument(metavar="RULESET", help="A ruleset's id (`morale rulesets` lists them).")],
) -> None:
    """A ruleset's unit states and the clauses that move a unit between them, as a Mermaid diagram
    (drawn by `transitions` from the rows the engine fires)."""
    with refusals():
        out.print(state_diagram(ruleset), markup=False)


def state_diagram(ruleset_id: str) -> str:
    """What `morale graph RULESET` prints: the newest version's graph, titled with its id and title."""
    drawn = latest(ruleset_id)
    return drawn.graph.mermaid(f"{drawn.id}: {drawn.title}")
