"""The rule catalogue and the code agree: every clause in the catalogue is carried out by code and
named by a test, and every rule ID the code cites is written down in the catalogue."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.own_games import own_clauses, own_rulesets

from morale.core import catalogue
from morale.core.rules import CLAUSES
from morale.core.rulesets import lookup, rulesets
from morale.core.rulesets.base import Ruleset
from morale.testing.kit import named_by_tests

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
CODE = [REPO / "core", REPO / "events", REPO / "projections", REPO / "app"]
PREFIXES = "|".join(sorted({r.id for r in own_rulesets().values()} | {"engine"}))
CITED = re.compile(rf"""["']((?:{PREFIXES})\.[a-z0-9_.]*[a-z0-9_])["']""")
# How many clauses each ruleset's source text and the standard rules give: the catalogue may grow,
# never shrink without someone changing this line on purpose.
AT_LEAST = {"wh40k6": 29, "wh40k3": 21, "wfb8": 15, "gdb": 57, "engine": 9}


def cited_by_code() -> set[str]:
    """Every rule ID written as a string in the engine's code, and every one its tables cite."""
    text = "".join(p.read_text(encoding="utf-8") for folder in CODE for p in folder.rglob("*.py"))
    tables = set().union(*(data_rows(r) for r in rulesets().values()))
    return set(CITED.findall(text)) | set(CLAUSES) | tables


def data_rows(ruleset: Ruleset) -> set[str]:
    """Rules written as rows of the ruleset's tables that the engine itself carries out: the state graph,
    the tests limited to once a phase, and the tests whose order the player chooses."""
    graph = {row["rule"] for row in ruleset.graph.rows}
    return graph | set(ruleset.once_per_phase.values()) | set(ruleset.ordered_tests.values())


CATALOGUE = list(own_clauses().values())  # an installed game's are its own package's tests' to name
NAMED = named_by_tests(own_clauses(), TESTS.glob("test_*.py"))  # the conformance kit's reading
CITED_IDS = cited_by_code()


@pytest.mark.parametrize("clause", CATALOGUE, ids=lambda c: c.id)
def test_each_clause_has_a_test_named_after_it(clause):
    assert clause.id in NAMED


@pytest.mark.parametrize("clause", CATALOGUE, ids=lambda c: c.id)
def test_each_clause_is_carried_out_by_the_code(clause):
    if clause.kind == "engine":
        assert clause.id in CITED_IDS
    else:
        ruleset = lookup(clause.ruleset, "1")
        assert clause.id in CLAUSES or clause.id in data_rows(ruleset)


def test_every_rule_id_the_code_cites_is_in_the_catalogue():
    assert sorted(CITED_IDS - set(catalogue.catalogue())) == []


@pytest.mark.parametrize(("ruleset", "count"), AT_LEAST.items())
def test_the_catalogue_holds_every_clause_of_each_ruleset(ruleset, count):
    assert len(catalogue.of_ruleset(ruleset)) >= count


@pytest.mark.parametrize("clause", CATALOGUE, ids=lambda c: c.id)
def test_each_clause_is_written_in_words_with_a_kind_and_an_edition(clause):
    assert clause.title and len(clause.words) >= 20 and "\n" not in clause.words
    assert clause.edition
    assert (clause.kind == "engine") == (clause.ruleset == "engine")
