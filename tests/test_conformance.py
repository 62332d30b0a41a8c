"""morale's own four games pass the conformance kit that any ruleset package runs (`morale.testing`)."""

from __future__ import annotations

import itertools

import msgspec
from support.examples import ROOT

from morale.core.rules import CLAUSES, Refusal
from morale.core.rulesets import lookup
from morale.testing import conformance, kit
from morale.testing.kit import checks_of, example_log

EXAMPLES = ROOT / "examples"

test_wh40k6_conforms = conformance("wh40k6", examples=[EXAMPLES / "wh40k6"])
test_wh40k3_conforms = conformance("wh40k3", examples=[EXAMPLES / "wh40k3"])
test_wfb8_conforms = conformance("wfb8", examples=[EXAMPLES / "wfb8"])
test_gdb_conforms = conformance("gdb", examples=[EXAMPLES / "gdb"])


# -- the kit fails a game that does not conform ------------------------------------------------------
def failures(ruleset: str, **given) -> dict[str, str]:
    """{check id: its failure} of the checks of `ruleset` that fail."""
    failed = {}
    for check in checks_of(ruleset, tests=given.pop("tests", ROOT / "tests"), **given):
        try:
            check.run()
        except AssertionError as exc:
            failed[check.id] = str(exc).splitlines()[0]
    return failed


def test_the_kit_fails_a_clause_no_test_names(tmp_path):
    (tmp_path / "test_who.py").write_text("def test_wh40k3_who_infantry_take_morale_tests():\n    pass\n")
    failed = failures("wh40k3", tests=tmp_path, examples=[EXAMPLES / "wh40k3"])
    assert "named_by_a_test[wh40k3.who.infantry]" not in failed
    assert failed["named_by_a_test[wh40k3.test.ld]"] == (
        f"wh40k3.test.ld: no test under {tmp_path} has `wh40k3_test_ld` in its name"
    )
    assert all(check.startswith("named_by_a_test[") for check in failed)


def test_the_kit_fails_a_clause_the_code_does_not_carry_out(monkeypatch):
    monkeypatch.delitem(CLAUSES, "wfb8.panic.exempt")
    assert failures("wfb8", examples=[EXAMPLES / "wfb8"]) == {
        "carried_out[wfb8.panic.exempt]": "wfb8.panic.exempt: no code carries it out"
    }


def test_the_kit_fails_a_state_the_game_has_no_word_for(monkeypatch):
    gdb = lookup("gdb", "1")
    monkeypatch.setattr(gdb, "state_names", {k: v for k, v in gdb.state_names.items() if k != "broken"})
    assert failures("gdb", examples=[EXAMPLES / "gdb"]) == {
        "every_state_is_named": "gdb: state_names gives no word of the game's for broken"
    }
    monkeypatch.setattr(gdb, "state_names", {**gdb.state_names, "broken": "routing", "routing": "routing"})
    assert failures("gdb", examples=[EXAMPLES / "gdb"]) == {
        "every_state_is_named": "gdb: state_names names routing, none of them a shared state"
    }


def test_the_kit_fails_a_graph_from_which_a_unit_in_play_cannot_be_destroyed(monkeypatch):
    from morale.core.machine import StateGraph

    wh40k6 = lookup("wh40k6", "1")
    rows = [r for r in wh40k6.graph.rows if r["trigger"] != "lose_last_model"]
    monkeypatch.setattr(wh40k6, "graph", StateGraph([*rows, {**LAST_MODEL, "source": ["steady", "regrouped"]}]))
    assert failures("wh40k6", examples=[])["a_unit_in_play_can_be_destroyed"] == (
        "wh40k6: no graph row destroys a unit that loses its last model while falling_back "
        "(a row with trigger lose_last_model, dest destroyed, rule engine.destroyed)"
    )


LAST_MODEL = {"trigger": "lose_last_model", "dest": "destroyed", "rule": "engine.destroyed"}


def test_the_kit_fails_a_graph_drawn_without_its_rows(monkeypatch):
    monkeypatch.setattr(kit, "state_diagram", lambda ruleset: "stateDiagram-v2\n")
    failed = failures("wh40k6", examples=[])
    assert failed["graph_draws"].startswith("wh40k6: the drawn graph leaves out the rows of engine.destroyed, wh40k6.")
    assert failed["an_example_battle_is_given"] == "wh40k6: no example battle given"


def test_the_kit_fails_a_replay_that_differs_the_second_time(monkeypatch):
    counter = itertools.count()
    monkeypatch.setattr(kit, "digest", lambda battle: str(next(counter)))
    failed = failures("wh40k6", examples=[EXAMPLES / "wh40k6"])
    assert (
        failed["replay_is_deterministic[wh40k6]"]
        == "event 1: the second replay's state digest differs from the first's"
    )


def test_the_kit_fails_an_example_the_referee_refuses(tmp_path):
    log = tmp_path / "refused.ndjson"
    events = example_log(EXAMPLES / "wh40k3")
    log.write_text("\n".join(msgspec.json.encode(e).decode() for e in [*events, events[-1]]))
    failed = failures("wh40k3", examples=[log])
    assert failed["replay_is_deterministic[refused]"].startswith(f"the example's event {len(events) + 1} (")


def test_the_kit_fails_a_referee_that_changes_the_battle_as_it_refuses(monkeypatch):
    real = kit.decide

    def careless(battle, event):
        try:
            real(battle, event)
        except Refusal:
            battle.turn += 1  # what no refusal may do: the battle is left otherwise than it was
            raise

    monkeypatch.setattr(kit, "decide", careless)
    failed = failures("wh40k6", examples=[EXAMPLES / "wh40k6"])
    assert "changed the battle" in failed["refused_events_change_nothing[wh40k6]"]


def test_the_kit_fails_a_game_that_changes_the_battle_itself(monkeypatch, tmp_path):
    package = tmp_path / "sneaky"
    package.mkdir()
    (package / "ruleset.py").write_text(
        "def on_fact(self, battle: Battle, unit: Unit, seq: int):\n    unit.state = 'broken'\n    return []\n"
    )
    gdb = lookup("gdb", "1")
    monkeypatch.setattr(kit.inspect, "getfile", lambda cls: str(package / "ruleset.py") if cls is type(gdb) else "")
    failed = failures("gdb", examples=[EXAMPLES / "gdb"])
    assert failed == {
        "changes_the_battle_only_through_outcomes": (
            "gdb changes the battle itself, not through outcomes: ruleset.py:2: unit.state changed"
        )
    }
