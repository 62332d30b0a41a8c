"""`morale serve --table BATTLE`: what the table needs to join in seconds. The machine's address
on the local network, and for each role a heading, a join link and its QR code in the terminal,
each link with a fresh labelled token (the battle's other tokens keep working)."""

from __future__ import annotations

import socket
import ssl
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from morale.core.rules import Refusal
from morale.core.words import Words
from morale.events.store import EventStore

from .. import language
from ..access import IssuedTokens, issue_tokens, utc_now

ANY_ADDRESS = ("0.0.0.0", "::", "")  # every interface: what a table asks for
LOOPBACK = "127.0.0.1"


def lan_address() -> str | None:
    """The address of the interface with the default route, or None if there is none. A UDP
    socket "connected" to an outside address sends nothing: it only makes the kernel choose the
    interface and the source address it would send from."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1 (RFC 5737): never a real host
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("0.") else address


def link_host(listening_on: str, console: Console) -> str:
    """The host the join links name: the one listened on if it is one address, else the LAN's;
    loopback, said so, when the machine has no network."""
    if listening_on not in ANY_ADDRESS:
        return listening_on
    found = lan_address()
    if found is None:
        said = Words("No network found: the links use {address}, which only this machine can open.", address=LOOPBACK)
        console.print(language.say(said), markup=False)
        return LOOPBACK
    return found


def check_tls(certfile: Path | None, keyfile: Path | None) -> bool:
    """True when the server is to speak TLS; the certificate and key are read now, so a wrong path
    or a key that does not match is refused in one line before anything is served."""
    if certfile is None and keyfile is None:
        return False
    if certfile is None or keyfile is None:
        raise Refusal(Words("--ssl-certfile and --ssl-keyfile go together: give both"), field="ssl-certfile")
    for option, path in (("ssl-certfile", certfile), ("ssl-keyfile", keyfile)):
        if not path.is_file():
            raise Refusal(Words("no file {path}", path=path), field=option)
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(certfile, keyfile)
    except (ssl.SSLError, OSError) as exc:
        said = Words(
            "cannot use {certfile} with {keyfile}: {error}",
            certfile=certfile,
            keyfile=keyfile,
            error=exc.strerror or exc,
        )
        raise Refusal(said, field="ssl-certfile") from None
    return True


def table_tokens(store: EventStore, battle: str, sides: Sequence[str]) -> IssuedTokens:
    """One token per role for tonight's links, labelled with when they were made."""
    made = utc_now().replace("T", " ")[:16]  # "2026-12-01 15:40"
    return issue_tokens(store, battle, sides, f"table link {made}")


def print_join_links(console: Console, base: str, battle: str, tokens: IssuedTokens) -> None:
    """Per role: a heading, the join URL and its QR code. Tokens ride in the fragment, which the
    browser never sends: no server or proxy log holds them."""
    roles = [(Words("The referee joins with this code."), tokens.referee)]
    roles += [(Words("The {side} player joins with this code.", side=side), t) for side, t in tokens.players.items()]
    roles += [(Words("A spectator joins with this code."), tokens.spectator)]
    from ..join import join_url, terminal_qr  # segno: only when links are printed

    for heading, token in roles:
        url = join_url(base, battle, token)
        console.print()
        console.print(language.say(heading), markup=False, style="bold")
        console.print(url, markup=False, soft_wrap=True)
        console.print(terminal_qr(url), markup=False, highlight=False, end="")
    console.print()
    said = Words("Open a link on each phone, or scan its code. Ctrl-C stops the server.")
    console.print(language.say(said), markup=False)
