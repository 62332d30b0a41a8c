"""Every clause of the digest has a test named after its rule ID, and code that carries it out."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from morale.core.rules import CLAUSES
from morale.core.rulesets.gdb import GDB
from morale.core.rulesets.wh40k6 import WH40K6

TESTS = Path(__file__).resolve().parent
RULES = TESTS.parents[1] / "shared" / "rules"


def digest_ids(ruleset: str) -> list[str]:
    text = (RULES / f"{ruleset}.md").read_text(encoding="utf-8")
    return sorted(set(re.findall(rf"`({ruleset}\.[a-z0-9_.]+)` \((?:seed|standard)\)", text)))


def defined_ids(ruleset: str) -> list[str]:
    """Every rule ID the digest defines: the ID that opens a clause's bullet, whatever its tag
    (seed, standard or default). The gdb digest tags its sections rather than each bullet."""
    text = (RULES / f"{ruleset}.md").read_text(encoding="utf-8")
    return sorted(set(re.findall(rf"^\s*- `({ruleset}\.[a-z0-9_.]+)`", text, re.M)))


def all_test_names() -> str:
    return "\n".join(re.findall(r"^def (test_\w+)", "".join(p.read_text() for p in TESTS.glob("test_*.py")), re.M))


@pytest.mark.parametrize("rule_id", digest_ids("wh40k6"))
def test_each_wh40k6_clause_has_a_test_named_after_it(rule_id):
    assert re.sub(r"[.]", "_", rule_id) in all_test_names()


@pytest.mark.parametrize("rule_id", digest_ids("wh40k6"))
def test_each_wh40k6_clause_is_a_function_or_a_row_of_the_state_graph(rule_id):
    graph_rules = {row["rule"] for row in WH40K6.graph.rows}
    assert rule_id in CLAUSES or rule_id in graph_rules


def test_the_digest_is_where_the_tests_expect_it():
    assert len(digest_ids("wh40k6")) >= 29


@pytest.mark.parametrize("rule_id", defined_ids("gdb"))
def test_each_gdb_clause_has_a_test_named_after_it(rule_id):
    assert re.sub(r"[.]", "_", rule_id) in all_test_names()


@pytest.mark.parametrize("rule_id", defined_ids("gdb"))
def test_each_gdb_clause_is_a_function_or_a_row_of_the_state_graph(rule_id):
    graph_rules = {row["rule"] for row in GDB.graph.rows}
    assert rule_id in CLAUSES or rule_id in graph_rules


def test_the_gdb_digest_is_where_the_tests_expect_it():
    assert len(defined_ids("gdb")) == 57
