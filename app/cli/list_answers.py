"""`morale new` with a list builder's files: the questions their rosters leave open, asked at a
terminal one by one (when no one is there to answer, `morale new` prints them as an answers file)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from morale.core.words import Words
from morale.events.codec import MalformedEvent

from .. import language
from ..battlescribe import Answers, Question, Unanswered, answered, is_list_file, read_answers
from ..battlescribe.read import MAX_FILE_BYTES
from ..roster import Roster, load_roster, roster_from_list_files

ROUNDS = 5  # answers can raise new questions (a unit's type tells whether it needs a Leadership)


def roster_of(
    paths: list[Path], battle: str | None, answers_file: Path | None, ask: Callable[[str], str] | None
) -> Roster:
    """The roster the files make: one TOML roster as ever, or list builders' files with their
    answers; `ask` (a terminal's prompt) answers what is still open, else Unanswered is raised."""
    listed = [path for path in paths if is_list_file(path.name)]
    if not listed:
        if len(paths) != 1:
            raise MalformedEvent(Words("give one TOML roster, or list builders' files (.ros, .rosz)"), field="roster")
        if answers_file is not None:
            said = Words("--answers is for list builders' files (.ros, .rosz), not a TOML roster")
            raise MalformedEvent(said, field="answers")
        return load_roster(paths[0], battle)
    if len(listed) != len(paths):
        other = next(path for path in paths if path not in listed)
        said = Words("{path}: a TOML roster is given alone, not with list builders' files", path=other)
        raise MalformedEvent(said, field="roster")
    files = [(str(path), _bytes(path)) for path in paths]
    answers = _answers(answers_file)
    for _ in range(ROUNDS):
        try:
            return roster_from_list_files(files, answers, battle)
        except Unanswered as open_questions:
            if ask is None:
                raise
            answers = answers.merged(prompt(open_questions.questions, ask))
    return roster_from_list_files(files, answers, battle)


def _bytes(path: Path) -> bytes:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:  # refused before a byte of it is read
            said = Words(
                "{path}: the file is larger than a roster file may be ({bytes} bytes)", path=path, bytes=MAX_FILE_BYTES
            )
            raise MalformedEvent(said)
        return path.read_bytes()
    except OSError as exc:
        raise MalformedEvent(Words("{path}: {error}", path=path, error=exc.strerror)) from None


def _answers(path: Path | None) -> Answers:
    if path is None:
        return Answers()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise MalformedEvent(Words("{path}: {error}", path=path, error=exc.strerror), field="answers") from None
    except UnicodeDecodeError as exc:
        said = Words("{path}: not UTF-8 text (byte {byte})", path=path, byte=exc.start)
        raise MalformedEvent(said, field="answers") from None
    return read_answers(text, str(path))


def at_a_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def prompt(questions: list[Question], ask: Callable[[str], str]) -> Answers:
    """Each question asked until it has an answer of its kind: a whole number, a rule's id or false,
    one of the choices where there are some."""
    pairs: list[tuple[Question, str | int | bool]] = []
    for question in questions:
        shown = f"{question.key}: {language.say(question.asks)}"
        if question.units:
            shown += " " + language.say(Words("(units: {units})", units=", ".join(question.units)))
        if question.choices:
            shown += f" [{', '.join(question.choices)}{', false' if question.kind == 'rule' else ''}]"
        while True:
            value = _value(question, ask(shown).strip())
            if value is not None:
                pairs.append((question, value))
                break
    return answered(pairs)


def _value(question: Question, typed: str) -> str | int | bool | None:
    if question.kind == "int":
        return int(typed) if typed.isdigit() and len(typed) < 7 else None
    if question.kind == "rule" and typed.lower() in ("false", "none", "no"):
        return False
    if not typed or (question.choices and typed not in question.choices):
        return None
    return typed
