"""The example battles shipped with morale (a roster, its events as NDJSON and in notation, a folder
a ruleset), found wherever morale is installed: the repository's examples/, or the installed package."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from morale.core.rules import Refusal
from morale.core.words import Words

PACKAGE = "morale.examples"
FILES = ("roster.toml", "battle.ndjson", "battle.notation")
# The same battle as a list builder exports it, with the answers its file cannot give (not every
# ruleset has a list builder: General de Brigade has none).
LIST_FILES = ("roster.rosz", "answers.toml")


@dataclass(frozen=True)
class Example:
    name: str  # the ruleset's id
    folder: Path


def examples() -> list[Example]:
    root = Path(str(resources.files(PACKAGE)))
    return [Example(p.name, p) for p in sorted(root.iterdir()) if (p / "roster.toml").is_file()]


def copy_examples(target: Path) -> list[Path]:
    """Each example's files into TARGET/NAME/; a folder that is already there is refused, not overwritten."""
    if target.exists() and not target.is_dir():
        raise Refusal(Words("{path} is a file, not a folder", path=target), field="--to")
    found = examples()
    taken = [target / e.name for e in found if (target / e.name).exists()]
    if taken:
        raise Refusal(Words("{path} is already there", path=taken[0]), field="--to")
    copied = []
    for example in found:
        (target / example.name).mkdir(parents=True)
        for name in (*FILES, *(f for f in LIST_FILES if (example.folder / f).is_file())):
            shutil.copyfile(example.folder / name, target / example.name / name)
        copied.append(target / example.name)
    return copied
