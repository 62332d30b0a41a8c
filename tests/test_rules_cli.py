"""`morale rules`: a referee reads the clause behind a rule ID from the command line."""

from __future__ import annotations

import json

import pytest
from support.examples import example_store
from typer.testing import CliRunner

from morale.app.cli import app
from morale.core import catalogue
from morale.core.rulesets import rulesets

runner = CliRunner()


def rules(*args: str):
    return runner.invoke(app, ["rules", *args])


def test_one_clause_is_shown_in_full_with_its_edition_and_kind():
    result = rules("wh40k6", "wh40k6.fall_back.edge")
    assert result.exit_code == 0
    clause = catalogue.clause("wh40k6.fall_back.edge")
    assert clause is not None and clause.kind == "seed"
    lines = result.output.splitlines()
    assert lines[0].startswith("wh40k6.fall_back.edge") and clause.title in lines[0]
    assert "Warhammer 40,000, 6th edition" in lines[1] and "seed" in lines[1]
    assert "table edge" in result.output and clause.words.split()[-1] in result.output


@pytest.mark.parametrize("args", [("wh40k6", "fall_back.edge"), ("wh40k6.fall_back.edge",)])
def test_a_clause_can_be_named_by_its_whole_id_alone_or_after_its_ruleset(args):
    result = rules(*args)
    assert result.exit_code == 0 and result.output.startswith("wh40k6.fall_back.edge")


def test_a_ruleset_lists_each_of_its_clauses_once():
    result = rules("gdb")
    assert result.exit_code == 0
    listed = [line.split()[0] for line in result.output.splitlines()[1:] if line.strip()]
    assert listed == [c.id for c in catalogue.of_ruleset("gdb")]


def test_without_arguments_every_ruleset_and_the_engine_are_listed():
    result = rules("--json")
    assert result.exit_code == 0
    rows = json.loads(result.output)
    assert {row["ruleset"] for row in rows} == {r.id for r in rulesets().values()} | {"engine"}
    assert {"wh40k6", "wh40k3", "wfb8", "gdb"} <= {row["ruleset"] for row in rows}
    assert len(rows) == len(catalogue.catalogue())


def test_json_gives_the_clause_with_every_field():
    result = rules("wfb8", "wfb8.panic.once_per_phase", "--json")
    assert json.loads(result.output) == {
        "id": "wfb8.panic.once_per_phase",
        "kind": catalogue.clause("wfb8.panic.once_per_phase").kind,
        "title": catalogue.title("wfb8.panic.once_per_phase"),
        "words": catalogue.words("wfb8.panic.once_per_phase"),
        "ruleset": "wfb8",
        "edition": "Warhammer Fantasy Battle, 8th edition",
    }


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("wh40k7",), "no ruleset 'wh40k7' in the catalogue (did you mean wh40k6?)"),
        (("wh40k6", "fall_back.edg"), "did you mean wh40k6.fall_back.edge"),
        (("wh40k6", "gdb.rout.rally"), "no clause 'gdb.rout.rally' of wh40k6"),  # a clause, of another ruleset
    ],
)
def test_an_unknown_ruleset_or_clause_is_refused_with_a_suggestion(args, says):
    result = rules(*args)
    assert result.exit_code == 2 and says in result.output


def test_the_narrative_names_each_clause_it_cites_beside_the_rule_id(tmp_path):
    db = tmp_path / "example.db"
    example_store(db)
    result = runner.invoke(app, ["replay", "hive-tarsis", "--turn", "1", "--db", str(db)])
    assert result.exit_code == 0
    assert f"[wh40k6.trigger.casualties: {catalogue.title('wh40k6.trigger.casualties')}" in result.output


@pytest.mark.parametrize("ruleset", ["wh40k6", "wh40k3", "wfb8", "gdb"])
def test_graph_draws_each_ruleset_as_mermaid_under_its_title(ruleset):
    # Each ruleset's page on the site draws the same rows (tests/test_docs.py).
    drawn = runner.invoke(app, ["graph", ruleset])
    assert drawn.exit_code == 0 and drawn.output.startswith(f"---\n{ruleset}: ")
    assert "stateDiagram-v2" in drawn.output and "[*] --> steady" in drawn.output


def test_each_edge_of_the_graph_names_the_clause_that_moves_the_unit():
    drawn = runner.invoke(app, ["graph", "wh40k6"]).output
    assert "steady --> falling_back: fail_morale (wh40k6.fall_back.start)" in drawn.replace(" |", "\n")
    assert runner.invoke(app, ["graph", "wh40k7"]).exit_code == 2


def test_with_json_a_refusal_is_one_json_object_naming_the_field():
    result = rules("wh40k7", "--json")
    assert result.exit_code == 2
    assert json.loads(result.stderr)["error"]["field"] == "RULESET"
