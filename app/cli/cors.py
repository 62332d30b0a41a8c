"""`morale cors`: the web origins a battle's referee allows to call the server about it (CORS).

Kept in the store: a running `morale serve`, every node of a PostgreSQL store, answers the change at
its next request, without a restart (app/http/cors.py)."""

from __future__ import annotations

from typing import Annotated

import typer

from morale.core.words import Words

from .. import language
from ..origins import allowed_origins, change_origins
from .base import DEFAULT_DB, BattleArg, Db, Json, app, emit_json, open_store, out, refusals


@app.command("cors")
def cors_command(
    battle: BattleArg,
    allow: Annotated[
        list[str] | None,
        typer.Option(
            "--allow", metavar="ORIGIN", help="Allow pages of this origin (https://overlay.example); repeatable."
        ),
    ] = None,
    remove: Annotated[
        list[str] | None,
        typer.Option("--remove", metavar="ORIGIN", help="Stop allowing this origin; repeatable."),
    ] = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """List the web origins allowed to call the server about a battle; --allow or --remove some (all or none)."""
    with refusals(as_json):
        store = open_store(db)
        if allow or remove:
            origins = change_origins(store, battle, allow or (), remove or ())
        else:
            origins = allowed_origins(store, battle)
    if as_json:
        emit_json({"battle": battle, "origins": origins})
    elif origins:
        said = Words("Pages of these origins may call the server about {battle}:", battle=battle)
        out.print(language.say(said), markup=False)
        for origin in origins:
            out.print(f"  {origin}", markup=False)
    else:
        said = Words(
            "No origin is allowed to call the server about {battle} (besides `morale serve --allow-origin`).",
            battle=battle,
        )
        out.print(language.say(said))
