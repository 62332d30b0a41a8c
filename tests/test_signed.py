"""Signed heads, as a judge handed a file meets them: `morale export` carries the store's signatures
and public key, `morale verify FILE --key PUBLIC` checks it with no store and refuses (exit 2,
naming what failed) an edited event, a removed last event, a re-hashed log and a wrong key. The
key lives beside a SQLite store (0600, refused if looser), and rotates."""

from __future__ import annotations

import json
import shutil
import sqlite3
import stat

import pytest
from support.cli import morale, morale_command
from support.examples import example_store

from morale.events.codec import GENESIS_HASH, chain_hash, decode_raw, encode
from morale.events.signing import (
    KEY_FILE_VARIABLE,
    KEY_VARIABLE,
    SigningKey,
    generate,
    read_key_file,
    sqlite_key,
)

BATTLE = "hive-tarsis"


@pytest.fixture(autouse=True)
def no_key_from_the_environment(monkeypatch):
    monkeypatch.delenv(KEY_VARIABLE, raising=False)
    monkeypatch.delenv(KEY_FILE_VARIABLE, raising=False)


@pytest.fixture(scope="module")
def signed_store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("signed")
    example_store(folder / "demo.db").close()
    return folder / "demo.db"


@pytest.fixture
def exported(signed_store, tmp_path) -> list[str]:
    result = morale(signed_store, "export", BATTLE, "-o", str(tmp_path / "battle.ndjson"))
    assert result.exit_code == 0, result.output
    return (tmp_path / "battle.ndjson").read_text().splitlines()


@pytest.fixture
def public_key(signed_store, tmp_path) -> str:
    result = morale(signed_store, "key", "show", "--pem")
    assert result.exit_code == 0, result.output
    (tmp_path / "demo.pub").write_text(result.stdout)
    return str(tmp_path / "demo.pub")


SIGNATURES = ('{"signed_head"', '{"public_key"')


def events_of(lines: list[str]) -> list[dict]:
    return [json.loads(line) for line in lines if not line.startswith(SIGNATURES)]


def trailer_of(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith(SIGNATURES)]


def verify_file(tmp_path, lines: list[str], key: str):
    path = tmp_path / "handed.ndjson"
    path.write_text("\n".join(lines) + "\n")
    return morale_command("verify", str(path), "--key", key)


def test_the_key_is_made_beside_the_store_at_the_first_append_readable_by_its_owner_alone(signed_store):
    key_file = signed_store.with_name("demo.db.key")
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    # Not inside the store: a copy of the store file cannot sign as this store.
    assert b"PRIVATE KEY" not in signed_store.read_bytes()
    assert "PRIVATE KEY" in key_file.read_text()


def test_a_rival_that_finds_the_key_file_while_it_is_being_written_reads_the_whole_key(tmp_path, monkeypatch):
    # Six first appends at once on a new server: one writer creates the key file, and a rival that
    # comes in while the key is being written finds the file. It must read the key the file will
    # hold, never an empty file (the rival's append was refused with 503 when it could).
    path = tmp_path / "new.db.key"
    find = sqlite_key(str(tmp_path / "new.db"))
    rival_found: list[str] = []
    rivals = [find]  # one rival, once: its own write must not call another
    writing = SigningKey.private_pem

    def written_while_a_rival_looks(key: SigningKey) -> bytes:
        if rivals:
            rival_found.append(rivals.pop()().fingerprint)
        return writing(key)

    monkeypatch.setattr(SigningKey, "private_pem", written_while_a_rival_looks)
    first = find()
    assert rival_found == [first.fingerprint]
    assert read_key_file(path).fingerprint == first.fingerprint
    assert [p.name for p in tmp_path.iterdir()] == ["new.db.key"]  # no draft left beside it


def test_a_reader_makes_no_key(tmp_path):
    example_store(tmp_path / "a.db").close()
    (tmp_path / "a.db.key").unlink()
    assert morale(tmp_path / "a.db", "board", BATTLE).exit_code == 0
    assert not (tmp_path / "a.db.key").exists()


def test_an_export_carries_the_public_key_and_the_signed_heads_after_the_events(exported, signed_store):
    trailer = [json.loads(line) for line in trailer_of(exported)]
    events = events_of(exported)
    (listed,) = [line["public_key"] for line in trailer if "public_key" in line]
    heads = [line["signed_head"] for line in trailer if "signed_head" in line]
    assert "BEGIN PUBLIC KEY" in listed["pem"] and listed["key"].startswith("ed25519:")
    assert heads[-1]["seq"] == events[-1]["seq"] and heads[-1]["hash"] == events[-1]["hash"]
    phase_ends = {event["seq"] for event in events if event["event"]["type"] == "phase_ended"}
    assert phase_ends <= {head["seq"] for head in heads}
    assert exported.index(trailer_of(exported)[0]) == len(events)  # every event first, then the signatures


def test_a_judge_verifies_an_untouched_export_offline(tmp_path, exported, public_key):
    result = verify_file(tmp_path, exported, public_key)
    assert result.exit_code == 0, result.output
    last = events_of(exported)[-1]["seq"]
    assert f"OK ({last} events" in result.output and f"up to its last event, seq {last}" in result.output


def test_the_key_may_be_given_as_its_text(tmp_path, exported, public_key):
    with open(public_key) as file:
        assert verify_file(tmp_path, exported, file.read()).exit_code == 0


def test_an_edited_event_is_refused_at_its_seq(tmp_path, exported, public_key):
    edited = json.loads(exported[40])
    edited["event"]["count"] = 1 if edited["event"].get("count") != 1 else 2
    result = verify_file(tmp_path, [*exported[:40], encode(edited).decode(), *exported[41:]], public_key)
    assert result.exit_code == 2
    assert "line 41 (seq 41): hash does not match the event's bytes" in result.output


def test_a_removed_last_event_is_refused_by_the_last_signed_head(tmp_path, exported, public_key):
    events = events_of(exported)
    cut = trailer_of(exported)
    result = verify_file(tmp_path, [encode(e).decode() for e in events[:-1]] + cut, public_key)
    assert result.exit_code == 2
    last = events[-1]["seq"]
    assert f"the last signed head is seq {last} but the log ends at seq {last - 1}" in result.output


def rehashed(events: list[dict]) -> list[str]:
    """Sealed again, as a forger who knows the hashing would after an edit."""
    prev, out = GENESIS_HASH, []
    for line in events:
        body = decode_raw(encode(line)).body()  # the bytes its hash seals
        line["prev_hash"], line["hash"] = prev, chain_hash(prev, body)
        prev = line["hash"]
        out.append(encode(line).decode())
    return out


def test_a_rehashed_log_is_whole_but_refused_by_its_signed_head(tmp_path, exported, public_key):
    events = events_of(exported)
    events[-1]["recorded_at"] = "2026-01-01T00:00:00.000000Z"  # a change the rules cannot see
    forged = rehashed(events)
    result = verify_file(tmp_path, forged + trailer_of(exported), public_key)
    assert result.exit_code == 2
    seq = events[-1]["seq"]
    assert f"the head signed at seq {seq} seals hash" in result.output
    assert "the log was rewritten after it was signed" in result.output


def test_a_wrong_key_is_refused_naming_both_keys(tmp_path, exported):
    other = generate()
    result = verify_file(tmp_path, exported, other.public_pem)
    assert result.exit_code == 2
    assert f"no head is signed by key {other.fingerprint}; the heads are signed by ed25519:" in result.output


def test_heads_relabelled_with_the_judges_key_are_refused_as_signatures_that_do_not_match(tmp_path, exported):
    other = generate()
    relabelled = [
        json.dumps({"signed_head": {**json.loads(line)["signed_head"], "key": other.fingerprint}})
        if line.startswith('{"signed_head"')
        else line
        for line in exported
    ]
    assert relabelled
    result = verify_file(tmp_path, relabelled, other.public_pem)
    assert result.exit_code == 2
    assert f"does not match key {other.fingerprint}" in result.output


def test_a_file_without_signatures_is_refused_by_verify_but_imported_as_ever(tmp_path, exported, public_key):
    events = [line for line in exported if not line.startswith(SIGNATURES)]
    result = verify_file(tmp_path, events, public_key)
    assert result.exit_code == 2 and "no head of battle 'hive-tarsis' is signed" in result.output
    (tmp_path / "old.ndjson").write_text("\n".join(events) + "\n")
    assert morale(tmp_path / "old.db", "import", str(tmp_path / "old.ndjson")).exit_code == 0


def test_a_bad_public_key_is_refused_naming_the_option(tmp_path, exported):
    result = verify_file(tmp_path, exported, "demo.pub")
    assert result.exit_code == 2 and "--key" in result.output
    assert "demo.pub: no such file, nor an Ed25519 public key's text" in result.output
    broken = verify_file(tmp_path, exported, "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
    assert broken.exit_code == 2 and "not an Ed25519 public key (PEM, or 32 bytes in base64)" in broken.output


def test_an_imported_battle_keeps_its_signatures_and_still_verifies_against_its_first_key(
    tmp_path, exported, public_key
):
    (tmp_path / "in.ndjson").write_text("\n".join(exported) + "\n")
    assert morale(tmp_path / "judge.db", "import", str(tmp_path / "in.ndjson")).exit_code == 0
    again = morale(tmp_path / "judge.db", "export", BATTLE)
    assert verify_file(tmp_path, again.stdout.splitlines(), public_key).exit_code == 0
    ours = morale(tmp_path / "judge.db", "key", "show", "--pem").stdout
    assert verify_file(tmp_path, again.stdout.splitlines(), ours).exit_code == 0


def test_an_import_whose_signature_does_not_match_its_listed_key_is_refused(tmp_path, exported):
    forged = [
        json.dumps({"signed_head": {**json.loads(line)["signed_head"], "signature": "A" * 86 + "=="}})
        if line.startswith('{"signed_head"')
        else line
        for line in exported
    ]
    (tmp_path / "in.ndjson").write_text("\n".join(forged) + "\n")
    result = morale(tmp_path / "judge.db", "import", str(tmp_path / "in.ndjson"))
    assert result.exit_code == 2 and "does not match key ed25519:" in result.output
    assert not (tmp_path / "judge.db").exists() or morale(tmp_path / "judge.db", "battles").stdout.count(BATTLE) == 0


def test_verify_on_the_store_checks_its_signatures(tmp_path, signed_store):
    shutil.copy(signed_store, tmp_path / "store.db")
    ok = morale(tmp_path / "store.db", "verify", BATTLE)
    assert ok.exit_code == 0 and "signed heads:" in ok.output and "the last at seq" in ok.output
    with sqlite3.connect(tmp_path / "store.db") as conn:
        conn.execute("UPDATE signed_heads SET signature = ? WHERE seq = 9", ("A" * 86 + "==",))
    bad = morale(tmp_path / "store.db", "verify", BATTLE)
    assert bad.exit_code == 1 and "the signature of the head at seq 9 does not match key" in bad.output


def test_a_key_file_looser_than_0600_is_refused_in_one_line_and_nothing_is_written(tmp_path):
    example_store(tmp_path / "s.db").close()
    key_file = tmp_path / "s.db.key"
    key_file.chmod(0o644)
    before = morale(tmp_path / "s.db", "log", BATTLE, "--json").stdout
    result = morale(tmp_path / "s.db", "next-phase", BATTLE)
    assert result.exit_code == 2
    assert result.output.strip().count("\n") == 0
    assert "looser than 0600: chmod 600" in result.output and "s.db.key" in result.output
    assert morale(tmp_path / "s.db", "log", BATTLE, "--json").stdout == before


def test_a_key_from_the_environment_signs_instead_of_the_file(tmp_path, monkeypatch):
    key = generate()
    monkeypatch.setenv(KEY_VARIABLE, key.private_pem().decode())
    example_store(tmp_path / "e.db").close()
    assert not (tmp_path / "e.db.key").exists()
    assert morale(tmp_path / "e.db", "key", "show", "--pem").stdout == key.public_pem
    lines = morale(tmp_path / "e.db", "export", BATTLE).stdout.splitlines()
    assert verify_file(tmp_path, lines, key.public_pem).exit_code == 0


def test_after_a_rotation_the_new_key_signs_and_what_the_old_one_signed_still_verifies(tmp_path):
    example_store(tmp_path / "r.db").close()
    old = morale(tmp_path / "r.db", "key", "show", "--pem").stdout
    before = morale(tmp_path / "r.db", "export", BATTLE).stdout.splitlines()
    rotated = morale(tmp_path / "r.db", "key", "rotate")
    assert rotated.exit_code == 0 and "retired" in rotated.output
    retired = [path for path in tmp_path.iterdir() if path.name.endswith(".retired")]
    assert len(retired) == 1 and stat.S_IMODE(retired[0].stat().st_mode) == 0o600
    new = morale(tmp_path / "r.db", "key", "show", "--pem").stdout
    assert new != old
    assert morale(tmp_path / "r.db", "next-phase", BATTLE).exit_code == 0
    after = morale(tmp_path / "r.db", "export", BATTLE).stdout.splitlines()
    assert verify_file(tmp_path, before, old).exit_code == 0  # the file handed over before still verifies
    assert verify_file(tmp_path, after, new).exit_code == 0
    stale = verify_file(tmp_path, after, old)
    assert stale.exit_code == 2 and "the last signed head is seq" in stale.output
    shown = morale(tmp_path / "r.db", "key", "show")
    assert "retired" in shown.output
    assert morale(tmp_path / "r.db", "verify", BATTLE).exit_code == 0


def test_the_report_shows_the_key_and_the_signed_head_a_judge_can_match_with_the_export(tmp_path, signed_store):
    from html import unescape

    made = morale(signed_store, "report", BATTLE, "-o", str(tmp_path / "report.html"))
    assert made.exit_code == 0, made.output
    page = (tmp_path / "report.html").read_text()
    fingerprint = morale(signed_store, "key", "show", "--json").stdout
    fingerprint = json.loads(fingerprint)["key"]
    assert f'<span class="hash key">{fingerprint}</span>' in page
    embedded = unescape(page.split('<pre class="signed-head">')[1].split("</pre>")[0]).splitlines()
    exported = morale(signed_store, "export", BATTLE).stdout.splitlines()
    assert embedded[0] in exported  # the public key line
    assert embedded[1] == [line for line in exported if line.startswith('{"signed_head"')][-1]
    assert json.loads(embedded[1])["signed_head"]["hash"] in page.split('id="head">')[1]


def test_a_report_from_a_store_that_signs_nothing_says_so(tmp_path, pg_url):
    from support.examples import EXAMPLE

    assert morale(pg_url, "new", str(EXAMPLE / "roster.toml")).exit_code == 0  # type: ignore[arg-type]
    assert morale(pg_url, "report", BATTLE, "-o", str(tmp_path / "r.html")).exit_code == 0  # type: ignore[arg-type]
    assert "the store that made it has no signing key" in (tmp_path / "r.html").read_text()
    shown = morale(pg_url, "key", "show")  # type: ignore[arg-type]
    assert shown.exit_code == 2 and "this store has no signing key: give it one in $MORALE_SIGNING_KEY" in shown.output


def test_the_notation_carries_the_signed_head_and_its_key_and_import_checks_them(tmp_path, signed_store):
    text = morale(signed_store, "notation", "export", BATTLE).stdout
    tags = [line for line in text.splitlines() if line.startswith(("[PublicKey", "[SignedHead"))]
    last = events_of(morale(signed_store, "export", BATTLE).stdout.splitlines())[-1]
    assert tags[0].startswith('[PublicKey "ed25519:') and tags[1].startswith(
        f'[SignedHead {last["seq"]} "{last["hash"]}"'
    )
    (tmp_path / "b.txt").write_text(text)
    assert morale(tmp_path / "n.db", "notation", "import", str(tmp_path / "b.txt"), "--battle", "again").exit_code == 0
    forged = text.replace(tags[1], tags[1].replace(last["hash"], "0" * 64))
    (tmp_path / "forged.txt").write_text(forged)
    refused = morale(tmp_path / "n.db", "notation", "import", str(tmp_path / "forged.txt"), "--battle", "forged")
    assert refused.exit_code == 2
    line = text.splitlines().index(tags[1]) + 1
    assert (
        f"forged.txt line {line}, column 1: [SignedHead]: the signature of the head at seq {last['seq']}"
        in refused.output
    )


def test_an_append_over_http_is_signed_and_an_unusable_key_refuses_it_with_503(tmp_path):
    from litestar.testing import TestClient
    from support.served import bearer, creation_body

    from morale.app.http.server import Settings, create_app
    from morale.events.store import SqliteEventStore

    db = tmp_path / "served.db"
    with TestClient(create_app(db, Settings())) as client:
        created = client.post("/battles", json=creation_body())
        assert created.status_code == 201, created.text
        referee = created.json()["tokens"]["referee"]
        phase = {"type": "phase_started", "turn": 1, "side": "imperium", "phase": "movement"}
        posted = client.post(
            f"/battles/{BATTLE}/events", json={"expected_seq": 9, "events": [phase]}, headers=bearer(referee)
        )
        assert posted.status_code == 201, posted.text
        store = SqliteEventStore(db)
        assert [head.seq for head in store.signed_heads(BATTLE)][-2:] == [9, 10]
        store.close()
    (tmp_path / "served.db.key").chmod(0o640)
    with TestClient(create_app(db, Settings())) as client:
        ended = {"type": "phase_ended", "turn": 1, "side": "imperium", "phase": "movement"}
        refused = client.post(
            f"/battles/{BATTLE}/events", json={"expected_seq": 10, "events": [ended]}, headers=bearer(referee)
        )
        assert refused.status_code == 503 and "the server cannot sign" in refused.json()["detail"]
        assert "served.db.key" not in refused.text  # the server's paths stay on the server
    store = SqliteEventStore(db)
    assert store.last_seq(BATTLE) == 10
    store.close()


def test_a_dice_secret_given_with_a_file_is_refused_naming_the_option(tmp_path, exported, public_key):
    (tmp_path / "b.ndjson").write_text("\n".join(exported) + "\n")
    result = morale_command("verify", str(tmp_path / "b.ndjson"), "--key", public_key, "--secret", "a" * 64)
    assert result.exit_code == 2 and "--secret: " in result.output and "is for a store's battle" in result.output


def test_a_key_in_the_environment_that_is_no_key_is_refused_naming_the_variable(tmp_path, monkeypatch):
    from support.examples import EXAMPLE

    monkeypatch.setenv(KEY_VARIABLE, "not a key")
    result = morale(tmp_path / "k.db", "new", str(EXAMPLE / "roster.toml"))
    assert result.exit_code == 2
    assert "$MORALE_SIGNING_KEY: not an Ed25519 private key (PEM, or 32 bytes in base64)" in result.output
    monkeypatch.delenv(KEY_VARIABLE)
    assert morale(tmp_path / "k.db", "battles").stdout.count(BATTLE) == 0
