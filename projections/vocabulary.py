"""A ruleset's vocabulary: what a form at the table may record in it, in its own words.

Everything a front end needs to build its forms without writing a ruleset down a second time: the
phases in order, the states with the ruleset's word for each, the tests a unit may have due, the
facts the table states (with the kind of value each takes), the decisions, what removes models
(each casualty cause in the ruleset's words, with the clause that reads it where one does), the
profile fields a unit_changed may set (with the values each allows), and every clause of the
catalogue the ruleset cites, by rule ID, with its title and words.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal

import msgspec

from morale.core import catalogue
from morale.core.machine import STATES
from morale.core.rulesets import Ruleset, lookup, rulesets
from morale.core.words import Words


class Named(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str  # in the ruleset's words (said in the reader's language)


class FactWord(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    rule: str  # the clause that reads it
    kind: str  # rules.FACT_KINDS, or "choice" (one of `choices`)
    choices: tuple[str, ...] = ()
    name: str = ""  # in the ruleset's words (Ruleset.fact_name); `id` is what an event carries
    choice_names: dict[str, str] = {}  # each of `choices` in the ruleset's words


class RuleOf(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    rule: str  # the clause that allows or reads it
    name: str = ""  # a decision's, in the ruleset's words (Ruleset.decision_name); "": none given


class Cause(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str  # in the ruleset's words
    rule: str = ""  # the clause that reads it; "": none does (it is said for the story)


class Field(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    kind: str  # "choice", "bool", "int" or "text"
    choices: tuple[str, ...] = ()
    changeable: bool = False  # a unit_changed event may set it during the battle
    name: str = ""  # in the ruleset's words (Ruleset.field_name); `id` is what an event carries
    choice_names: dict[str, str] = {}  # each of `choices` in the ruleset's words


class ClauseWords(msgspec.Struct, frozen=True, kw_only=True):
    title: str  # the catalogue's, quoted in the reader's language
    words: str
    kind: str  # seed, standard, default, engine


class Vocabulary(msgspec.Struct, frozen=True, kw_only=True):
    ruleset: str
    version: str
    title: str
    phases: list[Named]  # in the order of the clock
    shared_turn: bool  # both sides act in every phase (the clock names the first side)
    states: list[Named]  # machine value -> the ruleset's word (Ruleset.state_names)
    tests: list[Named]
    facts: list[FactWord]
    decisions: list[RuleOf]  # settle a due test (the due list says which)
    free_decisions: list[RuleOf]  # taken when the rules allow, with no test due
    causes: list[Cause]  # what removes models, in the ruleset's words (Ruleset.casualty_causes)
    unit_types: list[str]
    unit_type_names: dict[str, str]  # machine value -> the ruleset's word (Ruleset.unit_type_names)
    special_rules: list[RuleOf]
    profile: list[Field]  # the ruleset's own profile fields (unit_joined.profile)
    combat_reports: bool  # combat_resolved is how a combat's result is recorded
    combat_detail: list[str]  # per-unit fields of a combat report the ruleset reads
    restrictions: dict[str, str]
    clauses: dict[str, ClauseWords]  # every rule ID the ruleset and the engine cite


class RulesetListed(msgspec.Struct, frozen=True, kw_only=True):
    ruleset: str
    version: str
    title: str


# The phases of the games' clocks by name, as a form or a chart names one ("movement"); a phase
# not listed is named by its machine name.
PHASE_NAMES = {
    "start_of_turn": Words("start of turn"),
    "command": Words("command"),
    "movement": Words("movement"),
    "psychic": Words("psychic"),
    "magic": Words("magic"),
    "shooting": Words("shooting"),
    "charge": Words("charge"),
    "assault": Words("assault"),
    "close_combat": Words("close combat"),
    "fight": Words("fight"),
    "melee": Words("melee"),
    "morale": Words("morale"),
}


def phase_name(phase: str) -> str:
    """A phase of the clock by name: "close combat" for `close_combat`, in the reader's language."""
    return PHASE_NAMES.get(phase, phase.replace("_", " "))


def listed() -> list[RulesetListed]:
    return [RulesetListed(ruleset=r.id, version=r.version, title=r.title) for r in rulesets().values()]


def vocabulary_of(ruleset_id: str, version: str) -> Vocabulary:
    return vocabulary(lookup(ruleset_id, version))


def vocabulary(ruleset: Ruleset) -> Vocabulary:
    states = [s for s in STATES if s in ruleset.graph.states]  # the shared order, as the graphs draw it
    return Vocabulary(
        ruleset=ruleset.id,
        version=ruleset.version,
        title=ruleset.title,
        phases=[Named(id=p, name=phase_name(p)) for p in ruleset.phases],
        shared_turn=ruleset.shared_turn,
        states=[Named(id=s, name=ruleset.state_name(s)) for s in states],
        tests=[Named(id=t, name=name) for t, name in ruleset.tests.items()],
        facts=[_fact(ruleset, fact, rule) for fact, rule in ruleset.facts.items()],
        decisions=[RuleOf(id=d, rule=r, name=ruleset.decision_name(d)) for d, r in ruleset.decisions.items()],
        free_decisions=[RuleOf(id=d, rule=r, name=ruleset.decision_name(d)) for d, r in ruleset.free_decisions.items()],
        causes=[Cause(id=c, name=name, rule=ruleset.causes.get(c, "")) for c, name in ruleset.casualty_causes.items()],
        unit_types=list(ruleset.unit_types),
        unit_type_names={t: ruleset.unit_type_name(t) for t in ruleset.unit_types},
        special_rules=[RuleOf(id=s, rule=r) for s, r in ruleset.special_rules.items()],
        profile=_profile_fields(ruleset),
        combat_reports=ruleset.combat_reports,
        combat_detail=sorted(ruleset.combat_detail),
        restrictions=dict(ruleset.restrictions),
        clauses={
            c.id: ClauseWords(title=catalogue.title(c.id), words=catalogue.words(c.id), kind=c.kind)
            for c in catalogue.catalogue().values()
            if c.id.startswith((f"{ruleset.id}.", "engine."))
        },
    )


def _fact(ruleset: Ruleset, fact: str, rule: str) -> FactWord:
    kind, name = ruleset.fact_kinds.get(fact, "true"), ruleset.fact_name(fact)
    if isinstance(kind, tuple):
        names = {c: ruleset.value_name(fact, c) for c in kind}
        return FactWord(id=fact, rule=rule, kind="choice", choices=kind, name=name, choice_names=names)
    return FactWord(id=fact, rule=rule, kind=kind, name=name)


def _profile_fields(ruleset: Ruleset) -> list[Field]:
    if ruleset.profile_type is None:
        return []
    hints = typing.get_type_hints(ruleset.profile_type, include_extras=True)
    return [
        _field(ruleset, name, hints[name], name in ruleset.changeable)
        for name in ruleset.profile_type.__struct_fields__  # type: ignore[attr-defined]
    ]


def _field(ruleset: Ruleset, name: str, hint: Any, changeable: bool) -> Field:
    """What kind of value a profile field takes, read from its type (a Literal gives the choices),
    with the ruleset's words for it and for each choice."""
    hint, named = _bare(hint), ruleset.field_name(name)
    if typing.get_origin(hint) is Literal:
        choices = tuple(typing.get_args(hint))
        names = {c: ruleset.value_name(name, c) for c in choices}
        return Field(id=name, kind="choice", choices=choices, changeable=changeable, name=named, choice_names=names)
    kind = {bool: "bool", int: "int"}.get(hint, "text")
    return Field(id=name, kind=kind, changeable=changeable, name=named)


def _bare(hint: Any) -> Any:
    """`hint` without Annotated metadata and without `| None`."""
    if typing.get_origin(hint) is typing.Annotated:
        return _bare(typing.get_args(hint)[0])
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return _bare(args[0]) if len(args) == 1 else hint
    return hint
