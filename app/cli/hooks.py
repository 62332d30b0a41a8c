"""`morale hook`: a battle's webhooks, for its referee: register a URL (add), list them, read one's
delivery log, resume a paused one, remove one. Kept in the store: the `morale serve` node that
delivers picks a change up within a few seconds, without a restart (app/webhooks/deliver.py)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..webhooks.hooks import delivery_log, hooks_of, register, remove, resume
from .base import DEFAULT_DB, BattleArg, Db, Json, app, emit_json, open_store, out, refusals

hook = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(hook, name="hook")

HookArg = Annotated[str, typer.Argument(metavar="HOOK", help="The hook's id, as `morale hook list` shows it.")]


@hook.callback()
def _hook() -> None:
    """A battle's webhooks: its feed items posted to a URL, signed (add, list, log, resume, remove)."""


@hook.command("add")
def add_command(
    battle: BattleArg,
    url: Annotated[str, typer.Argument(help="Where to post each item: https://bot.example/morale.")],
    label: Annotated[str, typer.Option("--label", help="Whose it is: 'league table', 'Discord bot'.")],
    kind: Annotated[
        list[str] | None,
        typer.Option(
            "--kind",
            metavar="KIND",
            help="Only items of this kind: an event type or a kind of outcome (test_resolved...); repeatable.",
        ),
    ] = None,
    after: Annotated[
        int | None,
        typer.Option(
            "--after", metavar="SEQ", help="Deliver the items after this event (0: all of them; default: the last)."
        ),
    ] = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """Register a URL for the battle's feed items; prints the hook's secret, this once."""
    with refusals(as_json):
        made = register(open_store(db), battle, url, kind or [], label, after)
    if as_json:
        emit_json(made)
        return
    if made.kinds:
        kinds = ", ".join(made.kinds)
        out.print(f"Webhook {made.id} posts {battle}'s items of these kinds to {made.url}: {kinds}.", markup=False)
    else:
        out.print(f"Webhook {made.id} posts every item of {battle} to {made.url}.", markup=False)
    out.print(f"It starts after event {made.delivered_through}.", markup=False)
    out.print("Its secret, shown this once (the receiver verifies each delivery's signature with it):", markup=False)
    out.print(made.secret, markup=False)


@hook.command("list")
def list_command(battle: BattleArg, db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """The battle's webhooks: how far each has delivered, and why one is paused."""
    with refusals(as_json):
        kept = hooks_of(open_store(db), battle)
    if as_json:
        emit_json(kept)
        return
    if not kept:
        out.print(f"Battle {battle} has no webhook (`morale hook add {battle} URL --label ...` registers one).")
        return
    for listed in kept:
        out.print(f"{listed.id}  {listed.url}  ({listed.label})", markup=False)
        if listed.kinds:
            out.print(f"  Posts the items of these kinds: {', '.join(listed.kinds)}.", markup=False)
        else:
            out.print("  Posts every item.", markup=False)
        out.print(f"  Delivered through event {listed.delivered_through}.", markup=False)
        if listed.paused_because:
            resuming = f"morale hook resume {battle} {listed.id}"
            out.print(f"  Paused: {listed.paused_because}. `{resuming}` resumes it.", markup=False)
        elif listed.failures and listed.last_attempt is not None:
            last = listed.last_attempt
            if listed.failures == 1:
                out.print(f"  Retrying event {last.seq}: one attempt has failed: {last.answer}.", markup=False)
            else:
                failed = f"{listed.failures} attempts in a row have failed; the last: {last.answer}"
                out.print(f"  Retrying event {last.seq}: {failed}.", markup=False)
            out.print(f"  `morale hook resume {battle} {listed.id}` has it try again at once.", markup=False)


@hook.command("log")
def log_command(battle: BattleArg, hook_id: HookArg, db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """The hook's delivery log: its last attempts, oldest first, each with the receiver's answer."""
    with refusals(as_json):
        attempts = delivery_log(open_store(db), battle, hook_id)
    if as_json:
        emit_json(attempts)
        return
    if not attempts:
        out.print(f"Webhook {hook_id} has made no attempt yet.", markup=False)
    for attempt in attempts:
        if attempt.delivered:
            out.print(f"{attempt.at}  event {attempt.seq} delivered in {attempt.ms} ms: {attempt.answer}", markup=False)
        else:
            out.print(f"{attempt.at}  event {attempt.seq} failed after {attempt.ms} ms: {attempt.answer}", markup=False)


@hook.command("resume")
def resume_command(battle: BattleArg, hook_id: HookArg, db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """A paused webhook delivers again, from the first item it had not delivered; one retrying tries again now."""
    with refusals(as_json):
        resumed = resume(open_store(db), battle, hook_id)
    if as_json:
        emit_json(resumed)
        return
    after = resumed.delivered_through
    out.print(f"Webhook {hook_id} is tried again within seconds, from the item after event {after}.", markup=False)


@hook.command("remove")
def remove_command(battle: BattleArg, hook_id: HookArg, db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """Remove a webhook and its delivery log: nothing more is posted to it."""
    with refusals(as_json):
        removed = remove(open_store(db), battle, hook_id)
    if as_json:
        emit_json(removed)
        return
    out.print(f"Webhook {hook_id} ({removed.url}) is removed: nothing more is posted to it.", markup=False)
