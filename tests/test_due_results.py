"""The due list's results (what each result of a due test's dice would bring about) are worked out
on a copy of the battle: asking for them, at every point of every example, changes nothing the
battle goes on to do."""

from __future__ import annotations

import json

import pytest
from support.served import ROOT, example_lines

from morale.app.roster import load_roster
from morale.core.fold import Fold
from morale.core.state import digest
from morale.events.codec import decode_event
from morale.projections.due import due_tests


def example_events(example: str) -> list:
    roster = load_roster(ROOT / "examples" / example / "roster.toml")
    return [roster.started, *roster.units, *map(decode_event, map(json.dumps, example_lines(example)))]


def digests(events: list, asking: bool) -> tuple[list[str], int]:
    """The battle's digest after each event, asking for the due list's results wherever a test is
    due if `asking`; and how many results were worked out."""
    fold, seen, worked = Fold("asked"), [], 0
    for seq, event in enumerate(events, 1):
        fold.advance(seq, event)
        if asking and fold.state().due:
            worked += sum(len(view.results) for view in due_tests(fold.state()))
        seen.append(digest(fold.state()))
    return seen, worked


@pytest.mark.parametrize("example", ["wh40k6", "wh40k3", "wfb8", "gdb"])
def test_asking_what_the_dice_would_do_changes_nothing(example):
    events = example_events(example)
    asked, worked = digests(events, asking=True)
    assert asked == digests(events, asking=False)[0]
    assert worked > 0 or example == "gdb"  # gdb's results tables give no odds, so no results


def test_a_failed_morale_test_would_send_the_unit_falling_back_and_a_pass_would_not():
    events = example_events("wh40k6")
    fold = Fold("asked")
    for seq, event in enumerate(events, 1):
        fold.advance(seq, event)
        if any(d.unit == "nobz" and d.test == "morale" for d in fold.state().due):
            break
    (nobz,) = [v for v in due_tests(fold.state()) if v.unit == "nobz"]
    by_result = {r.result: r for r in nobz.results}
    assert by_result["fail"].follows[0] == "Nobz Falls Back" and by_result["pass"].follows == ()
    assert fold.state().units["nobz"].state == "steady"
