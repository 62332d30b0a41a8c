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
from morale.events.store import EventStore

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
        console.print(f"No network found: the links use {LOOPBACK}, which only this machine can open.", markup=False)
        return LOOPBACK
    return found


def check_tls(certfile: Path | None, keyfile: Path | None) -> bool:
    """True when the server is to speak TLS; the certificate and key are read now, so a wrong path
    or a key that does not match is refused in one line before anything is served."""
    if certfile is None and keyfile is None:
        return False
    if certfile is None or keyfile is None:
        raise Refusal("--ssl-certfile and --ssl-keyfile go together: give both", field="ssl-certfile")
    for option, path in (("ssl-certfile", certfile), ("ssl-keyfile", keyfile)):
        if not path.is_file():
            raise Refusal(f"no file {path}", field=option)
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(certfile, keyfile)
    except (ssl.SSLError, OSError) as exc:
        raise Refusal(f"cannot use {certfile} with {keyfile}: {exc.strerror or exc}", field="ssl-certfile") from None
    return True


def table_tokens(store: EventStore, battle: str, sides: Sequence[str]) -> IssuedTokens:
    """One token per role for tonight's links, labelled with when they were made."""
    made = utc_now().replace("T", " ")[:16]  # "2026-12-01 15:40"
    return issue_tokens(store, battle, sides, f"table link {made}")


def print_join_links(console: Console, base: str, battle: str, tokens: IssuedTokens) -> None:
    """Per role: a heading, the join URL and its QR code. Tokens ride in the fragment, which the
    browser never sends: no server or proxy log holds them."""
    roles = [("The referee joins with this code.", tokens.referee)]
    roles += [(f"The {side} player joins with this code.", token) for side, token in tokens.players.items()]
    roles += [("A spectator joins with this code.", tokens.spectator)]
    from ..join import join_url, terminal_qr  # segno: only when links are printed

    for heading, token in roles:
        url = join_url(base, battle, token)
        console.print()
        console.print(heading, markup=False, style="bold")
        console.print(url, markup=False, soft_wrap=True)
        console.print(terminal_qr(url), markup=False, highlight=False, end="")
    console.print()
    console.print("Open a link on each phone, or scan its code. Ctrl-C stops the server.", markup=False)
