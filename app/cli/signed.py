"""`morale key`: the store's signing key (its public half to hand a judge, and rotation), and what
`morale verify` adds for signed heads: a file checked offline against a public key, and a store's
own signatures."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from morale.core.rules import Refusal
from morale.core.words import Words, counted

from .. import language
from ..files import MAX_LOG_BYTES, check_line_lengths, read_bounded
from ..signed import StoreHeads, key_of, rotate, verify_file
from .base import DEFAULT_DB, Db, Json, app, emit_json, open_store, out, refusals

key = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(key, name="key")


@key.callback()
def _key() -> None:
    """The store's signing key: its public key for a judge (show), and a new key (rotate)."""


@key.command("show")
def show_command(
    pem: Annotated[bool, typer.Option("--pem", help="Print only the public key (PEM), to hand a judge.")] = False,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """The public key this store signs heads with, its fingerprint, and every key it signed with
    before (a SQLite store makes its key now if it has none yet)."""
    with refusals(as_json):
        store = open_store(db)
        current = key_of(store)
        listed = store.public_keys()
    if pem:
        out.print(current.public_pem, end="", markup=False)
        return
    if as_json:
        emit_json({"key": current.fingerprint, "public_key": current.public_pem, "listed": listed})
        return
    say = language.say
    out.print(Text(say(Words("signs with {key}", key=current.fingerprint))))
    out.print(current.public_pem, end="", markup=False)
    for fingerprint in sorted(set(listed) - {current.fingerprint}):
        out.print(
            Text(say(Words("signed with {key} before (retired; what it signed still verifies)", key=fingerprint)))
        )


@key.command("rotate")
def rotate_command(db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """A new signing key for a SQLite store: it signs from now on; the old key file is kept beside it,
    retired, and its public key stays listed, so what it signed still verifies."""
    with refusals(as_json):
        open_store(db)  # a --db that holds no store is refused first
        new, retired = rotate(db)
    if as_json:
        emit_json({"key": new.fingerprint, "public_key": new.public_pem, "retired": str(retired) if retired else None})
        return
    out.print(Text(language.say(Words("signs with {key} from now on", key=new.fingerprint))))
    if retired is not None:
        out.print(Text(language.say(Words("the old key is kept, retired, in {path}", path=retired))))


def print_store_heads(console: Console, heads: StoreHeads) -> None:
    say = language.say
    if not heads.signed:
        console.print("  " + say(Words("signed heads: none (written before morale signed, or by a store with no key)")))
        return
    for check in heads.checks:
        if check.ok:
            said = Words(
                "signed heads: {heads} by {key}, the last at seq {seq}",
                heads=check.heads,
                key=check.key,
                seq=check.signed_seq,
            )
            console.print("  " + say(said))
        else:
            console.print(Text("  " + say(Words("signed heads: {problem}", problem=check.problem)), style="red"))


def verify_file_command(file: str, key_given: str, as_json: bool, *, secret_given: bool = False) -> None:
    """`morale verify FILE --key PUBLIC`: refused (exit 2) naming what failed, or OK and how far signed."""
    with refusals(as_json):
        if secret_given:
            said = Words(
                "a file is checked with the dice secret its log reveals, if it does: --secret is for a store's battle"
            )
            raise Refusal(said, field="--secret")
        data = read_bounded(Path(file), MAX_LOG_BYTES)
        check_line_lengths(data, str(file))
        done = verify_file(data.splitlines(), file, key_given)
    heads, checked = done.heads, done.checked
    if as_json:
        emit_json(
            {"battle": checked.battle, "ok": True, "events": len(checked.sealed), "head": checked.head}
            | {"key": heads.key, "signed_seq": heads.signed_seq, "signed_heads": heads.heads}
        )
        return
    say = language.say
    said = Text(f"{checked.battle}: ") + Text(say(Words("OK")), style="bold green")
    events = counted(
        " ({n} event, head {head})", " ({n} events, head {head})", n=len(checked.sealed), head=checked.head
    )
    out.print(said + Text(say(events)))
    signed = counted(
        "signed by {key} up to its last event, seq {seq} ({n} signed head)",
        "signed by {key} up to its last event, seq {seq} ({n} signed heads)",
        n=heads.heads,
        key=heads.key,
        seq=heads.signed_seq,
    )
    out.print(Text("  " + say(signed)))
