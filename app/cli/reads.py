"""The reads a table makes most, each from the battle's nearest snapshot and the events after it:
`morale board`, `due` and `explain`. Kept apart from the other commands (battle.py, audit.py) so
that each imports only what it reads with: the commands are imported one module at a time
(commands.py), and those modules import the server's settings, list builders' formats and the
audit's projections between them.
"""

from __future__ import annotations

from typing import Annotated

import typer

from morale.events.store import UnknownBattle
from morale.projections.board import board
from morale.projections.due import due_tests
from morale.projections.explain import explain_stored

from ..service import load_head
from . import render, render_explain
from .base import DEFAULT_DB, BattleArg, Db, Json, app, emit_json, open_store, out, refusals


@app.command("board")
def board_command(battle: BattleArg, db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """The status board: each unit's state, models left, restrictions and tests due."""
    with refusals(as_json):
        view = board(load_head(open_store(db), battle).state())
        emit_json(view) if as_json else render.print_board(out, view)


@app.command("due")
def due_command(battle: BattleArg, db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """The tests due now, with the number to roll, the modifiers and why each is due."""
    with refusals(as_json):
        views = due_tests(load_head(open_store(db), battle).state())
        emit_json(views) if as_json else render.print_due(out, views)


@app.command("explain")
def explain_command(
    battle: BattleArg,
    unit: Annotated[str, typer.Argument(help="The unit whose state is to be explained.")],
    at: Annotated[int | None, typer.Option("--at", help="As it stood after this event.")] = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """Why a unit is in its state: every test (why due, target, modifiers, chance, roll, result) and
    every change, each with its rule ID, back to the start."""
    with refusals(as_json):
        store = open_store(db)
        if not store.last_seq(battle):
            raise UnknownBattle(battle)
        view = explain_stored(store, battle, unit, at)
        emit_json(view) if as_json else render_explain.print_explanation(out, view)
