"""Issue 31's done-when: the README's taste, the board, explain and the report in Russian show no
English word a player reads, and the same commands in English are what they were.

"An English word a player reads" is a word of our own English: any word of a message catalogue's
English (every `messages.*.po` msgid) or of a clause's English title and words. A word the battle
itself brings (its units' names and ids, its sides, the rule IDs, the ruleset's id) is the battle's,
not ours, and is left alone: a Russian club's roster may well name its units in English.
"""

from __future__ import annotations

import getpass
import os
import re
import shlex
import subprocess
import sys
import tomllib
from functools import cache
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from support.commands import page_commands

from morale.core import catalogue

ROOT = Path(__file__).resolve().parents[1]
ROSTER = ROOT / "examples" / "wh40k6" / "roster.toml"
MORALE = str(Path(sys.executable).parent / "morale")
# Abbreviations and units that read the same in Russian play (the rule texts write them so).
SAME_IN_RUSSIAN = {"ld", "cp", "oc", "id", "warhammer"}  # and the games' own names


@cache
def english_words() -> frozenset[str]:
    texts = []
    for po in ROOT.glob("**/messages.*.po"):
        if ".venv" in po.parts:
            continue
        with po.open("rb") as fp:
            for message in read_po(fp):
                ids = [message.id] if isinstance(message.id, str) else list(message.id)
                texts += [re.sub(r"\{[^}]*\}", " ", text) for text in ids if text]
    for clause in catalogue.catalogue().values():
        texts += [str(clause.title), str(clause.words)]
    return frozenset(w.lower() for text in texts for w in re.findall(r"[A-Za-z]{3,}", text))


def battles_own_words(roster: Path) -> set[str]:
    data = tomllib.loads(roster.read_text(encoding="utf-8"))
    texts = [str(data["battle"].get(key, "")) for key in ("id", "name", "ruleset")]
    texts += [side for side in data["battle"].get("sides", [])]
    for unit in data.get("unit", []):
        texts += [unit["id"], unit["name"], unit.get("type", "")]
    return {w.lower() for text in texts for w in re.findall(r"[A-Za-z]{3,}", text)}


def english_in(text: str, roster: Path = ROSTER) -> list[str]:
    """Our English words in `text`, rule IDs, URLs and the battle's own words aside."""
    text = re.sub(r"\bmorale (?=\d)", " ", text)  # the program, by name and version: "morale 0.2.0"
    text = re.sub(r"\b[a-z0-9_]+(?:\.[a-z0-9_]+)+\b", " ", text)  # rule IDs, file names
    text = re.sub(r"\S+://\S+", " ", text)
    text = re.sub(r"\b[0-9a-f]{12,}\b", " ", text)  # hashes, keys' fingerprints: "...cd738add5201c..." holds no word
    text = re.sub(r"\b\w+(?:\[\d+\])+", " ", text)  # a field refused, by its path: dice[0]
    allowed = battles_own_words(roster) | SAME_IN_RUSSIAN | {getpass.getuser().lower()}  # who entered it
    found = [w for w in re.findall(r"[A-Za-z]{3,}", text) if w.lower() in english_words()]
    return sorted({w for w in found if w.lower() not in allowed})


def taste() -> list[str]:
    """The README's "A taste" commands that run `morale` (the venv's activation aside)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return [c.text for c in page_commands(readme) if c.text.startswith("morale ")]


def run(command: str, folder: Path, lang: str) -> subprocess.CompletedProcess[str]:
    words = shlex.split(command)
    env = {**os.environ, "MORALE_LANG": lang, "COLUMNS": "200"}
    args = [MORALE, *words[1:]]
    if args[1] == "new":
        args[2] = str(ROOT / args[2])
    return subprocess.run(args, cwd=folder, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> dict[str, dict[str, subprocess.CompletedProcess[str]]]:
    """The README's taste, then the board and the report, in each language in a folder of its own."""
    results: dict[str, dict[str, subprocess.CompletedProcess[str]]] = {}
    for lang in ("en", "ru"):
        folder = tmp_path_factory.mktemp(f"taste-{lang}")
        commands = [*taste(), "morale board hive-tarsis", "morale report hive-tarsis -o report.html"]
        results[lang] = {command: run(command, folder, lang) for command in commands}
        results[lang]["report.html"] = subprocess.CompletedProcess([], 0, (folder / "report.html").read_text(), "")
    return results


def test_the_readmes_taste_in_russian_exits_as_in_english(played):
    assert {c: r.returncode for c, r in played["ru"].items()} == {c: r.returncode for c, r in played["en"].items()}


def test_the_readmes_refusal_in_russian_is_one_line_naming_its_field(played):
    refused = played["ru"]["morale roll hive-tarsis kraak morale 7 1"]
    assert refused.returncode == 2
    assert refused.stderr.startswith("отказано: dice[0]: ") and len(refused.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("command", [*taste(), "morale board hive-tarsis", "report.html"])
def test_in_russian_no_english_word_of_ours_is_left(played, command):
    said = played["ru"][command]
    text = said.stdout + said.stderr
    if command == "report.html":
        # Machine text shown as such (commands, keys, JSON) is in <code> and <pre>, and is not words.
        text = re.sub(r"<(style|script|code|pre)\b.*?</\1>|<[^>]+>", " ", text, flags=re.S)
    assert english_in(text) == [], text


def test_the_scan_finds_english_words_of_ours():
    assert english_in("Sergeant Kraak's Guardsmen fails the morale test") == ["fails", "morale", "test"]
    assert english_in("Sergeant Kraak's Guardsmen не прошёл тест на Мораль [wh40k6.test.morale]") == []
