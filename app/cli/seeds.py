"""`morale seed`: a side's seed for the engine's dice (`engine.dice.seed.*`), committed by its sha256
first and revealed once both sides have committed, so neither the server nor one player steers them."""

from __future__ import annotations

from typing import Annotated

import typer

from morale.core.dice import commitment, new_secret
from morale.core.rules import Refusal
from morale.core.words import Words
from morale.events.codec import event_from_dict

from .. import language
from ..authors import cli_author
from ..service import load_head, record_on
from .base import DEFAULT_DB, BattleArg, Db, Expect, Json, app, emit_json, open_store, out, refusals, report


@app.command("seed")
def seed_command(
    battle: BattleArg,
    side: Annotated[str, typer.Argument(help="The side whose seed it is.")],
    commit: Annotated[
        str | None, typer.Option("--commit", help="The sha256 of a seed made elsewhere (64 hex digits).")
    ] = None,
    reveal: Annotated[str | None, typer.Option("--reveal", help="The seed itself, once both sides committed.")] = None,
    expect: Expect = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """Commit a side's seed for the engine's dice (a fresh one, printed to keep, or --commit HASH of
    one made elsewhere), or reveal it (--reveal SEED) once both sides have committed."""
    with refusals(as_json):
        if commit is not None and reveal is not None:
            said = Words("give --commit or --reveal, not both: a seed is committed first, revealed later")
            raise Refusal(said, field="reveal")
        made = None
        if reveal is not None:
            fields = {"type": "seed_revealed", "side": side, "seed": reveal}
        else:
            if commit is None:
                made = new_secret()
            fields = {"type": "seed_committed", "side": side, "commitment": commit or commitment(made or "")}
        event = event_from_dict(fields)  # a malformed hash or seed is refused here, naming the field
        store = open_store(db)
        fold = load_head(store, battle)
        recorded = record_on(store, fold, [event], expected_seq=expect, author=cli_author())
        if made and as_json:  # the seed is printed once, here: nothing else keeps it
            emit_json({"seed": made, "recorded": [{"stored": r.stored, "caused": r.caused} for r in recorded]})
            return
        if made:
            out.print(language.say(Words("seed of {side} for {battle}: {seed}", side=side, battle=battle, seed=made)))
            out.print(language.say(Words("Keep it: reveal it with --reveal once both sides have committed.")))
        report(fold, recorded, as_json)
