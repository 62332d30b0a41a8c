"""A game is one package, found through the `morale.rulesets` entry points: morale's four are found
that way, each imported only when it is first asked for, and a package installed apart from morale
adds a game without a line of morale changed. An entry point that gives no usable ruleset is
refused, on one line naming it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from support.games import FIFTH_TESTS, fifth_game, installed

from morale.core import installed as games
from morale.core.rules import Refusal
from morale.core.rulesets import BrokenGame, lookup, rulesets
from morale.core.rulesets.base import Registry

ROOT = Path(__file__).resolve().parents[1]
GROUP = games.GROUP


def point(name: str, value: str) -> EntryPoint:
    return EntryPoint(name=name, value=value, group=GROUP)


def morale(*args: str, path: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI in a fresh interpreter, with `path` (a folder of installed distributions) on its path."""
    env = {**os.environ, "PYTHONPATH": str(path) if path else ""}
    command = [sys.executable, "-c", "from morale.app.cli import app; app()", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)


def test_the_four_games_are_found_through_the_entry_points_in_the_order_morale_rulesets_lists_them():
    own = [p for p in games.games() if p.dist is not None and p.dist.name == games.HOME]
    assert {p.name: p.value for p in own} == {
        "gdb": "morale.core.rulesets.gdb.ruleset:GDB",
        "wfb8": "morale.core.rulesets.wfb8.ruleset:WFB8",
        "wh40k3": "morale.core.rulesets.wh40k.third:WH40K3",
        "wh40k6": "morale.core.rulesets.wh40k.sixth:WH40K6",
    }
    # morale's own first, in their order; a game installed beside them (make test's fifth) after.
    assert list(rulesets())[:4] == [("wh40k6", "1"), ("wh40k3", "1"), ("wfb8", "1"), ("gdb", "1")]


def test_a_game_is_imported_only_when_it_is_first_asked_for():
    script = (
        "import sys\n"
        "import morale.app.cli\n"
        "from morale.core.rulesets import lookup\n"
        "loaded = lambda: {m.split('.')[3] for m in sys.modules if m.startswith('morale.core.rulesets.')}\n"
        "games = lambda: sorted(loaded() - {'base', 'listing'})  # the registry's own modules\n"
        "before = games()\n"
        "lookup('wfb8', '1')\n"
        "print(before, games())\n"
    )
    shown = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60)
    assert shown.stdout.split() == ["[]", "['wfb8']"]


def test_a_package_installed_apart_from_morale_adds_a_game(tmp_path):
    site = fifth_game(tmp_path)
    listed = morale("rulesets", "--json", path=site)
    assert listed.returncode == 0, listed.stderr
    ids = [r["id"] for r in json.loads(listed.stdout)]
    assert ids[:4] == ["wh40k6", "wh40k3", "wfb8", "gdb"] and "fifth" in ids[4:]
    clauses = morale("rules", "fifth", "--json", path=site)
    assert [c["id"] for c in json.loads(clauses.stdout)] == ["fifth.morale.run"]  # its catalogue, from its package
    drawn = morale("graph", "fifth", path=site)
    assert drawn.returncode == 0, drawn.stderr
    assert "fifth: A fifth game" in drawn.stdout and "run (fifth.morale.run)" in drawn.stdout


def test_a_package_installed_apart_from_morale_runs_the_conformance_kit_on_its_game(tmp_path):
    site = fifth_game(tmp_path / "site")
    for path, text in FIFTH_TESTS.items():
        (tmp_path / "fifth" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "fifth" / path).write_text(text)
    env = {**os.environ, "PYTHONPATH": str(site)}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-v", "tests"]
    ran = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path / "fifth", timeout=300)
    assert ran.returncode == 0, ran.stdout[-3000:]
    assert re.search(r"morale games installed \(morale\.rulesets\): gdb, wfb8, wh40k3, wh40k6, .*\bfifth\b", ran.stdout)
    passed = re.findall(r"test_conformance\[(\S+)\] PASSED", ran.stdout)
    assert passed == [
        "carried_out[fifth.morale.run]",
        "named_by_a_test[fifth.morale.run]",
        "every_state_is_named",
        "graph_draws",
        "a_unit_in_play_can_be_destroyed",
        "changes_the_battle_only_through_outcomes",
        "replay_is_deterministic[example]",
        "refused_events_change_nothing[example]",
    ]


def test_an_entry_point_whose_module_cannot_be_imported_is_refused_naming_it(tmp_path):
    site = installed(tmp_path, "broken-game", "broken = no_such_game.ruleset:GAME")
    shown = morale("rulesets", path=site)
    assert shown.returncode == 2
    assert shown.stderr.strip().splitlines() == [
        "refused: ruleset: entry point 'broken' = 'no_such_game.ruleset:GAME' of group morale.rulesets "
        "(from broken-game): cannot be loaded (ModuleNotFoundError: No module named 'no_such_game')"
    ]
    assert morale("graph", "gdb", path=site).returncode == 0  # a game asked for by name is still served


def test_an_entry_point_that_names_no_ruleset_is_refused():
    registry = Registry(lambda: [point("states", "morale.core.machine:STATES")])
    with pytest.raises(BrokenGame, match=r"entry point 'states' = .*: names a tuple, not a Ruleset instance$"):
        registry.all()


def test_an_entry_point_whose_game_has_no_rulebook_is_refused_naming_it():
    registry = Registry(lambda: [point("rulebookless", "support.games:RULEBOOKLESS")])
    with pytest.raises(BrokenGame, match=r"'rulebookless' = .*: rulebookless has no rulebook \(Ruleset.rulebook"):
        registry.all()


def test_two_entry_points_giving_one_id_and_version_are_refused_naming_the_second():
    registry = Registry(
        lambda: [point("gdb", "morale.core.rulesets.gdb.ruleset:GDB"), point("gdb_again", "support.games:GDB_AGAIN")]
    )
    with pytest.raises(BrokenGame, match=r"entry point 'gdb_again' .*: gives gdb version 1, as 'gdb' does already$"):
        registry.all()


def test_one_game_under_two_names_is_the_same_game():
    registry = Registry(
        lambda: [
            point("gdb", "morale.core.rulesets.gdb.ruleset:GDB"),
            point("napoleonic", "morale.core.rulesets.gdb:GDB"),
        ]
    )
    assert list(registry.all()) == [("gdb", "1")]
    assert registry.find("gdb", "1") is lookup("gdb", "1")


def test_lookup_of_a_game_not_installed_names_the_games_that_are():
    known = ", ".join(
        sorted({ruleset.id for ruleset in rulesets().values()})
    )  # the four, and any installed beside them
    assert {"gdb", "wfb8", "wh40k3", "wh40k6"} <= set(known.split(", "))
    with pytest.raises(Refusal, match=rf"unknown ruleset 'fifth' \(known: {known}\)"):
        lookup("fifth", "1")


def test_gdb_results_table_ships_in_the_gdb_package_and_is_pinned_by_file_name():
    from morale.app.tables import default_table

    gdb = lookup("gdb", "1")
    assert (ROOT / "core" / "rulesets" / "gdb" / "gdb_results.toml").is_file()
    assert not list((ROOT / "core" / "rulesets").glob("*.toml"))  # nothing of a game's left outside its package
    assert default_table(gdb, "results").source == "default: gdb_results.toml"


def test_an_install_whose_metadata_names_no_game_says_to_reinstall(monkeypatch):
    from morale.core.rulesets import base

    monkeypatch.setattr(base, "_REGISTRY", Registry(lambda: []))
    with pytest.raises(Refusal, match=r"no game is installed \(group morale.rulesets is empty; reinstall morale"):
        lookup("gdb", "1")


def about_of_the_fifth(tmp_path: Path, title: str) -> Path:
    """The fifth game, saying who it is in a module of its own (`morale.rulesets.about`)."""
    site = fifth_game(tmp_path)
    info = next(site.glob("fifth_game-*.dist-info"))
    with (info / "entry_points.txt").open("a") as points:
        points.write("\n[morale.rulesets.about]\nfifth = fifth_about:FIFTH\n")
    about = f"from morale.core.installed import About\nFIFTH = About('fifth', '1', {title!r})\n"
    (site / "fifth_about.py").write_text(about)
    return site


def test_morale_version_names_a_game_from_its_about_without_importing_its_rules(tmp_path):
    site = about_of_the_fifth(tmp_path, "A fifth game")
    script = (
        "import sys; sys.argv = ['morale', '--version']; from morale.app.cli import main; main(); "
        "print(sorted(m for m in sys.modules if m.startswith(('fifth_game', 'morale.core.rulesets.'))))"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    shown = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    *lines, imported = shown.stdout.splitlines()
    assert "ruleset fifth version 1: A fifth game" in lines
    assert "fifth_game" not in imported and "rulesets.base" not in imported and "sixth" not in imported
    assert morale("--version", path=site).stdout.splitlines() == lines  # the Typer option: the same lines


def test_a_game_whose_about_says_other_than_its_ruleset_is_refused_naming_both(tmp_path):
    site = about_of_the_fifth(tmp_path, "Another game")
    shown = morale("rulesets", path=site)
    assert shown.returncode == 2
    assert "its ruleset is About(id='fifth', version='1', title='A fifth game', listing_order=100), but its " in (
        shown.stderr
    )
    assert "about entry point says About(id='fifth', version='1', title='Another game'" in shown.stderr
