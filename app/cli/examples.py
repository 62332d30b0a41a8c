"""`morale examples`: where the shipped example battles are, or a copy of them to play with."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..examples import copy_examples, examples
from .base import Json, app, emit_json, out, refusals


@app.command("examples")
def examples_command(
    to: Annotated[Path | None, typer.Option("--to", help="Copy them into this folder (one folder each).")] = None,
    as_json: Json = False,
) -> None:
    """The example battles shipped with morale (roster, events as NDJSON and in notation), one a ruleset."""
    with refusals(as_json):
        folders = copy_examples(to) if to is not None else [e.folder for e in examples()]
    if as_json:
        emit_json([{"example": f.name, "folder": str(f)} for f in folders])
        return
    for folder in folders:
        out.print(f"{folder.name}: {folder}", markup=False)
