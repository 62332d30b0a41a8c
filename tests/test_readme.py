"""The README is a contract: it starts with the two set-up commands, `.ci/run` runs exactly its test
command, and every shell and Python block in it runs here, in order, in a fresh folder, as
support/commands.py says (the documentation's pages run the same way in test_docs.py)."""

from __future__ import annotations

import re

import pytest
from support.commands import SUITE, Run, nothing_listens, page_commands, run_in_a_clone, split_comment
from support.served import ROOT

README = ROOT / "README.md"


@pytest.fixture(scope="module")
def readme_run(tmp_path_factory, pg_server) -> Run:
    commands = page_commands(README.read_text(encoding="utf-8"))
    return run_in_a_clone(commands, tmp_path_factory.mktemp("readme"), pg_server.database())


def test_the_readme_starts_with_the_two_commands_and_ci_runs_its_test_command():
    first = page_commands(README.read_text(encoding="utf-8"))[:2]
    assert [c.text for c in first] == ["make demo", SUITE]
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line and not line.startswith("#")]
    assert ci[-1] == SUITE


def test_every_command_in_the_readme_exits_as_the_readme_says(readme_run):
    wrong = readme_run.wrong_exits()
    assert not wrong, "\n\n".join(wrong)


def test_a_refused_command_in_the_readme_says_why_in_one_line(readme_run):
    refused = [c for c in readme_run.commands if c.refused]
    assert refused, "the README shows at least one refusal"
    for command in refused:
        printed = readme_run.printed(command).strip().splitlines()
        assert len(printed) == 1 and printed[0].startswith("refused: "), (command.where, printed)


def test_the_readmes_taste_ends_with_kraak_falling_back_and_why(readme_run):
    explained = readme_run.output("morale explain hive-tarsis kraak")
    assert "wh40k6.fall_back.start" in explained and "5 + 6 = 11" in explained


def test_the_readme_fits_on_two_screens():
    # A screen of a terminal or a laptop's browser: about 75 lines; the rest is on the site.
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 150


def test_the_readme_links_to_pages_and_pictures_that_exist():
    text = README.read_text(encoding="utf-8")
    linked = [*re.findall(r"\]\(([^)#]+)", text), *re.findall(r'src="([^"]+)"', text)]
    assert linked and [path for path in linked if not (ROOT / path).exists()] == []


def test_no_server_started_by_the_readme_is_left_running(readme_run):
    assert nothing_listens(readme_run) == []


@pytest.mark.parametrize(
    ("line", "command", "comment"),
    [
        ("morale due b   # why", "morale due b", "why"),
        ("open 'http://x/view#battle=b'  # a page", "open 'http://x/view#battle=b'", "a page"),
        ("curl http://x/view#battle=b", "curl http://x/view#battle=b", ""),
        ("morale roll b u morale 7 1  # refused: a die", "morale roll b u morale 7 1", "refused: a die"),
    ],
)
def test_a_comment_starts_at_a_hash_after_white_space_outside_quotes(line, command, comment):
    assert split_comment(line) == (command, comment)


def test_every_readme_command_is_one_line():
    # A `\\` continuation would be run as two commands: the README keeps each on one line.
    assert not [c.line for c in page_commands(README.read_text(encoding="utf-8")) if c.text.endswith("\\")]
