"""Human output of `morale explain`: a unit's state and every step that brought it there. Apart from
render_audit.py, whose other reports (time travel, what-if, verify, luck) import their projections,
and verify's the signature checks: explain is a read a table makes often (app/cli/reads.py)."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from morale.app.language import say
from morale.core.words import Words, counted
from morale.projections.explain import Explanation, Step

from .render import state_text

DIM = "dim"

# A test's result as explain says it ("result: passed"): the step's status, a value of the view.
STATUS_WORDS = {
    "due": Words("due"),
    "passed": Words("passed"),
    "failed": Words("failed"),
    "not taken": Words("not taken"),
    "moved": Words("moved"),
}
AUTOMATICALLY = {
    "passed": Words("passed automatically"),
    "failed": Words("failed automatically"),
}


def rule_text(rule: str) -> Text:
    return Text(f"  [{rule}]", style=DIM) if rule else Text("")


def _why(step: Step, shown: int) -> Words:
    """ "morale test due", "morale test due at #12" (settled later), "fall back move due"."""
    test = step.test.replace("_", " ")
    if step.status == "moved":
        if shown != step.seq:
            return Words("{test} move due at #{seq}", test=test, seq=step.seq)
        return Words("{test} move due", test=test)
    if shown != step.seq:
        return Words("{test} test due at #{seq}", test=test, seq=step.seq)
    return Words("{test} test due", test=test)


def _result(step: Step) -> str:
    if step.automatic and step.status in AUTOMATICALLY:
        return say(AUTOMATICALLY[step.status])
    status = say(STATUS_WORDS.get(step.status, step.status))
    return say(Words("{status} automatically", status=status)) if step.automatic else status


def step_lines(console: Console, step: Step, indent: str = "") -> None:
    # A settled test reads as its result ("fails the morale test"): numbered by the event that settled
    # it (the dice), with the event where it fell due on its "why" line.
    shown = step.settled_at if step.kind == "test" and step.settled_at is not None else step.seq
    console.print(Text(f"{indent}{shown:>4}  ", style=DIM) + Text(say(step.text)) + rule_text(step.rule))
    pad = indent + "      "
    if step.by and shown == step.seq:
        console.print(Text(pad + say(Words("entered by: {by}", by=step.by)), style=DIM))
    if step.kind == "test":
        why = Text(pad + say(Words("why:")) + " ", style="bold")
        console.print(why + Text(say(_why(step, shown))) + rule_text(step.trigger))
        if step.trigger_words:
            console.print(Text(f"{pad}     {say(step.trigger_words)}", style="italic"))
        for cited in step.caused_by:
            console.print(Text(f"{pad}     " + say(Words("because of #{seq}: {text}", seq=cited.seq, text=cited.text))))
        if step.target is not None:
            console.print(Text(pad + say(Words("needs: {target} or less", target=step.target))))
        for m in step.modifiers:
            if m.ignored_by:
                said = Words("{value:+d} {reason}, ignored: {rule}", value=m.value, reason=m.reason, rule=m.ignored_by)
            else:
                said = Words("{value:+d} {reason}", value=m.value, reason=m.reason)
            console.print(Text(f"{pad}       {say(said)}") + rule_text(m.rule))
        if step.chance is not None:
            chance = Words(
                "chance of passing: {percent:.1f}% ({ways})", percent=100 * step.chance, ways=step.chance_ways
            )
            console.print(Text(pad + say(chance)))
        if step.roll is not None:
            seq, by, dice = step.roll.seq, step.roll.by, step.roll.said
            if by:
                rolled = Words("rolled at #{seq} by {by}: {dice}", seq=seq, by=by, dice=dice)
            else:
                rolled = Words("rolled at #{seq}: {dice}", seq=seq, dice=dice)
            console.print(Text(pad + say(rolled)))
        result = Text(pad + say(Words("result:")) + " ", style="bold")
        console.print(result + Text(_result(step)) + rule_text(step.rule))
        if step.words:
            console.print(Text(f"{pad}        {say(step.words)}", style="italic"))
    elif step.kind == "consequence":
        if step.words:
            console.print(Text(f"{pad}{say(step.words)}", style="italic"))
        for cited in step.caused_by:
            console.print(
                Text(pad + say(Words("because of #{seq}: {text}", seq=cited.seq, text=cited.text)), style=DIM)
            )


def print_explanation(console: Console, view: Explanation) -> None:
    # "models" agrees with the unit's starting models: "1 of 1 model", "3 of 10 models".
    if view.ld is not None:
        state = counted(
            ", {models} of {n} model, Ld {ld}, after event {at}",
            ", {models} of {n} models, Ld {ld}, after event {at}",
            n=view.starting_models,
            models=view.models,
            ld=view.ld,
            at=view.at,
        )
    else:
        state = counted(
            ", {models} of {n} model, after event {at}",
            ", {models} of {n} models, after event {at}",
            n=view.starting_models,
            models=view.models,
            at=view.at,
        )
    console.print(
        Text(f"{view.name} ({view.unit}, {view.side}): ", style="bold")
        + state_text(view.state, view.state_name)
        + Text(say(state))
    )
    for step in view.steps:
        step_lines(console, step)
