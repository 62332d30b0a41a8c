"""`morale serve --table BATTLE`: the whole table joins by scanning a code. The server listens on
the network, and prints per role a heading, a join link and its QR code, each with a fresh token
labelled for tonight (the battle's other tokens keep working). The codes are read back as a phone's
camera reads them, through zxing-cpp (support/qr.py), never from the text beside them; each opens
its role's console on a phone-sized page. Over TLS too, with a certificate made here."""

from __future__ import annotations

import datetime
import ipaddress
import json
import ssl
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from support.browser import PHONE, WAIT_MS
from support.cli import morale
from support.nodes import WAIT_S, Node, TableNode, free_port
from support.qr import decode_terminal_qr_codes, on_loopback
from support.served import BATTLE, ROSTER, bearer

from morale.app.cli.join_links import lan_address
from morale.app.roster import load_roster

END = "Ctrl-C stops the server."  # the line after the last code
SIDE_OF = {unit.unit: unit.side for unit in load_roster(ROSTER).units}


def first_set(db: Path) -> dict:
    """The example battle, and the tokens `morale new --tokens` issued it."""
    return json.loads(morale(db, "new", str(ROSTER), "--tokens", "--json").stdout)["tokens"]


def roles_opened(browser, urls: list[str], **context_options) -> list[str]:
    """What each link opens, as a person at the table would tell: the referee has the clock, a player
    records for their own side's units only, a spectator records nothing."""
    seen = []
    for url in urls:
        context = browser.new_context(viewport=PHONE, **context_options)
        page = context.new_page()
        page.goto(on_loopback(url))
        page.wait_for_selector("body[data-ready='true']", timeout=WAIT_MS)
        if page.locator("#tab-record").is_hidden():
            seen.append("spectator")
        else:
            page.locator("#tab-record").click()
            if page.locator("#next-phase").count():
                seen.append("referee")
            else:
                page.locator("#record .menu button[data-form='casualties']").click()
                units = page.locator("#record fieldset[data-name='unit'] button").evaluate_all(
                    "bs => bs.map(b => b.dataset.value)"
                )
                sides = {SIDE_OF[unit] for unit in units}
                seen.append(f"player: {sides.pop()}" if len(sides) == 1 else f"player of {sorted(sides)}")
        context.close()
    return seen


def test_the_table_joins_by_scanning_each_roles_code_and_nobody_is_logged_out(browser, tmp_path):
    db = tmp_path / "table.db"
    first = first_set(db)
    with TableNode(str(db), tmp_path / "node.log", BATTLE) as node:
        assert END in node.printed
        urls = node.join_urls
        assert len(urls) == 4
        host = lan_address() or "127.0.0.1"
        for url in urls:
            parts = urlsplit(url)
            assert (parts.scheme, parts.hostname, parts.port, parts.path) == ("http", host, node.port, "/view")
            assert parse_qs(parts.fragment)["battle"] == [BATTLE]
        assert roles_opened(browser, urls) == ["referee", "player: imperium", "player: orks", "spectator"]
        # The battle's earlier tokens still open it, and the list names tonight's links.
        http = httpx.Client(base_url=node.url, timeout=WAIT_S)
        for token in [first["referee"], first["spectator"], *first["players"].values()]:
            assert http.get(f"/battles/{BATTLE}/board", headers=bearer(token)).status_code == 200
        listed = http.get(f"/battles/{BATTLE}/tokens", headers=bearer(first["referee"])).json()
        labels = [row["label"] for row in listed]
        assert labels.count("issued with the battle") == 4
        assert len([label for label in labels if label.startswith("table link ")]) == 4


def test_a_public_url_is_the_base_of_every_link(tmp_path):
    db = tmp_path / "table.db"
    first_set(db)
    with TableNode(str(db), tmp_path / "node.log", BATTLE, "--public-url", "https://club.example/morale/") as node:
        urls = node.join_urls
    assert [url.split("#")[0] for url in urls] == ["https://club.example/morale/view"] * 4


def test_the_share_screens_links_name_the_tables_address_whatever_the_referees_page_was_opened_on(tmp_path):
    db = tmp_path / "table.db"
    first = first_set(db)
    with TableNode(str(db), tmp_path / "node.log", BATTLE) as node:
        base = node.join_urls[0].split("#")[0]
        # The referee's own page on the machine itself (127.0.0.1): a phone could open none of its links.
        made = httpx.post(
            f"{node.url}/battles/{BATTLE}/tokens",
            json={"role": "player", "side": "orks", "label": "Anna's phone"},
            headers=bearer(first["referee"]),
            timeout=WAIT_S,
        ).json()
    assert made["join_url"].split("#")[0] == base
    assert urlsplit(base).hostname == (lan_address() or "127.0.0.1")


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, made for the test (as a club would with openssl)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "morale test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    certfile, keyfile = folder / "cert.pem", folder / "key.pem"
    certfile.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    keyfile.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return certfile, keyfile


def trusting(certfile: Path) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(certfile))


class TlsNode(Node):
    """A node that answers over HTTPS only: waited for with the test's certificate."""

    def __init__(self, db: str, log: Path, certfile: Path, *args: str) -> None:
        super().__init__(db, log, *args)
        self.url = f"https://127.0.0.1:{self.port}"
        self.certfile = certfile

    def __enter__(self) -> TlsNode:
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                if httpx.get(f"{self.url}/health", verify=trusting(self.certfile), timeout=2).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"morale serve did not start: {self.log.read_text()}")
            time.sleep(0.05)


def test_over_tls_the_links_are_https_and_open_the_console(browser, tmp_path):
    certfile, keyfile = self_signed(tmp_path)
    db = tmp_path / "table.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    tls = ("--ssl-certfile", str(certfile), "--ssl-keyfile", str(keyfile))
    with TlsNode(str(db), tmp_path / "node.log", certfile, "--table", BATTLE, "--host", "127.0.0.1", *tls) as node:
        printed = node.log.read_text()
        assert f"on https://127.0.0.1:{node.port}/" in printed
        urls = decode_terminal_qr_codes(printed)
        assert all(url.startswith(f"https://127.0.0.1:{node.port}/view#") for url in urls)
        token = parse_qs(urlsplit(urls[0]).fragment)["token"][0]
        board = httpx.get(f"{node.url}/battles/{BATTLE}/board", headers=bearer(token), verify=trusting(certfile))
        assert board.status_code == 200
        with pytest.raises(httpx.TransportError):  # plain HTTP is not answered on a TLS port
            httpx.get(f"http://127.0.0.1:{node.port}/health", timeout=5).raise_for_status()
        assert roles_opened(browser, urls[:1], ignore_https_errors=True) == ["referee"]


def test_a_certificate_without_its_key_or_a_table_that_does_not_exist_is_refused(tmp_path):
    certfile, _ = self_signed(tmp_path)
    db = tmp_path / "table.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    alone = morale(db, "serve", "--ssl-certfile", str(certfile))
    assert alone.exit_code == 2 and "--ssl-certfile and --ssl-keyfile go together" in alone.stderr
    missing = morale(db, "serve", "--ssl-certfile", str(certfile), "--ssl-keyfile", str(tmp_path / "nowhere.pem"))
    assert missing.exit_code == 2 and "nowhere.pem" in missing.stderr
    any_port = morale(db, "serve", "--table", BATTLE, "--port", "0")
    assert any_port.exit_code == 2 and "--table needs a port of its own" in any_port.stderr
    nowhere = morale(db, "serve", "--table", "no-such-battle", "--port", str(free_port()))
    assert nowhere.exit_code == 2 and "no battle 'no-such-battle'" in nowhere.stderr
    bad_url = morale(db, "serve", "--public-url", "club.example")
    assert bad_url.exit_code == 2 and "public-url" in bad_url.stderr


def test_without_a_network_the_links_name_loopback_and_say_so(monkeypatch):
    from rich.console import Console

    from morale.app.cli import join_links

    said = Console(record=True, width=200)
    monkeypatch.setattr(join_links, "lan_address", lambda: None)
    assert join_links.link_host("0.0.0.0", said) == "127.0.0.1"
    assert "No network found: the links use 127.0.0.1, which only this machine can open." in said.export_text()
    assert join_links.link_host("192.168.1.20", said) == "192.168.1.20"  # one address listened on: that one
