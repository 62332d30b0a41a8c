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


# Each ruleset: the rule IDs its digest defines, and the ruleset that must carry each of them out.
RULESETS = {
    "wh40k6": (digest_ids("wh40k6"), WH40K6),
    "gdb": (defined_ids("gdb"), GDB),
}
CLAUSE_IDS = [(ruleset, rule_id) for ruleset, (ids, _) in RULESETS.items() for rule_id in ids]


@pytest.mark.parametrize(("ruleset", "rule_id"), CLAUSE_IDS)
def test_each_clause_has_a_test_named_after_it(ruleset, rule_id):
    assert re.sub(r"[.]", "_", rule_id) in all_test_names()


@pytest.mark.parametrize(("ruleset", "rule_id"), CLAUSE_IDS)
def test_each_clause_is_a_function_or_a_row_of_the_state_graph(ruleset, rule_id):
    graph_rules = {row["rule"] for row in RULESETS[ruleset][1].graph.rows}
    assert rule_id in CLAUSES or rule_id in graph_rules


def test_the_digests_are_where_the_tests_expect_them():
    assert len(digest_ids("wh40k6")) >= 29
    assert len(defined_ids("gdb")) == 57
