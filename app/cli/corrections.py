"""Corrections at the table: `morale strike` (an event and what followed from it) and `morale undo`
(one's own last entry). Each shows what it will strike and asks first; `--yes` answers for a script.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from morale.core.fold import Fold
from morale.core.rules import Refusal
from morale.core.words import Words
from morale.events.store import EventStore
from morale.events.types import Author
from morale.projections.narrative import describe_event

from .. import language
from ..authors import cli_author, login_name, side_player_author
from ..corrections import StrikePlan, entered_at_this_machine, last_entry, nothing_to_undo, plan_strike
from ..service import load, record_on
from .base import DEFAULT_DB, BattleArg, Db, Json, Side, app, open_store, out, refusals, report

Yes = Annotated[bool, typer.Option("--yes", "-y", help="Strike without asking (for scripts).")]
UNDO_REASON = "undone by who entered it"


@app.command("strike")
def strike_command(
    battle: BattleArg,
    seq: Annotated[int, typer.Argument(help="The event to strike (its seq in `morale log`).")],
    reason: Annotated[str, typer.Option("--reason", help="Why it is struck, for the log.")],
    yes: Yes = False,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """Strike an event and the later events that stood on it, in one append, after showing the list."""
    with refusals(as_json):
        store = open_store(db)
        fold = load(store, battle)
        plan = plan_strike(fold, seq, reason)
        _carry_out(store, fold, plan, reason, yes, as_json)


@app.command("undo")
def undo_command(
    battle: BattleArg,
    reason: Annotated[str, typer.Option("--reason", help="Why it is struck, for the log.")] = UNDO_REASON,
    side: Side = None,
    yes: Yes = False,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """Strike the last event you entered at this machine (with what stood on it, after showing the list)."""
    with refusals(as_json):
        store = open_store(db)
        fold = load(store, battle)
        mine = last_entry(store.read(battle), fold.struck, entered_at_this_machine(login_name(), side or ""))
        if mine is None:
            raise nothing_to_undo()
        plan = plan_strike(fold, mine.seq, reason)
        author = side_player_author(fold, side, []) if side else cli_author()
        _carry_out(store, fold, plan, reason, yes, as_json, author)


def _carry_out(
    store: EventStore,
    fold: Fold,
    plan: StrikePlan,
    reason: str,
    yes: bool,
    as_json: bool,
    author: Author | None = None,
) -> None:
    retractions = plan.retractions(reason)  # refuses a bad reason before anything is asked
    if not yes and not at_a_terminal():
        said = Words("nothing was struck: there is no terminal to ask on (add --yes to strike without asking)")
        raise Refusal(said, field="yes")
    if not as_json:
        _show(fold, plan)
    if not yes and not typer.confirm(language.say(Words("Strike them?")), default=False, err=True):
        raise Refusal(Words("nothing was struck: you answered no"), field="yes")
    recorded = record_on(store, fold, retractions, expected_seq=fold.seq, author=author or cli_author())
    report(fold, recorded, as_json)


def at_a_terminal() -> bool:
    """Whether a person can answer the question (standard input is a terminal)."""
    return sys.stdin.isatty()


def _show(fold: Fold, plan: StrikePlan) -> None:
    state = fold.state()
    if plan.followers:
        out.print(
            language.say(
                Words("Striking event {seq} also strikes these later events, which stood on it:", seq=plan.seq)
            )
        )
    else:
        out.print(language.say(Words("Striking event {seq} strikes nothing else:", seq=plan.seq)))
    for seq in plan.seqs:
        event = fold.log.get(seq)
        assert event is not None
        out.print(f"  #{seq} {language.say(describe_event(event, state))}", markup=False)
