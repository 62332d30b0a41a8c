"""The conformance kit: the checks any game must pass, run by a ruleset package's own tests.

A game (a package whose `morale.rulesets` entry point names its `Ruleset`, see `core/installed.py`)
checks itself with one line in any of its test files:

    from pathlib import Path

    from morale.testing import conformance

    test_conformance = conformance("fifth", examples=[Path(__file__).parent / "example"])

That is one pytest case per check, each named by what it checks:

- `carried_out[RULE]`: each of the game's catalogue clauses is carried out by its code (declared
  with `clause` or `declare`, or a row of its state graph or of the engine's tables);
- `named_by_a_test[RULE]`: and named by a test under the calling file's folder (`tests=` to name
  another): a test function whose name holds the rule ID with its dots as underscores;
- `every_state_is_named`: the game has its own word (`state_names`) for each state its graph reaches;
- `graph_draws`: `morale graph RULESET` draws its state graph, every row in it;
- `replay_is_deterministic[EXAMPLE]`: each example battle is accepted event by event, and folding
  it twice gives the same state digest and the same outcomes after every event;
- `refused_events_change_nothing[EXAMPLE]`: at points of the example Hypothesis chooses, events of
  it out of place or with another unit or other dice; each the referee refuses names its rule or
  field in one line and leaves the battle's digest as it was.

An example is a folder holding `roster.toml` and `battle.ndjson` (as `examples/<game>/` in morale's
repository), or an `.ndjson` file of events from `battle_started` on. The pytest plugin that morale
installs (`morale.testing.plugin`, entry point group `pytest11`) marks these cases
`morale_conformance` (`pytest -m morale_conformance` runs only them) and names the games installed
in pytest's header. morale runs the kit on its own four games (tests/test_conformance.py).

The kit needs pytest and Hypothesis, as morale's `test` extra installs them: a ruleset package
names `morale[test]` among its own test dependencies.
"""

from .kit import Check, conformance

__all__ = ["Check", "conformance"]
