"""Human output of `morale explain`: a unit's state and every step that brought it there. Apart from
render_audit.py, whose other reports (time travel, what-if, verify, luck) import their projections,
and verify's the signature checks: explain is a read a table makes often (app/cli/reads.py)."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from morale.app.language import say
from morale.projections import explain
from morale.projections.explain import Explanation, Step

from .render import state_text

DIM = "dim"


def rule_text(rule: str) -> Text:
    return Text(f"  [{rule}]", style=DIM) if rule else Text("")


def step_lines(console: Console, step: Step, indent: str = "") -> None:
    # A settled test reads as its result ("fails the morale test"): numbered by the event that settled
    # it (the dice), with the event where it fell due on its "why" line.
    shown = step.settled_at if step.kind == "test" and step.settled_at is not None else step.seq
    console.print(Text(f"{indent}{shown:>4}  ", style=DIM) + Text(say(step.text)) + rule_text(step.rule))
    pad = indent + "      "
    if step.by and shown == step.seq:
        console.print(Text(f"{pad}{say(explain.entered_by_words(step.by))}", style=DIM))
    if step.kind == "test":
        test = Text(say(explain.why_words(step, settled_elsewhere=shown != step.seq)))
        console.print(Text(f"{pad}{say(explain.LABEL_WHY)}", style="bold") + test + rule_text(step.trigger))
        if step.trigger_words:
            console.print(Text(f"{pad}     {say(step.trigger_words)}", style="italic"))
        for cited in step.caused_by:
            console.print(Text(f"{pad}     {say(explain.because_words(cited))}"))
        if step.target is not None:
            console.print(Text(f"{pad}{say(explain.needs_words(step.target))}"))
        for m in step.modifiers:
            console.print(Text(f"{pad}       {say(explain.modifier_words(m))}") + rule_text(m.rule))
        if step.chance is not None:
            console.print(Text(f"{pad}{say(explain.chance_words(step.chance, step.chance_ways))}"))
        if step.roll is not None:
            console.print(Text(f"{pad}{say(explain.rolled_by_words(step.roll))}"))
        result = Text(say(explain.status_words(step)))
        console.print(Text(f"{pad}{say(explain.LABEL_RESULT)}", style="bold") + result + rule_text(step.rule))
        if step.words:
            console.print(Text(f"{pad}        {say(step.words)}", style="italic"))
    elif step.kind == "consequence":
        if step.words:
            console.print(Text(f"{pad}{say(step.words)}", style="italic"))
        for cited in step.caused_by:
            console.print(Text(f"{pad}{say(explain.because_words(cited))}", style=DIM))


def print_explanation(console: Console, view: Explanation) -> None:
    before, after = explain.heading_words(view)
    console.print(Text(say(before), style="bold") + state_text(view.state, say(view.state_name)) + Text(say(after)))
    for step in view.steps:
        step_lines(console, step)
