"""Human output of `morale explain`: a unit's state and every step that brought it there. Apart from
render_audit.py, whose other reports (time travel, what-if, verify, luck) import their projections,
and verify's the signature checks: explain is a read a table makes often (app/cli/reads.py)."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from morale.projections.explain import Explanation, Step

from .render import state_text

DIM = "dim"


def rule_text(rule: str) -> Text:
    return Text(f"  [{rule}]", style=DIM) if rule else Text("")


def step_lines(console: Console, step: Step, indent: str = "") -> None:
    # A settled test reads as its result ("fails the morale test"): numbered by the event that settled
    # it (the dice), with the event where it fell due on its "why" line.
    shown = step.settled_at if step.kind == "test" and step.settled_at is not None else step.seq
    console.print(Text(f"{indent}{shown:>4}  ", style=DIM) + Text(step.text) + rule_text(step.rule))
    pad = indent + "      "
    if step.by and shown == step.seq:
        console.print(Text(f"{pad}entered by: {step.by}", style=DIM))
    if step.kind == "test":
        kind = " move due" if step.status == "moved" else " test due"
        due_at = f" at #{step.seq}" if shown != step.seq else ""
        test = Text(step.test.replace("_", " ")) + Text(kind + due_at)
        console.print(Text(f"{pad}why: ", style="bold") + test + rule_text(step.trigger))
        if step.trigger_words:
            console.print(Text(f"{pad}     {step.trigger_words}", style="italic"))
        for cited in step.caused_by:
            console.print(Text(f"{pad}     because of #{cited.seq}: {cited.text}"))
        if step.target is not None:
            console.print(Text(f"{pad}needs: {step.target} or less"))
        for m in step.modifiers:
            ignored = f", ignored: {m.ignored_by}" if m.ignored_by else ""
            console.print(Text(f"{pad}       {m.value:+d} {m.reason}{ignored}") + rule_text(m.rule))
        if step.chance is not None:
            console.print(Text(f"{pad}chance of passing: {100 * step.chance:.1f}% ({step.chance_ways})"))
        if step.roll is not None:
            seq, by, dice = step.roll.seq, step.roll.by, step.roll.said
            rolled = f"rolled at #{seq} by {by}: {dice}" if by else f"rolled at #{seq}: {dice}"
            console.print(Text(f"{pad}{rolled}"))
        status = step.status + (" automatically" if step.automatic else "")
        console.print(Text(f"{pad}result: ", style="bold") + Text(status) + rule_text(step.rule))
        if step.words:
            console.print(Text(f"{pad}        {step.words}", style="italic"))
    elif step.kind == "consequence":
        if step.words:
            console.print(Text(f"{pad}{step.words}", style="italic"))
        for cited in step.caused_by:
            console.print(Text(f"{pad}because of #{cited.seq}: {cited.text}", style=DIM))


def print_explanation(console: Console, view: Explanation) -> None:
    ld = f", Ld {view.ld}" if view.ld is not None else ""
    console.print(
        Text(f"{view.name} ({view.unit}, {view.side}): ", style="bold")
        + state_text(view.state, view.state_name)
        + Text(f", {view.models} of {view.starting_models} models{ld}, after event {view.at}")
    )
    for step in view.steps:
        step_lines(console, step)
