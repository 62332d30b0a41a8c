"""`morale hook`: a battle's webhooks, for its referee: register a URL (add), list them, read one's
delivery log, resume a paused one, remove one. Kept in the store: the `morale serve` node that
delivers picks a change up within a few seconds, without a restart (app/webhooks/deliver.py)."""

from __future__ import annotations

from typing import Annotated

import typer

from morale.core.words import Words, counted, listed

from .. import language
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
    say = language.say
    if made.kinds:
        kinds = listed(made.kinds)
        said = Words(
            "Webhook {id} posts {battle}'s items of these kinds to {url}: {kinds}.",
            id=made.id,
            battle=battle,
            url=made.url,
            kinds=kinds,
        )
    else:
        said = Words("Webhook {id} posts every item of {battle} to {url}.", id=made.id, battle=battle, url=made.url)
    out.print(say(said), markup=False)
    out.print(say(Words("It starts after event {seq}.", seq=made.delivered_through)), markup=False)
    secret = Words("Its secret, shown this once (the receiver verifies each delivery's signature with it):")
    out.print(say(secret), markup=False)
    out.print(made.secret, markup=False)


@hook.command("list")
def list_command(battle: BattleArg, db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """The battle's webhooks: how far each has delivered, and why one is paused."""
    with refusals(as_json):
        kept = hooks_of(open_store(db), battle)
    if as_json:
        emit_json(kept)
        return
    say = language.say
    if not kept:
        said = Words(
            "Battle {battle} has no webhook (`morale hook add {battle} URL --label ...` registers one).", battle=battle
        )
        out.print(say(said))
        return
    for one in kept:
        out.print(f"{one.id}  {one.url}  ({one.label})", markup=False)
        if one.kinds:
            out.print(
                "  " + say(Words("Posts the items of these kinds: {kinds}.", kinds=listed(one.kinds))), markup=False
            )
        else:
            out.print("  " + say(Words("Posts every item.")), markup=False)
        out.print("  " + say(Words("Delivered through event {seq}.", seq=one.delivered_through)), markup=False)
        if one.paused_because:
            resuming = f"morale hook resume {battle} {one.id}"
            said = Words("Paused: {why}. `{resuming}` resumes it.", why=one.paused_because, resuming=resuming)
            out.print("  " + say(said), markup=False)
        elif one.failures and one.last_attempt is not None:
            last = one.last_attempt
            failed = counted(
                "Retrying event {seq}: one attempt has failed: {answer}.",
                "Retrying event {seq}: {n} attempts in a row have failed; the last: {answer}.",
                n=one.failures,
                seq=last.seq,
                answer=last.answer,
            )
            out.print("  " + say(failed), markup=False)
            again = Words("`morale hook resume {battle} {id}` has it try again at once.", battle=battle, id=one.id)
            out.print("  " + say(again), markup=False)


@hook.command("log")
def log_command(battle: BattleArg, hook_id: HookArg, db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """The hook's delivery log: its last attempts, oldest first, each with the receiver's answer."""
    with refusals(as_json):
        attempts = delivery_log(open_store(db), battle, hook_id)
    if as_json:
        emit_json(attempts)
        return
    if not attempts:
        out.print(language.say(Words("Webhook {id} has made no attempt yet.", id=hook_id)), markup=False)
    for attempt in attempts:
        fields = {"at": attempt.at, "seq": attempt.seq, "ms": attempt.ms, "answer": attempt.answer}
        if attempt.delivered:
            said = Words("{at}  event {seq} delivered in {ms} ms: {answer}", **fields)
        else:
            said = Words("{at}  event {seq} failed after {ms} ms: {answer}", **fields)
        out.print(language.say(said), markup=False)


@hook.command("resume")
def resume_command(battle: BattleArg, hook_id: HookArg, db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """A paused webhook delivers again, from the first item it had not delivered; one retrying tries again now."""
    with refusals(as_json):
        resumed = resume(open_store(db), battle, hook_id)
    if as_json:
        emit_json(resumed)
        return
    after = resumed.delivered_through
    said = Words("Webhook {id} is tried again within seconds, from the item after event {seq}.", id=hook_id, seq=after)
    out.print(language.say(said), markup=False)


@hook.command("remove")
def remove_command(battle: BattleArg, hook_id: HookArg, db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """Remove a webhook and its delivery log: nothing more is posted to it."""
    with refusals(as_json):
        removed = remove(open_store(db), battle, hook_id)
    if as_json:
        emit_json(removed)
        return
    said = Words("Webhook {id} ({url}) is removed: nothing more is posted to it.", id=hook_id, url=removed.url)
    out.print(language.say(said), markup=False)
