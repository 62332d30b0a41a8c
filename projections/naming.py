"""How the story names a test or a phase, in each language.

The English story has always named a test by its machine name in words ("fails the morale test",
"must roll 2D6 for fall back") and a phase likewise ("Start of the movement phase"); that English
stays as it is. Another language names them as its rule text does: a test by the ruleset's name
for it (`Ruleset.tests`: "Morale test" is "тест на Мораль" in 40K and "Тест на Проверку Морали"
in General de Brigade, the same machine name), and a phase declined as each sentence needs it
("фаза Движения", "Начало фазы Движения"): one whole sentence per phase and use, below.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from morale.core.words import Words

if TYPE_CHECKING:
    from morale.core.rulesets.base import Ruleset


def known_as(english: str, name: str) -> Words:
    """`english` where the reader reads English, `name` (said in the reader's language) elsewhere:
    for a thing the English story words by its machine name and another language by the ruleset's
    name for it. (The template holds both placeholders, each language showing one: `{x:.0}` formats
    a value as nothing.)"""
    return Words("{english}{name:.0}", english=english, name=name)


def test_named(ruleset: Ruleset, test: str) -> Words:
    """The test as the story names it: "morale" in English, the ruleset's name for it elsewhere."""
    english = test.replace("_", " ")
    return known_as(english, ruleset.tests.get(test, english))


def as_said(slug: str) -> str:
    return slug.replace("_", " ")


# Each phase of the games' clocks in the three sentences that name one, so that a language that
# declines its nouns says each whole: (heading, start, end). A phase not listed reads its machine name.
_Said = Callable[[int, str], Words]
_PHASES: dict[str, tuple[_Said, _Said, _Said]] = {
    "movement": (
        lambda turn, side: Words("Turn {turn} · {side} · movement", turn=turn, side=side),
        lambda turn, side: Words("Start of the movement phase ({side}, turn {turn})", turn=turn, side=side),
        lambda turn, side: Words("End of the movement phase ({side}, turn {turn})", turn=turn, side=side),
    ),
    "psychic": (
        lambda turn, side: Words("Turn {turn} · {side} · psychic", turn=turn, side=side),
        lambda turn, side: Words("Start of the psychic phase ({side}, turn {turn})", turn=turn, side=side),
        lambda turn, side: Words("End of the psychic phase ({side}, turn {turn})", turn=turn, side=side),
    ),
    "shooting": (
        lambda turn, side: Words("Turn {turn} · {side} · shooting", turn=turn, side=side),
        lambda turn, side: Words("Start of the shooting phase ({side}, turn {turn})", turn=turn, side=side),
        lambda turn, side: Words("End of the shooting phase ({side}, turn {turn})", turn=turn, side=side),
    ),
    "assault": (
        lambda turn, side: Words("Turn {turn} · {side} · assault", turn=turn, side=side),
        lambda turn, side: Words("Start of the assault phase ({side}, turn {turn})", turn=turn, side=side),
        lambda turn, side: Words("End of the assault phase ({side}, turn {turn})", turn=turn, side=side),
    ),
    "start_of_turn": (
        lambda turn, side: Words("Turn {turn} · {side} · start of turn", turn=turn, side=side),
        lambda turn, side: Words("Start of the start of turn phase ({side}, turn {turn})", turn=turn, side=side),
        lambda turn, side: Words("End of the start of turn phase ({side}, turn {turn})", turn=turn, side=side),
    ),
    "magic": (
        lambda turn, side: Words("Turn {turn} · {side} · magic", turn=turn, side=side),
        lambda turn, side: Words("Start of the magic phase ({side}, turn {turn})", turn=turn, side=side),
        lambda turn, side: Words("End of the magic phase ({side}, turn {turn})", turn=turn, side=side),
    ),
    "close_combat": (
        lambda turn, side: Words("Turn {turn} · {side} · close combat", turn=turn, side=side),
        lambda turn, side: Words("Start of the close combat phase ({side}, turn {turn})", turn=turn, side=side),
        lambda turn, side: Words("End of the close combat phase ({side}, turn {turn})", turn=turn, side=side),
    ),
    "charge": (
        lambda turn, side: Words("Turn {turn} · {side} · charge", turn=turn, side=side),
        lambda turn, side: Words("Start of the charge phase ({side}, turn {turn})", turn=turn, side=side),
        lambda turn, side: Words("End of the charge phase ({side}, turn {turn})", turn=turn, side=side),
    ),
    "melee": (
        lambda turn, side: Words("Turn {turn} · {side} · melee", turn=turn, side=side),
        lambda turn, side: Words("Start of the melee phase ({side}, turn {turn})", turn=turn, side=side),
        lambda turn, side: Words("End of the melee phase ({side}, turn {turn})", turn=turn, side=side),
    ),
    "morale": (
        lambda turn, side: Words("Turn {turn} · {side} · morale", turn=turn, side=side),
        lambda turn, side: Words("Start of the morale phase ({side}, turn {turn})", turn=turn, side=side),
        lambda turn, side: Words("End of the morale phase ({side}, turn {turn})", turn=turn, side=side),
    ),
    "command": (
        lambda turn, side: Words("Turn {turn} · {side} · command", turn=turn, side=side),
        lambda turn, side: Words("Start of the command phase ({side}, turn {turn})", turn=turn, side=side),
        lambda turn, side: Words("End of the command phase ({side}, turn {turn})", turn=turn, side=side),
    ),
    "fight": (
        lambda turn, side: Words("Turn {turn} · {side} · fight", turn=turn, side=side),
        lambda turn, side: Words("Start of the fight phase ({side}, turn {turn})", turn=turn, side=side),
        lambda turn, side: Words("End of the fight phase ({side}, turn {turn})", turn=turn, side=side),
    ),
}


def phase_heading(turn: int, side: str, phase: str) -> Words:
    """ "Turn 1 · imperium · movement": the story's heading where a phase starts."""
    if phase in _PHASES:
        return _PHASES[phase][0](turn, side)
    return Words("Turn {turn} · {side} · {phase}", turn=turn, side=side, phase=as_said(phase))


def phase_started(turn: int, side: str, phase: str) -> Words:
    if phase in _PHASES:
        return _PHASES[phase][1](turn, side)
    return Words("Start of the {phase} phase ({side}, turn {turn})", turn=turn, side=side, phase=as_said(phase))


def phase_ended(turn: int, side: str, phase: str) -> Words:
    if phase in _PHASES:
        return _PHASES[phase][2](turn, side)
    return Words("End of the {phase} phase ({side}, turn {turn})", turn=turn, side=side, phase=as_said(phase))


# Each phase by itself, as a title names it ("turn 1, imperium, movement (ended)"): English keeps the
# machine name it always showed, another language the phase's name.
_PHASE_NAMES: dict[str, Words] = {
    "movement": Words("movement phase"),
    "psychic": Words("psychic phase"),
    "shooting": Words("shooting phase"),
    "assault": Words("assault phase"),
    "start_of_turn": Words("start of turn phase"),
    "magic": Words("magic phase"),
    "close_combat": Words("close combat phase"),
    "charge": Words("charge phase"),
    "melee": Words("melee phase"),
    "morale": Words("morale phase"),
    "command": Words("command phase"),
    "fight": Words("fight phase"),
}


def phase_named(phase: str) -> Words:
    """The phase in a title: "movement" in English, "фаза Движения" in Russian."""
    english = as_said(phase)
    return known_as(english, _PHASE_NAMES.get(phase, english))
