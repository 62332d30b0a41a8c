"""Every clause of the digest has a test named after its rule ID, and code that carries it out."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from morale.core.rules import CLAUSES
from morale.core.ruleset import Ruleset
from morale.core.rulesets import lookup

TESTS = Path(__file__).resolve().parent
RULES = TESTS.parents[1] / "shared" / "rules"
RULESETS = {"wh40k6": 29, "wh40k3": 21, "wfb8": 15, "gdb": 57}  # ruleset -> how many clauses its digest has
# The gdb digest tags its sections (seed, default) rather than each clause: every clause it defines
# counts, whatever its tag.
EVERY_CLAUSE = {"gdb"}


def digest_ids(ruleset: str) -> list[str]:
    text = (RULES / f"{ruleset}.md").read_text(encoding="utf-8")
    if ruleset in EVERY_CLAUSE:
        return sorted(set(re.findall(rf"^\s*- `({ruleset}\.[a-z0-9_.]+)`", text, re.M)))
    return sorted(set(re.findall(rf"`({ruleset}\.[a-z0-9_.]+)` \((?:seed|standard)\)", text)))


def all_test_names() -> str:
    return "\n".join(re.findall(r"^def (test_\w+)", "".join(p.read_text() for p in TESTS.glob("test_*.py")), re.M))


CLAUSE_IDS = [(ruleset, rule_id) for ruleset in RULESETS for rule_id in digest_ids(ruleset)]


def data_rows(ruleset: Ruleset) -> set[str]:
    """Rules written as rows of the ruleset's tables that the engine itself carries out: the state graph,
    the tests limited to once a phase, and the tests whose order the player chooses."""
    graph = {row["rule"] for row in ruleset.graph.rows}
    return graph | set(ruleset.once_per_phase.values()) | set(ruleset.ordered_tests.values())


@pytest.mark.parametrize(("ruleset", "rule_id"), CLAUSE_IDS)
def test_each_clause_has_a_test_named_after_it(ruleset, rule_id):
    assert re.sub(r"[.]", "_", rule_id) in all_test_names()


@pytest.mark.parametrize(("ruleset", "rule_id"), CLAUSE_IDS)
def test_each_clause_is_a_function_or_a_row_of_the_rulesets_tables(ruleset, rule_id):
    rows = data_rows(lookup(ruleset, "1"))  # first: looking the ruleset up imports it, registering its clauses
    assert rule_id in CLAUSES or rule_id in rows


@pytest.mark.parametrize(("ruleset", "count"), RULESETS.items())
def test_the_digest_is_where_the_tests_expect_it(ruleset, count):
    assert len(digest_ids(ruleset)) >= count
