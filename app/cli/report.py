"""`morale report`: a battle as one self-contained HTML page to post or send."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path
from typing import Annotated

import typer

from morale.core.rules import Refusal
from morale.core.words import Words
from morale.projections.report import report

from .. import language
from ..service import load
from ..signed import heads_at_the_end
from .base import DEFAULT_DB, BattleArg, Db, Json, app, emit_json, open_store, out, refusals


@app.command("report")
def report_command(
    battle: BattleArg,
    output: Annotated[
        Path | None, typer.Option("--out", "-o", help="The HTML file to write (default: BATTLE.html).")
    ] = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """The battle report as one HTML file that opens anywhere, offline: the narrative turn by turn,
    the board at each turn's end, every test with its odds and dice, each side's luck, charts of
    each unit's state and of cumulative luck, and the head hash to check against the log."""
    target = output or Path(f"{battle}.html")
    with refusals(as_json):
        if target.is_dir() or not target.absolute().parent.is_dir():
            raise Refusal(Words("{path} is not a file in a folder that exists", path=target), field="--out")
        store = open_store(db)
        load(store, battle)
        data = report(battle, store.read(battle))
        from ..report.page import page  # pygal: for this command alone

        html = page(data, f"morale {version('morale')}", heads_at_the_end(store, battle))
        try:
            target.write_text(html, encoding="utf-8")
        except OSError as exc:
            raise Refusal(Words("{path}: {error}", path=target, error=exc.strerror), field="--out") from None
    if as_json:
        emit_json({"battle": battle, "out": str(target), "head": data.head, "bytes": len(html.encode())})
    else:
        said = Words(
            "Report of {battle} written to {path} (head {head}).", battle=battle, path=target, head=data.head[:12]
        )
        out.print(language.say(said), markup=False)
