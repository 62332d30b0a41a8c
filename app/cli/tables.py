"""`morale tables`: a battle's derived SQL tables beside its log, for Datasette, sqlite3 or a spreadsheet."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from morale.core.rules import Refusal
from morale.core.words import Words, listed
from morale.events.locate import is_database_url, shown
from morale.events.store import UnknownBattle

from .. import language
from .base import DEFAULT_DB, Db, Json, app, emit_json, open_store, out, refusals


@app.command("tables")
def tables_command(
    battle: Annotated[str | None, typer.Argument(help="The battle's id (or --all).")] = None,
    every: Annotated[bool, typer.Option("--all", help="Every battle in the store.")] = False,
    to: Annotated[
        Path | None, typer.Option("--to", help="Write them to this SQLite file instead of the store's own.")
    ] = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """Write a battle's derived tables (units, tests, state_changes, boards) beside its log, stamped
    with the engine and head hash they come from; tables already derived from that log are kept,
    stale ones rebuilt."""
    with refusals(as_json):
        if (battle is None) == (not every):
            raise Refusal(Words("give a battle's id, or --all (not both)"), field="battle")
        if to is None and is_database_url(db):
            said = Words("the derived tables are SQLite, and --db {db} is PostgreSQL: give --to FILE", db=shown(db))
            raise Refusal(said, field="--to")
        store = open_store(db)
        battles = store.battles() if every else [battle or ""]
        for named in battles:
            if not store.last_seq(named):
                raise UnknownBattle(named)
        if to is not None and (to.is_dir() or not to.parent.is_dir()):
            raise Refusal(Words("{path} is not a file in a folder that exists", path=to), field="--to")
        from ..sql_tables import build_tables  # sqlite-utils, and numpy with it: for this command alone

        built = [build_tables(store, named, to or Path(db)) for named in battles]
    if as_json:
        emit_json(
            [
                {"battle": b.battle, "head": b.head, "engine": b.engine, "rebuilt": b.rebuilt, "rows": b.rows}
                for b in built
            ]
        )
        return
    for b in built:
        counts = listed(f"{n} {name}" for name, n in b.rows.items())  # the tables by their names
        fields = {"battle": b.battle, "path": to or db, "counts": counts, "head": b.head[:12], "engine": b.engine}
        if b.rebuilt:
            said = Words("{battle}: rebuilt in {path} ({counts}; head {head}, engine {engine})", **fields)
        else:
            said = Words("{battle}: already up to date in {path} ({counts}; head {head}, engine {engine})", **fields)
        out.print(language.say(said), markup=False)
