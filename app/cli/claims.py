"""Confirmation at the table, for a battle played without a referee: `morale confirm`, `morale
dispute`, `morale resolve` and `morale disputes` (`engine.claim.*`, `engine.dispute.*`).

Typed at the machine that holds the store, each writes as the referee, unless `--side` says a side's
player is typing (a hot-seat game: both players at one keyboard). A dispute is a player's: the
referee rules on an entry or strikes it (`morale strike`).
"""

from __future__ import annotations

from typing import Annotated

import typer

from morale.core.words import Words
from morale.events.codec import event_from_dict
from morale.projections.claims import claims_view

from .. import language
from ..authors import cli_author, side_player_author
from ..service import load, load_head, record_on
from .base import DEFAULT_DB, BattleArg, Db, Expect, Json, Side, app, emit_json, open_store, out, refusals, report


def _record(battle: str, fields: dict, side: str | None, expect: int | None, db: str, as_json: bool) -> None:
    event = event_from_dict(fields)  # a malformed seq or reason is refused here, naming the field
    store = open_store(db)
    fold = load_head(store, battle)
    author = side_player_author(fold, side, [event]) if side is not None else cli_author()
    report(fold, record_on(store, fold, [event], expected_seq=expect, author=author), as_json)


# A dispute's status in words (the view's value, `open`, stays as it is in JSON).
DISPUTE_STATUS = {
    "open": Words("open"),
    "stands": Words("stands"),
    "withdrawn": Words("withdrawn"),
    "struck": Words("struck"),
}


@app.command("confirm")
def confirm_command(
    battle: BattleArg,
    seqs: Annotated[list[int], typer.Argument(help="The entries to confirm (their seqs in `morale log`).")],
    side: Side = None,
    expect: Expect = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """Confirm the other side's entries as they were entered."""
    with refusals(as_json):
        _record(battle, {"type": "entry_confirmed", "seqs": seqs}, side, expect, db, as_json)


@app.command("dispute")
def dispute_command(
    battle: BattleArg,
    seq: Annotated[int, typer.Argument(help="The entry to dispute (its seq in `morale log`).")],
    reason: Annotated[str, typer.Option("--reason", help="Why it is disputed, for the log.")],
    side: Side = None,
    expect: Expect = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """Dispute an entry of the other side that you have not confirmed; the phase waits for its resolution."""
    with refusals(as_json):
        _record(battle, {"type": "entry_disputed", "seq": seq, "reason": reason}, side, expect, db, as_json)


@app.command("resolve")
def resolve_command(
    battle: BattleArg,
    seq: Annotated[int, typer.Argument(help="The disputed entry (its seq in `morale log`).")],
    ruling: Annotated[str, typer.Option("--ruling", help="The ruling, or why the dispute is withdrawn.")],
    side: Side = None,
    expect: Expect = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """End a dispute with the entry standing: the referee's ruling, or (with --side) its disputer
    withdrawing it. To end it with the entry struck, strike it (`morale strike`)."""
    with refusals(as_json):
        _record(battle, {"type": "dispute_resolved", "seq": seq, "ruling": ruling}, side, expect, db, as_json)


@app.command("disputes")
def disputes_command(battle: BattleArg, db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """Every dispute of the battle and how it ended, and the entries still awaiting confirmation."""
    with refusals(as_json):
        store = open_store(db)
        load(store, battle)  # an unknown battle is refused by name
        view = claims_view(battle, store.read(battle))
        if as_json:
            emit_json(view)
            return
        say = language.say
        if not view.confirmation:
            said = Words("Battle {battle} does not ask the players to confirm each other's entries.", battle=battle)
            out.print(say(said), markup=False)
            return
        if not view.disputes:
            out.print(say(Words("No entry of this battle has been disputed.")))
        for row in view.disputes:
            status = say(DISPUTE_STATUS.get(row.status, row.status))
            out.print(f"#{row.seq} [{status}] {say(row.said)}", markup=False)
            entry = Words(
                "the entry: #{seq} {said} (entered by {by})", seq=row.entry, said=row.entry_said, by=row.entered_by
            )
            out.print("    " + say(entry), markup=False)
        if view.awaiting:
            out.print(say(Words("Awaiting confirmation:")))
        for claim in view.awaiting:
            awaiting = Words(
                "#{seq} {said}: a claim of {side}, for {awaits} to confirm",
                seq=claim.seq,
                said=claim.said,
                side=claim.side,
                awaits=claim.awaits,
            )
            out.print("  " + say(awaiting), markup=False)
