"""A list builder's rosters mapped onto a ruleset: the roster data `app/roster.py` reads (a [battle]
table and [[unit]] tables), or the questions that must be answered first.

What the files say is taken as they say it: a unit's name, its models (the `number` of each model
in it), its Leadership (the Ld characteristic; the highest of its models', as every ruleset here
tests a unit on its highest Leadership), its Initiative (I), its unit type (a Unit Type or Troop
Type characteristic, else a category) and its rules, by name, where the ruleset knows the name.
What they do not say, or say in words the ruleset does not know, becomes a Question: never a guess.
Whether a unit needs a Leadership or an Initiative at all is the ruleset's to say (a 3rd edition
tank has none), so each unit is put to the ruleset's own check in a fold held in memory.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from morale.core.fold import Fold
from morale.core.rules import Refusal
from morale.core.rulesets import latest, lookup, rulesets
from morale.core.rulesets.base import Ruleset
from morale.core.words import Words, counted
from morale.events.codec import MalformedEvent, event_from_dict

from ..language import say
from .answers import Answers
from .read import ListRoster, ListUnit

# The characteristics a unit type is read from, in order; then its categories.
TYPE_CHARACTERISTICS = ("unit type", "troop type", "type")
LEADERSHIP = ("ld", "leadership")
INITIATIVE = ("i", "initiative")
# A list builder's words for a unit type where a ruleset spells it otherwise.
TYPE_ALIASES = {"jump_infantry": "jump", "jetbike": "jet_bike", "jetbikes": "jet_bike", "walker": "dreadnought"}


@dataclass(frozen=True)
class Question:
    """What must be answered: where in an answers file (`section`, the force's, unit's or rule's
    `name` in it, the `item` asked: `unit."Ork Boyz".ld`), what it asks, in words (`Words`, said in
    the reader's language: the CLI's prompt, the HTTP 422's `questions`), the choices where the
    ruleset has a list of them, and the kind of value (text, a whole number, a rule)."""

    section: str  # battle, force, unit, rules
    name: str  # the force's, unit's or rule's name; "" for the battle
    item: str  # id, ruleset, side, type, models, ld, initiative; "" for a rule
    asks: str  # a sentence without its full stop (Words)
    choices: tuple[str, ...] = ()
    units: tuple[str, ...] = ()  # a rule's question: the units that have it

    @property
    def key(self) -> str:
        named = f"{self.section}.{quoted(self.name)}" if self.name else self.section
        return f"{named}.{self.item}" if self.item else named

    @property
    def kind(self) -> str:
        """int (a count or a characteristic), rule (a rule id, or false) or text."""
        return "int" if self.item in ("models", "ld", "initiative") else "rule" if self.section == "rules" else "text"


class Unanswered(MalformedEvent):
    def __init__(self, where: str, questions: list[Question]) -> None:
        said = counted(
            "{where}: {n} answer is needed before the battle can start: {key}: {asks}",
            "{where}: {n} answers are needed before the battle can start: {key}: {asks}",
            n=len(questions),
            where=where,
            key=questions[0].key,
            asks=questions[0].asks,
        )
        super().__init__(said, field=questions[0].key)
        self.questions = questions


@dataclass
class _Asked:
    questions: dict[str, Question] = field(default_factory=dict)

    def ask(self, at: tuple[str, str, str], asks: Words, choices: tuple[str, ...] = (), unit: str = "") -> None:
        section, name, item = at
        asked = Question(section, name, item, asks, choices, (unit,) if unit else ())
        known = self.questions.get(asked.key)
        if known is not None:  # a rule more units have: asked once, naming each
            units = (*known.units, unit) if unit and unit not in known.units else known.units
            asked = Question(section, name, item, known.asks, known.choices, units)
        self.questions[asked.key] = asked


def slug(text: str, joiner: str = "_") -> str:
    """An id made from a name: "Grünburg Halberdiers" -> grunburg_halberdiers (accents dropped, as
    an id is ASCII)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", joiner, ascii_text.lower()).strip(joiner)[:64].strip(joiner)


def quoted(name: str) -> str:
    """A name as a TOML key: "Ork Boyz", with its quotes and backslashes escaped."""
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def labels(names: list[str]) -> list[str]:
    """Names told apart: the second "Ork Boyz" is "Ork Boyz (2)"."""
    seen: Counter[str] = Counter()
    told: list[str] = []
    for name in names:
        seen[name] += 1
        told.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return told


def roster_data(lists: list[ListRoster], answers: Answers, given_id: str | None = None) -> dict[str, Any]:
    """The roster the files and the answers make, as `roster_from_data` reads it; raises Unanswered
    with every question still open."""
    where = ", ".join(roster.where for roster in lists)
    asked = _Asked()
    ruleset = _ruleset(lists, answers, asked)
    forces = [force for roster in lists for force in roster.forces]
    force_labels = labels([force.catalogue or force.name for force in forces])
    sides = _sides(force_labels, answers, asked)
    battle = _battle(lists, answers, given_id, sides, ruleset, asked)
    if ruleset is None:
        raise Unanswered(where, list(asked.questions.values()))
    units: list[dict[str, Any]] = []
    entries = [(side, unit) for force, side in zip(forces, sides, strict=True) for unit in force.units]
    unit_labels = labels([u.name for _, u in entries])
    _known(answers, "force", force_labels)
    _known(answers, "unit", unit_labels)
    ids: set[str] = set()
    for label, (side, unit) in zip(unit_labels, entries, strict=True):
        units.append(_unit(label, unit, side, answers, ruleset, asked, ids))
    _ask_what_the_rules_need(battle, units, asked)
    if asked.questions:
        raise Unanswered(where, list(asked.questions.values()))
    return {"battle": battle, "house_rules": answers.house_rules, "unit": units}


def _known(answers: Answers, section: str, names: list[str]) -> None:
    """An answer for a force or unit the rosters do not have is a typo, or another list's: refused
    naming it, since the question it meant to answer would otherwise stay open unseen."""
    given = answers.forces if section == "force" else answers.units
    unknown = [name for name in given if name not in names]
    if unknown:
        key = f"{section}.{quoted(unknown[0])}"
        known = ", ".join(repr(name) for name in names) or Words("none")
        if section == "force":
            said = Words(
                "{where}: {key}: the rosters have no force of that name (theirs: {known})",
                where=answers.where,
                key=key,
                known=known,
            )
        else:
            said = Words(
                "{where}: {key}: the rosters have no unit of that name (theirs: {known})",
                where=answers.where,
                key=key,
                known=known,
            )
        raise MalformedEvent(said, field=key)


def _ruleset(lists: list[ListRoster], answers: Answers, asked: _Asked) -> Ruleset | None:
    named = answers.battle.get("ruleset")
    if named is None:
        found = {_played_with(roster.game_system) for roster in lists}
        named = found.pop() if len(found) == 1 else None
    if named is None:
        systems = ", ".join(sorted({repr(roster.game_system) for roster in lists}))
        asked.ask(
            ("battle", "", "ruleset"),
            Words("Which rules is the battle played with? The roster's game system is {systems}", systems=systems),
            _ruleset_ids(),
        )
        return None
    try:
        version = answers.battle.get("ruleset_version")
        return lookup(str(named), str(version)) if version else latest(str(named))
    except Refusal as refusal:
        said = Words("{where}: battle.ruleset: {problem}", where=answers.where, problem=refusal.message)
        raise MalformedEvent(said, field="battle.ruleset") from None


def _ruleset_ids() -> tuple[str, ...]:
    return tuple(sorted({ruleset_id for ruleset_id, _ in rulesets()}))


def _played_with(game_system: str) -> str | None:
    """The ruleset a list builder's game system is played with here: the first game installed whose
    `Ruleset.game_systems` pattern matches its name (each game says how BSData names its system)."""
    found = (r.id for r in rulesets().values() if r.game_systems and re.search(r.game_systems, game_system, re.I))
    return next(found, None)


def _sides(force_labels: list[str], answers: Answers, asked: _Asked) -> list[str]:
    """Each force's side: its answer, else its catalogue's name; asked when that does not make two."""
    answered = {label: answers.forces.get(label, {}).get("side") for label in force_labels}
    sides = [
        str(answered[label] or slug(label.rpartition(" (")[0] if label.endswith(")") else label))
        for label in force_labels
    ]
    if len(set(sides)) != 2:
        for label in force_labels:
            if not answered[label]:
                asks = counted(
                    "Which side does the force {force!r} play? The forces make {n} side and a battle has two",
                    "Which side does the force {force!r} play? The forces make {n} sides and a battle has two",
                    n=len(set(sides)),
                    force=label,
                )
                asked.ask(("force", label, "side"), asks)
    return sides


def _battle(
    lists: list[ListRoster],
    answers: Answers,
    given_id: str | None,
    sides: list[str],
    ruleset: Ruleset | None,
    asked: _Asked,
) -> dict[str, Any]:
    given = answers.battle
    order = list(dict.fromkeys(sides))
    if "sides" in given:
        order = list(given["sides"]) if isinstance(given["sides"], list) else given["sides"]
    named = [roster.name for roster in lists if roster.name]
    battle_id = given_id or given.get("id") or (slug(named[0], "-") if len(lists) == 1 and named else None)
    if not battle_id:
        asked.ask(
            ("battle", "", "id"),
            Words("What is the battle's id? It names the battle in every link: letters, digits, '_', '.' or '-'"),
        )
    battle: dict[str, Any] = {
        "id": battle_id or "",
        "name": given.get("name", " vs ".join(named)),
        "sides": order,
    }
    if ruleset is not None:
        battle |= {"ruleset": ruleset.id, "ruleset_version": ruleset.version}
    for key in ("dice", "confirmation", "language"):
        if key in given:
            battle[key] = given[key]
    return battle


def _unit(
    label: str, unit: ListUnit, side: str, answers: Answers, ruleset: Ruleset, asked: _Asked, ids: set[str]
) -> dict[str, Any]:
    given = answers.units.get(label, {})
    unit_id = str(given.get("id") or "")
    if not unit_id:  # made from the name, told apart from the others: ork_boyz, ork_boyz_2
        base = slug(unit.name) or "unit"
        unit_id, n = base, 1
        while unit_id in ids:
            n += 1
            unit_id = f"{base[:60]}_{n}"
    ids.add(unit_id)  # an answered id given twice is the rules' to refuse, naming the unit
    found: dict[str, Any] = {"id": unit_id, "side": given.get("side", side), "name": unit.name}
    unit_type = given.get("type") or _unit_type(unit, ruleset)
    if unit_type is None:
        said = [v for key in TYPE_CHARACTERISTICS for v in unit.characteristics.get(key, [])] + unit.categories
        if said:
            asks = Words(
                "What type of unit is {unit!r}? The roster says {said}", unit=unit.name, said=", ".join(map(repr, said))
            )
        else:
            asks = Words("What type of unit is {unit!r}? The roster names none", unit=unit.name)
        asked.ask(("unit", label, "type"), asks, tuple(ruleset.unit_types))
    found["type"] = unit_type or ""
    models = given.get("models", unit.models)
    if models is None:
        asks = Words("How many models does {unit!r} have? The roster counts none", unit=unit.name)
        asked.ask(("unit", label, "models"), asks)
    found["models"] = models or 0
    for key, names in (("ld", LEADERSHIP), ("initiative", INITIATIVE)):
        value = given[key] if key in given else _characteristic(unit, names)
        if isinstance(value, str):  # the file gives one, but not as a number
            if key == "ld":
                asks = Words(
                    "What is {unit!r}'s leadership? The roster gives {value!r}, which is no number",
                    unit=unit.name,
                    value=value,
                )
            else:
                asks = Words(
                    "What is {unit!r}'s initiative? The roster gives {value!r}, which is no number",
                    unit=unit.name,
                    value=value,
                )
            asked.ask(("unit", label, key), asks)
        elif value is not None:
            found[key] = value
    found["rules"] = given["rules"] if "rules" in given else _rules(unit, answers, ruleset, asked)
    if "profile" in given:
        found["profile"] = given["profile"]
    return found


def _unit_type(unit: ListUnit, ruleset: Ruleset) -> str | None:
    said = [v for key in TYPE_CHARACTERISTICS for v in unit.characteristics.get(key, [])] + unit.categories
    for words in said:
        outside = re.sub(r"\(.*?\)", "", words)
        inside = " ".join(re.findall(r"\((.*?)\)", words))
        for candidate in (slug(words), slug(outside), slug(inside)):
            candidate = TYPE_ALIASES.get(candidate, candidate) if candidate not in ruleset.unit_types else candidate
            if candidate in ruleset.unit_types:
                return candidate
            if candidate.endswith("s") and candidate[:-1] in ruleset.unit_types:  # "Bikes"
                return candidate[:-1]
    return None


def _characteristic(unit: ListUnit, names: tuple[str, ...]) -> int | str | None:
    """The unit's value of a characteristic: the highest its models give; None where none is given
    or the file says "-" (it has none, as a vehicle has no Leadership); the text where it is no number."""
    values = [v for name in names for v in unit.characteristics.get(name, []) if v and v != "-"]
    numbers = [int(m.group()) for v in values if (m := re.match(r"\d{1,2}\b", v))]
    if values and len(numbers) < len(values):
        return next(v for v in values if not re.match(r"\d{1,2}\b", v))
    return max(numbers) if numbers else None


def _rules(unit: ListUnit, answers: Answers, ruleset: Ruleset, asked: _Asked) -> list[str]:
    rules: list[str] = []
    for name in unit.rules:
        if name in answers.rules:
            meaning = answers.rules[name]
            if isinstance(meaning, str) and meaning:
                rules.append(meaning)
        elif (known := _known_rule(name, ruleset)) is not None:
            rules.append(known)
        else:
            asks = Words(
                "What is the rule {rule!r} in {ruleset}? One of its special rules,"
                " or false if it does not change morale",
                rule=name,
                ruleset=ruleset.id,
            )
            asked.ask(("rules", name, ""), asks, tuple(ruleset.special_rules), unit.name)
    rules.extend(known for name in unit.upgrades if (known := _known_rule(name, ruleset)) is not None)
    return list(dict.fromkeys(rules))


def _known_rule(name: str, ruleset: Ruleset) -> str | None:
    for candidate in (slug(name), slug(re.sub(r"\(.*?\)", "", name))):
        if candidate in ruleset.special_rules:
            return candidate
    return None


def _ask_what_the_rules_need(battle: dict[str, Any], units: list[dict[str, Any]], asked: _Asked) -> None:
    """The Leadership and Initiative the ruleset refuses a unit without, asked of each unit the file
    gives none: each unit is checked as `morale new` would check it, in a fold in memory, with
    stand-ins only to look past what is still unanswered (two sides, a first refusal); nothing of
    it is kept. Asked in the same round as the rest, so a referee answers once."""
    sides = battle["sides"] if len(set(battle["sides"])) == 2 else ["side_a", "side_b"]
    started = {
        "type": "battle_started",
        "ruleset": battle["ruleset"],
        "ruleset_version": battle["ruleset_version"],
        "sides": sides,
    }
    try:
        first = event_from_dict(started)
        fold = Fold("roster")
        fold.check(first)
        fold.advance(1, first)
    except (Refusal, MalformedEvent):
        return  # the battle itself is refused: roster_from_data says why, naming the field
    for seq, (label, found) in enumerate(zip(labels([u["name"] for u in units]), units, strict=True), start=2):
        if not found["type"] or not found["models"]:
            continue  # asked already; the rest of it is asked once those are answered
        fields = {
            "type": "unit_joined",
            "unit": found["id"],
            "side": found["side"] if found["side"] in sides else sides[0],
            "name": found["name"],
            "unit_type": found["type"],
            "models": found["models"],
            "special_rules": found["rules"],
        }
        fields |= {key: found[key] for key in ("ld", "initiative", "profile") if key in found}
        for _ in range(3):  # at most Leadership and Initiative, then the unit as it stands
            try:
                event = event_from_dict(fields)
                fold.check(event)
            except Refusal as refusal:
                if refusal.field in ("ld", "initiative") and refusal.field not in fields:
                    asks = _opening(
                        Words("{problem}, and the roster gives none for {unit!r}", problem=refusal.message, unit=label)
                    )
                    asked.ask(("unit", label, refusal.field), asks)
                    fields[refusal.field] = 1  # a stand-in, to hear what else the ruleset needs
                    continue
                break  # any other refusal is roster_from_data's to say, naming the field
            except MalformedEvent:
                break
            fold.advance(seq, event)
            break


def answered(pairs: list[tuple[Question, str | int | bool]]) -> Answers:
    """Answers given one by one (a prompt, the console's form) as the answers file would hold them."""
    battle: dict[str, Any] = {}
    forces: dict[str, dict[str, Any]] = {}
    units: dict[str, dict[str, Any]] = {}
    rules: dict[str, str | bool] = {}
    for question, value in pairs:
        if question.section == "battle":
            battle[question.item] = value
        elif question.section == "force":
            forces.setdefault(question.name, {})[question.item] = value
        elif question.section == "unit":
            units.setdefault(question.name, {})[question.item] = value
        else:
            rules[question.name] = value if isinstance(value, str) and value else False
    return Answers(where="the answers given", battle=battle, forces=forces, units=units, rules=rules)


def template(questions: list[Question]) -> str:
    """The questions as an answers file to fill in: each key with an empty value and, above it, what
    it asks (and the choices). Grouped by table, as TOML wants. The comments are for the person who
    fills it in, so they are said in the reader's language; the tables and keys are TOML's, read back
    by `read_answers`, and never change with it."""
    lines: list[str] = []
    for header in dict.fromkeys(_header(q) for q in questions):
        lines.append(f"[{header}]")
        for question in (q for q in questions if _header(q) == header):
            lines.append(f"# {say(question.asks)}.")  # each asks is a sentence without its full stop
            if question.units:
                lines.append("# " + say(Words("Units with it: {units}.", units=", ".join(question.units))))
            if question.choices:
                choices = ", ".join(question.choices)
                if question.kind == "rule":
                    lines.append("# " + say(Words("One of: {choices}, or false.", choices=choices)))
                else:
                    lines.append("# " + say(Words("One of: {choices}.", choices=choices)))
            key = quoted(question.name) if question.section == "rules" else question.item
            lines.append(f"{key} = " + ("0" if question.kind == "int" else '""'))
        lines.append("")
    return "\n".join(lines)


def _header(question: Question) -> str:
    return "rules" if question.section == "rules" else question.key.rpartition(".")[0]


def _opening(words: Words) -> Words:
    """`words` opening a question: its English capitalised ("A 40K unit needs its Leadership (ld)
    for Morale tests, and the roster gives none for 'Scouts'"), its template and values as they are
    for another language, whose sentence opens in its own way."""
    opened = str.__new__(Words, words[:1].upper() + words[1:])
    opened.template, opened.plural, opened.args = words.template, words.plural, words.args
    return opened
